# A device peak of 7 x 2^61 bytes (14 EiB), and a device of capacity 2^64 - 1: each chart has its
# y ticks, and the SVG and the page stay small (the tick loop's counter wrapped past 2^64 on the
# first and wrote ticks until the disk was full; the second's scale rounded up to 0).
vt-mktrace t.vtr <<'T' || exit
process t0=0 pid=7
device 1 "Huge" 18446744073709551615
apis none cudaMalloc cudaFree
alloc dt=1000 cat=weights dev=1 api=1 addr=0x2000 size=4611686018427387904
free dt=1000 api=2 addr=0x2000
alloc dt=1000 cat=weights api=1 addr=0x1000 size=16140901064495857664
free dt=1000 api=2 addr=0x1000
end dt=1000
T
timeout 20 vramtrace timeline t.vtr --svg chart.svg
echo "timeline exit $?"
echo "ticks: $(grep -c 'stroke="#ddd"' chart.svg); small: $([ "$(wc -c <chart.svg)" -lt 100000 ] && echo yes)"
grep -o '>[0-9.]* [KMGTPE]*i*B<' chart.svg | tr '\n' ' '
echo
timeout 20 vramtrace html t.vtr -o page.html
echo "html exit $?; small: $([ "$(wc -c <page.html)" -lt 200000 ] && echo yes)"
