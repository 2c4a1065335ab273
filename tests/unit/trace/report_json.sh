#!/bin/sh
# SPDX-License-Identifier: MIT
# `vramtrace report --json` on traces made with vt-mktrace is valid JSON with the keys of the
# contract (docs/design.md, "Contracts"), by_category summing to peak.bytes. Needs python3:
# exits 77 (skipped) without it.
#   usage: report_json.sh VRAMTRACE VT_MKTRACE FIXTURE...
set -u
vramtrace=$1 mktrace=$2
shift 2
python3 -c 'import json' 2>/dev/null || { echo "python3 not found: skipped"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0
for fixture in "$@"; do
    "$mktrace" "$tmp/t.vtr" "$fixture" || exit 1
    "$vramtrace" report "$tmp/t.vtr" --json >"$tmp/t.json" 2>/dev/null
    rc=$?
    if [ $rc != 0 ]; then
        echo "FAIL report --json on $fixture: exit $rc"
        status=1
        continue
    fi
    python3 - "$tmp/t.json" "$fixture" <<'PY' || status=1
import json, sys
j = json.load(open(sys.argv[1])); t = sys.argv[2]
cats = ["weights", "gradients", "optimizer", "activations", "data", "workspace", "unknown"]
need = [("peak", "bytes"), ("peak", "time_ns"), ("peak", "by_category"), ("host_pinned", "peak_bytes"),
        ("managed", "peak_bytes"), ("totals", "allocs"), ("totals", "frees"), ("totals", "failed_allocs"),
        ("totals", "leaked_bytes")]
fail = [f"{a}.{b}" for a, b in need if not isinstance(j.get(a), dict) or b not in j[a]]
for k in ("devices", "ooms", "top_sites"):
    if not isinstance(j.get(k), list): fail.append(k)
if not isinstance(j.get("exit_clean"), bool): fail.append("exit_clean")
if not fail:
    bc = j["peak"]["by_category"]
    if sorted(bc) != sorted(cats): fail.append("by_category keys " + ",".join(bc))
    elif sum(bc[c] for c in cats) != j["peak"]["bytes"]: fail.append("by_category does not sum to peak.bytes")
    if j["devices"] and j["peak"]["bytes"] != max(d["peak_bytes"] for d in j["devices"]):
        fail.append("peak.bytes is not the largest device peak")
    for d in j["devices"]:
        if "device" not in d or "peak_bytes" not in d: fail.append("devices[] keys")
for o in j.get("ooms") or []:
    for k in ("time_ns", "requested_bytes", "live_bytes", "api"):
        if k not in o: fail.append("ooms[]." + k)
    if not isinstance(o.get("api"), str): fail.append("ooms[].api is not a string")
for s in j.get("top_sites") or []:
    if not isinstance(s.get("bytes"), int) or s.get("category") not in cats or not isinstance(s.get("frames"), list):
        fail.append("top_sites[] keys")
if fail:
    print(f"FAIL report --json on {t}: " + "; ".join(sorted(set(fail)))); sys.exit(1)
print(f"ok   report --json keys on {t}")
PY
done
exit $status
