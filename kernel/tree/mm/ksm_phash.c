// SPDX-License-Identifier: GPL-2.0
/*
 * Progressive page hash for KSM (UKSM adaptive partial hashing, section
 * 6.2).
 *
 * A page is hashed at strength n by folding its words at offsets
 * perm[0], ..., perm[n - 1] into a 32-bit state, one word a step, in the
 * manner of Jenkins' one-at-a-time hash; the permutation of the page's
 * word offsets is drawn at boot, so pages cannot be crafted to collide and
 * patterns (leading zeros, headers) do not make weak strengths useless.
 *
 * Each step is h = mix(h + w), where mix(x) = y ^ (y >> R) with
 * y = x * (1 + 2^L) mod 2^32. Both parts are bijections of u32 (the
 * multiplier is odd; the xor-shift is undone by iterating x = h ^ (x >> R)),
 * so a state can be moved up to a higher strength by more steps and down
 * to a lower one by undoing steps, at a cost proportional to the change:
 * retract(extend(s, a, b), b, a) == s for any words. ksm_phash_final()
 * spreads the state's bits (the 32-bit finalizer of MurmurHash3), so hashes
 * of weak strengths still order a tree evenly.
 *
 * Nothing here sleeps or takes a lock; the permutation is written once, at
 * boot, before any caller.
 */

#include <linux/bitmap.h>
#include <linux/cache.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/random.h>

#include "ksm_phash.h"

#define PHASH_SHL	10
#define PHASH_SHR	6
/* The inverse of 1 + 2^PHASH_SHL modulo 2^32. */
#define PHASH_INV_MUL	3222273025U
/* The state of strength 0. */
#define PHASH_SEED	0x9e3779b9U

static u16 phash_perm[KSM_PHASH_FULL] __ro_after_init;

static inline u32 phash_step(u32 h, u32 w)
{
	h += w;
	h += h << PHASH_SHL;
	h ^= h >> PHASH_SHR;
	return h;
}

static inline u32 phash_unstep(u32 h, u32 w)
{
	u32 x = h;
	int i;

	/* Each pass fixes PHASH_SHR more high bits of x. */
	for (i = 0; i < 32 / PHASH_SHR; i++)
		x = h ^ (x >> PHASH_SHR);
	return x * PHASH_INV_MUL - w;
}

/**
 * ksm_phash_extend() - raise a page's hash state to a higher strength
 * @page:	the page's contents (mapped)
 * @state:	its state at strength @from
 * @from:	the strength of @state
 * @to:		the strength wanted, @from to KSM_PHASH_FULL
 *
 * Return: the page's state at strength @to.
 */
u32 ksm_phash_extend(const void *page, u32 state, unsigned int from,
		     unsigned int to)
{
	const u32 *w = page;

	for (; from < min_t(unsigned int, to, KSM_PHASH_FULL); from++)
		state = phash_step(state, w[phash_perm[from]]);
	return state;
}

/**
 * ksm_phash_retract() - lower a page's hash state to a lower strength
 * @page:	the page's contents (mapped), as they were when @state was
 *		computed
 * @state:	its state at strength @from
 * @from:	the strength of @state, at most KSM_PHASH_FULL
 * @to:		the strength wanted, 0 to @from
 *
 * Return: the page's state at strength @to.
 */
u32 ksm_phash_retract(const void *page, u32 state, unsigned int from,
		      unsigned int to)
{
	const u32 *w = page;

	from = min_t(unsigned int, from, KSM_PHASH_FULL);
	while (from > to) {
		from--;
		state = phash_unstep(state, w[phash_perm[from]]);
	}
	return state;
}

/**
 * ksm_phash_final() - the hash of a state
 * @state:	a page's state at some strength
 *
 * Return: @state with its bits spread (MurmurHash3's fmix32, a bijection).
 */
u32 ksm_phash_final(u32 state)
{
	state ^= state >> 16;
	state *= 0x85ebca6bU;
	state ^= state >> 13;
	state *= 0xc2b2ae35U;
	state ^= state >> 16;
	return state;
}

/**
 * ksm_phash() - hash a page at a strength
 * @page:	the page's contents (mapped)
 * @strength:	words to read, 1 to KSM_PHASH_FULL
 *
 * Return: the page's hash at @strength.
 */
u32 ksm_phash(const void *page, unsigned int strength)
{
	return ksm_phash_final(ksm_phash_extend(page, PHASH_SEED, 0,
						strength));
}

static int __init ksm_phash_init(void)
{
	unsigned int i, j;

	/* Fisher-Yates over the page's word offsets. */
	for (i = 0; i < KSM_PHASH_FULL; i++)
		phash_perm[i] = i;
	for (i = KSM_PHASH_FULL - 1; i > 0; i--) {
		j = get_random_u32_below(i + 1);
		swap(phash_perm[i], phash_perm[j]);
	}
	return 0;
}
subsys_initcall(ksm_phash_init);

#include "tests/ksm_phash-kunit.h"
