# Several traces or a directory: one row per rank (rank, host, pid, device peak, when, largest
# category at the peak, OOMs), sorted by rank, the worst flagged, then the merged views (by
# category, call-sites, OOMs: ranks-merged, ranks-oom); JSON gives the same in exact integers.
# Three ranks of the same job: rank 0 peaks highest; a fourth trace has no rank variable.
here=$(dirname "$0")
mkdir ranks || exit
sed 's/RANK=0/RANK=1/; s/pid=4242/pid=4243/' "$here/train.trace" | vt-mktrace ranks/r1.vtr || exit
vt-mktrace ranks/r0.vtr <<'T' || exit
process t0=1000 start=1 pid=5000 host=gpu01 RANK=0
alloc dt=1000 cat=activations dev=0 api=0 addr=0x1000 size=3G
alloc dt=1000 cat=weights dev=0 api=0 addr=0x100001000 size=1G
end dt=1000
T
vt-mktrace ranks/r2.vtr <<'T' || exit
process t0=1000 start=1 pid=5002 host=gpu02 RANK=2
alloc dt=5000000 cat=optimizer dev=1 api=0 addr=0x1000 size=2G
end dt=1000
T
vt-mktrace single.vtr <<'T' || exit
process t0=1000 start=1 pid=6000 host=login1
alloc dt=1000 cat=data dev=0 api=0 addr=0x1000 size=64M
end dt=1000
T
vramtrace report ranks
echo "exit $?"
vramtrace report --json ranks/r2.vtr single.vtr ranks/r0.vtr
echo "exit $?"
# One unreadable trace among them: the others are still shown, exit 1.
echo "not a trace" >ranks/bad.vtr
vramtrace report ranks
echo "exit $?"
# A directory without traces; options that read one trace.
mkdir empty
vramtrace report empty
echo "exit $?"
vramtrace report ranks --at 1s
echo "exit $?"
vramtrace report ranks/r0.vtr ranks/r2.vtr --category weights
echo "exit $?"
