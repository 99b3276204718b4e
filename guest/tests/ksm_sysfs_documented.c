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
 * - for the engine's, in the admin guide when ksm_adaptive.rst has <path>
 *   as a ``literal`` of a definition-list term in a section whose title
 *   names sysfs: an unindented line followed by an indented one, such as
 *   ``distill/stalls``, ``distill/stall_ms`` or
 *   ``page_hash/strength`` (read-only);
 * - for KSM's own, in the admin guide when ksm.rst has <path> as a
 *   definition-list term (a line of one word) or as a word of a
 *   ``literal`` (<path> or /sys/kernel/mm/ksm/<path>).
 *
 * KSM's own attributes are listed in stock[] below, with upstream's known
 * gaps; they may be in either ABI file, and must be in ksm.rst. Every other
 * attribute is the engine's and must be in sysfs-kernel-mm-ksm-adaptive and
 * in ksm_adaptive.rst. Each missing one is printed, then a count.
 *
 * The other way round, every /sys/kernel/mm/ksm/ path of a What: line of
 * sysfs-kernel-mm-ksm-adaptive and every term path of ksm_adaptive.rst's
 * sysfs sections must exist, a path with <N> in each directory <N> stands
 * for (distill/level0/ to distill/level7/), so that a file removed or renamed
 * cannot stay documented. Paths outside /sys are not sysfs files
 * (/proc/<pid>/ksm_stat) and are not checked.
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
	 * Advisor section names them right, in ``literals``.
	 */
	{ "advisor_max_cpu", NO_ABI,
	  "upstream documents the advisor in ksm.rst only" },
	{ "advisor_max_pages_to_scan", NO_ABI,
	  "upstream documents the advisor in ksm.rst only" },
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

static struct words abi_paths[NR_DOCS];	/* each ABI file's What: paths */
static struct words rst_words;		/* the words of ksm.rst's literals */
static struct words rst_terms;		/* ksm.rst's definition terms */
static struct words guide_terms;	/* ksm_adaptive.rst's sysfs term paths */

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

/* The words of every ``literal`` of an rst file. */
static void parse_rst_literals(const char *text, struct words *ws)
{
	const char *p = text, *q;

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
}

/* The line after the one ending at @end. */
static const char *next_line(const char *end)
{
	return *end ? end + 1 : end;
}

/* Whether the line at @l ends at @end without a character other than blanks. */
static bool blank(const char *l, const char *end)
{
	while (l < end && isspace((unsigned char)*l))
		l++;
	return l == end;
}

/*
 * Whether the line at @l (ending at @end) is a definition-list term: not
 * blank and not indented, the next line indented and not blank, and not an
 * item of a bullet list or an explicit markup (.. ) line.
 */
static bool term_line(const char *l, const char *end)
{
	const char *next = next_line(end);

	if (blank(l, end) || isspace((unsigned char)l[0]) ||
	    (next[0] != ' ' && next[0] != '\t') ||
	    blank(next, strchrnul(next, '\n')))
		return false;
	return !((l[0] == '-' || l[0] == '*' || l[0] == '+') &&
		 (l + 1 == end || l[1] == ' ')) && strncmp(l, ".. ", 3);
}

/* ksm.rst's definition-list terms of one word. */
static void parse_rst_terms(const char *text, struct words *terms)
{
	const char *l, *end, *q;

	for (l = text; *l; l = next_line(end)) {
		end = strchrnul(l, '\n');
		if (!term_line(l, end))
			continue;
		for (q = l; q < end && !isspace((unsigned char)*q); q++)
			;
		if (blank(q, end))
			add_word(terms, l, q - l);
	}
}

/*
 * Whether the line at @l is a section title of the top level: not blank,
 * not indented, underlined with '=' alone (a table's border has spaces).
 */
static bool top_title(const char *l, const char *end)
{
	const char *u = next_line(end), *uend = strchrnul(u, '\n'), *p;

	if (blank(l, end) || isspace((unsigned char)l[0]) || u == uend)
		return false;
	for (p = u; p < uend; p++)
		if (*p != '=')
			return false;
	for (p = l; p < end; p++)
		if (*p != '=')
			return true;
	return false;	/* an overline */
}

/*
 * The path of every ``literal`` of a definition-list term in a section of
 * ksm_adaptive.rst whose title names sysfs (its subsections included), as
 * written, less a leading /sys/kernel/mm/ksm/. Returns the number of such
 * sections.
 */
static int parse_guide_terms(const char *text, struct words *terms)
{
	const char *l, *end, *p, *q;
	size_t plen = strlen(KSM_PATH);
	bool in_sysfs = false;
	int sections = 0;

	for (l = text; *l; l = next_line(end)) {
		end = strchrnul(l, '\n');
		if (top_title(l, end)) {
			char *title = strndup(l, end - l);

			if (!title)
				ksft_exit_fail_msg("out of memory\n");
			in_sysfs = !!strcasestr(title, "sysfs");
			sections += in_sysfs;
			free(title);
			continue;
		}
		if (!in_sysfs || !term_line(l, end))
			continue;
		for (p = l; (p = memmem(p, end - p, "``", 2)); p = q + 2) {
			p += 2;
			q = memmem(p, end - p, "``", 2);
			if (!q)
				break;
			if (!strncmp(p, KSM_PATH, plen))
				p += plen;
			if (q > p)
				add_word(terms, p, q - p);
		}
	}
	return sections;
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

/* Whether path @pat has a placeholder. */
static bool has_placeholder(const char *pat)
{
	for (; *pat; pat++)
		if (placeholder(pat))
			return true;
	return false;
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
	return names(&abi_paths[doc], rel, false);
}

/* Whether ksm.rst names @rel: a term, or a word of a literal. */
static bool in_ksm_rst(const char *rel)
{
	size_t i;

	for (i = 0; i < rst_terms.n; i++)
		if (!strcmp(rst_terms.w[i], rel))
			return true;
	return names(&rst_words, rel, true);
}

/* Whether ksm_adaptive.rst has @rel as a term of its sysfs sections. */
static bool in_guide_terms(const char *rel)
{
	size_t i;

	for (i = 0; i < guide_terms.n; i++)
		if (path_match(guide_terms.w[i], rel))
			return true;
	return false;
}

/* What the walk found: paths relative to its root, files and directories. */
static struct words attrs, dirs;

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
		if (S_ISDIR(st.st_mode)) {
			add_word(&dirs, sub, strlen(sub));
			walk(path, sub);
		} else if (S_ISREG(st.st_mode)) {
			add_word(&attrs, sub, strlen(sub));
		}
	}
	closedir(d);
}

/* Whether a file or directory found matches @pat ("" is the root). */
static bool found(const char *pat)
{
	size_t i;

	if (!*pat)
		return true;
	for (i = 0; i < attrs.n; i++)
		if (path_match(pat, attrs.w[i]))
			return true;
	for (i = 0; i < dirs.n; i++)
		if (path_match(pat, dirs.w[i]))
			return true;
	return false;
}

/*
 * Whether documented path @pat (relative, a trailing '/' allowed) exists:
 * when a directory of it has a placeholder, in every directory found that
 * the placeholder stands for, and in one at least. Prints what is missing.
 */
static bool exists(const char *doc, const char *pat)
{
	char path[PATH_MAX], *base, *sub;
	size_t len = strlen(pat), i, matched = 0;
	bool ok = true;

	if (len >= sizeof(path))
		ksft_exit_fail_msg("documented path too long: %s\n", pat);
	memcpy(path, pat, len + 1);
	while (len && path[len - 1] == '/')
		path[--len] = '\0';
	base = strrchr(path, '/');
	if (!base || !has_placeholder(path) || has_placeholder(base + 1)) {
		if (found(path))
			return true;
		ksft_print_msg("STALE in %s: %s%s (no such file or directory under the sysfs directory)\n",
			       doc, KSM_PATH, pat);
		return false;
	}
	*base++ = '\0';		/* path: the directories; base: the name */
	for (i = 0; i < dirs.n; i++) {
		if (!path_match(path, dirs.w[i]))
			continue;
		matched++;
		if (asprintf(&sub, "%s/%s", dirs.w[i], base) < 0)
			ksft_exit_fail_msg("out of memory\n");
		if (!found(sub)) {
			ksft_print_msg("STALE in %s: %s%s: no %s\n", doc,
				       KSM_PATH, pat, sub);
			ok = false;
		}
		free(sub);
	}
	if (!matched)
		ksft_print_msg("STALE in %s: %s%s (no directory %s)\n", doc,
			       KSM_PATH, pat, path);
	return ok && matched;
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
	size_t plen = strlen(KSM_PATH), i, nstock = 0, no_abi = 0;
	size_t no_guide = 0, gaps = 0, stale = 0, gone = 0, checked = 0;
	int d, unread = 0, sections = 0;

	ksft_print_header();
	ksft_set_plan(5);

	walk(sysdir, "");
	qsort(attrs.w, attrs.n, sizeof(*attrs.w), cmp_str);
	qsort(dirs.w, dirs.n, sizeof(*dirs.w), cmp_str);
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
		if (d == ABI_KSM || d == ABI_ADAPTIVE) {
			parse_abi(text, &abi_paths[d]);
		} else if (d == GUIDE_KSM) {
			parse_rst_literals(text, &rst_words);
			parse_rst_terms(text, &rst_terms);
		} else {
			sections = parse_guide_terms(text, &guide_terms);
			if (!sections || !guide_terms.n)
				ksft_print_msg("%s: no definition-list term with a ``literal`` in a section whose title names sysfs\n",
					       path);
		}
		free(text);
	}
	ksft_test_result(!unread && attrs.n > 0 && guide_terms.n > 0,
			 "%zu attributes found, %d of %d documents unreadable, %zu term paths in %d sysfs sections of %s\n",
			 attrs.n, unread, NR_DOCS, guide_terms.n, sections,
			 doc_name[GUIDE_ADAPTIVE]);

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

		if (!s && !in_guide_terms(rel)) {
			ksft_print_msg("MISSING from the admin guide: %s (no term ``%s`` in the sysfs sections of %s)\n",
				       rel, rel, doc_name[GUIDE_ADAPTIVE]);
			no_guide++;
		} else if (s && !in_ksm_rst(rel)) {
			ksft_print_msg("MISSING from the admin guide: %s (neither a term nor ``%s`` in %s)\n",
				       rel, rel, doc_name[GUIDE_KSM]);
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

	/* The other way round: what the engine's documents name exists. */
	for (i = 0; i < abi_paths[ABI_ADAPTIVE].n; i++) {
		const char *w = abi_paths[ABI_ADAPTIVE].w[i];

		if (strncmp(w, "/sys/", 5))
			continue;
		if (strncmp(w, KSM_PATH, plen) &&
		    strcmp(w, "/sys/kernel/mm/ksm")) {
			ksft_print_msg("not checked: %s in %s is outside " KSM_PATH "\n",
				       w, doc_name[ABI_ADAPTIVE]);
			continue;
		}
		checked++;
		gone += !exists(doc_name[ABI_ADAPTIVE],
				strncmp(w, KSM_PATH, plen) ? "" : w + plen);
	}
	for (i = 0; i < guide_terms.n; i++) {
		checked++;
		gone += !exists(doc_name[GUIDE_ADAPTIVE], guide_terms.w[i]);
	}
	ksft_test_result(!gone,
			 "every path the engine's documents name exists: %zu of %zu stale\n",
			 gone, checked);

	ksft_print_msg("summary: %zu attributes (%zu stock, %zu the engine's): %zu missing from the ABI, %zu missing from the admin guide, %zu stock ones outside the ABI as known upstream gaps; %zu of %zu documented paths stale\n",
		       attrs.n, nstock, attrs.n - nstock, no_abi, no_guide,
		       gaps, gone, checked);
	ksft_finished();
}
