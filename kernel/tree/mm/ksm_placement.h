/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nuKSM-style placement of the merged copy: the interface between the merge
 * paths in mm/ksm.c and the placement policies in mm/ksm_placement.c.
 */
#ifndef __MM_KSM_PLACEMENT_H
#define __MM_KSM_PLACEMENT_H

#include <linux/numa.h>
#include <linux/types.h>

/* Placement policies: KSM's scan order, or nuKSM's fair and priority. */
enum ksm_placement {
	KSM_PLACEMENT_SCAN_ORDER,
	KSM_PLACEMENT_FAIR,
	KSM_PLACEMENT_PRIORITY,
	KSM_NR_PLACEMENTS,
};

/* Why a merge across nodes kept the copy it kept. */
enum ksm_placement_reason {
	KSM_PLACEMENT_R_SCAN_ORDER,	/* as KSM would: scanned page, or stable page */
	KSM_PLACEMENT_R_HOT,	/* the copy in use */
	KSM_PLACEMENT_R_BALANCE,	/* spread over the nodes involved */
	KSM_PLACEMENT_R_PRIORITY,	/* drawn by the processes' nuShare */
	KSM_PLACEMENT_NR_REASONS,
};

/*
 * snice (thesis §4.2): nice + 21, 1 for nice -20 up to 40 for nice 19; the
 * smaller, the higher the process's priority.
 */
#define KSM_PLACEMENT_SNICE(nice)	((unsigned int)((nice) + 21))

/**
 * struct ksm_placement_cand - a page that takes part in a merge across nodes
 * @nid:	the node the page is on (for a page joining a KSM page: the
 *		node its own copy was on)
 * @hot:	accessed since KSM's previous visit of it (the PTE's accessed
 *		bit, which that visit cleared), or on the active LRU list
 * @snice:	snice of the thread-group leader of the process mapping it
 */
struct ksm_placement_cand {
	int nid;
	bool hot;
	unsigned int snice;
};

/**
 * struct ksm_placement_sharers - the KSM page a page is about to join
 * @kept_nid:	the node the KSM page is on
 * @nr_nodes:	distinct nodes the sharers' own copies were on, the joiner's
 *		included
 * @joiner_new:	no sharer's copy was on the joiner's node
 * @kept_hot:	a sharer whose copy was on @kept_nid is hot
 * @nr_procs:	distinct processes among the sharers, the joiner's included
 * @snice_sum:	sum of their snice
 */
struct ksm_placement_sharers {
	int kept_nid;
	unsigned int nr_nodes;
	bool joiner_new;
	bool kept_hot;
	unsigned int nr_procs;
	unsigned int snice_sum;
};

/**
 * struct ksm_placement_state - what a policy remembers between merges
 * @kept:	KSM pages the balancing has placed on each node
 * @turn:	breaks ties between nodes with equal @kept
 *
 * Only ksmd decides placements, so no lock.
 */
struct ksm_placement_state {
	unsigned long kept[MAX_NUMNODES];
	unsigned long turn;
};

/**
 * struct ksm_placement_ops - a placement policy
 * @hotness:		its choices read whether pages were accessed lately
 * @sharers:		@move_to_joiner reads the KSM page's sharers
 * @nice:		its choices read the processes' nice values
 * @follow:		a KSM page follows a hot sharer on another node when
 *			no sharer on its own node is hot (placement_revisit())
 * @keep_tree_page:	two unmerged pages on different nodes are merged:
 *			return true to keep @b (the unstable tree's page)
 *			and free @a (the page being scanned), false for the
 *			reverse (KSM's own choice)
 * @move_to_joiner:	@j joins a KSM page on another node: return true to
 *			migrate the KSM page to @j's node
 *
 * @rnd is a uniform random number for the policies that draw. Each sets
 * *@why to the reason of its decision. KSM's own choice, the copy of the
 * page that the scan met first, is the scan order policy.
 */
struct ksm_placement_ops {
	bool hotness;
	bool sharers;
	bool nice;
	bool follow;
	bool (*keep_tree_page)(struct ksm_placement_state *s,
			       const struct ksm_placement_cand *a,
			       const struct ksm_placement_cand *b, u32 rnd,
			       enum ksm_placement_reason *why);
	bool (*move_to_joiner)(const struct ksm_placement_cand *j,
			       const struct ksm_placement_sharers *sh, u32 rnd,
			       enum ksm_placement_reason *why);
};

/* At most this many KSM pages are migrated for placement a second. */
#define KSM_PLACEMENT_MIGRATE_PER_SEC	1024

/**
 * struct ksm_placement_stats - placement counters, shown in sysfs
 * @merges:	merges across nodes, by the reason of the copy kept
 * @migrated:	KSM pages migrated to a joining page's node
 * @migrate_failed: migrations that failed (the KSM page stays)
 * @deferred:	migrations not done for the rate bound
 */
struct ksm_placement_stats {
	unsigned long merges[KSM_PLACEMENT_NR_REASONS];
	unsigned long migrated;
	unsigned long migrate_failed;
	unsigned long deferred;
};

extern struct ksm_placement_stats ksm_placement_stats;
extern int ksm_placement;

int ksm_placement_set(int placement);

#endif /* __MM_KSM_PLACEMENT_H */
