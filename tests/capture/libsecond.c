/* SPDX-License-Identifier: MIT */
/* The next definition of x(), the one libfirst.so's dlsym(RTLD_NEXT, "x") must reach. */
__attribute__((visibility("default"))) int x(void)
{
    return 42;
}
