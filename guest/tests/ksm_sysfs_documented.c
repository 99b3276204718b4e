// SPDX-License-Identifier: GPL-2.0
/*
 * Every attribute under /sys/kernel/mm/ksm/ (every file, in every
 * subdirectory) is documented in the ABI and in the admin guide, so that a
 * knob or statistic cannot be added undocumented. The documentation is the
 * built tree's, copied into the initramfs by harness/build-guest.sh:
 *
 *   /opt/ksm/doc/sysfs-kernel-mm-ksm           Documentation/ABI/testing/
 *   /opt/ksm/doc/sysfs-kernel-mm-ksm-adaptive  Documentation/ABI/testing/
 *   /opt/ksm/doc/ksm.rst                       Documentation/admin-guide/mm/
 *   /opt/ksm/doc/ksm_adaptive.rst              Documentation/admin-guide/mm/
 *
 * Usage: ksm_sysfs_documented [DOCDIR [SYSFSDIR]] (by default /opt/ksm/doc
 * and /sys/kernel/mm/ksm).
 *
 * An attribute, named by its path relative to /sys/kernel/mm/ksm/ (a bare
 * name at the top level), is
 * - in the ABI when a What: line names /sys/kernel/mm/ksm/<path> (a What:
 *   line may name several paths; a placeholder <N> stands for a number, as
 *   in distill/level<N>/regions);
 * - in the admin guide when a word of a ``literal`` is <path> or
 *   /sys/kernel/mm/ksm/<path> (``distill/governor``,
 *   ``echo 1 > /sys/kernel/mm/ksm/run``), or, in ksm.rst, when it is a
 *   definition-list term: an unindented line of its own followed by an
 *   indented one.
 *
 * KSM's own attributes are listed in stock[] below, with upstream's known
 * gaps; they may be documented in either ABI file and either guide. Every
 * other attribute is the engine's and must be in sysfs-kernel-mm-ksm-adaptive
 * and in ksm_adaptive.rst. Each missing one is printed, then a count.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>
#include "kselftest.h"
#include "ksm_util.h"

#define KSM_PATH "/sys/kernel/mm/ksm/"

/* Upstream's ABI file has no What: line for it. */
#define NO_ABI	1

/* KSM's own attributes, and what upstream leaves undocumented of them. */
static const struct stock {
	const char *name;
	unsigned int gaps;
	const char *why;	/* the reason for the gaps */
	const char *term;	/* ksm.rst's term for it when not its name */
} stock[] = {
	/* In upstream's ABI file and in ksm.rst. */
	{ "full_scans" },
	{ "general_profit" },
	{ "merge_across_nodes" },
	{ "pages_shared" },
	{ "pages_sharing" },
	{ "pages_to_scan" },
	{ "pages_unshared" },
	{ "pages_volatile" },
	{ "run" },
	{ "sleep_millisecs" },
	/*
	 * Documented in ksm.rst only: upstream's ABI file was never given a
	 * What: line for them.
	 */
	{ "use_zero_pages", NO_ABI,
	  "upstream documents the zero-page knob in ksm.rst only" },
	{ "ksm_zero_pages", NO_ABI,
	  "upstream documents the zero-page count in ksm.rst only" },
	{ "max_page_sharing", NO_ABI,
	  "upstream documents the sharing limit in ksm.rst only" },
	{ "stable_node_chains", NO_ABI,
	  "upstream documents the stable node chains in ksm.rst only" },
	{ "stable_node_dups", NO_ABI,
	  "upstream documents the stable node chains in ksm.rst only" },
	{ "stable_node_chains_prune_millisecs", NO_ABI,
	  "upstream documents the stable node chains in ksm.rst only" },
	{ "pages_scanned", NO_ABI,
	  "upstream documents the scan counter in ksm.rst only" },
	{ "smart_scan", NO_ABI,
	  "upstream documents smart scan in ksm.rst only" },
	{ "pages_skipped", NO_ABI,
	  "upstream documents smart scan in ksm.rst only" },
	{ "advisor_mode", NO_ABI,
	  "upstream documents the advisor in ksm.rst only" },
	{ "advisor_target_scan_time", NO_ABI,
	  "upstream documents the advisor in ksm.rst only" },
	{ "advisor_min_pages_to_scan", NO_ABI,
	  "upstream documents the advisor in ksm.rst only" },
	/*
	 * ksm.rst's definition terms misspell these two "adivsor_"; its
	 * Advisor section also names them right, in ``literals``.
	 */
	{ "advisor_max_cpu", NO_ABI,
	  "upstream documents the advisor in ksm.rst only, its term misspelled",
	  "adivsor_max_cpu" },
	{ "advisor_max_pages_to_scan", NO_ABI,
	  "upstream documents the advisor in ksm.rst only, its term misspelled",
	  "adivsor_max_pages_to_scan" },
};

enum { ABI_KSM, ABI_ADAPTIVE, GUIDE_KSM, GUIDE_ADAPTIVE, NR_DOCS };

static const char *const doc_name[NR_DOCS] = {
	"sysfs-kernel-mm-ksm", "sysfs-kernel-mm-ksm-adaptive",
	"ksm.rst", "ksm_adaptive.rst",
};

/* A document as a list of words: What: paths, literal words or terms. */
struct words {
	char **w;
	size_t n, cap;
};

static struct words doc_paths[NR_DOCS];	/* ABI: What: paths; guide: words */
static struct words rst_terms;		/* ksm.rst's definition terms */

static void add_word(struct words *ws, const char *s, size_t len)
{
	if (ws->n == ws->cap) {
		ws->cap = ws->cap ? 2 * ws->cap : 64;
		ws->w = realloc(ws->w, ws->cap * sizeof(*ws->w));
		if (!ws->w)
			ksft_exit_fail_msg("out of memory\n");
	}
	ws->w[ws->n] = strndup(s, len);
	if (!ws->w[ws->n])
		ksft_exit_fail_msg("out of memory\n");
	ws->n++;
}

/* The whole file at @path, NUL-terminated, or NULL. */
static char *slurp(const char *path)
{
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap);
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += n;
		if (len + 1 == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			if (!buf)
				ksft_exit_fail_msg("out of memory\n");
		}
	}
	close(fd);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

/* Whether character @c separates the words of a What: line. */
static bool abi_sep(char c)
{
	return c == ' ' || c == '\t' || c == ',';
}

/* The paths each What: line of an ABI file names. */
static void parse_abi(const char *text, struct words *ws)
{
	const char *l, *p, *end;

	for (l = text; *l; l = *end ? end + 1 : end) {
		end = strchrnul(l, '\n');
		if (strncmp(l, "What:", 5))
			continue;
		for (p = l + 5; p < end;) {
			const char *w;

			while (p < end && abi_sep(*p))
				p++;
			for (w = p; p < end && !abi_sep(*p); p++)
				;
			if (p > w)
				add_word(ws, w, p - w);
		}
	}
}

/* Whether character @c separates the words of a ``literal``. */
static bool lit_sep(char c)
{
	return strchr(" \t\n=,;:()[]\"'", c) != NULL;
}

/*
 * The words of every ``literal`` of an rst file, and when @terms, its
 * definition-list terms.
 */
static void parse_rst(const char *text, struct words *ws, struct words *terms)
{
	const char *p = text, *q, *l, *end, *next;

	while ((p = strstr(p, "``"))) {
		p += 2;
		q = strstr(p, "``");
		if (!q)
			break;
		while (p < q) {
			const char *w;

			while (p < q && lit_sep(*p))
				p++;
			for (w = p; p < q && !lit_sep(*p); p++)
				;
			if (p > w)
				add_word(ws, w, p - w);
		}
		p = q + 2;
	}
	if (!terms)
		return;
	for (l = text; *l; l = next) {
		end = strchrnul(l, '\n');
		next = *end ? end + 1 : end;
		/* One word at the start of the line, the next line indented. */
		if (end == l || l[0] == ' ' || l[0] == '\t' ||
		    (next[0] != ' ' && next[0] != '\t'))
			continue;
		for (q = l; q < end && !isspace((unsigned char)*q); q++)
			;
		for (p = q; p < end && isspace((unsigned char)*p); p++)
			;
		if (p == end)
			add_word(terms, l, q - l);
	}
}

/* The length of a placeholder <N> (capitals in <>) at @p, or 0. */
static size_t placeholder(const char *p)
{
	size_t n = 1;

	if (*p != '<')
		return 0;
	while (p[n] >= 'A' && p[n] <= 'Z')
		n++;
	return n > 1 && p[n] == '>' ? n + 1 : 0;
}

/*
 * Whether documented path @pat names attribute @path: equal, each
 * placeholder <N> of @pat standing for a number.
 */
static bool path_match(const char *pat, const char *path)
{
	size_t ph;

	while (*pat) {
		ph = placeholder(pat);
		if (ph) {
			if (!isdigit((unsigned char)*path))
				return false;
			while (isdigit((unsigned char)*path))
				path++;
			pat += ph;
		} else if (*pat++ != *path++) {
			return false;
		}
	}
	return !*path;
}

/*
 * Whether a word of @ws names @rel: /sys/kernel/mm/ksm/@rel, or when @bare
 * also @rel alone.
 */
static bool names(const struct words *ws, const char *rel, bool bare)
{
	size_t plen = strlen(KSM_PATH), i;

	for (i = 0; i < ws->n; i++) {
		const char *w = ws->w[i];

		if (!strncmp(w, KSM_PATH, plen))
			w += plen;
		else if (!bare)
			continue;
		if (path_match(w, rel))
			return true;
	}
	return false;
}

static bool in_abi(int doc, const char *rel)
{
	return names(&doc_paths[doc], rel, false);
}

static bool in_guide(int doc, const char *rel)
{
	return names(&doc_paths[doc], rel, true);
}

/* Whether ksm.rst has @term as a definition-list term. */
static bool is_term(const char *term)
{
	size_t i;

	for (i = 0; term && i < rst_terms.n; i++)
		if (!strcmp(rst_terms.w[i], term))
			return true;
	return false;
}

/* The attributes found: paths relative to the walk's root. */
static struct words attrs;

/* Every file under @dir (@rel: its path relative to the root, "" for it). */
static void walk(const char *dir, const char *rel)
{
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		ksft_exit_fail_msg("cannot list %s: %s\n", dir, strerror(errno));
	while ((e = readdir(d))) {
		char path[PATH_MAX], sub[PATH_MAX];
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir,
			     e->d_name) >= (int)sizeof(path) ||
		    snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "",
			     e->d_name) >= (int)sizeof(sub))
			ksft_exit_fail_msg("path too long under %s\n", dir);
		if (lstat(path, &st))
			ksft_exit_fail_msg("%s: %s\n", path, strerror(errno));
		if (S_ISDIR(st.st_mode))
			walk(path, sub);
		else if (S_ISREG(st.st_mode))
			add_word(&attrs, sub, strlen(sub));
	}
	closedir(d);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static const struct stock *find_stock(const char *rel)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(stock); i++)
		if (!strcmp(stock[i].name, rel))
			return &stock[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const char *docdir = argc > 1 ? argv[1] : "/opt/ksm/doc";
	const char *sysdir = argc > 2 ? argv[2] : "/sys/kernel/mm/ksm";
	size_t i, nstock = 0, no_abi = 0, no_guide = 0, gaps = 0, stale = 0;
	int d, unread = 0;

	ksft_print_header();
	ksft_set_plan(4);

	walk(sysdir, "");
	qsort(attrs.w, attrs.n, sizeof(*attrs.w), cmp_str);
	for (i = 0; i < attrs.n; i++)
		nstock += find_stock(attrs.w[i]) != NULL;
	ksft_print_msg("%zu attributes under %s/ (%zu stock, %zu the engine's), documentation from %s/\n",
		       attrs.n, sysdir, nstock, attrs.n - nstock, docdir);

	for (d = 0; d < NR_DOCS; d++) {
		char path[512], *text;

		snprintf(path, sizeof(path), "%s/%s", docdir, doc_name[d]);
		text = slurp(path);
		if (!text) {
			ksft_print_msg("cannot read %s: %s\n", path,
				       strerror(errno));
			unread++;
			continue;
		}
		if (d == ABI_KSM || d == ABI_ADAPTIVE)
			parse_abi(text, &doc_paths[d]);
		else
			parse_rst(text, &doc_paths[d],
				  d == GUIDE_KSM ? &rst_terms : NULL);
		free(text);
	}
	ksft_test_result(!unread && attrs.n > 0,
			 "%zu attributes found, %d of %d documents unreadable\n",
			 attrs.n, unread, NR_DOCS);

	for (i = 0; i < attrs.n; i++) {
		const struct stock *s = find_stock(attrs.w[i]);

		if (s && (s->gaps & NO_ABI)) {
			ksft_print_msg("known upstream gap: %s not in the ABI: %s\n",
				       s->name, s->why);
			gaps++;
		}
	}

	/* The ABI. */
	for (i = 0; i < attrs.n; i++) {
		const char *rel = attrs.w[i];
		const struct stock *s = find_stock(rel);

		if (!s && !in_abi(ABI_ADAPTIVE, rel)) {
			ksft_print_msg("MISSING from the ABI: %s (no What: " KSM_PATH "%s in %s)\n",
				       rel, rel, doc_name[ABI_ADAPTIVE]);
			no_abi++;
		} else if (s && !(s->gaps & NO_ABI) && !in_abi(ABI_KSM, rel) &&
			   !in_abi(ABI_ADAPTIVE, rel)) {
			ksft_print_msg("MISSING from the ABI: %s (no What: " KSM_PATH "%s in %s or %s)\n",
				       rel, rel, doc_name[ABI_KSM],
				       doc_name[ABI_ADAPTIVE]);
			no_abi++;
		}
	}
	ksft_test_result(!no_abi, "every attribute in the ABI: %zu of %zu missing\n",
			 no_abi, attrs.n);

	/* The admin guide. */
	for (i = 0; i < attrs.n; i++) {
		const char *rel = attrs.w[i];
		const struct stock *s = find_stock(rel);

		if (!s && !in_guide(GUIDE_ADAPTIVE, rel)) {
			ksft_print_msg("MISSING from the admin guide: %s (no ``%s`` in %s)\n",
				       rel, rel, doc_name[GUIDE_ADAPTIVE]);
			no_guide++;
		} else if (s && !in_guide(GUIDE_KSM, rel) &&
			   !in_guide(GUIDE_ADAPTIVE, rel) && !is_term(rel) &&
			   !is_term(s->term)) {
			ksft_print_msg("MISSING from the admin guide: %s (neither a term nor ``%s`` in %s, nor in %s)\n",
				       rel, rel, doc_name[GUIDE_KSM],
				       doc_name[GUIDE_ADAPTIVE]);
			no_guide++;
		}
	}
	ksft_test_result(!no_guide,
			 "every attribute in the admin guide: %zu of %zu missing\n",
			 no_guide, attrs.n);

	/* Each known gap is still one, or the list above is out of date. */
	for (i = 0; i < attrs.n; i++) {
		const struct stock *s = find_stock(attrs.w[i]);

		if (s && (s->gaps & NO_ABI) &&
		    (in_abi(ABI_KSM, s->name) || in_abi(ABI_ADAPTIVE, s->name))) {
			ksft_print_msg("STALE known gap: %s is in the ABI; drop NO_ABI from its stock[] entry\n",
				       s->name);
			stale++;
		}
	}
	ksft_test_result(!stale, "every known upstream gap still open: %zu of %zu closed\n",
			 stale, gaps);

	ksft_print_msg("summary: %zu attributes (%zu stock, %zu the engine's): %zu missing from the ABI, %zu missing from the admin guide, %zu stock ones outside the ABI as known upstream gaps\n",
		       attrs.n, nstock, attrs.n - nstock, no_abi, no_guide,
		       gaps);
	ksft_finished();
}
