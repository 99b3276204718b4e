// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection aimed at ksmd: failslab and fail_page_alloc fail a share
 * of ksmd's own allocations (task-filter with ksmd's make-it-fail) while it
 * merges, samples under the distilling scanner, splits huge pages, moves
 * KSM pages for placement (a cold sharer on node 0, a hot one on node 1,
 * each on its own CPU) and re-keys its trees by the adaptive page hash,
 * one phase each, under workloads that check every byte of their memory.
 *
 * For each phase the failures injected (each attribute's "times" counted
 * down) are printed and must be more than 0. Afterwards, with run=2: no
 * page was changed, KSM's counts are back to 0, and, when the boot has
 * kmemleak on, a scan finds no leaked object allocated by KSM.
 *
 * The stack dumps of allocation failures the faults cause are bracketed by
 * kernel messages the harness knows (harness/vm.py), so they are counted,
 * not taken for reports; any other report still fails the boot.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <sched.h>

#include "ksm_util.h"

#define DBG		"/sys/kernel/debug/"
#define NPAGES		1024
#define THP_SIZE	(2UL << 20)
#define PHASE_S		20
#define TIMES		1000000L

static size_t psize;

static pid_t ksmd_pid(void)
{
	char path[300], comm[32];
	struct dirent *d;
	pid_t pid = 0;
	DIR *dir = opendir("/proc");
	int fd;
	ssize_t n;

	while (dir && !pid && (d = readdir(dir))) {
		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		n = read(fd, comm, sizeof(comm) - 1);
		close(fd);
		if (n > 0 && !strncmp(comm, "ksmd\n", 5))
			pid = atoi(d->d_name);
	}
	if (dir)
		closedir(dir);
	return pid;
}

static const char *const attrs[] = { "failslab", "fail_page_alloc" };

static int attr_set(const char *attr, const char *file, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), DBG "%s/%s", attr, file);
	return ksm_write_path(path, val);
}

static long attr_times(const char *attr)
{
	char path[128];

	snprintf(path, sizeof(path), DBG "%s/times", attr);
	return ksm_read_path_long(path);
}

/* Turn the faults on at @pct percent of ksmd's allocations, or off at 0. */
static void faults(unsigned int pct)
{
	char v[16];
	unsigned int i;

	snprintf(v, sizeof(v), "%u", pct);
	if (pct)
		ksm_write_path("/dev/kmsg", "ksm-test: fault injection on\n");
	for (i = 0; i < ARRAY_SIZE(attrs); i++)
		attr_set(attrs[i], "probability", v);
	if (!pct)
		ksm_write_path("/dev/kmsg", "ksm-test: fault injection off\n");
}

/* --- the workload ----------------------------------------------------- */

enum phase { MERGE, DISTILL, SPLIT, MIGRATE, REKEY, NPHASES };
static const char *const phase_name[NPHASES] = {
	"merge", "distill", "split", "migrate", "rekey",
};

/* The phase the workers are forked for. */
static enum phase cur_phase;

static long seed_of(int k, long p)
{
	return p < NPAGES / 2 ? 50 + p % 16 : (k + 1) * 1000000L + p;
}

/* Child k: mergeable pages (huge pages in the split phase), checked. */
static void worker(int k, int cmd, int rep)
{
	enum phase ph = cur_phase;
	long n = NPAGES, p, bad = 0, *seed;
	char *mem, *raw;
	size_t len;

	if (ph == MIGRATE) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(k, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	len = n * psize;
	if (ph == SPLIT) {
		n = 2 * THP_SIZE / psize;
		len = n * psize;
		raw = mmap(NULL, len + THP_SIZE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (raw == MAP_FAILED)
			_exit(1);
		mem = (char *)(((uintptr_t)raw + THP_SIZE - 1) & ~(THP_SIZE - 1));
		madvise(mem, len, MADV_HUGEPAGE);
	} else {
		mem = ksm_map_anon(len);
	}
	seed = calloc(n, sizeof(*seed));
	for (p = 0; p < n; p++) {
		seed[p] = ph == SPLIT ? 50 + (p % 512 < 500 ? 0 : p) :
			  seed_of(k, p);
		ksm_fill_page(mem + p * psize, psize, seed[p]);
	}
	madvise(mem, len, MADV_MERGEABLE);
	ksm_reply(rep, 0);
	for (;;) {
		struct pollfd pfd = { .fd = cmd, .events = POLLIN };
		volatile long sum = 0;

		if (poll(&pfd, 1, ph == MIGRATE ? 10 : 300) == 1)
			break;
		if (ph == MIGRATE && !k)
			continue;	/* cold: its copies may move away */
		if (ph == MIGRATE) {
			/* Hot: read every page, often. */
			for (p = 0; p < n; p++)
				sum += mem[p * psize];
			continue;
		}
		p = rand() % n;
		seed[p] = (k + 1) * 7000000L + rand();
		ksm_fill_page(mem + p * psize, psize, seed[p]);
		for (p = 0; p < n; p++)
			bad += ksm_bad_pages(mem + p * psize, 1, psize, seed[p],
					     false);
	}
	for (p = 0; p < n; p++)
		bad += ksm_bad_pages(mem + p * psize, 1, psize, seed[p], false);
	ksm_reply(rep, bad);
	_exit(0);
}

static void set_phase_knobs(enum phase ph)
{
	ksm_set("run", 2);
	ksm_write("scanner", ph == DISTILL ? "distill" : "stock");
	ksm_write("page_hash/mode", ph == REKEY ? "adaptive" : "checksum");
	ksm_write("placement/mode", ph == MIGRATE ? "fair" : "scan-order");
	ksm_set("run", 1);
}

/* One phase: its workload under faults for PHASE_S s; pages changed. */
static long phase(enum phase ph, long injected[2])
{
	struct ksm_child ch[2] = { { 0 } };
	long before[2], r, bad = 0;
	unsigned int i;
	char c = 'q';

	set_phase_knobs(ph);
	cur_phase = ph;
	for (i = 0; i < 2; i++) {
		ksm_spawn(ch, 2, i, worker);
		ksm_get_reply(&ch[i], phase_name[ph], &r, sizeof(r));
	}
	for (i = 0; i < ARRAY_SIZE(attrs); i++)
		before[i] = attr_times(attrs[i]);
	faults(5);
	sleep(PHASE_S);
	faults(0);
	for (i = 0; i < ARRAY_SIZE(attrs); i++)
		injected[i] = before[i] - attr_times(attrs[i]);
	for (i = 0; i < 2; i++) {
		if (write(ch[i].cmd, &c, 1) != 1)
			ksft_exit_fail_msg("worker gone\n");
		ksm_get_reply(&ch[i], phase_name[ph], &r, sizeof(r));
		bad += r;
	}
	ksm_kill_children(ch, 2);
	return bad;
}

/* Objects kmemleak reports that KSM allocated; -1 without kmemleak. */
static long ksm_leaks(void)
{
	char buf[4096], *obj;
	long leaks = 0, shown = 0;
	size_t len = 0;
	char *text = NULL;
	ssize_t n;
	int fd;

	if (ksm_write_path(DBG "kmemleak", "scan"))
		return -1;
	fd = open(DBG "kmemleak", O_RDONLY);
	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		text = realloc(text, len + n + 1);
		memcpy(text + len, buf, n);
		len += n;
	}
	close(fd);
	if (!text)
		return 0;
	text[len] = '\0';
	for (obj = strstr(text, "unreferenced object"); obj;) {
		char *next = strstr(obj + 1, "unreferenced object");

		if (next)
			*next = '\0';
		if (strstr(obj, "ksm")) {
			leaks++;
			if (shown++ < 3)
				printf("# %s", obj);
		}
		obj = next;
	}
	free(text);
	return leaks;
}

int main(void)
{
	struct ksm_knob knobs[] = {
		{ "scanner" }, { "page_hash/mode" }, { "placement/mode" },
		{ "distill/bottom_cpu_permille" }, { "pages_to_scan" },
		{ "sleep_millisecs" }, { "run" },
	};
	long injected[NPHASES][2], bad = 0, leaks, left;
	char path[64];
	unsigned int i;
	pid_t ksmd;
	int ph;

	psize = sysconf(_SC_PAGESIZE);
	ksft_print_header();
	ksmd = ksmd_pid();
	if (!ksmd || access(DBG "failslab", F_OK) ||
	    access(DBG "fail_page_alloc", F_OK))
		ksft_exit_fail_msg("no ksmd, failslab or fail_page_alloc\n");
	ksft_set_plan(NPHASES + 3);
	ksm_knobs_save(knobs, ARRAY_SIZE(knobs));
	if (ksm_set("run", 2) || ksm_set("pages_to_scan", 1000) ||
	    ksm_set("sleep_millisecs", 10) ||
	    ksm_set("distill/bottom_cpu_permille", 1000))
		ksft_exit_fail_msg("cannot set the KSM knobs\n");
	ksm_write_path(DBG "kmemleak", "clear");

	snprintf(path, sizeof(path), "/proc/%d/make-it-fail", ksmd);
	if (ksm_write_path(path, "1"))
		ksft_exit_fail_msg("cannot aim at ksmd (%s)\n", path);
	for (i = 0; i < ARRAY_SIZE(attrs); i++) {
		char t[32];

		snprintf(t, sizeof(t), "%ld", TIMES);
		if (attr_set(attrs[i], "probability", "0") ||
		    attr_set(attrs[i], "interval", "1") ||
		    attr_set(attrs[i], "times", t) ||
		    attr_set(attrs[i], "verbose", "0") ||
		    attr_set(attrs[i], "task-filter", "Y") ||
		    attr_set(attrs[i], "ignore-gfp-wait", "N"))
			ksft_exit_fail_msg("cannot set up %s\n", attrs[i]);
	}
	attr_set("fail_page_alloc", "ignore-gfp-highmem", "N");
	attr_set("fail_page_alloc", "min-order", "0");

	for (ph = 0; ph < NPHASES; ph++) {
		long b = phase((enum phase)ph, injected[ph]);

		bad += b;
		printf("# %s: injected failslab %ld, fail_page_alloc %ld; %ld pages changed; placement/migrated %ld, placement/migrate_failed %ld\n",
		       phase_name[ph], injected[ph][0], injected[ph][1], b,
		       ksm_get("placement/migrated"),
		       ksm_get("placement/migrate_failed"));
		ksft_test_result(injected[ph][0] + injected[ph][1] > 0 && !b,
				 "%s: %ld failures injected, contents intact\n",
				 phase_name[ph], injected[ph][0] + injected[ph][1]);
	}
	ksm_write_path(path, "0");

	ksm_set("run", 2);
	left = ksm_get("pages_shared") + ksm_get("pages_sharing") +
	       ksm_get("pages_unshared") + ksm_get("stable_node_chains") +
	       ksm_get("stable_node_dups");
	ksft_test_result(!bad, "every page intact (%ld changed)\n", bad);
	ksft_test_result(!left, "run=2: KSM's counts back to 0 (%ld left)\n",
			 left);
	leaks = ksm_leaks();
	ksft_test_result(leaks == 0, "kmemleak: %ld objects of KSM leaked%s\n",
			 leaks, leaks < 0 ? " (kmemleak off)" : "");

	ksm_knobs_restore(knobs, ARRAY_SIZE(knobs));
	ksft_finished();
}
