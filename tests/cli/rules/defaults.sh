# The built-in rules are printed, and they are what --check accepts.
vramtrace rules --defaults > defaults.rules
echo "exit $?"
head -3 defaults.rules
vramtrace rules --check defaults.rules
echo "exit $?"
