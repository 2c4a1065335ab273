#!/bin/sh
# SPDX-License-Identifier: MIT
# device.sh LIB SIMDIR VRAMTRACE PROGRAM: the DEVICE record of a traced run on the simulated
# device (its name, capacity, UUID and PCI bus id, as the simulator answers them) in
# `report --json` (devices[]), the text report ("device 0 (NAME, 4.00 GiB)", the peak as a
# share of the capacity) and the HTML page (the same, and the chart's capacity line, on the
# scale when the peak is a quarter of the capacity or more, a note above the plot otherwise);
# memory imported from another process (IPC) or through an imported VMM handle as its own series,
# outside the device peak.
lib=$1 simdir=$2 vramtrace=$3 prog=$4
. "$(dirname "$0")/../../lib/preamble.sh"
status=0
fail() { echo "FAIL $*"; status=1; }

# traced SIZE: t_race serial on a device of SIZE; the trace is $tmp/SIZE.vtr.
traced() {
    env -i PATH="$PATH" LD_LIBRARY_PATH="$simdir" LD_PRELOAD="$lib" VRAMTRACE_QUIET=1 \
        VRAMTRACE_OUTPUT="$tmp/$1.vtr" VTSIM_DEVICE_MEMORY="$1" "$prog" serial 1 40 1 \
        || fail "the program on $1 exited $?"
}
traced 4G
traced 48M

"$vramtrace" report "$tmp/4G.vtr" --json >"$tmp/json" || fail "report --json exited $?"
for want in '"name": "vramtrace simulated GPU"' '"total_bytes": 4294967296' \
    '"uuid": "GPU-76747369-6d2d-7575-6964-2d6465760000"' '"pci_bus_id": "0000:01:00.0"'; do
    grep -qF "$want" "$tmp/json" || fail "report --json has no $want"
done
"$vramtrace" report "$tmp/4G.vtr" >"$tmp/text" || fail "report exited $?"
grep -qE '^device peak: .* on device 0 \(vramtrace simulated GPU, 4\.00 GiB\) at [0-9.]+ s, [0-9.]+% of its memory$' \
    "$tmp/text" || { fail "text report's peak line"; cat "$tmp/text"; }
grep -qE '^  device 0 \(vramtrace simulated GPU, 4\.00 GiB\): peak .* \([0-9.]+% of its memory\) at ' \
    "$tmp/text" || fail "text report's device line"
"$vramtrace" html "$tmp/4G.vtr" -o "$tmp/4G.html" || fail "html exited $?"
grep -qF 'device 0 (vramtrace simulated GPU, 4.00 GiB)' "$tmp/4G.html" || fail "html names the device"
grep -qE '% of its memory' "$tmp/4G.html" || fail "html gives the peak's share"
grep -qF 'capacity 4.00 GiB, above the scale' "$tmp/4G.html" || fail "html: a 4 GiB capacity is noted above the scale"
"$vramtrace" html "$tmp/48M.vtr" -o "$tmp/48M.html" || fail "html exited $?"
grep -qF '<line class="capacity"' "$tmp/48M.html" || fail "html: a 48 MiB capacity is a line on the chart"
grep -qF 'capacity 48.00 MiB</text>' "$tmp/48M.html" || fail "html: the capacity line's label"
# A peer's memory: the process that opens 8 MiB of another's through IPC and allocates 4 MiB of
# its own shows the 8 MiB as imported, never in its device peak; the exporter's peak has them.
env -i PATH="$PATH" LD_LIBRARY_PATH="$simdir" LD_PRELOAD="$lib" VRAMTRACE_QUIET=1 \
    VRAMTRACE_OUTPUT="$tmp/ipc.vtr" VTSIM_DEVICE_MEMORY=1G "$prog" ipc 8388608 ||
    fail "the IPC programs exited $?"
opener=$(ls "$tmp"/ipc.*.vtr 2>/dev/null | head -n 1)
if [ -z "$opener" ]; then
    fail "no trace of the opening process"
else
    "$vramtrace" report "$opener" --json >"$tmp/opener.json" || fail "report --json exited $?"
    tr -d ' \n' <"$tmp/opener.json" >"$tmp/opener.flat"
    grep -qF '"imported":{"peak_bytes":8388608,"live_bytes":0}' "$tmp/opener.flat" ||
        fail "the opener's imported peak is not 8 MiB"
    grep -qF '"peak":{"bytes":4194304,' "$tmp/opener.flat" ||
        fail "the opener's device peak is not its own 4 MiB"
    "$vramtrace" report "$opener" | grep -qxF \
        "imported peak: 8.00 MiB (a peer's memory, in the exporting process's device peak)" ||
        fail "the opener's text report lacks the imported peak"
    "$vramtrace" report "$tmp/ipc.vtr" --json | tr -d ' \n' >"$tmp/exporter.flat"
    grep -qF '"peak":{"bytes":8388608,' "$tmp/exporter.flat" &&
        grep -qF '"imported":{"peak_bytes":0,' "$tmp/exporter.flat" ||
        fail "the exporter's device peak is not its 8 MiB, or it imported something"
fi
# An imported VMM handle: 8 MiB made here and the same 8 MiB imported and mapped; the device peak
# is the 8 MiB made, the mapping is imported memory where IPC's is, never counted twice.
env -i PATH="$PATH" LD_LIBRARY_PATH="$simdir" LD_PRELOAD="$lib" VRAMTRACE_QUIET=1 \
    VRAMTRACE_OUTPUT="$tmp/vmm.vtr" VTSIM_DEVICE_MEMORY=1G "$prog" vmm-import 8388608 ||
    fail "the VMM import program exited $?"
"$vramtrace" report "$tmp/vmm.vtr" --json | tr -d ' \n' >"$tmp/vmm.flat" ||
    fail "report --json of the VMM import exited $?"
grep -qF '"imported":{"peak_bytes":8388608,"live_bytes":0}' "$tmp/vmm.flat" ||
    fail "the imported VMM mapping is not 8 MiB of imported memory"
grep -qF '"peak":{"bytes":8388608,' "$tmp/vmm.flat" ||
    fail "the device peak is not the 8 MiB made here (the imported mapping counted in it?)"
"$vramtrace" report "$tmp/vmm.vtr" | grep -qxF \
    "imported peak: 8.00 MiB (a peer's memory, in the exporting process's device peak)" ||
    fail "the text report lacks the imported VMM mapping's peak"
[ $status = 0 ] && echo "ok device record in JSON, text and HTML; imported memory (IPC, VMM)"
exit $status
