# Several OOMs on several devices: the call-sites and the growth are of each OOM's own device
# (top 5 of them), and only an allocation on that device recovers it; two OOMs in a row on a
# device both recover with the next allocation there.
vt-mktrace d.vtr <<'T' || exit
process t0=1000000000 pid=7
device 0 "Sim GPU 16G" 16G
device 1 "Sim GPU 16G" 16G
apis none cudaMalloc cudaFree
thread 1 100 main
stack w0 py:train.py:main:10 py:model.py:build:42 0x7f0000001000
stack w1 py:train.py:main:11 py:model.py:build:43
stack a1 py:train.py:main:20 py:model.py:forward:80 py:model.py:block:91 py:torch/nn/modules/linear.py:forward:125 py:torch/nn/functional.py:linear:2000 0x7f0000002000
stack a2 py:train.py:main:20 py:model.py:forward:81
stack a3 py:train.py:main:20 py:model.py:forward:82
stack a4 py:train.py:main:20 py:model.py:forward:83
stack g py:train.py:main:30 py:torch/autograd/__init__.py:backward:200
alloc dt=1000000 cat=weights dev=0 api=1 addr=0x100000000 size=4G stack=w0
alloc dt=1000 cat=weights dev=0 api=1 addr=0x200000000 size=1G stack=w0
alloc dt=1000 cat=weights dev=1 api=1 addr=0x300000000 size=4G stack=w1
mark dt=1000000 step
alloc dt=1000 cat=activations dev=0 api=1 addr=0x400000000 size=1G stack=a1
alloc dt=1000 cat=activations dev=0 api=1 addr=0x500000000 size=512M stack=a2
alloc dt=1000 cat=activations dev=0 api=1 addr=0x600000000 size=256M stack=a3
alloc dt=1000 cat=activations dev=0 api=1 addr=0x700000000 size=128M stack=a4
alloc dt=1000 cat=gradients dev=0 api=1 addr=0x800000000 size=64M stack=g
alloc dt=1000 cat=unknown dev=0 api=1 addr=0x900000000 size=1M
alloc dt=1000 cat=activations dev=1 api=1 addr=0xa00000000 size=8G stack=a1
oom dt=1000000 dev=0 api=1 size=8G stack=a1 free=6G total=16G live=5G,64M,0,1920M,0,0,1M
oom dt=1000000 dev=1 api=1 size=8G stack=a1 free=3G total=16G live=4G,0,0,8G
oom dt=1000000 dev=0 api=1 size=4G stack=a1 free=6G total=16G live=5G,64M,0,1920M,0,0,1M
free dt=1000000 api=2 addr=0xa00000000
alloc dt=1000 cat=activations dev=1 api=1 addr=0xa00000000 size=4G stack=a1
alloc dt=1000 cat=activations dev=0 api=1 addr=0xb00000000 size=0 stack=a1
free dt=1000000 api=2 addr=0x900000000
T
vramtrace oom d.vtr
echo "exit $?"
