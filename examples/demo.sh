#!/bin/sh
# SPDX-License-Identifier: MIT
# `make demo`: runs the example training loop on the simulated CUDA device (or on the real GPU
# when this machine has one), then the same program with libvramtrace.so preloaded.
#   usage: examples/demo.sh [BUILD_DIR]
set -eu
build=${1:-build}
for f in "$build/examples/train_loop" "$build/src/libvramtrace.so" "$build/tools/vramtrace"; do
    if [ ! -e "$f" ]; then
        echo "demo: '$f' is missing: build first (make demo does)" >&2
        exit 1
    fi
done

if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    device="the GPU of this machine"
    simulate=""
else
    # No GPU: the simulated driver and runtime stand in for libcuda.so.1 and libcudart.so.13.
    device="the simulated device (tests/sim, 16 GiB)"
    simulate="--simulate=16G"
fi

vt="$build/tools/vramtrace"
out=$(mktemp -d "${TMPDIR:-/tmp}/vramtrace-demo.XXXXXX")
trace="$out/train_loop.vtr"

echo "== $("$vt" --version): demo on $device"
echo
echo "-- vramtrace run $simulate -o $trace -- examples/train_loop 3 64"
echo "   (a 4-layer MLP, 3 steps, batch 64)"
"$vt" run $simulate -o "$trace" -- "$build/examples/train_loop" 3 64
echo
echo "-- vramtrace report $trace"
"$vt" report "$trace"
echo
echo "-- what the model should need: vramtrace budget --model examples/models/train_loop.model"
"$vt" budget --model "$(dirname "$0")/models/train_loop.model"
echo
cat <<NEXT
The trace is $trace; 'vramtrace report --json' gives the same as JSON and 'vramtrace oom' the
out-of-memory post-mortem. Categories come from the function names of examples/train_loop.c
through the default rules ('vramtrace rules --defaults'). Coming next: the measured-versus-budget
comparison in the report, timelines, Perfetto and HTML exports.
NEXT
