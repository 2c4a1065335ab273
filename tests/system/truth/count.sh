#!/bin/sh
# SPDX-License-Identifier: MIT
# count.sh LIB SIMDIR VRAMTRACE PROGRAM CASE: PROGRAM (t_count CASE) traced on the simulated
# device, its report compared with the device's own figures (VTSIM_STATS) through
# `vramtrace report --json`: the device peak equals the device's high-water mark of allocations,
# the bytes live at the end its live bytes, the managed and pinned peaks its own.
#   contexts  memory of created contexts and of the primary context, dropped with them
#   arrays    arrays of every kind whose rows need no padding: their logical size is the charge
#   padded    an array whose rows the device pads: counted at its logical size (the peak below
#             the device's by the padding), and the text, JSON and HTML reports say so
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

if [ "$case" = padded ]; then
    "$vramtrace" report "$tmp/t.vtr" >"$tmp/text" &&
        grep -qF "arrays: 1 made, counted at their logical size" "$tmp/text" ||
        { echo "FAIL padded: the text report does not say array sizes are logical"; exit 1; }
    "$vramtrace" html "$tmp/t.vtr" -o "$tmp/t.html" &&
        grep -qF "1 made, counted at their logical size" "$tmp/t.html" ||
        { echo "FAIL padded: the HTML report does not say array sizes are logical"; exit 1; }
fi

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
arrays = {"arrays": 12, "padded": 1}.get(case, 0)
if j["arrays"] != {"allocs": arrays, "sizes": "logical"}:
    print(f"FAIL {case}: 'arrays' is {j['arrays']}, not {arrays} allocs of logical size")
    sys.exit(1)
if case == "padded":
    # 100 floats a row, 10 rows: 4000 bytes; the device pads each row to 512 bytes.
    want = {"device peak": 4000, "device live at the end": 4000}
    for k, v in want.items():
        ours, theirs = got[k]
        if ours != v or theirs != 5120:
            print(f"FAIL {case}: {k} {ours} (the device's {theirs}): want 4000 of 5120")
            sys.exit(1)
        del got[k]
fail = [f"{k} {ours} != the device's {theirs}" for k, (ours, theirs) in got.items()
        if ours != theirs]
if fail:
    print(f"FAIL {case}: " + "; ".join(fail))
    sys.exit(1)
print(f"ok {case}: " + ", ".join(f"{k} {ours}" for k, (ours, _) in got.items()))
PY
