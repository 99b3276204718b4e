// SPDX-License-Identifier: GPL-2.0
/*
 * A process that exits does not stall the distilling scanner. Child A maps
 * BIG identical pages and waits until they are all merged, checks them and
 * exits; ksmd frees its BIG rmap_items on its next visit of the mm (about
 * 0.5-2 us an item under TCG). The parent stays registered meanwhile
 * (SPARSE distinct pages, as a host keeps other processes), then maps SMALL
 * identical pages of another content, which must all merge within LIMIT s
 * of A's teardown.
 *
 * Before patch 0038 the teardown was charged to the lowest level's share
 * (0.2%): ksmd slept 500 times it, every level with it, and the new pages
 * merged 40.5 s after the teardown (5.9 s with the patch, in the same
 * hour). Now it is paid at the top level's share.
 *
 * Knobs (all restored): scanner uksm, the other uksm knobs as they are.
 * Every page of every mapping is checked.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest.h"
#include "ksm_util.h"

#define BIG		131072	/* child A's pages (512 MiB) */
#define SPARSE		256	/* the parent's distinct pages */
#define SMALL		2048	/* the parent's identical pages, after A */
#define SEED_BIG	7001
#define SEED_SMALL	7002
#define SEED_SPARSE	7100
#define MERGE_SECS	240	/* for A's pages to merge */
#define LIMIT		25	/* for the parent's, after A's teardown */

static size_t psize;

static struct ksm_knob saved[] = {
	{ .name = "scanner" },
};
static struct ksm_knob saved_run = { .name = "run" };

/* A mergeable mapping of @n pages, page p filled from seed(p). */
static char *map_filled(long n, long seed, bool distinct)
{
	char *mem = ksm_map_anon(n * psize);
	long p;

	for (p = 0; p < n; p++)
		ksm_fill_page(mem + p * psize, psize, distinct ? seed + p : seed);
	if (madvise(mem, n * psize, MADV_MERGEABLE))
		ksft_exit_fail_msg("MADV_MERGEABLE: %s\n", strerror(errno));
	return mem;
}

/* Pages of the @n at @mem that differ from what map_filled() wrote. */
static long bad_pages(const char *mem, long n, long seed, bool distinct)
{
	char *want = malloc(psize);
	long p, bad = 0;

	if (!want)
		ksft_exit_fail_msg("malloc failed\n");
	ksm_fill_page(want, psize, seed);
	for (p = 0; p < n; p++) {
		if (distinct)
			ksm_fill_page(want, psize, seed + p);
		bad += memcmp(mem + p * psize, want, psize) != 0;
	}
	free(want);
	return bad;
}

/* Child A: map, say ready, wait for 'v', check, say how many are bad. */
static void child_big(int k, int cmd, int rep)
{
	char *mem = map_filled(BIG, SEED_BIG, false);
	long bad = 0;
	char c;

	if (write(rep, &bad, sizeof(bad)) != sizeof(bad))
		_exit(1);
	if (read(cmd, &c, 1) != 1 || c != 'v')
		_exit(1);
	bad = bad_pages(mem, BIG, SEED_BIG, false);
	if (write(rep, &bad, sizeof(bad)) != sizeof(bad))
		_exit(1);
	_exit(0);
}

static void restore(void)
{
	ksm_knobs_restore(saved, ARRAY_SIZE(saved));
	ksm_knobs_restore(&saved_run, 1);
}

int main(void)
{
	struct ksm_child ch[1] = { { 0 } };
	long bad = 0, got, sharing0, merging;
	char *sparse, *small;
	double t, t_freed;
	bool ok;

	ksm_test_begin(3);
	psize = getpagesize();
	ksm_knobs_save(saved, ARRAY_SIZE(saved));
	ksm_knobs_save(&saved_run, 1);
	if (ksm_set("run", 2) || ksm_write("scanner", "uksm") ||
	    ksm_set("run", 1)) {
		restore();
		ksft_exit_fail_msg("cannot set the knobs\n");
	}
	sharing0 = ksm_get("pages_sharing");

	sparse = map_filled(SPARSE, SEED_SPARSE, true);
	ksm_spawn(ch, 1, 0, child_big);
	ksm_get_reply(&ch[0], "A", &got, sizeof(got));

	/* 1: A's pages all merge. */
	t = now();
	while ((merging = ksm_stat_get(ch[0].pid, "ksm_merging_pages")) < BIG &&
	       now() - t < MERGE_SECS)
		msleep(100);
	ksft_test_result(merging == BIG, "A's %d pages merged (%ld in %.1f s)\n",
			 BIG, merging, now() - t);
	if (merging != BIG) {
		ksm_kill_children(ch, 1);
		restore();
		ksft_exit_fail();
	}

	/* A checks its pages and exits; wait until ksmd freed its items. */
	if (write(ch[0].cmd, "v", 1) != 1)
		ksft_exit_fail_msg("write to A: %s\n", strerror(errno));
	ksm_get_reply(&ch[0], "A", &got, sizeof(got));
	bad += got;
	waitpid(ch[0].pid, NULL, 0);
	ch[0].pid = 0;
	t = now();
	while (ksm_get("pages_sharing") > sharing0 + BIG / 2 && now() - t < 600)
		msleep(10);
	t_freed = now();
	printf("# A's rmap_items freed %.1f s after its exit\n", t_freed - t);

	/* 2: ksmd goes on: the parent's new pages merge soon after. */
	small = map_filled(SMALL, SEED_SMALL, false);
	while ((merging = ksm_stat_get(getpid(), "ksm_merging_pages")) < SMALL &&
	       now() - t_freed < LIMIT)
		msleep(50);
	ok = merging >= SMALL;
	ksft_test_result(ok, "%d new pages merged %.1f s after A's teardown (limit %d s; %ld merged)\n",
			 SMALL, now() - t_freed, LIMIT, merging);

	/* 3: every page is what was written. */
	bad += bad_pages(small, SMALL, SEED_SMALL, false);
	bad += bad_pages(sparse, SPARSE, SEED_SPARSE, true);
	ksft_test_result(!bad, "contents intact (%ld pages differ)\n", bad);

	restore();
	ksft_finished();
}
