/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Progressive page hash for KSM (UKSM adaptive partial hashing, section
 * 6.2): the hash of a page at strength n reads n 32-bit words, at offsets
 * given by a permutation drawn at boot, and can be moved to another
 * strength at a cost proportional to the change.
 */
#ifndef __MM_KSM_PHASH_H
#define __MM_KSM_PHASH_H

#include <linux/types.h>
#include <asm/page.h>

/* Strength of a full page: every 32-bit word read once. */
#define KSM_PHASH_FULL	(PAGE_SIZE / sizeof(u32))

#ifdef CONFIG_KSM_ADAPTIVE
u32 ksm_phash_extend(const void *page, u32 state, unsigned int from,
		     unsigned int to);
u32 ksm_phash_retract(const void *page, u32 state, unsigned int from,
		      unsigned int to);
u32 ksm_phash_final(u32 state);
u32 ksm_phash(const void *page, unsigned int strength);
#endif

#endif /* __MM_KSM_PHASH_H */
