#!/bin/sh
# SPDX-License-Identifier: MIT
# compare.sh [-r ROUNDS] [-n PAIRS] [-d DEPTH] [-c] [-s] OLD_BUILD NEW_BUILD
# Two builds of libvramtrace.so side by side, for a change against its base (build the base in
# a directory of its own, e.g. `git worktree add /tmp/base BASE` and a Release build there):
# the same programs (NEW_BUILD's bench/ and simulated device) run untraced, under OLD_BUILD's
# library and under NEW_BUILD's, one run of each per round, so drift in the machine's speed hits
# all three alike. Rows, ns per pair, the medians over the rounds (min-max of the traced runs
# in the last column); added = traced - untraced:
#   driver    bench/overhead: cuMemAlloc_v2 + cuMemFree_v2 through the cuGetProcAddress door
#   runtime   bench/overhead: cudaMalloc + cudaFree
#   async     bench/capture async: cudaMallocAsync + cudaFreeAsync from 70 frames deep
#   -r ROUNDS  rounds (default: 9)
#   -n PAIRS   pairs per run (default: 100000)
#   -d DEPTH   VRAMTRACE_DEPTH of the traced runs (default: 0: the shims and the core alone)
#   -c         also instructions added per pair, counted by callgrind (no load disturbs them):
#              bench/capture (cudaMalloc + cudaFree) and bench/capture async, the difference of
#              a run of 2 x PAIRS/10 and one of PAIRS/10 pairs, traced minus untraced
#   -s         smoke test (ctest bench_compare_smoke): one tiny round; the figures mean nothing
set -eu
rounds=9 pairs=100000 depth=0 count=0 smoke=0
while getopts r:n:d:cs opt; do
    case $opt in
    r) rounds=$OPTARG ;;
    n) pairs=$OPTARG ;;
    d) depth=$OPTARG ;;
    c) count=1 ;;
    s) smoke=1 rounds=1 pairs=2000 ;;
    *) echo "usage: $0 [-r ROUNDS] [-n PAIRS] [-d DEPTH] [-c] [-s] OLD_BUILD NEW_BUILD" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# = 2 ] || { echo "usage: $0 [-r ROUNDS] [-n PAIRS] [-d DEPTH] [-c] [-s] OLD_BUILD NEW_BUILD" >&2; exit 2; }
for b in "$1" "$2"; do
    [ -e "$b/src/libvramtrace.so" ] || { echo "compare.sh: '$b/src/libvramtrace.so' not found: build first" >&2; exit 1; }
done
old_lib=$(cd "$1/src" && pwd)/libvramtrace.so
new_lib=$(cd "$2/src" && pwd)/libvramtrace.so
sim=$(cd "$2/sim" && pwd)
bin=$(cd "$2/bench" && pwd)
for f in overhead capture; do
    [ -x "$bin/$f" ] || { echo "compare.sh: '$bin/$f' not found: build first (cmake --build $2)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() { # run KIND PROG ARGS...: KIND untraced, old or new
    kind=$1
    shift
    case $kind in
    untraced) LD_LIBRARY_PATH=$sim "$@" ;;
    old | new)
        [ "$kind" = old ] && l=$old_lib || l=$new_lib
        LD_LIBRARY_PATH=$sim LD_PRELOAD=$l VRAMTRACE_DEPTH=$depth VRAMTRACE_QUIET=1 \
            VRAMTRACE_OUTPUT=$tmp/trace "$@"
        rm -f "$tmp"/trace.* ;;
    esac
}

# Each library must really trace these programs, or the differences mean nothing: a short
# verbose run of each shows its pairs in the totals line (warm-up pairs included).
for kind in old new; do
    [ "$kind" = old ] && l=$old_lib || l=$new_lib
    for prog in overhead "capture async"; do
        set -- $prog
        if [ "$1" = overhead ]; then want=$((2 * (1000 + 101))); else want=$((1000 + 101)); fi
        args="1000"
        [ "$1" = capture ] && args="1000 70 4096 ${2:-}"
        LD_LIBRARY_PATH=$sim LD_PRELOAD=$l VRAMTRACE_DEPTH=$depth VRAMTRACE_VERBOSE=1 \
            VRAMTRACE_OUTPUT=$tmp/trace "$bin/$1" $args >"$tmp/check.out" 2>"$tmp/check.err" || true
        rm -f "$tmp"/trace.*
        if ! grep -q "stats totals allocs=$want frees=$want " "$tmp/check.err"; then
            echo "compare.sh: $l did not record $want pairs of '$prog':" >&2
            cat "$tmp/check.err" >&2
            exit 1
        fi
    done
done

i=0
while [ "$i" -lt "$rounds" ]; do
    for kind in untraced old new; do
        run $kind "$bin/overhead" "$pairs" 4096 0 | awk -v k=$kind '$1 !~ /^#/ { print k, $1, $2 }' >>"$tmp/all"
        run $kind "$bin/capture" "$pairs" 70 4096 async | awk -v k=$kind '{ print k, "async", $2 }' >>"$tmp/all"
    done
    i=$((i + 1))
done

figures() { awk -v k="$1" -v p="$2" '$1 == k && $2 == p { print $3 }' "$tmp/all" | sort -g; }
median() { figures "$1" "$2" | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
spread() { figures "$1" "$2" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.0f-%.0f", lo, hi }'; }
echo "# $rounds rounds, $pairs pairs per run, VRAMTRACE_DEPTH=$depth; ns per pair; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# old: $old_lib"
echo "# new: $new_lib"
printf '%-8s %9s %9s %9s %9s %9s %9s  %s\n' path untraced old new old_added new_added new-old "old / new runs"
for path in driver runtime async; do
    u=$(median untraced $path) o=$(median old $path) n=$(median new $path)
    printf '%-8s %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f  %s / %s\n' $path "$u" "$o" "$n" \
        "$(echo "$o $u" | awk '{ print $1 - $2 }')" "$(echo "$n $u" | awk '{ print $1 - $2 }')" \
        "$(echo "$n $o" | awk '{ print $1 - $2 }')" "$(spread old $path)" "$(spread new $path)"
done

[ "$count" = 1 ] || exit 0
command -v valgrind >/dev/null || { echo "# valgrind not installed: no instruction counts"; exit 0; }
# instructions KIND N ARGS...: what callgrind counted for bench/capture N 70 4096 ARGS
instructions() {
    kind=$1 n=$2
    shift 2
    run "$kind" valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" \
        "$bin/capture" "$n" 70 4096 "$@" >/dev/null 2>&1
    awk '/^(summary|totals):/ { print $2; exit }' "$tmp/cg.out"
}
small=$((pairs / 10)) big=$((pairs / 5))
echo "# instructions added per pair (callgrind; bench/capture $big minus $small pairs, warm-up included)"
printf '%-8s %9s %9s %9s\n' path old new new-old
for path in runtime async; do
    extra=
    [ $path = async ] && extra=async
    for kind in untraced old new; do
        a=$(instructions $kind $small $extra) b=$(instructions $kind $big $extra)
        echo "$b $a $((big - small))" | awk '{ printf "%.0f\n", ($1 - $2) / ($3 * 1.1) }' >"$tmp/ir.$kind"
    done
    u=$(cat "$tmp/ir.untraced") o=$(cat "$tmp/ir.old") n=$(cat "$tmp/ir.new")
    printf '%-8s %9d %9d %9d\n' $path $((o - u)) $((n - u)) $((n - o))
done
