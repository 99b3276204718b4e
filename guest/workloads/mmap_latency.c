// SPDX-License-Identifier: GPL-2.0
/*
 * mmap-latency: how long a process waits for its own mmap lock while KSM
 * scans it. One process holds SIZE_MB of mergeable memory, half of it in
 * pages of 64 contents (duplicates, which the engine merges), half unique
 * (which it examines and keeps), and for --seconds maps 16 pages, writes
 * one (a page fault) and unmaps them again, every millisecond or so. Each
 * of the three is timed.
 *
 * Reports mmap_p99_us, munmap_p99_us and fault_p99_us (99th percentiles,
 * microseconds) with their medians, then verifies every byte.
 *
 *   mmap-latency [--size-mb 128] [--seconds 60]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wl.h"

#define MAP_PAGES	16
#define MAX_SAMPLES	200000
#define DUPS		64

static uint64_t page_seed(size_t p, size_t npages)
{
	return p < npages / 2 ? 1 + p % DUPS : 1000 + p;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double pct(double *v, long n, int p)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return v[(n - 1) * p / 100];
}

int main(int argc, char **argv)
{
	static const struct wl_opts defaults = { .size_mb = 128, .seconds = 60 };
	double *t_map, *t_unmap, *t_fault, end, t0, t1, t2, t3;
	long n = 0, bad = 0, dups, copies;
	struct wl_opts o;
	size_t npages, p;
	char *mem, *m;

	wl_init("mmap-latency", argc, argv, &o, &defaults);
	npages = o.size_mb * (1 << 20) / wl_psize;
	t_map = calloc(MAX_SAMPLES, sizeof(double));
	t_unmap = calloc(MAX_SAMPLES, sizeof(double));
	t_fault = calloc(MAX_SAMPLES, sizeof(double));
	if (!t_map || !t_unmap || !t_fault)
		wl_die("no memory for samples");
	mem = wl_map(npages, o.thp, false);
	for (p = 0; p < npages; p++)
		wl_fill(mem + p * wl_psize, page_seed(p, npages));
	if (!o.no_merge && madvise(mem, npages * wl_psize, MADV_MERGEABLE))
		wl_die("MADV_MERGEABLE: %s", strerror(errno));
	/* DUPS contents, npages / 2 pages: each content's copies merge. */
	dups = npages / 2;
	copies = 0;
	for (p = 0; p < DUPS && p < (size_t)dups; p++)
		copies += wl_oracle(dups / DUPS + ((long)p < dups % DUPS));
	wl_report("ready", "oracle_pages=%ld mapped_pages=%zu pids=%d", copies,
		  npages, getpid());
	end = wl_now() + o.seconds;
	while (wl_now() < end && n < MAX_SAMPLES) {
		t0 = wl_now();
		m = mmap(NULL, MAP_PAGES * wl_psize, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		t1 = wl_now();
		if (m == MAP_FAILED)
			wl_die("mmap: %s", strerror(errno));
		m[0] = 1;
		t2 = wl_now();
		munmap(m, MAP_PAGES * wl_psize);
		t3 = wl_now();
		t_map[n] = 1e6 * (t1 - t0);
		t_fault[n] = 1e6 * (t2 - t1);
		t_unmap[n] = 1e6 * (t3 - t2);
		n++;
		wl_sleep(0.001);
	}
	for (p = 0; p < npages; p++)
		bad += wl_check(mem + p * wl_psize, page_seed(p, npages)) != 0;
	wl_report("result",
		  "content_ok=%d samples=%ld mmap_p50_us=%.1f mmap_p99_us=%.1f munmap_p50_us=%.1f munmap_p99_us=%.1f fault_p50_us=%.1f fault_p99_us=%.1f",
		  !bad, n, pct(t_map, n, 50), pct(t_map, n, 99),
		  pct(t_unmap, n, 50), pct(t_unmap, n, 99),
		  pct(t_fault, n, 50), pct(t_fault, n, 99));
	return bad != 0;
}
