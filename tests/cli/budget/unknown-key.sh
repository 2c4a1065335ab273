# An unknown key, from an argument and from a model file (with its line): usage, exit 2.
vramtrace budget method=naive bacth=32
echo "exit $?"
printf 'batch = 32\n# comment\nsequence = 512\n' >typo.model
vramtrace budget --model typo.model
echo "exit $?"
