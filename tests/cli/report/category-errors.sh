# report --category errors, one line each naming the valid categories, nothing on stdout, exit 2
# before the trace is read: a missing name, an unknown one, one in capitals.
vramtrace report missing.vtr --category
echo "exit $?"
vramtrace report missing.vtr --category weight
echo "exit $?"
vramtrace report missing.vtr --category=Weights
echo "exit $?"
vramtrace report missing.vtr --category=
echo "exit $?"
