# report --rules reads the file before the built-in rules: a one-line file changes only what its
# line matches (the forward's 4.5 MiB of activations become data; the optimizer's step, the
# checkpoint and the autograd thread stay as the built-in rules decide them); '!defaults off'
# and --no-default-rules leave the built-in rules out, and --no-default-rules alone leaves no
# rule at all (only the vramtrace:optimizer range decides).
vt-mktrace t.vtr "$(dirname "$0")/recategorize.trace" || exit
printf 'data py:model.py:forward\n' >fix.rules
vramtrace report t.vtr --rules fix.rules | sed -n '/^categories/,/^  total/p'
printf '!defaults off\ndata py:model.py:forward\n' >alone.rules
vramtrace report t.vtr --rules alone.rules | sed -n '/^categories/,/^  total/p'
vramtrace report t.vtr --rules fix.rules --no-default-rules | sed -n '/^categories/p'
vramtrace report t.vtr --no-default-rules | sed -n '/^categories/,/^  total/p'
vramtrace report t.vtr --no-default-rules --json | grep -E '"(rules|builtin_rules)"'
vramtrace report t.vtr | sed -n '/^categories/p'
echo "exit $?"
