// SPDX-License-Identifier: GPL-2.0
/*
 * Sharded stable and unstable trees (nuKSM, Panda 2021, §4.3): KSM's trees
 * split into shards by a key taken from the page's contents, so that a
 * lookup walks one smaller tree. Identical pages have the same key, so no
 * merge is lost; pages in different shards are never compared.
 *
 * The key is KSM's own page checksum (xxhash, 32 bits), never a hash whose
 * strength adapts: a page's shard must not change while its contents do
 * not. This file picks the shard and the automatic shard count; mm/ksm.c
 * keeps the trees (a flat array of roots, node index major).
 */

#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "ksm_internal.h"

/**
 * ksm_tree_shard_of() - the shard of a page
 * @checksum:	the page's checksum (calc_checksum() in mm/ksm.c)
 * @nr_shards:	the number of shards, at least 1
 *
 * Multiply-shift (reciprocal_scale()) rather than a modulo: the checksum's
 * high bits spread evenly whatever @nr_shards is.
 *
 * Return: the shard, below @nr_shards.
 */
unsigned int ksm_tree_shard_of(u32 checksum, unsigned int nr_shards)
{
	return reciprocal_scale(checksum, nr_shards);
}

/**
 * ksm_tree_shards_auto() - the shard count for a memory size
 * @pages:	pages of memory (totalram_pages())
 *
 * The thesis's rule, one stable and one unstable tree per 100 MiB, within
 * 1 and KSM_MAX_TREE_SHARDS.
 *
 * Return: the number of shards.
 */
unsigned int ksm_tree_shards_auto(unsigned long pages)
{
	unsigned long per = (100UL << 20) >> PAGE_SHIFT;

	return clamp_t(unsigned long, pages / per, 1, KSM_MAX_TREE_SHARDS);
}

/**
 * ksm_get_tree_shards() - the trees per node index in use
 *
 * Return: the number of shards of each stable and unstable tree.
 */
unsigned int ksm_get_tree_shards(void)
{
	return READ_ONCE(ksm_nr_shards);
}

static int tree_shards_apply(void *arg, bool check)
{
	unsigned int nr_shards = *(unsigned int *)arg;
	struct rb_root *buf, *old = root_stable_tree;

	if (check)
		return nr_shards == ksm_nr_shards;
	/* Room for every node index, as merge_across_nodes may change. */
	buf = kvcalloc(2 * nr_node_ids * nr_shards, sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	root_stable_tree = buf;
	root_unstable_tree = buf + nr_node_ids * nr_shards;
	WRITE_ONCE(ksm_nr_shards, nr_shards);
	if (old != one_stable_tree)
		kvfree(old);
	return 0;
}

/**
 * ksm_set_tree_shards() - split the stable and unstable trees anew
 * @nr_shards:	trees per node index, 1 to KSM_MAX_TREE_SHARDS; 0 for one per
 *		100 MiB of memory
 *
 * Like merge_across_nodes, only while nothing is merged: the stable trees
 * must be empty. The unstable trees are dropped (rebuilt by the scan).
 *
 * Return: 0, -EINVAL, -EBUSY while pages are merged, or -ENOMEM.
 */
int ksm_set_tree_shards(unsigned int nr_shards)
{
	if (!nr_shards)
		nr_shards = ksm_tree_shards_auto(totalram_pages());
	if (nr_shards > KSM_MAX_TREE_SHARDS)
		return -EINVAL;
	return ksm_reshape(tree_shards_apply, &nr_shards, true);
}

#include "tests/ksm_tree_shards-kunit.h"
