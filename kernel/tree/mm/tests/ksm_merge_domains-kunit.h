/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests for merge domains: the domain of an mm under each mode, of an
 * mm without an owner or not dumpable, and which modes this kernel supports.
 */
#ifdef CONFIG_KSM_MERGE_DOMAINS_KUNIT_TEST

#ifndef _KSM_MERGE_DOMAINS_KUNIT_H
#define _KSM_MERGE_DOMAINS_KUNIT_H

#include <kunit/test.h>

static void ksm_mm_domain_test(struct kunit *test)
{
	struct mm_struct *mm;

	mm = kunit_kzalloc(test, sizeof(*mm), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mm);

	/* One domain: every mm's is 0, owner or not. */
	KUNIT_EXPECT_EQ(test, __ksm_mm_domain(mm, KSM_DOMAINS_NONE), 0ULL);
#ifdef CONFIG_MEMCG
	RCU_INIT_POINTER(mm->owner, current);
	KUNIT_EXPECT_EQ(test, __ksm_mm_domain(mm, KSM_DOMAINS_NONE), 0ULL);

	/* Not dumpable (the flags are zero): a domain of none. */
	KUNIT_EXPECT_EQ(test, __ksm_mm_domain(mm, KSM_DOMAINS_USER),
			KSM_DOMAIN_ORPHAN);
	set_dumpable(mm, SUID_DUMP_USER);
	KUNIT_EXPECT_EQ(test, __ksm_mm_domain(mm, KSM_DOMAINS_USER),
			(u64)__kuid_val(current_euid()));
	RCU_INIT_POINTER(mm->owner, NULL);
	KUNIT_EXPECT_EQ(test, __ksm_mm_domain(mm, KSM_DOMAINS_USER),
			KSM_DOMAIN_ORPHAN);

	if (!mem_cgroup_disabled()) {
		struct mem_cgroup *memcg;
		u64 id;

		rcu_read_lock();
		memcg = mem_cgroup_from_task(current);
		id = cgroup_id(memcg->css.cgroup);
		rcu_read_unlock();
		KUNIT_EXPECT_EQ(test, __ksm_mm_domain(mm, KSM_DOMAINS_CGROUP),
				KSM_DOMAIN_ORPHAN);
		RCU_INIT_POINTER(mm->owner, current);
		KUNIT_EXPECT_EQ(test, __ksm_mm_domain(mm, KSM_DOMAINS_CGROUP),
				id);
		/* Not a uid: the root cgroup's id is not 0. */
		KUNIT_EXPECT_NE(test, __ksm_mm_domain(mm, KSM_DOMAINS_CGROUP),
				0ULL);
	}
#endif
}

static void ksm_domains_supported_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ksm_domains_supported(KSM_DOMAINS_NONE), 0);
	KUNIT_EXPECT_EQ(test, ksm_domains_supported(KSM_DOMAINS_USER),
			IS_ENABLED(CONFIG_MEMCG) ? 0 : -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, ksm_domains_supported(KSM_DOMAINS_CGROUP),
			IS_ENABLED(CONFIG_MEMCG) && !mem_cgroup_disabled() ?
			0 : -EOPNOTSUPP);
}

static struct kunit_case ksm_merge_domains_cases[] = {
	KUNIT_CASE(ksm_mm_domain_test),
	KUNIT_CASE(ksm_domains_supported_test),
	{}
};

static struct kunit_suite ksm_merge_domains_suite = {
	.name = "ksm_merge_domains",
	.test_cases = ksm_merge_domains_cases,
};

kunit_test_suite(ksm_merge_domains_suite);

#endif /* _KSM_MERGE_DOMAINS_KUNIT_H */
#endif /* CONFIG_KSM_MERGE_DOMAINS_KUNIT_TEST */
