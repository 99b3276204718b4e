// SPDX-License-Identifier: GPL-2.0
/*
 * Full-system scan for KSM (UKSM's first feature): make the anonymous memory
 * of every user process mergeable, without madvise() or prctl().
 *
 * Writing 1 to /sys/kernel/mm/ksm/full_system_scan enrolls every user
 * process that has not opted out: it gets what prctl(PR_SET_MEMORY_MERGE, 1)
 * gives (MMF_VM_MERGE_ANY: every compatible VMA mergeable, new ones too,
 * inherited by fork and exec), and MMF_KSM_ENROLLED records that the scan,
 * not the process, asked for it. A process exec'ed while the knob is 1 is
 * enrolled at exec. Writing 0 un-enrolls exactly the enrolled processes (their
 * pages are unmerged); a process's own prctl() is never undone.
 *
 * Opting out lasts: prctl(PR_SET_MEMORY_MERGE, 0) sets MMF_KSM_OPT_OUT, which
 * children inherit and which keeps the process out of every later walk;
 * prctl(PR_SET_MEMORY_MERGE, 1) clears it. A process that forbids COW
 * sharing (s390_disable_cow_sharing()) is never enrolled. MADV_UNMERGEABLE
 * keeps its VMA out, as the scan only marks VMAs when it enrolls a process
 * and new VMAs after.
 *
 * Locking: knob writes are serialized by full_system_mutex; a process is
 * enrolled or un-enrolled under its mmap write lock, as prctl() does, so the
 * flags and its VMAs change together against ksmd and its own prctl().
 */

#include <linux/ksm.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/oom.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>

#include "ksm_adaptive.h"

static DEFINE_MUTEX(full_system_mutex);
static bool full_system __read_mostly;

/**
 * ksm_get_full_system() - the full_system_scan knob
 *
 * Read without full_system_mutex: a write may still be walking the
 * processes.
 *
 * Return: true when the full-system scan is on.
 */
bool ksm_get_full_system(void)
{
	return READ_ONCE(full_system);
}

/*
 * Whether the scan may enroll @mm: it has not opted out, is not mergeable
 * already, and does not forbid COW sharing (s390's KVM guests with storage
 * keys: s390_disable_cow_sharing() makes mm_forbids_zeropage() true, and
 * disables KSM for good as far as the scan is concerned).
 */
static bool full_system_may_enroll(struct mm_struct *mm)
{
	return !test_bit(MMF_KSM_OPT_OUT, &mm->flags) &&
	       !test_bit(MMF_VM_MERGE_ANY, &mm->flags) &&
	       !mm_forbids_zeropage(mm);
}

/* Enroll or un-enroll one mm: 1 when it changed, 0 when not, or -errno. */
static int full_system_apply(struct mm_struct *mm, bool on)
{
	int ret = 0;

	if (mmap_write_lock_killable(mm))
		return -EINTR;
	if (on) {
		if (full_system_may_enroll(mm)) {
			ret = ksm_enable_merge_any(mm);
			if (!ret) {
				set_bit(MMF_KSM_ENROLLED, &mm->flags);
				ret = 1;
			}
		}
	} else if (test_bit(MMF_KSM_ENROLLED, &mm->flags)) {
		ret = ksm_disable_merge_any(mm);
		if (!ret) {
			clear_bit(MMF_KSM_ENROLLED, &mm->flags);
			ret = 1;
		}
	}
	mmap_write_unlock(mm);
	return ret;
}

/*
 * The mm of thread group @task, with a reference, or NULL: that of its first
 * thread that still has one (the group leader may have exited before the
 * others), NULL for kernel threads and exited groups.
 */
static struct mm_struct *full_system_mm(struct task_struct *task)
{
	struct mm_struct *mm = NULL;
	struct task_struct *t;

	t = find_lock_task_mm(task);
	if (!t)
		return NULL;
	if (!(t->flags & PF_KTHREAD)) {
		mm = t->mm;
		mmget(mm);
	}
	task_unlock(t);
	return mm;
}

/*
 * One pass over every thread group, in pid order. A process forked during
 * the pass may have copied its parent's flags before the parent changed and
 * got a pid the pass has left behind: the caller repeats passes until one
 * changes nothing.
 */
static int full_system_pass(bool on)
{
	int nr = 1, changed = 0;

	for (;;) {
		struct task_struct *task = NULL;
		struct mm_struct *mm;
		struct pid *pid;
		int ret;

		cond_resched();
		if (fatal_signal_pending(current))
			return -EINTR;
		rcu_read_lock();
		pid = find_ge_pid(nr, &init_pid_ns);
		if (pid) {
			nr = pid_nr(pid) + 1;
			task = pid_task(pid, PIDTYPE_TGID);
			if (task)
				get_task_struct(task);
		}
		rcu_read_unlock();
		if (!pid)
			break;
		if (!task)
			continue;
		mm = full_system_mm(task);
		put_task_struct(task);
		if (!mm)
			continue;
		ret = full_system_apply(mm, on);
		mmput(mm);
		if (ret < 0)
			return ret;
		changed += ret;
	}
	return changed;
}

#define FULL_SYSTEM_PASSES	4

static int full_system_walk(bool on)
{
	int pass, ret = 0;

	for (pass = 0; pass < FULL_SYSTEM_PASSES; pass++) {
		ret = full_system_pass(on);
		if (ret <= 0)
			break;
	}
	return ret < 0 ? ret : 0;
}

/**
 * ksm_set_full_system() - switch the full-system scan
 * @on:		enroll every user process, or un-enroll those it enrolled
 *
 * Either way the walk runs, so a write repeats what an interrupted one left
 * undone. The knob reads what the processes are: enrolling that fails for
 * memory is undone and the knob reads 0; a write of 1 that a fatal signal
 * stops (the walk, or an mmap lock it waits for) leaves the knob at 1 with
 * the processes enrolled so far, since unmerging cannot proceed with that
 * signal pending and the writer must stay killable: writing 0 un-enrolls
 * them. A write of 0 that a fatal signal stops leaves the knob at 0 with
 * the processes not yet reached still enrolled: write 0 again.
 *
 * Return: 0, -EINTR (knob as above) or -ENOMEM (knob 0).
 */
int ksm_set_full_system(bool on)
{
	int err;

	if (mutex_lock_interruptible(&full_system_mutex))
		return -EINTR;
	WRITE_ONCE(full_system, on);
	err = full_system_walk(on);
	if (err == -ENOMEM && on) {
		WRITE_ONCE(full_system, false);
		full_system_walk(false);
	}
	mutex_unlock(&full_system_mutex);
	return err;
}

/**
 * ksm_full_system_execve() - enroll a new mm at exec
 * @mm:		the new mm, its mmap lock held for write
 *
 * exec, under the new mm's mmap write lock: enroll the new mm (its flags
 * come from the old one) if it may be, before its VMAs are made. This mm is
 * not the task's yet: a knob write's walk cannot see it, and
 * ksm_full_system_exec_mmap() sets it right once it is.
 */
void ksm_full_system_execve(struct mm_struct *mm)
{
	if (READ_ONCE(full_system) && full_system_may_enroll(mm)) {
		set_bit(MMF_KSM_ENROLLED, &mm->flags);
		set_bit(MMF_VM_MERGE_ANY, &mm->flags);
	}
}

/**
 * ksm_full_system_exec_mmap() - set an exec'ed mm right once it is the task's
 * @mm:		the task's new mm
 *
 * exec, at the end of setup_new_exec(): @mm is the task's (exec_mmap()), and
 * no lock is held (exec_update_lock and cred_guard_mutex are released, so a
 * wait here holds up nobody who inspects the task). A knob write that ran
 * since ksm_full_system_execve() may have walked past the task while it
 * still had its old mm, so enroll or un-enroll @mm as the knob now says.
 *
 * Without full_system_mutex when @mm agrees with the knob: exec_mmap() set
 * the task's mm under task_lock(), and a walk takes the mm under task_lock()
 * after writing the knob. If the walk took the task's mm before exec_mmap()
 * did, its knob write happened before this read, which sees it; otherwise
 * the walk sees @mm and sets it right itself. Otherwise the change waits
 * for a running write to end, and takes the knob as that write left it.
 * May sleep; a fatal signal leaves @mm as it is.
 */
void ksm_full_system_exec_mmap(struct mm_struct *mm)
{
	bool on = READ_ONCE(full_system);

	if (on ? !full_system_may_enroll(mm) :
		 !test_bit(MMF_KSM_ENROLLED, &mm->flags))
		return;
	if (mutex_lock_killable(&full_system_mutex))
		return;
	full_system_apply(mm, READ_ONCE(full_system));
	mutex_unlock(&full_system_mutex);
}

/**
 * ksm_full_system_prctl() - a process decided for itself by prctl()
 * @mm:		the calling process's mm, its mmap lock held for write
 * @merge:	the value set: true to merge, false to opt out
 *
 * prctl(PR_SET_MEMORY_MERGE) succeeded: the process decides for itself.
 * @mm is no longer enrolled by the scan (MMF_KSM_ENROLLED), so writing 0 to
 * the knob leaves it as it is; opting out sets MMF_KSM_OPT_OUT, which keeps
 * it out of every later walk, and opting in clears it.
 */
void ksm_full_system_prctl(struct mm_struct *mm, bool merge)
{
	clear_bit(MMF_KSM_ENROLLED, &mm->flags);
	if (merge)
		clear_bit(MMF_KSM_OPT_OUT, &mm->flags);
	else
		set_bit(MMF_KSM_OPT_OUT, &mm->flags);
}
