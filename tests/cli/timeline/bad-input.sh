# Bad input: one line naming the file and the problem, exit 1.
vramtrace timeline missing.vtr
echo "exit $?"
: >empty.vtr
vramtrace timeline --csv empty.vtr
echo "exit $?"
echo 'hello, world' >hello.txt
vramtrace timeline hello.txt
echo "exit $?"
vt-mktrace cut.vtr <<'T' || exit
process t0=0 pid=1
alloc dt=1000000 cat=weights addr=0x10000000 size=1M
alloc dt=1000000 cat=data addr=0x20000000 size=2M
truncate 55
T
vramtrace timeline --csv cut.vtr
echo "exit $?"
vt-mktrace bad.vtr <<'T' || exit
process t0=0 pid=1
alloc dt=1000000 cat=weights addr=0x10000000 size=1M
raw 28
T
vramtrace timeline bad.vtr
echo "exit $?"
