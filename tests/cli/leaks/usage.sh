# Usage errors exit 2; --help prints the usage on stdout.
vramtrace leaks
echo "exit $?"
vramtrace leaks --bogus t.vtr
echo "exit $?"
vramtrace leaks a.vtr b.vtr
echo "exit $?"
vramtrace leaks t.vtr --top
echo "exit $?"
vramtrace leaks --top many t.vtr
echo "exit $?"
vramtrace leaks --help
echo "exit $?"
