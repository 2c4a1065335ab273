#!/bin/sh
# SPDX-License-Identifier: MIT
# run_nvtx.sh LIB SIMDIR EXPECTED_ERR EXPECTED_OUT [VAR=VALUE...] PROGRAM [ARGS...]
# Runs PROGRAM on the simulated device in a clean environment with libvramtrace.so preloaded
# (VT_PRELOAD=0 among the settings runs it without) and VRAMTRACE_VERBOSE=2. Its stdout must
# equal EXPECTED_OUT; the lines of stderr that show NVTX at work (the per-category exit report,
# the nvtx and mark diagnostics, the program's "t_nvtx:" lines, another tool's "other_tool:"
# lines), with clock readings and directories blanked, must equal EXPECTED_ERR.
lib=$1 simdir=$2 expected_err=$3 expected_out=$4
shift 4
preload=$lib
settings=""
while [ $# -gt 0 ]; do
    case $1 in
    VT_PRELOAD=0) preload="" ;;
    *=*) settings="$settings $1" ;;
    *) break ;;
    esac
    shift
done
. "$(dirname "$0")/../../lib/preamble.sh"
# shellcheck disable=SC2086 # VAR=VALUE words without spaces
env -i PATH="$PATH" LD_LIBRARY_PATH="$simdir" ${preload:+LD_PRELOAD="$preload"} \
    VRAMTRACE_VERBOSE=2 $settings "$@" >"$tmp/out" 2>"$tmp/err"
status=$?
grep -E '^(vramtrace: (category |nvtx|mark )|t_nvtx:|other_tool:)' "$tmp/err" |
    sed -E -e 's/peak_t_ns=[1-9][0-9]*/peak_t_ns=T/' -e 's/after [0-9]+ ns/after N ns/' \
        -e "s#'/[^']*/#'.../#g" >"$tmp/got_err"
diff -u "$expected_out" "$tmp/out" || fail=1
diff -u "$expected_err" "$tmp/got_err" || fail=1
if [ "$status" -ne 0 ] || [ "$fail" -ne 0 ]; then
    echo "run_nvtx.sh: exit status $status; stderr was:" >&2
    cat "$tmp/err" >&2
    exit 1
fi
echo "1 passed, 0 failed"
