# Bad input: one line naming the file and the problem, exit 1, whichever of the two it is; a
# trace damaged part-way is compared by what came before the damage, and still exits 1.
d=$(dirname "$0")
vt-mktrace a.vtr "$d/../report/train.trace" || exit
vramtrace diff missing.vtr a.vtr
echo "exit $?"
vramtrace diff a.vtr missing.vtr
echo "exit $?"
echo 'hello, world' >hello.txt
vramtrace diff a.vtr hello.txt
echo "exit $?"
: >empty.vtr
vramtrace diff empty.vtr a.vtr
echo "exit $?"
vt-mktrace cut.vtr <<'T' || exit
process t0=0 pid=1
alloc dt=1000000 cat=weights addr=0x10000000 size=1M
alloc dt=1000000 cat=data addr=0x20000000 size=2M
truncate 55
T
vramtrace diff --json cut.vtr a.vtr >/dev/null
echo "exit $?"
