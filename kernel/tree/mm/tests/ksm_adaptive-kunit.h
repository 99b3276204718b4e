/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests for the helpers of the adaptive KSM engine.
 */
#ifdef CONFIG_KSM_ADAPTIVE_KUNIT_TEST

#ifndef _KSM_ADAPTIVE_KUNIT_H
#define _KSM_ADAPTIVE_KUNIT_H

#include <kunit/test.h>
#include <linux/random.h>

static const char * const ksm_test_modes[] = { "stock", "distill", "distill-2" };
static const struct ksm_choice ksm_test_choice = {
	.names = ksm_test_modes,
	.nr = ARRAY_SIZE(ksm_test_modes),
};

static void ksm_choice_parse_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ksm_choice_parse(&ksm_test_choice, "stock"), 0);
	KUNIT_EXPECT_EQ(test, ksm_choice_parse(&ksm_test_choice, "distill\n"), 1);
	KUNIT_EXPECT_EQ(test, ksm_choice_parse(&ksm_test_choice, "distill-2"), 2);
	/* Prefixes, extensions, case and empty writes name no mode. */
	KUNIT_EXPECT_EQ(test, ksm_choice_parse(&ksm_test_choice, "uks"), -EINVAL);
	KUNIT_EXPECT_EQ(test, ksm_choice_parse(&ksm_test_choice, "distill-"), -EINVAL);
	KUNIT_EXPECT_EQ(test, ksm_choice_parse(&ksm_test_choice, "DISTILL"), -EINVAL);
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
			(ssize_t)strlen("[stock] distill distill-2\n"));
	KUNIT_EXPECT_STREQ(test, buf, "[stock] distill distill-2\n");
	ksm_choice_show(&ksm_test_choice, 2, buf);
	KUNIT_EXPECT_STREQ(test, buf, "stock distill [distill-2]\n");
}

static int ksm_test_sign(int v)
{
	return (v > 0) - (v < 0);
}

/* memcmp_pages() of @a and @b, both ways round, has memcmp()'s sign. */
static void ksm_expect_cmp(struct kunit *test, struct page *a, struct page *b)
{
	void *pa = page_address(a), *pb = page_address(b);

	KUNIT_EXPECT_EQ(test, ksm_test_sign(memcmp_pages(a, b)),
			ksm_test_sign(memcmp(pa, pb, PAGE_SIZE)));
	KUNIT_EXPECT_EQ(test, ksm_test_sign(memcmp_pages(b, a)),
			ksm_test_sign(memcmp(pb, pa, PAGE_SIZE)));
}

/*
 * memcmp_pages(), the compare KSM orders its trees by and checks before a
 * merge (mm/util.c's generic one unless the architecture has its own),
 * against memcmp(), over zeroes and over random contents of untagged
 * pages: equal pages, then one byte changed (to a random other value,
 * compared both ways round) at the first and the last byte of every
 * 64-byte block and at 64 random places, each also with a second
 * difference at the page's last byte, which must not change the sign.
 */
static void ksm_memcmp_pages_test(struct kunit *test)
{
	struct page *page_a = alloc_page(GFP_KERNEL);
	struct page *page_b = alloc_page(GFP_KERNEL);
	unsigned long *a, *b;
	unsigned int fill, k;
	u8 *pb;

	if (!page_a || !page_b) {
		if (page_a)
			__free_page(page_a);
		if (page_b)
			__free_page(page_b);
		KUNIT_FAIL(test, "no pages");
		return;
	}
	a = page_address(page_a);
	b = page_address(page_b);
	pb = (u8 *)b;
	for (fill = 0; fill < 2; fill++) {
		if (fill)
			get_random_bytes(a, PAGE_SIZE);
		else
			memset(a, 0, PAGE_SIZE);
		memcpy(b, a, PAGE_SIZE);
		KUNIT_EXPECT_EQ(test, memcmp_pages(page_a, page_b), 0);
		for (k = 0; k < 2 * PAGE_SIZE / 64 + 64; k++) {
			unsigned int pos;
			u8 old;

			if (k < PAGE_SIZE / 64)
				pos = k * 64;		/* first byte of a block */
			else if (k < 2 * PAGE_SIZE / 64)
				pos = (k - PAGE_SIZE / 64) * 64 + 63; /* last */
			else
				pos = get_random_u32_below(PAGE_SIZE);
			old = pb[pos];
			pb[pos] = old + 1 + get_random_u32_below(255);
			ksm_expect_cmp(test, page_a, page_b);
			if (pos + 1 < PAGE_SIZE) {
				/* A later difference: no effect. */
				pb[PAGE_SIZE - 1] ^= 0xff;
				ksm_expect_cmp(test, page_a, page_b);
				pb[PAGE_SIZE - 1] ^= 0xff;
			}
			pb[pos] = old;
		}
		KUNIT_EXPECT_EQ(test, memcmp_pages(page_a, page_b), 0);
	}
	__free_page(page_a);
	__free_page(page_b);
}

static struct kunit_case ksm_adaptive_test_cases[] = {
	KUNIT_CASE(ksm_choice_parse_test),
	KUNIT_CASE(ksm_choice_show_test),
	KUNIT_CASE(ksm_memcmp_pages_test),
	{},
};

static struct kunit_suite ksm_adaptive_test_suite = {
	.name = "ksm_adaptive",
	.test_cases = ksm_adaptive_test_cases,
};

kunit_test_suites(&ksm_adaptive_test_suite);

#endif /* _KSM_ADAPTIVE_KUNIT_H */

#endif /* CONFIG_KSM_ADAPTIVE_KUNIT_TEST */
