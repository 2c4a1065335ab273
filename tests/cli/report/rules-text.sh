# report --rules: every allocation's category decided again offline, by Python frames, NVTX
# phases, thread names and CUDA entry points; vramtrace:<category> ranges override the rules.
vt-mktrace t.vtr "$(dirname "$0")/recategorize.trace" || exit
cp "$(dirname "$0")/recategorize.rules" r.rules || exit
vramtrace report t.vtr --rules r.rules
# A trace without THREAD records, where a thread rule is tried on every allocation.
printf 'process t0=0 pid=5\nalloc dt=10 cat=weights dev=0 api=1 addr=0x1000 size=1G\nend dt=10\n' |
    vt-mktrace n.vtr || exit
vramtrace report n.vtr --rules r.rules | sed -n '/^device peak/,/^  total/p'
