// SPDX-License-Identifier: GPL-2.0
/*
 * The adaptive KSM engine's knobs and statistics, merged into
 * /sys/kernel/mm/ksm/ beside KSM's own. Documented in
 * Documentation/ABI/testing/sysfs-kernel-mm-ksm-adaptive.
 *
 * A write that does not parse or is out of range returns -EINVAL and
 * changes nothing.
 */

#include <linux/kobject.h>
#include <linux/kstrtox.h>
#include <linux/mm.h>
#include <linux/sysfs.h>

#include "ksm_adaptive.h"
#include "ksm_distill.h"
#include "ksm_place.h"

static const char * const scanner_names[KSM_NR_SCANNERS] = {
	"stock", "uksm",
};

static const struct ksm_choice scanner_choice = {
	.names = scanner_names,
	.nr = KSM_NR_SCANNERS,
};

/* A write to a mode knob: parsed, then handed to @set (0 or -errno). */
static ssize_t choice_store(const struct ksm_choice *choice, int (*set)(int),
			    const char *buf, size_t count)
{
	int mode = ksm_choice_parse(choice, buf);

	if (mode < 0)
		return mode;
	return set(mode) ?: count;
}

static ssize_t scanner_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return ksm_choice_show(&scanner_choice, ksm_get_scanner(), buf);
}

static ssize_t scanner_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	return choice_store(&scanner_choice, ksm_set_scanner, buf, count);
}

static ssize_t full_system_scan_show(struct kobject *kobj,
				     struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", ksm_get_full_system());
}

static ssize_t full_system_scan_store(struct kobject *kobj,
				      struct kobj_attribute *attr,
				      const char *buf, size_t count)
{
	unsigned int on;
	int err;

	err = kstrtouint(buf, 10, &on);
	if (err || on > 1)
		return -EINVAL;
	err = ksm_set_full_system(on);
	return err ? err : count;
}

static const char * const placement_names[KSM_NR_PLACEMENTS] = {
	"scan-order", "fair", "priority",
};

static const struct ksm_choice placement_choice = {
	.names = placement_names,
	.nr = KSM_NR_PLACEMENTS,
};

static ssize_t placement_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	return ksm_choice_show(&placement_choice, READ_ONCE(ksm_placement),
			       buf);
}

static ssize_t placement_store(struct kobject *kobj,
			       struct kobj_attribute *attr,
			       const char *buf, size_t count)
{
	return choice_store(&placement_choice, ksm_place_set, buf, count);
}

static ssize_t tree_shards_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", ksm_get_tree_shards());
}

static ssize_t tree_shards_store(struct kobject *kobj,
				 struct kobj_attribute *attr,
				 const char *buf, size_t count)
{
	unsigned int n;
	int err;

	err = kstrtouint(buf, 10, &n);
	if (err || n > KSM_MAX_SHARDS)
		return -EINVAL;
	return ksm_set_tree_shards(n) ?: count;
}

static const char * const page_hash_names[KSM_NR_PAGE_HASHES] = {
	"checksum", "adaptive",
};

static const struct ksm_choice page_hash_choice = {
	.names = page_hash_names,
	.nr = KSM_NR_PAGE_HASHES,
};

static ssize_t page_hash_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	return ksm_choice_show(&page_hash_choice, ksm_get_page_hash(), buf);
}

static ssize_t page_hash_store(struct kobject *kobj,
			       struct kobj_attribute *attr,
			       const char *buf, size_t count)
{
	return choice_store(&page_hash_choice, ksm_set_page_hash, buf, count);
}

static const char * const merge_domains_names[KSM_NR_DOMAIN_MODES] = {
	"none", "user", "cgroup",
};

static const struct ksm_choice merge_domains_choice = {
	.names = merge_domains_names,
	.nr = KSM_NR_DOMAIN_MODES,
};

static ssize_t merge_domains_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	return ksm_choice_show(&merge_domains_choice,
			       READ_ONCE(ksm_merge_domains), buf);
}

static ssize_t merge_domains_store(struct kobject *kobj,
				   struct kobj_attribute *attr,
				   const char *buf, size_t count)
{
	return choice_store(&merge_domains_choice, ksm_set_merge_domains, buf,
			    count);
}

static const char * const governor_names[KSM_NR_GOVERNORS] = {
	"full", "medium", "low", "quiet",
};

static const struct ksm_choice governor_choice = {
	.names = governor_names,
	.nr = KSM_NR_GOVERNORS,
};

static int set_governor(int governor)
{
	WRITE_ONCE(ksm_distill_knobs.governor, governor);
	return 0;
}

static ssize_t uksm_governor_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	return ksm_choice_show(&governor_choice,
			       READ_ONCE(ksm_distill_knobs.governor), buf);
}

static ssize_t uksm_governor_store(struct kobject *kobj,
				   struct kobj_attribute *attr,
				   const char *buf, size_t count)
{
	return choice_store(&governor_choice, set_governor, buf, count);
}

/* An unsigned knob with an inclusive range. */
static ssize_t store_uint(const char *buf, size_t count, unsigned int *knob,
			  unsigned int min, unsigned int max)
{
	unsigned int v;
	int err;

	err = kstrtouint(buf, 10, &v);
	if (err || v < min || v > max)
		return -EINVAL;
	WRITE_ONCE(*knob, v);
	return count;
}

#define KSM_UINT_KNOB(_name, _field, _min, _max)			\
static ssize_t _name##_show(struct kobject *kobj,			\
			    struct kobj_attribute *attr, char *buf)	\
{									\
	return sysfs_emit(buf, "%u\n", READ_ONCE(ksm_distill_knobs._field)); \
}									\
static ssize_t _name##_store(struct kobject *kobj,			\
			     struct kobj_attribute *attr,		\
			     const char *buf, size_t count)		\
{									\
	return store_uint(buf, count, &ksm_distill_knobs._field,	\
			  _min, _max);					\
}									\
static struct kobj_attribute _name##_attr = __ATTR_RW(_name)

KSM_UINT_KNOB(uksm_levels, nr_levels, 2, KSM_DISTILL_MAX_LEVELS);
KSM_UINT_KNOB(uksm_dup_pct, th.dup_pct, 0, 100);
KSM_UINT_KNOB(uksm_cow_pct, th.cow_pct, 0, 1000);
KSM_UINT_KNOB(uksm_life_ms, th.life_ms, 0, 600000);
KSM_UINT_KNOB(uksm_bottom_cpu_permille, bottom_permille, 1, 1000);

#define KSM_STAT(_name, _expr)						\
static ssize_t _name##_show(struct kobject *kobj,			\
			    struct kobj_attribute *attr, char *buf)	\
{									\
	return sysfs_emit(buf, "%lu\n", (unsigned long)(_expr));	\
}									\
static struct kobj_attribute _name##_attr = __ATTR_RO(_name)

KSM_STAT(uksm_rounds, READ_ONCE(ksm_distill_stats.rounds));
KSM_STAT(uksm_promotions, READ_ONCE(ksm_distill_stats.promotions));
KSM_STAT(uksm_demotions, READ_ONCE(ksm_distill_stats.demotions));
KSM_STAT(uksm_pages_sampled, READ_ONCE(ksm_distill_stats.sampled));
KSM_STAT(uksm_pages_skipped, READ_ONCE(ksm_distill_stats.skipped));
KSM_STAT(uksm_cow_breaks, atomic_long_read(&ksm_distill_stats.cow_breaks));
KSM_STAT(uksm_stalls, READ_ONCE(ksm_distill_stats.stalls));
KSM_STAT(uksm_stall_ms, READ_ONCE(ksm_distill_stats.stall_ms));
KSM_STAT(uksm_probes, READ_ONCE(ksm_distill_stats.probes));
KSM_STAT(uksm_probe_fails, READ_ONCE(ksm_distill_stats.probe_fails));
KSM_STAT(placement_merges_scan_order,
	 READ_ONCE(ksm_place_stats.merges[KSM_PLACE_R_SCAN_ORDER]));
KSM_STAT(placement_merges_hot,
	 READ_ONCE(ksm_place_stats.merges[KSM_PLACE_R_HOT]));
KSM_STAT(placement_merges_balanced,
	 READ_ONCE(ksm_place_stats.merges[KSM_PLACE_R_BALANCE]));
KSM_STAT(placement_merges_priority,
	 READ_ONCE(ksm_place_stats.merges[KSM_PLACE_R_PRIORITY]));
KSM_STAT(stable_lookups, READ_ONCE(ksm_tree_stats.lookups[0]));
KSM_STAT(stable_lookup_compares, READ_ONCE(ksm_tree_stats.compares[0]));
KSM_STAT(unstable_lookups, READ_ONCE(ksm_tree_stats.lookups[1]));
KSM_STAT(unstable_lookup_compares, READ_ONCE(ksm_tree_stats.compares[1]));
KSM_STAT(placement_migrated, READ_ONCE(ksm_place_stats.migrated));
KSM_STAT(placement_migrate_failed, READ_ONCE(ksm_place_stats.migrate_failed));
KSM_STAT(placement_migrate_deferred, READ_ONCE(ksm_place_stats.deferred));
KSM_STAT(page_hash_strength, ksm_get_page_hash_strength());
KSM_STAT(page_hash_collisions, READ_ONCE(ksm_phash_stats.collisions));
KSM_STAT(page_hash_rekeys, READ_ONCE(ksm_phash_stats.rekeys));
KSM_STAT(merge_domain_moves, READ_ONCE(ksm_domain_moves));

/* One number per level, lowest first. */
static ssize_t show_levels(char *buf, const unsigned long *v)
{
	unsigned int l, n = READ_ONCE(ksm_distill_knobs.nr_levels);
	ssize_t len = 0;

	for (l = 0; l < n; l++)
		len += sysfs_emit_at(buf, len, l ? " %lu" : "%lu",
				     READ_ONCE(v[l]));
	return len + sysfs_emit_at(buf, len, "\n");
}

static ssize_t uksm_regions_show(struct kobject *kobj,
				 struct kobj_attribute *attr, char *buf)
{
	return show_levels(buf, ksm_distill_stats.regions);
}

static struct kobj_attribute uksm_regions_attr = __ATTR_RO(uksm_regions);

static ssize_t uksm_intervals_show(struct kobject *kobj,
				   struct kobj_attribute *attr, char *buf)
{
	return show_levels(buf, ksm_distill_stats.interval);
}

static struct kobj_attribute uksm_intervals_attr = __ATTR_RO(uksm_intervals);

static ssize_t uksm_page_ns_show(struct kobject *kobj,
				 struct kobj_attribute *attr, char *buf)
{
	return show_levels(buf, ksm_distill_stats.page_ns);
}

static struct kobj_attribute uksm_page_ns_attr = __ATTR_RO(uksm_page_ns);

static struct kobj_attribute scanner_attr = __ATTR_RW(scanner);
static struct kobj_attribute full_system_scan_attr =
	__ATTR_RW(full_system_scan);
static struct kobj_attribute uksm_governor_attr = __ATTR_RW(uksm_governor);
static struct kobj_attribute placement_attr = __ATTR_RW(placement);
static struct kobj_attribute tree_shards_attr = __ATTR_RW(tree_shards);
static struct kobj_attribute page_hash_attr = __ATTR_RW(page_hash);
static struct kobj_attribute merge_domains_attr = __ATTR_RW(merge_domains);

static struct attribute *ksm_adaptive_attrs[] = {
	&scanner_attr.attr,
	&full_system_scan_attr.attr,
	&uksm_governor_attr.attr,
	&uksm_levels_attr.attr,
	&uksm_dup_pct_attr.attr,
	&uksm_cow_pct_attr.attr,
	&uksm_life_ms_attr.attr,
	&uksm_bottom_cpu_permille_attr.attr,
	&uksm_rounds_attr.attr,
	&uksm_promotions_attr.attr,
	&uksm_demotions_attr.attr,
	&uksm_pages_sampled_attr.attr,
	&uksm_pages_skipped_attr.attr,
	&uksm_cow_breaks_attr.attr,
	&uksm_stalls_attr.attr,
	&uksm_stall_ms_attr.attr,
	&uksm_probes_attr.attr,
	&uksm_probe_fails_attr.attr,
	&uksm_page_ns_attr.attr,
	&uksm_regions_attr.attr,
	&uksm_intervals_attr.attr,
	&placement_attr.attr,
	&placement_merges_scan_order_attr.attr,
	&placement_merges_hot_attr.attr,
	&placement_merges_balanced_attr.attr,
	&placement_merges_priority_attr.attr,
	&placement_migrated_attr.attr,
	&placement_migrate_failed_attr.attr,
	&placement_migrate_deferred_attr.attr,
	&tree_shards_attr.attr,
	&stable_lookups_attr.attr,
	&stable_lookup_compares_attr.attr,
	&unstable_lookups_attr.attr,
	&unstable_lookup_compares_attr.attr,
	&page_hash_attr.attr,
	&page_hash_strength_attr.attr,
	&page_hash_collisions_attr.attr,
	&page_hash_rekeys_attr.attr,
	&merge_domains_attr.attr,
	&merge_domain_moves_attr.attr,
	NULL,
};

static const struct attribute_group ksm_adaptive_attr_group = {
	.attrs = ksm_adaptive_attrs,
	.name = "ksm",
};

/* Called by ksm_init() once /sys/kernel/mm/ksm/ exists. */
int ksm_adaptive_sysfs_init(void)
{
	return sysfs_merge_group(mm_kobj, &ksm_adaptive_attr_group);
}
