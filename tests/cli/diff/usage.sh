# Usage errors exit 2: diff takes exactly two traces; --help prints the usage on stdout.
vramtrace diff
echo "exit $?"
vramtrace diff a.vtr
echo "exit $?"
vramtrace diff a.vtr b.vtr c.vtr
echo "exit $?"
vramtrace diff --bogus a.vtr b.vtr
echo "exit $?"
vramtrace diff a.vtr b.vtr --top
echo "exit $?"
vramtrace diff --top many a.vtr b.vtr
echo "exit $?"
vramtrace diff --help
echo "exit $?"
