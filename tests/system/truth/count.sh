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
#   pools-T   stream-ordered pools (release threshold T: 0, 1G, max; syncs of each kind, a
#             trim): each pool's reserved and used bytes at the end and at their peaks equal the
#             device's, in JSON ('pools'), and the text and HTML reports show them side by side;
#             the device peak counts the reservations: it equals the device's high-water mark of
#             what it holds (hwm_bytes, above its allocations' own), the device's tensors live
#             peak its allocations' and its pool reserved peak the same high-water mark; the
#             library's own figures, in its exit summary and its out-of-memory block at the
#             case's last request, are the report's
#   streams   a free on one stream, then an allocation on another, from a pool whose reuse flags
#             are off: the pool grows (its figures and the device's as above)
#   current   a pool of the program's own made current (cuDeviceSetMemPool), then the default
#             one again (cudaDeviceSetMemPool): each pool's figures and the device's as above
# Needs python3 (exits 77, skipped, without it).
lib=$1 simdir=$2 vramtrace=$3 prog=$4 case=$5
python3 -c 'import json' 2>/dev/null || { echo "python3 not found: skipped"; exit 77; }
. "$(dirname "$0")/../../lib/preamble.sh"

# shellcheck disable=SC2086 # pools-T is two words: pools T
case $case in
pools-*) say=VRAMTRACE_VERBOSE=1 ;; # the exit summary and the OOM block, checked below
*) say=VRAMTRACE_QUIET=1 ;;
esac
env -i PATH="$PATH" LD_LIBRARY_PATH="$simdir" LD_PRELOAD="$lib" "$say" \
    VRAMTRACE_OUTPUT="$tmp/t.vtr" VTSIM_DEVICE_MEMORY=4G VTSIM_STATS="$tmp/stats" \
    "$prog" $(echo "$case" | tr - ' ') >"$tmp/out" 2>&1
rc=$?
if [ $rc != 0 ]; then
    echo "FAIL $case: the program exited $rc"; cat "$tmp/out"; exit 1
fi
"$vramtrace" report "$tmp/t.vtr" --json >"$tmp/json" 2>"$tmp/err" ||
    { echo "FAIL $case: report failed"; cat "$tmp/err"; exit 1; }

case $case in
pools-*)
    "$vramtrace" report "$tmp/t.vtr" >"$tmp/text" &&
        grep -qE "^pool 1 on device 0: tensors live peak 10\.00 MiB, pool reserved peak 10\.00 MiB" \
            "$tmp/text" ||
        { echo "FAIL $case: the text report lacks the pool line"; cat "$tmp/text"; exit 1; }
    grep -qE "^    tensors live peak [0-9.]+ MiB, pool reserved peak [0-9.]+ MiB$" "$tmp/text" &&
        grep -qE "^  pool spare +[0-9,]+ " "$tmp/text" ||
        { echo "FAIL $case: the text report lacks the device's two peaks or the pool spare row"
          cat "$tmp/text"; exit 1; }
    "$vramtrace" html "$tmp/t.vtr" -o "$tmp/t.html" >/dev/null &&
        grep -qF "tensors live peak 10.00 MiB, pool reserved peak 10.00 MiB" "$tmp/t.html" ||
        { echo "FAIL $case: the HTML report lacks the pool line"; exit 1; }
    # The page's curves: the pools' spare is a band of its own, on top of the categories.
    grep -qF '"colors":["#4e79a7","#f28e2b","#e15759","#76b7b2","#59a14f","#edc948","#bab0ac","#d7d7d7"]' \
        "$tmp/t.html" && grep -qF ',"pool spare"],' "$tmp/t.html" ||
        { echo "FAIL $case: the HTML page's curves lack the pool spare band"; exit 1; }
    "$vramtrace" timeline "$tmp/t.vtr" --svg "$tmp/t.svg" >/dev/null ||
        { echo "FAIL $case: timeline --svg failed"; exit 1; }
    # The marked peak lies on the drawn curve: the areas' top (the pools' spare stacked on the
    # categories) reaches the peak's height, at the peak's time.
    python3 - "$tmp/t.svg" "$tmp/json" <<'PY' || exit 1
import json, re, sys
svg = open(sys.argv[1]).read()
panel = svg.split('<g class="device">')[1]
peak = json.load(open(sys.argv[2]))["devices"][0]["peak_bytes"]
ticks = re.findall(r'<line x1="90" y1="([0-9.]+)" x2="1090" y2="[0-9.]+" stroke="#ddd"/>\n'
                   r'<text [^>]*>([0-9.]+)(?: (MiB|KiB|GiB|B))?</text>', panel)
(y0, _, _), (y1, v1, u1) = ticks[0], ticks[1]
per_px = float(v1) * {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[u1] / (float(y0) - float(y1))
points = []
for d in re.findall(r'<path class="[a-z-]+" fill="[^"]+" fill-opacity="0.85" stroke="none" d="([^"]+)"', panel):
    points += [(float(x), float(y)) for x, y in re.findall(r"([0-9.]+) ([0-9.]+)", d)]
top = min(y for _, y in points)
xs = [x for x, y in points if y == top]
drawn = (float(y0) - top) * per_px
peak_x = float(re.search(r'<line class="peak" x1="([0-9.]+)"', panel).group(1))
if 'class="pool-spare"' not in panel or abs(drawn - peak) > per_px or not min(xs) <= peak_x <= max(xs):
    print(f"FAIL: the drawn curve's top is {drawn:.0f} bytes at x {min(xs)}..{max(xs)}, the marked "
          f"peak {peak} at x {peak_x} (pool spare drawn: {'pool-spare' in panel})")
    sys.exit(1)
PY
    ;;
esac
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
pooled = case.startswith("pools") or case in ("current", "streams")
got = {
    # A pool holds its reservation: the device peak is then what the device held at most.
    "device peak": (dev[0]["peak_bytes"] if dev else 0,
                    stats["device"]["hwm_bytes" if pooled else "alloc_hwm_bytes"]),
    "device live at the end": (dev[0]["leaked_bytes"] if dev else 0,
                               stats["device"]["alloc_live_bytes"]),
    "managed peak": (j["managed"]["peak_bytes"], stats["managed"]["alloc_hwm_bytes"]),
    "pinned peak": (j["host_pinned"]["peak_bytes"], stats["pinned"]["alloc_hwm_bytes"]),
}
arrays = {"arrays": 12, "padded": 1}.get(case, 0)
if j["arrays"] != {"made": arrays, "sizes": "logical"}:
    print(f"FAIL {case}: 'arrays' is {j['arrays']}, not {arrays} made of logical size")
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
if pooled:
    got["device tensors live peak"] = (dev[0]["tensors_live_peak_bytes"],
                                       stats["device"]["alloc_hwm_bytes"])
    got["device pool reserved peak"] = (dev[0]["pool_reserved_peak_bytes"],
                                        stats["device"]["hwm_bytes"])
    # The categories at the peak make the peak: the pools' spare counts in unknown.
    for where, obj in (("peak", j["peak"]), ("devices[0]", dev[0])):
        got[f"{where} categories"] = (sum(obj["by_category"].values()),
                                      stats["device"]["hwm_bytes"])
        if obj["by_category"]["unknown"] < obj["pool_spare_bytes"] or not obj["pool_spare_bytes"]:
            print(f"FAIL {case}: {where}: unknown {obj['by_category']['unknown']} does not hold "
                  f"the pool spare {obj['pool_spare_bytes']}")
            sys.exit(1)
    if stats["device"]["hwm_bytes"] <= stats["device"]["alloc_hwm_bytes"]:
        print(f"FAIL {case}: the device's reservation never exceeded its allocations: "
              "the case tests nothing")
        sys.exit(1)
# Pools: ours are numbered as first sampled, the device's as created: the same order here.
sim_pools = sorted((int(w[1]), {w[i]: int(w[i + 1]) for i in range(2, len(w) - 1, 2)})
                   for w in (row.split() for row in open(f"{tmp}/stats")) if w[0] == "pool")
if len(sim_pools) != len(j["pools"]):
    print(f"FAIL {case}: {len(j['pools'])} pools, the device has {len(sim_pools)}")
    sys.exit(1)
for (sim_id, theirs), ours in zip(sim_pools, j["pools"]):
    for key, sim_key in (("reserved_bytes", "reserved_bytes"),
                         ("reserved_peak_bytes", "reserved_hwm_bytes"),
                         ("used_bytes", "used_bytes"),
                         ("tensors_live_peak_bytes", "used_hwm_bytes")):
        got[f"pool {ours['pool']} {key}"] = (ours[key], theirs[sim_key])
if case.startswith("pools"):
    # The library's own figures (stats lines: bytes; the summary and OOM lines: as it prints
    # them) against the report's.
    def fmt(n):
        units = ["B", "KiB", "MiB", "GiB", "TiB"]
        u = 0
        while u + 1 < len(units) and n >> (10 * (u + 1)):
            u += 1
        return f"{n} B" if u == 0 else f"{n / (1 << (10 * u)):.1f} {units[u]}"
    out = open(f"{tmp}/out").read().splitlines()
    line = [l for l in out if l.startswith("vramtrace: stats pools device=0 ")]
    if len(line) != 1:
        print(f"FAIL {case}: no 'stats pools device=0' line in:\n" + "\n".join(out))
        sys.exit(1)
    lib = {k: int(v) for k, v in (w.split("=") for w in line[0].split()[3:])}
    for key, ours in (("peak", "peak_bytes"), ("pool_spare_at_peak", "pool_spare_bytes"),
                      ("tensors_live_peak", "tensors_live_peak_bytes"),
                      ("pool_reserved_peak", "pool_reserved_peak_bytes")):
        got[f"library {key}"] = (lib[key], dev[0][ours])
    want = (f"vramtrace: peak {fmt(dev[0]['peak_bytes'])} of device memory on device 0 (",
            f"pool spare {fmt(dev[0]['pool_spare_bytes'])}",
            f"), tensors live peak {fmt(dev[0]['tensors_live_peak_bytes'])}, pool reserved peak "
            f"{fmt(dev[0]['pool_reserved_peak_bytes'])}, ")
    summary = [l for l in out if l.startswith(want[0]) and want[1] in l and want[2] in l]
    if len(summary) != 1:
        print(f"FAIL {case}: no exit summary with {want} in:\n" + "\n".join(out))
        sys.exit(1)
    oom = [o for o in j["ooms"] if o["requested_bytes"] == 64 << 30]
    want = (f"  pool reserved {fmt(oom[0]['pool_reserved_bytes'])}, pool spare "
            f"{fmt(oom[0]['pool_spare_bytes'])} (reserved beyond live allocations)") if oom else ""
    if (len(oom) != 1 or not oom[0]["pool_reserved_bytes"] or
            f"vramtrace: {want}" not in out):
        print(f"FAIL {case}: no OOM, or no OOM block line '{want}', in:\n" + "\n".join(out))
        sys.exit(1)
    got["OOM pool spare"] = (oom[0]["pool_spare_bytes"],
                             oom[0]["pool_reserved_bytes"] - sum(
                                 p["used_bytes"] for p in j["pools"] if p["device"] == 0))
fail = [f"{k} {ours} != the device's {theirs}" for k, (ours, theirs) in got.items()
        if ours != theirs]
if fail:
    print(f"FAIL {case}: " + "; ".join(fail))
    sys.exit(1)
print(f"ok {case}: " + ", ".join(f"{k} {ours}" for k, (ours, _) in got.items()))
PY
