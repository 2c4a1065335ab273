#!/bin/sh
# SPDX-License-Identifier: MIT
# run_python.sh LIB SIMDIR PYTHON HELPER EXPECTED [VAR=VALUE...]
# Runs train.py (next to this script; VT_TEST_SCRIPT in the caller's environment names another
# script here, such as reuse.py or nogil.py) with interpreter PYTHON, libvramtrace.so (LIB) preloaded on the
# simulated device (SIMDIR on LD_LIBRARY_PATH), in a clean environment (PATH, the simulator,
# VRAMTRACE_VERBOSE=1 and the given VAR=VALUE settings), and requires exit status 0, the
# script's own "<script>: ok", and the library's `vramtrace: category` lines to be exactly
# EXPECTED (peak_t_ns is a clock reading: a non-zero one reads peak_t_ns=T). With VT_TEST_CLI
# (the vramtrace analyzer) in the caller's environment, the trace's folded stacks are also
# checked by "SCRIPT --check FOLDED nogil-lines.txt" (nogil.py's frames, lines and order). Exit 77 (skip) when
# PYTHON is "-" (none found) or not CPython 3.8-3.13 with ctypes. A pyenv shim is resolved to
# the interpreter it runs first, with the caller's environment, since the clean one would lose
# its settings.
lib=$1 simdir=$2 python=$3 helper=$4 expected=$5
shift 5
script=${VT_TEST_SCRIPT:-train.py} # another script of this directory (reuse.py)
here=$(cd "$(dirname "$0")" && pwd)
if [ "$python" = - ] || [ -z "$python" ]; then
    echo "SKIP: no Python 3 interpreter"
    exit 77
fi
real=$("$python" -c 'import sys, ctypes
if (3, 8) <= sys.version_info[:2] <= (3, 13) and sys.implementation.name == "cpython":
    print(sys.executable)' 2>/dev/null)
if [ -z "$real" ]; then
    echo "SKIP: '$python' is not CPython 3.8-3.13 with ctypes"
    exit 77
fi
. "$(dirname "$0")/../../lib/preamble.sh"

# shellcheck disable=SC2068 # VAR=VALUE words without spaces
(cd "$tmp" && env -i PATH="$PATH" LD_LIBRARY_PATH="$simdir" LD_PRELOAD="$lib" \
    VRAMTRACE_VERBOSE=1 VRAMTRACE_OUTPUT="$tmp/trace" $@ \
    "$real" "$here/$script" "$helper" >"$tmp/out" 2>"$tmp/err")
status=$?

grep -E '^vramtrace: category ' "$tmp/err" | sed -E 's/peak_t_ns=[1-9][0-9]*/peak_t_ns=T/' >"$tmp/got"

if [ -n "${VT_TEST_CLI:-}" ] && [ "$status" -eq 0 ]; then
    if ! "$VT_TEST_CLI" export "$tmp"/trace.*.vtr --format folded -o "$tmp/folded" >>"$tmp/out" 2>&1 ||
        ! "$real" "$here/$script" --check "$tmp/folded" "$tmp/nogil-lines.txt" >>"$tmp/out" 2>&1; then
        echo "run_python.sh: the folded stacks fail $script --check" >&2
        fail=1
    fi
    # The views: the script's frames shown, the interpreter's, libffi's and libc's left out by
    # default and shown with --all-frames; the in-process OOM block names the Python frame.
    for view in leaks report oom html; do
        for all in "" --all-frames; do
            out=$tmp/view-$view$all
            case $view in
            html)
                # what the page shows: its script's data holds every frame, for its toggle
                "$VT_TEST_CLI" html "$tmp"/trace.*.vtr -o "$out.page" $all >/dev/null 2>&1
                sed '/<script/,/<\/script>/d' "$out.page" >"$out"
                ;;
            *) "$VT_TEST_CLI" "$view" "$tmp"/trace.*.vtr $all >"$out" 2>&1 ;;
            esac
            # (every frame shown, the innermost few may all be the interpreter's)
            if [ -z "$all" ] && ! grep -q "nogil.py:" "$out"; then
                echo "run_python.sh: '$view' shows no frame of nogil.py" >&2
                fail=1
            fi
            shown=0
            grep -q "_PyEval_EvalFrameDefault\|ffi_call\|libc.so" "$out" && shown=1
            if [ -z "$all" ] && [ $shown = 1 ]; then
                echo "run_python.sh: '$view' shows interpreter, libffi or libc frames:" >&2
                cat "$out" >&2
                fail=1
            elif [ -n "$all" ] && [ $shown = 0 ]; then
                echo "run_python.sh: '$view --all-frames' hides the interpreter's frames" >&2
                fail=1
            fi
        done
    done
    if ! grep -q "out of memory on device 0: .* failed in cudaMalloc (libcudart.so.13) < nogil_runtime_alloc (libnogil.so) < .*nogil.py:too_big_for_the_device:" "$tmp/err"; then
        echo "run_python.sh: the out-of-memory block does not name the Python frame" >&2
        fail=1
    fi
fi
if [ "$status" -ne 0 ]; then
    echo "run_python.sh: $real exited with status $status, want 0" >&2
    fail=1
fi
if ! grep -qx "$script: ok" "$tmp/out"; then
    echo "run_python.sh: $script did not finish" >&2
    fail=1
fi
if ! diff -u "$expected" "$tmp/got" >"$tmp/diff"; then
    echo "run_python.sh: the category lines differ from $expected:" >&2
    cat "$tmp/diff" >&2
    fail=1
fi
if [ $fail -ne 0 ]; then
    echo "--- stdout ---" >&2
    cat "$tmp/out" >&2
    echo "--- stderr ---" >&2
    cat "$tmp/err" >&2
fi
exit $fail
