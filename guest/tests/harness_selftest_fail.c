// SPDX-License-Identifier: GPL-2.0
/*
 * Used only by the harness's own self-test: a guest test that fails, to show
 * that `make test` reports a failing guest test as a failure.
 */
#include "kselftest.h"

int main(void)
{
	ksft_print_header();
	ksft_set_plan(1);
	ksft_test_result_fail("deliberate failure for the harness self-test\n");
	ksft_finished();
}
