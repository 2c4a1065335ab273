#!/bin/sh
# SPDX-License-Identifier: MIT
# self_contained.sh SOURCE_DIR: the repository explains itself (docs/style.md, "Comments").
# Fails on any tracked file that points outside the repository (a design or style document, a
# research note or a sibling folder that a clone does not have), names a work item by number in
# place of saying why, or carries a date (docs included); and on any docs/*.md named anywhere
# that does not exist. Exits 77 (skipped) when SOURCE_DIR is not a git checkout (a release tarball).
set -u
src=$1
cd "$src" || exit 1
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || {
    echo "not a git checkout: skipped"
    exit 77
}
self=tests/lint/self_contained.sh
files=$(git ls-files | grep -v -e '^tests/fixtures/' -e "^$self\$")
status=0

# Patterns are split with [.] and [§] so that this file never matches itself.
outward='DESIGN[.]md|STYLE[.]md|STYLE [§]|reference/[a-z-]+[.](md|txt)|[.][.]/shared|/work/shared|shared/checks|interception[.]md|[a-z-]+[.]md [§]|^[^`]*[§][0-9]'
if echo "$files" | xargs grep -nIE "$outward" /dev/null; then
    echo "self_contained: the lines above point outside the repository; point them into docs/" >&2
    status=1
fi

issues='\b[Ii]ssues? [0-9]+\b|\bthe seed\b[^s ]|\bthe seed$|\bseed.s\b'
if echo "$files" | xargs grep -nIE "$issues" /dev/null; then
    echo "self_contained: the lines above name a work item or 'the seed'; say what it is instead" >&2
    status=1
fi

# A date anywhere (2026-12 or 2026-12-01), or a day written as a number in code (20261201u):
# a measurement names the commit it was made on, a comment says why, neither says when.
code=$(echo "$files" | grep -E '[.](c|h|cu|def|cmake|sh|py|js)$|CMakeLists[.]txt$')
if echo "$files" | xargs grep -nIE '\b20[0-9]{2}-[01][0-9](-[0-3][0-9])?\b' /dev/null ||
    echo "$code" | xargs grep -nIE '(^|[^0-9A-Za-z_])20[0-9]{2}(0[1-9]|1[0-2])(0[1-9]|[12][0-9]|3[01])([^0-9]|$)' /dev/null; then
    echo "self_contained: the lines above carry a date; name the commit a measurement was made on instead" >&2
    status=1
fi

for doc in $(echo "$files" | xargs grep -ohIE 'docs/[a-z0-9_-]+[.]md' | sort -u); do
    if [ ! -f "$doc" ]; then
        echo "self_contained: '$doc' is named but does not exist" >&2
        status=1
    fi
done
exit $status
