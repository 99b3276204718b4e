// SPDX-License-Identifier: GPL-2.0
/*
 * Memory that goes away does not stall the distilling scanner. Child A maps
 * HI identical pages, then BIG more of the same below them, and waits until
 * all are merged. It unmaps the BIG ones (HI stay above them, so ksmd frees
 * their rmap_items as it crosses the gap), maps BIG new ones, and once
 * those are merged too, exits (ksmd frees the rest on its next visit of
 * the mm). Freeing an item takes about 0.5-2 us under TCG. The parent stays
 * registered throughout (SPARSE distinct pages, as a host keeps other
 * processes), and after each teardown maps SMALL identical pages of a new
 * content, which must all merge within LIMIT s of it.
 *
 * A teardown is paid at the top level's share. Charged with the stretch of
 * the walk around it, mostly at the lowest level's share (0.2%), it would
 * sleep ksmd 500 times as long, every level with it, and new pages would
 * wait tens of seconds after an exit of BIG pages. (A large merged region
 * that stays is walked at the lowest share, by design, so ksmd then idles
 * for seconds between rounds: that is why A keeps only HI pages after the
 * unmap.)
 *
 * Knobs (all restored): scanner distill, the other distill knobs as they are.
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

#define BIG		131072	/* pages of child A's large mappings (512 MiB) */
#define HI		64	/* pages of child A's small mapping */
#define SPARSE		256	/* the parent's distinct pages */
#define SMALL		512	/* the parent's identical pages, after a teardown */
#define SEED_BIG	7001
#define SEED_SMALL	7002	/* and 7003 */
#define SEED_SPARSE	7100
#define MERGE_SECS	300	/* for A's pages to merge */
#define LIMIT		30	/* for the parent's, after a teardown */

static size_t psize;


/*
 * Child A: map HI pages, then BIG below them, say ready; on 'u' check the
 * BIG ones, unmap them and say how many pages were bad (-1 if the HI ones
 * are not above them); on 'm' map BIG new ones and say ready; on 'v' check
 * all it has and say so, then exit.
 */
static void child_big(int k, int cmd, int rep)
{
	char *hi = ksm_map_filled(HI, psize, SEED_BIG, false);
	char *lo = ksm_map_filled(BIG, psize, SEED_BIG, false);
	char c;

	ksm_reply(rep, 0);
	if (read(cmd, &c, 1) != 1 || c != 'u')
		_exit(1);
	ksm_reply(rep, hi > lo ?
		  ksm_bad_pages(lo, BIG, psize, SEED_BIG, false) : -1);
	if (munmap(lo, BIG * psize))
		_exit(1);
	if (read(cmd, &c, 1) != 1 || c != 'm')
		_exit(1);
	lo = ksm_map_filled(BIG, psize, SEED_BIG, false);
	ksm_reply(rep, 0);
	if (read(cmd, &c, 1) != 1 || c != 'v')
		_exit(1);
	ksm_reply(rep, ksm_bad_pages(hi, HI, psize, SEED_BIG, false) +
		  ksm_bad_pages(lo, BIG, psize, SEED_BIG, false));
	_exit(0);
}

/* Tell A to @c, get its reply and add it to *@bad (fail if it is < 0). */
static void command(struct ksm_child *a, char c, long *bad)
{
	long got;

	if (write(a->cmd, &c, 1) != 1)
		ksft_exit_fail_msg("write to A: %s\n", strerror(errno));
	ksm_get_reply(a, "A", &got, sizeof(got));
	if (got < 0) {
		ksm_kill_children(a, 1);
		ksm_distill_restore();
		ksft_exit_fail_msg("A's mappings are not in the expected order\n");
	}
	*bad += got;
}

/*
 * Wait until ksmd has freed the rmap_items of BIG merged pages (pages_sharing
 * fell by half of them from @before), then map SMALL identical pages of
 * @seed and see them merge within LIMIT s; return the mapping.
 */
static char *after_teardown(const char *what, long before, long seed)
{
	long merging, base = ksm_stat_get(getpid(), "ksm_merging_pages");
	double t = now(), t_freed;
	char *mem;

	while (ksm_get("pages_sharing") > before - BIG / 2 && now() - t < 600)
		msleep(10);
	t_freed = now();
	printf("# A's rmap_items freed %.1f s after its %s\n", t_freed - t, what);
	mem = ksm_map_filled(SMALL, psize, seed, false);
	while ((merging = ksm_stat_get(getpid(), "ksm_merging_pages") - base) <
	       SMALL && now() - t_freed < LIMIT)
		msleep(50);
	ksft_test_result(merging >= SMALL,
			 "after A's %s, %d new pages merged %.1f s after the teardown (limit %d s; %ld merged)\n",
			 what, SMALL, now() - t_freed, LIMIT, merging);
	return mem;
}

/* Whether all of A's HI + BIG pages merge within MERGE_SECS. */
static bool a_merged(pid_t pid)
{
	double t = now();
	long merging;

	while ((merging = ksm_stat_get(pid, "ksm_merging_pages")) < HI + BIG &&
	       now() - t < MERGE_SECS)
		msleep(100);
	printf("# A's %d pages: %ld merged in %.1f s\n", HI + BIG, merging,
	       now() - t);
	return merging == HI + BIG;
}

int main(void)
{
	struct ksm_child ch[1] = { { 0 } };
	char *sparse, *small1, *small2;
	long bad = 0, got;

	ksm_test_begin(4);
	psize = getpagesize();
	ksm_distill_begin();

	sparse = ksm_map_filled(SPARSE, psize, SEED_SPARSE, true);
	ksm_spawn(ch, 1, 0, child_big);
	ksm_get_reply(&ch[0], "A", &got, sizeof(got));

	/* 1: A's pages all merge. */
	if (!a_merged(ch[0].pid)) {
		ksft_test_result_fail("A's pages merged\n");
		ksm_kill_children(ch, 1);
		ksm_distill_restore();
		ksft_exit_fail();
	}
	ksft_test_result_pass("A's pages merged\n");

	/* 2: A unmaps BIG of them; ksmd goes on. */
	got = ksm_get("pages_sharing");
	command(&ch[0], 'u', &bad);
	small1 = after_teardown("munmap", got, SEED_SMALL);

	/* 3: A maps BIG new ones, they merge, A exits; ksmd goes on. */
	command(&ch[0], 'm', &bad);
	if (!a_merged(ch[0].pid)) {
		ksft_test_result_fail("A's new pages merged\n");
		ksm_kill_children(ch, 1);
		ksm_distill_restore();
		ksft_exit_fail();
	}
	got = ksm_get("pages_sharing");
	command(&ch[0], 'v', &bad);
	waitpid(ch[0].pid, NULL, 0);
	ch[0].pid = 0;
	small2 = after_teardown("exit", got, SEED_SMALL + 1);

	/* 4: every page is what was written. */
	bad += ksm_bad_pages(small1, SMALL, psize, SEED_SMALL, false);
	bad += ksm_bad_pages(small2, SMALL, psize, SEED_SMALL + 1, false);
	bad += ksm_bad_pages(sparse, SPARSE, psize, SEED_SPARSE, true);
	ksft_test_result(!bad, "contents intact (%ld pages differ)\n", bad);

	ksm_distill_restore();
	ksft_finished();
}
