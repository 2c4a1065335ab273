#!/bin/sh
# SPDX-License-Identifier: MIT
# passthru_coverage.sh HOOKS_DEF SIMDIR DRIVER_PROG RUNTIME_PROG: every entry point that
# src/hooks.def wraps (VT_HOOK_CU, VT_HOOK_RT; VT_REAL_CU rows are only called, never
# exported) is exercised by the pass-through programs (capture_passthru_driver,
# capture_passthru_runtime: the same settings as there) on its success path (a line with
# rc=0) and on an error path (rc other than 0). A transcript line's label starts with the
# export's name ("child " first for calls made in a fork child), and each runtime line ends
# with cudaPeekAtLastError and cudaGetLastError after the call. A hook added to hooks.def
# without its pass-through cases fails this test.
def=$1 sim=$2 drv=$3 rt=$4
. "$(dirname "$0")/../lib/preamble.sh"
env -i PATH="$PATH" LD_LIBRARY_PATH="$sim" VTSIM_DEVICE_COUNT=2 VTSIM_DEVICE_MEMORY=64M "$drv" \
    >"$tmp/driver" 2>&1 || { echo "FAIL: $drv: $(tail -n 3 "$tmp/driver")" >&2; exit 1; }
env -i PATH="$PATH" LD_LIBRARY_PATH="$sim" VTSIM_DEVICE_MEMORY=64M "$rt" \
    >"$tmp/runtime" 2>&1 || { echo "FAIL: $rt: $(tail -n 3 "$tmp/runtime")" >&2; exit 1; }
# NAME OK ERR for each export seen: calls with rc=0, calls with any other rc
cat "$tmp/driver" "$tmp/runtime" |
    awk '{ i = index($0, ": rc="); if (!i) next
           label = substr($0, 1, i - 1); sub(/^child /, "", label); split(label, w, /[ (]/)
           rc = substr($0, i + 5); sub(/ .*/, "", rc)
           if (rc == "0") ok[w[1]]++; else err[w[1]]++; seen[w[1]] = 1 }
         END { for (n in seen) print n, ok[n] + 0, err[n] + 0 }' | sort >"$tmp/seen"
sed -n 's/^VT_HOOK_CU(\([A-Za-z0-9_]*\),.*/\1/p; s/^VT_HOOK_RT(\([A-Za-z0-9_]*\)).*/\1/p' "$def" |
    sort -u >"$tmp/hooks"
n_hooks=$(wc -l <"$tmp/hooks")
[ "$n_hooks" -gt 40 ] || { echo "FAIL: only $n_hooks hooks read from '$def'" >&2; exit 1; }
awk 'NR == FNR { ok[$1] = $2; err[$1] = $3; next }
     !(ok[$1] > 0 && err[$1] > 0) {
         printf "FAIL: %s (src/hooks.def): %d successful and %d failing calls in the pass-through transcripts\n", $1, ok[$1], err[$1]
     }' "$tmp/seen" "$tmp/hooks" >"$tmp/missing"
if [ -s "$tmp/missing" ]; then
    cat "$tmp/missing" >&2
    fail=1
fi
# Every runtime call's line ends with the thread's error state after it (cudaPeekAtLastError,
# then cudaGetLastError), which passthru.sh then compares with and without the library.
if grep ': rc=' "$tmp/runtime" | grep -qv ' peek=-\{0,1\}[0-9]* last=-\{0,1\}[0-9]*$'; then
    echo "FAIL: runtime calls without the error state after them:" >&2
    grep ': rc=' "$tmp/runtime" | grep -v ' peek=-\{0,1\}[0-9]* last=-\{0,1\}[0-9]*$' | head >&2
    fail=1
fi
[ $fail -eq 0 ] && echo "1 passed, 0 failed: $n_hooks hooks, each on its success and error paths"
exit $fail
