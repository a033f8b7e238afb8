/* SPDX-License-Identifier: MIT */
/*
 * bench_util.c - what perfev's benchmarks share (see bench_util.h).
 */
#include "bench_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

long bench_parse_count(const char *prog, const char *text, long min, long max, const char *what)
{
	char *end;
	errno = 0;
	long v = strtol(text, &end, 10);

	if (errno || *end || v < min || v > max) {
		fprintf(stderr, "%s: %s must be a number from %ld to %ld, not '%s'\n", prog, what,
			min, max, text);
		exit(2);
	}
	return v;
}

static volatile uint64_t sink; /* keeps the reads from being optimized away */

double bench_time_read(const char *prog, long iters, int fd)
{
	uint64_t value, sum = 0;

	uint64_t t0 = bench_now_ns();
	for (long i = 0; i < iters; i++) {
		if (read(fd, &value, sizeof(value)) != (ssize_t)sizeof(value)) {
			fprintf(stderr, "%s: read: %s\n", prog, strerror(errno));
			exit(1);
		}
		sum += value;
	}
	double ns = (double)(bench_now_ns() - t0) / (double)iters;
	sink += sum;
	return ns;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

struct bench_stats bench_summarize(double *v, int n)
{
	struct bench_stats s;

	qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
	s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	s.min = v[0];
	s.max = v[n - 1];
	return s;
}

void bench_print_side(const char *name, struct bench_stats s)
{
	printf("  %-38s %10.1f ns/op  (batches %.1f .. %.1f)\n", name, s.median, s.min, s.max);
}

void bench_print_machine(const char *prog)
{
	struct utsname u;

	if (uname(&u) == 0)
		printf("%s: Linux %s %s, %ld CPUs online\n", prog, u.release, u.machine,
		       sysconf(_SC_NPROCESSORS_ONLN));
}
