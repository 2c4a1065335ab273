# --csv on a random trace of 20 devices (more than the rows' per-device text keeps: 16) with
# allocations and frees in every category, sizes of 1 to 12 digits and times crossing whole
# seconds: every row as a running sum of the trace's own events computes it, field by field (no
# pools: the pools' spare is 0).
awk 'BEGIN {
    srand(7)
    print "process t0=1000000000 start=1700000000000000000 pid=1 ppid=1 host=h exe=/bin/x"
    for (d = 0; d < 20; d++) print "device " d " \"Sim\" 64G"
    print "apis none cudaMalloc cudaFree"
    print "thread 1 1 main"
    split("weights gradients optimizer activations data workspace unknown", cat, " ")
    n = 0
    for (i = 0; i < 3000; i++) {
        if (n > 0 && rand() < 0.45) {
            k = int(rand() * n) + 1
            print "free dt=" sprintf("%.0f", int(rand() * 400000000)) " api=2 addr=" live[k]
            live[k] = live[n--]
            continue
        }
        size = sprintf("%.0f", int(10 ^ (rand() * 12)) + 1)
        addr = sprintf("0x7f%010x", ++a * 4096)
        live[++n] = addr
        print "alloc dt=" sprintf("%.0f", int(rand() * 400000000)) " cat=" cat[int(rand() * 7) + 1] " dev=" \
            int(rand() * rand() * 20) " api=1 addr=" addr " size=" size
    }
}' >t.trace
vt-mktrace t.vtr t.trace || exit
vramtrace timeline --csv t.vtr >got.csv || exit
# The rows the trace's events give: a row per allocation and per free of a known address.
awk 'BEGIN {
    split("weights gradients optimizer activations data workspace unknown", names, " ")
    for (c = 1; c <= 7; c++) col[names[c]] = c
    print "time_s,device,total_bytes,weights,gradients,optimizer,activations,data,workspace,unknown,pool_spare_bytes"
}
/^(alloc|free) / {
    for (f = 2; f <= NF; f++) { split($f, kv, "="); v[kv[1]] = kv[2] }
    t += v["dt"]
    if ($1 == "alloc") {
        d = v["dev"]; c = col[v["cat"]]; s = v["size"]
        dev[v["addr"]] = d; ca[v["addr"]] = c; sz[v["addr"]] = s
    } else {
        a = v["addr"]; d = dev[a]; c = ca[a]; s = -sz[a]
    }
    total[d] += s; by[d, c] += s
    us = int(t / 1000)
    line = sprintf("%.0f.%06.0f,%d,%.0f", int(us / 1000000), us % 1000000, d, total[d])
    for (k = 1; k <= 7; k++) line = line sprintf(",%.0f", by[d, k])
    print line ",0"
}' t.trace >want.csv
if cmp -s want.csv got.csv; then
    echo "$(($(wc -l <got.csv) - 1)) rows as the events give them"
else
    diff want.csv got.csv | head -5
fi
