// SPDX-License-Identifier: GPL-2.0
/*
 * The distilling scanner puts regions on the levels their behaviour earns.
 * Four children, each with one mergeable VMA (one region) of 2048 pages:
 *
 *   dense   all pages identical, never written: promoted to the top
 *           (level by level, or at once when nearly all of enough samples
 *           merge), then back to level 0 once all is merged;
 *   sparse  every page distinct: nothing merges, it stays on level 0;
 *   cow     all pages identical, but about 2000 random pages a second are
 *           written (one byte flipped and put back), so its merges are
 *           undone soon after they happen: never on the top level;
 *   short   the VMA is replaced by a new one every 300 ms, younger than
 *           Vlife (500 ms here): never sampled, so on level 0 and never
 *           merged.
 *
 * The parent reads each child's ksm_distill_regions (/proc/<pid>/ksm_stat)
 * every 50 ms until distill/rounds has advanced by 12 (and by 8 since dense
 * was first sampled, and until dense has 90% of its pages merged), and
 * checks the highest level each region was seen on. Every child checks
 * every word of its memory at the end.
 *
 * Knobs (all restored): scanner distill, distill/governor full, distill/life_ms
 * 500, distill/levels 3 and distill/bottom_cpu_permille 20. Three levels keep the
 * run short: dense may climb one level a round and goes back to level 0 once
 * all is merged, so a shorter ladder makes "reached the top" quick to see.
 * The bottom share of 2% rather than 0.2% lets level 0 sample dense a few
 * times a round on the debug kernel, where examining a page costs about
 * 1 ms of CPU under TCG.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest.h"
#include "ksm_util.h"

#define NPAGES		2048	/* per child's VMA */
#define ROUNDS		12	/* global rounds to watch at least */
#define ROUNDS_DENSE	8	/* ... and after dense was first sampled */
#define WAIT_SECS	240
#define POLL_MS		50
#define LIFE_MS		500	/* distill/life_ms (Vlife) */
#define SHORT_MS	300	/* life of each of short's VMAs, < LIFE_MS */
#define SHORT_SLOTS	64	/* short's VMAs cycle over this many addresses */
#define COW_RATE	2000	/* cow's page writes per second */
#define LEVELS		3	/* distill/levels */
#define BOTTOM		20	/* distill/bottom_cpu_permille */

enum { DENSE, SPARSE, COW, SHORT, NCHILD };
static const char *const name[NCHILD] = { "dense", "sparse", "cow", "short" };
/* Content seeds; sparse's pages also depend on the page. */
static const uint64_t seed[NCHILD] = { 11, 12, 13, 14 };

/* Sent by a child when ready and once more when asked to verify ('v'). */
struct reply {
	int err;	/* errno of a failed setup step, 0 if none */
	long bad;	/* words that differ from what the child wrote */
	long extra;	/* cow: page writes; short: VMAs replaced */
};

/* Command: 'v' verify and exit; replies: struct reply. */
static struct ksm_child ch[NCHILD];

static pid_t parent;
static size_t psize;

/* Knobs to restore (in this order, then run 2 and run). */
static struct ksm_knob saved[] = {
	{ .name = "distill/life_ms" },
	{ .name = "distill/levels" },
	{ .name = "distill/bottom_cpu_permille" },
	{ .name = "distill/governor" },
	{ .name = "scanner" },
};
static struct ksm_knob saved_run = { .name = "run" };

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Word i of page p of child k: the same in every page but for sparse. */
static uint64_t word(int k, size_t p, size_t i)
{
	uint64_t page = k == SPARSE ? p + 1 : 0;

	return mix(seed[k] << 48 ^ page << 16 ^ i) | 1;
}

static void fill(int k, uint64_t *mem)
{
	size_t p, i, n = psize / 8;

	for (p = 0; p < NPAGES; p++)
		for (i = 0; i < n; i++)
			mem[p * n + i] = word(k, p, i);
}

static long bad_words(int k, const uint64_t *mem)
{
	size_t p, i, n = psize / 8;
	long bad = 0;

	for (p = 0; p < NPAGES; p++)
		for (i = 0; i < n; i++)
			bad += mem[p * n + i] != word(k, p, i);
	return bad;
}

/* A filled, mergeable VMA of NPAGES for child k (at addr if not NULL). */
static uint64_t *map_region(int k, void *addr, int *err)
{
	size_t len = NPAGES * psize;
	uint64_t *mem;

	mem = mmap(addr, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | (addr ? MAP_FIXED : 0), -1, 0);
	if (mem == MAP_FAILED) {
		*err = *err ?: errno;
		return NULL;
	}
	madvise(mem, len, MADV_NOHUGEPAGE);
	fill(k, mem);
	if (madvise(mem, len, MADV_MERGEABLE))
		*err = *err ?: errno;
	return mem;
}

/*
 * Wait up to ms for a command; true when 'v' came. A closed pipe (the
 * parent is gone) ends the child.
 */
static bool got_verify(int cmd, int ms)
{
	struct pollfd pfd = { .fd = cmd, .events = POLLIN };
	char c;

	if (poll(&pfd, 1, ms) < 1)
		return false;
	if (read(cmd, &c, 1) != 1)
		_exit(1);
	return c == 'v';
}

/* cow: flip and restore one byte of a random page, COW_RATE a second. */
static long cow_loop(int k, uint64_t *mem, int cmd)
{
	uint64_t rnd = mix(getpid());
	long done = 0, due;
	double start = now();

	while (!got_verify(cmd, 10)) {
		due = (long)((now() - start) * COW_RATE);
		if (due - done > COW_RATE / 10)
			done = due - COW_RATE / 10;	/* no catch-up burst */
		for (; done < due; done++) {
			size_t p, i;
			volatile uint8_t *b;
			uint64_t w;

			rnd = mix(rnd);
			p = rnd % NPAGES;
			i = (rnd >> 32) % psize;
			w = word(k, p, i / 8);
			b = (volatile uint8_t *)mem + p * psize + i;
			*b = ~((uint8_t *)&w)[i % 8];
			*b = ((uint8_t *)&w)[i % 8];
		}
	}
	return done;
}

/*
 * short: every SHORT_MS, munmap the VMA and map a new one at the next of
 * SHORT_SLOTS addresses kept reserved (PROT_NONE), so that a new VMA
 * never takes the range of one the scanner may still remember.
 */
static long short_loop(int k, uint64_t **mem, int cmd, int *err)
{
	size_t len = NPAGES * psize;
	char *slots = (char *)*mem;
	long cycles = 0;

	while (!got_verify(cmd, SHORT_MS)) {
		munmap(*mem, len);
		if (mmap(*mem, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
			 MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED)
			*err = *err ?: errno;
		cycles++;
		*mem = map_region(k, slots + (cycles % SHORT_SLOTS) * len, err);
		if (!*mem)
			_exit(1);
	}
	return cycles;
}

static void __attribute__((noreturn)) child(int k, int cmd, int rep)
{
	size_t len = NPAGES * psize;
	struct reply r = { 0 };
	uint64_t *mem;

	if (k == SHORT) {
		void *res = mmap(NULL, SHORT_SLOTS * len, PROT_NONE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				 -1, 0);

		if (res == MAP_FAILED)
			_exit(1);
		mem = map_region(k, res, &r.err);
	} else {
		mem = map_region(k, NULL, &r.err);
	}
	if (write(rep, &r, sizeof(r)) != sizeof(r) || !mem)
		_exit(1);
	if (k == COW)
		r.extra = cow_loop(k, mem, cmd);
	else if (k == SHORT)
		r.extra = short_loop(k, &mem, cmd, &r.err);
	else
		while (!got_verify(cmd, -1))
			;
	r.bad = bad_words(k, mem);
	if (write(rep, &r, sizeof(r)) != sizeof(r))
		_exit(1);
	_exit(0);
}

static void cleanup(void)
{
	if (getpid() != parent)
		return;
	ksm_kill_children(ch, NCHILD);
	ksm_knobs_restore(saved, ARRAY_SIZE(saved));
	ksm_write("run", "2");
	if (saved_run.val[0])
		ksm_write("run", saved_run.val);
}

/* What one read of a child's ksm_stat says. */
struct sample {
	int regions;		/* regions, all levels */
	int hi;			/* highest level with a region, -1 if none */
	long merging;		/* ksm_merging_pages */
	long sampled;		/* ksm_distill_pages_sampled */
	long cow;		/* ksm_distill_cow_breaks */
	char line[128];		/* the ksm_distill_regions line */
};

static int sample(int k, struct sample *s)
{
	const char *v, *end;
	char buf[1024], *e;
	long n;
	int l;

	memset(s, 0, sizeof(*s));
	s->hi = -1;
	if (ksm_stat_read(ch[k].pid, buf, sizeof(buf)))
		return -1;
	v = ksm_stat_find(buf, "ksm_distill_regions");
	if (!v)
		return -1;
	end = v + strcspn(v, "\n");
	snprintf(s->line, sizeof(s->line), "%.*s", (int)(end - v), v);
	for (l = 0; v < end; l++, v = e) {
		n = strtol(v, &e, 10);
		if (e == v)
			break;
		s->regions += n;
		if (n)
			s->hi = l;
	}
	v = ksm_stat_find(buf, "ksm_merging_pages");
	s->merging = v ? strtol(v, NULL, 10) : -1;
	v = ksm_stat_find(buf, "ksm_distill_pages_sampled");
	s->sampled = v ? strtol(v, NULL, 10) : -1;
	v = ksm_stat_find(buf, "ksm_distill_cow_breaks");
	s->cow = v ? strtol(v, NULL, 10) : -1;
	return 0;
}

int main(void)
{
	struct reply r[NCHILD];
	struct sample s[NCHILD];
	int maxlvl[NCHILD], top, k, dense_level = -1;
	long r0, p0, rounds = 0, dense_first = -1, short_merging = 0, promo;
	char buf[128], ns[128];
	bool waited;
	double t0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ksft_print_header();
	parent = getpid();
	psize = getpagesize();
	if (access(KSM_SYSFS "run", W_OK))
		ksft_exit_skip("KSM sysfs not writable\n");
	if (access(KSM_SYSFS "scanner", W_OK) ||
	    access(KSM_SYSFS "distill/rounds", R_OK))
		ksft_exit_skip("no distilling scanner\n");
	ksft_set_plan(7 + NCHILD);

	ksm_knobs_save(saved, ARRAY_SIZE(saved));
	ksm_knobs_save(&saved_run, 1);
	atexit(cleanup);
	if (ksm_write("scanner", "distill"))
		ksft_exit_fail_msg("scanner <- distill refused\n");
	if (ksm_write("distill/governor", "full") ||
	    ksm_set("distill/levels", LEVELS) ||
	    ksm_set("distill/bottom_cpu_permille", BOTTOM) ||
	    ksm_set("distill/life_ms", LIFE_MS))
		ksft_exit_fail_msg("cannot set the distill knobs\n");
	top = ksm_get("distill/levels") - 1;
	ksft_print_msg("scanner distill, distill/governor full, distill/levels %d, distill/bottom_cpu_permille %ld, distill/life_ms %ld\n",
		       top + 1, ksm_get("distill/bottom_cpu_permille"),
		       ksm_get("distill/life_ms"));

	for (k = 0; k < NCHILD; k++) {
		ksm_spawn(ch, NCHILD, k, child);
		ksm_get_reply(&ch[k], name[k], &r[k], sizeof(r[k]));
		if (r[k].err)
			ksft_exit_fail_msg("child %s: setup failed: %s\n",
					   name[k], strerror(r[k].err));
		maxlvl[k] = -1;
	}
	if (ksm_set("run", 1))
		ksft_exit_fail_msg("run <- 1 refused\n");

	r0 = ksm_get("distill/rounds");
	p0 = ksm_get("distill/promotions");
	t0 = now();
	for (;;) {
		rounds = ksm_get("distill/rounds") - r0;
		for (k = 0; k < NCHILD; k++) {
			if (sample(k, &s[k]))
				ksft_exit_fail_msg("child %s: no ksm_distill_regions in /proc/%d/ksm_stat\n",
						   name[k], ch[k].pid);
			if (s[k].hi > maxlvl[k])
				maxlvl[k] = s[k].hi;
		}
		if (s[DENSE].hi != dense_level) {
			dense_level = s[DENSE].hi;
			ksft_print_msg("round %ld, %.1f s: dense on level %d (%s), %ld merging\n",
				       rounds, now() - t0, dense_level,
				       s[DENSE].line, s[DENSE].merging);
		}
		if (dense_first < 0 && s[DENSE].sampled > 0)
			dense_first = rounds;
		if (s[SHORT].merging > short_merging)
			short_merging = s[SHORT].merging;
		/* ... and until dense has merged (it may take a few rounds). */
		waited = rounds >= ROUNDS && dense_first >= 0 &&
			 rounds - dense_first >= ROUNDS_DENSE &&
			 s[DENSE].merging >= NPAGES * 9 / 10;
		if (waited || now() - t0 > WAIT_SECS)
			break;
		msleep(POLL_MS);
	}
	ksft_test_result(waited, "%ld rounds in %.1f s (dense first sampled in round %ld)\n",
			 rounds, now() - t0, dense_first);
	for (k = 0; k < NCHILD; k++)
		ksft_print_msg("%s: ksm_distill_regions %s, highest level seen %d, %ld merging, %ld sampled, %ld COW breaks\n",
			       name[k], s[k].line, maxlvl[k], s[k].merging,
			       s[k].sampled, s[k].cow);
	promo = ksm_get("distill/promotions") - p0;
	ksm_read_levels("interval", buf, sizeof(buf));
	ksm_read_levels("page_ns", ns, sizeof(ns));
	ksft_print_msg("distill/promotions +%ld, distill/demotions %ld, page_ns by level %s, interval by level %s\n",
		       promo, ksm_get("distill/demotions"), ns, buf);

	ksft_test_result(maxlvl[DENSE] == top,
			 "dense reached the top level (highest seen %d of 0..%d)\n",
			 maxlvl[DENSE], top);
	/* One level a round, or straight to the top on plain evidence. */
	ksft_test_result(promo >= 1, "distill/promotions advanced by %ld (want >= 1)\n",
			 promo);
	ksft_test_result(s[DENSE].merging >= NPAGES * 9 / 10,
			 "dense merged %ld of %d pages (want >= 90%%)\n",
			 s[DENSE].merging, NPAGES);
	ksft_test_result(maxlvl[SPARSE] == 0 && s[SPARSE].sampled > 0,
			 "sparse stayed on level 0 (highest seen %d, %ld pages sampled)\n",
			 maxlvl[SPARSE], s[SPARSE].sampled);
	ksft_test_result(maxlvl[COW] >= 0 && maxlvl[COW] < top && s[COW].cow > 0,
			 "cow never reached the top level (highest seen %d of 0..%d, %ld COW breaks)\n",
			 maxlvl[COW], top, s[COW].cow);
	ksft_test_result(maxlvl[SHORT] == 0 && short_merging == 0,
			 "short stayed on level 0 and never merged (highest seen %d, at most %ld merging)\n",
			 maxlvl[SHORT], short_merging);

	/* Every child checks its memory; cow and short stop first. */
	for (k = 0; k < NCHILD; k++)
		if (write(ch[k].cmd, "v", 1) != 1)
			ksft_exit_fail_msg("child %s: %s\n", name[k], strerror(errno));
	for (k = 0; k < NCHILD; k++) {
		int st = -1;

		ksm_get_reply(&ch[k], name[k], &r[k], sizeof(r[k]));
		waitpid(ch[k].pid, &st, 0);
		ch[k].pid = 0;
		ksft_test_result(!r[k].bad && !r[k].err && WIFEXITED(st) &&
				 !WEXITSTATUS(st),
				 "%s: every word intact (%ld bad%s)%s\n", name[k],
				 r[k].bad, r[k].err ? ", a step failed" : "",
				 k == COW ? ", after COW writes" :
				 k == SHORT ? ", last VMA" : "");
		if (k == COW || k == SHORT)
			ksft_print_msg("%s: %ld %s\n", name[k], r[k].extra,
				       k == COW ? "page writes" : "VMAs replaced");
	}
	ksft_finished();
}
