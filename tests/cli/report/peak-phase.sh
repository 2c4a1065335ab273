# The peak names its phase: the innermost range open on the allocating thread (with the path of
# its thread's ranges), else a range open on another thread, else the last mark, else none.
cat >ranges.script <<'T'
process t0=1000000000 start=1700000000000000000 pid=7 exe=/bin/train
device 0 "Sim GPU" 16G
apis none cudaMalloc cudaFree
thread 1 7 main
thread 2 8 loader
push dt=1000 thread=1 train
push dt=1000 thread=2 prefetch
push dt=1000 thread=1 "step 3"
push dt=1000 thread=1 forward
alloc dt=1000 dev=0 api=1 addr=0x1000000 size=64M cat=activations thread=1
pop dt=1000 thread=1
free dt=1000 api=2 addr=0x1000000
end dt=1000
T
vt-mktrace ranges.vtr ranges.script || exit
vramtrace report ranges.vtr | grep -E '^(device peak|peak phase)'
vramtrace report ranges.vtr --json | grep -A4 '"phase"'
echo "-- another thread's range"
sed 's/thread=1$/thread=9/' ranges.script | sed '/push dt=1000 thread=1/d' >other.script
vt-mktrace other.vtr other.script || exit
vramtrace report other.vtr | grep '^peak phase'
echo "-- the last mark"
cat >marks.script <<'T'
process t0=1000000000 start=1700000000000000000 pid=7 exe=/bin/train
device 0 "Sim GPU" 16G
apis none cudaMalloc cudaFree
thread 1 7 main
mark dt=1000 thread=1 "iteration 1"
mark dt=1000 thread=1 "iteration 2"
alloc dt=1000 dev=0 api=1 addr=0x1000000 size=64M cat=activations thread=1
mark dt=1000 thread=1 "iteration 3"
end dt=1000
T
vt-mktrace marks.vtr marks.script || exit
vramtrace report marks.vtr | grep '^peak phase'
vramtrace report marks.vtr --json | grep -A4 '"phase"'
echo "-- none"
grep -v mark marks.script >none.script
vt-mktrace none.vtr none.script || exit
vramtrace report none.vtr | grep -c '^peak phase'
vramtrace report none.vtr --json | grep '"phase"'
