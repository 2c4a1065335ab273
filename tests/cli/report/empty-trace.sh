# A trace with the preamble only: zeros everywhere, every category present.
vt-mktrace t.vtr </dev/null || exit
vramtrace report t.vtr
echo "exit $?"
vramtrace report t.vtr --json
