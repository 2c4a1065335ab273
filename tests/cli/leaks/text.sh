# What the training process left live at exit, by call-site, largest first; --top limits the
# call-sites shown and may come before or after the file.
vt-mktrace t.vtr "$(dirname "$0")/../report/train.trace" || exit
vramtrace leaks t.vtr
echo "exit $?"
vramtrace leaks --top 1 t.vtr
echo "exit $?"
vramtrace leaks t.vtr --top=2 >/dev/null
echo "exit $?"
