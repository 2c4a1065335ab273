# Unknown options, a missing --model file, a stray argument: usage, exit 2.
vramtrace budget --jsn
echo "exit $?"
vramtrace budget --model
echo "exit $?"
vramtrace budget batch
echo "exit $?"
vramtrace budget --model a.model --model b.model
echo "exit $?"
