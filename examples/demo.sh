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
else
    # No GPU: the simulated driver and runtime stand in for libcuda.so.1 and libcudart.so.13.
    device="the simulated device (tests/sim, 16 GiB)"
    LD_LIBRARY_PATH="$build/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    VTSIM_DEVICE_MEMORY=16G
    export LD_LIBRARY_PATH VTSIM_DEVICE_MEMORY
fi

echo "== $("$build/tools/vramtrace" --version): demo on $device"
echo
echo "-- examples/train_loop (4-layer MLP, 3 steps, batch 64), untraced:"
"$build/examples/train_loop" 3 64
echo
echo "-- the same program with libvramtrace.so preloaded:"
LD_PRELOAD="$(cd "$build/src" && pwd)/libvramtrace.so" VRAMTRACE_VERBOSE=1 \
    "$build/examples/train_loop" 3 64
echo
cat <<'NEXT'
What comes next: the capture library intercepts every CUDA allocation path (runtime, driver,
VMM, pools, managed, pinned) and writes a timeline; then this demo will print the peak, what was
live at it by category (weights, gradients, optimizer, activations, data, workspace) and the
theoretical budget next to it, from `vramtrace run -- examples/train_loop` and `vramtrace report`.
NEXT
