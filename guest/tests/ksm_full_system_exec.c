// SPDX-License-Identifier: GPL-2.0
/*
 * A process that execs while full_system_scan is written ends up as the
 * knob says: enrolled after a last write of 1, not enrolled after a last
 * write of 0. An exec makes its new mm before the task has it, so a write's
 * walk of the processes can pass the task while it still has its old mm.
 *
 * CHILDREN processes exec themselves over and over (with 1.4 MiB of
 * arguments, which each exec copies before the task takes the new mm, so
 * that a write often meets an exec in flight) while the parent writes
 * 1 and 0 in turn; after the last write of a round the parent creates a stop
 * file, and each child's next exec (which inherits the flags of the mm the
 * racing exec made) reports PR_GET_MEMORY_MERGE and exits. Rounds end with 0
 * and 1 alternately.
 */
#define _GNU_SOURCE
#include "ksm_util.h"

#ifndef PR_GET_MEMORY_MERGE
#define PR_GET_MEMORY_MERGE	68
#endif

#define CHILDREN	4
#define ROUNDS		8
#define WRITES		12
#define STOP		"/tmp/ksm-full-system-exec.stop"
/* Arguments that make each exec copy 1.4 MiB: a wide window in each exec. */
#define BIG_ARGS	12
#define BIG_LEN		(120 << 10)

/* A child: report and exit once STOP exists, otherwise exec again. */
static int chain(int argc, char **argv)
{
	int fd = atoi(argv[2]);
	long v;

	if (!access(STOP, F_OK)) {
		v = prctl(PR_GET_MEMORY_MERGE, 0, 0, 0, 0);
		if (write(fd, &v, sizeof(v)) != sizeof(v))
			return 1;
		return 0;
	}
	execv("/proc/self/exe", argv);
	return 1;
}

/* One round; the number of children whose state differs from @last. */
static int round_(int last, long *reported)
{
	char fdarg[16];
	pid_t pid[CHILDREN];
	int p[2], i, wrong = 0;
	long v;

	unlink(STOP);
	if (pipe(p))
		ksft_exit_fail_msg("pipe: %s\n", strerror(errno));
	snprintf(fdarg, sizeof(fdarg), "%d", p[1]);
	for (i = 0; i < CHILDREN; i++) {
		pid[i] = fork();
		if (pid[i] < 0)
			ksft_exit_fail_msg("fork: %s\n", strerror(errno));
		if (!pid[i]) {
			char *argv[3 + BIG_ARGS + 1] = {
				"ksm_full_system_exec", "chain", fdarg,
			};
			int a;

			for (a = 0; a < BIG_ARGS; a++) {
				argv[3 + a] = malloc(BIG_LEN);
				if (!argv[3 + a])
					_exit(1);
				memset(argv[3 + a], 'a' + a, BIG_LEN - 1);
				argv[3 + a][BIG_LEN - 1] = 0;
			}
			close(p[0]);
			execv("/proc/self/exe", argv);
			_exit(1);
		}
	}
	close(p[1]);
	for (i = 0; i < WRITES; i++) {
		/* The last write is @last. */
		ksm_set("full_system_scan", (WRITES - 1 - i + last) & 1);
		msleep(i * 7 % 23);
	}
	if (close(open(STOP, O_CREAT | O_WRONLY, 0644)))
		ksft_exit_fail_msg("%s: %s\n", STOP, strerror(errno));
	for (i = 0; i < CHILDREN; i++) {
		if (read(p[0], &v, sizeof(v)) != sizeof(v))
			ksft_exit_fail_msg("a child did not report\n");
		reported[v == 1]++;
		wrong += v != last;
	}
	for (i = 0; i < CHILDREN; i++)
		waitpid(pid[i], NULL, 0);
	close(p[0]);
	return wrong;
}

int main(int argc, char **argv)
{
	struct ksm_knob knobs[] = { { "full_system_scan" }, { "run" } };
	int r, wrong[2] = { 0, 0 };
	long rep[2][2] = { { 0, 0 }, { 0, 0 } };

	if (argc >= 3 && !strcmp(argv[1], "chain"))
		return chain(argc, argv);
	ksft_print_header();
	if (access(KSM_SYSFS "full_system_scan", F_OK))
		ksft_exit_skip("no full_system_scan knob\n");
	ksft_set_plan(2);
	ksm_knobs_save(knobs, ARRAY_SIZE(knobs));
	for (r = 0; r < ROUNDS; r++)
		wrong[r & 1] += round_(r & 1, rep[r & 1]);
	unlink(STOP);
	ksft_test_result(!wrong[0],
			 "last write 0: %d of %d children enrolled (%ld reported 0, %ld reported 1)\n",
			 wrong[0], CHILDREN * ROUNDS / 2, rep[0][0], rep[0][1]);
	ksft_test_result(!wrong[1],
			 "last write 1: %d of %d children not enrolled (%ld reported 0, %ld reported 1)\n",
			 wrong[1], CHILDREN * ROUNDS / 2, rep[1][0], rep[1][1]);
	ksm_set("full_system_scan", 0);
	ksm_knobs_restore(knobs, ARRAY_SIZE(knobs));
	ksft_finished();
}
