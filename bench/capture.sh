#!/bin/sh
# SPDX-License-Identifier: MIT
# capture.sh [-b BUILD_DIR] [-r RUNS] [-n PAIRS] [-p PY_PAIRS] [-t THREAD_PAIRS] [-e EVENTS]
#            [-H] [-s]
# The capture-side benchmarks, as rows of one markdown table (docs/performance.md,
# "Capture benchmarks"). Every timed figure is the median of RUNS runs; the runs of all the
# variants of one benchmark are interleaved (one of each per round), so drift in the machine's
# speed hits them alike. added = variant - untraced, both medians.
#   capture   bench/capture: cudaMalloc + cudaFree + one host malloc/free per pair, 70 frames
#             deep, untraced; under libvramtrace.so at VRAMTRACE_DEPTH 0, 16 and 64; under
#             heaptrack (its added cost per loop pair, and per host allocation it recorded: the
#             simulated CUDA libraries allocate on the host too, and heaptrack counts those);
#             the physical limit, bench/unwind_floor (unw_backtrace + one hash insert/delete).
#   python    bench/capture.py: the same pair from a Python loop 10 distinct functions deep,
#             with ctypes.CDLL (the GIL released around each call, as PyTorch's bindings do) and
#             ctypes.PyDLL (the GIL kept), untraced and traced at the default depth (64), Python
#             frames included.
#   threads   bench/threads: 1, 2, 4, 8, 16 threads each doing THREAD_PAIRS pairs, untraced and
#             traced at depth 0 and 64 (a shallow stack): CPU ns per pair per thread (the wall
#             time per thread grows with threads / cores whatever the tracer does), and how many
#             takes of vramtrace's lock found it held, per 1000 pairs (bench/threads_scaling.sh
#             gives the wall clock on a machine with more cores).
#   first     bench/first_call: a thread's first pair (CPU time), threads started one after the
#             other, untraced and traced at depth 64: threads that exit before the next starts
#             and threads that all stay (nothing an exited thread left to reuse).
#   trace     bench/trace_size: bytes per allocation or free event of the trace, on a
#             PyTorch-like and a per-tensor mix of EVENTS events (depth 64).
#   memory    bench/footprint: the library's arena bytes per live allocation (at several counts:
#             81 921 is just past a doubling of the live table, where it is emptiest) and per
#             stack.
#   vmm       bench/vmm_unmap: one cuMemUnmap of a 16-chunk segment recorded beside 1 M other
#             live allocations, against the same unmap with none live.
#   threads, instructions (with valgrind): bench/threads at depth 0 under callgrind, which runs
#             one thread at a time: the instructions a pair adds per thread, 1 to 16 threads.
#             It counts the work, not the waiting (the threads rows' contention is that).
#   -b BUILD_DIR     the CMake build directory (default: build)
#   -r RUNS          runs of each variant (default: 5)
#   -n PAIRS         pairs per run of bench/capture (default: 100000)
#   -p PY_PAIRS      pairs per run of bench/capture.py (default: 50000)
#   -t THREAD_PAIRS  pairs per thread per run of bench/threads (default: 10000)
#   -e EVENTS        events per trace of bench/trace_size (default: 1000000)
#   -H               no heaptrack runs
#   -s               smoke test (ctest bench_capture_smoke): everything once and tiny, each
#                    traced driver checked to be traced; the figures mean nothing
set -eu
build=build runs=5 pairs=100000 pypairs=50000 tpairs=10000 events=1000000 heap=1 smoke=0
while getopts b:r:n:p:t:e:Hs opt; do
    case $opt in
    b) build=$OPTARG ;;
    r) runs=$OPTARG ;;
    n) pairs=$OPTARG ;;
    p) pypairs=$OPTARG ;;
    t) tpairs=$OPTARG ;;
    e) events=$OPTARG ;;
    H) heap=0 ;;
    s) smoke=1 runs=1 pairs=2000 pypairs=500 tpairs=200 events=20000 heap=0 ;;
    *) echo "usage: $0 [-b BUILD_DIR] [-r RUNS] [-n PAIRS] [-p PY_PAIRS] [-t THREAD_PAIRS] [-e EVENTS] [-H] [-s]" >&2; exit 2 ;;
    esac
done
here=$(cd "$(dirname "$0")" && pwd)
bin=$build/bench
lib=$(cd "$build/src" && pwd)/libvramtrace.so
sim=$(cd "$build/sim" && pwd)
for f in capture threads first_call unwind_floor trace_size footprint vmm_unmap; do
    [ -x "$bin/$f" ] || { echo "capture.sh: '$bin/$f' not found: build first (cmake --build $build)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python=$(command -v python3 || true)
[ "$heap" = 1 ] && ! command -v heaptrack >/dev/null && heap=0 && echo "# heaptrack not installed: its rows are skipped"
chain=70 # frames of bench/capture's chain: more than 64, so a 64-frame stack exists

plain() { LD_LIBRARY_PATH=$sim "$@"; }
traced() { # traced DEPTH CMD...: its verbose exit log (level 2: the lock's figure) in traced.err
    d=$1
    shift
    LD_LIBRARY_PATH=$sim LD_PRELOAD=$lib VRAMTRACE_DEPTH=$d VRAMTRACE_QUIET=1 VRAMTRACE_VERBOSE=2 \
        VRAMTRACE_OUTPUT=$tmp/trace "$@" 2>"$tmp/traced.err" || { cat "$tmp/traced.err" >&2; return 1; }
    rm -f "$tmp"/trace.*
}
# contended N PAIRS: the last traced run's contended takes of vramtrace's lock per 1000 pairs,
# appended to $tmp/N (bench/threads makes THREADS * (PAIRS + PAIRS / 10 + 1) + 1 pairs).
contended() {
    sed -n 's/.*stats lock contended_takes=\([0-9]*\).*/\1/p' "$tmp/traced.err" |
        awk -v p="$2" '{ print $1 * 1000 / p }' >>"$tmp/$1"
}
# add NAME: the figure (2nd field) of the program's output line, appended to $tmp/NAME.
add() { awk -v f="${2:-2}" '$1 ~ /^(capture|pycapture|floor|threads|first_call)$/ { print $f }' >>"$tmp/$1"; }
median() {
    sort -g "$tmp/$1" | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else
        print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
spread() { # min-max of the runs, for the reader to judge the noise
    sort -g "$tmp/$1" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.0f–%.0f", lo, hi }'
}
calc() { awk "BEGIN { printf \"%.${2:-1}f\", $1 }"; }

# The traced runs must really be traced, or the differences mean nothing: one short verbose run
# of each driver must show its pairs in the totals line.
check() { # check WANT_ALLOCS DEPTH CMD...
    want=$1 d=$2
    shift 2
    LD_LIBRARY_PATH=$sim LD_PRELOAD=$lib VRAMTRACE_DEPTH=$d VRAMTRACE_VERBOSE=1 \
        VRAMTRACE_OUTPUT=$tmp/check "$@" >"$tmp/check.out" 2>"$tmp/check.err" || true
    rm -f "$tmp"/check.*.vtr
    if ! grep -q "stats totals allocs=$want frees=$want " "$tmp/check.err"; then
        echo "capture.sh: '$*' traced at depth $d did not record $want pairs:" >&2
        cat "$tmp/check.out" "$tmp/check.err" >&2
        exit 1
    fi
}
check $((1000 + 101)) 64 "$bin/capture" 1000 "$chain"
check $((1 + 4 * (100 + 11))) 0 "$bin/threads" 4 100
py_ok=0
if [ -n "$python" ]; then
    # The loop's cudaMalloc reaches the simulated driver through vramtrace's driver door; the
    # verbose log says whether Python frames are taken.
    check $((1000 + 101)) 64 "$python" "$here/capture.py" 1000 10 cdll
    grep -q 'Python 3\.[0-9]* found' "$tmp/check.err" && py_ok=1
    [ "$py_ok" = 1 ] || echo "# $python: no Python frames ($(grep -o 'Python 3[^:]*' "$tmp/check.err" | head -n 1))"
fi

# ---- capture cost per pair -----------------------------------------------------------------
i=0
while [ "$i" -lt "$runs" ]; do
    plain "$bin/capture" "$pairs" "$chain" | add c_base
    for d in 0 16 64; do
        traced "$d" "$bin/capture" "$pairs" "$chain" | add "c_d$d"
    done
    for d in 16 64; do
        "$bin/unwind_floor" "$pairs" "$d" "$chain" | add "floor_$d"
    done
    if [ "$heap" = 1 ]; then
        rm -f "$tmp"/ht.*
        plain heaptrack -o "$tmp/ht" "$bin/capture" "$pairs" "$chain" >"$tmp/ht.out" 2>&1 || true
        add c_heap <"$tmp/ht.out"
        awk '/^[ \t]*allocations:/ { print $2 }' "$tmp/ht.out" >>"$tmp/heap_allocs"
        rm -f "$tmp"/ht.*
    fi
    if [ "$py_ok" = 1 ]; then
        for kind in cdll pydll; do
            plain "$python" "$here/capture.py" "$pypairs" 10 "$kind" | add "py_base_$kind"
            traced 64 "$python" "$here/capture.py" "$pypairs" 10 "$kind" | add "py_d64_$kind"
        done
    fi
    i=$((i + 1))
done

echo "# $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), load $(cut -d' ' -f1-3 /proc/loadavg), commit $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown), medians of $runs interleaved runs (min–max in the last column)"
echo "| benchmark | case | untraced | traced | added | unit | vs heaptrack / notes |"
echo "|---|---|---:|---:|---:|---|---|"
base=$(median c_base)
heap_added= heap_per_host=
if [ "$heap" = 1 ] && [ -s "$tmp/c_heap" ]; then
    h=$(median c_heap)
    heap_added=$(calc "$h - $base")
    host_per_pair=$(calc "$(sort -g "$tmp/heap_allocs" | head -n 1) / ($pairs + $pairs / 10 + 1)" 2)
    heap_per_host=$(calc "$heap_added / $host_per_pair")
fi
vs_heap() { # the ratio of an added cost to heaptrack's, per loop pair and per host event pair
    [ -n "$heap_added" ] || { echo "-"; return; }
    echo "$(calc "$1 / $heap_added" 2)× per loop pair, $(calc "$1 / $heap_per_host" 2)× per host pair"
}
for d in 0 16 64; do
    t=$(median "c_d$d")
    a=$(calc "$t - $base")
    echo "| capture | VRAMTRACE_DEPTH=$d | $(calc "$base") | $(calc "$t") | $a | ns/pair | $(vs_heap "$a"); $(spread "c_d$d") |"
done
if [ -n "$heap_added" ]; then
    echo "| capture | heaptrack 1.4 (host allocations) | $(calc "$base") | $(calc "$h") | $heap_added | ns/pair | $host_per_pair host alloc+free pairs per loop pair: $heap_per_host ns each; $(spread c_heap) |"
fi
for d in 16 64; do
    echo "| capture | floor: unw_backtrace $d frames + hash insert | – | – | $(calc "$(median "floor_$d")") | ns/pair | no vramtrace; $(spread "floor_$d") |"
done
if [ "$py_ok" = 1 ]; then
    for kind in cdll pydll; do
        pb=$(median "py_base_$kind") pt=$(median "py_d64_$kind")
        what="GIL released (CDLL)"
        [ "$kind" = pydll ] && what="GIL held (PyDLL)"
        echo "| python | ctypes loop, 10 Python frames, $what, depth 64 | $(calc "$pb") | $(calc "$pt") | $(calc "$pt - $pb") | ns/pair | $(spread "py_d64_$kind") |"
    done
fi

# ---- threads --------------------------------------------------------------------------------
for n in 1 2 4 8 16; do
    i=0
    while [ "$i" -lt "$runs" ]; do
        out=$(plain "$bin/threads" "$n" "$tpairs")
        echo "$out" | add "t${n}_base" 4
        echo "$out" | add "t${n}_base_all" 5
        for d in 0 64; do
            out=$(traced "$d" "$bin/threads" "$n" "$tpairs")
            echo "$out" | add "t${n}_d$d" 4
            echo "$out" | add "t${n}_d${d}_all" 5
            contended "t${n}_d${d}_lock" $((n * (tpairs + tpairs / 10 + 1) + 1))
        done
        i=$((i + 1))
    done
    b=$(median "t${n}_base")
    for d in 0 64; do
        t=$(median "t${n}_d$d")
        echo "| threads | $n threads, depth $d | $(calc "$b") | $(calc "$t") | $(calc "$t - $b") | CPU ns/pair/thread | elapsed per pair, all threads: $(calc "$(median "t${n}_base_all")") untraced, $(calc "$(median "t${n}_d${d}_all")") traced; lock contended $(calc "$(median "t${n}_d${d}_lock")" 2) per 1000 pairs |"
    done
done

# ---- a thread's first call ---------------------------------------------------------------------
# bench/first_call: the median over 50 threads of each one's first pair, threads that exit before
# the next starts and threads that stay (their fields: 3 and 5 of its line).
nfirst=$((smoke ? 4 : 50))
i=0
while [ "$i" -lt "$runs" ]; do
    out=$(plain "$bin/first_call" "$nfirst")
    echo "$out" | add fc_base_exit 3
    echo "$out" | add fc_base_stay 5
    out=$(traced 64 "$bin/first_call" "$nfirst")
    echo "$out" | add fc_exit 3
    echo "$out" | add fc_stay 5
    i=$((i + 1))
done
for kind in exit stay; do
    b=$(median "fc_base_$kind") t=$(median "fc_$kind")
    what="threads that exit before the next starts"
    [ "$kind" = stay ] && what="threads that all stay"
    echo "| first call | a thread's first pair, $what, depth 64 | $(calc "$b" 0) | $(calc "$t" 0) | $(calc "$t - $b" 0) | CPU ns | median of $nfirst threads; $(spread "fc_$kind") |"
done

# ---- trace size and memory --------------------------------------------------------------------
for mix in pytorch tensor; do
    rm -f "$tmp"/size.*
    out=$(VRAMTRACE_QUIET=1 VRAMTRACE_OUTPUT=$tmp/size "$bin/trace_size" "$mix" "$events")
    bytes=$(cat "$tmp"/size.*.vtr | wc -c)
    n=$(echo "$out" | awk '{ print $3 }')
    echo "| trace | $mix mix, $n events | – | $bytes | $(calc "$bytes / $n" 2) | bytes/event | $(echo "$out" | awk '{ print $6 }') stack trie nodes |"
    rm -f "$tmp"/size.*
done
lives=$([ "$smoke" = 1 ] && echo 20000 || echo 50000 81921 100000 200000 1000000)
nstacks=$((smoke ? 4096 : 65536))
for what in $(for n in $lives; do echo "live:$n"; done) "stacks:$nstacks"; do
    what=$(echo "$what" | tr : ' ')
    # shellcheck disable=SC2086 # "live N": two arguments
    out=$(VRAMTRACE_QUIET=1 VRAMTRACE_OUTPUT=$tmp/fp $bin/footprint $what)
    rm -f "$tmp"/fp.*
    echo "$out" | awk '{ unit = $2 == "live" ? "bytes/live allocation" : "bytes/distinct stack"
        printf "| memory | %d %s | – | %d | %s | %s | arena bytes; %d trie nodes added |\n",
            $3, $2 == "live" ? "live allocations" : "distinct stacks", $4, $5, unit, $6 }'
done
nother=$((smoke ? 20000 : 1000000))
out=$(VRAMTRACE_QUIET=1 VRAMTRACE_OUTPUT=$tmp/vmm $bin/vmm_unmap $nother 16 $((smoke ? 3 : 50)))
rm -f "$tmp"/vmm.*
echo "$out" | awk '{ printf "| vmm | unmap of %d mappings, %d other allocations live | %s | %s | %s | ns/unmap | best of the rounds; baseline: none live |\n",
    $3, $2, $4, $5, $5 - $4 }'

# ---- threads, in instructions ----------------------------------------------------------------
# Per pair per thread, traced minus untraced, each the difference of two runs of different
# lengths (THREADS * (PAIRS + PAIRS / 10 + 1) pairs: the warm-up's included), so that start and
# exit cancel. Flat from 1 to 16 threads: nothing a pair does grows with the threads.
# valgrind cannot run a sanitizer build (its shadow memory): those get a note instead.
if command -v valgrind >/dev/null &&
    traced 0 valgrind -q --tool=none "$bin/threads" 1 10 >/dev/null 2>&1; then
    short=$((smoke ? 100 : tpairs / 5)) long=$((smoke ? 300 : 3 * tpairs / 5))
    # instructions plain|traced PAIRS: what callgrind counted for bench/threads $n PAIRS,
    # untraced or at depth 0
    instructions() {
        if [ "$1" = plain ]; then set -- "$2" plain; else set -- "$2" traced 0; fi
        ipairs=$1
        shift
        "$@" valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$bin/threads" "$n" \
            "$ipairs" >/dev/null 2>&1
        awk '/^(summary|totals):/ { print $2; exit }' "$tmp/cg.out"
        rm -f "$tmp/cg.out"
    }
    per_pair() { # per_pair plain|traced: per pair per thread, the long run less the short one
        b=$(instructions "$1" "$long") a=$(instructions "$1" "$short")
        calc "($b - $a) / $((n * (long + long / 10 - short - short / 10)))" 0
    }
    for n in $([ "$smoke" = 1 ] && echo 2 || echo 1 2 4 8 16); do
        u=$(per_pair plain) t=$(per_pair traced)
        echo "| threads | $n threads, depth 0, instructions | $u | $t | $((t - u)) | instructions/pair/thread | callgrind (one thread at a time: the work, not the waiting); $short and $long pairs per thread |"
    done
else
    echo "# valgrind not installed, or it cannot run this build: no instruction counts of the threads"
fi
