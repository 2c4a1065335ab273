#!/bin/sh
# SPDX-License-Identifier: MIT
# passthru.sh LIB SIMDIR MODE [VAR=VALUE...] PROGRAM [ARGS...]
# Runs PROGRAM twice in a clean environment on the simulated device (the VAR=VALUE settings
# in both runs): without the library, then with LD_PRELOAD=LIB. The library must change
# nothing the program can see: stdout (the program's transcript of return codes, out-params,
# errno and runtime error state) and the exit status must be identical, and the status 0.
# MODE says what the traced run may add on stderr:
#   cuda    its exit summary (required: proves the library was there and saw CUDA), nothing
#           else compared;
#   silent  nothing at all: stderr must be byte-identical to the untraced run's (inertness).
# Exit 0 when all holds, 1 with a diff otherwise.
lib=$1 simdir=$2 mode=$3
shift 3
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
env -i PATH="$PATH" LD_LIBRARY_PATH="$simdir" $settings "$@" >"$tmp/plain.out" 2>"$tmp/plain.err"
plain_status=$?
# shellcheck disable=SC2086
env -i PATH="$PATH" LD_LIBRARY_PATH="$simdir" LD_PRELOAD="$lib" VRAMTRACE_OUTPUT="$tmp/trace.vtr" \
    $settings "$@" \
    >"$tmp/traced.out" 2>"$tmp/traced.err"
traced_status=$?

if [ "$plain_status" -ne 0 ] || [ "$traced_status" -ne "$plain_status" ]; then
    echo "passthru.sh: exit status $traced_status traced, $plain_status without the library;" \
        "want 0 and 0" >&2
    fail=1
fi
if [ ! -s "$tmp/plain.out" ]; then
    echo "passthru.sh: $1 wrote no transcript" >&2
    fail=1
fi
if ! diff -u "$tmp/plain.out" "$tmp/traced.out" >"$tmp/diff"; then
    echo "passthru.sh: stdout differs with the library (- without, + with):" >&2
    cat "$tmp/diff" >&2
    fail=1
fi
case $mode in
cuda)
    if ! grep -q '^vramtrace: peak ' "$tmp/traced.err"; then
        echo "passthru.sh: the traced run printed no exit summary" >&2
        fail=1
    fi ;;
silent)
    if ! diff -u "$tmp/plain.err" "$tmp/traced.err" >"$tmp/diff"; then
        echo "passthru.sh: stderr differs with the library (- without, + with):" >&2
        cat "$tmp/diff" >&2
        fail=1
    fi ;;
*)
    echo "passthru.sh: unknown mode '$mode'" >&2
    exit 2 ;;
esac
if [ $fail -ne 0 ]; then
    echo "--- stderr without the library ---" >&2
    cat "$tmp/plain.err" >&2
    echo "--- stderr with the library ---" >&2
    cat "$tmp/traced.err" >&2
fi
exit $fail
