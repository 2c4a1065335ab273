# A command that does not exist: the shell's message and status, no trace line.
vramtrace run -o t.vtr -- no-such-command-here
echo "exit $?"
