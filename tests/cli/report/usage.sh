# Usage errors exit 2; --help prints the usage on stdout.
vramtrace report
echo "exit $?"
vramtrace report --bogus t.vtr
echo "exit $?"
vramtrace report a.vtr b.vtr --rules r.rules
echo "exit $?"
vramtrace report --help
echo "exit $?"
