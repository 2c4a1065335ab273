# A directory of more ranks than the reader threads hold at once (twice the CPUs): the traces are
# read on every CPU and merged in reading order, so the table, the merged call-sites, the JSON
# and the messages of the unreadable traces are those of one thread, in the order of the files.
# Every rank loads the same two libraries at its own address (ASLR) and numbers its stacks in its
# own order; the libraries are not on this machine, so frames show as module+offset.
mkdir job || exit
i=0
while [ $i -lt 40 ]; do
    base=$(printf '7f%02x' $((i + 16)))
    if [ $((i % 2)) = 0 ]; then order="a b"; else order="b a"; fi
    {
        echo "process t0=1000 start=$((1700000000000000000 + i)) pid=$((3000 + i)) host=node$((i / 8)) RANK=$i"
        echo "apis none cudaMalloc cudaFree"
        echo "module bias=0x${base}00000000 lo=0x${base}00000000 hi=0x${base}01000000 path=/opt/lib/libtrainer.so buildid=0a0b0c0d"
        echo "module bias=0x${base}10000000 lo=0x${base}10000000 hi=0x${base}11000000 path=/opt/lib/libkernels.so"
        for s in $order; do
            if [ $s = a ]; then
                echo "stack a 0x${base}00401200 0x${base}00401000"
            else
                echo "stack b 0x${base}10002000 0x${base}00401300 0x${base}00401000"
            fi
        done
        echo "alloc dt=1000 cat=weights api=1 addr=0x7f2000000000 size=$((64 + i % 5))M stack=a"
        echo "alloc dt=1000 cat=activations api=1 addr=0x7f2100000000 size=$((32 + i % 7))M stack=b"
        [ $((i % 13)) = 5 ] && echo "oom dt=1000 dev=0 api=1 size=4G stack=b free=1G total=80G live=1G,0,0,0,0,0,0"
        echo "end dt=1000"
    } | vt-mktrace "job/vramtrace.$((3000 + i)).vtr" || exit
    i=$((i + 1))
done
# Unreadable traces among them, each said in its place (a damaged one keeps its row).
echo "not a trace" >job/vramtrace.3007.vtr
head -c 20 job/vramtrace.3020.vtr >job/vramtrace.3021.vtr
mkdir job/vramtrace.3100.vtr
vramtrace report --top 4 job
echo "exit $?"
vramtrace report --json job >job.json 2>job.err
echo "exit $?"
cat job.err
python3 - job.json <<'P' || exit
import json, sys
d = json.load(open(sys.argv[1]))
assert [r.get("rank") for r in d["ranks"]] == [i for i in range(40) if i not in (7, 21)] + [None]
assert d["site_ranks"] == 38
assert [(s["category"], s["ranks"]) for s in d["top_sites"]] == [("weights", 38), ("activations", 38)]
assert d["top_sites"][0]["frames"] == ["libtrainer.so+0x401000", "libtrainer.so+0x401200"]
assert d["top_sites"][1]["frames"][2] == "libkernels.so+0x2000"
assert d["total_ooms"] == 3 and d["first_oom"]["rank"] == 5
print("json ok")
P
# One CPU reads them all on the main thread: the same bytes.
if command -v taskset >/dev/null && taskset -c 0 true 2>/dev/null; then
    taskset -c 0 vramtrace report --json job >one-cpu.json 2>one-cpu.err
    cmp job.json one-cpu.json && cmp job.err one-cpu.err && echo "one CPU: same"
else
    echo "one CPU: same"
fi
