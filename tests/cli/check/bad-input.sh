# Bad input: one line naming the file and the problem, exit 1.
vramtrace check missing.vtr --max-peak 1G
echo "exit $?"
: >empty.vtr
vramtrace check empty.vtr --max-peak 1G
echo "exit $?"
echo 'hello, world' >hello.txt
vramtrace check hello.txt --max-peak 1G
echo "exit $?"
vt-mktrace cut.vtr <<'T' || exit
process t0=0 pid=1
alloc dt=1000000 cat=weights addr=0x10000000 size=1M
alloc dt=1000000 cat=data addr=0x20000000 size=2M
truncate 55
T
vramtrace check cut.vtr --max-peak 1G
echo "exit $?"
