# Recovered when the process later allocated device memory on the OOM's device (a retry after
# freeing a cache), fatal when it did not before the trace ends: with the exit record, or
# without one (the process probably died). Pinned memory, another device and 0 bytes do not
# count as going on.
vt-mktrace retry.vtr <<'T' || exit
process t0=0 pid=7
apis none cudaMalloc cudaFree cudaMallocHost
alloc dt=1000000 cat=activations api=1 addr=0x100000000 size=6G
oom dt=1000000000 api=1 size=2G free=1G total=8G live=0,0,0,6G
free dt=250000 api=2 addr=0x100000000
alloc dt=250000 cat=activations api=1 addr=0x100000000 size=2G
end dt=1000000000
T
vramtrace oom retry.vtr
echo "exit $?"
vt-mktrace exited.vtr <<'T' || exit
process t0=0 pid=7
apis none cudaMalloc cudaFree cudaMallocHost
alloc dt=1000000 cat=activations api=1 addr=0x100000000 size=6G
oom dt=1000000000 api=1 size=2G free=1G total=8G live=0,0,0,6G
alloc dt=1000 series=pinned cat=data api=3 addr=0x7f0000000000 size=1G
alloc dt=1000 dev=1 cat=activations api=1 addr=0x200000000 size=1G
alloc dt=1000 cat=activations api=1 addr=0x300000000 size=0
free dt=1000 api=2 addr=0x100000000
end dt=2500000000
T
vramtrace oom exited.vtr
echo "exit $?"
vt-mktrace died.vtr <<'T' || exit
process t0=0 pid=7
apis none cudaMalloc cudaFree
alloc dt=1000000 cat=activations api=1 addr=0x100000000 size=6G
oom dt=1000000000 api=1 size=2G free=1G total=8G live=0,0,0,6G
free dt=40000000 api=2 addr=0x100000000
T
vramtrace oom died.vtr
echo "exit $?"
