# --format speedscope: the call-sites live at the device peak as one "sampled" profile weighted
# in bytes (outermost frame first in each sample). A frame is a function: {name, file, line},
# one per (name, file), so a function called from several lines is one frame. Its weights sum
# to the peak and match the folded export's lines; an empty trace gives an empty, valid profile.
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
    table = d["shared"]["frames"]
    keys = [(f["name"], f.get("file", "")) for f in table]
    print(name, d["$schema"], p["type"], p["unit"], "samples", len(p["samples"]),
          "frames", len(table), "one per function", len(set(keys)) == len(keys),
          "endValue", p["endValue"], "sum", sum(p["weights"]))
    if name == "t.json":
        folded = 0
        for line in open("t.folded"):
            folded += int(line.rsplit(" ", 1)[1])
        print("same bytes as folded:", folded == sum(p["weights"]),
              "same sites:", len(open("t.folded").readlines()) == len(p["samples"]))
        for f in table:
            print("frame", f)
        for s, w in zip(p["samples"], p["weights"]):
            print(w, " <- ".join(table[i]["name"] for i in reversed(s)))
PY
