#!/bin/sh
# SPDX-License-Identifier: MIT
# check_exports.sh NM LIB EXPECTED: the dynamic symbols LIB defines must be exactly the sorted
# names in EXPECTED (libunwind check-namespace). A new export means exports.map, this list and
# a reason in the commit. A VRAMTRACE_SANITIZE build also exports its built-in sanitizer options
# (cmake/vt_sanitizer_options.c); those are left out.
nm=$1 lib=$2 expected=$3
. "$(dirname "$0")/../../lib/preamble.sh"
"$nm" -D --defined-only "$lib" >symbols || exit 1
awk '{ print $NF }' symbols | grep -v '^__[a-z]*san_default_\(options\|suppressions\)$' |
    LC_ALL=C sort >exports
check "the exports of $lib differ from $expected (diff above)" diff -u "$expected" exports
[ $fail = 0 ] && echo "exports:" $(cat exports)
exit $fail
