# --temporary: device allocations freed within the window (default 10 ms), call-sites ranked by
# their count: the scratch buffers (8, freed after 1 ms) before the workspace (4, freed at once,
# on device 1); the activations (freed after 40 ms) and the weights (kept) are not temporary.
# --window 50ms takes the activations in; --top bounds the list; 0 ns takes only frees at the
# same moment (none here).
vt-mktrace t.vtr "$(dirname "$0")/churn.trace" || exit
vramtrace report t.vtr --temporary
echo "exit $?"
vramtrace report t.vtr --temporary --window 50ms --top 2
echo "exit $?"
vramtrace report t.vtr --temporary --window=0ns
echo "exit $?"
# A trace without call-sites that churn: none.
vt-mktrace train.vtr "$(dirname "$0")/train.trace" || exit
vramtrace report train.vtr --temporary --window 1us
echo "exit $?"
