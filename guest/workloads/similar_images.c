// SPDX-License-Identifier: GPL-2.0
/*
 * similar-images: the "many VMs of one OS" case. Several processes load the
 * same real files (the guest's own binaries: /bin/busybox and every file in /opt/ksm/bin)
 * into SIZE_MB of anonymous memory each, cycling through them, then each
 * privately rewrites --param percent of its pages (default 10).
 *
 * The oracle is exact: every process sends a 128-bit hash of each of its
 * pages to the parent, which groups equal pages and sums
 * copies - ceil(copies / max_page_sharing) over the groups.
 *
 *   similar-images [--size-mb 64] [--procs 4] [--seconds 60] [--param pct]
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wl.h"

struct hash {
	uint64_t a, b;
};

static char *files[256];
static int nfiles;

static void list_files(void)
{
	DIR *d = opendir("/opt/ksm/bin");
	struct dirent *e;

	files[nfiles++] = strdup("/bin/busybox");
	while (d && (e = readdir(d)) && nfiles < 256) {
		char path[512];

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/opt/ksm/bin/%s", e->d_name);
		files[nfiles++] = strdup(path);
	}
	if (d)
		closedir(d);
	/* A fixed order, the same in every process. */
	qsort(files + 1, nfiles - 1, sizeof(char *),
	      (int (*)(const void *, const void *))strcmp);
}

/* The image: the files concatenated, cycled until len bytes. */
static void load_image(char *dst, size_t len)
{
	size_t off = 0;
	int i = 0, empty = 0;

	while (off < len) {
		int fd = open(files[i], O_RDONLY);
		ssize_t n = 0;

		if (fd >= 0) {
			while (off < len && (n = read(fd, dst + off, len - off)) > 0)
				off += n;
			close(fd);
		}
		i = (i + 1) % nfiles;
		if (i == 0 && ++empty > 1000)
			wl_die("cannot read the image files");
	}
}

static int rewritten(int proc, size_t page, long pct)
{
	return wl_word(proc * 7919 + 17, page) % 100 < (uint64_t)pct;
}

static uint64_t rewrite_seed(int proc, size_t page)
{
	return ((uint64_t)(proc + 1) << 40) + page;
}

static struct hash page_hash(const void *page)
{
	const uint64_t *w = page;
	struct hash h = { 0x243f6a8885a308d3ull, 0x13198a2e03707344ull };
	size_t i;

	for (i = 0; i < wl_psize / 8; i++) {
		h.a = (h.a ^ w[i]) * 0x100000001b3ull;
		h.b = (h.b + w[i] * 0x9e3779b97f4a7c15ull) ^ (h.b >> 29);
	}
	return h;
}

static int cmp_hash(const void *x, const void *y)
{
	const struct hash *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return (p->b > q->b) - (p->b < q->b);
}

static void instance(int proc, size_t npages, const struct wl_opts *o, int hash_fd)
{
	char *mem = wl_map(npages, o->thp, false), *ref = malloc(wl_psize);
	size_t len = npages * wl_psize, p;
	struct hash h;

	load_image(mem, len);
	for (p = 0; p < npages; p++)
		if (rewritten(proc, p, o->param))
			wl_fill(mem + p * wl_psize, rewrite_seed(proc, p));
	for (p = 0; p < npages; p++) {
		h = page_hash(mem + p * wl_psize);
		if (write(hash_fd, &h, sizeof(h)) != sizeof(h))
			wl_die("hash pipe: %s", strerror(errno));
	}
	close(hash_fd);
	if (!o->no_merge && madvise(mem, len, MADV_MERGEABLE))
		wl_die("MADV_MERGEABLE: %s", strerror(errno));
	wl_gate_ready();
	wl_sleep(o->seconds);
	/* Verify: reload the image page by page and compare. */
	{
		char *img = wl_map(npages, false, false);

		load_image(img, len);
		for (p = 0; p < npages; p++) {
			char *want = img + p * wl_psize;

			if (rewritten(proc, p, o->param)) {
				wl_fill(ref, rewrite_seed(proc, p));
				want = ref;
			}
			if (memcmp(mem + p * wl_psize, want, wl_psize))
				wl_die("process %d: page %zu changed", proc, p);
		}
	}
	exit(0);
}

int main(int argc, char **argv)
{
	static const struct wl_opts defaults = { .size_mb = 64, .seconds = 60, .procs = 4,
						 .param = 10 };
	struct wl_opts o;
	size_t npages, total, i, got;
	struct hash *all;
	long oracle = 0, mps;
	int fds[64][2], k, failed = 0;
	pid_t pids[64];
	char pidlist[64 * 12] = "";

	wl_init("similar-images", argc, argv, &o, &defaults);
	if (o.param > 100)
		wl_die("--param is a percentage (0 to 100)");
	list_files();
	npages = o.size_mb * (1 << 20) / wl_psize;
	total = npages * o.procs;
	wl_gate_open();
	for (k = 0; k < o.procs; k++) {
		if (pipe(fds[k]))
			wl_die("pipe: %s", strerror(errno));
		pids[k] = fork();
		if (pids[k] < 0)
			wl_die("fork: %s", strerror(errno));
		if (!pids[k]) {
			close(fds[k][0]);
			instance(k, npages, &o, fds[k][1]);
		}
		close(fds[k][1]);
		snprintf(pidlist + strlen(pidlist), 12, "%s%d", k ? "," : "", pids[k]);
	}
	/* Allocated after the forks: memory the children inherit and never
	 * write would be shared without KSM and counted as saved.
	 */
	all = malloc(total * sizeof(*all));
	if (!all)
		wl_die("out of memory");
	for (k = 0; k < o.procs; k++) {
		char *dst = (char *)(all + k * npages);
		size_t want = npages * sizeof(*all);

		for (got = 0; got < want;) {
			ssize_t n = read(fds[k][0], dst + got, want - got);

			if (n <= 0)
				wl_die("instance %d died before it was ready", k);
			got += n;
		}
		close(fds[k][0]);
	}
	qsort(all, total, sizeof(*all), cmp_hash);
	mps = wl_max_page_sharing();
	for (i = 0; i < total;) {
		size_t j = i + 1;

		while (j < total && !cmp_hash(&all[i], &all[j]))
			j++;
		oracle += wl_chain_saving(j - i, mps);
		i = j;
	}
	wl_gate_wait_ready(o.procs);
	wl_report("ready", "oracle_pages=%ld mapped_pages=%zu pids=%s files=%d",
		  oracle, total, pidlist, nfiles);
	wl_gate_go();
	failed = wl_wait_all(pids, o.procs) != 0;
	wl_report("result", "content_ok=%d", !failed);
	return failed;
}
