// SPDX-License-Identifier: GPL-2.0
/*
 * numa-mirror (nuKSM, AdaptMD): identical instances, instance i bound to
 * node i % nodes (CPU affinity and MPOL_BIND), each SIZE_MB of the same
 * pages. Each reads a hot subset (--param: percent of its pages, default 10)
 * in duty cycles (50 ms reading, 50 ms idle, leaving ksmd CPU). Mode
 * WL_HOT=same (default) gives every instance the same hot subset,
 * WL_HOT=differ a disjoint one. WL_NICE="n0,n1,..." sets nice values.
 * WL_UNIQUE=pct makes the last pct percent of each instance's pages its own
 * (nothing to merge): they are looked up in full trees at every scan once
 * the rest is merged, the case sharded trees are for.
 *
 * Reports per instance where its merged pages live (move_pages() query)
 * and how many of its hot pages are mapped to a remote copy:
 *   @@WL result ... instance=i node= nice= merged_pages= merged_local_pct=
 *                   hot_remote_pct= hot_reads_per_s=
 *
 *   numa-mirror [--size-mb 64] [--procs 2] [--seconds 60] [--param pct]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wl.h"

#define MPOL_BIND	2

static int nr_nodes(void)
{
	char path[64];
	int n = 0;

	for (;;) {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d", n);
		if (access(path, F_OK))
			return n ? n : 1;
		n++;
	}
}

static void bind_to_node(int node)
{
	unsigned long mask = 1UL << node;
	char path[64], list[256];
	cpu_set_t cpus;
	FILE *f;
	int a, b;
	char *p;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
	f = fopen(path, "r");
	CPU_ZERO(&cpus);
	if (f && fgets(list, sizeof(list), f)) {
		for (p = strtok(list, ",\n"); p; p = strtok(NULL, ",\n")) {
			if (sscanf(p, "%d-%d", &a, &b) == 2)
				for (; a <= b; a++)
					CPU_SET(a, &cpus);
			else if (sscanf(p, "%d", &a) == 1)
				CPU_SET(a, &cpus);
		}
	}
	if (f)
		fclose(f);
	if (CPU_COUNT(&cpus) && sched_setaffinity(0, sizeof(cpus), &cpus))
		wl_die("sched_setaffinity(node %d): %s", node, strerror(errno));
	if (syscall(SYS_set_mempolicy, MPOL_BIND, &mask, sizeof(mask) * 8))
		wl_die("set_mempolicy(MPOL_BIND, node %d): %s", node, strerror(errno));
}

static int page_node(void *addr)
{
	int status = -1;

	if (syscall(SYS_move_pages, 0, 1UL, &addr, NULL, &status, 0))
		return -1;
	return status;
}

/* Merged: present and not mapped exclusively (see cow_broken.c on KPF_KSM). */
static int is_merged(int pm, void *addr)
{
	uint64_t pme;

	if (pread(pm, &pme, 8, ((uintptr_t)addr / wl_psize) * 8) != 8)
		return 0;
	return (pme >> 63) & 1 && !((pme >> 56) & 1);
}

/* Instances past each end-of-run barrier, shared by all. */
static int *measured;

/* Pages [0, shared_pages) are the same in every instance. */
static size_t shared_pages;

static uint64_t page_seed(int k, size_t p)
{
	return p < shared_pages ? p + 1 : ((uint64_t)(k + 1) << 40) + p + 1;
}

/* Wait (up to 30 s) until @n instances have arrived at *@count. */
static void barrier_wait(int *count, int n)
{
	int i;

	__atomic_add_fetch(count, 1, __ATOMIC_SEQ_CST);
	for (i = 0; i < 3000 && __atomic_load_n(count, __ATOMIC_SEQ_CST) < n; i++)
		wl_sleep(0.01);
}

static void instance(int k, int node, int nice_val, size_t npages,
		     const struct wl_opts *o, int differ)
{
	size_t hot = npages * o->param / 100, first = differ ? (k * hot) % npages : 0;
	long merged = 0, local = 0, hot_remote = 0, reads = 0, bad = 0;
	volatile uint64_t sink = 0;
	double start, end;
	size_t p, i;
	char *mem;
	int pm;

	if (nice_val && setpriority(PRIO_PROCESS, 0, nice_val))
		wl_die("setpriority(%d): %s", nice_val, strerror(errno));
	bind_to_node(node);
	mem = wl_map(npages, o->thp, false);
	for (p = 0; p < npages; p++)
		wl_fill(mem + p * wl_psize, page_seed(k, p));
	if (!o->no_merge && madvise(mem, npages * wl_psize, MADV_MERGEABLE))
		wl_die("MADV_MERGEABLE: %s", strerror(errno));
	wl_gate_ready();
	start = wl_now();
	end = start + o->seconds;
	while (wl_now() < end) {
		double duty = wl_now() + 0.05;

		while (wl_now() < duty) {
			for (i = 0; i < hot; i++) {
				p = (first + i) % npages;
				sink += *(uint64_t *)(mem + p * wl_psize + (reads % 512) * 8);
			}
			reads += hot;
		}
		wl_sleep(0.05);
	}
	/*
	 * Where the copies are, before anything reads them: reading every
	 * page makes it hot, and a placement that follows hotness would
	 * move copies while the other instances still count. Then, once all
	 * have counted, verify; and exit once all have verified, or a copy
	 * whose other sharer exited would count as not merged.
	 */
	pm = open("/proc/self/pagemap", O_RDONLY);
	for (p = 0; p < npages; p++) {
		char *addr = mem + p * wl_psize;
		int where = page_node(addr);
		int in_hot = (p + npages - first) % npages < hot;

		if (pm >= 0 && is_merged(pm, addr)) {
			merged++;
			local += where == node;
		}
		if (in_hot && where >= 0 && where != node)
			hot_remote++;
	}
	barrier_wait(&measured[0], o->procs);
	for (p = 0; p < npages; p++)
		bad += wl_check(mem + p * wl_psize, page_seed(k, p)) != 0;
	barrier_wait(&measured[1], o->procs);
	if (bad)
		wl_die("instance %d: %ld pages changed", k, bad);
	wl_report("result", "instance=%d node=%d nice=%d merged_pages=%ld merged_local_pct=%.1f hot_remote_pct=%.1f hot_reads_per_s=%.0f",
		  k, node, nice_val, merged, merged ? 100.0 * local / merged : 0.0,
		  hot ? 100.0 * hot_remote / hot : 0.0, reads / (wl_now() - start));
	exit(0);
}

int main(int argc, char **argv)
{
	static const struct wl_opts defaults = { .size_mb = 64, .seconds = 60, .procs = 2,
						 .param = 10 };
	const char *hot_mode = getenv("WL_HOT"), *nices = getenv("WL_NICE");
	const char *unique = getenv("WL_UNIQUE");
	long unique_pct = 0;
	int nodes = nr_nodes(), k, failed = 0, differ = 0;
	int nice_of[64] = { 0 };
	char pidlist[64 * 12] = "";
	struct wl_opts o;
	pid_t pids[64];
	size_t npages;

	wl_init("numa-mirror", argc, argv, &o, &defaults);
	if (o.param > 100)
		wl_die("--param is a percentage (0 to 100)");
	if (hot_mode && strcmp(hot_mode, "same") && strcmp(hot_mode, "differ"))
		wl_die("WL_HOT is 'same' or 'differ', not '%s'", hot_mode);
	differ = hot_mode && !strcmp(hot_mode, "differ");
	for (k = 0; nices && *nices && k < 64; k++) {
		char *end;

		nice_of[k] = strtol(nices, &end, 10);
		if (end == nices || nice_of[k] < -20 || nice_of[k] > 19)
			wl_die("WL_NICE is a comma-separated list of nice values");
		nices = *end == ',' ? end + 1 : end;
	}
	if (unique) {
		char *end;

		unique_pct = strtol(unique, &end, 10);
		if (end == unique || *end || unique_pct < 0 || unique_pct > 100)
			wl_die("WL_UNIQUE is a percentage (0 to 100), not '%s'", unique);
	}
	npages = o.size_mb * (1 << 20) / wl_psize;
	shared_pages = npages - npages * unique_pct / 100;
	measured = mmap(NULL, 2 * sizeof(*measured), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (measured == MAP_FAILED)
		wl_die("mmap: %s", strerror(errno));
	wl_gate_open();
	for (k = 0; k < o.procs; k++) {
		pids[k] = fork();
		if (pids[k] < 0)
			wl_die("fork: %s", strerror(errno));
		if (!pids[k])
			instance(k, k % nodes, nice_of[k], npages, &o, differ);
		snprintf(pidlist + strlen(pidlist), 12, "%s%d", k ? "," : "", pids[k]);
	}
	wl_gate_wait_ready(o.procs);
	/* Every shared page has o.procs copies (one per instance). */
	wl_report("ready", "oracle_pages=%ld mapped_pages=%zu pids=%s nodes=%d hot=%s unique_pct=%ld",
		  (long)shared_pages * wl_oracle(o.procs), npages * o.procs, pidlist, nodes,
		  differ ? "differ" : "same", unique_pct);
	wl_gate_go();
	failed = wl_wait_all(pids, o.procs) != 0;
	wl_report("result", "content_ok=%d", !failed);
	return failed;
}
