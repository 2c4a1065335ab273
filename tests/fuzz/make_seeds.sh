#!/bin/sh
# SPDX-License-Identifier: MIT
# make_seeds.sh OUT SRC MKTRACE VRAMTRACE EXTREME PROGRAM... : the seed corpora of the fuzz
# harnesses, OUT/trace, OUT/rules, OUT/model and OUT/argv. Traces: every trace script of the
# golden CLI tests and of tests/unit/trace through vt-mktrace, 64 valid traces with extreme values
# (EXTREME: vt-extreme), and a real capture of each PROGRAM on the simulated device. Argument
# vectors: tests/fuzz/seeds/argv.
set -u
out=$1 src=$2 mktrace=$3 vt=$4 extreme=$5
shift 5
rm -rf "$out" && mkdir -p "$out/trace" "$out/rules" "$out/model" "$out/argv" || exit 1
"$extreme" "$out/trace" 1 64 || exit 1
cp "$src"/tests/fuzz/seeds/argv/* "$out/argv/" || exit 1
n=0
for script in "$src"/tests/cli/*/*.trace "$src"/tests/unit/trace/*.trace; do
    [ -f "$script" ] || continue
    n=$((n + 1))
    "$mktrace" "$out/trace/script-$n.vtr" "$script" || {
        echo "make_seeds: vt-mktrace failed on '$script'" >&2
        exit 1
    }
done
for prog in "$@"; do
    name=$(basename "$prog")
    "$vt" run --simulate=1G --quiet -o "$out/trace/$name.vtr" -- "$prog" >/dev/null 2>&1
    [ -s "$out/trace/$name.vtr" ] || {
        echo "make_seeds: no trace from '$prog'" >&2
        exit 1
    }
done
"$vt" rules --defaults >"$out/rules/defaults.rules" || exit 1
cp "$src"/tests/capture/python/*.rules "$src"/tests/capture/nvtx/*.rules "$src"/tests/system/recategorize/*.rules \
    "$out/rules/" || exit 1
cp "$src"/examples/models/*.model "$out/model/" || exit 1
ls -l "$out"/*
