// SPDX-License-Identifier: GPL-2.0
/*
 * ksm-sample: run one workload and sample the engine every interval.
 *
 *   ksm-sample [-i interval_ms] [-m pagemap_every] -- WORKLOAD [ARGS...]
 *
 * The workload's output is passed through. Once it prints its
 * "@@WL ready ... pids=a,b" line, time 0 is set and a line
 *   @@S t=<s> pre= sharing= shared= zero= full_scans= scanned= skipped= \
 *       engine_ns= cow_ksm= sl= slc= ul= ulc= hs= up= dn= rbot= rtop= \
 *       stall= saved_pm=
 * (sl, slc, ul, ulc: stable and unstable tree lookups and their page
 * compares; hs: words the page hash in force reads, 0 for the checksum;
 * up, dn: the distilling scanner's promotions and demotions; rbot, rtop:
 * its regions on the lowest and on the top level; stall: its CPU time
 * not charged to the budget as host stalls, ms; -1 without the engine's
 * counters)
 * is printed every interval until the workload exits (saved_pm, the saving
 * counted from the workload processes' pagemaps as mapped pages minus
 * distinct PFNs over their private anonymous unnamed mappings of 1 MiB or
 * more, every pagemap_every samples, -1 in between; pre is
 * pages_sharing + ksm_zero_pages read just before that walk, the counters
 * are read just after it). Then
 *   @@X rc=<workload exit status>
 * engine_ns is the CPU time of every engine thread (comm "ksmd" or starting
 * "ksm_") from /proc/<pid>/schedstat.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Field @i (0 first, -1 last) of a file of numbers, -1 if none. */
static long long read_field(const char *path, int i)
{
	char buf[256], *p, *tok, *save = NULL;
	long long v = -1;
	int fd = open(path, O_RDONLY), k = 0;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	for (p = buf; (tok = strtok_r(p, " \n", &save)); p = NULL, k++) {
		if (i < 0 || k == i)
			v = strtoll(tok, NULL, 10);
		if (k == i)
			break;
	}
	return v;
}

static long long read_ll(const char *path)
{
	return read_field(path, 0);
}

/* Regions on the distilling scanner's top level (distill/levels - 1). */
static long long top_level_regions(void)
{
	char path[128];

	snprintf(path, sizeof(path),
		 "/sys/kernel/mm/ksm/distill/level%lld/regions",
		 read_ll("/sys/kernel/mm/ksm/distill/levels") - 1);
	return read_ll(path);
}

static long long vmstat(const char *key)
{
	char line[128];
	size_t len = strlen(key);
	long long v = -1;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ' ') {
			v = strtoll(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

static int engine_pids[16], nengine;

static void find_engine_threads(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	char path[300], comm[32];

	while (d && (e = readdir(d)) && nengine < 16) {
		int fd, n;

		if (!isdigit(e->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		n = read(fd, comm, sizeof(comm) - 1);
		close(fd);
		if (n <= 0)
			continue;
		comm[n] = 0;
		comm[strcspn(comm, "\n")] = 0;
		if (!strcmp(comm, "ksmd") || !strncmp(comm, "ksm_", 4))
			engine_pids[nengine++] = atoi(e->d_name);
	}
	if (d)
		closedir(d);
}

static long long engine_ns(void)
{
	char path[64];
	long long sum = 0;
	int i;

	for (i = 0; i < nengine; i++) {
		snprintf(path, sizeof(path), "/proc/%d/schedstat", engine_pids[i]);
		sum += read_ll(path);
	}
	return sum;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int wl_pids[64], nwl;
static uint64_t *pfns;
static size_t pfn_cap;

/* Mapped pages minus distinct PFNs over the workload's regions. */
static long saved_from_pagemap(void)
{
	size_t n = 0, distinct, i;
	int p;

	for (p = 0; p < nwl; p++) {
		char path[64], line[512];
		FILE *maps;
		int pm;

		snprintf(path, sizeof(path), "/proc/%d/maps", wl_pids[p]);
		maps = fopen(path, "r");
		snprintf(path, sizeof(path), "/proc/%d/pagemap", wl_pids[p]);
		pm = open(path, O_RDONLY);
		if (!maps || pm < 0) {
			if (maps)
				fclose(maps);
			if (pm >= 0)
				close(pm);
			continue;
		}
		while (fgets(line, sizeof(line), maps)) {
			unsigned long start, end, off, ino;
			char perms[8], dev[16], name[256] = "";
			uint64_t buf[512];

			if (sscanf(line, "%lx-%lx %7s %lx %15s %lu %255s", &start, &end,
				   perms, &off, dev, &ino, name) < 6)
				continue;
			/* Workload regions: private, anonymous, unnamed and at
			 * least 1 MiB (this leaves out the binary's data and
			 * bss, which forked processes share without KSM).
			 */
			if (perms[3] != 'p' || ino || name[0] || end - start < (1UL << 20))
				continue;
			for (unsigned long a = start; a < end; a += 512 * 4096UL) {
				size_t cnt = (end - a) / 4096 < 512 ? (end - a) / 4096 : 512;
				ssize_t r = pread(pm, buf, cnt * 8, (a / 4096) * 8);

				for (i = 0; r > 0 && i < (size_t)r / 8; i++) {
					if (!(buf[i] >> 63))
						continue;
					if (n == pfn_cap) {
						pfn_cap = pfn_cap ? 2 * pfn_cap : 1 << 16;
						pfns = realloc(pfns, pfn_cap * 8);
						if (!pfns)
							return -1;
					}
					pfns[n++] = buf[i] & ((1ULL << 55) - 1);
				}
			}
		}
		fclose(maps);
		close(pm);
	}
	if (!n)
		return 0;
	qsort(pfns, n, 8, cmp_u64);
	for (distinct = 1, i = 1; i < n; i++)
		distinct += pfns[i] != pfns[i - 1];
	return n - distinct;
}

#define K "/sys/kernel/mm/ksm/"

int main(int argc, char **argv)
{
	int interval_ms = 100, pm_every = 10, opt, out[2], status, rc = -1;
	double t0 = 0, next;
	char buf[4096], line[4096];
	size_t llen = 0;
	long sample = 0;
	pid_t child;

	while ((opt = getopt(argc, argv, "+i:m:")) != -1) {
		if (opt == 'i')
			interval_ms = atoi(optarg);
		else if (opt == 'm')
			pm_every = atoi(optarg);
		else
			return 2;
	}
	if (optind >= argc || interval_ms < 10 || pm_every < 1) {
		fprintf(stderr, "usage: ksm-sample [-i ms>=10] [-m n>=1] -- WORKLOAD [ARGS]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	find_engine_threads();
	if (pipe(out))
		return 1;
	child = fork();
	if (!child) {
		dup2(out[1], 1);
		dup2(out[1], 2);
		close(out[0]);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "ksm-sample: exec %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	close(out[1]);
	next = now();
	for (;;) {
		struct pollfd pfd = { out[0], POLLIN, 0 };
		int wait_ms = (int)((next - now()) * 1000);
		ssize_t n;

		if (poll(&pfd, 1, wait_ms > 0 ? wait_ms : 0) > 0) {
			n = read(out[0], buf, sizeof(buf));
			if (n <= 0)
				break;
			for (ssize_t i = 0; i < n; i++) {
				if (llen < sizeof(line) - 1)
					line[llen++] = buf[i];
				if (buf[i] != '\n')
					continue;
				line[llen] = 0;
				fputs(line, stdout);
				if (!t0 && !strncmp(line, "@@WL ready", 10)) {
					char *p = strstr(line, "pids=");

					t0 = now();
					next = t0;
					while (p && nwl < 64) {
						p += (*p == 'p') ? 5 : 1;
						wl_pids[nwl++] = strtol(p, &p, 10);
						if (*p != ',')
							break;
					}
				}
				llen = 0;
			}
			continue;
		}
		if (t0 && now() >= next) {
			double t = now() - t0;
			/* The pagemap walk first, then the counters, so they
			 * are read as close together as can be.
			 */
			long long pre = read_ll(K "pages_sharing") + read_ll(K "ksm_zero_pages");
			long saved = sample % pm_every ? -1 : saved_from_pagemap();

			printf("@@S t=%.3f pre=%lld sharing=%lld shared=%lld zero=%lld full_scans=%lld scanned=%lld skipped=%lld engine_ns=%lld cow_ksm=%lld sl=%lld slc=%lld ul=%lld ulc=%lld hs=%lld up=%lld dn=%lld rbot=%lld rtop=%lld stall=%lld saved_pm=%ld\n",
			       t, pre, read_ll(K "pages_sharing"), read_ll(K "pages_shared"),
			       read_ll(K "ksm_zero_pages"), read_ll(K "full_scans"),
			       read_ll(K "pages_scanned"), read_ll(K "pages_skipped"),
			       engine_ns(), vmstat("cow_ksm"),
			       read_ll(K "trees/stable_lookups"),
			       read_ll(K "trees/stable_lookup_compares"),
			       read_ll(K "trees/unstable_lookups"),
			       read_ll(K "trees/unstable_lookup_compares"),
			       read_ll(K "page_hash/strength"),
			       read_ll(K "distill/promotions"),
			       read_ll(K "distill/demotions"),
			       read_ll(K "distill/level0/regions"),
			       top_level_regions(),
			       read_ll(K "distill/stall_ms"), saved);
			sample++;
			next += interval_ms / 1000.0;
		} else if (!t0) {
			next = now() + interval_ms / 1000.0;
		}
	}
	if (waitpid(child, &status, 0) == child)
		rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	printf("@@X rc=%d\n", rc);
	return rc != 0;
}
