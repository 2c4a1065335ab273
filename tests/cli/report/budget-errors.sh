# report --budget errors, one line each, nothing on stdout: an unreadable model file (1); a
# missing file name, a file line that is not key = value, an unknown key, a bad value, a bad
# key=value argument (2). The model is read before the trace.
vt-mktrace t.vtr "$(dirname "$0")/budget.trace" || exit
cp "$(dirname "$0")/../../../examples/models/train_loop.model" . || exit
vramtrace report t.vtr --budget missing.model
echo "exit $?"
vramtrace report t.vtr --budget
echo "exit $?"
printf 'batch 64\n' >bad.model
vramtrace report t.vtr --budget bad.model
echo "exit $?"
vramtrace report t.vtr --budget train_loop.model bacth=64
echo "exit $?"
vramtrace report t.vtr --budget train_loop.model batch=0
echo "exit $?"
vramtrace report t.vtr --budget train_loop.model =64
echo "exit $?"
vramtrace report missing.vtr --budget train_loop.model method=naive
echo "exit $?"
vramtrace report t.vtr --budget train_loop.model --budget train_loop.model
echo "exit $?"
