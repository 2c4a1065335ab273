# A value missing at the end of argv is a usage error that writes nothing: '-o' last once read
# the environment behind argv as its value and wrote the page over the file SHELL named.
vt-mktrace t.vtr "$(dirname "$0")/../report/train.trace" || exit
echo precious >victim
for opt in -o --output; do
    env -i SHELL="$PWD/victim" PATH="$PATH" vramtrace html t.vtr $opt
    echo "exit $?"
done
cat victim
ls
