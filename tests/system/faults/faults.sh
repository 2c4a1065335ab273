#!/bin/sh
# SPDX-License-Identifier: MIT
# faults.sh CASE VRAMTRACE LIB SIMDIR PROGRAM AFTER_LIB DLMOVE NOTUNWIND_LIB: t_faults CASE (case dlmove:
# the program DLMOVE, t_dlmove) untraced and traced on the
# simulated device (AFTER_LIB preloaded after vramtrace in the after-exit case). The output and the exit status must be the same (vramtrace never changes the program);
# then the trace must hold what the case says.
. "$(dirname "$0")/../../lib/preamble.sh"
case_=$1 vt=$2 lib=$3 sim=$4 prog=$5 after=$6
[ "$case_" = dlmove ] && prog=$7
check_name="faults $case_"
args=$case_ plain_preload="" traced_preload=$lib
[ "$case_" = dlmove ] && args=""
[ "$case_" = segv ] && args="segv 20000"
[ "$case_" = after-exit ] && plain_preload=$after traced_preload="$lib $after"
# nounwind-*: libunwind cannot be used. The library opens it by its soname when the first
# call-site is taken, so a directory searched first holds a stand-in: an empty file (the open
# fails) or a library without libunwind's functions (libnotunwind.so). The program's pairs are
# the dlclose case's.
libpath=$sim
case $case_ in
nounwind-*)
    if ldd "$lib" | grep -q libunwind; then
        echo "SKIP: this build links libunwind at load (sanitizer builds): nothing to stand in for"
        exit 77
    fi
    mkdir stand-in
    if [ "$case_" = nounwind-missing ]; then : >stand-in/libunwind.so.8; else cp "$8" stand-in/libunwind.so.8; fi
    libpath=$sim:$tmp/stand-in args=dlclose
    ;;
esac
# shellcheck disable=SC2086 # args are words
env -i PATH="$PATH" LD_LIBRARY_PATH="$libpath" VTSIM_DEVICE_MEMORY=4G LD_PRELOAD="$plain_preload" \
    "$prog" $args >plain 2>plain.err
plain_status=$?
# shellcheck disable=SC2086
env -i PATH="$PATH" LD_LIBRARY_PATH="$libpath" VTSIM_DEVICE_MEMORY=4G LD_PRELOAD="$traced_preload" \
    VRAMTRACE_OUTPUT="$tmp/t.vtr" VRAMTRACE_QUIET=1 "$prog" $args >traced 2>traced.err
traced_status=$?
check "exit status $traced_status traced, $plain_status untraced" [ "$traced_status" = "$plain_status" ]
check "the same output traced and untraced: $(diff plain traced)" cmp -s plain traced
cat traced
json() { "$vt" report --json t.vtr >report.json 2>report.err; }
field() { sed -n "s/.*\"$1\": \([0-9a-z]*\).*/\1/p" report.json | head -n 1; }
case $case_ in
segv)
    check "killed by SIGSEGV (139): $plain_status" [ "$plain_status" = 139 ]
    json
    check "the trace of a crashed process reads ($(cat report.err))" [ $? -eq 0 ]
    n=$(sed -n 's/^ready //p' traced)
    allocs=$(field allocs)
    check "every pair before the crash is in the trace: $allocs >= ${n:-?}" [ "${allocs:-0}" -ge "${n:-1}" ]
    check "the trace says the process did not exit cleanly" [ "$(field exit_clean)" = false ]
    ;;
after-exit)
    check "exit 0" [ "$plain_status" = 0 ]
    check "four pairs made, all succeeded" [ "$(grep -c ': alloc 0 free 0$' traced)" = 4 ]
    check "the last library's pair came last" [ "$(tail -n 1 traced)" = "last library: alloc 0 free 0" ]
    json
    check "the trace reads ($(cat report.err))" [ $? -eq 0 ]
    check "a clean exit" [ "$(field exit_clean)" = true ]
    # main's, the atexit handler's and the program's destructor's pairs come before vramtrace's
    # exit (a preloaded library is finalized after the program); the last library's after it.
    check "the three pairs before vramtrace's exit recorded: $(field allocs)" [ "$(field allocs)" = 3 ]
    check "nothing live" [ "$(field leaked_bytes)" = 0 ]
    check "no complaint on stderr: $(cat traced.err)" [ ! -s traced.err ]
    ;;
dlmove)
    check "exit 0" [ "$plain_status" = 0 ]
    # Untraced, each library really was unloaded and loaded elsewhere, or the case proves nothing.
    at() { sed -n "s/^$1: at //p" plain.err; }
    check "the driver moved untraced: $(at 'driver, first load') -> $(at 'driver, loaded again')" \
        [ "$(at 'driver, first load')" != "$(at 'driver, loaded again')" ]
    check "the runtime moved untraced: $(at 'runtime, first load') -> $(at 'runtime, loaded again')" \
        [ "$(at 'runtime, first load')" != "$(at 'runtime, loaded again')" ]
    json
    check "the trace reads ($(cat report.err))" [ $? -eq 0 ]
    check "all four pairs recorded: $(field allocs) allocs" [ "$(field allocs)" = 4 ]
    check "all four freed" [ "$(field frees)" = 4 ]
    ;;
dlclose)
    check "exit 0" [ "$plain_status" = 0 ]
    json
    check "the trace reads ($(cat report.err))" [ $? -eq 0 ]
    check "both pairs recorded across the dlclose: $(field allocs) allocs" [ "$(field allocs)" = 2 ]
    check "both freed" [ "$(field frees)" = 2 ]
    ;;
nounwind-missing | nounwind-lacking)
    check "exit 0" [ "$plain_status" = 0 ]
    if [ "$case_" = nounwind-missing ]; then
        want="vramtrace: cannot open libunwind.so.8 (*): call-sites have no native frames"
    else
        want="vramtrace: libunwind.so.8 lacks a function we call: call-sites have no native frames"
    fi
    # shellcheck disable=SC2254 # want is a pattern
    count=0
    while IFS= read -r line; do case $line in $want) count=$((count + 1)) ;; esac; done <traced.err
    check "one warning, even with VRAMTRACE_QUIET: $(cat traced.err)" [ "$count" = 1 ]
    check "nothing else on stderr: $(cat traced.err)" [ "$(wc -l <traced.err)" = 1 ]
    json
    check "the trace reads ($(cat report.err))" [ $? -eq 0 ]
    check "both pairs recorded: $(field allocs) allocs" [ "$(field allocs)" = 2 ]
    check "both freed" [ "$(field frees)" = 2 ]
    "$vt" report t.vtr >report.txt 2>&1
    check "the peak's call-site is unknown: $(grep -A1 'top call-sites' report.txt)" \
        grep -q '(no call-site recorded)' report.txt
    ;;
deepbind)
    check "exit 0" [ "$plain_status" = 0 ]
    # What a deep-bound runtime does may bypass the preload: the trace may lack its pair, but
    # the pair made after it, through the normal door, is recorded.
    json
    check "the trace reads ($(cat report.err))" [ $? -eq 0 ]
    check "the pair after it recorded: $(field allocs) allocs" [ "$(field allocs)" -ge 1 ]
    check "nothing live" [ "$(field leaked_bytes)" = 0 ]
    ;;
*)
    echo "faults.sh: unknown case '$case_'" >&2
    exit 2
    ;;
esac
exit $fail
