/* SPDX-License-Identifier: GPL-2.0 */
/*
 * UKSM-style hierarchical region distilling for KSM: the interface between
 * the scan loop in mm/ksm.c and the scanner policy in mm/ksm_distill.c.
 */
#ifndef __MM_KSM_DISTILL_H
#define __MM_KSM_DISTILL_H

#include <linux/list.h>
#include <linux/log2.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/spinlock.h>
#include <linux/atomic.h>
#include <linux/time64.h>
#include <linux/types.h>

struct mm_struct;
struct seq_file;
struct ksm_rmap_item;

#define KSM_DISTILL_MAX_LEVELS	8

/*
 * Unstable tree resets within which a region the distilling scanner samples
 * in a stretch is walked over every rmap_item again (distill_walk_to()): an
 * rmap_item in an unstable tree must be met before its age (unstable_age())
 * passes UNSTABLE_MAX_AGE, and a walk that goes straight to the region's
 * stretch meets only the rmap_items there. A walk over every one begins at
 * most a round after these resets, and meets an rmap_item at most a round
 * after it began.
 */
#define DISTILL_JUMP_RESETS	32UL

/* Pages found merged already that send a region back to level 0. */
#define KSM_DISTILL_EVIDENCE	8UL
/*
 * Samples a round must have taken, at least KSM_DISTILL_JUMP_PCT percent of
 * them merged and none COW-broken, for its region to go straight to the top.
 */
#define KSM_DISTILL_JUMP_EVIDENCE	32UL
#define KSM_DISTILL_JUMP_PCT	50
/*
 * The probe a region that proves dense below the top level takes before it
 * goes there (ksm_probe_verdict()): about KSM_DISTILL_PROBE_PAGES samples
 * spread over it, charged at the top level's share; it passes once its
 * merged pages stood KSM_DISTILL_PROBE_EXPOSURE_S page-seconds in all, or
 * twice Vlife went by, unless its merged pages were COW-broken more than
 * once in KSM_DISTILL_PROBE_LIFE_S page-seconds of them: merges that writes
 * undo within ten minutes on average are not worth the top level's CPU, nor
 * the COW faults. A region whose probe failed is held on level 0, sampled
 * 2^@cow_shift times sparser, @cow_shift one higher after each judging
 * that counted COW breaks and one lower after each that counted none, up
 * to KSM_DISTILL_COW_SHIFT_MAX; it may probe again at 0.
 */
#define KSM_DISTILL_PROBE_PAGES		512UL
#define KSM_DISTILL_PROBE_EXPOSURE_S	1536UL
#define KSM_DISTILL_PROBE_LIFE_S	600UL
#define KSM_DISTILL_COW_SHIFT_MAX	6U
/*
 * A round that found this many times more pages merged already than it
 * merged new ones met the stragglers of a region merged through: no
 * promotion.
 */
#define KSM_DISTILL_STRAGGLERS	8UL
/* Percent of a level's CPU share its sleeps aim at (ksm_share_sleep_ns()). */
#define KSM_DISTILL_AIM_PCT	95
/*
 * A batch is charged at most KSM_DISTILL_STALL_X times the decaying average
 * of the batches charged before it, and never held below
 * KSM_DISTILL_STALL_MIN_NS (five batches): more is taken for a host stall
 * (ksm_stall_charge()).
 */
#define KSM_DISTILL_STALL_X	4
#define KSM_DISTILL_STALL_MIN_NS	(10 * NSEC_PER_MSEC)
/* The longest sleep through rounds with nothing to examine (ms). */
#define KSM_DISTILL_IDLE_MS	1000U

/**
 * struct ksm_walk_link - a link into an mm's rmap_item list, and when taken
 * @link:	the rmap_item link (the list's head, or an rmap_item's
 *		&ksm_rmap_item.rmap_list)
 * @gen:	rmap_items freed, all told, when it was taken: it is good while
 *		none was freed since
 */
struct ksm_walk_link {
	struct ksm_rmap_item **link;
	unsigned long gen;
};

/**
 * struct ksm_region_walk - how mm/ksm.c's walk may cross a region: its own
 * @resume:	where the walk stood when the region's last stretch
 *		(&ksm_region.stretch) ended, for the next to start from
 * @tail:	the link past the region's last rmap_item
 * @round:	the round the walk last entered the region in (ksm_scan.rounds,
 *		which an unmerge does not reset)
 * @began:	unstable tree resets when it did
 * @aged:	unstable tree resets when the last walk began that went over
 *		every rmap_item of the region (and so aged those in an
 *		unstable tree)
 * @domain:	the mm's merge domain when that walk began: the region is
 *		crossed in one step only while the mm stays in it
 * @domain_began: the mm's merge domain when this round's walk entered the
 *		region
 * @jumped:	this round's walk went straight to @resume, @tail or a link
 *		of @links
 * @links:	for a region that is plain (@plain), one link a part of
 *		1 << @part_shift page slots: where the walk last stood just
 *		after an rmap_item of that part (at a sample point, or where a
 *		run of samples ended), so that a sample point in that part or
 *		the next few need not pass over the rmap_items before; NULL until
 *		the region is first found plain, and for a region of fewer
 *		than KSM_WALK_LINK_MIN parts. Allocated by mm/ksm.c's walk,
 *		freed with the region.
 * @part_shift:	log2 of the page slots a link of @links stands for
 *		(ksm_walk_part_shift())
 * @events_began: &ksm_region.events when this round's walk entered the region
 * @plain_events: &ksm_region.events when the last walk over every rmap_item
 *		of the region ended
 * @plain:	that walk met no merged page of the region, nor did a merge
 *		into it happen while it went on: while &ksm_region.events stays
 *		at @plain_events, the rmap_items it passes over are neither
 *		merged nor to be counted so, and only their aging is owed
 *		(the bound of DISTILL_JUMP_RESETS, as for a stretch)
 */
struct ksm_region_walk {
	struct ksm_walk_link resume;
	struct ksm_walk_link tail;
	unsigned long round;
	unsigned long began;
	unsigned long aged;
	u64 domain;
	u64 domain_began;
	bool jumped;
	struct ksm_walk_link *links;
	unsigned int part_shift;
	unsigned long events_began;
	unsigned long plain_events;
	bool plain;
};

/* Regions of fewer parts than this get no &ksm_region_walk.links. */
#define KSM_WALK_LINK_MIN	8UL
/* The most links a region gets: its parts grow with it past this many. */
#define KSM_WALK_LINK_MAX	1024UL
/* The fewest page slots a link stands for: a run of the lowest level. */
#define KSM_WALK_PART_MIN	64UL

/**
 * ksm_walk_part_shift() - the part of a region one walk link stands for
 * @pages:	the region's page slots
 *
 * Return: log2 of the page slots of a part: KSM_WALK_PART_MIN, or more so
 * that the region has at most KSM_WALK_LINK_MAX parts.
 */
static inline unsigned int ksm_walk_part_shift(unsigned long pages)
{
	unsigned long part = DIV_ROUND_UP(pages, KSM_WALK_LINK_MAX);

	return ilog2(roundup_pow_of_two(max(part, KSM_WALK_PART_MIN)));
}

/**
 * struct ksm_region - one mergeable VMA as the distilling scanner sees it
 * @list:	in &ksm_distill_mm.regions, sorted by @start
 * @start:	first address of the VMA when last seen
 * @end:	end of the VMA when last seen
 * @cookie:	the VMA's anon_vma address when last seen: an identity only,
 *		never dereferenced, so that a new mapping at the old range
 *		(munmap then mmap) is a new region
 * @born:	jiffies when the region was first seen
 * @seen:	number of the global round that last walked the region
 * @level:	0 (lowest, sampled most sparsely) to nr_levels - 1
 * @sampled:	pages whose contents were examined this round
 * @merged:	pages merged this round: its samples found equal to a stable
 *		or unstable page, and its pages in the unstable tree that
 *		another sample was found equal to
 * @merged_since: jiffies at the round's first merge in the region
 * @ksm_seen:	pages found merged already this round: sampled, or passed
 *		over by the walk
 * @events:	merges of its pages and merged pages found in it (the counts
 *		of @merged and @ksm_seen), all told: never reset
 * @cow:	COW breaks of merged pages this round, by writes of the
 *		process (not KSM's own unsharing); written by the fault path
 *		under &ksm_distill_mm.lock
 * @pass_epoch:	the first coverage in which the walk may pass over the
 *		region's merged slots again (ksm_distill_pass_merged()): set
 *		by a COW break, under &ksm_distill_mm.lock, two coverages past
 *		the one in progress, so that one coverage that began after the
 *		break examines every slot of the region
 * @cursor:	page index of the round's next sample point: first the
 *		round's offset, then the last sample plus the interval (in a
 *		stretch: first its part's start, then past the last run)
 * @cover_epoch: the coverage @cover_map and @nr_covered count for
 * @born_epoch:	the first coverage the region keeps open: the one in
 *		progress when it was first seen, or the one before if that one
 *		began in the round it was first seen in (it may have existed
 *		then)
 * @done_epoch: the last coverage in which every slot was sampled
 * @cover_map:	page slots sampled in the current pass over the region, one
 *		bit a page: a pass begins with each coverage and again when
 *		the previous pass sampled every slot
 * @nr_covered:	bits set in @cover_map
 * @blocking:	counted in the round's regions that keep the coverage open
 * @reopen_epoch: the last coverage a COW break reopened the region in
 * @stretch:	sampled this round in one stretch of consecutive slots from
 *		@cursor on (the top level), not at every interval-th slot
 * @quota:	slots the stretch may still take this round
 * @through:	the last round found every slot of it merged, sampled or
 *		passed over, with none newly merged and no COW break: this
 *		round's walk may cross it in one step (ksm_distill_through())
 * @walk:	mm/ksm.c's: where its walk may go straight to
 * @probing:	taking the probe before the top level (ksm_probe_verdict())
 * @probe_since: jiffies the probe counts from: the first merge of the round
 *		it began in
 * @probe_sampled: samples taken at the probe's interval
 * @probe_unpaid: of those, the ones of the walk's current batch not yet
 *		examined: they are charged at the top level's share
 *		(region_charge_level()), however the probe stands by then
 * @probe_merged: pages merged since @probe_since
 * @probe_msum:	sum over those of the milliseconds from @probe_since to
 *		their merge
 * @probe_cow:	COW breaks counted at judgings since the probe began (the
 *		round's own are in @cow)
 * @cow_shift:	held on level 0 after a failed probe, sampled 2^@cow_shift
 *		times sparser; 0 when not held
 *
 * The region list and the region fields but @cow and @pass_epoch are
 * written only by ksmd,
 * holding the mm's mmap lock for read and &ksm_distill_mm.lock; ksmd reads
 * them without the lock.
 */
struct ksm_region {
	struct list_head list;
	unsigned long start;
	unsigned long end;
	unsigned long cookie;
	unsigned long born;
	unsigned long seen;
	unsigned int level;
	unsigned long sampled;
	unsigned long merged;
	unsigned long merged_since;
	unsigned long ksm_seen;
	unsigned long events;
	unsigned long cow;
	unsigned long pass_epoch;
	unsigned long cursor;
	unsigned long cover_epoch;
	unsigned long born_epoch;
	unsigned long done_epoch;
	unsigned long *cover_map;
	unsigned long nr_covered;
	bool blocking;
	unsigned long reopen_epoch;
	bool stretch;
	unsigned long quota;
	bool through;
	struct ksm_region_walk walk;
	bool probing;
	unsigned long probe_since;
	unsigned long probe_sampled;
	unsigned int probe_unpaid;
	unsigned long probe_merged;
	u64 probe_msum;
	unsigned long probe_cow;
	unsigned int cow_shift;
};

/**
 * struct ksm_distill_mm - the regions of one mm, embedded in its mm_slot
 * @mm:		the mm (for tracepoints only)
 * @regions:	&ksm_region.list, sorted by address
 * @lock:	serializes the fault path (COW break counts) against ksmd
 *		changing the list; nests inside ksm_mmlist_lock
 * @sampled:	pages of this mm examined by the distilling scanner
 * @skipped:	page slots of this mm the sampling passed over
 * @cow:	COW breaks of merged pages of this mm counted
 */
struct ksm_distill_mm {
	struct mm_struct *mm;
	struct list_head regions;
	spinlock_t lock;	/* see above */
	unsigned long sampled;
	unsigned long skipped;
	unsigned long cow;
};

/**
 * struct ksm_region_round - what a region did in one global round
 * @sampled:	pages examined
 * @merged:	pages newly merged
 * @ksm_seen:	pages found merged already (sampled or passed over)
 * @cow:	COW breaks of its merged pages
 * @age_ms:	milliseconds since the region was first seen
 * @pages:	its size in pages
 * @stretch:	the round sampled one part of it in a stretch, not all of it
 */
struct ksm_region_round {
	unsigned long sampled;
	unsigned long merged;
	unsigned long ksm_seen;
	unsigned long cow;
	unsigned long age_ms;
	unsigned long pages;
	bool stretch;
};

/**
 * struct ksm_probe - what a region's probe saw so far
 * @exposure_ms: page-milliseconds merged: the age of each page merged since
 *		it counts, summed
 * @cow:	COW breaks of the region's merged pages since it counts
 * @age_ms:	milliseconds since it counts
 * @max_ms:	milliseconds after which it decides on what it saw (2 Vlife)
 */
struct ksm_probe {
	u64 exposure_ms;
	unsigned long cow;
	unsigned long age_ms;
	unsigned long max_ms;
};

enum ksm_probe_verdict {
	KSM_PROBE_WAIT,
	KSM_PROBE_PASS,
	KSM_PROBE_FAIL,
};

/**
 * struct ksm_distill_thresholds - promotion thresholds (UKSM's Vdup, Vcow,
 * Vlife)
 * @dup_pct:	promote only above this duplication ratio (merged/sampled)
 * @cow_pct:	promote only below this COW-break ratio (cow/merged)
 * @life_ms:	sample and promote only regions older than this
 */
struct ksm_distill_thresholds {
	unsigned int dup_pct;
	unsigned int cow_pct;
	unsigned int life_ms;
};

/**
 * struct ksm_governor - a CPU budget: UKSM's p and t
 * @name:	sysfs name
 * @top_permille: CPU share of the top level, in 1/1000 of a core
 * @round_ms:	expected time of a global round
 */
struct ksm_governor {
	const char *name;
	unsigned int top_permille;
	unsigned int round_ms;
};

#define KSM_NR_GOVERNORS	4

/* Knobs of the distilling scanner (sysfs writes them, ksmd reads them). */
struct ksm_distill_knobs {
	unsigned int governor;
	unsigned int nr_levels;
	unsigned int bottom_permille;
	struct ksm_distill_thresholds th;
};

/* Statistics of the distilling scanner, shown in sysfs. */
struct ksm_distill_stats {
	unsigned long rounds;
	unsigned long promotions;
	unsigned long demotions;
	unsigned long sampled;
	unsigned long skipped;
	atomic_long_t cow_breaks;
	unsigned long regions[KSM_DISTILL_MAX_LEVELS];
	unsigned long interval[KSM_DISTILL_MAX_LEVELS];
	unsigned long page_ns[KSM_DISTILL_MAX_LEVELS];
	/* Batches charged less than their CPU time, and the time left (ms). */
	unsigned long stalls;
	unsigned long stall_ms;
	/* Probes begun, and those that failed. */
	unsigned long probes;
	unsigned long probe_fails;
};

#ifdef CONFIG_KSM_ADAPTIVE
extern const struct ksm_governor ksm_governors[KSM_NR_GOVERNORS];
extern struct ksm_distill_knobs ksm_distill_knobs;
extern struct ksm_distill_stats ksm_distill_stats;

void ksm_distill_mm_init(struct ksm_distill_mm *dm, struct mm_struct *mm);
void ksm_distill_mm_free(struct ksm_distill_mm *dm);
void ksm_distill_cow(struct ksm_distill_mm *dm, unsigned long addr);
void ksm_distill_show_stat(struct seq_file *m, struct ksm_distill_mm *dm);

/*
 * The distilling scanner's policy (mm/ksm_distill.c), as its walk
 * (mm/ksm_distill_walk.c) calls it: which pages a round samples, and what
 * the samples tell of their regions.
 */
void ksm_distill_round_start(void);
bool ksm_distill_round_end(bool tree_lost);
struct ksm_region *ksm_distill_region_enter(struct ksm_distill_mm *dm,
					    unsigned long start,
					    unsigned long end,
					    unsigned long cookie);
unsigned long ksm_distill_next_sample(struct ksm_distill_mm *dm,
				      struct ksm_region *r,
				      unsigned long addr, unsigned int *run);
void ksm_distill_sampled(struct ksm_distill_mm *dm, struct ksm_region *r,
			 unsigned long addr, unsigned int nr);
void ksm_distill_mm_end(struct ksm_distill_mm *dm);
void ksm_distill_examined(struct ksm_distill_mm *dm, struct ksm_region *r,
			  bool was_merged, bool merged, u64 ns);
void ksm_distill_partner_merged(struct ksm_distill_mm *dm,
				unsigned long addr);
bool ksm_distill_through(struct ksm_region *r);
void ksm_distill_crossed(struct ksm_distill_mm *dm, struct ksm_region *r);
bool ksm_distill_pass_merged(struct ksm_region *r);
void ksm_distill_merged_slot(struct ksm_distill_mm *dm,
			     struct ksm_region *r, unsigned long addr);
void ksm_distill_charge(u64 ns);
void ksm_distill_released(u64 ns);
u64 ksm_distill_batch_sleep_ns(u64 busy_ns);
u64 ksm_distill_idle_ns(void);
#endif

#endif /* __MM_KSM_DISTILL_H */
