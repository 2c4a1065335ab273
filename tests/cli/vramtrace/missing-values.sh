# Every option that takes a value, given last without it: one usage line each, exit 2, nothing
# written, nothing read past the end of the arguments.
vt-mktrace t.vtr "$(dirname "$0")/../report/train.trace" || exit
echo precious >victim
try() {
    env -i SHELL="$PWD/victim" PATH="$PATH" vramtrace "$@"
    echo "exit $?"
}
try --memory-limit
try report t.vtr --at
try report t.vtr --category
try report t.vtr --top
try report t.vtr --budget
try report t.vtr --rules
try html t.vtr --top
try html t.vtr -o
try leaks t.vtr --top
try diff t.vtr t.vtr --top
try timeline t.vtr --svg
try export t.vtr --format csv -o
try export t.vtr --format
try check t.vtr --max-peak
try check t.vtr --max-category
try budget --model
try rules --check
try run -o
try run --rules -- true
try run --depth
try run --lib
# Attached forms: "--opt=" is empty, "-oFILE" is the value.
try html t.vtr --output=
try export t.vtr --format=csv -oout.csv
try run -q -- true
cat victim
ls
