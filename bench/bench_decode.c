/* SPDX-License-Identifier: MIT */
/*
 * bench_decode.c - what decoding a ring's worth of samples costs, side by
 * side in one run with the cheapest thing a reader could do with the same
 * bytes: copy them once with memcpy.
 *
 * The buffer holds realistic PERF_RECORD_SAMPLEs back to back, as a ring of
 * RING_KIB kilobytes would (default 512 KiB, the ring perf record maps by
 * default): sample_type IP | TID | TIME | CPU | PERIOD | CALLCHAIN, each
 * callchain a PERF_CONTEXT_USER marker and 16 frames (192 bytes a record).
 *
 *   (a) pev_record_decode of every record, touching the decoded fields a
 *       profiler reads first (ip, pid, tid, time, cpu, period, the callchain's
 *       length and outermost frame) and summing them into a volatile sink,
 *       against one memcpy of the whole buffer. Target: ratio <= 1.0.
 *   (b) the same decode, walking every callchain frame with
 *       pev_callchain_iter (what building a call graph costs), against the
 *       same memcpy. For information.
 *
 * The sides alternate batch by batch (and which goes first alternates too);
 * a batch times PASSES passes over the buffer and gives one ns/record figure.
 * The report is the median batch with the fastest and slowest beside it, and
 * the median of the per-batch ratios. Every malloc, calloc, realloc and
 * aligned allocation of the process is counted by an interposer: decoding
 * must make none, or the benchmark fails.
 *
 *   usage: bench_decode [BATCHES [RING_KIB [PASSES]]]
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "perfev.h"

#define MAX_BATCHES 1001
#define DEPTH 16 /* callchain frames after the context marker */

static volatile uint64_t sink; /* keeps the work from being optimized away */

/* ---- counting allocations ---------------------------------------------------- */

/*
 * glibc's own entry points, which the replacements below forward to: defining
 * malloc and friends in the executable routes every allocation of the process
 * (libperfev included) through them.
 */
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);

static unsigned long allocations;

void *malloc(size_t n)
{
	allocations++;
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	allocations++;
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	allocations++;
	return __libc_realloc(p, n);
}

void *aligned_alloc(size_t align, size_t n)
{
	allocations++;
	return __libc_memalign(align, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
	allocations++;
	void *p = __libc_memalign(align, n);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

/* ---- helpers ------------------------------------------------------------------------ */

static void die(const char *what, const char *why)
{
	fprintf(stderr, "bench_decode: %s: %s\n", what, why);
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static long parse_count(const char *text, long min, long max, const char *what)
{
	char *end;
	errno = 0;
	long v = strtol(text, &end, 10);

	if (errno || *end || v < min || v > max) {
		fprintf(stderr, "bench_decode: %s must be a number from %ld to %ld, not '%s'\n",
			what, min, max, text);
		exit(2);
	}
	return v;
}

/* ---- the synthetic ring ------------------------------------------------------------ */

#define SAMPLE_TYPE                                                                                \
	(PEV_SAMPLE_IP | PEV_SAMPLE_TID | PEV_SAMPLE_TIME | PEV_SAMPLE_CPU | PEV_SAMPLE_PERIOD |   \
	 PEV_SAMPLE_CALLCHAIN)
/* header, ip, pid/tid, time, cpu/res, period, nr, marker + DEPTH frames */
#define RECORD_WORDS (1 + 5 + 1 + 1 + DEPTH)

/* Fills buf (words) with as many samples as fit; returns how many. */
static size_t fill_ring(uint64_t *buf, size_t words)
{
	size_t n = words / RECORD_WORDS;
	uint64_t time = UINT64_C(1000000000), seed = 12345;

	for (size_t k = 0; k < n; k++) {
		uint64_t *w = buf + k * RECORD_WORDS;
		size_t at = 0;

		seed = seed * UINT64_C(6364136223846793005) + 1442695040888963407u;
		time += 1000 + (seed >> 54); /* about every microsecond */
		w[at++] = (uint64_t)PEV_RECORD_SAMPLE | (uint64_t)PEV_RECORD_MISC_USER << 32 |
			  (uint64_t)(RECORD_WORDS * 8) << 48;
		w[at++] = 0x401000 + ((seed >> 20) & 0xffff);           /* ip */
		w[at++] = (uint64_t)4242 | (uint64_t)(4242 + k % 4) << 32; /* pid, tid */
		w[at++] = time;                                          /* time */
		w[at++] = k % 2;                                         /* cpu, res */
		w[at++] = 100000 + (seed >> 50);                         /* period */
		w[at++] = 1 + DEPTH;                                     /* nr */
		w[at++] = PEV_CONTEXT_USER;
		for (int d = 0; d < DEPTH; d++)
			w[at++] = 0x401000 + (uint64_t)d * 0x40 + ((seed >> (d + 8)) & 0x3f);
	}
	return n;
}

/* ---- the timed loops ------------------------------------------------------------------ */

/* ns per record for `passes` decodes of the whole buffer. */
static double time_decode(const struct pev_record_format *f, const unsigned char *buf, size_t len,
			  size_t nrec, long passes)
{
	struct pev_record r;
	uint64_t sum = 0;

	uint64_t t0 = now_ns();
	for (long p = 0; p < passes; p++) {
		for (size_t off = 0; off < len;) {
			int n = pev_record_decode(f, buf + off, len - off, &r);
			if (n <= 0)
				die("pev_record_decode", pev_strerror(n));
			sum += r.sample.ip + r.sample_id.pid + r.sample_id.tid + r.sample_id.time +
			       r.sample_id.cpu + r.sample.period + r.sample.callchain_nr +
			       r.sample.callchain[r.sample.callchain_nr - 1];
			off += (size_t)n;
		}
	}
	double ns = (double)(now_ns() - t0) / (double)passes / (double)nrec;
	sink += sum;
	return ns;
}

/* The same, walking every frame of every callchain. */
static double time_decode_walk(const struct pev_record_format *f, const unsigned char *buf,
			       size_t len, size_t nrec, long passes)
{
	struct pev_callchain_iter it;
	struct pev_callchain_frame fr;
	struct pev_record r;
	uint64_t sum = 0;

	uint64_t t0 = now_ns();
	for (long p = 0; p < passes; p++) {
		for (size_t off = 0; off < len;) {
			int n = pev_record_decode(f, buf + off, len - off, &r);
			if (n <= 0)
				die("pev_record_decode", pev_strerror(n));
			sum += r.sample.ip + r.sample_id.pid + r.sample_id.tid + r.sample_id.time +
			       r.sample_id.cpu + r.sample.period;
			pev_callchain_iter_init(&it, r.sample.callchain, r.sample.callchain_nr);
			while (pev_callchain_iter_next(&it, &fr))
				sum += fr.ip;
			off += (size_t)n;
		}
	}
	double ns = (double)(now_ns() - t0) / (double)passes / (double)nrec;
	sink += sum;
	return ns;
}

/* ns per record's bytes for `passes` copies of the whole buffer. */
static double time_memcpy(unsigned char *dst, const unsigned char *src, size_t len, size_t nrec,
			  long passes)
{
	uint64_t sum = 0;

	uint64_t t0 = now_ns();
	for (long p = 0; p < passes; p++) {
		memcpy(dst, src, len);
		sum += dst[(size_t)p * 4099 % len];
	}
	double ns = (double)(now_ns() - t0) / (double)passes / (double)nrec;
	sink += sum;
	return ns;
}

/* ---- statistics and output ---------------------------------------------------------------- */

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

/* Prints a against b with the median of the per-batch ratios a / b; returns that median. */
static double print_ratio(const char *what, const char *a_name, double *a, const char *b_name,
			  double *b, int n)
{
	static double ratios[MAX_BATCHES];

	for (int i = 0; i < n; i++)
		ratios[i] = a[i] / b[i];
	struct stats r = summarize(ratios, n), sa = summarize(a, n), sb = summarize(b, n);

	printf("%s\n", what);
	printf("  %-40s %8.2f ns/record  (batches %.2f .. %.2f)\n", a_name, sa.median, sa.min,
	       sa.max);
	printf("  %-40s %8.2f ns/record  (batches %.2f .. %.2f)\n", b_name, sb.median, sb.min,
	       sb.max);
	printf("  %-40s %8.2fx  (batches %.2f .. %.2f)\n", "ratio decode / memcpy", r.median, r.min,
	       r.max);
	return r.median;
}

int main(int argc, char **argv)
{
	static double dec[MAX_BATCHES], walk[MAX_BATCHES], cpy_a[MAX_BATCHES], cpy_b[MAX_BATCHES];
	long batches = 21, ring_kib = 512, passes = 0;
	struct pev_record_config cfg = PEV_RECORD_CONFIG_INIT;
	struct pev_record_format fmt;
	struct utsname u;

	if (argc > 4 || (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0))) {
		fprintf(stderr, "usage: bench_decode [BATCHES [RING_KIB [PASSES]]]\n");
		return argc > 4 ? 2 : 0;
	}
	if (argc > 1)
		batches = parse_count(argv[1], 1, MAX_BATCHES, "BATCHES");
	if (argc > 2)
		ring_kib = parse_count(argv[2], 4, 1 << 20, "RING_KIB");
	if (argc > 3)
		passes = parse_count(argv[3], 1, 1000000, "PASSES");
	if (!passes) /* about 64 MiB of records per batch */
		passes = (64 * 1024 + ring_kib - 1) / ring_kib;

	size_t words = (size_t)ring_kib * 1024 / 8;
	uint64_t *ring = aligned_alloc(64, words * 8), *copy = aligned_alloc(64, words * 8);
	if (!ring || !copy)
		die("aligned_alloc", "out of memory");
	size_t nrec = fill_ring(ring, words), len = nrec * RECORD_WORDS * 8;
	memset(copy, 0, words * 8);

	cfg.sample_type = SAMPLE_TYPE;
	if (pev_record_format_init(&fmt, &cfg) != 0)
		die("pev_record_format_init", "refused the format");

	/* Warm up both sides (page faults, caches). */
	time_decode(&fmt, (const unsigned char *)ring, len, nrec, 2);
	time_memcpy((unsigned char *)copy, (const unsigned char *)ring, len, nrec, 2);

	unsigned long before = allocations;
	for (long b = 0; b < batches; b++) {
		if (b % 2 == 0) {
			dec[b] = time_decode(&fmt, (const unsigned char *)ring, len, nrec, passes);
			cpy_a[b] = time_memcpy((unsigned char *)copy, (const unsigned char *)ring, len,
					       nrec, passes);
			walk[b] = time_decode_walk(&fmt, (const unsigned char *)ring, len, nrec,
						   passes);
			cpy_b[b] = time_memcpy((unsigned char *)copy, (const unsigned char *)ring, len,
					       nrec, passes);
		} else {
			cpy_a[b] = time_memcpy((unsigned char *)copy, (const unsigned char *)ring, len,
					       nrec, passes);
			dec[b] = time_decode(&fmt, (const unsigned char *)ring, len, nrec, passes);
			cpy_b[b] = time_memcpy((unsigned char *)copy, (const unsigned char *)ring, len,
					       nrec, passes);
			walk[b] = time_decode_walk(&fmt, (const unsigned char *)ring, len, nrec,
						   passes);
		}
	}
	unsigned long during = allocations - before;
	free(ring);
	free(copy);

	if (uname(&u) == 0)
		printf("bench_decode: Linux %s %s, %ld CPUs online\n", u.release, u.machine,
		       sysconf(_SC_NPROCESSORS_ONLN));
	printf("%zu samples of %d bytes (IP TID TIME CPU PERIOD, callchain of 1 marker + %d "
	       "frames) in a %ld KiB buffer\n",
	       nrec, RECORD_WORDS * 8, DEPTH, ring_kib);
	printf("%ld batches of %ld passes; median of the batches\n\n", batches, passes);
	double ratio = print_ratio("(a) decode every record, touch the fields a profiler reads first",
				   "pev_record_decode", dec, "memcpy of the same bytes", cpy_a,
				   (int)batches);
	printf("\n");
	print_ratio("(b) decode and walk every callchain frame (for information)",
		    "pev_record_decode + pev_callchain_iter", walk, "memcpy of the same bytes",
		    cpy_b, (int)batches);
	printf("\nallocations while decoding %ld x %zu records: %lu\n", 2 * batches * passes, nrec,
	       during);
	if (during) {
		fprintf(stderr, "bench_decode: decoding allocated memory\n");
		return 1;
	}
	printf("target (a) <= 1.00x: %s\n", ratio <= 1.0 ? "met" : "NOT met");
	return 0;
}
