#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_memviz.py SNAPSHOT REPORT_JSON [--all-frames]: checks a pickle `vramtrace export --format memory-viz`
wrote against `vramtrace report --json --top 0` of the same trace. The pickle is loaded by an
unpickler that refuses every class (only dicts, lists, str, int, float, bool and None can come
out), every field PyTorch's memory viewer reads is checked for its type, the blocks tile their
segments, the allocations and frees pair by address as the viewer pairs them, each device's
peak of allocations and what stays live at the end equal the report's, and the report's top call-sites are
found with the same frames. Exits 1 with the reasons on stderr."""
import io
import json
import pickle
import re
import sys

CATEGORIES = {"weights", "gradients", "optimizer", "activations", "data", "workspace", "unknown"}
# common/vt_frames.h: the modules whose frames the views leave out unless --all-frames.
INTERNAL_PREFIXES = ("libpython", "_ctypes.", "libffi.so", "libc.so", "ld-linux", "libpthread.so",
                     "libdl.so", "libvramtrace.so")
ENTRY_ACTIONS = {"alloc", "free_requested", "free_completed", "segment_alloc", "segment_free",
                 "snapshot", "oom"}
failures = []


def check(ok, what):
    if not ok and len(failures) < 50:
        failures.append(what)


class Strict(pickle.Unpickler):
    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"class {module}.{name} in the snapshot")


def check_frames(frames, where):
    check(isinstance(frames, list), f"{where}: frames not a list")
    for f in frames if isinstance(frames, list) else []:
        check(isinstance(f, dict) and set(f) == {"filename", "line", "name"},
              f"{where}: frame {f!r} is not {{filename, line, name}}")
        if isinstance(f, dict):
            check(isinstance(f.get("filename"), str) and isinstance(f.get("name"), str) and
                  type(f.get("line")) is int and f["line"] >= 0, f"{where}: frame types {f!r}")


def main():
    raw = open(sys.argv[1], "rb").read()
    report = json.load(open(sys.argv[2]))
    check(raw[:2] in (b"\x80\x02", b"\x80\x03", b"\x80\x04"), "not pickle protocol 2-4")
    snap = Strict(io.BytesIO(raw)).load()
    check(isinstance(snap, dict) and set(snap) == {"segments", "device_traces"},
          f"top-level keys {sorted(snap) if isinstance(snap, dict) else type(snap)}")

    leaked = {}
    for i, seg in enumerate(snap["segments"]):
        where = f"segments[{i}]"
        for key in ("device", "address", "total_size", "allocated_size", "active_size",
                    "requested_size", "stream"):
            check(type(seg.get(key)) is int and seg[key] >= 0, f"{where}.{key}: {seg.get(key)!r}")
        check(seg["address"] < 2**53, f"{where}: address past 2^53")
        check(seg.get("segment_type") in ("small", "large"), f"{where}.segment_type")
        check(seg.get("is_expandable") is False, f"{where}.is_expandable")
        check(seg.get("category") in CATEGORIES, f"{where}.category")
        check_frames(seg.get("frames"), where)
        blocks = seg.get("blocks")
        check(isinstance(blocks, list) and blocks, f"{where}: no blocks")
        check(sum(b["size"] for b in blocks) == seg["total_size"], f"{where}: blocks do not tile")
        for b in blocks:
            check(b.get("state") in ("active_allocated", "active_pending_free", "inactive"),
                  f"{where}: block state {b.get('state')!r}")
            check(type(b.get("requested_size")) is int, f"{where}: block requested_size")
            check_frames(b.get("frames"), where + ".blocks")
        leaked[seg["device"]] = leaked.get(seg["device"], 0) + seg["total_size"]

    traces = snap["device_traces"]
    devices = {d["device"]: d for d in report["devices"]}
    check(isinstance(traces, list) and len(traces) == (max(devices) + 1 if devices else 0),
          f"device_traces has {len(traces)} lists for devices {sorted(devices)}")
    categories = set()
    frames_seen = set()
    for dev, trace in enumerate(traces):
        live, total, peak, last_t = {}, 0, 0, 0
        check(bool(trace) == (dev in devices), f"device {dev}: trace present iff used")
        for k, e in enumerate(trace):
            where = f"device_traces[{dev}][{k}]"
            action = e.get("action")
            check(action in ENTRY_ACTIONS, f"{where}: action {action!r}")
            check(type(e.get("time_us")) is int and e["time_us"] >= last_t, f"{where}: time_us")
            last_t = e.get("time_us", last_t)
            check(type(e.get("stream")) is int, f"{where}: stream")
            check_frames(e.get("frames"), where)
            if action == "oom":
                check(type(e.get("device_free")) is int and type(e.get("size")) is int,
                      f"{where}: oom fields")
                continue
            check(set(e) == {"action", "addr", "size", "stream", "time_us", "frames",
                             "category"}, f"{where}: keys {sorted(e)}")
            check(e.get("category") in CATEGORIES, f"{where}: category {e.get('category')!r}")
            categories.add(e.get("category"))
            check(type(e.get("addr")) is int and e["addr"] < 2**53, f"{where}: addr")
            if action == "alloc":
                check(e["addr"] not in live, f"{where}: address allocated twice")
                live[e["addr"]] = e["size"]
                total += e["size"]
                peak = max(peak, total)
                frames_seen.add(tuple((f["filename"], f["line"], f["name"])
                                      for f in e["frames"]))
            elif action == "free_completed":
                check(live.get(e["addr"]) == e["size"], f"{where}: free of no allocation")
                total -= live.pop(e["addr"], 0)
        check(not trace or trace[-1]["action"] == "snapshot", f"device {dev}: no final snapshot")
        if dev in devices:
            d = devices[dev]
            # The snapshot replays allocations: their own peak, not the pools' reservations.
            want = d["tensors_live_peak_bytes"]
            check(peak == want, f"device {dev}: peak {peak} != {want}")
            check(total == d["leaked_bytes"], f"device {dev}: end {total} != {d['leaked_bytes']}")
            check(leaked.get(dev, 0) == d["leaked_bytes"],
                  f"device {dev}: segments {leaked.get(dev, 0)} != {d['leaked_bytes']}")
            check(sum(v for v in live.values()) == leaked.get(dev, 0), "live != segments")
    check("unknown" in categories, "no entry of category unknown (the viewer needs one)")

    # The report's call-sites at the peak, frame for frame (report --json lists every frame; the
    # snapshot leaves out those the views fold unless exported with --all-frames).
    all_frames = "--all-frames" in sys.argv[3:]
    for site in report.get("top_sites", []):
        want = tuple((f["file"] or f["module"], f["line"], f["function"])
                     for f in site["stack"] if all_frames or f["python"] or
                     not f["module"].startswith(INTERNAL_PREFIXES) and
                     not re.fullmatch(r"python[0-9.]*", f["module"]))
        check(want in frames_seen, f"top site {site['frames'][:2]} not in any alloc's frames")

    for f in failures:
        print(f"check_memviz: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
