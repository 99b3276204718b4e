// SPDX-License-Identifier: GPL-2.0
/*
 * Hierarchical region distilling for KSM (UKSM, Xia et al., FAST '18).
 *
 * Every mergeable VMA is a region. Regions sit on levels 0 (lowest) to
 * nr_levels - 1; each level is sampled at its own interval, denser higher
 * up, with an offset permutation so that successive rounds pick
 * different pages. A global round is one walk of KSM's cursor over every
 * mm; when the walk meets a region for the first time in a round, the
 * region's previous round is judged: promoted one level when its
 * duplication ratio is above Vdup, its COW-break ratio below Vcow and it is
 * older than Vlife; back to level 0 when it merged nothing new and found
 * pages merged already numbering at least half its samples and
 * KSM_DISTILL_EVIDENCE (or the whole region); demoted otherwise. A region
 * below the top that proves dense (at least half of enough samples merged,
 * none COW-broken), at its judging or as its merges come in, takes a probe
 * first and stays on its level until the probe passes: then it goes
 * straight to the top, at once or at its judging (ksm_probe_verdict()).
 *
 * CPU is spent by budget: while ksmd examines pages of level l, it sleeps
 * so that it uses the share p_l of a core, where the top level's share is
 * the governor's, each level below gets half the share of the one above,
 * and the lowest gets the bottom share (0.2% by default). Level l's
 * interval follows from its pages L_l, the measured cost s of examining a
 * page and its part t_l = t / nr_levels of the governor's round time t:
 * interval = L_l * s / (t_l * p_l) (UKSM section 5.3).
 *
 * A coverage is a run of rounds that sampled every page slot of every
 * region (each region keeps a bitmap of the slots sampled in it): KSM's
 * full_scans counts coverages, and the unstable tree lives for one, so two
 * equal pages meet when both were sampled in it.
 *
 * Locking: every function here but ksm_distill_cow(), ksm_distill_mm_free()
 * and the statistics readers runs in ksmd under ksm_thread_mutex, for the
 * regions of an mm whose mmap lock ksmd holds for read. The region list of an
 * mm is changed under its ksm_distill_mm.lock, which ksm_distill_cow() (the
 * fault path, under ksm_mmlist_lock) takes to count a COW break.
 */

#include <linux/bitmap.h>
#include <linux/gcd.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <trace/events/ksm.h>

#include "ksm_adaptive.h"
#include "ksm_distill.h"

static bool ksm_region_dense(const struct ksm_region_round *rr);
static unsigned long ksm_idle_wait(unsigned long until, unsigned long now);

const struct ksm_governor ksm_governors[KSM_NR_GOVERNORS] = {
	{ "full", 950, 2000 },
	{ "medium", 475, 4000 },
	{ "low", 237, 8000 },
	{ "quiet", 10, 20000 },
};

struct ksm_distill_knobs ksm_distill_knobs = {
	.governor = 0,
	.nr_levels = 4,
	.bottom_permille = 2,
	.th = { .dup_pct = 10, .cow_pct = 10, .life_ms = 0 },
};

struct ksm_distill_stats ksm_distill_stats;

/* ksmd's state of the current round; ksmd only. */
static struct {
	unsigned long round;
	/* Seed of the offset permutation, drawn at boot. */
	u32 seed;
	const struct ksm_governor *gov;
	unsigned int bottom;
	unsigned int nr_levels;
	struct ksm_distill_thresholds th;
	unsigned long interval[KSM_DISTILL_MAX_LEVELS];
	/*
	 * Pages and regions per level met so far in this round, and the
	 * pages the round's intervals were sized for.
	 */
	unsigned long pages[KSM_DISTILL_MAX_LEVELS];
	unsigned long planned[KSM_DISTILL_MAX_LEVELS];
	unsigned long regions[KSM_DISTILL_MAX_LEVELS];
	/* Levels that held regions in the previous round (bit l: level l). */
	unsigned long populated;
	/*
	 * Since the last ksm_distill_batch_sleep_ns(): pages examined, the
	 * time spent examining them (ns, the walks to them not included), and
	 * the time charged to each level (ns, see ksm_distill_charge()):
	 * @last_level is the level of the page sampled last, @charge_from that
	 * of the page the current stretch of the walk began at, @walk_level
	 * the highest level of the regions whose merged slots it passed over
	 * (region_walked()), @stretch_sampled whether a sample ended it.
	 */
	unsigned long batch[KSM_DISTILL_MAX_LEVELS];
	u64 batch_ns[KSM_DISTILL_MAX_LEVELS];
	u64 charged[KSM_DISTILL_MAX_LEVELS];
	unsigned int last_level;
	unsigned int charge_from;
	unsigned int walk_level;
	bool stretch_sampled;
	/* Of the current stretch, the time freeing rmap_items took (ns). */
	u64 released_ns;
	/*
	 * Estimated cost of examining one page of each level (UKSM's s, per
	 * level: a stable-tree hit costs far less than a search of a deep
	 * unstable tree). The walk between samples is left out: it grows with
	 * the interval, and counting it would widen the interval further. It
	 * is charged to the budget.
	 */
	u64 page_ns[KSM_DISTILL_MAX_LEVELS];
	/*
	 * Decaying sums of examining time and pages behind page_ns, and the
	 * levels measured so far (bit l: level l).
	 */
	u64 cost_ns[KSM_DISTILL_MAX_LEVELS];
	u64 cost_pages[KSM_DISTILL_MAX_LEVELS];
	unsigned long measured;
	/*
	 * Decaying average of the CPU time charged a batch, and the time not
	 * charged as host stalls (ksm_stall_charge()).
	 */
	u64 stall_avg_ns;
	u64 stall_ns;
	/*
	 * Coverage: its number, the round it began in, and the regions met
	 * this round that keep it open (not sampled through yet).
	 */
	unsigned long epoch;
	unsigned long epoch_round;
	unsigned long uncovered;
	/* distill_broken_gen as the last round's end saw it. */
	unsigned long broken_gen;
	/*
	 * Of the current round: ksm_distill_stats.sampled at its start, and
	 * when (jiffies) the first region passed over as younger than Vlife
	 * comes of age, if @young. A round that examined nothing and completed
	 * no coverage while such a region waited leaves the sleep it allows
	 * in @idle_ns, for ksm_distill_idle_ns().
	 */
	unsigned long round_sampled;
	unsigned long young_until;
	u64 idle_ns;
	bool young;
} ds = {
	/*
	 * The scanner may be chosen mid-round, before a
	 * ksm_distill_round_start().
	 */
	.gov = &ksm_governors[0],
	.bottom = 2,
	.nr_levels = 4,
	.page_ns = { [0 ... KSM_DISTILL_MAX_LEVELS - 1] = 10000 },
};

static struct kmem_cache *region_cache;

/*
 * Bumped by the fault path at the first COW break in a region since its
 * judging that may reopen it (region_judge()): a round that sees it move
 * does not complete the coverage, and the next one reopens the region.
 */
static atomic_long_t distill_broken_gen;

/**
 * ksm_level_permille() - CPU share of a level
 * @gov:	the governor
 * @level:	0 (lowest) to @nr_levels - 1
 * @nr_levels:	number of levels
 * @bottom_permille: the lowest level's share
 *
 * Return: the share of a core, in 1/1000, that ksmd may use while it
 * examines pages of @level: the governor's at the top, half of the level
 * above's below it, @bottom_permille at the bottom, never below that.
 */
static unsigned int ksm_level_permille(const struct ksm_governor *gov,
				       unsigned int level, unsigned int nr_levels,
				       unsigned int bottom_permille)
{
	unsigned int shift = nr_levels - 1 - level;
	unsigned int p;

	if (!level)
		return bottom_permille;
	p = shift < 32 ? gov->top_permille >> shift : 0;
	return max(p, bottom_permille);
}

/**
 * ksm_level_round_ms() - a level's part of the global round (UKSM's t_l)
 * @round_ms:	the governor's global round time (t)
 * @nr_levels:	number of levels
 * @populated:	bit l set when level l holds regions
 * @level:	the level
 *
 * Each level gets t / @nr_levels (the paper derives t_l evenly from t).
 * A level without regions takes no time, so its part goes to the highest
 * level that holds regions: the round still takes about t, and the time
 * the empty levels leave is spent where the duplicates are.
 *
 * Return: t_l in milliseconds.
 */
static unsigned int ksm_level_round_ms(unsigned int round_ms, unsigned int nr_levels,
				       unsigned long populated, unsigned int level)
{
	unsigned int part = round_ms / max(1U, nr_levels);
	unsigned long below = populated & (BIT(level) - 1);

	if (level >= BITS_PER_LONG - 1 || populated >> (level + 1))
		return part;
	return round_ms - part * hweight_long(below);
}

/**
 * ksm_level_interval() - sampling interval of a level for one round
 * @level_pages: pages of the level's regions (UKSM's L_l)
 * @page_ns:	cost of examining one page (s)
 * @level_ms:	the level's part of the global round (t_l)
 * @permille:	the level's CPU share (p_l)
 *
 * Return: every how many pages one is sampled: L_l * s / (t_l * p_l),
 * rounded up to a power of two (so that small changes of L_l keep it,
 * and with it the coverage of the offset permutation), at least 1.
 */
static unsigned long ksm_level_interval(unsigned long level_pages, u64 page_ns,
					unsigned int level_ms, unsigned int permille)
{
	/* t_l * p_l in ns: level_ms * 1e6 * permille / 1000. */
	u64 budget_ns = (u64)level_ms * 1000 * permille;
	u64 need_ns = (u64)level_pages * page_ns;

	if (!budget_ns)
		return ULONG_MAX;
	need_ns = div64_u64(need_ns + budget_ns - 1, budget_ns);
	if (need_ns <= 1)
		return 1;
	if (need_ns > (1UL << (BITS_PER_LONG - 2)))
		return 1UL << (BITS_PER_LONG - 2);
	return roundup_pow_of_two((unsigned long)need_ns);
}

/**
 * ksm_stretch_part() - the part of a region a round's stretch samples
 * @round:	the global round
 * @pages:	the region's page slots
 * @interval:	the region's level's interval this round
 * @quota:	out: the slots the stretch is to take
 *
 * The region is cut in @interval parts of *@quota slots (the last one may be
 * shorter, or empty), taken in order: a round's part begins where the last
 * round's ended, and @interval consecutive rounds take every part once.
 * The part depends on nothing but the round and the region's size and
 * level, so that regions of similar processes are sampled at the same
 * slots in the same round, as with ksm_offset_perm().
 *
 * Return: the slot the part begins at (at or past @pages if it is empty).
 */
static unsigned long ksm_stretch_part(unsigned long round, unsigned long pages,
				      unsigned long interval, unsigned long *quota)
{
	interval = max(interval, 1UL);
	*quota = DIV_ROUND_UP(pages, interval);
	return (round % interval) * *quota;
}

/**
 * ksm_offset_perm() - the offset a region samples at in one round
 * @seed:	the permutation's seed
 * @round:	the global round
 * @interval:	the region's level's interval this round
 *
 * Successive rounds step the offset by a stride coprime with @interval, so
 * @interval consecutive rounds at one interval visit every offset once, in
 * an order that differs between seeds.
 *
 * Return: an offset in [0, @interval).
 */
static unsigned long ksm_offset_perm(u32 seed, unsigned long round,
				     unsigned long interval)
{
	unsigned long stride;

	if (interval <= 1)
		return 0;
	/* About 0.618 * interval, moved up to the next coprime. */
	stride = max_t(unsigned long, 1, div_u64((u64)interval * 633, 1024));
	while (gcd(stride, interval) != 1)
		stride++;
	return (unsigned long)(((u64)seed % interval +
				(u64)(round % interval) * stride) % interval);
}

/**
 * ksm_region_next_level() - judge a region after a global round
 * @level:	its level during the round
 * @nr_levels:	number of levels
 * @rr:		what it did in the round
 * @th:		the thresholds
 *
 * Duplication ratio: pages merged in the round over pages sampled in it.
 * Pages found merged already (sampled, or passed over by the walk) are the
 * evidence that all its duplicates are merged.
 * COW-break ratio: COW breaks of the region's merged pages in the round
 * over pages merged in it (infinite when it broke some and merged none),
 * so a region whose merges are mostly undone is demoted.
 * A region is promoted one level a round, or straight to the top when at
 * least KSM_DISTILL_JUMP_PCT percent of KSM_DISTILL_JUMP_EVIDENCE or more
 * samples merged and none of its merged pages was COW-broken (where
 * region_next_level() makes a region below the top take its probe first);
 * it is neither promoted nor demoted when it found KSM_DISTILL_STRAGGLERS
 * times more pages merged already than it merged. A round that sampled one
 * part of it in a stretch and merged nothing keeps its level: the part says
 * nothing of the rest.
 *
 * Return: the region's level for the next round.
 */
static int ksm_region_next_level(unsigned int level, unsigned int nr_levels,
				 const struct ksm_region_round *rr,
				 const struct ksm_distill_thresholds *th)
{
	bool dup_ok, cow_ok;

	if (level >= nr_levels)
		level = nr_levels - 1;
	if (rr->age_ms < th->life_ms)
		return 0;
	/*
	 * All its duplicates merged: back to the bottom, once nothing new
	 * merged and enough of its pages were found merged already (at least
	 * half as many as it sampled, and KSM_DISTILL_EVIDENCE or the whole
	 * region). Too few say nothing: it stays.
	 */
	if (!rr->merged && rr->ksm_seen * 2 >= rr->sampled) {
		/*
		 * A stretch that found its part merged through (a part merged
		 * in an earlier round, met again) would send the region down
		 * with the other parts unmerged, there to be sampled at the
		 * lowest level's pace. The round after it samples the whole
		 * region (region_judge()), whose evidence decides.
		 */
		if (rr->stretch)
			return level;
		if (rr->ksm_seen >= min(KSM_DISTILL_EVIDENCE, rr->pages))
			return 0;
		return level;
	}
	/* Nothing sampled (a small region between sample points): wait. */
	if (!rr->sampled)
		return level;
	dup_ok = rr->merged * 100 > (u64)th->dup_pct * rr->sampled;
	cow_ok = rr->merged ? rr->cow * 100 < (u64)th->cow_pct * rr->merged :
			      !rr->cow;
	if (!cow_ok)
		return level ? level - 1 : 0;
	/*
	 * A few new merges among many pages found merged already: the last
	 * duplicates of a region merged through, met on few samples. A
	 * denser level would only sample merged pages again: it stays.
	 */
	if (rr->merged && rr->ksm_seen >= KSM_DISTILL_STRAGGLERS * rr->merged)
		return level;
	if (!dup_ok)
		return level ? level - 1 : 0;
	/*
	 * At least half of enough samples merged and none broken: the region
	 * is dense beyond doubt, and climbing a level a round would leave
	 * much of it to be merged on levels that sample it sparsely.
	 */
	if (ksm_region_dense(rr))
		return nr_levels - 1;
	return min(level + 1, nr_levels - 1);
}

/**
 * ksm_region_dense() - whether a region is dense beyond doubt
 * @rr:		what it did so far in the round
 *
 * Return: true when at least KSM_DISTILL_JUMP_PCT percent of
 * KSM_DISTILL_JUMP_EVIDENCE or more samples merged and none of its merged
 * pages was COW-broken: such a region goes to the top level at once.
 */
static bool ksm_region_dense(const struct ksm_region_round *rr)
{
	return !rr->cow && rr->sampled >= KSM_DISTILL_JUMP_EVIDENCE &&
	       rr->merged * 100 >= (u64)KSM_DISTILL_JUMP_PCT * rr->sampled;
}

/**
 * ksm_region_through() - whether a round found a region merged through
 * @rr:		what it did in the round
 *
 * Every slot of the region held a merge (found so by a sample or passed
 * over by the walk: @rr->ksm_seen counts each slot once a round, as the
 * coverage does), none merged anew and none was COW-broken: the next round
 * would find the same, and its walk may cross the region in one step. A
 * round that sampled one part in a stretch saw only that part.
 *
 * Return: true when the region was merged through.
 */
static bool ksm_region_through(const struct ksm_region_round *rr)
{
	return !rr->stretch && !rr->merged && !rr->cow && rr->pages &&
	       rr->ksm_seen >= rr->pages;
}

/**
 * ksm_probe_verdict() - whether a region's probe lets it go to the top level
 * @p:		what the probe saw
 *
 * UKSM's COW-break ratio is judged a round at a time, on the round's merges:
 * a region whose writes undo each merged page once in minutes, 100 breaks
 * a second over 16384 pages (our `cow-broken`), breaks 1% of a round's
 * merges and passes Vcow, and is merged through at the top level only for
 * most of it to be broken again. The probe weighs breaks against the time
 * merged pages stood: it fails when they were broken more than once in
 * KSM_DISTILL_PROBE_LIFE_S page-seconds, as soon as that many breaks are
 * in, and passes at KSM_DISTILL_PROBE_EXPOSURE_S page-seconds without
 * them, or at @p->max_ms, for a small region that cannot stand that long,
 * on what it saw. With 1536 and 600, three breaks fail it: a region whose
 * merged pages last 50 minutes on average between writes fails in about
 * 1.5% of probes, one whose pages last under three minutes (`cow-broken`'s
 * 164 s) passes in under 0.5%.
 *
 * Return: KSM_PROBE_FAIL, KSM_PROBE_PASS, or KSM_PROBE_WAIT.
 */
static enum ksm_probe_verdict ksm_probe_verdict(const struct ksm_probe *p)
{
	u64 exposure = p->exposure_ms;
	u64 enough = (u64)KSM_DISTILL_PROBE_EXPOSURE_S * MSEC_PER_SEC;

	if ((u64)p->cow * KSM_DISTILL_PROBE_LIFE_S * MSEC_PER_SEC >
	    max(exposure, enough))
		return KSM_PROBE_FAIL;
	if (exposure >= enough || p->age_ms >= p->max_ms)
		return KSM_PROBE_PASS;
	return KSM_PROBE_WAIT;
}

/**
 * ksm_cow_shift_next() - how sparse a region held after a failed probe is
 * sampled next round
 * @shift:	its shift this round (at least 1: held)
 * @cow:	COW breaks of its merged pages counted in the round
 *
 * Return: one more (at most KSM_DISTILL_COW_SHIFT_MAX) when its merged pages
 * were broken, one less when not: at 0 it is free to probe again.
 */
static unsigned int ksm_cow_shift_next(unsigned int shift, unsigned long cow)
{
	if (cow)
		return min(shift + 1, KSM_DISTILL_COW_SHIFT_MAX);
	return shift ? shift - 1 : 0;
}

/* Vlife of this round: the knob, or by default the governor's round. */
static unsigned int life_ms(void)
{
	return ds.th.life_ms;
}

/* Level @l's interval this round, were its regions @pages pages. */
static unsigned long level_interval(unsigned int l, unsigned long pages)
{
	unsigned int p = ksm_level_permille(ds.gov, l, ds.nr_levels, ds.bottom);
	unsigned int ms = ksm_level_round_ms(ds.gov->round_ms, ds.nr_levels,
					     ds.populated, l);

	return ksm_level_interval(pages, ds.page_ns[l], ms, p);
}

/*
 * Level @l samples sparser from here on in this round if it holds more than
 * the round was sized for, or a page costs more than the round assumed.
 * Intervals never shrink within a round.
 */
static void level_grow(unsigned int l)
{
	unsigned long interval;

	interval = level_interval(l, max(ds.pages[l], ds.planned[l]));
	if (interval > ds.interval[l]) {
		ds.interval[l] = interval;
		WRITE_ONCE(ksm_distill_stats.interval[l], interval);
	}
}

/**
 * ksm_distill_round_start() - a global round starts
 *
 * The scanner counts its own rounds: KSM's count (ksm_scan.seqnr) starts
 * again at 0 when everything is unmerged (run=2), while the regions of the
 * mms that stay registered keep the round they were last seen in, which a
 * count started again would meet as this round's.
 */
void ksm_distill_round_start(void)
{
	const struct ksm_governor *gov;
	unsigned int l;

	gov = &ksm_governors[READ_ONCE(ksm_distill_knobs.governor)];
	ds.gov = gov;
	ds.bottom = READ_ONCE(ksm_distill_knobs.bottom_permille);
	ds.round++;
	/* Regions above a lowered top level are judged down to it. */
	ds.nr_levels = READ_ONCE(ksm_distill_knobs.nr_levels);
	ds.th.dup_pct = READ_ONCE(ksm_distill_knobs.th.dup_pct);
	ds.th.cow_pct = READ_ONCE(ksm_distill_knobs.th.cow_pct);
	ds.th.life_ms = READ_ONCE(ksm_distill_knobs.th.life_ms) ?: gov->round_ms;
	/* Levels are sized by what the previous round met. */
	ds.populated = 0;
	for (l = 0; l < ds.nr_levels; l++)
		if (ds.regions[l])
			ds.populated |= BIT(l);
	for (l = 0; l < KSM_DISTILL_MAX_LEVELS; l++) {
		ds.planned[l] = ds.pages[l];
		ds.interval[l] = level_interval(l, ds.pages[l]);
		WRITE_ONCE(ksm_distill_stats.regions[l], ds.regions[l]);
		WRITE_ONCE(ksm_distill_stats.interval[l], ds.interval[l]);
		ds.pages[l] = 0;
		ds.regions[l] = 0;
	}
	ds.uncovered = 0;
	ds.round_sampled = ksm_distill_stats.sampled;
	ds.young = false;
}

/**
 * ksm_distill_round_end() - the round ended
 * @tree_lost:	the unstable tree was emptied since the coverage began (a new
 *		page hash strength, or page_hash written)
 *
 * A coverage is complete when every region met in the round that existed
 * when the coverage began has had every page slot sampled since, or passed
 * over while merged (&ksm_region.cover_map). Such regions younger than
 * Vlife are not sampled and keep the coverage open; regions first seen
 * during it are left to the next. full_scans counts coverages, and the
 * unstable tree lives for one.
 *
 * With @tree_lost, pages sampled before the tree was emptied can no longer
 * meet their duplicates sampled after. The coverage is dropped, uncounted,
 * and a new one begins with the next round, so that two coverages still let
 * every two equal pages meet, as two full scans do.
 *
 * Return: whether the round completed a coverage (full_scans).
 */
bool ksm_distill_round_end(bool tree_lost)
{
	unsigned long gen = atomic_long_read(&distill_broken_gen);
	bool covered = !ds.uncovered && gen == ds.broken_gen && !tree_lost;

	ds.broken_gen = gen;
	/* Rounds until its first young region is of age would do the same. */
	ds.idle_ns = 0;
	if (!covered && ds.young &&
	    ksm_distill_stats.sampled == ds.round_sampled)
		ds.idle_ns = jiffies_to_nsecs(ksm_idle_wait(ds.young_until,
							    jiffies));

	WRITE_ONCE(ksm_distill_stats.rounds, ksm_distill_stats.rounds + 1);
	trace_ksm_distill_round(ksm_distill_stats.rounds, ksm_distill_stats.sampled,
				ksm_distill_stats.skipped, covered);
	if (covered || tree_lost) {
		ds.epoch++;
		ds.epoch_round = ds.round + 1;
	}
	return covered;
}

static unsigned long region_pages(const struct ksm_region *r)
{
	return (r->end - r->start) >> PAGE_SHIFT;
}

/*
 * @r takes its probe's samples: about KSM_DISTILL_PROBE_PAGES, one page
 * each, spread over it and charged at the top level's share (the top
 * level's work, which the probe decides on). Then it waits for the verdict
 * at its level's interval.
 */
static bool region_probe_sampling(const struct ksm_region *r)
{
	return r->probing && r->probe_sampled < KSM_DISTILL_PROBE_PAGES;
}

/*
 * The level @r's next examined sample is charged and measured at: a
 * probe's sample is paid at the top level's share even when the walk's
 * batch took the probe's last samples and the probe stopped sampling
 * before they were examined.
 */
static unsigned int region_charge_level(const struct ksm_region *r)
{
	return r->probe_unpaid ? ds.nr_levels - 1 : r->level;
}

/*
 * @r proved dense below the top level (ksm_region_dense()): it probes
 * before it goes there. The probe counts from the round's first merge, the
 * round's merges so far taken as spread evenly since.
 */
static void region_probe_start(struct ksm_region *r)
{
	unsigned long age = jiffies_to_msecs(jiffies - r->merged_since);

	r->probing = true;
	r->probe_since = r->merged_since;
	r->probe_sampled = 0;
	r->probe_merged = r->merged;
	r->probe_msum = (u64)r->merged * age / 2;
	r->probe_cow = 0;
	ksm_distill_stats.probes++;
}

/* The verdict on @r's probe, @cow breaks not yet in its count. */
static enum ksm_probe_verdict region_probe_verdict(struct ksm_region *r,
						   unsigned long cow)
{
	unsigned long age = jiffies_to_msecs(jiffies - r->probe_since);
	u64 total = (u64)r->probe_merged * age;
	struct ksm_probe p = {
		.exposure_ms = total - min(total, r->probe_msum),
		.cow = r->probe_cow + cow,
		.age_ms = age,
		.max_ms = 2 * life_ms(),
	};
	enum ksm_probe_verdict v = ksm_probe_verdict(&p);

	if (v != KSM_PROBE_WAIT)
		r->probing = false;
	if (v == KSM_PROBE_FAIL) {
		r->cow_shift = 1;
		ksm_distill_stats.probe_fails++;
	}
	return v;
}

/*
 * The level's interval, but no more than the region's size rounded up to a
 * power of two: a round then samples a small region at most once, and a
 * round without a sample of it wastes no more than half.
 */
static unsigned long region_interval(const struct ksm_region *r)
{
	unsigned long iv = max(1UL, ds.interval[r->level]);
	unsigned long pages = region_pages(r);

	if (region_probe_sampling(r))
		iv = min(iv, max(1UL, pages / KSM_DISTILL_PROBE_PAGES));
	else if (r->cow_shift)
		iv <<= r->cow_shift;
	return min(iv, roundup_pow_of_two(pages));
}

static void region_destroy(struct ksm_region *r)
{
	/* Its pages are gone: they keep this round's coverage open no more. */
	if (r->blocking && r->seen == ds.round)
		ds.uncovered--;
	kvfree(r->cover_map);
	kvfree(r->walk.links);
	kmem_cache_free(region_cache, r);
}

static void region_free(struct ksm_distill_mm *dm, struct ksm_region *r)
{
	spin_lock(&dm->lock);
	list_del(&r->list);
	spin_unlock(&dm->lock);
	region_destroy(r);
}

/*
 * Whether @r is sampled in a stretch this round: a region on the top level
 * (of more than one) is dense, so where its samples lie tells nothing of
 * it; taken one after the other, from where the last round's stretch ended
 * (ksm_stretch_part()), they let the walk go straight to them
 * (&ksm_region_walk.resume in mm/ksm.c) rather than step through the
 * rmap_items of every slot the region's pass merged before, as samples
 * spread over the region make it do each round.
 */
static bool region_stretches(const struct ksm_region *r)
{
	return ds.nr_levels > 1 && r->level == ds.nr_levels - 1;
}

/*
 * @r's level for the next round: a probe's verdict, its hold after a failed
 * one (level 0), or ksm_region_next_level(); a dense region that the latter
 * would send to the top probes first, as region_promote_early() has it.
 */
static unsigned int region_next_level(struct ksm_region *r,
				      const struct ksm_region_round *rr)
{
	unsigned int top = ds.nr_levels - 1;
	int level;

	if (r->probing) {
		r->probe_cow += rr->cow;
		switch (region_probe_verdict(r, 0)) {
		case KSM_PROBE_PASS:
			return top;
		case KSM_PROBE_FAIL:
			return 0;
		default:
			return min(r->level, top);
		}
	}
	if (r->cow_shift) {
		r->cow_shift = ksm_cow_shift_next(r->cow_shift, rr->cow);
		return 0;
	}
	level = ksm_region_next_level(r->level, ds.nr_levels, rr, &ds.th);
	if (level == top && r->level < top && ksm_region_dense(rr)) {
		region_probe_start(r);
		return r->level;
	}
	return level;
}

/* First sight of @r in this round: judge its previous round, restart. */
static void region_judge(struct ksm_region *r, struct ksm_distill_mm *dm)
{
	struct ksm_region_round rr = {
		.sampled = r->sampled,
		.merged = r->merged,
		.ksm_seen = r->ksm_seen,
		.age_ms = jiffies_to_msecs(jiffies - r->born),
		.pages = region_pages(r),
		.stretch = r->stretch,
	};
	bool reopen;
	int level;

	spin_lock(&dm->lock);
	rr.cow = r->cow;
	r->cow = 0;
	/*
	 * A new coverage restarts the pass anyway; the fault path reads
	 * @reopen_epoch under the lock.
	 */
	reopen = rr.cow && r->cover_epoch == ds.epoch &&
		 r->reopen_epoch != ds.epoch;
	if (reopen)
		r->reopen_epoch = ds.epoch;
	spin_unlock(&dm->lock);

	level = region_next_level(r, &rr);
	r->through = ksm_region_through(&rr);
	if (level > r->level)
		ksm_distill_stats.promotions++;
	else if (level < r->level)
		ksm_distill_stats.demotions++;
	if (level != r->level)
		trace_ksm_distill_level(dm->mm, r->start, r->end, r->level, level,
					rr.sampled, rr.merged, rr.cow);
	r->level = level;
	r->sampled = 0;
	r->merged = 0;
	r->ksm_seen = 0;
	r->seen = ds.round;
	ds.pages[level] += (r->end - r->start) >> PAGE_SHIFT;
	ds.regions[level]++;
	/*
	 * A level that holds more than the round was sized for (regions came
	 * in: new, promoted or demoted) samples sparser from here on, so that
	 * a region does not get the interval of an empty level.
	 */
	level_grow(level);

	/*
	 * Sampling this round: at one interval, the offset permutation visits
	 * every offset in @interval consecutive rounds. Its seed is drawn at
	 * boot and its step is the global round, both shared by all regions:
	 * regions of similar processes (the same binaries, libraries or guest
	 * images at the same place in their mappings) are sampled at the same
	 * slots in the same round, so their duplicates meet in the unstable
	 * tree at once rather than when both happen to have been sampled.
	 * On the top level a round samples one part of the region in a
	 * stretch instead (region_stretches()), the part also given by the
	 * global round; but a round there that merged nothing new is followed
	 * by one of spread samples, whose walk over every merged slot is the
	 * evidence that sends a region merged through back to the bottom at
	 * once (a stretch sees only its part). Which slots were sampled in the
	 * region's pass is kept apart (@cover_map), so a change of interval or
	 * level costs no coverage.
	 */
	r->stretch = region_stretches(r) && rr.merged;
	if (r->stretch)
		r->cursor = ksm_stretch_part(ds.round, region_pages(r),
					     region_interval(r), &r->quota);
	else
		r->cursor = ksm_offset_perm(ds.seed, ds.round,
					    region_interval(r));
	/*
	 * A new coverage, or a region sampled through in this one: a new pass
	 * over it begins. A region does not wait for the others' coverage to
	 * sample again, or a dense region would idle while a sparse one is
	 * covered at the bottom level's pace.
	 *
	 * A COW break since the region was passed over (its merged pages
	 * counted as covered) reopens it, once a coverage: a new pass, which
	 * keeps the coverage open, examines the pages whose merge the writes
	 * broke (distill_merge_intact() in mm/ksm.c), so that the coverage
	 * drops what is stale of them, as a full scan of the stock scanner
	 * after the writes does.
	 */
	if (reopen)
		r->done_epoch = ds.epoch - 1;
	if (reopen || r->cover_epoch != ds.epoch ||
	    r->nr_covered == region_pages(r)) {
		r->cover_epoch = ds.epoch;
		bitmap_zero(r->cover_map, region_pages(r));
		r->nr_covered = 0;
	}
	/* A region new in this coverage leaves it to the next one. */
	r->blocking = r->done_epoch != ds.epoch && r->born_epoch != ds.epoch;
	if (r->blocking)
		ds.uncovered++;
}

/* A pass over every slot of @r completed in this coverage. */
static void region_covered(struct ksm_region *r)
{
	r->done_epoch = ds.epoch;
	if (r->blocking) {
		r->blocking = false;
		ds.uncovered--;
	}
}

/* Slot @idx of @r is sampled this round: count it in the coverage. */
static void region_cover(struct ksm_region *r, unsigned long idx)
{
	if (__test_and_set_bit(idx, r->cover_map))
		return;
	if (++r->nr_covered == region_pages(r))
		region_covered(r);
}

/**
 * ksm_distill_region_enter() - the walk enters a mergeable VMA
 * @dm:		the regions of the mm walked
 * @start:	the VMA's first address
 * @end:	the VMA's end
 * @cookie:	the VMA's anon_vma address (&ksm_region.cookie)
 *
 * Find or create the VMA's region.
 *
 * Return: the region, or NULL if a new one could not be allocated.
 */
struct ksm_region *ksm_distill_region_enter(struct ksm_distill_mm *dm,
					    unsigned long start,
					    unsigned long end,
					    unsigned long cookie)
{
	struct ksm_region *r, *next, *nr, *from = NULL;
	unsigned long best = 0;

	/* Regions before @start not met in this round have gone. */
	list_for_each_entry_safe(r, next, &dm->regions, list) {
		if (r->end > start)
			break;
		if (r->seen != ds.round)
			region_free(dm, r);
	}
	if (&r->list != &dm->regions && r->start == start && r->end == end &&
	    r->cookie == cookie) {
		/* A new batch: the last one's samples not examined are lost. */
		r->probe_unpaid = 0;
		if (r->seen != ds.round)
			region_judge(r, dm);
		return r;
	}

	/*
	 * A new mapping, or the VMA of one split, merged or resized: the
	 * part of one mapping (same anon_vma) inherits the level and age of
	 * the old region it overlaps most.
	 */
	nr = kmem_cache_zalloc(region_cache, GFP_KERNEL);
	if (!nr)
		return NULL;
	nr->cover_map = kvcalloc(BITS_TO_LONGS((end - start) >> PAGE_SHIFT),
				 sizeof(unsigned long), GFP_KERNEL);
	if (!nr->cover_map) {
		kmem_cache_free(region_cache, nr);
		return NULL;
	}
	nr->start = start;
	nr->end = end;
	nr->cookie = cookie;
	nr->born = jiffies;
	nr->cover_epoch = ds.epoch;
	nr->done_epoch = ds.epoch - 1;
	nr->reopen_epoch = ds.epoch - 1;
	nr->born_epoch = ds.round == ds.epoch_round ? ds.epoch - 1 : ds.epoch;
	list_for_each_entry_safe_from(r, next, &dm->regions, list) {
		unsigned long lo, hi;

		if (r->start >= end)
			break;
		lo = max(r->start, start);
		hi = min(r->end, end);
		if (r->cookie == cookie && hi > lo && hi - lo > best) {
			best = hi - lo;
			from = r;
		}
	}
	if (from) {
		nr->level = from->level;
		nr->born = from->born;
		nr->born_epoch = from->born_epoch;
		nr->cow_shift = from->cow_shift;
	}
	nr->seen = ds.round - 1;
	/* Insert before the first region that starts at or after @start. */
	list_for_each_entry(r, &dm->regions, list)
		if (r->start >= start)
			break;
	spin_lock(&dm->lock);
	/* With the fault path's marks: none falls between copy and insert. */
	if (from)
		nr->pass_epoch = from->pass_epoch;
	list_add_tail(&nr->list, &r->list);
	spin_unlock(&dm->lock);
	/* Drop the old regions the new one covers. */
	r = list_next_entry(nr, list);
	list_for_each_entry_safe_from(r, next, &dm->regions, list) {
		if (r->start >= end)
			break;
		if (r->end <= end)
			region_free(dm, r);
	}
	if (nr->level >= ds.nr_levels)
		nr->level = ds.nr_levels - 1;
	region_judge(nr, dm);
	return nr;
}

/**
 * ksm_distill_mm_end() - the walk left the mm
 * @dm:		the regions of the mm walked
 *
 * Drop the regions the walk did not meet.
 */
void ksm_distill_mm_end(struct ksm_distill_mm *dm)
{
	struct ksm_region *r, *next;

	list_for_each_entry_safe(r, next, &dm->regions, list)
		if (r->seen != ds.round)
			region_free(dm, r);
}

/*
 * Slots a sample takes at most: a run of consecutive pages costs one
 * page-table walk and one pass over the rmap_items, where as many single
 * samples cost one each. The density of a level is kept: the next sample
 * point is a run's length of intervals on.
 */
#define DISTILL_RUN	8U
/*
 * At the lowest level, where most pages lie and each is sampled once in
 * hundreds of rounds, a sample's walk, mmap lock and region lookup cost as
 * much as its examining: runs there are as long as a walk takes (the
 * lowest level is to find where duplicates are; a run is a sample of its
 * page table as good as a page is): up to KSM_DISTILL_AHEAD, 64 pages on
 * 64-bit. A stretch's runs are as long.
 */
#define DISTILL_RUN_LOW	64U

/**
 * ksm_distill_next_sample() - where this round samples next in a region
 * @dm:		the regions of the mm walked
 * @r:		the region
 * @addr:	where the walk stands in @r
 * @run:	the most pages the caller can take at the address returned;
 *		becomes the most it is to sample from that address on in one
 *		walk (of one page table)
 *
 * Nothing is counted sampled until ksm_distill_sampled().
 *
 * Return: the first address >= @addr that this round samples, or @r->end.
 */
unsigned long ksm_distill_next_sample(struct ksm_distill_mm *dm,
				      struct ksm_region *r,
				      unsigned long addr, unsigned int *run)
{
	unsigned long idx, next, end, npages;
	unsigned int most;

	if (addr >= r->end)
		return r->end;
	npages = (r->end - addr) >> PAGE_SHIFT;
	if (jiffies_to_msecs(jiffies - r->born) < life_ms()) {
		unsigned long until = r->born + msecs_to_jiffies(life_ms());

		if (!ds.young || time_before(until, ds.young_until))
			ds.young_until = until;
		ds.young = true;
		dm->skipped += npages;
		ksm_distill_stats.skipped += npages;
		return r->end;
	}
	/*
	 * The round samples every interval-th slot from its offset on, each
	 * moved up to the first slot not sampled (or passed over merged) in
	 * this pass over the region: after a change of interval, offsets would
	 * otherwise meet slots sampled already, and the round sample nothing.
	 * The level's interval may have grown since the round began.
	 */
	idx = (addr - r->start) >> PAGE_SHIFT;
	next = r->stretch && !r->quota ? region_pages(r) :
	       find_next_zero_bit(r->cover_map, region_pages(r),
				  max(idx, r->cursor));
	if (next - idx >= npages) {
		dm->skipped += npages;
		ksm_distill_stats.skipped += npages;
		return r->end;
	}
	dm->skipped += next - idx;
	ksm_distill_stats.skipped += next - idx;
	/* The run: free slots from @next on, in the page table of @next. */
	if (r->stretch)
		most = min_t(unsigned long, r->quota, DISTILL_RUN_LOW);
	else if (region_probe_sampling(r))
		most = 1;
	else
		most = r->level ? DISTILL_RUN : DISTILL_RUN_LOW;
	addr = r->start + (next << PAGE_SHIFT);
	end = min(next + clamp(*run, 1U, most),
		  (pmd_addr_end(addr, r->end) - r->start) >> PAGE_SHIFT);
	*run = find_next_bit(r->cover_map, end, next) - next;
	return addr;
}

/**
 * ksm_distill_sampled() - the walk took slots of a run to sample
 * @dm:		the regions of the mm walked
 * @r:		the region
 * @addr:	the sample point the run starts at
 * @nr:		the slots taken from @addr
 *
 * The walk took the @nr slots from @addr, a sample point, of the run
 * ksm_distill_next_sample() gave: pages or holes, and no more than it gave.
 * The slots it did not take are sampled later.
 */
void ksm_distill_sampled(struct ksm_distill_mm *dm, struct ksm_region *r,
			 unsigned long addr, unsigned int nr)
{
	unsigned long idx = (addr - r->start) >> PAGE_SHIFT, end = idx + nr;

	if (r->stretch) {
		r->cursor = end;
		r->quota -= min_t(unsigned long, r->quota, nr);
	} else {
		if (region_probe_sampling(r))
			r->probe_unpaid += nr;
		r->cursor = idx + nr * region_interval(r);
		if (r->probing)
			r->probe_sampled += nr;
	}
	for (; idx < end; idx++)
		region_cover(r, idx);
}

/*
 * @r, below the top level, proved dense beyond doubt in this round before
 * its end (ksm_region_dense()): it takes the probe (ksm_probe_verdict()),
 * whose merges must stand long enough without COW breaks (breaks follow
 * merges: a region whose merges its writes undo shows none at its first
 * merges), and once it passes goes to the top level now rather than at its
 * next judging, which would leave it a round more (seconds at the lowest
 * level's share) on a level that samples a few pages of it. The rest of the
 * round samples it at the top level's interval from where the walk is; the
 * next judging weighs that part only. Its COW breaks are read without the
 * lock: one missed here is counted at the next judging. A region held after
 * a failed probe does not probe again before its judging frees it.
 */
static void region_promote_early(struct ksm_distill_mm *dm,
				 struct ksm_region *r)
{
	struct ksm_region_round rr = {
		.sampled = r->sampled,
		.merged = r->merged,
		.cow = READ_ONCE(r->cow),
	};
	unsigned int top = ds.nr_levels - 1;
	unsigned long pages = region_pages(r);

	if (!r->probing) {
		if (!r->cow_shift && ksm_region_dense(&rr))
			region_probe_start(r);
		return;
	}
	if (region_probe_verdict(r, rr.cow) != KSM_PROBE_PASS)
		return;
	ksm_distill_stats.promotions++;
	trace_ksm_distill_level(dm->mm, r->start, r->end, r->level, top,
				rr.sampled, rr.merged, rr.cow);
	/* Not met yet in this round, its judging counts it on its level. */
	if (r->seen == ds.round) {
		ds.pages[r->level] -= min(ds.pages[r->level], pages);
		ds.regions[r->level] -= !!ds.regions[r->level];
		ds.pages[top] += pages;
		ds.regions[top]++;
	}
	r->level = top;
	level_grow(top);
	r->sampled = 0;
	r->merged = 0;
	r->ksm_seen = 0;
	r->cursor = 0;
	r->stretch = region_stretches(r);
	r->quota = DIV_ROUND_UP(pages, region_interval(r));
}

/* A page of @r merged: a sample of it, or its page another sample met. */
static void region_merged(struct ksm_distill_mm *dm, struct ksm_region *r)
{
	r->events++;
	if (!r->merged++)
		r->merged_since = jiffies;
	if (r->probing) {
		r->probe_merged++;
		r->probe_msum += jiffies_to_msecs(jiffies - r->probe_since);
	}
	if (r->merged >= KSM_DISTILL_JUMP_EVIDENCE &&
	    r->level < ds.nr_levels - 1)
		region_promote_early(dm, r);
}

/**
 * ksm_distill_examined() - a sampled page was examined
 * @dm:		the regions of the mm walked
 * @r:		the page's region
 * @was_merged:	the page was merged before it was examined
 * @merged:	the page is merged now
 * @ns:		how long examining it took (ns), the walk to it not
 *		included
 */
void ksm_distill_examined(struct ksm_distill_mm *dm, struct ksm_region *r,
			  bool was_merged, bool merged, u64 ns)
{
	unsigned int l = region_charge_level(r);

	if (r->probe_unpaid)
		r->probe_unpaid--;
	ds.batch_ns[l] += ns;
	r->sampled++;
	if (was_merged) {
		r->ksm_seen++;
		r->events++;
	} else if (merged) {
		region_merged(dm, r);
	}
	dm->sampled++;
	ksm_distill_stats.sampled++;
	ds.batch[l]++;
	ds.last_level = l;
	ds.stretch_sampled = true;
}

/*
 * The walk passed over a merged slot of @r. Once enough of them were found
 * merged for its judging to act on (KSM_DISTILL_EVIDENCE, or the whole
 * region: ksm_region_next_level() then sends it down, or keeps it for one
 * round of spread samples after a stretch), the stretch of the walk serves
 * @r's level (ksm_distill_charge()): a pass over the merged slots of a region
 * on the top level is not paid at the lowest level's share, whose sleep
 * would hold the judging back. Fewer say nothing: a region that keeps its
 * level on them, with nothing to sample, would have its rounds paid at its
 * level's share, and ksmd would spin through them.
 */
static void region_walked(struct ksm_region *r)
{
	if (r->ksm_seen >= min(KSM_DISTILL_EVIDENCE, region_pages(r)))
		ds.walk_level = max(ds.walk_level, r->level);
}

/**
 * ksm_distill_charge() - charge the walk to a sample and its examining
 * @ns:		the time the walk to a sample (or to the round's end) and
 *		its examining took (ns)
 *
 * Charge @ns to the sample's level, or to the last one sampled.
 *
 * A stretch of the walk (from one sample to the next, round start and mmap
 * lock waits included) serves the levels of the samples at both its ends
 * and of the regions whose merged slots it passed over (region_walked()):
 * charge it to the highest, so that crossing from a dense region into a
 * sparse one, a round's start, or a pass over the merged slots of a region
 * on a high level, is not paid at the lowest level's share (whose sleep,
 * 500 times the time charged, holds every level: one ksmd, one walk). A
 * walk among regions of one level is charged to that level. The part of it
 * spent freeing rmap_items (ksm_distill_released()) is the top level's.
 */
void ksm_distill_charge(u64 ns)
{
	unsigned int l;
	u64 rel;

	/*
	 * Freeing the rmap_items of memory gone is owed to its unmapping, not
	 * to sampling: paid at the top level's share. Paid at the lowest
	 * one's, freeing an exited process's rmap_items would sleep ksmd, and
	 * every level with it, for 500 times as long: minutes for a large
	 * process.
	 */
	rel = min(ds.released_ns, ns);
	ds.released_ns = 0;
	ds.charged[min(ds.nr_levels, KSM_DISTILL_MAX_LEVELS) - 1] += rel;
	ns -= rel;

	if (ds.stretch_sampled) {
		l = max(ds.charge_from, ds.last_level);
		ds.charge_from = ds.last_level;
	} else {
		/*
		 * No sample ended it (the walk reached the round's end): it is
		 * the tail of the stretch before. After it, stretches without
		 * samples (rounds with nothing to sample) are the lowest
		 * level's, unless they passed over enough merged slots of a
		 * region above (region_walked()), so an idle scanner keeps to
		 * the lowest share.
		 */
		l = ds.charge_from;
		ds.charge_from = 0;
	}
	l = max(l, ds.walk_level);
	ds.walk_level = 0;
	ds.stretch_sampled = false;
	ds.charged[min(l, KSM_DISTILL_MAX_LEVELS - 1)] += ns;
}

/**
 * ksm_distill_released() - time the walk spent freeing rmap_items
 * @ns:		that time (ns)
 *
 * Freeing the rmap_items of memory gone (an mm that exited, VMAs unmapped,
 * the stable nodes of KSM pages freed) took @ns of the walk
 * ksm_distill_charge() is given next.
 */
void ksm_distill_released(u64 ns)
{
	ds.released_ns += ns;
}

/*
 * A batch examined @pages pages of level @l in @ns. The estimate is the
 * ratio of decaying sums, so a batch weighs by its pages and one slow page
 * in a batch of few moves it little. The sums halve each batch: at the
 * lowest level's share a batch comes a second, and a decay of an eighth
 * would take about ten batches to follow a change of cost (the page hash's
 * strength falling from 512 words to 1, or rising), the rounds it sizes
 * running long or short meanwhile. The first measure of a level stands
 * for the levels not measured yet: a region promoted to a level never
 * sampled gets an interval sized by a real cost, not by the start value.
 */
static void page_cost(unsigned int l, u64 ns, unsigned long pages)
{
	unsigned int m;

	ds.cost_ns[l] = ds.cost_ns[l] - (ds.cost_ns[l] >> 1) + ns;
	ds.cost_pages[l] = ds.cost_pages[l] - (ds.cost_pages[l] >> 1) + pages;
	ds.page_ns[l] = div64_u64(ds.cost_ns[l], ds.cost_pages[l]);
	if (!(ds.measured & BIT(l))) {
		ds.measured |= BIT(l);
		for (m = 0; m < KSM_DISTILL_MAX_LEVELS; m++) {
			if (ds.measured & BIT(m))
				continue;
			ds.page_ns[m] = ds.page_ns[l];
			WRITE_ONCE(ksm_distill_stats.page_ns[m], ds.page_ns[m]);
		}
	}
	WRITE_ONCE(ksm_distill_stats.page_ns[l], ds.page_ns[l]);
	if (l < ds.nr_levels)
		level_grow(l);
}

/**
 * ksm_share_sleep_ns() - the sleep that keeps a stretch of work in its share
 * @busy_ns:	CPU time the work took
 * @permille:	its share of a core, in 1/1000 (at least 1)
 *
 * A share is a ceiling, not a set point: the sleep aims at
 * KSM_DISTILL_AIM_PCT percent of it, so that what varies from one batch to
 * the next (a window that holds one batch more than sleeps, a late wakeup)
 * keeps ksmd under it. Aimed at the share itself, ksmd's use once all is
 * merged would straddle the share, above it about as often as below.
 *
 * Return: nanoseconds to sleep.
 */
static u64 ksm_share_sleep_ns(u64 busy_ns, unsigned int permille)
{
	u64 aim = (u64)max(permille, 1U) * KSM_DISTILL_AIM_PCT;

	return div64_u64(busy_ns * (1000 * 100 - aim), aim);
}

/**
 * ksm_stall_charge() - the CPU time a batch is charged, a host stall left out
 * @avg_ns:	decaying average of the time charged the batches before
 *		(updated)
 * @busy_ns:	ksmd's CPU time in the batch, as its runtime reads
 *
 * Under emulation without steal time, a vCPU that the host deschedules in
 * a batch comes back with the guest's clocks moved on, and the gap is
 * charged to ksmd as CPU. At the lowest level's 0.2%, each
 * second of it slept ksmd, every level with it, for about 500 s: new
 * duplicates would sit unmerged for minutes. A batch stops after
 * KSM_DISTILL_BATCH_NS of examining and the walk it is in, so its cost
 * moves slowly: one that took more than KSM_DISTILL_STALL_X times the
 * average (and more than KSM_DISTILL_STALL_MIN_NS) is charged that much.
 * Batches that grow for real (longer walks) raise the average by up to
 * three quarters a batch, so they are paid in full again within a few;
 * the charge left out of the few before is not recovered. A lone batch that
 * really took that long is charged as a stall too; such batches are rare,
 * and what this leaves out stays within the margin the sleeps keep below
 * the share (KSM_DISTILL_AIM_PCT).
 *
 * Return: the nanoseconds to charge, at most @busy_ns.
 */
static u64 ksm_stall_charge(u64 *avg_ns, u64 busy_ns)
{
	u64 cap = max_t(u64, *avg_ns * KSM_DISTILL_STALL_X,
			KSM_DISTILL_STALL_MIN_NS);
	u64 ns = min(busy_ns, cap);

	*avg_ns = *avg_ns - (*avg_ns >> 2) + (ns >> 2);
	return ns;
}

/**
 * ksm_distill_batch_sleep_ns() - the sleep after a batch
 * @busy_ns:	the CPU time the batch kept ksmd busy (ns)
 *
 * ksmd used @busy_ns of CPU: split it among the levels as charged, and sleep
 * so that the part of each level l stays within its share p_l
 * (ksm_share_sleep_ns()). The costs of a page are measured on all of it; the
 * budget is charged without a host stall (ksm_stall_charge()).
 *
 * Return: nanoseconds to sleep after the batch.
 */
u64 ksm_distill_batch_sleep_ns(u64 busy_ns)
{
	const struct ksm_governor *gov;
	unsigned int l, bottom, p;
	u64 total = 0, sleep = 0, ns;

	gov = &ksm_governors[READ_ONCE(ksm_distill_knobs.governor)];
	bottom = READ_ONCE(ksm_distill_knobs.bottom_permille);
	for (l = 0; l < KSM_DISTILL_MAX_LEVELS; l++)
		total += ds.charged[l];
	for (l = 0; l < KSM_DISTILL_MAX_LEVELS; l++) {
		if (!ds.batch[l])
			continue;
		/*
		 * The examining times are wall time: scale them to the CPU
		 * time the batch used, so that a preempted ksmd does not
		 * take its waits for the cost of a page.
		 */
		ns = ds.batch_ns[l];
		if (total > busy_ns)
			ns = div64_u64(ns * busy_ns, total);
		page_cost(l, ns, ds.batch[l]);
		ds.batch[l] = 0;
		ds.batch_ns[l] = 0;
	}
	ns = ksm_stall_charge(&ds.stall_avg_ns, busy_ns);
	if (ns < busy_ns) {
		ds.stall_ns += busy_ns - ns;
		WRITE_ONCE(ksm_distill_stats.stalls,
			   ksm_distill_stats.stalls + 1);
		WRITE_ONCE(ksm_distill_stats.stall_ms,
			   div_u64(ds.stall_ns, NSEC_PER_MSEC));
		busy_ns = ns;
	}
	if (!total) {
		/* Nothing charged: count it to the bottom level. */
		return ksm_share_sleep_ns(busy_ns, bottom);
	}
	for (l = 0; l < KSM_DISTILL_MAX_LEVELS; l++) {
		if (!ds.charged[l])
			continue;
		p = ksm_level_permille(gov, min(l, ds.nr_levels - 1),
				       ds.nr_levels, bottom);
		sleep += ksm_share_sleep_ns(div64_u64(busy_ns * ds.charged[l],
						      total), p);
		ds.charged[l] = 0;
	}
	return sleep;
}

/**
 * ksm_idle_wait() - how long ksmd may sleep through rounds with nothing to do
 * @until:	when (jiffies) the first young region comes of age
 * @now:	jiffies now
 *
 * A round that examined no page and completed no coverage while regions
 * younger than Vlife waited ends its batch: every round before the first of
 * them comes of age would walk the same regions and examine nothing again,
 * at the CPU share of the lowest level, a few milliseconds of a budget of
 * about a hundred a minute at 0.2%. It sleeps at most KSM_DISTILL_IDLE_MS,
 * so that a lowered Vlife or a region reopened by a COW break waits no
 * longer than that.
 *
 * Return: jiffies to sleep, one more than @until is away (the age is read
 * in whole milliseconds of jiffies), 0 when it has passed.
 */
static unsigned long ksm_idle_wait(unsigned long until, unsigned long now)
{
	if (!time_after(until, now))
		return 0;
	return min(until - now + 1, msecs_to_jiffies(KSM_DISTILL_IDLE_MS));
}

/**
 * ksm_distill_idle_ns() - the sleep through rounds with nothing to examine
 *
 * Read after a round's end. Reading it clears it.
 *
 * Return: after the round that just ended, the nanoseconds the rounds would
 * find nothing to examine (ksm_idle_wait()), so the batch ends and ksmd
 * sleeps as long; else 0.
 */
u64 ksm_distill_idle_ns(void)
{
	u64 ns = ds.idle_ns;

	ds.idle_ns = 0;
	return ns;
}

/* The region of @dm that holds @addr, or NULL; under @dm->lock or in ksmd. */
static struct ksm_region *region_at(struct ksm_distill_mm *dm,
				    unsigned long addr)
{
	struct ksm_region *r;

	list_for_each_entry(r, &dm->regions, list) {
		if (addr < r->start)
			break;
		if (addr < r->end)
			return r;
	}
	return NULL;
}

/**
 * ksm_distill_partner_merged() - a merge with a page of the unstable tree
 * @dm:		the regions of the page's mm
 * @addr:	the page's address
 *
 * A sample merged with the page at @addr of @dm, found in the unstable tree:
 * count the merge in that page's region too.
 *
 * Runs in ksmd, under ksm_mmlist_lock (which keeps @dm's mm_slot alive):
 * only ksmd changes @dm's region list and the regions' &ksm_region.merged,
 * so neither needs @dm->lock here.
 */
void ksm_distill_partner_merged(struct ksm_distill_mm *dm,
				unsigned long addr)
{
	struct ksm_region *r = region_at(dm, addr);

	if (r)
		region_merged(dm, r);
}

/**
 * ksm_distill_merged_slot() - the walk passed over a merged page
 * @dm:		the regions of the mm walked
 * @r:		the region
 * @addr:	the merged page's address in @r
 */
void ksm_distill_merged_slot(struct ksm_distill_mm *dm,
			     struct ksm_region *r, unsigned long addr)
{
	if (addr < r->start || addr >= r->end)
		return;
	/* Evidence that its duplicates are merged, as a merged sample is. */
	r->ksm_seen++;
	r->events++;
	region_cover(r, (addr - r->start) >> PAGE_SHIFT);
	region_walked(r);
}

/**
 * ksm_distill_pass_merged() - whether the walk may pass over merged slots
 * @r:		the region
 *
 * No COW break in @r keeps the walk from passing over its merged slots.
 *
 * Return: whether the walk may pass over merged slots of @r whose merge looks
 * intact (its KSM page mapped exactly once a sharer) without looking at them:
 * not after a COW break in @r, which a forked child's mapping of the same KSM
 * page would hide from that test.
 */
bool ksm_distill_pass_merged(struct ksm_region *r)
{
	return (long)(ds.epoch - READ_ONCE(r->pass_epoch)) >= 0;
}

/**
 * ksm_distill_through() - whether the walk may cross a region in one step
 * @r:		the region, at whose head the walk stands
 *
 * A region merged through in its last round, not sampled in a stretch in
 * this one and with no COW break counted since its judging (read without
 * the lock: one that comes later is judged next round). The walk calls
 * ksm_distill_crossed() when it crossed @r.
 *
 * Return: whether the walk may cross @r in one step: its last round found it
 * merged through.
 */
bool ksm_distill_through(struct ksm_region *r)
{
	return r->through && !r->stretch && !READ_ONCE(r->cow) &&
	       ksm_distill_pass_merged(r);
}

/**
 * ksm_distill_crossed() - the walk crossed a region in one step
 * @dm:		the regions of the mm walked
 * @r:		the region, merged through
 *
 * As if the walk passed every merged slot of @r: every slot counts as a
 * merged one passed over (ksm_distill_merged_slot()), and the region as
 * covered.
 */
void ksm_distill_crossed(struct ksm_distill_mm *dm, struct ksm_region *r)
{
	unsigned long pages = region_pages(r);

	r->ksm_seen += pages;
	dm->skipped += pages;
	ksm_distill_stats.skipped += pages;
	bitmap_fill(r->cover_map, pages);
	r->nr_covered = pages;
	region_covered(r);
	region_walked(r);
}

/**
 * ksm_distill_mm_init() - initialise the distilling state of a new mm_slot
 * @dm:		the mm_slot's distilling state
 * @mm:		the mm the mm_slot is for
 *
 * No region yet, and every count at zero. Called when KSM starts to scan
 * @mm (__ksm_enter()), before ksmd or the fault path can find the mm_slot.
 */
void ksm_distill_mm_init(struct ksm_distill_mm *dm, struct mm_struct *mm)
{
	dm->mm = mm;
	INIT_LIST_HEAD(&dm->regions);
	spin_lock_init(&dm->lock);
	dm->sampled = 0;
	dm->skipped = 0;
	dm->cow = 0;
}

/**
 * ksm_distill_mm_free() - free the regions of an mm_slot going away
 * @dm:		the mm_slot's distilling state
 *
 * The mm_slot is going away: no fault path can find it any more. This may
 * run beside ksmd (__ksm_exit()), so it leaves ksmd's round state alone: a
 * region it frees that kept the coverage open does so to the round's end.
 * Each region is freed with its coverage bitmap and walk links.
 */
void ksm_distill_mm_free(struct ksm_distill_mm *dm)
{
	struct ksm_region *r, *next;

	list_for_each_entry_safe(r, next, &dm->regions, list) {
		list_del(&r->list);
		kvfree(r->cover_map);
		kvfree(r->walk.links);
		kmem_cache_free(region_cache, r);
	}
}

/**
 * ksm_distill_cow() - count a COW break of a merged page
 * @dm:		the regions of the faulting mm
 * @addr:	the faulting address
 *
 * Called from the write-protect fault, under ksm_mmlist_lock.
 */
void ksm_distill_cow(struct ksm_distill_mm *dm, unsigned long addr)
{
	unsigned long epoch = READ_ONCE(ds.epoch);
	struct ksm_region *r;

	spin_lock(&dm->lock);
	dm->cow++;
	r = region_at(dm, addr);
	if (r) {
		/*
		 * ds.epoch is ksmd's, read racily: a coverage that began
		 * unseen began after this write and examines it anyway.
		 */
		if (!r->cow++ && READ_ONCE(r->reopen_epoch) != epoch)
			atomic_long_inc(&distill_broken_gen);
	}
	/*
	 * Every region that holds @addr, an old one a VMA split left for
	 * ksmd to drop and the new one alike, passes over no merged slot
	 * until the coverage after the next one at the earliest: one that
	 * began after the break, though ds.epoch may have moved on unseen,
	 * walks to every merged slot of the region.
	 */
	list_for_each_entry(r, &dm->regions, list) {
		if (addr < r->start)
			break;
		if (addr < r->end)
			WRITE_ONCE(r->pass_epoch, epoch + 3);
	}
	spin_unlock(&dm->lock);
	atomic_long_inc(&ksm_distill_stats.cow_breaks);
}

/**
 * ksm_distill_show_stat() - the distilling scanner's fields of ksm_stat
 * @m:		the /proc/<pid>/ksm_stat file
 * @dm:		the distilling state of the process's mm_slot, or NULL if KSM
 *		does not know its mm
 *
 * The fields appended to /proc/<pid>/ksm_stat: the pages sampled and
 * skipped, the COW breaks, and the regions on each level. Under
 * ksm_mmlist_lock; @dm's lock is taken for the counts.
 */
void ksm_distill_show_stat(struct seq_file *m, struct ksm_distill_mm *dm)
{
	unsigned long levels[KSM_DISTILL_MAX_LEVELS] = { 0 };
	struct ksm_distill_mm none = { .regions = LIST_HEAD_INIT(none.regions) };
	struct ksm_region *r;
	unsigned int l;

	/* An mm KSM does not know has none of it. */
	if (!dm) {
		spin_lock_init(&none.lock);
		dm = &none;
	}
	spin_lock(&dm->lock);
	list_for_each_entry(r, &dm->regions, list)
		levels[min_t(unsigned int, r->level, KSM_DISTILL_MAX_LEVELS - 1)]++;
	seq_printf(m, "ksm_distill_pages_sampled %lu\n", dm->sampled);
	seq_printf(m, "ksm_distill_pages_skipped %lu\n", dm->skipped);
	seq_printf(m, "ksm_distill_cow_breaks %lu\n", dm->cow);
	spin_unlock(&dm->lock);
	seq_puts(m, "ksm_distill_regions");
	for (l = 0; l < ds.nr_levels; l++)
		seq_printf(m, " %lu", levels[l]);
	seq_putc(m, '\n');
}

static int __init ksm_distill_init(void)
{
	ds.seed = get_random_u32();
	region_cache = KMEM_CACHE(ksm_region, 0);
	return region_cache ? 0 : -ENOMEM;
}
subsys_initcall(ksm_distill_init);

#include "tests/ksm_distill-kunit.h"
