#!/bin/sh
# SPDX-License-Identifier: MIT
# render.sh VRAMTRACE TRAIN_LOOP MKTRACE_DIR SOURCE_DIR: memory-viz snapshots of a simulated run
# of examples/train_loop and of the report fixture (two devices, an OOM, memory never freed),
# each checked field by field with a strict unpickler against `report --json` (check_memviz.py),
# then read in headless Chromium by a viewer page of the same structure (viewer.py) whose
# figures must match the report's too. Chromium is skipped (77 at the end) where it is missing.
set -eu
vt=$1 train=$2 mktrace=$3 src=$4
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
browser=""
for b in chromium chromium-browser google-chrome; do
    if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done

"$vt" run --simulate=128M --quiet -o "$tmp/loop.vtr" -- "$train" 3 64 >/dev/null
PATH=$mktrace:$PATH vt-mktrace "$tmp/train.vtr" "$src/tests/cli/report/train.trace"
for t in loop train; do
    "$vt" report --json --top 0 "$tmp/$t.vtr" >"$tmp/$t.json"
    "$vt" export "$tmp/$t.vtr" --format memory-viz -o "$tmp/$t.pickle"
    python3 "$here/check_memviz.py" "$tmp/$t.pickle" "$tmp/$t.json"
    "$vt" export "$tmp/$t.vtr" --format memory-viz --all-frames -o "$tmp/$t.all.pickle"
    python3 "$here/check_memviz.py" "$tmp/$t.all.pickle" "$tmp/$t.json" --all-frames
done
if [ -z "$browser" ]; then
    echo "memviz: no chromium: the viewer page not rendered (Debian: apt-get install chromium)"
    exit 77
fi
for t in loop train; do
    python3 "$here/viewer.py" "$tmp/$t.pickle" "$tmp/$t.html"
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$tmp/profile" --dump-dom "file://$tmp/$t.html" >"$tmp/$t.dom" \
        2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
    python3 - "$tmp/$t.dom" "$tmp/$t.json" <<'PY'
import html, json, re, sys
dom = open(sys.argv[1]).read()
m = re.search(r'<pre id="result">(.*?)</pre>', dom, re.S)
got = json.loads(html.unescape(m.group(1))) if m else {"error": "no result in the DOM"}
report = json.load(open(sys.argv[2]))
bad = []
if "error" in got:
    bad.append(got["error"])
else:
    want = {d["device"]: d for d in report["devices"]}
    for d in got["devices"]:
        w = want.pop(d["device"], None)
        if not w or d["peak"] != w["tensors_live_peak_bytes"] or d["end"] != w["leaked_bytes"]:
            bad.append(f"device {d}: report says {w}")
    if want:
        bad.append(f"devices missing from the page: {sorted(want)}")
    if "unknown" not in got["categories"]:
        bad.append("no unknown category")
    if got["segments"] != report["totals"]["leaked_bytes"]:
        bad.append(f"segments {got['segments']} != leaked {report['totals']['leaked_bytes']}")
for b in bad:
    print("memviz viewer:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
done
echo "memviz: ok"
