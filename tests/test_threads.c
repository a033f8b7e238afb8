/* SPDX-License-Identifier: MIT */
/*
 * test_threads.c - what docs/API.md promises about threads (threads_work.c):
 * the reads and control calls of one counter, group and counter list run
 * concurrently from several threads, and distinct objects open and close
 * concurrently. .ci/run also runs the same work under ThreadSanitizer
 * (tsan_threads.c), which reports any data race these calls have.
 */
#include "helpers.h"
#include "threads_work.h"

Test(threads, reads_and_controls_of_one_counter_run_concurrently, .init = th_leak_init,
     .fini = th_leak_fini)
{
	char why[1024] = "";
	int failed = tw_share_counters(why, sizeof(why));

	cr_assert_neq(failed, -1, "cannot open the counters: %s", why);
	cr_expect_eq(failed, 0, "%d calls failed", failed);
}

Test(threads, distinct_objects_open_and_close_concurrently, .init = th_leak_init,
     .fini = th_leak_fini)
{
	int failed = tw_open_concurrently();

	cr_expect_eq(failed, 0, "%d calls failed", failed);
}

Test(threads, each_thread_has_its_own_last_error)
{
	int wrong = tw_last_errors_per_thread();

	cr_expect_eq(wrong, 0, "%d diagnoses named another thread's call or none", wrong);
}
