# Usage errors: exit 2 before anything runs, one line (plus the synopsis when the command is
# missing).
vramtrace run
echo "exit $?"
vramtrace run --
echo "exit $?"
vramtrace run -o t.vtr true
echo "exit $?"
vramtrace run --frobnicate -- true
echo "exit $?"
vramtrace run --simulate 1G -- true
echo "exit $?"
vramtrace run --rules -- true
echo "exit $?"
vramtrace run -o
echo "exit $?"
vramtrace run --depth=257 -- true
echo "exit $?"
vramtrace run --depth -1 -- true
echo "exit $?"
vramtrace run --depth 8x -- true
echo "exit $?"
vramtrace run -o trace -- true
echo "exit $?"
vramtrace run --simulate=16Q -- true
echo "exit $?"
