# --format csv --stacks FILE: the stack table the rows' stack_id names, one row per frame,
# innermost first; every stack_id of the rows (but 0: none recorded) has its rows; a field
# holding a comma is quoted.
vt-mktrace t.vtr "$(dirname "$0")/../report/train.trace" || exit
vramtrace export t.vtr --format csv -o out.csv --stacks stacks.csv
echo "exit $?"
cat stacks.csv
# Every stack_id of the events has rows in the table, and the table has no other stack.
cut -d, -f8 out.csv | sed 1d | grep -v '^0*$' | LC_ALL=C sort -u >named
cut -d, -f1 stacks.csv | sed 1d | LC_ALL=C sort -u >tabled
cmp named tabled && echo "every stack_id has its rows: $(tr '\n' ' ' <named)"
# Quoting: a file name with a comma and a space.
cat >q.trace <<'TRACE'
process t0=1000 pid=7 exe=/bin/q
device 0 "Sim GPU" 1G
apis none cudaMalloc cudaFree
thread 1 7 q
stack s py:q.py:main:9 "py:my data, v2.py:load:3"
alloc dt=10 cat=data dev=0 api=1 addr=0x1000 size=4K stack=s
end dt=10
TRACE
vt-mktrace q.vtr q.trace || exit
vramtrace export q.vtr --format csv --stacks - -o q.csv
echo "exit $?"
# The rows to a file and the table to stdout is fine; both to stdout, or --stacks with another
# format, is a usage error.
vramtrace export q.vtr --format csv --stacks -
echo "exit $?"
vramtrace export q.vtr --format perfetto --stacks s.csv
echo "exit $?"
vramtrace export q.vtr --format csv -o - --stacks no-such-dir/s.csv >/dev/null
echo "exit $?"
