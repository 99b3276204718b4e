// SPDX-License-Identifier: GPL-2.0
/* mm/ksm_phash.c, built unchanged, and a look at its permutation. */
#include "ksm_phash.c"

/* Draw the permutation before main(), as ksm_init() does at boot. */
static void __attribute__((constructor)) phash_unit_init(void)
{
	ksm_phash_init();
}

u16 phash_perm_export(unsigned int i)
{
	return phash_perm[i];
}
