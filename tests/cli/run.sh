#!/bin/sh
# SPDX-License-Identifier: MIT
# Golden tests of the vramtrace CLI (zstd tests/cli-tests). A case is tests/cli/<cmd>/<case>.sh,
# run by sh in an empty temporary directory with a clean environment and the built vramtrace
# first on PATH. Its stdout, stderr and exit status are compared with <case>.stdout.exact,
# <case>.stderr.exact and <case>.exit beside it (a missing file is not checked; no .exit means
# 0).
#
# usage: run.sh --bin DIR [--update] [CASE...]
#   --bin DIR  the directory holding the built vramtrace
#   --update   write the expected files from this run instead of comparing
#   CASE       <cmd>/<case> (no .sh); default: every case under tests/cli
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin="" update=0
while [ $# -gt 0 ]; do
    case $1 in
    --bin) bin=$2; shift 2 ;;
    --update) update=1; shift ;;
    -*) echo "run.sh: unknown option '$1'" >&2; exit 2 ;;
    *) break ;;
    esac
done
if [ -z "$bin" ] || [ ! -x "$bin/vramtrace" ]; then
    echo "run.sh: --bin DIR must hold the built vramtrace" >&2
    exit 2
fi
bin=$(cd "$bin" && pwd)
if [ $# -eq 0 ]; then
    set -- $(cd "$here" && find . -mindepth 2 -name '*.sh' | sed 's|^\./||; s|\.sh$||' | LC_ALL=C sort)
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n_failed=0
for case in "$@"; do
    script=$here/$case.sh
    if [ ! -f "$script" ]; then
        echo "run.sh: no case '$case'" >&2
        exit 2
    fi
    rm -rf "$tmp/cwd" && mkdir "$tmp/cwd"
    (cd "$tmp/cwd" && env -i PATH="$bin:$PATH" HOME="$tmp/cwd" LC_ALL=C sh "$script") \
        >"$tmp/stdout" 2>"$tmp/stderr"
    echo $? >"$tmp/exit"
    if [ $update = 1 ]; then
        cp "$tmp/stdout" "$here/$case.stdout.exact"
        cp "$tmp/stderr" "$here/$case.stderr.exact"
        cp "$tmp/exit" "$here/$case.exit"
        echo "updated $case"
        continue
    fi
    [ -f "$here/$case.exit" ] || echo 0 >"$tmp/want_exit"
    [ -f "$here/$case.exit" ] && cp "$here/$case.exit" "$tmp/want_exit"
    failed=0
    for part in stdout stderr; do
        want=$here/$case.$part.exact
        if [ -f "$want" ] && ! cmp -s "$want" "$tmp/$part"; then
            echo "FAIL $case: $part differs" >&2
            diff -u "$want" "$tmp/$part" >&2
            failed=1
        fi
    done
    if ! cmp -s "$tmp/want_exit" "$tmp/exit"; then
        echo "FAIL $case: exit status $(cat "$tmp/exit"), want $(cat "$tmp/want_exit")" >&2
        failed=1
    fi
    if [ $failed = 0 ]; then
        echo "ok   $case"
    else
        n_failed=$((n_failed + 1))
    fi
done
[ $n_failed = 0 ]
