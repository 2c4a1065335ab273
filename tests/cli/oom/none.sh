# No OOM records: one line saying so.
vt-mktrace t.vtr <<'T' || exit
alloc dt=1000 cat=weights addr=0x1000 size=1M
end dt=1
T
vramtrace oom t.vtr
echo "exit $?"
