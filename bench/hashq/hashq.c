// SPDX-License-Identifier: GPL-2.0
/*
 * hashq: hash quality of the adaptive page hash (mm/ksm_page_hash.c, built
 * unchanged) against 6.12's page checksum (lib/xxhash.c's xxh64, truncated
 * to 32 bits as calc_checksum() does), on three kinds of page contents:
 *
 *   files	the pages of the files under DIR (the similar-images
 *		workload's files: the guest's busybox and /opt/ksm/bin),
 *		the last page of each zero-padded
 *   zero-heavy	zero pages with 1 to 8 random words at random offsets
 *   random	random pages
 *
 * For each hash and strength: collisions (pairs of distinct contents with
 * equal hashes, and what an ideal 32-bit hash would give), and avalanche
 * (flipping one input bit that the hash reads: the mean share of output
 * bits that flip, ideally 0.5, and the worst output bit's bias, |P(flip)
 * - 0.5|).
 *
 * Exits 1 when a full-strength hash (xxh64 or page_hash@1024) does worse than
 * an ideal one would: more than 10 times the ideal collision pairs plus
 * one, a mean off 0.5 by more than 0.01, or a bias over 0.03.
 *
 *   hashq [-s seed] [-n pages] DIR
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ksm_page_hash.h"
#include "linux/xxhash.h"

u64 kshim_seed = 0x2545f4914f6cdd1dULL;
char kshim_zero_page[4096];

#define PW	(PAGE_SIZE / 4)

static u32 *pages;
static size_t npages, cap;

static u32 *new_page(void)
{
	if (npages == cap) {
		cap = cap ? 2 * cap : 4096;
		pages = realloc(pages, cap * PAGE_SIZE);
		if (!pages) {
			perror("realloc");
			exit(1);
		}
	}
	memset(pages + npages * PW, 0, PAGE_SIZE);
	return pages + npages++ * PW;
}

static u64 rnd(void)
{
	static u64 x = 88172645463325252ULL;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

static void load_file(const char *path)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return;
	for (;;) {
		u32 *p = new_page();

		n = read(fd, p, PAGE_SIZE);
		if (n <= 0) {
			npages--;
			break;
		}
	}
	close(fd);
}

static void load_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];
	struct stat st;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (lstat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode))
			load_dir(path);
		else if (S_ISREG(st.st_mode))
			load_file(path);
	}
	closedir(d);
}

/* Hash kind: strength 0 is xxh64 truncated, else the page hash at that strength. */
static u32 hash(const u32 *p, unsigned int strength)
{
	if (!strength)
		return (u32)xxh64(p, PAGE_SIZE, 0);
	return ksm_page_hash(p, strength);
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Pairs of distinct contents with equal hashes among pages [lo, hi).
 * Contents are told apart by a 64-bit digest (xxh64 with another seed).
 */
static void collisions(size_t lo, size_t hi, unsigned int strength,
		       double *pairs, double *ideal, size_t *distinct)
{
	size_t n = hi - lo, i, j, d = 0;
	u64 *v = malloc(n * sizeof(*v)), *c = malloc(n * sizeof(*c));
	double pr = 0;

	/* Distinct contents first. */
	for (i = 0; i < n; i++)
		c[i] = xxh64(pages + (lo + i) * PW, PAGE_SIZE, 0x5eed);
	qsort(c, n, sizeof(*c), cmp_u64);
	for (i = 0; i < n; i++)
		if (!i || c[i] != c[i - 1])
			c[d++] = c[i];
	/*
	 * Then (hash << 32 | index) over distinct contents: the digest's top
	 * bit marks a content already seen (a digest with it set is taken
	 * as distinct from one without; collisions of a 63-bit digest among
	 * 10^5 contents are negligible).
	 */
	for (i = 0, j = 0; i < n; i++) {
		u64 id = xxh64(pages + (lo + i) * PW, PAGE_SIZE, 0x5eed);
		u64 *f = bsearch(&id, c, d, sizeof(*c), cmp_u64);

		if (!f || (*f & 1ULL << 63))
			continue;
		*f |= 1ULL << 63;	/* seen */
		v[j] = (u64)hash(pages + (lo + i) * PW, strength) << 32 | j;
		j++;
	}
	qsort(v, j, sizeof(*v), cmp_u64);
	for (i = 0; i < j;) {
		size_t k = i;

		while (k < j && v[k] >> 32 == v[i] >> 32)
			k++;
		pr += (double)(k - i) * (k - i - 1) / 2;
		i = k;
	}
	*pairs = pr;
	*ideal = (double)d * (d - 1) / 2 / 4294967296.0;
	*distinct = d;
	free(v);
	free(c);
}

/* Mean share of output bits flipped, and the worst bit's bias. */
static void avalanche(size_t lo, size_t hi, unsigned int strength,
		      double *mean, double *bias)
{
	static u32 buf[PW];
	unsigned long flips[32] = { 0 }, trials = 0, total = 0;
	unsigned int words = strength ? strength : PW, t, b;
	extern u16 page_hash_perm_export(unsigned int i);
	size_t i;

	for (i = 0; i < 400; i++) {
		size_t pg = lo + rnd() % (hi - lo);
		u32 h0;

		memcpy(buf, pages + pg * PW, PAGE_SIZE);
		h0 = hash(buf, strength);
		for (t = 0; t < 64; t++) {
			/* A bit of a word the hash reads. */
			unsigned int w = rnd() % words, bit = rnd() % 32;
			unsigned int off = strength ? page_hash_perm_export(w) : w;
			u32 d;

			buf[off] ^= 1U << bit;
			d = hash(buf, strength) ^ h0;
			buf[off] ^= 1U << bit;
			for (b = 0; b < 32; b++)
				flips[b] += d >> b & 1;
			total += __builtin_popcount(d);
			trials++;
		}
	}
	*mean = (double)total / trials / 32;
	*bias = 0;
	for (b = 0; b < 32; b++)
		*bias = fmax(*bias, fabs((double)flips[b] / trials - 0.5));
}

int main(int argc, char **argv)
{
	static const unsigned int strengths[] = { 0, 1024, 256, 64, 16, 4, 1 };
	size_t lo[3], hi[3], n = 20000, i;
	const char *kind[3] = { "files", "zero-heavy", "random" };
	int opt, k, bad = 0;

	while ((opt = getopt(argc, argv, "s:n:")) != -1) {
		if (opt == 's')
			kshim_seed = strtoull(optarg, NULL, 0) | 1;
		else if (opt == 'n')
			n = strtoul(optarg, NULL, 0);
		else
			goto usage;
	}
	if (optind != argc - 1)
		goto usage;

	lo[0] = 0;
	load_dir(argv[optind]);
	hi[0] = npages;
	if (hi[0] < 2) {
		fprintf(stderr, "hashq: no file pages under %s\n", argv[optind]);
		return 1;
	}
	lo[1] = npages;
	for (i = 0; i < n; i++) {
		u32 *p = new_page();
		unsigned int w = 1 + rnd() % 8;

		while (w--)
			p[rnd() % PW] = (u32)rnd() | 1;
	}
	hi[1] = lo[2] = npages;
	for (i = 0; i < n; i++) {
		u32 *p = new_page();
		unsigned int w;

		for (w = 0; w < PW; w++)
			p[w] = (u32)rnd();
	}
	hi[2] = npages;

	printf("%-10s %-12s %8s %12s %10s %8s %8s\n", "pages", "hash",
	       "distinct", "coll-pairs", "ideal", "aval", "bias");
	for (k = 0; k < 3; k++)
		for (i = 0; i < sizeof(strengths) / sizeof(*strengths); i++) {
			unsigned int s = strengths[i];
			double pairs, ideal, mean, bias;
			char name[32];
			size_t d;

			collisions(lo[k], hi[k], s, &pairs, &ideal, &d);
			avalanche(lo[k], hi[k], s, &mean, &bias);
			if (s)
				snprintf(name, sizeof(name), "page_hash@%u", s);
			else
				snprintf(name, sizeof(name), "xxh64/32");
			printf("%-10s %-12s %8zu %12.0f %10.3f %8.4f %8.4f\n",
			       kind[k], name, d, pairs, ideal, mean, bias);
			if ((!s || s == KSM_PAGE_HASH_FULL) &&
			    (pairs > 10 * ideal + 1 || fabs(mean - 0.5) > 0.01 ||
			     bias > 0.03)) {
				printf("hashq: %s on %s pages is worse than an ideal hash\n",
				       name, kind[k]);
				bad = 1;
			}
		}
	return bad;
usage:
	fprintf(stderr, "usage: hashq [-s seed] [-n pages] DIR\n");
	return 2;
}
