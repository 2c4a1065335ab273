# The device's free memory against the request: free memory above it is flagged as
# fragmentation; total - free - live is the memory vramtrace did not see (shown when positive);
# a request above the free memory is not flagged; free and total may be unknown.
vt-mktrace frag.vtr <<'T' || exit
process t0=0 pid=7
device 0 "Sim GPU 24G" 24G
apis none cudaMalloc cudaFree
stack big py:train.py:main:10 py:model.py:build:42
alloc dt=1000000 cat=weights api=1 addr=0x100000000 size=16G stack=big
oom dt=1000000000 api=1 size=512M stack=big free=3G total=24G live=16G
end dt=5000000
T
vramtrace oom frag.vtr
echo "exit $?"
# Exactly the request free is fragmentation too; total = free + live leaves nothing unseen.
vt-mktrace full.vtr <<'T' || exit
process t0=0 pid=7
apis none cudaMalloc cudaFree
alloc dt=1000000 cat=weights api=1 addr=0x100000000 size=16G
oom dt=1000000000 api=1 size=4G free=2G total=18G live=16G
oom dt=1000000 api=1 size=2G free=2G total=18G live=16G
end dt=5000000
T
vramtrace oom full.vtr
echo "exit $?"
vt-mktrace unknown.vtr <<'T' || exit
process t0=0 pid=7
apis none cudaMalloc cudaFree
alloc dt=1000000 cat=weights api=1 addr=0x100000000 size=16G
oom dt=1000000000 api=1 size=4G live=16G
end dt=5000000
T
vramtrace oom unknown.vtr
echo "exit $?"
