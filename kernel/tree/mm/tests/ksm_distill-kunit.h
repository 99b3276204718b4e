/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests for the level, sampling and budget decisions of the
 * distilling scanner.
 */
#ifdef CONFIG_KSM_DISTILL_KUNIT_TEST

#ifndef _KSM_DISTILL_KUNIT_H
#define _KSM_DISTILL_KUNIT_H

#include <kunit/test.h>

static const struct ksm_distill_thresholds test_th = {
	.dup_pct = 10, .cow_pct = 10, .life_ms = 100,
};

static int judge(unsigned int level, unsigned long sampled,
		 unsigned long merged, unsigned long ksm_seen,
		 unsigned long cow, unsigned long age_ms)
{
	struct ksm_region_round rr = {
		.sampled = sampled, .merged = merged, .ksm_seen = ksm_seen,
		.cow = cow, .age_ms = age_ms, .pages = 1000,
	};

	return ksm_region_next_level(level, 4, &rr, &test_th);
}

/*
 * ksmd's round state and the statistics, which tests of the round's
 * functions change: the scanner is stock while KUnit runs, and they are put
 * back at the end (ds_restore()).
 */
struct ds_saved {
	typeof(ds) ds;
	struct ksm_distill_stats stats;
};

static struct ds_saved *ds_save(struct kunit *test)
{
	struct ds_saved *saved;

	saved = kunit_kmalloc(test, sizeof(*saved), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, saved);
	memcpy(&saved->ds, &ds, sizeof(ds));
	memcpy(&saved->stats, &ksm_distill_stats, sizeof(saved->stats));
	return saved;
}

static void ds_restore(const struct ds_saved *saved)
{
	memcpy(&ds, &saved->ds, sizeof(ds));
	memcpy(&ksm_distill_stats, &saved->stats, sizeof(ksm_distill_stats));
}

static void ksm_distill_part_test(struct kunit *test)
{
	static const unsigned long pages[] = {
		1, 64, 512, 65536, 65537, 262144, 1UL << 20, (1UL << 20) + 1,
		1UL << 28,
	};
	unsigned int i, shift;

	/* A run of the lowest level a part, up to 1024 parts. */
	KUNIT_EXPECT_EQ(test, ksm_walk_part_shift(1), 6U);
	KUNIT_EXPECT_EQ(test, ksm_walk_part_shift(65536), 6U);
	KUNIT_EXPECT_EQ(test, ksm_walk_part_shift(65537), 7U);
	KUNIT_EXPECT_EQ(test, ksm_walk_part_shift(1UL << 20), 10U);
	for (i = 0; i < ARRAY_SIZE(pages); i++) {
		shift = ksm_walk_part_shift(pages[i]);
		KUNIT_EXPECT_GE(test, 1UL << shift, KSM_WALK_PART_MIN);
		KUNIT_EXPECT_LE(test, DIV_ROUND_UP(pages[i], 1UL << shift),
				KSM_WALK_LINK_MAX);
		/* Not coarser than it must be. */
		if (shift > ilog2(KSM_WALK_PART_MIN))
			KUNIT_EXPECT_GT(test,
					DIV_ROUND_UP(pages[i], 1UL << (shift - 1)),
					KSM_WALK_LINK_MAX);
	}
}

static void ksm_distill_level_test(struct kunit *test)
{
	struct ksm_region_round rr = { .age_ms = 1000 };

	/* Duplicated, not broken, old enough: promoted, up to the top. */
	KUNIT_EXPECT_EQ(test, judge(0, 100, 30, 0, 0, 1000), 1);
	KUNIT_EXPECT_EQ(test, judge(2, 100, 50, 0, 4, 1000), 3);
	KUNIT_EXPECT_EQ(test, judge(3, 100, 50, 0, 0, 1000), 3);
	/* Duplication at the threshold is not above it: demoted. */
	KUNIT_EXPECT_EQ(test, judge(2, 100, 10, 0, 0, 1000), 1);
	KUNIT_EXPECT_EQ(test, judge(2, 100, 11, 0, 0, 1000), 3);
	/* Merges undone: COW ratio at or over Vcow demotes. */
	KUNIT_EXPECT_EQ(test, judge(2, 100, 50, 0, 5, 1000), 1);
	KUNIT_EXPECT_EQ(test, judge(2, 100, 50, 0, 4, 1000), 3);
	/* Broke merged pages without merging any: demoted. */
	KUNIT_EXPECT_EQ(test, judge(2, 100, 0, 0, 3, 1000), 1);
	/* Young regions stay at the bottom. */
	KUNIT_EXPECT_EQ(test, judge(2, 100, 90, 0, 0, 99), 0);
	/* All its duplicates merged: straight back to the bottom. */
	KUNIT_EXPECT_EQ(test, judge(3, 100, 0, 60, 0, 1000), 0);
	KUNIT_EXPECT_EQ(test, judge(3, 8, 0, 8, 0, 1000), 0);
	/*
	 * Its unique pages sampled, nothing new merged, its merged pages
	 * passed over by the walk (or nothing left to sample): all merged.
	 */
	KUNIT_EXPECT_EQ(test, judge(3, 640, 0, 5760, 0, 1000), 0);
	KUNIT_EXPECT_EQ(test, judge(3, 0, 0, 500, 0, 1000), 0);
	/* Too few found merged to say all are: it stays. */
	KUNIT_EXPECT_EQ(test, judge(3, 7, 0, 7, 0, 1000), 3);
	/*
	 * A stretch found its part merged through: the rest is unknown, it
	 * stays for a round that samples all of it. Its merges and its COW
	 * breaks count as in any round.
	 */
	rr.ksm_seen = 65536;
	rr.pages = 262144;
	rr.stretch = true;
	KUNIT_EXPECT_EQ(test, ksm_region_next_level(3, 4, &rr, &test_th), 3);
	rr.stretch = false;
	KUNIT_EXPECT_EQ(test, ksm_region_next_level(3, 4, &rr, &test_th), 0);
	rr.stretch = true;
	rr.sampled = 100;
	rr.merged = 1;
	rr.cow = 1;
	KUNIT_EXPECT_EQ(test, ksm_region_next_level(3, 4, &rr, &test_th), 2);
	/* Most of those sampled not merged, none new: demoted as sparse. */
	KUNIT_EXPECT_EQ(test, judge(3, 100, 0, 20, 0, 1000), 2);
	/* Nothing sampled: no information, it stays. */
	KUNIT_EXPECT_EQ(test, judge(2, 0, 0, 0, 0, 1000), 2);
	/* Sparse: demoted one level, never below 0. */
	KUNIT_EXPECT_EQ(test, judge(1, 100, 0, 0, 0, 1000), 0);
	KUNIT_EXPECT_EQ(test, judge(0, 100, 0, 0, 0, 1000), 0);
	/* A level above a lowered top is brought down to it. */
	KUNIT_EXPECT_EQ(test, judge(7, 100, 50, 0, 0, 1000), 3);
	/* Half or more of enough samples merged, none broken: to the top. */
	KUNIT_EXPECT_EQ(test, judge(0, 100, KSM_DISTILL_JUMP_PCT, 0, 0, 1000),
			3);
	KUNIT_EXPECT_EQ(test, judge(0, 100, 90, 0, 0, 1000), 3);
	KUNIT_EXPECT_EQ(test, judge(1, 32, 32, 0, 0, 1000), 3);
	/* Merges credited to both regions may outnumber the samples. */
	KUNIT_EXPECT_EQ(test, judge(0, 40, 70, 0, 0, 1000), 3);
	/* Just under the jump's ratio: one level. */
	KUNIT_EXPECT_EQ(test, judge(0, 100, KSM_DISTILL_JUMP_PCT - 1, 0, 0, 1000),
			1);
	/* Too few samples to jump on: one level. */
	KUNIT_EXPECT_EQ(test, judge(0, 31, 31, 0, 0, 1000), 1);
	/* One COW break under Vcow still allows a promotion, not a jump. */
	KUNIT_EXPECT_EQ(test, judge(0, 100, 100, 0, 1, 1000), 1);
	/* Too young: no jump either. */
	KUNIT_EXPECT_EQ(test, judge(0, 100, 100, 0, 0, 99), 0);
	/*
	 * A few stragglers merged in a region found merged already: it
	 * stays, neither promoted on their ratio to few samples nor demoted.
	 */
	KUNIT_EXPECT_EQ(test, judge(2, 32, 4, 5000, 0, 1000), 2);
	KUNIT_EXPECT_EQ(test, judge(3, 60000, 20, 160, 0, 1000), 3);
	/* New merges still one in eight of those found merged: promoted. */
	KUNIT_EXPECT_EQ(test, judge(1, 100, 40, 319, 0, 1000), 2);
	/* Stragglers whose merges are undone: demoted all the same. */
	KUNIT_EXPECT_EQ(test, judge(2, 32, 4, 5000, 1, 1000), 1);
}

static void ksm_distill_perm_test(struct kunit *test)
{
	static const unsigned long intervals[] = { 1, 2, 6, 7, 64, 1000 };
	unsigned long i, r, off;
	u32 seed;

	for (i = 0; i < ARRAY_SIZE(intervals); i++) {
		unsigned long n = intervals[i];
		unsigned long *seen = kunit_kcalloc(test, n, sizeof(*seen),
						    GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, seen);
		for (seed = 0; seed < 3; seed++) {
			memset(seen, 0, n * sizeof(*seen));
			/* n consecutive rounds visit every offset once. */
			for (r = 5; r < 5 + n; r++) {
				off = ksm_offset_perm(seed * 7919, r, n);
				KUNIT_ASSERT_LT(test, off, n);
				seen[off]++;
			}
			for (off = 0; off < n; off++)
				KUNIT_EXPECT_EQ(test, seen[off], 1UL);
		}
	}
}

static void ksm_distill_budget_test(struct kunit *test)
{
	const struct ksm_governor *full = &ksm_governors[0];
	const struct ksm_governor *quiet = &ksm_governors[3];

	/* Top level: the governor's share; each level below halves it. */
	KUNIT_EXPECT_EQ(test, ksm_level_permille(full, 3, 4, 2), 950U);
	KUNIT_EXPECT_EQ(test, ksm_level_permille(full, 2, 4, 2), 475U);
	KUNIT_EXPECT_EQ(test, ksm_level_permille(full, 1, 4, 2), 237U);
	/* The bottom level gets the bottom share, 0.2% by default. */
	KUNIT_EXPECT_EQ(test, ksm_level_permille(full, 0, 4, 2), 2U);
	/* Never below the bottom share. */
	KUNIT_EXPECT_EQ(test, ksm_level_permille(quiet, 1, 4, 2), 2U);
	KUNIT_EXPECT_EQ(test, ksm_level_permille(quiet, 3, 4, 2), 10U);
	/* Each governor doubles the round and halves the top share. */
	KUNIT_EXPECT_EQ(test, ksm_governors[1].round_ms, 2 * full->round_ms);
	KUNIT_EXPECT_EQ(test, ksm_governors[2].round_ms, 4 * full->round_ms);

	/*
	 * interval = L * s / (t_l * p): 262144 pages at 10 us, t_l = 0.5 s
	 * at 95%: 2.62 s / 0.475 s -> 6, up to the power of two 8.
	 */
	KUNIT_EXPECT_EQ(test, ksm_level_interval(262144, 10000, 500, 950), 8UL);
	/* Small levels are sampled whole. */
	KUNIT_EXPECT_EQ(test, ksm_level_interval(100, 10000, 500, 950), 1UL);
	KUNIT_EXPECT_EQ(test, ksm_level_interval(0, 10000, 500, 950), 1UL);
	/* At 0.2%, 262144 pages: 2.62 s / 1 ms -> 2622 -> 4096. */
	KUNIT_EXPECT_EQ(test, ksm_level_interval(262144, 10000, 500, 2), 4096UL);
	/* Exact powers of two stay. */
	KUNIT_EXPECT_EQ(test, ksm_level_interval(4 * 475, 1000000, 500, 950),
			4UL);
	/* No time or no share: nothing is sampled. */
	KUNIT_EXPECT_EQ(test, ksm_level_interval(100, 10000, 0, 950), ULONG_MAX);
	KUNIT_EXPECT_EQ(test, ksm_level_interval(100, 10000, 500, 0), ULONG_MAX);

	/*
	 * Sleeps aim at 95% of a share: 2 ms of work at 0.2% sleeps 1050.6 ms
	 * (998 at the share itself), at 95% 0.216 ms (0.105); a whole core
	 * sleeps 1/19 of the work.
	 */
	KUNIT_EXPECT_EQ(test, ksm_share_sleep_ns(2000000, 2), 1050631578ULL);
	KUNIT_EXPECT_EQ(test, ksm_share_sleep_ns(2000000, 950), 216066ULL);
	KUNIT_EXPECT_EQ(test, ksm_share_sleep_ns(1900000, 1000), 100000ULL);
	KUNIT_EXPECT_EQ(test, ksm_share_sleep_ns(0, 2), 0ULL);
	/* A share of 0 is taken as the least, 0.1%. */
	KUNIT_EXPECT_EQ(test, ksm_share_sleep_ns(95, 0), ksm_share_sleep_ns(95, 1));
}

static void ksm_distill_stall_test(struct kunit *test)
{
	u64 avg = 0, ms = NSEC_PER_MSEC;
	int i;

	/* The first batch: up to the floor. */
	KUNIT_EXPECT_EQ(test, ksm_stall_charge(&avg, 3 * ms), 3 * ms);
	KUNIT_EXPECT_EQ(test, avg, 3 * ms / 4);
	avg = 0;
	KUNIT_EXPECT_EQ(test, ksm_stall_charge(&avg, 1000 * ms), 10 * ms);

	/* Steady 2.5 ms batches are paid in full... */
	avg = 0;
	for (i = 0; i < 40; i++)
		KUNIT_EXPECT_EQ(test, ksm_stall_charge(&avg, 2500000), 2500000ULL);
	KUNIT_EXPECT_GE(test, avg, 2400000ULL);
	KUNIT_EXPECT_LE(test, avg, 2500000ULL);
	/* ...a stall of a second among them is charged the floor... */
	KUNIT_EXPECT_EQ(test, ksm_stall_charge(&avg, 1000 * ms), 10 * ms);
	/* ...and the batches after it in full. */
	KUNIT_EXPECT_EQ(test, ksm_stall_charge(&avg, 2500000), 2500000ULL);

	/* Above the floor: up to four times the average. */
	avg = 20 * ms;
	KUNIT_EXPECT_EQ(test, ksm_stall_charge(&avg, 79 * ms), 79 * ms);
	avg = 20 * ms;
	KUNIT_EXPECT_EQ(test, ksm_stall_charge(&avg, 500 * ms), 80 * ms);
	KUNIT_EXPECT_EQ(test, avg, 35 * ms);

	/* Work that grows for real is paid in full within a few batches. */
	avg = 2500000;
	for (i = 0; i < 8; i++)
		if (ksm_stall_charge(&avg, 100 * ms) == 100 * ms)
			break;
	KUNIT_EXPECT_LT(test, i, 8);
	KUNIT_EXPECT_EQ(test, ksm_stall_charge(&avg, 100 * ms), 100 * ms);

	/* Never more than the batch used. */
	avg = 100 * ms;
	KUNIT_EXPECT_EQ(test, ksm_stall_charge(&avg, 0), 0ULL);
}

static void ksm_distill_round_time_test(struct kunit *test)
{
	/* Every level populated: t / N each. */
	KUNIT_EXPECT_EQ(test, ksm_level_round_ms(2000, 4, 0xf, 0), 500U);
	KUNIT_EXPECT_EQ(test, ksm_level_round_ms(2000, 4, 0xf, 3), 500U);
	/* Levels 0 and 3: the top takes what levels 1 and 2 leave. */
	KUNIT_EXPECT_EQ(test, ksm_level_round_ms(2000, 4, 0x9, 0), 500U);
	KUNIT_EXPECT_EQ(test, ksm_level_round_ms(2000, 4, 0x9, 3), 1500U);
	/* Only level 0 (all merged, or all new): it gets the whole round. */
	KUNIT_EXPECT_EQ(test, ksm_level_round_ms(2000, 4, 0x1, 0), 2000U);
	/* Levels 0 and 1: level 1 is the highest populated one. */
	KUNIT_EXPECT_EQ(test, ksm_level_round_ms(2000, 4, 0x3, 1), 1500U);
	KUNIT_EXPECT_EQ(test, ksm_level_round_ms(2000, 4, 0x3, 0), 500U);
	/* A level above every populated one (a region just promoted). */
	KUNIT_EXPECT_EQ(test, ksm_level_round_ms(2000, 4, 0x1, 2), 1500U);
	/* Nothing populated yet. */
	KUNIT_EXPECT_EQ(test, ksm_level_round_ms(2000, 4, 0, 0), 2000U);
	/* The parts never add up to more than the round. */
	KUNIT_EXPECT_EQ(test, ksm_level_round_ms(20000, 3, 0x5, 2) +
			      ksm_level_round_ms(20000, 3, 0x5, 0), 20000U);
}

/*
 * Sample points of one walk over @r from its start, into @out, taking runs
 * of at most @run pages: the slot of each run's first page, and in @len (if
 * not NULL) each run's length.
 */
static int walk_runs(struct ksm_region *r, unsigned int run,
		     unsigned long *out, unsigned int *len, int max)
{
	struct ksm_distill_mm dm = { };
	unsigned long addr = r->start;
	unsigned int got;
	int n = 0;

	while (n < max) {
		got = run;
		addr = ksm_distill_next_sample(&dm, r, addr, &got);
		if (addr >= r->end)
			break;
		ksm_distill_sampled(&dm, r, addr, got);
		if (len)
			len[n] = got;
		out[n++] = (addr - r->start) >> PAGE_SHIFT;
		addr += got * PAGE_SIZE;
	}
	return n;
}

/* Sample points of one walk over @r from its start, one page each. */
static int walk_samples(struct ksm_region *r, unsigned long *out, int max)
{
	return walk_runs(r, 1, out, NULL, max);
}

static void ksm_distill_sample_test(struct kunit *test)
{
	unsigned long map[1] = { 0 }, got[20];
	struct ksm_region r = {
		.start = 0x100000, .end = 0x100000 + 16 * PAGE_SIZE,
		.born = jiffies - HZ, .cursor = 1,
		.cover_map = map,
	};
	unsigned long interval = ds.interval[0];
	unsigned int life = ds.th.life_ms;
	int n;

	/* ksmd's round state: the scanner is stock while KUnit runs. */
	ds.th.life_ms = 0;
	ds.interval[0] = 4;
	/* Every interval-th slot from the offset. */
	n = walk_samples(&r, got, 20);
	KUNIT_EXPECT_EQ(test, n, 4);
	KUNIT_EXPECT_EQ(test, got[0], 1UL);
	KUNIT_EXPECT_EQ(test, got[3], 13UL);
	KUNIT_EXPECT_EQ(test, r.nr_covered, 4UL);

	/*
	 * Offset 1 again (as after a change of interval, which restarts the
	 * permutation): the slots of the last round are covered, so this one
	 * samples the next free ones (2, 6, 10, 14) instead of nothing new.
	 */
	r.cursor = 1;
	n = walk_samples(&r, got, 20);
	KUNIT_EXPECT_EQ(test, n, 4);
	KUNIT_EXPECT_EQ(test, got[0], 2UL);
	KUNIT_EXPECT_EQ(test, got[1], 6UL);
	KUNIT_EXPECT_EQ(test, got[3], 14UL);

	/* Rounds go on until every slot was sampled once, then none. */
	do {
		r.cursor = 0;
	} while (walk_samples(&r, got, 20));
	KUNIT_EXPECT_EQ(test, r.nr_covered, 16UL);
	KUNIT_EXPECT_EQ(test, map[0], 0xffffUL);

	/* Regions younger than Vlife are not sampled. */
	ds.th.life_ms = 10000;
	map[0] = 0;
	r.nr_covered = 0;
	r.born = jiffies;
	r.cursor = 0;
	KUNIT_EXPECT_EQ(test, walk_samples(&r, got, 20), 0);
	ds.th.life_ms = life;
	ds.interval[0] = interval;
}

static void ksm_distill_run_test(struct kunit *test)
{
	unsigned long map[BITS_TO_LONGS(128)] = { }, got[8];
	struct ksm_region r = {
		/* 24 slots before a page table's end, 40 after it. */
		.start = PMD_SIZE - 24 * PAGE_SIZE,
		.end = PMD_SIZE + 40 * PAGE_SIZE,
		.born = jiffies - HZ, .cursor = 2,
		.cover_map = map, .level = 1,
	};
	unsigned long interval = ds.interval[1], interval0 = ds.interval[0];
	unsigned int life = ds.th.life_ms, len[8];
	struct ksm_distill_mm dm = { };
	unsigned long addr;
	int n;

	ds.th.life_ms = 0;
	ds.interval[1] = 4;
	ds.interval[0] = 64;
	__set_bit(5, map);
	r.nr_covered = 1;
	n = walk_runs(&r, 100, got, len, 8);
	/* A run ends at a slot sampled already... */
	KUNIT_EXPECT_EQ(test, got[0], 2UL);
	KUNIT_EXPECT_EQ(test, len[0], 3U);
	/* ...and the next sample point is a run's length of intervals on. */
	KUNIT_EXPECT_EQ(test, got[1], 14UL);
	/* At most DISTILL_RUN slots. */
	KUNIT_EXPECT_EQ(test, len[1], DISTILL_RUN);
	KUNIT_EXPECT_EQ(test, got[2], 46UL);
	KUNIT_EXPECT_EQ(test, len[2], DISTILL_RUN);
	KUNIT_EXPECT_EQ(test, n, 3);
	KUNIT_EXPECT_EQ(test, r.nr_covered, 1UL + 3 + DISTILL_RUN * 2);
	KUNIT_EXPECT_TRUE(test, test_bit(21, map) && !test_bit(22, map));

	/* Never into the next page table... */
	bitmap_zero(map, 64);
	r.nr_covered = 0;
	r.cursor = 20;
	walk_runs(&r, 8, got, len, 1);
	KUNIT_EXPECT_EQ(test, got[0], 20UL);
	KUNIT_EXPECT_EQ(test, len[0], 4U);
	/* ...and no more than the caller has room for. */
	r.cursor = 30;
	walk_runs(&r, 2, got, len, 1);
	KUNIT_EXPECT_EQ(test, got[0], 30UL);
	KUNIT_EXPECT_EQ(test, len[0], 2U);
	KUNIT_EXPECT_EQ(test, r.nr_covered, 6UL);

	/*
	 * A run is sampled only as far as the walk took it (up to a page of
	 * a large folio the walk holds): the rest is left free, and the next
	 * sample point is as many intervals on as slots were taken.
	 */
	r.cursor = 40;
	len[0] = 8;
	addr = ksm_distill_next_sample(&dm, &r, r.start, &len[0]);
	KUNIT_EXPECT_EQ(test, addr, r.start + 40 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, len[0], 8U);
	len[0] = 8;
	KUNIT_EXPECT_EQ(test, ksm_distill_next_sample(&dm, &r, r.start, &len[0]),
			addr);
	ksm_distill_sampled(&dm, &r, addr, 1);
	KUNIT_EXPECT_EQ(test, r.nr_covered, 7UL);
	len[0] = 8;
	addr = ksm_distill_next_sample(&dm, &r, addr + PAGE_SIZE, &len[0]);
	KUNIT_EXPECT_EQ(test, addr, r.start + 44 * PAGE_SIZE);

	/*
	 * At the lowest level a run is up to DISTILL_RUN_LOW slots, and no
	 * more than the walk takes, nor past the region's end (40 slots on).
	 */
	bitmap_zero(map, 64);
	r.nr_covered = 0;
	r.level = 0;
	r.cursor = 24;
	len[0] = 64;
	addr = ksm_distill_next_sample(&dm, &r, r.start, &len[0]);
	KUNIT_EXPECT_EQ(test, addr, r.start + 24 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, len[0], min(DISTILL_RUN_LOW, 40U));
	len[0] = 16;
	addr = ksm_distill_next_sample(&dm, &r, r.start, &len[0]);
	KUNIT_EXPECT_EQ(test, len[0], min(DISTILL_RUN_LOW, 16U));
	/* In one page table of 128 free slots, the run stops at the cap. */
	bitmap_zero(map, 128);
	r.nr_covered = 0;
	r.start = 0;
	r.end = 128 * PAGE_SIZE;
	r.cursor = 0;
	len[0] = 2 * DISTILL_RUN_LOW;
	addr = ksm_distill_next_sample(&dm, &r, r.start, &len[0]);
	KUNIT_EXPECT_EQ(test, addr, 0UL);
	KUNIT_EXPECT_EQ(test, len[0], DISTILL_RUN_LOW);
	ds.th.life_ms = life;
	ds.interval[1] = interval;
	ds.interval[0] = interval0;
}

static void ksm_distill_dense_test(struct kunit *test)
{
	struct ksm_region_round rr = {
		.sampled = KSM_DISTILL_JUMP_EVIDENCE,
		.merged = KSM_DISTILL_JUMP_EVIDENCE * KSM_DISTILL_JUMP_PCT / 100 + 1,
	};
	unsigned long map[1] = { 0 };
	struct ksm_region r = {
		.start = 0x100000, .end = 0x100000 + 64 * PAGE_SIZE,
		.born = jiffies - 10 * HZ, .cover_map = map,
	};
	struct ksm_distill_mm dm = { };
	unsigned int nr_levels = ds.nr_levels, life = ds.th.life_ms, i;
	unsigned long round = ds.round, interval = ds.interval[3];
	unsigned long promotions = ksm_distill_stats.promotions;
	unsigned long probes = ksm_distill_stats.probes;

	KUNIT_EXPECT_TRUE(test, ksm_region_dense(&rr));
	/* Too few samples say nothing... */
	rr.sampled--;
	KUNIT_EXPECT_FALSE(test, ksm_region_dense(&rr));
	/* ...nor too few merges, nor one COW break. */
	rr.sampled = 100;
	rr.merged = KSM_DISTILL_JUMP_PCT - 1;
	KUNIT_EXPECT_FALSE(test, ksm_region_dense(&rr));
	rr.merged = 100;
	rr.cow = 1;
	KUNIT_EXPECT_FALSE(test, ksm_region_dense(&rr));

	/*
	 * A region on level 0 that proves dense in the round takes the probe,
	 * and goes to the top at once, from where the walk is, once the probe
	 * passes.
	 */
	ds.nr_levels = 4;
	ds.th.life_ms = 1000;
	ds.round = 7;
	r.seen = 6;
	r.cursor = 40;
	r.sampled = KSM_DISTILL_JUMP_EVIDENCE;
	for (i = 0; i < KSM_DISTILL_JUMP_EVIDENCE - 4; i++)
		region_merged(&dm, &r);
	KUNIT_EXPECT_EQ(test, r.level, 0U);
	KUNIT_EXPECT_FALSE(test, r.probing);
	/* Dense now: the probe begins, counting the round's merges. */
	for (; i < KSM_DISTILL_JUMP_EVIDENCE; i++)
		region_merged(&dm, &r);
	KUNIT_EXPECT_EQ(test, r.level, 0U);
	KUNIT_EXPECT_TRUE(test, r.probing);
	KUNIT_EXPECT_EQ(test, r.probe_merged, KSM_DISTILL_JUMP_EVIDENCE);
	KUNIT_EXPECT_EQ(test, r.merged, KSM_DISTILL_JUMP_EVIDENCE);
	/* Its merges stood 33 page-seconds, a second: it waits. */
	r.probe_since = jiffies - msecs_to_jiffies(1000);
	r.probe_msum = 0;
	region_merged(&dm, &r);
	KUNIT_EXPECT_EQ(test, r.level, 0U);
	KUNIT_EXPECT_TRUE(test, r.probing);
	/* Twice Vlife gone by with two COW breaks: it passes. */
	r.probe_since = jiffies - msecs_to_jiffies(2000);
	r.probe_cow = 1;
	r.cow = 1;
	region_merged(&dm, &r);
	KUNIT_EXPECT_EQ(test, r.level, 3U);
	KUNIT_EXPECT_FALSE(test, r.probing);
	r.cow = 0;
	KUNIT_EXPECT_EQ(test, r.sampled, 0UL);
	KUNIT_EXPECT_EQ(test, r.merged, 0UL);
	KUNIT_EXPECT_EQ(test, r.cursor, 0UL);
	/* On the top level it stays. */
	r.sampled = KSM_DISTILL_JUMP_EVIDENCE;
	r.merged = KSM_DISTILL_JUMP_EVIDENCE;
	r.merged_since = jiffies - msecs_to_jiffies(1000);
	region_merged(&dm, &r);
	KUNIT_EXPECT_EQ(test, r.level, 3U);
	KUNIT_EXPECT_EQ(test, r.merged, KSM_DISTILL_JUMP_EVIDENCE + 1);
	ds.nr_levels = nr_levels;
	ds.th.life_ms = life;
	ds.round = round;
	ds.interval[3] = interval;
	WRITE_ONCE(ksm_distill_stats.interval[3], interval);
	ksm_distill_stats.promotions = promotions;
	ksm_distill_stats.probes = probes;
}

static void ksm_distill_probe_test(struct kunit *test)
{
	const unsigned long s = MSEC_PER_SEC;
	struct ksm_probe p = { .age_ms = 1000, .max_ms = 4000 };
	struct ksm_distill_mm dm = { };
	struct ksm_region r = {
		.start = 0x100000, .end = 0x100000 + 16384 * PAGE_SIZE,
		.born = jiffies - 10 * HZ, .merged = 64,
	};
	struct ksm_region_round rr = { .sampled = 64, .merged = 64,
				       .age_ms = 10000, .pages = 16384 };
	struct ksm_distill_thresholds th = ds.th;
	unsigned int nr_levels = ds.nr_levels;
	unsigned long interval = ds.interval[0], round = ds.round;
	unsigned long probes = ksm_distill_stats.probes;
	unsigned long fails = ksm_distill_stats.probe_fails;
	unsigned long batch = ds.batch[3], sampled = ksm_distill_stats.sampled;
	u64 batch_ns = ds.batch_ns[3];
	unsigned int last_level = ds.last_level;
	bool stretch_sampled = ds.stretch_sampled;

	r.cover_map = kunit_kcalloc(test, BITS_TO_LONGS(16384),
				    sizeof(unsigned long), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r.cover_map);
	/* Too little exposure, too young, two breaks: it waits. */
	p.exposure_ms = 512 * s;
	p.cow = 2;
	KUNIT_EXPECT_EQ(test, ksm_probe_verdict(&p), KSM_PROBE_WAIT);
	/* Enough page-seconds with two breaks: it passes. */
	p.exposure_ms = KSM_DISTILL_PROBE_EXPOSURE_S * s;
	KUNIT_EXPECT_EQ(test, ksm_probe_verdict(&p), KSM_PROBE_PASS);
	/* Three breaks fail it, early or at the end. */
	p.cow = 3;
	KUNIT_EXPECT_EQ(test, ksm_probe_verdict(&p), KSM_PROBE_FAIL);
	p.exposure_ms = 100 * s;
	KUNIT_EXPECT_EQ(test, ksm_probe_verdict(&p), KSM_PROBE_FAIL);
	/* More exposure allows more breaks: one a LIFE of page-seconds. */
	p.exposure_ms = 4 * KSM_DISTILL_PROBE_LIFE_S * s;
	p.cow = 4;
	KUNIT_EXPECT_EQ(test, ksm_probe_verdict(&p), KSM_PROBE_PASS);
	p.cow = 5;
	KUNIT_EXPECT_EQ(test, ksm_probe_verdict(&p), KSM_PROBE_FAIL);
	/* A small region decides at max_ms on what it saw. */
	p.exposure_ms = 64 * s;
	p.cow = 0;
	p.age_ms = 3999;
	KUNIT_EXPECT_EQ(test, ksm_probe_verdict(&p), KSM_PROBE_WAIT);
	p.age_ms = 4000;
	KUNIT_EXPECT_EQ(test, ksm_probe_verdict(&p), KSM_PROBE_PASS);
	p.cow = 3;
	KUNIT_EXPECT_EQ(test, ksm_probe_verdict(&p), KSM_PROBE_FAIL);

	/* A held region: sparser after breaks, freed after quiet rounds. */
	KUNIT_EXPECT_EQ(test, ksm_cow_shift_next(1, 5), 2U);
	KUNIT_EXPECT_EQ(test, ksm_cow_shift_next(KSM_DISTILL_COW_SHIFT_MAX, 1),
			KSM_DISTILL_COW_SHIFT_MAX);
	KUNIT_EXPECT_EQ(test, ksm_cow_shift_next(3, 0), 2U);
	KUNIT_EXPECT_EQ(test, ksm_cow_shift_next(1, 0), 0U);

	/*
	 * Judged dense on level 0 (cow-broken's 16384 pages): no jump, the
	 * probe begins; it samples one page in 32 at the top level's share,
	 * then at its level's interval.
	 */
	ds.nr_levels = 4;
	ds.th = test_th;
	ds.th.life_ms = 2000;
	ds.interval[0] = 61;
	ds.round = 9;
	r.merged_since = jiffies - msecs_to_jiffies(500);
	KUNIT_EXPECT_EQ(test, region_next_level(&r, &rr), 0U);
	KUNIT_EXPECT_TRUE(test, r.probing);
	KUNIT_EXPECT_EQ(test, ksm_distill_stats.probes, probes + 1);
	KUNIT_EXPECT_EQ(test, r.probe_merged, 64UL);
	KUNIT_EXPECT_EQ(test, region_interval(&r), 32UL);
	KUNIT_EXPECT_EQ(test, region_charge_level(&r), 0U);
	/*
	 * A batch takes its last two samples: both are paid at the top
	 * level's share when examined, though the probe samples no more.
	 */
	r.probe_sampled = KSM_DISTILL_PROBE_PAGES - 2;
	ksm_distill_sampled(&dm, &r, r.start, 1);
	ksm_distill_sampled(&dm, &r, r.start + 32 * PAGE_SIZE, 1);
	KUNIT_EXPECT_FALSE(test, region_probe_sampling(&r));
	KUNIT_EXPECT_EQ(test, region_interval(&r), 61UL);
	KUNIT_EXPECT_EQ(test, r.probe_unpaid, 2U);
	ksm_distill_examined(&dm, &r, false, false, 1000);
	KUNIT_EXPECT_EQ(test, ds.last_level, 3U);
	ksm_distill_examined(&dm, &r, false, false, 1000);
	KUNIT_EXPECT_EQ(test, ds.last_level, 3U);
	KUNIT_EXPECT_EQ(test, ds.batch[3], batch + 2);
	KUNIT_EXPECT_EQ(test, region_charge_level(&r), 0U);
	/*
	 * One not examined (no page there) is dropped with its batch: the
	 * next batch enters the region again (met already in this round).
	 */
	r.probe_unpaid = 1;
	KUNIT_EXPECT_EQ(test, region_charge_level(&r), 3U);
	INIT_LIST_HEAD(&dm.regions);
	list_add(&r.list, &dm.regions);
	r.seen = ds.round;
	KUNIT_EXPECT_PTR_EQ(test, ksm_distill_region_enter(&dm, r.start, r.end,
							   r.cookie), &r);
	list_del(&r.list);
	KUNIT_EXPECT_EQ(test, r.probe_unpaid, 0U);
	KUNIT_EXPECT_TRUE(test, r.probing);
	/* Its round counted three breaks: failed, held on level 0. */
	rr.cow = 3;
	KUNIT_EXPECT_EQ(test, region_next_level(&r, &rr), 0U);
	KUNIT_EXPECT_FALSE(test, r.probing);
	KUNIT_EXPECT_EQ(test, r.cow_shift, 1U);
	KUNIT_EXPECT_EQ(test, ksm_distill_stats.probe_fails, fails + 1);
	KUNIT_EXPECT_EQ(test, region_interval(&r), 122UL);
	/* Held: dense and broken, it stays, sparser; quiet, it is freed. */
	rr.cow = 1;
	KUNIT_EXPECT_EQ(test, region_next_level(&r, &rr), 0U);
	KUNIT_EXPECT_EQ(test, r.cow_shift, 2U);
	KUNIT_EXPECT_EQ(test, region_interval(&r), 244UL);
	rr.cow = 0;
	KUNIT_EXPECT_EQ(test, region_next_level(&r, &rr), 0U);
	KUNIT_EXPECT_EQ(test, region_next_level(&r, &rr), 0U);
	KUNIT_EXPECT_EQ(test, r.cow_shift, 0U);
	KUNIT_EXPECT_FALSE(test, r.probing);
	/* Free, dense again: a new probe. Passed at its judging: the top. */
	KUNIT_EXPECT_EQ(test, region_next_level(&r, &rr), 0U);
	KUNIT_EXPECT_TRUE(test, r.probing);
	r.probe_since = jiffies - msecs_to_jiffies(4000);
	KUNIT_EXPECT_EQ(test, region_next_level(&r, &rr), 3U);
	KUNIT_EXPECT_FALSE(test, r.probing);

	ds.batch[3] = batch;
	ds.batch_ns[3] = batch_ns;
	ds.last_level = last_level;
	ds.stretch_sampled = stretch_sampled;
	ksm_distill_stats.sampled = sampled;
	ds.nr_levels = nr_levels;
	ds.th = th;
	ds.interval[0] = interval;
	ds.round = round;
	ksm_distill_stats.probes = probes;
	ksm_distill_stats.probe_fails = fails;
}

/* walk_runs() gave @n == 2 runs: at slots @g0 and @g1, @l0 and @l1 long. */
static void expect_two_runs(struct kunit *test, int n,
			    const unsigned long *got, const unsigned int *len,
			    unsigned long g0, unsigned int l0,
			    unsigned long g1, unsigned int l1)
{
	KUNIT_EXPECT_EQ(test, n, 2);
	KUNIT_EXPECT_EQ(test, got[0], g0);
	KUNIT_EXPECT_EQ(test, len[0], l0);
	KUNIT_EXPECT_EQ(test, got[1], g1);
	KUNIT_EXPECT_EQ(test, len[1], l1);
}

static void ksm_distill_stretch_test(struct kunit *test)
{
	unsigned long map[BITS_TO_LONGS(64)] = { }, got[8];
	struct ksm_region r = {
		.start = PMD_SIZE, .end = PMD_SIZE + 64 * PAGE_SIZE,
		.born = jiffies - HZ, .cover_map = map, .level = 3,
		.stretch = true, .quota = 20, .cursor = 8,
	};
	unsigned int nr_levels = ds.nr_levels, life = ds.th.life_ms, len[8];
	unsigned long interval = ds.interval[3];
	struct ksm_distill_mm dm = { };
	unsigned long addr;
	int n;

	ds.nr_levels = 4;
	ds.th.life_ms = 0;
	ds.interval[3] = 4;
	/* The top level of several is sampled in a stretch... */
	KUNIT_EXPECT_TRUE(test, region_stretches(&r));
	r.level = 2;
	KUNIT_EXPECT_FALSE(test, region_stretches(&r));
	r.level = 3;
	/*
	 * ...of consecutive slots from the cursor, a run at most
	 * DISTILL_RUN_LOW slots, for as many slots as the round's quota.
	 */
	n = walk_runs(&r, 16, got, len, 8);
	expect_two_runs(test, n, got, len, 8, 16, 24, 4);
	KUNIT_EXPECT_EQ(test, r.quota, 0UL);
	KUNIT_EXPECT_EQ(test, r.cursor, 28UL);
	KUNIT_EXPECT_EQ(test, r.nr_covered, 20UL);
	/* A slot sampled already is passed over. */
	__set_bit(30, map);
	r.nr_covered++;
	r.quota = 32;
	n = walk_runs(&r, 32, got, len, 8);
	expect_two_runs(test, n, got, len, 28, 2, 31, 30);
	/* A stretch that meets the region's end leaves the cursor there. */
	r.quota = 32;
	len[0] = 32;
	addr = ksm_distill_next_sample(&dm, &r, r.start, &len[0]);
	KUNIT_EXPECT_EQ(test, addr, r.start + 61 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, len[0], 3U);
	ksm_distill_sampled(&dm, &r, addr, 3);
	len[0] = 32;
	addr = ksm_distill_next_sample(&dm, &r, addr + 3 * PAGE_SIZE, &len[0]);
	KUNIT_EXPECT_EQ(test, addr, r.end);
	KUNIT_EXPECT_EQ(test, r.cursor, 64UL);
	KUNIT_EXPECT_EQ(test, r.quota, 29UL);
	ds.nr_levels = nr_levels;
	ds.th.life_ms = life;
	ds.interval[3] = interval;
}

static void ksm_distill_stretch_part_test(struct kunit *test)
{
	unsigned long q, start, round, covered;

	/* Parts taken in order, each from where the last ended... */
	KUNIT_EXPECT_EQ(test, ksm_stretch_part(8, 64, 4, &q), 0UL);
	KUNIT_EXPECT_EQ(test, q, 16UL);
	KUNIT_EXPECT_EQ(test, ksm_stretch_part(9, 64, 4, &q), 16UL);
	KUNIT_EXPECT_EQ(test, ksm_stretch_part(11, 64, 4, &q), 48UL);
	/* ...cover the region in interval rounds, the last part shorter. */
	covered = 0;
	for (round = 96; round < 104; round++) {
		start = ksm_stretch_part(round, 61, 8, &q);
		KUNIT_EXPECT_EQ(test, q, 8UL);
		KUNIT_EXPECT_EQ(test, start, covered);
		covered = min(start + q, 61UL);
	}
	KUNIT_EXPECT_EQ(test, covered, 61UL);
	/* An interval past the region's size leaves some rounds empty. */
	KUNIT_EXPECT_EQ(test, ksm_stretch_part(7, 5, 8, &q), 7UL);
	KUNIT_EXPECT_EQ(test, q, 1UL);
	KUNIT_EXPECT_EQ(test, ksm_stretch_part(3, 5, 0, &q), 0UL);
	KUNIT_EXPECT_EQ(test, q, 5UL);
}

static void ksm_distill_reopen_test(struct kunit *test)
{
	unsigned long map[1] = { 3 };
	struct ksm_region r = {
		.start = 0x100000, .end = 0x100000 + 2 * PAGE_SIZE,
		.born = jiffies - HZ, .cover_map = map, .nr_covered = 2,
		.seen = 9, .cover_epoch = 5, .done_epoch = 5, .born_epoch = 3,
		.reopen_epoch = 4,
	};
	struct ksm_distill_mm dm;
	struct ds_saved *saved;
	long gen;

	saved = ds_save(test);
	ksm_distill_mm_init(&dm, NULL);
	list_add(&r.list, &dm.regions);
	ds.epoch = 5;
	ds.round = 10;
	ds.uncovered = 0;
	ds.broken_gen = atomic_long_read(&distill_broken_gen);

	/*
	 * The region was sampled through in this coverage and keeps it open
	 * no more. A write breaks a merge of it: the round does not complete
	 * the coverage...
	 */
	gen = atomic_long_read(&distill_broken_gen);
	ksm_distill_cow(&dm, r.start + PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&distill_broken_gen), gen + 1);
	KUNIT_EXPECT_FALSE(test, ksm_distill_round_end(false));
	KUNIT_EXPECT_EQ(test, ds.epoch, 5UL);

	/* ...and the next one passes over the region again, keeping it open. */
	ds.round = 11;
	region_judge(&r, &dm);
	KUNIT_EXPECT_EQ(test, r.cow, 0UL);
	KUNIT_EXPECT_EQ(test, r.reopen_epoch, 5UL);
	KUNIT_EXPECT_TRUE(test, r.blocking);
	KUNIT_EXPECT_EQ(test, ds.uncovered, 1UL);
	KUNIT_EXPECT_EQ(test, r.nr_covered, 0UL);
	KUNIT_EXPECT_EQ(test, map[0], 0UL);

	/* Once a coverage: another break does not reopen it. */
	ksm_distill_cow(&dm, r.start);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&distill_broken_gen), gen + 1);
	region_cover(&r, 0);
	region_cover(&r, 1);
	KUNIT_EXPECT_EQ(test, ds.uncovered, 0UL);
	KUNIT_EXPECT_TRUE(test, ksm_distill_round_end(false));
	KUNIT_EXPECT_EQ(test, ds.epoch, 6UL);

	/* In the next coverage, a break reopens it again. */
	ds.round = 12;
	region_judge(&r, &dm);
	ksm_distill_cow(&dm, r.start);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&distill_broken_gen), gen + 2);

	ds_restore(saved);
	ds.broken_gen = atomic_long_read(&distill_broken_gen);
}

/*
 * A coverage whose unstable tree was emptied (a new page hash strength) is
 * dropped: not counted, and a new one begins; the next one is counted.
 */
static void ksm_distill_tree_lost_test(struct kunit *test)
{
	struct ds_saved *saved;

	saved = ds_save(test);
	ds.epoch = 5;
	ds.round = 10;
	ds.uncovered = 0;
	ds.broken_gen = atomic_long_read(&distill_broken_gen);

	KUNIT_EXPECT_FALSE(test, ksm_distill_round_end(true));
	KUNIT_EXPECT_EQ(test, ds.epoch, 6UL);
	KUNIT_EXPECT_EQ(test, ds.epoch_round, 11UL);
	/* Still open: lost or not, nothing is counted. */
	ds.uncovered = 1;
	KUNIT_EXPECT_FALSE(test, ksm_distill_round_end(true));
	KUNIT_EXPECT_FALSE(test, ksm_distill_round_end(false));
	KUNIT_EXPECT_EQ(test, ds.epoch, 7UL);
	ds.uncovered = 0;
	KUNIT_EXPECT_TRUE(test, ksm_distill_round_end(false));
	KUNIT_EXPECT_EQ(test, ds.epoch, 8UL);

	ds_restore(saved);
}

/*
 * A round that examined nothing and completed no coverage while a region
 * younger than Vlife waited ends its batch with a sleep until the region
 * is of age, KSM_DISTILL_IDLE_MS at most, read once; a round that examined
 * a page does not.
 */
static void ksm_distill_idle_test(struct kunit *test)
{
	unsigned long map[1] = { 0 }, got[4], now = jiffies;
	unsigned long most = msecs_to_jiffies(KSM_DISTILL_IDLE_MS);
	struct ksm_region r = {
		.start = 0x100000, .end = 0x100000 + 16 * PAGE_SIZE,
		.born = now, .cover_map = map,
	};
	struct ds_saved *saved;
	u64 ns;

	KUNIT_EXPECT_EQ(test, ksm_idle_wait(now, now), 0UL);
	KUNIT_EXPECT_EQ(test, ksm_idle_wait(now - 1, now), 0UL);
	KUNIT_EXPECT_EQ(test, ksm_idle_wait(now + 3, now), 4UL);
	KUNIT_EXPECT_EQ(test, ksm_idle_wait(now + most * 10, now), most);
	/* Across the wrap of jiffies. */
	KUNIT_EXPECT_EQ(test, ksm_idle_wait(2, ULONG_MAX - 1), 5UL);

	saved = ds_save(test);
	ds.th.life_ms = 10000;
	ds.round_sampled = ksm_distill_stats.sampled;
	ds.young = false;
	ds.uncovered = 1;
	ds.broken_gen = atomic_long_read(&distill_broken_gen);

	KUNIT_EXPECT_EQ(test, walk_samples(&r, got, 4), 0);
	KUNIT_EXPECT_TRUE(test, ds.young);
	KUNIT_EXPECT_FALSE(test, ksm_distill_round_end(false));
	ns = ksm_distill_idle_ns();
	KUNIT_EXPECT_GT(test, ns, 0ULL);
	KUNIT_EXPECT_LE(test, ns, jiffies_to_nsecs(most));
	KUNIT_EXPECT_EQ(test, ksm_distill_idle_ns(), 0ULL);

	/* A round that examined a page goes on. */
	ksm_distill_stats.sampled++;
	KUNIT_EXPECT_FALSE(test, ksm_distill_round_end(false));
	KUNIT_EXPECT_EQ(test, ksm_distill_idle_ns(), 0ULL);

	ds_restore(saved);
}

/* A stretch of the walk from a sample of level @from to one of @last. */
static void charge_stretch(unsigned int from, unsigned int last)
{
	ds.charge_from = from;
	ds.last_level = last;
	ds.stretch_sampled = true;
}

/*
 * A stretch of the walk is charged to the highest level among the samples
 * at its ends and the regions whose merged slots it passed over (enough of
 * them); one without a sample at its end to the stretch before, then to the
 * lowest level; the time it spent freeing rmap_items to the top level.
 */
static void ksm_distill_charge_test(struct kunit *test)
{
	struct ksm_region r = {
		.level = 3, .start = 0, .end = 100 * PAGE_SIZE,
		.ksm_seen = KSM_DISTILL_EVIDENCE,
	};
	struct ds_saved *saved;

	saved = ds_save(test);
	memset(ds.charged, 0, sizeof(ds.charged));
	ds.walk_level = 0;

	/* From a sample of level 0 to one of level 3: level 3's. */
	charge_stretch(0, 3);
	ksm_distill_charge(100);
	KUNIT_EXPECT_EQ(test, ds.charged[3], 100ULL);
	KUNIT_EXPECT_EQ(test, ds.charge_from, 3U);

	/*
	 * Between two samples of level 0, over the merged slots of a region
	 * on level 3: level 3's, not paid at the lowest share.
	 */
	charge_stretch(0, 0);
	region_walked(&r);
	ksm_distill_charge(200);
	KUNIT_EXPECT_EQ(test, ds.charged[3], 300ULL);
	KUNIT_EXPECT_EQ(test, ds.charged[0], 0ULL);
	KUNIT_EXPECT_EQ(test, ds.walk_level, 0U);

	/* Among regions of level 0: level 0's. */
	r.level = 0;
	charge_stretch(0, 0);
	region_walked(&r);
	ksm_distill_charge(50);
	KUNIT_EXPECT_EQ(test, ds.charged[0], 50ULL);

	/* No sample at its end: the tail of the stretch before... */
	ds.charge_from = 2;
	ksm_distill_charge(10);
	KUNIT_EXPECT_EQ(test, ds.charged[2], 10ULL);
	KUNIT_EXPECT_EQ(test, ds.charge_from, 0U);
	/* ...then an empty round is the lowest level's... */
	region_walked(&r);
	ksm_distill_charge(20);
	KUNIT_EXPECT_EQ(test, ds.charged[0], 70ULL);
	/* ...unless it passed over enough merged slots of a region above... */
	r.level = 1;
	region_walked(&r);
	ksm_distill_charge(40);
	KUNIT_EXPECT_EQ(test, ds.charged[1], 40ULL);
	/* ...but too few to judge it on say nothing: the lowest level's. */
	r.ksm_seen = KSM_DISTILL_EVIDENCE - 1;
	region_walked(&r);
	ksm_distill_charge(30);
	KUNIT_EXPECT_EQ(test, ds.charged[0], 100ULL);
	KUNIT_EXPECT_EQ(test, ds.charged[1], 40ULL);
	/* A small region: all of it found merged is enough. */
	r.end = 4 * PAGE_SIZE;
	r.ksm_seen = 4;
	region_walked(&r);
	ksm_distill_charge(5);
	KUNIT_EXPECT_EQ(test, ds.charged[1], 45ULL);

	/*
	 * Freeing rmap_items in a stretch of level 0: that part at the top
	 * level's share, the rest as before; never more than the stretch.
	 */
	memset(ds.charged, 0, sizeof(ds.charged));
	ds.nr_levels = 4;
	charge_stretch(0, 0);
	ksm_distill_released(60);
	ksm_distill_released(10);
	ksm_distill_charge(100);
	KUNIT_EXPECT_EQ(test, ds.charged[3], 70ULL);
	KUNIT_EXPECT_EQ(test, ds.charged[0], 30ULL);
	KUNIT_EXPECT_EQ(test, ds.released_ns, 0ULL);
	ds.stretch_sampled = true;
	ksm_distill_released(500);
	ksm_distill_charge(100);
	KUNIT_EXPECT_EQ(test, ds.charged[3], 170ULL);
	KUNIT_EXPECT_EQ(test, ds.charged[0], 30ULL);
	KUNIT_EXPECT_EQ(test, ds.released_ns, 0ULL);
	/* With two levels, the top is level 1. */
	ds.nr_levels = 2;
	ksm_distill_released(5);
	ksm_distill_charge(5);
	KUNIT_EXPECT_EQ(test, ds.charged[1], 5ULL);

	ds_restore(saved);
}

/*
 * A region whose round found every slot merged, with none merged anew and
 * no COW break, is crossed by the next round's walk in one step, which
 * counts as a pass over its merged slots.
 */
static void ksm_distill_through_test(struct kunit *test)
{
	struct ksm_region_round rr = { .sampled = 3, .ksm_seen = 64, .pages = 64 };
	unsigned long map[BITS_TO_LONGS(64)] = { 0 };
	struct ksm_region r = {
		.level = 0, .start = 0x100000, .end = 0x100000 + 64 * PAGE_SIZE,
		.cover_map = map, .blocking = true, .through = true,
	};
	struct ksm_distill_mm dm = { };
	unsigned long skipped = ksm_distill_stats.skipped;
	struct ds_saved *saved;

	KUNIT_EXPECT_TRUE(test, ksm_region_through(&rr));
	/* A slot not found merged (a hole, a page in an unstable tree)... */
	rr.ksm_seen = 63;
	KUNIT_EXPECT_FALSE(test, ksm_region_through(&rr));
	/* ...a new merge, a COW break, a part seen in a stretch: no. */
	rr.ksm_seen = 64;
	rr.merged = 1;
	KUNIT_EXPECT_FALSE(test, ksm_region_through(&rr));
	rr.merged = 0;
	rr.cow = 1;
	KUNIT_EXPECT_FALSE(test, ksm_region_through(&rr));
	rr.cow = 0;
	rr.stretch = true;
	KUNIT_EXPECT_FALSE(test, ksm_region_through(&rr));
	rr.stretch = false;
	rr.pages = 0;
	rr.ksm_seen = 0;
	KUNIT_EXPECT_FALSE(test, ksm_region_through(&rr));

	/* Not when sampled in a stretch this round, nor after a COW break. */
	KUNIT_EXPECT_TRUE(test, ksm_distill_through(&r));
	r.stretch = true;
	KUNIT_EXPECT_FALSE(test, ksm_distill_through(&r));
	r.stretch = false;
	r.cow = 1;
	KUNIT_EXPECT_FALSE(test, ksm_distill_through(&r));
	r.cow = 0;
	r.through = false;
	KUNIT_EXPECT_FALSE(test, ksm_distill_through(&r));

	saved = ds_save(test);
	ds.epoch = 9;
	ds.uncovered = 1;
	ds.walk_level = 0;
	r.level = 2;
	r.ksm_seen = 0;
	ksm_distill_crossed(&dm, &r);
	KUNIT_EXPECT_EQ(test, r.ksm_seen, 64UL);
	KUNIT_EXPECT_EQ(test, r.nr_covered, 64UL);
	KUNIT_EXPECT_TRUE(test, bitmap_full(map, 64));
	KUNIT_EXPECT_EQ(test, r.done_epoch, 9UL);
	KUNIT_EXPECT_FALSE(test, r.blocking);
	KUNIT_EXPECT_EQ(test, ds.uncovered, 0UL);
	KUNIT_EXPECT_EQ(test, dm.skipped, 64UL);
	KUNIT_EXPECT_EQ(test, ksm_distill_stats.skipped, skipped + 64);
	/* The walk over it is its level's. */
	KUNIT_EXPECT_EQ(test, ds.walk_level, 2U);
	/* It stays merged through for the next round's judging. */
	rr = (struct ksm_region_round){ .ksm_seen = r.ksm_seen, .pages = 64 };
	KUNIT_EXPECT_TRUE(test, ksm_region_through(&rr));
	ds_restore(saved);
	ksm_distill_stats.skipped = skipped;
}

static struct kunit_case ksm_distill_test_cases[] = {
	KUNIT_CASE(ksm_distill_part_test),
	KUNIT_CASE(ksm_distill_charge_test),
	KUNIT_CASE(ksm_distill_level_test),
	KUNIT_CASE(ksm_distill_tree_lost_test),
	KUNIT_CASE(ksm_distill_idle_test),
	KUNIT_CASE(ksm_distill_perm_test),
	KUNIT_CASE(ksm_distill_budget_test),
	KUNIT_CASE(ksm_distill_stall_test),
	KUNIT_CASE(ksm_distill_round_time_test),
	KUNIT_CASE(ksm_distill_sample_test),
	KUNIT_CASE(ksm_distill_run_test),
	KUNIT_CASE(ksm_distill_dense_test),
	KUNIT_CASE(ksm_distill_probe_test),
	KUNIT_CASE(ksm_distill_stretch_test),
	KUNIT_CASE(ksm_distill_stretch_part_test),
	KUNIT_CASE(ksm_distill_reopen_test),
	KUNIT_CASE(ksm_distill_through_test),
	{},
};

static struct kunit_suite ksm_distill_test_suite = {
	.name = "ksm_distill",
	.test_cases = ksm_distill_test_cases,
};

kunit_test_suite(ksm_distill_test_suite);

#endif /* _KSM_DISTILL_KUNIT_H */

#endif /* CONFIG_KSM_DISTILL_KUNIT_TEST */
