#!/bin/sh
# SPDX-License-Identifier: MIT
# security.sh CASE VRAMTRACE_BIN LIB SIMDIR T_SECURE T_SECURE_PLAIN [SANITIZE]: the security
# properties of docs/reliability.md, each a case:
#   setuid   AT_SECURE through a real setuid binary (root only; 77 otherwise, on nosuid, and in
#            a sanitizer build, SANITIZE being its VRAMTRACE_SANITIZE list): inert
#   mode     the trace file is 0600 whatever the umask, and when an empty claim of another mode
#            is reused; a stale file with content is kept as it was
#   cloexec  a traced program's exec'd child does not inherit the trace's descriptor
#   output   VRAMTRACE_OUTPUT relative, empty, too long, a too-long name, a missing directory,
#            a symbolic link (to a file, dangling), a directory: as documented
#   rules    VRAMTRACE_RULES relative, empty, too long, missing, a directory, a symbolic link,
#            a FIFO (refused at once: no wait for a writer)
. "$(dirname "$0")/../../lib/preamble.sh"
case_=$1 vt=$2 lib=$3 sim=$4 prog=$5 plainprog=$6 sanitize=${7:-}
check_name="security $case_"
# plain: the program without the library, the reference output (plain.out, plain.status)
env -i PATH="$PATH" LD_LIBRARY_PATH="$sim" "$plainprog" >plain.out 2>plain.err
echo $? >plain.status
traced() { # traced TAG VAR=VALUE...: the program preloaded; TAG.out, TAG.err, TAG.status
    # (a hang is stopped after 60 s: status 124, not the program's)
    tag=$1
    shift
    timeout 60 env -i PATH="$PATH" LD_LIBRARY_PATH="$sim" LD_PRELOAD="$lib" VRAMTRACE_QUIET=1 "$@" \
        "$plainprog" >"$tag.out" 2>"$tag.err"
    echo $? >"$tag.status"
}
same() { # same TAG: TAG ran exactly as the program without the library
    check "$1: exit status $(cat "$1.status"), untraced $(cat plain.status)" cmp -s "$1.status" plain.status
    check "$1: the same stdout as untraced" cmp -s "$1.out" plain.out
}
warns() { # warns TAG PATTERN: exactly one line on TAG's stderr, matching PATTERN
    check "$1: one warning matching '$2': $(cat "$1.err")" \
        sh -c '[ "$(wc -l <"$1")" = 1 ] && grep -q -- "$2" "$1"' sh "$1.err" "$2"
}
silent() { # silent TAG: nothing on TAG's stderr
    check "$1: no message: $(cat "$1.err")" [ ! -s "$1.err" ]
}
allocs() { # allocs FILE: the allocations of the trace FILE (empty when it does not read)
    "$vt" report --json "$1" 2>/dev/null | sed -n 's/.*"allocs": \([0-9]*\).*/\1/p' | head -n 1
}
vtrs() { # vtrs DIR: the trace files in DIR, one line
    find "$1" -type f -name '*.vtr' | sort | tr '\n' ' '
}

case $case_ in
setuid)
    if [ "$(id -u)" != 0 ] || ! id nobody >/dev/null 2>&1; then
        echo "security.sh: setuid needs root and a user nobody: skipped"
        exit 77
    fi
    case $sanitize in
    *address* | *leak* | *thread* | *memory*)
        # LeakSanitizer stops the world with ptrace at exit, which a setuid process (other
        # credentials, not dumpable) refuses: every instrumented program exits 1 there.
        echo "security.sh: the $sanitize runtime cannot run a setuid program: skipped"
        exit 77
        ;;
    esac
    chmod 755 "$tmp"
    if findmnt -no OPTIONS -T "$tmp" | tr , '\n' | grep -qx nosuid; then
        echo "security.sh: $tmp is on a nosuid file system: skipped"
        exit 77
    fi
    mkdir out && chmod 1777 out # writable by nobody: only the library's inertness keeps it empty
    cp "$prog" t_secure && cp "$plainprog" t_secure_plain || exit 1
    for p in t_secure t_secure_plain; do
        chown nobody "$p" && chmod 4755 "$p" || exit 1
    done
    cp "$prog" t_secure_nosuid # the same binary, not setuid: the control
    ./t_secure probe >probe.out 2>&1
    if ! grep -q "^secure 1 euid $(id -u nobody) ruid 0 " probe.out; then
        echo "security.sh: setuid not honoured here ($(cat probe.out); no_new_privs?): skipped"
        exit 77
    fi
    env -i PATH="$PATH" VRAMTRACE_OUTPUT="$tmp/out/t.vtr" ./t_secure_nosuid probe >probe2.out 2>&1
    check "t_secure maps libvramtrace.so itself: $(cat probe.out)" grep -q ' vramtrace loaded$' probe.out
    env -i PATH="$PATH" ./t_secure_plain >plain.out 2>plain.err
    echo $? >plain.status
    check "the untraced copy ran: $(cat plain.out plain.err)" grep -q '^free: 0$' plain.out
    # The control: the same binary without the setuid bit records, and says so.
    env -i PATH="$PATH" VRAMTRACE_OUTPUT="$tmp/out/control.vtr" ./t_secure_nosuid \
        >control.out 2>control.err
    echo $? >control.status
    same control
    check "control: a trace with 3 allocations ($(vtrs out))" [ "$(allocs out/control.vtr)" = 3 ]
    check "control: the exit line" grep -q '^vramtrace: peak' control.err
    rm -f out/*
    # setuid: AT_SECURE, the library is mapped and inert.
    env -i PATH="$PATH" VRAMTRACE_OUTPUT="$tmp/out/t.vtr" VRAMTRACE_VERBOSE=3 \
        VRAMTRACE_RULES=/etc/shadow ./t_secure >setuid.out 2>setuid.err
    echo $? >setuid.status
    same setuid
    silent setuid
    check "setuid: no trace file ($(vtrs out) $(vtrs .))" [ -z "$(vtrs out)$(vtrs .)" ]
    # LD_PRELOAD of an absolute path: ld.so drops it in a secure process.
    env -i PATH="$PATH" LD_PRELOAD="$lib" ./t_secure_plain probe >preload-probe.out 2>&1
    check "LD_PRELOAD=$lib dropped for a setuid program: $(cat preload-probe.out)" \
        grep -q ' vramtrace not loaded$' preload-probe.out
    env -i PATH="$PATH" LD_PRELOAD="$lib" LD_LIBRARY_PATH="$sim" ./t_secure_nosuid probe \
        >preload-probe2.out 2>&1
    env -i PATH="$PATH" LD_PRELOAD="$lib" VRAMTRACE_OUTPUT="$tmp/out/p.vtr" ./t_secure_plain \
        >preload.out 2>preload.err
    echo $? >preload.status
    same preload
    silent preload
    check "LD_PRELOAD setuid: no trace file ($(vtrs out))" [ -z "$(vtrs out)" ]
    ;;
mode)
    for mask in 000 022 077; do
        (umask $mask && traced "umask$mask" VRAMTRACE_OUTPUT="$tmp/m$mask.vtr")
        same "umask$mask"
        check "umask $mask: t.vtr is 0600 ($(stat -c %a "m$mask.vtr" 2>&1))" \
            [ "$(stat -c %a "m$mask.vtr" 2>&1)" = 600 ]
        (umask $mask && traced "prefix$mask" VRAMTRACE_OUTPUT="$tmp/p$mask")
        check "umask $mask: PREFIX.<pid>.vtr is 0600 ($(stat -c %a "p$mask".*.vtr 2>&1))" \
            [ "$(stat -c %a "p$mask".*.vtr 2>&1)" = 600 ]
    done
    # An empty claim of ours left readable by others (a copy, an older version) is reused 0600;
    # a file that holds something is never truncated: the trace goes beside it, 0600 too.
    for old_mode in 644 666 700; do
        : >"reused$old_mode.vtr"
        chmod "$old_mode" "reused$old_mode.vtr"
        traced "reused$old_mode" VRAMTRACE_OUTPUT="$tmp/reused$old_mode.vtr"
        same "reused$old_mode"
        check "a reused $old_mode trace is 0600 ($(stat -c %a "reused$old_mode.vtr" 2>&1))" \
            [ "$(stat -c %a "reused$old_mode.vtr" 2>&1)" = 600 ]
        check "the reused $old_mode trace was written" [ "$(allocs "reused$old_mode.vtr")" = 3 ]
        echo stale >"kept$old_mode.vtr"
        chmod "$old_mode" "kept$old_mode.vtr"
        traced "kept$old_mode" VRAMTRACE_OUTPUT="$tmp/kept$old_mode.vtr"
        same "kept$old_mode"
        check "a stale $old_mode file is kept as it was" \
            [ "$(cat "kept$old_mode.vtr"):$(stat -c %a "kept$old_mode.vtr")" = "stale:$old_mode" ]
        check "the trace beside it is 0600 ($(stat -c %a "kept$old_mode".*.vtr 2>&1))" \
            [ "$(stat -c %a "kept$old_mode".*.vtr 2>&1)" = 600 ]
    done
    ;;
cloexec)
    echo x >inherited
    # fd 9 is inherited on purpose: it shows that the listing sees what a child inherits.
    env -i PATH="$PATH" LD_LIBRARY_PATH="$sim" LD_PRELOAD="$lib" VRAMTRACE_OUTPUT="$tmp/t.vtr" \
        VRAMTRACE_QUIET=1 "$plainprog" exec ls -l /proc/self/fd/ >exec.out 2>exec.err 9<inherited
    check "the program ran: $(cat exec.out exec.err)" grep -q '^child 0$' exec.out
    check "the listing shows an inherited descriptor (fd 9)" grep -q "9 -> $tmp/inherited" exec.out
    check "the trace's descriptor is not inherited by the exec'd child" \
        sh -c '! grep -q "\.vtr" exec.out'
    check "the trace was open then (1 allocation)" [ "$(allocs t.vtr)" = 1 ]
    ;;
output)
    mkdir sub
    (cd sub && traced ../relative VRAMTRACE_OUTPUT=rel/t.vtr) # a missing relative directory
    same relative
    warns relative "vramtrace: disabled: cannot write 'rel/t.vtr'"
    mkdir sub/rel
    (cd sub && traced ../relative2 VRAMTRACE_OUTPUT=rel/t.vtr)
    same relative2
    silent relative2
    check "relative: to the working directory" [ "$(allocs sub/rel/t.vtr)" = 3 ]
    for v in empty long; do
        mkdir "$v" && cd "$v" || exit 1
        [ $v = empty ] && value="" || value=$(printf '%05000d' 0)
        traced "../$v" VRAMTRACE_OUTPUT="$value"
        cd .. || exit 1
        same "$v"
        warns "$v" "vramtrace: ignoring VRAMTRACE_OUTPUT="
        check "$v: ignored: the default vramtrace.<pid>.vtr ($(vtrs "$v"))" \
            [ "$(allocs "$v"/vramtrace.*.vtr)" = 3 ]
    done
    name=$(printf 'n%0300d' 0).vtr # a path under PATH_MAX whose name is over NAME_MAX
    traced longname VRAMTRACE_OUTPUT="$tmp/$name"
    same longname
    warns longname "vramtrace: disabled: cannot write"
    traced missing VRAMTRACE_OUTPUT="$tmp/no/such/dir/t.vtr"
    same missing
    warns missing "vramtrace: disabled: cannot write '$tmp/no/such/dir/t.vtr'"
    check "missing: no directory made" [ ! -e no ]
    echo precious >target
    ln -s target link.vtr
    traced symlink VRAMTRACE_OUTPUT="$tmp/link.vtr"
    same symlink
    warns symlink "vramtrace: disabled: cannot write '$tmp/link.vtr'"
    check "symlink: not followed (target untouched)" [ "$(cat target)" = precious ]
    ln -s nothing-here dangling.vtr
    traced dangling VRAMTRACE_OUTPUT="$tmp/dangling.vtr"
    same dangling
    warns dangling "vramtrace: disabled: cannot write '$tmp/dangling.vtr'"
    check "dangling symlink: its target not created" [ ! -e nothing-here ]
    mkdir dir.vtr
    traced directory VRAMTRACE_OUTPUT="$tmp/dir.vtr"
    same directory
    warns directory "vramtrace: disabled: cannot write"
    check "directory: left empty" [ -z "$(ls dir.vtr)" ]
    check "no stray trace anywhere ($(vtrs .))" \
        [ "$(vtrs .)" = "./empty/$(cd empty && ls) ./long/$(cd long && ls) ./sub/rel/t.vtr " ]
    ;;
rules)
    echo 'weights api:*' >all-weights.rules
    weights() { # weights FILE: peak.by_category.weights of the trace FILE
        "$vt" report --json "$1" 2>/dev/null | tr -d '\n ' |
            sed -n 's/.*"by_category":{[^}]*"weights":\([0-9]*\).*/\1/p'
    }
    traced relative VRAMTRACE_OUTPUT="$tmp/relative.vtr" VRAMTRACE_RULES=all-weights.rules
    same relative
    silent relative
    check "relative: read from the working directory (weights $(weights relative.vtr))" \
        [ "$(weights relative.vtr)" = 6291456 ]
    ln -s all-weights.rules link.rules
    traced symlink VRAMTRACE_OUTPUT="$tmp/symlink.vtr" VRAMTRACE_RULES="$tmp/link.rules"
    same symlink
    silent symlink
    check "symlink: a rules file is input, read through a link" [ "$(weights symlink.vtr)" = 6291456 ]
    traced empty VRAMTRACE_OUTPUT="$tmp/empty.vtr" VRAMTRACE_RULES=
    same empty
    warns empty "vramtrace: ignoring VRAMTRACE_RULES='': empty"
    traced long VRAMTRACE_OUTPUT="$tmp/long.vtr" VRAMTRACE_RULES="$(printf '%05000d' 0)"
    same long
    warns long "vramtrace: ignoring VRAMTRACE_RULES='00000.*': too long"
    traced missing VRAMTRACE_OUTPUT="$tmp/missing.vtr" VRAMTRACE_RULES="$tmp/no/such.rules"
    same missing
    warns missing "vramtrace: cannot read rules '$tmp/no/such.rules': No such file or directory; using the default rules"
    traced directory VRAMTRACE_OUTPUT="$tmp/directory.vtr" VRAMTRACE_RULES="$tmp"
    same directory
    warns directory "vramtrace: cannot read rules '$tmp': Is a directory; using the default rules"
    mkfifo fifo.rules
    traced fifo VRAMTRACE_OUTPUT="$tmp/fifo.vtr" VRAMTRACE_RULES="$tmp/fifo.rules"
    same fifo
    warns fifo "vramtrace: cannot read rules '$tmp/fifo.rules': not a regular file; using the default rules"
    for t in empty long missing directory fifo; do
        check "$t: defaults, the trace written (weights $(weights $t.vtr))" \
            [ "$(allocs $t.vtr)" = 3 ] && [ "$(weights $t.vtr)" != 6291456 ]
    done
    ;;
*)
    echo "security.sh: unknown case '$case_'" >&2
    exit 2
    ;;
esac
if [ $fail -ne 0 ]; then
    exit 1
fi
echo "1 passed, 0 failed"
