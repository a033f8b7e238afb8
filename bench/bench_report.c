/* SPDX-License-Identifier: MIT */
/*
 * bench_report.c - the report layer on a synthetic 100,000-sample profile:
 * how long it takes to build the profile and to write each format, and
 * how much memory the whole run needs at its peak.
 *
 * The samples come from a made-up program of 3000 functions in 12 DSOs,
 * each calling 4 others; a sample is a random walk from one of 3 roots
 * down 4 to 40 calls (16 on average) that takes a function's first callee
 * 80% of the time, its second 12%, its third 5% and its fourth 3%, with the leaf's address anywhere in
 * its function and each caller's a fixed return address. One sample in
 * ten ends in 2 to 4 kernel frames (from 200 kernel functions), one frame
 * in fifty is unresolved and one in twenty has an inlined function. Four
 * threads of "app" take most samples, "bash" and "kworker/0:1" the rest.
 * The generator is deterministic, so every run profiles the same samples.
 *
 * Each repetition builds a new profile and writes, to /dev/null: the table
 * (comm,dso,sym), the table with children and callee call graphs (what
 * `perf report --stdio` prints for a file recorded with -g), folded
 * stacks, the flame graph, pprof and JSON. The report is the median of the
 * repetitions per phase, fastest and slowest beside it, and the peak RSS.
 *
 *   usage: bench_report [REPETITIONS [SAMPLES]]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench_util.h"
#include "perfev.h"

#define NFUNC 3000
#define NDSO 12
#define NKERN 200
#define NCALLEE 4
#define MAX_DEPTH 48
#define MAX_REPS 101

struct func {
	char name[64];
	const char *dso;
	uint64_t base;
	int callee[NCALLEE];
};

static struct func funcs[NFUNC];
static char kernel_names[NKERN][48];
static char inline_names[64][40];
static const char *dsos[NDSO] = {
	"/usr/bin/app",
	"/usr/lib/x86_64-linux-gnu/libc.so.6",
	"/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30",
	"/usr/lib/x86_64-linux-gnu/libm.so.6",
	"/usr/lib/x86_64-linux-gnu/libz.so.1.2.13",
	"/usr/lib/x86_64-linux-gnu/libssl.so.3",
	"/usr/lib/x86_64-linux-gnu/libcrypto.so.3",
	"/usr/lib/app/libengine.so",
	"/usr/lib/app/libstorage.so",
	"/usr/lib/app/libnet.so",
	"/usr/lib/app/libjson.so",
	"/usr/lib/app/libui.so",
};

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static void make_program(void)
{
	static const char *const words[] = {"parse", "hash", "insert", "lookup", "encode", "decode",
					    "flush", "read", "write", "render", "update", "merge",
					    "split", "compress", "visit", "emit"};

	for (int i = 0; i < NFUNC; i++) {
		struct func *f = &funcs[i];
		if (i < 3)
			snprintf(f->name, sizeof(f->name), "%s",
				 i == 0 ? "main" : i == 1 ? "worker_loop" : "io_loop");
		else
			snprintf(f->name, sizeof(f->name), "mod%02d::Class%03d::%s_%d", i % 37,
				 i % 211, words[i % 16], i);
		f->dso = dsos[i < 3 ? 0 : 1 + (unsigned)i % (NDSO - 1)];
		f->base = 0x400000 + (uint64_t)i * 0x400;
		/* Callees further down the list: a call graph without cycles, deep enough. */
		for (int k = 0; k < NCALLEE; k++)
			f->callee[k] = i + 1 + (int)(rnd() % 300);
	}
	for (int i = 0; i < NKERN; i++)
		snprintf(kernel_names[i], sizeof(kernel_names[i]), "kernel_path_%d", i);
	for (int i = 0; i < 64; i++)
		snprintf(inline_names[i], sizeof(inline_names[i]), "inlined_helper_%d", i);
}

/* One sample's stack, leaf first; returns the number of frames. */
static size_t make_stack(struct pev_profile_frame *fr)
{
	int chain[MAX_DEPTH], depth = 4 + (int)(rnd() % 13) + (int)(rnd() % 13), n = 0;
	size_t nf = 0;
	int f = (int)(rnd() % 3);

	if (depth > 40)
		depth = 40;
	/* Walk down from the root: a hot path (the first callee 80% of the time), others less. */
	chain[n++] = f;
	while (n < depth) {
		uint32_t r = rnd() % 100;
		int k = r < 80 ? 0 : r < 92 ? 1 : r < 97 ? 2 : 3;
		f = funcs[f].callee[k];
		if (f >= NFUNC)
			break;
		chain[n++] = f;
	}
	/* Kernel frames at the leaf for one sample in ten. */
	if (rnd() % 10 == 0) {
		int nk = 2 + (int)(rnd() % 3);
		for (int k = 0; k < nk; k++) {
			fr[nf] = (struct pev_profile_frame){
				.address = 0xffffffff81000000ULL + (uint64_t)(rnd() % NKERN) * 0x100,
				.dso = "[kernel.kallsyms]",
				.flags = PEV_FRAME_KERNEL};
			fr[nf].symbol = kernel_names[(fr[nf].address >> 8) % NKERN];
			nf++;
		}
	}
	for (int i = n - 1; i >= 0; i--) {
		const struct func *x = &funcs[chain[i]];
		uint64_t addr = i == n - 1 ? x->base + rnd() % 0x100 : x->base + 0x100 + (uint64_t)i * 8;

		if (rnd() % 20 == 0)
			fr[nf++] = (struct pev_profile_frame){.address = addr,
							      .symbol = inline_names[chain[i] % 64],
							      .dso = x->dso,
							      .flags = PEV_FRAME_INLINED};
		fr[nf++] = (struct pev_profile_frame){.address = addr,
						      .symbol = rnd() % 50 == 0 ? NULL : x->name,
						      .offset = addr - x->base,
						      .dso = x->dso};
	}
	return nf;
}

static struct pev_profile *build(long samples)
{
	struct pev_profile *p = NULL;
	struct pev_profile_event ev = PEV_PROFILE_EVENT_INIT;
	struct pev_profile_frame fr[MAX_DEPTH * 2 + 8];

	if (pev_profile_new(&p))
		exit(1);
	ev.name = "cpu-clock";
	ev.unit = PEV_PROFILE_UNIT_NANOSECONDS;
	if (pev_profile_add_event(p, &ev) != 0)
		exit(1);
	rng = 0x2545f4914f6cdd1dULL;
	for (long i = 0; i < samples; i++) {
		struct pev_profile_sample s = PEV_PROFILE_SAMPLE_INIT;
		uint32_t who = rnd() % 100;

		s.period = 250000;
		s.comm = who < 90 ? "app" : who < 96 ? "bash" : "kworker/0:1";
		s.pid = who < 90 ? 100 : who < 96 ? 200 : 7;
		s.tid = who < 90 ? 100 + (int)(who % 4) : s.pid;
		s.cpu = (int)(who % 2);
		s.time = 1000000000ULL + (uint64_t)i * 250000;
		s.frames = fr;
		s.nr_frames = make_stack(fr);
		if (pev_profile_add_sample(p, &s) != 0) {
			fprintf(stderr, "bench_report: adding a sample failed\n");
			exit(1);
		}
	}
	return p;
}

/* The time the generator alone takes, to subtract from building. */
static double generate_only_ms(long samples)
{
	struct pev_profile_frame fr[MAX_DEPTH * 2 + 8];
	uint64_t t0 = bench_now_ns();
	volatile size_t sink = 0;

	rng = 0x2545f4914f6cdd1dULL;
	for (long i = 0; i < samples; i++) {
		(void)(rnd() % 100);
		sink += make_stack(fr);
	}
	(void)sink;
	return (double)(bench_now_ns() - t0) / 1e6;
}

enum phase { BUILD, TABLE, TABLE_G, FOLDED, FLAME, PPROF, JSON, FREE, NPHASE };

static const char *const phase_names[NPHASE] = {
	"build (add samples)", "table", "table --children -g", "folded", "flame graph", "pprof",
	"json",                "free",
};

/* CPU time of the process in nanoseconds: what a phase costs, whatever else the machine runs. */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Wall and CPU milliseconds of every phase of every repetition. */
static double wall[NPHASE][MAX_REPS], cpu[NPHASE][MAX_REPS];
static uint64_t wall0, cpu0;

static void phase_start(void)
{
	wall0 = bench_now_ns();
	cpu0 = cpu_ns();
}

static void phase_end(enum phase ph, long rep)
{
	wall[ph][rep] = (double)(bench_now_ns() - wall0) / 1e6;
	cpu[ph][rep] = (double)(cpu_ns() - cpu0) / 1e6;
}

typedef int (*writer_fn)(const struct pev_profile *, FILE *, const struct pev_report_opts *,
			 struct pev_error *);

static void timed_write(enum phase ph, long rep, writer_fn fn, const struct pev_profile *p,
			const struct pev_report_opts *o, FILE *out)
{
	struct pev_error err;
	int r;

	phase_start();
	r = fn(p, out, o, &err);
	phase_end(ph, rep);
	if (r) {
		fprintf(stderr, "bench_report: %s\n", err.message);
		exit(1);
	}
}

static void print_phase(const char *name, double *w, double *c, long reps)
{
	struct bench_stats sw = bench_summarize(w, (int)reps), sc = bench_summarize(c, (int)reps);

	printf("  %-22s %8.1f ms  (%.1f .. %.1f)   cpu %8.1f ms  (%.1f .. %.1f)\n", name,
	       sw.median, sw.min, sw.max, sc.median, sc.min, sc.max);
}

int main(int argc, char **argv)
{
	long reps = argc > 1 ? bench_parse_count(argv[0], argv[1], 1, MAX_REPS, "REPETITIONS") : 5;
	long samples = argc > 2 ? bench_parse_count(argv[0], argv[2], 1, 10000000, "SAMPLES")
				: 100000;
	static double total_wall[MAX_REPS], total_cpu[MAX_REPS];
	struct pev_report_opts plain = PEV_REPORT_OPTS_INIT, graph = PEV_REPORT_OPTS_INIT;
	struct rusage ru;
	FILE *null = fopen("/dev/null", "w");
	uint64_t nsamples = 0;
	double gen;

	if (!null)
		return 1;
	make_program();
	bench_print_machine(argv[0]);
	graph.flags = PEV_REPORT_CHILDREN;
	graph.callgraph = PEV_REPORT_CALLGRAPH_CALLEE;
	gen = generate_only_ms(samples);
	for (long r = 0; r < reps; r++) {
		struct pev_profile *p;

		phase_start();
		p = build(samples);
		phase_end(BUILD, r);
		pev_profile_totals(p, 0, &nsamples, NULL);
		timed_write(TABLE, r, pev_profile_write_table, p, &plain, null);
		timed_write(TABLE_G, r, pev_profile_write_table, p, &graph, null);
		timed_write(FOLDED, r, pev_profile_write_folded, p, &plain, null);
		timed_write(FLAME, r, pev_profile_write_flamegraph, p, &plain, null);
		timed_write(PPROF, r, pev_profile_write_pprof, p, &plain, null);
		timed_write(JSON, r, pev_profile_write_json, p, &plain, null);
		phase_start();
		pev_profile_free(p);
		phase_end(FREE, r);
		for (int ph = 0; ph < NPHASE; ph++) {
			total_wall[r] += wall[ph][r];
			total_cpu[r] += cpu[ph][r];
		}
	}
	fclose(null);
	getrusage(RUSAGE_SELF, &ru);

	printf("profile: %" PRIu64 " samples, %d functions in %d DSOs, %ld repetitions\n",
	       nsamples, NFUNC, NDSO, reps);
	printf("generating the stacks, included in build: %.1f ms\n", gen);
	printf("  %-22s %8s wall, median (fastest .. slowest), and process CPU time\n", "phase",
	       "");
	for (int ph = 0; ph < NPHASE; ph++)
		print_phase(phase_names[ph], wall[ph], cpu[ph], reps);
	print_phase("all of the above", total_wall, total_cpu, reps);
	printf("peak RSS: %ld KiB\n", ru.ru_maxrss);
	return 0;
}
