# --temporary and --window: usage errors exit 2 before the trace is read; an unreadable trace
# exits 1; a damaged one reports what came before it and exits 1.
vt-mktrace t.vtr "$(dirname "$0")/churn.trace" || exit
vramtrace report t.vtr --temporary --window soon
echo "exit $?"
vramtrace report t.vtr --temporary --window
echo "exit $?"
vramtrace report t.vtr --window 5ms
echo "exit $?"
vramtrace report t.vtr --temporary --at 1
echo "exit $?"
vramtrace report t.vtr t.vtr --temporary
echo "exit $?"
vramtrace report missing.vtr --temporary
echo "exit $?"
head -c 700 t.vtr >cut.vtr
vramtrace report cut.vtr --temporary
echo "exit $?"
