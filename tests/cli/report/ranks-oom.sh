# OOMs across the ranks of a SLURM job: each rank's count in the table, and the job's first OOM
# by wall clock (its trace's start plus the OOM's time): rank 0 started 10 s after rank 1, so its
# OOM at 2 s (12 s into the job) comes after rank 1's first at 5 s. A third trace (a data loader
# worker without a rank variable) has pinned memory only: it is listed, but the min and the
# max/mean are over the two ranks with device memory.
vt-mktrace r0.vtr <<'T' || exit
process t0=1000 start=1700000010000000000 pid=7000 host=gpu-a SLURM_PROCID=0
apis none cudaMalloc cudaFree
alloc dt=1000 cat=weights api=1 addr=0x1000 size=6G
alloc dt=1000 cat=activations api=1 addr=0x200001000 size=2G
oom dt=2000000000 dev=0 api=1 size=8G live=6G,0,0,2G,0,0,0
end dt=1000
T
vt-mktrace r1.vtr <<'T' || exit
process t0=1000 start=1700000000000000000 pid=7100 host=gpu-b SLURM_PROCID=1
apis none cudaMalloc cudaFree
alloc dt=1000 cat=weights api=1 addr=0x1000 size=6G
oom dt=5000000000 dev=0 api=1 size=4G live=6G,0,0,0,0,0,0
oom dt=1000000000 dev=0 api=1 size=2G live=6G,0,0,0,0,0,0
end dt=1000
T
vt-mktrace worker.vtr <<'T' || exit
process t0=1000 start=1700000000000000000 pid=7101 host=gpu-b
apis none cudaMallocHost cudaFreeHost
alloc dt=1000 series=pinned cat=data api=1 addr=0x1000 size=64M
end dt=1000
T
vramtrace report r0.vtr r1.vtr worker.vtr
echo "exit $?"
vramtrace report --json worker.vtr r1.vtr r0.vtr >job.json
echo "exit $?"
python3 - job.json <<'P' || exit
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["ranks"]
assert [r.get("rank") for r in rows] == [0, 1, None]
assert [r["ooms"] for r in rows] == [1, 2, 0]
assert "top_category" not in rows[2] and rows[2]["peak_bytes"] == 0
assert d["device_ranks"] == 2 and d["min_peak_bytes"] == 6 << 30
assert abs(d["peak_imbalance"] - 8 / 7) < 1e-3
w = d["by_category"]["weights"]
assert (w["sum_bytes"], w["max_rank"], w["min_bytes"], w["imbalance"]) == (12 << 30, 0, 6 << 30, 1.0)
a = d["by_category"]["activations"]
assert (a["sum_bytes"], a["max_rank"], a["min_bytes"], a["imbalance"]) == (2 << 30, 0, 0, 2.0)
assert d["total_ooms"] == 3
f = d["first_oom"]
assert (f["rank"], f["file"], f["time_ns"], f["requested_bytes"]) == (1, "r1.vtr", 5000001000, 4 << 30)
assert f["unix_time_ns"] == 1700000005000001000
print("json ok")
P
