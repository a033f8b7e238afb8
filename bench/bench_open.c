/* SPDX-License-Identifier: MIT */
/*
 * bench_open.c - what perfev costs over the bare system calls, side by side
 * in one run:
 *
 *   (a) pev_counter_open + pev_counter_close of task-clock on the calling
 *       thread, against syscall(SYS_perf_event_open) + close(2) with the very
 *       attribute block perfev built;
 *   (b) pev_counter_read, against read(2) of the same descriptor;
 *   (c) one pev_counter_read_group of a group of 4 software counters, against
 *       4 pev_counter_read calls on 4 lone counters of the same events (the
 *       ratio is 4 single reads / 1 group read: how much faster the group is),
 *       and the same pair with bare read(2) calls on the same descriptors: the
 *       most the kernel allows.
 *
 * Each measurement runs in batches; a batch times ITERS operations and gives
 * one ns/op figure. The two sides of a pair alternate batch by batch (and
 * which goes first alternates too), so drift hits both alike. The report is
 * the median of the batches, with the fastest and slowest batch beside it,
 * and the median of the per-batch ratios perfev / raw.
 *
 *   usage: bench_open [BATCHES [OPEN_ITERS [READ_ITERS]]]
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench_util.h"
#include "perfev.h"

#define MAX_BATCHES 1001

static volatile uint64_t sink; /* keeps the reads from being optimized away */

static void die(const char *what, const char *why)
{
	fprintf(stderr, "bench_open: %s: %s\n", what, why);
	exit(1);
}

/* ---- the timed loops (a bare read(2) of one count: bench_time_read) ---- */

static const struct pev_event task_clock = {.type = PEV_TYPE_SOFTWARE,
					    .config = PEV_SW_TASK_CLOCK,
					    .name = "task-clock"};

static double time_lib_open(long iters)
{
	struct pev_target self = pev_target_self();
	struct pev_counter *c;
	struct pev_error err;

	uint64_t t0 = bench_now_ns();
	for (long i = 0; i < iters; i++) {
		if (pev_counter_open(&task_clock, NULL, &self, NULL, &c, &err) < 0)
			die("pev_counter_open", err.message);
		pev_counter_close(c);
	}
	return (double)(bench_now_ns() - t0) / (double)iters;
}

static double time_raw_open(long iters, const struct pev_attr *attr)
{
	uint64_t t0 = bench_now_ns();
	for (long i = 0; i < iters; i++) {
		long fd = syscall(SYS_perf_event_open, attr, 0, -1, -1, PEV_FLAG_FD_CLOEXEC);
		if (fd < 0)
			die("perf_event_open", strerror(errno));
		close((int)fd);
	}
	return (double)(bench_now_ns() - t0) / (double)iters;
}

static double time_lib_read(long iters, const struct pev_counter *c)
{
	struct pev_count count;
	uint64_t sum = 0;

	uint64_t t0 = bench_now_ns();
	for (long i = 0; i < iters; i++) {
		if (pev_counter_read(c, &count) < 0)
			die("pev_counter_read", "failed");
		sum += count.value;
	}
	double ns = (double)(bench_now_ns() - t0) / (double)iters;
	sink += sum;
	return ns;
}

/* The 4 events of (c): a task-clock leader and three members. */
static const struct pev_event group_events[4] = {
	{.type = PEV_TYPE_SOFTWARE, .config = PEV_SW_TASK_CLOCK},
	{.type = PEV_TYPE_SOFTWARE, .config = PEV_SW_CONTEXT_SWITCHES},
	{.type = PEV_TYPE_SOFTWARE, .config = PEV_SW_PAGE_FAULTS},
	{.type = PEV_TYPE_SOFTWARE, .config = PEV_SW_CPU_MIGRATIONS},
};

static double time_group_read(long iters, const struct pev_counter *leader)
{
	struct pev_count counts[4];
	uint64_t sum = 0;

	uint64_t t0 = bench_now_ns();
	for (long i = 0; i < iters; i++) {
		if (pev_counter_read_group(leader, counts, 4) != 4)
			die("pev_counter_read_group", "failed");
		sum += counts[0].value + counts[3].value;
	}
	double ns = (double)(bench_now_ns() - t0) / (double)iters;
	sink += sum;
	return ns;
}

static double time_single_reads(long iters, struct pev_counter *const *lone)
{
	struct pev_count count;
	uint64_t sum = 0;

	uint64_t t0 = bench_now_ns();
	for (long i = 0; i < iters; i++) {
		for (int e = 0; e < 4; e++) {
			if (pev_counter_read(lone[e], &count) < 0)
				die("pev_counter_read", "failed");
			sum += count.value;
		}
	}
	double ns = (double)(bench_now_ns() - t0) / (double)iters;
	sink += sum;
	return ns;
}

/* (c) without perfev: one read(2) of the group leader's descriptor. */
static double time_raw_group_read(long iters, int leader_fd)
{
	uint64_t buf[1 + 2 + 4 * 2], sum = 0;

	uint64_t t0 = bench_now_ns();
	for (long i = 0; i < iters; i++) {
		if (read(leader_fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			die("read (group)", strerror(errno));
		sum += buf[3];
	}
	double ns = (double)(bench_now_ns() - t0) / (double)iters;
	sink += sum;
	return ns;
}

/* (c) without perfev: four read(2) calls, one per lone counter. */
static double time_raw_single_reads(long iters, const int *fds)
{
	uint64_t buf[3], sum = 0;

	uint64_t t0 = bench_now_ns();
	for (long i = 0; i < iters; i++) {
		for (int e = 0; e < 4; e++) {
			if (read(fds[e], buf, sizeof(buf)) != (ssize_t)sizeof(buf))
				die("read", strerror(errno));
			sum += buf[0];
		}
	}
	double ns = (double)(bench_now_ns() - t0) / (double)iters;
	sink += sum;
	return ns;
}

/* Opens the group of (c) (times, ids and the group format) and the 4 lone counters. */
static void open_group_and_lone(struct pev_counter **group, struct pev_counter **lone)
{
	struct pev_target self = pev_target_self();
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_error err;

	o.read_format = PEV_FORMAT_TOTAL_TIME_ENABLED | PEV_FORMAT_TOTAL_TIME_RUNNING;
	for (int e = 0; e < 4; e++)
		if (pev_counter_open(&group_events[e], &o, &self, NULL, &lone[e], &err) < 0)
			die("pev_counter_open", err.message);
	o.read_format |= PEV_FORMAT_GROUP | PEV_FORMAT_ID;
	for (int e = 0; e < 4; e++)
		if (pev_counter_open(&group_events[e], &o, &self, e ? group[0] : NULL, &group[e],
				     &err) < 0)
			die("pev_counter_open (group)", err.message);
}

/* ---- statistics and output --------------------------------------------- */

/*
 * Prints one pair. The ratio is the median of the per-batch ratios: the two
 * batches of a pair run back to back, so a change of pace of the machine
 * (another VM on the host, a busy neighbour process) affects both alike.
 */
/* Prints sides a and b with the median of the per-batch ratios a / b, labelled `label`. */
static void print_ratio(const char *what, const char *a_name, double *a, const char *b_name,
			double *b, int n, const char *label)
{
	static double ratios[MAX_BATCHES];

	for (int i = 0; i < n; i++)
		ratios[i] = a[i] / b[i];
	struct bench_stats r = bench_summarize(ratios, n), sa = bench_summarize(a, n),
			   sb = bench_summarize(b, n);

	printf("%s\n", what);
	bench_print_side(a_name, sa);
	bench_print_side(b_name, sb);
	printf("  %-38s %10.2fx  (batches %.2f .. %.2f; %+.1f ns/op)\n", label, r.median, r.min,
	       r.max, sa.median - sb.median);
}

/* Prints perfev against the raw system call. */
static void print_pair(const char *what, const char *lib_name, double *lib, const char *raw_name,
		       double *raw, int n)
{
	print_ratio(what, lib_name, lib, raw_name, raw, n, "ratio perfev / raw");
}

int main(int argc, char **argv)
{
	static double lib_open[MAX_BATCHES], raw_open[MAX_BATCHES];
	static double lib_read[MAX_BATCHES], raw_read[MAX_BATCHES];
	static double group_read[MAX_BATCHES], single_reads[MAX_BATCHES];
	static double raw_group_read[MAX_BATCHES], raw_single_reads[MAX_BATCHES];
	struct pev_counter *group[4], *lone[4];
	int lone_fds[4];
	long batches = 21, open_iters = 2000, read_iters = 200000;
	struct pev_target self = pev_target_self();
	struct pev_counter *c;
	struct pev_error err;

	if (argc > 4 || (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0))) {
		fprintf(stderr, "usage: bench_open [BATCHES [OPEN_ITERS [READ_ITERS]]]\n");
		return argc > 4 ? 2 : 0;
	}
	if (argc > 1)
		batches = bench_parse_count("bench_open", argv[1], 1, MAX_BATCHES, "BATCHES");
	if (argc > 2)
		open_iters = bench_parse_count("bench_open", argv[2], 1, 100000000, "OPEN_ITERS");
	if (argc > 3)
		read_iters = bench_parse_count("bench_open", argv[3], 1, 1000000000, "READ_ITERS");

	/* One counter for the reads, and the attribute block perfev builds for the raw opens. */
	/* Read format 0 both ways: read(2) returns the 8-byte value to each. */
	struct pev_opts plain = PEV_OPTS_INIT;
	plain.open_flags = PEV_OPEN_EXACT_READ_FORMAT;
	if (pev_counter_open(&task_clock, &plain, &self, NULL, &c, &err) < 0)
		die("pev_counter_open", err.message);
	struct pev_attr attr = *pev_counter_attr(c);
	int fd = pev_counter_fd(c, 0);

	/* Warm up both paths (page faults, caches, the machine facts perfev reads). */
	time_lib_open(open_iters / 10 + 1);
	time_raw_open(open_iters / 10 + 1, &attr);
	time_lib_read(read_iters / 10 + 1, c);
	bench_time_read("bench_open", read_iters / 10 + 1, fd);
	open_group_and_lone(group, lone);
	for (int e = 0; e < 4; e++)
		lone_fds[e] = pev_counter_fd(lone[e], 0);
	int group_fd = pev_counter_fd(group[0], 0);
	time_group_read(read_iters / 40 + 1, group[0]);
	time_single_reads(read_iters / 40 + 1, lone);

	for (long b = 0; b < batches; b++) {
		if (b % 2 == 0) {
			lib_open[b] = time_lib_open(open_iters);
			raw_open[b] = time_raw_open(open_iters, &attr);
			lib_read[b] = time_lib_read(read_iters, c);
			raw_read[b] = bench_time_read("bench_open", read_iters, fd);
			group_read[b] = time_group_read(read_iters / 4, group[0]);
			single_reads[b] = time_single_reads(read_iters / 4, lone);
			raw_group_read[b] = time_raw_group_read(read_iters / 4, group_fd);
			raw_single_reads[b] = time_raw_single_reads(read_iters / 4, lone_fds);
		} else {
			raw_open[b] = time_raw_open(open_iters, &attr);
			lib_open[b] = time_lib_open(open_iters);
			raw_read[b] = bench_time_read("bench_open", read_iters, fd);
			lib_read[b] = time_lib_read(read_iters, c);
			single_reads[b] = time_single_reads(read_iters / 4, lone);
			group_read[b] = time_group_read(read_iters / 4, group[0]);
			raw_single_reads[b] = time_raw_single_reads(read_iters / 4, lone_fds);
			raw_group_read[b] = time_raw_group_read(read_iters / 4, group_fd);
		}
	}
	pev_counter_close(c);
	for (int e = 3; e >= 0; e--) {
		pev_counter_close(group[e]);
		pev_counter_close(lone[e]);
	}

	bench_print_machine("bench_open");
	printf("%ld batches of %ld opens and %ld reads; median of the batches\n\n", batches,
	       open_iters, read_iters);
	print_pair("(a) open + close task-clock on the calling thread",
		   "pev_counter_open + pev_counter_close", lib_open, "syscall(perf_event_open) + close",
		   raw_open, (int)batches);
	printf("\n");
	print_pair("(b) read the count", "pev_counter_read", lib_read, "read(2), 8 bytes", raw_read,
		   (int)batches);
	printf("\n");
	print_ratio("(c) read 4 counters (READ_ITERS / 4 per batch)",
		    "4 x pev_counter_read, 4 lone counters", single_reads,
		    "pev_counter_read_group, group of 4", group_read, (int)batches,
		    "speed-up of the group read");
	print_ratio("(c') the same with bare read(2) calls: what the kernel allows",
		    "4 x read(2), 4 lone counters", raw_single_reads, "read(2) of the group",
		    raw_group_read, (int)batches, "speed-up of the group read");
	return 0;
}
