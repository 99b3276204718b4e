// SPDX-License-Identifier: GPL-2.0
/*
 * Adaptive deduplication engine for KSM: helpers shared by its policies.
 *
 * The engine extends mm/ksm.c with policies (scanners, page hashes, placement
 * of the merged copy, THP handling) selected at run time through knobs under
 * /sys/kernel/mm/ksm/. Each such knob selects one mode among a few names;
 * this file parses and shows them in one way for all.
 */

#include <linux/errno.h>
#include <linux/highmem.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "ksm_adaptive.h"

struct ksm_tree_stats ksm_tree_stats;

/**
 * ksm_choice_parse() - parse a write to a mode knob
 * @choice:	the knob's modes
 * @buf:	the written text: one mode name, optionally newline-terminated
 *
 * Return: the mode's index, or -EINVAL when @buf names no mode.
 */
int ksm_choice_parse(const struct ksm_choice *choice, const char *buf)
{
	unsigned int i;

	for (i = 0; i < choice->nr; i++)
		if (sysfs_streq(buf, choice->names[i]))
			return i;
	return -EINVAL;
}

/**
 * ksm_choice_show() - show a mode knob, the current mode in brackets
 * @choice:	the knob's modes
 * @cur:	index of the current mode
 * @buf:	a sysfs page buffer
 *
 * Return: the number of bytes written to @buf.
 */
ssize_t ksm_choice_show(const struct ksm_choice *choice, unsigned int cur,
			char *buf)
{
	ssize_t len = 0;
	unsigned int i;

	for (i = 0; i < choice->nr; i++)
		len += sysfs_emit_at(buf, len, i == cur ? "%s[%s]" : "%s%s",
				     i ? " " : "", choice->names[i]);
	len += sysfs_emit_at(buf, len, "\n");
	return len;
}

/*
 * Words ksm_memcmp_page() compares a pass (its loop body spells out that
 * many): their differences are ORed and tested once, so a page of equal
 * words costs two loads and two ALU operations a word. The generic
 * memcmp() (x86_64 has no assembly one) pays a compare, a branch and three
 * counter updates a word as well.
 */
#define KSM_CMP_WORDS	8

/**
 * ksm_memcmp_page() - compare two page-sized buffers as memcmp() does
 * @p1:	the first page's contents (word aligned)
 * @p2:	the second page's contents (word aligned)
 *
 * Return: memcmp(@p1, @p2, PAGE_SIZE)'s sign: zero when equal, otherwise
 * negative or positive as the first differing byte of @p1 is below or
 * above @p2's. The sign is memcmp()'s exactly (the block holding the first
 * difference is handed to memcmp()), so trees ordered by either function
 * are ordered alike.
 */
int ksm_memcmp_page(const void *p1, const void *p2)
{
	const unsigned long *a = p1, *b = p2;
	unsigned int i;

	BUILD_BUG_ON(KSM_CMP_WORDS != 8);
	BUILD_BUG_ON(PAGE_SIZE % (KSM_CMP_WORDS * sizeof(long)));
	for (i = 0; i < PAGE_SIZE / sizeof(long); i += KSM_CMP_WORDS) {
		unsigned long d;

		d = (a[i] ^ b[i]) | (a[i + 1] ^ b[i + 1]) |
		    (a[i + 2] ^ b[i + 2]) | (a[i + 3] ^ b[i + 3]) |
		    (a[i + 4] ^ b[i + 4]) | (a[i + 5] ^ b[i + 5]) |
		    (a[i + 6] ^ b[i + 6]) | (a[i + 7] ^ b[i + 7]);
		if (d)
			return memcmp(a + i, b + i,
				      KSM_CMP_WORDS * sizeof(long));
	}
	return 0;
}

/**
 * ksm_memcmp_pages() - compare two pages' contents as memcmp_pages() does
 * @page1:	the first page
 * @page2:	the second page
 *
 * Return: the sign memcmp_pages() would return (see ksm_memcmp_page()).
 */
int ksm_memcmp_pages(struct page *page1, struct page *page2)
{
	void *addr1, *addr2;
	int ret;

	addr1 = kmap_local_page(page1);
	addr2 = kmap_local_page(page2);
	ret = ksm_memcmp_page(addr1, addr2);
	kunmap_local(addr2);
	kunmap_local(addr1);
	return ret;
}

#include "tests/ksm_adaptive-kunit.h"
