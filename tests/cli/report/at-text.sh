# report --at TIME: what was live on every device at TIME (from the start of the trace, as the
# report prints times) by category, and the top call-sites then, instead of at the peak. The
# units: seconds bare or with s, ms, us; a time before the first allocation shows zeros.
vt-mktrace t.vtr "$(dirname "$0")/train.trace" || exit
vramtrace report t.vtr --at 0.7
echo "exit $?"
# 0.81 s: the activations freed, device 1's first allocation live.
vramtrace report t.vtr --at=810ms | sed -n '/^live at/p;/^  total/p;/^top call-sites/,$p'
echo "exit $?"
vramtrace report t.vtr --at 250us | sed -n '/^live at/p;/^  total/p;/^top/p'
echo "exit $?"
# A time below a second keeps its microseconds (it once printed "0.000 s").
vramtrace report t.vtr --at 0.5ms | sed -n '/^live at/p'
echo "exit $?"
# After the end of the trace: the live set at the end, with a note on stderr.
vramtrace report t.vtr --at 1500ms | sed -n '/^live at/p;/^top call-sites/,$p'
echo "exit $?"
