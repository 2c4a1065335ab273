#!/bin/sh
# SPDX-License-Identifier: MIT
# run_modules.sh VRAMTRACE LIB SIMDIR PROGRAM PLUGIN: an allocation made in a library loaded
# after start-up is categorized by its function name (in-process, through the refreshed module
# map) and its frame is named in the report (offline, through the trace's MODULE records).
vt=$1 lib=$2 sim=$3 prog=$4 plugin=$5
. "$(dirname "$0")/../../lib/preamble.sh"
env -i PATH="$PATH" LD_LIBRARY_PATH="$sim" LD_PRELOAD="$lib" VRAMTRACE_OUTPUT="$tmp/t.vtr" \
    VRAMTRACE_VERBOSE=1 "$prog" "$plugin" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
grep -q '^vramtrace: category weights device=0 live=3145728 ' "$tmp/err" ||
    { echo "FAIL: the plugin's allocation is not weights"; fail=1; }
"$vt" report --json "$tmp/t.vtr" >"$tmp/report.json" 2>"$tmp/report.err" ||
    { echo "FAIL: report"; cat "$tmp/report.err"; fail=1; }
grep -q 'plugin_init_weights' "$tmp/report.json" ||
    { echo "FAIL: the plugin's frame is not named in the report"; fail=1; }
grep -q 'libvt_plugin.so' "$tmp/report.json" ||
    { echo "FAIL: the plugin's module is not named in the report"; fail=1; }
if [ $fail -ne 0 ]; then
    cat "$tmp/err" "$tmp/report.json"
    exit 1
fi
echo "1 passed, 0 failed"
