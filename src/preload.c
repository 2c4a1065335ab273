/* SPDX-License-Identifier: MIT */
#include "vt_internal.h"
