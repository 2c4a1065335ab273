# Bad input: one line naming the file and the problem, exit 1, and no output file; a trace
# damaged part-way still exports what came before the damage.
vramtrace export missing.vtr --format csv -o out.csv
echo "exit $?"
: >empty.vtr
vramtrace export empty.vtr --format perfetto -o out.json
echo "exit $?"
echo 'hello, world' >hello.txt
vramtrace export hello.txt --format folded -o out.txt
echo "exit $?"
ls
vt-mktrace cut.vtr <<'T' || exit
process t0=0 pid=1
alloc dt=1000000 cat=weights addr=0x10000000 size=1M
alloc dt=1000000 cat=data addr=0x20000000 size=2M
truncate 55
T
vramtrace export cut.vtr --format csv
echo "exit $?"
vt-mktrace t.vtr </dev/null || exit
{ vramtrace export t.vtr --format csv -o no-such-dir/out.csv; echo "exit $?"; } 2>&1 | grep -v warning
