# A FIFO as an output (-o, --svg, --stacks): with no process reading it, one line and exit 1 at
# once (opening it for writing waited for a reader forever); with a reader, it is written as a
# pipe is. /dev/null is written; a directory is refused.
d=$(dirname "$0")
vt-mktrace a.vtr "$d/../report/train.trace" || exit
mkfifo fifo || exit
try() { # the status and the first line of stderr, in 10 s at most
    timeout 10 vramtrace "$@" >out 2>err </dev/null
    echo "$* -> $? $(head -n 1 err)"
}
for out in fifo /dev/null .; do
    try export a.vtr --format csv -o $out
    try export a.vtr --format perfetto -o $out
    try export a.vtr --format speedscope -o $out
    try export a.vtr --format csv --stacks $out -o -
    try timeline a.vtr --svg $out
    try html a.vtr -o $out
done
# With a reader: the bytes of the regular file's output. The reader may not have opened the FIFO
# yet when vramtrace does, so vramtrace is retried until it finds it (each try fails at once).
vramtrace export a.vtr --format csv -o want.csv || exit
cat fifo >got.csv &
reader=$!
i=0
until vramtrace export a.vtr --format csv -o fifo 2>/dev/null; do
    i=$((i + 1))
    [ $i -lt 100 ] || { echo "no reader found"; kill $reader; exit 1; }
    sleep 0.1
done
wait $reader
cmp want.csv got.csv && echo "written through the FIFO: $(wc -l <got.csv) lines"
