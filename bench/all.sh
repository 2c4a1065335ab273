#!/bin/sh
# SPDX-License-Identifier: MIT
# all.sh [-b BUILD_DIR] [-r RUNS] [-n ANALYZER_EVENTS] [-H] [-B]
# Every benchmark with one command, as one markdown table: the capture side
# (bench/capture.sh: cost per pair, threads, trace size, memory) and the analyzer
# (bench/analyzer.sh: the rate and peak RSS of `report`, `timeline --csv` and `export --format
# perfetto`, with the I/O floor and heaptrack_print beside them), and `report DIR` of 3 000
# small rank traces (bench/ranks.sh).
# Small by default, so that it runs in a few minutes on a busy 2-CPU machine; -B for the sizes
# of docs/benchmarks.md (more runs and pairs, 10 M analyzer events).
#   -b BUILD_DIR        the CMake build directory (default: build)
#   -r RUNS             runs of each capture variant (default: 5; 9 with -B)
#   -n ANALYZER_EVENTS  events of the analyzer's trace (default: 2000000; 10000000 with -B;
#                       bench/analyzer.sh -n 50000000 alone for the 50 M figure)
#   -H                  no heaptrack (neither the capture rows nor heaptrack_print)
#   -B                  big: the sizes above
set -eu
build=build runs= aevents= heap=1 big=0
while getopts b:r:n:HB opt; do
    case $opt in
    b) build=$OPTARG ;;
    r) runs=$OPTARG ;;
    n) aevents=$OPTARG ;;
    H) heap=0 ;;
    B) big=1 ;;
    *) echo "usage: $0 [-b BUILD_DIR] [-r RUNS] [-n ANALYZER_EVENTS] [-H] [-B]" >&2; exit 2 ;;
    esac
done
here=$(cd "$(dirname "$0")" && pwd)
if [ "$big" = 1 ]; then
    : "${runs:=9}" "${aevents:=10000000}"
    set -- -n 200000 -p 100000 -t 20000 -e 5000000
else
    : "${runs:=5}" "${aevents:=2000000}"
    set --
fi
[ "$heap" = 1 ] || set -- "$@" -H
sh "$here/capture.sh" -b "$build" -r "$runs" "$@"

# The analyzer's rows, in the same table: its own lines are kept as notes.
if [ "$heap" = 1 ]; then hpairs=$((aevents / 20)); else hpairs=0; fi
out=$(sh "$here/analyzer.sh" -b "$build" -n "$aevents" -r 3 -H "$hpairs")
echo "$out" | awk '
    /^#/ { notes = notes "\n" $0; next }
    $1 == "command" { next }
    NF >= 7 {
        label = $1; for (i = 2; i <= NF - 6; i++) label = label " " $i
        printf "| analyzer | `%s`, %d events | – | %s s | %s | M events/s | %s MiB, best of 3; peak RSS %s MiB |\n",
            label, $(NF - 5), $(NF - 3), $(NF - 2), $(NF - 4), $NF
    }
    END { printf "%s\n", notes }'

# `report DIR` over 3 000 small rank traces (bench/ranks.sh), as notes: wall and CPU seconds
# beside one CPU and the I/O floor.
if [ -x "$build/examples/train_loop" ] && [ -x /usr/bin/time ] && command -v python3 >/dev/null; then
    sh "$here/ranks.sh" -b "$build" -r 3 | sed 's/^\([^#]\)/# ranks: \1/'
else
    echo "# ranks: skipped (needs $build/examples/train_loop, GNU time and python3)"
fi

