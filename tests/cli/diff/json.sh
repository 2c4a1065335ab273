# --json: exact byte counts, deltas signed, categories and call-sites largest change first.
d=$(dirname "$0")
vt-mktrace a.vtr "$d/../report/train.trace" || exit
vt-mktrace b.vtr "$d/b.trace" || exit
vramtrace diff --json a.vtr b.vtr
echo "exit $?"
vramtrace diff b.vtr --top 1 a.vtr --json
echo "exit $?"
