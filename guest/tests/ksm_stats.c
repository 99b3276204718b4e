// SPDX-License-Identifier: GPL-2.0
/*
 * KSM's statistics keep their documented meaning under every scanner and
 * page hash, read when a full scan has ended (full_scans moved), with ksmd
 * stopped (run=0) so that they are of one state.
 *
 * Two processes map NPAGES pages of one content each (2 * NPAGES - 1
 * sharers of one KSM page: pages_shared 1, pages_sharing 2 * NPAGES - 1);
 * then one page of one process gets contents of its own. Three full scans
 * later (the write may fall in a scan that has passed the page; the next
 * one finds its checksum changed, the one after inserts it in the unstable
 * tree): pages_shared 1, pages_sharing 2 * NPAGES - 2, pages_unshared 1
 * (the unique page waits in the unstable tree), pages_volatile 0, and
 * every page holds what was written. Under the distilling scanner, which
 * keeps a page's rmap_item only while its region is sampled, the unique
 * page is in pages_unshared, in pages_volatile or in neither (the ABI of
 * "scanner"), so the two add up to 1 at most there; the merged counts are
 * exact.
 *
 * Run for: stock, stock with page_hash=adaptive, distill, distill with
 * page_hash=adaptive; with smart_scan=0, since stock KSM's smart scan takes
 * a unique page it skips out of the unstable tree, and counts it volatile,
 * from its fourth visit on.
 */
#define _GNU_SOURCE
#include "ksm_util.h"

#define NPAGES	100

static size_t psize;

static void holder(int k, int cmd, int rep)
{
	char *mem = ksm_map_filled(NPAGES, psize, 31, false);
	bool written = false;
	char c;

	ksm_reply(rep, 0);
	while (read(cmd, &c, 1) == 1) {
		if (c == 'w') {
			ksm_fill_page(mem, psize, 32);
			written = true;
		}
		ksm_reply(rep, ksm_bad_pages(mem, 1, psize, written ? 32 : 31,
					     false) +
			  ksm_bad_pages(mem + psize, NPAGES - 1, psize, 31,
					false));
	}
	_exit(0);
}

static long ask(struct ksm_child *c, char what)
{
	long r;

	if (write(c->cmd, &what, 1) != 1)
		ksft_exit_fail_msg("holder gone\n");
	ksm_get_reply(c, "holder", &r, sizeof(r));
	return r;
}

static bool run(const char *scanner, const char *hash)
{
	struct ksm_child ch[2] = { { 0 } };
	long shared, sharing, unshared, volatil, bad, r;
	double deadline;
	bool ok;
	int i;

	ksm_set("run", 2);
	ksm_write("scanner", scanner);
	ksm_write("page_hash/mode", hash);
	ksm_set("run", 1);
	for (i = 0; i < 2; i++) {
		ksm_spawn(ch, 2, i, holder);
		ksm_get_reply(&ch[i], "holder", &r, sizeof(r));
	}
	deadline = now() + 300;
	while (ksm_get("pages_sharing") < 2 * NPAGES - 1 && now() < deadline)
		msleep(100);
	bad = ask(&ch[0], 'w');
	ok = ksm_wait_full_scans(3, 300);
	/*
	 * ksmd stopped between two batches (the write waits for the one in
	 * progress), so that the four counters are of one state: a page
	 * being examined is out of every tree for a moment.
	 */
	ksm_set("run", 0);
	shared = ksm_get("pages_shared");
	sharing = ksm_get("pages_sharing");
	unshared = ksm_get("pages_unshared");
	volatil = ksm_get("pages_volatile");
	bad += ask(&ch[0], 'v') + ask(&ch[1], 'v');
	printf("# %s, %s: %s: pages_shared %ld pages_sharing %ld pages_unshared %ld pages_volatile %ld, %ld changed\n",
	       scanner, hash, ok ? "three full scans" : "no three full scans in 300 s",
	       shared, sharing, unshared, volatil, bad);
	ksm_kill_children(ch, 2);
	if (!strcmp(scanner, "distill"))
		return ok && shared == 1 && sharing == 2 * NPAGES - 2 &&
		       unshared + volatil <= 1 && !bad;
	return ok && shared == 1 && sharing == 2 * NPAGES - 2 &&
	       unshared == 1 && volatil == 0 && !bad;
}

int main(void)
{
	struct ksm_knob knobs[] = {
		{ "scanner" }, { "page_hash/mode" }, { "distill/bottom_cpu_permille" },
		{ "smart_scan" },
		{ "pages_to_scan" }, { "sleep_millisecs" }, { "run" },
	};

	psize = sysconf(_SC_PAGESIZE);
	ksft_print_header();
	if (access(KSM_SYSFS "scanner", F_OK))
		ksft_exit_skip("no scanner knob\n");
	ksft_set_plan(4);
	ksm_knobs_save(knobs, ARRAY_SIZE(knobs));
	if (ksm_set("run", 2) || ksm_set("pages_to_scan", 1000) ||
	    ksm_set("sleep_millisecs", 10) || ksm_set("smart_scan", 0) ||
	    ksm_set("distill/bottom_cpu_permille", 1000))
		ksft_exit_fail_msg("cannot set the KSM knobs\n");
	ksft_test_result(run("stock", "checksum"), "stock\n");
	ksft_test_result(run("stock", "adaptive"), "stock, page_hash=adaptive\n");
	ksft_test_result(run("distill", "checksum"), "distill\n");
	ksft_test_result(run("distill", "adaptive"), "distill, page_hash=adaptive\n");
	ksm_set("run", 2);
	ksm_knobs_restore(knobs, ARRAY_SIZE(knobs));
	ksft_finished();
}
