# report --json --category NAME: a "category" object (name, peak_bytes, peak_time_ns, device)
# and top_sites with that category's call-sites only.
vt-mktrace t.vtr "$(dirname "$0")/train.trace" || exit
vramtrace report t.vtr --json --category optimizer >t.json
echo "exit $?"
sed -n '/^  "category"/,/^  }/p;/^  "top_sites"/,/^  \]/p' t.json
vramtrace report t.vtr --json --category data >d.json
echo "exit $?"
sed -n '/^  "category"/,/^  }/p;/^  "top_sites"/p' d.json
vramtrace report t.vtr --json --category weights --at 1.2 --top 0 >w.json
echo "exit $?"
sed -n '/^  "category"/,/^  }/p;/^  "top_sites"/,/^  \]/p' w.json
