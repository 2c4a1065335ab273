#!/bin/sh
# SPDX-License-Identifier: MIT
# size.sh VRAMTRACE GEN_TRACE PYTHON3 CHECK_PERFETTO: 20 M allocation and free events
# exported to Perfetto with the default budget: at most 100 MB (a full export is 4 GB, more
# than ui.perfetto.dev opens), strict JSON, the device peak gen_trace made still the highest
# total, allocation slices with their frames. Prints the size and the seconds it took.
vt=$1 gen=$2 python=$3 checker=$4
. "$(dirname "$0")/../../lib/preamble.sh"
"$gen" -n 20000000 t.vtr >gen.out || { echo "gen_trace failed" >&2; exit 1; }
cat gen.out
peak=$(sed -n 's/.* peak_bytes=\([0-9]*\).*/\1/p' gen.out)
start=$(date +%s)
check "export" "$vt" export t.vtr --format perfetto -o t.json
echo "export: $(($(date +%s) - start)) s, $(wc -c <t.json) bytes"
rm -f t.vtr
check "the output within 100 MB, valid, the peak kept" "$python" "$checker" t.json 100000000 "$peak"
check "allocation slices written" grep -q '"ph":"b"' t.json
exit $fail
