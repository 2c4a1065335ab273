# The page of a trace: written to FILE.html by default and to -o OUT; '-o -' writes it on stdout.
# Its sections, in order (the OOM post-mortem first), and that it loads nothing: two inline
# scripts (its data, its code), no link, no source (the rendered page and its interactions are
# checked in Chromium by tests/system/html).
vt-mktrace t.vtr "$(dirname "$0")/../report/train.trace" || exit
vramtrace html t.vtr
echo "exit $?"
vramtrace html t.vtr -o other.html --top 1
echo "exit $?"
vramtrace html t.vtr -o - >stdout.html
echo "exit $?"
cmp t.html stdout.html && echo "same page on stdout"
ls
grep -o '<section id="[a-z]*"' t.html
grep -c '<script' t.html
grep -c '<link\|src=\|href=' t.html
# --top 1: one call-site row at the peak (and the leaks' tables keep to one row each too); the
# script's text has one more.
grep -c '<ol class="frames">' t.html other.html
grep -o '<h1>.*</h1>\|<h2>[^<]*</h2>' t.html
# A damaged trace still gets its page, with the damage said, exit 1.
head -c 700 t.vtr >cut.vtr
vramtrace html cut.vtr
echo "exit $?"
grep -o '<p class="warn">[^<]*' cut.html | sed 's/byte [0-9]*/byte N/'
