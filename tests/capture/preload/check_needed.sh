#!/bin/sh
# SPDX-License-Identifier: MIT
# check_needed.sh READELF LIB [SANITIZE]: the capture library may need only glibc (libc, libdl,
# libpthread, the dynamic loader) and libunwind, so it can be copied onto any GPU node
# (docs/design.md, "Contracts"). With SANITIZE (a VRAMTRACE_SANITIZE build) the sanitizer
# runtimes are allowed too.
readelf=$1 lib=$2 sanitize=${3:-}
. "$(dirname "$0")/../../lib/preamble.sh"
"$readelf" -d "$lib" >dynamic || exit 1
needed=$(sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' dynamic)
for name in $needed; do
    case $name in
    libc.so.6 | libdl.so.2 | libpthread.so.0 | ld-linux*.so.* | libunwind.so.8) ;;
    libasan.so.* | libubsan.so.* | libtsan.so.* | libm.so.6 | libgcc_s.so.1 | libstdc++.so.6)
        check "$lib needs '$name', which is not allowed" [ -n "$sanitize" ] ;;
    *)
        check "$lib needs '$name', which is not allowed" false ;;
    esac
done
case " $(echo $needed) " in
*" libc.so.6 "*) ;;
*) check "no NEEDED libc.so.6 in '$lib': is this the library?" false ;;
esac
[ $fail = 0 ] && echo "NEEDED:" $needed
exit $fail
