#!/bin/sh
# SPDX-License-Identifier: MIT
# run_recategorize.sh VRAMTRACE LIB SIMDIR PROGRAM HERE HAVE_LIBDW
# Traces PROGRAM (tests/capture/categories/t_categories.c built with -g) on the simulated device with
# LIB preloaded, then `vramtrace report --json --rules` with HERE's rules files must give exact
# bytes per category at the peak. func: and file: rules need libdw: exit 77 (skipped) without.
set -u
vramtrace=$1 lib=$2 simdir=$3 program=$4 here=$5 have_libdw=$6
if [ "$have_libdw" != ON ]; then
    echo "skipped: built without libdw, func: and file: rules match nothing offline"
    exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
env -i PATH="$PATH" LD_LIBRARY_PATH="$simdir" LD_PRELOAD="$lib" VRAMTRACE_QUIET=1 \
    VRAMTRACE_OUTPUT="$tmp/t.vtr" "$program" || { echo "FAIL: $program exited $?"; exit 1; }
n_run=0 n_failed=0
# peak RULES EXPECTED: the peak's by_category of `report --json --rules RULES` (none: without
# --rules) must be EXPECTED, "category=bytes ..." in vt_category_names order.
peak() {
    n_run=$((n_run + 1))
    if [ "$1" = none ]; then
        "$vramtrace" report "$tmp/t.vtr" --json >"$tmp/json" 2>"$tmp/err"
    else
        "$vramtrace" report "$tmp/t.vtr" --json --rules "$here/$1" >"$tmp/json" 2>"$tmp/err"
    fi
    status=$?
    got=$(sed -n '/^  "peak": {/,/^  }/p' "$tmp/json" |
        sed -n '/"by_category"/,/}/s/^ *"\([a-z]*\)": \([0-9]*\),*$/\1=\2/p' | tr '\n' ' ')
    if [ "$status" -ne 0 ] || [ "$got" != "$2 " ]; then
        n_failed=$((n_failed + 1))
        echo "FAIL $1: exit $status, peak by category '$got', expected '$2'"
        cat "$tmp/err"
    fi
    if [ "$1" != none ] && ! grep -qF "\"rules\": \"$here/$1\"," "$tmp/json"; then
        n_failed=$((n_failed + 1))
        echo "FAIL $1: the JSON does not name the rules file"
    fi
}
# The capture library's default rules, as recorded (tests/capture/categories/expected/defaults.txt).
peak none "weights=8454144 gradients=4194304 optimizer=2097152 activations=1048576 data=524288 workspace=262144 unknown=131072"
# init_weights 8 MiB, adam_state 2 MiB, alloc_gradients 4 MiB, plain_helper 128 KiB, deep4
# 64 KiB; forward_layer 1 MiB + load_batch 512 KiB + cublas_like_workspace 256 KiB by the file.
peak functions.rules "weights=2097152 gradients=4194304 optimizer=1835008 activations=8388608 data=65536 workspace=131072 unknown=0"
peak paths.rules "weights=0 gradients=0 optimizer=0 activations=0 data=16711680 workspace=0 unknown=0"
echo "$((n_run - n_failed)) passed, $n_failed failed"
[ "$n_failed" -eq 0 ]
