// SPDX-License-Identifier: GPL-2.0
/*
 * A page something else holds a reference to is not merged, and its
 * contents stay what that holder sees: map identical pages, hand every
 * other one to a pipe with vmsplice() (the pipe keeps a reference to each
 * page, as O_DIRECT or a pinned buffer would), and let KSM scan. KSM's
 * check of a page's count against its mapcount, after the pte is cleared,
 * must refuse the held pages in every mode (under the engine's modes it is
 * in write_protect_and_replace()), while the others merge; the pipe must
 * then deliver the pages' contents unchanged. Once the pipe is drained,
 * the pages it held merge too. Every byte is checked.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "kselftest.h"
#include "ksm_util.h"

#define NPAGES	256
#define SEED	4242

static size_t psize;

static long merging(void)
{
	return ksm_stat_get(getpid(), "ksm_merging_pages");
}

/* Wait for @n full scans (coverages under the distilling scanner). */
static bool wait_full_scans(long n)
{
	long full = ksm_get("full_scans");
	double t = now();

	while (ksm_get("full_scans") < full + n)
		if (now() - t > 300)
			return false;
		else
			msleep(20);
	return true;
}

/* Pages of @mem that differ from @want. */
static long bad_pages(const char *mem, const char *want)
{
	long bad = 0;
	int p;

	for (p = 0; p < NPAGES; p++)
		bad += memcmp(mem + p * psize, want, psize) != 0;
	return bad;
}

int main(void)
{
	struct iovec iov[NPAGES / 2];
	char *mem, *want, *buf;
	long got, bad = 0;
	int fds[2], p, n;
	ssize_t r;
	double t;

	ksm_test_begin(4);
	psize = getpagesize();
	mem = ksm_map_anon(NPAGES * psize);
	want = malloc(psize);
	buf = malloc(psize);
	if (!want || !buf)
		ksft_exit_fail_msg("malloc failed\n");
	ksm_fill_page(want, psize, SEED);
	for (p = 0; p < NPAGES; p++)
		memcpy(mem + p * psize, want, psize);

	/* The pipe holds a reference to every odd page. */
	if (pipe(fds))
		ksft_exit_fail_msg("pipe: %s\n", strerror(errno));
	if (fcntl(fds[1], F_SETPIPE_SZ, NPAGES / 2 * psize) < 0)
		ksft_exit_fail_msg("F_SETPIPE_SZ: %s\n", strerror(errno));
	for (n = 0, p = 1; p < NPAGES; p += 2, n++) {
		iov[n].iov_base = mem + p * psize;
		iov[n].iov_len = psize;
	}
	r = vmsplice(fds[1], iov, n, 0);
	if (r != (ssize_t)(n * psize))
		ksft_exit_fail_msg("vmsplice: %zd of %zu bytes: %s\n", r,
				   n * psize, strerror(errno));

	if (madvise(mem, NPAGES * psize, MADV_MERGEABLE))
		ksft_exit_fail_msg("MADV_MERGEABLE: %s\n", strerror(errno));
	ksm_set("run", 1);
	t = now();
	while ((got = merging()) < NPAGES / 2 && now() - t < 300)
		msleep(50);
	/* Two more full scans: every held page was looked at since. */
	if (!wait_full_scans(2))
		ksft_exit_fail_msg("full_scans did not move in 300 s\n");
	got = merging();
	ksft_test_result(got == NPAGES / 2,
			 "only the %d pages nothing else holds merge (%ld merging)\n",
			 NPAGES / 2, got);

	/* The pipe delivers what the held pages held. */
	for (p = 0; p < n; p++) {
		r = read(fds[0], buf, psize);
		if (r != (ssize_t)psize)
			ksft_exit_fail_msg("pipe read: %zd: %s\n", r,
					   strerror(errno));
		bad += memcmp(buf, want, psize) != 0;
	}
	ksft_test_result(bad == 0, "the pipe read every held page intact (%ld bad)\n",
			 bad);
	close(fds[0]);
	close(fds[1]);

	/* Held no more: they merge too. */
	t = now();
	while ((got = merging()) < NPAGES && now() - t < 300)
		msleep(50);
	ksft_test_result(got == NPAGES,
			 "all %d pages merge once the pipe let go (%ld merging)\n",
			 NPAGES, got);

	bad = bad_pages(mem, want);
	ksft_test_result(bad == 0, "contents intact (%ld bad pages)\n", bad);
	ksm_set("run", 2);
	ksft_finished();
}
