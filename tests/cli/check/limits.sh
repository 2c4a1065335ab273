# Within the limits: "ok" lines, exit 0; over one: a line naming it on stderr, exit 1. The
# training process peaks at 2.07 GiB on device 0 with 1 GiB of optimizer state.
vt-mktrace t.vtr "$(dirname "$0")/../report/train.trace" || exit
vramtrace check t.vtr --max-peak 3GiB
echo "exit $?"
vramtrace check --max-peak=2.5G --max-category optimizer=1GiB t.vtr --max-category weights=1024M
echo "exit $?"
vramtrace check t.vtr --max-peak 2G
echo "exit $?"
vramtrace check t.vtr --max-peak 1.5GiB --max-category optimizer=512MiB
echo "exit $?"
vramtrace check t.vtr --max-category activations=300MiB
echo "exit $?"
vramtrace check t.vtr --max-peak 2227176423
echo "exit $?"
vramtrace check t.vtr --max-peak 2227176424
echo "exit $?"
vt-mktrace empty.vtr </dev/null || exit
vramtrace check empty.vtr --max-peak 0 2>/dev/null
echo "exit $?"
# A damaged trace is exit 1 even over a limit (its peak is only a lower bound), so CI tells a
# broken trace (1) from a regression (3).
head -c 700 t.vtr >cut.vtr
vramtrace check cut.vtr --max-peak 1 2>/dev/null
echo "exit $?"
