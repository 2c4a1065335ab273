# Bad input: one line naming the file and the problem, exit 1.
vramtrace report missing.vtr
echo "exit $?"
: >empty.vtr
vramtrace report empty.vtr
echo "exit $?"
echo 'hello, world' >hello.txt
vramtrace report hello.txt
echo "exit $?"
mkdir dir.vtr
vramtrace report dir.vtr
echo "exit $?"
printf 'VRAMTRC\000\001' >short.vtr
vramtrace report short.vtr
echo "exit $?"
