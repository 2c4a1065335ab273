#!/bin/sh
# SPDX-License-Identifier: MIT
# Makes sure what the build needs is installed: with apt-get when run as root, otherwise it
# prints the exact command to run and fails. Used by `make demo` and `make test`.
set -u
missing=""
need() { # need PACKAGE TEST...
    pkg=$1; shift
    "$@" >/dev/null 2>&1 || missing="$missing $pkg"
}
need cmake command -v cmake
need gcc command -v cc
need make command -v make
need pkg-config command -v pkg-config
need binutils command -v readelf
need libunwind-dev pkg-config --exists libunwind
need uthash-dev test -f /usr/include/uthash.h
# Optional for the build (report frames stay hex without it), wanted for `make test`.
need libdw-dev pkg-config --exists libdw
# Wanted for `make test`: the CLI tests parse JSON exports with it.
need python3 command -v python3
# Wanted for `make test`: numba runs unchanged on the simulated device (tests/capture/numba, skipped
# without it); Debian's package is for the system interpreter.
need python3-numba /usr/bin/python3 -c 'import numba.cuda'
# Wanted for `make test`: `vramtrace top`'s interactive view is tested in a tmux terminal
# (tests/system/top, skipped without it).
need tmux command -v tmux
[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing || {
        echo "deps: apt-get install$missing failed" >&2
        exit 1
    }
    exit 0
fi
echo "deps: missing packages:$missing" >&2
echo "deps: run: sudo apt-get install -y$missing" >&2
exit 1
