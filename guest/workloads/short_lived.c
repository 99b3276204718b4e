// SPDX-License-Identifier: GPL-2.0
/*
 * short-lived (UKSM paper section 8.1.3): loop of mmap 16 MiB (--size-mb)
 * of identical pages, sleep T, verify, munmap, sleep T; T is --param in ms
 * (default 500). Reports the cycles done; an engine that merges such
 * memory before it goes away saves something, one that does not only
 * spends CPU.
 *
 *   short-lived [--size-mb 16] [--seconds 60] [--param T_ms (500)]
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wl.h"

#define SEED	13

int main(int argc, char **argv)
{
	static const struct wl_opts defaults = { .size_mb = 16, .seconds = 60, .param = 500 };
	struct wl_opts o;
	long cycles = 0;
	size_t npages, p;
	double end;

	wl_init("short-lived", argc, argv, &o, &defaults);
	if (o.param < 1)
		wl_die("--param (T in ms) must be at least 1");
	npages = o.size_mb * (1 << 20) / wl_psize;
	/* unmaps=1: KSM's counters lag the munmap until ksmd's next visit */
	wl_report("ready", "oracle_pages=%ld mapped_pages=%zu pids=%d unmaps=1",
		  wl_oracle(npages), npages, getpid());
	end = wl_now() + o.seconds;
	while (wl_now() < end) {
		char *mem = wl_map(npages, o.thp, false);

		for (p = 0; p < npages; p++)
			wl_fill(mem + p * wl_psize, SEED);
		if (!o.no_merge && madvise(mem, npages * wl_psize, MADV_MERGEABLE))
			wl_die("MADV_MERGEABLE: %s", strerror(errno));
		wl_sleep(o.param / 1000.0);
		for (p = 0; p < npages; p++)
			if (wl_check(mem + p * wl_psize, SEED))
				wl_die("cycle %ld: page %zu changed", cycles, p);
		munmap(mem, npages * wl_psize);
		cycles++;
		wl_sleep(o.param / 1000.0);
	}
	wl_report("result", "content_ok=1 cycles=%ld", cycles);
	return 0;
}
