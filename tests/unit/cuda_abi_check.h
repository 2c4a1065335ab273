/* SPDX-License-Identifier: MIT */
/* Shared between the two halves of test_cuda_abi: the two tables and the names of their rows. */
#ifndef VT_CUDA_ABI_CHECK_H
#define VT_CUDA_ABI_CHECK_H
extern const long long vt_abi_ours[];
extern const long long vt_abi_toolkit[];
#endif
