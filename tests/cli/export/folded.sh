# --format folded: the call-sites live at the device peak, outermost frame first, weighted by
# their bytes, for flamegraph.pl or speedscope.
vt-mktrace t.vtr "$(dirname "$0")/../report/train.trace" || exit
vramtrace export --format folded t.vtr
echo "exit $?"
vt-mktrace empty.vtr </dev/null || exit
vramtrace export --format folded empty.vtr 2>/dev/null
echo "exit $?"
