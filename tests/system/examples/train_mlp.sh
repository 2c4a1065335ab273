#!/bin/sh
# SPDX-License-Identifier: MIT
# `vramtrace run --simulate -o T.vtr -- train_mlp 3`, then `vramtrace report --json T.vtr`: the
# program says it is on the simulated device, and the peak's bytes per category are exactly
# those examples/models/train_mlp.model derives (its comments give the arithmetic): the function
# names of examples/train_mlp.cu categorize every byte, Adam's m and v are twice the weights.
#   usage: train_mlp.sh VRAMTRACE TRAIN_MLP
set -u
vramtrace=$1 prog=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
unset LD_PRELOAD LD_LIBRARY_PATH VTSIM_DEVICE_MEMORY VRAMTRACE_OUTPUT VRAMTRACE_RULES \
    VRAMTRACE_DEPTH VRAMTRACE_QUIET VRAMTRACE_DISABLE VRAMTRACE_VERBOSE

fail()
{
    echo "FAIL: $*" >&2
    for f in out err report.json; do
        [ -f "$f" ] && { echo "--- $f:" >&2; cat "$f" >&2; }
    done
    exit 1
}

"$vramtrace" run --simulate -o T.vtr -- "$prog" 3 >out 2>err || fail "vramtrace run: exit $?"
grep -qx "simulated device: kernels do nothing, the loss will not fall" out ||
    fail "train_mlp did not say it runs on the simulated device"
"$vramtrace" report --json T.vtr >report.json 2>err || fail "vramtrace report --json: exit $?"

# The report is one key per line: the "by_category" object inside the top-level "peak".
peak=$(awk '/^  "peak": \{/ { p = 1 } p && /"by_category": \{/ { c = 1; next }
    c && /\}/ { exit } c { gsub(/[",]/, ""); sub(/:/, ""); print $1 "=" $2 }' report.json)
[ -n "$peak" ] || fail "no peak.by_category in the report"
get()
{
    v=$(printf '%s\n' "$peak" | sed -n "s/^$1=//p")
    [ -n "$v" ] || fail "peak.by_category has no $1"
    echo "$v"
}
weights=$(get weights)
for want in weights=1597480 gradients=1597480 optimizer=$((2 * weights)) activations=529408 \
    data=131584 workspace=529920 unknown=0; do
    got=$(get "${want%%=*}")
    [ "$got" = "${want#*=}" ] || fail "peak ${want%%=*}: got $got, want ${want#*=}"
done
echo "ok"
