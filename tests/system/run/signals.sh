#!/bin/sh
# SPDX-License-Identifier: MIT
# Signals under `vramtrace run`: SIGINT and SIGTERM sent to the launcher reach CMD, which dies of
# them, and the launcher exits 128 + N at once (it survives them itself while CMD runs); a
# signal ignored when the launcher started (nohup, a background job) stays ignored in CMD;
# CMD never inherits the launcher's handlers.
. "$(dirname "$0")/lib.sh"

# A process's ignored-signals mask, in hex, from /proc.
ignored()
{
    sed -n 's/^SigIgn:[[:space:]]*//p' "/proc/$1/status"
}

# A non-interactive shell starts background jobs with SIGINT ignored, which the launcher would
# rightly keep; so the launcher runs in the foreground here, and the signal comes from the
# background. A shell that itself started with SIGINT ignored cannot run this test.
[ $((0x$(ignored $$) & 2)) = 0 ] || { echo "SIGINT is ignored here: skipped"; exit 77; }

# signal_launcher SIG: runs `vramtrace run -- sleep 30`, sends SIG to the launcher once sleep
# runs, and leaves the launcher's exit status in $rc, sleep's pid in file child.
signal_launcher()
{
    rm -f pid child
    (
        i=0
        kid=
        while [ -z "$kid" ]; do
            i=$((i + 1))
            [ $i -lt 100 ] || exit 1
            sleep 0.1
            [ -s pid ] && kid=$(cat "/proc/$(cat pid)/task/$(cat pid)/children")
        done
        echo $kid >child
        kill "-$1" "$(cat pid)"
    ) &
    start=$(date +%s)
    sh -c 'echo $$ >pid; exec "$0" run -- sleep 30' "$vramtrace"
    rc=$?
    wait
    [ $(($(date +%s) - start)) -lt 20 ] || fail "$1: the launcher took $(($(date +%s) - start)) s"
    [ -s child ] || fail "$1: never saw sleep start"
    ! kill -0 "$(cat child)" 2>/dev/null || fail "$1: sleep still runs"
}

signal_launcher INT
expect "SIGINT" "$rc" 130
signal_launcher TERM
expect "SIGTERM" "$rc" 143

# CMD starts with default dispositions, not the launcher's handlers (exec resets caught signals;
# this proves nothing is left ignored)...
mask=$("$vramtrace" run -- sh -c 'sed -n "s/^SigIgn:[[:space:]]*//p" /proc/$$/status')
expect "CMD's SIGHUP, SIGINT, SIGQUIT, SIGTERM" $((0x$mask & 0x4007)) 0
# ...but what was ignored stays ignored, as nohup wants.
mask=$(trap '' HUP; "$vramtrace" run -- sh -c 'sed -n "s/^SigIgn:[[:space:]]*//p" /proc/$$/status')
expect "CMD's SIGHUP under nohup" $((0x$mask & 1)) 1
echo "ok"
