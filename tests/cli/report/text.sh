# The text report of a small training process: the device peak by category, each device,
# pinned and managed peaks, totals, the OOM and the top call-sites at the peak.
vt-mktrace t.vtr "$(dirname "$0")/train.trace" || exit
vramtrace report t.vtr
