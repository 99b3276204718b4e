// SPDX-License-Identifier: GPL-2.0
/*
 * NUMA placement of the merged copy (nuKSM): one child per node (K = the
 * number of nodes), each bound to its node, maps the same NPAGES pages and
 * reads its hot set until told to stop; then it reports how many of its
 * pages are merged and how many of those map a copy on its own node.
 *
 *  1. fair, disjoint hot sets: each child's hot merged pages are local;
 *     then every child reads the next one's set instead, and within a few
 *     full scans the copies follow (migrated to their new users' nodes).
 *  2. fair, nothing hot: kept copies spread evenly over the K nodes (for
 *     K > 2 through migrations of KSM pages to joining pages' nodes).
 *  3. priority, two children of nice -20 and -11: the first keeps 91% of
 *     its merged pages local (thesis Table 5.3, C-10:1); ksm_stat agrees.
 *  4. scan-order: KSM's own choice, for comparison (not checked).
 *
 * Every policy merges every page (no merge lost) and every byte is checked.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <stdint.h>

#include "ksm_util.h"

#define NPAGES		1024
#define MAX_NODES	8
#define MPOL_BIND	2

static size_t psize;

struct report {
	long merged, local, hot_merged, hot_local, bad;
	long on[MAX_NODES + 1];	/* merged pages by node, [MAX_NODES]: unknown */
};

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

static void fill(char *p, long seed)
{
	ksm_fill_page(p, psize, seed);
}

static int check(const char *p, long seed)
{
	static char *want;

	if (!want)
		want = malloc(psize);
	fill(want, seed);
	return memcmp(p, want, psize) != 0;
}

static int page_node(void *addr)
{
	int status = -1;

	if (syscall(SYS_move_pages, 0, 1UL, &addr, NULL, &status, 0))
		return -1;
	return status;
}

static int is_merged(int pm, void *addr)
{
	uint64_t pme;

	if (pread(pm, &pme, 8, ((uintptr_t)addr / psize) * 8) != 8)
		return 0;
	return (pme >> 63) & 1 && !((pme >> 56) & 1);
}

/* The scenario the children run: hot sets, nice values. */
static struct {
	int nchild;
	int hot_pages;		/* each child's, disjoint; 0: none */
	int shift;		/* move the hot sets once merged */
	int nice[MAX_NODES];
} sc;

static void child(int k, int cmd, int rep)
{
	unsigned long mask = 1UL << k;
	int first = k * sc.hot_pages, pm, p;
	struct pollfd pfd = { .fd = cmd, .events = POLLIN };
	volatile uint64_t sink = 0;
	struct report r = { 0 };
	char *mem, c = 'r';

	if (sc.nice[k] && setpriority(PRIO_PROCESS, 0, sc.nice[k]))
		ksft_exit_fail_msg("setpriority: %s\n", strerror(errno));
	if (syscall(SYS_set_mempolicy, MPOL_BIND, &mask, sizeof(mask) * 8))
		ksft_exit_fail_msg("set_mempolicy: %s\n", strerror(errno));
	mem = mmap(NULL, NPAGES * psize, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	madvise(mem, NPAGES * psize, MADV_NOHUGEPAGE);
	for (p = 0; p < NPAGES; p++)
		fill(mem + p * psize, p);
	if (madvise(mem, NPAGES * psize, MADV_MERGEABLE))
		ksft_exit_fail_msg("MADV_MERGEABLE: %s\n", strerror(errno));
	if (write(rep, &c, 1) != 1)
		_exit(1);
	/* Read the hot set in 20 ms bursts until told to stop. */
	for (;;) {
		double end;

		if (poll(&pfd, 1, 20)) {
			if (read(cmd, &c, 1) != 1 || c != 's')
				break;
			/* Shift: the next child's hot set. */
			first = (k + 1) % sc.nchild * sc.hot_pages;
		}
		end = now() + 0.02;
		while (sc.hot_pages && now() < end)
			for (p = first; p < first + sc.hot_pages; p++)
				sink += *(volatile uint64_t *)(mem + p * psize);
	}
	pm = open("/proc/self/pagemap", O_RDONLY);
	for (p = 0; p < NPAGES; p++) {
		char *addr = mem + p * psize;
		int node = page_node(addr), local = node == k, hot;

		hot = p >= first && p < first + sc.hot_pages;
		if (is_merged(pm, addr)) {
			r.on[node >= 0 && node < MAX_NODES ? node : MAX_NODES]++;
			r.merged++;
			r.local += local;
			r.hot_merged += hot;
			r.hot_local += hot && local;
		}
		r.bad += check(addr, p);
	}
	if (write(rep, &r, sizeof(r)) != sizeof(r))
		_exit(1);
	pause();
	_exit(0);
}

static long merged_now(void)
{
	return ksm_get("pages_shared") + ksm_get("pages_sharing");
}

/*
 * Run the scenario under @placement; fill rep[] and the children's own
 * ksm_stat counts of local merged pages. Return 0, or -1 if not everything
 * merged within the time limit.
 */
static int run(const char *placement, struct report *rep, long *stat_local)
{
	struct ksm_child ch[MAX_NODES] = { 0 };
	long want = (long)NPAGES * sc.nchild, got = 0;
	double deadline;
	char c;
	int k, err = 0;

	if (ksm_write("run", "2") || ksm_write("placement/mode", placement))
		ksft_exit_fail_msg("cannot set placement=%s\n", placement);
	for (k = 0; k < sc.nchild; k++) {
		ksm_spawn(ch, sc.nchild, k, child);
		ksm_get_reply(&ch[k], "ready", &c, 1);
	}
	ksm_write("run", "1");
	deadline = now() + 240;
	while (now() < deadline && (got = merged_now()) < want)
		msleep(200);
	if (got < want) {
		printf("# %s: %ld of %ld pages merged after 240 s\n",
		       placement, got, want);
		err = -1;
	}
	/* One more full scan: the hot sets have been seen since the merge. */
	k = ksm_get("full_scans");
	while (!err && now() < deadline && ksm_get("full_scans") < k + 2)
		msleep(100);
	if (sc.shift) {
		for (k = 0; k < sc.nchild; k++)
			if (write(ch[k].cmd, "s", 1) != 1)
				ksft_exit_fail_msg("child %d gone\n", k);
		/* Seen hot at one visit, moved at the next. */
		k = ksm_get("full_scans");
		while (!err && now() < deadline && ksm_get("full_scans") < k + 4)
			msleep(100);
	}
	/*
	 * Stop ksmd (the pages stay merged): the children's checks read
	 * every page, which would make them all hot and move the copies
	 * while the others still count.
	 */
	ksm_write("run", "0");
	for (k = 0; k < sc.nchild; k++) {
		stat_local[k] = ksm_stat_get(ch[k].pid, "ksm_merged_local");
		if (write(ch[k].cmd, "q", 1) != 1)
			ksft_exit_fail_msg("child %d gone\n", k);
		ksm_get_reply(&ch[k], "report", &rep[k], sizeof(rep[k]));
		printf("# %s: child %d (node %d, nice %d): merged %ld, local %ld (ksm_stat %ld), hot merged %ld, hot local %ld\n",
		       placement, k, k, sc.nice[k], rep[k].merged, rep[k].local,
		       stat_local[k], rep[k].hot_merged, rep[k].hot_local);
		printf("#   merged pages by node: %ld %ld %ld %ld, unknown %ld\n",
		       rep[k].on[0], rep[k].on[1], rep[k].on[2], rep[k].on[3],
		       rep[k].on[MAX_NODES]);
		if (rep[k].bad) {
			printf("# child %d: %ld pages changed\n", k, rep[k].bad);
			err = -1;
		}
		if (rep[k].merged != NPAGES) {
			printf("# child %d: %ld of %d pages merged\n", k,
			       rep[k].merged, NPAGES);
			err = -1;
		}
	}
	printf("# %s: merges across nodes: scan-order %ld hot %ld balanced %ld priority %ld; migrated %ld failed %ld deferred %ld\n",
	       placement, ksm_get("placement/merges_scan_order"),
	       ksm_get("placement/merges_hot"),
	       ksm_get("placement/merges_balanced"),
	       ksm_get("placement/merges_priority"),
	       ksm_get("placement/migrated"),
	       ksm_get("placement/migrate_failed"),
	       ksm_get("placement/migrate_deferred"));
	ksm_kill_children(ch, sc.nchild);
	ksm_write("run", "2");
	return err;
}

static double pct(long a, long b)
{
	return b ? 100.0 * a / b : 0;
}

int main(void)
{
	struct ksm_knob knobs[] = {
		{ "placement/mode" }, { "pages_to_scan" }, { "sleep_millisecs" },
		{ "merge_across_nodes" }, { "run" },
	};
	struct report rep[MAX_NODES];
	long stat_local[MAX_NODES];
	int nodes = nr_nodes(), k, ok;
	char buf[64];

	psize = sysconf(_SC_PAGESIZE);
	ksft_print_header();
	if (nodes < 2 || access(KSM_SYSFS "placement/mode", F_OK))
		ksft_exit_skip("needs 2 or more nodes and the placement knob\n");
	if (nodes > MAX_NODES)
		nodes = MAX_NODES;
	ksft_set_plan(5);
	ksm_knobs_save(knobs, ARRAY_SIZE(knobs));
	if (ksm_write("run", "2") || ksm_write("merge_across_nodes", "1") ||
	    ksm_set("pages_to_scan", 1000) || ksm_set("sleep_millisecs", 10))
		ksft_exit_fail_msg("cannot set the KSM knobs\n");

	/* 1. Disjoint hot sets under fair placement: hot pages stay local. */
	memset(&sc, 0, sizeof(sc));
	sc.nchild = nodes;
	sc.hot_pages = NPAGES / nodes / 2;
	ok = !run("fair", rep, stat_local);
	for (k = 0; k < nodes; k++)
		ok &= pct(rep[k].hot_local, rep[k].hot_merged) >= 90;
	ksft_test_result(ok, "fair: every child's hot merged pages local (>= 90%%)\n");
	sc.shift = 1;
	ok = !run("fair", rep, stat_local);
	for (k = 0; k < nodes; k++)
		ok &= pct(rep[k].hot_local, rep[k].hot_merged) >= 90;
	ksft_test_result(ok, "fair: the copies follow hot sets that move (>= 90%% local)\n");
	sc.shift = 0;

	/* 2. Nothing hot: kept copies spread evenly over the nodes. */
	sc.hot_pages = 0;
	ok = !run("fair", rep, stat_local);
	for (k = 0; k < nodes; k++)
		ok &= pct(rep[k].local, rep[k].merged) >= 100.0 / nodes - 10 &&
		      pct(rep[k].local, rep[k].merged) <= 100.0 / nodes + 10;
	ksft_test_result(ok, "fair: cold copies spread over %d nodes (1/%d each +/- 10 points)\n",
			 nodes, nodes);

	/* 3. Priority: C-10:1 gives the nice -20 child 10/11 of the copies. */
	sc.nchild = 2;
	sc.nice[0] = -20;
	sc.nice[1] = -11;
	ok = !run("priority", rep, stat_local);
	ok &= pct(rep[0].local, rep[0].merged) >= 85 &&
	      pct(rep[0].local, rep[0].merged) <= 97;
	for (k = 0; k < 2; k++)
		ok &= labs(stat_local[k] - rep[k].local) <= NPAGES / 100;
	ksft_test_result(ok, "priority: C-10:1 keeps %.1f%% local for nice -20 (91 +/- 6), ksm_stat agrees\n",
			 pct(rep[0].local, rep[0].merged));

	/* 4. KSM's own choice, for comparison. */
	sc.nice[0] = sc.nice[1] = 0;
	ok = !run("scan-order", rep, stat_local);
	ksft_test_result(ok, "scan-order: child 0 %.1f%% local, child 1 %.1f%%\n",
			 pct(rep[0].local, rep[0].merged),
			 pct(rep[1].local, rep[1].merged));

	ksm_knobs_restore(knobs, ARRAY_SIZE(knobs));
	if (!ksm_read("placement/mode", buf, sizeof(buf)))
		printf("# placement now %s", buf);
	ksft_finished();
}
