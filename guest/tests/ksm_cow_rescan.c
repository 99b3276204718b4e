// SPDX-License-Identifier: GPL-2.0
/*
 * A full scan after merged pages are written drops what KSM knew of them:
 * in a region of unique pages, let KSM merge a few pairs of equal pages
 * spread over it, write one page of each pair (the write breaks COW) just
 * after a full scan began, and check that only the other page of each pair
 * is counted as merged (ksm_merging_pages of /proc/self/ksm_stat) once
 * full_scans has moved on; then verify every byte. The KSM pages stay: a
 * search of the stable tree finds nothing stale to drop.
 *
 * The stock scanner may have passed a page in the scan under way before it
 * was written, so the check waits for two full scans. The distilling
 * scanner samples a sparse region and passes over merged pages without
 * examining them: it must look at the pages whose merge a write broke,
 * including those it passed over before the writes in the coverage under
 * way, so one full scan must do.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>

#include "kselftest.h"
#include "ksm_util.h"

#define NPAGES	2048	/* the region */
#define NPAIRS	16	/* pairs of equal pages in it */
#define STRIDE	(NPAGES / NPAIRS)

static size_t psize;

/* The pair a page belongs to, or -1 for a unique page. */
static long pair_of(size_t page)
{
	if (page % STRIDE == 0)
		return page / STRIDE;
	if (page % STRIDE == STRIDE / 2 + 1)
		return page / STRIDE;
	return -1;
}

/* Seed of a page's content: a pair's pages share theirs. */
static long seed_of(size_t page)
{
	long pair = pair_of(page);

	return pair >= 0 ? 1000000 + pair : page + 1;
}

/* The page of a pair that is written. */
static bool written(size_t page)
{
	return pair_of(page) >= 0 && page % STRIDE == 0;
}

static long bad_pages(char *mem, char *want)
{
	long bad = 0;
	size_t p;

	for (p = 0; p < NPAGES; p++) {
		ksm_fill_page(want, psize, seed_of(p));
		if (written(p))
			*(uint64_t *)want = p;
		bad += memcmp(mem + p * psize, want, psize) != 0;
	}
	return bad;
}

static long merging(void)
{
	return ksm_stat_get(getpid(), "ksm_merging_pages");
}

int main(void)
{
	long got, full, need;
	char *mem, *want, scanner[64] = "";
	double t;
	size_t p;

	ksm_test_begin(3);
	psize = getpagesize();
	mem = ksm_map_anon(NPAGES * psize);
	want = malloc(psize);
	if (!want)
		ksft_exit_fail_msg("malloc failed\n");
	for (p = 0; p < NPAGES; p++)
		ksm_fill_page(mem + p * psize, psize, seed_of(p));
	if (madvise(mem, NPAGES * psize, MADV_MERGEABLE))
		ksft_exit_fail_msg("MADV_MERGEABLE: %s\n", strerror(errno));
	ksm_set("run", 1);

	t = now();
	while ((got = merging()) < 2 * NPAIRS && now() - t < 300)
		msleep(100);
	ksft_test_result(got == 2 * NPAIRS,
			 "%d pairs merged (%ld pages merging) in %.1f s\n",
			 NPAIRS, got, now() - t);

	ksm_read("scanner", scanner, sizeof(scanner));
	ksm_knob_value(scanner);
	need = strcmp(scanner, "distill") ? 2 : 1;

	/* Just after a full scan began... */
	full = ksm_get("full_scans");
	t = now();
	while (ksm_get("full_scans") == full && now() - t < 300)
		msleep(5);
	msleep(20);
	/*
	 * ...write one page of each pair, each with its own value so that no
	 * two are equal again: each write breaks its merge for good.
	 */
	for (p = 0; p < NPAGES; p++)
		if (written(p))
			*(uint64_t *)(mem + p * psize) = p;

	full = ksm_get("full_scans");
	t = now();
	while (ksm_get("full_scans") < full + need && now() - t < 300)
		msleep(5);
	got = merging();
	ksft_test_result(got == NPAIRS,
			 "%s scanner: %d pages merging %ld full scan(s) after the writes (%ld, in %.1f s)\n",
			 scanner, NPAIRS, need, got, now() - t);

	got = bad_pages(mem, want);
	ksft_test_result(got == 0, "contents intact (%ld bad pages)\n", got);
	ksm_set("run", 2);
	ksm_print_stalls();
	ksft_finished();
}
