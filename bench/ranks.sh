#!/bin/sh
# SPDX-License-Identifier: MIT
# ranks.sh [-b BUILD_DIR] [-n TRACES] [-r RUNS] [-c OTHER_VRAMTRACE]
# `vramtrace report DIR` over a directory of many small rank traces, as a large job leaves them:
# build/examples/train_loop runs once on the simulated device (RANK=1000), and its ~3 KB trace
# is copied TRACES times with the rank and pid rewritten in place (same width), so every copy
# names the same modules (same build-ids) at the same addresses. Wall clock and CPU seconds
# (user + sys, GNU time) of the best of RUNS runs, output to /dev/null, with beside it:
#   - the same build on one CPU (`taskset -c 0`): the traces read one after the other;
#   - the I/O floor: `cat DIR/*.vtr >/dev/null`;
#   - OTHER (-c): another vramtrace binary (a copy of an older build), runs interleaved.
# Targets (docs/benchmarks.md): each distinct module symbolized once for the whole directory,
# and every CPU used: 3 000 traces in a few seconds.
#   -b BUILD_DIR  the CMake build directory (default: build)
#   -n TRACES     traces in the directory (default: 3000, at most 8999)
#   -r RUNS       timed runs of each command (default: 3)
#   -c OTHER      another vramtrace binary timed on the same directory (an older build may take
#                 ~50 ms per trace: give it a smaller -n)
set -eu
build=build n=3000 runs=3 other=
while getopts b:n:r:c: opt; do
    case $opt in
    b) build=$OPTARG ;;
    n) n=$OPTARG ;;
    r) runs=$OPTARG ;;
    c) other=$OPTARG ;;
    *) echo "usage: $0 [-b BUILD_DIR] [-n TRACES] [-r RUNS] [-c OTHER_VRAMTRACE]" >&2; exit 2 ;;
    esac
done
vt=$build/tools/vramtrace
prog=$build/examples/train_loop
for f in "$vt" "$prog" "$build/src/libvramtrace.so" ${other:+"$other"}; do
    [ -e "$f" ] || { echo "ranks.sh: '$f' not found: build first (cmake --build $build)" >&2; exit 1; }
done
[ "$n" -ge 1 ] && [ "$n" -le 8999 ] || { echo "ranks.sh: -n must be 1..8999" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "ranks.sh: GNU time (/usr/bin/time) is needed for CPU seconds" >&2; exit 1; }
command -v python3 >/dev/null || { echo "ranks.sh: python3 is needed to copy the traces" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

env -i PATH="$PATH" RANK=1000 LD_LIBRARY_PATH="$build/sim" LD_PRELOAD="$build/src/libvramtrace.so" \
    VRAMTRACE_QUIET=1 VRAMTRACE_OUTPUT="$tmp/one.vtr" "$prog" >/dev/null
mkdir "$tmp/job"
python3 - "$tmp/one.vtr" "$tmp/job" "$n" <<'P'
import sys
one, job, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(one, "rb").read()
# The PROCESS record's strings are length-prefixed: "RANK" then "1000", "pid" then its digits.
rank_at = data.index(b"RANK\x06\x04") + 6
pid_key = b"\x06\x03pid\x06"
pid_at = data.index(pid_key) + len(pid_key)
pid_len = data[pid_at]
for k in range(n):
    b = bytearray(data)
    b[rank_at:rank_at + 4] = b"%04d" % (1000 + k)
    if pid_len >= 4:  # a pid of fewer digits stays: the ranks differ
        b[pid_at + 1:pid_at + 1 + pid_len] = b"%0*d" % (pid_len, 10 ** (pid_len - 1) + k)
    open("%s/vramtrace.%d.vtr" % (job, 1000 + k), "wb").write(b)
P
bytes=$(cat "$tmp"/job/*.vtr | wc -c)
"$vt" report "$tmp/job" >"$tmp/out"
grep -q "^$n traces" "$tmp/out" || { echo "ranks.sh: report did not read the $n traces" >&2; exit 1; }
echo "# $n traces of $(stat -c %s "$tmp/one.vtr") bytes ($bytes in all); best of $runs runs; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"

# once NAME CMD...: one run of CMD (stdout to /dev/null): "wall user sys" appended to $tmp/NAME.
once() {
    name=$1
    shift
    /usr/bin/time -f '%e %U %S' -a -o "$tmp/$name" "$@" >/dev/null
}
taskset_ok=0
if command -v taskset >/dev/null && taskset -c 0 true 2>/dev/null; then taskset_ok=1; fi
i=0
while [ "$i" -lt "$runs" ]; do
    once cat sh -c 'cat "$1"/*.vtr >/dev/null' sh "$tmp/job"
    once all "$vt" report "$tmp/job"
    [ "$taskset_ok" = 0 ] || once one taskset -c 0 "$vt" report "$tmp/job"
    [ -z "$other" ] || once other "$other" report "$tmp/job"
    i=$((i + 1))
done
# row LABEL NAME: the run with the least wall clock of NAME.
row() {
    sort -g "$tmp/$2" | head -n 1 | awk -v label="$1" -v n="$n" '{
        printf "%-42s %9.2f %9.2f %12.2f\n", label, $1, $2 + $3, ($2 + $3) / n * 1000 }'
}
printf '%-42s %9s %9s %12s\n' command wall_s cpu_s cpu_ms/trace
row "cat DIR/*.vtr >/dev/null" cat
row "vramtrace report DIR" all
[ "$taskset_ok" = 0 ] || row "vramtrace report DIR, one CPU (taskset)" one
[ -z "$other" ] || row "OTHER report DIR" other
[ -z "$other" ] || echo "# OTHER: $other"
