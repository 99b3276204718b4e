/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared code of the guest workloads: options, page contents that are never
 * zero, exact oracles and the machine-readable report lines.
 *
 * Report lines (read by the bench and the test harness), one per event:
 *   @@WL ready  name=<workload> oracle_pages=<n> mapped_pages=<n> pids=<a,b>
 *   @@WL result name=<workload> content_ok=<0|1> key=value...
 */
#ifndef GUEST_WL_H
#define GUEST_WL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/types.h>

struct wl_opts {
	long size_mb;		/* each process's region, MiB */
	double seconds;		/* run time for workloads that loop */
	int procs;		/* processes, where the workload has several */
	long param;		/* workload-specific (--param) */
	bool thp;		/* back regions with THP (MADV_HUGEPAGE) */
	bool no_merge;		/* do not madvise MERGEABLE (engine "none" baseline) */
};

extern size_t wl_psize;
extern const char *wl_name;

void wl_init(const char *name, int argc, char **argv, struct wl_opts *o,
	     const struct wl_opts *defaults);
void *wl_map(size_t pages, bool thp, bool mergeable);

/* Page contents: seed -> one page of non-zero words. */
uint64_t wl_word(uint64_t seed, size_t i);
void wl_fill(void *page, uint64_t seed);
/* Number of words in the page that differ from wl_fill(seed). */
size_t wl_check(const void *page, uint64_t seed);

/* pages_sharing that `copies` identical pages give, with chains. */
long wl_oracle(long copies);
long wl_chain_saving(long copies, long max_page_sharing);
/* Wait for every child; returns how many failed (non-zero exit, signal). */
int wl_wait_all(const pid_t *pids, int n);
long wl_max_page_sharing(void);

/*
 * Start line for multi-process workloads: wl_gate_open() before forking;
 * each child calls wl_gate_ready() once its memory is set up, which blocks
 * until the parent, having seen all of them ready (wl_gate_wait_ready()),
 * calls wl_gate_go(). So every process's window starts at "ready".
 */
void wl_gate_open(void);
void wl_gate_ready(void);
void wl_gate_wait_ready(int nprocs);
void wl_gate_go(void);

void wl_report(const char *what, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
double wl_now(void);
void wl_sleep(double secs);
/* Fail the run with a message (exit status 1). */
void wl_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
