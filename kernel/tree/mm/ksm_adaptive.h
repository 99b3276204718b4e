/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Adaptive deduplication engine for KSM: interfaces shared by the core in
 * mm/ksm.c and the engine's policy files.
 */
#ifndef __MM_KSM_ADAPTIVE_H
#define __MM_KSM_ADAPTIVE_H

#include <linux/types.h>

/**
 * struct ksm_choice - a sysfs knob that selects one of a few named modes
 * @names:	the mode names, indexed by mode number
 * @nr:		number of entries in @names
 *
 * Shown as the mode names, the current one in brackets ("a [b] c"), as the
 * THP knobs are; written as one name, with an optional trailing newline.
 */
struct ksm_choice {
	const char * const *names;
	unsigned int nr;
};

int ksm_choice_parse(const struct ksm_choice *choice, const char *buf);
ssize_t ksm_choice_show(const struct ksm_choice *choice, unsigned int cur,
			char *buf);

/* In mm/ksm_full_system.c: every user process mergeable, or as before. */
bool ksm_get_full_system(void);
int ksm_set_full_system(bool on);

/**
 * struct ksm_tree_stats - lookups in KSM's trees and their page compares
 * @lookups:	searches of the stable tree ([0]) and unstable tree ([1])
 * @compares:	page comparisons those searches made (memcmp_pages())
 *
 * Written by ksmd only; their ratio is the average depth a lookup reaches.
 */
struct ksm_tree_stats {
	unsigned long lookups[2];
	unsigned long compares[2];
};

extern struct ksm_tree_stats ksm_tree_stats;

static inline void ksm_tree_count(unsigned long *c)
{
	WRITE_ONCE(*c, *c + 1);
}

/* Sharded trees (mm/ksm_tree_shards.c; the trees themselves are in mm/ksm.c). */
#define KSM_MAX_TREE_SHARDS	1024U

unsigned int ksm_tree_shard_of(u32 checksum, unsigned int nr_shards);
unsigned int ksm_tree_shards_auto(unsigned long pages);
/* -EBUSY while anything is merged (ksm_reshape()). */
unsigned int ksm_get_tree_shards(void);
int ksm_set_tree_shards(unsigned int nr_shards);

/* Page hash: the stock checksum, or the adaptive one (mm/ksm_page_hash.c). */
enum ksm_page_hash_mode {
	KSM_PAGE_HASH_CHECKSUM,
	KSM_PAGE_HASH_ADAPTIVE,
	KSM_NR_PAGE_HASHES,
};

/**
 * struct ksm_page_hash_stats - the adaptive page hash's counters
 * @collisions:	lookups that met an equal hash over other contents
 * @rekeys:	times the stable trees were re-keyed (mode or strength)
 *
 * Written by ksmd only.
 */
struct ksm_page_hash_stats {
	unsigned long collisions;
	unsigned long rekeys;
};

extern struct ksm_page_hash_stats ksm_page_hash_stats;

/* In mm/ksm.c; a new mode is taken into force at ksmd's next full scan. */
int ksm_get_page_hash(void);
int ksm_set_page_hash(int mode);
unsigned int ksm_get_page_hash_strength(void);

/* Merge domains (mm/ksm_merge_domains.c): which processes may share a KSM page. */
enum ksm_merge_domains {
	KSM_DOMAINS_NONE,
	KSM_DOMAINS_USER,
	KSM_DOMAINS_CGROUP,
	KSM_NR_DOMAIN_MODES,
};

/*
 * The domain of an mm without an owner, or not dumpable under user: its pages
 * are not merged.
 */
#define KSM_DOMAIN_ORPHAN	U64_MAX

struct mm_struct;

extern int ksm_merge_domains;
/* KSM pages unmerged from a mapping of another domain; written by ksmd. */
extern unsigned long ksm_merge_domain_moves;
int ksm_domains_supported(int mode);
u64 ksm_mm_domain(struct mm_struct *mm);
/* -EBUSY while anything is merged (ksm_reshape()). */
int ksm_set_merge_domains(int mode);

struct kobject;
int ksm_adaptive_sysfs_init(struct kobject *ksm_kobj);

#endif /* __MM_KSM_ADAPTIVE_H */
