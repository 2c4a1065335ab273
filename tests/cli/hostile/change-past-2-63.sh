# Changes of 2^63 bytes and more, which no int64_t holds: oom's growth since a phase began (12 EiB
# of weights freed, then 2^63 + 1 of activations allocated) and diff's deltas are exact, with
# their signs (a shrink of 12 EiB was printed as a growth of 4 EiB; UBSan stopped at the
# negation).
vt-mktrace a.vtr <<'T' || exit
process t0=0 pid=7
apis none cudaMalloc cudaFree
thread 1 100 main
alloc dt=1000 cat=weights api=1 addr=0x1000 size=13835058055282163712
push dt=1000 thread=1 step
free dt=1000 api=2 addr=0x1000
alloc dt=1000 cat=activations api=1 addr=0x2000 size=9223372036854775809
oom dt=1000 api=1 size=1G live=0,0,0,9223372036854775809,0,0,0
end dt=1000
T
vt-mktrace b.vtr <<'T' || exit
process t0=0 pid=8
apis none cudaMalloc cudaFree
alloc dt=1000 cat=data api=1 addr=0x1000 size=1
end dt=1000
T
vramtrace oom a.vtr | grep growth
vramtrace oom a.vtr --json | python3 -c 'import json, sys; g = json.load(sys.stdin)["ooms"][0]["grew_since"]; print(g["bytes"], g["by_category"]["weights"], g["by_category"]["activations"])'
vramtrace diff a.vtr b.vtr | sed -n 1,4p
vramtrace diff a.vtr b.vtr --json | python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["peak"]["delta"] if "peak" in d else d)'
