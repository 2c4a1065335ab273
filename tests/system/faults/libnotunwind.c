/* SPDX-License-Identifier: MIT */
/* A library that is not libunwind, put where libunwind.so.8 is looked for (faults.sh
 * nounwind-lacking): it loads, and has none of the functions the capture library calls. */
int vt_not_libunwind = 1;
