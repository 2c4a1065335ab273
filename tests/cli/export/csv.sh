# --format csv: one row per ALLOC and FREE; a free shows the device, category, size and stack
# of what it freed (empty when unmatched).
vt-mktrace t.vtr "$(dirname "$0")/../report/train.trace" || exit
vramtrace export t.vtr --format csv -o out.csv
echo "exit $?"
cat out.csv
