#!/bin/sh
# SPDX-License-Identifier: MIT
# run_reload.sh LIB SIMDIR PROGRAM FIRST OTHER: an allocation made through a library loaded at
# the addresses of one unloaded before it (same raw stack) is categorized by the names of the
# library there now, not by a verdict cached for the old one: 1 MiB weights (reload_first_alloc),
# 2 MiB optimizer (reload_other_alloc), by the rules file below.
lib=$1 sim=$2 prog=$3 first=$4 other=$5
. "$(dirname "$0")/../../lib/preamble.sh"
printf '%s\n' 'weights   func:reload_first_alloc' 'optimizer func:reload_other_alloc' >"$tmp/rules"
env -i PATH="$PATH" LD_LIBRARY_PATH="$sim" LD_PRELOAD="$lib" VRAMTRACE_OUTPUT="$tmp/t.vtr" \
    VRAMTRACE_RULES="$tmp/rules" VRAMTRACE_VERBOSE=1 "$prog" "$first" "$other" \
    >"$tmp/out" 2>"$tmp/err"
status=$?
[ $status -eq 77 ] && { cat "$tmp/out"; exit 77; }
[ $status -eq 0 ] || { cat "$tmp/out" "$tmp/err"; exit 1; }
check "the first library's allocation is weights" \
    grep -q '^vramtrace: category weights device=0 live=1048576 ' "$tmp/err"
check "the second library's allocation, at the same addresses, is optimizer" \
    grep -q '^vramtrace: category optimizer device=0 live=2097152 ' "$tmp/err"
[ $fail -eq 0 ] || cat "$tmp/err"
exit $fail
