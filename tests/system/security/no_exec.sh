#!/bin/sh
# SPDX-License-Identifier: MIT
# no_exec.sh LIB: libvramtrace.so never starts a shell or another program (docs/reliability.md):
# none of the functions that can do so is among its undefined dynamic symbols. It could still
# reach one through dlsym; the library looks up CUDA names only (src/hooks.def).
set -u
lib=$1
syms=$(nm -D --undefined-only "$lib" | awk '{ print $NF }' | sed 's/@.*//') || exit 1
[ -n "$syms" ] || { echo "FAIL: no undefined symbols read from '$lib'" >&2; exit 1; }
bad=$(printf '%s\n' "$syms" | grep -E '^(system|popen|execl|execlp|execle|execv|execvp|execvpe|execve|execveat|fexecve|posix_spawn|posix_spawnp|fork|vfork|_Fork|clone|clone3|wordexp)$')
if [ -n "$bad" ]; then
    echo "FAIL: libvramtrace.so references: $(echo $bad)" >&2
    exit 1
fi
echo "1 passed, 0 failed: $(printf '%s\n' "$syms" | wc -l) undefined symbols, none starts a program"
