#!/bin/sh
# SPDX-License-Identifier: MIT
# `vramtrace run --simulate -o T.vtr -- PROG`: PROG runs on the simulated device (16 GiB unless
# --simulate=SIZE), its trace is exactly T.vtr and starts with the magic, the library's exit line
# and ours name it; without -o only the library's line does; --quiet prints nothing of ours or
# the library's; a run that allocates nothing, or leaves an earlier T.vtr alone, says so.
. "$(dirname "$0")/lib.sh"

"$vramtrace" run --simulate -o T.vtr -- "$prog" >out 2>err
expect "exit status" $? 0
expect "device size" "$(cat out)" "total 17179869184"
printf 'VRAMTRC\000' >magic
head -c 8 T.vtr | cmp -s - magic || fail "T.vtr does not start with VRAMTRC\\0"
grep -q "^vramtrace: peak .*, trace '$cwd/T.vtr'\$" err || fail "no exit line naming T.vtr"
expect "last line" "$(tail -n 1 err)" "vramtrace: trace in 'T.vtr'"
expect "stderr lines" "$(wc -l <err)" 2

"$vramtrace" run --simulate=1G -- "$prog" >out 2>err
expect "exit status" $? 0
expect "device size" "$(cat out)" "total 1073741824"
expect "stderr lines" "$(wc -l <err)" 1
trace=$(sed -n "s/^vramtrace: peak .*, trace '\(vramtrace\.[0-9]*\.vtr\)'\$/\1/p" err)
[ -n "$trace" ] && [ -f "$trace" ] || fail "no vramtrace.<pid>.vtr named by the exit line"

"$vramtrace" run --simulate --quiet -o Q.vtr -- "$prog" >out 2>err
expect "exit status" $? 0
[ -s Q.vtr ] || fail "--quiet: no Q.vtr"
[ ! -s err ] || fail "--quiet: something on stderr"

# T.vtr of the first run is not this run's: nothing allocated, nothing written.
"$vramtrace" run --simulate -o T.vtr -- true >out 2>err
expect "exit status" $? 0
expect "stderr" "$(cat err)" "vramtrace: no trace was written to 'T.vtr'"
"$vramtrace" run --simulate -o N.vtr -- true >out 2>err
expect "stderr" "$(cat err)" "vramtrace: no trace was written to 'N.vtr'"
[ ! -e N.vtr ] || fail "N.vtr exists"
echo "ok"
