#!/bin/sh
# SPDX-License-Identifier: MIT
# run_report.sh VRAMTRACE LIB SIMDIR PROGRAM SOURCE HAVE_LIBDW
# End to end: traces PROGRAM (built with -g from SOURCE) on the simulated device with LIB
# preloaded, then `vramtrace report` and `report --json` must name every function whose line in
# SOURCE carries "SITE:<function>", with SOURCE's basename and that line, in the top call-sites
# at the peak. With HAVE_LIBDW=OFF the frames must instead be addresses naming the module.
# `report DIR` of two such runs shows the frames a single trace's report shows (libc's left out)
# unless --all-frames; its JSON lists every frame.
set -u
vramtrace=$1 lib=$2 simdir=$3 program=$4 source=$5 have_libdw=$6
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
env -i PATH="$PATH" LD_LIBRARY_PATH="$simdir" LD_PRELOAD="$lib" VRAMTRACE_QUIET=1 \
    VRAMTRACE_OUTPUT="$tmp/t.vtr" "$program" || { echo "FAIL: $program exited $?"; exit 1; }
"$vramtrace" report "$tmp/t.vtr" >"$tmp/text" || { echo "FAIL: report exited $?"; exit 1; }
"$vramtrace" report "$tmp/t.vtr" --json >"$tmp/json" || { echo "FAIL: report --json exited $?"; exit 1; }
module=$(basename "$program") file=$(basename "$source")
n_run=0 n_failed=0
check() { # check WHAT PATTERN FILE: grep -F
    n_run=$((n_run + 1))
    if ! grep -qF -- "$2" "$3"; then
        n_failed=$((n_failed + 1))
        echo "FAIL $1: no '$2' in $(basename "$3")"
    fi
}
sites=$(sed -n 's/.*SITE:\([A-Za-z_0-9]*\).*/\1/p' "$source")
[ -n "$sites" ] || { echo "FAIL: no SITE: markers in $source"; exit 1; }
for fn in $sites; do
    line=$(grep -n "SITE:$fn\\b" "$source" | cut -d: -f1)
    if [ "$have_libdw" = ON ]; then
        check "$fn (json)" "\"$fn ($file:$line, $module)\"" "$tmp/json"
        check "$fn (text)" "      $fn ($file:$line, $module)" "$tmp/text"
    fi
done
if [ "$have_libdw" = ON ]; then
    check "main (json)" "\"main ($file:" "$tmp/json"
else
    n_run=$((n_run + 1))
    grep -qE "^        \"0x[0-9a-f]+ \\($module\\)\"" "$tmp/json" || {
        n_failed=$((n_failed + 1))
        echo "FAIL: no hex frame naming $module without libdw"
    }
fi
# Two runs as two ranks of a directory.
mkdir "$tmp/ranks" && cp "$tmp/t.vtr" "$tmp/ranks/r0.vtr"
env -i PATH="$PATH" LD_LIBRARY_PATH="$simdir" LD_PRELOAD="$lib" VRAMTRACE_QUIET=1 \
    VRAMTRACE_OUTPUT="$tmp/ranks/r1.vtr" "$program" || { echo "FAIL: $program exited $?"; exit 1; }
"$vramtrace" report "$tmp/ranks" >"$tmp/ranks.text" || echo "FAIL: report DIR exited $?"
"$vramtrace" report --all-frames "$tmp/ranks" >"$tmp/ranks.all" || echo "FAIL: report --all-frames DIR exited $?"
"$vramtrace" report --json "$tmp/ranks" >"$tmp/ranks.json" || echo "FAIL: report --json DIR exited $?"
absent() { # absent WHAT PATTERN FILE
    n_run=$((n_run + 1))
    if grep -qF -- "$2" "$3"; then
        n_failed=$((n_failed + 1))
        echo "FAIL $1: '$2' in $(basename "$3")"
    fi
}
absent "libc's frames left out of a trace's report" "libc.so.6)" "$tmp/text"
absent "libc's frames left out of report DIR" "libc.so.6)" "$tmp/ranks.text"
check "libc's frames in report --all-frames DIR" "libc.so.6)" "$tmp/ranks.all"
check "libc's frames in report --json DIR" "libc.so.6)" "$tmp/ranks.json"
check "the call-sites matched across the two ranks" "on 2 of 2 ranks" "$tmp/ranks.text"
for fn in $sites; do
    line=$(grep -n "SITE:$fn\b" "$source" | cut -d: -f1)
    [ "$have_libdw" = ON ] && check "$fn (report DIR)" "      $fn ($file:$line, $module)" "$tmp/ranks.text"
done
if [ $n_failed != 0 ]; then
    echo "--- report:"
    cat "$tmp/text"
    echo "--- report DIR:"
    cat "$tmp/ranks.text"
fi
echo "$((n_run - n_failed)) passed, $n_failed failed"
[ $n_failed = 0 ]
