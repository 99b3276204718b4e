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

#include "ksm_adaptive.h"

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

#include "tests/ksm_tree_shards-kunit.h"
