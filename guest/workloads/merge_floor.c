// SPDX-License-Identifier: GPL-2.0
/*
 * merge-floor: the CPU cost of one examining visit and of one merge, for
 * the bench to report beside the engines' cost per merged page.
 *
 * One process of SIZE_MB identical pages. Run it under a stock engine
 * (ksm-N): stock KSM's first full scan over new pages only checksums them,
 * the second merges them (into the unstable, then the stable tree). The
 * workload reads ksmd's CPU time (/proc/<ksmd>/schedstat) at every change
 * of full_scans, and reports per page:
 *   visit_us        CPU of the checksum scan over its pages (one examining
 *                   visit, nothing merged);
 *   merge_visit_us  CPU of the merging scan over its pages (one visit that
 *                   examines and merges: the floor of an engine that
 *                   merges on first sight).
 * Both are 0 when the scans could not be told apart (the pass that merged
 * did not follow a whole checksum pass). Holds for --seconds after ready,
 * then verifies every byte.
 *
 *   merge-floor [--size-mb 64] [--seconds 60] [--no-merge]
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wl.h"

#define KSM	"/sys/kernel/mm/ksm/"
#define MAX_PASSES	8

static long read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* /proc/<pid>/schedstat of the thread called ksmd, or "" if none. */
static void ksmd_schedstat(char *path, size_t len)
{
	struct dirent *d;
	DIR *proc = opendir("/proc");
	char buf[64];

	path[0] = '\0';
	if (!proc)
		return;
	while ((d = readdir(proc))) {
		char comm[320];
		FILE *f;

		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		snprintf(comm, sizeof(comm), "/proc/%s/comm", d->d_name);
		f = fopen(comm, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) && !strcmp(buf, "ksmd\n"))
			snprintf(path, len, "/proc/%s/schedstat", d->d_name);
		fclose(f);
		if (path[0])
			break;
	}
	closedir(proc);
}

int main(int argc, char **argv)
{
	static const struct wl_opts defaults = { .size_mb = 64, .seconds = 60, .procs = 1 };
	long scans[MAX_PASSES + 1], sharing[MAX_PASSES + 1], cpu[MAX_PASSES + 1];
	double visit_us = 0, merge_visit_us = 0, end;
	char schedstat[300];
	struct wl_opts o;
	size_t npages, p, bad = 0;
	long oracle;
	char *mem;
	int n = 0, k;

	wl_init("merge-floor", argc, argv, &o, &defaults);
	npages = o.size_mb * (1 << 20) / wl_psize;
	oracle = wl_oracle(npages);
	ksmd_schedstat(schedstat, sizeof(schedstat));
	mem = wl_map(npages, false, false);
	for (p = 0; p < npages; p++)
		wl_fill(mem + p * wl_psize, 7);
	/* Read the first counts before KSM knows the pages. */
	scans[0] = read_long(KSM "full_scans");
	sharing[0] = read_long(KSM "pages_sharing");
	cpu[0] = schedstat[0] ? read_long(schedstat) : -1;
	if (!o.no_merge && madvise(mem, npages * wl_psize, MADV_MERGEABLE))
		wl_die("MADV_MERGEABLE: %s", strerror(errno));
	wl_report("ready", "oracle_pages=%ld mapped_pages=%zu pids=%d",
		  oracle, npages, (int)getpid());

	end = wl_now() + o.seconds;
	while (wl_now() < end) {
		long s = read_long(KSM "full_scans");

		if (n < MAX_PASSES && s >= 0 && s != scans[n]) {
			n++;
			scans[n] = s;
			cpu[n] = schedstat[0] ? read_long(schedstat) : -1;
			sharing[n] = read_long(KSM "pages_sharing");
		}
		wl_sleep(0.002);
	}

	/*
	 * The pass that merged (pages_sharing went from under 10% to over 90%
	 * of the oracle) and the whole pass before it, which checksummed.
	 * Pass k runs from boundary k - 1 to boundary k; pass 1 begins at
	 * madvise, so it is whole only when the scan was idle before it.
	 */
	for (k = 2; k <= n && oracle > 0 && cpu[0] >= 0; k++) {
		if (scans[k] != scans[k - 1] + 1 || scans[k - 1] != scans[k - 2] + 1)
			continue;
		if (sharing[k - 1] * 10 > oracle || sharing[k] * 10 < oracle * 9)
			continue;
		visit_us = (cpu[k - 1] - cpu[k - 2]) / 1e3 / npages;
		merge_visit_us = (cpu[k] - cpu[k - 1]) / 1e3 / npages;
		break;
	}

	for (p = 0; p < npages; p++)
		bad += wl_check(mem + p * wl_psize, 7) != 0;
	if (bad)
		wl_die("%zu pages changed", bad);
	wl_report("result", "content_ok=1 visit_us=%.2f merge_visit_us=%.2f passes=%d",
		  visit_us, merge_visit_us, n);
	return 0;
}
