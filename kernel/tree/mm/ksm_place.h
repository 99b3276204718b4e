/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nuKSM-style placement of the merged copy: the interface between the merge
 * paths in mm/ksm.c and the placement policies in mm/ksm_place.c.
 */
#ifndef __MM_KSM_PLACE_H
#define __MM_KSM_PLACE_H

#include <linux/numa.h>
#include <linux/types.h>

struct folio;

/* Placement policies: KSM's scan order, or nuKSM's fair and priority. */
enum ksm_placement {
	KSM_PLACE_SCAN_ORDER,
	KSM_PLACE_FAIR,
	KSM_PLACE_PRIORITY,
	KSM_NR_PLACEMENTS,
};

/* Why a merge across nodes kept the copy it kept. */
enum ksm_place_reason {
	KSM_PLACE_R_SCAN_ORDER,	/* as KSM would: scanned page, or stable page */
	KSM_PLACE_R_HOT,	/* the copy in use */
	KSM_PLACE_R_BALANCE,	/* spread over the nodes involved */
	KSM_PLACE_R_PRIORITY,	/* drawn by the processes' nuShare */
	KSM_PLACE_NR_REASONS,
};

/*
 * snice (thesis §4.2): nice + 21, 1 for nice -20 up to 40 for nice 19; the
 * smaller, the higher the process's priority.
 */
#define KSM_PLACE_SNICE(nice)	((unsigned int)((nice) + 21))

/**
 * struct ksm_place_cand - a page that takes part in a merge across nodes
 * @nid:	the node the page is on (for a page joining a KSM page: the
 *		node its own copy was on)
 * @hot:	accessed since KSM's previous visit of it (the PTE's accessed
 *		bit, which that visit cleared), or on the active LRU list
 * @snice:	snice of the thread-group leader of the process mapping it
 */
struct ksm_place_cand {
	int nid;
	bool hot;
	unsigned int snice;
};

/**
 * struct ksm_place_sharers - the KSM page a page is about to join
 * @kept_nid:	the node the KSM page is on
 * @nr_nodes:	distinct nodes the sharers' own copies were on, the joiner's
 *		included
 * @joiner_new:	no sharer's copy was on the joiner's node
 * @kept_hot:	a sharer whose copy was on @kept_nid is hot
 * @nr_procs:	distinct processes among the sharers, the joiner's included
 * @snice_sum:	sum of their snice
 */
struct ksm_place_sharers {
	int kept_nid;
	unsigned int nr_nodes;
	bool joiner_new;
	bool kept_hot;
	unsigned int nr_procs;
	unsigned int snice_sum;
};

/**
 * struct ksm_place_state - what a policy remembers between merges
 * @kept:	KSM pages the balancing has placed on each node
 * @turn:	breaks ties between nodes with equal @kept
 *
 * Only ksmd decides placements, so no lock.
 */
struct ksm_place_state {
	unsigned long kept[MAX_NUMNODES];
	unsigned long turn;
};

/**
 * struct ksm_place_ops - a placement policy
 * @keep_tree_page:	two unmerged pages on different nodes are merged:
 *			return true to keep @b (the unstable tree's page)
 *			and free @a (the page being scanned), false for the
 *			reverse (KSM's own choice)
 * @move_to_joiner:	@j joins a KSM page on another node: return true to
 *			migrate the KSM page to @j's node
 *
 * @rnd is a uniform random number for the policies that draw. Each sets
 * *@why to the reason of its decision.
 */
struct ksm_place_ops {
	bool (*keep_tree_page)(struct ksm_place_state *s,
			       const struct ksm_place_cand *a,
			       const struct ksm_place_cand *b, u32 rnd,
			       enum ksm_place_reason *why);
	bool (*move_to_joiner)(const struct ksm_place_cand *j,
			       const struct ksm_place_sharers *sh, u32 rnd,
			       enum ksm_place_reason *why);
};

/* At most this many KSM pages are migrated for placement a second. */
#define KSM_PLACE_MIGRATE_PER_SEC	1024

/**
 * struct ksm_place_stats - placement counters, shown in sysfs
 * @merges:	merges across nodes, by the reason of the copy kept
 * @migrated:	KSM pages migrated to a joining page's node
 * @migrate_failed: migrations that failed (the KSM page stays)
 * @deferred:	migrations not done for the rate bound
 */
struct ksm_place_stats {
	unsigned long merges[KSM_PLACE_NR_REASONS];
	unsigned long migrated;
	unsigned long migrate_failed;
	unsigned long deferred;
};

extern struct ksm_place_stats ksm_place_stats;
extern int ksm_placement;

int ksm_place_set(int placement);

bool ksm_place_keep_tree_page(const struct ksm_place_cand *a,
			      const struct ksm_place_cand *b,
			      enum ksm_place_reason *why);
bool ksm_place_move_to_joiner(const struct ksm_place_cand *j,
			      const struct ksm_place_sharers *sh,
			      enum ksm_place_reason *why);
void ksm_place_count(enum ksm_place_reason why);
bool ksm_place_follow(int kept, int home, bool kept_hot,
		      enum ksm_place_reason *why);
void ksm_place_scan_start(void);
void ksm_place_migrate(struct folio *folio, int nid);

#endif /* __MM_KSM_PLACE_H */
