#!/bin/sh
# SPDX-License-Identifier: MIT
# events.sh LIB SIMDIR VT_EVENTS EXPECTED [VAR=VALUE...] PROGRAM [ARGS...]
# Runs PROGRAM with libvramtrace.so preloaded on the simulated device (as run_traced.sh does) and
# requires the events of its traces (the process's and its children's), as vt_events lists them
# (record, API, series, size; no time, address or stack) and counted as a multiset, to be exactly
# EXPECTED: every door records the same calls under the same names, whatever mechanism serves it.
# Exit 0 on match, 1 with a diff otherwise. VT_EVENTS_WRITE=1 writes EXPECTED instead (read the
# diff before committing it).
lib=$1 simdir=$2 events=$3 expected=$4
shift 4
settings=""
while [ $# -gt 0 ]; do
    case $1 in
    *=*) settings="$settings $1" ;;
    *) break ;;
    esac
    shift
done
. "$(dirname "$0")/../lib/preamble.sh"

# shellcheck disable=SC2086 # settings are VAR=VALUE words without spaces
(cd "$tmp" && env -i PATH="$PATH" LD_LIBRARY_PATH="$simdir" LD_PRELOAD="$lib" \
    VRAMTRACE_OUTPUT="$tmp/t.vtr" $settings "$@" >out 2>err)
status=$?
if [ "$status" -ne 0 ]; then
    echo "events.sh: $1 exited with status $status, want 0" >&2
    cat "$tmp/err" >&2
    fail=1
fi
"$events" "$tmp"/t*.vtr | sort | uniq -c >"$tmp/got" || fail=1
[ "${VT_EVENTS_WRITE:-0}" = 1 ] && cp "$tmp/got" "$expected"
if ! diff -u "$expected" "$tmp/got" >&2; then
    echo "events.sh: the events of $1 differ from $expected" >&2
    fail=1
fi
exit $fail
