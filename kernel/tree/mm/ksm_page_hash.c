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
 * retract(extend(s, a, b), b, a) == s for any words. ksm_page_hash_final()
 * spreads the state's bits (the 32-bit finalizer of MurmurHash3), so hashes
 * of weak strengths still order a tree evenly.
 *
 * The strength adapts (section 6.1): ksm_page_hash_adapt_round() takes what a
 * sampling round measured and returns the strength for the next one,
 * probing down and then up with a step that doubles while the benefit
 * grows, as TCP's slow start does, and staying put once neither direction
 * helps, until one of the paper's three triggers starts a new probe.
 *
 * Nothing here sleeps or takes a lock; the permutation is written once, at
 * boot, before any caller; an adaptation state is the caller's to lock.
 */

#include <linux/bitmap.h>
#include <linux/cache.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/timekeeping.h>

#include "ksm_page_hash.h"

#define PAGE_HASH_SHL	10
#define PAGE_HASH_SHR	6
/* The inverse of 1 + 2^PAGE_HASH_SHL modulo 2^32. */
#define PAGE_HASH_INV_MUL	3222273025U
/* The state of strength 0. */
#define PAGE_HASH_SEED	0x9e3779b9U

static u16 page_hash_perm[KSM_PAGE_HASH_FULL] __ro_after_init;

static inline u32 page_hash_step(u32 h, u32 w)
{
	h += w;
	h += h << PAGE_HASH_SHL;
	h ^= h >> PAGE_HASH_SHR;
	return h;
}

static inline u32 page_hash_unstep(u32 h, u32 w)
{
	u32 x = h;
	int i;

	/* Each pass fixes PAGE_HASH_SHR more high bits of x. */
	for (i = 0; i < 32 / PAGE_HASH_SHR; i++)
		x = h ^ (x >> PAGE_HASH_SHR);
	return x * PAGE_HASH_INV_MUL - w;
}

/**
 * ksm_page_hash_extend() - raise a page's hash state to a higher strength
 * @page:	the page's contents (mapped)
 * @state:	its state at strength @from
 * @from:	the strength of @state
 * @to:		the strength wanted, @from to KSM_PAGE_HASH_FULL
 *
 * Return: the page's state at strength @to.
 */
u32 ksm_page_hash_extend(const void *page, u32 state, unsigned int from,
			 unsigned int to)
{
	const u16 *p = page_hash_perm + from;
	const u32 *w = page;
	unsigned int n;

	to = min_t(unsigned int, to, KSM_PAGE_HASH_FULL);
	if (from >= to)
		return state;
	/*
	 * Eight steps a pass: a loop of one step spent as much on its
	 * branches as on the step, and an emulator pays a branch dearly.
	 */
	for (n = to - from; n >= 8; n -= 8, p += 8) {
		state = page_hash_step(state, w[p[0]]);
		state = page_hash_step(state, w[p[1]]);
		state = page_hash_step(state, w[p[2]]);
		state = page_hash_step(state, w[p[3]]);
		state = page_hash_step(state, w[p[4]]);
		state = page_hash_step(state, w[p[5]]);
		state = page_hash_step(state, w[p[6]]);
		state = page_hash_step(state, w[p[7]]);
	}
	for (; n; n--, p++)
		state = page_hash_step(state, w[*p]);
	return state;
}

/**
 * ksm_page_hash_retract() - lower a page's hash state to a lower strength
 * @page:	the page's contents (mapped), as they were when @state was
 *		computed
 * @state:	its state at strength @from
 * @from:	the strength of @state, at most KSM_PAGE_HASH_FULL
 * @to:		the strength wanted, 0 to @from
 *
 * Return: the page's state at strength @to.
 */
u32 ksm_page_hash_retract(const void *page, u32 state, unsigned int from,
			  unsigned int to)
{
	const u32 *w = page;

	from = min_t(unsigned int, from, KSM_PAGE_HASH_FULL);
	while (from > to) {
		from--;
		state = page_hash_unstep(state, w[page_hash_perm[from]]);
	}
	return state;
}

/**
 * ksm_page_hash_final() - the hash of a state
 * @state:	a page's state at some strength
 *
 * Return: @state with its bits spread (MurmurHash3's fmix32, a bijection).
 */
u32 ksm_page_hash_final(u32 state)
{
	state ^= state >> 16;
	state *= 0x85ebca6bU;
	state ^= state >> 13;
	state *= 0xc2b2ae35U;
	state ^= state >> 16;
	return state;
}

/**
 * ksm_page_hash_state() - a page's state at a strength
 * @page:	the page's contents (mapped)
 * @strength:	words to read, 0 to KSM_PAGE_HASH_FULL
 *
 * Return: the state, to finalize (ksm_page_hash_final()) or move to another
 * strength.
 */
u32 ksm_page_hash_state(const void *page, unsigned int strength)
{
	return ksm_page_hash_extend(page, PAGE_HASH_SEED, 0, strength);
}

/**
 * ksm_page_hash_read_equal() - whether two pages agree in the words a strength reads
 * @a:		a page's contents (mapped)
 * @b:		another page's contents (mapped)
 * @strength:	words read, 0 to KSM_PAGE_HASH_FULL
 *
 * Two pages with equal hashes but other contents collide either because
 * the words the strength reads are equal, which a higher strength would
 * tell apart, or by chance, as any 32-bit hash of many pages does.
 *
 * Return: true when the first @strength words of the permutation are equal.
 */
bool ksm_page_hash_read_equal(const void *a, const void *b, unsigned int strength)
{
	const u32 *wa = a, *wb = b;
	unsigned int i;

	for (i = 0; i < min_t(unsigned int, strength, KSM_PAGE_HASH_FULL); i++)
		if (wa[page_hash_perm[i]] != wb[page_hash_perm[i]])
			return false;
	return true;
}

/**
 * ksm_page_hash() - hash a page at a strength
 * @page:	the page's contents (mapped)
 * @strength:	words to read, 1 to KSM_PAGE_HASH_FULL
 *
 * Return: the page's hash at @strength.
 */
u32 ksm_page_hash(const void *page, unsigned int strength)
{
	return ksm_page_hash_final(ksm_page_hash_state(page, strength));
}

/**
 * ksm_page_hash_calibrate() - measure the cost of hashing a word
 *
 * Return: picoseconds to hash one word, from a few full-page hashes of the
 * zero page (the words' values do not change the cost); at least 1.
 */
u32 ksm_page_hash_calibrate(void)
{
	const void *page = page_address(ZERO_PAGE(0));
	u32 sink = 0;
	u64 t0, ns;
	int i;

	t0 = ktime_get_ns();
	for (i = 0; i < 16; i++)
		sink += ksm_page_hash(page, KSM_PAGE_HASH_FULL);
	ns = ktime_get_ns() - t0;
	/* Keep the loop: its result is otherwise unused. */
	OPTIMIZER_HIDE_VAR(sink);
	return max_t(u64, div_u64(ns * 1000, 16 * KSM_PAGE_HASH_FULL), 1);
}

/**
 * ksm_page_hash_adapt_init() - start the adaptation
 * @a:		the state to set up
 * @ps_per_word: the cost of hashing a word (ksm_page_hash_calibrate())
 *
 * The strength starts at half of a full page, as the paper's does.
 */
void ksm_page_hash_adapt_init(struct ksm_page_hash_adapt *a, u32 ps_per_word)
{
	*a = (struct ksm_page_hash_adapt) {
		.strength = KSM_PAGE_HASH_FULL / 2,
		.state = KSM_PAGE_HASH_START,
		.delta = 1,
		.ps_per_word = max_t(u32, ps_per_word, 1),
	};
}

/* Profit minus penalty of a round at @strength, in ps a page hashed. */
static s64 page_hash_benefit(const struct ksm_page_hash_adapt *a, unsigned int strength,
			     const struct ksm_page_hash_round *r)
{
	s64 profit = (s64)(KSM_PAGE_HASH_FULL - strength) * a->ps_per_word;

	return profit - (s64)div64_u64(r->penalty_ns * 1000, r->pages);
}

/* Start probing downwards from the current strength. */
static void page_hash_probe(struct ksm_page_hash_adapt *a)
{
	a->best = a->benefit;
	a->best_strength = a->strength;
	a->delta = 1;
	a->quiet_rounds = 0;
	a->state = KSM_PAGE_HASH_PROBE_DOWN;
	if (a->strength > KSM_PAGE_HASH_MIN) {
		a->strength--;
		return;
	}
	/* Nothing below: probe upwards at once. */
	a->state = KSM_PAGE_HASH_PROBE_UP;
	a->strength++;
}

/*
 * Settle at the best strength measured, or at full strength when every one
 * measured lost: full strength's benefit is 0 without a measurement (no
 * profit; no collision of pages equal in the words it reads, which are all
 * of them). A step of a word or a few changes a collision rate by a
 * fraction of a percent, which one round's noise hides, so a probe among
 * strengths that all lose may turn at any of them; this keeps it from
 * settling there.
 */
static void page_hash_settle(struct ksm_page_hash_adapt *a)
{
	if (a->best < 0) {
		a->best = 0;
		a->best_strength = KSM_PAGE_HASH_FULL;
	}
	a->strength = a->best_strength;
	a->state = KSM_PAGE_HASH_STABLE;
	a->stable_rounds = 0;
	a->stable_benefit = S64_MIN;	/* taken from the next round */
}

/**
 * ksm_page_hash_adapt_round() - the strength for the next sampling round
 * @a:	the adaptation state; a->strength was in use during the round
 * @r:	what the round measured
 *
 * A round that hashed no page changes nothing. Probing moves the strength
 * by a step that starts at 1 and doubles (up to KSM_PAGE_HASH_MAX_DELTA) while
 * the benefit grows; when it falls, the probe turns upwards from the best
 * strength seen with the step back at 1, and when that falls too, the
 * strength settles at the best one, or at full strength when the best one
 * lost (page_hash_settle()). A stable strength is probed again when
 * a round's benefit deviates from the stable one by more than half of it,
 * when two rounds in a row had no collision (a weaker hash may do; not at
 * KSM_PAGE_HASH_MIN, where there is none), or after KSM_PAGE_HASH_REPROBE_ROUNDS
 * rounds.
 *
 * Return: the strength to use next, KSM_PAGE_HASH_MIN to KSM_PAGE_HASH_FULL.
 */
unsigned int ksm_page_hash_adapt_round(struct ksm_page_hash_adapt *a,
				       const struct ksm_page_hash_round *r)
{
	if (!r->pages)
		return a->strength;
	a->benefit = page_hash_benefit(a, a->strength, r);
	a->quiet_rounds = r->collisions ? 0 : a->quiet_rounds + 1;

	switch (a->state) {
	case KSM_PAGE_HASH_START:
		page_hash_probe(a);
		break;
	case KSM_PAGE_HASH_PROBE_DOWN:
		if (a->benefit > a->best) {
			a->best = a->benefit;
			a->best_strength = a->strength;
			if (a->strength > KSM_PAGE_HASH_MIN) {
				a->strength -= min(a->delta,
						   a->strength - KSM_PAGE_HASH_MIN);
				a->delta = min(2 * a->delta, KSM_PAGE_HASH_MAX_DELTA);
				break;
			}
		}
		/* Worse, or at the bottom: turn upwards from the best. */
		a->delta = 1;
		a->state = KSM_PAGE_HASH_PROBE_UP;
		if (a->best_strength >= KSM_PAGE_HASH_FULL) {
			page_hash_settle(a);
			break;
		}
		a->strength = a->best_strength + 1;
		break;
	case KSM_PAGE_HASH_PROBE_UP:
		if (a->benefit > a->best && a->strength < KSM_PAGE_HASH_FULL) {
			a->best = a->benefit;
			a->best_strength = a->strength;
			a->strength += min(a->delta, KSM_PAGE_HASH_FULL - a->strength);
			a->delta = min(2 * a->delta, KSM_PAGE_HASH_MAX_DELTA);
			break;
		}
		if (a->benefit > a->best) {
			a->best = a->benefit;
			a->best_strength = a->strength;
		}
		page_hash_settle(a);
		break;
	case KSM_PAGE_HASH_STABLE:
		if (a->stable_benefit == S64_MIN) {
			a->stable_benefit = a->benefit;
			break;
		}
		a->stable_rounds++;
		/* At the weakest strength, quiet rounds have nothing to try. */
		if (abs(a->benefit - a->stable_benefit) >
		    abs(a->stable_benefit) / 2 ||
		    (a->quiet_rounds >= 2 && a->strength > KSM_PAGE_HASH_MIN) ||
		    a->stable_rounds >= KSM_PAGE_HASH_REPROBE_ROUNDS)
			page_hash_probe(a);
		break;
	}
	return a->strength;
}

/**
 * ksm_page_hash_init() - draw the order in which the hash reads a page's words
 *
 * Called by ksm_init() before anything hashes a page (ksm_page_hash_calibrate()
 * first): a strength reads the first words of this permutation.
 */
void __init ksm_page_hash_init(void)
{
	unsigned int i, j;

	/* Fisher-Yates over the page's word offsets. */
	for (i = 0; i < KSM_PAGE_HASH_FULL; i++)
		page_hash_perm[i] = i;
	for (i = KSM_PAGE_HASH_FULL - 1; i > 0; i--) {
		j = get_random_u32_below(i + 1);
		swap(page_hash_perm[i], page_hash_perm[j]);
	}
}

#include "tests/ksm_page_hash-kunit.h"
