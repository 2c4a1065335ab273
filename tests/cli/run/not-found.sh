# The library or the simulated device cannot be found: exit 1 before anything runs. A copy of
# vramtrace in bin/ has neither beside it; $PWD is written as CWD, and the library directory of
# the installation is left out where it is not lib (lib64, lib/<multiarch>).
vramtrace run --lib /nonexistent -- true
echo "exit $?"
vramtrace run --lib . -- true
echo "exit $?"
mkdir bin && cp "$(command -v vramtrace)" bin/
bin/vramtrace run -- true 2>err
echo "exit $?"
sed -e "s|$PWD|CWD|g" -e "s|'CWD/lib[^']\{1,\}/libvramtrace.so', ||" err >&2
lib=$(dirname "$(command -v vramtrace)")/../src/libvramtrace.so
bin/vramtrace run --simulate --lib "$lib" -- true 2>err
echo "exit $?"
sed "s|$PWD|CWD|g" err >&2
