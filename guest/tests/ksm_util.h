/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers shared by the guest tests: KSM sysfs access, saving and
 * restoring knobs, time, and children driven over a pair of pipes. Define
 * _GNU_SOURCE before any include (pipe2).
 */
#ifndef KSM_GUEST_UTIL_H
#define KSM_GUEST_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"

#define KSM_SYSFS "/sys/kernel/mm/ksm/"

/* Read a KSM sysfs file into buf; returns 0 or -errno. */
static inline int ksm_read(const char *knob, char *buf, size_t len)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), KSM_SYSFS "%s", knob);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static inline long ksm_get(const char *knob)
{
	char buf[64];

	if (ksm_read(knob, buf, sizeof(buf)))
		return -1;
	return strtol(buf, NULL, 0);
}

/*
 * One statistic of each level of the distilling scanner in use
 * (distill/level<N>/@stat for N below distill/levels), lowest first,
 * space-separated into buf; empty without the engine.
 */
static inline void ksm_read_levels(const char *stat, char *buf, size_t len)
{
	long n = ksm_get("distill/levels"), l;
	size_t at = 0;
	char knob[64];

	buf[0] = '\0';
	for (l = 0; l < n && at < len; l++) {
		snprintf(knob, sizeof(knob), "distill/level%ld/%s", l, stat);
		at += snprintf(buf + at, len - at, l ? " %ld" : "%ld",
			       ksm_get(knob));
	}
}

/*
 * Report the CPU time the distilling scanner left out of its budget as host
 * stalls (a diagnostic line; nothing without the engine's counters).
 */
static inline void ksm_print_stalls(void)
{
	long n = ksm_get("distill/stalls");

	if (n >= 0)
		printf("# host stalls left out of ksmd's budget: %ld batches, %ld ms\n",
		       n, ksm_get("distill/stall_ms"));
}

/* Write @val to the file at @path; returns 0 or -errno. */
static inline int ksm_write_path(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* The number the file at @path starts with, or -1. */
static inline long ksm_read_path_long(const char *path)
{
	char buf[64];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

/* /proc/<pid>[/task/<tid>]/ksm_merging_pages (@tid 0: the process's). */
static inline long ksm_merging(pid_t pid, pid_t tid)
{
	char path[96];

	if (tid)
		snprintf(path, sizeof(path),
			 "/proc/%d/task/%d/ksm_merging_pages", pid, tid);
	else
		snprintf(path, sizeof(path), "/proc/%d/ksm_merging_pages", pid);
	return ksm_read_path_long(path);
}

/* Write a string to a KSM sysfs file; returns 0 or -errno. */
static inline int ksm_write(const char *knob, const char *val)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), KSM_SYSFS "%s", knob);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n < 0 ? -errno : 0;
}

static inline int ksm_set(const char *knob, long val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", val);
	return ksm_write(knob, buf);
}

/* Read /proc/<pid>/ksm_stat into buf; returns 0 or -errno. */
static inline int ksm_stat_read(int pid, char *buf, size_t len)
{
	char path[64];
	size_t got = 0;
	ssize_t n = 0;
	int fd, err;

	snprintf(path, sizeof(path), "/proc/%d/ksm_stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	while (got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	err = n < 0 ? -errno : 0;
	close(fd);
	buf[got] = '\0';
	return err;
}

/* The text after "key " on the line of ksm_stat text that starts with key. */
static inline const char *ksm_stat_find(const char *text, const char *key)
{
	size_t kl = strlen(key);
	const char *l = text;

	while (l && *l) {
		if (!strncmp(l, key, kl) && l[kl] == ' ')
			return l + kl + 1;
		l = strchr(l, '\n');
		if (l)
			l++;
	}
	return NULL;
}

/* One number of /proc/<pid>/ksm_stat, or -1. */
static inline long ksm_stat_get(int pid, const char *key)
{
	const char *v;
	char buf[1024];

	if (ksm_stat_read(pid, buf, sizeof(buf)))
		return -1;
	v = ksm_stat_find(buf, key);
	return v ? strtol(v, NULL, 10) : -1;
}

/* The current choice of a "a [b] c" knob, or the value itself. */
static inline void ksm_knob_value(char *v)
{
	char *l = strchr(v, '['), *r;

	if (l && (r = strchr(l, ']'))) {
		*r = '\0';
		memmove(v, l + 1, strlen(l + 1) + 1);
	}
	v[strcspn(v, "\n")] = '\0';
}

/* A knob saved to be put back: its name, and its value or "" if absent. */
struct ksm_knob {
	const char *name;
	char val[64];
};

/* Save the current value of each of the n knobs. */
static inline void ksm_knobs_save(struct ksm_knob *k, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		k[i].val[0] = '\0';
		if (!ksm_read(k[i].name, k[i].val, sizeof(k[i].val)))
			ksm_knob_value(k[i].val);
	}
}

/* Write back, in order, each of the n knobs that was saved; say which fail. */
static inline void ksm_knobs_restore(const struct ksm_knob *k, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (k[i].val[0] && ksm_write(k[i].name, k[i].val))
			printf("# cannot restore %s=%s\n", k[i].name, k[i].val);
}

/* Seconds on CLOCK_MONOTONIC. */
static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Sleep for ms milliseconds. */
static inline void msleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Wait up to @secs for full_scans to move on by @n; whether it did. */
static inline bool ksm_wait_full_scans(long n, double secs)
{
	long want = ksm_get("full_scans") + n;
	double deadline = now() + secs;

	while (ksm_get("full_scans") < want && now() < deadline)
		msleep(50);
	return ksm_get("full_scans") >= want;
}

/* Fill a page of @psize bytes with pseudo-random words from @seed. */
static inline void ksm_fill_page(char *p, size_t psize, long seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
	size_t i;

	for (i = 0; i < psize / 8; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		((uint64_t *)p)[i] = x;
	}
}

/*
 * Start a test of @plan results: the TAP header, and a skip unless the KSM
 * knobs can be written.
 */
static inline void ksm_test_begin(unsigned int plan)
{
	ksft_print_header();
	ksft_set_plan(plan);
	if (access(KSM_SYSFS "run", W_OK))
		ksft_exit_skip("KSM sysfs not writable\n");
}

/* @len bytes of private anonymous memory without huge pages, or fail. */
static inline char *ksm_map_anon(size_t len)
{
	char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	madvise(mem, len, MADV_NOHUGEPAGE);
	return mem;
}

/*
 * A mergeable mapping of @n pages of @psize bytes, page p filled from
 * @seed, or from @seed + p when @distinct.
 */
static inline char *ksm_map_filled(long n, size_t psize, long seed,
				   bool distinct)
{
	char *mem = ksm_map_anon(n * psize);
	long p;

	for (p = 0; p < n; p++)
		ksm_fill_page(mem + p * psize, psize, distinct ? seed + p : seed);
	if (madvise(mem, n * psize, MADV_MERGEABLE))
		ksft_exit_fail_msg("MADV_MERGEABLE: %s\n", strerror(errno));
	return mem;
}

/* Pages of the @n at @mem that differ from what ksm_map_filled() wrote. */
static inline long ksm_bad_pages(const char *mem, long n, size_t psize,
				 long seed, bool distinct)
{
	char *want = malloc(psize);
	long p, bad = 0;

	if (!want)
		ksft_exit_fail_msg("malloc failed\n");
	ksm_fill_page(want, psize, seed);
	for (p = 0; p < n; p++) {
		if (distinct)
			ksm_fill_page(want, psize, seed + p);
		bad += memcmp(mem + p * psize, want, psize) != 0;
	}
	free(want);
	return bad;
}

/* The knobs ksm_distill_begin() saves, in the order they are put back. */
static inline struct ksm_knob *ksm_distill_knobs(void)
{
	static struct ksm_knob k[] = { { .name = "scanner" }, { .name = "run" } };

	return k;
}

/* Put back what ksm_distill_begin() saved. */
static inline void ksm_distill_restore(void)
{
	ksm_knobs_restore(ksm_distill_knobs(), 2);
}

/*
 * Save scanner and run, unmerge everything and run the distill scanner with
 * its other knobs as they are; fail if the knobs cannot be written.
 */
static inline void ksm_distill_begin(void)
{
	ksm_knobs_save(ksm_distill_knobs(), 2);
	if (ksm_set("run", 2) || ksm_write("scanner", "distill") ||
	    ksm_set("run", 1)) {
		ksm_distill_restore();
		ksft_exit_fail_msg("cannot set the knobs\n");
	}
}

/* A child's reply @v to the parent on @rep; the child dies if it cannot. */
static inline void ksm_reply(int rep, long v)
{
	if (write(rep, &v, sizeof(v)) != sizeof(v))
		_exit(1);
}

/* A child of the test, pid 0 when there is none. */
struct ksm_child {
	pid_t pid;
	int cmd;	/* parent -> child: commands */
	int rep;	/* child -> parent: replies */
};

/*
 * Fork ch[k] of ch[0..n-1] to run fn(k, cmd, rep), which must not return;
 * it gets none of the other children's pipes and dies with the parent.
 */
static inline void ksm_spawn(struct ksm_child *ch, int n, int k,
			     void (*fn)(int k, int cmd, int rep))
{
	pid_t parent = getpid();
	int cmd[2], rep[2], i;

	if (pipe2(cmd, O_CLOEXEC) || pipe2(rep, O_CLOEXEC))
		ksft_exit_fail_msg("pipe: %s\n", strerror(errno));
	fflush(stdout);
	ch[k].pid = fork();
	if (ch[k].pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (!ch[k].pid) {
		for (i = 0; i < n; i++)
			if (i != k && ch[i].pid > 0) {
				close(ch[i].cmd);
				close(ch[i].rep);
			}
		close(cmd[1]);
		close(rep[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		fn(k, cmd[0], rep[1]);
		_exit(1);
	}
	close(cmd[0]);
	close(rep[1]);
	ch[k].cmd = cmd[1];
	ch[k].rep = rep[0];
}

/* The child's next reply (len bytes); fails the test if not there in 60 s. */
static inline void ksm_get_reply(const struct ksm_child *c, const char *name,
				 void *r, size_t len)
{
	struct pollfd pfd = { .fd = c->rep, .events = POLLIN };

	if (poll(&pfd, 1, 60000) != 1 || read(c->rep, r, len) != (ssize_t)len)
		ksft_exit_fail_msg("child %s (pid %d) did not answer\n",
				   name, c->pid);
}

/* SIGKILL and reap each of ch[0..n-1] that is still there. */
static inline void ksm_kill_children(struct ksm_child *ch, int n)
{
	int k;

	for (k = 0; k < n; k++) {
		if (ch[k].pid <= 0)
			continue;
		kill(ch[k].pid, SIGKILL);
		waitpid(ch[k].pid, NULL, 0);
		ch[k].pid = 0;
	}
}

#endif
