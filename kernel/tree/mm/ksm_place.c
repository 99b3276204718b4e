// SPDX-License-Identifier: GPL-2.0
/*
 * nuKSM-style placement of the merged copy (Panda, "nuKSM: NUMA-aware Memory
 * De-duplication on Multi-socket Servers", §4.1, §4.2, §4.4.1).
 *
 * When KSM merges pages that live on different nodes, the copy it keeps is
 * decided by its scan order: on the unstable tree's path the page being
 * scanned becomes the KSM page, on the stable tree's path the KSM page stays
 * where it is. One of two identical instances then reads nearly all its
 * merged memory from the other's node. The policies here choose instead:
 *
 *  - fair: keep the copy in use (accessed since KSM's previous visit, or on
 *    the active LRU list); when both or neither are, spread the kept copies
 *    over the nodes involved: for two unmerged pages the node that has been
 *    given fewer KSM pages (round robin for two nodes), for a page joining
 *    a KSM page from a node none of its sharers is on, a move to the
 *    joiner's node with probability 1/K over the K nodes involved (reservoir
 *    sampling: the copy ends on each node with probability 1/K).
 *  - priority: keep a process's copy with probability nuShare = 1 -
 *    snice(p) / sum of snice of the processes sharing, snice = nice + 21:
 *    for two processes of nice -20 and -11 the first keeps 10/11 of them.
 *    For more than two processes the nuShares add up to n - 1 and are
 *    divided by it.
 *
 * A KSM page moves to a joiner's node by migration, at most
 * KSM_PLACE_MIGRATE_PER_SEC a second; a move refused by the bound is not
 * retried (the copy stays, counted as deferred).
 *
 * The decisions are pure functions of the candidates and a random number,
 * so that KUnit can check them; mm/ksm.c gathers the candidates.
 */

#include <linux/gfp.h>
#include <linux/jiffies.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/mm_inline.h>
#include <linux/random.h>
#include <linux/swap.h>

#include "internal.h"
#include "ksm_place.h"

int ksm_placement __read_mostly = KSM_PLACE_SCAN_ORDER;
struct ksm_place_stats ksm_place_stats;
static struct ksm_place_state place_state;

/*
 * Hot sharers that read their KSM page from another node, by the KSM
 * page's node: counted over this full scan (@cur) and the last (@last).
 * Under fair placement the nodes should have as many; ksmd only.
 */
static struct {
	unsigned long cur[MAX_NUMNODES];
	unsigned long last[MAX_NUMNODES];
} remote_hot;

/* True with probability @num / @den, for @rnd uniform over u32. */
static bool place_draw(u32 rnd, u64 num, u64 den)
{
	return (u64)rnd * den < num << 32;
}

/*
 * Of nodes @a and @b, the one that has been given fewer KSM pages, the
 * other one than last time on a tie; counted as given one more.
 */
static int place_balance(struct ksm_place_state *s, int a, int b)
{
	int pick;

	if (s->kept[a] != s->kept[b])
		pick = s->kept[a] < s->kept[b] ? a : b;
	else
		pick = s->turn++ & 1 ? b : a;
	s->kept[pick]++;
	return pick;
}

static bool fair_keep_tree_page(struct ksm_place_state *s,
				const struct ksm_place_cand *a,
				const struct ksm_place_cand *b, u32 rnd,
				enum ksm_place_reason *why)
{
	if (a->hot != b->hot) {
		*why = KSM_PLACE_R_HOT;
		return b->hot;
	}
	*why = KSM_PLACE_R_BALANCE;
	return place_balance(s, a->nid, b->nid) == b->nid;
}

static bool fair_move_to_joiner(const struct ksm_place_cand *j,
				const struct ksm_place_sharers *sh, u32 rnd,
				enum ksm_place_reason *why)
{
	if (j->hot != sh->kept_hot) {
		*why = KSM_PLACE_R_HOT;
		return j->hot;
	}
	*why = KSM_PLACE_R_BALANCE;
	return sh->joiner_new && sh->nr_nodes &&
	       place_draw(rnd, 1, sh->nr_nodes);
}

/*
 * nuShare of a process of snice @snice among @nr processes whose snice add
 * up to @sum, as a fraction @num / @den: (1 - snice / sum) / (nr - 1).
 */
static void place_nushare(unsigned int snice, unsigned int sum,
			  unsigned int nr, u64 *num, u64 *den)
{
	*num = sum > snice ? sum - snice : 0;
	*den = (u64)sum * (nr > 1 ? nr - 1 : 1);
}

static bool priority_keep_tree_page(struct ksm_place_state *s,
				    const struct ksm_place_cand *a,
				    const struct ksm_place_cand *b, u32 rnd,
				    enum ksm_place_reason *why)
{
	u64 num, den;

	*why = KSM_PLACE_R_PRIORITY;
	place_nushare(a->snice, a->snice + b->snice, 2, &num, &den);
	return !place_draw(rnd, num, den);
}

static bool priority_move_to_joiner(const struct ksm_place_cand *j,
				    const struct ksm_place_sharers *sh,
				    u32 rnd, enum ksm_place_reason *why)
{
	u64 num, den;

	*why = KSM_PLACE_R_PRIORITY;
	if (sh->nr_procs < 2)
		return false;
	place_nushare(j->snice, sh->snice_sum, sh->nr_procs, &num, &den);
	return place_draw(rnd, num, den);
}

static const struct ksm_place_ops place_policies[KSM_NR_PLACEMENTS] = {
	[KSM_PLACE_FAIR] = {
		.keep_tree_page = fair_keep_tree_page,
		.move_to_joiner = fair_move_to_joiner,
	},
	[KSM_PLACE_PRIORITY] = {
		.keep_tree_page = priority_keep_tree_page,
		.move_to_joiner = priority_move_to_joiner,
	},
};

/* The policy in force, NULL for KSM's scan order. */
static const struct ksm_place_ops *ksm_place_policy(void)
{
	int p = READ_ONCE(ksm_placement);

	return p == KSM_PLACE_SCAN_ORDER ? NULL : &place_policies[p];
}

int ksm_place_set(int placement)
{
	if (placement < 0 || placement >= KSM_NR_PLACEMENTS)
		return -EINVAL;
	WRITE_ONCE(ksm_placement, placement);
	return 0;
}

/**
 * ksm_place_keep_tree_page() - choose the copy kept by an unstable merge
 * @a:		the page being scanned
 * @b:		the page found in the unstable tree, on another node
 * @why:	set to the reason of the choice
 *
 * ksmd only. Return: true to keep @b, false to keep @a (KSM's choice).
 */
bool ksm_place_keep_tree_page(const struct ksm_place_cand *a,
			      const struct ksm_place_cand *b,
			      enum ksm_place_reason *why)
{
	const struct ksm_place_ops *ops = ksm_place_policy();

	*why = KSM_PLACE_R_SCAN_ORDER;
	return ops && ops->keep_tree_page(&place_state, a, b,
					  get_random_u32(), why);
}

/**
 * ksm_place_move_to_joiner() - whether a KSM page follows a page joining it
 * @j:		the joining page, on another node than the KSM page
 * @sh:		the KSM page's sharers
 * @why:	set to the reason of the choice
 *
 * ksmd only. Return: true to migrate the KSM page to @j's node.
 */
bool ksm_place_move_to_joiner(const struct ksm_place_cand *j,
			      const struct ksm_place_sharers *sh,
			      enum ksm_place_reason *why)
{
	const struct ksm_place_ops *ops = ksm_place_policy();

	*why = KSM_PLACE_R_SCAN_ORDER;
	return ops && ops->move_to_joiner(j, sh, get_random_u32(), why);
}

/* A full scan starts: the last one's counts of remote hot sharers stand. */
void ksm_place_scan_start(void)
{
	memcpy(remote_hot.last, remote_hot.cur, sizeof(remote_hot.last));
	memset(remote_hot.cur, 0, sizeof(remote_hot.cur));
}

/*
 * place_follow_contended() - a hot sharer at home on @home reads its KSM
 * page on @kept, where another sharer is hot too: move it to @home only if
 * @kept has more remote hot readers than @home (in the last full scan, as
 * corrected by the moves since), so that a start where one instance was
 * idle at the merges does not leave it all its hot pages remote. A move
 * turns a remote reader at @kept into one at @home; balanced nodes keep
 * their copies, so nothing moves back and forth.
 *
 * Return: true to move the KSM page to @home.
 */
static bool place_follow_contended(int kept, int home)
{
	if (remote_hot.last[kept] > remote_hot.last[home] + 1) {
		remote_hot.last[kept]--;
		remote_hot.last[home]++;
		remote_hot.cur[home]++;
		return true;
	}
	remote_hot.cur[kept]++;
	return false;
}

/**
 * ksm_place_follow() - whether a KSM page follows a hot sharer
 * @kept:	the KSM page's node
 * @home:	the node of the hot sharer visited, another one
 * @kept_hot:	a sharer at home on @kept is hot
 * @why:	set to the reason of a move
 *
 * Fair placement only; ksmd only. Return: true to migrate the KSM page to
 * @home: nobody uses it where it is, or the nodes' remote hot readers are
 * out of balance.
 */
bool ksm_place_follow(int kept, int home, bool kept_hot,
		      enum ksm_place_reason *why)
{
	if (!kept_hot) {
		*why = KSM_PLACE_R_HOT;
		return true;
	}
	*why = KSM_PLACE_R_BALANCE;
	return place_follow_contended(kept, home);
}

/* A merge across nodes was done for @why. */
void ksm_place_count(enum ksm_place_reason why)
{
	WRITE_ONCE(ksm_place_stats.merges[why],
		   ksm_place_stats.merges[why] + 1);
}

/**
 * ksm_place_migrate() - move a KSM page to a node, within the rate bound
 * @folio:	the KSM folio, not locked; the caller's reference on it is
 *		handed over (migration fails while it is held)
 * @nid:	the node to move it to
 *
 * ksmd only; may sleep. The folio's stable node follows it (see
 * folio_migrate_ksm()). A failure leaves the folio where it was.
 */
void ksm_place_migrate(struct folio *folio, int nid)
{
	static unsigned long window, used;
	struct migration_target_control mtc = {
		.nid = nid,
		.gfp_mask = GFP_HIGHUSER_MOVABLE | __GFP_THISNODE,
		.reason = MR_NUMA_MISPLACED,
	};
	LIST_HEAD(list);

	if (folio_nid(folio) == nid)
		goto put;
	if (time_after(jiffies, window + HZ)) {
		window = jiffies;
		used = 0;
	}
	if (used >= KSM_PLACE_MIGRATE_PER_SEC) {
		WRITE_ONCE(ksm_place_stats.deferred,
			   ksm_place_stats.deferred + 1);
		goto put;
	}
	used++;
	/* A new KSM folio may still wait in this CPU's LRU batch. */
	if (!folio_test_lru(folio))
		lru_add_drain();
	if (!folio_isolate_lru(folio)) {
		WRITE_ONCE(ksm_place_stats.migrate_failed,
			   ksm_place_stats.migrate_failed + 1);
		goto put;
	}
	/* The isolation holds a reference of its own. */
	folio_put(folio);
	list_add_tail(&folio->lru, &list);
	node_stat_mod_folio(folio, NR_ISOLATED_ANON + folio_is_file_lru(folio),
			    folio_nr_pages(folio));
	if (migrate_pages(&list, alloc_migration_target, NULL,
			  (unsigned long)&mtc, MIGRATE_SYNC, MR_NUMA_MISPLACED,
			  NULL)) {
		putback_movable_pages(&list);
		WRITE_ONCE(ksm_place_stats.migrate_failed,
			   ksm_place_stats.migrate_failed + 1);
		return;
	}
	WRITE_ONCE(ksm_place_stats.migrated, ksm_place_stats.migrated + 1);
	return;
put:
	folio_put(folio);
}

#include "tests/ksm_place-kunit.h"
