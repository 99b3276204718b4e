// SPDX-License-Identifier: GPL-2.0
/*
 * A COW break of a merged page is seen by the distilling scanner though a
 * forked child still maps the same KSM page: the walk must not pass over
 * the broken slot as merged (its KSM page is mapped as many times as it has
 * sharers, the child's mapping making up for the parent's).
 *
 * The parent maps NPAGES pages of one content and waits until all are
 * merged; it forks a child that keeps them mapped, writes new contents to
 * BROKEN of its pages, and waits for full scans. Then its
 * ksm_merging_pages is NPAGES - BROKEN, KSM's pages_shared + pages_sharing
 * is the parent's and the child's merging pages together, and every page of
 * both holds what was written.
 */
#define _GNU_SOURCE
#include "ksm_util.h"

#define NPAGES	256
#define BROKEN	4

static size_t psize;
static char *mem;

static void child(int k, int cmd, int rep)
{
	char c;

	ksm_reply(rep, 0);
	while (read(cmd, &c, 1) == 1)
		ksm_reply(rep, ksm_bad_pages(mem, NPAGES, psize, 99, false));
	_exit(0);
}

int main(void)
{
	struct ksm_knob knobs[] = {
		{ "scanner" }, { "distill/bottom_cpu_permille" }, { "run" },
	};
	struct ksm_child ch[1] = { { 0 } };
	long mine, theirs, total, bad = 0, r, p;
	double deadline;
	bool scanned;
	char c = 'v';

	psize = sysconf(_SC_PAGESIZE);
	ksft_print_header();
	if (access(KSM_SYSFS "scanner", F_OK))
		ksft_exit_skip("no scanner knob\n");
	ksft_set_plan(3);
	ksm_knobs_save(knobs, ARRAY_SIZE(knobs));
	if (ksm_set("run", 2) || ksm_write("scanner", "distill") ||
	    ksm_set("distill/bottom_cpu_permille", 1000) || ksm_set("run", 1))
		ksft_exit_fail_msg("cannot set the KSM knobs\n");

	mem = ksm_map_filled(NPAGES, psize, 99, false);
	deadline = now() + 120;
	while (ksm_merging(getpid(), 0) < NPAGES && now() < deadline)
		msleep(100);
	mine = ksm_merging(getpid(), 0);
	ksft_test_result(mine == NPAGES, "all %d pages merged (%ld)\n", NPAGES,
			 mine);

	ksm_spawn(ch, 1, 0, child);
	ksm_get_reply(&ch[0], "child", &r, sizeof(r));
	for (p = 0; p < BROKEN; p++)
		ksm_fill_page(mem + p * 8 * psize, psize, 1000 + p);
	scanned = ksm_wait_full_scans(3, 300);
	mine = ksm_merging(getpid(), 0);
	theirs = ksm_merging(ch[0].pid, 0);
	total = ksm_get("pages_shared") + ksm_get("pages_sharing");
	printf("# after %s: parent %ld merging, child %ld, pages_shared + pages_sharing %ld\n",
	       scanned ? "3 full scans" : "300 s", mine, theirs, total);
	ksft_test_result(scanned && mine == NPAGES - BROKEN &&
			 total == mine + theirs,
			 "the COW-broken pages are no longer counted merged\n");

	for (p = 0; p < NPAGES; p++)
		bad += ksm_bad_pages(mem + p * psize, 1, psize,
				     p % 8 == 0 && p / 8 < BROKEN ?
				     1000 + p / 8 : 99, false);
	if (write(ch[0].cmd, &c, 1) == 1)
		ksm_get_reply(&ch[0], "child", &r, sizeof(r));
	else
		r = -1;
	ksft_test_result(!bad && !r, "contents intact (parent %ld, child %ld changed)\n",
			 bad, r);

	ksm_kill_children(ch, 1);
	ksm_set("run", 2);
	ksm_knobs_restore(knobs, ARRAY_SIZE(knobs));
	ksft_finished();
}
