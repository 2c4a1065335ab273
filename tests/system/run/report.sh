#!/bin/sh
# SPDX-License-Identifier: MIT
# `vramtrace run --report`: after the run, the report of CMD's trace (-o FILE, or the library's
# vramtrace.<pid>.vtr) on stdout, and CMD's exit status; no trace, no report.
. "$(dirname "$0")/lib.sh"

"$vramtrace" run --simulate --report -o T.vtr -- "$prog" >out 2>err
expect "exit status" $? 0
"$vramtrace" report T.vtr >want
{ echo "total 17179869184" && cat want; } | cmp -s - out || fail "-o T.vtr: not the report"

"$vramtrace" run --simulate --report -- "$prog" >out 2>err
expect "exit status" $? 0
trace=$(ls vramtrace.*.vtr)
"$vramtrace" report "$trace" >want
{ echo "total 17179869184" && cat want; } | cmp -s - out || fail "$trace: not the report"

"$vramtrace" run --simulate --report -o N.vtr -- sh -c 'exit 4' >out 2>err
expect "exit status" $? 4
expect "stdout" "$(cat out)" ""
expect "stderr" "$(cat err)" "vramtrace: no trace was written to 'N.vtr'"
echo "ok"
