#!/bin/sh
# SPDX-License-Identifier: MIT
# run_oom_names.sh LIB SIMDIR PROGRAM: the in-process out-of-memory block names a C++ function
# as its source spells it when libstdc++ is in the process, folds libc's frames unless
# VRAMTRACE_ALL_FRAMES=1, and shows the mangled name (never fails) without libstdc++.
lib=$1 sim=$2 prog=$3
. "$(dirname "$0")/../../lib/preamble.sh"
run() {
    env -i PATH="$PATH" LD_LIBRARY_PATH="$sim" LD_PRELOAD="$lib" VRAMTRACE_OUTPUT=t.vtr \
        VTSIM_DEVICE_MEMORY=64M "$@" >out 2>err
}
run "$prog" cxx
[ $? -eq 77 ] && { echo "no libstdc++.so.6: skipped"; exit 77; }
check "the program saw out of memory" grep -qx 'out of memory: 1' out
check "the request's call-site demangled, libc's sort left out" \
    grep -q "failed in vt_test::Model::forward(int) (t_oom_names) < compare (t_oom_names) < main (t_oom_names)$" err
run VRAMTRACE_ALL_FRAMES=1 "$prog" cxx
# qsort is libc's, or a sanitizer runtime's interceptor in a sanitizer build.
check "VRAMTRACE_ALL_FRAMES=1: libc's frames shown" \
    grep -Eq "failed in vt_test::Model::forward\(int\) \(t_oom_names\) < compare \(t_oom_names\) < [^ ]* \((libc\.so\.6|libasan\.so\.[0-9]+|libtsan\.so\.[0-9]+)\)$" err
run "$prog"
check "without libstdc++: the program's own output" grep -qx 'out of memory: 1' out
# A sanitizer runtime (UBSan's) links libstdc++ into every process: no process without it there.
if ldd "$prog" | grep -q 'libstdc++'; then
    echo "libstdc++ is linked into every process here: the mangled-name case skipped"
else
    check "without libstdc++: the mangled name, and the program carries on" \
        grep -q "failed in _ZN7vt_test5Model7forwardEi (t_oom_names) < compare" err
fi
exit $fail
