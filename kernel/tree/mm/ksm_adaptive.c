// SPDX-License-Identifier: GPL-2.0
/*
 * Adaptive deduplication engine for KSM: helpers shared by its policies.
 *
 * The engine extends mm/ksm.c with policies (scanners, page hashes, placement
 * of the merged copy, THP handling) selected at run time through knobs under
 * /sys/kernel/mm/ksm/. Each such knob selects one mode among a few names;
 * this file parses and shows them in one way for all.
 */

#include <linux/errno.h>
#include <linux/highmem.h>
#include <linux/kernel.h>
#include <linux/ksm.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "ksm_internal.h"

struct ksm_tree_stats ksm_tree_stats;

/**
 * ksm_choice_parse() - parse a write to a mode knob
 * @choice:	the knob's modes
 * @buf:	the written text: one mode name, optionally newline-terminated
 *
 * Return: the mode's index, or -EINVAL when @buf names no mode.
 */
int ksm_choice_parse(const struct ksm_choice *choice, const char *buf)
{
	unsigned int i;

	for (i = 0; i < choice->nr; i++)
		if (sysfs_streq(buf, choice->names[i]))
			return i;
	return -EINVAL;
}

/**
 * ksm_choice_show() - show a mode knob, the current mode in brackets
 * @choice:	the knob's modes
 * @cur:	index of the current mode
 * @buf:	a sysfs page buffer
 *
 * Return: the number of bytes written to @buf.
 */
ssize_t ksm_choice_show(const struct ksm_choice *choice, unsigned int cur,
			char *buf)
{
	ssize_t len = 0;
	unsigned int i;

	for (i = 0; i < choice->nr; i++)
		len += sysfs_emit_at(buf, len, i == cur ? "%s[%s]" : "%s%s",
				     i ? " " : "", choice->names[i]);
	len += sysfs_emit_at(buf, len, "\n");
	return len;
}

/**
 * ksm_adaptive_proc_stat() - the engine's lines of /proc/<pid>/ksm_stat
 * @m:	the file
 * @mm:	the process's mm
 */
void ksm_adaptive_proc_stat(struct seq_file *m, struct mm_struct *mm)
{
	distill_show_stat(m, mm);
	placement_show_stat(m, mm);
}

/**
 * ksm_adaptive_slot_init() - the engine's part of a new mm_slot
 * @mm_slot:	the mm_slot
 * @mm:		its mm, entering KSM
 */
void ksm_adaptive_slot_init(struct ksm_mm_slot *mm_slot, struct mm_struct *mm)
{
	ksm_distill_mm_init(&mm_slot->distill, mm);
	/* Refreshed each full scan under the priority placement. */
	mm_slot->snice = KSM_PLACEMENT_SNICE(mm == current->mm ?
					 task_nice(current->group_leader) : 0);
}

/**
 * ksm_adaptive_slot_free() - the engine's part of an mm_slot freed
 * @mm_slot:	the mm_slot
 */
void ksm_adaptive_slot_free(struct ksm_mm_slot *mm_slot)
{
	ksm_distill_mm_free(&mm_slot->distill);
}

/**
 * ksm_note_cow_break() - a write fault broke COW of a merged page
 * @mm:		the faulting mm
 * @addr:	the faulting address
 *
 * Not KSM's own unsharing. Called from the fault path, without
 * ksm_thread_mutex: the scanner in force may count it.
 */
void ksm_note_cow_break(struct mm_struct *mm, unsigned long addr)
{
	const struct ksm_scanner_ops *scanner = READ_ONCE(ksm_scanner);

	if (scanner->cow_break)
		scanner->cow_break(mm, addr);
}

#include "tests/ksm_adaptive-kunit.h"
