# report --category NAME: that category's own peak (device, time) and only its call-sites, at
# the peak or with --at at that time; --top N limits the list. A category never allocated says
# so.
vt-mktrace t.vtr "$(dirname "$0")/train.trace" || exit
vramtrace report t.vtr --category activations
echo "exit $?"
vramtrace report t.vtr --category=weights --at 0.7 --top 1 | sed -n '/peak:/p;/^top/,$p'
echo "exit $?"
vramtrace report t.vtr --category gradients | sed -n '/^gradients/p;/^top/p'
echo "exit $?"
# With --rules, the rules' categories: four allocations become activations, two live at the peak.
vt-mktrace r.vtr "$(dirname "$0")/recategorize.trace" || exit
cp "$(dirname "$0")/recategorize.rules" r.rules || exit
vramtrace report r.vtr --rules r.rules --category optimizer | sed -n '/^optimizer/p;/^top/,$p'
echo "exit $?"
