#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# validate.sh: vramtrace on a real NVIDIA GPU, in one run of at most 8 minutes (docs/validation.md).
#
#   usage: tests/system/gpu/validate.sh [--check]
#
#   1. builds libvramtrace.so, the vramtrace CLI, train_mlp (shared cudart) and train_mlp_static
#      (nvcc's default static cudart) with nvcc, for the compute capability of GPU 0;
#   2. runs both train_mlp builds under `vramtrace run`: each must exit 0 (its loss fell) and
#      the peak's categories must be exactly examples/models/train_mlp.model's, unknown 0;
#   3. runs examples/pytorch/train.py untraced and under `vramtrace run` in four allocator modes
#      (default caching, expandable_segments:True, backend:cudaMallocAsync,
#      PYTORCH_NO_CUDA_MEMORY_CACHING=1) and prints one table: mode, vramtrace's device peak,
#      torch.cuda.max_memory_reserved(), their difference, the categories at the peak, and the
#      step time traced / untraced.
#
# Logs, traces and the table (table.txt) go to $OUT when it is set, else to a temporary folder
# removed at exit. The build goes to $VALIDATE_BUILD_DIR (default: a temporary folder).
# PYTHON picks the interpreter with PyTorch (default python3).
# Exit status: 0 all passed; 1 a step failed; 2 usage; 77 no GPU (or --check): skipped after
# checking what can be checked without one (tools present, sources there, train.py parses).
set -u
here=$(cd "$(dirname "$0")" && pwd) || exit 1
src=$(cd "$here/../../.." && pwd) || exit 1
python=${PYTHON:-python3}
deadline=$((SECONDS + 480))
status=0

case ${1-} in
"") check_only=0 ;;
--check) check_only=1 ;;
-h | --help)
    sed -n '3,21p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
*)
    echo "usage: validate.sh [--check]" >&2
    exit 2
    ;;
esac

say()
{
    echo "validate: $*"
}

fail()
{
    echo "validate: FAIL: $*" >&2
    status=1
}

# --- what can be checked without a GPU -----------------------------------------------------
for f in CMakeLists.txt examples/train_mlp.cu examples/models/train_mlp.model \
    examples/pytorch/train.py; do
    [ -f "$src/$f" ] || {
        echo "validate: FAIL: $src/$f is missing" >&2
        exit 1
    }
done
missing=""
for tool in cmake nvcc nvidia-smi "$python"; do
    command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
[ -z "$missing" ] || say "not found:$missing"
if command -v "$python" >/dev/null 2>&1; then
    # Parse without writing __pycache__ into the source tree.
    "$python" -c 'import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])' \
        "$src/examples/pytorch/train.py" || {
        echo "validate: FAIL: examples/pytorch/train.py does not parse" >&2
        exit 1
    }
fi
gpu=$(nvidia-smi --query-gpu=name,compute_cap --format=csv,noheader -i 0 2>/dev/null | head -n 1)
if [ "$check_only" = 1 ] || [ -z "$gpu" ]; then
    say "no NVIDIA GPU (nvidia-smi lists none): skipped after the checks that need none"
    exit 77
fi
[ -z "$missing" ] || {
    echo "validate: FAIL: a GPU is present but these are missing:$missing" >&2
    exit 1
}
say "GPU 0: $gpu"

# --- where things go ----------------------------------------------------------------------
if [ -n "${OUT-}" ]; then
    work=$OUT
    mkdir -p "$work" || exit 1
else
    work=$(mktemp -d) || exit 1
fi
build=${VALIDATE_BUILD_DIR-}
[ -n "$build" ] || build=$(mktemp -d) || exit 1
# shellcheck disable=SC2317 # run by the trap
cleanup()
{
    [ -n "${OUT-}" ] || rm -rf "$work"
    [ -n "${VALIDATE_BUILD_DIR-}" ] || rm -rf "$build"
}
trap cleanup EXIT

# limited LIMIT LOG CMD...: runs CMD with stdout and stderr in LOG, for at most LIMIT seconds
# and never past the deadline; its exit status (124 on a timeout).
limited()
{
    local limit=$1 log=$2 left=$((deadline - SECONDS))
    shift 2
    [ "$left" -lt "$limit" ] && limit=$left
    if [ "$limit" -le 0 ]; then
        echo "validate: out of time before: $*" >"$log"
        return 124
    fi
    timeout -k 5 "$limit" "$@" >"$log" 2>&1
}

# peak_of TRACE: "bytes=N" then "CATEGORY=N" for the report's peak, one per line.
peak_of()
{
    "$vt" report --json "$1" 2>/dev/null | awk '
        /^  "peak": \{/ { p = 1; next }
        p && !c && /"bytes":/ { gsub(/[",]/, ""); print "bytes=" $2 }
        p && /"by_category": \{/ { c = 1; next }
        c && /\}/ { exit }
        c { gsub(/[",]/, ""); sub(/:/, ""); print $1 "=" $2 }'
}

# value KEY TEXT: the value of KEY=VALUE in TEXT (lines or space-separated words).
value()
{
    printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1
}

# --- 1. build -----------------------------------------------------------------------------
arch=$(printf '%s\n' "$gpu" | sed -n 's/.*, *\([0-9]*\)\.\([0-9]*\)$/\1\2/p')
[ -n "$arch" ] || arch=native
say "building in $build for sm_$arch"
# shellcheck disable=SC2016 # the inner sh expands its own arguments
if ! limited 240 "$work/build.log" sh -c 'cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release \
        -DVRAMTRACE_BUILD_TESTS=OFF -DVRAMTRACE_BUILD_BENCH=OFF -DCMAKE_CUDA_ARCHITECTURES="$3" &&
        cmake --build "$2" -j "$(nproc)" --target vramtrace_preload vramtrace_cli train_mlp \
        train_mlp_static' sh "$src" "$build" "$arch"; then
    tail -n 20 "$work/build.log" >&2
    echo "validate: FAIL: the build failed ($work/build.log)" >&2
    exit 1
fi
vt=$build/tools/vramtrace

# --- 2. train_mlp, static and shared cudart -----------------------------------------------
want="weights=1597480 gradients=1597480 optimizer=3194960 activations=529408 data=131584"
want="$want workspace=529920 unknown=0"
for prog in train_mlp_static train_mlp; do
    log=$work/$prog.log
    limited 60 "$log" "$vt" run -o "$work/$prog.vtr" -- "$build/examples/$prog"
    rc=$?
    if [ "$rc" != 0 ]; then
        fail "$prog: exit status $rc: $(grep -m 1 '^train_mlp: .*\(FAIL\|failed\)' "$log")"
        continue
    fi
    say "$prog: $(sed -n 's/^train_mlp: \(the loss\)/\1/p' "$log")"
    peak=$(peak_of "$work/$prog.vtr")
    for kv in $want; do
        got=$(value "${kv%%=*}" "$peak")
        [ "$got" = "${kv#*=}" ] || fail "$prog: peak ${kv%%=*} is '$got', want ${kv#*=}"
    done
done

# --- 3. train.py in four allocator modes --------------------------------------------------
if ! "$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' \
    >/dev/null 2>&1; then
    fail "$python has no PyTorch with CUDA: the train.py rows are missing"
    exit 1
fi
mib()
{
    awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'
}
table=$work/table.txt
printf '%-22s %14s %14s %12s %8s  %s\n' mode "vramtrace MiB" "reserved MiB" "diff MiB" \
    "time x" "categories at the peak (MiB)" >"$table"
for mode in caching expandable async nocache; do
    unset PYTORCH_CUDA_ALLOC_CONF PYTORCH_NO_CUDA_MEMORY_CACHING
    case $mode in
    expandable) export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True ;;
    async) export PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync ;;
    nocache) export PYTORCH_NO_CUDA_MEMORY_CACHING=1 ;;
    esac
    plain=$work/train_py.$mode.untraced.log traced=$work/train_py.$mode.log
    if ! limited 90 "$plain" "$python" "$src/examples/pytorch/train.py"; then
        fail "train.py ($mode, untraced) failed: $plain"
        continue
    fi
    if ! limited 90 "$traced" "$vt" run -o "$work/train_py.$mode.vtr" -- \
        "$python" "$src/examples/pytorch/train.py"; then
        fail "train.py ($mode, traced) failed: $traced"
        continue
    fi
    out=$(sed -n 's/^train\.py: //p' "$traced")
    reserved=$(value max_memory_reserved "$out")
    traced_ms=$(value step_ms "$out")
    plain_ms=$(value step_ms "$(sed -n 's/^train\.py: //p' "$plain")")
    peak=$(peak_of "$work/train_py.$mode.vtr")
    bytes=$(value bytes "$peak")
    if [ -z "$reserved" ] || [ -z "$bytes" ] || [ -z "$traced_ms" ] || [ -z "$plain_ms" ]; then
        fail "train.py ($mode): a number is missing (see $traced)"
        continue
    fi
    cats=$(printf '%s\n' "$peak" | awk -F= '$1 != "bytes" && $2 > 0 {
        printf "%s%s=%.1f", sep, $1, $2 / 1048576; sep = "," }')
    ratio=$(awk -v a="$traced_ms" -v b="$plain_ms" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
    printf '%-22s %14s %14s %12s %8s  %s\n' "$mode" "$(mib "$bytes")" "$(mib "$reserved")" \
        "$(mib $((bytes - reserved)))" "$ratio" "${cats:-none}" >>"$table"
done
unset PYTORCH_CUDA_ALLOC_CONF PYTORCH_NO_CUDA_MEMORY_CACHING
cat <<EOF

modes: caching = PyTorch's default caching allocator; expandable = expandable_segments:True;
async = backend:cudaMallocAsync; nocache = PYTORCH_NO_CUDA_MEMORY_CACHING=1.
diff = vramtrace's device peak - torch.cuda.max_memory_reserved(); time x = step time traced /
untraced (median of the steps after the warm-up).
EOF
cat "$table"
[ -n "${OUT-}" ] && say "logs and traces in $OUT"
[ "$status" = 0 ] && say "passed ($((SECONDS)) s)"
exit "$status"
