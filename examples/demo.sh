#!/bin/sh
# SPDX-License-Identifier: MIT
# `make demo`: traces an example training program with `vramtrace run` — on the simulated CUDA
# device, or on the real GPU when this machine has one — then prints the report of its trace next
# to the theoretical budget of its model, and writes the HTML report and a Perfetto timeline.
#   usage: examples/demo.sh [BUILD_DIR]
set -eu
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
vt="$build/tools/vramtrace"

# The CUDA MLP (real kernels) when nvcc built it, else the C training loop.
if [ -x "$build/examples/train_mlp" ]; then
    name=train_mlp args="5"
else
    name=train_loop args="3 64"
fi
for f in "$build/examples/$name" "$build/src/libvramtrace.so" "$vt"; do
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

out=$(mktemp -d "${TMPDIR:-/tmp}/vramtrace-demo.XXXXXX")
trace="$out/$name.vtr"

echo "== $("$vt" --version): demo on $device"
echo
echo "-- vramtrace run $simulate -o $trace -- examples/$name $args"
# shellcheck disable=SC2086 # simulate and args are words
"$vt" run $simulate -o "$trace" -- "$build/examples/$name" $args
echo
echo "-- vramtrace report $trace --budget examples/models/$name.model"
"$vt" report "$trace" --budget "$here/models/$name.model"
echo
"$vt" html "$trace" -o "$out/report.html" --budget "$here/models/$name.model" >/dev/null
"$vt" export "$trace" --format perfetto -o "$out/$name.perfetto.json"
cat <<NEXT
-- files
   trace:    $trace   ('vramtrace report --json', 'oom', 'leaks', 'timeline --csv' read it)
   report:   $out/report.html   (self-contained: open it in any browser, file://$out/report.html)
   timeline: $out/$name.perfetto.json   (open it at https://ui.perfetto.dev)
Categories come from the function names of examples/$name through the default rules
('vramtrace rules --defaults'); a rules file, NVTX ranges or annotations change them.
NEXT
