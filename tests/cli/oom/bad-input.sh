# Bad input exits 1 with one line; usage errors exit 2.
vramtrace oom missing.vtr
echo "exit $?"
mkdir d
vramtrace oom d
echo "exit $?"
vramtrace oom
echo "exit $?"
vramtrace oom -x t.vtr
echo "exit $?"
vramtrace oom a.vtr b.vtr
echo "exit $?"
