/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests for the helpers of the adaptive KSM engine.
 */
#ifdef CONFIG_KSM_ADAPTIVE_KUNIT_TEST

#ifndef _KSM_ADAPTIVE_KUNIT_H
#define _KSM_ADAPTIVE_KUNIT_H

#include <kunit/test.h>

static const char * const ksm_test_modes[] = { "stock", "uksm", "uksm-2" };
static const struct ksm_choice ksm_test_choice = {
	.names = ksm_test_modes,
	.nr = ARRAY_SIZE(ksm_test_modes),
};

static void ksm_choice_parse_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ksm_choice_parse(&ksm_test_choice, "stock"), 0);
	KUNIT_EXPECT_EQ(test, ksm_choice_parse(&ksm_test_choice, "uksm\n"), 1);
	KUNIT_EXPECT_EQ(test, ksm_choice_parse(&ksm_test_choice, "uksm-2"), 2);
	/* Prefixes, extensions, case and empty writes name no mode. */
	KUNIT_EXPECT_EQ(test, ksm_choice_parse(&ksm_test_choice, "uks"), -EINVAL);
	KUNIT_EXPECT_EQ(test, ksm_choice_parse(&ksm_test_choice, "uksm-"), -EINVAL);
	KUNIT_EXPECT_EQ(test, ksm_choice_parse(&ksm_test_choice, "UKSM"), -EINVAL);
	KUNIT_EXPECT_EQ(test, ksm_choice_parse(&ksm_test_choice, ""), -EINVAL);
	KUNIT_EXPECT_EQ(test, ksm_choice_parse(&ksm_test_choice, "\n"), -EINVAL);
	KUNIT_EXPECT_EQ(test, ksm_choice_parse(&ksm_test_choice, "stock\n\n"),
			-EINVAL);
}

static void ksm_choice_show_test(struct kunit *test)
{
	char *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_EQ(test, ksm_choice_show(&ksm_test_choice, 0, buf),
			(ssize_t)strlen("[stock] uksm uksm-2\n"));
	KUNIT_EXPECT_STREQ(test, buf, "[stock] uksm uksm-2\n");
	ksm_choice_show(&ksm_test_choice, 2, buf);
	KUNIT_EXPECT_STREQ(test, buf, "stock uksm [uksm-2]\n");
}

static struct kunit_case ksm_adaptive_test_cases[] = {
	KUNIT_CASE(ksm_choice_parse_test),
	KUNIT_CASE(ksm_choice_show_test),
	{},
};

static struct kunit_suite ksm_adaptive_test_suite = {
	.name = "ksm_adaptive",
	.test_cases = ksm_adaptive_test_cases,
};

kunit_test_suites(&ksm_adaptive_test_suite);

#endif /* _KSM_ADAPTIVE_KUNIT_H */

#endif /* CONFIG_KSM_ADAPTIVE_KUNIT_TEST */
