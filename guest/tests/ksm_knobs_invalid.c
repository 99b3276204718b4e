// SPDX-License-Identifier: GPL-2.0
/*
 * Bad input to KSM knobs gets a clear error and changes nothing: every write
 * below must fail with EINVAL (or EBUSY where stated) and leave the knob's
 * value as it was. Knobs that the kernel does not have are skipped.
 */
#define _GNU_SOURCE
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
	/* The adaptive engine's (absent, hence skipped, without it). */
	{ "scanner", "ukm" },
	{ "scanner", "distill distill" },
	{ "distill/governor", "turbo" },
	{ "distill/levels", "1" },
	{ "distill/levels", "9" },
	{ "distill/dup_pct", "101" },
	{ "distill/cow_pct", "1001" },
	{ "distill/life_ms", "600001" },
	{ "distill/life_ms", "-1" },
	{ "distill/bottom_cpu_permille", "0" },
	{ "distill/bottom_cpu_permille", "1001" },
	{ "placement/mode", "fiar" },
	{ "placement/mode", "fair priority" },
	{ "tree_shards", "1025" },
	{ "tree_shards", "-1" },
	{ "tree_shards", "many" },
	{ "page_hash/mode", "adaptiv" },
	{ "page_hash/mode", "checksum adaptive" },
	{ "merge_domains/mode", "tenant" },
	{ "merge_domains/mode", "user cgroup" },
	{ "merge_domains/mode", "1" },
	{ "thp_split/mode", "sometimes" },
	{ "thp_split/mode", "cold selective" },
	{ "thp_split/check_interval_ms", "99" },
	{ "thp_split/check_interval_ms", "600001" },
	{ "thp_split/cold_threshold", "5" },
	/* Above hot_threshold (3), below cold_threshold (1): out of order. */
	{ "thp_split/cold_threshold", "4" },
	{ "thp_split/hot_threshold", "0" },
	{ "thp_split/repetition_permille", "1001" },
	{ "thp_split/pressure", "2" },
	/* At or above pressure_high_pct (90), at or below the low one (80). */
	{ "thp_split/pressure_low_pct", "90" },
	{ "thp_split/pressure_high_pct", "80" },
	{ "thp_split/pressure_high_pct", "101" },
};

int main(void)
{
	char before[256], after[256];
	unsigned int i;
	int err;

	ksft_print_header();
	ksft_set_plan(ARRAY_SIZE(bad) + 1);
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

	/* The advisor and the distilling scanner exclude each other. */
	if (ksm_read("scanner", before, sizeof(before))) {
		ksft_test_result_skip("scanner absent\n");
	} else if (ksm_write("advisor_mode", "scan-time")) {
		ksft_test_result_fail("advisor_mode <- scan-time refused\n");
	} else {
		err = ksm_write("scanner", "distill");
		ksm_read("scanner", after, sizeof(after));
		ksft_test_result(err == -EBUSY && !strcmp(before, after),
				 "scanner <- distill beside the advisor: %s\n",
				 err ? strerror(-err) : "accepted");
		ksm_write("scanner", "stock");
		ksm_write("advisor_mode", "none");
	}
	ksft_finished();
}
