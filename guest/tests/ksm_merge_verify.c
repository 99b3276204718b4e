// SPDX-License-Identifier: GPL-2.0
/*
 * Merged pages keep their exact content: fill two mergeable regions with the
 * same multi-pattern pages plus unique ones, let KSM merge them, check the
 * saving against the exact oracle (honouring max_page_sharing chains), then
 * verify every byte, break COW on some merged pages and verify again.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>

#include "kselftest.h"
#include "ksm_util.h"

#define NPAGES		512	/* per region */
#define NPATTERNS	8	/* distinct duplicate contents */
#define NUNIQUE		64	/* unique pages per region (tail) */

static size_t psize;

static uint64_t word(int region, size_t page, size_t i)
{
	/* Duplicate pages depend on the page's pattern only; unique ones on
	 * the region and page too. Never zero, so use_zero_pages is moot.
	 */
	uint64_t pat = page < NPAGES - NUNIQUE ? page % NPATTERNS :
		NPATTERNS + page + (uint64_t)region * NPAGES;

	return (pat + 1) * 0x9e3779b97f4a7c15ull ^ (i * 0x100000001b3ull) ^ 1;
}

static void fill(uint64_t *mem, int region)
{
	size_t p, i, n = psize / 8;

	for (p = 0; p < NPAGES; p++)
		for (i = 0; i < n; i++)
			mem[p * n + i] = word(region, p, i);
}

static long bad_bytes(uint64_t *mem, int region)
{
	size_t p, i, n = psize / 8;
	long bad = 0;

	for (p = 0; p < NPAGES; p++)
		for (i = 0; i < n; i++)
			bad += mem[p * n + i] != word(region, p, i);
	return bad;
}

/* pages_sharing for `copies` identical pages, chains of max_page_sharing. */
static long oracle(long copies, long mps)
{
	return copies - (copies + mps - 1) / mps;
}

static int wait_sharing(long want, int secs)
{
	int i;

	for (i = 0; i < secs * 10; i++) {
		if (ksm_get("pages_sharing") >= want)
			return 0;
		msleep(100);
	}
	return -1;
}

int main(void)
{
	long dup_per_pattern, want, mps, got;
	uint64_t *a, *b;
	size_t len;

	ksft_print_header();
	ksft_set_plan(3);
	psize = getpagesize();
	len = NPAGES * psize;
	if (access(KSM_SYSFS "run", W_OK))
		ksft_exit_skip("KSM sysfs not writable\n");

	a = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	b = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED || b == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	madvise(a, len, MADV_NOHUGEPAGE);
	madvise(b, len, MADV_NOHUGEPAGE);
	fill(a, 0);
	fill(b, 1);
	if (madvise(a, len, MADV_MERGEABLE) || madvise(b, len, MADV_MERGEABLE))
		ksft_exit_fail_msg("MADV_MERGEABLE: %s\n", strerror(errno));

	mps = ksm_get("max_page_sharing");
	dup_per_pattern = 2 * (NPAGES - NUNIQUE) / NPATTERNS;
	want = NPATTERNS * oracle(dup_per_pattern, mps);
	ksm_set("pages_to_scan", 4 * NPAGES);
	ksm_set("sleep_millisecs", 10);
	ksm_set("run", 1);

	wait_sharing(want, 120);
	got = ksm_get("pages_sharing");
	ksft_test_result(got == want, "saving matches the oracle (%ld of %ld)\n",
			 got, want);

	got = bad_bytes(a, 0) + bad_bytes(b, 1);
	ksft_test_result(got == 0, "merged contents intact (%ld bad words)\n", got);

	/* Break COW on every other duplicate page of a, then verify all. */
	for (size_t p = 0; p < NPAGES - NUNIQUE; p += 2) {
		size_t i = p * (psize / 8);

		a[i] = ~word(0, p, 0);
		a[i] = word(0, p, 0);
	}
	got = bad_bytes(a, 0) + bad_bytes(b, 1);
	ksft_test_result(got == 0, "contents intact after COW breaks (%ld bad words)\n",
			 got);
	ksm_set("run", 2);
	ksft_finished();
}
