# Everything freed: no leaks, exit 0. Without an END record what is live is "at the end of the
# trace", with a warning that the process did not exit cleanly.
vt-mktrace clean.vtr <<'T' || exit
process t0=0 pid=1
alloc dt=1000 cat=weights addr=0x1000 size=1M
free dt=1000 addr=0x1000
end dt=1
T
vramtrace leaks clean.vtr
echo "exit $?"
vt-mktrace killed.vtr <<'T' || exit
process t0=0 pid=1
alloc dt=1000 cat=weights addr=0x1000 size=1M
alloc dt=1000 cat=data dev=1 addr=0x2000 size=3K
free dt=1000 addr=0x1000
T
vramtrace leaks killed.vtr
echo "exit $?"
vt-mktrace empty.vtr </dev/null || exit
vramtrace leaks empty.vtr
echo "exit $?"
