#!/bin/sh
# SPDX-License-Identifier: MIT
# threads_scaling.sh: the depth-0 capture cost per pair from 1 thread to one per core, in wall
# clock, for a machine with many cores (docs/benchmarks.md, "Threads"). Runs on CPUs alone: the
# simulated device stands in for the GPU, so a lent GPU machine adds nothing but its cores.
#
#   usage: bench/threads_scaling.sh [-b BUILD] [-r ROUNDS] [-t PAIRS] [-d DEPTH] [-m MAX] [-s]
#
#   -b BUILD   a Release build of this tree (default: one made in a temporary folder: the
#              library, bench/threads and the simulated device only, ~1 minute)
#   -r ROUNDS  rounds (default 5); one untraced and one traced run of each thread count per
#              round, so drift in the machine's speed hits both alike
#   -t PAIRS   cudaMalloc + cudaFree pairs per thread per run (default 50000)
#   -d DEPTH   VRAMTRACE_DEPTH of the traced runs (default 0: the lock and the core alone)
#   -m MAX     the most threads (default: nproc); runs 1, 2, 4, ... below it, and MAX
#   -s         smoke test: one round of 20 pairs at 1 and 2 threads; the figures mean nothing
#
# One row per thread count, medians over the rounds: wall ns per pair per thread (each thread
# times its own loop) untraced, traced, and added; CPU ns per pair per thread added; the
# added wall time over 1 thread's (flat scaling: 1.00); and the traced process's contended
# takes of vramtrace's lock per 1 000 pairs (its verbose exit log). Rows with more threads than
# cores are marked: their wall clock includes waiting for a core.
# The table goes to stdout, and to $OUT/threads_scaling.txt when OUT is set.
# Exit status: 0 done; 1 a run failed or was not traced; 2 usage.
set -u
here=$(cd "$(dirname "$0")" && pwd) || exit 1
src=$(cd "$here/.." && pwd) || exit 1
build= rounds=5 pairs=50000 depth=0 max=$(nproc) smoke=0
while getopts b:r:t:d:m:s opt; do
    case $opt in
    b) build=$OPTARG ;;
    r) rounds=$OPTARG ;;
    t) pairs=$OPTARG ;;
    d) depth=$OPTARG ;;
    m) max=$OPTARG ;;
    s) smoke=1 rounds=1 pairs=20 max=2 ;;
    *)
        echo "usage: threads_scaling.sh [-b BUILD] [-r ROUNDS] [-t PAIRS] [-d DEPTH] [-m MAX] [-s]" >&2
        exit 2
        ;;
    esac
done
case "$rounds$pairs$max" in *[!0-9]*)
    echo "threads_scaling.sh: ROUNDS, PAIRS and MAX are whole numbers" >&2
    exit 2
    ;;
esac
[ "$max" -ge 1 ] && [ "$max" -le 64 ] || {
    echo "threads_scaling.sh: MAX must be 1 to 64 (bench/threads' limit)" >&2
    exit 2
}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
say() { echo "threads_scaling: $*" >&2; }

if [ -z "$build" ]; then
    build=$tmp/build
    say "building in $build"
    { cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DVRAMTRACE_BUILD_TOOLS=OFF \
        -DVRAMTRACE_BUILD_EXAMPLES=OFF -DVRAMTRACE_BUILD_TESTS=OFF -DVRAMTRACE_SYMBOLIZE=OFF &&
        cmake --build "$build" -j "$(nproc)" --target vramtrace_preload threads sim_cuda \
            sim_cudart; } >"$tmp/build.log" 2>&1 || {
        cat "$tmp/build.log" >&2
        say "FAIL: the build failed"
        exit 1
    }
fi
lib=$build/src/libvramtrace.so threads=$build/bench/threads sim=$build/sim
for f in "$lib" "$threads" "$sim/libcudart.so.13"; do
    [ -e "$f" ] || {
        say "FAIL: '$f' not found: build first (cmake --build BUILD)"
        exit 1
    }
done

counts=1
n=2
while [ "$n" -lt "$max" ]; do
    counts="$counts $n"
    n=$((n * 2))
done
[ "$max" -gt 1 ] && counts="$counts $max"

# run KIND N: one run of bench/threads; appends "N wall cpu all [contended]" to $tmp/KIND
run() {
    kind=$1 n=$2
    if [ "$kind" = untraced ]; then
        out=$(LD_LIBRARY_PATH=$sim "$threads" "$n" "$pairs") || return 1
        echo "$out" | awk -v n="$n" '$1 == "threads" { print n, $3, $4, $5 }' >>"$tmp/$kind"
        return 0
    fi
    out=$(LD_LIBRARY_PATH=$sim LD_PRELOAD=$lib VRAMTRACE_DEPTH=$depth VRAMTRACE_VERBOSE=2 \
        VRAMTRACE_OUTPUT=$tmp/trace "$threads" "$n" "$pairs" 2>"$tmp/err") || return 1
    rm -f "$tmp"/trace.*
    # Every pair of the process (the warm-up ones and main's first one too) must be recorded.
    all_pairs=$((n * (pairs + pairs / 10 + 1) + 1))
    grep -q "stats totals allocs=$all_pairs frees=$all_pairs " "$tmp/err" || {
        cat "$tmp/err" >&2
        say "FAIL: $n threads: not $all_pairs pairs recorded"
        return 1
    }
    taken=$(sed -n 's/.*stats lock contended_takes=\([0-9]*\).*/\1/p' "$tmp/err")
    [ -n "$taken" ] || {
        cat "$tmp/err" >&2
        say "FAIL: $n threads: no 'stats lock contended_takes=' in the exit log"
        return 1
    }
    echo "$out" | awk -v n="$n" -v c="$taken" -v p="$all_pairs" \
        '$1 == "threads" { print n, $3, $4, $5, c * 1000 / p }' >>"$tmp/$kind"
}

i=0
while [ "$i" -lt "$rounds" ]; do
    for n in $counts; do
        run untraced "$n" && run traced "$n" || exit 1
    done
    i=$((i + 1))
done

# median KIND N FIELD
median() {
    awk -v n="$2" -v f="$3" '$1 == n { print $f }' "$tmp/$1" | sort -g |
        awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
cores=$(nproc)
{
    echo "# bench/threads, $rounds rounds of $pairs pairs per thread, VRAMTRACE_DEPTH=$depth, $cores CPUs ($(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')), load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "# ns per pair per thread, medians; added = traced - untraced; x1 = added wall / added wall at 1 thread"
    printf '%7s %10s %10s %10s %10s %6s %12s %s\n' threads wall_base wall_traced wall_added \
        cpu_added x1 contended/1k note
    first=
    for n in $counts; do
        wb=$(median untraced "$n" 2) wt=$(median traced "$n" 2)
        cb=$(median untraced "$n" 3) ct=$(median traced "$n" 3)
        c=$(median traced "$n" 5)
        added=$(awk "BEGIN { print $wt - $wb }")
        [ -n "$first" ] || first=$added
        note=
        [ "$n" -gt "$cores" ] && note="more threads than cores"
        awk -v n="$n" -v wb="$wb" -v wt="$wt" -v a="$added" -v cb="$cb" -v ct="$ct" \
            -v f="$first" -v c="$c" -v note="$note" 'BEGIN {
            printf "%7d %10.1f %10.1f %10.1f %10.1f %6.2f %12.2f %s\n", n, wb, wt, a, ct - cb,
                (f > 0 ? a / f : 0), c, note }'
    done
} >"$tmp/table.txt"
cat "$tmp/table.txt"
if [ -n "${OUT-}" ]; then
    mkdir -p "$OUT" && cp "$tmp/table.txt" "$OUT/threads_scaling.txt"
fi
exit 0
