#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the build into a fresh prefix and checks the layout of docs/design.md, "Contracts":
# bin/vramtrace, lib/libvramtrace.so, include/vramtrace.h, and that the installed CLI runs.
#   usage: check_install.sh BUILD_DIR
set -u
build=$1
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
if ! cmake --install "$build" --prefix "$prefix" >"$prefix.log" 2>&1; then
    cat "$prefix.log"; rm -f "$prefix.log"
    echo "FAIL cmake --install"; exit 1
fi
rm -f "$prefix.log"
bad=0
for f in bin/vramtrace lib/libvramtrace.so include/vramtrace.h lib/cmake/vramtrace/vramtrace-config.cmake; do
    if [ -f "$prefix/$f" ]; then echo "ok   $f"; else echo "FAIL $f missing"; bad=1; fi
done
[ -x "$prefix/bin/vramtrace" ] && "$prefix/bin/vramtrace" --version >/dev/null || { echo "FAIL installed vramtrace does not run"; bad=1; }
# Nothing but the contract's files: the simulator and tests are not installed.
extra=$(cd "$prefix" && find . -type f | grep -v -e '^./bin/vramtrace$' -e '^./lib/libvramtrace.so$' \
        -e '^./include/vramtrace.h$' -e '^./lib/cmake/vramtrace/')
[ -z "$extra" ] || { echo "FAIL unexpected files installed: $extra"; bad=1; }
[ $bad = 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit $bad
