// SPDX-License-Identifier: GPL-2.0
/*
 * thp-mixed (SmartMD): THP-backed memory (MADV_HUGEPAGE) whose huge pages
 * fall in four classes by index: hot or cold access, and a high (90%) or
 * low (10%) share of duplicate subpages. Duplicate subpages take one of four
 * contents; the others are unique. Hot huge pages are read in duty cycles.
 *
 * Reports thp_kept_pct (AnonHugePages of the region at the end over its
 * size, from /proc/self/smaps) and hot_access_ns (mean time to read one word
 * of every subpage of the hot set, informational under TCG).
 *
 *   thp-mixed [--size-mb 128] [--seconds 60]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wl.h"

#define HPAGE	(2UL << 20)
#define SUB	512

static int hot(size_t h) { return h % 4 < 2; }
static int high_dup(size_t h) { return h % 2 == 0; }

static uint64_t sub_seed(size_t h, size_t j)
{
	int dup = high_dup(h) ? j % 10 != 0 : j % 10 == 0;

	return dup ? 1 + j % 4 : 1000 + h * SUB + j;
}

static long anon_huge_kb(void *start)
{
	char line[256];
	long kb = -1;
	int in = 0;
	FILE *f = fopen("/proc/self/smaps", "r");
	unsigned long a, b;

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &a, &b) == 2)
			in = a == (unsigned long)start;
		else if (in && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	}
	if (f)
		fclose(f);
	return kb;
}

int main(int argc, char **argv)
{
	static const struct wl_opts defaults = { .size_mb = 128, .seconds = 60 };
	long copies[4] = { 0 }, oracle = 0, mps, bad = 0, kept_start, kept_end;
	double end, ns = 0;
	long rounds = 0;
	struct wl_opts o;
	size_t nh, h, j;
	char *raw, *mem;
	int i;

	wl_init("thp-mixed", argc, argv, &o, &defaults);
	nh = o.size_mb * (1 << 20) / HPAGE;
	if (nh < 4)
		wl_die("--size-mb must be at least 8");
	/* Align the region to a huge page. */
	raw = mmap(NULL, (nh + 1) * HPAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		wl_die("mmap: %s", strerror(errno));
	mem = (char *)(((uintptr_t)raw + HPAGE - 1) & ~(HPAGE - 1));
	if (madvise(mem, nh * HPAGE, MADV_HUGEPAGE))
		wl_die("MADV_HUGEPAGE: %s", strerror(errno));
	for (h = 0; h < nh; h++)
		for (j = 0; j < SUB; j++) {
			uint64_t s = sub_seed(h, j);

			wl_fill(mem + h * HPAGE + j * wl_psize, s);
			if (s <= 4)
				copies[s - 1]++;
		}
	mps = wl_max_page_sharing();
	for (i = 0; i < 4; i++)
		oracle += wl_chain_saving(copies[i], mps);
	kept_start = anon_huge_kb(mem);
	if (!o.no_merge && madvise(mem, nh * HPAGE, MADV_MERGEABLE))
		wl_die("MADV_MERGEABLE: %s", strerror(errno));
	wl_report("ready", "oracle_pages=%ld mapped_pages=%zu pids=%d thp_at_start_pct=%.1f",
		  oracle, nh * SUB, getpid(), 100.0 * kept_start / (nh * HPAGE / 1024));
	end = wl_now() + o.seconds;
	while (wl_now() < end) {
		volatile uint64_t sink = 0;
		double t0 = wl_now();
		long reads = 0;

		for (h = 0; h < nh; h++)
			if (hot(h))
				for (j = 0; j < SUB; j++, reads++)
					sink += *(uint64_t *)(mem + h * HPAGE + j * wl_psize);
		ns += (wl_now() - t0) * 1e9 / reads;
		rounds++;
		(void)sink;
		wl_sleep(0.05);
	}
	kept_end = anon_huge_kb(mem);
	for (h = 0; h < nh; h++)
		for (j = 0; j < SUB; j++)
			bad += wl_check(mem + h * HPAGE + j * wl_psize, sub_seed(h, j)) != 0;
	if (bad)
		wl_die("%ld subpages changed", bad);
	wl_report("result", "content_ok=1 thp_kept_pct=%.1f hot_access_ns=%.1f",
		  100.0 * kept_end / (nh * HPAGE / 1024), rounds ? ns / rounds : 0.0);
	return 0;
}
