# Usage errors exit 2; --help prints the usage on stdout.
vramtrace timeline
echo "exit $?"
vramtrace timeline --bogus t.vtr
echo "exit $?"
vramtrace timeline a.vtr b.vtr
echo "exit $?"
vramtrace timeline --help
echo "exit $?"
