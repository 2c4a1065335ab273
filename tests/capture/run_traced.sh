#!/bin/sh
# SPDX-License-Identifier: MIT
# run_traced.sh LIB SIMDIR EXPECTED [VAR=VALUE...] PROGRAM [ARGS...]
# Runs PROGRAM with libvramtrace.so preloaded on the simulated device, in a clean environment
# (only PATH, the simulator on LD_LIBRARY_PATH, VRAMTRACE_VERBOSE=1 and the given VAR=VALUE
# settings, so no VRAMTRACE_* of the caller leaks in), and requires exit status 0 and the
# library's exit report — every `vramtrace: stats` and `vramtrace: peak` line, in order — to be
# exactly EXPECTED. The trace goes to a temporary file, named TRACE in the summary line.
# peak_t_ns is a clock reading, so a non-zero one reads peak_t_ns=T (a zero
# one stays 0 and fails where a peak exists). VT_CAP_PEAK_RANGE="SERIES MIN MAX" (a VAR=VALUE
# argument) replaces the peak of SERIES' lines by IN_RANGE when MIN <= peak <= MAX, and the
# summary's human-readable peak and its categories by RANGED, for runs whose peak depends on thread interleaving. Exit 0 on match, 1 with a diff otherwise.
lib=$1 simdir=$2 expected=$3
shift 3
settings="" peak_range=""
while [ $# -gt 0 ]; do
    case $1 in
    VT_CAP_PEAK_RANGE=*) peak_range=${1#VT_CAP_PEAK_RANGE=} ;;
    *=*) settings="$settings $1" ;;
    *) break ;;
    esac
    shift
done
. "$(dirname "$0")/../lib/preamble.sh"

# shellcheck disable=SC2086 # settings are VAR=VALUE words without spaces
env -i PATH="$PATH" LD_LIBRARY_PATH="$simdir" LD_PRELOAD="$lib" VRAMTRACE_VERBOSE=1 \
    VRAMTRACE_OUTPUT="$tmp/trace.vtr" $settings \
    "$@" >"$tmp/out" 2>"$tmp/err"
status=$?

grep -E '^vramtrace: (stats|peak) ' "$tmp/err" |
    sed -E "s/peak_t_ns=[1-9][0-9]*/peak_t_ns=T/; s|trace '[^']*'|trace 'TRACE'|" |
    awk -v range="$peak_range" '
        BEGIN { n = split(range, r, " ") }
        n == 3 && $0 ~ ("^vramtrace: stats " r[1] " ") {
            if (match($0, /peak=[0-9]+/)) {
                p = substr($0, RSTART + 5, RLENGTH - 5) + 0
                if (p >= r[2] + 0 && p <= r[3] + 0)
                    $0 = substr($0, 1, RSTART - 1) "peak=IN_RANGE" substr($0, RSTART + RLENGTH)
            }
        }
        n == 3 && /^vramtrace: peak / {
            sub(/^vramtrace: peak [0-9.]+ [A-Za-z]+ /, "vramtrace: peak RANGED ")
            sub(/ \([a-z]+ [^)]*\)/, " (RANGED)")
        }
        { print }' >"$tmp/got"

if [ "$status" -ne 0 ]; then
    echo "run_traced.sh: $1 exited with status $status, want 0" >&2
    fail=1
fi
if ! diff -u "$expected" "$tmp/got" >"$tmp/diff"; then
    echo "run_traced.sh: the exit report differs from $expected:" >&2
    cat "$tmp/diff" >&2
    fail=1
fi
if [ $fail -ne 0 ]; then
    echo "--- stdout ---" >&2
    cat "$tmp/out" >&2
    echo "--- stderr ---" >&2
    cat "$tmp/err" >&2
fi
exit $fail
