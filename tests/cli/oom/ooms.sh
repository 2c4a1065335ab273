# The OOM post-mortem: the request, its API and call-site with native and Python frames, the
# device's free memory, live by category and call-site, the growth, the outcome; free and total
# may be unknown.
vt-mktrace t.vtr "$(dirname "$0")/../report/train.trace" || exit
vramtrace oom t.vtr
echo "exit $?"
vt-mktrace two.vtr <<'T' || exit
process t0=0 pid=9
thread 3 99 worker
alloc dt=1000 cat=weights dev=1 addr=0x1000 size=3G
oom dt=2000000000 dev=1 api=7 size=512M thread=3 live=3G
T
vramtrace oom two.vtr
echo "exit $?"
