// SPDX-License-Identifier: GPL-2.0
/*
 * The full-system scan enrolls, and un-enrolls, a process whose main thread
 * has exited while another thread lives on (the thread group's leader is
 * a zombie with no mm; the walk takes the mm of a live thread).
 *
 * A child starts a thread and ends its main thread with pthread_exit(); the
 * thread maps NPAGES identical pages, none madvised, and answers queries:
 * PR_GET_MEMORY_MERGE, and whether its pages are intact. With the knob at
 * 1 the child is enrolled and its pages merge; with the knob back at 0 it
 * is un-enrolled and its pages are unmerged.
 */
#define _GNU_SOURCE
#include <pthread.h>

#include "ksm_util.h"

#ifndef PR_GET_MEMORY_MERGE
#define PR_GET_MEMORY_MERGE	68
#endif

#define NPAGES	512

static int cmd_fd, rep_fd;
static size_t psize;
static pid_t tid;

static void *thread(void *arg)
{
	char *mem = ksm_map_anon(NPAGES * psize);
	long p;
	char c;

	for (p = 0; p < NPAGES; p++)
		ksm_fill_page(mem + p * psize, psize, 4711);
	tid = gettid();
	ksm_reply(rep_fd, tid);
	while (read(cmd_fd, &c, 1) == 1) {
		if (c == 'm')
			ksm_reply(rep_fd, prctl(PR_GET_MEMORY_MERGE, 0, 0, 0, 0));
		else if (c == 'v')
			ksm_reply(rep_fd, ksm_bad_pages(mem, NPAGES, psize,
							4711, false));
	}
	_exit(0);
}

static void child(int k, int cmd, int rep)
{
	pthread_t t;

	cmd_fd = cmd;
	rep_fd = rep;
	if (pthread_create(&t, NULL, thread, NULL))
		_exit(1);
	pthread_exit(NULL);
}

static long ask(struct ksm_child *c, char what)
{
	long r;

	if (write(c->cmd, &what, 1) != 1)
		ksft_exit_fail_msg("write: %s\n", strerror(errno));
	ksm_get_reply(c, "leaderless", &r, sizeof(r));
	return r;
}

int main(void)
{
	struct ksm_knob knobs[] = {
		{ "full_system_scan" }, { "pages_to_scan" },
		{ "sleep_millisecs" }, { "run" },
	};
	struct ksm_child ch[1] = { { 0 } };
	long m = -1, on, off, bad, r;
	double deadline;
	pid_t t;

	psize = sysconf(_SC_PAGESIZE);
	ksft_print_header();
	if (access(KSM_SYSFS "full_system_scan", F_OK))
		ksft_exit_skip("no full_system_scan knob\n");
	ksft_set_plan(3);
	ksm_knobs_save(knobs, ARRAY_SIZE(knobs));
	if (ksm_set("run", 2) || ksm_set("pages_to_scan", 1000) ||
	    ksm_set("sleep_millisecs", 10) || ksm_set("run", 1))
		ksft_exit_fail_msg("cannot set the KSM knobs\n");
	ksm_spawn(ch, 1, 0, child);
	ksm_get_reply(&ch[0], "leaderless", &r, sizeof(r));
	t = r;
	msleep(200);	/* the main thread's exit */

	if (ksm_set("full_system_scan", 1))
		ksft_exit_fail_msg("cannot set full_system_scan\n");
	on = ask(&ch[0], 'm');
	deadline = now() + 120;
	while (on == 1 && now() < deadline &&
	       (m = ksm_merging(ch[0].pid, t)) < NPAGES - 1)
		msleep(200);
	ksft_test_result(on == 1 && m >= NPAGES - 1,
			 "knob 1: enrolled (PR_GET %ld), %ld pages merging\n",
			 on, m);

	ksm_set("full_system_scan", 0);
	off = ask(&ch[0], 'm');
	/* The pages are unmerged at once; ksmd drops their rmap_items next. */
	deadline = now() + 60;
	while ((m = ksm_merging(ch[0].pid, t)) > 0 && now() < deadline)
		msleep(100);
	ksft_test_result(off == 0 && m == 0,
			 "knob 0: un-enrolled (PR_GET %ld), %ld pages merging\n",
			 off, m);
	bad = ask(&ch[0], 'v');
	ksft_test_result(!bad, "every page intact (%ld changed)\n", bad);

	ksm_kill_children(ch, 1);
	ksm_set("full_system_scan", 0);
	ksm_set("run", 2);
	ksm_knobs_restore(knobs, ARRAY_SIZE(knobs));
	ksft_finished();
}
