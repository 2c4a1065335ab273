# An unknown major version is refused; a newer minor is read, skipping the extension records
# it does not know by their length, and SKIP jumps to the next 1 MiB chunk.
vt-mktrace v2.vtr <<'T' || exit
version 2 0
alloc dt=1 addr=0x1000 size=1M
T
vramtrace report v2.vtr
echo "exit $?"
vt-mktrace v1.vtr <<'T' || exit
version 1 7
ext type=120 body=808080
alloc dt=1000000 cat=weights addr=0x1000 size=1M
skip
ext type=200
alloc dt=1000000 cat=gradients addr=0x200000 size=1M
end dt=1
T
vramtrace report v1.vtr --json >v1.json
echo "exit $?"
grep -E '"(format_version|exit_clean|bytes|weights|gradients|allocs)"' v1.json
