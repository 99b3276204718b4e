// SPDX-License-Identifier: GPL-2.0
/*
 * The adaptive KSM engine's knobs and statistics under /sys/kernel/mm/ksm/:
 * the mode switches beside KSM's own knobs, and each feature's tunables and
 * statistics in a directory named after it (trees/ for the lookups of KSM's
 * trees). One value per file.
 *
 * A write that does not parse or is out of range returns -EINVAL and
 * changes nothing.
 */

#include <linux/kobject.h>
#include <linux/kstrtox.h>
#include <linux/mm.h>
#include <linux/sysfs.h>

#include "ksm_internal.h"

/* The scanners, as the scanner knob names them. */
static const char * const scanner_names[] = {
	"stock", "distill",
};

static const struct ksm_scanner_ops * const scanners[] = {
	&ksm_stock_scanner, &ksm_distill_scanner,
};

static_assert(ARRAY_SIZE(scanners) == ARRAY_SIZE(scanner_names));

static int get_scanner(void)
{
	const struct ksm_scanner_ops *scanner = READ_ONCE(ksm_scanner);
	int i;

	for (i = 0; i < ARRAY_SIZE(scanners) - 1; i++)
		if (scanners[i] == scanner)
			break;
	return i;
}

static int set_scanner(int i)
{
	return ksm_set_scanner(scanners[i]);
}

static const char * const placement_names[KSM_NR_PLACEMENTS] = {
	"scan-order", "fair", "priority",
};

static const char * const page_hash_names[KSM_NR_PAGE_HASHES] = {
	"checksum", "adaptive",
};

static const char * const merge_domains_names[KSM_NR_DOMAIN_MODES] = {
	"none", "user", "cgroup",
};

static const char * const governor_names[KSM_NR_GOVERNORS] = {
	"full", "medium", "low", "quiet",
};

static int distill_set_governor(int governor)
{
	WRITE_ONCE(ksm_distill_knobs.governor, governor);
	return 0;
}

/*
 * A knob that selects one of @_names: shown with the current one (@_get)
 * in brackets, written as one name, which @_set (0 or -errno) takes.
 */
#define KSM_CHOICE_KNOB(_var, _file, _names, _get, _set)		\
static const struct ksm_choice _var##_choice = {			\
	.names = _names, .nr = ARRAY_SIZE(_names),			\
};									\
static ssize_t _var##_show(struct kobject *kobj,			\
			   struct kobj_attribute *attr, char *buf)	\
{									\
	return ksm_choice_show(&_var##_choice, _get, buf);		\
}									\
static ssize_t _var##_store(struct kobject *kobj,			\
			    struct kobj_attribute *attr,		\
			    const char *buf, size_t count)		\
{									\
	int mode = ksm_choice_parse(&_var##_choice, buf);		\
									\
	if (mode < 0)							\
		return mode;						\
	return _set(mode) ?: count;					\
}									\
static struct kobj_attribute _var##_attr =				\
	__ATTR(_file, 0644, _var##_show, _var##_store)

KSM_CHOICE_KNOB(scanner, scanner, scanner_names, get_scanner(),
		set_scanner);
KSM_CHOICE_KNOB(placement_mode, mode, placement_names,
		READ_ONCE(ksm_placement), ksm_placement_set);
KSM_CHOICE_KNOB(page_hash_mode, mode, page_hash_names, ksm_get_page_hash(),
		ksm_set_page_hash);
KSM_CHOICE_KNOB(merge_domains_mode, mode, merge_domains_names,
		READ_ONCE(ksm_merge_domains), ksm_set_merge_domains);
KSM_CHOICE_KNOB(distill_governor, governor, governor_names,
		READ_ONCE(ksm_distill_knobs.governor), distill_set_governor);

/* An unsigned knob, @min to @max, that @set (0 or -errno) takes. */
static ssize_t store_uint(const char *buf, size_t count, unsigned int min,
			  unsigned int max, int (*set)(unsigned int))
{
	unsigned int v;
	int err;

	err = kstrtouint(buf, 10, &v);
	if (err || v < min || v > max)
		return -EINVAL;
	return set(v) ?: count;
}

static ssize_t full_system_scan_show(struct kobject *kobj,
				     struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", ksm_get_full_system());
}

static int set_full_system(unsigned int on)
{
	return ksm_set_full_system(on);
}

static ssize_t full_system_scan_store(struct kobject *kobj,
				      struct kobj_attribute *attr,
				      const char *buf, size_t count)
{
	return store_uint(buf, count, 0, 1, set_full_system);
}

static struct kobj_attribute full_system_scan_attr =
	__ATTR_RW(full_system_scan);

static ssize_t tree_shards_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", ksm_get_tree_shards());
}

static ssize_t tree_shards_store(struct kobject *kobj,
				 struct kobj_attribute *attr,
				 const char *buf, size_t count)
{
	return store_uint(buf, count, 0, KSM_MAX_TREE_SHARDS, ksm_set_tree_shards);
}

static struct kobj_attribute tree_shards_attr = __ATTR_RW(tree_shards);

/* A knob of the distilling scanner, in distill/. */
#define KSM_DISTILL_KNOB(_name, _field, _min, _max)			\
static ssize_t distill_##_name##_show(struct kobject *kobj,		\
				      struct kobj_attribute *attr,	\
				      char *buf)			\
{									\
	return sysfs_emit(buf, "%u\n", READ_ONCE(ksm_distill_knobs._field)); \
}									\
static int distill_set_##_name(unsigned int v)				\
{									\
	WRITE_ONCE(ksm_distill_knobs._field, v);			\
	return 0;							\
}									\
static ssize_t distill_##_name##_store(struct kobject *kobj,		\
				       struct kobj_attribute *attr,	\
				       const char *buf, size_t count)	\
{									\
	return store_uint(buf, count, _min, _max, distill_set_##_name); \
}									\
static struct kobj_attribute distill_##_name##_attr =			\
	__ATTR(_name, 0644, distill_##_name##_show, distill_##_name##_store)

KSM_DISTILL_KNOB(levels, nr_levels, 2, KSM_DISTILL_MAX_LEVELS);
KSM_DISTILL_KNOB(dup_pct, th.dup_pct, 0, 100);
KSM_DISTILL_KNOB(cow_pct, th.cow_pct, 0, 1000);
KSM_DISTILL_KNOB(life_ms, th.life_ms, 0, 600000);
KSM_DISTILL_KNOB(bottom_cpu_permille, bottom_permille, 1, 1000);

/* A statistic, shown as an unsigned long. */
#define KSM_STAT(_prefix, _name, _expr)					\
static ssize_t _prefix##_##_name##_show(struct kobject *kobj,		\
					struct kobj_attribute *attr,	\
					char *buf)			\
{									\
	return sysfs_emit(buf, "%lu\n", (unsigned long)(_expr));	\
}									\
static struct kobj_attribute _prefix##_##_name##_attr =		\
	__ATTR(_name, 0444, _prefix##_##_name##_show, NULL)

KSM_STAT(distill, rounds, READ_ONCE(ksm_distill_stats.rounds));
KSM_STAT(distill, promotions, READ_ONCE(ksm_distill_stats.promotions));
KSM_STAT(distill, demotions, READ_ONCE(ksm_distill_stats.demotions));
KSM_STAT(distill, pages_sampled, READ_ONCE(ksm_distill_stats.sampled));
KSM_STAT(distill, pages_skipped, READ_ONCE(ksm_distill_stats.skipped));
KSM_STAT(distill, cow_breaks, atomic_long_read(&ksm_distill_stats.cow_breaks));
KSM_STAT(distill, stalls, READ_ONCE(ksm_distill_stats.stalls));
KSM_STAT(distill, stall_ms, READ_ONCE(ksm_distill_stats.stall_ms));
KSM_STAT(distill, probes, READ_ONCE(ksm_distill_stats.probes));
KSM_STAT(distill, probe_fails, READ_ONCE(ksm_distill_stats.probe_fails));
KSM_STAT(placement, merges_scan_order,
	 READ_ONCE(ksm_placement_stats.merges[KSM_PLACEMENT_R_SCAN_ORDER]));
KSM_STAT(placement, merges_hot,
	 READ_ONCE(ksm_placement_stats.merges[KSM_PLACEMENT_R_HOT]));
KSM_STAT(placement, merges_balanced,
	 READ_ONCE(ksm_placement_stats.merges[KSM_PLACEMENT_R_BALANCE]));
KSM_STAT(placement, merges_priority,
	 READ_ONCE(ksm_placement_stats.merges[KSM_PLACEMENT_R_PRIORITY]));
KSM_STAT(placement, migrated, READ_ONCE(ksm_placement_stats.migrated));
KSM_STAT(placement, migrate_failed, READ_ONCE(ksm_placement_stats.migrate_failed));
KSM_STAT(placement, migrate_deferred, READ_ONCE(ksm_placement_stats.deferred));
KSM_STAT(trees, stable_lookups, READ_ONCE(ksm_tree_stats.lookups[0]));
KSM_STAT(trees, stable_lookup_compares, READ_ONCE(ksm_tree_stats.compares[0]));
KSM_STAT(trees, unstable_lookups, READ_ONCE(ksm_tree_stats.lookups[1]));
KSM_STAT(trees, unstable_lookup_compares,
	 READ_ONCE(ksm_tree_stats.compares[1]));
KSM_STAT(page_hash, strength, ksm_get_page_hash_strength());
KSM_STAT(page_hash, collisions, READ_ONCE(ksm_page_hash_stats.collisions));
KSM_STAT(page_hash, rekeys, READ_ONCE(ksm_page_hash_stats.rekeys));
KSM_STAT(merge_domains, moves, READ_ONCE(ksm_merge_domain_moves));

/*
 * distill/level<N>/: one directory a level, lowest first, each with the
 * level's regions, its sampling interval in the last round and the measured
 * cost of examining one of its pages (ns). Levels at or above distill/levels
 * read 0.
 */
struct distill_level_attr {
	struct kobj_attribute attr;
	const unsigned long *stat;
	unsigned int level;
};

static ssize_t distill_level_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	struct distill_level_attr *la =
		container_of(attr, struct distill_level_attr, attr);
	unsigned long v = 0;

	if (la->level < READ_ONCE(ksm_distill_knobs.nr_levels))
		v = READ_ONCE(la->stat[la->level]);
	return sysfs_emit(buf, "%lu\n", v);
}

#define DISTILL_LEVEL_ATTR(_l, _name, _stat)				\
static struct distill_level_attr distill_level##_l##_##_name = {	\
	.attr = __ATTR(_name, 0444, distill_level_show, NULL),		\
	.stat = ksm_distill_stats._stat,				\
	.level = _l,							\
}

#define DISTILL_LEVEL(_l)						\
DISTILL_LEVEL_ATTR(_l, regions, regions);				\
DISTILL_LEVEL_ATTR(_l, interval, interval);				\
DISTILL_LEVEL_ATTR(_l, page_ns, page_ns);				\
static struct attribute *distill_level##_l##_attrs[] = {		\
	&distill_level##_l##_regions.attr.attr,				\
	&distill_level##_l##_interval.attr.attr,			\
	&distill_level##_l##_page_ns.attr.attr,				\
	NULL,								\
};									\
static const struct attribute_group distill_level##_l##_group = {	\
	.name = "level" #_l,						\
	.attrs = distill_level##_l##_attrs,				\
}

DISTILL_LEVEL(0);
DISTILL_LEVEL(1);
DISTILL_LEVEL(2);
DISTILL_LEVEL(3);
DISTILL_LEVEL(4);
DISTILL_LEVEL(5);
DISTILL_LEVEL(6);
DISTILL_LEVEL(7);
static_assert(KSM_DISTILL_MAX_LEVELS == 8);

static struct attribute *ksm_adaptive_attrs[] = {
	&scanner_attr.attr,
	&full_system_scan_attr.attr,
	&tree_shards_attr.attr,
	NULL,
};

static struct attribute *distill_attrs[] = {
	&distill_governor_attr.attr,
	&distill_levels_attr.attr,
	&distill_dup_pct_attr.attr,
	&distill_cow_pct_attr.attr,
	&distill_life_ms_attr.attr,
	&distill_bottom_cpu_permille_attr.attr,
	&distill_rounds_attr.attr,
	&distill_promotions_attr.attr,
	&distill_demotions_attr.attr,
	&distill_pages_sampled_attr.attr,
	&distill_pages_skipped_attr.attr,
	&distill_cow_breaks_attr.attr,
	&distill_stalls_attr.attr,
	&distill_stall_ms_attr.attr,
	&distill_probes_attr.attr,
	&distill_probe_fails_attr.attr,
	NULL,
};

static struct attribute *placement_attrs[] = {
	&placement_mode_attr.attr,
	&placement_merges_scan_order_attr.attr,
	&placement_merges_hot_attr.attr,
	&placement_merges_balanced_attr.attr,
	&placement_merges_priority_attr.attr,
	&placement_migrated_attr.attr,
	&placement_migrate_failed_attr.attr,
	&placement_migrate_deferred_attr.attr,
	NULL,
};

static struct attribute *trees_attrs[] = {
	&trees_stable_lookups_attr.attr,
	&trees_stable_lookup_compares_attr.attr,
	&trees_unstable_lookups_attr.attr,
	&trees_unstable_lookup_compares_attr.attr,
	NULL,
};

static struct attribute *page_hash_attrs[] = {
	&page_hash_mode_attr.attr,
	&page_hash_strength_attr.attr,
	&page_hash_collisions_attr.attr,
	&page_hash_rekeys_attr.attr,
	NULL,
};

static struct attribute *merge_domains_attrs[] = {
	&merge_domains_mode_attr.attr,
	&merge_domains_moves_attr.attr,
	NULL,
};

static const struct attribute_group ksm_adaptive_group = {
	.attrs = ksm_adaptive_attrs,
};

static const struct attribute_group placement_group = {
	.name = "placement",
	.attrs = placement_attrs,
};

static const struct attribute_group trees_group = {
	.name = "trees",
	.attrs = trees_attrs,
};

static const struct attribute_group page_hash_group = {
	.name = "page_hash",
	.attrs = page_hash_attrs,
};

static const struct attribute_group merge_domains_group = {
	.name = "merge_domains",
	.attrs = merge_domains_attrs,
};

static const struct attribute_group *ksm_adaptive_groups[] = {
	&ksm_adaptive_group,
	&placement_group,
	&trees_group,
	&page_hash_group,
	&merge_domains_group,
	NULL,
};

static const struct attribute_group distill_group = {
	.attrs = distill_attrs,
};

static const struct attribute_group *distill_groups[] = {
	&distill_group,
	&distill_level0_group,
	&distill_level1_group,
	&distill_level2_group,
	&distill_level3_group,
	&distill_level4_group,
	&distill_level5_group,
	&distill_level6_group,
	&distill_level7_group,
	NULL,
};

/**
 * ksm_adaptive_sysfs_init() - add the engine's files to /sys/kernel/mm/ksm/
 * @ksm_kobj:	the kobject of /sys/kernel/mm/ksm/
 *
 * Called by ksm_init() once KSM's own files are there.
 *
 * Return: 0, or -errno (nothing added then).
 */
int ksm_adaptive_sysfs_init(struct kobject *ksm_kobj)
{
	struct kobject *distill_kobj;
	int err;

	err = sysfs_create_groups(ksm_kobj, ksm_adaptive_groups);
	if (err)
		return err;
	/* distill/ has directories of its own: a kobject, not a group. */
	distill_kobj = kobject_create_and_add("distill", ksm_kobj);
	if (!distill_kobj) {
		err = -ENOMEM;
		goto out;
	}
	err = sysfs_create_groups(distill_kobj, distill_groups);
	if (!err)
		return 0;
	kobject_put(distill_kobj);
out:
	sysfs_remove_groups(ksm_kobj, ksm_adaptive_groups);
	return err;
}
