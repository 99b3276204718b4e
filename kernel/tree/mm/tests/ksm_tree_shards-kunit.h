/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests for the shard selection: in range, even over the shards,
 * a key's shard fixed, and the automatic count.
 */
#ifdef CONFIG_KSM_TREE_SHARDS_KUNIT_TEST

#ifndef _KSM_TREE_SHARDS_KUNIT_H
#define _KSM_TREE_SHARDS_KUNIT_H

#include <kunit/test.h>
#include <linux/prandom.h>

static void ksm_tree_shards_of_test(struct kunit *test)
{
	static const unsigned int counts[] = { 1, 2, 3, 16, 31, 1024 };
	unsigned int i, n, s, *hits, samples;
	struct rnd_state rnd;
	u32 key;

	hits = kunit_kcalloc(test, KSM_MAX_TREE_SHARDS, sizeof(*hits), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, hits);
	prandom_seed_state(&rnd, 1);
	for (i = 0; i < ARRAY_SIZE(counts); i++) {
		n = counts[i];
		samples = 200 * n;
		memset(hits, 0, KSM_MAX_TREE_SHARDS * sizeof(*hits));
		/* The ends of the key space land in the first and last. */
		KUNIT_EXPECT_EQ(test, ksm_tree_shard_of(0, n), 0U);
		KUNIT_EXPECT_EQ(test, ksm_tree_shard_of(U32_MAX, n), n - 1);
		for (s = 0; s < samples; s++) {
			key = prandom_u32_state(&rnd);
			KUNIT_ASSERT_LT(test, ksm_tree_shard_of(key, n), n);
			hits[ksm_tree_shard_of(key, n)]++;
		}
		/* Even: every shard within half of its share of 200. */
		for (s = 0; s < n; s++) {
			KUNIT_EXPECT_GT(test, hits[s], 100U);
			KUNIT_EXPECT_LT(test, hits[s], 300U);
		}
	}
}

static void ksm_tree_shards_auto_test(struct kunit *test)
{
	unsigned long mib = (1UL << 20) >> PAGE_SHIFT;

	KUNIT_EXPECT_EQ(test, ksm_tree_shards_auto(0), 1U);
	KUNIT_EXPECT_EQ(test, ksm_tree_shards_auto(99 * mib), 1U);
	KUNIT_EXPECT_EQ(test, ksm_tree_shards_auto(3072 * mib), 30U);
	KUNIT_EXPECT_EQ(test, ksm_tree_shards_auto(180 * 1024 * mib), KSM_MAX_TREE_SHARDS);
}

static struct kunit_case ksm_tree_shards_cases[] = {
	KUNIT_CASE(ksm_tree_shards_of_test),
	KUNIT_CASE(ksm_tree_shards_auto_test),
	{}
};

static struct kunit_suite ksm_tree_shards_suite = {
	.name = "ksm_tree_shards",
	.test_cases = ksm_tree_shards_cases,
};

kunit_test_suite(ksm_tree_shards_suite);

#endif /* _KSM_TREE_SHARDS_KUNIT_H */
#endif /* CONFIG_KSM_TREE_SHARDS_KUNIT_TEST */
