#!/bin/sh
# SPDX-License-Identifier: MIT
# harm.sh CASE VRAMTRACE LIB SIMDIR PROGRAM: t_harm CASE (t_harm.c) untraced and traced on the
# simulated device. The output, the exit status and the program's own files must be the same
# (vramtrace never harms the program); then the traces must be as the case says.
. "$(dirname "$0")/../../lib/preamble.sh"
case_=$1 vt=$2 lib=$3 sim=$4 prog=$5
check_name="harm $case_"
mkdir plain traced
settings=""
json() { "$vt" report --json "$1" >report.json 2>report.err; }
field() { sed -n "s/.*\"$1\": \([0-9a-z]*\).*/\1/p" report.json | head -n 1; }
# run DIR PRELOAD CMD...: CMD in DIR with the simulator, stdout in DIR/out, stderr DIR/err.
run() {
    dir=$1 preload=$2
    shift 2
    # shellcheck disable=SC2086 # $settings are words
    (cd "$dir" && env -i PATH="$PATH" LD_LIBRARY_PATH="$sim" VTSIM_DEVICE_MEMORY=4G \
        LD_PRELOAD="$preload" VRAMTRACE_OUTPUT="$tmp/traced/t.vtr" $settings \
        timeout 30 "$@" >out 2>err)
    echo $? >"$dir/status"
}
same() { # same: the program's output, status and user.dat are those of the untraced run
    check "exit status $(cat traced/status) traced, $(cat plain/status) untraced" \
        cmp -s plain/status traced/status
    check "the same output traced and untraced: $(diff plain/out traced/out)" \
        cmp -s plain/out traced/out
    if [ -e plain/user.dat ]; then
        check "user.dat byte-identical ($(stat -c %s traced/user.dat) bytes traced)" \
            cmp -s plain/user.dat traced/user.dat
    fi
}
case $case_ in
fd-reuse | fd-dup2 | fd-closefrom)
    run plain "" "$prog" "$case_"
    run traced "$lib" "$prog" "$case_"
    same
    check "the untraced run put user.dat on the number: $(cat plain/out)" \
        grep -qx 'user.dat on the trace.s number: yes' plain/out
    check "1 MiB written" grep -qx 'wrote 1048576 bytes' traced/out
    check "one warning: $(cat traced/err)" \
        [ "$(grep -c "vramtrace: stopped: the program closed or reused the trace's descriptor" traced/err)" = 1 ]
    check "the exit line names the partial trace" \
        grep -q "partial trace '$tmp/traced/t.vtr'\$" traced/err
    json traced/t.vtr
    check "the partial trace reads ($(cat report.err))" [ $? -eq 0 ] || [ -s report.json ]
    check "it holds the events before the stop: $(field allocs) allocs" [ "$(field allocs)" -ge 1 ]
    ;;
sequence)
    # Two processes one after the other under one -o: two traces, neither truncated.
    "$vt" run -o "$tmp/job.vtr" -- sh -c "'$prog' alloc 1; '$prog' alloc 2" >out 2>err
    check "exit 0" [ $? -eq 0 ]
    json job.vtr
    check "the first process's trace is job.vtr: $(field allocs) allocs" [ "$(field allocs)" = 1 ]
    second=$(ls job.*.vtr 2>/dev/null)
    check "the second's is job.<pid>.vtr: '$second'" [ "$(echo "$second" | wc -w)" = 1 ]
    json "$second"
    check "the second's 2 allocs" [ "$(field allocs)" = 2 ]
    check "run names both: $(tail -n 1 err)" \
        [ "$(tail -n 1 err)" = "vramtrace: traces in '$tmp/job.vtr', '$tmp/$second'" ]
    # A run again: job.vtr of the earlier run is replaced, the other files are left alone.
    "$vt" run -o "$tmp/job.vtr" -- "$prog" alloc 3 >out 2>err
    json job.vtr
    check "a second run replaces job.vtr: $(field allocs) allocs" [ "$(field allocs)" = 3 ]
    check "and names it alone: $(tail -n 1 err)" \
        [ "$(tail -n 1 err)" = "vramtrace: trace in '$tmp/job.vtr'" ]
    check "the first run's job.<pid>.vtr is left" [ -f "$second" ]
    ;;
exec)
    # One pid, three images (two execs): each image's events in a file of its own.
    run plain "" "$prog" exec 2
    run traced "$lib" "$prog" exec 2
    same
    pid=$(ls traced/t.*.vtr | sed -n 's/.*t\.\([0-9]*\)\.vtr$/\1/p')
    check "the second image wrote t.<pid>.vtr ($(ls traced))" [ -n "$pid" ]
    for f in t.vtr "t.$pid.vtr" "t.$pid.1.vtr"; do
        json "traced/$f"
        check "$f: one allocation ($(cat report.err))" [ "$(field allocs)" = 1 ]
    done
    check "one exit line, the last image's: $(cat traced/err)" [ "$(grep -c "trace '" traced/err)" = 1 ]
    ;;
cancel-depth0 | cancel-depth64)
    settings="VRAMTRACE_DEPTH=${case_#cancel-depth}"
    run plain "" "$prog" cancel
    run traced "$lib" "$prog" cancel
    same
    check "the thread's allocation returned and the cancel acted after it: $(head -n 1 plain/out)" \
        grep -qx 'thread: alloc 0, got to the end of the call: yes, cancelled: yes' traced/out
    check "the fork after it did not block: $(tail -n 1 traced/out)" \
        grep -qx 'fork: child exit 5' traced/out
    json traced/t.vtr
    check "the thread's allocation is recorded: $(field allocs) allocs" [ "$(field allocs)" = 11 ]
    check "and its free" [ "$(field frees)" = 11 ]
    ;;
signal-alloc | signal-mark | signal-nvtx)
    run plain "" "$prog" "$case_"
    run traced "$lib" "$prog" "$case_"
    same
    check "no hang, no failure in the handler: $(tail -n 1 traced/out)" \
        grep -qx 'handler ran: yes, failures: 0' traced/out
    json traced/t.vtr
    check "the trace reads ($(cat report.err))" [ -s report.json ]
    check "the program's own pairs recorded: $(field allocs) allocs" [ "$(field allocs)" -ge 3 ]
    check "the handler's calls inside vramtrace counted as dropped: $(cat report.err)" \
        grep -q "the library could not record [1-9][0-9]* events" report.err
    ;;
stack-64k | stack-altstack)
    # What the call needs untraced, plus 3 KiB: the capture of a stack (5 KB more at depth 64 on
    # a thread's first call) does not fit, the record without it (0.3 KB more) does.
    run plain "" "$prog" stack-used opened
    need=$(sed -n 's/^first call on a thread: \([0-9]*\) bytes.*/\1/p' plain/out)
    room=$((need + 3072))
    # An alternate signal stack holds the signal frame too (up to 3 KB with AVX-512 state).
    [ "$case_" = stack-altstack ] && room=$((need + 6144))
    settings="VRAMTRACE_DEPTH=64"
    run plain "" "$prog" "$case_" "$room"
    run traced "$lib" "$prog" "$case_" "$room"
    same
    check "the call fit untraced ($room bytes): $(cat plain/out)" grep -qx "$case_: alloc 0" plain/out
    json traced/t.vtr
    check "both allocations recorded: $(field allocs)" [ "$(field allocs)" = 2 ]
    # The capture runs on the thread's own capture stack (not in a sanitizer build, nor from an
    # alternate signal stack), so the thread's allocation keeps its call-site.
    if [ "$case_" = stack-64k ] && ! nm -D --defined-only "$lib" | grep -q __asan_default_options; then
        site=$("$vt" export traced/t.vtr --format csv | awk -F, '$2 == "alloc" { s = $8 } END { print s }')
        check "the thread's allocation has its call-site: stack id '$site'" [ "${site:-0}" != 0 ]
    fi
    ;;
stack-budget)
    # A thread's first call at depth 16 and 64, the trace already open or opened by this call:
    # at most 4 KiB of stack above the same call untraced. A sanitizer build (its options are
    # exported) captures on the program's stack, with frames of its own size: not measured.
    if nm -D --defined-only "$lib" | grep -q __asan_default_options; then
        echo "harm $case_: a sanitizer build: skipped"
        exit 77
    fi
    for opened in opened ""; do
        run plain "" "$prog" stack-used $opened
        base=$(sed -n 's/^first call on a thread: \([0-9]*\) bytes.*/\1/p' plain/out)
        for depth in 16 64; do
            settings="VRAMTRACE_DEPTH=$depth"
            run traced "$lib" "$prog" stack-used $opened
            used=$(sed -n 's/^first call on a thread: \([0-9]*\) bytes.*/\1/p' traced/out)
            echo "depth $depth ${opened:-opening}: $used bytes traced, $base untraced"
            check "depth $depth ${opened:-opening}: $used bytes, $base untraced + 4096 at most" \
                [ -n "$used" ] && [ -n "$base" ] && [ "$used" -le $((base + 4096)) ]
        done
        settings=""
    done
    ;;
quiet-tree)
    # A tree of processes that never use CUDA, given bad settings: no output of ours, and the
    # environment they pass on is theirs (no NVTX_INJECTION64_PATH).
    settings="VRAMTRACE_DEPTH=oops VRAMTRACE_BOGUS=1 VRAMTRACE_RULES=$tmp/no.rules"
    tree='sh -c "sh -c env" | grep -v -e "^LD_PRELOAD=" -e "^PWD=" | sort; echo done'
    run plain "" sh -c "$tree"
    run traced "$lib" sh -c "$tree"
    same
    check "nothing on stderr: $(cat traced/err)" [ ! -s traced/err ]
    check "no NVTX_INJECTION64_PATH in the environment" [ -z "$(grep NVTX_INJECTION64_PATH traced/out)" ]
    # A process that uses CUDA warns about each bad setting, once.
    run traced "$lib" "$prog" alloc 1
    check "a CUDA process warns: $(cat traced/err)" [ "$(grep -c \
        -e "ignoring VRAMTRACE_DEPTH='oops': not a number" -e "ignoring unknown option VRAMTRACE_BOGUS" \
        -e "cannot read rules '$tmp/no.rules'" traced/err)" = 3 ]
    ;;
device-output)
    # VRAMTRACE_OUTPUT naming a character device: no trace, nothing created beside it.
    settings="VRAMTRACE_OUTPUT=/dev/null"
    run plain "" "$prog" alloc 3
    run traced "$lib" "$prog" alloc 3
    same
    check "no /dev/null.*: $(ls /dev/null.* 2>&1)" [ -z "$(ls /dev/null.* 2>/dev/null)" ]
    check "the exit line says no trace: $(cat traced/err)" grep -q "trace 'none'\$" traced/err
    check "one line on stderr" [ "$(wc -l <traced/err)" = 1 ]
    "$vt" run -o /dev/null -- "$prog" alloc 1 >out 2>err
    check "run -o /dev/null: exit 0, $(cat err)" [ $? -eq 0 ]
    check "run -o /dev/null: no /dev/null.*" [ -z "$(ls /dev/null.* 2>/dev/null)" ]
    rm -f /dev/null.*vtr 2>/dev/null
    ;;
odd-path)
    # A path with a newline and an escape sequence is printed escaped, on one line.
    odd=$(printf '%s/traced/a\nb\033[31m.vtr' "$tmp")
    shown='a\nb\x1b[31m.vtr'
    (cd traced && env -i PATH="$PATH" LD_LIBRARY_PATH="$sim" LD_PRELOAD="$lib" \
        VRAMTRACE_OUTPUT="$odd" "$prog" alloc 1 >out 2>err)
    check "the trace is written" [ -f "$odd" ]
    check "the exit line is one line: $(cat traced/err)" [ "$(wc -l <traced/err)" = 1 ]
    check "and shows the path escaped" grep -qF "$shown'" traced/err
    "$vt" run -o "$odd" -- "$prog" alloc 1 >out 2>err
    check "run's last line shows it escaped: $(tail -n 1 err)" \
        [ "$(tail -n 1 err)" = "vramtrace: trace in '$tmp/traced/$shown'" ]
    check "run: two lines in all" [ "$(wc -l <err)" = 2 ]
    ;;
*)
    echo "harm.sh: unknown case '$case_'" >&2
    exit 2
    ;;
esac
if [ $fail -ne 0 ]; then
    for f in plain/out plain/err traced/out traced/err; do
        echo "--- $f ---" >&2
        cat "$f" >&2 2>/dev/null
    done
fi
exit $fail
