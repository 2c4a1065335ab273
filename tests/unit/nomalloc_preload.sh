#!/bin/sh
# SPDX-License-Identifier: MIT
# nomalloc_preload.sh PROGRAM LIBVRAMTRACE SIM_DIR: runs the nomalloc_preload program on the
# simulated device without and with the preload; the allocator calls during its 1000
# cuMemAlloc_v2/cuMemFree_v2 pairs must be the same (the simulator's own), and the preloaded run
# must really have traced them (the verbose totals line), else the comparison proves nothing.
set -u
prog=$1 lib=$2 sim=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

without=$(LD_LIBRARY_PATH=$sim "$prog") || { echo "FAIL: untraced run failed"; exit 1; }
with=$(LD_PRELOAD=$lib LD_LIBRARY_PATH=$sim VRAMTRACE_VERBOSE=1 VRAMTRACE_OUTPUT=$tmp/trace \
    "$prog" 2>"$tmp/stderr") || { echo "FAIL: traced run failed"; cat "$tmp/stderr"; exit 1; }
echo "untraced: $without"
echo "traced:   $with"
if ! grep -q 'stats totals allocs=1010 frees=1010 ' "$tmp/stderr"; then
    echo "FAIL: the preloaded run did not trace 1010 pairs:"
    cat "$tmp/stderr"
    exit 1
fi
if [ "$with" != "$without" ]; then
    echo "FAIL: libvramtrace.so called the allocator on the recording path"
    exit 1
fi
echo "ok"
