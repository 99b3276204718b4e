// SPDX-License-Identifier: GPL-2.0
/*
 * static-mix (UKSM paper section 8.1.1): one process of SIZE_MB identical
 * pages and one of SIZE_MB random pages.
 * sparse (built with -DWL_SPARSE): two processes of random pages only, the
 * scan-speed case: nothing to merge. With WL_NEAR=1 (sparse-near) every
 * page is the same but for one 32-bit word in its second half, at a place
 * of its own (near_slot()), holding a number of its own: still nothing to
 * merge, but a partial hash that does not read a page's word cannot tell
 * it from the others it does not read either. The hash reads the words in
 * an order drawn at boot, so a word at one place for all pages (the last,
 * say) is read early in some boots and late in others; spread over the
 * second half, about 1 - s / 1024 of the pages collide at a strength of s
 * words in every boot.
 *
 * Both hold their memory for --seconds after reporting ready, then verify
 * every byte. They join KSM in a fixed order, so that every run makes the
 * scanner meet the same layout: the identical process first, or with
 * WL_FIRST=random the random one (its pages then lie before the duplicates
 * in the scan order, which costs stock KSM most). Left to the race between
 * the two, runs of one engine would fall into a fast and a slow group by
 * which process madvised first.
 *
 *   static-mix [--size-mb 256] [--seconds 60] [--no-merge]
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wl.h"

#ifdef WL_SPARSE
#define IS_SPARSE	1
#define NAME		"sparse"
#define IDENTICAL(proc)	false
#else
#define IS_SPARSE	0
#define NAME		"static-mix"
#define IDENTICAL(proc)	((proc) == 0)
#endif

static uint64_t page_seed(int proc, size_t page)
{
	return IDENTICAL(proc) ? 7 : ((uint64_t)(proc + 1) << 32) + page + 100;
}

/* WL_NEAR=1: pages differ in one 32-bit word of their second half only. */
static int near;

/* The process that joins KSM first; the other waits on join_pipe for it. */
static int first_proc;
static int join_pipe[2];

/* The 64-bit word of page @page that holds its own 32-bit word. */
static size_t near_slot(int proc, size_t page)
{
	uint64_t h = (page * 2 + proc + 1) * 0x9e3779b97f4a7c15ull;
	size_t half = wl_psize / 16;

	return half + (h >> 32) % half;
}

/*
 * Its value: the filled word with its low 32-bit half (the first in
 * memory) made another, non-zero and unique to the page (pages number
 * at most 2^28 a process), the high half left as filled.
 */
static uint64_t near_word(int proc, size_t page)
{
	size_t i = near_slot(proc, page);

	return wl_word(11, i) ^ (((uint64_t)proc << 30) + page + 1);
}

static void fill(char *page, int proc, size_t p)
{
	if (!near) {
		wl_fill(page, page_seed(proc, p));
		return;
	}
	wl_fill(page, 11);
	((uint64_t *)page)[near_slot(proc, p)] = near_word(proc, p);
}

static size_t check(const char *page, int proc, size_t p)
{
	const uint64_t *own;
	size_t i;

	if (!near)
		return wl_check(page, page_seed(proc, p));
	i = near_slot(proc, p);
	own = (const uint64_t *)page + i;
	/* Every word as filled but its own, and that one its own value. */
	return wl_check(page, 11) - (*own != wl_word(11, i)) +
	       (*own != near_word(proc, p));
}

static void holder(int proc, size_t npages, const struct wl_opts *o)
{
	char *mem = wl_map(npages, o->thp, false);
	size_t p, bad = 0;
	char c = 'j';

	for (p = 0; p < npages; p++)
		fill(mem + p * wl_psize, proc, p);
	if (proc != first_proc) {
		close(join_pipe[1]);
		if (read(join_pipe[0], &c, 1) != 1)
			wl_die("process %d: the first process never joined", proc);
	}
	if (!o->no_merge && madvise(mem, npages * wl_psize, MADV_MERGEABLE))
		wl_die("MADV_MERGEABLE: %s", strerror(errno));
	if (proc == first_proc) {
		close(join_pipe[0]);
		if (write(join_pipe[1], &c, 1) != 1)
			wl_die("join pipe: %s", strerror(errno));
	}
	wl_gate_ready();
	wl_sleep(o->seconds);
	for (p = 0; p < npages; p++)
		bad += check(mem + p * wl_psize, proc, p) != 0;
	if (bad)
		wl_die("process %d: %zu pages changed", proc, bad);
	exit(0);
}

int main(int argc, char **argv)
{
	static const struct wl_opts defaults = { .size_mb = 256, .seconds = 60, .procs = 2 };
	struct wl_opts o;
	size_t npages;
	int i, failed = 0;
	pid_t pids[2];

	wl_init(NAME, argc, argv, &o, &defaults);
	if (getenv("WL_NEAR")) {
		if (!IS_SPARSE || strcmp(getenv("WL_NEAR"), "1"))
			wl_die("WL_NEAR=1 is for sparse only");
		near = 1;
	}
	if (getenv("WL_FIRST")) {
		if (IS_SPARSE || strcmp(getenv("WL_FIRST"), "random"))
			wl_die("WL_FIRST=random is for static-mix only");
		first_proc = 1;
	}
	npages = o.size_mb * (1 << 20) / wl_psize;
	wl_gate_open();
	if (pipe(join_pipe))
		wl_die("pipe: %s", strerror(errno));
	for (i = 0; i < 2; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			wl_die("fork: %s", strerror(errno));
		if (!pids[i])
			holder(i, npages, &o);
	}
	close(join_pipe[0]);
	close(join_pipe[1]);
	wl_gate_wait_ready(2);
	wl_report("ready", "oracle_pages=%ld mapped_pages=%zu pids=%d,%d",
		  IDENTICAL(0) ? wl_oracle(npages) : 0, 2 * npages, pids[0], pids[1]);
	wl_gate_go();
	failed = wl_wait_all(pids, 2) != 0;
	wl_report("result", "content_ok=%d", !failed);
	return failed;
}
