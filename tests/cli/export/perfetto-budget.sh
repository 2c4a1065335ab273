# --format perfetto --max-size: a trace whose full export is ~2 MB kept under 100 KB: the
# counters by columns of time with the peak kept, the slices of the two call-sites sampled
# (those live at the peak kept), the phases past a fifth of the budget left out with a warning,
# each E still matching a B. --max-size 0 writes every change.
awk 'BEGIN {
    print "process t0=1000 pid=9 exe=/bin/loop"
    print "device 0 \"Sim GPU\" 16G"
    print "apis none cudaMalloc cudaFree"
    print "thread 1 9 loop"
    print "stack s py:loop.py:main:3 py:loop.py:step:10"
    print "stack w py:loop.py:main:2 py:loop.py:load:20"
    print "alloc dt=10 cat=weights dev=0 api=1 addr=0x100000000 size=64M stack=w"
    for (i = 1; i <= 1500; i++) {
        a = 4294967296 + i * 1073741824
        print "push dt=100 thread=1 step"
        printf "alloc dt=100 cat=activations dev=0 api=1 addr=%.0f size=%dM stack=s\n", a, i == 900 ? 512 : i % 7 + 1
        printf "alloc dt=100 cat=activations dev=0 api=1 addr=%.0f size=1M stack=s\n", a + 536870912
        printf "free dt=100 api=2 addr=%.0f\n", a
        printf "free dt=100 api=2 addr=%.0f\n", a + 536870912
        print "pop dt=100 thread=1"
    }
    print "end dt=10"
}' >loop.trace
vt-mktrace t.vtr loop.trace || exit
check=$(dirname "$0")/../check_perfetto.py
# The peak: the weights and the 512 MiB and 1 MiB activations of step 900.
peak=$(((64 + 512 + 1) * 1048576))
vramtrace export t.vtr --format perfetto --max-size 100K -o small.json
echo "exit $?"
python3 "$check" small.json 102400 "$peak"
vramtrace export t.vtr --format perfetto --max-size 0 -o full.json
echo "exit $?"
python3 "$check" full.json 0 "$peak"
vramtrace export t.vtr --format perfetto -o default.json
echo "exit $?"
cmp -s full.json default.json && echo "under the default budget: every change"
# A bad size, and --max-size with another format, are usage errors.
vramtrace export t.vtr --format perfetto --max-size lots
echo "exit $?"
vramtrace export t.vtr --format csv --max-size 1M
echo "exit $?"
# The allocation that made the peak is a slice whatever the sampling kept.
grep -c '"size_bytes":536870912' small.json
