# Bytes that are not UTF-8 in every kind of name a trace holds (the trace's own path, the
# executable, the command line, a device, a module's path, a thread, a Python file and function,
# an NVTX range and mark) and a valid 'é': every JSON output stays valid JSON (strict_json.py:
# well-formed UTF-8, no lone surrogate) with each bad byte as U+FFFD, and the page and the SVG
# stay well-formed UTF-8. The bytes: \377 (never in UTF-8), \300\257 (an overlong '/'),
# \355\240\200 (a surrogate), \342\202 (a sequence cut short), \001 (a control byte).
d=$(dirname "$0")
check="python3 $d/../strict_json.py"
printf '%s\n' \
    'process t0=1000000000 start=1700000000000000000 pid=7 host=h exe=/opt/b\377d/python "cmdline=python t\303\251\377.py"' \
    'device 0 "Sim \300\257 GPU" 16G' \
    'apis none cudaMalloc cudaFree' \
    'module bias=0x7f5000000000 lo=0x7f5000000000 hi=0x7f5001000000 path=/opt/\355\240\200/libx.so' \
    'thread 1 7 th\342\202' \
    'stack s py:m\377od.py:f\300\257n:3 0x7f5000401000' \
    'push dt=1000 thread=1 ph\355\240\200ase\001' \
    'alloc dt=1000 cat=weights dev=0 api=1 addr=0x1000 size=1M stack=s' \
    'mark dt=1000 thread=1 m\342\202' \
    'pop dt=1000 thread=1' \
    'oom dt=1000 dev=0 api=1 size=2G stack=s free=1G total=16G live=1M,0,0,0,0,0,0' \
    'end dt=1000' | while IFS= read -r line; do printf "$line\n"; done >bad.trace
name=$(printf 'b\377d.vtr')
vt-mktrace "$name" bad.trace || exit
vt-mktrace other.vtr "$d/../report/train.trace" || exit
mkdir ranks && cp "$name" ranks/ && cp "$name" "ranks/r$(printf '\300')1.vtr"

vramtrace report "$name" --json >report.json; echo "report --json: exit $?"
vramtrace report ranks --json >ranks.json; echo "report DIR --json: exit $?"
vramtrace oom "$name" --json >oom.json; echo "oom --json: exit $?"
vramtrace diff "$name" other.vtr --json >diff.json; echo "diff --json: exit $?"
vramtrace export "$name" --format perfetto -o perfetto.json; echo "export perfetto: exit $?"
vramtrace export "$name" --format speedscope -o speedscope.json; echo "export speedscope: exit $?"
$check report.json ranks.json oom.json diff.json perfetto.json speedscope.json

# The bytes as the outputs show them: the valid 'é' as it is, each bad byte as U+FFFD.
python3 - <<'P'
import json
r = json.load(open("report.json", encoding="utf-8"))
print("file:", ascii(r["file"]))
print("exe:", ascii(r["process"]["exe"]), "cmdline:", ascii(r["process"]["cmdline"]))
p = json.load(open("perfetto.json", encoding="utf-8"))
print("phases:", ascii(sorted({e["name"] for e in p["traceEvents"] if e["ph"] in "Bi"})))
print("threads:", ascii(sorted({e["args"]["name"] for e in p["traceEvents"] if e["name"] == "thread_name"})))
ranks = json.load(open("ranks.json", encoding="utf-8"))
print("ranks' frames:", ascii([(f["function"], f["file"], f["line"], f["python"])
                              for f in ranks["top_sites"][0]["stack"]]))
s = json.load(open("speedscope.json", encoding="utf-8"))
print("frames:", ascii([(f["name"], f.get("file"), f.get("line")) for f in s["shared"]["frames"]]))
P

# The page and the chart: well-formed UTF-8 (XML text: a bad byte as U+FFFD, a control byte as '?').
vramtrace html "$name" -o page.html >/dev/null; echo "html: exit $?"
vramtrace timeline "$name" --svg chart.svg; echo "timeline --svg: exit $?"
python3 - <<'P'
page = open("page.html", "rb").read().decode("utf-8")
open("chart.svg", "rb").read().decode("utf-8")
print("utf-8: ok; the page names", ascii(page[page.index("Trace <code>") + 12:page.index("</code> (format")]))
P
