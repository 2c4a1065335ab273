#!/bin/sh
# SPDX-License-Identifier: MIT
# A reader and a new run racing on one name: while a reader holds T.vtr (mapped, with its shared
# lock), `vramtrace run -o T.vtr` leaves T.vtr as it is and writes T.<pid>.vtr beside it, and
# the reader reads the whole trace; without a reader, the run replaces T.vtr. A reader whose
# trace is truncated under it stops with one line and exit 1 instead of dying of SIGBUS.
. "$(dirname "$0")/lib.sh"
hold=$3

"$vramtrace" run --simulate -q -o T.vtr -- "$prog" >out 2>err || fail "first run"
cp T.vtr orig.vtr
mkfifo gate
"$hold" T.vtr hold <gate >held 2>&1 &
reader=$!
exec 3>gate # the reader's stdin stays open until fd 3 closes
for _ in $(seq 100); do [ -s held ] && break; sleep 0.1; done
expect "reader" "$(cat held)" "open"
"$vramtrace" run --simulate -o T.vtr -- "$prog" >out 2>err
expect "second run's status" $? 0
cmp -s T.vtr orig.vtr || fail "T.vtr changed under its reader"
second=$(ls T.*.vtr 2>/dev/null)
[ -n "$second" ] || fail "the second run wrote no T.<pid>.vtr"
grep -q "$second" err || fail "the run did not name $second"
exec 3>&-
wait $reader
expect "reader's status" $? 0
n=$(sed -n 2p held)
case $n in
*" records") ;;
*) fail "the reader: '$n'" ;;
esac

rm -f "$second"
"$vramtrace" run --simulate -q -o T.vtr -- "$prog" >out 2>err || fail "third run"
[ -z "$(ls T.*.vtr 2>/dev/null)" ] || fail "without a reader, the run did not replace T.vtr"
cmp -s T.vtr orig.vtr && fail "T.vtr not replaced"

"$hold" cut.vtr truncate >out 2>err
expect "truncated reader's status" $? 1
expect "truncated reader's message" "$(cat err)" \
    "vramtrace: 'cut.vtr': the trace changed while it was read (another process truncated it)"
echo "ok"
