/* SPDX-License-Identifier: MIT */
/*
 * bench_util.h - what perfev's benchmarks share: the clock, their command
 * line numbers, and the summary of a series of batches (median, fastest,
 * slowest) as they print it.
 */
#ifndef PERFEV_BENCH_UTIL_H
#define PERFEV_BENCH_UTIL_H

#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t bench_now_ns(void);

/*
 * Parses a whole decimal number from min to max given on the command line
 * as `what`; anything else is reported ("PROG: WHAT must be a number from
 * MIN to MAX, not 'TEXT'") and ends the program with status 2.
 */
long bench_parse_count(const char *prog, const char *text, long min, long max, const char *what);

/*
 * Times `iters` read(2) calls of 8 bytes (one count) on fd and returns the
 * nanoseconds per call; a failing read is reported ("PROG: read: ERROR") and
 * ends the program with status 1.
 */
double bench_time_read(const char *prog, long iters, int fd);

/* The median of a series, with its smallest and largest values. */
struct bench_stats {
	double median, min, max;
};

/* Summarizes the n (>= 1) values of v; sorts v in place. */
struct bench_stats bench_summarize(double *v, int n);

/* Prints one side of a comparison: "  NAME   123.4 ns/op  (batches 120.1 .. 130.2)". */
void bench_print_side(const char *name, struct bench_stats s);

/* Prints "uname: Linux RELEASE MACHINE, N CPUs online" (nothing when uname fails). */
void bench_print_machine(const char *prog);

#endif /* PERFEV_BENCH_UTIL_H */
