# report --rules --json: the peak's categories and the top call-sites by the rules of the file,
# which "rules" names; without --rules the recorded categories.
vt-mktrace t.vtr "$(dirname "$0")/recategorize.trace" || exit
cp "$(dirname "$0")/recategorize.rules" r.rules || exit
vramtrace report --json --rules=r.rules t.vtr
echo "exit $?"
vramtrace report --json t.vtr | sed -n '/"by_category"/,/}/p' | head -n 9
