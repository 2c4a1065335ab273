#!/bin/sh
# SPDX-License-Identifier: MIT
# check_needed.sh READELF LIB: the capture library may need only glibc (libc, libdl, libpthread,
# the dynamic loader) and libunwind, so it can be copied onto any GPU node (DESIGN.md §5).
set -u
readelf=$1 lib=$2
needed=$("$readelf" -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p') || exit 1
status=0
for name in $needed; do
    case $name in
    libc.so.6 | libdl.so.2 | libpthread.so.0 | ld-linux*.so.* | libunwind.so.8) ;;
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
