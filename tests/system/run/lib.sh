# SPDX-License-Identifier: MIT
# Sourced by the tests/system/run scripts: $vramtrace and $prog from the arguments, an empty working
# directory $cwd (removed at exit, symbolic links resolved: the launcher makes -o absolute with
# getcwd), and fail/expect helpers.
set -u
vramtrace=$1 prog=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" && cwd=$(pwd -P) || exit 1
unset LD_PRELOAD LD_LIBRARY_PATH VTSIM_DEVICE_MEMORY PYTORCH_NO_CUDA_MEMORY_CACHING \
    XLA_PYTHON_CLIENT_ALLOCATOR TF_FORCE_GPU_ALLOW_GROWTH VRAMTRACE_OUTPUT VRAMTRACE_RULES \
    VRAMTRACE_DEPTH VRAMTRACE_QUIET VRAMTRACE_DISABLE VRAMTRACE_VERBOSE

fail()
{
    echo "FAIL: $*" >&2
    for f in out err; do
        [ -f "$f" ] && { echo "--- $f:" >&2; cat "$f" >&2; }
    done
    exit 1
}

# expect WHAT GOT WANT
expect()
{
    [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
}
