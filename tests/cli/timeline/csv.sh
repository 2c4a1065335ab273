# --csv: one row per change of a device's live memory, seconds from t0 with 6 decimals and
# exact byte counts; the option may come before or after the file.
vt-mktrace t.vtr "$(dirname "$0")/../report/train.trace" || exit
vramtrace timeline t.vtr --csv
echo "exit $?"
vramtrace timeline --csv t.vtr | wc -l
vt-mktrace empty.vtr </dev/null || exit
vramtrace timeline --csv empty.vtr
echo "exit $?"
