#!/bin/sh
# SPDX-License-Identifier: MIT
# loads.sh [-b BUILD_DIR] [-r RUNS] [-c OTHER_LIB]
# What libvramtrace.so costs a process that loads libraries, CUDA or not (its startup and
# dlopen doors turn every loaded object's CUDA references towards its shims, src/loads.c), beside
# the untraced baseline of the same run, interleaved (untraced, traced, ...), medians of RUNS:
#   startup   CPU µs to start and end a program that never touches CUDA: /bin/true, and python3
#             importing a few extension modules (each one a dlopen);
#   dlopen    ns per dlopen + dlclose of a handful of system libraries (bench/loads.c): every
#             load patches the new objects, and after an unload every object is visited again.
#   -c OTHER_LIB  another libvramtrace.so (a copy of an older build) run beside, interleaved: its
#                 lines start with "other"
set -eu
build=build runs=7 other=
while getopts b:r:c: opt; do
    case $opt in
    b) build=$OPTARG ;;
    r) runs=$OPTARG ;;
    c) other=$OPTARG ;;
    *) echo "usage: $0 [-b BUILD_DIR] [-r RUNS] [-c OTHER_LIB]" >&2; exit 2 ;;
    esac
done
lib=$(cd "$build/src" && pwd)/libvramtrace.so
loads=$build/bench/loads
[ -f "$lib" ] && [ -x "$loads" ] || { echo "loads.sh: build $build first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python=$(command -v python3)

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# CPU µs (user + system) per start, over 20 starts of the command "$@", untraced (preload
# empty) or traced: CPU time, not wall time, which a busy machine disturbs far more.
starts() {
    preload=$1
    shift
    VT_BENCH_PRELOAD=$preload VRAMTRACE_OUTPUT="$tmp/t.vtr" python3 -c '
import os, resource, subprocess, sys
env = dict(os.environ)
env.pop("LD_PRELOAD", None)
if env["VT_BENCH_PRELOAD"]:
    env["LD_PRELOAD"] = env["VT_BENCH_PRELOAD"]
before = resource.getrusage(resource.RUSAGE_CHILDREN)
for _ in range(20):
    subprocess.run(sys.argv[1:], env=env, stdout=subprocess.DEVNULL, check=True)
after = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
print(int(cpu / 20 * 1e6))' "$@"
}

kinds="plain traced"
[ -n "$other" ] && kinds="plain traced other"
imports='import json, decimal, sqlite3, ctypes, ssl, hashlib'
run=0
while [ $run -lt "$runs" ]; do
    for kind in $kinds; do
        preload=""
        [ $kind = traced ] && preload=$lib
        [ $kind = other ] && preload=$other
        starts "$preload" /bin/true >>"$tmp/true.$kind"
        starts "$preload" "$python" -c "$imports" >>"$tmp/py.$kind"
    done
    for kind in $kinds; do
        preload=""
        [ $kind = traced ] && preload=$lib
        [ $kind = other ] && preload=$other
        env LD_PRELOAD="$preload" VRAMTRACE_OUTPUT="$tmp/t.vtr" "$loads" 200 libz.so.1 \
            libbz2.so.1.0 liblzma.so.5 libexpat.so.1 libffi.so.8 |
            awk '{ print $2 }' >>"$tmp/dlopen.$kind"
    done
    run=$((run + 1))
done
for what in true py dlopen; do
    plain=$(median <"$tmp/$what.plain") traced=$(median <"$tmp/$what.traced")
    unit=us
    [ $what = dlopen ] && unit=ns
    label=$what
    [ $what = true ] && label="startup /bin/true"
    [ $what = py ] && label="startup python3 (6 imports)"
    [ $what = dlopen ] && label="dlopen + dlclose"
    printf '%-30s untraced %8s %s  traced %8s %s  added %8s %s\n' "$label" "$plain" $unit \
        "$traced" $unit $((traced - plain)) $unit
    [ -n "$other" ] || continue
    o=$(median <"$tmp/$what.other")
    printf '%-30s untraced %8s %s  traced %8s %s  added %8s %s\n' "other $label" "$plain" $unit \
        "$o" $unit $((o - plain)) $unit
done
