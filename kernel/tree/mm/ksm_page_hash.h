/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Progressive page hash for KSM (UKSM adaptive partial hashing, section
 * 6.2): the hash of a page at strength n reads n 32-bit words, at offsets
 * given by a permutation drawn at boot, and can be moved to another
 * strength at a cost proportional to the change.
 */
#ifndef __MM_KSM_PAGE_HASH_H
#define __MM_KSM_PAGE_HASH_H

#include <linux/types.h>
#include <asm/page.h>

/* Strength of a full page: every 32-bit word read once. */
#define KSM_PAGE_HASH_FULL	(PAGE_SIZE / sizeof(u32))

/*
 * The weakest strength the adaptation uses, and its largest step: half a
 * page, so that the step doubles as TCP's slow start does, bounded by the
 * range alone (from the start at 512 words, 1 word is ten rounds away).
 */
#define KSM_PAGE_HASH_MIN		1U
#define KSM_PAGE_HASH_MAX_DELTA	(KSM_PAGE_HASH_FULL / 2)
/* Stable rounds after which the adaptation probes again regardless. */
#define KSM_PAGE_HASH_REPROBE_ROUNDS	1000U

enum ksm_page_hash_state {
	KSM_PAGE_HASH_START,	/* measuring the first round */
	KSM_PAGE_HASH_PROBE_DOWN,
	KSM_PAGE_HASH_PROBE_UP,
	KSM_PAGE_HASH_STABLE,
};

/**
 * struct ksm_page_hash_round - what one sampling round measured
 * @pages:	pages hashed at the round's strength
 * @collisions:	lookups that met an equal hash over different contents
 *		because the words the strength reads were equal
 * @penalty_ns:	time those lookups spent reading and comparing the pages
 */
struct ksm_page_hash_round {
	u64 pages;
	u64 collisions;
	u64 penalty_ns;
};

/**
 * struct ksm_page_hash_adapt - the strength adaptation (UKSM section 6.1)
 * @strength:	the strength in use
 * @state:	an enum ksm_page_hash_state
 * @delta:	the probe's current step, 1 doubling to KSM_PAGE_HASH_MAX_DELTA
 * @best:	the best benefit of this probe, in ps a page
 * @best_strength: where it was measured
 * @stable_benefit: the benefit of the first round in the stable state
 * @stable_rounds: rounds since the stable state was entered
 * @quiet_rounds: rounds in a row without a collision
 * @ps_per_word: the measured cost of hashing one word, in picoseconds
 * @benefit:	the last round's benefit, in ps a page
 *
 * Benefit = profit - penalty, per page hashed: profit is the time the
 * strength saved against a full-page hash, penalty the time collisions
 * wasted. Changed by ksm_page_hash_adapt_round() only, under the caller's lock.
 */
struct ksm_page_hash_adapt {
	unsigned int strength;
	unsigned int state;
	unsigned int delta;
	s64 best;
	unsigned int best_strength;
	s64 stable_benefit;
	unsigned int stable_rounds;
	unsigned int quiet_rounds;
	u32 ps_per_word;
	s64 benefit;
};

#ifdef CONFIG_KSM_ADAPTIVE
void ksm_page_hash_adapt_init(struct ksm_page_hash_adapt *a, u32 ps_per_word);
unsigned int ksm_page_hash_adapt_round(struct ksm_page_hash_adapt *a,
				       const struct ksm_page_hash_round *r);
void ksm_page_hash_init(void);
u32 ksm_page_hash_calibrate(void);
u32 ksm_page_hash_extend(const void *page, u32 state, unsigned int from,
			 unsigned int to);
u32 ksm_page_hash_retract(const void *page, u32 state, unsigned int from,
			  unsigned int to);
u32 ksm_page_hash_final(u32 state);
u32 ksm_page_hash_state(const void *page, unsigned int strength);
bool ksm_page_hash_read_equal(const void *a, const void *b, unsigned int strength);
u32 ksm_page_hash(const void *page, unsigned int strength);
#endif

#endif /* __MM_KSM_PAGE_HASH_H */
