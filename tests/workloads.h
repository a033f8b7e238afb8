/* SPDX-License-Identifier: MIT */
/*
 * workloads.h - deterministic work for perfev's tests to count: CPU time,
 * page faults of fresh pages, voluntary context switches, a child process
 * with 4 threads; and the machine facts the tests size them by (online
 * CPUs, where cgroup v2 is mounted). Failures fail the calling test.
 */
#ifndef PERFEV_TEST_WORKLOADS_H
#define PERFEV_TEST_WORKLOADS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* ---- work ---------------------------------------------------------------- */

/*
 * Burns `ms` milliseconds of this thread's CPU time, and at least the work
 * that takes ms at the fastest this process has seen it done (so that a CPU
 * its host stopped meanwhile still runs that long: as many samples).
 */
void th_spin_ms(long ms);

/* Sleeps briefly (0.1 ms) n times: a voluntary context switch each. */
void th_sleep_briefly(int n);

/*
 * Maps `pages` fresh anonymous pages without huge pages, so that touching
 * each page faults exactly once. Returns NULL when mmap fails; unmap with
 * munmap(mem, pages * page size).
 */
char *th_fresh_pages(size_t pages);

/*
 * Writes one byte to each of the first `pages` pages at mem. Not
 * instrumented under AddressSanitizer, whose shadow memory would add faults
 * of its own.
 */
void th_touch(char *mem, size_t pages);

/* Maps, touches and unmaps `pages` fresh pages: one page fault each. */
void th_touch_pages(size_t pages);

/* ---- a child process with 4 threads -------------------------------------- */

struct th_threaded_child {
	pid_t pid;
	int go; /* write end: one byte releases one thread */
};

/*
 * Forks a child that starts 3 threads; once all 4 run, they wait for a byte
 * on `go` each, spin 20 ms and exit. Returns when the threads exist.
 */
void th_threaded_child_start(struct th_threaded_child *tc);

/* Releases every thread and reaps the child; returns its wait status. */
int th_threaded_child_finish(struct th_threaded_child *tc);

/* ---- the machine ---------------------------------------------------------- */

/*
 * Reads the online CPU list from sysfs into cpus[] (at most max) and returns
 * how many CPUs are online. When text is not NULL it receives the list as
 * sysfs wrote it ("0-3,6"), without the newline (size bytes at most).
 */
int th_online_cpus(int *cpus, int max, char *text, size_t size);

/* Finds where cgroup v2 is mounted (into path); returns false when it is not. */
bool th_cgroup2_mount(char *path, size_t size);

#endif /* PERFEV_TEST_WORKLOADS_H */
