#!/bin/sh
# SPDX-License-Identifier: MIT
# overhead.sh [-b BUILD_DIR] [-r RUNS] [-n PAIRS] [-k LIVE] [-d DEPTH] [-l LIB_DIR]
# The ns libvramtrace.so adds to one allocation + free pair, per door (bench/overhead.c): RUNS
# untraced and RUNS traced runs of bench/overhead, interleaved (untraced, traced, untraced, ...)
# so that drift in the machine's speed hits both alike; the median of each; added = traced -
# untraced. The untraced figure is the baseline: on the simulated device that is the simulator's
# own mutex + uthash per call, not a GPU driver's. added_min compares the fastest runs of each
# kind, which a busy machine disturbs least.
#   -b BUILD_DIR  the CMake build directory (default: build)
#   -r RUNS       runs of each kind (default: 7)
#   -n PAIRS      pairs per run and per door (default: 200000)
#   -k LIVE       allocations kept live through each door while the pairs run (default: 0,
#                 the worst case for the tracer: its table is created and destroyed per pair)
#   -d DEPTH      VRAMTRACE_DEPTH for the traced runs (default: 0, no stack capture)
#   -l LIB_DIR    where libcuda.so.1 / libcudart.so.13 are (default: BUILD_DIR/sim, the
#                 simulated device; give the real driver's directory to measure on a GPU)
set -eu
build=build runs=7 pairs=200000 live=0 depth=0 libdir=
while getopts b:r:n:k:d:l: opt; do
    case $opt in
    b) build=$OPTARG ;;
    r) runs=$OPTARG ;;
    n) pairs=$OPTARG ;;
    k) live=$OPTARG ;;
    d) depth=$OPTARG ;;
    l) libdir=$OPTARG ;;
    *) echo "usage: $0 [-b BUILD_DIR] [-r RUNS] [-n PAIRS] [-k LIVE] [-d DEPTH] [-l LIB_DIR]" >&2; exit 2 ;;
    esac
done
[ -n "$libdir" ] || libdir=$build/sim
prog=$build/bench/overhead
lib=$(cd "$build/src" && pwd)/libvramtrace.so
for f in "$prog" "$lib"; do
    [ -e "$f" ] || { echo "overhead.sh: '$f' not found: build first (cmake --build $build)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

untraced() { LD_LIBRARY_PATH=$libdir "$prog" "$@"; }
traced() {
    LD_LIBRARY_PATH=$libdir LD_PRELOAD=$lib VRAMTRACE_DEPTH=$depth VRAMTRACE_QUIET=1 \
        VRAMTRACE_OUTPUT=$tmp/trace "$prog" "$@"
}

# The traced runs must really pass the wrappers, or the difference means nothing: a short run
# with the totals line shows every pair recorded (warm-up pairs and LIVE allocations included).
check_pairs=1000
want=$((2 * (check_pairs + check_pairs / 10 + 1)))
wantlive=$((want + 2 * live))
LD_LIBRARY_PATH=$libdir LD_PRELOAD=$lib VRAMTRACE_DEPTH=$depth VRAMTRACE_VERBOSE=1 \
    VRAMTRACE_OUTPUT=$tmp/trace "$prog" $check_pairs 4096 "$live" >/dev/null 2>"$tmp/check"
if ! grep -q "stats totals allocs=$wantlive frees=$want " "$tmp/check"; then
    echo "overhead.sh: the traced run did not record $want pairs:" >&2
    cat "$tmp/check" >&2
    exit 1
fi
untraced 1 | grep '^#'

i=0
while [ "$i" -lt "$runs" ]; do
    untraced "$pairs" 4096 "$live" | grep -v '^#' >>"$tmp/untraced"
    traced "$pairs" 4096 "$live" | grep -v '^#' >>"$tmp/traced"
    i=$((i + 1))
done

# median KIND PATH, minimum KIND PATH: of the ns/pair of that path over the runs of that kind.
median() {
    awk -v p="$2" '$1 == p { print $2 }' "$tmp/$1" | sort -g |
        awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
minimum() {
    awk -v p="$2" '$1 == p { print $2 }' "$tmp/$1" | sort -g | head -n 1
}
echo "# $runs runs of each kind, $pairs pairs per run, $live live, VRAMTRACE_DEPTH=$depth; ns per pair"
printf '%-8s %10s %10s %10s %10s\n' path untraced traced added added_min
for path in driver runtime; do
    u=$(median untraced $path) t=$(median traced $path)
    umin=$(minimum untraced $path) tmin=$(minimum traced $path)
    printf '%-8s %10.1f %10.1f %10.1f %10.1f\n' "$path" "$u" "$t" "$(echo "$t $u" | awk '{ print $1 - $2 }')" \
        "$(echo "$tmin $umin" | awk '{ print $1 - $2 }')"
done

# Trace size: one more traced run into a fresh file, its bytes over its allocation and free
# records (as `vramtrace report` counts them). Target: <= 12 bytes per event (docs/performance.md).
vt=$build/tools/vramtrace
if [ -x "$vt" ]; then
    rm -f "$tmp"/size.*
    LD_LIBRARY_PATH=$libdir LD_PRELOAD=$lib VRAMTRACE_DEPTH=$depth VRAMTRACE_QUIET=1 \
        VRAMTRACE_OUTPUT=$tmp/size.vtr "$prog" "$pairs" 4096 "$live" >/dev/null
    bytes=$(stat -c %s "$tmp/size.vtr")
    events=$("$vt" report --json "$tmp/size.vtr" 2>/dev/null |
        awk -F': ' '/"totals"/ { t = 1 } t && /"allocs"|"frees"/ { gsub(/,/, "", $2); n += $2 }
                    t && /}/ { t = 0 } END { print n }')
    echo "# trace: $bytes bytes for $events allocation and free records:" \
        "$(echo "$bytes $events" | awk '{ printf "%.1f", $1 / $2 }') bytes per event" \
        "(strings, modules and stacks included)"
fi
