# A FIFO and /dev/zero for every file argument of every command: each is refused at once with one
# line and exit 1 (a FIFO hung every reader, /dev/zero as a model was read forever); a rank
# directory skips what is not a regular trace with one warning; a FIFO named as a module in a
# trace does not stop the report; a model or rules file past 16 MiB is refused.
d=$(dirname "$0")
vt-mktrace a.vtr "$d/../report/train.trace" || exit
mkfifo f.vtr fifo || exit
mkdir ranks && cp a.vtr ranks/r0.vtr && mkfifo ranks/r1.vtr && mkdir ranks/r2.vtr
try() { # the status and the first line of stderr, in 10 s at most
    timeout 10 vramtrace "$@" >out 2>err </dev/null
    echo "$* -> $? $(head -n 1 err)"
}
for f in f.vtr /dev/zero; do
    for cmd in report oom leaks timeline html; do
        try $cmd $f
    done
    try check $f --max-peak 1G
    try export $f --format csv
    try diff $f a.vtr
    try diff a.vtr $f
    try report a.vtr $f
done
for f in fifo /dev/zero; do
    try report a.vtr --rules $f
    try report a.vtr --budget $f
    try html a.vtr --rules $f -o -
    try html a.vtr --budget $f -o -
    try budget --model $f
    try budget --what-if $f
    try rules --check $f
done
try report ranks
grep -c r0.vtr out
head -c 17000000 /dev/zero | tr '\0' '#' >big.model
cp big.model big.rules
try budget --model big.model
try rules --check big.rules
# A trace whose module is a FIFO: the frames stay addresses, the report is written.
mkfifo lib.so
printf 'process t0=0 pid=7\napis none cudaMalloc\nmodule bias=0x7f0000000000 lo=0x7f0000000000 hi=0x7f0001000000 path=%s/lib.so\nstack s 0x7f0000001000\nalloc dt=1 cat=weights api=1 addr=0x1000 size=1M stack=s\nend dt=1\n' "$PWD" |
    vt-mktrace m.vtr || exit
try report m.vtr
grep -c 0x7f0000001000 out
