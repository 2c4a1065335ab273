# Usage errors exit 2: no file, no limit, bad sizes and categories; --help on stdout.
vramtrace check --max-peak 1G
echo "exit $?"
vramtrace check t.vtr
echo "exit $?"
vramtrace check t.vtr --max-peak
echo "exit $?"
for size in 1.5.5 12X -1G G 1.G 99999999999999999999 1.5GiBs 4KBB 1P; do
    vramtrace check t.vtr --max-peak "$size"
    echo "exit $?"
done
vramtrace check t.vtr --max-category optimizer
echo "exit $?"
vramtrace check t.vtr --max-category params=1G
echo "exit $?"
vramtrace check t.vtr --max-category weights=lots
echo "exit $?"
vramtrace check --bogus t.vtr
echo "exit $?"
vramtrace check a.vtr b.vtr --max-peak 1G
echo "exit $?"
vramtrace check --help
echo "exit $?"
