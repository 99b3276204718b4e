// SPDX-License-Identifier: GPL-2.0
/*
 * thp_split under the selective policy: four huge pages of one mapping,
 *
 *   A  read all along, all its subpages equal      kept huge (hot)
 *   B  idle, 90% of its subpages equal              split and merged
 *   C  idle, one subpage equal to B's, the rest     kept huge (low
 *      unique                                       repetition)
 *   D  as B, then read all along                    split and merged,
 *                                                   then rebuilt huge
 *
 * A huge page is told from its pages by /proc/kpageflags (THP), a merged
 * page by its pagemap entry (present, not mapped exclusively: 6.12's
 * KPF_KSM is set for every anonymous page); every byte of every page is
 * checked at the end, and the process's ksm_stat counts the splits and the
 * rebuild.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <stdint.h>

#include "ksm_util.h"

#define HPAGE		(2UL << 20)
#define NR_RANGES	4
#define PM_PRESENT	63
#define PM_EXCLUSIVE	56
#define KPF_THP		22
#define INTERVAL_MS	250

static size_t psize;
static long sub;
static int pagemap_fd, kpageflags_fd;

enum { A, B, C, D };

/* The seed of subpage @j of range @r: equal ones share one. */
static long seed_of(int r, long j)
{
	switch (r) {
	case A:
		return 100;
	case B:
		return j % 10 ? 200 : 1000 + j;
	case C:
		return j ? 3000 + j : 200;
	default:
		return j % 10 ? 400 : 4000 + j;
	}
}

static uint64_t pagemap(const void *addr)
{
	uint64_t pme;

	if (pread(pagemap_fd, &pme, 8, (uintptr_t)addr / psize * 8) != 8)
		return 0;
	return pme;
}

/* Present and not mapped exclusively: merged, in this test. */
static bool is_merged(const void *addr)
{
	uint64_t pme = pagemap(addr);

	return (pme >> PM_PRESENT & 1) && !(pme >> PM_EXCLUSIVE & 1);
}

static uint64_t page_flags(const void *addr)
{
	uint64_t pme = pagemap(addr), flags = 0;

	if (!(pme & (1ULL << PM_PRESENT)))
		return 0;
	pme &= (1ULL << 55) - 1;
	if (pread(kpageflags_fd, &flags, 8, pme * 8) != 8)
		return 0;
	return flags;
}

static bool is_huge(const char *range)
{
	long j;

	for (j = 0; j < sub; j += 64)
		if (!(page_flags(range + j * psize) & (1ULL << KPF_THP)))
			return false;
	return true;
}

static long merged(const char *range)
{
	long j, n = 0;

	for (j = 0; j < sub; j++)
		n += is_merged(range + j * psize);
	return n;
}

static long unique_merged(const char *range)
{
	long j, n = 0;

	for (j = 0; j < sub; j += 10)
		n += is_merged(range + j * psize);
	return n;
}

static void touch(const char *range)
{
	volatile uint64_t sink = 0;
	long j;

	for (j = 0; j < sub; j++)
		sink += *(const volatile uint64_t *)(range + j * psize);
	(void)sink;
}

static bool split_merged(const char *range)
{
	return !is_huge(range) && merged(range) >= sub * 9 / 10 - 1;
}

int main(void)
{
	static struct ksm_knob knobs[] = {
		{ "thp_split/mode" }, { "thp_split/check_interval_ms" },
		{ "pages_to_scan" }, { "sleep_millisecs" }, { "run" },
	};
	char *raw, *mem, *rg[NR_RANGES];
	double deadline, t0;
	long bad = 0, splits, rebuilds, j;
	int r;

	ksm_test_begin(6);
	if (access(KSM_SYSFS "thp_split/mode", F_OK))
		ksft_exit_fail_msg("no thp_split/mode\n");
	psize = sysconf(_SC_PAGESIZE);
	sub = HPAGE / psize;
	pagemap_fd = open("/proc/self/pagemap", O_RDONLY);
	kpageflags_fd = open("/proc/kpageflags", O_RDONLY);
	if (pagemap_fd < 0 || kpageflags_fd < 0)
		ksft_exit_fail_msg("pagemap, kpageflags: %s\n", strerror(errno));
	ksm_knobs_save(knobs, ARRAY_SIZE(knobs));

	raw = mmap(NULL, (NR_RANGES + 1) * HPAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	mem = (char *)(((uintptr_t)raw + HPAGE - 1) & ~(HPAGE - 1));
	if (madvise(mem, NR_RANGES * HPAGE, MADV_HUGEPAGE))
		ksft_exit_fail_msg("MADV_HUGEPAGE: %s\n", strerror(errno));
	for (r = 0; r < NR_RANGES; r++) {
		rg[r] = mem + r * HPAGE;
		for (j = 0; j < sub; j++)
			ksm_fill_page(rg[r] + j * psize, psize, seed_of(r, j));
		if (!is_huge(rg[r]))
			ksft_exit_fail_msg("range %d is not a huge page\n", r);
	}

	if (ksm_write("run", "2") || ksm_write("thp_split/mode", "selective") ||
	    ksm_set("thp_split/check_interval_ms", INTERVAL_MS) ||
	    ksm_set("pages_to_scan", 1000) || ksm_set("sleep_millisecs", 10))
		ksft_exit_fail_msg("knobs: %s\n", strerror(errno));
	if (madvise(mem, NR_RANGES * HPAGE, MADV_MERGEABLE))
		ksft_exit_fail_msg("MADV_MERGEABLE: %s\n", strerror(errno));
	ksm_set("run", 1);

	/* B and D go cold and are split; A stays hot. */
	deadline = now() + 60;
	while (now() < deadline && !(split_merged(rg[B]) && split_merged(rg[D]))) {
		touch(rg[A]);
		msleep(20);
	}
	ksft_test_result(is_huge(rg[A]), "hot huge page kept\n");
	ksft_test_result(is_huge(rg[C]), "cold huge page of low repetition kept\n");
	ksft_test_result(split_merged(rg[B]),
			 "cold huge page of high repetition split and merged (%ld, unique %ld)\n",
			 merged(rg[B]), unique_merged(rg[B]));
	ksft_test_result(split_merged(rg[D]),
			 "a second one split and merged (%ld)\n", merged(rg[D]));

	/* D turns hot: rebuilt within a few check intervals. */
	t0 = now();
	deadline = t0 + 30;
	while (now() < deadline && !is_huge(rg[D])) {
		touch(rg[A]);
		touch(rg[D]);
		msleep(20);
	}
	ksft_test_result(is_huge(rg[D]) && !merged(rg[D]),
			 "split huge page turned hot rebuilt in %.1f s (huge %d, %ld merged, %ld rebuilds, %ld failed)\n",
			 now() - t0, is_huge(rg[D]), merged(rg[D]),
			 ksm_get("thp_split/rebuilds"),
			 ksm_get("thp_split/rebuild_failures"));

	splits = ksm_stat_get(getpid(), "ksm_thp_splits");
	rebuilds = ksm_stat_get(getpid(), "ksm_thp_rebuilds");
	ksm_set("run", 2);
	for (r = 0; r < NR_RANGES; r++)
		for (j = 0; j < sub; j++)
			bad += ksm_bad_pages(rg[r] + j * psize, 1, psize,
					     seed_of(r, j), false);
	ksft_test_result(!bad && splits >= 2 && rebuilds >= 1,
			 "contents intact (%ld bad), ksm_stat splits %ld rebuilds %ld\n",
			 bad, splits, rebuilds);
	ksm_knobs_restore(knobs, ARRAY_SIZE(knobs));
	ksft_finished();
}
