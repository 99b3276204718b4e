// SPDX-License-Identifier: GPL-2.0
/*
 * churn: reliability under VMA churn. Several processes fill mergeable
 * memory with partly duplicate content and, while the engine scans, fork,
 * write, munmap and remap, mprotect, mremap away and back, and toggle
 * MADV_UNMERGEABLE on parts of it, checking every byte against their model
 * after every operation. Any wrong byte fails the run.
 *
 *   churn [--size-mb 8] [--procs 3] [--seconds 20]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wl.h"

#define CHUNK	16	/* pages an operation works on */
#define NDUP	16	/* distinct duplicate contents */

static char *mem;
static uint64_t *seed;	/* model: the seed of every page's content */
static size_t npages;
static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint64_t new_seed(int proc, size_t page)
{
	/* Three in four pages take one of NDUP shared contents. */
	if (rnd() % 4)
		return 1 + rnd() % NDUP;
	return 1000 + ((uint64_t)proc << 40) + (page << 8) + (rnd() & 0xff);
}

static void verify(const char *after, char *base)
{
	size_t p, bad;

	for (p = 0; p < npages; p++) {
		bad = wl_check(base + p * wl_psize, seed[p]);
		if (bad)
			wl_die("after %s: page %zu has %zu wrong words", after, p, bad);
	}
}

static void setup_chunk(char *at, size_t first, size_t n, bool mergeable)
{
	size_t p;

	madvise(at, n * wl_psize, MADV_NOHUGEPAGE);
	if (mergeable && madvise(at, n * wl_psize, MADV_MERGEABLE))
		wl_die("MADV_MERGEABLE: %s", strerror(errno));
	for (p = 0; p < n; p++)
		wl_fill(at + p * wl_psize, seed[first + p]);
}

static void run(int proc, double seconds, bool mergeable)
{
	long ops[7] = { 0 };
	double end = wl_now() + seconds;
	size_t p;

	rng = 0x2545f4914f6cdd1dull * (proc + 1);
	for (p = 0; p < npages; p++)
		seed[p] = new_seed(proc, p);
	mem = wl_map(npages, false, mergeable);
	setup_chunk(mem, 0, npages, false);

	while (wl_now() < end) {
		size_t first = (rnd() % (npages / CHUNK)) * CHUNK;
		char *chunk = mem + first * wl_psize;
		size_t len = CHUNK * wl_psize;
		int op = rnd() % 7;
		pid_t pid;
		int status;
		void *tmp;

		switch (op) {
		case 0:	/* rewrite some pages */
			for (p = first; p < first + CHUNK; p += 1 + rnd() % 4) {
				seed[p] = new_seed(proc, p);
				wl_fill(mem + p * wl_psize, seed[p]);
			}
			verify("write", mem);
			break;
		case 1:	/* fork: the child checks, writes its copies, exits */
			pid = fork();
			if (pid < 0)
				wl_die("fork: %s", strerror(errno));
			if (!pid) {
				verify("fork (child)", mem);
				for (p = first; p < first + CHUNK; p++) {
					seed[p] = new_seed(proc, p);
					wl_fill(mem + p * wl_psize, seed[p]);
				}
				verify("write in child", mem);
				_exit(0);
			}
			if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
			    WEXITSTATUS(status))
				wl_die("forked child failed (status %#x)", status);
			verify("fork (parent)", mem);
			break;
		case 2:	/* munmap and map again */
			if (munmap(chunk, len))
				wl_die("munmap: %s", strerror(errno));
			if (mmap(chunk, len, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != chunk)
				wl_die("mmap fixed: %s", strerror(errno));
			for (p = first; p < first + CHUNK; p++)
				seed[p] = new_seed(proc, p);
			setup_chunk(chunk, first, CHUNK, mergeable);
			verify("munmap+mmap", mem);
			break;
		case 3:	/* read-only for a while */
			if (mprotect(chunk, len, PROT_READ))
				wl_die("mprotect: %s", strerror(errno));
			wl_sleep(0.01);
			verify("mprotect(READ)", mem);
			if (mprotect(chunk, len, PROT_READ | PROT_WRITE))
				wl_die("mprotect: %s", strerror(errno));
			break;
		case 4:	/* mremap away and back */
			tmp = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (tmp == MAP_FAILED)
				wl_die("mmap: %s", strerror(errno));
			if (mremap(chunk, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, tmp) != tmp)
				wl_die("mremap away: %s", strerror(errno));
			for (p = 0; p < CHUNK; p++)
				if (wl_check((char *)tmp + p * wl_psize, seed[first + p]))
					wl_die("after mremap: moved page %zu differs", first + p);
			wl_sleep(0.01);
			if (mremap(tmp, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, chunk) != chunk)
				wl_die("mremap back: %s", strerror(errno));
			verify("mremap back", mem);
			break;
		case 5:	/* unmerge a part, then make it mergeable again */
			if (mergeable && madvise(chunk, len, MADV_UNMERGEABLE))
				wl_die("MADV_UNMERGEABLE: %s", strerror(errno));
			verify("MADV_UNMERGEABLE", mem);
			if (mergeable && madvise(chunk, len, MADV_MERGEABLE))
				wl_die("MADV_MERGEABLE: %s", strerror(errno));
			break;
		default: /* let the engine scan */
			wl_sleep(0.02);
			verify("sleep", mem);
			break;
		}
		ops[op]++;
	}
	verify("the end", mem);
	wl_report("result", "proc=%d content_ok=1 writes=%ld forks=%ld remaps=%ld mprotects=%ld mremaps=%ld unmerges=%ld sleeps=%ld",
		  proc, ops[0], ops[1], ops[2], ops[3], ops[4], ops[5], ops[6]);
	exit(0);
}

int main(int argc, char **argv)
{
	static const struct wl_opts defaults = { .size_mb = 8, .seconds = 20, .procs = 3 };
	struct wl_opts o;
	int i, failed = 0;
	pid_t pids[64];

	wl_init("churn", argc, argv, &o, &defaults);
	npages = o.size_mb * (1 << 20) / wl_psize;
	npages -= npages % CHUNK;
	if (npages < CHUNK)
		wl_die("--size-mb too small");
	seed = calloc(npages, sizeof(*seed));
	if (!seed)
		wl_die("out of memory");
	for (i = 0; i < o.procs; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			wl_die("fork: %s", strerror(errno));
		if (!pids[i])
			run(i, o.seconds, !o.no_merge);
	}
	/* No oracle and no pids: the contents change all the time and the
	 * regions are split into small VMAs, so neither an exact saving nor
	 * a pagemap count means anything here; churn is about correctness.
	 */
	wl_report("ready", "procs=%d pages_per_proc=%zu", o.procs, npages);
	failed = wl_wait_all(pids, o.procs) != 0;
	wl_report("result", "content_ok=%d", !failed);
	return failed;
}
