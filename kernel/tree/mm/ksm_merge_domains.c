// SPDX-License-Identifier: GPL-2.0
/*
 * Merge domains for KSM: which processes may share a KSM page.
 *
 * Deduplication is a side channel: a process that writes a guess of another
 * process's page and sees it merged (its own ksm_merging_pages, the global
 * pages_sharing, or the time of a later write's COW fault) learns that the
 * other process holds that page. /sys/kernel/mm/ksm/merge_domains limits
 * merging to pages of one domain:
 *
 *   none    one domain: every mergeable page may merge with every other
 *           (KSM's behaviour, the default);
 *   user    the effective uid of the mm's owner (mm->owner, the task the
 *           memory controller charges); an mm that is not dumpable (a
 *           set-uid program, a process that changed its credentials: one
 *           ptrace() would refuse its own user) is not merged at all;
 *   cgroup  the memory cgroup of the mm's owner, so each container or VM
 *           scope is its own domain (under cgroup v2, the cgroup the process
 *           is in, or its nearest ancestor with the memory controller).
 *
 * The domain is the first part of the key of KSM's stable and unstable
 * trees (mm/ksm.c), so a lookup never compares a page with another domain's.
 * It is read from the mm each time it is needed: a process that changes uid
 * or cgroup keeps its merged pages until ksmd next visits them, and that
 * visit gives it a copy of its own, merged again inside its new domain by a
 * later visit. An mm without an owner (exiting) is not merged either. The
 * shared zero page (use_zero_pages) belongs to no domain.
 *
 * user and cgroup need CONFIG_MEMCG (mm->owner); cgroup also needs the memory
 * controller enabled at boot.
 */

#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/memcontrol.h>
#include <linux/mm_types.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>

#include "ksm_internal.h"

int ksm_merge_domains __read_mostly;
unsigned long ksm_merge_domain_moves;

/**
 * ksm_domains_supported() - whether this kernel can tell @mode's domains
 * @mode:	a merge domain mode
 *
 * Return: 0, or -EOPNOTSUPP when the kernel cannot find an mm's domain.
 */
int ksm_domains_supported(int mode)
{
	if (mode == KSM_DOMAINS_NONE)
		return 0;
	if (!IS_ENABLED(CONFIG_MEMCG))
		return -EOPNOTSUPP;
	if (mode == KSM_DOMAINS_CGROUP && mem_cgroup_disabled())
		return -EOPNOTSUPP;
	return 0;
}

/*
 * The merge domain of @mm under @mode, as of now. Under RCU, as the owner,
 * its credentials and its memory cgroup are freed after a grace period.
 */
static u64 __ksm_mm_domain(struct mm_struct *mm, int mode)
{
	u64 domain = KSM_DOMAIN_ORPHAN;

	if (mode == KSM_DOMAINS_NONE)
		return 0;
	if (mode == KSM_DOMAINS_USER && get_dumpable(mm) != SUID_DUMP_USER)
		return KSM_DOMAIN_ORPHAN;
#ifdef CONFIG_MEMCG
	{
		struct task_struct *owner;

		rcu_read_lock();
		owner = rcu_dereference(mm->owner);
		if (owner && mode == KSM_DOMAINS_USER) {
			domain = __kuid_val(task_euid(owner));
		} else if (owner) {
			struct mem_cgroup *memcg = mem_cgroup_from_task(owner);

			if (memcg)
				domain = cgroup_id(memcg->css.cgroup);
		}
		rcu_read_unlock();
	}
#endif
	return domain;
}

/**
 * ksm_mm_domain() - the merge domain of @mm, as of now
 * @mm:	an mm that KSM scans (held by KSM's mm_slot)
 *
 * Return: 0 under merge_domains=none; otherwise the owner's effective uid or
 * its memory cgroup's id, or KSM_DOMAIN_ORPHAN, whose pages are not merged,
 * while the mm has no owner (it is exiting) or, under user, is not dumpable.
 */
u64 ksm_mm_domain(struct mm_struct *mm)
{
	return __ksm_mm_domain(mm, READ_ONCE(ksm_merge_domains));
}

static int merge_domains_apply(void *arg, bool check)
{
	int mode = *(int *)arg;

	if (check)
		return mode == ksm_merge_domains;
	WRITE_ONCE(ksm_merge_domains, mode);
	return 0;
}

/**
 * ksm_set_merge_domains() - choose what a merge domain is
 * @mode:	a merge domain mode
 *
 * Like merge_across_nodes, only while nothing is merged: the stable trees,
 * keyed by domain first, must be empty. The unstable trees are dropped
 * (rebuilt by the scan).
 *
 * Return: 0, -EOPNOTSUPP when the kernel cannot tell @mode's domains, or
 * -EBUSY while pages are merged.
 */
int ksm_set_merge_domains(int mode)
{
	int err = ksm_domains_supported(mode);

	if (err)
		return err;
	return ksm_reshape(merge_domains_apply, &mode, true);
}

#include "tests/ksm_merge_domains-kunit.h"
