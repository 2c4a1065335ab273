#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_page.py PAGE REPORT_JSON MODE: checks the page `vramtrace html` wrote, as Chromium
rendered it (PAGE.png from --screenshot; PAGE.interact.dom: interact.html's record of the DOM
as rendered, then of hovering, toggling, clicking, zooming and dragging as a mouse would),
against the figures of `vramtrace report --json` on the same trace. MODE "budget" expects the
budget section and frames the toggle changes, "oom" an OOM with its post-mortem first. Exits 1
with the reasons on stderr."""
import html.parser
import json
import re
import struct
import sys
import zlib

CATEGORIES = ["weights", "gradients", "optimizer", "activations", "data", "workspace", "unknown"]
# tools/cmd_timeline.c's colours; the chart fills at opacity 0.85 over the plot's #fafafa.
COLORS = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#bab0ac"]

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


# common/vt_frames.h: the modules whose frames the views leave out unless --all-frames.
INTERNAL_PREFIXES = ("libpython", "_ctypes.", "libffi.so", "libc.so", "ld-linux", "libpthread.so",
                     "libdl.so", "libvramtrace.so")


def shown(frame):
    """True when the page shows this frame of report --json ("name (file:line, module)" or
    "name (module)"): Python frames always, native ones outside the interpreter's machinery."""
    m = re.search(r"\(([^()]*)\)$", frame)
    if not m:
        return True
    module = m.group(1).split(", ")[-1]
    if module.startswith(INTERNAL_PREFIXES):
        return False
    return not re.fullmatch(r"python[0-9.]*", module)


def binary(v):
    """vt_fmt_binary: "512 B", "1.50 GiB"."""
    if v < 1024:
        return "%d B" % v
    x, units = v / 1024, ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
    u = 0
    while x >= 1024 and u < 5:
        x /= 1024
        u += 1
    return "%.2f %s" % (x, units[u])


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children, self.text = tag, dict(attrs), parent, [], ""

    def all(self, tag):
        for c in self.children:
            if c.tag == tag:
                yield c
            yield from c.all(tag)

    def content(self):
        return self.text + "".join(c.content() for c in self.children)


class Tree(html.parser.HTMLParser):
    VOID = {"meta", "br", "img", "input", "link", "hr"}

    def __init__(self):
        super().__init__()
        self.root = self.cur = Node("#root", [], None)

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.cur)
        self.cur.children.append(node)
        if tag not in self.VOID:
            self.cur = node

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data):
        # Text in order with the children: kept as a child so content() keeps the order.
        t = Node("#text", [], self.cur)
        t.text = data
        self.cur.children.append(t)


def png_pixels(path):
    """(width, height, rows of RGB tuples) of an 8-bit RGB or RGBA non-interlaced PNG."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and not interlace, "unexpected PNG kind"
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride = zlib.decompress(idat), width * bpp
    prev, rows = bytearray(stride), []
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return width, height, rows, bpp


def recorded(page):
    """What interact.html recorded (see there), or None after a failure."""
    dom = open(page + ".interact.dom", encoding="utf-8").read()
    m = re.search(r'<pre id="result">(.*?)</pre>', dom, re.S)
    check(m is not None, "interact.html recorded nothing")
    if not m:
        return None
    r = json.loads(html.unescape(m.group(1)))
    check("error" not in r, "the interactions failed: %s" % r.get("error"))
    return None if "error" in r else r


def interactions(r, mode, report, n_panels, sections):
    """What the page showed while interact.html used it."""
    check(r["static_hidden"], "the script did not take over from the static chart")
    check(r["panels"] == n_panels, "%d interactive panels, %d static" % (r["panels"], n_panels))
    # Hover: the moment's figures in the tip, the call-sites live then with their frames.
    check(re.search(r"[0-9.]+ (B|KiB|MiB|GiB)", r["tip"]) is not None, "no hover tip: %r" % r["tip"])
    check("live" in r["hover"] and r["hover_sites"] >= 1 and r["hover_frames"],
          "hovering lists no call-sites: %r" % r["hover"])
    # The frames toggle: all frames, then the program's again.
    check(r["hover_frames_again"] == r["hover_frames"], "the toggle does not come back")
    check(len(r["hover_frames_all"]) >= len(r["hover_frames"]), "all frames are fewer")
    check(len(r["table_frames_all"]) >= len(r["table_frames"]), "all frames are fewer (table)")
    if mode == "budget":  # the C loop's stacks go through libc: the folded ones leave it out
        check(len(r["hover_frames_all"]) > len(r["hover_frames"]),
              "the toggle does not change the hover's stacks")
        check(len(r["table_frames_all"]) > len(r["table_frames"]),
              "the toggle does not change the table's stacks")
        check(any("libc" in f for f in r["hover_frames_all"]) and
              not any("libc" in f for f in r["hover_frames"]), "libc's frames are not folded")
    # Click: the call-site highlighted on the chart and selected.
    check(r["highlights"] == 1, "clicking a call-site highlights %d paths" % r["highlights"])
    check(r["selected"] >= 1, "clicking a call-site selects nothing")
    # Zoom and pan: the axis and the range change; the reset comes back.
    check(r["ticks1"] != r["ticks0"], "zooming does not change the axis: %s" % r["ticks1"])
    check(r["range1"] != r["range0"] and r["range2"] != r["range1"], "zooming: %s, %s, %s" %
          (r["range0"], r["range1"], r["range2"]))
    check(r["range3"] != r["range2"], "dragging does not pan: %s" % r["range3"])
    check(r["range4"] == r["range0"], "the reset gives %s, not %s" % (r["range4"], r["range0"]))
    # OOMs: marked on the chart, their post-mortem first on the page.
    check(r["ooms_marked"] == len(report["ooms"]),
          "%d OOMs marked, %d in the report" % (r["ooms_marked"], len(report["ooms"])))
    if report["ooms"]:
        check(r["first_section"] == "postmortem", "the page starts with %s" % r["first_section"])
        pm = sections.get("postmortem")
        check(pm is not None and "out-of-memory error 1 of %d" % len(report["ooms"]) in pm.content(),
              "the post-mortem is not on the page")
    else:
        check(r["first_section"] == "summary", "the page starts with %s" % r["first_section"])


def main():
    page, report_path, mode = sys.argv[1:4]
    source = open(page, encoding="utf-8").read()
    report = json.load(open(report_path))

    # Self-contained: nothing that makes a browser fetch anything. The two inline scripts (the
    # data, the code) are the only ones, and nothing in them ends them early.
    for pattern in [r"<link", r"<img", r"<iframe", r"<object", r"\bsrc\s*=", r"\bhref\s*=",
                    r"url\((?!#)", r"@import", r"\bfetch\s*\(", r"XMLHttpRequest", r"\bimport\s*\(",
                    r"<script[^>]*\bsrc"]:
        check(not re.search(pattern, source, re.I), "the page source has %s" % pattern)
    check(len(re.findall(r"<script", source, re.I)) == 2, "the page has other than 2 scripts")
    check(len(re.findall(r"</script", source, re.I)) == 2, "a script's text holds '</script'")
    data = re.search(r'<script type="application/json" id="vt-data">(.*?)</script>', source, re.S)
    check(data is not None, "the page has no data for its script")
    if data:
        json.loads(data.group(1))  # valid JSON, or the check fails with the reason

    used = recorded(page)
    if used is None:
        return
    tree = Tree()
    tree.feed(used["dom"])
    sections = {s.attrs.get("id"): s for s in tree.root.all("section")}
    want = ["summary", "timeline", "categories", "devices", "sites", "ooms", "leaks"]
    if mode == "budget":
        want.append("budget")
    for sid in want:
        check(sid in sections, "no section '%s' in the rendered page" % sid)
    if failures:
        return

    # Summary: the device peak as the report gives it.
    peak = report["peak"]
    summary = sections["summary"].content()
    check(binary(peak["bytes"]) in summary, "summary lacks the peak %s" % binary(peak["bytes"]))
    check(report["allocator"]["mode"] in summary, "summary lacks the allocator mode")
    # The peak's device, named with its capacity, and the peak's share of it.
    dev = next((d for d in report["devices"] if d["device"] == peak["device"]), None)
    if dev and dev.get("name") and dev.get("total_bytes"):
        named = "device %d (%s, %s)" % (dev["device"], dev["name"], binary(dev["total_bytes"]))
        check(named in summary, "summary lacks '%s'" % named)
        share = "%.1f%% of its memory" % (100.0 * peak["bytes"] / dev["total_bytes"])
        check(share in summary, "summary lacks '%s'" % share)

    # Categories: one row per category, exact bytes with commas. The report's JSON counts the
    # pools' spare reservation in unknown; the page gives it a row of its own.
    def held_by(c):
        spare = peak.get("pool_spare_bytes", 0)
        return peak["by_category"][c] - (spare if c == "unknown" else 0)

    # Categories: one row per category, exact bytes with commas.
    rows = [r for r in sections["categories"].all("tr") if any(True for _ in r.all("th"))]
    body = {}
    for r in rows:
        cells = [c.content().strip() for c in r.children if c.tag in ("th", "td")]
        if cells and cells[0] in CATEGORIES:
            body[cells[0]] = cells
    for c in CATEGORIES:
        check(c in body, "categories table lacks %s" % c)
        if c in body:
            check(body[c][1] == "{:,}".format(held_by(c)),
                  "%s: %s bytes, the report says %d" % (c, body[c][1], held_by(c)))

    # The timeline: an inline SVG with one area per category that had memory, and the peak,
    # hidden by the script that draws the chart again (one panel per device of the static one).
    static = [d for d in sections["timeline"].all("div") if d.attrs.get("id") == "vt-static"]
    svgs = list(static[0].all("svg")) if static else []
    check(len(svgs) == 1, "the static timeline has %d svg elements" % len(svgs))
    if svgs:
        paths = list(svgs[0].all("path"))
        check(len(paths) >= 1, "the timeline's svg has no areas")
        check("peak " + binary(peak["bytes"]) in svgs[0].content(), "the chart lacks its peak")
        # The device's capacity: a line on the scale when the peak is a quarter of it or more,
        # a note above the plot otherwise.
        if dev and dev.get("total_bytes"):
            cap = binary(dev["total_bytes"])
            lines = [l for l in svgs[0].all("line") if l.attrs.get("class") == "capacity"]
            if peak["bytes"] * 4 >= dev["total_bytes"]:
                check(len(lines) == 1, "the chart has %d capacity lines" % len(lines))
                check("capacity " + cap in svgs[0].content(), "the capacity line's label")
            else:
                check(not lines, "a capacity line off the scale")
                check("capacity %s, above the scale" % cap in svgs[0].content(),
                      "the chart does not note the capacity %s" % cap)
        ooms = [g for g in svgs[0].all("g") if g.attrs.get("class") == "oom"]
        check(len(ooms) == len(report["ooms"]),
              "the static chart marks %d OOMs of %d" % (len(ooms), len(report["ooms"])))
        panels = [g for g in svgs[0].all("g") if g.attrs.get("class") == "device"]
        interactions(used, mode, report, len(panels), sections)

    # Top call-sites: the report's, in order, with the same frames less those the views fold.
    site_rows = [r for r in sections["sites"].all("tr") if list(r.all("ol"))]
    check(len(site_rows) == len(report["top_sites"]),
          "%d call-sites shown, the report has %d" % (len(site_rows), len(report["top_sites"])))
    for r, s in zip(site_rows, report["top_sites"]):
        frames = [li.content() for li in next(r.all("ol")).all("li")]
        want = [f for f in s["frames"] if shown(f)]
        check(frames == want[:len(frames)] and len(frames) >= min(len(want), 12),
              "frames differ: %s versus %s" % (frames, want))

    # OOMs: one heading each.
    heads = list(sections["ooms"].all("h3"))
    check(len(heads) == len(report["ooms"]), "%d OOMs shown, %d in the report" %
          (len(heads), len(report["ooms"])))
    if mode == "oom":
        check(len(report["ooms"]) > 0, "the oom fixture has no OOM")

    if mode == "budget":
        b = sections["budget"]
        rows = {}
        for r in b.all("tr"):
            cells = [c.content().strip() for c in r.children if c.tag in ("th", "td")]
            if cells:
                rows[cells[0]] = cells
        for c in CATEGORIES:
            check(c in rows and rows[c][1] == binary(held_by(c)),
                  "budget row %s: %s" % (c, rows.get(c)))
        naive = report["budget"]["naive"]
        check(rows["total"][2] == binary(naive["total"]), "budget naive total %s" % rows["total"])

    # The screenshot: the chart's areas are painted, in the blended category colours.
    width, height, rows, bpp = png_pixels(page + ".png")
    counts = [0] * len(COLORS)
    targets = []
    for col in COLORS:
        rgb = [int(col[i:i + 2], 16) for i in (1, 3, 5)]
        targets.append([round(0.85 * v + 0.15 * 250) for v in rgb])
    for line in rows:
        for x in range(0, width * bpp, bpp):
            px = line[x:x + 3]
            for k, t in enumerate(targets):
                if abs(px[0] - t[0]) <= 3 and abs(px[1] - t[1]) <= 3 and abs(px[2] - t[2]) <= 3:
                    counts[k] += 1
                    break
    for k, c in enumerate(CATEGORIES):
        if peak["bytes"] and peak["by_category"][c] * 10 >= peak["bytes"]:
            check(counts[k] >= 500, "the screenshot has %d pixels of %s's area" % (counts[k], c))


main()
if failures:
    for f in failures:
        print("check_page: " + f, file=sys.stderr)
    sys.exit(1)
print("check_page: %s ok" % sys.argv[1])
