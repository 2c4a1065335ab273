# Growth from step to step: steps from ranges named like "step" (the "epoch" range around them
# is not one), a site keeping 4 MiB per step, a site allocated once (steady), activations freed
# every step; text and --json. Then the same steps as marks; without either, the allocations' own
# repetition (a weights allocation before it); and when nothing repeats (activations of a new size
# every step), time windows.
cat >steps.script <<'T'
process t0=1000000000 start=1700000000000000000 pid=7 exe=/bin/train
device 0 "Sim GPU" 16G
apis none cudaMalloc cudaFree
thread 1 7 main
stack w 0x401000 0x401100
stack leak 0x401000 0x401200
stack act 0x401000 0x401300
alloc dt=1000 dev=0 api=1 addr=0x10000000 size=512M cat=weights stack=w
push dt=1000 thread=1 "epoch 0"
push dt=1000 thread=1 "train_step 0"
alloc dt=1000 dev=0 api=1 addr=0x40000000 size=64M cat=activations stack=act
alloc dt=1000 dev=0 api=1 addr=0x50000000 size=4M cat=unknown stack=leak
free dt=1000 api=2 addr=0x40000000
pop dt=1000 thread=1
push dt=1000 thread=1 "train_step 1"
alloc dt=1000 dev=0 api=1 addr=0x40000000 size=64M cat=activations stack=act
alloc dt=1000 dev=0 api=1 addr=0x50400000 size=4M cat=unknown stack=leak
free dt=1000 api=2 addr=0x40000000
pop dt=1000 thread=1
push dt=1000 thread=1 "train_step 2"
alloc dt=1000 dev=0 api=1 addr=0x40000000 size=64M cat=activations stack=act
alloc dt=1000 dev=0 api=1 addr=0x50800000 size=4M cat=unknown stack=leak
free dt=1000 api=2 addr=0x40000000
pop dt=1000 thread=1
pop dt=1000 thread=1
end dt=1000
T
vt-mktrace steps.vtr steps.script || exit
vramtrace leaks steps.vtr
echo "exit $?"
vramtrace leaks steps.vtr --json --top 1
echo "-- marks"
sed 's/^push dt=1000 thread=1 "train_step \(.\)"/mark dt=1000 thread=1 "iteration \1"/; /^pop/d; /epoch/d' steps.script >marks.script
vt-mktrace marks.vtr marks.script || exit
vramtrace leaks marks.vtr | head -2
echo "-- the allocations' repetition"
grep -v -e '^push' -e '^pop' steps.script >period.script
vt-mktrace period.vtr period.script || exit
vramtrace leaks period.vtr | head -2
vramtrace leaks period.vtr --json | grep -A5 '"steps"'
echo "-- time windows"
awk '/size=64M/ { n++; sub(/size=64M/, "size=" (64 - 16 * n) "M") } { print }' period.script >time.script
vt-mktrace time.vtr time.script || exit
vramtrace leaks time.vtr | head -2
