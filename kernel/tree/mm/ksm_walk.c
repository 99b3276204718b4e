// SPDX-License-Identifier: GPL-2.0-only
/*
 * KSM's walk of the page tables: a run of pages of one page table taken in
 * one walk (struct ksm_walk), each referenced until ksmd examines it, so
 * that the mmap lock, the VMA lookup and the page-table walk are paid once
 * for the run. Both scanners take their pages through it. ksmd's own, under
 * ksm_thread_mutex and the walked mm's mmap read lock.
 */

#include <linux/mm.h>
#include <linux/mm_inline.h>
#include <linux/mmap_lock.h>
#include <linux/pagewalk.h>
#include <linux/page_idle.h>
#include <linux/sched.h>
#include <linux/hugetlb.h>

#include <asm/tlbflush.h>

#include "ksm_internal.h"

/*
 * The mm whose mmap lock ksmd holds for read since a walk took the pages it
 * hands out (struct ksm_walk), and the VMA they lie in; both NULL when none.
 * A walk keeps the lock across the merges of its pages, where ksmd would
 * drop it and take it again for each page, and finds their VMA without a
 * lookup (merge_find_vma()). ksmd never holds two mmap locks:
 * ksm_mmap_lock() of another mm drops the walk's first, and of the same mm
 * takes nothing (a second read lock would wait behind a queued writer). The
 * lock is dropped before the next walk, a new page hash strength, a
 * placement migration and ksmd's sleep at the end of each batch, and before
 * a merge or a page is handed out when a writer waits for it
 * (ksm_mmap_lock(), ksm_walk_next()): a writer waits for one page's
 * examining at most. While it is held the VMA cannot change, and the mm
 * cannot be freed (an exiting mm's __ksm_exit() takes the lock for write).
 * ksmd's own, under ksm_thread_mutex.
 */
static struct mm_struct *ksm_walk_mm;
static struct vm_area_struct *ksm_walk_vma;

/**
 * ksm_walk_unlock() - drop the mmap lock a walk holds
 *
 * Release the mmap read lock that the last walk kept across the merges of
 * its pages (ksm_walk_hold()), if it still holds it, and forget its mm and
 * VMA. ksmd only, under ksm_thread_mutex.
 */
void ksm_walk_unlock(void)
{
	if (ksm_walk_mm) {
		mmap_read_unlock(ksm_walk_mm);
		ksm_walk_mm = NULL;
		ksm_walk_vma = NULL;
	}
}

/**
 * ksm_mmap_lock() - take an mm's mmap lock for read, for a merge
 * @mm:		the mm of the rmap_item to merge
 *
 * Take @mm's mmap lock for read, unless the walk holds it and no writer
 * waits for it: a waiting writer (mmap, munmap, mprotect, an exit) gets the
 * lock before this merge, which takes it again behind the writer, so that
 * it waits for one merge at most, as under the stock scanner, not for the
 * rest of a walk's. The walk's other pages take the lock one at a time.
 * A lock the walk holds on another mm is dropped first: ksmd never holds
 * two mmap locks. Released by ksm_mmap_unlock(). ksmd only, under
 * ksm_thread_mutex.
 */
void ksm_mmap_lock(struct mm_struct *mm)
{
	if (mm == ksm_walk_mm && !mmap_lock_is_contended(mm))
		return;
	ksm_walk_unlock();
	mmap_read_lock(mm);
}

/**
 * ksm_mmap_unlock() - release what ksm_mmap_lock() took
 * @mm:		the mm passed to ksm_mmap_lock()
 *
 * Drop @mm's mmap read lock, unless it is the one the walk holds: that one
 * stays held across the merges of the walk's pages, until ksm_walk_unlock().
 * ksmd only, under ksm_thread_mutex.
 */
void ksm_mmap_unlock(struct mm_struct *mm)
{
	if (mm != ksm_walk_mm)
		mmap_read_unlock(mm);
}

/**
 * ksm_walk_hold() - keep a walk's mmap lock across its pages' merges
 * @mm:		the mm whose pages the walk took, its mmap lock held for read
 * @vma:	the VMA the pages lie in
 *
 * A scanner's walk took pages of @vma of @mm, under its mmap read lock: the
 * lock is held across their merges, until ksm_walk_unlock(). ksmd only,
 * under ksm_thread_mutex.
 */
void ksm_walk_hold(struct mm_struct *mm, struct vm_area_struct *vma)
{
	ksm_walk_mm = mm;
	ksm_walk_vma = vma;
}

/**
 * ksm_walk_held_vma() - the VMA of the walk's pages, if it holds the lock
 * @mm:		the mm of the rmap_item to merge
 *
 * ksmd only, under @mm's mmap read lock (ksm_mmap_lock()).
 *
 * Return: the VMA whose pages the walk took, if it holds @mm's mmap lock; or
 * NULL.
 */
struct vm_area_struct *ksm_walk_held_vma(struct mm_struct *mm)
{
	return mm == ksm_walk_mm ? ksm_walk_vma : NULL;
}

struct ksm_walk ksm_walk;

static void ksm_walk_take(struct ksm_walk *w, struct page *page,
			  unsigned long addr, bool young)
{
	folio_get(page_folio(page));
	if (young)
		__set_bit(w->nr, &w->young);
	w->addr[w->nr] = addr;
	w->page[w->nr++] = page;
}

/* Whether @w holds a page of @folio, a large one (see struct ksm_walk). */
static bool ksm_walk_holds(struct ksm_walk *w, struct folio *folio)
{
	unsigned int i;

	for (i = 0; i < w->nr; i++)
		if (page_folio(w->page[i]) == folio)
			return true;
	return false;
}

static int ksm_next_page_pmd_entry(pmd_t *pmdp, unsigned long addr, unsigned long end,
				   struct mm_walk *walk)
{
	struct ksm_walk *w = walk->private;
	struct vm_area_struct *vma = walk->vma;
	pte_t *start_ptep = NULL, *ptep, pte;
	struct mm_struct *mm = walk->mm;
	bool test_young = placement_wants_young();
	struct folio *folio;
	struct page *page;
	spinlock_t *ptl;
	bool young;
	pmd_t pmd;

	if (ksm_test_exit(mm))
		return 0;

	cond_resched();

	pmd = pmdp_get_lockless(pmdp);
	if (!pmd_present(pmd))
		return 0;

	if (IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE) && pmd_leaf(pmd)) {
		ptl = pmd_lock(mm, pmdp);
		pmd = pmdp_get(pmdp);

		if (!pmd_present(pmd)) {
			goto not_found_unlock;
		} else if (pmd_leaf(pmd)) {
			page = vm_normal_page_pmd(vma, addr, pmd);
			if (!page)
				goto not_found_unlock;
			folio = page_folio(page);

			if (folio_is_zone_device(folio) || !folio_test_anon(folio))
				goto not_found_unlock;
			if (ksm_walk_holds(w, folio)) {
				w->refused = true;
				goto not_found_unlock;
			}

			page += ((addr & (PMD_SIZE - 1)) >> PAGE_SHIFT);
			/* Not cleared: its other subpages are to be seen. */
			young = test_young && (pmd_young(pmd) ||
					       folio_test_active(folio));
			ksm_walk_take(w, page, addr, young);
			/* Its next subpage is of a large folio it holds. */
			w->refused = w->nr < w->want && addr + PAGE_SIZE < end;
			spin_unlock(ptl);
			return 1;
		}
		spin_unlock(ptl);
	}

	start_ptep = pte_offset_map_lock(mm, pmdp, addr, &ptl);
	if (!start_ptep)
		return 0;

	for (ptep = start_ptep; addr < end; ptep++, addr += PAGE_SIZE) {
		pte = ptep_get(ptep);

		if (!pte_present(pte))
			continue;

		page = vm_normal_page(vma, addr, pte);
		if (!page)
			continue;
		folio = page_folio(page);

		if (folio_is_zone_device(folio) || !folio_test_anon(folio))
			continue;
		if (folio_test_large(folio) && ksm_walk_holds(w, folio)) {
			w->refused = true;
			break;
		}
		/*
		 * Cleared for the next visit to see the accesses in between;
		 * reclaim still sees the folio referenced (PG_young). The TLB
		 * entry goes too: while a CPU holds it, its accesses do not
		 * set the bit again (x86's ptep_clear_flush_young() leaves it,
		 * as reclaim can afford to), and a page in use would look
		 * unused to one of its sharers but not to another.
		 */
		young = false;
		if (test_young && ptep_test_and_clear_young(vma, addr, ptep)) {
			flush_tlb_range(vma, addr, addr + PAGE_SIZE);
			young = true;
			folio_set_young(folio);
		}
		young |= test_young && folio_test_active(folio);
		ksm_walk_take(w, page, addr, young);
		if (w->nr == w->want)
			break;
	}
	pte_unmap_unlock(start_ptep, ptl);
	return w->nr > 0;

not_found_unlock:
	spin_unlock(ptl);
	return 0;
}

static struct mm_walk_ops ksm_next_page_ops = {
	.pmd_entry = ksm_next_page_pmd_entry,
	.walk_lock = PGWALK_RDLOCK,
};

/**
 * ksm_walk_reset() - start a new walk
 *
 * Start taking pages into ksm_walk, which must hold none. ksmd only, under
 * ksm_thread_mutex.
 */
void ksm_walk_reset(void)
{
	struct ksm_walk *w = &ksm_walk;

	VM_WARN_ON_ONCE(w->next < w->nr);
	w->nr = 0;
	w->next = 0;
	w->young = 0;
}

/**
 * ksm_walk_pages() - take a run of pages of one page table into ksm_walk
 * @vma:	the VMA to walk
 * @start:	the address to start at
 * @end:	the address to stop before, within @vma
 * @want:	how many more pages to take at most
 *
 * Take up to @want more pages of one page table from @start on, the first
 * at or after @start, into ksm_walk after those it holds (KSM_WALK_MAX in
 * all at most), each with a reference. Only anonymous pages are taken.
 * ksm_walk.refused tells whether the walk stopped short at a page of a large
 * folio it holds already. Under the mmap read lock.
 *
 * Return: how many pages were taken.
 */
unsigned int ksm_walk_pages(struct vm_area_struct *vma,
			    unsigned long start, unsigned long end,
			    unsigned int want)
{
	struct ksm_walk *w = &ksm_walk;
	unsigned int nr = w->nr;
	int found;

	w->want = min_t(unsigned int, nr + want, KSM_WALK_MAX);
	w->refused = false;
	found = walk_page_range_vma(vma, start, end, &ksm_next_page_ops, w);
	VM_WARN_ON_ONCE(found < 0);
	return found > 0 ? w->nr - nr : 0;
}

/**
 * ksm_walk_next() - hand out the next page ksm_walk holds
 * @page:	out: its page, the walk's reference on it passed to the caller
 *
 * Hand out the next rmap_item ksm_walk holds and its page, if any. A
 * writer waiting for the walk's mmap lock gets it first: examining a page
 * that does not merge (tree lookups, compares) takes no lock of its own.
 * ksmd only, under ksm_thread_mutex.
 *
 * Return: the rmap_item, or NULL when every page taken was handed out
 * (@page is then left as it was).
 */
struct ksm_rmap_item *ksm_walk_next(struct page **page)
{
	struct ksm_walk *w = &ksm_walk;

	if (ksm_walk_mm && mmap_lock_is_contended(ksm_walk_mm))
		ksm_walk_unlock();
	if (w->next == w->nr)
		return NULL;
	*page = w->page[w->next];
	return w->item[w->next++];
}

/**
 * ksm_walk_refs() - the references the walk holds on a folio
 * @folio:	the folio a merge is to check
 *
 * References the walk holds on @folio, taken ahead of its examining and not
 * handed out yet: ksmd's own, as the one on the page it examines, so that
 * the count checks before a merge do not take them for a pin.
 *
 * Return: the number of such references.
 */
int ksm_walk_refs(struct folio *folio)
{
	struct ksm_walk *w = &ksm_walk;
	unsigned int i;
	int refs = 0;

	for (i = w->next; i < w->nr; i++)
		refs += page_folio(w->page[i]) == folio;
	return refs;
}

/**
 * ksm_walk_drop() - let go of pages ksm_walk holds
 * @i:		index of the first page to let go of
 *
 * Let go of the pages ksm_walk holds from @i on, none handed out: their
 * references are put, and ksm_walk then ends before @i. ksmd only, under
 * ksm_thread_mutex.
 */
void ksm_walk_drop(unsigned int i)
{
	struct ksm_walk *w = &ksm_walk;
	unsigned int j;

	VM_WARN_ON_ONCE(w->next > i);
	for (j = i; j < w->nr; j++)
		put_page(w->page[j]);
	w->nr = i;
}

/**
 * ksm_walk_stock() - the stock scanner's walk of a VMA
 * @mm_slot:	the mm_slot of @vma's mm
 * @vma:	a mergeable VMA, its mm's mmap lock held for read
 * @item:	out: the rmap_item of the first page taken
 * @page:	out: that page, referenced
 *
 * Every page from ksm_scan.address on, a run of them from one page table at
 * a time (ksm_walk.limit at most), each with its rmap_item; smart_scan
 * passes over those that did not merge lately (should_skip_rmap_item()).
 * &ksm_scanner_ops.scan_vma of ksm_stock_scanner.
 *
 * Return: true with the first page taken, false when @vma has none left.
 */
bool ksm_walk_stock(struct ksm_mm_slot *mm_slot, struct vm_area_struct *vma,
		    struct ksm_rmap_item **item, struct page **page)
{
	struct mm_struct *mm = vma->vm_mm;
	struct ksm_rmap_item *rmap_item;

	if (ksm_scan.address < vma->vm_start)
		ksm_scan.address = vma->vm_start;
	if (!vma->anon_vma)
		ksm_scan.address = vma->vm_end;

	while (ksm_scan.address < vma->vm_end) {
		struct ksm_walk *w = &ksm_walk;
		unsigned int i, nr, queued = 0;
		bool oom = false;

		if (ksm_test_exit(mm))
			break;

		ksm_walk_reset();
		nr = ksm_walk_pages(vma, ksm_scan.address, vma->vm_end,
				    ksm_walk.limit);
		if (!nr) {
			ksm_scan.address = vma->vm_end;
			break;
		}
		for (i = 0; i < nr; i++) {
			struct page *tmp_page = w->page[i];
			unsigned long addr = w->addr[i];

			flush_anon_page(vma, tmp_page, addr);
			flush_dcache_page(tmp_page);
			rmap_item = get_next_rmap_item(mm_slot,
						       ksm_scan.rmap_list, addr);
			if (!rmap_item) {
				/* The rest is walked again. */
				for (oom = true; i < nr; i++)
					put_page(w->page[i]);
				break;
			}
			ksm_scan.rmap_list = &rmap_item->rmap_list;
			ksm_scan.address = addr + PAGE_SIZE;
			placement_visit(rmap_item, tmp_page,
					test_bit(i, &w->young));
			if (should_skip_rmap_item(tmp_page, rmap_item)) {
				put_page(tmp_page);
				continue;
			}
			w->page[queued] = tmp_page;
			w->item[queued++] = rmap_item;
		}
		w->nr = queued;
		w->next = 0;
		/* NULL if out of memory with nothing queued. */
		if (queued || oom) {
			*item = ksm_walk_next(page);
			return true;
		}
		cond_resched();
	}
	return false;
}
