#!/bin/sh
# SPDX-License-Identifier: MIT
# stress.sh VRAMTRACE LIB SIMDIR PROGRAM [THREADS OPS FORKS]: t_stress untraced and traced on the
# simulated device. Traced, it must print exactly what it printed untraced, exit 0, and its trace
# must hold exactly the allocations and frees it made, nothing live at the end, nothing dropped,
# a clean exit, and no trace of the forked children (they never touch CUDA).
. "$(dirname "$0")/../../lib/preamble.sh"
vt=$1 lib=$2 sim=$3 prog=$4
shift 4
check_name=stress
env -i PATH="$PATH" LD_LIBRARY_PATH="$sim" VTSIM_DEVICE_MEMORY=16G "$prog" "$@" >plain 2>plain.err
check "untraced run exits 0 ($(cat plain.err))" [ $? -eq 0 ]
env -i PATH="$PATH" LD_LIBRARY_PATH="$sim" VTSIM_DEVICE_MEMORY=16G LD_PRELOAD="$lib" \
    VRAMTRACE_OUTPUT="$tmp/t.vtr" VRAMTRACE_DEPTH=16 "$prog" "$@" >traced 2>traced.err
check "traced run exits 0 ($(cat traced.err))" [ $? -eq 0 ]
check "the same output traced and untraced" cmp -s plain traced
cat traced
n=$(sed -n 's/^allocs \([0-9]*\) .*/\1/p' traced)
check "the program counted its allocations" [ -n "$n" ]
"$vt" report --json t.vtr >report.json 2>report.err
check "the trace reads cleanly ($(cat report.err))" [ $? -eq 0 ] && [ ! -s report.err ]
python3 - "$n" <<'PY' || fail=1
import json, sys
n = int(sys.argv[1])
r = json.load(open("report.json"))
t = r["totals"]
want = {"allocs": n, "frees": n, "failed_allocs": 0, "leaked_bytes": 0, "unmatched_frees": 0}
bad = {k: (t[k], v) for k, v in want.items() if t[k] != v}
if bad or not r["exit_clean"] or not r["complete"] or r["capped_at_bytes"]:
    print("FAIL stress: trace totals (got, want): %s, exit_clean %s, complete %s" %
          (bad, r["exit_clean"], r["complete"]), file=sys.stderr)
    sys.exit(1)
print("stress: the trace holds exactly %d allocations and %d frees, nothing live" % (n, n))
PY
check "no trace from the forked children: $(ls)" [ "$(ls ./*.vtr)" = "./t.vtr" ]
exit $fail
