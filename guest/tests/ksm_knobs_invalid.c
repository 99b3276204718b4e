// SPDX-License-Identifier: GPL-2.0
/*
 * Bad input to KSM knobs gets a clear error and changes nothing: every write
 * below must fail with EINVAL (or EBUSY where stated) and leave the knob's
 * value as it was. Knobs that the kernel does not have are skipped.
 */
#include "kselftest.h"
#include "ksm_util.h"

static const struct {
	const char *knob;
	const char *val;
} bad[] = {
	{ "run", "3" },
	{ "run", "-1" },
	{ "run", "one" },
	{ "pages_to_scan", "abc" },
	{ "pages_to_scan", "-5" },
	{ "sleep_millisecs", "1x" },
	{ "merge_across_nodes", "2" },
	{ "max_page_sharing", "1" },
	{ "max_page_sharing", "zero" },
	{ "use_zero_pages", "maybe" },
	{ "smart_scan", "2x" },
	{ "advisor_mode", "fast" },
	{ "advisor_max_cpu", "lots" },
	{ "stable_node_chains_prune_millisecs", "soon" },
};

int main(void)
{
	char before[256], after[256];
	unsigned int i;
	int err;

	ksft_print_header();
	ksft_set_plan(ARRAY_SIZE(bad));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		if (ksm_read(bad[i].knob, before, sizeof(before))) {
			ksft_test_result_skip("%s absent\n", bad[i].knob);
			continue;
		}
		err = ksm_write(bad[i].knob, bad[i].val);
		ksm_read(bad[i].knob, after, sizeof(after));
		ksft_test_result(err == -EINVAL && !strcmp(before, after),
				 "%s <- '%s': %s, value %s\n", bad[i].knob,
				 bad[i].val, err ? strerror(-err) : "accepted",
				 strcmp(before, after) ? "changed" : "kept");
	}
	ksft_finished();
}
