/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests for the level, sampling and budget decisions of the
 * distilling scanner.
 */
#ifdef CONFIG_KSM_ADAPTIVE_KUNIT_TEST

#ifndef _KSM_DISTILL_KUNIT_H
#define _KSM_DISTILL_KUNIT_H

#include <kunit/test.h>

static const struct ksm_distill_thresholds test_th = {
	.dup_pct = 10, .cow_pct = 10, .life_ms = 100,
};

static int judge(unsigned int level, unsigned long sampled,
		 unsigned long merged, unsigned long ksm_seen,
		 unsigned long cow, unsigned long age_ms)
{
	struct ksm_region_round rr = {
		.sampled = sampled, .merged = merged, .ksm_seen = ksm_seen,
		.cow = cow, .age_ms = age_ms, .pages = 1000,
	};

	return ksm_region_next_level(level, 4, &rr, &test_th);
}

static void ksm_distill_level_test(struct kunit *test)
{
	/* Duplicated, not broken, old enough: promoted, up to the top. */
	KUNIT_EXPECT_EQ(test, judge(0, 100, 50, 0, 0, 1000), 1);
	KUNIT_EXPECT_EQ(test, judge(2, 100, 50, 0, 4, 1000), 3);
	KUNIT_EXPECT_EQ(test, judge(3, 100, 50, 0, 0, 1000), 3);
	/* Duplication at the threshold is not above it: demoted. */
	KUNIT_EXPECT_EQ(test, judge(2, 100, 10, 0, 0, 1000), 1);
	KUNIT_EXPECT_EQ(test, judge(2, 100, 11, 0, 0, 1000), 3);
	/* Merges undone: COW ratio at or over Vcow demotes. */
	KUNIT_EXPECT_EQ(test, judge(2, 100, 50, 0, 5, 1000), 1);
	KUNIT_EXPECT_EQ(test, judge(2, 100, 50, 0, 4, 1000), 3);
	/* Broke merged pages without merging any: demoted. */
	KUNIT_EXPECT_EQ(test, judge(2, 100, 0, 0, 3, 1000), 1);
	/* Young regions stay at the bottom. */
	KUNIT_EXPECT_EQ(test, judge(2, 100, 90, 0, 0, 99), 0);
	/* All its duplicates merged: straight back to the bottom. */
	KUNIT_EXPECT_EQ(test, judge(3, 100, 0, 60, 0, 1000), 0);
	KUNIT_EXPECT_EQ(test, judge(3, 8, 0, 8, 0, 1000), 0);
	/* Too few found merged to say all are: it stays. */
	KUNIT_EXPECT_EQ(test, judge(3, 7, 0, 7, 0, 1000), 3);
	/* Most of those sampled not merged, none new: demoted as sparse. */
	KUNIT_EXPECT_EQ(test, judge(3, 100, 0, 20, 0, 1000), 2);
	/* Nothing sampled: no information, it stays. */
	KUNIT_EXPECT_EQ(test, judge(2, 0, 0, 0, 0, 1000), 2);
	/* Sparse: demoted one level, never below 0. */
	KUNIT_EXPECT_EQ(test, judge(1, 100, 0, 0, 0, 1000), 0);
	KUNIT_EXPECT_EQ(test, judge(0, 100, 0, 0, 0, 1000), 0);
	/* A level above a lowered top is brought down to it. */
	KUNIT_EXPECT_EQ(test, judge(7, 100, 50, 0, 0, 1000), 3);
}

static void ksm_distill_perm_test(struct kunit *test)
{
	static const unsigned long intervals[] = { 1, 2, 6, 7, 64, 1000 };
	unsigned long i, r, off;
	u32 seed;

	for (i = 0; i < ARRAY_SIZE(intervals); i++) {
		unsigned long n = intervals[i];
		unsigned long *seen = kunit_kcalloc(test, n, sizeof(*seen),
						    GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, seen);
		for (seed = 0; seed < 3; seed++) {
			memset(seen, 0, n * sizeof(*seen));
			/* n consecutive rounds visit every offset once. */
			for (r = 5; r < 5 + n; r++) {
				off = ksm_offset_perm(seed * 7919, r, n);
				KUNIT_ASSERT_LT(test, off, n);
				seen[off]++;
			}
			for (off = 0; off < n; off++)
				KUNIT_EXPECT_EQ(test, seen[off], 1UL);
		}
	}
}

static void ksm_distill_budget_test(struct kunit *test)
{
	const struct ksm_governor *full = &ksm_governors[0];
	const struct ksm_governor *quiet = &ksm_governors[3];

	/* Top level: the governor's share; each level below halves it. */
	KUNIT_EXPECT_EQ(test, ksm_level_permille(full, 3, 4, 2), 950U);
	KUNIT_EXPECT_EQ(test, ksm_level_permille(full, 2, 4, 2), 475U);
	KUNIT_EXPECT_EQ(test, ksm_level_permille(full, 1, 4, 2), 237U);
	/* The bottom level gets the bottom share, 0.2% by default. */
	KUNIT_EXPECT_EQ(test, ksm_level_permille(full, 0, 4, 2), 2U);
	/* Never below the bottom share. */
	KUNIT_EXPECT_EQ(test, ksm_level_permille(quiet, 1, 4, 2), 2U);
	KUNIT_EXPECT_EQ(test, ksm_level_permille(quiet, 3, 4, 2), 10U);
	/* Each governor doubles the round and halves the top share. */
	KUNIT_EXPECT_EQ(test, ksm_governors[1].round_ms, 2 * full->round_ms);
	KUNIT_EXPECT_EQ(test, ksm_governors[2].round_ms, 4 * full->round_ms);

	/*
	 * interval = L * s / (t_l * p): 262144 pages at 10 us, a 2 s round
	 * over 4 levels (t_l = 0.5 s) at 95%: 2.62 s / 0.475 s -> 6, up to
	 * the power of two 8.
	 */
	KUNIT_EXPECT_EQ(test, ksm_level_interval(262144, 10000, 2000, 4, 950),
			8UL);
	/* Small levels are sampled whole. */
	KUNIT_EXPECT_EQ(test, ksm_level_interval(100, 10000, 2000, 4, 950),
			1UL);
	KUNIT_EXPECT_EQ(test, ksm_level_interval(0, 10000, 2000, 4, 950), 1UL);
	/* At 0.2%, 262144 pages: 2.62 s / 1 ms -> 2622 -> 4096. */
	KUNIT_EXPECT_EQ(test, ksm_level_interval(262144, 10000, 2000, 4, 2),
			4096UL);
	/* Exact powers of two stay. */
	KUNIT_EXPECT_EQ(test, ksm_level_interval(4 * 475, 1000000, 2000, 4, 950),
			4UL);
}

static struct kunit_case ksm_distill_test_cases[] = {
	KUNIT_CASE(ksm_distill_level_test),
	KUNIT_CASE(ksm_distill_perm_test),
	KUNIT_CASE(ksm_distill_budget_test),
	{},
};

static struct kunit_suite ksm_distill_test_suite = {
	.name = "ksm_distill",
	.test_cases = ksm_distill_test_cases,
};

kunit_test_suite(ksm_distill_test_suite);

#endif /* _KSM_DISTILL_KUNIT_H */

#endif /* CONFIG_KSM_ADAPTIVE_KUNIT_TEST */
