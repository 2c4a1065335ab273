#!/bin/sh
# SPDX-License-Identifier: MIT
# fork_names.sh LIB SIMDIR PYTHON CLI: fork_names.py traced; the child's trace (the second file)
# must name its 5 MiB allocation parent_first and its 2 MiB one child_first (the parent has no
# such sizes): the parent's cached frame names hold string ids the child's fresh string table
# does not have (src/python.c).
# Exit 77 (skip) when PYTHON is "-" or not CPython 3.8-3.13.
lib=$1 simdir=$2 python=$3 cli=$4
here=$(cd "$(dirname "$0")" && pwd)
real=$("$python" -c 'import sys, ctypes
if (3, 8) <= sys.version_info[:2] <= (3, 13) and sys.implementation.name == "cpython":
    print(sys.executable)' 2>/dev/null)
[ -n "$real" ] || { echo "SKIP: '$python' is not CPython 3.8-3.13 with ctypes"; exit 77; }
. "$(dirname "$0")/../../lib/preamble.sh"
env -i PATH="$PATH" LD_LIBRARY_PATH="$simdir" LD_PRELOAD="$lib" VRAMTRACE_QUIET=1 \
    VRAMTRACE_OUTPUT="$tmp/trace" "$real" "$here/fork_names.py" || { echo "fork_names.py failed"; exit 1; }
for f in "$tmp"/trace.*.vtr; do
    "$cli" report "$f" >"$f.txt" 2>&1 || { echo "report $f failed"; fail=1; }
    # Each call-site's size line, then its innermost shown frame.
    awk '/MiB  unknown/ { size = $1 } /fork_names.py:/ && size { print size, $1; size = "" }' \
        "$f.txt" >>"$tmp/sites"
done
for want in "5.00 parent_first" "2.00 child_first"; do
    size=${want% *} name=${want#* }
    if ! grep -q "^$size .*fork_names.py:$name:" "$tmp/sites"; then
        echo "fork_names.sh: no $size MiB call-site in $name"
        fail=1
    fi
done
[ "$fail" = 0 ] || { cat "$tmp/sites"; exit 1; }
echo "fork_names.sh: ok"
