# The memory-viz snapshot of the report fixture (two devices, an OOM, memory never freed), as
# a strict unpickler (no classes) reads it, one line per segment and entry, keys sorted: segments live at the end, each device's
# allocations and frees in order with their frames and category, ending with the snapshot entry.
vt-mktrace t.vtr "$(dirname "$0")/../report/train.trace" || exit
vramtrace export t.vtr --format memory-viz -o t.pickle || exit
python3 -c '
import io, json, pickle, sys
class Strict(pickle.Unpickler):
    def find_class(self, module, name):
        raise pickle.UnpicklingError(module + "." + name)
snap = Strict(open("t.pickle", "rb")).load()
print("keys", sorted(snap))
for s in snap["segments"]:
    print("segment", json.dumps(s, sort_keys=True))
for d, trace in enumerate(snap["device_traces"]):
    for e in trace:
        print("device", d, json.dumps(e, sort_keys=True))'
echo "exit $?"
vramtrace export t.vtr --format memory-viz | head -c 2 | od -An -tx1
