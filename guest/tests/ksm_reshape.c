// SPDX-License-Identifier: GPL-2.0
/*
 * The knobs that change the trees' shape, changed while the unstable trees
 * hold pages: tree_shards, merge_across_nodes, page_hash and scanner. Each
 * change drops the unstable trees with every item in them, so no root is
 * left pointing at an item a later unmap frees (the kernel report such a
 * stale root gives under KASAN fails the boot).
 *
 * Two children hold NPAGES unique mergeable pages each, so nothing merges
 * and the shape knobs are accepted; between the changes the scan fills the
 * unstable trees again, and a child unmaps part of its pages. smart_scan is
 * 0: it would take unique pages that stay unmerged out of the unstable
 * trees, which then might never hold them all.
 *
 *  1. tree_shards 2 then 1, back to back, under page_hash=adaptive, the
 *     lower half of both children unmapped while two full scans go on
 *     over the rest (three times), then scanner=distill.
 *  2. merge_across_nodes 0, 1, 0 under the distilling scanner (whose
 *     unstable tree lives a whole coverage), a quarter of the other child
 *     unmapped between the changes.
 *  3. scanner and page_hash flipped back and forth with unmaps between.
 *  4. Every page left holds what its child wrote, and pairs of equal pages
 *     mapped afterwards still merge.
 */
#define _GNU_SOURCE
#include "ksm_util.h"

#define NPAGES	2048

static size_t psize;

/*
 * Child k: NPAGES unique pages; 'u' unmaps the lower half of what is left
 * (the scan frees its rmap_items, then files the upper half's pages),
 * 'r' maps NPAGES new ones in place of what is left.
 */
static void child(int k, int cmd, int rep)
{
	long seed = (k + 1) * 1000003L, n = NPAGES;
	char *mem = ksm_map_filled(NPAGES, psize, seed, true);
	char c;

	ksm_reply(rep, 0);
	while (read(cmd, &c, 1) == 1) {
		if (c == 'r') {
			munmap(mem, n * psize);
			seed += NPAGES;
			n = NPAGES;
			mem = ksm_map_filled(NPAGES, psize, seed, true);
			ksm_reply(rep, n);
		} else if (c == 'u') {
			munmap(mem, n / 2 * psize);
			mem += n / 2 * psize;
			seed += n / 2;
			n -= n / 2;
			ksm_reply(rep, n);
		} else if (c == 'v') {
			ksm_reply(rep, ksm_bad_pages(mem, n, psize, seed, true));
		}
	}
	_exit(0);
}

static long ask(struct ksm_child *c, char what)
{
	long r;

	if (write(c->cmd, &what, 1) != 1)
		ksft_exit_fail_msg("child %d: %s\n", c->pid, strerror(errno));
	ksm_get_reply(c, "holder", &r, sizeof(r));
	return r;
}

/* Wait until the unstable trees hold at least @n pages again (60 s at most). */
static bool unstable_holds(long n)
{
	double deadline = now() + 60;

	while (ksm_get("pages_unshared") < n && now() < deadline)
		msleep(50);
	if (ksm_get("pages_unshared") >= n)
		return true;
	printf("# the unstable trees hold %ld pages after 60 s, not %ld (full_scans %ld, page_hash/strength %ld)\n",
	       ksm_get("pages_unshared"), n, ksm_get("full_scans"),
	       ksm_get("page_hash/strength"));
	return false;
}

/*
 * Wait until the trees are keyed by the adaptive hash and its strength has
 * settled (no re-keying for 3 s: a probe's new strength empties the
 * unstable trees), 120 s at most.
 */
static bool keyed(void)
{
	double deadline = now() + 120, quiet = now() + 3;
	long rekeys = ksm_get("page_hash/rekeys");

	while (now() < deadline && (ksm_get("page_hash/strength") <= 0 ||
				    now() < quiet)) {
		msleep(50);
		if (ksm_get("page_hash/rekeys") != rekeys) {
			rekeys = ksm_get("page_hash/rekeys");
			quiet = now() + 3;
		}
	}
	if (ksm_get("page_hash/strength") > 0)
		return true;
	printf("# the trees are not keyed by the adaptive hash after 120 s\n");
	return false;
}

/* Write @val to @knob; say so unless it is taken. */
static bool set_knob(const char *knob, const char *val)
{
	int err = ksm_write(knob, val);

	printf("# %s=%s: %s (pages_unshared %ld, pages_shared %ld)\n", knob,
	       val, err ? strerror(-err) : "taken", ksm_get("pages_unshared"),
	       ksm_get("pages_shared"));
	return !err;
}

/* Pairs of equal pages merge: the engine still works after the changes. */
static bool pairs_merge(void)
{
	long n = 256, p, bad;
	char *mem = ksm_map_anon(n * psize);
	double deadline = now() + 120;
	bool ok;

	for (p = 0; p < n; p++)
		ksm_fill_page(mem + p * psize, psize, 77 + p / 2);
	madvise(mem, n * psize, MADV_MERGEABLE);
	while (ksm_get("pages_sharing") < n / 2 && now() < deadline)
		msleep(100);
	bad = 0;
	for (p = 0; p < n; p++)
		bad += ksm_bad_pages(mem + p * psize, 1, psize, 77 + p / 2,
				     false);
	printf("# pairs: pages_shared %ld pages_sharing %ld, %ld changed\n",
	       ksm_get("pages_shared"), ksm_get("pages_sharing"), bad);
	ok = ksm_get("pages_sharing") >= n / 2 && !bad;
	munmap(mem, n * psize);
	return ok;
}

int main(void)
{
	struct ksm_knob knobs[] = {
		{ "tree_shards" }, { "merge_across_nodes" }, { "page_hash/mode" },
		{ "scanner" }, { "distill/bottom_cpu_permille" },
		{ "pages_to_scan" }, { "sleep_millisecs" }, { "smart_scan" },
		{ "run" },
	};
	struct ksm_child ch[2] = { { 0 } };
	bool ok1, ok2, ok3;
	long bad, r;
	int i;

	psize = sysconf(_SC_PAGESIZE);
	ksft_print_header();
	if (access(KSM_SYSFS "tree_shards", F_OK))
		ksft_exit_skip("no tree_shards knob\n");
	ksft_set_plan(4);
	ksm_knobs_save(knobs, ARRAY_SIZE(knobs));
	if (ksm_set("run", 2) || ksm_write("scanner", "stock") ||
	    ksm_write("page_hash/mode", "adaptive") ||
	    ksm_set("distill/bottom_cpu_permille", 1000) ||
	    ksm_set("pages_to_scan", 1000) || ksm_set("sleep_millisecs", 10) ||
	    ksm_set("smart_scan", 0) || ksm_set("run", 1))
		ksft_exit_fail_msg("cannot set the KSM knobs\n");
	for (i = 0; i < 2; i++) {
		ksm_spawn(ch, 2, i, child);
		ksm_get_reply(&ch[i], "holder", &r, sizeof(r));
	}

	/*
	 * 1. Back to back, so that no end of a scan empties the trees between;
	 * the scan that goes on frees the unmapped half's rmap_items and files
	 * the other pages. Three times, the unmapped half mapped anew.
	 */
	ok1 = keyed();
	for (i = 0; i < 3; i++) {
		ok1 = keyed() && unstable_holds(NPAGES) &&
		      set_knob("tree_shards", "2") &&
		      set_knob("tree_shards", "1") && ok1;
		r = ask(&ch[0], 'u') + ask(&ch[1], 'u');
		ksm_wait_full_scans(2, 120);
		ask(&ch[0], 'r');
		ask(&ch[1], 'r');
	}
	ok1 = set_knob("scanner", "distill") && ok1;
	msleep(5000);
	ok1 = ok1 && unstable_holds(64);
	ksft_test_result(ok1, "tree_shards 2 then 1, an unmap, then distill\n");

	/* 2. */
	ok2 = set_knob("merge_across_nodes", "0") && unstable_holds(64);
	ask(&ch[1], 'u');
	ok2 = set_knob("merge_across_nodes", "1") && ok2 &&
	      unstable_holds(64);
	ask(&ch[1], 'u');
	ok2 = set_knob("merge_across_nodes", "0") && ok2;
	msleep(5000);
	ksft_test_result(ok2, "merge_across_nodes 0, 1, 0 under distill, unmaps between\n");

	/* 3. */
	ok3 = true;
	for (i = 0; i < 4; i++) {
		ok3 = set_knob("scanner", i & 1 ? "distill" : "stock") && ok3;
		ok3 = unstable_holds(64) && ok3;
		ok3 = set_knob("page_hash/mode", i & 1 ? "adaptive" : "checksum") &&
		      ok3;
		if (i == 1)
			ask(&ch[0], 'u');
		msleep(2000);
	}
	ksft_test_result(ok3, "scanner and page_hash flipped, an unmap between\n");

	/* 4. */
	bad = ask(&ch[0], 'v') + ask(&ch[1], 'v');
	ksm_kill_children(ch, 2);
	ksft_test_result(!bad && pairs_merge(),
			 "contents intact (%ld pages changed), pairs still merge\n",
			 bad);

	ksm_set("run", 2);
	ksm_knobs_restore(knobs, ARRAY_SIZE(knobs));
	ksft_finished();
}
