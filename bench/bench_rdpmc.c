/* SPDX-License-Identifier: MIT */
/*
 * bench_rdpmc.c - reading a counter from user space (pev_mmap_read: the
 * control page's seqlock and the rdpmc instruction) against read(2) of the
 * same descriptor, side by side in one run.
 *
 * The event (cycles:u by default) counts the calling thread; its control
 * page is mapped read-only. Before timing, one read(2), one pev_mmap_read
 * and one more read(2) must come out in order: the two paths read the same
 * count. Each side then runs in batches; a batch times ITERS reads and
 * gives one ns/op figure. The two sides alternate batch by batch (and which
 * goes first alternates too). The report is the median of the batches,
 * with the fastest and slowest beside it, and the median of the per-batch
 * ratios read(2) / rdpmc.
 *
 * Where the event cannot be opened (no hardware PMU: a VM, a container) or
 * the kernel does not let user space read it, the program says so in one
 * line and exits 0: there is nothing to measure.
 *
 *   usage: bench_rdpmc [EVENT [BATCHES [ITERS]]]
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "perfev.h"

#define MAX_BATCHES 1001

static volatile uint64_t sink; /* keeps the reads from being optimized away */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static long parse_count(const char *text, long min, long max, const char *what)
{
	char *end;
	errno = 0;
	long v = strtol(text, &end, 10);

	if (errno || *end || v < min || v > max) {
		fprintf(stderr, "bench_rdpmc: %s must be a number from %ld to %ld, not '%s'\n", what,
			min, max, text);
		exit(2);
	}
	return v;
}

/* Nothing to measure on this machine: say why, in one line, and succeed. */
static int not_measured(const char *event, const char *why)
{
	printf("bench_rdpmc: rdpmc read vs read() not measured here: %s: %.*s\n", event,
	       (int)strcspn(why, "\n"), why);
	return 0;
}

/* ---- the two timed loops ----------------------------------------------- */

static double time_rdpmc(long iters, const struct pev_mmap_page *pc)
{
	struct pev_count c;
	uint64_t sum = 0;

	uint64_t t0 = now_ns();
	for (long i = 0; i < iters; i++) {
		if (pev_mmap_read(pc, &c) < 0) {
			fprintf(stderr, "bench_rdpmc: pev_mmap_read stopped working\n");
			exit(1);
		}
		sum += c.value;
	}
	double ns = (double)(now_ns() - t0) / (double)iters;
	sink += sum;
	return ns;
}

static double time_read(long iters, int fd)
{
	uint64_t value, sum = 0;

	uint64_t t0 = now_ns();
	for (long i = 0; i < iters; i++) {
		if (read(fd, &value, sizeof(value)) != (ssize_t)sizeof(value)) {
			fprintf(stderr, "bench_rdpmc: read: %s\n", strerror(errno));
			exit(1);
		}
		sum += value;
	}
	double ns = (double)(now_ns() - t0) / (double)iters;
	sink += sum;
	return ns;
}

/* ---- statistics and output --------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

struct stats {
	double median, min, max;
};

static struct stats summarize(double *v, int n)
{
	struct stats s;

	qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
	s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	s.min = v[0];
	s.max = v[n - 1];
	return s;
}

int main(int argc, char **argv)
{
	static double fast[MAX_BATCHES], slow[MAX_BATCHES], ratios[MAX_BATCHES];
	const char *event = "cycles:u";
	long batches = 21, iters = 200000;
	struct pev_target self = pev_target_self();
	struct pev_event_list *list;
	struct pev_counter *c;
	struct pev_count count;
	struct pev_error err;
	struct utsname u;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (argc > 4 || (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0))) {
		fprintf(stderr, "usage: bench_rdpmc [EVENT [BATCHES [ITERS]]]\n");
		return argc > 4 ? 2 : 0;
	}
	if (argc > 1)
		event = argv[1];
	if (argc > 2)
		batches = parse_count(argv[2], 1, MAX_BATCHES, "BATCHES");
	if (argc > 3)
		iters = parse_count(argv[3], 1, 1000000000, "ITERS");

	/* The event on the calling thread, with a plain read_format: read(2) returns 8 bytes. */
	if (pev_event_parse(event, NULL, &list, &err) < 0)
		return not_measured(event, err.message);
	const struct pev_event_spec *spec = pev_event_list_at(list, 0);
	if (!spec) {
		pev_event_list_free(list);
		return not_measured(event, "names no event");
	}
	struct pev_opts opts = spec->opts;
	opts.read_format = 0;
	int r = pev_counter_open(&spec->ev, &opts, &self, NULL, &c, &err);
	pev_event_list_free(list);
	if (r < 0)
		return not_measured(event, err.message);
	int fd = pev_counter_fd(c, 0);
	const struct pev_mmap_page *pc = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	if (pc == MAP_FAILED) {
		char why[160];
		snprintf(why, sizeof(why), "cannot map the control page: %s", strerror(errno));
		pev_counter_close(c);
		return not_measured(event, why);
	}
	if (pev_mmap_read(pc, &count) < 0) {
		char why[300];
		snprintf(why, sizeof(why),
			 "the kernel does not let user space read this counter (cap_user_rdpmc %d, "
			 "index %u; x86-64 only; see /sys/bus/event_source/devices/cpu/rdpmc)",
			 !!(pc->capabilities & PEV_CAP_USER_RDPMC), pc->index);
		munmap((void *)pc, page);
		pev_counter_close(c);
		return not_measured(event, why);
	}

	/* Both paths read one count: read(2) <= rdpmc <= read(2). */
	uint64_t before, after;
	if (read(fd, &before, 8) != 8 || pev_mmap_read(pc, &count) < 0 || read(fd, &after, 8) != 8) {
		fprintf(stderr, "bench_rdpmc: the first reads failed\n");
		return 1;
	}
	if (!(before <= count.value && count.value <= after)) {
		fprintf(stderr,
			"bench_rdpmc: rdpmc and read(2) disagree: read %llu, rdpmc %llu, read %llu\n",
			(unsigned long long)before, (unsigned long long)count.value,
			(unsigned long long)after);
		return 1;
	}

	/* Warm up both paths. */
	time_rdpmc(iters / 10 + 1, pc);
	time_read(iters / 10 + 1, fd);
	for (long b = 0; b < batches; b++) {
		if (b % 2 == 0) {
			fast[b] = time_rdpmc(iters, pc);
			slow[b] = time_read(iters, fd);
		} else {
			slow[b] = time_read(iters, fd);
			fast[b] = time_rdpmc(iters, pc);
		}
		ratios[b] = slow[b] / fast[b];
	}

	if (uname(&u) == 0)
		printf("bench_rdpmc: Linux %s %s, %ld CPUs online\n", u.release, u.machine,
		       sysconf(_SC_NPROCESSORS_ONLN));
	printf("%s: pmc_width %u, cap_user_time %d, cap_user_time_short %d; "
	       "check read(2) %llu <= rdpmc %llu <= read(2) %llu: ok\n",
	       pev_counter_name(c), pc->pmc_width, !!(pc->capabilities & PEV_CAP_USER_TIME),
	       !!(pc->capabilities & PEV_CAP_USER_TIME_SHORT), (unsigned long long)before,
	       (unsigned long long)count.value, (unsigned long long)after);
	printf("%ld batches of %ld reads; median of the batches\n\n", batches, iters);
	struct stats f = summarize(fast, (int)batches), s = summarize(slow, (int)batches);
	struct stats q = summarize(ratios, (int)batches);
	printf("read the count of %s\n", event);
	printf("  %-38s %10.1f ns/op  (batches %.1f .. %.1f)\n", "pev_mmap_read (rdpmc)", f.median,
	       f.min, f.max);
	printf("  %-38s %10.1f ns/op  (batches %.1f .. %.1f)\n", "read(2), 8 bytes", s.median, s.min,
	       s.max);
	printf("  %-38s %10.1fx  (batches %.1f .. %.1f)\n", "ratio read(2) / rdpmc", q.median, q.min,
	       q.max);
	munmap((void *)pc, page);
	pev_counter_close(c);
	return 0;
}
