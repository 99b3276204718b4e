// SPDX-License-Identifier: GPL-2.0
/* mm/ksm_page_hash.c, built unchanged, and a look at its permutation. */
#include "ksm_page_hash.c"

/* Draw the permutation before main(), as ksm_init() does at boot. */
static void __attribute__((constructor)) page_hash_unit_init(void)
{
	ksm_page_hash_init();
}

u16 page_hash_perm_export(unsigned int i)
{
	return page_hash_perm[i];
}
