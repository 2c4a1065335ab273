#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""viewer.py SNAPSHOT PAGE: writes PAGE, a self-contained viewer of a memory-viz snapshot that
reads it the way PyTorch's memory viewer does: the pickle embedded in base64, decoded by a
script that knows only the opcodes that viewer's unpickler knows (anything else throws), list
items appended in one spread call per APPENDS as that viewer does (a batch too long overflows
the call stack), the categories gathered from every entry (one must be "unknown"), and the
Active Memory Timeline's pairing of alloc with free_completed by address. The page writes what
it found into <pre id="result"> as JSON: per device the entries, the peak and the bytes live at
the end; the categories; or the error."""
import base64
import sys

PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>memory-viz check</title></head>
<body><pre id="result">not run</pre>
<script>
"use strict";
const data = "@DATA@";
function unpickle(bytes) {
  const stack = [], marks = [], memo = [];
  let at = 0, memoNext = 0;
  const view = new DataView(bytes.buffer);
  const dec = new TextDecoder("utf-8", {fatal: true});
  const u4 = () => { const v = view.getUint32(at, true); at += 4; return v; };
  for (;;) {
    const op = bytes[at++];
    switch (op) {
      case 0x80: { const v = bytes[at++]; if (v < 2 || v > 4) throw new Error("protocol " + v); break; }
      case 0x95: at += 8; break;                                   // FRAME
      case 0x7d: stack.push({}); break;                            // EMPTY_DICT
      case 0x5d: stack.push([]); break;                            // EMPTY_LIST
      case 0x29: stack.push([]); break;                            // EMPTY_TUPLE
      case 0x28: marks.push(stack.length); break;                  // MARK
      case 0x65: { const m = marks.pop(); const items = stack.splice(m);
                   stack[m - 1].push(...items); break; }           // APPENDS
      case 0x61: { const v = stack.pop(); stack[stack.length - 1].push(v); break; }
      case 0x75: { const m = marks.pop(); const d = stack[m - 1];  // SETITEMS
                   for (let i = m; i < stack.length; i += 2) d[stack[i]] = stack[i + 1];
                   stack.splice(m); break; }
      case 0x8c: { const n = bytes[at++]; stack.push(dec.decode(bytes.subarray(at, at + n))); at += n; break; }
      case 0x58: { const n = u4(); stack.push(dec.decode(bytes.subarray(at, at + n))); at += n; break; }
      case 0x4b: stack.push(bytes[at++]); break;                   // BININT1
      case 0x4d: stack.push(view.getUint16(at, true)); at += 2; break;
      case 0x4a: stack.push(view.getInt32(at, true)); at += 4; break;
      case 0x8a: { const n = bytes[at++]; if (n > 8) throw new Error("LONG1 of " + n);
                   let v = 0n; for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[at + i]);
                   if (n && bytes[at + n - 1] >= 128) v -= 1n << BigInt(8 * n);
                   at += n; stack.push(Number(v)); break; }
      case 0x47: stack.push(view.getFloat64(at, false)); at += 8; break;
      case 0x88: stack.push(true); break;
      case 0x89: stack.push(false); break;
      case 0x4e: stack.push(null); break;
      case 0x71: memo[bytes[at++]] = stack[stack.length - 1]; break; // BINPUT
      case 0x72: memo[u4()] = stack[stack.length - 1]; break;      // LONG_BINPUT
      case 0x94: memo[memoNext++] = stack[stack.length - 1]; break; // MEMOIZE
      case 0x68: stack.push(memo[bytes[at++]]); break;             // BINGET
      case 0x6a: stack.push(memo[u4()]); break;                    // LONG_BINGET
      case 0x2e: return stack.pop();                               // STOP
      default: throw new Error("opcode " + op + " at " + (at - 1));
    }
  }
}
function run() {
  const bin = atob(data), bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  const snap = unpickle(bytes);
  const categories = [];
  for (const trace of snap.device_traces)
    for (const e of trace)
      if ("category" in e && !categories.includes(e.category)) categories.push(e.category);
  if (categories.length && !categories.includes("unknown"))
    throw new Error("categories without unknown: the viewer fails to load");
  const devices = [];
  snap.device_traces.forEach((trace, device) => {
    const live = {};
    let total = 0, peak = 0, allocs = 0;
    for (const e of trace) {
      if (e.action === "alloc") { live[e.addr] = e.size; total += e.size; allocs++; }
      else if (e.action === "free_completed" && e.addr in live) { total -= live[e.addr]; delete live[e.addr]; }
      peak = Math.max(peak, total);
    }
    if (trace.length) devices.push({device, entries: trace.length, allocs, peak, end: total});
  });
  let segments = 0;
  for (const s of snap.segments) segments += s.blocks.reduce((n, b) => n + b.size, 0);
  return {devices, categories, segments};
}
let out;
try { out = run(); } catch (e) { out = {error: String(e)}; }
document.getElementById("result").textContent = JSON.stringify(out);
</script></body></html>
"""

raw = open(sys.argv[1], "rb").read()
with open(sys.argv[2], "w") as f:
    f.write(PAGE.replace("@DATA@", base64.b64encode(raw).decode()))
