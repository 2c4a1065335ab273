#!/bin/sh
# SPDX-License-Identifier: MIT
# check_needed.sh READELF LIB [SANITIZE]: the capture library may need only glibc (libc, libdl,
# libpthread, the dynamic loader) and libunwind, so it can be copied onto any GPU node
# (docs/design.md, "Contracts"). With SANITIZE (a VRAMTRACE_SANITIZE build) the sanitizer runtimes are allowed too.
set -u
readelf=$1 lib=$2 sanitize=${3:-}
needed=$("$readelf" -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p') || exit 1
status=0
for name in $needed; do
    case $name in
    libc.so.6 | libdl.so.2 | libpthread.so.0 | ld-linux*.so.* | libunwind.so.8) ;;
    libasan.so.* | libubsan.so.* | libtsan.so.* | libm.so.6 | libgcc_s.so.1 | libstdc++.so.6)
        [ -n "$sanitize" ] || {
            echo "check_needed: $lib needs '$name', which is not allowed" >&2
            status=1
        } ;;
    *)
        echo "check_needed: $lib needs '$name', which is not allowed" >&2
        status=1 ;;
    esac
done
case " $(echo $needed) " in
*" libc.so.6 "*) ;;
*)
    echo "check_needed: no NEEDED libc.so.6 in '$lib': is this the library?" >&2
    status=1 ;;
esac
[ $status = 0 ] && echo "NEEDED:" $needed
exit $status
