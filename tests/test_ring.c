/* SPDX-License-Identifier: MIT */
/*
 * test_ring.c - a sampling event's ring buffer on the live kernel: mapping
 * (sizes, the control page, argument checks, the locked-memory budget
 * checked before mmap and refused by the kernel as an unprivileged user),
 * reading a small ring that wraps while this process is sampled, an
 * overwrite ring recovered after many wraps, two events sharing a ring
 * (SET_OUTPUT) and the refusals explained, poll wake-ups by event count and
 * by bytes, POLLHUP after the target exits and the drain, and the AUX area
 * refused by a software event. test_ring_synthetic.c tests the reader over
 * laid-out memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"

/* Every test checks that it leaves no descriptor or mapping behind. */
TestSuite(ring, .init = th_leak_init, .fini = th_leak_fini);

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/* A sampling software event on the calling thread, user space only (opens as nobody too). */
static int open_sampler(struct pev_counter **out, struct pev_error *err)
{
	struct pev_event ev = pev_event_software(PEV_SW_CPU_CLOCK);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_target self = pev_target_self();

	o.disabled = true;
	o.exclude_kernel = true;
	o.exclude_hv = true;
	o.sample_period = 1000000;
	o.sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_TID;
	return pev_counter_open(&ev, &o, &self, NULL, out, err);
}

static struct pev_counter *sampler(void)
{
	struct pev_counter *c = NULL;
	struct pev_error err;
	int r = open_sampler(&c, &err);

	cr_assert_eq(r, 0, "opening a sampling cpu-clock: %s", err.message);
	return c;
}

/*
 * Finds the mapping of /proc/self/maps that starts at addr and returns its
 * length in bytes and whether it is a perf event mapping; 0 when none starts there.
 */
static size_t mapping_at(const void *addr, bool *is_perf)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	size_t len = 0;

	*is_perf = false;
	cr_assert(f, "cannot read /proc/self/maps: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end;
		if (sscanf(line, "%llx-%llx", &start, &end) != 2)
			continue;
		if ((uintptr_t)addr == start) {
			len = (size_t)(end - start);
			*is_perf = strstr(line, "perf_event") != NULL;
			break;
		}
	}
	fclose(f);
	return len;
}

static void check_pages(size_t n)
{
	struct pev_counter *c = sampler();
	struct pev_ring *r = NULL;
	struct pev_error err;
	size_t page = page_size();
	int maps_before = th_count_perf_maps();

	int rc = pev_ring_open(c, 0, n, &r, &err);
	cr_assert_eq(rc, 0, "pev_ring_open(%zu pages): %s", n, err.message);
	cr_assert_not_null(r);
	cr_expect_eq(th_count_perf_maps(), maps_before + 1, "one new perf mapping for %zu pages", n);

	const struct pev_mmap_page *pg = pev_ring_page(r);
	cr_assert_not_null(pg);
	bool is_perf;
	size_t len = mapping_at(pg, &is_perf);
	cr_expect(is_perf, "the control page is a perf_event mapping");
	cr_expect_eq(len, (n + 1) * page, "1+%zu pages map %zu bytes, not %zu", n, (n + 1) * page,
		     len);

	cr_expect_eq(pg->data_offset, page, "data_offset %llu, page %zu",
		     (unsigned long long)pg->data_offset, page);
	cr_expect_eq(pg->data_size, n * page, "data_size %llu for %zu pages",
		     (unsigned long long)pg->data_size, n);
	cr_expect_eq(pev_ring_data_size(r), n * page);
	cr_expect_eq(pg->data_head, 0, "nothing written yet to a disabled event's ring");
	cr_expect_eq(pg->data_tail, 0);

	pev_ring_close(r);
	cr_expect_eq(th_count_perf_maps(), maps_before, "the mapping is gone after close");
	cr_expect_eq(mapping_at(pg, &is_perf), 0, "nothing is mapped at the old address");
	pev_counter_close(c);
}

Test(ring, maps_one_data_page)
{
	check_pages(1);
}

Test(ring, maps_two_data_pages)
{
	check_pages(2);
}

Test(ring, maps_eight_data_pages)
{
	check_pages(8);
}

Test(ring, accessors_accept_null)
{
	cr_expect_null(pev_ring_page(NULL));
	cr_expect_eq(pev_ring_data_size(NULL), 0);
	pev_ring_close(NULL);
}

Test(ring, the_counter_stays_open_after_close)
{
	struct pev_counter *c = sampler();
	struct pev_ring *r;
	struct pev_error err;
	int fds = th_count_perf_fds();

	cr_assert_eq(pev_ring_open(c, 0, 1, &r, &err), 0, "%s", err.message);
	pev_ring_close(r);
	cr_expect_eq(th_count_perf_fds(), fds);
	/* And the same descriptor maps again. */
	cr_assert_eq(pev_ring_open(c, 0, 2, &r, &err), 0, "%s", err.message);
	cr_expect_eq(pev_ring_page(r)->data_size, 2 * page_size());
	pev_ring_close(r);
	pev_counter_close(c);
}

static void expect_bad_pages(size_t n)
{
	struct pev_counter *c = sampler();
	struct pev_ring *r = (struct pev_ring *)&r; /* not NULL: the call must clear it */
	struct pev_error err;
	int maps = th_count_perf_maps();

	memset(&err, 0, sizeof(err));
	cr_expect_eq(pev_ring_open(c, 0, n, &r, &err), PEV_EBADARG, "%zu data pages", n);
	cr_expect_null(r, "*out is NULL after a failure");
	cr_expect_eq(err.code, PEV_EBADARG);
	cr_expect_str_eq(err.field, "data_pages", "field '%s' for %zu pages", err.field, n);
	cr_expect(strstr(err.message, "data_pages"), "message names data_pages: %s", err.message);
	cr_expect(strstr(err.message, "power of two"), "message says what is allowed: %s",
		  err.message);
	cr_expect(err.before_syscall);
	cr_expect_eq(th_count_perf_maps(), maps);
	pev_counter_close(c);
}

Test(ring, zero_pages_is_a_bad_argument)
{
	expect_bad_pages(0);
}

Test(ring, three_pages_is_a_bad_argument)
{
	expect_bad_pages(3);
}

Test(ring, a_huge_power_of_two_is_a_bad_argument)
{
	expect_bad_pages((size_t)1 << 40);
	expect_bad_pages(SIZE_MAX);
	expect_bad_pages(((size_t)1 << 30) / page_size() * 2);
}

Test(ring, a_bad_fd_index_is_a_bad_argument)
{
	struct pev_counter *c = sampler();
	struct pev_ring *r;
	struct pev_error err;
	const int bad[] = {-1, 1, 1000, -2147483647 - 1};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&err, 0, sizeof(err));
		cr_expect_eq(pev_ring_open(c, bad[i], 1, &r, &err), PEV_EBADARG, "fd_index %d",
			     bad[i]);
		cr_expect_null(r);
		cr_expect_str_eq(err.field, "fd_index");
		cr_expect(strstr(err.message, "fd_index"), "%s", err.message);
	}
	/* A NULL counter has no descriptors at all. */
	cr_expect_eq(pev_ring_open(NULL, 0, 1, &r, &err), PEV_EBADARG);
	cr_expect_null(r);
	cr_expect_str_eq(err.field, "c");
	pev_counter_close(c);
}

Test(ring, a_null_out_is_a_bad_argument)
{
	struct pev_counter *c = sampler();
	struct pev_error err;
	int maps = th_count_perf_maps();

	cr_expect_eq(pev_ring_open(c, 0, 1, NULL, &err), PEV_EBADARG);
	cr_expect_str_eq(err.field, "out");
	cr_expect(strstr(err.message, "out"), "%s", err.message);
	/* Without an error struct too. */
	cr_expect_eq(pev_ring_open(c, 0, 1, NULL, NULL), PEV_EBADARG);
	cr_expect_eq(th_count_perf_maps(), maps);
	pev_counter_close(c);
}

Test(ring, open_opts_checks_its_options)
{
	struct pev_counter *c = sampler();
	struct pev_ring *r = (struct pev_ring *)&r;
	struct pev_error err;
	struct pev_ring_opts o = PEV_RING_OPTS_INIT;
	struct {
		struct pev_ring_opts o;
		uint64_t extra;
	} newer;
	int maps = th_count_perf_maps();

	cr_expect_eq(pev_ring_open_opts(c, 0, NULL, &r, &err), PEV_EBADARG);
	cr_expect_null(r);
	cr_expect_str_eq(err.field, "opts");
	expect_has(err.message, "pev_ring_open_opts");

	o.data_pages = 1;
	o.sz = 0;
	cr_expect_eq(pev_ring_open_opts(c, 0, &o, &r, &err), PEV_EBADARG, "sz 0");
	expect_has(err.message, "PEV_RING_OPTS_INIT");
	o.sz = sizeof(o);
	o.flags = 0x80;
	cr_expect_eq(pev_ring_open_opts(c, 0, &o, &r, &err), PEV_EBADARG, "an unknown flag");
	cr_expect_str_eq(err.field, "flags");
	o.flags = 0;
	o.aux_snapshot = true;
	cr_expect_eq(pev_ring_open_opts(c, 0, &o, &r, &err), PEV_EBADARG, "snapshot without AUX");
	cr_expect_str_eq(err.field, "aux_snapshot");
	o.aux_snapshot = false;
	o.aux_pages = 3;
	cr_expect_eq(pev_ring_open_opts(c, 0, &o, &r, &err), PEV_EBADARG, "3 AUX pages");
	cr_expect_str_eq(err.field, "aux_pages");
	expect_has(err.message, "power of two");
	cr_expect_eq(th_count_perf_maps(), maps, "nothing mapped by refusals");

	/* A newer caller's struct: zero beyond what this library knows is fine, non-zero is not. */
	memset(&newer, 0, sizeof(newer));
	newer.o.sz = sizeof(newer);
	newer.o.data_pages = 2;
	cr_assert_eq(pev_ring_open_opts(c, 0, &newer.o, &r, &err), 0, "%s", err.message);
	cr_expect_eq(pev_ring_data_size(r), 2 * page_size());
	pev_ring_close(r);
	newer.extra = 1;
	cr_expect_eq(pev_ring_open_opts(c, 0, &newer.o, &r, &err), PEV_EBADARG);
	expect_has(err.message, "upgrade");
	/* An older caller's struct: fields past sz count as zero. */
	o = (struct pev_ring_opts)PEV_RING_OPTS_INIT;
	o.data_pages = 1;
	o.aux_pages = 4;
	o.sz = offsetof(struct pev_ring_opts, aux_pages);
	cr_assert_eq(pev_ring_open_opts(c, 0, &o, &r, &err), 0, "aux_pages beyond sz is ignored: %s",
		     err.message);
	cr_expect_eq(pev_ring_aux_size(r), 0);
	cr_expect_eq(pev_ring_fd(r), pev_counter_fd(c, 0), "the ring polls the counter's descriptor");
	cr_expect_not(pev_ring_overwrite(r));
	pev_ring_close(r);
	pev_counter_close(c);
}

/* ---- work to sample ---------------------------------------------------------- */

static double thread_cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/*
 * Burns about `ms` milliseconds of this thread's CPU time, nearly all of it
 * in user mode: the thread's CPU clock is a system call, so it is read
 * once per 20,000 additions (some microseconds). Read every 1,000, the
 * calls took half the time or more on a loaded VM, and events that
 * exclude the kernel lost those samples (99 of 300 in one CI run).
 */
static void spin_ms(double ms)
{
	volatile uint64_t sink = 0;
	double end = thread_cpu_ms() + ms;

	while (thread_cpu_ms() < end)
		for (int i = 0; i < 20000; i++)
			sink += (uint64_t)i;
	(void)sink;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The u64 / u32 at byte off of a record. */
static uint64_t rec_u64(const struct pev_ring_record *rec, size_t off)
{
	uint64_t v;

	cr_assert_leq(off + 8, rec->size, "field at %zu of a %zu-byte record", off, rec->size);
	memcpy(&v, (const unsigned char *)rec->header + off, 8);
	return v;
}

static uint32_t rec_u32(const struct pev_ring_record *rec, size_t off)
{
	uint32_t v;

	cr_assert_leq(off + 4, rec->size);
	memcpy(&v, (const unsigned char *)rec->header + off, 4);
	return v;
}

static struct pev_ring_stats stats_of(const struct pev_ring *r)
{
	struct pev_ring_stats st = PEV_RING_STATS_INIT;

	cr_assert_eq(pev_ring_stats(r, &st), 0);
	return st;
}

/* A cpu-clock sampler of the calling thread, user space only, opened disabled. */
static struct pev_counter *clock_sampler(uint64_t period_ns, uint64_t sample_type, bool backward)
{
	struct pev_event ev = pev_event_software(PEV_SW_CPU_CLOCK);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_target self = pev_target_self();
	struct pev_counter *c = NULL;
	struct pev_error err;

	o.disabled = true;
	o.exclude_kernel = true;
	o.exclude_hv = true;
	o.sample_period = period_ns;
	o.sample_type = sample_type;
	o.write_backward = backward;
	int rc = pev_counter_open(&ev, &o, &self, NULL, &c, &err);
	cr_assert_eq(rc, 0, "cpu-clock sampler: %s", err.message);
	return c;
}

static struct pev_ring *ring_of(struct pev_counter *c, size_t pages)
{
	struct pev_ring *r = NULL;
	struct pev_error err;

	cr_assert_eq(pev_ring_open(c, 0, pages, &r, &err), 0, "ring of 1+%zu pages: %s", pages,
		     err.message);
	return r;
}

/* Permissions of the mapping at addr in /proc/self/maps ("rw-s", "r--s"), or "". */
static void mapping_perms(const void *addr, char perms[5])
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];

	perms[0] = '\0';
	cr_assert(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end;
		char p[5];
		if (sscanf(line, "%llx-%llx %4s", &start, &end, p) == 3 && (uintptr_t)addr == start) {
			memcpy(perms, p, 5);
			break;
		}
	}
	fclose(f);
}

/* ---- a forward ring that wraps ----------------------------------------------- */

Test(ring, a_small_ring_wraps_many_times_while_sampling_this_process)
{
	struct pev_counter *c = clock_sampler(20000, PEV_SAMPLE_IP | PEV_SAMPLE_TID, false);
	struct pev_ring *r = ring_of(c, 1);
	struct pev_ring_record rec;
	size_t size = pev_ring_data_size(r);
	uint64_t samples = 0, lost_records = 0, other = 0, bytes = 0;
	pid_t pid = getpid(), tid = gettid();
	char perms[5];

	mapping_perms(pev_ring_page(r), perms);
	cr_expect_str_eq(perms, "rw-s", "a forward ring is mapped writable");
	cr_assert_eq(pev_counter_enable(c), 0);
	double deadline = now_ms() + 10000;
	while (bytes < 12 * size && now_ms() < deadline) {
		spin_ms(1);
		int n = pev_ring_begin(r);
		cr_assert_geq(n, 0, "begin: %s", pev_strerror(n));
		int got;
		while ((got = pev_ring_next(r, &rec)) == 1) {
			bytes += rec.size;
			if (rec.header->type == PEV_RECORD_SAMPLE) {
				samples++;
				cr_assert_eq(rec.size, 24, "IP and TID: 24 bytes");
				cr_assert_neq(rec_u64(&rec, 8), 0, "an IP");
				cr_assert_eq((pid_t)rec_u32(&rec, 16), pid);
				cr_assert_eq((pid_t)rec_u32(&rec, 20), tid);
			} else if (rec.header->type == PEV_RECORD_LOST) {
				lost_records++;
			} else {
				other++;
			}
		}
		cr_assert_eq(got, 0, "the kernel's records are well formed: %s", pev_strerror(got));
		cr_assert_eq(pev_ring_end(r), 0);
	}
	cr_assert_eq(pev_counter_disable(c), 0);
	/* What is left after disabling. */
	pev_ring_begin(r);
	while (pev_ring_next(r, &rec) == 1)
		bytes += rec.size;
	pev_ring_end(r);

	const struct pev_mmap_page *pg = pev_ring_page(r);
	struct pev_ring_stats st = stats_of(r);
	cr_expect_geq(bytes, 12 * size, "the 1-page ring went round 12 times (%llu bytes)",
		      (unsigned long long)bytes);
	cr_expect_eq(pg->data_tail, pg->data_head, "everything read and given back");
	cr_expect_eq(pg->data_tail, bytes, "the tail counts every byte read");
	cr_expect_eq(st.bytes, bytes);
	cr_expect_gt(st.wrapped, 0, "24-byte records do not divide a page: some wrapped");
	cr_expect_gt(samples, 12 * size / 24 / 2);
	cr_expect_eq(pev_ring_pending(r), 0);
	fprintf(stderr, "ring: %llu samples, %llu LOST records, %llu others, %llu wrapped, %llu batches\n",
		(unsigned long long)samples, (unsigned long long)lost_records,
		(unsigned long long)other, (unsigned long long)st.wrapped,
		(unsigned long long)st.batches);
	pev_ring_close(r);
	pev_counter_close(c);
}

/* ---- an overwrite ring -------------------------------------------------------- */

/*
 * Reads an overwrite batch: checks order (newest first) and owner; returns
 * the newest time. *bytes counts every record, *samples the samples; the
 * others can only be a LOST record (of the samples dropped while a batch
 * held output paused) and THROTTLE and UNTHROTTLE records (the kernel's
 * sample-rate limit, 1750 a second in the arm64 lab), their bytes in
 * *other_bytes.
 */
static uint64_t read_overwrite(struct pev_ring *r, uint64_t after, size_t *bytes, size_t *samples,
			       size_t *other_bytes)
{
	struct pev_ring_record rec;
	uint64_t newest = 0, last = UINT64_MAX;
	pid_t tid = gettid();
	int got;

	*bytes = 0;
	*samples = 0;
	*other_bytes = 0;
	while ((got = pev_ring_next(r, &rec)) == 1) {
		*bytes += rec.size;
		if (rec.header->type != PEV_RECORD_SAMPLE) {
			cr_assert(rec.header->type == PEV_RECORD_LOST ||
					  rec.header->type == PEV_RECORD_THROTTLE ||
					  rec.header->type == PEV_RECORD_UNTHROTTLE,
				  "a sample, LOST or throttle record: type %u", rec.header->type);
			*other_bytes += rec.size;
			continue;
		}
		/* IP, PID/TID, TIME, PERIOD. */
		cr_assert_eq(rec.size, 40);
		cr_assert_eq((pid_t)rec_u32(&rec, 20), tid);
		uint64_t t = rec_u64(&rec, 24);
		cr_assert_leq(t, last, "newest first: %llu after %llu", (unsigned long long)t,
			      (unsigned long long)last);
		cr_assert_gt(t, after, "only records written since the previous batch");
		if (!*samples)
			newest = t;
		last = t;
		(*samples)++;
	}
	cr_assert_eq(got, 0, "%s", pev_strerror(got));
	return newest;
}

Test(ring, an_overwrite_ring_is_recovered_after_many_wraps)
{
	/* 40-byte samples: 4096 / 40 leaves a torn oldest record in a wrapped window. */
	struct pev_counter *c = clock_sampler(
		20000, PEV_SAMPLE_IP | PEV_SAMPLE_TID | PEV_SAMPLE_TIME | PEV_SAMPLE_PERIOD, true);
	struct pev_ring *r = ring_of(c, 1);
	const struct pev_mmap_page *pg = pev_ring_page(r);
	size_t size = pev_ring_data_size(r), bytes, samples, other_bytes;
	char perms[5];

	cr_expect(pev_ring_overwrite(r));
	mapping_perms(pg, perms);
	cr_expect_str_eq(perms, "r--s", "an overwrite ring is mapped read-only");
	cr_assert_eq(pev_counter_enable(c), 0);
	double deadline = now_ms() + 10000;
	while (0 - __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE) < 30 * size && now_ms() < deadline)
		spin_ms(2);
	uint64_t written = 0 - __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	cr_assert_geq(written, 30 * size, "the backward head went round 30 times: -%llu",
		      (unsigned long long)written);

	/* The newest complete window: the whole area less a partly overwritten record. */
	int n = pev_ring_begin(r);
	cr_assert_eq(n, (int)size, "a wrapped ring offers its whole area (%d)", n);
	uint64_t head = pg->data_head;
	spin_ms(5);
	cr_expect_eq(pg->data_head, head, "the kernel holds still while the batch is read");
	uint64_t newest = read_overwrite(r, 0, &bytes, &samples, &other_bytes);
	cr_expect_leq(bytes, size);
	cr_expect_gt(bytes, size - 64, "only the torn oldest record is missing (%zu of %zu)", bytes,
		     size);
	cr_expect_gt(samples, (size - other_bytes) / 40 - 4, "%zu samples, %zu bytes of other records",
		     samples, other_bytes);
	cr_assert_eq(pev_ring_end(r), 0);
	struct pev_ring_stats st = stats_of(r);
	cr_expect_geq(st.overwritten, written - size - 64);
	if (bytes == samples * 40)
		cr_expect_eq(st.partial, 1, "102 whole samples, then 16 bytes of a torn one");
	else
		cr_expect_leq(st.partial, 1);
	fprintf(stderr, "overwrite: head -%llu (%llu laps), window %zu bytes, %zu samples, %llu partial\n",
		(unsigned long long)written, (unsigned long long)(written / size), bytes, samples,
		(unsigned long long)st.partial);

	/*
	 * Output resumed: more records, and the next batch holds only those. A
	 * throttled event (the kernel's sample-rate limit, 1750 a second in the
	 * arm64 lab) writes again only at the next tick, and may write its
	 * UNTHROTTLE record alone first: spin until a batch holds a sample.
	 */
	deadline = now_ms() + 5000;
	int batches = 0;
	samples = 0;
	do {
		spin_ms(1);
		if (__atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE) == head)
			continue;
		cr_assert_geq(pev_ring_begin(r), 0);
		head = pg->data_head;
		read_overwrite(r, newest, &bytes, &samples, &other_bytes);
		batches++;
		cr_expect_lt(bytes, size, "1 ms of samples (about 50) does not fill the area");
		cr_assert_eq(pev_ring_end(r), 0);
	} while (!samples && now_ms() < deadline);
	cr_expect_gt(samples, 0, "new samples after the first batch (%d batches since)", batches);
	cr_assert_eq(pev_counter_disable(c), 0);
	pev_ring_close(r);
	pev_counter_close(c);
}

/* ---- SET_OUTPUT -------------------------------------------------------------- */

Test(ring, two_events_share_one_ring)
{
	const uint64_t st = PEV_SAMPLE_IDENTIFIER | PEV_SAMPLE_IP | PEV_SAMPLE_TID;
	struct pev_counter *a = clock_sampler(100000, st, false);
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_target self = pev_target_self();
	struct pev_counter *b = NULL;
	struct pev_ring_record rec;
	struct pev_error err;
	uint64_t id_a, id_b, seen_a = 0, seen_b = 0, others = 0;

	o.disabled = true;
	o.exclude_kernel = true;
	o.sample_period = 100000;
	o.sample_type = st;
	cr_assert_eq(pev_counter_open(&ev, &o, &self, NULL, &b, &err), 0, "%s", err.message);
	cr_assert_eq(pev_counter_id(a, 0, &id_a), 0);
	cr_assert_eq(pev_counter_id(b, 0, &id_b), 0);
	struct pev_ring *r = ring_of(a, 8);
	int maps = th_count_perf_maps();
	cr_assert_eq(pev_ring_redirect(r, b, 0, &err), 0, "%s", err.message);
	cr_expect_eq(th_count_perf_maps(), maps, "sharing maps nothing more");

	cr_assert_eq(pev_counter_enable(a), 0);
	cr_assert_eq(pev_counter_enable(b), 0);
	spin_ms(30);
	cr_assert_eq(pev_counter_disable(a), 0);
	cr_assert_eq(pev_counter_disable(b), 0);
	cr_assert_gt(pev_ring_begin(r), 0);
	while (pev_ring_next(r, &rec) == 1) {
		if (rec.header->type != PEV_RECORD_SAMPLE)
			continue;
		uint64_t id = rec_u64(&rec, 8);
		if (id == id_a)
			seen_a++;
		else if (id == id_b)
			seen_b++;
		else
			others++;
	}
	pev_ring_end(r);
	/*
	 * 300 of each on a quiet machine; the kernel's sample-rate limit (1750
	 * a second in the arm64 lab) can leave about 50.
	 */
	cr_expect_gt(seen_a, 20, "cpu-clock samples in its own ring: %llu", (unsigned long long)seen_a);
	cr_expect_gt(seen_b, 20, "task-clock samples in the shared ring: %llu",
		     (unsigned long long)seen_b);
	cr_expect_eq(others, 0);
	pev_ring_close(r);
	pev_counter_close(a);
	pev_counter_close(b);
}

/* Expects redirecting descriptor 0 of c into r to fail with EINVAL, blaming `field`. */
static void expect_refused_redirect(struct pev_ring *r, struct pev_counter *c, const char *field,
				    const char *needle)
{
	struct pev_error err;

	memset(&err, 0, sizeof(err));
	cr_expect_eq(pev_ring_redirect(r, c, 0, &err), PEV_EINVAL, "redirect (%s)", field);
	cr_expect_eq(err.code, PEV_EINVAL);
	cr_expect_eq(err.sys_errno, EINVAL);
	cr_expect_str_eq(err.syscall, "ioctl(SET_OUTPUT)");
	cr_expect_str_eq(err.field, field, "field '%s' for: %s", err.field, err.message);
	expect_has(err.message, needle);
	cr_expect_not(err.before_syscall);
}

static struct pev_counter *open_on(struct pev_target t, bool clock, bool backward)
{
	struct pev_event ev = pev_event_software(PEV_SW_CPU_CLOCK);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_counter *c = NULL;
	struct pev_error err;

	o.disabled = true;
	o.exclude_kernel = true;
	o.sample_period = 1000000;
	o.sample_type = PEV_SAMPLE_IP;
	o.write_backward = backward;
	if (clock) {
		o.use_clockid = true;
		o.clockid = CLOCK_MONOTONIC;
	}
	cr_assert_eq(pev_counter_open(&ev, &o, &t, NULL, &c, &err), 0, "%s", err.message);
	return c;
}

static void wait_forever(void *ctx)
{
	(void)ctx;
	pause();
}

Test(ring, refused_redirects_name_the_mismatch)
{
	struct pev_counter *a = open_on(pev_target_self(), false, false);
	struct pev_ring *r = ring_of(a, 1);

	/* Its own descriptor. */
	expect_refused_redirect(r, a, "fd_index", "the ring's own");

	/* Another direction. */
	struct pev_counter *bw = open_on(pev_target_self(), false, true);
	expect_refused_redirect(r, bw, "write_backward", "backward");
	pev_counter_close(bw);

	/* Another clock. */
	struct pev_counter *ck = open_on(pev_target_self(), true, false);
	expect_refused_redirect(r, ck, "clockid", "clockid 1");
	pev_counter_close(ck);

	/* A descriptor with a ring of its own. */
	struct pev_counter *own = open_on(pev_target_self(), false, false);
	struct pev_ring *own_ring = ring_of(own, 1);
	expect_refused_redirect(r, own, "", "a ring of its own mapped");
	pev_ring_close(own_ring);
	struct pev_error err;
	cr_expect_eq(pev_ring_redirect(r, own, 0, &err), 0, "once unmapped it may share: %s",
		     err.message);
	pev_counter_close(own);

	/* Another task. */
	pid_t child = fork();
	cr_assert_geq(child, 0);
	if (child == 0) {
		wait_forever(NULL);
		_exit(0);
	}
	struct pev_counter *other = open_on(pev_target_thread(child), false, false);
	expect_refused_redirect(r, other, "pid", "the same task");
	pev_counter_close(other);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);

	/* A CPU-wide event into a per-task ring. */
	th_require_root();
	struct pev_counter *cpu0 = open_on(pev_target_cpu(0), false, false);
	expect_refused_redirect(r, cpu0, "cpu", "one CPU");

	/* Per-CPU rings: CPU 1's descriptor into CPU 0's ring. */
	if (sysconf(_SC_NPROCESSORS_ONLN) >= 2) {
		struct pev_ring *r0 = ring_of(cpu0, 1);
		struct pev_counter *cpu1 = open_on(pev_target_cpu(1), false, false);
		expect_refused_redirect(r0, cpu1, "cpu", "counts on CPU 1 and the ring's event on CPU 0");
		expect_has(err.hint, "");
		struct pev_counter *cpu0b = open_on(pev_target_cpu(0), false, false);
		cr_expect_eq(pev_ring_redirect(r0, cpu0b, 0, &err), 0, "same CPU: %s", err.message);
		pev_counter_close(cpu0b);
		pev_counter_close(cpu1);
		pev_ring_close(r0);
	} else {
		fprintf(stderr, "refused_redirects: one online CPU, the cross-CPU case is not run\n");
	}
	pev_counter_close(cpu0);

	/* Argument checks. */
	cr_expect_eq(pev_ring_redirect(r, NULL, 0, &err), PEV_EBADARG);
	cr_expect_str_eq(err.field, "c");
	cr_expect_eq(pev_ring_redirect(r, a, 3, &err), PEV_EBADARG);
	cr_expect_str_eq(err.field, "fd_index");
	pev_ring_close(r);
	pev_counter_close(a);
}

/* ---- poll: wake-ups by events and by bytes ----------------------------------------- */

/* Touches one byte per page; not instrumented, so ASan's shadow adds no faults of its own. */
__attribute__((no_sanitize("address"))) static void touch_page(volatile char *p)
{
	*p = 1;
}

/* Counts the SAMPLE records of a ring and consumes them. */
static size_t drain_samples(struct pev_ring *r)
{
	struct pev_ring_record rec;
	size_t n = 0;

	cr_assert_geq(pev_ring_begin(r), 0);
	while (pev_ring_next(r, &rec) == 1)
		n += rec.header->type == PEV_RECORD_SAMPLE;
	cr_assert_eq(pev_ring_end(r), 0);
	return n;
}

/*
 * Samples this thread's page faults one by one (touching fresh pages) into a
 * ring of 16 data pages and returns, in seen[], how many samples (bytes, when
 * wakeup_events is 0) the ring held at each of the first `wakeups` READABLE
 * reports.
 */
static void faults_until_readable(uint32_t wakeup_events, uint32_t wakeup_bytes, size_t *seen,
				  int wakeups)
{
	struct pev_event ev = pev_event_software(PEV_SW_PAGE_FAULTS);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_target self = pev_target_self();
	struct pev_counter *c = NULL;
	struct pev_error err;
	size_t page = page_size(), pages = 4096;
	int found = 0;
	bool by_bytes = wakeup_events == 0;

	o.disabled = true;
	o.exclude_kernel = true;
	o.sample_period = 1;
	o.sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_TID;
	o.wakeup_events = wakeup_events;
	o.wakeup_bytes = wakeup_bytes;
	cr_assert_eq(pev_counter_open(&ev, &o, &self, NULL, &c, &err), 0, "%s", err.message);
	struct pev_ring *r = ring_of(c, 16);
	char *mem = mmap(NULL, pages * page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	cr_assert_neq(mem, MAP_FAILED);
	madvise(mem, pages * page, MADV_NOHUGEPAGE);
	/* Touch the ring once so that reading it later faults no more. */
	cr_assert_geq(pev_ring_pending(r), 0);
	cr_assert_eq(pev_counter_enable(c), 0);
	for (size_t i = 0; i < pages && found < wakeups; i++) {
		unsigned ready = 0;
		touch_page(mem + i * page);
		int n = pev_ring_poll(&r, 1, 0, &ready);
		cr_assert_geq(n, 0, "%s", pev_strerror(n));
		cr_assert_eq(ready & ~PEV_RING_READABLE, 0);
		if (ready & PEV_RING_READABLE)
			seen[found++] = by_bytes ? (size_t)pev_ring_pending(r) : drain_samples(r);
		if ((ready & PEV_RING_READABLE) && by_bytes)
			drain_samples(r);
	}
	cr_assert_eq(found, wakeups, "%d READABLE reports in %zu page faults", found, pages);
	pev_counter_disable(c);
	munmap(mem, pages * page);
	pev_ring_close(r);
	pev_counter_close(c);
}

Test(ring, poll_wakes_after_wakeup_events_samples)
{
	size_t seen[3];

	faults_until_readable(1, 0, seen, 3);
	fprintf(stderr, "wakeup_events 1: %zu %zu %zu samples\n", seen[0], seen[1], seen[2]);
	for (int i = 0; i < 3; i++)
		cr_expect(seen[i] >= 1 && seen[i] <= 4, "wakeup_events 1: woke with %zu samples",
			  seen[i]);
	faults_until_readable(32, 0, seen, 3);
	fprintf(stderr, "wakeup_events 32: %zu %zu %zu samples\n", seen[0], seen[1], seen[2]);
	for (int i = 0; i < 3; i++) {
		/* The kernel counts from the previous wake-up, not from the drain. */
		cr_expect(seen[i] >= (i ? 28 : 32) && seen[i] <= 36,
			  "wakeup_events 32: wake-up %d with %zu samples", i, seen[i]);
	}
}

Test(ring, poll_wakes_after_wakeup_bytes)
{
	size_t seen[3];

	faults_until_readable(0, 1024, seen, 3);
	fprintf(stderr, "wakeup_bytes 1024: %zu %zu %zu bytes\n", seen[0], seen[1], seen[2]);
	for (int i = 0; i < 3; i++)
		cr_expect(seen[i] > 1024 - (i ? 96 : 0) && seen[i] <= 1024 + 4 * 24,
			  "wakeup_bytes 1024: wake-up %d with %zu bytes", i, seen[i]);
}

/*
 * wakeup_events 0 does not mean "every record": without a watermark the
 * kernel wakes readers when the unread part passes half the data area (its
 * default watermark, ring_buffer_init), while wakeup_events 1 wakes them
 * after each sample. Each sample here is 24 bytes (header, IP, pid/tid).
 */
Test(ring, poll_wakes_at_half_the_ring_with_wakeup_events_0)
{
	size_t seen[2], half = 16 * page_size() / 2;

	faults_until_readable(0, 0, seen, 2);
	fprintf(stderr, "wakeup_events 0, ring of %zu bytes: woke at %zu, then %zu bytes\n",
		2 * half, seen[0], seen[1]);
	for (int i = 0; i < 2; i++)
		cr_expect(seen[i] > half - (i ? 4 * 24 : 0) && seen[i] <= half + 4 * 24,
			  "wakeup_events 0: wake-up %d with %zu bytes, half the ring is %zu", i,
			  seen[i], half);
	faults_until_readable(1, 0, seen, 1);
	cr_expect(seen[0] >= 1 && seen[0] <= 4, "wakeup_events 1: woke with %zu samples",
		  seen[0]);
}

/* ---- POLLHUP: the target exits, the rest is drained ---------------------------------- */

Test(ring, hup_after_the_target_exits_and_the_rest_drains)
{
	int go[2];
	struct pev_event ev = pev_event_software(PEV_SW_CPU_CLOCK);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_counter *c = NULL;
	struct pev_ring_record rec;
	struct pev_error err;
	size_t samples = 0, exits = 0, others = 0;
	unsigned ready = 0;

	cr_assert_eq(pipe(go), 0);
	pid_t child = fork();
	cr_assert_geq(child, 0);
	if (child == 0) {
		char b;
		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(2);
		spin_ms(30);
		_exit(0);
	}
	close(go[0]);
	struct pev_target t = pev_target_thread(child);
	o.exclude_kernel = true;
	o.sample_period = 100000;
	o.sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_TID;
	o.task = true;
	o.wakeup_events = 1000000; /* no READABLE: only the exit wakes */
	cr_assert_eq(pev_counter_open(&ev, &o, &t, NULL, &c, &err), 0, "%s", err.message);
	struct pev_ring *r = ring_of(c, 16);
	cr_assert_eq(pev_ring_poll(&r, 1, 0, &ready), 0, "nothing before the child runs");
	cr_assert_eq(write(go[1], "x", 1), 1);
	close(go[1]);

	double start = now_ms(), hup_ms = -1;
	while (now_ms() - start < 10000) {
		int n = pev_ring_poll(&r, 1, 1000, &ready);
		cr_assert_geq(n, 0, "%s", pev_strerror(n));
		if (ready & PEV_RING_HUP) {
			hup_ms = now_ms() - start;
			break;
		}
	}
	cr_assert_geq(hup_ms, 0, "POLLHUP within 10 s of the child's exit");
	/*
	 * HUP comes from the exit itself: the kernel raises it while tearing the task's
	 * events down, a moment before the child becomes a zombie, so wait (without
	 * reaping) rather than look.
	 */
	siginfo_t info;
	memset(&info, 0, sizeof(info));
	cr_assert_eq(waitid(P_PID, (id_t)child, &info, WEXITED | WNOWAIT), 0);
	cr_expect_eq(info.si_pid, child, "the child has exited when HUP arrives");

	/* Drain: every record the child left, its EXIT record among them. */
	int n = pev_ring_begin(r);
	cr_assert_gt(n, 0);
	while (pev_ring_next(r, &rec) == 1) {
		if (rec.header->type == PEV_RECORD_SAMPLE) {
			samples++;
			cr_expect_eq((pid_t)rec_u32(&rec, 16), child);
		} else if (rec.header->type == PEV_RECORD_EXIT) {
			exits++;
			cr_expect_eq((pid_t)rec_u32(&rec, 8), child, "EXIT of the child");
		} else {
			others++;
		}
	}
	cr_assert_eq(pev_ring_end(r), 0);
	/*
	 * 300 on a quiet machine; an emulated one (the arm64 lab without
	 * -icount) fires the 0.1 ms timer late: 46 seen.
	 */
	cr_expect_gt(samples, 20, "30 ms at 0.1 ms: %zu samples", samples);
	cr_expect_eq(exits, 1);
	cr_expect_eq(pev_ring_pending(r), 0);
	/* HUP stays. */
	cr_expect_eq(pev_ring_poll(&r, 1, 0, &ready), 1);
	cr_expect(ready & PEV_RING_HUP);
	fprintf(stderr, "hup: after %.1f ms, %zu samples, %zu exit, %zu other records\n", hup_ms,
		samples, exits, others);
	waitpid(child, NULL, 0);
	pev_ring_close(r);
	pev_counter_close(c);
}

Test(ring, poll_checks_its_arguments)
{
	struct pev_counter *c = sampler();
	struct pev_ring *r = ring_of(c, 1);
	unsigned ready[40];
	struct pev_ring *many[40];

	cr_expect_eq(pev_ring_poll(&r, 1, 0, NULL), PEV_EBADARG);
	cr_expect_eq(pev_ring_poll(NULL, 1, 0, ready), PEV_EBADARG);
	/* More rings than the stack buffer holds. */
	for (int i = 0; i < 40; i++)
		many[i] = r;
	cr_expect_eq(pev_ring_poll(many, 40, 0, ready), 0, "nothing written: a timeout");
	many[39] = NULL;
	cr_expect_eq(pev_ring_poll(many, 40, 0, ready), PEV_EBADARG);
	pev_ring_close(r);
	pev_counter_close(c);
}

/* ---- the AUX area ------------------------------------------------------------ */

Test(ring, a_software_event_refuses_an_aux_area_and_says_why)
{
	struct pev_counter *c = sampler();
	struct pev_ring *r = (struct pev_ring *)&r;
	struct pev_ring_opts o = PEV_RING_OPTS_INIT;
	struct pev_error err;
	int maps = th_count_perf_maps();

	for (int snapshot = 0; snapshot < 2; snapshot++) {
		o.data_pages = 2;
		o.aux_pages = 4;
		o.aux_snapshot = snapshot;
		memset(&err, 0, sizeof(err));
		cr_expect_eq(pev_ring_open_opts(c, 0, &o, &r, &err), PEV_EOPNOTSUPP, "%s",
			     err.message);
		cr_expect_null(r);
		cr_expect_eq(err.sys_errno, EOPNOTSUPP);
		cr_expect_str_eq(err.syscall, "mmap");
		cr_expect_str_eq(err.field, "aux_pages");
		cr_expect_not(err.before_syscall);
		expect_has(err.message, "AUX area of 'cpu-clock' (4 pages");
		expect_has(err.message, "is a software event");
		expect_has(err.message, "intel_pt");
		expect_has(err.hint, "without aux_pages");
		cr_expect_eq(th_count_perf_maps(), maps, "the data area is unmapped again");
	}
	/* The data ring alone maps. */
	o.aux_pages = 0;
	o.aux_snapshot = false;
	cr_assert_eq(pev_ring_open_opts(c, 0, &o, &r, &err), 0, "%s", err.message);
	cr_expect_eq(pev_ring_page(r)->aux_size, 0, "no AUX area left in the control page");
	pev_ring_close(r);
	pev_counter_close(c);
}

Test(ring, an_overwrite_ring_cannot_have_an_aux_area)
{
	struct pev_counter *c = clock_sampler(1000000, PEV_SAMPLE_IP, true);
	struct pev_ring *r = NULL;
	struct pev_ring_opts o = PEV_RING_OPTS_INIT;
	struct pev_error err;

	o.data_pages = 1;
	o.aux_pages = 1;
	cr_expect_eq(pev_ring_open_opts(c, 0, &o, &r, &err), PEV_EBADARG);
	cr_expect_str_eq(err.field, "aux_pages");
	expect_has(err.message, "read-only");
	pev_counter_close(c);
}

Test(ring, a_per_task_inherited_event_has_no_ring_and_the_message_says_so)
{
	struct pev_event ev = pev_event_software(PEV_SW_CPU_CLOCK);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_target self = pev_target_self();
	struct pev_counter *c = NULL;
	struct pev_ring *r = NULL;
	struct pev_error err;

	o.disabled = true;
	o.exclude_kernel = true;
	o.sample_period = 1000000;
	o.inherit = PEV_INHERIT_ALL;
	cr_assert_eq(pev_counter_open(&ev, &o, &self, NULL, &c, &err), 0, "%s", err.message);
	cr_expect_eq(pev_ring_open(c, 0, 1, &r, &err), PEV_EINVAL);
	cr_expect_null(r);
	cr_expect_str_eq(err.field, "inherit");
	cr_expect_str_eq(err.syscall, "mmap");
	expect_has(err.message, "inherit");
	expect_has(err.hint, "per CPU");
	pev_counter_close(c);
}

/* ---- the locked-memory budget, as nobody --------------------------------------- */

struct eperm_ctx {
	size_t pages;     /* data pages to ask for */
	unsigned flags;   /* PEV_RING_* */
	int setrlimit_rc; /* setrlimit(RLIMIT_MEMLOCK, 0) */
	int open_rc;      /* opening the sampler */
	int ring_rc;      /* pev_ring_open */
	bool out_null;    /* *out stayed NULL */
	int maps_after;   /* perf mappings in the child after the failure */
	struct pev_error err;
};

static void map_too_much(void *p)
{
	struct eperm_ctx *ctx = p;
	struct rlimit zero = {0, 0};
	struct pev_counter *c = NULL;
	struct pev_ring *r = NULL;
	struct pev_ring_opts o = PEV_RING_OPTS_INIT;

	ctx->setrlimit_rc = setrlimit(RLIMIT_MEMLOCK, &zero);
	ctx->open_rc = open_sampler(&c, &ctx->err);
	if (ctx->open_rc < 0)
		return;
	o.data_pages = ctx->pages;
	o.flags = ctx->flags;
	ctx->ring_rc = pev_ring_open_opts(c, 0, &o, &r, &ctx->err);
	ctx->out_null = r == NULL;
	pev_ring_close(r);
	ctx->maps_after = th_count_perf_maps();
	pev_counter_close(c);
}

static long read_long(const char *path)
{
	FILE *f = fopen(path, "re");
	long v = -1;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/*
 * As nobody with RLIMIT_MEMLOCK 0, a ring larger than the whole budget:
 * refused with the numbers, by perfev before the syscall (flags 0) or by
 * the kernel (PEV_RING_NO_BUDGET_CHECK).
 */
static void check_beyond_budget(unsigned flags)
{
	struct eperm_ctx ctx;
	long mlock_kb = read_long("/proc/sys/kernel/perf_event_mlock_kb");
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t page_kb = page_size() / 1024;
	char text[64];

	th_require_root();
	cr_assert_gt(mlock_kb, 0, "cannot read /proc/sys/kernel/perf_event_mlock_kb");
	cr_assert_gt(cpus, 0);
	size_t budget_pages = (size_t)mlock_kb * (size_t)cpus / page_kb;

	memset(&ctx, 0, sizeof(ctx));
	ctx.flags = flags;
	/* The smallest valid ring (1 + 2^n pages) that exceeds the whole budget. */
	ctx.pages = 1;
	while (ctx.pages + 1 <= budget_pages)
		ctx.pages *= 2;
	cr_assert(th_as_nobody(map_too_much, &ctx, sizeof(ctx)), "the child did not finish");
	cr_assert_eq(ctx.setrlimit_rc, 0, "setrlimit(RLIMIT_MEMLOCK, 0) as nobody");
	cr_assert_eq(ctx.open_rc, 0, "opening a user-space sampler as nobody: %s", ctx.err.message);

	cr_expect_eq(ctx.ring_rc, PEV_EPERM, "mapping 1+%zu pages (budget %zu pages): %d %s",
		     ctx.pages, budget_pages, ctx.ring_rc, ctx.err.message);
	cr_expect(ctx.out_null);
	cr_expect_eq(ctx.maps_after, 0, "nothing stays mapped");
	cr_expect_eq(ctx.err.code, PEV_EPERM);
	cr_expect_eq(ctx.err.sys_errno, EPERM);
	cr_expect_str_eq(ctx.err.syscall, "mmap");
	if (flags & PEV_RING_NO_BUDGET_CHECK) {
		cr_expect_not(ctx.err.before_syscall, "the kernel refused");
		expect_lacks(ctx.err.message, "perfev refused");
	} else {
		cr_expect(ctx.err.before_syscall, "perfev refused before mmap");
		expect_has(ctx.err.message, "perfev refused before calling mmap");
		expect_has(ctx.err.message, "PEV_RING_NO_BUDGET_CHECK");
	}

	const char *msg = ctx.err.message;
	cr_expect(strstr(msg, "perf_event_mlock_kb"), "message names the sysctl: %s", msg);
	snprintf(text, sizeof(text), "%ld KiB per CPU", mlock_kb);
	cr_expect(strstr(msg, text), "message has '%s': %s", text, msg);
	snprintf(text, sizeof(text), "%ld KiB", mlock_kb * cpus);
	cr_expect(strstr(msg, text), "message has the whole budget '%s': %s", text, msg);
	snprintf(text, sizeof(text), "%ld online CPUs", cpus);
	cr_expect(strstr(msg, text), "message has '%s': %s", text, msg);
	snprintf(text, sizeof(text), "1 + %zu pages", ctx.pages);
	cr_expect(strstr(msg, text), "message has the size asked '%s': %s", text, msg);
	cr_expect(strstr(msg, "RLIMIT_MEMLOCK adds 0 KiB"), "message has the rlimit: %s", msg);

	/* The hint: the largest ring that fits the budget. */
	size_t fit = 1;
	while (fit * 2 + 1 <= budget_pages)
		fit *= 2;
	cr_expect(strstr(ctx.err.hint, "fewer pages"), "hint suggests fewer pages: %s",
		  ctx.err.hint);
	snprintf(text, sizeof(text), "%zu data pages fit", fit);
	cr_expect(strstr(ctx.err.hint, text), "hint has '%s': %s", text, ctx.err.hint);
}

Test(ring, mapping_beyond_the_mlock_budget_as_nobody_is_eperm_with_the_numbers)
{
	check_beyond_budget(0);
}

Test(ring, the_kernel_refuses_beyond_the_mlock_budget_too)
{
	check_beyond_budget(PEV_RING_NO_BUDGET_CHECK);
}

/*
 * As nobody: rings are held one after the other, and before each new one
 * perfev's verdict (flags 0) is compared with the kernel's
 * (PEV_RING_NO_BUDGET_CHECK), which must agree.
 */
#define BUDGET_STEPS 24
struct budget_ctx {
	long rlimit_kb;
	size_t hold[4];  /* data pages of the rings held, in order */
	int nhold;
	int hold_rc[4];
	size_t probe[BUDGET_STEPS];
	int nprobe;
	int pre_rc[BUDGET_STEPS];    /* perfev's verdict */
	bool pre_before[BUDGET_STEPS];
	int kernel_rc[BUDGET_STEPS]; /* the kernel's */
	bool kernel_before[BUDGET_STEPS];
	int open_rc;
	struct pev_error err;
};

static void probe_budget(void *p)
{
	struct budget_ctx *ctx = p;
	struct rlimit rl = {(rlim_t)ctx->rlimit_kb * 1024, (rlim_t)ctx->rlimit_kb * 1024};
	struct pev_counter *c[4 + 1] = {NULL};
	struct pev_ring *held[4] = {NULL};
	struct pev_error err;

	if (setrlimit(RLIMIT_MEMLOCK, &rl) < 0)
		return;
	for (int i = 0; i <= ctx->nhold; i++)
		if ((ctx->open_rc = open_sampler(&c[i], &ctx->err)) < 0)
			return;
	for (int i = 0; i < ctx->nhold; i++)
		ctx->hold_rc[i] = pev_ring_open(c[i], 0, ctx->hold[i], &held[i], &err);
	for (int i = 0; i < ctx->nprobe; i++) {
		struct pev_ring_opts o = PEV_RING_OPTS_INIT;
		struct pev_ring *r = NULL;
		o.data_pages = ctx->probe[i];
		memset(&err, 0, sizeof(err));
		ctx->pre_rc[i] = pev_ring_open_opts(c[ctx->nhold], 0, &o, &r, &err);
		ctx->pre_before[i] = err.before_syscall;
		pev_ring_close(r);
		r = NULL;
		o.flags = PEV_RING_NO_BUDGET_CHECK;
		memset(&err, 0, sizeof(err));
		ctx->kernel_rc[i] = pev_ring_open_opts(c[ctx->nhold], 0, &o, &r, &err);
		ctx->kernel_before[i] = err.before_syscall;
		pev_ring_close(r);
	}
	for (int i = 0; i < ctx->nhold; i++)
		pev_ring_close(held[i]);
	for (int i = 0; i <= ctx->nhold; i++)
		pev_counter_close(c[i]);
}

static void check_agreement(long rlimit_kb, int nhold)
{
	struct budget_ctx ctx;
	long mlock_kb = read_long("/proc/sys/kernel/perf_event_mlock_kb");
	size_t limit = (size_t)mlock_kb / (page_size() / 1024) * (size_t)sysconf(_SC_NPROCESSORS_ONLN);
	int refused = 0, accepted = 0;

	th_require_root();
	memset(&ctx, 0, sizeof(ctx));
	ctx.rlimit_kb = rlimit_kb;
	/* Hold rings of about a third of the budget each. */
	for (int i = 0; i < nhold; i++) {
		size_t n = 1;
		while ((n * 2 + 1) * 3 <= limit)
			n *= 2;
		ctx.hold[ctx.nhold++] = n;
	}
	for (size_t n = 1; n <= 2048 && ctx.nprobe < BUDGET_STEPS; n *= 2)
		ctx.probe[ctx.nprobe++] = n;
	/*
	 * A uid of its own: the kernel's mmap budget is per user, and other
	 * tests map rings as nobody at the same time.
	 */
	cr_assert(th_as_uid(65533, probe_budget, &ctx, sizeof(ctx)), "the child did not finish");
	cr_assert_eq(ctx.open_rc, 0, "%s", ctx.err.message);
	for (int i = 0; i < ctx.nhold; i++)
		cr_assert_eq(ctx.hold_rc[i], 0, "holding 1+%zu pages", ctx.hold[i]);
	for (int i = 0; i < ctx.nprobe; i++) {
		cr_expect_eq(ctx.pre_rc[i], ctx.kernel_rc[i],
			     "rlimit %ld KiB, %d held: 1+%zu pages: perfev says %s, the kernel %s",
			     rlimit_kb, nhold, ctx.probe[i], pev_error_name(ctx.pre_rc[i]),
			     pev_error_name(ctx.kernel_rc[i]));
		cr_expect_eq(ctx.pre_before[i], ctx.pre_rc[i] < 0, "perfev refuses before mmap");
		cr_expect_not(ctx.kernel_before[i]);
		refused += ctx.kernel_rc[i] == PEV_EPERM;
		accepted += ctx.kernel_rc[i] == 0;
	}
	cr_expect_gt(refused, 0, "some sizes were refused");
	cr_expect_gt(accepted, 0, "some sizes were accepted");
}

Test(ring, the_budget_check_agrees_with_the_kernel)
{
	check_agreement(0, 0);
	check_agreement(0, 2);
	check_agreement(8, 2);
	check_agreement(64, 1);
}

/* ---- MMAP2 records from the mmap2 option alone ------------------------------------- */

/*
 * The kernel reports mappings only while some event has attr.mmap or
 * attr.mmap_data set; attr.mmap2 alone only selects the MMAP2 format. The
 * mmap2 option therefore sets attr.mmap as well, and mapping a file
 * executable then gives one MMAP2 record for it (and no MMAP record).
 */
Test(ring, the_mmap2_option_alone_gives_mmap2_records)
{
	struct pev_event ev = pev_event_software(PEV_SW_DUMMY);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_target self = pev_target_self();
	struct pev_counter *c = NULL;
	struct pev_ring_record rec;
	struct pev_error err;
	size_t page = page_size();
	int mmap2 = 0, mmap1 = 0;

	o.mmap2 = true;
	cr_assert_eq(pev_counter_open(&ev, &o, &self, NULL, &c, &err), 0, "%s", err.message);
	struct pev_ring *r = ring_of(c, 4);
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0, "/proc/self/exe: %s", strerror(errno));
	char *p = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	cr_assert_neq(p, MAP_FAILED, "%s", strerror(errno));
	close(fd);
	cr_assert_geq(pev_ring_begin(r), 0);
	while (pev_ring_next(r, &rec) == 1) {
		uint64_t addr;
		/* MMAP and MMAP2 bodies start with pid, tid, then addr. */
		memcpy(&addr, (const char *)rec.header + 16, sizeof(addr));
		if (addr != (uintptr_t)p)
			continue;
		mmap2 += rec.header->type == PEV_RECORD_MMAP2;
		mmap1 += rec.header->type == PEV_RECORD_MMAP;
	}
	cr_assert_eq(pev_ring_end(r), 0);
	munmap(p, page);
	pev_ring_close(r);
	pev_counter_close(c);
	cr_expect_eq(mmap2, 1, "MMAP2 records of the new mapping: %d", mmap2);
	cr_expect_eq(mmap1, 0, "MMAP records of the new mapping: %d", mmap1);
}
