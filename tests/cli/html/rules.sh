# --rules recategorizes the page's data, not only its text: the chart's and the data's passes
# decide each allocation's category by the rules, as the report's do. The page's embedded data
# (the <script id="vt-data"> JSON) read back, without and with the rules: each category's highest
# live bytes over the columns of device 0 and the followed call-sites' categories, which must
# match the report's own (report --json --rules) at the peak; and the SVG chart's bands.
d=$(dirname "$0")/../report
vt-mktrace r.vtr "$d/recategorize.trace" || exit
cp "$d/recategorize.rules" r.rules || exit
vramtrace html r.vtr -o plain.html >/dev/null; echo "exit $?"
vramtrace html r.vtr -o rules.html --rules r.rules >/dev/null; echo "exit $?"
vramtrace report r.vtr --json --rules r.rules >report.json; echo "exit $?"
python3 - <<'P'
import json, re

def data(name):
    page = open(name, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="vt-data">(.*?)</script>', page, re.S)
    return json.loads(m.group(1))

def expand(series):
    out = []
    for v in series:
        out.extend([out[-1]] * -v if v < 0 else [v])
    return out

for name in ("plain.html", "rules.html"):
    d = data(name)
    cats = d["categories"]
    dev = d["devices"][0]
    highest = {c: max(expand(s)) for c, s in zip(cats, dev["by_category"])}
    print(name, "highest by category:", ", ".join(f"{c} {v}" for c, v in highest.items() if v))
    sites = sorted((cats[s["category"]], s["max_bytes"]) for s in d["sites"])
    print(name, "call-sites:", sites)
    page = open(name, encoding="utf-8").read()
    svg = page[page.index("<svg"):page.index("</svg>")]
    drawn = sorted(set(re.findall(r'class="([a-z]+)"', svg)) & set(cats))
    print(name, "the chart's bands:", drawn)
    if name == "rules.html":
        report = json.load(open("report.json"))["peak"]["by_category"]
        # the column of the peak's time holds the report's by_category exactly
        col = min(d["n_cols"] - 1, dev["peak_ns"] * d["n_cols"] // (d["span_ns"] + 1))
        at_peak = {c: expand(s)[col] for c, s in zip(cats, dev["by_category"])}
        print("the peak's column equals report --rules:", at_peak == {c: report[c] for c in cats})
P
