# Usage errors are one line and exit 2: no trace, two traces, an unknown option, -o without a
# file, and the shared report options' errors (--top, --budget and its keys, --rules).
vramtrace html
echo "exit $?"
vramtrace html a.vtr b.vtr
echo "exit $?"
vramtrace html a.vtr --json
echo "exit $?"
vramtrace html a.vtr -o
echo "exit $?"
vramtrace html a.vtr --output=
echo "exit $?"
vramtrace html a.vtr --top lots
echo "exit $?"
vramtrace html a.vtr --budget
echo "exit $?"
printf 'method = naive\nparams = 10M\ndtype = fp32\nbatch = 1\nseq = 1\nhidden = 8\nlayers = 1\n' >m.model
vramtrace html a.vtr --budget m.model color=blue
echo "exit $?"
vramtrace html a.vtr --rules r.rules --rules s.rules
echo "exit $?"
vramtrace html --help | head -2
echo "exit $?"
