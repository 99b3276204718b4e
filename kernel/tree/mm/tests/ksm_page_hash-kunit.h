/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests for the progressive page hash: the permutation, moving a
 * state up and down, and the finalizer's spread.
 */
#ifdef CONFIG_KSM_PAGE_HASH_KUNIT_TEST

#ifndef _KSM_PAGE_HASH_KUNIT_H
#define _KSM_PAGE_HASH_KUNIT_H

#include <kunit/test.h>

static void ksm_page_hash_perm_test(struct kunit *test)
{
	unsigned long *seen;
	unsigned int i;

	seen = kunit_kzalloc(test, BITS_TO_LONGS(KSM_PAGE_HASH_FULL) *
			     sizeof(long), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, seen);
	for (i = 0; i < KSM_PAGE_HASH_FULL; i++) {
		KUNIT_ASSERT_LT(test, (unsigned long)page_hash_perm[i], KSM_PAGE_HASH_FULL);
		KUNIT_EXPECT_FALSE(test, __test_and_set_bit(page_hash_perm[i], seen));
	}
}

static void ksm_page_hash_step_test(struct kunit *test)
{
	u32 h, w;
	int i;

	/* unstep undoes step for any state and word. */
	for (i = 0; i < 10000; i++) {
		h = get_random_u32();
		w = get_random_u32();
		KUNIT_EXPECT_EQ(test, page_hash_unstep(page_hash_step(h, w), w), h);
	}
	KUNIT_EXPECT_EQ(test, (u32)(PAGE_HASH_INV_MUL * (1U + (1U << PAGE_HASH_SHL))), 1U);
}

/* Fill @page as kind 0 (random), 1 (zeros but one word), 2 (word = index). */
static void page_hash_fill(u32 *page, int kind)
{
	unsigned int i;

	for (i = 0; i < KSM_PAGE_HASH_FULL; i++)
		page[i] = kind == 2 ? i : 0;
	if (kind == 0)
		get_random_bytes(page, PAGE_SIZE);
	if (kind == 1)
		page[KSM_PAGE_HASH_FULL / 2] = 1;
}

static void ksm_page_hash_progressive_test(struct kunit *test)
{
	static const unsigned int s[] = { 0, 1, 2, 7, 100, 511, 512, 1000 };
	u32 *page, direct[ARRAY_SIZE(s) + 1], ref;
	unsigned int a, b, i, n = ARRAY_SIZE(s), str[ARRAY_SIZE(s) + 1];
	int kind;

	page = kunit_kmalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, page);
	memcpy(str, s, sizeof(s));
	str[n] = KSM_PAGE_HASH_FULL;
	for (kind = 0; kind < 3; kind++) {
		page_hash_fill(page, kind);
		for (a = 0; a <= n; a++)
			direct[a] = ksm_page_hash_extend(page, PAGE_HASH_SEED, 0, str[a]);
		/* Direct is one step a word, in the permutation's order. */
		ref = PAGE_HASH_SEED;
		for (a = 0, i = 0; a <= n; a++) {
			for (; i < str[a]; i++)
				ref = page_hash_step(ref, page[page_hash_perm[i]]);
			KUNIT_EXPECT_EQ(test, direct[a], ref);
		}
		/* Up from every strength and down to every one: as direct. */
		for (a = 0; a <= n; a++) {
			for (b = a; b <= n; b++) {
				u32 up = ksm_page_hash_extend(page, direct[a], str[a],
							  str[b]);
				u32 down = ksm_page_hash_retract(page, direct[b],
							     str[b], str[a]);

				KUNIT_EXPECT_EQ(test, up, direct[b]);
				KUNIT_EXPECT_EQ(test, down, direct[a]);
			}
		}
		KUNIT_EXPECT_EQ(test, ksm_page_hash(page, KSM_PAGE_HASH_FULL),
				ksm_page_hash_final(direct[n]));
	}
}

static void ksm_page_hash_strength_test(struct kunit *test)
{
	unsigned int n = 16;
	u32 *a, *b;

	a = kunit_kmalloc(test, PAGE_SIZE, GFP_KERNEL);
	b = kunit_kmalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	page_hash_fill(a, 0);
	memcpy(b, a, PAGE_SIZE);
	/* A word strength n does not read: equal up to n, not after. */
	b[page_hash_perm[n]] ^= 1;
	KUNIT_EXPECT_EQ(test, ksm_page_hash(a, n), ksm_page_hash(b, n));
	KUNIT_EXPECT_NE(test, ksm_page_hash(a, n + 1), ksm_page_hash(b, n + 1));
	KUNIT_EXPECT_NE(test, ksm_page_hash(a, KSM_PAGE_HASH_FULL),
			ksm_page_hash(b, KSM_PAGE_HASH_FULL));
}

/*
 * Flipping one bit of the state flips each bit of the hash about half the
 * time, and about 16 of them on average (the avalanche criterion).
 */
static void ksm_page_hash_final_test(struct kunit *test)
{
	unsigned int flips[32] = { 0 }, trials = 0, total = 0, i, j, k;

	for (k = 0; k < 256; k++) {
		u32 s = get_random_u32(), h = ksm_page_hash_final(s);

		for (i = 0; i < 32; i++) {
			u32 d = h ^ ksm_page_hash_final(s ^ BIT(i));

			trials++;
			total += hweight32(d);
			for (j = 0; j < 32; j++)
				flips[j] += !!(d & BIT(j));
		}
	}
	/* 8192 trials: the mean of 16 flips within +-1, each bit 40-60%. */
	KUNIT_EXPECT_GE(test, total, 15 * trials);
	KUNIT_EXPECT_LE(test, total, 17 * trials);
	for (j = 0; j < 32; j++) {
		KUNIT_EXPECT_GE(test, flips[j] * 10, 4 * trials);
		KUNIT_EXPECT_LE(test, flips[j] * 10, 6 * trials);
	}
}

static void ksm_page_hash_read_equal_test(struct kunit *test)
{
	u32 *a, *b;
	unsigned int k;

	a = kunit_kmalloc(test, PAGE_SIZE, GFP_KERNEL);
	b = kunit_kmalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	page_hash_fill(a, 0);
	/* b differs from a in the word the permutation reads k-th. */
	for (k = 0; k < KSM_PAGE_HASH_FULL; k += 97) {
		memcpy(b, a, PAGE_SIZE);
		b[page_hash_perm[k]] ^= 1;
		KUNIT_EXPECT_TRUE(test, ksm_page_hash_read_equal(a, b, k));
		KUNIT_EXPECT_FALSE(test, ksm_page_hash_read_equal(a, b, k + 1));
		KUNIT_EXPECT_FALSE(test, ksm_page_hash_read_equal(a, b, KSM_PAGE_HASH_FULL));
	}
}

/*
 * A modelled round at @strength: hashing a word costs 1 ns, and below
 * @knee each missing word costs 50 ns of collisions a page.
 */
static struct ksm_page_hash_round page_hash_model(unsigned int strength,
						  unsigned int knee)
{
	struct ksm_page_hash_round r = { .pages = 1000 };

	if (strength < knee) {
		r.collisions = 10;
		r.penalty_ns = r.pages * (knee - strength) * 50;
	}
	return r;
}

static void ksm_page_hash_adapt_slow_start_test(struct kunit *test)
{
	static const unsigned int seq[] = { 512, 511, 510, 508, 504, 496,
					    480, 448, 384, 256, 1, 257 };
	struct ksm_page_hash_adapt a;
	struct ksm_page_hash_round r;
	unsigned int i;

	ksm_page_hash_adapt_init(&a, 1000);
	KUNIT_EXPECT_EQ(test, a.strength, KSM_PAGE_HASH_FULL / 2);
	/* A round that hashed nothing changes nothing. */
	r = (struct ksm_page_hash_round) { 0 };
	KUNIT_EXPECT_EQ(test, ksm_page_hash_adapt_round(&a, &r), 512U);
	KUNIT_EXPECT_EQ(test, a.state, (unsigned int)KSM_PAGE_HASH_START);
	/*
	 * Downwards, the step doubling up to KSM_PAGE_HASH_MAX_DELTA, past the
	 * knee at 40 to the bottom; worse there, so up from the best.
	 */
	for (i = 0; i < ARRAY_SIZE(seq); i++) {
		KUNIT_EXPECT_EQ(test, a.strength, seq[i]);
		r = page_hash_model(a.strength, 40);
		ksm_page_hash_adapt_round(&a, &r);
	}
}

static void ksm_page_hash_adapt_sparse_test(struct kunit *test)
{
	struct ksm_page_hash_adapt a;
	struct ksm_page_hash_round r;
	int i;

	/* No collision at any strength: the weakest one wins. */
	ksm_page_hash_adapt_init(&a, 1000);
	for (i = 0; i < 25; i++) {
		r = page_hash_model(a.strength, 0);
		ksm_page_hash_adapt_round(&a, &r);
	}
	KUNIT_EXPECT_LE(test, a.strength, KSM_PAGE_HASH_MIN + 1);
	/* And stays there: quiet rounds start no probe at the bottom. */
	for (i = 0; i < 100; i++) {
		r = page_hash_model(a.strength, 0);
		ksm_page_hash_adapt_round(&a, &r);
		KUNIT_EXPECT_EQ(test, a.strength, KSM_PAGE_HASH_MIN);
	}
}

static void ksm_page_hash_adapt_converge_test(struct kunit *test)
{
	struct ksm_page_hash_adapt a;
	struct ksm_page_hash_round r;
	int i, at_knee = 0;

	/*
	 * The benefit peaks at 40 words. The first probe overshoots and
	 * settles above it; the probes that two quiet rounds start find it.
	 */
	ksm_page_hash_adapt_init(&a, 1000);
	for (i = 0; i < 300; i++) {
		r = page_hash_model(a.strength, 40);
		ksm_page_hash_adapt_round(&a, &r);
		if (i >= 260) {
			KUNIT_EXPECT_GE(test, a.strength, 39U);
			KUNIT_EXPECT_LE(test, a.strength, 41U);
			at_knee += a.strength == 40;
		}
	}
	KUNIT_EXPECT_GE(test, at_knee, 15);
	KUNIT_EXPECT_EQ(test, a.best_strength, 40U);

	/* Pages that differ late: collisions at any strength but full. */
	ksm_page_hash_adapt_init(&a, 1000);
	for (i = 0; i < 300; i++) {
		r = page_hash_model(a.strength, KSM_PAGE_HASH_FULL);
		ksm_page_hash_adapt_round(&a, &r);
	}
	KUNIT_EXPECT_GE(test, a.strength, KSM_PAGE_HASH_FULL - 1);

	/*
	 * Collisions whose cost a step of a few words does not change (as
	 * noise hides it): every partial strength loses the same, so the
	 * probe turns at once, and settles at full strength. There quiet
	 * rounds start probes, which a step down ends there again.
	 */
	ksm_page_hash_adapt_init(&a, 1000);
	for (i = 0; i < 100; i++) {
		r = (struct ksm_page_hash_round) { .pages = 1000 };
		if (a.strength < KSM_PAGE_HASH_FULL) {
			r.collisions = 10;
			r.penalty_ns = r.pages *
				       (KSM_PAGE_HASH_FULL - a.strength + 5000);
		}
		ksm_page_hash_adapt_round(&a, &r);
		if (i == 2) {
			KUNIT_EXPECT_EQ(test, a.state,
					(unsigned int)KSM_PAGE_HASH_STABLE);
			KUNIT_EXPECT_EQ(test, a.strength, KSM_PAGE_HASH_FULL);
		}
		if (i >= 2)
			KUNIT_EXPECT_GE(test, a.strength, KSM_PAGE_HASH_FULL - 1);
	}
	KUNIT_EXPECT_EQ(test, a.best_strength, KSM_PAGE_HASH_FULL);
}

static void ksm_page_hash_adapt_reprobe_test(struct kunit *test)
{
	struct ksm_page_hash_round r = { .pages = 1000, .collisions = 1 };
	struct ksm_page_hash_adapt a;
	int i;

	/* Settle at 100 with a round measured there. */
	ksm_page_hash_adapt_init(&a, 1000);
	a.strength = 100;
	a.best_strength = 100;
	page_hash_settle(&a);
	ksm_page_hash_adapt_round(&a, &r);
	KUNIT_ASSERT_EQ(test, a.state, (unsigned int)KSM_PAGE_HASH_STABLE);
	KUNIT_EXPECT_EQ(test, a.stable_benefit, 924000LL);

	/* Trigger 3: every KSM_PAGE_HASH_REPROBE_ROUNDS rounds. */
	for (i = 1; i < KSM_PAGE_HASH_REPROBE_ROUNDS; i++) {
		ksm_page_hash_adapt_round(&a, &r);
		KUNIT_ASSERT_EQ(test, a.state, (unsigned int)KSM_PAGE_HASH_STABLE);
	}
	ksm_page_hash_adapt_round(&a, &r);
	KUNIT_EXPECT_EQ(test, a.state, (unsigned int)KSM_PAGE_HASH_PROBE_DOWN);
	KUNIT_EXPECT_EQ(test, a.strength, 99U);

	/* Trigger 1: the benefit deviates by more than half. */
	a.strength = 100;
	page_hash_settle(&a);
	ksm_page_hash_adapt_round(&a, &r);
	r.penalty_ns = 1000 * 400;	/* 400 ns a page: 924 -> 524 */
	ksm_page_hash_adapt_round(&a, &r);
	KUNIT_EXPECT_EQ(test, a.state, (unsigned int)KSM_PAGE_HASH_STABLE);
	r.penalty_ns = 1000 * 500;	/* 924 -> 424: over half */
	ksm_page_hash_adapt_round(&a, &r);
	KUNIT_EXPECT_EQ(test, a.state, (unsigned int)KSM_PAGE_HASH_PROBE_DOWN);

	/* Trigger 2: two rounds in a row without a collision. */
	a.strength = 100;
	page_hash_settle(&a);
	r = (struct ksm_page_hash_round) { .pages = 1000 };
	ksm_page_hash_adapt_round(&a, &r);
	ksm_page_hash_adapt_round(&a, &r);
	KUNIT_EXPECT_EQ(test, a.state, (unsigned int)KSM_PAGE_HASH_PROBE_DOWN);
}

static struct kunit_case ksm_page_hash_test_cases[] = {
	KUNIT_CASE(ksm_page_hash_perm_test),
	KUNIT_CASE(ksm_page_hash_step_test),
	KUNIT_CASE(ksm_page_hash_progressive_test),
	KUNIT_CASE(ksm_page_hash_strength_test),
	KUNIT_CASE(ksm_page_hash_final_test),
	KUNIT_CASE(ksm_page_hash_read_equal_test),
	KUNIT_CASE(ksm_page_hash_adapt_slow_start_test),
	KUNIT_CASE(ksm_page_hash_adapt_sparse_test),
	KUNIT_CASE(ksm_page_hash_adapt_converge_test),
	KUNIT_CASE(ksm_page_hash_adapt_reprobe_test),
	{}
};

static struct kunit_suite ksm_page_hash_test_suite = {
	.name = "ksm_page_hash",
	.test_cases = ksm_page_hash_test_cases,
};

kunit_test_suite(ksm_page_hash_test_suite);

#endif /* _KSM_PAGE_HASH_KUNIT_H */
#endif /* CONFIG_KSM_PAGE_HASH_KUNIT_TEST */
