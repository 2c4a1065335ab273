# --top N bounds the merged call-sites of several traces as it bounds a single report's (0: all).
# Two ranks share call-site a (3 MiB in all); b (2 MiB) and c (1 MiB) are on one rank each.
vt-mktrace r0.vtr <<'T' || exit
process t0=1000 start=1 pid=8000 RANK=0
stack a py:train.py:main:10
stack b py:train.py:main:20
alloc dt=1000 cat=weights addr=0x1000 size=2M stack=a
alloc dt=1000 cat=activations addr=0x1000000 size=2M stack=b
end dt=1000
T
vt-mktrace r1.vtr <<'T' || exit
process t0=1000 start=1 pid=8001 RANK=1
stack c py:train.py:main:30
stack a py:train.py:main:10
alloc dt=1000 cat=weights addr=0x1000 size=1M stack=a
alloc dt=1000 cat=data addr=0x1000000 size=1M stack=c
end dt=1000
T
vramtrace report r0.vtr r1.vtr --top 1 >top1.txt
echo "exit $?"
sed -n '/^top call-sites/,$p' top1.txt
vramtrace report r0.vtr r1.vtr --top 0 >all.txt
echo "exit $?"
sed -n '/^top call-sites/,$p' all.txt
vramtrace report --json --top=2 r1.vtr r0.vtr >top.json
echo "exit $?"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print([(s["frames"], s["bytes"], s["ranks"]) for s in d["top_sites"]])' top.json
