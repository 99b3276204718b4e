// SPDX-License-Identifier: GPL-2.0
/*
 * cow-broken (UKSM paper section 8.1.2): a region of identical pages
 * (64 MiB unless --size-mb says otherwise); every 10 ms one page is
 * rewritten with the same content, sweeping the region. Counts the writes
 * that landed on merged pages (pagemap: present, not mapped exclusively).
 *
 *   cow-broken [--size-mb 64] [--seconds 60] [--param interval_ms (10)]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wl.h"

#define SEED		11

static int pagemap_fd;

/*
 * Whether the page at addr is merged: present and not mapped exclusively
 * (pagemap bit 56). Nothing else shares these pages (no fork), so a shared
 * page is a KSM page. KPF_KSM cannot be used: in 6.12 stable_page_flags()
 * tests mapping & PAGE_MAPPING_KSM, which is true for every anonymous page.
 */
static int is_merged(const void *addr)
{
	uint64_t pme;

	if (pread(pagemap_fd, &pme, 8, ((uintptr_t)addr / wl_psize) * 8) != 8)
		return 0;
	return (pme >> 63) & 1 && !((pme >> 56) & 1);
}

int main(int argc, char **argv)
{
	static const struct wl_opts defaults = { .size_mb = 64, .seconds = 60, .param = 10 };
	long writes = 0, on_ksm = 0, bad = 0;
	struct wl_opts o;
	size_t npages, p;
	double end;
	char *mem;

	wl_init("cow-broken", argc, argv, &o, &defaults);
	if (o.param < 1)
		wl_die("--param (interval in ms) must be at least 1");
	npages = o.size_mb * (1 << 20) / wl_psize;
	pagemap_fd = open("/proc/self/pagemap", O_RDONLY);
	if (pagemap_fd < 0)
		wl_die("pagemap: %s (needs PROC_PAGE_MONITOR)", strerror(errno));
	mem = wl_map(npages, o.thp, false);
	for (p = 0; p < npages; p++)
		wl_fill(mem + p * wl_psize, SEED);
	if (!o.no_merge && madvise(mem, npages * wl_psize, MADV_MERGEABLE))
		wl_die("MADV_MERGEABLE: %s", strerror(errno));
	wl_report("ready", "oracle_pages=%ld mapped_pages=%zu pids=%d",
		  wl_oracle(npages), npages, getpid());
	end = wl_now() + o.seconds;
	for (p = 0; wl_now() < end; p = (p + 1) % npages) {
		char *page = mem + p * wl_psize;

		on_ksm += is_merged(page);
		/* Same content, written: a write fault breaks COW on a KSM page. */
		((volatile uint64_t *)page)[0] = wl_word(SEED, 0);
		writes++;
		wl_sleep(o.param / 1000.0);
	}
	for (p = 0; p < npages; p++)
		bad += wl_check(mem + p * wl_psize, SEED) != 0;
	if (bad)
		wl_die("%ld pages changed", bad);
	wl_report("result", "content_ok=1 writes=%ld writes_on_ksm=%ld", writes, on_ksm);
	return 0;
}
