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
 * KSM_PLACEMENT_MIGRATE_PER_SEC a second; a move refused by the bound is not
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
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/swap.h>
#include <trace/events/ksm.h>

#include "internal.h"
#include "ksm_internal.h"

int ksm_placement __read_mostly = KSM_PLACEMENT_SCAN_ORDER;
struct ksm_placement_stats ksm_placement_stats;
static struct ksm_placement_state placement_state;

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
static bool placement_draw(u32 rnd, u64 num, u64 den)
{
	return (u64)rnd * den < num << 32;
}

/*
 * Of nodes @a and @b, the one that has been given fewer KSM pages, the
 * other one than last time on a tie; counted as given one more.
 */
static int placement_balance(struct ksm_placement_state *s, int a, int b)
{
	int pick;

	if (s->kept[a] != s->kept[b])
		pick = s->kept[a] < s->kept[b] ? a : b;
	else
		pick = s->turn++ & 1 ? b : a;
	s->kept[pick]++;
	return pick;
}

static bool fair_keep_tree_page(struct ksm_placement_state *s,
				const struct ksm_placement_cand *a,
				const struct ksm_placement_cand *b, u32 rnd,
				enum ksm_placement_reason *why)
{
	if (a->hot != b->hot) {
		*why = KSM_PLACEMENT_R_HOT;
		return b->hot;
	}
	*why = KSM_PLACEMENT_R_BALANCE;
	return placement_balance(s, a->nid, b->nid) == b->nid;
}

static bool fair_move_to_joiner(const struct ksm_placement_cand *j,
				const struct ksm_placement_sharers *sh, u32 rnd,
				enum ksm_placement_reason *why)
{
	if (j->hot != sh->kept_hot) {
		*why = KSM_PLACEMENT_R_HOT;
		return j->hot;
	}
	*why = KSM_PLACEMENT_R_BALANCE;
	return sh->joiner_new && sh->nr_nodes &&
	       placement_draw(rnd, 1, sh->nr_nodes);
}

/*
 * nuShare of a process of snice @snice among @nr processes whose snice add
 * up to @sum, as a fraction @num / @den: (1 - snice / sum) / (nr - 1).
 */
static void placement_nushare(unsigned int snice, unsigned int sum,
			      unsigned int nr, u64 *num, u64 *den)
{
	*num = sum > snice ? sum - snice : 0;
	*den = (u64)sum * (nr > 1 ? nr - 1 : 1);
}

static bool priority_keep_tree_page(struct ksm_placement_state *s,
				    const struct ksm_placement_cand *a,
				    const struct ksm_placement_cand *b, u32 rnd,
				    enum ksm_placement_reason *why)
{
	u64 num, den;

	*why = KSM_PLACEMENT_R_PRIORITY;
	placement_nushare(a->snice, a->snice + b->snice, 2, &num, &den);
	return !placement_draw(rnd, num, den);
}

static bool priority_move_to_joiner(const struct ksm_placement_cand *j,
				    const struct ksm_placement_sharers *sh,
				    u32 rnd, enum ksm_placement_reason *why)
{
	u64 num, den;

	*why = KSM_PLACEMENT_R_PRIORITY;
	if (sh->nr_procs < 2)
		return false;
	placement_nushare(j->snice, sh->snice_sum, sh->nr_procs, &num, &den);
	return placement_draw(rnd, num, den);
}

/* KSM's own choice: the page the scan met first stays, nothing moves. */
static bool scan_order_keep_tree_page(struct ksm_placement_state *s,
				      const struct ksm_placement_cand *a,
				      const struct ksm_placement_cand *b,
				      u32 rnd, enum ksm_placement_reason *why)
{
	*why = KSM_PLACEMENT_R_SCAN_ORDER;
	return false;
}

static bool scan_order_move_to_joiner(const struct ksm_placement_cand *j,
				      const struct ksm_placement_sharers *sh,
				      u32 rnd, enum ksm_placement_reason *why)
{
	*why = KSM_PLACEMENT_R_SCAN_ORDER;
	return false;
}

static const struct ksm_placement_ops placement_policies[KSM_NR_PLACEMENTS] = {
	[KSM_PLACEMENT_SCAN_ORDER] = {
		.keep_tree_page = scan_order_keep_tree_page,
		.move_to_joiner = scan_order_move_to_joiner,
	},
	[KSM_PLACEMENT_FAIR] = {
		.hotness = true,
		.sharers = true,
		.follow = true,
		.keep_tree_page = fair_keep_tree_page,
		.move_to_joiner = fair_move_to_joiner,
	},
	[KSM_PLACEMENT_PRIORITY] = {
		.hotness = true,
		.sharers = true,
		.nice = true,
		.keep_tree_page = priority_keep_tree_page,
		.move_to_joiner = priority_move_to_joiner,
	},
};

/* The policy in force. */
static const struct ksm_placement_ops *ksm_placement_policy(void)
{
	return &placement_policies[READ_ONCE(ksm_placement)];
}

/**
 * ksm_placement_set() - set the placement policy
 * @placement:	the policy (KSM_PLACEMENT_SCAN_ORDER, _FAIR or _PRIORITY)
 *
 * The store of the placement mode knob. The merge paths read the policy once
 * a decision.
 *
 * Return: 0, or -EINVAL when @placement is no policy.
 */
int ksm_placement_set(int placement)
{
	if (placement < 0 || placement >= KSM_NR_PLACEMENTS)
		return -EINVAL;
	WRITE_ONCE(ksm_placement, placement);
	return 0;
}

/**
 * ksm_placement_keep_tree_page() - choose the copy kept by an unstable merge
 * @ops:	the policy in force
 * @a:		the page being scanned
 * @b:		the page found in the unstable tree, on another node
 * @why:	set to the reason of the choice
 *
 * ksmd only.
 *
 * Return: true to keep @b, false to keep @a (KSM's choice).
 */
static bool ksm_placement_keep_tree_page(const struct ksm_placement_ops *ops,
					 const struct ksm_placement_cand *a,
					 const struct ksm_placement_cand *b,
					 enum ksm_placement_reason *why)
{
	return ops->keep_tree_page(&placement_state, a, b, get_random_u32(),
				   why);
}

/**
 * ksm_placement_move_to_joiner() - whether a KSM page follows a page joining it
 * @ops:	the policy in force
 * @j:		the joining page, on another node than the KSM page
 * @sh:		the KSM page's sharers
 * @why:	set to the reason of the choice
 *
 * ksmd only.
 *
 * Return: true to migrate the KSM page to @j's node.
 */
static bool ksm_placement_move_to_joiner(const struct ksm_placement_ops *ops,
					 const struct ksm_placement_cand *j,
					 const struct ksm_placement_sharers *sh,
					 enum ksm_placement_reason *why)
{
	return ops->move_to_joiner(j, sh, get_random_u32(), why);
}

/**
 * ksm_placement_scan_start() - a full scan starts, for the policies
 *
 * A full scan starts: the last one's counts of remote hot sharers stand
 * (placement_follow_contended() compares the nodes' counts of the last full
 * scan), and this one's start from zero. ksmd only.
 */
static void ksm_placement_scan_start(void)
{
	memcpy(remote_hot.last, remote_hot.cur, sizeof(remote_hot.last));
	memset(remote_hot.cur, 0, sizeof(remote_hot.cur));
}

/*
 * placement_follow_contended() - a hot sharer at home on @home reads its KSM
 * page on @kept, where another sharer is hot too: move it to @home only if
 * @kept has more remote hot readers than @home (in the last full scan, as
 * corrected by the moves since), so that a start where one instance was
 * idle at the merges does not leave it all its hot pages remote. A move
 * turns a remote reader at @kept into one at @home; balanced nodes keep
 * their copies, so nothing moves back and forth.
 *
 * Return: true to move the KSM page to @home.
 */
static bool placement_follow_contended(int kept, int home)
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
 * ksm_placement_follow() - whether a KSM page follows a hot sharer
 * @kept:	the KSM page's node
 * @home:	the node of the hot sharer visited, another one
 * @kept_hot:	a sharer at home on @kept is hot
 * @why:	set to the reason of a move
 *
 * Fair placement only; ksmd only.
 *
 * Return: true to migrate the KSM page to @home: nobody uses it where it is,
 * or the nodes' remote hot readers are out of balance.
 */
static bool ksm_placement_follow(int kept, int home, bool kept_hot,
				 enum ksm_placement_reason *why)
{
	if (!kept_hot) {
		*why = KSM_PLACEMENT_R_HOT;
		return true;
	}
	*why = KSM_PLACEMENT_R_BALANCE;
	return placement_follow_contended(kept, home);
}

/**
 * ksm_placement_count() - count a merge across nodes
 * @why:	the reason of the choice of the copy kept
 *
 * A merge across nodes was done for @why: counted in
 * ksm_placement_stats.merges. ksmd only.
 */
static void ksm_placement_count(enum ksm_placement_reason why)
{
	WRITE_ONCE(ksm_placement_stats.merges[why],
		   ksm_placement_stats.merges[why] + 1);
}

/**
 * ksm_placement_migrate() - move a KSM page to a node, within the rate bound
 * @folio:	the KSM folio, not locked; the caller's reference on it is
 *		handed over (migration fails while it is held)
 * @nid:	the node to move it to
 *
 * ksmd only; may sleep. The folio's stable node follows it (see
 * folio_migrate_ksm()). A failure leaves the folio where it was.
 */
static void ksm_placement_migrate(struct folio *folio, int nid)
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
	if (used >= KSM_PLACEMENT_MIGRATE_PER_SEC) {
		WRITE_ONCE(ksm_placement_stats.deferred,
			   ksm_placement_stats.deferred + 1);
		goto put;
	}
	used++;
	/* A new KSM folio may still wait in this CPU's LRU batch. */
	if (!folio_test_lru(folio))
		lru_add_drain();
	if (!folio_isolate_lru(folio)) {
		WRITE_ONCE(ksm_placement_stats.migrate_failed,
			   ksm_placement_stats.migrate_failed + 1);
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
		WRITE_ONCE(ksm_placement_stats.migrate_failed,
			   ksm_placement_stats.migrate_failed + 1);
		return;
	}
	WRITE_ONCE(ksm_placement_stats.migrated, ksm_placement_stats.migrated + 1);
	return;
put:
	folio_put(folio);
}

/*
 * The merge paths' side of placement (mm/ksm.c calls these): what the
 * policies above need to know of a KSM page's sharers, and the moves they
 * decide. By ksmd, under ksm_thread_mutex.
 */

/**
 * placement_merged() - a page merged into a KSM page
 * @rmap_item:	the page's rmap_item, now in @stable_node's list
 * @stable_node: the KSM page's stable node
 *
 * Counted remote if the KSM page is off its home node; the merge may have
 * mapped the KSM page young, so the accessed bit gives no signal at the
 * next visit.
 */
void placement_merged(struct ksm_rmap_item *rmap_item,
		      struct ksm_stable_node *stable_node)
{
	rmap_item->tested = 0;
	placement_count_remote(rmap_item, stable_node);
}

/**
 * placement_count_remote() - count a merged page remote or local
 * @rmap_item:	a merged rmap_item of @stable_node
 * @stable_node: the stable node of its KSM page
 *
 * Placement's per-process figure (/proc/<pid>/ksm_stat): whether the KSM
 * page of merged @rmap_item is on another node than its home, counted in
 * its mm's ksm_merged_remote. Taken when it joins @stable_node, at each
 * visit of the merged page (or pass over it, under the distilling scanner)
 * and after ksmd migrates the KSM page; by ksmd or another holder of
 * ksm_thread_mutex, or by memory offlining while ksmd is parked, as every
 * change of the count.
 */
void placement_count_remote(struct ksm_rmap_item *rmap_item,
			    struct ksm_stable_node *stable_node)
{
	struct mm_struct *mm = rmap_item->mm;
	bool remote = rmap_item->home_known &&
		      pfn_to_nid(READ_ONCE(stable_node->kpfn)) !=
		      rmap_item->home_nid;

	if (remote == rmap_item->remote)
		return;
	VM_WARN_ON_ONCE(!remote && !mm->ksm_merged_remote);
	rmap_item->remote = remote;
	WRITE_ONCE(mm->ksm_merged_remote,
		   mm->ksm_merged_remote + (remote ? 1 : -1));
}

/**
 * placement_uncount_remote() - stop counting a merged page
 * @rmap_item:	the rmap_item leaving the stable tree
 *
 * @rmap_item leaves the stable tree: if it was counted remote in its mm's
 * ksm_merged_remote (placement_count_remote()), it is counted no more. Under
 * the same locking as placement_count_remote().
 */
void placement_uncount_remote(struct ksm_rmap_item *rmap_item)
{
	struct mm_struct *mm = rmap_item->mm;

	if (!rmap_item->remote)
		return;
	VM_WARN_ON_ONCE(!mm->ksm_merged_remote);
	rmap_item->remote = 0;
	WRITE_ONCE(mm->ksm_merged_remote, mm->ksm_merged_remote - 1);
}

/**
 * placement_wants_young() - whether placement needs pages' accessed bits
 *
 * Placement needs to know which pages are in use: a policy other than KSM's
 * scan order is in force, and pages merge across nodes. The walk then tests
 * and clears the pages' accessed bits (ksm_next_page_pmd_entry()).
 *
 * Return: true when the visits are to test whether pages were accessed.
 */
bool placement_wants_young(void)
{
	return ksm_placement_policy()->hotness && ksm_merge_across_nodes;
}

/* snice of @mm's process, as last refreshed; under ksm_mmlist_lock. */
static unsigned int mm_snice(struct mm_struct *mm)
{
	struct ksm_mm_slot *mm_slot = ksm_mm_slot_lookup(mm);

	return mm_slot ? mm_slot->snice : KSM_PLACEMENT_SNICE(0);
}

/**
 * placement_scan_start() - a full scan starts, for placement
 *
 * A full scan starts: the placement's counts of the last one stand, and,
 * for the priority placement, the snice of every process KSM scans is
 * refreshed from its thread-group leader's nice. Without MEMCG an mm has
 * no link to its tasks: walk the processes instead (their leaders, under
 * RCU) and look each mm up among KSM's mm_slots.
 * An mm shared by processes (CLONE_VM without CLONE_THREAD) gets the last
 * one's. ksmd only.
 */
void placement_scan_start(void)
{
	struct task_struct *p;
	struct ksm_mm_slot *mm_slot;
	struct mm_struct *mm;

	ksm_placement_scan_start();
	if (!ksm_placement_policy()->nice)
		return;
	rcu_read_lock();
	for_each_process(p) {
		task_lock(p);
		mm = p->mm;
		if (mm && !(p->flags & PF_KTHREAD) &&
		    test_bit(MMF_VM_MERGEABLE, &mm->flags)) {
			spin_lock(&ksm_mmlist_lock);
			mm_slot = ksm_mm_slot_lookup(mm);
			if (mm_slot)
				mm_slot->snice = KSM_PLACEMENT_SNICE(task_nice(p));
			spin_unlock(&ksm_mmlist_lock);
		}
		task_unlock(p);
	}
	rcu_read_unlock();
}

/**
 * placement_visit() - note a page's node and use at a visit
 * @rmap_item:	the rmap_item of @page
 * @page:	the page visited
 * @young:	the page was accessed since the previous visit
 *
 * A visit of @rmap_item's @page: remember the page's node while it is not
 * merged (a page first met merged, as a forked child's, takes the KSM
 * page's node: where its contents are now), and whether it was accessed
 * since the previous visit (@young, the accessed bit this visit tested and
 * cleared, see ksm_next_page_pmd_entry()). That is known only when the
 * previous visit tested the bit too. ksmd only.
 */
void placement_visit(struct ksm_rmap_item *rmap_item, struct page *page,
		     bool young)
{
	if (!PageKsm(page) || !rmap_item->home_known) {
		rmap_item->home_nid = page_to_nid(page);
		rmap_item->home_known = 1;
	}
	rmap_item->hot = young;
	rmap_item->hot_known = rmap_item->tested;
	rmap_item->tested = placement_wants_young();
}

static bool item_hot(struct ksm_rmap_item *rmap_item)
{
	return rmap_item->hot_known && rmap_item->hot;
}

/* Not known to be cold: a sharer the copy must not be taken from. */
static bool item_maybe_hot(struct ksm_rmap_item *rmap_item)
{
	return !rmap_item->hot_known || rmap_item->hot;
}

/**
 * placement_keep_tree_page() - choose the copy an unstable merge keeps
 * @rmap_item:	the rmap_item of @page
 * @page:	the page being scanned
 * @tree_rmap_item: the rmap_item of @tree_page
 * @tree_page:	the page found in the unstable tree
 * @why:	out: the reason of the choice, or -1
 *
 * The unstable tree's @tree_page (of @tree_rmap_item) equals @page (of
 * @rmap_item). *@why is the reason (enum ksm_placement_reason), or -1 if the
 * pages are on one node or merge_across_nodes is off. ksmd only.
 *
 * Return: true to keep @tree_page rather than @page.
 */
bool placement_keep_tree_page(struct ksm_rmap_item *rmap_item,
			      struct page *page,
			      struct ksm_rmap_item *tree_rmap_item,
			      struct page *tree_page, int *why)
{
	struct ksm_placement_cand a = { .nid = page_to_nid(page) };
	struct ksm_placement_cand b = { .nid = page_to_nid(tree_page) };
	const struct ksm_placement_ops *ops = ksm_placement_policy();
	enum ksm_placement_reason reason;
	bool keep;

	*why = -1;
	if (!ksm_merge_across_nodes || a.nid == b.nid)
		return false;
	/* A page seen for the first time is neither hot nor cold. */
	if (rmap_item->hot_known && tree_rmap_item->hot_known) {
		a.hot = rmap_item->hot;
		b.hot = tree_rmap_item->hot;
	}
	if (ops->nice) {
		spin_lock(&ksm_mmlist_lock);
		a.snice = mm_snice(rmap_item->mm);
		b.snice = mm_snice(tree_rmap_item->mm);
		spin_unlock(&ksm_mmlist_lock);
	}
	keep = ksm_placement_keep_tree_page(ops, &a, &b, &reason);
	*why = reason;
	trace_ksm_placement(keep ? b.nid : a.nid, keep ? a.nid : b.nid,
			    reason, 0, false);
	return keep;
}

/* Processes told apart when a KSM page's sharers are counted. */
#define PLACEMENT_MAX_PROCS	16

/*
 * For the priority placement: the distinct processes among @joiner and
 * the other sharers of @stable_node, and the sum of their snice, into
 * @sh. Beyond PLACEMENT_MAX_PROCS processes, a process is counted once a
 * sharer. Under the KSM page's lock.
 */
static void placement_sum_snice(struct ksm_rmap_item *joiner,
				struct ksm_stable_node *stable_node,
				struct ksm_placement_cand *j,
				struct ksm_placement_sharers *sh)
{
	struct mm_struct *procs[PLACEMENT_MAX_PROCS];
	unsigned int i, nr_procs = 0;
	struct ksm_rmap_item *ri;

	spin_lock(&ksm_mmlist_lock);
	j->snice = mm_snice(joiner->mm);
	sh->snice_sum = j->snice;
	sh->nr_procs = 1;
	hlist_for_each_entry(ri, &stable_node->hlist, hlist) {
		if (ri->mm == joiner->mm)
			continue;
		for (i = 0; i < nr_procs && procs[i] != ri->mm; i++)
			;
		if (i < nr_procs)
			continue;
		if (nr_procs < PLACEMENT_MAX_PROCS)
			procs[nr_procs++] = ri->mm;
		sh->snice_sum += mm_snice(ri->mm);
		sh->nr_procs++;
	}
	spin_unlock(&ksm_mmlist_lock);
}

/**
 * placement_join() - whether a KSM page moves to a page joining it
 * @joiner:	the rmap_item just added to @stable_node
 * @stable_node: the stable node @joiner joined
 * @kpage:	the KSM page of @stable_node, locked
 *
 * @joiner has just been added to @stable_node, whose KSM page @kpage is
 * locked. The rmap_items of a stable node are added and removed under its
 * page's lock. A merge across nodes is counted for its reason
 * (ksm_placement_count()). ksmd only.
 *
 * Return: the node to migrate @kpage to, or NUMA_NO_NODE to leave it.
 */
int placement_join(struct ksm_rmap_item *joiner,
		   struct ksm_stable_node *stable_node, struct page *kpage)
{
	struct ksm_placement_sharers sh = { .kept_nid = page_to_nid(kpage) };
	struct ksm_placement_cand j = { .nid = joiner->home_nid };
	const struct ksm_placement_ops *ops = ksm_placement_policy();
	enum ksm_placement_reason why;
	struct ksm_rmap_item *ri;
	nodemask_t nodes;
	bool move;

	if (!ksm_merge_across_nodes || j.nid == sh.kept_nid)
		return NUMA_NO_NODE;
	if (!ops->sharers)
		goto decide;
	nodes_clear(nodes);
	j.hot = item_hot(joiner);
	hlist_for_each_entry(ri, &stable_node->hlist, hlist) {
		if (ri == joiner)
			continue;
		node_set(ri->home_nid, nodes);
		if (ri->home_nid == sh.kept_nid && item_maybe_hot(ri))
			sh.kept_hot = true;
	}
	sh.joiner_new = !node_isset(j.nid, nodes);
	node_set(j.nid, nodes);
	sh.nr_nodes = nodes_weight(nodes);
	if (ops->nice)
		placement_sum_snice(joiner, stable_node, &j, &sh);
decide:
	move = ksm_placement_move_to_joiner(ops, &j, &sh, &why);
	ksm_placement_count(why);
	trace_ksm_placement(sh.kept_nid, j.nid, why, 1, move);
	return move ? j.nid : NUMA_NO_NODE;
}

/* A KSM page to move once the scan has let go of it; ksmd only. */
static struct {
	struct folio *folio;
	int nid;
} placement_pending;

/**
 * placement_revisit() - let a KSM page follow a hot sharer
 * @rmap_item:	the rmap_item visited
 * @stable_node: the stable node @rmap_item is merged into
 * @page:	the KSM page of @stable_node, referenced by the scan
 *
 * A visit of @rmap_item, merged already into @stable_node's KSM page
 * @page: under fair placement, when this sharer is hot, the copy is on
 * another node and no sharer at home on the copy's node is hot, the copy
 * follows its use (a page merged on first sight, when its hotness was not
 * known yet, or a hot set that moved); when one is, the copy moves only if
 * the nodes' remote hot readers are out of balance (ksm_placement_follow()).
 * The move waits for placement_flush(): the scan's reference on @page would
 * fail the migration. @rmap_item is counted remote or local again
 * (placement_count_remote()). ksmd only.
 */
void placement_revisit(struct ksm_rmap_item *rmap_item,
		       struct ksm_stable_node *stable_node,
		       struct page *page)
{
	int kept = page_to_nid(page);
	bool kept_hot = false, move;
	enum ksm_placement_reason why;
	struct ksm_rmap_item *ri;

	placement_count_remote(rmap_item, stable_node);
	if (!ksm_placement_policy()->follow || !ksm_merge_across_nodes ||
	    !item_hot(rmap_item) || rmap_item->home_nid == kept ||
	    !trylock_page(page))
		return;
	/* The rmap_items of a stable node change under its page's lock. */
	if (page_stable_node(page) != stable_node) {
		unlock_page(page);
		return;
	}
	hlist_for_each_entry(ri, &stable_node->hlist, hlist)
		if (ri->home_nid == kept && item_maybe_hot(ri))
			kept_hot = true;
	move = ksm_placement_follow(kept, rmap_item->home_nid, kept_hot, &why);
	unlock_page(page);
	if (!move)
		return;
	trace_ksm_placement(kept, rmap_item->home_nid, why, 2, true);
	folio_get(page_folio(page));
	placement_pending.folio = page_folio(page);
	placement_pending.nid = rmap_item->home_nid;
}

/**
 * placement_count() - count a merge across nodes
 * @why:	the reason of the choice, an enum ksm_placement_reason
 *
 * ksm_placement_count() for mm/ksm.c's merge paths, which carry the reason
 * as an int (placement_keep_tree_page()). ksmd only.
 */
void placement_count(int why)
{
	ksm_placement_count(why);
}

/**
 * placement_migrate() - move a KSM page to a node, and recount its sharers
 * @folio:	the KSM folio, not locked; the caller's reference on it is
 *		handed over
 * @nid:	the node to move it to
 *
 * A migration sleeps on the folio and its mappings: not under a walk's lock,
 * which is dropped first. The sharers are counted remote or local again
 * (placement_count_remote()), as the KSM page may have moved. ksmd only,
 * under ksm_thread_mutex.
 */
void placement_migrate(struct folio *folio, int nid)
{
	struct ksm_stable_node *stable_node = folio_stable_node(folio);
	struct ksm_rmap_item *ri;

	ksm_walk_unlock();
	ksm_placement_migrate(folio, nid);
	/* The stable node stays under ksm_thread_mutex; its kpfn may move. */
	if (stable_node)
		hlist_for_each_entry(ri, &stable_node->hlist, hlist)
			placement_count_remote(ri, stable_node);
}

/**
 * placement_flush() - make the move placement_revisit() decided
 *
 * Migrate the KSM page placement_revisit() left pending, if any, now that
 * the scan has let go of its page. ksmd only.
 */
void placement_flush(void)
{
	if (placement_pending.folio) {
		placement_migrate(placement_pending.folio, placement_pending.nid);
		placement_pending.folio = NULL;
	}
}

/**
 * placement_show_stat() - placement's lines of /proc/<pid>/ksm_stat
 * @m:	the file
 * @mm:	the process's mm
 *
 * Merged pages of @mm whose KSM page is on the node its own copy was on
 * (local) or on another (remote), from the counts ksmd keeps (see
 * placement_count_remote()): no lock, no walk.
 */
void placement_show_stat(struct seq_file *m, struct mm_struct *mm)
{
	unsigned long merged = READ_ONCE(mm->ksm_merging_pages);
	unsigned long remote = READ_ONCE(mm->ksm_merged_remote);

	/* The two are read apart: a merge may come between. */
	seq_printf(m, "ksm_merged_local %lu\n",
		   merged > remote ? merged - remote : 0);
	seq_printf(m, "ksm_merged_remote %lu\n", remote);
}

#include "tests/ksm_placement-kunit.h"
