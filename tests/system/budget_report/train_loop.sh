#!/bin/sh
# SPDX-License-Identifier: MIT
# train_loop.sh VRAMTRACE_BIN LIB SIMDIR TRAIN_LOOP MODEL
# examples/train_loop traced on the simulated device, reported with --budget MODEL: the budget
# part of the text and of the JSON equal train_loop.text.exact and train_loop.json.exact beside
# this script (VT_UPDATE=1 rewrites them), measured equals the realistic budget byte for byte
# for weights, gradients, optimizer, activations and data, and the workspace is measured only.
here=$(cd "$(dirname "$0")" && pwd)
. "$(dirname "$0")/../../lib/preamble.sh"
vt=$1 lib=$2 sim=$3 prog=$4 model=$5
check_name=train_loop
golden() { # golden GOT EXPECTED
    if [ "${VT_UPDATE:-0}" = 1 ]; then
        cp "$1" "$here/$2" && echo "updated $2"
    elif ! cmp -s "$here/$2" "$1"; then
        echo "FAIL: $1 differs from $2" >&2
        diff -u "$here/$2" "$1" >&2
        fail=1
    fi
}
# block FILE START: the lines of the JSON object that opens on the first line matching START,
# up to its closing brace at the same indentation.
block() {
    awk -v start="$2" '!on && index($0, start) { on = 1; match($0, /^ */); ind = RLENGTH; next }
        on && match($0, /^ *\}/) && RLENGTH - 1 == ind { exit } on' "$1"
}
same() { # same A B: A and B are the same positive integer
    [ -n "$1" ] && [ "$1" = "$2" ] && [ "$1" -gt 0 ]
}
value() { # value NAME: the integer of "NAME": on stdin
    sed -n "s/^ *\"$1\": \([0-9]*\),\{0,1\}$/\1/p"
}

cp "$model" train_loop.model || exit 1
env -i PATH="$PATH" LD_LIBRARY_PATH="$sim" LD_PRELOAD="$lib" VRAMTRACE_OUTPUT=t.vtr \
    VTSIM_DEVICE_MEMORY=16G "$prog" 3 64 >out 2>err
check "train_loop ran" grep -q '^done: 3 steps' out

"$vt" report t.vtr --budget train_loop.model >report.txt 2>report.err
check "report --budget exits 0" [ $? -eq 0 ]
check "nothing on stderr" [ ! -s report.err ]
sed -n '/^measured at the peak versus/,$p' report.txt >budget.txt
golden budget.txt train_loop.text.exact

"$vt" report --json t.vtr --budget train_loop.model >report.json 2>report.err
check "report --json --budget exits 0" [ $? -eq 0 ]
sed -n '/^  "budget": {$/,$p' report.json >budget.json
golden budget.json train_loop.json.exact

block report.json '"by_category": {' >measured
block budget.json '"realistic": {' >realistic
for c in weights gradients optimizer activations data; do
    m=$(value $c <measured) r=$(value $c <realistic)
    check "$c: measured ($m) equals realistic ($r)" same "$m" "$r"
done
ws=$(value workspace <measured)
check "the workspace is measured (${ws:-none})" [ "${ws:-0}" -gt 0 ]
check "the realistic budget has no workspace" [ -z "$(value workspace <realistic)" ]
check "the workspace ratio is null" grep -q '"workspace": null' budget.json
check "the workspace note" grep -q '^  workspace: measured 128.00 KiB, no budget' budget.txt

if [ $fail -ne 0 ]; then
    echo "--- report ---" >&2
    cat report.txt report.err >&2
    exit 1
fi
echo "1 passed, 0 failed"
