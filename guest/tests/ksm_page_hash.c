// SPDX-License-Identifier: GPL-2.0
/*
 * Adaptive partial hashing (UKSM section 6): the page_hash knob, hash-keyed
 * trees, and switching while pages are merged.
 *
 *  1. Invalid writes to page_hash return EINVAL and change nothing.
 *  2. Under page_hash=adaptive, NPAGES pages holding NPAGES / 2 contents
 *     twice each all merge, every byte intact, with fewer page compares
 *     a lookup than under the checksum (reported).
 *  3. Switching checksum -> adaptive -> checksum while they are merged
 *     keeps every merge (the stable tree is re-keyed, and the count of
 *     re-keys moves), and a third copy of each content, mapped after each
 *     switch, merges into the existing KSM pages: the re-keyed nodes are
 *     found again.
 *  4. Pages that differ only in their last word, all of them colliding at
 *     any strength that does not read it: nothing merges, every byte is
 *     intact, and the collisions are counted (the strength falls, without
 *     collisions, until it no longer reads that word).
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <stdint.h>

#include "ksm_util.h"

#define NPAGES	2048

static size_t psize;

/*
 * The last word of near-identical page @p: each page its own (@near 1), or
 * (@near 2) pages 0 and 1 the same, a pair that merges into a KSM page the
 * others are near to.
 */
static uint64_t near_last(long p, int near)
{
	return near == 2 && p < 2 ? 0 : p + 1;
}

static char *map_copies(long copies, int near)
{
	size_t len = NPAGES / 2 * copies * psize;
	char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long p;

	if (mem == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	madvise(mem, len, MADV_NOHUGEPAGE);
	for (p = 0; p < NPAGES / 2 * copies; p++) {
		char *page = mem + p * psize;

		if (near) {
			ksm_fill_page(page, psize, 5);
			((uint64_t *)page)[psize / 8 - 1] = near_last(p, near);
		} else {
			ksm_fill_page(page, psize, p % (NPAGES / 2));
		}
	}
	if (madvise(mem, len, MADV_MERGEABLE))
		ksft_exit_fail_msg("MADV_MERGEABLE: %s\n", strerror(errno));
	return mem;
}

static long changed(const char *mem, long copies, int near)
{
	char *want = malloc(psize);
	long p, bad = 0;

	for (p = 0; p < NPAGES / 2 * copies; p++) {
		if (near) {
			ksm_fill_page(want, psize, 5);
			((uint64_t *)want)[psize / 8 - 1] = near_last(p, near);
		} else {
			ksm_fill_page(want, psize, p % (NPAGES / 2));
		}
		bad += memcmp(mem + p * psize, want, psize) != 0;
	}
	free(want);
	return bad;
}

/* Wait up to 180 s for pages_shared == @shared, pages_sharing == @sharing. */
static int wait_merged(long shared, long sharing)
{
	double deadline = now() + 180;

	while (now() < deadline) {
		if (ksm_get("pages_shared") == shared &&
		    ksm_get("pages_sharing") == sharing)
			return 1;
		msleep(100);
	}
	printf("# pages_shared %ld (want %ld), pages_sharing %ld (want %ld)\n",
	       ksm_get("pages_shared"), shared, ksm_get("pages_sharing"),
	       sharing);
	return 0;
}

/* Wait for @scans full scans to end. */
static void wait_scans(long scans)
{
	long end = ksm_get("full_scans") + scans;
	double deadline = now() + 180;

	while (ksm_get("full_scans") < end && now() < deadline)
		msleep(50);
}

/* The mode shown by page_hash: 1 for adaptive, 0 for checksum, -1 else. */
static int mode(void)
{
	char buf[64];

	if (ksm_read("page_hash/mode", buf, sizeof(buf)))
		return -1;
	if (!strcmp(buf, "[checksum] adaptive\n"))
		return 0;
	if (!strcmp(buf, "checksum [adaptive]\n"))
		return 1;
	return -1;
}

static int test_invalid(void)
{
	static const char * const bad[] = {
		"\n", "bogus", "adaptive extra", "checksum,adaptive",
		"Adaptive", "1",
	};
	unsigned int i;
	int ok = mode() == 0;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		if (ksm_write("page_hash/mode", bad[i]) != -EINVAL || mode() != 0) {
			printf("# page_hash accepted \"%s\"\n", bad[i]);
			ok = 0;
		}
	return ok;
}

/* Merge the pairs under @adaptive; the page compares a lookup, or -1. */
static double merge_pairs(int adaptive)
{
	long l0, c0, u0, uc0, bad;
	double cmp;
	char *mem;

	ksm_write("run", "2");
	if (ksm_write("page_hash/mode", adaptive ? "adaptive" : "checksum") ||
	    mode() != adaptive)
		return -1;
	l0 = ksm_get("trees/stable_lookups");
	c0 = ksm_get("trees/stable_lookup_compares");
	u0 = ksm_get("trees/unstable_lookups");
	uc0 = ksm_get("trees/unstable_lookup_compares");
	mem = map_copies(2, 0);
	ksm_write("run", "1");
	cmp = wait_merged(NPAGES / 2, NPAGES / 2) ? 0 : -1;
	bad = changed(mem, 2, 0);
	if (cmp == 0)
		cmp = (double)(ksm_get("trees/stable_lookup_compares") - c0 +
			       ksm_get("trees/unstable_lookup_compares") - uc0) /
		      (ksm_get("trees/stable_lookups") - l0 +
		       ksm_get("trees/unstable_lookups") - u0);
	printf("# page_hash=%s: strength %ld, %ld pages changed, %.2f page compares a lookup\n",
	       adaptive ? "adaptive" : "checksum",
	       ksm_get("page_hash/strength"), bad, cmp);
	if (bad || (adaptive && ksm_get("page_hash/strength") <= 0))
		cmp = -1;
	munmap(mem, NPAGES * psize);
	ksm_write("run", "2");
	return cmp;
}

/* Switch to @adaptive with the pairs in @mem merged; then a third copy. */
static int switch_to(int adaptive, char *mem, char **third)
{
	long rekeys = ksm_get("page_hash/rekeys"), bad;

	if (ksm_write("page_hash/mode", adaptive ? "adaptive" : "checksum"))
		return 0;
	wait_scans(3);
	if (ksm_get("page_hash/rekeys") <= rekeys) {
		printf("# no re-key after switching to %s\n",
		       adaptive ? "adaptive" : "checksum");
		return 0;
	}
	if (!wait_merged(NPAGES / 2, NPAGES / 2))
		return 0;
	*third = map_copies(1, 0);
	if (!wait_merged(NPAGES / 2, NPAGES / 2 * 2))
		return 0;
	bad = changed(mem, 2, 0) + changed(*third, 1, 0);
	printf("# switched to %s: strength %ld, re-keys %ld, %ld pages changed\n",
	       adaptive ? "adaptive" : "checksum",
	       ksm_get("page_hash/strength"), ksm_get("page_hash/rekeys"), bad);
	return !bad;
}

static int test_switch(void)
{
	char *mem, *third = NULL, *fourth = NULL;
	int ok;

	ksm_write("run", "2");
	ksm_write("page_hash/mode", "checksum");
	mem = map_copies(2, 0);
	ksm_write("run", "1");
	ok = wait_merged(NPAGES / 2, NPAGES / 2);
	ok = ok && switch_to(1, mem, &third);
	if (third)
		munmap(third, NPAGES / 2 * psize);
	wait_merged(NPAGES / 2, NPAGES / 2);
	ok = ok && switch_to(0, mem, &fourth);
	if (fourth)
		munmap(fourth, NPAGES / 2 * psize);
	munmap(mem, NPAGES * psize);
	ksm_write("run", "2");
	return ok;
}

/*
 * Near-identical pages (differing in their last word), with one pair among
 * them (@near 2) or none (@near 1): collisions are counted, only the pair
 * merges, and every page stays intact. With the pair, the others' keys
 * match its KSM page's in the stable tree once the strength no longer
 * reads the last word: the lookup takes it on the key alone, the merge's
 * compare refuses it, and the lookup made again comparing finds nothing.
 */
static int test_near(int near)
{
	long coll = ksm_get("page_hash/collisions"), bad, want = near == 2;
	char *mem;
	int i, ok;

	ksm_write("run", "2");
	ksm_write("page_hash/mode", "adaptive");
	/* Pages that never merge are skipped ever longer otherwise. */
	ksm_write("smart_scan", "0");
	mem = map_copies(2, near);
	ksm_write("run", "1");
	/*
	 * With no collision the strength falls a round at a time until the
	 * last word is no longer read (where, depends on the permutation
	 * drawn at boot); then every page collides.
	 */
	wait_scans(2);
	for (i = 0; i < 60 && ksm_get("page_hash/collisions") <= coll; i++)
		wait_scans(1);
	wait_scans(2);
	bad = changed(mem, 2, near);
	printf("# near-identical pages%s: pages_shared %ld, pages_sharing %ld, %ld changed, strength %ld, collisions %ld\n",
	       near == 2 ? " and a pair" : "", ksm_get("pages_shared"),
	       ksm_get("pages_sharing"), bad, ksm_get("page_hash/strength"),
	       ksm_get("page_hash/collisions") - coll);
	ok = !bad && ksm_get("pages_shared") == want &&
	     ksm_get("pages_sharing") == want &&
	     ksm_get("page_hash/collisions") > coll;
	munmap(mem, NPAGES * psize);
	ksm_write("run", "2");
	return ok;
}

int main(void)
{
	struct ksm_knob knobs[] = {
		{ "page_hash/mode" }, { "pages_to_scan" }, { "sleep_millisecs" },
		{ "smart_scan" }, { "run" },
	};
	double stock, keyed;

	psize = sysconf(_SC_PAGESIZE);
	ksft_print_header();
	if (access(KSM_SYSFS "page_hash/mode", F_OK))
		ksft_exit_skip("no page_hash knob\n");
	ksft_set_plan(6);
	ksm_knobs_save(knobs, ARRAY_SIZE(knobs));
	if (ksm_set("pages_to_scan", 1000) || ksm_set("sleep_millisecs", 10))
		ksft_exit_fail_msg("cannot set the KSM knobs\n");

	ksft_test_result(test_invalid(), "invalid page_hash writes: EINVAL, nothing changed\n");
	stock = merge_pairs(0);
	keyed = merge_pairs(1);
	ksft_test_result(keyed >= 0, "adaptive: every pair merged, contents intact\n");
	ksft_test_result(stock >= 0 && keyed >= 0 && keyed < stock,
			 "adaptive: %.2f page compares a lookup against %.2f\n",
			 keyed, stock);
	ksft_test_result(test_switch(), "switch while merged: merges kept, re-keyed nodes found\n");
	ksft_test_result(test_near(1), "near-identical pages: collisions counted, nothing merged\n");
	ksft_test_result(test_near(2), "near-identical pages and a pair: collisions counted, only the pair merged\n");

	ksm_write("run", "2");
	ksm_knobs_restore(knobs, ARRAY_SIZE(knobs));
	ksft_finished();
}
