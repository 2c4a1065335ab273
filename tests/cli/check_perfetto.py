# SPDX-License-Identifier: MIT
"""check_perfetto.py FILE MAX_BYTES PEAK_BYTES: FILE must be what `vramtrace export --format
perfetto` promises: at most MAX_BYTES (0: no bound), one strict JSON text of trace events,
each device's total counter reaching PEAK_BYTES at its highest (the peak kept through the
downsampling; -1: not checked) and equal at every moment to the sum of its categories, every
allocation slice begun once with its size, category and frames and ended at most once, after
it began, and every phase end matching a begin on its thread. Prints a summary of what it holds;
exits 1 with one line per broken promise."""
import collections
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ left in the source tree by the import below
from strict_json import check  # noqa: E402 (beside this file: every test's strict JSON reading)


def main():
    path, max_bytes, peak = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    problems = []
    size = os.path.getsize(path)
    if max_bytes and size > max_bytes:
        problems.append("%d bytes, over %d" % (size, max_bytes))
    with open(path, "rb") as f:
        doc = check(f.read())
    events = doc["traceEvents"]
    totals = {}        # (device name, ts) -> total
    cats = {}          # (device name, ts) -> sum of categories
    highest = collections.defaultdict(int)
    began, ended = {}, set()
    open_phases = collections.defaultdict(int)
    count = collections.Counter()
    for ev in events:
        ph, name, ts = ev["ph"], ev["name"], ev["ts"]
        if not isinstance(name, str) or not isinstance(ts, (int, float)) or ts < 0:
            problems.append("a malformed event: %r" % ev)
            continue
        count[ph] += 1
        if ph == "C":
            args = ev["args"]
            if name.endswith(" total"):
                dev = name[: -len(" total")]
                totals[(dev, ts)] = args["bytes"]
                highest[dev] = max(highest[dev], args["bytes"])
            else:
                cats[(name, ts)] = sum(args.values())
        elif ph == "b":
            a = ev["args"]
            if ev["id"] in began:
                problems.append("slice %s begun twice" % ev["id"])
            if not (isinstance(a["size_bytes"], int) and isinstance(a["category"], str)
                    and a["frames"] and all(isinstance(x, str) for x in a["frames"])):
                problems.append("slice %s without its size, category or frames" % ev["id"])
            began[ev["id"]] = ts
        elif ph == "e":
            if ev["id"] not in began or ev["id"] in ended or ts < began[ev["id"]]:
                problems.append("slice %s ended without its begin" % ev["id"])
            ended.add(ev["id"])
        elif ph == "B":
            open_phases[ev["tid"]] += 1
        elif ph == "E":
            if open_phases[ev["tid"]] == 0:
                problems.append("a phase ended on thread %s without a begin" % ev["tid"])
            else:
                open_phases[ev["tid"]] -= 1
        elif ph not in ("M", "i"):
            problems.append("an unknown phase %r" % ph)
    if set(totals) != set(cats):
        problems.append("a total without its categories, or categories without their total")
    for k, v in totals.items():
        if cats.get(k, v) != v:
            problems.append("%s at %s: total %d, categories add up to %d" % (k[0], k[1], v, cats[k]))
            break
    if peak >= 0 and max(highest.values(), default=0) != peak:
        problems.append("highest total %d, the peak is %d" % (max(highest.values(), default=0), peak))
    for p in problems:
        print("check_perfetto: " + p, file=sys.stderr)
    print("%s: valid JSON; %s; counter samples %d over %d device(s); slices %d (%d still live "
          "at the end); phases %d; highest total %d"
          % (os.path.basename(path), "within the bound" if not problems else "BROKEN",
             len(totals), len(highest), len(began), len(began) - len(ended),
             count["B"], max(highest.values(), default=0)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
