/* SPDX-License-Identifier: MIT */
/* placeholder: filled in by the capture-init work */
#include "vt_internal.h"
