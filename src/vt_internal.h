/* SPDX-License-Identifier: MIT */
#ifndef VT_INTERNAL_H
#define VT_INTERNAL_H
#define VT_EXPORT __attribute__((visibility("default")))
#endif
