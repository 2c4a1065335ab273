# Two runs of the training process compared: the peak, its categories largest change first,
# the call-sites live at the peak matched by their frames (their stack ids differ), with the
# sites only in the first run "gone" and only in the second "new", and the totals.
d=$(dirname "$0")
vt-mktrace a.vtr "$d/../report/train.trace" || exit
vt-mktrace b.vtr "$d/b.trace" || exit
vramtrace diff a.vtr b.vtr
echo "exit $?"
# The other way round every change changes sign; --top limits the call-sites and may come
# before or after the files.
vramtrace diff --top 2 b.vtr a.vtr
echo "exit $?"
vramtrace diff b.vtr a.vtr --top=0 >/dev/null
echo "exit $?"
# A run against itself: nothing changed.
vramtrace diff a.vtr a.vtr
echo "exit $?"
# A trace without device memory has no peak to compare.
vt-mktrace empty.vtr </dev/null || exit
vramtrace diff empty.vtr a.vtr
echo "exit $?"
