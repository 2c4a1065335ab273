#!/bin/sh
# SPDX-License-Identifier: MIT
# count.sh LIB SIMDIR VRAMTRACE PROGRAM CASE: PROGRAM (t_count CASE) traced on the simulated
# device, its report compared with the device's own figures (VTSIM_STATS) through
# `vramtrace report --json`: the device peak equals the device's high-water mark of allocations,
# the bytes live at the end its live bytes, the managed and pinned peaks its own.
#   contexts  memory of created contexts and of the primary context, dropped with them
# Needs python3 (exits 77, skipped, without it).
set -u
lib=$1 simdir=$2 vramtrace=$3 prog=$4 case=$5
python3 -c 'import json' 2>/dev/null || { echo "python3 not found: skipped"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

env -i PATH="$PATH" LD_LIBRARY_PATH="$simdir" LD_PRELOAD="$lib" VRAMTRACE_QUIET=1 \
    VRAMTRACE_OUTPUT="$tmp/t.vtr" VTSIM_DEVICE_MEMORY=4G VTSIM_STATS="$tmp/stats" \
    "$prog" "$case" >"$tmp/out" 2>&1
rc=$?
if [ $rc != 0 ]; then
    echo "FAIL $case: the program exited $rc"; cat "$tmp/out"; exit 1
fi
"$vramtrace" report "$tmp/t.vtr" --json >"$tmp/json" 2>"$tmp/err" ||
    { echo "FAIL $case: report failed"; cat "$tmp/err"; exit 1; }

python3 - "$case" "$tmp" <<'PY'
import json, sys
case, tmp = sys.argv[1], sys.argv[2]
stats = {}
for row in open(f"{tmp}/stats"):
    w = row.split()
    if w[0] in ("device", "pinned", "managed"):
        first = 2 if w[0] == "device" else 1
        if w[0] == "device" and w[1] != "0":
            continue
        stats[w[0]] = {w[i]: int(w[i + 1]) for i in range(first, len(w) - 1, 2)}
j = json.load(open(f"{tmp}/json"))
dev = [d for d in j["devices"] if d["device"] == 0]
got = {
    "device peak": (dev[0]["peak_bytes"] if dev else 0, stats["device"]["alloc_hwm_bytes"]),
    "device live at the end": (dev[0]["leaked_bytes"] if dev else 0,
                               stats["device"]["alloc_live_bytes"]),
    "managed peak": (j["managed"]["peak_bytes"], stats["managed"]["alloc_hwm_bytes"]),
    "pinned peak": (j["host_pinned"]["peak_bytes"], stats["pinned"]["alloc_hwm_bytes"]),
}
fail = [f"{k} {ours} != the device's {theirs}" for k, (ours, theirs) in got.items()
        if ours != theirs]
if fail:
    print(f"FAIL {case}: " + "; ".join(fail))
    sys.exit(1)
print(f"ok {case}: " + ", ".join(f"{k} {ours}" for k, (ours, _) in got.items()))
PY
