#!/bin/sh
# SPDX-License-Identifier: MIT
# big_page.sh VRAMTRACE GEN_TRACE: the page of a large trace stays small and keeps the peak.
# bench/gen_trace writes 2 million allocation and free events; the page's data holds a fixed
# number of columns per device and per call-site followed, so its size does not grow with the
# events (bench: 50 million events make a page of the same size). Checked: the page is under
# 3 MB, its data is valid JSON with n_cols columns per series, and the highest column total
# equals the peak gen_trace made (the downsampling keeps the peak), at the column of the time
# the report gives.
set -eu
vt=$1 gen=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$gen" -n 2000000 "$tmp/big.vtr" >"$tmp/gen.out"
peak=$(sed -n 's/.* peak_bytes=\([0-9]*\).*/\1/p' "$tmp/gen.out")
"$vt" html "$tmp/big.vtr" -o "$tmp/big.html" >/dev/null
"$vt" report --json "$tmp/big.vtr" >"$tmp/big.json"
python3 - "$tmp/big.html" "$tmp/big.json" "$peak" <<'PY'
import json, os, re, sys
page, report_path, peak = sys.argv[1], sys.argv[2], int(sys.argv[3])
size = os.path.getsize(page)
assert size < 3 * 1024 * 1024, "the page is %d bytes" % size
src = open(page, encoding="utf-8").read()
m = re.search(r'<script type="application/json" id="vt-data">(.*?)</script>', src, re.S)
assert m, "no data in the page"
d = json.loads(m.group(1))
n = d["n_cols"]

def decode(a):
    out, prev = [], 0
    for v in a:
        if v < 0:
            out.extend([prev] * -v)
        else:
            out.append(v)
            prev = v
    assert len(out) == n, "a series of %d columns, not %d" % (len(out), n)
    return out

dev = d["devices"][0]
cats = [decode(c) for c in dev["by_category"]]
totals = [sum(c[i] for c in cats) for i in range(n)]
assert max(totals) == peak, "highest column %d, the peak is %d" % (max(totals), peak)
report = json.load(open(report_path))
assert report["peak"]["bytes"] == peak
col = dev["peak_ns"] * n // (d["span_ns"] + 1)
assert totals[col] == peak, "the peak's column %d holds %d" % (col, totals[col])
for s in d["sites"]:
    assert max(decode(s["cols"])) == s["max_bytes"], "a call-site's highest column"
assert len(d["sites"]) >= 1 and d["frames"], "no call-sites followed"
print("big_page: %d bytes for 2000000 events, peak %d kept" % (size, peak))
PY
