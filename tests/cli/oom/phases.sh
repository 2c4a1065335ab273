# What grew since the last phase boundary or mark before each OOM, on its device, largest
# growth first: a phase's name is its thread's nested path; a pop names the phase that ended;
# a mark on another thread counts too; without any, the growth is since the start.
vt-mktrace p.vtr <<'T' || exit
process t0=0 pid=7
apis none cudaMalloc cudaFree
thread 1 100 main
thread 2 101 loader
alloc dt=1000000 cat=weights api=1 addr=0x100000000 size=1G
alloc dt=1000 cat=workspace api=1 addr=0x200000000 size=128M
push dt=1000000 thread=1 forward
push dt=1000000 thread=2 prefetch
alloc dt=1000 cat=activations api=1 addr=0x300000000 size=256M
push dt=1000000 thread=1 layer11
alloc dt=1000 cat=activations api=1 addr=0x400000000 size=2G
alloc dt=1000 cat=data api=1 addr=0x500000000 size=64M thread=2
free dt=1000 api=2 addr=0x200000000
oom dt=1000 api=1 size=1G live=1G,0,0,2304M,64M
alloc dt=1000 cat=activations api=1 addr=0x600000000 size=512M
pop dt=1000000 thread=1
oom dt=1000 api=1 size=1G live=1G,0,0,2816M,64M
pop dt=1000000 thread=2
alloc dt=1000 cat=gradients api=1 addr=0x700000000 size=1G
oom dt=1000 api=1 size=1G live=1G,1G,0,2816M,64M
mark dt=1000000 thread=2 "batch 7"
free dt=1000 api=2 addr=0x400000000
oom dt=1000 api=1 size=4G live=1G,1G,0,768M,64M
mark dt=1000000 thread=1 step
oom dt=1000 api=1 size=4G live=1G,1G,0,768M,64M
end dt=1000000
T
vramtrace oom p.vtr
echo "exit $?"
vt-mktrace none.vtr <<'T' || exit
process t0=0 pid=7
apis none cudaMalloc cudaFree
alloc dt=1000000 cat=weights api=1 addr=0x100000000 size=1G
alloc dt=1000 cat=optimizer api=1 addr=0x200000000 size=2G
oom dt=1000 api=1 size=1G live=1G,0,2G
end dt=1000000
T
vramtrace oom none.vtr
echo "exit $?"
