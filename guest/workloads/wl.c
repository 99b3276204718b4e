// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "wl.h"

size_t wl_psize;
const char *wl_name;

static void usage(int status)
{
	fprintf(stderr,
		"usage: %s [--size-mb N] [--seconds S] [--procs N] [--param N] [--thp] [--no-merge]\n"
		"  SIZE_MB in the environment sets the default --size-mb\n", wl_name);
	exit(status);
}

static long parse_long(const char *opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "%s: --%s wants a whole number from %ld to %ld, not '%s'\n",
			wl_name, opt, min, max, s);
		exit(2);
	}
	return v;
}

void wl_init(const char *name, int argc, char **argv, struct wl_opts *o,
	     const struct wl_opts *defaults)
{
	static const struct option longopts[] = {
		{ "size-mb", required_argument, NULL, 's' },
		{ "seconds", required_argument, NULL, 't' },
		{ "procs", required_argument, NULL, 'p' },
		{ "param", required_argument, NULL, 'x' },
		{ "thp", no_argument, NULL, 'H' },
		{ "no-merge", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *env = getenv("SIZE_MB");
	int c;

	wl_name = name;
	wl_psize = getpagesize();
	*o = *defaults;
	if (env && *env)
		o->size_mb = parse_long("size-mb (SIZE_MB)", env, 1, 1 << 20);
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 's': o->size_mb = parse_long("size-mb", optarg, 1, 1 << 20); break;
		case 't': o->seconds = parse_long("seconds", optarg, 1, 86400); break;
		case 'p': o->procs = parse_long("procs", optarg, 1, 64); break;
		case 'x': o->param = parse_long("param", optarg, 0, 1L << 40); break;
		case 'H': o->thp = true; break;
		case 'n': o->no_merge = true; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind != argc)
		usage(2);
	setvbuf(stdout, NULL, _IOLBF, 0);
}

void *wl_map(size_t pages, bool thp, bool mergeable)
{
	size_t len = pages * wl_psize;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		wl_die("mmap %zu pages: %s", pages, strerror(errno));
	if (madvise(p, len, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE))
		wl_die("madvise(%s): %s", thp ? "HUGEPAGE" : "NOHUGEPAGE", strerror(errno));
	if (mergeable && madvise(p, len, MADV_MERGEABLE))
		wl_die("madvise(MERGEABLE): %s", strerror(errno));
	return p;
}

uint64_t wl_word(uint64_t seed, size_t i)
{
	/* splitmix64 of (seed, i); | 1 keeps every word non-zero. */
	uint64_t z = seed * 0x9e3779b97f4a7c15ull + i * 0xbf58476d1ce4e5b9ull + 1;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (z ^ (z >> 31)) | 1;
}

void wl_fill(void *page, uint64_t seed)
{
	uint64_t *w = page;
	size_t i;

	for (i = 0; i < wl_psize / 8; i++)
		w[i] = wl_word(seed, i);
}

size_t wl_check(const void *page, uint64_t seed)
{
	const uint64_t *w = page;
	size_t i, bad = 0;

	for (i = 0; i < wl_psize / 8; i++)
		bad += w[i] != wl_word(seed, i);
	return bad;
}

long wl_max_page_sharing(void)
{
	FILE *f = fopen("/sys/kernel/mm/ksm/max_page_sharing", "r");
	long v = 256;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = 256;
		fclose(f);
	}
	return v;
}

long wl_chain_saving(long copies, long max_page_sharing)
{
	if (copies < 2)
		return 0;
	return copies - (copies + max_page_sharing - 1) / max_page_sharing;
}

long wl_oracle(long copies)
{
	return wl_chain_saving(copies, wl_max_page_sharing());
}

int wl_wait_all(const pid_t *pids, int n)
{
	int i, status, failed = 0;

	for (i = 0; i < n; i++)
		if (waitpid(pids[i], &status, 0) != pids[i] || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			printf("%s: process %d failed (status %#x)\n", wl_name, i, status);
			failed++;
		}
	return failed;
}

void wl_report(const char *what, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	printf("@@WL %s name=%s %s\n", what, wl_name, buf);
	fflush(stdout);
}

double wl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void wl_sleep(double secs)
{
	struct timespec ts = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

void wl_die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stdout, "%s: FAIL: ", wl_name);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fprintf(stdout, "\n");
	fflush(stdout);
	exit(1);
}

static int gate_ready[2], gate_go[2];

void wl_gate_open(void)
{
	if (pipe(gate_ready) || pipe(gate_go))
		wl_die("pipe: %s", strerror(errno));
}

void wl_gate_ready(void)
{
	char c;

	close(gate_ready[0]);
	close(gate_go[1]);
	if (write(gate_ready[1], "r", 1) != 1)
		wl_die("ready pipe: %s", strerror(errno));
	if (read(gate_go[0], &c, 1) < 0)
		wl_die("go pipe: %s", strerror(errno));
}

void wl_gate_wait_ready(int nprocs)
{
	char c;
	int i;

	close(gate_ready[1]);
	close(gate_go[0]);
	for (i = 0; i < nprocs; i++)
		if (read(gate_ready[0], &c, 1) != 1)
			wl_die("a process died before it was ready");
}

void wl_gate_go(void)
{
	close(gate_go[1]);	/* EOF wakes every child */
}
