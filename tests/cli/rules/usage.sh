# No mode, an unknown option, help.
vramtrace rules
echo "exit $?"
vramtrace rules --frobnicate
echo "exit $?"
vramtrace rules --help
echo "exit $?"
