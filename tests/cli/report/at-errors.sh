# report --at errors, one line each, nothing on stdout, exit 2 before the trace is read: a
# missing time, a negative one, garbage, an unknown unit, two points, a number too large.
vramtrace report missing.vtr --at
echo "exit $?"
vramtrace report missing.vtr --at -1
echo "exit $?"
vramtrace report missing.vtr --at=-0.5s
echo "exit $?"
vramtrace report missing.vtr --at soon
echo "exit $?"
vramtrace report missing.vtr --at 3h
echo "exit $?"
vramtrace report missing.vtr --at 1.2.3
echo "exit $?"
vramtrace report missing.vtr --at 99999999999999999999
echo "exit $?"
vramtrace report missing.vtr --at=
echo "exit $?"
vramtrace report missing.vtr --top many
echo "exit $?"
