# report --json --at TIME: an "at" object with the peak object's keys (bytes, time_ns as an exact
# integer, device, by_category) plus after_end and every device's live bytes then; top_sites are
# the call-sites live then. At the peak's own nanosecond "at" equals "peak".
vt-mktrace t.vtr "$(dirname "$0")/train.trace" || exit
vramtrace report t.vtr --json --at 0.601007s >t.json
echo "exit $?"
sed -n '/^  "peak"/,/^  "devices"/p' t.json
sed -n '/^  "top_sites"/,/^    }/p' t.json
# After the end: the end of the trace, after_end true, a note on stderr.
vramtrace report t.vtr --json --at 2 >end.json
echo "exit $?"
sed -n '/^  "at"/,/^    "devices"/p' end.json
# With --rules the categories then are the rules' (9 us: the vramtrace:optimizer range's
# allocation is live, the later ones are not).
vt-mktrace r.vtr "$(dirname "$0")/recategorize.trace" || exit
cp "$(dirname "$0")/recategorize.rules" r.rules || exit
vramtrace report r.vtr --json --rules r.rules --at 9us | sed -n '/^  "at"/,/^    "devices"/p'
