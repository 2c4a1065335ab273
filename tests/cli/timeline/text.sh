# The summary of the training process: duration, events, each device's peak and when, and the
# device peak inside each phase (nested phases are joined with '/').
vt-mktrace t.vtr "$(dirname "$0")/../report/train.trace" || exit
vramtrace timeline t.vtr
echo "exit $?"
vt-mktrace p.vtr <<'T' || exit
process t0=1000 pid=1
thread 1 11 main
thread 2 12 loader
push dt=1000000 thread=1 epoch
alloc dt=1000000 cat=weights addr=0x1000 size=1G
push dt=1000000 thread=1 forward
alloc dt=1000000 cat=activations addr=0x2000000000 size=512M
free dt=1000000 addr=0x2000000000
pop dt=1000000 thread=1
push dt=1000000 thread=2 load
alloc dt=1000000 cat=data dev=1 addr=0x3000 size=2G
pop dt=1000000 thread=2
push dt=1000000 thread=1 forward
pop dt=1000000 thread=1
pop dt=1000000 thread=1
end dt=1000
T
vramtrace timeline p.vtr
echo "exit $?"
