# The merged views of a torchrun job of four ranks: by category at each rank's peak (sum, max
# and its rank, min, max/mean), the call-sites matched across ranks by their frames (in JSON
# also as frame objects), the OOMs.
# Every rank loaded libtorch_cuda.so at another address (ASLR) and numbers its stacks in its own
# order, so a call-site is matched by its frames' text: the module and offset of a native frame
# whose function is unknown, never its address or stack id.
#   weights:     1 GiB on every rank (two 512 MiB allocations) through the same frames
#   activations: 1 GiB on ranks 0 and 2, 2 GiB on rank 3 (1.60 x the mean), and on rank 1
#                768 MiB through the same frames plus 256 MiB through another leaf offset
#   optimizer:   256 MiB on rank 0, 512 MiB on rank 2, none on ranks 1 and 3
#   an OOM on rank 2
mkdir job || exit
# rank N PREFIX PID: the trace script of rank N with libtorch_cuda.so at 0xPREFIX00000000
rank() {
    cat <<T
process t0=1000000000 start=1700000000000000000 pid=$3 host=node$(($1 / 2)) exe=/usr/bin/python3 RANK=$1 LOCAL_RANK=$(($1 % 2))
device 0 "Sim GPU 80G" 80G
apis none cudaMalloc cudaFree
module bias=0x${2}00000000 lo=0x${2}00000000 hi=0x${2}01000000 path=/opt/conda/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so
T
    if [ "$1" = 3 ]; then # another order: other stack ids
        echo "stack fwd py:train.py:main:24 py:train.py:forward:35 0x${2}00401300 0x${2}00401000"
        echo "stack load py:train.py:main:20 py:torch/nn/modules/module.py:to:1174 0x${2}00401200 0x${2}00401000"
    else
        echo "stack load py:train.py:main:20 py:torch/nn/modules/module.py:to:1174 0x${2}00401200 0x${2}00401000"
        echo "stack fwd py:train.py:main:24 py:train.py:forward:35 0x${2}00401300 0x${2}00401000"
    fi
    cat <<T
stack fwd2 py:train.py:main:24 py:train.py:forward:35 0x${2}00401300 0x${2}00401400
stack opt py:train.py:main:26 py:torch/optim/adam.py:step:90 0x${2}00401000
alloc dt=1000000 cat=weights api=1 addr=0x7f2000000000 size=512M stack=load
alloc dt=1000 cat=weights api=1 addr=0x7f2020000000 size=512M stack=load
T
}
{ rank 0 7f50 5000; cat <<T; } | vt-mktrace job/vramtrace.5000.vtr || exit
alloc dt=1000 cat=activations api=1 addr=0x7f2040000000 size=1G stack=fwd
alloc dt=1000 cat=optimizer api=1 addr=0x7f2080000000 size=256M stack=opt
end dt=1000
T
{ rank 1 7f61 5001; cat <<T; } | vt-mktrace job/vramtrace.5001.vtr || exit
alloc dt=1000 cat=activations api=1 addr=0x7f2040000000 size=768M stack=fwd
alloc dt=1000 cat=activations api=1 addr=0x7f2070000000 size=256M stack=fwd2
end dt=1000
T
{ rank 2 7f72 5002; cat <<T; } | vt-mktrace job/vramtrace.5002.vtr || exit
alloc dt=1000 cat=activations api=1 addr=0x7f2040000000 size=1G stack=fwd
alloc dt=1000 cat=optimizer api=1 addr=0x7f2080000000 size=512M stack=opt
oom dt=2000000000 dev=0 api=1 size=4G stack=fwd free=1G total=80G live=1G,0,512M,1G,0,0,0
end dt=1000
T
{ rank 3 7f83 5003; cat <<T; } | vt-mktrace job/vramtrace.5003.vtr || exit
alloc dt=1000 cat=activations api=1 addr=0x7f2040000000 size=1G stack=fwd
alloc dt=1000 cat=activations api=1 addr=0x7f2080000000 size=1G stack=fwd
end dt=1000
T
vramtrace report job
echo "exit $?"
vramtrace report --json job >job.json
echo "exit $?"
cat job.json
python3 - job.json <<'P' || exit
import json, sys
d = json.load(open(sys.argv[1]))
assert [r["rank"] for r in d["ranks"]] == [0, 1, 2, 3]
assert [r["ooms"] for r in d["ranks"]] == [0, 0, 1, 0]
assert sum(c["sum_bytes"] for c in d["by_category"].values()) == d["sum_peak_bytes"]
assert d["sum_peak_bytes"] == sum(r["peak_bytes"] for r in d["ranks"]) == 39 << 28
act = d["by_category"]["activations"]
assert (act["sum_bytes"], act["max_bytes"], act["max_rank"], act["min_bytes"]) == (5 << 30, 2 << 30, 3, 1 << 30)
assert abs(act["imbalance"] - 1.6) < 1e-3
assert d["by_category"]["gradients"]["imbalance"] is None
top = d["top_sites"]
assert [(s["category"], s["bytes"], s["ranks"], s["max_rank"]) for s in top] == [
    ("activations", 19 << 28, 4, 3), ("weights", 4 << 30, 4, 0),
    ("optimizer", 768 << 20, 2, 2), ("activations", 256 << 20, 1, 1)]
assert top[0]["frames"][:2] == ["libtorch_cuda.so+0x401000", "libtorch_cuda.so+0x401300"]
assert not any("0x7f" in f for s in top for f in s["frames"])
# The same frames as objects, as a single trace's report gives them: the native frame by its
# module and offset (the same on every rank), the Python frames by file, function and line.
for s in top:
    assert [f["function"] if not f["python"] else f'{f["file"]}:{f["function"]}:{f["line"]}'
            for f in s["stack"]] == s["frames"], s
    assert all(set(f) == {"function", "file", "line", "module", "python"} for f in s["stack"])
assert top[0]["stack"][0] == {"function": "libtorch_cuda.so+0x401000", "file": "", "line": 0,
                              "module": "libtorch_cuda.so", "python": False}, top[0]["stack"][0]
assert top[0]["stack"][2] == {"function": "forward", "file": "train.py", "line": 35,
                              "module": "", "python": True}, top[0]["stack"][2]
assert d["total_ooms"] == 1 and d["first_oom"]["rank"] == 2
print("json ok")
P
