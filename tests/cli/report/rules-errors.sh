# report --rules errors, one line each, nothing on stdout: an unreadable rules file (1); a
# missing file name, two rules files, a bad line (2), named as `rules --check` names it. The
# rules are read before the trace.
vramtrace report missing.vtr --rules missing.rules
echo "exit $?"
vramtrace report missing.vtr --rules
echo "exit $?"
printf 'weights py:*\n' >a.rules
vramtrace report missing.vtr --rules a.rules --rules=a.rules
echo "exit $?"
printf '# ok\nweights py:*\nweight func:*w*\n' >bad.rules
vramtrace report missing.vtr --rules bad.rules
echo "exit $?"
printf 'weights  func:*w* extra\n' >bad2.rules
vramtrace report missing.vtr --rules bad2.rules
echo "exit $?"
