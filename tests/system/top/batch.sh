#!/bin/sh
# SPDX-License-Identifier: MIT
# batch.sh VRAMTRACE T_TOP_STEPS: `vramtrace top --batch` on a running job. The job (run on the
# simulated device by `vramtrace run`) keeps 4 MiB more each step; top, given its trace file and
# then its PID, prints snapshots while it runs: running, the live activations growing from one
# snapshot to the next, the weights' 8 MiB, the call-sites by name; after the job exits, one
# snapshot that says it ended with everything freed and the peak kept.
vt=$1 prog=$2
. "$(dirname "$0")/../../lib/preamble.sh"

# 40 steps of 100 ms: 4 s of growth.
"$vt" run --simulate=1G --quiet -o job.vtr -- "$prog" 40 100 >job.out 2>job.err &
job=$!
i=0
while [ ! -s job.vtr ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
check "the job's trace appears" test -s job.vtr
"$vt" top --batch -n 3 --interval 0.6 job.vtr >file.out 2>file.err
check "top FILE exits 0" test $? -eq 0
check "top FILE says nothing on stderr" test ! -s file.err
check "3 snapshots" test "$(grep -c '^vramtrace top: job.vtr' file.out)" -eq 3
check "running" test "$(grep -c '^running: ' file.out)" -eq 3
check "the weights" grep -q '^  weights *8.00 MiB |#' file.out
check "the activations' call-site" grep -q 'activations *alloc_activations' file.out
check "the weights' call-site" grep -q 'weights *alloc_weights' file.out
check "the capacity" grep -q 'bars: share of the device.s memory' file.out
# the activations grow from the first snapshot to the last, never shrinking (MiB; 0 B before the
# first step: on a loaded machine the first look may come that early)
awk '$1 == "activations" { print ($3 == "B" ? 0 : $2) }' file.out >act
check "activations in each snapshot" test "$(wc -l <act)" -eq 3
check "the activations grow" sh -c 'sort -n -c act && test "$(head -n 1 act)" != "$(tail -n 1 act)"'
check "allocations per second" grep -q '^[1-9][0-9.]* allocations/s' file.out

# By PID: `vramtrace run` execs nothing itself; the traced process is its child.
pid=$(pgrep -P "$job" | head -n 1)
check "the job's process" test -n "$pid"
"$vt" top --batch -n 2 --interval 0.3 "$pid" >pid.out 2>pid.err
check "top PID exits 0" test $? -eq 0
check "top PID finds the trace" test "$(grep -c "^vramtrace top: .*job.vtr, pid $pid" pid.out)" -eq 2
check "top PID: running" grep -q '^running: ' pid.out
# A directory: its newest trace.
"$vt" top --batch . >dir.out 2>&1
check "top DIR finds the trace" grep -q '^vramtrace top: ./job.vtr' dir.out

wait "$job"
check "the job exits 0" test $? -eq 0
"$vt" top --batch -n 5 --interval 100ms job.vtr >end.out 2>end.err
check "after the end: exits 0" test $? -eq 0
check "after the end: one snapshot" test "$(grep -c '^vramtrace top:' end.out)" -eq 1
check "after the end: says it ended" grep -q '^ended: the process exited' end.out
check "after the end: all freed" grep -q 'live 0 B, peak 168.00 MiB' end.out
check "after the end: 41 allocations" grep -q ' 41 allocations, 41 frees, 0 failed' end.out
if [ $fail -ne 0 ]; then
    cat file.out pid.out end.out file.err pid.err >&2
fi
exit $fail
