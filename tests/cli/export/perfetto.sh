# --format perfetto: Chrome trace-event JSON: per device a total counter and a by-category one
# (one series per category) at each change, phases as B/E slices on their thread, marks and OOMs
# as instants, the allocations of the largest call-sites at the peak as b/e slices with their
# frames; timestamps in microseconds from t0. Valid JSON when python3 is there to say so.
vt-mktrace t.vtr "$(dirname "$0")/../report/train.trace" || exit
vramtrace export t.vtr --format perfetto
echo "exit $?"
vramtrace export --format=perfetto -o t.json t.vtr
echo "exit $?"
if command -v python3 >/dev/null 2>&1; then
    python3 -m json.tool t.json >/dev/null && echo "valid JSON"
else
    echo "valid JSON" # python3 missing: not checked
fi
vramtrace export t.vtr --format perfetto -o - | cmp - t.json && echo "-o - is stdout"
