# --format speedscope: the call-sites live at the device peak as one "sampled" profile weighted
# in bytes, frames shared by name (outermost first in each sample). Its weights sum to the peak
# and match the folded export's lines; an empty trace gives an empty, valid profile.
vt-mktrace t.vtr "$(dirname "$0")/../report/train.trace" || exit
vramtrace export t.vtr --format speedscope -o t.json
echo "exit $?"
vramtrace export t.vtr --format folded >t.folded
echo "exit $?"
vt-mktrace empty.vtr </dev/null || exit
vramtrace export --format=speedscope empty.vtr -o empty.json 2>/dev/null
echo "exit $?"
# python3 is a test dependency (scripts/deps.sh): without it this case fails, unchecked.
python3 - <<'PY'
import json
for name in ("t.json", "empty.json"):
    d = json.load(open(name))
    p = d["profiles"][0]
    frames = [f["name"] for f in d["shared"]["frames"]]
    print(name, d["$schema"], p["type"], p["unit"], "samples", len(p["samples"]),
          "frames", len(frames), "distinct", len(set(frames)) == len(frames),
          "endValue", p["endValue"], "sum", sum(p["weights"]))
    folded = {}
    if name == "t.json":
        for line in open("t.folded"):
            stack, n = line.rsplit(" ", 1)
            folded[stack] = folded.get(stack, 0) + int(n)
        mine = {}
        for s, w in zip(p["samples"], p["weights"]):
            k = ";".join(frames[i].replace(";", ",") for i in s)
            mine[k] = mine.get(k, 0) + w
        print("same stacks and bytes as folded:", mine == folded)
        for s, w in zip(p["samples"], p["weights"]):
            print(w, " <- ".join(frames[i] for i in reversed(s)))
PY
