#!/bin/sh
# SPDX-License-Identifier: MIT
# analyzer.sh [-b BUILD_DIR] [-n EVENTS] [-r RUNS] [-H PAIRS] [-c OTHER_VRAMTRACE] [-P] [-F]
# The analyzer's rate: bench/gen_trace writes a trace of EVENTS allocation and free events into a
# temporary directory (recorded by the capture core and written by the real writer: the compact
# records of every real trace; with -F, full records), then `vramtrace report FILE`,
# `report --json`, `timeline --csv`, `export --format perfetto` and `export --format csv` are
# timed on it (the CLI is single-threaded), RUNS times each, output to /dev/null; the best run
# gives events/s. With GNU time (/usr/bin/time) two more columns: the best run's CPU seconds
# (user + system: on a shared machine the wall clock follows the load, CPU time much less) and
# its events per CPU second; the last column is the largest peak RSS of the runs (%M; "-"
# without it). The trace is read through a file mapping, a window at a time, the pages read
# handed back: the RSS is the live set plus the windows, not the file.
# Targets (docs/performance.md): report >= 100 M events/s; timeline --csv and the exports
# >= 30 M events/s, beside the floor of writing their output (below); RSS bounded by the live
# set plus the mapping window.
# Side by side, the baselines:
#   - the I/O floor: `cat FILE >/dev/null` and `wc -l FILE` on the same file, page cache warm
#     (`wc -l`, not `wc -c`: GNU wc -c of a regular file takes its size from fstat, reads nothing);
#   - the decoding floors, nothing applied: bench/read_trace -f, the fast path as report's loop
#     inlines it (report's own decoding: the rest of report is the analysis), and bench/read_trace,
#     the reader with an event handed out per record (as the streaming commands read);
#   - the output floor: each line-per-event output (timeline --csv, export csv and perfetto) is
#     written once to a file, and `cat` of it to /dev/null is timed: what moving that many bytes
#     through a pipe-less write costs, without producing them;
#   - heaptrack_print, when heaptrack and heaptrack_print are installed and a C compiler is
#     found: a small program doing PAIRS malloc/free pairs is recorded with heaptrack and
#     heaptrack_print is timed on that file. Recording costs microseconds per call, so PAIRS
#     defaults to 1 000 000 (2 M events), not EVENTS/2; the rates compare, the sizes do not.
#   -b BUILD_DIR  the CMake build directory (default: build)
#   -n EVENTS     events in the generated trace (default: 50000000)
#   -r RUNS       timed runs of each command (default: 3)
#   -H PAIRS      malloc/free pairs for the heaptrack baseline (default: 1000000; 0: skip it)
#   -c OTHER      another vramtrace binary (a copy of an older build) timed on the same trace,
#                 its runs interleaved with this build's, for an A/B on a machine whose load
#                 moves: rows "OTHER report" and "OTHER report --json"
#   -P            the trace's peak is its last event (gen_trace -P): the call-sites at the peak
#                 cannot come from a short replay
#   -F            the trace in full records (gen_trace -F: format 1.1's ALLOC and FREE, every
#                 field, 11 bytes an event instead of 5)
set -eu
build=build events=50000000 runs=3 hpairs=1000000 other= peak_last= full=
while getopts b:n:r:H:c:PF opt; do
    case $opt in
    b) build=$OPTARG ;;
    n) events=$OPTARG ;;
    r) runs=$OPTARG ;;
    H) hpairs=$OPTARG ;;
    c) other=$OPTARG ;;
    P) peak_last=-P ;;
    F) full=-F ;;
    *) echo "usage: $0 [-b BUILD_DIR] [-n EVENTS] [-r RUNS] [-H PAIRS] [-c OTHER_VRAMTRACE] [-P] [-F]" >&2; exit 2 ;;
    esac
done
gen=$build/bench/gen_trace
vt=$build/tools/vramtrace
reader=$build/bench/read_trace
for f in "$gen" "$vt" "$reader" ${other:+"$other"}; do
    [ -x "$f" ] || { echo "analyzer.sh: '$f' not found: build first (cmake --build $build)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
# best SECONDS_FILE: the fastest of the runs recorded in it.
best() { sort -g "$1" | head -n 1; }
# Peak RSS and CPU time through GNU time when it is there (its own fork and exec are outside the
# timed span's noise at these run lengths: about a millisecond).
gnu_time=
if [ -x /usr/bin/time ] && /usr/bin/time -f %M -o /dev/null true 2>/dev/null; then
    gnu_time=/usr/bin/time
fi
# once NAME CMD...: one run of CMD (stdout to /dev/null), its seconds appended to $tmp/NAME, its
# peak RSS in KiB to $tmp/NAME.rss and its CPU seconds (user + system) to $tmp/NAME.cpu.
once() {
    name=$1
    shift
    t0=$(now)
    if [ -n "$gnu_time" ]; then
        "$gnu_time" -f "%M %U %S" -o "$tmp/gt" "$@" >/dev/null
        awk '{ print $1 }' "$tmp/gt" >>"$tmp/$name.rss"
        awk '{ printf "%.2f\n", $2 + $3 }' "$tmp/gt" >>"$tmp/$name.cpu"
    else
        "$@" >/dev/null
    fi
    t1=$(now)
    echo "$t0 $t1" | awk '{ printf "%.6f\n", $2 - $1 }' >>"$tmp/$name"
}
# cpu NAME: the least CPU seconds of NAME's runs, or "-".
cpu() {
    if [ -s "$tmp/$1.cpu" ]; then sort -g "$tmp/$1.cpu" | head -n 1; else echo -; fi
}
# rss NAME: the largest peak RSS of NAME's runs in MiB, or "-".
rss() {
    if [ -s "$tmp/$1.rss" ]; then
        sort -g "$tmp/$1.rss" | tail -n 1 | awk '{ printf "%.1f", $1 / 1024 }'
    else
        echo -
    fi
}
# timed NAME CMD...: RUNS runs of CMD.
timed() {
    i=0
    while [ "$i" -lt "$runs" ]; do
        once "$@"
        i=$((i + 1))
    done
}
row() { # row LABEL EVENTS BYTES SECONDS [RSS_MIB [CPU_SECONDS]]
    echo "$2 $3 $4 ${5:--} ${6:--}" | awk -v label="$1" '{
        cpu = ($5 == "-" ? "-" : sprintf("%.2f", $5))
        rate = ($5 == "-" || $5 <= 0 ? "-" : sprintf("%.1f", $1 / $5 / 1e6))
        printf "%-30s %12d %10.2f %9.3f %10.2f %9.1f %9s %7s %10s\n", label, $1, $2 / 1048576, $3,
            ($3 > 0 ? $1 / $3 / 1e6 : 0), ($3 > 0 ? $2 / $3 / 1048576 : 0), $4, cpu, rate }'
}

t0=$(now)
"$gen" -n "$events" $peak_last $full "$tmp/t.vtr" >"$tmp/gen"
t1=$(now)
bytes=$(stat -c %s "$tmp/t.vtr")
echo "# $(cat "$tmp/gen") in $(echo "$t0 $t1" | awk '{ printf "%.1f", $2 - $1 }') s"
echo "# $(echo "$bytes $events" | awk '{ printf "%.2f", $1 / $2 }') bytes per event; best of $runs runs; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"

# The report must read the whole file, or its time means nothing.
for v in "$vt" ${other:+"$other"}; do
    "$v" report --json "$tmp/t.vtr" >"$tmp/json"
    grep -q '"complete": true' "$tmp/json" || { echo "analyzer.sh: $v report did not read the whole trace" >&2; exit 1; }
done

timed t_cat sh -c 'cat "$1" >/dev/null' sh "$tmp/t.vtr"
timed t_wc wc -l "$tmp/t.vtr"
"$reader" "$tmp/t.vtr" >/dev/null || { echo "analyzer.sh: $reader could not read the trace" >&2; exit 1; }
# The output floors: each output once into a file, then cat of it (the file is removed after).
for out in csv:"timeline --csv" ecsv:"export --format csv -o -" perfetto:"export --format perfetto -o -"; do
    name=${out%%:*}
    # shellcheck disable=SC2086 # the command's words
    "$vt" ${out#*:} "$tmp/t.vtr" >"$tmp/out"
    stat -c %s "$tmp/out" >"$tmp/$name.bytes"
    timed "cat_$name" sh -c 'cat "$1" >/dev/null' sh "$tmp/out"
    rm -f "$tmp/out"
done
# Interleaved: a change of load hits this build and OTHER alike.
i=0
while [ "$i" -lt "$runs" ]; do
    for v in t ${other:+o}; do
        if [ "$v" = t ]; then bin=$vt; else bin=$other; fi
        [ "$v" = o ] || once t_readf "$reader" -f "$tmp/t.vtr"
        [ "$v" = o ] || once t_read "$reader" "$tmp/t.vtr"
        once "${v}_report" "$bin" report "$tmp/t.vtr"
        once "${v}_json" "$bin" report --json "$tmp/t.vtr"
        once "${v}_csv" "$bin" timeline --csv "$tmp/t.vtr"
        once "${v}_perfetto" "$bin" export "$tmp/t.vtr" --format perfetto -o -
        once "${v}_ecsv" "$bin" export "$tmp/t.vtr" --format csv -o -
    done
    i=$((i + 1))
done
printf '%-30s %12s %10s %9s %10s %9s %9s %7s %10s\n' command events MiB seconds Mevents/s MiB/s \
    RSS_MiB CPU_s Mev/CPU_s
row "cat FILE >/dev/null" "$events" "$bytes" "$(best "$tmp/t_cat")" - "$(cpu t_cat)"
row "wc -l FILE" "$events" "$bytes" "$(best "$tmp/t_wc")" - "$(cpu t_wc)"
row "decode only (read_trace -f)" "$events" "$bytes" "$(best "$tmp/t_readf")" "$(rss t_readf)" \
    "$(cpu t_readf)"
row "decode + events (read_trace)" "$events" "$bytes" "$(best "$tmp/t_read")" "$(rss t_read)" \
    "$(cpu t_read)"
# The floors' MiB column is the output's size; their events are the trace's.
for f in csv:"timeline --csv" ecsv:"export csv" perfetto:"export perfetto"; do
    name=${f%%:*}
    row "cat <${f#*:} output>" "$events" "$(cat "$tmp/$name.bytes")" "$(best "$tmp/cat_$name")" - \
        "$(cpu "cat_$name")"
done
for v in t ${other:+o}; do
    if [ "$v" = t ]; then who=vramtrace; else who=OTHER; fi
    for c in report:"report" json:"report --json" csv:"timeline --csv" perfetto:"export perfetto" \
        ecsv:"export csv"; do
        name=${v}_${c%%:*}
        row "$who ${c#*:}" "$events" "$bytes" "$(best "$tmp/$name")" "$(rss "$name")" "$(cpu "$name")"
    done
done
[ -z "$other" ] || echo "# OTHER: $other"
# heaptrack_print on a heaptrack recording of PAIRS malloc/free pairs.
cc=${CC:-cc}
if [ "$hpairs" = 0 ]; then
    echo "# heaptrack baseline skipped (-H 0)"
elif ! command -v heaptrack >/dev/null || ! command -v heaptrack_print >/dev/null; then
    echo "# heaptrack baseline skipped: heaptrack or heaptrack_print is not installed"
elif ! command -v "$cc" >/dev/null; then
    echo "# heaptrack baseline skipped: no C compiler ($cc) for its test program"
else
    cat >"$tmp/pairs.c" <<'PROG'
#include <stdlib.h>
int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    void *volatile p;
    for (long i = 0; i < n; i++) {
        p = malloc(64 + (size_t)(i & 1023));
        free(p);
    }
    return 0;
}
PROG
    "$cc" -O1 -o "$tmp/pairs" "$tmp/pairs.c"
    (cd "$tmp" && heaptrack ./pairs "$hpairs" >"$tmp/heaptrack.log" 2>&1) || true
    htrace=$(ls "$tmp"/heaptrack.pairs.* 2>/dev/null | head -n 1)
    if [ -z "$htrace" ]; then
        echo "# heaptrack baseline skipped: heaptrack wrote no file:"
        sed 's/^/#   /' "$tmp/heaptrack.log"
    else
        hbytes=$(stat -c %s "$htrace")
        hevents=$((2 * hpairs))
        timed t_hprint heaptrack_print "$htrace"
        row "heaptrack_print" "$hevents" "$hbytes" "$(best "$tmp/t_hprint")" "$(rss t_hprint)" \
            "$(cpu t_hprint)"
        echo "# heaptrack_print: $(basename "$htrace"), compressed (MiB is the compressed size)," \
            "$hevents events counted ($hpairs malloc/free pairs; the C runtime's own few not counted)"
    fi
fi
