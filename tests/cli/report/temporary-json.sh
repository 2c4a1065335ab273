# --temporary --json: the totals and the sites, each with its frames as text and as objects;
# --window 0.05 is seconds.
vt-mktrace t.vtr "$(dirname "$0")/churn.trace" || exit
vramtrace report t.vtr --temporary --json --window 0.05 --top 2
echo "exit $?"
vramtrace report t.vtr --temporary --json | python3 "$(dirname "$0")/../strict_json.py" -
