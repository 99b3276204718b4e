// SPDX-License-Identifier: GPL-2.0-only
/*
 * The adaptive page hash on KSM's paths: the key of a page in hash-keyed
 * trees (page_hash/mode adaptive), the strength in force and its sampling
 * rounds, and the page_hash/mode knob. The hash and its adaptation are
 * mm/ksm_page_hash.c's. ksmd's, under ksm_thread_mutex, unless said
 * otherwise.
 */

#include <linux/highmem.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <trace/events/ksm.h>

#include "ksm_internal.h"

/*
 * Hash-keyed trees (page_hash=adaptive). Both trees are
 * then ordered by (key, contents), the key being the page's progressive
 * hash at ksm_page_hash_cur words, so a lookup reads a tree page only when its
 * key is equal; an unstable item's key is its oldchecksum. The mode and the
 * strength in force change only where the unstable trees are emptied, and
 * the stable trees are re-keyed there (stable_trees_rekey()): every node in
 * a tree carries a key of the mode and strength in force. That is at the
 * end of a scan (a coverage for the distilling scanner) and, while the
 * strength is being probed, at the end of each sampling round of
 * PAGE_HASH_PROBE_ROUND_PAGES keyed pages, or of PAGE_HASH_PROBE_MIN_PAGES once
 * PAGE_HASH_PROBE_ROUND_TIME has passed (page_hash_probe_round()). All of
 * this is ksmd's, under ksm_thread_mutex.
 */
static bool page_hash_keyed;
static unsigned int ksm_page_hash_cur = KSM_PAGE_HASH_FULL / 2;
static u32 zero_key;
const struct ksm_page_key_ops *ksm_page_keys = &ksm_checksum_keys;

/*
 * Under hash-keyed trees and one shard, a node index's unstable tree is
 * split by the top UNSTABLE_KEY_BITS bits of the key into as many trees:
 * the same order, (key, contents), with its top levels turned into an
 * index, so that a lookup walks that many fewer nodes. Allocated at boot;
 * without it, the trees stay whole.
 */
#define UNSTABLE_KEY_BITS	10
static struct rb_root *unstable_key_roots;

/*
 * Pages a sampling round of the hash keys while its strength is probed;
 * a scanner that keys fewer pages in PAGE_HASH_PROBE_ROUND_TIME (the
 * distilling one at its lowest levels keys tens a second) ends the round
 * there, once it has keyed PAGE_HASH_PROBE_MIN_PAGES.
 */
#define PAGE_HASH_PROBE_ROUND_PAGES	4096
#define PAGE_HASH_PROBE_MIN_PAGES	128
/* Pages a round without a collision keys (page_hash_probe_round()). */
#define PAGE_HASH_PROBE_QUIET_PAGES	16
#define PAGE_HASH_PROBE_ROUND_TIME	HZ
static unsigned long page_hash_round_start;
static unsigned int page_hash_scan_resets;

/*
 * The strengths keys were taken at in this scan and in the one before,
 * newest first (page_hash_recent[0] is ksm_page_hash_cur); the first
 * page_hash_nr_scan of them were in force in this scan. A page's last key
 * was taken at one of them, unless its last visit is older.
 */
#define PAGE_HASH_RECENT	8
static unsigned int page_hash_recent[PAGE_HASH_RECENT] = { KSM_PAGE_HASH_FULL / 2 };
static unsigned int page_hash_nr_recent = 1;
static unsigned int page_hash_nr_scan = 1;
/*
 * More strengths were in force than page_hash_recent[] holds: in this scan,
 * so the next cannot tell a changed page (@page_hash_lost_scan), or in the
 * one before, so this one cannot (@page_hash_lost).
 */
static bool page_hash_lost_scan, page_hash_lost;
static struct ksm_page_hash_adapt ksm_page_hash_adapt;
static struct ksm_page_hash_round ksm_page_hash_round;
/* The page_hash knob, taken into force at ksmd's next full scan. */
static unsigned int ksm_page_hash_mode;
/* page_hash was written "adaptive" since ksmd last took the knob. */
static int ksm_page_hash_restart;
/* The cost of hashing a word, measured at boot. */
static u32 ksm_page_hash_ps_per_word __ro_after_init = 1;
struct ksm_page_hash_stats ksm_page_hash_stats;

/*
 * The key of a page in hash-keyed trees: its hash at the strength in force,
 * counted in the hash's sampling round.
 */
static u32 page_hash_key(struct page *page)
{
	void *addr = kmap_local_page(page);
	u32 key = ksm_page_hash(addr, ksm_page_hash_cur);

	kunmap_local(addr);
	ksm_page_hash_round.pages++;
	return key;
}

/*
 * The key of @page, and in @same whether it is unchanged since the visit
 * that took @old. That visit was made in the scan before (the stock
 * scanner visits each page once a scan), at one of the strengths in
 * page_hash_recent[]: the hash at another strength is had from the same state
 * in as many steps as the difference. A page never keyed (@old is 0, as
 * a new rmap_item's oldchecksum is) counts as unchanged, so that it can
 * be merged on first sight, and so does one whose strength was lost from
 * page_hash_recent[]; a page whose last key was taken longer ago counts as
 * changed, and waits a visit for the unstable tree.
 */
static u32 page_hash_key_check(struct page *page, u32 old, bool *same)
{
	void *addr = kmap_local_page(page);
	u32 state = ksm_page_hash_state(addr, ksm_page_hash_cur);
	u32 key = ksm_page_hash_final(state);
	unsigned int i, to;
	u32 then;

	*same = key == old || !old || page_hash_lost;
	for (i = 1; !*same && i < page_hash_nr_recent; i++) {
		to = page_hash_recent[i];
		if (to > ksm_page_hash_cur)
			then = ksm_page_hash_extend(addr, state, ksm_page_hash_cur, to);
		else
			then = ksm_page_hash_retract(addr, state, ksm_page_hash_cur, to);
		*same = ksm_page_hash_final(then) == old;
	}
	kunmap_local(addr);
	ksm_page_hash_round.pages++;
	return key;
}

/*
 * A lookup met an equal key over the other contents of @b, at a cost since
 * @t0. Only a collision of pages equal in the words the strength reads is
 * the strength's penalty: a higher one would have told them apart. Others
 * are the chance collisions of any 32-bit hash over many pages (about
 * pages^2 / 2^33 pairs), as likely at every strength. Every collision is
 * counted in ksm_page_hash_stats; the penalties in the sampling round.
 */
static void page_hash_collision(u64 t0, struct page *a, struct page *b)
{
	void *pa = kmap_local_page(a), *pb = kmap_local_page(b);
	bool weak = ksm_page_hash_read_equal(pa, pb, ksm_page_hash_cur);

	kunmap_local(pb);
	kunmap_local(pa);
	ksm_tree_count(&ksm_page_hash_stats.collisions);
	if (!weak)
		return;
	ksm_page_hash_round.collisions++;
	ksm_page_hash_round.penalty_ns += ktime_get_ns() - t0;
}

/* The key is taken at every visit: a changed page still searches. */
static enum ksm_page_check page_hash_check(struct page *page,
					   struct ksm_rmap_item *rmap_item,
					   bool first_sight)
{
	bool same;

	rmap_item->oldchecksum = page_hash_key_check(page, rmap_item->oldchecksum,
						     &same);
	return same || first_sight ? KSM_PAGE_FILE : KSM_PAGE_SEARCH;
}

static struct rb_root *page_hash_unstable_root(int nid, u32 key)
{
	if (!unstable_key_roots)
		return NULL;
	return unstable_key_roots + (nid << UNSTABLE_KEY_BITS) +
	       (key >> (32 - UNSTABLE_KEY_BITS));
}

/**
 * page_hash_unstable_reset() - empty the unstable trees split by key
 *
 * With the unstable trees (unstable_trees_reset()), whatever the page key
 * in force. Under ksm_thread_mutex.
 */
void page_hash_unstable_reset(void)
{
	unsigned int i;

	for (i = 0; unstable_key_roots && i < nr_node_ids << UNSTABLE_KEY_BITS;
	     i++)
		unstable_key_roots[i] = RB_ROOT;
}

static const struct ksm_page_key_ops ksm_page_hash_keys = {
	.check = page_hash_check,
	.zero = &zero_key,
	.key = page_hash_key,
	.collision = page_hash_collision,
	.unstable_root = page_hash_unstable_root,
};

/*
 * The KSM page the last page merged into under hash-keyed trees, with that
 * page's merge domain, key and shard: the next page of the same key tries
 * it before it searches the stable tree (a dense region's pages come one
 * after the other). A hint only: the compare after write-protect decides
 * the merge. Set only within a scan batch: forgotten at the end of each
 * batch, before ksmd lets go of ksm_thread_mutex, when the keys change, and
 * when its stable node is freed within one. Frees outside a batch (run=2, memory offlining)
 * find it forgotten already.
 */
static struct {
	struct ksm_stable_node *dup;
	u64 domain;
	u32 key;
	unsigned int shard;
} page_hash_last;

/**
 * page_hash_hint() - the KSM page a page of a key may merge into first
 * @domain:	the page's merge domain
 * @shard:	the shard of its stable tree
 * @key:	its key
 *
 * Return: the stable node the last page of @key merged into, if of @domain
 * and @shard, or NULL.
 */
struct ksm_stable_node *page_hash_hint(u64 domain, unsigned int shard, u32 key)
{
	if (page_hash_last.key != key || page_hash_last.shard != shard ||
	    page_hash_last.domain != domain)
		return NULL;
	return page_hash_last.dup;
}

/**
 * page_hash_hint_set() - a page merged into a KSM page on its key
 * @dup:	the KSM page's stable node
 * @domain:	the page's merge domain
 * @shard:	the shard of its stable tree
 * @key:	its key
 */
void page_hash_hint_set(struct ksm_stable_node *dup, u64 domain,
			unsigned int shard, u32 key)
{
	page_hash_last.dup = dup;
	page_hash_last.domain = domain;
	page_hash_last.key = key;
	page_hash_last.shard = shard;
}

/**
 * page_hash_forget() - forget the hint of a stable node
 * @dup:	a stable node being freed, or NULL at the end of a batch
 */
void page_hash_forget(struct ksm_stable_node *dup)
{
	if (!dup || dup == page_hash_last.dup)
		page_hash_last.dup = NULL;
}

/**
 * page_hash_pending() - whether the page_hash knob waits to be taken
 *
 * Return: true when the page_hash knob asks for another mode than the one
 * in force, or for the adaptation to start again.
 */
bool page_hash_pending(void)
{
	return READ_ONCE(ksm_page_hash_restart) ||
	       (READ_ONCE(ksm_page_hash_mode) == KSM_PAGE_HASH_ADAPTIVE) !=
	       page_hash_keyed;
}

/* Take keys at @strength from now on, newest of page_hash_recent[]. */
static void page_hash_recent_push(unsigned int strength)
{
	unsigned int i = 0;

	while (i < page_hash_nr_recent - 1 && page_hash_recent[i] != strength)
		i++;
	if (page_hash_recent[i] != strength) {
		/* Not there: the oldest gives way if the array is full. */
		if (page_hash_nr_recent < PAGE_HASH_RECENT)
			i = page_hash_nr_recent++;
		else if (page_hash_nr_scan < PAGE_HASH_RECENT)
			page_hash_lost = true;
		else
			page_hash_lost_scan = true;
		page_hash_nr_scan = min(page_hash_nr_scan + 1, page_hash_nr_recent);
	} else if (i >= page_hash_nr_scan) {
		page_hash_nr_scan++;
	}
	memmove(&page_hash_recent[1], &page_hash_recent[0], i * sizeof(page_hash_recent[0]));
	page_hash_recent[0] = strength;
}

/* A new sampling round of the hash begins now. */
static void page_hash_round_restart(void)
{
	ksm_page_hash_round = (struct ksm_page_hash_round) { 0 };
	page_hash_round_start = jiffies;
}

/* Put @keyed and @strength into force, re-keying the stable trees. */
static void page_hash_set(bool keyed, unsigned int strength)
{
	if (keyed && !page_hash_keyed) {
		/* No page has a key yet. */
		page_hash_recent[0] = strength;
		page_hash_nr_recent = 1;
		page_hash_nr_scan = 1;
		page_hash_lost = false;
		page_hash_lost_scan = false;
	} else {
		page_hash_recent_push(strength);
	}
	page_hash_keyed = keyed;
	ksm_page_keys = keyed ? &ksm_page_hash_keys : &ksm_checksum_keys;
	/* A key of the old strength may equal one of the new. */
	page_hash_forget(NULL);
	ksm_page_hash_cur = strength;
	zero_key = ksm_page_hash(page_address(ZERO_PAGE(0)), strength);
	stable_trees_rekey();
	ksm_tree_count(&ksm_page_hash_stats.rekeys);
	/*
	 * The round measures the scan's lookups at the new strength, not the
	 * re-keying's: those would count every stable node.
	 */
	page_hash_round_restart();
}

/* End the hash's sampling round: the strength for the next one. */
static unsigned int page_hash_adapt(void)
{
	unsigned int strength;

	strength = ksm_page_hash_adapt_round(&ksm_page_hash_adapt, &ksm_page_hash_round);
	if (ksm_page_hash_round.pages)
		trace_ksm_page_hash_round(ksm_page_hash_cur, strength,
					  ksm_page_hash_round.pages,
					  ksm_page_hash_round.collisions,
					  ksm_page_hash_adapt.benefit);
	page_hash_round_restart();
	return strength;
}

/**
 * page_hash_round() - take the page hash's mode and strength at a scan's end
 *
 * Where the unstable trees were just emptied, at the end of a scan: end
 * the hash's sampling round, take the page_hash knob and the adapted
 * strength into force, and re-key the stable trees if either changed.
 * "adaptive" written again restarts the adaptation at its first strength.
 * ksmd only, under ksm_thread_mutex.
 */
void page_hash_round(void)
{
	bool restart = xchg(&ksm_page_hash_restart, 0);
	bool keyed = READ_ONCE(ksm_page_hash_mode) == KSM_PAGE_HASH_ADAPTIVE;
	unsigned int strength = ksm_page_hash_cur;

	if (keyed && page_hash_keyed && !restart) {
		strength = page_hash_adapt();
	} else if (keyed) {
		ksm_page_hash_adapt_init(&ksm_page_hash_adapt, ksm_page_hash_ps_per_word);
		strength = ksm_page_hash_adapt.strength;
	}
	page_hash_round_restart();
	/* Keys of the scan that ended stay checkable for one more scan. */
	page_hash_nr_recent = page_hash_nr_scan;
	page_hash_nr_scan = 1;
	page_hash_lost = page_hash_lost_scan;
	page_hash_lost_scan = false;
	page_hash_scan_resets = 0;
	if (keyed == page_hash_keyed && (!keyed || strength == ksm_page_hash_cur))
		return;
	page_hash_set(keyed, strength);
}

/**
 * page_hash_probe_round() - end a sampling round of the strength's probe
 *
 * Between two pages of a scan: while the strength is probed, a sampling
 * round ends after PAGE_HASH_PROBE_ROUND_PAGES pages keyed, or after
 * PAGE_HASH_PROBE_ROUND_TIME with at least PAGE_HASH_PROBE_MIN_PAGES, so the
 * probe moves in seconds rather than in scans, which take minutes on large
 * memory, and a scanner that samples little still settles in a minute.
 * A round without a collision ends at PAGE_HASH_PROBE_QUIET_PAGES: its benefit
 * is its profit, which more pages would not change, so a scanner that
 * samples a few hundred pages a second descends in seconds, not in tens.
 * What it may miss is a collision rate of a few percent, whose penalty is
 * a few percent of a collision's cost a page, and the next round with a
 * collision measures it. At KSM_PAGE_HASH_MIN, where the probe turns and may
 * settle, a round keys PAGE_HASH_PROBE_MIN_PAGES at least: 32 pages sampled
 * before the trees hold anything alike meet no collision, and a strength
 * settled there is kept for the rest of the scan. A round lasts no more
 * than PAGE_HASH_PROBE_ROUND_TIME either: a slower probe would outlast the
 * stock scanner's first scan, and a reset in the second would keep pairs
 * from merging in two scans. From 512 words, a probe without a collision keys 16 pages at
 * each strength of its descent to 256 words, where a page costs more than
 * twice what it costs at 1 word, then 128 at 1 word.
 * A new strength empties the unstable trees, as the end of a scan does;
 * a stable strength waits for the end of the scan. Under ksm_thread_mutex.
 * The walk's mmap lock is dropped before the unstable trees are emptied.
 *
 * Return: true when a new strength was put into force: the unstable trees
 * were emptied and the stable trees re-keyed.
 */
bool page_hash_probe_round(void)
{
	unsigned int strength;

	if (!page_hash_keyed || ksm_page_hash_adapt.state == KSM_PAGE_HASH_STABLE ||
	    ksm_page_hash_round.pages < PAGE_HASH_PROBE_QUIET_PAGES ||
	    page_hash_scan_resets >= PAGE_HASH_PROBE_RESETS || page_hash_pending())
		return false;
	if (ksm_page_hash_round.collisions &&
	    (ksm_page_hash_round.pages < PAGE_HASH_PROBE_MIN_PAGES ||
	     (ksm_page_hash_round.pages < PAGE_HASH_PROBE_ROUND_PAGES &&
	      time_before(jiffies,
			  page_hash_round_start + PAGE_HASH_PROBE_ROUND_TIME))))
		return false;
	if (ksm_page_hash_cur == KSM_PAGE_HASH_MIN &&
	    ksm_page_hash_round.pages < PAGE_HASH_PROBE_MIN_PAGES)
		return false;
	strength = page_hash_adapt();
	if (strength == ksm_page_hash_cur)
		return false;
	ksm_walk_unlock();
	unstable_trees_reset();
	page_hash_scan_resets++;
	page_hash_set(true, strength);
	return true;
}

/**
 * ksm_get_page_hash() - the page_hash mode knob
 *
 * Return: the mode last written (KSM_PAGE_HASH_CHECKSUM or
 * KSM_PAGE_HASH_ADAPTIVE), which may wait to be taken into force
 * (page_hash_pending()).
 */
int ksm_get_page_hash(void)
{
	return READ_ONCE(ksm_page_hash_mode);
}

/**
 * ksm_set_page_hash() - set the page_hash mode knob
 * @mode:	KSM_PAGE_HASH_CHECKSUM or KSM_PAGE_HASH_ADAPTIVE
 *
 * Taken into force by ksmd at the start of its next full scan, or the
 * distilling scanner's next round (page_hash_round()), where the trees can
 * be re-keyed; pages stay merged across the change. Writing "adaptive"
 * restarts the strength's adaptation, also when it is in force already.
 *
 * Return: 0.
 */
int ksm_set_page_hash(int mode)
{
	WRITE_ONCE(ksm_page_hash_mode, mode);
	/* Also when in force: the strength's adaptation starts again. */
	if (mode == KSM_PAGE_HASH_ADAPTIVE)
		WRITE_ONCE(ksm_page_hash_restart, 1);
	return 0;
}

/**
 * ksm_get_page_hash_strength() - the strength of the page hash in force
 *
 * Read without a lock, for the page_hash statistics.
 *
 * Return: words hashed a page by the hash in force; 0 for the checksum.
 */
unsigned int ksm_get_page_hash_strength(void)
{
	return READ_ONCE(page_hash_keyed) ? READ_ONCE(ksm_page_hash_cur) : 0;
}

/**
 * page_hash_init() - prepare the adaptive page hash at boot
 *
 * Draws the hash's word order and measures the cost of hashing a word,
 * before ksmd first keys a page.
 */
void __init page_hash_init(void)
{
	ksm_page_hash_init();
	ksm_page_hash_ps_per_word = ksm_page_hash_calibrate();
	unstable_key_roots = kvcalloc(nr_node_ids << UNSTABLE_KEY_BITS,
				      sizeof(*unstable_key_roots), GFP_KERNEL);
}
