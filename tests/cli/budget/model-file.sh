# A model file that is missing or unreadable is an error (exit 1); a bad line is usage (2).
vramtrace budget --model no-such.model
echo "exit $?"
mkdir dir.model
vramtrace budget --model dir.model
echo "exit $?"
printf 'batch 32\n' >bad.model
vramtrace budget --model bad.model
echo "exit $?"
