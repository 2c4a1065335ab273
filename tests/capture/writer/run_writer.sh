#!/bin/sh
# SPDX-License-Identifier: MIT
# run_writer.sh CASE VRAMTRACE_BIN LIB SIMDIR PROGRAM
# The trace writer under every death of the traced process, checked with `vramtrace report`:
# every event recorded before the end is in the file, and the trace says whether the process
# exited cleanly; writing problems leave the program unaffected.
. "$(dirname "$0")/../../lib/preamble.sh"
case_=$1 vt=$2 lib=$3 sim=$4 prog=$5
check_name="writer $case_"
traced() { # traced OUTPUT ARGS...: runs the program traced; stdout in out, stderr in err
    out=$1
    shift
    env -i PATH="$PATH" LD_LIBRARY_PATH="$sim" LD_PRELOAD="$lib" VRAMTRACE_OUTPUT="$out" \
        VTSIM_DEVICE_MEMORY=4G "$prog" "$@" >out 2>err
}
json() { # json FILE: report --json of FILE into report.json; its exit status
    "$vt" report --json "$1" >report.json 2>report.err
}
field() { # field NAME: the first integer value of "NAME": in report.json
    sed -n "s/.*\"$1\": \([0-9]*\).*/\1/p" report.json | head -n 1
}

case $case_ in
sigkill | abort | exit)
    traced t.vtr "$case_" 1000
    check "the program got to the end" grep -qx 'ready 1000' out
    json t.vtr
    check "every allocation is in the trace" [ "$(field allocs)" = 1000 ]
    check "the trace says the process did not exit cleanly" grep -q '"exit_clean": false' report.json
    check "1000 x 4 KiB live at the end" [ "$(field leaked_bytes)" = 4096000 ]
    ;;
storm)
    traced t.vtr storm
    n=$(sed -n 's/^ready //p' out)
    check "the storm ran" [ -n "$n" ]
    json t.vtr
    status=$?
    check "the killed trace is read" [ "$status" -eq 0 ]
    allocs=$(field allocs)
    check "at least the pairs before the kill ($n) are in the trace ($allocs)" \
        [ "${allocs:-0}" -ge "${n:-1}" ]
    ;;
threads)
    traced t.vtr threads
    json t.vtr
    check "16 threads: exact allocations" [ "$(field allocs)" = 80000 ]
    check "16 threads: exact frees" [ "$(field frees)" = 80000 ]
    check "clean exit" grep -q '"exit_clean": true' report.json
    check "the summary line names the trace" grep -q "trace 't.vtr'" err
    ;;
fork)
    traced t.vtr fork
    child=$(sed -n 's/^child //p' out)
    check "the parent's trace is exactly the file" [ -f t.vtr ]
    check "the child's trace is t.<pid>.vtr" [ -f "t.$child.vtr" ]
    json t.vtr
    check "the parent recorded its own 1 MiB only" [ "$(field bytes)" = 1048576 ]
    check "parent: 1 alloc" [ "$(field allocs)" = 1 ]
    json "t.$child.vtr"
    check "the child's trace has its own 2 MiB" [ "$(field bytes)" = 2097152 ]
    check "the child left with _exit: not clean" grep -q '"exit_clean": false' report.json
    ;;
prefix)
    traced run1 exit 10
    pid=$(ls run1.*.vtr 2>/dev/null | sed 's/run1\.\([0-9]*\)\.vtr/\1/')
    check "a prefix gives PREFIX.<pid>.vtr" [ -n "$pid" ]
    check "the file is private (0600)" [ "$(stat -c %a run1.*.vtr)" = 600 ]
    ;;
live-owner)
    # A live process holds t.vtr: a second one writes t.<pid>.vtr instead of overwriting it.
    env -i PATH="$PATH" LD_LIBRARY_PATH="$sim" LD_PRELOAD="$lib" VRAMTRACE_OUTPUT=t.vtr \
        "$prog" hold 5 >hold.out 2>hold.err &
    holder=$!
    for _ in $(seq 100); do grep -q ready hold.out 2>/dev/null && break; sleep 0.05; done
    traced t.vtr exit 7
    second=$(ls t.*.vtr 2>/dev/null | wc -l)
    check "the second process wrote its own t.<pid>.vtr" [ "$second" -eq 1 ]
    kill "$holder" 2>/dev/null
    wait "$holder" 2>/dev/null
    json t.vtr
    check "the holder's trace is intact (1 alloc)" [ "$(field allocs)" = 1 ]
    # Once the owner is gone the file still holds its trace: a later run never truncates it,
    # and writes t.<pid>.vtr beside it.
    traced t.vtr exit 3
    json t.vtr
    check "a finished trace is kept (1 alloc)" [ "$(field allocs)" = 1 ]
    check "the later run wrote its own t.<pid>.vtr" [ "$(ls t.*.vtr | wc -l)" -eq 2 ]
    # An empty claim (a process that died between creating the file and writing it) is taken.
    : >e.vtr
    traced e.vtr exit 4
    json e.vtr
    check "an empty claim is taken" [ "$(field allocs)" = 4 ]
    ;;
symlink)
    ln -s /etc/passwd t.vtr
    traced t.vtr exit 5
    check "the program ran" grep -qx 'ready 5' out
    check "a symbolic link is never followed" grep -q "cannot write 't.vtr'" err
    check "/etc/passwd untouched" [ "$(head -c 4 /etc/passwd)" = "root" ]
    ;;
unwritable)
    env -i PATH="$PATH" LD_LIBRARY_PATH="$sim" VTSIM_DEVICE_MEMORY=4G "$prog" threads >plain.out 2>plain.err
    plain=$?
    traced /nonexistent/dir/t.vtr threads
    traced_status=$?
    check "same exit status" [ "$traced_status" -eq "$plain" ]
    check "same output" cmp -s out plain.out
    check "one warning naming the file" [ "$(grep -c "vramtrace: disabled: cannot write '/nonexistent/dir/t.vtr'" err)" -eq 1 ]
    ;;
fsize)
    # RLIMIT_FSIZE below one chunk: the writer stops instead of dying of SIGXFSZ.
    (ulimit -f 256 && env -i PATH="$PATH" LD_LIBRARY_PATH="$sim" LD_PRELOAD="$lib" \
        VRAMTRACE_OUTPUT=t.vtr VTSIM_DEVICE_MEMORY=4G "$prog" threads >out 2>err)
    status=$?
    check "the program exits normally" [ "$status" -eq 0 ]
    check "its output is whole" grep -qx 'ready 80000' out
    check "one warning about the limit" [ "$(grep -c 'file size limit' err)" -eq 1 ]
    ;;
oom)
    env -i PATH="$PATH" LD_LIBRARY_PATH="$sim" LD_PRELOAD="$lib" VRAMTRACE_OUTPUT=t.vtr \
        VTSIM_DEVICE_MEMORY=64M "$prog" oom >out 2>err
    check "the program saw out of memory (2)" grep -qx 'ready 2' out
    check "the stderr block names the request and its call-site" \
        grep -q "out of memory on device 0: cuMemAlloc_v2 of 32.0 MiB failed in ask_too_much" err
    check "the block gives the live bytes by category" \
        grep -q "live 52.0 MiB: weights 40.0 MiB, activations 12.0 MiB" err
    check "the block names the largest live call-sites" \
        grep -q "largest live call-sites: fill_weights (t_writer) < main (t_writer) < _start (t_writer) 40.0 MiB; fill_activations (t_writer) < main (t_writer) < _start (t_writer) 12.0 MiB" err
    "$vt" oom t.vtr >oom.txt 2>&1
    check "vramtrace oom: the request" grep -q "request: 32.00 MiB" oom.txt
    check "vramtrace oom: free and total from the memory-info sample" \
        grep -q "device: 12.00 MiB free of 64.00 MiB" oom.txt
    check "vramtrace oom: the call-site" grep -q "ask_too_much" oom.txt
    json t.vtr
    check "report: one failed allocation" [ "$(field failed_allocs)" = 1 ]
    ;;
capped)
    env -i PATH="$PATH" LD_LIBRARY_PATH="$sim" LD_PRELOAD="$lib" VRAMTRACE_OUTPUT=t.vtr \
        VRAMTRACE_MAX_SIZE=2M VTSIM_DEVICE_MEMORY=4G "$prog" capped >out 2>err
    check "the program ran to its end" grep -qx 'ready 2' out
    check "the trace stays within VRAMTRACE_MAX_SIZE" [ "$(stat -c %s t.vtr)" -le 2097152 ]
    json t.vtr
    check "the report says the trace was capped" [ "$(field capped_at_bytes)" = 2097152 ]
    check "the peak after the cap survives (1 GiB)" [ "$(field bytes)" = 1073741824 ]
    check "the OOM after the cap is recorded" [ "$(field failed_allocs)" = 1 ]
    check "END is in the reserve: a clean exit" grep -q '"exit_clean": true' report.json
    check "fewer allocations than made: the rest is summarized" [ "$(field allocs)" -lt 300000 ]
    "$vt" report t.vtr >report.txt 2>report.err
    check "the text report warns" grep -q "reached VRAMTRACE_MAX_SIZE" report.err
    ;;
*)
    echo "run_writer.sh: unknown case '$case_'" >&2
    exit 2
    ;;
esac
if [ $fail -ne 0 ]; then
    echo "--- stdout ---" >&2; cat out >&2 2>/dev/null
    echo "--- stderr ---" >&2; cat err >&2 2>/dev/null
    exit 1
fi
echo "1 passed, 0 failed"
