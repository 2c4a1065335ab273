# Two live allocations of 2^63 bytes and one of 1 MiB: together they pass 2^64. The peak
# saturates at 2^64 - 1 (16 EiB; the wrapped sum made it 8 EiB), and once the two are freed
# what is live is exactly the 1 MiB (the wrapped sum said so only by luck; a saturated one
# would say 0). The same in JSON.
vt-mktrace t.vtr <<'T' || exit
process t0=0 pid=7
apis none cudaMalloc cudaFree
alloc dt=1000 cat=weights api=1 addr=0x1000 size=9223372036854775808
alloc dt=1000 cat=activations api=1 addr=0x2000 size=9223372036854775808
alloc dt=1000 cat=data api=1 addr=0x3000 size=1M
free dt=1000 api=2 addr=0x1000
free dt=1000 api=2 addr=0x2000
end dt=1000
T
vramtrace report t.vtr
echo "exit $?"
vramtrace report t.vtr --json | python3 -c 'import json, sys; d = json.load(sys.stdin); print("peak", d["peak"]["bytes"], "complete", d["complete"], "live at the end", d["devices"][0]["leaked_bytes"])'
echo "exit $?"
