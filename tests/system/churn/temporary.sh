#!/bin/sh
# SPDX-License-Identifier: MIT
# temporary.sh VRAMTRACE CHURN_STEPS: churn_steps on the simulated device; `report --temporary`
# with a 50 ms window must find exactly its scratch buffers (one per step, freed at once) and
# neither the activations (held 200 ms) nor the weights (kept), and name alloc_scratch when the
# program's symbols are read (libdw).
vt=$1 prog=$2
. "$(dirname "$0")/../../lib/preamble.sh"
steps=5
check "the program runs traced" "$vt" run --simulate=2G --quiet -o t.vtr -- "$prog" $steps
check "report --temporary --json" sh -c '"$1" report t.vtr --temporary --window 50ms --json >t.json' sh "$vt"
check "report --temporary" sh -c '"$1" report t.vtr --temporary --window 50ms >t.txt' sh "$vt"
check "the text names the call-sites" grep -q "^call-sites by temporary allocations" t.txt
check "the scratch buffers, and only they, are temporary" python3 - t.json $steps <<'PY'
import json, sys
got = json.load(open(sys.argv[1]))
steps, mib = int(sys.argv[2]), 1024 * 1024
bad = []
if (got["allocs"], got["temporary_allocs"], got["temporary_bytes"]) != (2 * steps + 1, steps, 16 * mib * steps):
    bad.append("totals %s" % {k: got[k] for k in ("allocs", "temporary_allocs", "temporary_bytes")})
sites = got["sites"]
if len(sites) != 1 or (sites[0]["temporary_allocs"], sites[0]["allocs"]) != (steps, steps):
    bad.append("sites %s" % [(s["temporary_allocs"], s["allocs"], s["frames"][:2]) for s in sites])
elif any("alloc_" in f for f in sites[0]["frames"]) and not any("alloc_scratch" in f for f in sites[0]["frames"]):
    bad.append("the temporary site is not alloc_scratch: %s" % sites[0]["frames"][:3])
for b in bad:
    print("temporary:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
exit $fail
