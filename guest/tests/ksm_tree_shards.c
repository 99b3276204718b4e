// SPDX-License-Identifier: GPL-2.0
/*
 * Sharded trees (nuKSM): the tree_shards knob, and no merge lost.
 *
 *  1. While pages are merged, tree_shards refuses a change (EBUSY) and
 *     keeps its value.
 *  2. For 1 and 16 shards: NPAGES pages holding NPAGES / 2 contents twice
 *     each all merge (pages_shared and pages_sharing exactly NPAGES / 2),
 *     every byte intact; the page compares per lookup are reported, and
 *     16 shards need fewer.
 *  3. 0 selects one shard per 100 MiB of memory.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <stdint.h>

#include "ksm_util.h"

#define NPAGES	4096

static size_t psize;

static void fill(char *p, long seed)
{
	ksm_fill_page(p, psize, seed);
}

static char *map_pairs(void)
{
	char *mem = mmap(NULL, NPAGES * psize, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long p;

	if (mem == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	madvise(mem, NPAGES * psize, MADV_NOHUGEPAGE);
	for (p = 0; p < NPAGES; p++)
		fill(mem + p * psize, p % (NPAGES / 2));
	if (madvise(mem, NPAGES * psize, MADV_MERGEABLE))
		ksft_exit_fail_msg("MADV_MERGEABLE: %s\n", strerror(errno));
	return mem;
}

static long intact(const char *mem)
{
	char *want = malloc(psize);
	long p, bad = 0;

	for (p = 0; p < NPAGES; p++) {
		fill(want, p % (NPAGES / 2));
		bad += memcmp(mem + p * psize, want, psize) != 0;
	}
	free(want);
	return bad;
}

/* Merge the pairs under @shards; the compares per lookup, or -1. */
static double run(long shards)
{
	long l0, c0, u0, uc0, bad;
	double deadline, cmp;
	char *mem;

	if (ksm_write("run", "2") || ksm_set("tree_shards", shards) ||
	    ksm_get("tree_shards") != shards) {
		printf("# cannot set tree_shards=%ld\n", shards);
		return -1;
	}
	l0 = ksm_get("trees/stable_lookups");
	c0 = ksm_get("trees/stable_lookup_compares");
	u0 = ksm_get("trees/unstable_lookups");
	uc0 = ksm_get("trees/unstable_lookup_compares");
	mem = map_pairs();
	ksm_write("run", "1");
	deadline = now() + 180;
	while (now() < deadline && (ksm_get("pages_shared") < NPAGES / 2 ||
				    ksm_get("pages_sharing") < NPAGES / 2))
		msleep(100);
	bad = intact(mem);
	cmp = (double)(ksm_get("trees/stable_lookup_compares") - c0 +
		       ksm_get("trees/unstable_lookup_compares") - uc0) /
	      (ksm_get("trees/stable_lookups") - l0 +
	       ksm_get("trees/unstable_lookups") - u0);
	printf("# tree_shards=%ld: pages_shared %ld pages_sharing %ld, %ld changed; stable lookups %ld compares %ld, unstable lookups %ld compares %ld: %.2f compares a lookup\n",
	       shards, ksm_get("pages_shared"), ksm_get("pages_sharing"), bad,
	       ksm_get("trees/stable_lookups") - l0,
	       ksm_get("trees/stable_lookup_compares") - c0,
	       ksm_get("trees/unstable_lookups") - u0,
	       ksm_get("trees/unstable_lookup_compares") - uc0, cmp);
	if (ksm_get("pages_shared") != NPAGES / 2 ||
	    ksm_get("pages_sharing") != NPAGES / 2 || bad)
		cmp = -1;
	/* Merged: the count may not change now. */
	if (cmp >= 0 && (ksm_set("tree_shards", shards + 1) != -EBUSY ||
			 ksm_get("tree_shards") != shards)) {
		printf("# tree_shards changed while pages were merged\n");
		cmp = -1;
	}
	munmap(mem, NPAGES * psize);
	ksm_write("run", "2");
	return cmp;
}

int main(void)
{
	struct ksm_knob knobs[] = {
		{ "tree_shards" }, { "pages_to_scan" }, { "sleep_millisecs" },
		{ "run" },
	};
	double one, sixteen;
	long n;

	psize = sysconf(_SC_PAGESIZE);
	ksft_print_header();
	if (access(KSM_SYSFS "tree_shards", F_OK))
		ksft_exit_skip("no tree_shards knob\n");
	ksft_set_plan(4);
	ksm_knobs_save(knobs, ARRAY_SIZE(knobs));
	if (ksm_set("pages_to_scan", 1000) || ksm_set("sleep_millisecs", 10))
		ksft_exit_fail_msg("cannot set the KSM knobs\n");

	one = run(1);
	ksft_test_result(one >= 0, "1 shard: every pair merged, contents intact, EBUSY while merged\n");
	sixteen = run(16);
	ksft_test_result(sixteen >= 0, "16 shards: every pair merged, contents intact, EBUSY while merged\n");
	ksft_test_result(one >= 0 && sixteen >= 0 && sixteen < one,
			 "16 shards: %.2f compares a lookup against %.2f\n",
			 sixteen, one);
	ksm_write("run", "2");
	n = ksm_set("tree_shards", 0) ? -1 : ksm_get("tree_shards");
	ksft_test_result(n >= 1 && n <= 1024, "0: automatic count %ld\n", n);

	ksm_knobs_restore(knobs, ARRAY_SIZE(knobs));
	ksft_finished();
}
