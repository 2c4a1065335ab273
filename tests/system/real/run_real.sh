#!/bin/sh
# SPDX-License-Identifier: MIT
# run_real.sh LIB SIMDIR VRAMTRACE PEAK_KEY COUNTS PROGRAM [ARGS...]: runs PROGRAM on the
# simulated device untraced and with libvramtrace.so (LIB) preloaded, each with its own
# VTSIM_STATS file, and requires exit status 0 both times, the same output, the same figures from the
# device (tracing changes nothing the device sees), and vramtrace's report (VRAMTRACE report
# --json) equal to the device's own: its device-0 peak equal to the stats' PEAK_KEY of device 0
# (alloc_hwm_bytes: requested bytes; hwm_bytes: what the device charged, graph reservations
# included), and with COUNTS=counts the allocations, frees and live bytes too (device, pinned and
# managed together).
lib=$1 simdir=$2 vramtrace=$3 peak_key=$4 counts=$5
shift 5
. "$(dirname "$0")/../../lib/preamble.sh"
run() { # TAG [VAR=VALUE...] -- PROGRAM ARGS...
    tag=$1
    shift
    vars=""
    while [ "$1" != -- ]; do
        vars="$vars $1"
        shift
    done
    shift
    # shellcheck disable=SC2086 # VAR=VALUE words without spaces
    # A sanitizer build's options (ASAN_OPTIONS) pass through the clean environment.
    (cd "$tmp" && env -i PATH="$PATH" LD_LIBRARY_PATH="$simdir" VTSIM_DEVICE_COUNT=2 \
        VTSIM_DEVICE_MEMORY=1G VTSIM_STATS="$tmp/$tag.stats" \
        ${ASAN_OPTIONS:+ASAN_OPTIONS="$ASAN_OPTIONS"} $vars "$@" \
        >"$tmp/$tag.out" 2>"$tmp/$tag.err")
    echo $? >"$tmp/$tag.status"
}
run untraced -- "$@"
run traced LD_PRELOAD="$lib" VRAMTRACE_OUTPUT="$tmp/trace" -- "$@"
if [ "$(cat "$tmp/untraced.status")" != 0 ]; then
    echo "FAIL: the program exited with status $(cat "$tmp/untraced.status") untraced" >&2
    fail=1
fi
if [ "$(cat "$tmp/untraced.status")" != "$(cat "$tmp/traced.status")" ]; then
    echo "FAIL: exit status $(cat "$tmp/untraced.status") untraced, $(cat "$tmp/traced.status") traced" >&2
    fail=1
fi
if ! diff -u "$tmp/untraced.out" "$tmp/traced.out" >&2; then
    echo "FAIL: the traced run printed something else" >&2
    fail=1
fi
if ! diff -u "$tmp/untraced.stats" "$tmp/traced.stats" >&2; then
    echo "FAIL: the device saw something else when traced" >&2
    fail=1
fi
if [ $fail -ne 0 ]; then
    cat "$tmp/untraced.out" "$tmp/untraced.err" "$tmp/traced.err" >&2
    exit 1
fi
"$vramtrace" report --json "$tmp"/trace*.vtr >"$tmp/report.json" || {
    echo "FAIL: vramtrace report" >&2
    exit 1
}
python3 - "$tmp/report.json" "$tmp/traced.stats" "$peak_key" "$counts" <<'PY' || exit 1
import json, sys
report = json.load(open(sys.argv[1]))
stats = {}
for line in open(sys.argv[2]):
    words = line.split()
    n = 2 if words[0] in ("device", "pool", "graph") else 1
    rest = words[n:]
    stats[" ".join(words[:n])] = {rest[i]: int(rest[i + 1]) for i in range(0, len(rest) - 1, 2)}
dev = stats["device 0"]
want = {"device peak": dev[sys.argv[3]]}
got = {"device peak": report["devices"][0]["peak_bytes"]}
if sys.argv[4] == "counts":
    series = [dev, stats["pinned"], stats["managed"]]
    want["allocations"] = sum(s["allocs"] for s in series)
    want["frees"] = sum(s["frees"] for s in series)
    want["live at exit"] = sum(s["alloc_live_bytes"] for s in series)
    got["allocations"] = report["totals"]["allocs"]
    got["frees"] = report["totals"]["frees"]
    got["live at exit"] = report["totals"]["leaked_bytes"]
bad = [k for k in want if want[k] != got[k]]
for k in bad:
    print("FAIL: %s: vramtrace %d, the device %d" % (k, got[k], want[k]), file=sys.stderr)
if want["device peak"] == 0:
    print("FAIL: the program allocated no device memory", file=sys.stderr)
    bad.append("nothing")
sys.exit(1 if bad else 0)
PY
