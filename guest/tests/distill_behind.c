// SPDX-License-Identifier: GPL-2.0
/*
 * New duplicates are not held back by memory merged through. Child B maps
 * BIG identical pages; they merge, and their region, with nothing left to
 * merge, goes back to the lowest level. Then the parent, registered all
 * along (SPARSE distinct pages, as a host keeps other processes, mapped
 * after the fork so that B's only region is its own), maps SMALL identical
 * pages of a new content, which must merge within LIMIT s.
 *
 * Each round of the distilling scanner meets B's region. A walk over its
 * 131072 merged rmap_items takes 22-28 ms under TCG, and at the lowest
 * level's share of the CPU (0.2%) ksmd would then sleep 11-14 s, every
 * level with it, and new pages would wait that long a round. So a region
 * found merged through, with no COW break since, is crossed in one step.
 *
 * Knobs (all restored): scanner distill, the other distill knobs as they are.
 * Every page of every mapping is checked.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest.h"
#include "ksm_util.h"

#define BIG		131072	/* pages of child B's mapping (512 MiB) */
#define SPARSE		256	/* the parent's distinct pages */
#define SMALL		512	/* the parent's identical pages, at the end */
#define SEED_BIG	7201
#define SEED_SMALL	7202
#define SEED_SPARSE	7300
#define MERGE_SECS	300	/* for B's pages to merge */
#define DOWN_SECS	300	/* for B's region to reach the lowest level */
#define LIMIT		30	/* for the parent's new pages */

static size_t psize;


/* Child B: map BIG pages, say ready; on 'v' check them, say how many differ. */
static void child_big(int k, int cmd, int rep)
{
	char *mem = ksm_map_filled(BIG, psize, SEED_BIG, false);
	char c;

	ksm_reply(rep, 0);
	if (read(cmd, &c, 1) != 1 || c != 'v')
		_exit(1);
	ksm_reply(rep, ksm_bad_pages(mem, BIG, psize, SEED_BIG, false));
	_exit(0);
}

static void give_up(struct ksm_child *b, const char *what)
{
	ksft_test_result_fail("%s\n", what);
	ksm_kill_children(b, 1);
	ksm_distill_restore();
	ksft_exit_fail();
}

int main(void)
{
	struct ksm_child ch[1] = { { 0 } };
	long bad = 0, got, merging, base, rounds;
	char *sparse, *small;
	double t;

	ksm_test_begin(4);
	psize = getpagesize();
	ksm_distill_begin();

	ksm_spawn(ch, 1, 0, child_big);
	ksm_get_reply(&ch[0], "B", &got, sizeof(got));
	/*
	 * Mapped after the fork: B would inherit the mapping, a second
	 * region of its own at the lowest level, and the count of step 2
	 * would then be 1 while B's pages were still on the top level.
	 */
	sparse = ksm_map_filled(SPARSE, psize, SEED_SPARSE, true);

	/* 1: B's pages all merge. */
	t = now();
	while ((merging = ksm_stat_get(ch[0].pid, "ksm_merging_pages")) < BIG &&
	       now() - t < MERGE_SECS)
		msleep(100);
	printf("# B's %d pages: %ld merged in %.1f s\n", BIG, merging,
	       now() - t);
	if (merging < BIG)
		give_up(ch, "B's pages merged");
	ksft_test_result_pass("B's pages merged\n");

	/*
	 * 2: B's region, merged through, goes back to the lowest level (the
	 * first count of ksm_distill_regions), and two more rounds pass.
	 */
	t = now();
	while (ksm_stat_get(ch[0].pid, "ksm_distill_regions") != 1 &&
	       now() - t < DOWN_SECS)
		msleep(100);
	if (ksm_stat_get(ch[0].pid, "ksm_distill_regions") != 1)
		give_up(ch, "B's region back at the lowest level");
	printf("# B's region at the lowest level after %.1f s\n", now() - t);
	rounds = ksm_get("distill/rounds");
	while (ksm_get("distill/rounds") < rounds + 2 && now() - t < DOWN_SECS)
		msleep(100);
	ksft_test_result(ksm_get("distill/rounds") >= rounds + 2,
			 "B's region at the lowest level, two rounds on (%.1f s)\n",
			 now() - t);

	/* 3: new duplicates of the parent merge within LIMIT s. */
	base = ksm_stat_get(getpid(), "ksm_merging_pages");
	small = ksm_map_filled(SMALL, psize, SEED_SMALL, false);
	t = now();
	while ((merging = ksm_stat_get(getpid(), "ksm_merging_pages") - base) <
	       SMALL && now() - t < LIMIT)
		msleep(50);
	ksft_test_result(merging >= SMALL,
			 "%d new pages merged in %.1f s beside %d merged through (limit %d s; %ld merged)\n",
			 SMALL, now() - t, BIG, LIMIT, merging);

	/* 4: every page is what was written. */
	if (write(ch[0].cmd, "v", 1) != 1)
		ksft_exit_fail_msg("write to B: %s\n", strerror(errno));
	ksm_get_reply(&ch[0], "B", &got, sizeof(got));
	waitpid(ch[0].pid, NULL, 0);
	bad = got + ksm_bad_pages(small, SMALL, psize, SEED_SMALL, false) +
	      ksm_bad_pages(sparse, SPARSE, psize, SEED_SPARSE, true);
	ksft_test_result(!bad, "contents intact (%ld pages differ)\n", bad);

	ksm_distill_restore();
	ksm_print_stalls();
	ksft_finished();
}
