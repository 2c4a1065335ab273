# A trace without an END record (the process was killed) is read fully, with a warning; the
# trace ends at a zero type byte, as the writer's pre-extended file does.
vt-mktrace t.vtr <<'T' || exit
process t0=5000000000 pid=77
alloc dt=1500000000 cat=weights addr=0x7f0000000000 size=1G
alloc dt=1000 cat=activations addr=0x7f0040000000 size=1M
eod
raw 0000000000000000
T
vramtrace report t.vtr
echo "exit $?"
vramtrace report --json t.vtr >t.json
echo "exit $?"
grep -E '"(exit_clean|complete|bytes)"' t.json
