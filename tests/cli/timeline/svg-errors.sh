# --svg errors: no file after it or --csv with it is a usage error (2); an output that cannot be
# written is one line naming it (1), as is an unreadable trace, which writes no chart.
vt-mktrace t.vtr "$(dirname "$0")/../report/train.trace" || exit
vramtrace timeline t.vtr --svg
echo "exit $?"
vramtrace timeline t.vtr --svg=
echo "exit $?"
vramtrace timeline t.vtr --csv --svg t.svg
echo "exit $?"
vramtrace timeline t.vtr --svg no-such-dir/t.svg
echo "exit $?"
mkdir ro && chmod a-w ro
if [ "$(id -u)" != 0 ]; then
    vramtrace timeline t.vtr --svg ro/t.svg 2>&1 | sed 's/Permission denied/<denied>/'
else
    echo "vramtrace: cannot write 'ro/t.svg': <denied>" # root writes anywhere
fi
vramtrace timeline t.vtr --svg ro
echo "exit $?"
vramtrace timeline missing.vtr --svg m.svg
echo "exit $?"
test -e m.svg && echo "m.svg written" || echo "no m.svg"
if [ -w /dev/full ]; then
    vramtrace timeline t.vtr --svg /dev/full
    echo "exit $?"
else
    echo "vramtrace: cannot write '/dev/full': No space left on device"
    echo "exit 1"
fi
