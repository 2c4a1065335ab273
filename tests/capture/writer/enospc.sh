#!/bin/sh
# SPDX-License-Identifier: MIT
# enospc.sh VRAMTRACE_BIN LIB SIMDIR PROGRAM NOFALLOC_LIB [inner]
# ENOSPC on a real full file system (docs/reliability.md): the trace of `PROGRAM threads 12000` (16 threads
# x 12 000 pairs: 1.8 MiB in format 1.2's compact records, 4.5 MiB in 1.1's; it must stay above
# 1040 KiB, or the first case below fails saying the disk never filled) goes to a small tmpfs mounted for
# the test, in a private mount namespace (unshare -m as root, unshare -rm otherwise; as root
# without unshare, a plain mount undone on exit); exit 77 when neither can mount.
#   1040 KiB: the first 1 MiB chunk fits, the second does not. The program's stdout and exit
#            status are those of its untraced run, one warning says the disk is full, no SIGBUS,
#            and `vramtrace report` reads the events of the first chunk.
#   128 KiB: not even the first chunk fits: the same, and report fails cleanly (exit 1).
#   1040 KiB with NOFALLOC_LIB preloaded before the library (its posix_fallocate only sets the
#            size, as ftruncate would): the program dies of SIGBUS. This is what the writer's
#            posix_fallocate prevents, and shows the test would catch its removal.
vt=$1 lib=$2 sim=$3 prog=$4 nofalloc=$5
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
. "$(dirname "$0")/../../lib/preamble.sh"
check_name=enospc
chmod 755 "$tmp"
mnt=$tmp/mnt
mkdir "$mnt" || exit 1
if [ "${6:-}" != inner ]; then
    if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
        unshare -m sh "$self" "$@" inner
        exit $?
    elif unshare -rm true 2>/dev/null; then
        unshare -rm sh "$self" "$@" inner
        exit $?
    elif [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=4k tmpfs "$mnt" 2>/dev/null; then
        umount "$mnt"
        sh "$self" "$@" inner
        exit $?
    fi
    echo "enospc.sh: cannot mount a tmpfs here (not root, no user namespaces): skipped"
    exit 77
fi

# ---- inner: in the mount namespace (or as root, mounting where everyone sees it), in its own
# $tmp; the tmpfs is unmounted before $tmp is removed, whatever the exit path ----------------
trap 'umount "$mnt" 2>/dev/null; rm -rf "$tmp"' EXIT
run() { # run TAG PRELOAD: PROGRAM threads traced into $mnt/t.vtr; TAG.out, TAG.err, TAG.status
    env -i PATH="$PATH" LD_LIBRARY_PATH="$sim" LD_PRELOAD="$2" VRAMTRACE_OUTPUT="$mnt/t.vtr" \
        VTSIM_DEVICE_MEMORY=4G "$prog" threads 12000 >"$1.out" 2>"$1.err"
    echo $? >"$1.status"
}
tmpfs() { # tmpfs SIZE: a fresh tmpfs of SIZE at $mnt
    umount "$mnt" 2>/dev/null
    mount -t tmpfs -o "size=$1,mode=0777" tmpfs "$mnt" || {
        echo "FAIL $check_name: cannot mount a $1 tmpfs" >&2
        exit 1
    }
}

env -i PATH="$PATH" LD_LIBRARY_PATH="$sim" VTSIM_DEVICE_MEMORY=4G "$prog" threads 12000 \
    >plain.out 2>plain.err
plain_status=$?
check "the untraced run exits 0 ($plain_status)" [ "$plain_status" = 0 ]

for size in 1040k 128k; do
    tmpfs $size
    run "$size" "$lib"
    st=$(cat "$size.status")
    check "$size: exit status $st traced, $plain_status untraced (135: SIGBUS)" [ "$st" = "$plain_status" ]
    check "$size: the same stdout traced and untraced" cmp -s plain.out "$size.out"
    check "$size: one warning, that the disk is full: $(cat "$size.err")" \
        [ "$(grep -c 'vramtrace: disabled: cannot write .*No space left on device' "$size.err")" = 1 ]
    check "$size: no other complaint (the OOM block and the exit line are the program's)" \
        [ "$(grep -c 'vramtrace: .*\(cannot\|disabled\|ignoring\|error\)' "$size.err")" = 1 ]
    cp "$mnt/t.vtr" "$size.vtr" 2>/dev/null
    "$vt" report --json "$mnt/t.vtr" >"$size.json" 2>"$size.report.err"
    rst=$?
    if [ $size = 1040k ]; then
        check "1040k: the file stops at the first chunk ($(stat -c %s "$mnt/t.vtr"))" \
            [ "$(stat -c %s "$mnt/t.vtr")" -le 1048576 ]
        check "1040k: report reads what was written (exit $rst: $(cat "$size.report.err"))" [ "$rst" = 0 ]
        allocs=$(sed -n 's/.*"allocs": \([0-9]*\).*/\1/p' "$size.json" | head -n 1)
        check "1040k: the first chunk's allocations are there (${allocs:-none})" \
            [ "${allocs:-0}" -gt 1000 ]
        check "1040k: the report says the process did not end the trace" \
            grep -q '"exit_clean": false' "$size.json"
        "$vt" report "$mnt/t.vtr" >"$size.txt" 2>&1
        check "1040k: the text report too (exit $?)" [ $? -lt 2 ]
    else
        check "128k: report fails cleanly, exit 1 ($rst), one line: $(cat "$size.report.err")" \
            [ "$rst" = 1 ] && [ "$(wc -l <"$size.report.err")" = 1 ]
    fi
done

# The same full disk without posix_fallocate: SIGBUS (128 + 7), which the writer's own
# posix_fallocate prevents. Proves the test above is not passing by luck.
check "the library calls posix_fallocate" sh -c "nm -D --undefined-only '$lib' | grep -q ' posix_fallocate'"
tmpfs 1040k
run nofalloc "$nofalloc $lib"
check "without posix_fallocate the traced program dies of SIGBUS ($(cat nofalloc.status))" \
    [ "$(cat nofalloc.status)" = 135 ]
umount "$mnt"
if [ $fail -ne 0 ]; then
    for f in plain 1040k 128k nofalloc; do
        echo "--- $f: stdout, stderr ---" >&2
        cat "$f.out" "$f.err" >&2 2>/dev/null
    done
    exit 1
fi
echo "1 passed, 0 failed"
