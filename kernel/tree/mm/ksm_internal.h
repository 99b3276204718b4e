/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What mm/ksm.c shares with the adaptive engine's files (mm/ksm_*.c): an
 * mm's slot, the scan cursor, the stable tree's nodes and the reverse
 * mapping items, and the mechanism the scanners and policies call back
 * into. Only mm/ksm*.c include it.
 */
#ifndef __MM_KSM_INTERNAL_H
#define __MM_KSM_INTERNAL_H

#include <linux/mm_types.h>
#include <linux/rbtree.h>
#include <linux/sched/clock.h>
#include <linux/timekeeping.h>
#include <linux/types.h>

#include "internal.h"
#include "mm_slot.h"
#include "ksm_adaptive.h"
#include "ksm_distill.h"
#include "ksm_page_hash.h"
#include "ksm_placement.h"

typedef u8 rmap_age_t;

/**
 * struct ksm_mm_slot - ksm information per mm that is being scanned
 * @slot: hash lookup from mm to mm_slot
 * @rmap_list: head for this mm_slot's singly-linked list of rmap_items
 * @distill: the distilling scanner's regions of this mm
 * @snice: the nice value of the mm's process, plus 21 (priority placement),
 *	under ksm_mmlist_lock
 */
struct ksm_mm_slot {
	struct mm_slot slot;
	struct ksm_rmap_item *rmap_list;
#ifdef CONFIG_KSM_ADAPTIVE
	struct ksm_distill_mm distill;
	unsigned int snice;	/* of the mm's process, under ksm_mmlist_lock */
#endif
};

/**
 * struct ksm_scan - cursor for scanning
 * @mm_slot: the current mm_slot we are scanning
 * @address: the next address inside that to be scanned
 * @rmap_list: link to the next rmap to be scanned in the rmap_list
 * @seqnr: count of completed rounds (full scans of the stock scanner)
 * @rounds: the same, but never started again at 0 (run=2 does for @seqnr)
 * @unstable_seqnr: count of unstable tree resets (stamped on its rmap_items)
 * @keep_unstable: the last round did not cover all memory
 *	(&ksm_scanner_ops.round_end): keep the unstable tree for the next one
 * @cover_seqnr: @unstable_seqnr when the rounds that are to cover all
 *	memory began: a span whose unstable tree was emptied is not counted
 *
 * There is only the one ksm_scan instance of this cursor structure.
 */
struct ksm_scan {
	struct ksm_mm_slot *mm_slot;
	unsigned long address;
	struct ksm_rmap_item **rmap_list;
	unsigned long seqnr;
	unsigned long rounds;
	unsigned long unstable_seqnr;
	bool keep_unstable;
	unsigned long cover_seqnr;
};

/**
 * struct ksm_stable_node - node of the stable rbtree
 * @node: rb node of this ksm page in the stable tree
 * @head: (overlaying parent) &migrate_nodes indicates temporarily on that list
 * @hlist_dup: linked into the stable_node->hlist with a stable_node chain
 * @list: linked into migrate_nodes, pending placement in the proper node tree
 * @hlist: hlist head of rmap_items using this ksm page
 * @kpfn: page frame number of this ksm page (perhaps temporarily on wrong nid)
 * @chain_prune_time: time of the last full garbage collection
 * @rmap_hlist_len: number of rmap_item entries in hlist or STABLE_NODE_CHAIN
 * @nid: NUMA node id of stable tree in which linked (may not match kpfn)
 * @shard: the shard of the tree it is in, when in the stable tree
 * @key: its page's hash, when the trees are hash-keyed
 * @domain: the merge domain of its mappings
 */
struct ksm_stable_node {
	union {
		struct rb_node node;	/* when node of stable tree */
		struct {		/* when listed for migration */
			struct list_head *head;
			struct {
				struct hlist_node hlist_dup;
				struct list_head list;
			};
		};
	};
	struct hlist_head hlist;
	union {
		unsigned long kpfn;
		unsigned long chain_prune_time;
	};
	/*
	 * STABLE_NODE_CHAIN can be any negative number in
	 * rmap_hlist_len negative range, but better not -1 to be able
	 * to reliably detect underflows.
	 */
#define STABLE_NODE_CHAIN -1024
	int rmap_hlist_len;
#ifdef CONFIG_NUMA
	int nid;
#endif
#ifdef CONFIG_KSM_ADAPTIVE
	unsigned int shard;	/* of its tree, when in the stable tree */
	u32 key;		/* its page's hash, when trees are hash-keyed */
	u64 domain;		/* the merge domain of its mappings */
#endif
};

/**
 * struct ksm_rmap_item - reverse mapping item for virtual addresses
 * @rmap_list: next rmap_item in mm_slot's singly-linked rmap_list
 * @anon_vma: pointer to anon_vma for this mm,address, when in stable tree
 * @nid: NUMA node id of unstable tree in which linked (may not match page)
 * @mm: the memory structure this rmap_item is pointing into
 * @address: the virtual address this rmap_item tracks (+ flags in low bits)
 * @oldchecksum: previous checksum of the page at that virtual address
 * @node: rb node of this rmap_item in the unstable tree
 * @head: pointer to stable_node heading this list in the stable tree
 * @hlist: link into hlist of rmap_items hanging off that stable_node
 * @age: number of scan iterations since creation
 * @remaining_skips: how many scans to skip
 * @shard: the shard of the unstable tree it is in
 * @home_nid: for placement: the node its page was on when last visited
 *	unmerged, or the KSM page's node when first visited merged
 * @home_known: @home_nid was set
 * @remote: merged, its KSM page on another node than @home_nid, and counted
 *	in its mm's ksm_merged_remote
 * @hot: its page was accessed between KSM's last two visits
 * @hot_known: @hot is known
 * @tested: the last visit cleared the page's accessed bit
 */
struct ksm_rmap_item {
	struct ksm_rmap_item *rmap_list;
	union {
		struct anon_vma *anon_vma;	/* when stable */
		struct {		/* when node of unstable tree */
#ifdef CONFIG_NUMA
			int nid;
#endif
#ifdef CONFIG_KSM_ADAPTIVE
			unsigned int shard;
#endif
		};
	};
	struct mm_struct *mm;
	unsigned long address;		/* + low bits used for flags below */
	unsigned int oldchecksum;	/* when unstable */
	rmap_age_t age;
	rmap_age_t remaining_skips;
#ifdef CONFIG_KSM_ADAPTIVE
	/*
	 * For placement (ksmd only): the node the page was on when last
	 * visited unmerged, or the KSM page's node when first visited
	 * merged (@home_known once set); whether it was accessed between
	 * KSM's last two visits (@hot, known when @hot_known); @tested: the
	 * last visit cleared the accessed bit; @remote: merged, and counted
	 * in its mm's ksm_merged_remote. Written by ksmd or another holder of
	 * ksm_thread_mutex, or by memory offlining while ksmd is parked.
	 */
	u16 home_nid:11;
	u16 home_known:1;
	u16 remote:1;
	u16 hot:1;
	u16 hot_known:1;
	u16 tested:1;
#endif
	union {
		struct rb_node node;	/* when node of unstable tree */
		struct {		/* when listed from stable tree */
			struct ksm_stable_node *head;
			struct hlist_node hlist;
		};
	};
};

#ifdef CONFIG_KSM_ADAPTIVE
static_assert(MAX_NUMNODES <= 1 << 11);
#endif

#define SEQNR_MASK	0x0ff	/* low bits of unstable tree seqnr */
#define UNSTABLE_FLAG	0x100	/* is a node of the unstable tree */
#define STABLE_FLAG	0x200	/* is listed from the stable tree */

/*
 * KSM's trees: for each, a flat array of roots, node index major, with
 * ksm_nr_shards trees per node index (mm/ksm_tree_shards.c). Their shape
 * changes under ksm_thread_mutex, with the stable trees empty
 * (merge_across_nodes, and ksm_reshape() for the engine's knobs).
 */
extern struct rb_root one_stable_tree[1];
extern struct rb_root *root_stable_tree;
extern struct rb_root *root_unstable_tree;

#ifdef CONFIG_KSM_ADAPTIVE
/* A lookup in the stable (0) or unstable (1) tree, or one compare of it. */
static inline void tree_count(int tree, bool compare)
{
	ksm_tree_count(compare ? &ksm_tree_stats.compares[tree] :
				 &ksm_tree_stats.lookups[tree]);
}
#else
static inline void tree_count(int tree, bool compare)
{
}
#endif

#ifdef CONFIG_KSM_ADAPTIVE
extern unsigned int ksm_nr_shards;

static inline unsigned int node_shard(struct ksm_stable_node *node)
{
	return node->shard;
}

static inline void set_node_shard(struct ksm_stable_node *node,
				  unsigned int shard)
{
	node->shard = shard;
}

static inline unsigned int item_shard(struct ksm_rmap_item *rmap_item)
{
	return rmap_item->shard;
}

static inline void set_item_shard(struct ksm_rmap_item *rmap_item,
				  unsigned int shard)
{
	rmap_item->shard = shard;
}
#else
#define ksm_nr_shards	1U

static inline unsigned int node_shard(struct ksm_stable_node *node)
{
	return 0;
}

static inline void set_node_shard(struct ksm_stable_node *node,
				  unsigned int shard)
{
}

static inline unsigned int item_shard(struct ksm_rmap_item *rmap_item)
{
	return 0;
}

static inline void set_item_shard(struct ksm_rmap_item *rmap_item,
				  unsigned int shard)
{
}
#endif

/* The tree of node index @nid and shard @shard in the array @roots. */
static inline struct rb_root *tree_root(struct rb_root *roots, int nid,
					unsigned int shard)
{
	return roots + nid * ksm_nr_shards + shard;
}

/* The shard of a page of checksum @checksum. */
static inline unsigned int checksum_shard(u32 checksum)
{
	return ksm_nr_shards > 1 ? ksm_tree_shard_of(checksum, ksm_nr_shards) :
				   0;
}

#ifdef CONFIG_NUMA
extern unsigned int ksm_merge_across_nodes;
#else
#define ksm_merge_across_nodes	1U
#endif

/* Recently migrated nodes of stable tree, pending proper placement */
extern struct list_head migrate_nodes;
extern struct ksm_scan ksm_scan;
/* Guards the mm_slots list and hash. */
extern spinlock_t ksm_mmlist_lock;
/*
 * rmap_items freed, all told: a link taken into an rmap_item list is still
 * in that list while this count is unchanged. Under ksm_thread_mutex.
 */
extern unsigned long ksm_rmap_free_gen;

/*
 * Pages the stock scanner takes from a page table in one walk, at most: the
 * mmap lock, the VMA lookup and the page-table walk are paid once for them.
 */
#define KSM_WALK_AHEAD	32
/* Pages one walk holds at most: as many as ksm_walk.young has bits. */
#define KSM_WALK_MAX	BITS_PER_LONG
/*
 * Pages the distilling scanner samples in a VMA at one time, at most: its
 * lowest level's runs, and a stretch's, are as long (DISTILL_RUN_LOW).
 */
#define KSM_DISTILL_AHEAD	KSM_WALK_MAX

/*
 * The pages one walk took (ksm_next_page_pmd_entry()) and, for the stock
 * scanner, the rmap_items it hands out one by one before it walks again:
 * the mmap lock, the VMA lookup and the page-table walk are paid once for
 * up to KSM_WALK_AHEAD pages of one page table; the distilling scanner
 * takes up to KSM_DISTILL_AHEAD sampled pages of one VMA under one mmap
 * lock, a page-table walk each run of them. A reference is held on each
 * page not handed out yet, as on the page being examined; no two pages of
 * one large folio are taken, so that splitting it sees one reference.
 * ksmd's own; emptied before ksmd lets go of ksm_thread_mutex, so that
 * nothing it holds outlives a scan batch.
 */
struct ksm_walk {
	unsigned int limit;	/* pages the stock scanner is to examine */
	unsigned int want;	/* nr to stop this walk at */
	unsigned int nr;	/* pages taken */
	unsigned int next;	/* next to hand out of item[] */
	bool refused;		/* stopped at a large folio it holds */
	unsigned long young;	/* bit i: page[i] was found young */
	unsigned long addr[KSM_WALK_MAX];
	struct page *page[KSM_WALK_MAX];
	struct ksm_rmap_item *item[KSM_WALK_MAX];
};

extern struct ksm_walk ksm_walk;

static inline bool ksm_test_exit(struct mm_struct *mm)
{
	return atomic_read(&mm->mm_users) == 0;
}

static inline struct ksm_stable_node *folio_stable_node(struct folio *folio)
{
	return folio_test_ksm(folio) ? folio_raw_mapping(folio) : NULL;
}

static inline struct ksm_stable_node *page_stable_node(struct page *page)
{
	return folio_stable_node(page_folio(page));
}

/*
 * This helper is used for getting right index into array of tree roots.
 * When merge_across_nodes knob is set to 1, there are only two rb-trees for
 * stable and unstable pages from all nodes with roots in index 0. Otherwise,
 * every node has its own stable and unstable tree.
 */
static inline int get_kpfn_nid(unsigned long kpfn)
{
	return ksm_merge_across_nodes || !IS_ENABLED(CONFIG_NUMA) ? 0 :
	       pfn_to_nid(kpfn);
}

/* The node index of the stable tree @stable_node is in. */
static inline int stable_node_nid(struct ksm_stable_node *stable_node)
{
#ifdef CONFIG_NUMA
	return stable_node->nid;
#else
	return 0;
#endif
}

/*
 * Merge domains (mm/ksm_merge_domains.c): the domain is the first part of both
 * trees' key. A stable node keeps the domain of its mappings; an unstable
 * item's is its mm's, as of the compare.
 */
#ifdef CONFIG_KSM_ADAPTIVE
static inline u64 node_domain(struct ksm_stable_node *node)
{
	return node->domain;
}

static inline void set_node_domain(struct ksm_stable_node *node, u64 domain)
{
	node->domain = domain;
}

static inline u64 mm_domain(struct mm_struct *mm)
{
	return READ_ONCE(ksm_merge_domains) ? ksm_mm_domain(mm) : 0;
}

static inline void domain_count_move(void)
{
	WRITE_ONCE(ksm_merge_domain_moves, ksm_merge_domain_moves + 1);
}
#else
static inline u64 node_domain(struct ksm_stable_node *node)
{
	return 0;
}

static inline void set_node_domain(struct ksm_stable_node *node, u64 domain)
{
}

static inline u64 mm_domain(struct mm_struct *mm)
{
	return 0;
}

static inline void domain_count_move(void)
{
}
#endif

#ifdef CONFIG_KSM_ADAPTIVE
void ksm_adaptive_slot_init(struct ksm_mm_slot *mm_slot, struct mm_struct *mm);
void ksm_adaptive_slot_free(struct ksm_mm_slot *mm_slot);
#else
static inline void ksm_adaptive_slot_init(struct ksm_mm_slot *mm_slot,
					  struct mm_struct *mm)
{
}

static inline void ksm_adaptive_slot_free(struct ksm_mm_slot *mm_slot)
{
}
#endif

static inline struct ksm_distill_mm *slot_distill(struct ksm_mm_slot *mm_slot)
{
#ifdef CONFIG_KSM_ADAPTIVE
	return &mm_slot->distill;
#else
	return NULL;
#endif
}

/* The mechanism in mm/ksm.c that the scanners call; by ksmd. */
void free_rmap_item(struct ksm_rmap_item *rmap_item);
unsigned char unstable_age(const struct ksm_rmap_item *rmap_item);
void remove_rmap_item_from_tree(struct ksm_rmap_item *rmap_item);
bool should_skip_rmap_item(struct page *page, struct ksm_rmap_item *rmap_item);
struct ksm_rmap_item *get_next_rmap_item(struct ksm_mm_slot *mm_slot,
					 struct ksm_rmap_item **rmap_list,
					 unsigned long addr);
void ksm_walk_unlock(void);
void ksm_walk_hold(struct mm_struct *mm, struct vm_area_struct *vma);
struct vm_area_struct *ksm_walk_held_vma(struct mm_struct *mm);
void ksm_mmap_lock(struct mm_struct *mm);
void ksm_mmap_unlock(struct mm_struct *mm);
void ksm_walk_reset(void);
unsigned int ksm_walk_pages(struct vm_area_struct *vma, unsigned long start,
			    unsigned long end, unsigned int want);
struct ksm_rmap_item *ksm_walk_next(struct page **page);
void ksm_walk_drop(unsigned int i);
int ksm_walk_refs(struct folio *folio);
bool ksm_walk_stock(struct ksm_mm_slot *mm_slot, struct vm_area_struct *vma,
		    struct ksm_rmap_item **item, struct page **page);
struct ksm_mm_slot *ksm_mm_slot_lookup(struct mm_struct *mm);
void unstable_trees_reset(void);
void stable_trees_rekey(void);
int ksm_reshape(int (*apply)(void *arg, bool check), void *arg,
		bool merged_busy);

/* mm/ksm_placement.c: placement on the merge paths; by ksmd */
#ifdef CONFIG_KSM_ADAPTIVE
void placement_count_remote(struct ksm_rmap_item *rmap_item,
			    struct ksm_stable_node *stable_node);
void placement_merged(struct ksm_rmap_item *rmap_item,
		      struct ksm_stable_node *stable_node);
void placement_uncount_remote(struct ksm_rmap_item *rmap_item);
bool placement_wants_young(void);
void placement_scan_start(void);
void placement_visit(struct ksm_rmap_item *rmap_item, struct page *page,
		     bool young);
bool placement_keep_tree_page(struct ksm_rmap_item *rmap_item, struct page *page,
			      struct ksm_rmap_item *tree_rmap_item,
			      struct page *tree_page, int *why);
int placement_join(struct ksm_rmap_item *joiner,
		   struct ksm_stable_node *stable_node, struct page *kpage);
void placement_revisit(struct ksm_rmap_item *rmap_item,
		       struct ksm_stable_node *stable_node, struct page *page);
void placement_count(int why);
void placement_migrate(struct folio *folio, int nid);
void placement_flush(void);
void placement_show_stat(struct seq_file *m, struct mm_struct *mm);
#else
static inline void placement_count_remote(struct ksm_rmap_item *rmap_item,
					  struct ksm_stable_node *stable_node)
{
}

static inline void placement_merged(struct ksm_rmap_item *rmap_item,
				    struct ksm_stable_node *stable_node)
{
}

static inline void placement_uncount_remote(struct ksm_rmap_item *rmap_item)
{
}

static inline bool placement_wants_young(void)
{
	return false;
}

static inline void placement_revisit(struct ksm_rmap_item *rmap_item,
				     struct ksm_stable_node *stable_node,
				     struct page *page)
{
}

static inline void placement_flush(void)
{
}

static inline void placement_scan_start(void)
{
}

static inline void placement_visit(struct ksm_rmap_item *rmap_item,
				   struct page *page, bool young)
{
}

static inline bool placement_keep_tree_page(struct ksm_rmap_item *rmap_item,
					    struct page *page,
					    struct ksm_rmap_item *tree_rmap_item,
					    struct page *tree_page, int *why)
{
	*why = -1;
	return false;
}

static inline int placement_join(struct ksm_rmap_item *joiner,
				 struct ksm_stable_node *stable_node,
				 struct page *kpage)
{
	return NUMA_NO_NODE;
}

static inline void placement_count(int why)
{
}

static inline void placement_migrate(struct folio *folio, int nid)
{
	folio_put(folio);
}
#endif

/* What a page key's check says of a page visited (ksm_page_key_ops). */
enum ksm_page_check {
	KSM_PAGE_CHANGED,	/* not merged now: changed since the last visit */
	KSM_PAGE_SEARCH,	/* merged if the trees hold its equal */
	KSM_PAGE_FILE,		/* that, and filed in the unstable tree */
};

/**
 * struct ksm_page_key_ops - how KSM tells pages apart before comparing them
 * @check:	a page is visited (@first_sight: by a scanner that merges on
 *		first sight): store its new checksum or key in
 *		@rmap_item->oldchecksum (KSM's checksum, on first sight, only
 *		when use_zero_pages or the shards need it), and say whether
 *		it may merge now and be filed in the unstable tree
 * @zero:	what @check stores for a page of zeroes
 * @key:	the key of a page in the trees, which are then ordered by key
 *		first and contents second: a page is compared only with pages
 *		of its key, and may be merged with a KSM page of its key
 *		without a compare before the merge's own; an unstable item's
 *		key is its oldchecksum (optional: ordered by contents alone)
 * @collision:	two pages of one key differ; the compare began at @t0
 *		(ktime_get_ns()) (optional)
 * @unstable_root: the unstable tree of node index @nid for pages of key
 *		@key, or NULL for tree_root()'s; only without shards (optional)
 *
 * KSM's checksum is ksm_checksum_keys (mm/ksm.c), the adaptive page hash
 * ksm_page_hash_keys (mm/ksm_page_hash_keys.c). The one in force changes
 * only where the unstable trees are emptied, and the stable trees are
 * re-keyed then (stable_trees_rekey()). By ksmd, under ksm_thread_mutex.
 */
struct ksm_page_key_ops {
	enum ksm_page_check (*check)(struct page *page,
				     struct ksm_rmap_item *rmap_item,
				     bool first_sight);
	const u32 *zero;
	u32 (*key)(struct page *page);
	void (*collision)(u64 t0, struct page *a, struct page *b);
	struct rb_root *(*unstable_root)(int nid, u32 key);
};

extern const struct ksm_page_key_ops ksm_checksum_keys;

/* mm/ksm_page_hash_keys.c: the page hash on KSM's paths; by ksmd */
#ifdef CONFIG_KSM_ADAPTIVE
/*
 * Unstable tree resets within a scan, at most: an item in the tree must
 * be visited again before 256 resets (unstable_age()), and the scan visits
 * each once.
 */
#define PAGE_HASH_PROBE_RESETS	64
/*
 * Two rounds' resets (PAGE_HASH_PROBE_RESETS and the round's end each), and
 * DISTILL_JUMP_RESETS more for a region sampled in a stretch; under 256.
 */
#define UNSTABLE_MAX_AGE	\
	(2 * PAGE_HASH_PROBE_RESETS + 2 + DISTILL_JUMP_RESETS)
static_assert(UNSTABLE_MAX_AGE < SEQNR_MASK);

/* The page key in force: ksm_checksum_keys or ksm_page_hash_keys. */
extern const struct ksm_page_key_ops *ksm_page_keys;

static inline u32 node_key(struct ksm_stable_node *node)
{
	return node->key;
}

static inline void set_node_key(struct ksm_stable_node *node, u32 key)
{
	node->key = key;
}

struct ksm_stable_node *page_hash_hint(u64 domain, unsigned int shard, u32 key);
void page_hash_hint_set(struct ksm_stable_node *dup, u64 domain,
			unsigned int shard, u32 key);
void page_hash_forget(struct ksm_stable_node *dup);
bool page_hash_pending(void);
void page_hash_round(void);
bool page_hash_probe_round(void);
void page_hash_unstable_reset(void);
void page_hash_init(void);
#else
#define UNSTABLE_MAX_AGE	1
#define ksm_page_keys	(&ksm_checksum_keys)

static inline u32 node_key(struct ksm_stable_node *node)
{
	return 0;
}

static inline void set_node_key(struct ksm_stable_node *node, u32 key)
{
}

static inline struct ksm_stable_node *page_hash_hint(u64 domain,
						     unsigned int shard, u32 key)
{
	return NULL;
}

static inline void page_hash_hint_set(struct ksm_stable_node *dup, u64 domain,
				      unsigned int shard, u32 key)
{
}

static inline void page_hash_forget(struct ksm_stable_node *dup)
{
}

static inline bool page_hash_pending(void)
{
	return false;
}

static inline void page_hash_round(void)
{
}

static inline bool page_hash_probe_round(void)
{
	return false;
}

static inline void page_hash_unstable_reset(void)
{
}

static inline void page_hash_init(void)
{
}
#endif

/* The key of @page in the trees: 0 for all when they have none. */
static inline u32 page_key(struct page *page)
{
	return ksm_page_keys->key ? ksm_page_keys->key(page) : 0;
}

/* The key of an unstable item, as page_key() was of its page. */
static inline u32 item_key(struct ksm_rmap_item *rmap_item)
{
	return ksm_page_keys->key ? rmap_item->oldchecksum : 0;
}

/* Order of two pages by (merge domain, key), before their contents. */
static inline int domain_key_cmp(u64 domain, u32 key, u64 node_domain,
				 u32 node_key)
{
	if (domain != node_domain)
		return domain < node_domain ? -1 : 1;
	return key < node_key ? -1 : key > node_key;
}

/* When a compare of pages of one key begins, if a collision is timed. */
static inline u64 key_clock(void)
{
	return ksm_page_keys->collision ? ktime_get_ns() : 0;
}

/* Pages @a and @b of one key differ: the compare began at @t0. */
static inline void key_collision(u64 t0, struct page *a, struct page *b)
{
	if (ksm_page_keys->collision)
		ksm_page_keys->collision(t0, a, b);
}

/**
 * struct ksm_scanner_ops - a scanner: which pages ksmd examines, and when
 * @paced:	it takes pages_to_scan pages a batch and sleeps
 *		sleep_millisecs between batches (the advisor tunes them)
 * @first_sight: it merges a page the first time it examines it, without
 *		waiting for the page's checksum to hold over two visits
 * @batch:	one batch of ksmd's work, under ksm_thread_mutex: examine
 *		pages with ksm_do_scan(). @cont: the batch before was this
 *		scanner's, and ksmd did not stop since. Return how long ksmd
 *		sleeps before the next batch (ns).
 * @round_start: a round over every mm begins (optional)
 * @mm_start:	the round enters the mm of @mm_slot (optional)
 * @scan_vma:	take the pages of mergeable @vma to examine next, from
 *		ksm_scan.address on, into ksm_walk with their rmap_items, under
 *		the mm's mmap read lock. Return true with the first one's
 *		rmap_item in *@item (NULL when none could be allocated) and its
 *		page, referenced, in *@page; false when the VMA has none left.
 * @mm_end:	the round leaves the mm of @mm_slot, which is @exiting or
 *		not, with ksm_scan.rmap_list past the last rmap_item to keep
 *		(optional)
 * @round_end:	the round ended; @tree_lost: the unstable tree was emptied
 *		since the scanner began to fill it. Return whether the round
 *		covered all memory: it then counts in full_scans, and the
 *		unstable tree is emptied at the next round's start (optional:
 *		every round does)
 * @examined:	a page the last @scan_vma took was examined: whether it was
 *		merged before and is now, and ksmd's time examining it (ns)
 *		(optional)
 * @partner_merged: a page of this scanner's merged with the page of
 *		@rmap_item, found in the unstable tree (optional)
 * @released:	ksmd spent @ns freeing what memory gone left behind (the
 *		rmap_items of exited mms and unmapped VMAs, stale stable
 *		nodes), not scanning (optional)
 * @cow_break:	a write fault broke COW of a merged page of @mm at @addr;
 *		called without ksm_thread_mutex (optional)
 *
 * KSM's own walk of every page of every mergeable VMA is the stock scanner
 * (ksm_stock_scanner, in mm/ksm.c); the distilling scanner samples regions
 * (ksm_distill_scanner, mm/ksm_distill_walk.c). The scanner in force
 * changes between batches, under ksm_thread_mutex.
 */
struct ksm_scanner_ops {
	bool paced;
	bool first_sight;
	u64 (*batch)(bool cont);
	void (*round_start)(void);
	void (*mm_start)(struct ksm_mm_slot *mm_slot);
	bool (*scan_vma)(struct ksm_mm_slot *mm_slot, struct vm_area_struct *vma,
			 struct ksm_rmap_item **item, struct page **page);
	void (*mm_end)(struct ksm_mm_slot *mm_slot, bool exiting);
	bool (*round_end)(bool tree_lost);
	void (*examined)(bool was_merged, bool merged, u64 ns);
	void (*partner_merged)(struct ksm_rmap_item *rmap_item);
	void (*released)(u64 ns);
	void (*cow_break)(struct mm_struct *mm, unsigned long addr);
};

extern const struct ksm_scanner_ops ksm_stock_scanner;
void ksm_do_scan(unsigned int scan_npages);
int ksmd_should_run(void);

/*
 * The scanner in force, and how it changes: ksm_set_scanner() returns -EBUSY
 * for an unpaced one while the advisor is on.
 */
extern const struct ksm_scanner_ops *ksm_scanner;
int ksm_set_scanner(const struct ksm_scanner_ops *scanner);

#ifdef CONFIG_KSM_ADAPTIVE
extern const struct ksm_scanner_ops ksm_distill_scanner;

/* mm/ksm_distill_walk.c: an mm's line in /proc/<pid>/ksm_stat */
void distill_show_stat(struct seq_file *m, struct mm_struct *mm);
#endif

#endif /* __MM_KSM_INTERNAL_H */
