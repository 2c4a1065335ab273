#!/bin/sh
# SPDX-License-Identifier: MIT
# gen_trace_check.sh GEN_TRACE VRAMTRACE: ctest's check that bench/gen_trace still writes a
# trace `vramtrace report` reads completely, with the allocations, frees and peak the generator
# says it wrote (1000 events, 100 live: 550 allocations, 450 frees), in both its forms: the
# capture core's compact records (the default) and the full records (-F).
set -eu
gen=$1 vt=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for form in compact full; do
flag=
[ "$form" = compact ] || flag=-F
"$gen" -n 1000 -l 100 $flag "$tmp/t.vtr" >"$tmp/gen"
cat "$tmp/gen"
field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" "$tmp/gen"; }
allocs=$(field allocs) frees=$(field frees) peak=$(field peak_bytes)
[ "$allocs" = 550 ] && [ "$frees" = 450 ] || { echo "unexpected counts from gen_trace" >&2; exit 1; }
"$vt" report --json "$tmp/t.vtr" >"$tmp/json"
# The first "bytes" after "peak" is the peak; "allocs" and "frees" of "totals".
got_peak=$(awk -F': ' '/"peak"/ { p = 1 } p && /"bytes"/ { gsub(/,/, "", $2); print $2; exit }' "$tmp/json")
got_allocs=$(awk -F': ' '/"totals"/ { t = 1 } t && /"allocs"/ { gsub(/,/, "", $2); print $2; exit }' "$tmp/json")
got_frees=$(awk -F': ' '/"totals"/ { t = 1 } t && /"frees"/ { gsub(/,/, "", $2); print $2; exit }' "$tmp/json")
for kv in "peak $peak $got_peak" "allocs $allocs $got_allocs" "frees $frees $got_frees"; do
    set -- $kv
    if [ "$2" != "$3" ]; then
        echo "gen_trace_check: $form: $1: the generator wrote $2, report found '$3'" >&2
        status=1
    fi
done
grep -q '"complete": true' "$tmp/json" || { echo "gen_trace_check: $form: report did not read it all" >&2; status=1; }
grep -q '"exit_clean": true' "$tmp/json" || { echo "gen_trace_check: $form: no END record read" >&2; status=1; }
# The plain report must accept it too.
"$vt" report "$tmp/t.vtr" >/dev/null || status=1
stat -c %s "$tmp/t.vtr" >"$tmp/$form.bytes"
[ "$status" = 0 ] && echo "gen_trace_check: $form: ok (peak $peak bytes, $allocs allocs, $frees frees)"
done
# The form asked for: compact records are under half the size of full ones (5 and 11 bytes an
# event), which a header of a few hundred bytes cannot hide.
compact=$(cat "$tmp/compact.bytes") full=$(cat "$tmp/full.bytes")
if [ $((compact * 3 / 2)) -ge "$full" ]; then
    echo "gen_trace_check: the compact trace ($compact bytes) is not smaller than the full one ($full)" >&2
    status=1
fi
exit $status
