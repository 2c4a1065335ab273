# SPDX-License-Identifier: MIT
# Sourced by the test scripts that run programs and check what they did:
#   . "$(dirname "$0")/../../lib/preamble.sh"
# It sets -u (not -e: the scripts run commands expected to fail and read their status), makes an
# empty temporary directory $tmp, removed at exit, the working directory, and defines check.
# A script may set check_name after sourcing to name the test in failure lines (default: the
# script's name).
#
# check WHAT COMMAND...: runs COMMAND; when it fails, prints "FAIL <check_name>: WHAT" on stderr
# and sets fail=1 without stopping, so one run reports every broken promise. A script ends with
# `exit $fail`.
set -u
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
check_name=${check_name:-$(basename "$0" .sh)}
fail=0
check() {
    what=$1
    shift
    if ! "$@"; then
        echo "FAIL $check_name: $what" >&2
        fail=1
    fi
}
