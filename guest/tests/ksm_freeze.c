// SPDX-License-Identifier: GPL-2.0
/*
 * The freezer (suspend's first step) freezes ksmd in its sleeps: under the
 * stock scanner and under the distilling scanner with each governor, with
 * the lowest level's share at its least (0.1% of a core), so that ksmd
 * spends nearly all its time in a budget sleep of seconds.
 *
 * The freezer's test path is used (pm_test "freezer": freeze every task,
 * then thaw), with its wait for a task cut to FREEZE_MS: a ksmd woken by the
 * freezer into the rest of a budget sleep makes the suspend fail (EBUSY).
 * Each mode freezes TRIES times at random moments while NPAGES unique
 * mergeable pages keep ksmd scanning.
 */
#define _GNU_SOURCE
#include "ksm_util.h"

#define NPAGES		4096
#define TRIES		4
#define FREEZE_MS	"1000"

/* Read the first line of @path into @buf; 0 or -errno. */
static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* TRIES freezes at random moments; how many failed. */
static int freezes(const char *mode)
{
	int i, err, failed = 0;
	double t;

	for (i = 0; i < TRIES; i++) {
		msleep(500 + rand() % 2500);
		t = now();
		err = ksm_write_path("/sys/power/state", "freeze");
		printf("# %s: freeze %d: %s in %.2f s\n", mode, i,
		       err ? strerror(-err) : "frozen and thawed", now() - t);
		failed += !!err;
	}
	return failed;
}

int main(void)
{
	struct ksm_knob knobs[] = {
		{ "scanner" }, { "distill/governor" }, { "distill/bottom_cpu_permille" },
		{ "run" },
	};
	static const char * const governors[] = {
		"full", "medium", "low", "quiet",
	};
	char old_timeout[32], *mem;
	unsigned int g;
	long bad;
	int failed;

	ksft_print_header();
	if (access("/sys/power/pm_test", W_OK) ||
	    read_file("/sys/power/pm_freeze_timeout", old_timeout,
		      sizeof(old_timeout)))
		ksft_exit_skip("no freezer test path (CONFIG_PM_DEBUG)\n");
	ksft_set_plan(2 + ARRAY_SIZE(governors));
	srand(time(NULL));
	ksm_knobs_save(knobs, ARRAY_SIZE(knobs));
	if (ksm_write_path("/sys/power/pm_test", "freezer") ||
	    ksm_write_path("/sys/power/pm_freeze_timeout", FREEZE_MS) ||
	    ksm_write_path("/sys/module/suspend/parameters/pm_test_delay", "0"))
		ksft_exit_fail_msg("cannot set up the freezer test\n");

	mem = ksm_map_filled(NPAGES, sysconf(_SC_PAGESIZE), 4242, true);
	if (ksm_set("run", 2) || ksm_write("scanner", "stock") ||
	    ksm_set("run", 1))
		ksft_exit_fail_msg("cannot set the KSM knobs\n");
	failed = freezes("stock");
	ksft_test_result(!failed, "stock: %d of %d freezes failed\n", failed,
			 TRIES);

	if (ksm_write("scanner", "distill") ||
	    ksm_set("distill/bottom_cpu_permille", 1))
		ksft_exit_fail_msg("cannot set the KSM knobs\n");
	for (g = 0; g < ARRAY_SIZE(governors); g++) {
		if (ksm_write("distill/governor", governors[g])) {
			ksft_test_result_fail("governor %s not taken\n",
					      governors[g]);
			continue;
		}
		failed = freezes(governors[g]);
		ksft_test_result(!failed, "distill, %s: %d of %d freezes failed\n",
				 governors[g], failed, TRIES);
	}

	bad = ksm_bad_pages(mem, NPAGES, sysconf(_SC_PAGESIZE), 4242, true);
	ksft_test_result(!bad, "contents intact (%ld pages changed)\n", bad);

	ksm_set("run", 2);
	ksm_knobs_restore(knobs, ARRAY_SIZE(knobs));
	ksm_write_path("/sys/power/pm_freeze_timeout", old_timeout);
	ksm_write_path("/sys/power/pm_test", "none");
	ksft_finished();
}
