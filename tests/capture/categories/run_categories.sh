#!/bin/sh
# SPDX-License-Identifier: MIT
# run_categories.sh LIB SIMDIR EXPECTED [VAR=VALUE...] PROGRAM [ARGS...]
# Runs PROGRAM on the simulated device with libvramtrace.so preloaded and VRAMTRACE_VERBOSE=1 in
# a clean environment, and requires its per-category exit report (the `vramtrace: category`
# lines, clock readings blanked) and its warnings to equal EXPECTED exactly.
lib=$1 simdir=$2 expected=$3
shift 3
settings=""
while [ $# -gt 0 ]; do
    case $1 in
    *=*) settings="$settings $1" ;;
    *) break ;;
    esac
    shift
done
. "$(dirname "$0")/../../lib/preamble.sh"
# shellcheck disable=SC2086 # VAR=VALUE words without spaces
(cd "$(dirname "$expected")" && env -i PATH="$PATH" LD_LIBRARY_PATH="$simdir" LD_PRELOAD="$lib" \
    VRAMTRACE_VERBOSE=1 VRAMTRACE_OUTPUT="$tmp/trace.vtr" $settings "$@") >"$tmp/out" 2>"$tmp/err"
status=$?
grep -E '^vramtrace: (category |rules |cannot read rules)' "$tmp/err" |
    sed -E 's/peak_t_ns=[1-9][0-9]*/peak_t_ns=T/' >"$tmp/got"
if [ "$status" -ne 0 ] || ! diff -u "$expected" "$tmp/got"; then
    echo "run_categories.sh: exit status $status; stderr was:" >&2
    cat "$tmp/err" >&2
    exit 1
fi
echo "1 passed, 0 failed"
