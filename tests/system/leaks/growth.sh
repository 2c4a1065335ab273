#!/bin/sh
# SPDX-License-Identifier: MIT
# growth.sh VRAMTRACE LEAK_STEPS: leak_steps on the simulated device, with marks and without;
# `leaks --json` must rank the 4 MiB-per-step site first among the growing call-sites (grown
# 30 x 4 MiB, 4 MiB per step, in every step), ahead of the larger weights and Adam moments, which
# lead the live-at-exit section. Without marks the steps are the allocations' own repetition:
# the true count, 30, of three allocations each.
set -eu
vt=$1 prog=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for mode in marks none; do
    "$vt" run --simulate=2G --quiet -o "$tmp/$mode.vtr" -- "$prog" 30 $mode >/dev/null
    "$vt" leaks --json "$tmp/$mode.vtr" >"$tmp/$mode.json"
    "$vt" leaks "$tmp/$mode.vtr" >"$tmp/$mode.txt"
    python3 - "$tmp/$mode.json" "$mode" <<'PY'
import json, sys
got = json.load(open(sys.argv[1]))
mode = sys.argv[2]
bad = []
steps = got["steps"]
if mode == "marks" and (steps["source"], steps["keyword"], steps["count"]) != ("marks", "step", 30):
    bad.append(f"steps {steps}")
if mode == "none" and (steps["source"], steps["count"], steps["period_allocs"]) != ("period", 30, 3):
    bad.append(f"steps {steps}")
growing = got["growing"]
if not growing:
    bad.append("no growing call-site")
else:
    top = growing[0]
    mib = 1024 * 1024
    if top["grown_bytes"] != 4 * mib * 30 or top["live_bytes"] != 120 * mib:
        bad.append(f"first growing site {top['grown_bytes']} grown, {top['live_bytes']} live")
    if top["per_step_bytes"] != 4 * mib or top["steps_grown"] != 30:
        bad.append(f"per step {top['per_step_bytes']} in {top['steps_grown']} steps")
    # Named when the program's symbols are read (libdw); never one of the steady sites.
    if any("alloc_" in f for f in top["frames"]):
        bad.append(f"first growing site is not the leak: {top['frames'][:3]}")
    for other in growing[1:]:
        if other["live_bytes"] >= 128 * mib:
            bad.append(f"a steady site grows: {other}")
if got["leaked_bytes"] != (120 + 128 + 320) * 1024 * 1024:
    bad.append(f"leaked {got['leaked_bytes']}")
# Live at exit, the steady sites are larger: the leak is not first there.
live = got["live_at_end"]
if not live or live[0]["bytes"] < 128 * 1024 * 1024 or \
        any("keep_loss_history" in f for f in live[0]["frames"]):
    bad.append(f"live at exit starts with {live[:1]}")
for b in bad:
    print(f"growth ({mode}):", b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
    grep -q "^growing call-sites" "$tmp/$mode.txt"
done
echo "growth: ok"
