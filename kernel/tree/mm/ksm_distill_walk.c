// SPDX-License-Identifier: GPL-2.0-only
/*
 * The distilling scanner's walk of a VMA: the pages a round samples, taken
 * from the page tables in runs, and the mm's rmap_items the walk passes
 * over between them, counted merged, aged or crossed in one step. The
 * policy (which pages to sample, at what level) is mm/ksm_distill.c's; the
 * merging is mm/ksm.c's. By ksmd, under ksm_thread_mutex and the mmap read
 * lock of the mm walked.
 */

#include <linux/freezer.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/pgtable.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/cputime.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "ksm_internal.h"

/*
 * End of the last mergeable VMA walked in the mm: the rmap_items from there
 * to the next one's start are of VMAs gone. ksmd's, as the rest below.
 */
static unsigned long distill_gap_start;
/* The region of the pages the last walk took. */
static struct ksm_region *distill_region;

/*
 * Whether the merge of a stable rmap_item the walk passes over may still
 * hold: it is of the mm's merge domain (@domain), and its KSM page is there
 * with exactly as many mappings as its stable node has rmap_items. A write
 * since (a COW break), a discard or a swap-out leaves fewer; a forked
 * child's mapping, not yet counted by an rmap_item of its own, leaves more
 * (and could make up for one that is gone). Either way the slot does not
 * count in the coverage, and a sample examines it, dropping what is stale
 * as the stock scanner's next visit does (and giving the child's mapping
 * its rmap_item), before full_scans can advance. After a COW break the
 * region's merged slots are not passed over (ksm_distill_pass_merged())
 * until a coverage has examined them. Under ksm_thread_mutex, which keeps
 * the stable node; the page is only peeked at through the keyhole of
 * ksm_get_folio() (its mapping), with no reference taken: a page freed or
 * reused since fails that test.
 */
static bool distill_merge_intact(const struct ksm_rmap_item *rmap_item,
				 u64 domain)
{
	struct ksm_stable_node *stable_node = rmap_item->head;
	struct folio *folio = pfn_folio(READ_ONCE(stable_node->kpfn));

	return node_domain(stable_node) == domain &&
	       folio_stable_node(folio) == stable_node &&
	       folio_mapcount(folio) == stable_node->rmap_hlist_len;
}

/*
 * Whether what a sample of the merged page of @rmap_item would find is known:
 * its merge holds (distill_merge_intact()), its stable node sits in the tree
 * of its page's node (a KSM page migrated, or a node a re-keying took out,
 * is filed again by a visit: cmp_and_merge_page()), and no placement policy
 * wants to see the page's accesses.
 */
static bool distill_merge_settled(const struct ksm_rmap_item *rmap_item,
				  u64 domain)
{
	struct ksm_stable_node *stable_node = rmap_item->head;

	return !placement_wants_young() && stable_node->head != &migrate_nodes &&
	       get_kpfn_nid(READ_ONCE(stable_node->kpfn)) ==
	       stable_node_nid(stable_node) &&
	       distill_merge_intact(rmap_item, domain);
}

/*
 * The run of samples of @r from @addr to @end: the slots at its head that
 * hold a settled merge (distill_merge_settled()) are passed over as merged,
 * with no walk to their pages. Return the first slot left to walk (@end if
 * none). The test is of the stable node: a run of slots merged into one KSM
 * page (up to max_page_sharing of them, side by side in memory of identical
 * pages) is tested once, as of its first slot.
 */
static unsigned long distill_pass_merged(struct ksm_mm_slot *mm_slot,
					 struct ksm_region *r,
					 unsigned long addr, unsigned long end)
{
	struct ksm_stable_node *settled = NULL;
	struct ksm_rmap_item *rmap_item;
	u64 domain;

	if (!ksm_distill_pass_merged(r))
		return addr;
	domain = mm_domain(mm_slot->slot.mm);
	while (addr < end && (rmap_item = *ksm_scan.rmap_list) &&
	       (rmap_item->address & PAGE_MASK) == addr &&
	       (rmap_item->address & STABLE_FLAG) &&
	       (rmap_item->head == settled ||
		distill_merge_settled(rmap_item, domain))) {
		settled = rmap_item->head;
		placement_count_remote(rmap_item, settled);
		ksm_distill_merged_slot(slot_distill(mm_slot), r, addr);
		ksm_scan.rmap_list = &rmap_item->rmap_list;
		addr += PAGE_SIZE;
	}
	return addr;
}

/*
 * Move a cursor (@rmap_list, a link in an mm's rmap_item list) over the
 * rmap_items below @addr: the scanner visits only some pages of a round and
 * keeps the rmap_items it passes over. Those at or above @gap_start (the
 * end of the last mergeable VMA walked) lie in no mergeable VMA any more
 * and are freed. An unstable one stays in the unstable tree, which lives
 * for a coverage, until the tree is reset; then it is forgotten. Returns
 * the link of the first rmap_item at or above @addr.
 */
static struct ksm_rmap_item **
skip_rmap_items(struct ksm_rmap_item **rmap_list, unsigned long addr,
		unsigned long gap_start)
{
	struct ksm_rmap_item *rmap_item;

	while ((rmap_item = *rmap_list) &&
	       (rmap_item->address & PAGE_MASK) < addr) {
		if ((rmap_item->address & PAGE_MASK) >= gap_start) {
			*rmap_list = rmap_item->rmap_list;
			remove_rmap_item_from_tree(rmap_item);
			free_rmap_item(rmap_item);
			continue;
		}
		if ((rmap_item->address & UNSTABLE_FLAG) &&
		    unstable_age(rmap_item))
			remove_rmap_item_from_tree(rmap_item);
		rmap_list = &rmap_item->rmap_list;
	}
	return rmap_list;
}

/*
 * Move the cursor over the rmap_items of @r below @addr, which this round
 * does not sample, in one pass: an unstable one is aged as by
 * skip_rmap_items(); a merged one (stable, still in the tree) whose merge
 * still holds counts in the coverage as if sampled, since examining it would
 * change nothing.
 */
static void distill_skip_rmap_items(struct ksm_mm_slot *mm_slot,
				    struct ksm_region *r, unsigned long addr)
{
	struct ksm_rmap_item **rmap_list = ksm_scan.rmap_list;
	struct ksm_stable_node *intact = NULL;
	struct ksm_rmap_item *rmap_item;
	bool pass = ksm_distill_pass_merged(r);
	u64 domain = pass ? mm_domain(mm_slot->slot.mm) : 0;

	while ((rmap_item = *rmap_list) &&
	       (rmap_item->address & PAGE_MASK) < addr) {
		if ((rmap_item->address & STABLE_FLAG) && pass) {
			/* Tested once a stable node, as distill_pass_merged(). */
			if (rmap_item->head == intact ||
			    distill_merge_intact(rmap_item, domain)) {
				intact = rmap_item->head;
				placement_count_remote(rmap_item, intact);
				ksm_distill_merged_slot(slot_distill(mm_slot),
							r, rmap_item->address &
							PAGE_MASK);
			}
		} else if ((rmap_item->address & UNSTABLE_FLAG) &&
			 unstable_age(rmap_item))
			remove_rmap_item_from_tree(rmap_item);
		rmap_list = &rmap_item->rmap_list;
	}
	ksm_scan.rmap_list = rmap_list;
}

/* The rmap_item that @link is the link of, NULL for the list's head. */
static struct ksm_rmap_item *link_owner(struct ksm_mm_slot *mm_slot,
					struct ksm_rmap_item **link)
{
	if (link == &mm_slot->rmap_list)
		return NULL;
	return container_of(link, struct ksm_rmap_item, rmap_list);
}

/* Keep where the cursor stands in @l. */
static void distill_link_keep(struct ksm_walk_link *l)
{
	l->link = ksm_scan.rmap_list;
	l->gen = ksm_rmap_free_gen;
}

/*
 * Move the cursor on to the link kept in @l, if its rmap_item is still there
 * (none was freed since), lies ahead of the cursor and below @addr: the
 * rmap_items between are passed over unread. Return whether it did.
 */
static bool distill_jump(struct ksm_mm_slot *mm_slot,
			 const struct ksm_walk_link *l, unsigned long addr)
{
	struct ksm_rmap_item *to, *at;

	if (!l->link || l->gen != ksm_rmap_free_gen)
		return false;
	to = link_owner(mm_slot, l->link);
	if (!to || (to->address & PAGE_MASK) >= addr)
		return false;
	at = link_owner(mm_slot, ksm_scan.rmap_list);
	if (at && (at->address & PAGE_MASK) >= (to->address & PAGE_MASK))
		return false;
	ksm_scan.rmap_list = l->link;
	return true;
}

/*
 * Whether the walk may go straight to a link of @r's (&ksm_region_walk.plain):
 * no merge into it and no merged page met in it since the last walk over
 * every rmap_item of it found none.
 */
static bool distill_plain(struct ksm_region *r)
{
	return r->walk.plain && r->events == r->walk.plain_events;
}

/*
 * Parts of a plain region before that of a sample point whose links the walk
 * may go to: the last walk into the region may have stopped in one of them.
 */
#define DISTILL_LINK_BACK	4UL

/*
 * Keep where the cursor stands in the link of the part of @r that holds the
 * rmap_item it stands after, if that one is of @r.
 */
static void distill_link_mark(struct ksm_mm_slot *mm_slot,
			      struct ksm_region *r)
{
	struct ksm_region_walk *w = &r->walk;
	struct ksm_rmap_item *at = link_owner(mm_slot, ksm_scan.rmap_list);
	unsigned long addr;

	if (!w->links || !at)
		return;
	addr = at->address & PAGE_MASK;
	if (addr < r->start || addr >= r->end)
		return;
	distill_link_keep(&w->links[(addr - r->start) >>
				    (PAGE_SHIFT + w->part_shift)]);
}

/*
 * Move the cursor on to the link kept in the part of @r that holds @addr,
 * or in one of the DISTILL_LINK_BACK parts before it, that is good and lies
 * ahead of the cursor and below @addr (distill_jump()). Return whether it
 * did.
 */
static bool distill_link_jump(struct ksm_mm_slot *mm_slot,
			      struct ksm_region *r, unsigned long addr)
{
	struct ksm_region_walk *w = &r->walk;
	unsigned long part, i;

	if (!w->links)
		return false;
	part = (addr - r->start) >> (PAGE_SHIFT + w->part_shift);
	for (i = 0; i <= min(part, DISTILL_LINK_BACK); i++)
		if (distill_jump(mm_slot, &w->links[part - i], addr))
			return true;
	return false;
}

/*
 * The walk over every rmap_item of @r ended with none merged met: give it
 * links to go straight to its sample points, if it is large enough.
 * Allocated under the mmap lock for read, as rmap_items are.
 */
static void distill_links_alloc(struct ksm_region *r)
{
	struct ksm_region_walk *w = &r->walk;
	unsigned long pages = (r->end - r->start) >> PAGE_SHIFT;
	unsigned int shift;
	unsigned long parts;

	if (w->links)
		return;
	shift = ksm_walk_part_shift(pages);
	parts = DIV_ROUND_UP(pages, 1UL << shift);
	if (parts < KSM_WALK_LINK_MIN)
		return;
	w->links = kvcalloc(parts, sizeof(*w->links),
			    GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN);
	w->part_shift = shift;
}

/*
 * Move the cursor to the rmap_items of @r at @addr, the next sample point
 * or the region's end. A region sampled in a stretch (ksm_region.stretch)
 * needs no pass over the rmap_items outside it: the cursor goes straight
 * to where the last stretch ended and, once the stretch is over, past the
 * region's last rmap_item. So does a plain region (distill_plain()): to
 * where the walk last stood in the part of @addr, and past its end. The
 * rmap_items between are left as they are, to be aged or counted merged
 * when the walk next meets them: a stretch, or a walk over all of them,
 * once in DISTILL_JUMP_RESETS unstable tree resets.
 */
static void distill_walk_to(struct ksm_mm_slot *mm_slot, struct ksm_region *r,
			    unsigned long addr)
{
	struct ksm_region_walk *w = &r->walk;
	bool tail = addr >= r->end, jump, plain;
	struct ksm_rmap_item *at;

	if (w->round != ksm_scan.rounds) {
		w->round = ksm_scan.rounds;
		w->began = ksm_scan.unstable_seqnr;
		w->domain_began = mm_domain(mm_slot->slot.mm);
		w->events_began = r->events;
		w->jumped = false;
	}
	jump = ksm_scan.unstable_seqnr - w->aged < DISTILL_JUMP_RESETS;
	plain = !r->stretch && distill_plain(r);
	/* Where the last run of samples ended, for the next one after it. */
	if (plain)
		distill_link_mark(mm_slot, r);
	if (jump && r->stretch)
		w->jumped |= distill_jump(mm_slot, &w->resume, addr);
	if (jump && plain && !tail)
		w->jumped |= distill_link_jump(mm_slot, r, addr);
	if (jump && tail && (r->stretch || plain))
		w->jumped |= distill_jump(mm_slot, &w->tail, addr);
	distill_skip_rmap_items(mm_slot, r, addr);
	if (!tail) {
		if (plain)
			distill_link_mark(mm_slot, r);
		return;
	}
	at = link_owner(mm_slot, ksm_scan.rmap_list);
	if (at && (at->address & PAGE_MASK) >= r->start)
		distill_link_keep(&w->tail);
	if (!w->jumped) {
		w->aged = w->began;
		w->domain = w->domain_began;
		w->plain = r->events == w->events_began;
		w->plain_events = r->events;
		if (w->plain && !r->stretch)
			distill_links_alloc(r);
	}
}

/*
 * At the head of @r, merged through in its last round (ksm_distill_through()):
 * move the cursor straight past its last rmap_item, as distill_walk_to()
 * does for a stretch, and within the same bound of unstable tree resets
 * since a walk last went over every rmap_item of it. Such a walk also
 * meets what the region's merges cannot say of it: a page zapped and
 * faulted in again, a KSM page migrated, a process moved to another merge
 * domain since that walk began. Not when a placement policy wants to see
 * the merged pages' accesses. Return whether it did.
 *
 * Each round at the lowest level's share would otherwise step through the
 * rmap_items of every slot of a region merged through, and pay for it with
 * a budget sleep that holds up every level.
 */
static bool distill_cross(struct ksm_mm_slot *mm_slot, struct ksm_region *r)
{
	struct ksm_region_walk *w = &r->walk;

	if (placement_wants_young() || !ksm_distill_through(r) ||
	    ksm_scan.unstable_seqnr - w->aged >= DISTILL_JUMP_RESETS ||
	    w->domain != mm_domain(mm_slot->slot.mm) ||
	    !distill_jump(mm_slot, &w->tail, r->end))
		return false;
	w->round = ksm_scan.rounds;
	w->began = ksm_scan.unstable_seqnr;
	w->jumped = true;
	ksm_distill_crossed(slot_distill(mm_slot), r);
	return true;
}

/* A run of @r's stretch was sampled: the next one starts from here. */
static void distill_stretch_mark(struct ksm_region *r)
{
	if (r && r->stretch)
		distill_link_keep(&r->walk.resume);
}

/*
 * The rest of a run of samples has no page to merge now: forget what was
 * known of the slots from the cursor to @end.
 */
static void distill_forget_rmap_items(unsigned long end)
{
	struct ksm_rmap_item *rmap_item;

	while ((rmap_item = *ksm_scan.rmap_list) &&
	       (rmap_item->address & PAGE_MASK) < end) {
		*ksm_scan.rmap_list = rmap_item->rmap_list;
		remove_rmap_item_from_tree(rmap_item);
		free_rmap_item(rmap_item);
	}
}

/*
 * The distilling scanner's walk of one VMA, from ksm_scan.address: take the
 * pages this round samples next, in runs (ksm_distill_next_sample()), up to
 * KSM_DISTILL_AHEAD of them into ksm_walk; the slots at the head of a run
 * that hold a settled merge are passed over (distill_pass_merged()), and a
 * run of such slots only is not walked. Return true when ksmd is to
 * examine them, with *@item the first one's rmap_item (NULL if none could be
 * allocated) and *@page its page (referenced), false when the VMA has no
 * sample point left.
 */
static bool distill_scan_vma(struct ksm_mm_slot *mm_slot,
			     struct vm_area_struct *vma,
			     struct ksm_rmap_item **item, struct page **page)
{
	struct ksm_region *r;
	bool oom = false;

	if (ksm_scan.address < vma->vm_start) {
		/*
		 * The rmap_items passed over here at or above
		 * distill_gap_start are of VMAs gone, and freed: the time is
		 * charged apart.
		 */
		u64 released = local_clock();

		ksm_scan.rmap_list = skip_rmap_items(ksm_scan.rmap_list,
						     vma->vm_start,
						     distill_gap_start);
		ksm_distill_released(local_clock() - released);
		ksm_scan.address = vma->vm_start;
	}
	distill_gap_start = vma->vm_end;
	if (!vma->anon_vma) {
		ksm_scan.address = vma->vm_end;
		return false;
	}
	/* The anon_vma's address only tells mappings apart. */
	r = ksm_distill_region_enter(slot_distill(mm_slot), vma->vm_start,
				     vma->vm_end, (unsigned long)vma->anon_vma);
	if (r && ksm_scan.address == vma->vm_start &&
	    distill_cross(mm_slot, r)) {
		ksm_scan.address = vma->vm_end;
		return false;
	}

	while (ksm_scan.address < vma->vm_end &&
	       ksm_walk.nr < KSM_DISTILL_AHEAD) {
		unsigned int i = ksm_walk.nr, run = KSM_DISTILL_AHEAD - i;
		unsigned long addr = ksm_scan.address, start, end;
		struct ksm_rmap_item *rmap_item;
		bool refused;

		if (ksm_test_exit(vma->vm_mm))
			break;
		/*
		 * The rmap_items of this VMA all lie below gap_start: passing
		 * over them frees none.
		 */
		if (!r) {
			ksm_scan.rmap_list = skip_rmap_items(ksm_scan.rmap_list,
							     addr, ULONG_MAX);
			end = pmd_addr_end(addr, addr + run * PAGE_SIZE);
		} else {
			addr = ksm_distill_next_sample(slot_distill(mm_slot),
						       r, addr, &run);
			distill_walk_to(mm_slot, r, min(addr, vma->vm_end));
			end = addr + run * PAGE_SIZE;
		}
		if (addr >= vma->vm_end) {
			ksm_scan.address = vma->vm_end;
			break;
		}
		start = addr;
		end = min(end, vma->vm_end);
		if (r) {
			addr = distill_pass_merged(mm_slot, r, start, end);
			if (addr == end) {
				ksm_distill_sampled(slot_distill(mm_slot), r,
						    start, (end - start) >>
						    PAGE_SHIFT);
				distill_stretch_mark(r);
				ksm_scan.address = end;
				cond_resched();
				continue;
			}
		}
		if (!ksm_walk_pages(vma, addr, end, run) && ksm_walk.refused) {
			/* A page of a large folio taken: next batch. */
			ksm_scan.address = addr;
			break;
		}
		refused = ksm_walk.refused;
		for (; i < ksm_walk.nr; i++) {
			struct page *tmp_page = ksm_walk.page[i];

			addr = ksm_walk.addr[i];
			flush_anon_page(vma, tmp_page, addr);
			flush_dcache_page(tmp_page);
			rmap_item = get_next_rmap_item(mm_slot,
						       ksm_scan.rmap_list, addr);
			if (!rmap_item) {
				/* Lost to this round, with the rest taken. */
				ksm_walk_drop(i);
				oom = true;
				break;
			}
			ksm_scan.rmap_list = &rmap_item->rmap_list;
			placement_visit(rmap_item, tmp_page,
					test_bit(i, &ksm_walk.young));
			ksm_walk.item[i] = rmap_item;
		}
		/*
		 * The walk stopped short at a page of a large folio it holds:
		 * the run ends at the last page taken, the rest is sampled
		 * later. What was known of its holes (no page to merge there
		 * now) is forgotten.
		 */
		if (refused && !oom)
			end = addr + PAGE_SIZE;
		else if (!oom)
			distill_forget_rmap_items(end);
		if (r) {
			ksm_distill_sampled(slot_distill(mm_slot), r, start,
					    (end - start) >> PAGE_SHIFT);
			distill_stretch_mark(r);
		}
		ksm_scan.address = end;
		if (oom)
			break;
		cond_resched();
	}
	if (!ksm_walk.nr && !oom)
		return false;
	/* NULL if out of memory with nothing taken. */
	distill_region = r;
	*item = ksm_walk_next(page);
	return true;
}

/* How long the distilling scanner examines pages before its budget sleep. */
#define KSM_DISTILL_BATCH_NS	(2 * NSEC_PER_MSEC)

/*
 * One batch of the distilling scanner: examine pages for about
 * KSM_DISTILL_BATCH_NS, or until a round that found nothing to examine
 * (ksm_distill_idle_ns()), return how long to sleep to keep to the CPU share
 * of the levels examined, or through such rounds. pages_to_scan and
 * sleep_millisecs are ignored.
 * The share is of ksmd's CPU time, not of the wall time the batch took:
 * waiting for an mmap lock or for a CPU costs no budget. ksmd's CPU time
 * since the last batch ended, its sleep and wakeup, counts to this batch
 * when it is less than a batch and that one was the distilling scanner's
 * too (@cont).
 */
static u64 distill_batch(bool cont)
{
	u64 start = ktime_get_ns(), cpu = task_sched_runtime(current);
	u64 now, last = start, idle = 0;
	static u64 cpu_mark;

	if (cont && cpu_mark && cpu_mark <= cpu &&
	    cpu - cpu_mark < KSM_DISTILL_BATCH_NS)
		cpu = cpu_mark;

	for (;;) {
		ksm_do_scan(1);
		/*
		 * The samples taken are examined in this batch. The pages of
		 * one walk are of one region: charge their stretch at once.
		 */
		if (ksm_walk.next < ksm_walk.nr && !freezing(current))
			continue;
		now = ktime_get_ns();
		ksm_distill_charge(now - last);
		last = now;
		/* A round with nothing to examine: so would the next ones. */
		idle = ksm_distill_idle_ns();
		if (idle || freezing(current) ||
		    now - start >= KSM_DISTILL_BATCH_NS || !ksmd_should_run())
			break;
	}
	cpu_mark = task_sched_runtime(current);
	/* The walk is emptied at the batch's end. */
	distill_region = NULL;
	return max(ksm_distill_batch_sleep_ns(cpu_mark - cpu), idle);
}

static void distill_mm_start(struct ksm_mm_slot *mm_slot)
{
	distill_gap_start = 0;
}

/*
 * The walk left the mm: unless it is exiting, keep the rmap_items of the
 * VMAs walked and free those of VMAs gone, and drop the regions it did not
 * meet.
 */
static void distill_mm_end(struct ksm_mm_slot *mm_slot, bool exiting)
{
	if (!exiting)
		ksm_scan.rmap_list = skip_rmap_items(ksm_scan.rmap_list,
						     ULONG_MAX,
						     distill_gap_start);
	ksm_distill_mm_end(slot_distill(mm_slot));
}

static void distill_examined(bool was_merged, bool merged, u64 ns)
{
	if (distill_region)
		ksm_distill_examined(slot_distill(ksm_scan.mm_slot),
				     distill_region, was_merged, merged, ns);
}

/* The distilling state of @mm's mm_slot, or NULL; under ksm_mmlist_lock. */
static struct ksm_distill_mm *mm_distill(struct mm_struct *mm)
{
	struct ksm_mm_slot *mm_slot = ksm_mm_slot_lookup(mm);

	return mm_slot ? slot_distill(mm_slot) : NULL;
}

/*
 * A sample merged with @rmap_item, a page found in the unstable tree: the
 * merge counts in that page's region too, as in UKSM, or the region whose
 * samples go into the tree first would never be credited with its
 * duplicates.
 */
static void distill_partner_merged(struct ksm_rmap_item *rmap_item)
{
	struct ksm_distill_mm *dm;

	spin_lock(&ksm_mmlist_lock);
	dm = mm_distill(rmap_item->mm);
	if (dm)
		ksm_distill_partner_merged(dm, rmap_item->address & PAGE_MASK);
	spin_unlock(&ksm_mmlist_lock);
}

/* A COW break counts against the page's region. */
static void distill_cow_break(struct mm_struct *mm, unsigned long addr)
{
	struct ksm_distill_mm *dm;

	spin_lock(&ksm_mmlist_lock);
	dm = mm_distill(mm);
	if (dm)
		ksm_distill_cow(dm, addr);
	spin_unlock(&ksm_mmlist_lock);
}

/**
 * distill_show_stat() - the distilling scanner's lines of a ksm_stat file
 * @m:	the /proc/<pid>/ksm_stat file
 * @mm:	the process's mm
 */
void distill_show_stat(struct seq_file *m, struct mm_struct *mm)
{
	spin_lock(&ksm_mmlist_lock);
	ksm_distill_show_stat(m, mm_distill(mm));
	spin_unlock(&ksm_mmlist_lock);
}

/* Samples regions; merges on first sight; keeps to a CPU budget. */
const struct ksm_scanner_ops ksm_distill_scanner = {
	.first_sight = true,
	.batch = distill_batch,
	.round_start = ksm_distill_round_start,
	.mm_start = distill_mm_start,
	.scan_vma = distill_scan_vma,
	.mm_end = distill_mm_end,
	.round_end = ksm_distill_round_end,
	.examined = distill_examined,
	.partner_merged = distill_partner_merged,
	.released = ksm_distill_released,
	.cow_break = distill_cow_break,
};
