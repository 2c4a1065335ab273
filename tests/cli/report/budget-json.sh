# report --json --budget: the "budget" object (naive, realistic, ratios, notes) after the usual
# keys.
vt-mktrace t.vtr "$(dirname "$0")/budget.trace" || exit
cp "$(dirname "$0")/../../../examples/models/train_loop.model" . || exit
vramtrace report --json t.vtr --budget train_loop.model cnn_act_bytes_per_sample=606208
