#!/bin/sh
# SPDX-License-Identifier: MIT
# CMD's environment under `vramtrace run`: LD_PRELOAD with the library first, joined to an
# existing value with its own separator; the options as VRAMTRACE_* variables (absolute paths);
# --per-tensor's and --no-caching's variables without overriding the user's; --simulate's LD_LIBRARY_PATH and
# VTSIM_DEVICE_MEMORY.
. "$(dirname "$0")/lib.sh"
show='printf "%s|" "$LD_PRELOAD"'

lib=$("$vramtrace" run -- sh -c 'printf %s "$LD_PRELOAD"')
case $lib in
/*/libvramtrace.so) ;;
*) fail "LD_PRELOAD '$lib' is not an absolute libvramtrace.so" ;;
esac
[ -f "$lib" ] || fail "'$lib' does not exist"
# ld.so complains about the made-up libraries on stderr; only the value matters.
got=$(LD_PRELOAD="a.so:b.so" "$vramtrace" run -- sh -c "$show" 2>/dev/null)
expect "colons" "$got" "$lib:a.so:b.so|"
got=$(LD_PRELOAD="a.so b.so" "$vramtrace" run -- sh -c "$show" 2>/dev/null)
expect "spaces" "$got" "$lib a.so b.so|"
got=$(LD_PRELOAD="a.so" "$vramtrace" run -- sh -c "$show" 2>/dev/null)
expect "one library" "$got" "$lib:a.so|"
got=$("$vramtrace" run --lib "$lib" -- sh -c "$show")
expect "--lib" "$got" "$lib|"

"$vramtrace" rules --defaults >rules.txt
options='printf "%s|" "$VRAMTRACE_OUTPUT" "$VRAMTRACE_RULES" "$VRAMTRACE_DEPTH" "$VRAMTRACE_QUIET"'
got=$("$vramtrace" run -o T.vtr --rules rules.txt --depth 7 --quiet -- sh -c "$options")
expect "options" "$got" "$cwd/T.vtr|$cwd/rules.txt|7|1|"
unset_options='printf "%s|" "${VRAMTRACE_OUTPUT-unset}" "${VRAMTRACE_QUIET-unset}" "${VRAMTRACE_DEFAULT_RULES-unset}"'
got=$("$vramtrace" run -- sh -c "$unset_options")
expect "no options" "$got" "unset|unset|unset|"
got=$("$vramtrace" run --no-default-rules -- sh -c 'printf "%s|" "$VRAMTRACE_DEFAULT_RULES"')
expect "--no-default-rules" "$got" "0|"
"$vramtrace" run --rules missing.txt -- true 2>err
expect "missing rules" $? 1
expect "missing rules: stderr" "$(cat err)" \
    "vramtrace: cannot read rules 'missing.txt': No such file or directory"
"$vramtrace" run -o no-dir/T.vtr -- true 2>err
expect "missing directory" $? 1
expect "missing directory: stderr" "$(cat err)" \
    "vramtrace: cannot write a trace in '$cwd/no-dir': No such file or directory"

per_tensor='printf "%s|" "$PYTORCH_NO_CUDA_MEMORY_CACHING" "$XLA_PYTHON_CLIENT_ALLOCATOR"
    printf "%s|" "$TF_FORCE_GPU_ALLOW_GROWTH"'
got=$("$vramtrace" run --no-caching -- sh -c "$per_tensor")
expect "--no-caching" "$got" "1|platform|true|"
got=$(PYTORCH_NO_CUDA_MEMORY_CACHING=0 TF_FORCE_GPU_ALLOW_GROWTH=false \
    "$vramtrace" run --no-caching -- sh -c "$per_tensor")
expect "--no-caching, user's values" "$got" "0|platform|false|"
got=$("$vramtrace" run -- sh -c 'printf "%s|" "${PYTORCH_NO_CUDA_MEMORY_CACHING-unset}"')
expect "no --no-caching" "$got" "unset|"
got=$("$vramtrace" run --per-tensor -- sh -c 'printf "%s|" "${PYTORCH_NO_CUDA_MEMORY_CACHING-unset}"')
expect "--per-tensor keeps the cache" "$got" "unset|"

sim='printf "%s|" "$LD_LIBRARY_PATH" "$VTSIM_DEVICE_MEMORY"'
got=$("$vramtrace" run --simulate -- sh -c "$sim")
case $got in
/*/sim\|16G\|) simdir=${got%%|*} ;;
*) fail "--simulate: '$got'" ;;
esac
[ -f "$simdir/libcuda.so.1" ] || fail "no libcuda.so.1 in '$simdir'"
got=$(LD_LIBRARY_PATH=/x:/y VTSIM_DEVICE_MEMORY=2G "$vramtrace" run --simulate -- sh -c "$sim")
expect "--simulate, user's values" "$got" "$simdir:/x:/y|2G|"
got=$(VTSIM_DEVICE_MEMORY=2G "$vramtrace" run --simulate=1GiB -- sh -c "$sim")
expect "--simulate=1GiB" "$got" "$simdir|1073741824|"
# The one size grammar: a fraction, and GB as a power of 1000 (1.5G was refused before).
got=$("$vramtrace" run --simulate=1.5G -- sh -c "$sim")
expect "--simulate=1.5G" "$got" "$simdir|1610612736|"
got=$("$vramtrace" run --simulate=2gb -- sh -c "$sim")
expect "--simulate=2gb" "$got" "$simdir|2000000000|"
echo "ok"
