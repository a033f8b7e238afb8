/* SPDX-License-Identifier: MIT */
/*
 * tsan_threads.c - test_threads' work without Criterion, whose process
 * arena ThreadSanitizer does not allow: built in every build, run by .ci/run
 * in a -Db_sanitize=thread build, where a data race ends it with TSan's
 * report (exit status 66). Exits 0 when every call succeeded, 1 when one
 * failed, 77 (skip) when the machine cannot open software events.
 */
#include <stdio.h>

#include "threads_work.h"

int main(void)
{
	char why[1024] = "";
	int shared = tw_share_counters(why, sizeof(why));

	if (shared < 0) {
		printf("skip: cannot open the counters: %s\n", why);
		return 77;
	}
	int opened = tw_open_concurrently();
	int wrong = tw_last_errors_per_thread();
	printf("shared counters: %d failed calls; concurrent opens: %d failed calls; "
	       "last errors: %d wrong\n",
	       shared, opened, wrong);
	return shared || opened || wrong ? 1 : 0;
}
