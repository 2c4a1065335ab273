# top's usage errors and unfindable targets: one line each, exit 2 for usage, 1 for a trace that
# cannot be found or read; nothing waits.
vramtrace top
echo "exit $?"
vramtrace top a.vtr b.vtr
echo "exit $?"
vramtrace top --interval 0 a.vtr
echo "exit $?"
vramtrace top --interval x a.vtr
echo "exit $?"
vramtrace top --interval 5ms a.vtr
echo "exit $?"
vramtrace top --interval inf a.vtr
echo "exit $?"
vramtrace top -n 0 a.vtr
echo "exit $?"
vramtrace top --batch missing.vtr
echo "exit $?"
mkdir empty
vramtrace top --batch empty
echo "exit $?"
echo "not a trace" >bad.vtr
vramtrace top --batch bad.vtr
echo "exit $?"
vramtrace top --batch 999999999
echo "exit $?"
