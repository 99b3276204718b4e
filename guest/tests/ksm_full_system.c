// SPDX-License-Identifier: GPL-2.0
/*
 * The full-system scan: with full_system_scan=1 every process that has not
 * opted out is scanned as if it had called prctl(PR_SET_MEMORY_MERGE, 1),
 * without madvise or prctl; writing 0 undoes what the knob did, and only
 * that. Under the stock scanner (pages_to_scan 1000, sleep_millisecs 10):
 *
 *  a) invalid writes to full_system_scan fail with EINVAL, value kept 0;
 *  b) children, each with 512 identical pages of its own content, none
 *     madvised:
 *       "before"    forked and mapped before the knob is set;
 *       "opted-out" the same, after prctl(PR_SET_MEMORY_MERGE, 0);
 *       "own-prctl" the same, after prctl(PR_SET_MEMORY_MERGE, 1);
 *       "after"     forked after the knob is set, plus a second 512-page
 *                   VMA (other content) on which it calls MADV_UNMERGEABLE;
 *     with the knob on, the enrolled children (all but "opted-out") report
 *     PR_GET_MEMORY_MERGE 1 and each has 512 merging pages (up to 63 more:
 *     every VMA of an enrolled process is mergeable)
 *     (/proc/<pid>/ksm_stat), "opted-out" none and "after" none of its
 *     unmergeable VMA;
 *  c) with the knob back to 0, "before" and "after" are unmerged and
 *     un-enrolled (PR_GET 0, as is this process);
 *  d) "own-prctl" keeps its own setting (PR_GET 1) and its merged pages.
 * Every child checks every word of its memory at each step. The KSM knobs
 * are restored on every path (full_system_scan 0, run 2, then the rest).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "kselftest.h"
#include "ksm_util.h"

#ifndef PR_SET_MEMORY_MERGE
#define PR_SET_MEMORY_MERGE	67
#endif
#ifndef PR_GET_MEMORY_MERGE
#define PR_GET_MEMORY_MERGE	68
#endif

#define NPAGES		512	/* per VMA */
/*
 * An enrolled process has every VMA mergeable (stack, heap, data), and a few
 * of those pages merge too: a count in [NPAGES, NPAGES + SLACK) means the
 * test VMA merged whole and the other 512-page VMA did not.
 */
#define SLACK		64
#define MERGED_ONE_VMA(n)	((n) >= NPAGES && (n) < NPAGES + SLACK)
#define MERGE_SECS	90	/* wait for the enrolled children to merge */
#define SETTLE_SCANS	2	/* then full scans before checking exact counts */
#define UNMERGE_SECS	30

enum { BEFORE, OPTOUT, OWN, AFTER, NCHILD };
static const char *const name[NCHILD] = {
	"before", "opted-out", "own-prctl", "after",
};
/* Content of each child's first VMA (page-independent: all pages equal). */
static const int pattern[NCHILD] = { 1, 1, 4, 2 };
#define AFTER_UNMERGEABLE_PATTERN	3

/* Sent by a child when ready and in answer to each 'q'. */
struct reply {
	int err;	/* errno of a failed setup step, 0 if none */
	int merge;	/* prctl(PR_GET_MEMORY_MERGE) */
	long bad;	/* words that differ from what the child wrote */
};

/* Commands: 'q' query, 'x' exit; replies: struct reply. */
static struct ksm_child ch[NCHILD];

static pid_t parent;
static size_t psize;

/* Knobs to restore. */
enum { PAGES_TO_SCAN, SLEEP_MS, SCANNER };
static struct ksm_knob saved[] = {
	[PAGES_TO_SCAN] = { .name = "pages_to_scan" },
	[SLEEP_MS] = { .name = "sleep_millisecs" },
	[SCANNER] = { .name = "scanner" },
};
static struct ksm_knob saved_run = { .name = "run" };

static uint64_t word(int pat, size_t i)
{
	return ((pat + 1) * 0x9e3779b97f4a7c15ull ^ (i * 0x100000001b3ull)) | 1;
}

static long bad_words(const uint64_t *mem, int pat)
{
	size_t p, i, n = psize / 8;
	long bad = 0;

	for (p = 0; p < NPAGES; p++)
		for (i = 0; i < n; i++)
			bad += mem[p * n + i] != word(pat, i);
	return bad;
}

/* NPAGES pages of pattern pat; MADV_UNMERGEABLE first if asked. */
static uint64_t *map_area(int pat, bool unmergeable, int *err)
{
	size_t p, i, n = psize / 8, len = NPAGES * psize;
	uint64_t *mem;

	mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		*err = *err ?: errno;
		return NULL;
	}
	madvise(mem, len, MADV_NOHUGEPAGE);
	if (unmergeable && madvise(mem, len, MADV_UNMERGEABLE))
		*err = *err ?: errno;
	for (p = 0; p < NPAGES; p++)
		for (i = 0; i < n; i++)
			mem[p * n + i] = word(pat, i);
	return mem;
}

static void __attribute__((noreturn)) child(int k, int cmd, int rep)
{
	uint64_t *area[2] = { NULL, NULL };
	int pat[2] = { pattern[k], AFTER_UNMERGEABLE_PATTERN };
	struct reply r = { 0 };
	char c = 'q';
	int a;

	if (k == OPTOUT && prctl(PR_SET_MEMORY_MERGE, 0, 0, 0, 0))
		r.err = errno;
	if (k == OWN && prctl(PR_SET_MEMORY_MERGE, 1, 0, 0, 0))
		r.err = errno;
	area[0] = map_area(pat[0], false, &r.err);
	if (k == AFTER)
		area[1] = map_area(pat[1], true, &r.err);
	do {
		if (c != 'q')
			continue;
		r.merge = prctl(PR_GET_MEMORY_MERGE, 0, 0, 0, 0);
		r.bad = 0;
		for (a = 0; a < 2; a++)
			if (area[a])
				r.bad += bad_words(area[a], pat[a]);
		if (write(rep, &r, sizeof(r)) != sizeof(r))
			_exit(1);
	} while (read(cmd, &c, 1) == 1 && c != 'x');
	_exit(0);
}

static void query(int k, struct reply *r)
{
	if (write(ch[k].cmd, "q", 1) != 1)
		ksft_exit_fail_msg("child %s: %s\n", name[k], strerror(errno));
	ksm_get_reply(&ch[k], name[k], r, sizeof(*r));
}

static long merging(int k)
{
	return ksm_stat_get(ch[k].pid, "ksm_merging_pages");
}

static void print_merging(const char *when)
{
	int k;

	ksft_print_msg("%s: ksm_merging_pages", when);
	for (k = 0; k < NCHILD; k++)
		if (ch[k].pid > 0)
			printf(" %s=%ld", name[k], merging(k));
	printf(" (full_scans %ld)\n", ksm_get("full_scans"));
}

/* Wait for full_scans to advance by n; returns how many it did. */
static long wait_full_scans(long n, int secs)
{
	long start = ksm_get("full_scans");
	double end = now() + secs;

	while (ksm_get("full_scans") < start + n && now() < end)
		msleep(100);
	return ksm_get("full_scans") - start;
}

static void cleanup(void)
{
	if (getpid() != parent)
		return;
	ksm_kill_children(ch, NCHILD);
	ksm_write("full_system_scan", "0");
	ksm_write("run", "2");
	ksm_knobs_restore(saved, ARRAY_SIZE(saved));
	if (saved_run.val[0])
		ksm_write("run", saved_run.val);
}

/* Ask every child to exit; whether all did so cleanly. */
static bool stop_children(void)
{
	bool ok = true;
	int k, st;

	for (k = 0; k < NCHILD; k++) {
		if (ch[k].pid <= 0)
			continue;
		if (write(ch[k].cmd, "x", 1) != 1 ||
		    waitpid(ch[k].pid, &st, 0) != ch[k].pid ||
		    !WIFEXITED(st) || WEXITSTATUS(st)) {
			ksft_print_msg("child %s did not exit cleanly\n", name[k]);
			kill(ch[k].pid, SIGKILL);
			waitpid(ch[k].pid, NULL, 0);
			ok = false;
		}
		ch[k].pid = 0;
	}
	return ok;
}

int main(void)
{
	static const char *const bad[] = { "2", "x", "\n", "-1" };
	struct reply r[NCHILD];
	char before[64], after[64];
	long m[NCHILD], bad_sum, scans;
	int k, err, pmerge;
	bool stopped;
	unsigned int i;
	double t0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ksft_print_header();
	parent = getpid();
	psize = getpagesize();
	if (access(KSM_SYSFS "run", W_OK))
		ksft_exit_skip("KSM sysfs not writable\n");
	if (ksm_read("full_system_scan", before, sizeof(before)))
		ksft_exit_skip("full_system_scan absent\n");
	ksft_set_plan(ARRAY_SIZE(bad) + 9);

	ksm_knobs_save(saved, ARRAY_SIZE(saved));
	ksm_knobs_save(&saved_run, 1);
	atexit(cleanup);
	if (strtol(before, NULL, 10)) {
		ksft_print_msg("full_system_scan was %s", before);
		if (ksm_write("full_system_scan", "0"))
			ksft_exit_fail_msg("full_system_scan <- 0 refused\n");
	}

	/* a) Bad values fail with EINVAL and change nothing. */
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ksm_read("full_system_scan", before, sizeof(before));
		err = ksm_write("full_system_scan", bad[i]);
		ksm_read("full_system_scan", after, sizeof(after));
		ksft_test_result(err == -EINVAL && !strcmp(before, after) &&
				 strtol(after, NULL, 10) == 0,
				 "full_system_scan <- '%s': %s, value %s\n",
				 bad[i][0] == '\n' ? "\\n" : bad[i],
				 err ? strerror(-err) : "accepted",
				 strcmp(before, after) ? "changed" : "kept");
	}

	if (saved[SCANNER].val[0] && ksm_write("scanner", "stock"))
		ksft_exit_fail_msg("scanner <- stock refused\n");
	if (ksm_set("pages_to_scan", 1000) || ksm_set("sleep_millisecs", 10) ||
	    ksm_set("run", 1))
		ksft_exit_fail_msg("cannot start KSM\n");

	/* b) Three children before the knob, one after. */
	for (k = 0; k < NCHILD; k++) {
		if (k == AFTER) {
			if (ksm_write("full_system_scan", "1"))
				ksft_exit_fail_msg("full_system_scan <- 1 refused\n");
			if (ksm_get("full_system_scan") != 1)
				ksft_exit_fail_msg("full_system_scan reads %ld after writing 1\n",
						   ksm_get("full_system_scan"));
		}
		ksm_spawn(ch, NCHILD, k, child);
		ksm_get_reply(&ch[k], name[k], &r[k], sizeof(r[k]));
		if (r[k].err)
			ksft_exit_fail_msg("child %s: setup failed: %s\n",
					   name[k], strerror(r[k].err));
		ksft_print_msg("child %s (pid %d) ready, PR_GET_MEMORY_MERGE %d\n",
			       name[k], ch[k].pid, r[k].merge);
	}

	for (k = 0; k < NCHILD; k++)
		query(k, &r[k]);
	ksft_test_result(r[BEFORE].merge == 1 && r[OPTOUT].merge == 0 &&
			 r[OWN].merge == 1 && r[AFTER].merge == 1,
			 "knob on: PR_GET_MEMORY_MERGE before %d, opted-out %d, own-prctl %d, after %d (want 1 0 1 1)\n",
			 r[BEFORE].merge, r[OPTOUT].merge, r[OWN].merge,
			 r[AFTER].merge);

	t0 = now();
	scans = ksm_get("full_scans");
	while (now() - t0 < MERGE_SECS) {
		if (merging(BEFORE) >= NPAGES && merging(OWN) >= NPAGES &&
		    merging(AFTER) >= NPAGES)
			break;
		msleep(100);
	}
	ksft_print_msg("enrolled children merged after %.1f s, %ld full scans\n",
		       now() - t0, ksm_get("full_scans") - scans);
	/* A few more scans, so that what should not merge had its chance. */
	scans = wait_full_scans(SETTLE_SCANS, 30);
	for (k = 0; k < NCHILD; k++)
		m[k] = merging(k);
	print_merging("knob on");
	ksft_test_result(MERGED_ONE_VMA(m[BEFORE]) && MERGED_ONE_VMA(m[OWN]) &&
			 m[AFTER] >= NPAGES && scans >= SETTLE_SCANS,
			 "knob on: enrolled children merged (before %ld, own-prctl %ld, after %ld; want %d to %d each)\n",
			 m[BEFORE], m[OWN], m[AFTER], NPAGES, NPAGES + SLACK - 1);
	ksft_test_result(m[OPTOUT] == 0,
			 "knob on: opted-out child not merged (%ld pages)\n",
			 m[OPTOUT]);
	ksft_test_result(MERGED_ONE_VMA(m[AFTER]),
			 "knob on: MADV_UNMERGEABLE VMA left out (after: %ld merging pages, want %d to %d)\n",
			 m[AFTER], NPAGES, NPAGES + SLACK - 1);
	for (bad_sum = 0, k = 0; k < NCHILD; k++) {
		query(k, &r[k]);
		bad_sum += r[k].bad;
	}
	ksft_test_result(bad_sum == 0, "knob on: every word intact (%ld bad)\n",
			 bad_sum);

	/* c) Knob off: what it enrolled is unmerged and un-enrolled. */
	if (ksm_write("full_system_scan", "0"))
		ksft_exit_fail_msg("full_system_scan <- 0 refused\n");
	t0 = now();
	while (now() - t0 < UNMERGE_SECS &&
	       (merging(BEFORE) != 0 || merging(AFTER) != 0))
		msleep(100);
	for (k = 0; k < NCHILD; k++)
		m[k] = merging(k);
	print_merging("knob off");
	ksft_test_result(m[BEFORE] == 0 && m[AFTER] == 0,
			 "knob off: enrolled children unmerged in %.1f s (before %ld, after %ld)\n",
			 now() - t0, m[BEFORE], m[AFTER]);
	for (bad_sum = 0, k = 0; k < NCHILD; k++) {
		query(k, &r[k]);
		bad_sum += r[k].bad;
	}
	pmerge = prctl(PR_GET_MEMORY_MERGE, 0, 0, 0, 0);
	ksft_test_result(r[BEFORE].merge == 0 && r[AFTER].merge == 0 &&
			 r[OPTOUT].merge == 0 && pmerge == 0,
			 "knob off: PR_GET_MEMORY_MERGE before %d, after %d, opted-out %d, this process %d (want 0)\n",
			 r[BEFORE].merge, r[AFTER].merge, r[OPTOUT].merge,
			 pmerge);

	/* d) A process's own prctl is not the knob's to undo. */
	ksft_test_result(r[OWN].merge == 1 && MERGED_ONE_VMA(m[OWN]),
			 "knob off: own-prctl child keeps PR_GET_MEMORY_MERGE %d (want 1) and %ld merging pages (want %d to %d)\n",
			 r[OWN].merge, m[OWN], NPAGES, NPAGES + SLACK - 1);

	stopped = stop_children();
	ksft_test_result(bad_sum == 0 && stopped,
			 "knob off: every word intact (%ld bad), children %s\n",
			 bad_sum, stopped ? "exited" : "did not exit cleanly");
	ksft_finished();
}
