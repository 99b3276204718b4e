// SPDX-License-Identifier: GPL-2.0
/*
 * ksm_two_scans: two full scans merge every two equal pages, while the
 * page hash probes its strength.
 *
 * upstream's conformance tests wait for full_scans to advance by two and
 * then expect every duplicate merged. Under the distilling scanner
 * full_scans counts coverages, and the unstable tree lives for one; a new
 * page hash strength empties the tree within a round, so a coverage during
 * which it did must not be counted. Each try restarts the adaptive hash
 * (it probes again from its first strength), maps two regions whose pages
 * are equal pair by pair and all different otherwise, and checks that
 * every pair is merged after two full scans and that the contents are
 * intact.
 *
 * Usage: ksm_two_scans [TRIES [PAGES]]
 */
#define _GNU_SOURCE
#include "ksm_util.h"

/* One try: 0 when every pair merged and kept its contents. */
static int try_once(int t, long pages, size_t psize)
{
	size_t size = pages * psize;
	long start, merged, i;
	char *a, *b, *ref;
	double t0;
	int ret = 1;

	if (ksm_write("run", "2") || ksm_write("page_hash/mode", "adaptive"))
		return -1;
	a = ksm_map_anon(size);
	b = ksm_map_anon(size);
	ref = malloc(psize);
	if (!ref)
		return -1;
	for (i = 0; i < pages; i++) {
		ksm_fill_page(a + i * psize, psize, t * pages + i + 1);
		memcpy(b + i * psize, a + i * psize, psize);
	}
	if (madvise(a, size, MADV_MERGEABLE) ||
	    madvise(b, size, MADV_MERGEABLE))
		return -1;
	start = ksm_get("full_scans");
	t0 = now();
	if (ksm_write("run", "1"))
		return -1;
	while (ksm_get("full_scans") < start + 2) {
		if (now() - t0 > 120) {
			printf("# try %d: no two full scans in 120 s\n", t);
			goto out;
		}
		msleep(10);
	}
	merged = ksm_stat_get(getpid(), "ksm_merging_pages");
	printf("# try %d: %ld of %ld pages merged after two full scans (%.1f s)\n",
	       t, merged, 2 * pages, now() - t0);
	for (i = 0; i < pages; i++) {
		ksm_fill_page(ref, psize, t * pages + i + 1);
		if (memcmp(a + i * psize, ref, psize) ||
		    memcmp(b + i * psize, ref, psize)) {
			printf("# try %d: page %ld changed\n", t, i);
			goto out;
		}
	}
	ret = merged != 2 * pages;
out:
	munmap(a, size);
	munmap(b, size);
	free(ref);
	return ret;
}

int main(int argc, char **argv)
{
	static struct ksm_knob knobs[] = {
		{ "run" }, { "page_hash/mode" },
	};
	int tries = argc > 1 ? atoi(argv[1]) : 4, t, failed = 0, r;
	long pages = argc > 2 ? atol(argv[2]) : 512;
	size_t psize = getpagesize();

	ksm_test_begin(1);
	if (access(KSM_SYSFS "page_hash/mode", F_OK))
		ksft_exit_skip("no page_hash knob\n");
	ksm_knobs_save(knobs, 2);
	for (t = 0; t < tries; t++) {
		r = try_once(t, pages, psize);
		if (r < 0) {
			ksm_knobs_restore(knobs, 2);
			ksft_exit_fail_msg("setup failed: %s\n", strerror(errno));
		}
		failed += r;
	}
	ksm_write("run", "2");
	ksm_knobs_restore(knobs, 2);
	ksft_test_result(!failed, "every pair merged after two full scans in %d of %d tries\n",
			 tries - failed, tries);
	ksft_finished();
}
