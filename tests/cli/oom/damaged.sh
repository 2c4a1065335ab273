# A damaged trace: the OOMs before the damage are still shown, their outcome unknown when
# nothing was allocated on their device before it (the allocation may be in what was lost),
# and the exit status is 1. A capped trace (VRAMTRACE_MAX_SIZE) records no allocations after
# the cap: unknown too, with its call-sites and growth as of the cap.
vt-mktrace bad.vtr <<'T' || exit
process t0=0 pid=7
apis none cudaMalloc cudaFree
alloc dt=1000000 cat=weights api=1 addr=0x100000000 size=1G
oom dt=1000000 api=1 size=2G free=1G total=4G live=1G
oom dt=1000000 dev=1 api=1 size=2G free=1G total=4G live=0
alloc dt=1000000 dev=1 cat=weights api=1 addr=0x200000000 size=1G
raw 30
T
vramtrace oom bad.vtr
echo "exit $?"
vramtrace oom --json bad.vtr >bad.json
echo "exit $?"
python3 -c 'import json; d = json.load(open("bad.json")); print(d["complete"], [o["outcome"] for o in d["ooms"]])'
vt-mktrace capped.vtr <<'T' || exit
process t0=0 pid=7
apis none cudaMalloc cudaFree
alloc dt=1000000 cat=weights api=1 addr=0x100000000 size=1G
mark dt=1000000 step
alloc dt=1000 cat=activations api=1 addr=0x200000000 size=1G
ext type=64 body=808040
oom dt=1000000000 api=1 size=2G free=1G total=4G live=1G,0,0,2G
end dt=1000000
T
vramtrace oom capped.vtr
echo "exit $?"
