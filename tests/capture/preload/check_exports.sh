#!/bin/sh
# SPDX-License-Identifier: MIT
# check_exports.sh NM LIB EXPECTED: the dynamic symbols LIB defines must be exactly the sorted
# names in EXPECTED (libunwind check-namespace). A new export means exports.map, this list and
# a reason in the commit. A VRAMTRACE_SANITIZE build also exports its built-in sanitizer options
# (cmake/vt_sanitizer_options.c); those are left out.
set -u
nm=$1 lib=$2 expected=$3
got=$("$nm" -D --defined-only "$lib" | awk '{ print $NF }' |
    grep -v '^__[a-z]*san_default_\(options\|suppressions\)$' | LC_ALL=C sort) || exit 1
if [ "$got" != "$(cat "$expected")" ]; then
    echo "check_exports: exports of $lib differ from $expected:" >&2
    printf '%s\n' "$got" | diff -u "$expected" - >&2
    exit 1
fi
echo "exports:" $got
