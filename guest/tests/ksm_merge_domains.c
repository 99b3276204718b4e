// SPDX-License-Identifier: GPL-2.0
/*
 * Merge domains: pages of different domains are never merged, pages of one
 * domain are; a probe in another domain cannot tell a right guess of a
 * victim's page from a wrong one; a process that changes domain has its
 * pages moved to its new domain by ksmd's next visits.
 *
 * Run under merge_domains=user (each child sets its effective uid) and then
 * merge_domains=cgroup (each child is moved into a cgroup v2 group with the
 * memory controller). Six children of NPAGES pages each, page p of a child
 * filled from seed + p (no two pages of one child alike):
 *
 *   V  (domain A)  the victim, seed S
 *   C  (domain A)  seed S: merges with V
 *   Q1 (domain B)  seed S
 *   Q2 (domain B)  seed S: merges with Q1, never with V or C
 *   P  (domain C)  the probe: a wrong guess (seed W), then the right one (S)
 *   C2 (domain A)  the control probe: a wrong guess, then the right one
 *
 * The oracle is computed per domain: each content held by n >= 2 pages of
 * one domain saves n - 1 pages (pages_sharing). With the probes' wrong
 * guesses, A and B save NPAGES each. P's right guess changes nothing and none
 * of its pages shares a frame; C2's right guess merges with V. Then C
 * moves to domain B: its pages leave V's KSM pages for Q1's (pagemap PFNs),
 * merge_domains/moves counts them, and the saving is again the oracle's.
 * Last, Q2 makes itself not dumpable: under user its pages leave every KSM
 * page (it is merged with no one), under cgroup they stay merged with Q1.
 * Under user P does too: its pages leave the unstable tree.
 *
 * smart_scan is 0, so that every page is examined in every full scan.
 *
 * Optional argument: "user" or "cgroup" to run one mode only.
 */
#define _GNU_SOURCE
#include <sys/mount.h>
#include <sys/stat.h>

#include "ksm_util.h"

#define NPAGES		256
#define NCHILD		6
#define SEED_S		1000000L
#define SEED_W		5000000L
#define SEED_W2		7000000L
#define CG_ROOT		"/sys/fs/cgroup"

enum { V, C, Q1, Q2, P, C2 };
static const char * const names[NCHILD] = { "V", "C", "Q1", "Q2", "P", "C2" };
/* Domain of each child at the start: 0 A, 1 B, 2 C. */
static const int home[NCHILD] = { 0, 0, 1, 1, 2, 0 };
static const char * const cgroups[3] = {
	CG_ROOT "/ksm-dom-a", CG_ROOT "/ksm-dom-b", CG_ROOT "/ksm-dom-c",
};

static size_t psize;
static struct ksm_child ch[NCHILD];
static unsigned long base[NCHILD];	/* each child's mapping */

struct cmd {
	char op;	/* 'u' set uid, 'f' fill, 'n' not dumpable, 'v' verify */
	long arg;
};

static void child(int k, int cmd_fd, int rep)
{
	char *mem = NULL;
	long seed = 0, p, bad;
	struct cmd c;

	while (read(cmd_fd, &c, sizeof(c)) == sizeof(c)) {
		switch (c.op) {
		case 'u':
			/*
			 * The effective uid, the saved one kept at 0 so that
			 * the child may change again; changed credentials
			 * make it not dumpable (not merged), so dumpable again.
			 */
			ksm_reply(rep, setresuid(-1, 0, -1) ||
				  setresuid(c.arg, c.arg, 0) ||
				  prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) ? errno : 0);
			break;
		case 'f':
			if (!mem) {
				mem = ksm_map_anon(NPAGES * psize);
				if (madvise(mem, NPAGES * psize,
					    MADV_MERGEABLE))
					_exit(1);
			}
			seed = c.arg;
			for (p = 0; p < NPAGES; p++)
				ksm_fill_page(mem + p * psize, psize, seed + p);
			ksm_reply(rep, (long)mem);
			break;
		case 'n':
			ksm_reply(rep, prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) ?
				  errno : 0);
			break;
		case 'v':
			bad = mem ? ksm_bad_pages(mem, NPAGES, psize, seed,
						  true) : -1;
			ksm_reply(rep, bad);
			break;
		default:
			_exit(1);
		}
	}
	_exit(0);
}

static long ask(int k, char op, long arg)
{
	struct cmd c = { .op = op, .arg = arg };
	long r;

	if (write(ch[k].cmd, &c, sizeof(c)) != sizeof(c))
		ksft_exit_fail_msg("write to %s: %s\n", names[k],
				   strerror(errno));
	ksm_get_reply(&ch[k], names[k], &r, sizeof(r));
	return r;
}

static int same_frames(int a, int b);

static void fill(int k, long seed)
{
	base[k] = ask(k, 'f', seed);
}

/* The PFN of each page of child @k (0 when not present). */
static void pfns(int k, uint64_t *pfn)
{
	char path[64];
	uint64_t e;
	int fd, p;

	snprintf(path, sizeof(path), "/proc/%d/pagemap", ch[k].pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		ksft_exit_fail_msg("%s: %s\n", path, strerror(errno));
	for (p = 0; p < NPAGES; p++) {
		off_t off = (base[k] / psize + p) * sizeof(e);

		if (pread(fd, &e, sizeof(e), off) != sizeof(e))
			ksft_exit_fail_msg("pagemap: %s\n", strerror(errno));
		pfn[p] = (e >> 63) & 1 ? e & ((1ULL << 55) - 1) : 0;
	}
	close(fd);
}

/* Pages of child @k on a frame of the same page of any other child. */
static int shared_frames(int k)
{
	int o, n = 0;

	for (o = 0; o < NCHILD; o++)
		if (o != k)
			n += same_frames(k, o);
	return n;
}

/* Pages of child @a on the same frame as the same page of child @b. */
static int same_frames(int a, int b)
{
	uint64_t pa[NPAGES], pb[NPAGES];
	int p, n = 0;

	pfns(a, pa);
	pfns(b, pb);
	for (p = 0; p < NPAGES; p++)
		n += pa[p] && pa[p] == pb[p];
	return n;
}

/* Wait up to @secs for pages_sharing to read @want; the last value read. */
static long wait_sharing(long want, double secs)
{
	double end = now() + secs;
	long s;

	while ((s = ksm_get("pages_sharing")) != want && now() < end)
		msleep(100);
	return s;
}

/* Wait up to @secs for pages of @a on @b's frames to reach @want. */
static int wait_frames(int a, int b, int want, double secs)
{
	double end = now() + secs;
	int n;

	while ((n = same_frames(a, b)) < want && now() < end)
		msleep(200);
	return n;
}

static bool near(long got, long want)
{
	return labs(got - want) <= want / 100;
}

static int write_str(const char *path, const char *s)
{
	char v[32];

	snprintf(v, sizeof(v), "%s", s);
	return ksm_write_path(path, v);
}

/* Put child @k in domain @d of @mode. */
static void set_domain(const char *mode, int k, int d)
{
	char path[96], pid[16];
	long err;

	if (!strcmp(mode, "user")) {
		err = ask(k, 'u', 1001 + d);
		if (err)
			ksft_exit_fail_msg("setresuid: %s\n", strerror(err));
		return;
	}
	snprintf(path, sizeof(path), "%s/cgroup.procs", cgroups[d]);
	snprintf(pid, sizeof(pid), "%d", ch[k].pid);
	err = write_str(path, pid);
	if (err)
		ksft_exit_fail_msg("%s: %s\n", path, strerror(-err));
}

static bool cgroups_setup(void)
{
	struct stat st;
	int d;

	if (stat(CG_ROOT "/cgroup.controllers", &st) &&
	    mount("none", CG_ROOT, "cgroup2", 0, NULL)) {
		ksft_print_msg("mount cgroup2: %s\n", strerror(errno));
		return false;
	}
	if (write_str(CG_ROOT "/cgroup.subtree_control", "+memory")) {
		ksft_print_msg("cannot enable the memory controller\n");
		return false;
	}
	for (d = 0; d < 3; d++)
		if (mkdir(cgroups[d], 0755) && errno != EEXIST) {
			ksft_print_msg("mkdir %s: %s\n", cgroups[d],
				       strerror(errno));
			return false;
		}
	return true;
}

static void cgroups_remove(void)
{
	int d;

	for (d = 0; d < 3; d++)
		rmdir(cgroups[d]);
}

/* Wait for ksmd to pass the current state by @n full scans. */
static void settle(long n)
{
	if (!ksm_wait_full_scans(n, 120))
		ksft_print_msg("full_scans did not advance by %ld\n", n);
}

static void run_mode(const char *mode)
{
	char other[16], v[64];
	long s, s_wrong, s_right, moves, bad, km;
	int k, n, kc, err_busy, err_inval;

	ksm_set("run", 2);
	if (!strcmp(mode, "cgroup") && !cgroups_setup()) {
		ksft_test_result_fail("%s: cgroup v2 with memory controller\n",
				      mode);
		return;
	}
	if (ksm_write("merge_domains/mode", mode)) {
		ksft_test_result_fail("%s: merge_domains accepts it\n", mode);
		return;
	}
	ksft_test_result_pass("%s: merge_domains set with nothing merged\n",
			      mode);
	memset(ch, 0, sizeof(ch));
	for (k = 0; k < NCHILD; k++) {
		ksm_spawn(ch, NCHILD, k, child);
		set_domain(mode, k, home[k]);
	}
	for (k = 0; k < NCHILD; k++)
		fill(k, k == P ? SEED_W : k == C2 ? SEED_W2 : SEED_S);
	ksm_set("run", 1);

	/* A: V and C; B: Q1 and Q2; the probes' wrong guesses: nothing. */
	s = wait_sharing(2 * NPAGES, 180);
	settle(2);
	s_wrong = ksm_get("pages_sharing");
	n = same_frames(V, C) + same_frames(Q1, Q2);
	kc = same_frames(V, Q1) + same_frames(C, Q2) + same_frames(V, Q2);
	ksft_test_result(near(s_wrong, 2 * NPAGES) && n == 2 * NPAGES && !kc,
			 "%s: in-domain pages merge (%d of %d on shared frames), none across (%d), pages_sharing %ld (%ld) for oracle %d\n",
			 mode, n, 2 * NPAGES, kc, s_wrong, s, 2 * NPAGES);

	/* Like merge_across_nodes: no change while pages are merged. */
	snprintf(other, sizeof(other), "%s",
		 strcmp(mode, "user") ? "user" : "cgroup");
	err_busy = ksm_write("merge_domains/mode", other);
	err_inval = ksm_write("merge_domains/mode", "tenant");
	ksm_read("merge_domains/mode", v, sizeof(v));
	ksm_knob_value(v);
	ksft_test_result(err_busy == -EBUSY && err_inval == -EINVAL &&
			 !strcmp(v, mode),
			 "%s: while merged, %s gives EBUSY (%d), a bad name EINVAL (%d), the knob stays (%s)\n",
			 mode, other, err_busy, err_inval, v);

	/* The probe's right guess: no merge, no move of pages_sharing. */
	fill(P, SEED_S);
	settle(3);
	s_right = ksm_get("pages_sharing");
	km = ksm_merging(ch[P].pid, 0);
	n = shared_frames(P);
	ksft_test_result(!km && !n && s_wrong == 2L * NPAGES &&
			 s_right == s_wrong,
			 "%s: probe in another domain: %ld pages merging, %d on others' frames, pages_sharing moved %ld (wrong guess) and %ld (right guess)\n",
			 mode, km, n, s_wrong - 2L * NPAGES, s_right - s_wrong);

	/* The control probe in the victim's domain merges with V. */
	fill(C2, SEED_S);
	s = wait_sharing(3 * NPAGES, 180);
	n = wait_frames(C2, V, NPAGES, 60);
	km = ksm_merging(ch[C2].pid, 0);
	ksft_test_result(n == NPAGES && km == NPAGES && near(s, 3 * NPAGES),
			 "%s: control probe in the victim's domain: %d of %d on V's frames, %ld pages merging, pages_sharing %ld for oracle %d\n",
			 mode, n, NPAGES, km, s, 3 * NPAGES);

	/* C moves from A to B: it leaves V's KSM pages for Q1's. */
	moves = ksm_get("merge_domains/moves");
	set_domain(mode, C, 1);
	n = wait_frames(C, Q1, NPAGES, 180);
	kc = same_frames(C, V);
	s = wait_sharing(3 * NPAGES, 60);
	moves = ksm_get("merge_domains/moves") - moves;
	ksft_test_result(n == NPAGES && !kc && moves >= NPAGES &&
			 near(s, 3 * NPAGES),
			 "%s: C moved to B: %d of %d on Q1's frames, %d on V's, %ld moves, pages_sharing %ld for oracle %d\n",
			 mode, n, NPAGES, kc, moves, s, 3 * NPAGES);

	/*
	 * Q2 not dumpable: under user, it leaves its domain, merged nowhere.
	 * P too, whose pages wait in the unstable tree: they leave it, and
	 * pages_unshared counts none of them.
	 */
	ask(Q2, 'n', 0);
	if (!strcmp(mode, "user")) {
		double end = now() + 180;
		long un;

		ask(P, 'n', 0);
		while ((n = shared_frames(Q2)) && now() < end)
			msleep(200);
		km = ksm_merging(ch[Q2].pid, 0);
		settle(2);
		un = ksm_get("pages_unshared");
		ksft_test_result(!n && !km && !un,
				 "%s: Q2 and P not dumpable: Q2 has %d pages on others' frames, %ld merging; pages_unshared %ld\n",
				 mode, n, km, un);
	} else {
		settle(3);
		n = same_frames(Q2, Q1);
		ksft_test_result(n == NPAGES,
				 "%s: Q2 not dumpable stays in its cgroup's domain: %d of %d on Q1's frames\n",
				 mode, n, NPAGES);
	}

	bad = 0;
	for (k = 0; k < NCHILD; k++)
		bad += ask(k, 'v', 0);
	ksft_test_result(!bad, "%s: every page intact (%ld changed)\n", mode,
			 bad);

	ksm_kill_children(ch, NCHILD);
	ksm_set("run", 2);
	if (ksm_write("merge_domains/mode", "none"))
		ksft_print_msg("cannot put merge_domains back to none\n");
	if (!strcmp(mode, "cgroup"))
		cgroups_remove();
}

int main(int argc, char **argv)
{
	struct ksm_knob knobs[] = {
		{ "merge_domains/mode" }, { "pages_to_scan" },
		{ "sleep_millisecs" }, { "smart_scan" }, { "run" },
	};
	const char *modes[] = { "user", "cgroup" };
	int i, n = 2;

	psize = sysconf(_SC_PAGESIZE);
	ksft_print_header();
	if (access(KSM_SYSFS "merge_domains/mode", F_OK))
		ksft_exit_skip("no merge_domains knob\n");
	if (argc > 1) {
		modes[0] = argv[1];
		n = 1;
	}
	ksft_set_plan(8 * n);
	ksm_knobs_save(knobs, ARRAY_SIZE(knobs));
	if (ksm_set("run", 2) || ksm_set("pages_to_scan", 1000) ||
	    ksm_set("sleep_millisecs", 10) || ksm_set("smart_scan", 0))
		ksft_exit_fail_msg("cannot set the KSM knobs\n");
	for (i = 0; i < n; i++)
		run_mode(modes[i]);
	ksm_set("run", 2);
	ksm_knobs_restore(knobs, ARRAY_SIZE(knobs));
	ksft_finished();
}
