# --json: every OOM with exact integers (times in ns from the trace's start): the request and
# its call-site, free/total, live by category and the top call-sites, fragmentation, the growth
# since the last phase boundary or mark as signed integers, and the outcome. Checked by python:
# it parses, the categories sum to the totals, the numbers are integers.
vt-mktrace t.vtr "$(dirname "$0")/../report/train.trace" || exit
vramtrace oom --json t.vtr >t.json
echo "exit $?"
cat t.json
vt-mktrace two.vtr <<'T' || exit
process t0=0 pid=7
apis none cudaMalloc cudaFree
thread 1 100 main
stack big py:train.py:main:10 py:model.py:build:42
alloc dt=1000000 cat=weights api=1 addr=0x100000000 size=3G stack=big
push dt=1000000 thread=1 forward
free dt=1000 api=2 addr=0x100000000
alloc dt=1000 cat=activations api=1 addr=0x200000000 size=2G stack=big
oom dt=1000000 api=1 size=512M stack=big free=3G total=8G live=0,0,0,2G
alloc dt=2000000 cat=activations api=1 addr=0x300000000 size=256M
oom dt=1000000 dev=1 api=1 size=1G live=0
T
vramtrace oom two.vtr --json >two.json
echo "exit $?"
cat two.json
vramtrace oom --json none.vtr 2>/dev/null
echo "exit $?"
vt-mktrace none.vtr </dev/null || exit
vramtrace oom --json none.vtr 2>/dev/null
echo "exit $?"
python3 - <<'PY'
import json
for name in ("t.json", "two.json"):
    d = json.load(open(name))
    def ints(v):
        if isinstance(v, dict):
            return all(ints(x) for x in v.values())
        if isinstance(v, list):
            return all(ints(x) for x in v)
        return not isinstance(v, float)
    for o in d["ooms"]:
        assert sum(o["by_category"].values()) == o["live_bytes"], name
        g = o["grew_since"]
        assert sum(g["by_category"].values()) == g["bytes"], name
        assert o["fragmented"] == (o["total_bytes"] > 0 and o["free_bytes"] >= o["requested_bytes"]), name
        assert all(isinstance(s["bytes"], int) and s["frames"] is not None for s in o["sites"])
        assert o["outcome"] in ("recovered", "fatal", "unknown")
    print(name, "ok:", "integers only" if ints(d) else "FLOATS", len(d["ooms"]), "ooms",
          [(o["outcome"], o["grew_since"]["kind"], o["grew_since"]["bytes"]) for o in d["ooms"]])
PY
