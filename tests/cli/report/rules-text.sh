# report --rules: every allocation's category decided again offline, by Python frames, NVTX
# phases, thread names and CUDA entry points; vramtrace:<category> ranges override the rules.
vt-mktrace t.vtr "$(dirname "$0")/recategorize.trace" || exit
cp "$(dirname "$0")/recategorize.rules" r.rules || exit
vramtrace report t.vtr --rules r.rules
