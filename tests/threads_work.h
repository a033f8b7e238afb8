/* SPDX-License-Identifier: MIT */
/*
 * threads_work.h - threads sharing counters, as docs/API.md allows: run by
 * test_threads (Criterion) and by tsan_threads (ThreadSanitizer, which
 * cannot run Criterion). Plain C on the public API and pthreads.
 */
#ifndef PERFEV_TEST_THREADS_WORK_H
#define PERFEV_TEST_THREADS_WORK_H

#include <stddef.h>

/*
 * Three threads read one counter, one group and one counter list of the
 * calling thread (every read form and accessor) while a fourth enables,
 * disables and resets them, and the calling thread works. Returns the
 * number of calls that failed, or -1 when the counters could not be opened
 * (why says why, size bytes).
 */
int tw_share_counters(char *why, size_t size);

/*
 * Four threads each parse, open, read and close their own counters and
 * counter lists, and open one shared parsed list, 50 times. Returns the
 * number of calls that failed.
 */
int tw_open_concurrently(void);

/*
 * Four threads each fail a different call 200 times and check that
 * pev_last_error() names their own call each time, never another
 * thread's. Returns the number of wrong or missing diagnoses.
 */
int tw_last_errors_per_thread(void);

#endif /* PERFEV_TEST_THREADS_WORK_H */
