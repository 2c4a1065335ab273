# Usage errors exit 2; --help prints the usage on stdout.
vramtrace export
echo "exit $?"
vramtrace export t.vtr
echo "exit $?"
vramtrace export t.vtr --format svg
echo "exit $?"
vramtrace export t.vtr --format
echo "exit $?"
vramtrace export t.vtr --format csv -o
echo "exit $?"
vramtrace export --bogus t.vtr
echo "exit $?"
vramtrace export a.vtr b.vtr --format csv
echo "exit $?"
vramtrace export --help
echo "exit $?"
