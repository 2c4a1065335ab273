# Bad input: one line naming the file and the problem, exit 1, and no page left behind; a page
# that cannot be written is one line naming it, exit 1, and leaves no temporary file.
vt-mktrace t.vtr "$(dirname "$0")/../report/train.trace" || exit
vramtrace html missing.vtr
echo "exit $?"
: >empty.vtr
vramtrace html empty.vtr
echo "exit $?"
echo 'hello, world' >hello.vtr
vramtrace html hello.vtr
echo "exit $?"
vramtrace html t.vtr -o no-such-dir/t.html
echo "exit $?"
mkdir out.html
vramtrace html t.vtr -o out.html
echo "exit $?"
vramtrace html t.vtr --budget missing.model
echo "exit $?"
if [ -w /dev/full ]; then
    vramtrace html t.vtr -o /dev/full
    echo "exit $?"
else
    echo "vramtrace: cannot write '/dev/full': No space left on device"
    echo "exit 1"
fi
ls
