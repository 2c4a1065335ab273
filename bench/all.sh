#!/bin/sh
# SPDX-License-Identifier: MIT
# all.sh [-b BUILD_DIR] [-r RUNS] [-n ANALYZER_EVENTS] [-H] [-B]
# Every benchmark with one command, as one markdown table, each row beside its baseline and the
# target it is held to (met or not met): the capture side (bench/capture.sh: cost per pair,
# threads, a thread's first call, trace size, memory), startup and loads (bench/loads.sh), and
# the analyzer
# (bench/analyzer.sh: the rate and peak RSS of `report`, `timeline --csv` and `export --format
# perfetto`, with the I/O floor and heaptrack_print beside them), the peak RSS of `report` on a
# trace ten times another's size, and `report DIR` of 3 000 small rank traces (bench/ranks.sh).
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

# Every row gets two more columns: the target it is held to and whether this run met it.
# Rows without a target of their own (baselines, heaptrack, notes) get "–".
annotate() {
    awk -F'|' '
    function num(x) { gsub(/[^0-9.eE+-]/, "", x); return x + 0 }
    function row(target, ok) { printf "%s %s | %s |\n", $0, target, ok == "" ? "–" : (ok ? "met" : "not met") }
    /^\| benchmark \|/ { print $0 " target | met |"; next }
    /^\|---/ { print $0 "---|---|"; next }
    !/^\|/ { print; next }
    {
        what = $2; gsub(/^ +| +$/, "", what); c = $3; added = num($6)
        if (what == "capture" && c ~ /DEPTH=0 /) { row("≤ 60 ns added", added <= 60); next }
        if (what == "capture" && c ~ /DEPTH=16 /) { row("≤ 150 ns added (at ~10 frames)", added <= 150); next }
        if (what == "capture" && c ~ /DEPTH=64 /) { row("≤ 400 ns added", added <= 400); next }
        if (what == "threads") { # flat: against the 1-thread row of the same depth and unit
            split(c, w, " "); d = w[4] $7
            if (w[1] == 1) { one[d] = added; row("the 1-thread figure", ""); next }
            row(sprintf("≤ 1.25 × the 1-thread figure (%.0f)", one[d]), added <= 1.25 * one[d]); next
        }
        if (what == "first call") { row("≤ 10 000 CPU ns added", added <= 10000); next }
        if (what == "startup" && c ~ /bin\/true/) { row("≤ 100 CPU µs added", added <= 100); next }
        if (what == "trace" && c ~ /pytorch/) { row("≤ 4 bytes/event", added <= 4); next }
        if (what == "memory" && c ~ /live/) { row("≤ 128 bytes/live allocation", added <= 128); next }
        if (what == "vmm") { row("O(mappings): ≤ 2 × none live", num($5) <= 2 * num($4)); next }
        if (what == "analyzer" && c ~ /`vramtrace report`/) { row("≥ 100 M events/s", num($6) >= 100); next }
        if (what == "analyzer" && c ~ /`vramtrace (timeline|export)/) { row("≥ 30 M events/s", num($6) >= 30); next }
        if (what == "peak RSS") { row("≤ 3 mapping windows (24 MiB) more: the live set plus the window, not the file", added <= 24); next }
        if (what == "report DIR" && c ~ /CPUs/) {
            n = c; sub(/.*, /, "", n); n = num(n)
            row(sprintf("≥ 0.75 × %d CPUs: every core used", n), added >= 0.75 * n); next
        }
        if (what == "report DIR" && c ~ /per trace/) { row("≤ 1 ms: each module symbolized once, not per trace (~35 ms each)", added <= 1); next }
        row("–", "")
    }'
}

{
sh "$here/capture.sh" -b "$build" -r "$runs" "$@"

# Startup and loads (bench/loads.sh): CPU µs to start a program that never uses CUDA, and the
# dlopen door's ns per dlopen + dlclose.
sh "$here/loads.sh" -b "$build" -r "$runs" |
    sed 's/ *untraced */|/; s/ *traced */|/; s/ *added */|/' |
    awk -F'|' '{
        split($2, u, " "); split($3, t, " "); split($4, a, " ")
        what = $1 ~ /^startup/ ? "startup" : "dlopen"; label = $1; sub(/^startup /, "", label)
        unit = u[2] == "us" ? "CPU µs/start" : "ns/dlopen+dlclose"
        if (what == "dlopen") label = "dlopen + dlclose of 5 system libraries"
        printf "| %s | %s | %s | %s | %s | %s | medians of interleaved runs |\n", what, label, u[1], t[1], a[1], unit
    }'

# The analyzer's rows, in the same table: its own lines are kept as notes.
if [ "$heap" = 1 ]; then hpairs=$((aevents / 20)); else hpairs=0; fi
out=$(sh "$here/analyzer.sh" -b "$build" -n "$aevents" -r 3 -H "$hpairs")
echo "$out" | awk '
    /^#/ { notes = notes "\n" $0; next }
    $1 == "command" { next }
    NF >= 9 {
        # label events MiB seconds Mevents/s MiB/s RSS_MiB CPU_s Mev/CPU_s: the rate per CPU
        # second when GNU time gave it (a shared machine moves the wall clock far more).
        label = $1; for (i = 2; i <= NF - 8; i++) label = label " " $i
        cpu_rate = $NF != "-"
        printf "| analyzer | `%s`, %d events | – | %s s | %s | %s | %s MiB, best of 3; %s M events/s of wall clock; CPU %s s; peak RSS %s MiB |\n",
            label, $(NF - 7), $(NF - 5), cpu_rate ? $NF : $(NF - 4),
            cpu_rate ? "M events/CPU s" : "M events/s", $(NF - 6), $(NF - 4), $(NF - 1), $(NF - 2)
    }
    END { printf "%s\n", notes }'

# Peak RSS of `report`: the trace is read through a mapping a window (8 MiB) at a time, the
# windows read handed back, so a trace of 10 M events (~50-110 MB) must need no more than one of
# 1 M events plus the windows in flight. The same live set in both (bench/gen_trace's 1024).
if [ -x /usr/bin/time ]; then
    rss_tmp=$(mktemp -d)
    for n in 1000000 10000000; do
        "$build/bench/gen_trace" -n "$n" "$rss_tmp/t$n.vtr" >/dev/null
        /usr/bin/time -f %M -o "$rss_tmp/rss$n" "$build/tools/vramtrace" report "$rss_tmp/t$n.vtr" >/dev/null
        echo "$(stat -c %s "$rss_tmp/t$n.vtr") $(cat "$rss_tmp/rss$n")" >"$rss_tmp/row$n"
        rm -f "$rss_tmp/t$n.vtr"
    done
    cat "$rss_tmp/row1000000" "$rss_tmp/row10000000" | tr '\n' ' ' | awk '{
        printf "| peak RSS | `vramtrace report`, 10 M events (%.1f MiB) against 1 M (%.1f MiB) | %.1f | %.1f | %.1f | MiB | peak RSS (GNU time) of each; the same 1024 allocations live |\n",
            $3 / 1048576, $1 / 1048576, $2 / 1024, $4 / 1024, ($4 - $2) / 1024 }'
    rm -rf "$rss_tmp"
else
    echo "# peak RSS: skipped (needs GNU time, /usr/bin/time)"
fi

# `report DIR` over 3 000 small rank traces (bench/ranks.sh): its lines as notes, and two rows:
# the speed-up over the same run on one CPU (taskset), and the CPU time per trace.
if [ -x "$build/examples/train_loop" ] && [ -x /usr/bin/time ] && command -v python3 >/dev/null; then
    sh "$here/ranks.sh" -b "$build" -r 3 | sed 's/^\([^#]\)/# ranks: \1/' | awk -v cpus="$(nproc)" '
        { print }
        # "# ranks: LABEL... wall_s cpu_s cpu_ms/trace"
        /^# ranks: cat / { cat_ms = $NF }
        /^# ranks: vramtrace report DIR  / { all_wall = $(NF - 2); all_ms = $NF }
        /^# ranks: vramtrace report DIR, one CPU/ { one_wall = $(NF - 2) }
        /^# [0-9]+ traces/ { n = $2 }
        END {
            if (one_wall != "" && all_wall > 0)
                printf "| report DIR | %d traces, all CPUs against one (taskset), %d CPUs | %.2f s | %.2f s | %.2f | × faster | wall clock, best of 3; load %s |\n",
                    n, cpus, one_wall, all_wall, one_wall / all_wall, load()
            if (all_ms != "")
                printf "| report DIR | CPU per trace, %d traces | %.2f | %.2f | %.2f | CPU ms/trace | baseline: `cat` of the traces |\n",
                    n, cat_ms, all_ms, all_ms
        }
        function load(   l) { getline l < "/proc/loadavg"; split(l, f, " "); return f[1] " " f[2] " " f[3] }'
else
    echo "# ranks: skipped (needs $build/examples/train_loop, GNU time and python3)"
fi
} | annotate
