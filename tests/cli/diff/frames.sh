# The call-sites are matched by the frames the views show: a libc frame between the program and
# the allocation (at another address in each run) is left out, so the same program's site
# matches across the runs; with --all-frames every frame counts and the sites differ.
cat >a.script <<'T'
process t0=1000000000 start=1700000000000000000 pid=7 exe=/bin/train
device 0 "Sim GPU" 16G
apis none cudaMalloc cudaFree
module bias=0x7f0000000000 lo=0x7f0000000000 hi=0x7f0001000000 path=/lib/x86_64-linux-gnu/libc.so.6
module bias=0x7e0000000000 lo=0x7e0000000000 hi=0x7e0001000000 path=/opt/app/libtrain.so
stack s 0x7e0000001000 LIBC 0x7e0000002000
alloc dt=1000 dev=0 api=1 addr=0x10000000 size=SIZE cat=weights stack=s
end dt=1000
T
sed 's/LIBC/0x7f0000001000/; s/SIZE/64M/' a.script >a2.script
sed 's/LIBC/0x7f0000005000/; s/SIZE/96M/' a.script >b.script
vt-mktrace a.vtr a2.script || exit
vt-mktrace b.vtr b.script || exit
vramtrace diff a.vtr b.vtr | sed -n '/^top /,/^totals/p'
echo "-- all frames"
vramtrace diff a.vtr b.vtr --all-frames | sed -n '/^top /,/^totals/p'
