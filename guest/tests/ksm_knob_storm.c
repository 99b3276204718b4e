// SPDX-License-Identifier: GPL-2.0
/*
 * Knob storm: every knob of KSM and of the engine written at random, valid
 * and invalid values at random intervals, while workers keep memory busy
 * and check every byte of it, and a reader reads every file of
 * /sys/kernel/mm/ksm/ and the workers' /proc/<pid>/ksm_stat.
 *
 *   ksm_knob_storm SEED SECONDS
 *
 * The seed is printed and drives every choice of the storm (the workers'
 * and ksmd's timing still vary), so a failure can be replayed.
 *
 * Workers: WORKERS processes, each with a region of RPAGES pages (half of
 * them holding one of eight contents shared by all workers, half unique)
 * and a huge-page-sized region of one content, on which they fork children
 * that check and write, exit, munmap and map again, mprotect, mremap, break
 * COW, MADV_UNMERGEABLE and MADV_MERGEABLE, and check all their pages after
 * each step against what they wrote.
 *
 * The shape knobs (tree_shards, merge_across_nodes, page_hash, scanner,
 * merge_domains) are also written in sequences that give them a chance:
 * unmerge all (run=2), scan again, and write once the unstable trees hold
 * pages. On a guest too slow for MIN_SHAPE of them each in SECONDS, shape
 * sequences alone go on for up to 120 s more.
 *
 * Passes when no worker saw a byte change, the reader read on, and each
 * shape knob was taken at least MIN_SHAPE times while the unstable trees
 * held pages. The kernel's own reports (KASAN, lockdep, hung tasks) fail
 * the boot in the harness.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <sys/stat.h>

#include "ksm_util.h"

#define WORKERS		3
#define RPAGES		512
#define CHUNK		64
#define THP_SIZE	(2UL << 20)
#define MIN_SHAPE	5

static size_t psize;

/* --- workers ------------------------------------------------------------ */

struct region {
	char *mem;
	long seed[RPAGES];
};

static long checks_failed;

/* All contents unique, for a while: nothing merges (see shape_sequence()). */
static bool unique;

static long page_seed_dup(long p)
{
	return 900 + p % 8;
}

static void fill_range(struct region *r, long from, long n, long base)
{
	long p;

	for (p = from; p < from + n; p++) {
		r->seed[p] = p < RPAGES / 2 && !unique ? page_seed_dup(p) :
			     base + p;
		ksm_fill_page(r->mem + p * psize, psize, r->seed[p]);
	}
}

static long check_region(const struct region *r)
{
	long p, bad = 0;

	for (p = 0; p < RPAGES; p++)
		bad += ksm_bad_pages(r->mem + p * psize, 1, psize, r->seed[p],
				     false);
	return bad;
}

static void check(const struct region *r, const char *after)
{
	long bad = check_region(r);

	if (bad) {
		printf("# worker %d: %ld pages changed after %s\n", getpid(),
		       bad, after);
		checks_failed += bad;
	}
}

/* The huge page region: one content, or page i at thp_base + i. */
static long thp_base = 901;

static void fill_thp(char *thp)
{
	long i;

	for (i = 0; thp && i < (long)(THP_SIZE / psize); i++)
		ksm_fill_page(thp + i * psize, psize, thp_base + (unique ? i : 0));
}

static char *map_thp(void)
{
	char *raw = mmap(NULL, 2 * THP_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *thp;

	if (raw == MAP_FAILED)
		return NULL;
	thp = (char *)(((uintptr_t)raw + THP_SIZE - 1) & ~(THP_SIZE - 1));
	madvise(thp, THP_SIZE, MADV_HUGEPAGE);
	fill_thp(thp);
	madvise(thp, THP_SIZE, MADV_MERGEABLE);
	return thp;
}

static long check_thp(const char *thp)
{
	long i, bad = 0;

	for (i = 0; thp && i < (long)(THP_SIZE / psize); i++)
		bad += ksm_bad_pages(thp + i * psize, 1, psize,
				     thp_base + (unique ? i : 0), false);
	return bad;
}

static void worker(int k, int cmd, int rep)
{
	long gen = (k + 1) * 100000000L, p, from, bad;
	struct region r;
	char *thp, *m;
	pid_t pid;
	int st;

	srand(k * 7919 + getpid());
	r.mem = ksm_map_anon(RPAGES * psize);
	fill_range(&r, 0, RPAGES, gen);
	madvise(r.mem, RPAGES * psize, MADV_MERGEABLE);
	thp = map_thp();
	ksm_reply(rep, 0);
	for (;;) {
		struct pollfd pfd = { .fd = cmd, .events = POLLIN };
		char c;

		if (poll(&pfd, 1, 0) == 1) {
			if (read(cmd, &c, 1) != 1 || c == 'q')
				break;
			/* 'U': every content unique; 'D': duplicates again. */
			check(&r, "the storm");
			unique = c == 'U';
			fill_range(&r, 0, RPAGES / 2, gen += RPAGES);
			if (unique)
				thp_base = ++gen * RPAGES;
			else
				thp_base = 901;
			fill_thp(thp);
			check(&r, unique ? "going unique" : "going duplicate");
			ksm_reply(rep, 0);
			continue;
		}
		from = rand() % (RPAGES / CHUNK) * CHUNK;
		switch (rand() % 8) {
		case 0:	/* COW break of a page, merged or not */
			p = rand() % RPAGES;
			r.seed[p] = ++gen;
			ksm_fill_page(r.mem + p * psize, psize, r.seed[p]);
			check(&r, "a write");
			break;
		case 1:	/* a child checks, writes, checks, exits */
			fflush(stdout);
			pid = fork();
			if (!pid) {
				p = rand() % RPAGES;
				bad = check_region(&r) + check_thp(thp);
				r.seed[p] = -1;
				ksm_fill_page(r.mem + p * psize, psize, -1);
				bad += check_region(&r);
				_exit(bad > 255 ? 255 : bad);
			}
			if (pid > 0 && waitpid(pid, &st, 0) == pid &&
			    (!WIFEXITED(st) || WEXITSTATUS(st))) {
				printf("# worker %d: forked child: %d\n",
				       getpid(), st);
				checks_failed++;
			}
			check(&r, "a fork");
			break;
		case 2:	/* munmap a chunk, map it again */
			m = r.mem + from * psize;
			munmap(m, CHUNK * psize);
			if (mmap(m, CHUNK * psize, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
				 0) != m)
				_exit(100);
			madvise(m, CHUNK * psize, MADV_NOHUGEPAGE);
			fill_range(&r, from, CHUNK, gen += RPAGES);
			madvise(m, CHUNK * psize, MADV_MERGEABLE);
			check(&r, "a munmap");
			break;
		case 3:	/* mprotect a chunk read-only, then back */
			m = r.mem + from * psize;
			mprotect(m, CHUNK * psize, PROT_READ);
			msleep(rand() % 50);
			check(&r, "mprotect read-only");
			mprotect(m, CHUNK * psize, PROT_READ | PROT_WRITE);
			break;
		case 4:	/* mremap the region to a new place */
			m = mmap(NULL, RPAGES * psize, PROT_NONE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (m != MAP_FAILED &&
			    mremap(r.mem, RPAGES * psize, RPAGES * psize,
				   MREMAP_MAYMOVE | MREMAP_FIXED, m) == m)
				r.mem = m;
			check(&r, "mremap");
			break;
		case 5:	/* unmerge a chunk, then mergeable again */
			m = r.mem + from * psize;
			madvise(m, CHUNK * psize, MADV_UNMERGEABLE);
			check(&r, "MADV_UNMERGEABLE");
			madvise(m, CHUNK * psize, MADV_MERGEABLE);
			break;
		case 6:	/* the huge page region: check it */
			if (check_thp(thp)) {
				printf("# worker %d: huge page region changed\n",
				       getpid());
				checks_failed++;
			}
			break;
		default:
			msleep(rand() % 200);
			check(&r, "a sleep");
			break;
		}
	}
	check(&r, "the storm");
	if (check_thp(thp))
		checks_failed++;
	ksm_reply(rep, checks_failed);
	_exit(0);
}

/* --- reader --------------------------------------------------------------- */

static void read_all(const char *path)
{
	char buf[4096];
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
}

static pid_t worker_pids[WORKERS];

/* Read every file under @dir, and in its directories @depth deep. */
static void read_tree(const char *dir_path, int depth)
{
	char path[512];
	struct dirent *d;
	DIR *dir;

	dir = opendir(dir_path);
	while (dir && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir_path, d->d_name);
		if (d->d_type == DT_DIR) {
			if (depth > 0)
				read_tree(path, depth - 1);
			continue;
		}
		read_all(path);
	}
	if (dir)
		closedir(dir);
}

static void reader(int k, int cmd, int rep)
{
	long rounds = 0;
	char path[512];
	int i;

	ksm_reply(rep, 0);
	for (;;) {
		struct pollfd pfd = { .fd = cmd, .events = POLLIN };

		if (poll(&pfd, 1, 0) == 1)
			break;
		/* The engine's directories too (distill/level<N>/). */
		read_tree("/sys/kernel/mm/ksm", 2);
		for (i = 0; i < WORKERS; i++) {
			snprintf(path, sizeof(path), "/proc/%d/ksm_stat",
				 worker_pids[i]);
			read_all(path);
		}
		rounds++;
		msleep(20);
	}
	ksm_reply(rep, rounds);
	_exit(0);
}

/* --- the storm ------------------------------------------------------------ */

struct knob {
	const char *name;
	const char *const *valid;	/* NULL: a number in [lo, hi] */
	long lo, hi;
	const char *const *invalid;
	bool shape;
	long taken, refused, shape_taken, invalid_taken;
};

static const char *const v_bool[] = { "0", "1", NULL };
static const char *const v_run[] = { "0", "1", "1", "1", "2", NULL };
static const char *const v_advisor[] = { "none", "scan-time", NULL };
static const char *const v_scanner[] = { "stock", "distill", NULL };
static const char *const v_gov[] = { "full", "medium", "low", "quiet", NULL };
static const char *const v_place[] = { "scan-order", "fair", "priority", NULL };
static const char *const v_hash[] = { "checksum", "adaptive", NULL };
static const char *const v_domains[] = { "none", "user", "cgroup", NULL };
static const char *const v_thp[] = { "always", "never", "cold", "selective", NULL };
static const char *const bad_num[] = {
	"-1", "abc", "99999999999999999999999", "1x", NULL,
};
static const char *const bad_name[] = { "bogus", "stock distill", "1", NULL };
static const char *const bad_bool[] = { "2", "-1", "x", NULL };
static const char *const bad_run[] = { "3", "-1", "x", NULL };

static struct knob knobs[] = {
	{ "pages_to_scan", NULL, 1, 3000, bad_num },
	{ "sleep_millisecs", NULL, 0, 50, bad_num },
	{ "run", v_run, 0, 0, bad_run },
	{ "merge_across_nodes", v_bool, 0, 0, bad_bool, true },
	{ "use_zero_pages", v_bool, 0, 0, bad_bool },
	{ "max_page_sharing", NULL, 2, 512, bad_num },
	{ "stable_node_chains_prune_millisecs", NULL, 1, 5000, bad_num },
	{ "smart_scan", v_bool, 0, 0, bad_bool },
	{ "advisor_mode", v_advisor, 0, 0, bad_name },
	{ "advisor_max_cpu", NULL, 1, 100, bad_num },
	{ "advisor_min_pages_to_scan", NULL, 1, 500, bad_num },
	{ "advisor_max_pages_to_scan", NULL, 500, 30000, bad_num },
	{ "advisor_target_scan_time", NULL, 1, 200, bad_num },
	{ "scanner", v_scanner, 0, 0, bad_name, true },
	{ "full_system_scan", v_bool, 0, 0, bad_bool },
	{ "distill/governor", v_gov, 0, 0, bad_name },
	{ "distill/levels", NULL, 2, 4, bad_num },
	{ "distill/dup_pct", NULL, 0, 100, bad_num },
	{ "distill/cow_pct", NULL, 0, 1000, bad_num },
	{ "distill/life_ms", NULL, 0, 5000, bad_num },
	{ "distill/bottom_cpu_permille", NULL, 50, 1000, bad_num },
	{ "placement/mode", v_place, 0, 0, bad_name },
	{ "tree_shards", NULL, 1, 16, bad_num, true },
	{ "page_hash/mode", v_hash, 0, 0, bad_name, true },
	{ "merge_domains/mode", v_domains, 0, 0, bad_name, true },
	{ "thp_split/mode", v_thp, 0, 0, bad_name },
	{ "thp_split/check_interval_ms", NULL, 100, 3000, bad_num },
	{ "thp_split/cold_threshold", NULL, 0, 4, bad_num },
	{ "thp_split/hot_threshold", NULL, 0, 4, bad_num },
	{ "thp_split/repetition_permille", NULL, 0, 1000, bad_num },
	{ "thp_split/pressure", v_bool, 0, 0, bad_bool },
	{ "thp_split/pressure_low_pct", NULL, 0, 100, bad_num },
	{ "thp_split/pressure_high_pct", NULL, 0, 100, bad_num },
};

/* xorshift, from the seed: the storm's every choice. */
static uint64_t rng;

static uint64_t rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? rng % n : 0;
}

static const char *pick(const char *const *v)
{
	int n = 0;

	while (v[n])
		n++;
	return v[rnd(n)];
}

/* Write a valid (or, 1 time in 4 unless @valid, an invalid) value. */
static void storm_write(struct knob *k, bool valid)
{
	char num[32];
	const char *val;
	bool unstable = ksm_get("pages_unshared") > 0;
	int err;

	if (!valid && !rnd(4)) {
		val = pick(k->invalid);
		err = ksm_write(k->name, val);
		if (!err) {
			printf("# %s accepted the invalid value \"%s\"\n",
			       k->name, val);
			k->invalid_taken++;
		}
		return;
	}
	if (k->valid) {
		val = pick(k->valid);
	} else {
		snprintf(num, sizeof(num), "%ld",
			 k->lo + (long)rnd(k->hi - k->lo + 1));
		val = num;
	}
	err = ksm_write(k->name, val);
	if (err) {
		k->refused++;
		return;
	}
	k->taken++;
	if (k->shape && unstable)
		k->shape_taken++;
}

static struct knob *knob(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(knobs); i++)
		if (!strcmp(knobs[i].name, name))
			return &knobs[i];
	ksft_exit_fail_msg("no knob %s\n", name);
}

static struct ksm_child ch[WORKERS + 1];

/* Send @c to every worker and wait for each to answer. */
static void workers_cmd(char c)
{
	long r;
	int i;

	for (i = 0; i < WORKERS; i++)
		if (write(ch[i].cmd, &c, 1) != 1)
			ksft_exit_fail_msg("worker gone: %s\n", strerror(errno));
	for (i = 0; i < WORKERS; i++)
		ksm_get_reply(&ch[i], "worker", &r, sizeof(r));
}

/* Wait up to @secs for pages in the unstable trees. */
static void wait_unstable(double secs)
{
	double deadline = now() + secs;

	while (ksm_get("pages_unshared") <= 0 && now() < deadline)
		msleep(20);
}

/*
 * Write the next shape knob, in turn, while the unstable trees hold pages.
 * tree_shards, merge_across_nodes and merge_domains are refused while pages
 * are merged:
 * for them the workers make every content unique, KSM unmerges all and
 * scans again, and the knob is written once the unstable trees fill.
 */
static void shape_sequence(void)
{
	static const char *const shape[] = {
		"tree_shards", "merge_across_nodes", "page_hash/mode", "scanner",
		"merge_domains/mode",
	};
	static unsigned int next;
	const char *name = shape[next++ % ARRAY_SIZE(shape)];

	if (strcmp(name, "tree_shards") && strcmp(name, "merge_across_nodes") &&
	    strcmp(name, "merge_domains/mode")) {
		wait_unstable(3);
		storm_write(knob(name), true);
		return;
	}
	workers_cmd('U');
	ksm_write("advisor_mode", "none");
	ksm_write("full_system_scan", "0");
	ksm_write("run", "2");
	ksm_write("run", "1");
	msleep(rnd(500));
	wait_unstable(15);
	storm_write(knob(name), true);
	/* Half the time a second change at once, before a scan ends. */
	if (rnd(2))
		storm_write(knob(name), true);
	workers_cmd('D');
}

/* A shape knob taken fewer than MIN_SHAPE times with pages waiting. */
static bool shape_short(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(knobs); i++)
		if (knobs[i].shape && knobs[i].shape_taken < MIN_SHAPE)
			return true;
	return false;
}

int main(int argc, char **argv)
{
	struct ksm_knob saved[ARRAY_SIZE(knobs) + 1];
	long seed, seconds, bad = 0, r, rounds = 0;
	bool shape_ok = true;
	unsigned int i;
	double end;

	if (argc != 3)
		ksft_exit_fail_msg("usage: ksm_knob_storm SEED SECONDS\n");
	seed = atol(argv[1]);
	seconds = atol(argv[2]);
	psize = sysconf(_SC_PAGESIZE);
	ksft_print_header();
	if (access(KSM_SYSFS "scanner", F_OK))
		ksft_exit_skip("no engine knobs\n");
	ksft_set_plan(3);
	printf("# seed %ld, %ld s\n", seed, seconds);
	rng = seed * 0x9e3779b97f4a7c15ULL + 1;

	/* Put back with advisor_mode first and run last. */
	saved[0].name = "advisor_mode";
	r = 1;
	for (i = 0; i < ARRAY_SIZE(knobs); i++)
		if (strcmp(knobs[i].name, "run"))
			saved[r++].name = knobs[i].name;
	saved[r].name = "run";
	ksm_knobs_save(saved, ARRAY_SIZE(saved));
	ksm_set("pages_to_scan", 1000);
	ksm_set("sleep_millisecs", 10);
	ksm_set("run", 1);

	for (i = 0; i < WORKERS; i++) {
		ksm_spawn(ch, WORKERS + 1, i, worker);
		ksm_get_reply(&ch[i], "worker", &r, sizeof(r));
		worker_pids[i] = ch[i].pid;
	}
	ksm_spawn(ch, WORKERS + 1, WORKERS, reader);
	ksm_get_reply(&ch[WORKERS], "reader", &r, sizeof(r));

	end = now() + seconds;
	while (now() < end) {
		msleep(rnd(300));
		if (!rnd(2))
			shape_sequence();
		else
			storm_write(&knobs[rnd(ARRAY_SIZE(knobs))], false);
	}
	/* A slow guest: shape sequences alone until each knob had its share. */
	while (shape_short() && now() < end + 120)
		shape_sequence();

	for (i = 0; i <= WORKERS; i++) {
		char c = 'q';

		if (write(ch[i].cmd, &c, 1) != 1)
			ksft_exit_fail_msg("child gone: %s\n", strerror(errno));
	}
	for (i = 0; i < WORKERS; i++) {
		ksm_get_reply(&ch[i], "worker", &r, sizeof(r));
		bad += r;
	}
	ksm_get_reply(&ch[WORKERS], "reader", &rounds, sizeof(rounds));
	ksm_kill_children(ch, WORKERS + 1);

	for (i = 0; i < ARRAY_SIZE(knobs); i++) {
		struct knob *k = &knobs[i];

		printf("# %-36s taken %4ld refused %4ld", k->name, k->taken,
		       k->refused);
		if (k->shape) {
			printf(" taken with the unstable trees holding pages %ld",
			       k->shape_taken);
			shape_ok = shape_ok && k->shape_taken >= MIN_SHAPE;
		}
		printf("\n");
		if (k->invalid_taken)
			shape_ok = false;
	}
	ksft_test_result(!bad, "seed %ld: workers saw %ld pages changed\n",
			 seed, bad);
	ksft_test_result(rounds > 0, "reader read every file %ld times\n",
			 rounds);
	ksft_test_result(shape_ok,
			 "no invalid value taken; each shape knob taken %d times or more with pages in the unstable trees\n",
			 MIN_SHAPE);

	ksm_write("advisor_mode", "none");
	ksm_set("run", 2);
	ksm_knobs_restore(saved, ARRAY_SIZE(saved));
	ksft_finished();
}
