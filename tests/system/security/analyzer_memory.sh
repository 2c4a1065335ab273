#!/bin/sh
# SPDX-License-Identifier: MIT
# analyzer_memory.sh VRAMTRACE_BIN MKTRACE SANITIZE: the CLI caps its own memory (RLIMIT_DATA,
# --memory-limit, docs/reliability.md). A trace whose live set is 400 000 allocations (5 MiB on
# disk, ~45 MiB of analysis memory): under a 16 MiB cap every analysis command
# fails cleanly, exit 1 and one line; with the default cap (half the RAM) report reads it.
# Skipped (77) in a sanitizer build, where the cap is never set (SANITIZE: the build's
# VRAMTRACE_SANITIZE list).
set -u
vt=$1 mktrace=$2 sanitize=${3:-}
case $sanitize in
*address* | *thread* | *memory*)
    echo "analyzer_memory.sh: a $sanitize build sets no memory cap: skipped"
    exit 77
    ;;
esac
. "$(dirname "$0")/../../lib/preamble.sh"
n=400000
{
    echo 'process t0=1000000000 start=1700000000000000000 pid=7 ppid=1 host=sim exe=/bin/x cmdline=x'
    echo 'device 0 "Sim GPU" 16T'
    echo 'apis none cuMemAlloc_v2 cuMemFree_v2'
    echo 'thread 1 7 x'
    awk -v n=$n 'BEGIN { for (i = 1; i <= n; i++) printf "alloc dt=1 dev=0 api=1 addr=0x%x0000 size=4096\n", i }'
    echo 'end dt=1000'
} | "$mktrace" big.vtr || { echo "FAIL analyzer_memory: vt-mktrace" >&2; exit 1; }

for cmd in report leaks timeline oom; do
    "$vt" --memory-limit 16M $cmd big.vtr >"$cmd.out" 2>"$cmd.err"
    st=$?
    check "$cmd under 16 MiB: exit 1, got $st: $(head -c 300 "$cmd.err")" [ $st = 1 ]
    check "$cmd under 16 MiB: one line, out of memory: $(head -c 300 "$cmd.err")" \
        sh -c '[ "$(wc -l <"$1")" = 1 ] && grep -q "^vramtrace: .*out of memory" "$1"' sh "$cmd.err"
done
"$vt" --memory-limit=16MiB report --json big.vtr >json.out 2>json.err
check "report --json under 16 MiB: exit 1 ($?)" [ $? = 1 ]
"$vt" report --json big.vtr >default.json 2>default.err
check "the default cap: report reads it ($?: $(cat default.err))" [ $? = 0 ]
check "the default cap: every allocation" grep -q "\"allocs\": $n," default.json
"$vt" --memory-limit none report --json big.vtr >none.json 2>none.err
check "--memory-limit none: report reads it ($?: $(cat none.err))" [ $? = 0 ]
"$vt" --memory-limit 1.5X report big.vtr >bad.out 2>bad.err
check "a bad size: exit 2 ($?)" [ $? = 2 ]
check "a bad size: says so" grep -q "invalid --memory-limit '1.5X'" bad.err
"$vt" --memory-limit >bad2.out 2>bad2.err
check "no size: exit 2 ($?)" [ $? = 2 ]
# The cap is the CLI's own: `run` does not pass it on to the traced command.
"$vt" --memory-limit 16M run --quiet -o "$tmp/r.vtr" -- sh -c 'ulimit -d' >run.out 2>run.err
check "run: CMD's data limit untouched ($(cat run.out run.err))" grep -qx "$(ulimit -d)" run.out
[ $fail -eq 0 ] && echo "1 passed, 0 failed"
exit $fail
