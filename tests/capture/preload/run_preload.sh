#!/bin/sh
# SPDX-License-Identifier: MIT
# run_preload.sh PROBE LIB CASE: runs the annotated probe in a clean environment, with or
# without LD_PRELOAD=LIB, and compares its stdout and its stderr (pids replaced by N) with the
# case's expected text. Exit 0 on match, 1 with a diff otherwise.
probe=$1 lib=$2 case=$3
. "$(dirname "$0")/../../lib/preamble.sh"

# run ENV...: the probe under env -i, so no VRAMTRACE_* from the caller leaks in.
run() {
    env -i PATH="$PATH" "$@" >"$tmp/out" 2>"$tmp/err"
    echo "exit $?" >>"$tmp/out"
}

present="api: present
exit 0"
enabled="vramtrace: enabled in pid N, output 'vramtrace'
vramtrace: mark 'step 1'
vramtrace: paused
vramtrace: resumed"

case $case in
absent) # without the library the macros do nothing, silently
    run "$probe"
    want_out="api: absent
exit 0" want_err="" ;;
loads)
    run LD_PRELOAD="$lib" VRAMTRACE_VERBOSE=2 "$probe"
    want_out=$present want_err=$enabled ;;
silent) # nothing on stderr by default (no exit summary yet)
    run LD_PRELOAD="$lib" "$probe"
    want_out=$present want_err="" ;;
disable) # the symbols resolve, but the library is inert
    run LD_PRELOAD="$lib" VRAMTRACE_DISABLE=yes VRAMTRACE_VERBOSE=2 "$probe"
    want_out=$present want_err="vramtrace: disabled by VRAMTRACE_DISABLE" ;;
bad_option) # the probe never uses CUDA: the settings' warnings wait for a process that records
    run LD_PRELOAD="$lib" VRAMTRACE_DEPTH=abc "$probe"
    want_out=$present want_err="" ;;
fork) # the child re-initialises lazily in its own pid
    run LD_PRELOAD="$lib" VRAMTRACE_VERBOSE=2 "$probe" fork
    want_out=$present want_err="$enabled
vramtrace: enabled in pid N, output 'vramtrace'
vramtrace: mark 'child'
vramtrace: mark 'parent after fork'" ;;
no_follow_fork)
    run LD_PRELOAD="$lib" VRAMTRACE_VERBOSE=2 VRAMTRACE_FOLLOW_FORK=0 "$probe" fork
    want_out=$present want_err="$enabled
vramtrace: mark 'parent after fork'" ;;
*)
    echo "run_preload.sh: unknown case '$case'" >&2
    exit 2 ;;
esac

printf '%s\n' "$want_out" >"$tmp/want_out"
sed 's/pid [0-9][0-9]*/pid N/' "$tmp/err" >"$tmp/got_err"
if [ -n "$want_err" ]; then printf '%s\n' "$want_err" >"$tmp/want_err"; else : >"$tmp/want_err"; fi
status=0
diff -u "$tmp/want_out" "$tmp/out" || status=1
diff -u "$tmp/want_err" "$tmp/got_err" || status=1
# The probe never uses CUDA: no trace file, in any case.
for f in "$tmp"/*.vtr; do
    [ -e "$f" ] && echo "run_preload.sh: a process without CUDA left a trace: $f" >&2 && status=1
done
exit $status
