/* SPDX-License-Identifier: MIT */
/*
 * test_ring.c - mapping and unmapping a sampling event's ring buffer:
 * sizes, the control page, argument checks, and the locked-memory EPERM
 * as an unprivileged user.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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

/* ---- the real locked-memory EPERM, as nobody --------------------------- */

struct eperm_ctx {
	size_t pages;      /* data pages to ask for */
	int setrlimit_rc;  /* setrlimit(RLIMIT_MEMLOCK, 0) */
	int open_rc;       /* opening the sampler */
	int ring_rc;       /* pev_ring_open */
	bool out_null;     /* *out stayed NULL */
	int maps_after;    /* perf mappings in the child after the failure */
	struct pev_error err;
};

static void map_too_much(void *p)
{
	struct eperm_ctx *ctx = p;
	struct rlimit zero = {0, 0};
	struct pev_counter *c = NULL;
	struct pev_ring *r = NULL;

	ctx->setrlimit_rc = setrlimit(RLIMIT_MEMLOCK, &zero);
	ctx->open_rc = open_sampler(&c, &ctx->err);
	if (ctx->open_rc < 0)
		return;
	ctx->ring_rc = pev_ring_open(c, 0, ctx->pages, &r, &ctx->err);
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

Test(ring, mapping_beyond_the_mlock_budget_as_nobody_is_eperm_with_the_numbers)
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
	cr_expect_not(ctx.err.before_syscall);

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
