#!/bin/sh
# SPDX-License-Identifier: MIT
# peak.sh LIB SIMDIR VRAMTRACE PROGRAM CASE: PROGRAM (t_race) traced on the simulated device,
# several runs, each compared with the device's own figures (VTSIM_STATS) through
# `vramtrace report --json`:
#   race    8-32 threads racing every door (driver exports, cuGetProcAddress and dlsym, the
#           runtime's cudaMalloc and cudaMallocAsync, VMM, managed, pinned), with and without
#           address reuse: the device peak (the stream-ordered pool's reservation counted, not
#           its allocations) is never below the device's high-water mark, and
#           above it by at most one request per thread (the calls in flight); allocations,
#           frees and the end exact
#   serial  the same calls never overlapping: the device, pinned and managed peaks equal the
#           high-water marks
# In every case `timeline --csv`'s highest allocations + pool spare of device 0 is the peak (at
# most, when calls overlap).
#   double  two threads freeing one pointer, many rounds: one free each, one failure, nothing
#           left, the peak exact
#   hostfn  frees in host functions on the driver's thread while the main thread allocates
# Needs python3 (exits 77, skipped, without it).
lib=$1 simdir=$2 vramtrace=$3 prog=$4 case=$5
python3 -c 'import json' 2>/dev/null || { echo "python3 not found: skipped"; exit 77; }
. "$(dirname "$0")/../../lib/preamble.sh"
status=0
: >"$tmp/runs"

# traced RUN_NAME THREADS [VAR=VALUE...] -- ARGS: one traced run; its figures are kept as
# $tmp/N.stats and $tmp/N.json, its name and thread count in $tmp/runs, for one check at the end.
n=0
traced() {
    name=$1 threads=$2
    shift 2
    settings=""
    while [ "$1" != "--" ]; do settings="$settings $1"; shift; done
    shift
    n=$((n + 1))
    # shellcheck disable=SC2086 # VAR=VALUE words without spaces
    env -i PATH="$PATH" LD_LIBRARY_PATH="$simdir" LD_PRELOAD="$lib" VRAMTRACE_QUIET=1 \
        VRAMTRACE_OUTPUT="$tmp/$n.vtr" VTSIM_DEVICE_MEMORY=4G VTSIM_STATS="$tmp/$n.stats" \
        $settings "$prog" "$@" >"$tmp/out" 2>&1
    rc=$?
    if [ $rc != 0 ]; then
        echo "FAIL $name: the program exited $rc"; cat "$tmp/out"; status=1; return
    fi
    if ! "$vramtrace" report "$tmp/$n.vtr" --json >"$tmp/$n.json" 2>"$tmp/err"; then
        echo "FAIL $name: report failed"; cat "$tmp/err"; status=1; return
    fi
    if ! "$vramtrace" timeline --csv "$tmp/$n.vtr" >"$tmp/$n.csv" 2>"$tmp/err"; then
        echo "FAIL $name: timeline --csv failed"; cat "$tmp/err"; status=1; return
    fi
    printf '%s\t%s\t%s\n' "$n" "$threads" "$name" >>"$tmp/runs"
}

case $case in
race)
    for reuse in 0 1; do
        for run in 1 2 3; do
            threads=$((4 << run))
            traced "race reuse=$reuse run $run ($threads threads)" $threads VTSIM_REUSE=$reuse \
                -- race $threads 150 $run
        done
    done ;;
serial)
    for reuse in 0 1; do
        for run in 1 2; do
            traced "serial reuse=$reuse run $run" 1 VTSIM_REUSE=$reuse -- serial 8 100 $run
        done
    done ;;
double)
    for reuse in 0 1; do
        traced "double reuse=$reuse" 1 VTSIM_REUSE=$reuse -- double 3000
    done ;;
hostfn)
    for reuse in 0 1; do
        traced "hostfn reuse=$reuse" 2 VTSIM_REUSE=$reuse -- hostfn 1000
    done ;;
*)
    echo "peak.sh: unknown case '$case'"; exit 2 ;;
esac

python3 - "$case" "$tmp" <<'PY' || status=1
import json, sys
case, tmp = sys.argv[1], sys.argv[2]
status = 0
for line in open(f"{tmp}/runs"):
    n, threads, name = line.rstrip("\n").split("\t")
    threads = int(threads)
    stats, host = {}, {}
    for row in open(f"{tmp}/{n}.stats"):
        w = row.split()
        if w[0] == "device" and w[1] == "0":
            stats = {w[i]: int(w[i + 1]) for i in range(2, len(w) - 1, 2)}
        if w[0] in ("pinned", "managed"):
            host[w[0]] = {w[i]: int(w[i + 1]) for i in range(1, len(w) - 1, 2)}
    j = json.load(open(f"{tmp}/{n}.json"))
    dev = [d for d in j["devices"] if d["device"] == 0]
    peak = dev[0]["peak_bytes"] if dev else 0
    # What the device held at most: allocations, VMM handles and the stream-ordered pool's
    # reservation (a pool holds it whatever its allocations add up to); every size is a
    # multiple of 512 bytes, so the device charges what was asked.
    hwm = stats["hwm_bytes"]
    t = j["totals"]
    fail = []
    if peak < hwm:
        fail.append(f"peak {peak} below the device's {hwm} by {hwm - peak}")
    # One request in flight per thread at most: 4 MiB, or a VMM handle of two granules.
    if peak > hwm + threads * (4 << 20):
        fail.append(f"peak {peak} above the device's {hwm} by more than {threads} requests")
    if case in ("serial", "double") and peak != hwm:
        fail.append(f"peak {peak} != the device's {hwm} with no overlap")
    # timeline --csv: a row's allocations and its pools' spare are what the device holds; their
    # highest is the peak, save the calls in flight that only the report's figure counts.
    rows = [r.split(",") for r in open(f"{tmp}/{n}.csv").read().splitlines()[1:]]
    held = max((int(r[2]) + int(r[-1]) for r in rows if r[1] == "0"), default=0)
    if held > peak or (case in ("serial", "double") and held != peak):
        fail.append(f"timeline --csv's highest allocations + pool spare {held} vs the peak {peak}")
    # Every door's calls, pinned and managed memory included.
    allocs = stats["allocs"] + sum(h["allocs"] for h in host.values())
    frees = stats["frees"] + sum(h["frees"] for h in host.values())
    if t["allocs"] != allocs or t["frees"] != frees:
        fail.append(f"allocs/frees {t['allocs']}/{t['frees']} != the device's {allocs}/{frees}")
    # The host series: exact when calls do not overlap.
    if case == "serial":
        for key, series in (("host_pinned", "pinned"), ("managed", "managed")):
            if j[key]["peak_bytes"] != host[series]["alloc_hwm_bytes"]:
                fail.append(f"{series} peak {j[key]['peak_bytes']} != the device's "
                            f"{host[series]['alloc_hwm_bytes']}")
    if t["leaked_bytes"] != stats["alloc_live_bytes"] or t.get("unmatched_frees", 0):
        fail.append(f"end: {t['leaked_bytes']} live, {t.get('unmatched_frees')} unmatched; "
                    f"device {stats['alloc_live_bytes']}")
    if fail:
        print(f"FAIL {name}: " + "; ".join(fail))
        status = 1
    else:
        print(f"ok {name}: peak {peak}, device {hwm}")
sys.exit(status)
PY
exit $status
