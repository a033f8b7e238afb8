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
#include <unistd.h>

#include "bench_util.h"
#include "perfev.h"

#define MAX_BATCHES 1001

static volatile uint64_t sink; /* keeps the reads from being optimized away */

/* Nothing to measure on this machine: say why, in one line, and succeed. */
static int not_measured(const char *event, const char *why)
{
	printf("bench_rdpmc: rdpmc read vs read() not measured here: %s: %.*s\n", event,
	       (int)strcspn(why, "\n"), why);
	return 0;
}

/* ---- the timed loops: rdpmc here, read(2) in bench_time_read ----------- */

static double time_rdpmc(long iters, const struct pev_mmap_page *pc)
{
	struct pev_count c;
	uint64_t sum = 0;

	uint64_t t0 = bench_now_ns();
	for (long i = 0; i < iters; i++) {
		if (pev_mmap_read(pc, &c) < 0) {
			fprintf(stderr, "bench_rdpmc: pev_mmap_read stopped working\n");
			exit(1);
		}
		sum += c.value;
	}
	double ns = (double)(bench_now_ns() - t0) / (double)iters;
	sink += sum;
	return ns;
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
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (argc > 4 || (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0))) {
		fprintf(stderr, "usage: bench_rdpmc [EVENT [BATCHES [ITERS]]]\n");
		return argc > 4 ? 2 : 0;
	}
	if (argc > 1)
		event = argv[1];
	if (argc > 2)
		batches = bench_parse_count("bench_rdpmc", argv[2], 1, MAX_BATCHES, "BATCHES");
	if (argc > 3)
		iters = bench_parse_count("bench_rdpmc", argv[3], 1, 1000000000, "ITERS");

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
	opts.open_flags |= PEV_OPEN_EXACT_READ_FORMAT;
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
	bench_time_read("bench_rdpmc", iters / 10 + 1, fd);
	for (long b = 0; b < batches; b++) {
		if (b % 2 == 0) {
			fast[b] = time_rdpmc(iters, pc);
			slow[b] = bench_time_read("bench_rdpmc", iters, fd);
		} else {
			slow[b] = bench_time_read("bench_rdpmc", iters, fd);
			fast[b] = time_rdpmc(iters, pc);
		}
		ratios[b] = slow[b] / fast[b];
	}

	bench_print_machine("bench_rdpmc");
	printf("%s: pmc_width %u, cap_user_time %d, cap_user_time_short %d; "
	       "check read(2) %llu <= rdpmc %llu <= read(2) %llu: ok\n",
	       pev_counter_name(c), pc->pmc_width, !!(pc->capabilities & PEV_CAP_USER_TIME),
	       !!(pc->capabilities & PEV_CAP_USER_TIME_SHORT), (unsigned long long)before,
	       (unsigned long long)count.value, (unsigned long long)after);
	printf("%ld batches of %ld reads; median of the batches\n\n", batches, iters);
	struct bench_stats q = bench_summarize(ratios, (int)batches);
	printf("read the count of %s\n", event);
	bench_print_side("pev_mmap_read (rdpmc)", bench_summarize(fast, (int)batches));
	bench_print_side("read(2), 8 bytes", bench_summarize(slow, (int)batches));
	printf("  %-38s %10.1fx  (batches %.1f .. %.1f)\n", "ratio read(2) / rdpmc", q.median, q.min,
	       q.max);
	munmap((void *)pc, page);
	pev_counter_close(c);
	return 0;
}
