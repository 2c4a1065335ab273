#!/bin/sh
# SPDX-License-Identifier: MIT
# run_labelled.sh VRAMTRACE LIB SIMDIR NAME [VAR=VALUE...] PROGRAM [ARGS...]
# Runs a labelled program (t_labelled, or an interpreter with train.py) on the simulated device
# with LIB preloaded and the built-in rules. The program prints "label SIZE CATEGORY NAME" for
# each allocation, every size its own; the trace's categories (`vramtrace export --format csv`)
# are compared with the labels. Prints NAME's share of bytes in the right category and every
# allocation in the wrong one; fails below 95%, or when a label has no allocation in the trace.
. "$(dirname "$0")/../../../lib/preamble.sh"
vramtrace=$1 lib=$2 simdir=$3 name=$4
shift 4
settings=""
while [ $# -gt 0 ]; do
    case $1 in
    *=*) settings="$settings $1" ;;
    *) break ;;
    esac
    shift
done
# shellcheck disable=SC2086 # VAR=VALUE words without spaces
env -i PATH="$PATH" LD_LIBRARY_PATH="$simdir" LD_PRELOAD="$lib" VRAMTRACE_QUIET=1 \
    VRAMTRACE_OUTPUT="$tmp/t.vtr" $settings "$@" >"$tmp/labels" 2>"$tmp/err"
status=$?
if [ "$status" -eq 77 ]; then
    cat "$tmp/err"
    exit 77
fi
check "$name exits 0 (was $status: $(head -c 300 "$tmp/err"))" [ "$status" -eq 0 ]
check "$name labels its allocations" grep -q '^label ' "$tmp/labels"
check "export csv" "$vramtrace" export "$tmp/t.vtr" --format csv -o "$tmp/t.csv"
# csv: time_s,type,device,series,category,address,size_bytes,stack_id
awk -v name="$name" '
    FNR == NR { if ($1 == "label") { want[$2] = $3; what[$2] = $4 } next }
    FNR > 1 {
        split($0, f, ",")
        if (f[2] == "alloc" && f[7] in want) got[f[7]] = f[5]
    }
    END {
        for (size in want) {
            total += size
            if (!(size in got)) { missing++; print "  " what[size] ": " size " B not in the trace"; continue }
            if (got[size] == want[size]) right += size
            else print "  " what[size] ": " size " B in " got[size] ", labelled " want[size]
        }
        pct = total ? 100 * right / total : 0
        printf "%s: %.1f%% of %d labelled bytes in the right category\n", name, pct, total
        exit (missing || pct < 95)
    }' "$tmp/labels" "$tmp/t.csv"
check "$name: at least 95% of bytes in the right category" [ $? -eq 0 ]
exit $fail
