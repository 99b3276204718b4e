/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests for the placement decisions: the copy in use is kept, kept
 * copies spread over the nodes involved, and nuShare's arithmetic and
 * convergence.
 */
#ifdef CONFIG_KSM_PLACEMENT_KUNIT_TEST

#ifndef _KSM_PLACEMENT_KUNIT_H
#define _KSM_PLACEMENT_KUNIT_H

#include <kunit/test.h>
#include <linux/prandom.h>

static void ksm_placement_hot_test(struct kunit *test)
{
	const struct ksm_placement_ops *fair = &placement_policies[KSM_PLACEMENT_FAIR];
	struct ksm_placement_cand a = { .nid = 0 }, b = { .nid = 1 };
	struct ksm_placement_sharers sh = { .kept_nid = 0, .nr_nodes = 2,
					.joiner_new = true };
	struct ksm_placement_state *s;
	enum ksm_placement_reason why;
	int i;

	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	/* One hot, one not: the hot one, whatever the balance says. */
	for (i = 0; i < 4; i++) {
		a.hot = i & 1;
		b.hot = !a.hot;
		KUNIT_EXPECT_EQ(test, fair->keep_tree_page(s, &a, &b, 0, &why),
				b.hot);
		KUNIT_EXPECT_EQ(test, why, KSM_PLACEMENT_R_HOT);
	}
	/* A hot joiner takes a KSM page nobody on its node uses... */
	b.hot = true;
	KUNIT_EXPECT_TRUE(test, fair->move_to_joiner(&b, &sh, U32_MAX, &why));
	KUNIT_EXPECT_EQ(test, why, KSM_PLACEMENT_R_HOT);
	/* ...a cold one never takes it from a hot sharer. */
	b.hot = false;
	sh.kept_hot = true;
	KUNIT_EXPECT_FALSE(test, fair->move_to_joiner(&b, &sh, 0, &why));
	KUNIT_EXPECT_EQ(test, why, KSM_PLACEMENT_R_HOT);
}

static void ksm_placement_balance_test(struct kunit *test)
{
	const struct ksm_placement_ops *fair = &placement_policies[KSM_PLACEMENT_FAIR];
	struct ksm_placement_cand a = { .nid = 0 }, b = { .nid = 1 };
	struct ksm_placement_sharers sh = { .kept_nid = 0 };
	unsigned int k, moved, n = 4000;
	unsigned long on_b = 0;
	struct ksm_placement_state *s;
	enum ksm_placement_reason why;
	struct rnd_state rnd;
	int i;

	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	/* Two nodes, both hot or both cold: round robin. */
	for (i = 0; i < 100; i++) {
		a.hot = i & 2;
		b.hot = a.hot;
		on_b += fair->keep_tree_page(s, &a, &b, 0, &why);
		KUNIT_EXPECT_EQ(test, why, KSM_PLACEMENT_R_BALANCE);
	}
	KUNIT_EXPECT_EQ(test, on_b, 50UL);
	/* A third node paired with both catches up before it alternates. */
	a.nid = 2;
	for (i = 0; i < 50; i++)
		fair->keep_tree_page(s, &a, &b, 0, &why);
	KUNIT_EXPECT_EQ(test, s->kept[2], 50UL);
	KUNIT_EXPECT_EQ(test, s->kept[1], 50UL);

	/* Joining from a new node: moves with probability 1/K. */
	b.hot = false;
	prandom_seed_state(&rnd, 42);
	for (k = 2; k <= 4; k++) {
		sh.nr_nodes = k;
		sh.joiner_new = true;
		for (moved = 0, i = 0; i < n; i++)
			moved += fair->move_to_joiner(&b, &sh,
						      prandom_u32_state(&rnd),
						      &why);
		KUNIT_EXPECT_GT(test, moved, n / k - n / 20);
		KUNIT_EXPECT_LT(test, moved, n / k + n / 20);
	}
	/* From a node a sharer is on already: stays. */
	sh.joiner_new = false;
	KUNIT_EXPECT_FALSE(test, fair->move_to_joiner(&b, &sh, 0, &why));
}

static void ksm_placement_nushare_test(struct kunit *test)
{
	u64 num, den;

	/* Thesis Table 5.3: C-10:1 and C-5:1 give 91% and 83%. */
	placement_nushare(KSM_PLACEMENT_SNICE(-20), KSM_PLACEMENT_SNICE(-20) +
		      KSM_PLACEMENT_SNICE(-11), 2, &num, &den);
	KUNIT_EXPECT_EQ(test, div64_u64(1000 * num, den), 909ULL);
	placement_nushare(KSM_PLACEMENT_SNICE(-16), KSM_PLACEMENT_SNICE(-20) +
		      KSM_PLACEMENT_SNICE(-16), 2, &num, &den);
	KUNIT_EXPECT_EQ(test, div64_u64(1000 * num, den), 166ULL);
	/* Equal priority: a half; three equal processes: a third each. */
	placement_nushare(21, 42, 2, &num, &den);
	KUNIT_EXPECT_EQ(test, div64_u64(1000 * num, den), 500ULL);
	placement_nushare(21, 63, 3, &num, &den);
	KUNIT_EXPECT_EQ(test, div64_u64(1000 * num, den), 333ULL);
	/* Probabilities of the draw's ends. */
	KUNIT_EXPECT_TRUE(test, placement_draw(0, 1, 2));
	KUNIT_EXPECT_FALSE(test, placement_draw(U32_MAX, 1, 2));
	KUNIT_EXPECT_FALSE(test, placement_draw(0, 0, 2));
	KUNIT_EXPECT_TRUE(test, placement_draw(U32_MAX, 2, 2));
}

static void ksm_placement_priority_test(struct kunit *test)
{
	const struct ksm_placement_ops *prio = &placement_policies[KSM_PLACEMENT_PRIORITY];
	struct ksm_placement_cand a = { .nid = 0 }, b = { .nid = 1 };
	unsigned int i, n = 20000, kept_a;
	struct ksm_placement_state *s;
	enum ksm_placement_reason why;
	struct rnd_state rnd;

	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	prandom_seed_state(&rnd, 7);
	/* C-10:1: the nice -20 process keeps 91% +/- 1 point of its pages. */
	a.snice = KSM_PLACEMENT_SNICE(-20);
	b.snice = KSM_PLACEMENT_SNICE(-11);
	for (kept_a = 0, i = 0; i < n; i++)
		kept_a += !prio->keep_tree_page(s, &a, &b,
						prandom_u32_state(&rnd), &why);
	KUNIT_EXPECT_EQ(test, why, KSM_PLACEMENT_R_PRIORITY);
	KUNIT_EXPECT_GT(test, kept_a, n * 90 / 100);
	KUNIT_EXPECT_LT(test, kept_a, n * 92 / 100);
	/* Equal priority: half each, whichever page is scanned. */
	a.snice = KSM_PLACEMENT_SNICE(5);
	b.snice = a.snice;
	for (kept_a = 0, i = 0; i < n; i++)
		kept_a += !prio->keep_tree_page(s, &a, &b,
						prandom_u32_state(&rnd), &why);
	KUNIT_EXPECT_GT(test, kept_a, n * 49 / 100);
	KUNIT_EXPECT_LT(test, kept_a, n * 51 / 100);
}

static void ksm_placement_follow_test(struct kunit *test)
{
	enum ksm_placement_reason why;
	int i, moved = 0;

	memset(&remote_hot, 0, sizeof(remote_hot));
	/* Nobody uses the copy where it is: it follows its user. */
	KUNIT_EXPECT_TRUE(test, ksm_placement_follow(1, 0, false, &why));
	KUNIT_EXPECT_EQ(test, why, KSM_PLACEMENT_R_HOT);
	/*
	 * Two instances read the same 100 pages, all kept on node 1 (the
	 * instance on node 0 was idle at the merges): the first scan counts
	 * 100 remote hot readers at node 1, none at node 0.
	 */
	for (i = 0; i < 100; i++)
		KUNIT_EXPECT_FALSE(test, ksm_placement_follow(1, 0, true, &why));
	ksm_placement_scan_start();
	/* The next one moves about half of them, then stops. */
	for (i = 0; i < 100; i++)
		moved += ksm_placement_follow(1, 0, true, &why);
	KUNIT_EXPECT_EQ(test, why, KSM_PLACEMENT_R_BALANCE);
	KUNIT_EXPECT_GE(test, moved, 49);
	KUNIT_EXPECT_LE(test, moved, 51);
	/* Balanced: nothing moves back. */
	ksm_placement_scan_start();
	for (moved = 0, i = 0; i < 50; i++) {
		moved += ksm_placement_follow(1, 0, true, &why);
		moved += ksm_placement_follow(0, 1, true, &why);
	}
	KUNIT_EXPECT_EQ(test, moved, 0);
}

static struct kunit_case ksm_placement_cases[] = {
	KUNIT_CASE(ksm_placement_hot_test),
	KUNIT_CASE(ksm_placement_balance_test),
	KUNIT_CASE(ksm_placement_nushare_test),
	KUNIT_CASE(ksm_placement_priority_test),
	KUNIT_CASE(ksm_placement_follow_test),
	{}
};

static struct kunit_suite ksm_placement_suite = {
	.name = "ksm_placement",
	.test_cases = ksm_placement_cases,
};

kunit_test_suite(ksm_placement_suite);

#endif /* _KSM_PLACEMENT_KUNIT_H */
#endif /* CONFIG_KSM_PLACEMENT_KUNIT_TEST */
