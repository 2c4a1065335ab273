# report --budget: the peak's categories next to examples/models/train_loop.model's naive and
# realistic budgets. Activations are 37x the model's; the argument after the file raises the
# realistic per-sample activations to match, so the note names the naive formula's assumption.
vt-mktrace t.vtr "$(dirname "$0")/budget.trace" || exit
cp "$(dirname "$0")/../../../examples/models/train_loop.model" . || exit
vramtrace report t.vtr --budget train_loop.model cnn_act_bytes_per_sample=606208
echo "exit $?"
# Without the override the realistic model is 37x off as well, and its own assumption is named.
vramtrace report t.vtr --budget=train_loop.model | sed -n '/^notes:/,$p'
