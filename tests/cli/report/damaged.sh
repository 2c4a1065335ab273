# Damage part-way: the report of what came before, one line naming the file and the byte,
# exit 1. A record cut by the end of the file is truncated; an unknown core type is corrupt.
vt-mktrace full.vtr <<'T' || exit
process t0=0 pid=1
alloc dt=1000000 cat=weights addr=0x10000000 size=1M
alloc dt=1000000 cat=data addr=0x20000000 size=2M
T
vt-mktrace cut.vtr <<'T' || exit
process t0=0 pid=1
alloc dt=1000000 cat=weights addr=0x10000000 size=1M
alloc dt=1000000 cat=data addr=0x20000000 size=2M
truncate 55
T
vramtrace report cut.vtr
echo "exit $?"
vt-mktrace bad.vtr <<'T' || exit
process t0=0 pid=1
alloc dt=1000000 cat=weights addr=0x10000000 size=1M
raw 28
T
vramtrace report --json bad.vtr >bad.json
echo "exit $?"
grep -E '"(complete|bytes)"' bad.json
vt-mktrace long.vtr <<'T' || exit
raw 01ffffffffffffffffffff01
T
vramtrace report long.vtr >/dev/null
echo "exit $?"
