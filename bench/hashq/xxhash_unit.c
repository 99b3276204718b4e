// SPDX-License-Identifier: GPL-2.0
/* lib/xxhash.c of the kernel tree, built unchanged. */
#include "xxhash.c"
