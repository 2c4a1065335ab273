#!/bin/sh
# SPDX-License-Identifier: MIT
# run_numba.sh LIB SIMDIR VRAMTRACE PYTHON SCRIPT: runs SCRIPT (numba, unchanged) with PYTHON on
# the simulated device twice, untraced and with libvramtrace.so (LIB) preloaded, each with its
# own VTSIM_STATS file, and requires: exit status 0 and the script's "<name>: ok" both times, the
# same output, the same figures from the device (tracing changes nothing the device sees), and
# vramtrace's report (VRAMTRACE report --json) equal to the device's own figures: the device
# peak, the pinned and managed peaks, the allocations, the frees and the bytes left live.
# Exit 77 (skip) when PYTHON cannot import numba (Debian: python3-numba).
lib=$1 simdir=$2 vramtrace=$3 python=$4 script=$5
name=$(basename "$script" .py)
if ! "$python" -c 'import numba.cuda' >/dev/null 2>&1; then
    echo "SKIP: $python cannot import numba (Debian: apt-get install python3-numba)"
    exit 77
fi
. "$(dirname "$0")/../../lib/preamble.sh"
run() { # TAG [VAR=VALUE...]: the script in a clean environment, outputs under $tmp/TAG.*
    tag=$1
    shift
    # shellcheck disable=SC2068 # VAR=VALUE words without spaces
    (cd "$tmp" && env -i PATH="$PATH" LD_LIBRARY_PATH="$simdir" VTSIM_DEVICE_MEMORY=1G \
        VTSIM_STATS="$tmp/$tag.stats" NUMBA_DISABLE_JIT=0 ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} $@ \
        "$python" "$script" >"$tmp/$tag.out" 2>"$tmp/$tag.err")
    echo $? >"$tmp/$tag.status"
}
run untraced
run traced LD_PRELOAD="$lib" VRAMTRACE_OUTPUT="$tmp/trace"
for tag in untraced traced; do
    if [ "$(cat "$tmp/$tag.status")" != 0 ] || ! grep -qx "$name: ok" "$tmp/$tag.out"; then
        echo "FAIL: the $tag run: status $(cat "$tmp/$tag.status")" >&2
        cat "$tmp/$tag.out" "$tmp/$tag.err" >&2
        fail=1
    fi
done
[ $fail -eq 0 ] || exit 1
if ! diff -u "$tmp/untraced.out" "$tmp/traced.out" >&2; then
    echo "FAIL: the traced run printed something else" >&2
    exit 1
fi
if ! diff -u "$tmp/untraced.stats" "$tmp/traced.stats" >&2; then
    echo "FAIL: the device saw something else when traced" >&2
    exit 1
fi
"$vramtrace" report --json "$tmp"/trace*.vtr >"$tmp/report.json" || {
    echo "FAIL: vramtrace report" >&2
    exit 1
}
"$python" - "$tmp/report.json" "$tmp/traced.stats" <<'PY' || fail=1
import json, sys
report = json.load(open(sys.argv[1]))
stats = {}
for line in open(sys.argv[2]):
    words = line.split()
    key = " ".join(words[:2]) if words[0] in ("device", "pool", "graph") else words[0]
    rest = words[2:] if words[0] in ("device", "pool", "graph") else words[1:]
    stats[key] = {rest[i]: int(rest[i + 1]) for i in range(0, len(rest) - 1, 2)}
dev, pinned, managed = stats["device 0"], stats["pinned"], stats["managed"]
want = {
    "device peak": dev["alloc_hwm_bytes"],
    "pinned peak": pinned["alloc_hwm_bytes"],
    "managed peak": managed["alloc_hwm_bytes"],
    "allocations": dev["allocs"] + pinned["allocs"] + managed["allocs"],
    "frees": dev["frees"] + pinned["frees"] + managed["frees"],
    "live at exit": dev["alloc_live_bytes"] + pinned["alloc_live_bytes"]
                    + managed["alloc_live_bytes"],
}
got = {
    "device peak": report["devices"][0]["peak_bytes"],
    "pinned peak": report["host_pinned"]["peak_bytes"],
    "managed peak": report["managed"]["peak_bytes"],
    "allocations": report["totals"]["allocs"],
    "frees": report["totals"]["frees"],
    "live at exit": report["totals"]["leaked_bytes"],
}
bad = [k for k in want if want[k] != got[k]]
for k in bad:
    print("FAIL: %s: vramtrace %d, the device %d" % (k, got[k], want[k]), file=sys.stderr)
sys.exit(1 if bad or want["frees"] == 0 else 0)
PY
exit $fail
