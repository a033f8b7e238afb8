/* SPDX-License-Identifier: MIT */
/*
 * test_read.c - the read layer: pev_read_decode on hand-built bytes for all
 * 32 read_format combinations (single events and a group of 3), length and
 * nr checks, pev_count_scale (never ran, half ran, fully ran, no times,
 * 128-bit exactness and saturation), scaling and group matching through an
 * injected read(2), and live reads: a group matched to its counters by id
 * and by position, per-CPU and per-thread descriptors summed, LOST.
 *
 * Layouts (include/uapi/linux/perf_event.h):
 *   single: value, [time_enabled], [time_running], [id], [lost]
 *   group:  nr, [time_enabled], [time_running], nr x { value, [id], [lost] }
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "workloads.h"
#include "core/sys.h"

#define TE PEV_FORMAT_TOTAL_TIME_ENABLED
#define TR PEV_FORMAT_TOTAL_TIME_RUNNING
#define ID PEV_FORMAT_ID
#define GR PEV_FORMAT_GROUP
#define LO PEV_FORMAT_LOST

/* ---- golden bytes ------------------------------------------------------------ */

/* Recognisable words: a word in the wrong place shows up as the wrong value. */
#define G_TIME_ENABLED UINT64_C(0x00000000E0E0E0E0)
#define G_TIME_RUNNING UINT64_C(0x0000000072727272)
static const uint64_t g_value[3] = {UINT64_C(0x1111111111111101), UINT64_C(0x2222222222222202),
				    UINT64_C(0x3333333333333303)};
static const uint64_t g_id[3] = {UINT64_C(0xD1), UINT64_C(0xD2), UINT64_C(0xD3)};
static const uint64_t g_lost[3] = {UINT64_C(0x10571), UINT64_C(0x10572), UINT64_C(0x10573)};

/* The words the kernel writes for rf, built from the uapi comment: n values (1 or 3). */
static size_t golden_words(uint64_t rf, uint64_t *w)
{
	size_t at = 0;
	int nr = rf & GR ? 3 : 1;

	if (rf & GR) {
		w[at++] = (uint64_t)nr;
		if (rf & TE)
			w[at++] = G_TIME_ENABLED;
		if (rf & TR)
			w[at++] = G_TIME_RUNNING;
		for (int k = 0; k < nr; k++) {
			w[at++] = g_value[k];
			if (rf & ID)
				w[at++] = g_id[k];
			if (rf & LO)
				w[at++] = g_lost[k];
		}
		return at;
	}
	w[at++] = g_value[0];
	if (rf & TE)
		w[at++] = G_TIME_ENABLED;
	if (rf & TR)
		w[at++] = G_TIME_RUNNING;
	if (rf & ID)
		w[at++] = g_id[0];
	if (rf & LO)
		w[at++] = g_lost[0];
	return at;
}

/* Expects the decode of (buf, len) to give every golden value of rf. */
static void expect_decoded(uint64_t rf, const void *buf, size_t len, const char *how)
{
	int nr = rf & GR ? 3 : 1;
	struct pev_read_value v[4];
	uint64_t te = 0xBAD, tr = 0xBAD;

	memset(v, 0xAA, sizeof(v));
	int r = pev_read_decode(buf, len, rf, &te, &tr, v, 4);
	cr_assert_eq(r, nr, "rf 0x%02" PRIx64 " (%s): returned %d, want %d", rf, how, r, nr);
	cr_expect_eq(te, rf & TE ? G_TIME_ENABLED : 0, "rf 0x%02" PRIx64 " (%s): time_enabled %#" PRIx64,
		     rf, how, te);
	cr_expect_eq(tr, rf & TR ? G_TIME_RUNNING : 0, "rf 0x%02" PRIx64 " (%s): time_running %#" PRIx64,
		     rf, how, tr);
	for (int k = 0; k < nr; k++) {
		cr_expect_eq(v[k].value, g_value[k], "rf 0x%02" PRIx64 " (%s): value[%d] %#" PRIx64, rf,
			     how, k, v[k].value);
		cr_expect_eq(v[k].id, rf & ID ? g_id[k] : 0, "rf 0x%02" PRIx64 " (%s): id[%d] %#" PRIx64,
			     rf, how, k, v[k].id);
		cr_expect_eq(v[k].lost, rf & LO ? g_lost[k] : 0,
			     "rf 0x%02" PRIx64 " (%s): lost[%d] %#" PRIx64, rf, how, k, v[k].lost);
	}
	/* Entries beyond nr are not written. */
	for (int k = nr; k < 4; k++)
		cr_expect_eq(v[k].value, UINT64_C(0xAAAAAAAAAAAAAAAA), "rf 0x%02" PRIx64 ": entry %d written",
			     rf, k);
}

static void check_format(uint64_t rf)
{
	uint64_t w[40];
	size_t n = golden_words(rf, w), len = n * 8;
	int nr = rf & GR ? 3 : 1;
	struct pev_read_value v[4];

	/* The word count follows from the layout. */
	size_t want = (rf & GR ? 1 + 3 * (1 + !!(rf & ID) + !!(rf & LO))
			       : 1 + !!(rf & ID) + !!(rf & LO)) +
		      !!(rf & TE) + !!(rf & TR);
	cr_assert_eq(n, want);

	expect_decoded(rf, w, len, "aligned");

	/* An odd address: the decoder must not load 8-byte words from it directly. */
	unsigned char *raw = malloc(len + 16);
	cr_assert_not_null(raw);
	for (size_t off = 1; off < 8; off += 3) {
		memcpy(raw + off, w, len);
		expect_decoded(rf, raw + off, len, "unaligned");
	}
	free(raw);

	/* Either time pointer may be NULL. */
	cr_expect_eq(pev_read_decode(w, len, rf, NULL, NULL, v, 4), nr);
	/* No room for values: the count alone. */
	cr_expect_eq(pev_read_decode(w, len, rf, NULL, NULL, NULL, 0), nr);
	/* Room for one: the first only, and still the full count. */
	memset(v, 0xAA, sizeof(v));
	cr_expect_eq(pev_read_decode(w, len, rf, NULL, NULL, v, 1), nr);
	cr_expect_eq(v[0].value, g_value[0]);
	cr_expect_eq(v[1].value, UINT64_C(0xAAAAAAAAAAAAAAAA), "max 1 wrote a second entry");

	/* Lengths that do not match the layout. */
	uint64_t longer[41];
	memcpy(longer, w, len);
	longer[n] = 0;
	cr_expect_eq(pev_read_decode(w, len - 8, rf, NULL, NULL, v, 4), PEV_EFORMAT,
		     "rf 0x%02" PRIx64 ": one word short", rf);
	cr_expect_eq(pev_read_decode(longer, len + 8, rf, NULL, NULL, v, 4), PEV_EFORMAT,
		     "rf 0x%02" PRIx64 ": one word long", rf);
	cr_expect_eq(pev_read_decode(longer, len + 4, rf, NULL, NULL, v, 4), PEV_EFORMAT,
		     "rf 0x%02" PRIx64 ": misaligned length", rf);
	cr_expect_eq(pev_read_decode(w, len - 1, rf, NULL, NULL, v, 4), PEV_EFORMAT,
		     "rf 0x%02" PRIx64 ": misaligned length", rf);
	cr_expect_eq(pev_read_decode(w, 0, rf, NULL, NULL, v, 4), PEV_EFORMAT);
	/* An unknown read_format bit. */
	cr_expect_eq(pev_read_decode(w, len, rf | (UINT64_C(1) << 5), NULL, NULL, v, 4),
		     PEV_EFORMAT);
	cr_expect_eq(pev_read_decode(w, len, rf | (UINT64_C(1) << 63), NULL, NULL, v, 4),
		     PEV_EFORMAT);
	/* Values wanted but nowhere to put them, and no buffer at all. */
	cr_expect_eq(pev_read_decode(w, len, rf, NULL, NULL, NULL, 4), PEV_EFORMAT);
	cr_expect_eq(pev_read_decode(NULL, len, rf, NULL, NULL, v, 4), PEV_EBADARG);

	if (!(rf & GR))
		return;
	/* nr that does not fit the bytes: 0, one less, one more, huge, wrapping. */
	const uint64_t bad_nr[] = {0,
				   2,
				   4,
				   UINT64_C(1) << 32,
				   (UINT64_C(1) << 31),
				   INT32_MAX,
				   UINT64_MAX,
				   UINT64_C(3) + (UINT64_C(1) << 63),
				   UINT64_C(3) + (UINT64_C(1) << 62)};
	for (size_t i = 0; i < sizeof(bad_nr) / sizeof(bad_nr[0]); i++) {
		uint64_t copy[40];
		memcpy(copy, w, len);
		copy[0] = bad_nr[i];
		memset(v, 0xAA, sizeof(v));
		cr_expect_eq(pev_read_decode(copy, len, rf, NULL, NULL, v, 4), PEV_EFORMAT,
			     "rf 0x%02" PRIx64 ": nr %#" PRIx64 " for 3 entries", rf, bad_nr[i]);
	}
	/* A group of one and of two decode when their bytes match. */
	for (uint64_t members = 1; members <= 2; members++) {
		uint64_t copy[40];
		size_t per = 1 + !!(rf & ID) + !!(rf & LO);
		memcpy(copy, w, len);
		copy[0] = members;
		size_t l = len - (3 - members) * per * 8;
		cr_expect_eq(pev_read_decode(copy, l, rf, NULL, NULL, v, 4), (int)members);
		cr_expect_eq(v[members - 1].value, g_value[members - 1]);
	}
	/* A group read needs at least its nr word. */
	cr_expect_eq(pev_read_decode(w, 8, rf, NULL, NULL, v, 4), PEV_EFORMAT);
}

/* One test per read_format: bits TOTAL_TIME_ENABLED, RUNNING, ID, GROUP, LOST. */
#define FORMAT_TEST(name, rf)                                                                      \
	Test(read_decode, name, .init = th_leak_init, .fini = th_leak_fini)                        \
	{                                                                                          \
		check_format(rf);                                                                  \
	}

FORMAT_TEST(single_plain, 0)
FORMAT_TEST(single_te, TE)
FORMAT_TEST(single_tr, TR)
FORMAT_TEST(single_te_tr, TE | TR)
FORMAT_TEST(single_id, ID)
FORMAT_TEST(single_te_id, TE | ID)
FORMAT_TEST(single_tr_id, TR | ID)
FORMAT_TEST(single_te_tr_id, TE | TR | ID)
FORMAT_TEST(single_lost, LO)
FORMAT_TEST(single_te_lost, TE | LO)
FORMAT_TEST(single_tr_lost, TR | LO)
FORMAT_TEST(single_te_tr_lost, TE | TR | LO)
FORMAT_TEST(single_id_lost, ID | LO)
FORMAT_TEST(single_te_id_lost, TE | ID | LO)
FORMAT_TEST(single_tr_id_lost, TR | ID | LO)
FORMAT_TEST(single_te_tr_id_lost, TE | TR | ID | LO)
FORMAT_TEST(group_plain, GR)
FORMAT_TEST(group_te, GR | TE)
FORMAT_TEST(group_tr, GR | TR)
FORMAT_TEST(group_te_tr, GR | TE | TR)
FORMAT_TEST(group_id, GR | ID)
FORMAT_TEST(group_te_id, GR | TE | ID)
FORMAT_TEST(group_tr_id, GR | TR | ID)
FORMAT_TEST(group_te_tr_id, GR | TE | TR | ID)
FORMAT_TEST(group_lost, GR | LO)
FORMAT_TEST(group_te_lost, GR | TE | LO)
FORMAT_TEST(group_tr_lost, GR | TR | LO)
FORMAT_TEST(group_te_tr_lost, GR | TE | TR | LO)
FORMAT_TEST(group_id_lost, GR | ID | LO)
FORMAT_TEST(group_te_id_lost, GR | TE | ID | LO)
FORMAT_TEST(group_tr_id_lost, GR | TR | ID | LO)
FORMAT_TEST(group_te_tr_id_lost, GR | TE | TR | ID | LO)

/* The builder above, pinned to literal words for the two fullest layouts. */
Test(read_decode, literal_single_every_bit, .init = th_leak_init, .fini = th_leak_fini)
{
	const uint64_t w[] = {42, 1000, 400, 0x77, 5};
	struct pev_read_value v;
	uint64_t te, tr;

	cr_assert_eq(pev_read_decode(w, sizeof(w), TE | TR | ID | LO, &te, &tr, &v, 1), 1);
	cr_expect_eq(v.value, 42);
	cr_expect_eq(te, 1000);
	cr_expect_eq(tr, 400);
	cr_expect_eq(v.id, 0x77);
	cr_expect_eq(v.lost, 5);
}

Test(read_decode, literal_group_every_bit, .init = th_leak_init, .fini = th_leak_fini)
{
	const uint64_t w[] = {3, 1000, 400, 10, 0x71, 1, 20, 0x72, 2, 30, 0x73, 3};
	struct pev_read_value v[3];
	uint64_t te, tr;

	cr_assert_eq(pev_read_decode(w, sizeof(w), PEV_FORMAT_ALL, &te, &tr, v, 3), 3);
	cr_expect_eq(te, 1000);
	cr_expect_eq(tr, 400);
	for (int k = 0; k < 3; k++) {
		cr_expect_eq(v[k].value, (uint64_t)(10 * (k + 1)));
		cr_expect_eq(v[k].id, (uint64_t)(0x71 + k));
		cr_expect_eq(v[k].lost, (uint64_t)(k + 1));
	}
	/* The bytes as a byte array (little or big endian alike: built from the words). */
	unsigned char bytes[sizeof(w) + 1];
	memcpy(bytes + 1, w, sizeof(w));
	cr_assert_eq(pev_read_decode(bytes + 1, sizeof(w), PEV_FORMAT_ALL, &te, &tr, v, 3), 3);
	cr_expect_eq(v[2].lost, 3);
}

/* ---- pev_count_scale ------------------------------------------------------- */

static struct pev_count scaled(uint64_t value, uint64_t enabled, uint64_t running)
{
	struct pev_count c;

	memset(&c, 0xEE, sizeof(c));
	c.value = value;
	c.time_enabled = enabled;
	c.time_running = running;
	pev_count_scale(&c);
	return c;
}

Test(count_scale, never_ran_is_not_counted, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_count c = scaled(0, 100, 0);

	cr_expect_not(c.counted, "enabled 100 ns, running 0: there is no count");
	cr_expect_eq(c.scaled, 0);
	cr_expect_eq(c.running, 0.0);
	cr_expect_eq(c.value, 0, "the raw value is left alone");
	cr_expect_eq(c.time_enabled, 100);
}

Test(count_scale, half_ran_doubles, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_count c = scaled(1000, 200, 100);

	cr_expect(c.counted);
	cr_expect_eq(c.scaled, 2000, "scaled %" PRIu64, c.scaled);
	cr_expect_eq(c.running, 0.5);
	cr_expect_eq(c.value, 1000);
}

Test(count_scale, fully_ran_is_the_value, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_count c = scaled(1000, 200, 200);

	cr_expect(c.counted);
	cr_expect_eq(c.scaled, 1000);
	cr_expect_eq(c.running, 1.0);

	/* A zero count that ran is a real zero. */
	c = scaled(0, 200, 200);
	cr_expect(c.counted);
	cr_expect_eq(c.scaled, 0);

	/* Running a hair above enabled (clock reads apart): still the value, 100%. */
	c = scaled(1000, 200, 201);
	cr_expect(c.counted);
	cr_expect_eq(c.scaled, 1000);
	cr_expect_eq(c.running, 1.0);
}

Test(count_scale, never_enabled_is_not_counted, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_count c = scaled(0, 0, 0);

	cr_expect_not(c.counted, "opened disabled and never enabled: there is no count");
	cr_expect_eq(c.scaled, 0);
	cr_expect_eq(c.running, 0.0);
	c = scaled(1234, 0, 0);
	cr_expect_not(c.counted, "no running time, no count, whatever the value word says");
	cr_expect_eq(c.scaled, 0);
	cr_expect_eq(c.value, 1234);
}

Test(count_scale, odd_ratios_round_down, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_count c = scaled(10, 3, 2);

	cr_expect_eq(c.scaled, 15);
	c = scaled(7, 3, 2); /* 10.5 */
	cr_expect_eq(c.scaled, 10);
	c = scaled(1, 1000000007, 3);
	cr_expect_eq(c.scaled, 333333335);
	cr_expect_eq(c.running, 3.0 / 1000000007.0);
}

Test(count_scale, exact_near_two_to_the_63, .init = th_leak_init, .fini = th_leak_fini)
{
	/* value x 3 overflows 64 bits; the result (x 1.5) does not. */
	uint64_t v = (UINT64_C(1) << 63) + 7;
	struct pev_count c = scaled(v, 3, 2);

	cr_expect(c.counted);
	cr_expect_eq(c.scaled, (UINT64_C(3) << 62) + 10, "scaled %#" PRIx64, c.scaled);
	cr_expect_eq(c.running, 2.0 / 3.0);

	v = UINT64_C(0x7fffffffffffffff);
	c = scaled(v, 3, 2);
	cr_expect_eq(c.scaled, UINT64_C(0xbffffffffffffffe), "scaled %#" PRIx64, c.scaled);

	/* Large times, small ratio: value x enabled overflows, the quotient is exact. */
	c = scaled(UINT64_C(1) << 40, UINT64_C(3) << 60, UINT64_C(1) << 61);
	cr_expect_eq(c.scaled, UINT64_C(3) << 39, "scaled %#" PRIx64, c.scaled);
}

Test(count_scale, saturates_at_uint64_max, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_count c = scaled(UINT64_MAX - 1, 3, 2);

	cr_expect(c.counted);
	cr_expect_eq(c.scaled, UINT64_MAX);
	c = scaled(1000, UINT64_MAX, 1);
	cr_expect_eq(c.scaled, UINT64_MAX);
	c = scaled(UINT64_C(0xAAAAAAAAAAAAAAAA), 3, 2); /* exactly 2^64 - 1 */
	cr_expect_eq(c.scaled, UINT64_MAX);
	c = scaled(UINT64_C(0xAAAAAAAAAAAAAAAB), 3, 2); /* 2^64 + 0.5 */
	cr_expect_eq(c.scaled, UINT64_MAX);
}

Test(count_scale, null_is_ignored, .init = th_leak_init, .fini = th_leak_fini)
{
	pev_count_scale(NULL);
}

/* ---- reads through an injected read(2) ------------------------------------ */

/* The bytes the fake read(2) returns, and how often it was called. */
static struct pev_sys fake_sys;
static unsigned char fake_bytes[512];
static size_t fake_len;
static int fake_reads;

static ssize_t fake_read(int fd, void *buf, size_t count)
{
	(void)fd;
	fake_reads++;
	if (count < fake_len)
		return -ENOSPC; /* what the kernel says when the buffer is too small */
	memcpy(buf, fake_bytes, fake_len);
	return (ssize_t)fake_len;
}

/* Makes every read(2) of an event return `len` bytes of words (other calls are real). */
static void inject_read_bytes(const void *words, size_t len)
{
	cr_assert_leq(len, sizeof(fake_bytes));
	memcpy(fake_bytes, words, len);
	fake_len = len;
	fake_reads = 0;
	fake_sys = pev__sys_real;
	fake_sys.read = fake_read;
	pev__sys_set(&fake_sys);
}

#define inject_read(...)                                                                           \
	do {                                                                                       \
		const uint64_t w_[] = {__VA_ARGS__};                                               \
		inject_read_bytes(w_, sizeof(w_));                                                 \
	} while (0)

static struct pev_counter *open_ok(struct pev_event ev, uint64_t read_format, bool disabled,
				   const struct pev_target *t, struct pev_counter *group)
{
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_counter *c = NULL;
	struct pev_error err;

	o.read_format = read_format;
	o.open_flags = PEV_OPEN_EXACT_READ_FORMAT; /* these tests build each layout's bytes */
	o.disabled = disabled;
	int r = pev_counter_open(&ev, &o, t, group, &c, &err);
	cr_assert_eq(r, 0, "open failed (%s): %s", pev_error_name(r), err.message);
	cr_assert_not_null(c);
	return c;
}

static struct pev_counter *open_times(void)
{
	return open_ok(pev_event_software(PEV_SW_TASK_CLOCK), TE | TR, false, NULL, NULL);
}

Test(read_injected, never_ran, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_counter *c = open_times();
	struct pev_count v;

	inject_read(0, 100, 0);
	cr_assert_eq(pev_counter_read(c, &v), 0);
	cr_expect_eq(fake_reads, 1);
	cr_expect_not(v.counted, "enabled 100, running 0: not counted, never a fake 0");
	cr_expect_eq(v.scaled, 0);
	cr_expect_eq(v.running, 0.0);
	cr_expect_eq(v.time_enabled, 100);
	cr_expect_eq(v.time_running, 0);
	cr_assert_eq(pev_counter_read_fd(c, 0, &v), 0);
	cr_expect_not(v.counted);
	th_inject_reset();
	pev_counter_close(c);
}

Test(read_injected, half_ran, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_counter *c = open_times();
	struct pev_count v;

	inject_read(1000, 200, 100);
	cr_assert_eq(pev_counter_read(c, &v), 0);
	cr_expect(v.counted);
	cr_expect_eq(v.value, 1000);
	cr_expect_eq(v.scaled, 2000);
	cr_expect_eq(v.running, 0.5);
	cr_expect_eq(v.time_enabled, 200);
	cr_expect_eq(v.time_running, 100);
	memset(&v, 0, sizeof(v));
	cr_assert_eq(pev_counter_read_fd(c, 0, &v), 0);
	cr_expect_eq(v.scaled, 2000);
	cr_expect_eq(v.running, 0.5);
	th_inject_reset();
	pev_counter_close(c);
}

Test(read_injected, fully_ran, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_counter *c = open_times();
	struct pev_count v;

	inject_read(1000, 200, 200);
	cr_assert_eq(pev_counter_read(c, &v), 0);
	cr_expect(v.counted);
	cr_expect_eq(v.scaled, 1000);
	cr_expect_eq(v.running, 1.0);
	th_inject_reset();
	pev_counter_close(c);
}

/*
 * A counter that reads only one of the two times cannot be scaled. Without
 * the running time nothing says whether it ran: the value is taken as
 * complete. With the running time alone, 0 is "never ran".
 */
Test(read_injected, one_time_only, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_counter *c = open_ok(pev_event_software(PEV_SW_TASK_CLOCK), TE, false, NULL, NULL);
	struct pev_count v;

	inject_read(1000, 200);
	cr_assert_eq(pev_counter_read(c, &v), 0);
	cr_expect_eq(v.time_enabled, 200);
	cr_expect(v.counted, "read_format has no TOTAL_TIME_RUNNING: the value is all there is");
	cr_expect_eq(v.scaled, 1000);
	cr_expect_eq(v.running, 1.0);
	cr_assert_eq(pev_counter_read_fd(c, 0, &v), 0);
	cr_expect(v.counted);
	cr_expect_eq(v.scaled, 1000);
	th_inject_reset();
	pev_counter_close(c);

	c = open_ok(pev_event_software(PEV_SW_TASK_CLOCK), TR, false, NULL, NULL);
	inject_read(1000, 500);
	cr_assert_eq(pev_counter_read(c, &v), 0);
	cr_expect(v.counted);
	cr_expect_eq(v.scaled, 1000, "no enabled time: nothing to scale by");
	cr_assert_eq(pev_counter_read_fd(c, 0, &v), 0);
	cr_expect(v.counted);
	cr_expect_eq(v.scaled, 1000);
	inject_read(0, 0);
	cr_assert_eq(pev_counter_read(c, &v), 0);
	cr_expect_not(v.counted, "running time 0: never ran");
	cr_assert_eq(pev_counter_read_fd(c, 0, &v), 0);
	cr_expect_not(v.counted);
	th_inject_reset();
	pev_counter_close(c);

	/* Neither time: counted, even for a 0 (nothing tells). */
	c = open_ok(pev_event_software(PEV_SW_TASK_CLOCK), 0, true, NULL, NULL);
	inject_read(0);
	cr_assert_eq(pev_counter_read(c, &v), 0);
	cr_expect(v.counted);
	cr_expect_eq(v.scaled, 0);
	cr_expect_eq(v.running, 1.0);
	th_inject_reset();
	pev_counter_close(c);
}

Test(read_injected, every_single_layout_through_read, .init = th_leak_init, .fini = th_leak_fini)
{
	for (uint64_t rf = 0; rf <= PEV_FORMAT_ALL; rf++) {
		if (rf & GR)
			continue;
		struct pev_counter *c =
			open_ok(pev_event_software(PEV_SW_TASK_CLOCK), rf, false, NULL, NULL);
		struct pev_count v;
		uint64_t w[8];
		size_t n = golden_words(rf, w);

		inject_read_bytes(w, n * 8);
		cr_assert_eq(pev_counter_read(c, &v), 0, "rf 0x%02" PRIx64, rf);
		cr_expect_eq(v.value, g_value[0], "rf 0x%02" PRIx64, rf);
		cr_expect_eq(v.time_enabled, rf & TE ? G_TIME_ENABLED : 0, "rf 0x%02" PRIx64, rf);
		cr_expect_eq(v.time_running, rf & TR ? G_TIME_RUNNING : 0, "rf 0x%02" PRIx64, rf);
		cr_expect_eq(v.id, rf & ID ? g_id[0] : 0, "rf 0x%02" PRIx64, rf);
		cr_expect_eq(v.lost, rf & LO ? g_lost[0] : 0, "rf 0x%02" PRIx64, rf);
		cr_expect(v.counted, "rf 0x%02" PRIx64, rf);

		struct pev_count f;
		cr_assert_eq(pev_counter_read_fd(c, 0, &f), 0, "rf 0x%02" PRIx64, rf);
		cr_expect_eq(f.value, v.value);
		cr_expect_eq(f.lost, v.lost);
		cr_expect_eq(f.id, v.id);
		cr_expect_eq(f.scaled, v.scaled);

		/* One word short, or a torn word: the layout does not match. */
		inject_read_bytes(w, n * 8 - 8);
		cr_expect_eq(pev_counter_read(c, &v), PEV_EFORMAT, "rf 0x%02" PRIx64, rf);
		cr_expect_eq(pev_counter_read_fd(c, 0, &v), PEV_EFORMAT, "rf 0x%02" PRIx64, rf);
		inject_read_bytes(w, n * 8 - 3);
		cr_expect_eq(pev_counter_read(c, &v), PEV_EFORMAT, "rf 0x%02" PRIx64, rf);
		th_inject_reset();
		pev_counter_close(c);
	}
}

Test(read_injected, read_errors_come_back, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_counter *c = open_times();
	struct pev_count v;

	th_inject_call_errno("read", EIO);
	cr_expect_eq(pev_counter_read(c, &v), -EIO);
	cr_expect_eq(pev_counter_read_fd(c, 0, &v), -EIO);
	th_inject_call_errno("read", EINTR);
	cr_expect_eq(pev_counter_read(c, &v), PEV_EINTR);
	th_inject_reset();
	pev_counter_close(c);
}

/* A leader with two members, every one opened with the same read_format. */
struct trio {
	struct pev_counter *c[3];
	uint64_t id[3];
};

static void trio_open(struct trio *t, uint64_t rf, bool same_format)
{
	struct pev_target self = pev_target_self();

	t->c[0] = open_ok(pev_event_software(PEV_SW_TASK_CLOCK), rf, true, &self, NULL);
	t->c[1] = open_ok(pev_event_software(PEV_SW_PAGE_FAULTS), same_format ? rf : 0, false,
			  &self, t->c[0]);
	t->c[2] = open_ok(pev_event_software(PEV_SW_CONTEXT_SWITCHES), same_format ? rf : 0,
			  false, &self, t->c[0]);
	for (int k = 0; k < 3; k++) {
		cr_assert_eq(pev_counter_id(t->c[k], 0, &t->id[k]), 0);
		cr_assert_neq(t->id[k], 0);
	}
	cr_assert_neq(t->id[0], t->id[1]);
	cr_assert_neq(t->id[1], t->id[2]);
}

static void trio_close(struct trio *t)
{
	for (int k = 2; k >= 0; k--)
		pev_counter_close(t->c[k]);
}

Test(read_injected, group_matched_by_id_not_position, .init = th_leak_init, .fini = th_leak_fini)
{
	struct trio t;
	struct pev_count out[4], v;

	trio_open(&t, GR | ID | TE | TR, true);
	/* The kernel's entries, shuffled: the ids say whose value is whose. */
	inject_read(3, 1000, 500, 30, t.id[2], 10, t.id[0], 20, t.id[1]);
	memset(out, 0xEE, sizeof(out));
	cr_assert_eq(pev_counter_read_group(t.c[0], out, 4), 3);
	cr_expect_eq(fake_reads, 1, "one read(2) for the whole group");
	for (int k = 0; k < 3; k++) {
		cr_expect_eq(out[k].value, (uint64_t)(10 * (k + 1)), "entry %d: %" PRIu64, k,
			     out[k].value);
		cr_expect_eq(out[k].id, t.id[k], "entry %d", k);
		cr_expect_eq(out[k].scaled, (uint64_t)(20 * (k + 1)), "entry %d scaled", k);
		cr_expect_eq(out[k].running, 0.5);
		cr_expect(out[k].counted);
		cr_expect_eq(out[k].time_enabled, 1000);
	}
	cr_expect_eq(out[3].value, UINT64_C(0xEEEEEEEEEEEEEEEE), "only 3 entries written");

	/* Each counter's own read finds its entry by id too. */
	for (int k = 0; k < 3; k++) {
		cr_assert_eq(pev_counter_read(t.c[k], &v), 0);
		cr_expect_eq(v.value, (uint64_t)(10 * (k + 1)), "counter %d read %" PRIu64, k,
			     v.value);
		cr_expect_eq(v.scaled, (uint64_t)(20 * (k + 1)));
		cr_assert_eq(pev_counter_read_fd(t.c[k], 0, &v), 0);
		cr_expect_eq(v.value, (uint64_t)(10 * (k + 1)));
	}

	/* Fewer entries than asked for. */
	memset(out, 0xEE, sizeof(out));
	cr_assert_eq(pev_counter_read_group(t.c[0], out, 2), 2);
	cr_expect_eq(out[1].value, 20);
	cr_expect_eq(out[2].value, UINT64_C(0xEEEEEEEEEEEEEEEE));
	th_inject_reset();
	trio_close(&t);
}

Test(read_injected, group_with_an_unknown_id_is_refused, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct trio t;
	struct pev_count out[3], v;

	trio_open(&t, GR | ID, true);
	/* The third entry belongs to an event this group does not know. */
	inject_read(3, 10, t.id[0], 20, t.id[1], 30, t.id[2] + 1000);
	cr_expect_eq(pev_counter_read_group(t.c[0], out, 3), PEV_EFORMAT,
		     "a member whose id is not in the read has no value there");
	th_expect_last_error(PEV_EFORMAT, "", "has no entry with the id of its member", NULL);
	cr_expect_eq(pev_counter_read(t.c[2], &v), PEV_EFORMAT);
	cr_expect_eq(pev_counter_read(t.c[1], &v), 0);
	cr_expect_eq(v.value, 20);
	th_inject_reset();
	trio_close(&t);
}

Test(read_injected, group_without_ids_matched_by_position, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct trio t;
	struct pev_count out[3], v;

	trio_open(&t, GR | TE | TR, true);
	inject_read(3, 900, 300, 10, 20, 30);
	cr_assert_eq(pev_counter_read_group(t.c[0], out, 3), 3);
	for (int k = 0; k < 3; k++) {
		cr_expect_eq(out[k].value, (uint64_t)(10 * (k + 1)));
		cr_expect_eq(out[k].scaled, (uint64_t)(30 * (k + 1)));
		cr_expect_eq(out[k].id, 0, "no ids were read");
		cr_assert_eq(pev_counter_read(t.c[k], &v), 0);
		cr_expect_eq(v.value, (uint64_t)(10 * (k + 1)), "counter %d", k);
	}

	/* A group that never ran: every entry not counted. */
	inject_read(3, 900, 0, 0, 0, 0);
	cr_assert_eq(pev_counter_read_group(t.c[0], out, 3), 3);
	for (int k = 0; k < 3; k++)
		cr_expect_not(out[k].counted, "entry %d", k);

	/* The kernel listing fewer events than the group has. */
	inject_read(2, 900, 300, 10, 20);
	cr_expect_eq(pev_counter_read_group(t.c[0], out, 3), PEV_EFORMAT);
	th_expect_last_error(PEV_EFORMAT, "", "for 2 counters", "for 3", NULL);
	cr_expect_eq(pev_counter_read(t.c[2], &v), PEV_EFORMAT);
	/* Bytes that do not match their nr. */
	inject_read(3, 900, 300, 10, 20);
	cr_expect_eq(pev_counter_read_group(t.c[0], out, 3), PEV_EFORMAT);
	th_inject_reset();
	trio_close(&t);
}

Test(read_injected, group_read_arguments, .init = th_leak_init, .fini = th_leak_fini)
{
	struct trio t;
	struct pev_count out[3];
	struct pev_counter *alone = open_times();

	trio_open(&t, GR | ID, true);
	cr_expect_eq(pev_counter_read_group(NULL, out, 3), PEV_EBADARG);
	th_expect_last_error(PEV_EBADARG, "leader", "pev_counter_read_group", "NULL", NULL);
	cr_expect_eq(pev_counter_read_group(t.c[0], NULL, 3), PEV_EBADARG);
	th_expect_last_error(PEV_EBADARG, "out", "NULL", NULL);
	cr_expect_eq(pev_counter_read_group(t.c[0], out, 0), PEV_EBADARG);
	th_expect_last_error(PEV_EBADARG, "max", "room for the leader", NULL);
	cr_expect_eq(pev_counter_read_group(t.c[1], out, 3), PEV_EBADARG, "a member is no leader");
	th_expect_last_error(PEV_EBADARG, "leader", "is a member of the group led by",
			  "read the group through its leader", NULL);
	cr_expect_eq(pev_counter_read_group(alone, out, 3), PEV_EBADARG,
		     "a leader without PEV_FORMAT_GROUP");
	th_expect_last_error(PEV_EBADARG, "leader", "opened without PEV_FORMAT_GROUP",
			  "pev_counter_read()", NULL);
	th_inject_call_errno("read", EIO);
	cr_expect_eq(pev_counter_read_group(t.c[0], out, 3), -EIO);
	th_expect_last_error(-EIO, "", "read on 'task-clock' failed", "Input/output error",
			     "(descriptor ", NULL);
	cr_expect_str_eq(pev_last_error()->syscall, "read");
	th_inject_reset();
	cr_expect_eq(pev_counter_read_fd(t.c[0], 1, out), PEV_EBADARG);
	cr_expect_eq(pev_counter_read_fd(t.c[0], -1, out), PEV_EBADARG);
	cr_expect_eq(pev_counter_read_fd(NULL, 0, out), PEV_EBADARG);
	cr_expect_eq(pev_counter_read_fd(t.c[0], 0, NULL), PEV_EBADARG);
	pev_counter_close(alone);
	trio_close(&t);
}

/* ---- live reads ---------------------------------------------------------- */

/* Runs the group through a workload, then stops it so reads compare exactly. */
static void trio_work(struct trio *t)
{
	cr_assert_eq(pev_counter_enable_group(t->c[0]), 0);
	th_spin_ms(5);
	th_touch_pages(32);
	th_sleep_briefly(5);
	cr_assert_eq(pev_counter_disable_group(t->c[0]), 0);
}

static void expect_group_matches_members(uint64_t rf, bool same_format)
{
	struct trio t;
	struct pev_count out[3], v;

	trio_open(&t, rf, same_format);
	trio_work(&t);
	cr_assert_eq(pev_counter_read_group(t.c[0], out, 3), 3);
	cr_expect_geq(out[0].value, 3 * 1000000ULL, "task-clock: %" PRIu64 " ns", out[0].value);
	cr_expect_geq(out[1].value, 32, "page-faults: %" PRIu64, out[1].value);
	cr_expect_lt(out[1].value, 1000, "page-faults: %" PRIu64, out[1].value);
	/*
	 * Each of the 5 sleeps of 100 us switches out, unless its timer expired
	 * before the thread got to schedule() (an emulated CPU, the arm64 lab's,
	 * can be that slow: 4 switches were seen there).
	 */
	cr_expect_geq(out[2].value, 1, "context-switches: %" PRIu64, out[2].value);
	cr_expect_lt(out[2].value, 1000, "context-switches: %" PRIu64, out[2].value);
	for (int k = 0; k < 3; k++) {
		/* Disabled: each counter read alone gives the same value. */
		cr_assert_eq(pev_counter_read(t.c[k], &v), 0);
		cr_expect_eq(v.value, out[k].value, "counter %d: alone %" PRIu64 ", in the group %" PRIu64,
			     k, v.value, out[k].value);
		cr_expect(out[k].counted);
		if (rf & TE) {
			cr_expect_gt(out[k].time_enabled, 0);
			cr_expect_eq(out[k].running, 1.0, "software events are never multiplexed");
		}
		cr_expect_eq(out[k].scaled, out[k].value);
		cr_expect_eq(out[k].id, rf & ID ? t.id[k] : 0, "entry %d id", k);
	}
	trio_close(&t);
}

Test(read_live, group_by_id_equals_each_member, .init = th_leak_init, .fini = th_leak_fini)
{
	expect_group_matches_members(GR | ID | TE | TR, false);
}

Test(read_live, group_by_id_members_with_group_format, .init = th_leak_init,
     .fini = th_leak_fini)
{
	expect_group_matches_members(GR | ID | TE | TR, true);
}

Test(read_live, group_by_position_equals_each_member, .init = th_leak_init,
     .fini = th_leak_fini)
{
	expect_group_matches_members(GR | TE | TR, false);
	expect_group_matches_members(GR, true);
}

Test(read_live, group_with_every_bit, .init = th_leak_init, .fini = th_leak_fini)
{
	expect_group_matches_members(PEV_FORMAT_ALL, true);
}

Test(read_live, lost_format_opens_and_reads_zero, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_counter *c = open_ok(pev_event_software(PEV_SW_TASK_CLOCK), LO | ID, false,
					NULL, NULL);
	struct pev_count v;
	uint64_t id;

	th_spin_ms(2);
	cr_assert_eq(pev_counter_read(c, &v), 0);
	cr_expect_gt(v.value, 0);
	cr_expect_eq(v.lost, 0, "a counting event loses nothing");
	cr_assert_eq(pev_counter_id(c, 0, &id), 0);
	cr_expect_eq(v.id, id);
	pev_counter_close(c);
}

Test(read_live, per_cpu_descriptors_sum_to_the_total, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_target all = pev_target_all_cpus();
	struct pev_counter *clk = open_ok(pev_event_software(PEV_SW_CPU_CLOCK), TE | TR, true, &all,
					  NULL);
	struct pev_counter *cs = open_ok(pev_event_software(PEV_SW_CONTEXT_SWITCHES), ID, true,
					 &all, NULL);
	struct pev_count total, one;
	int n = pev_counter_nr_fds(clk);

	cr_assert_geq(n, 1);
	cr_assert_eq(pev_counter_enable(clk), 0);
	cr_assert_eq(pev_counter_enable(cs), 0);
	th_sleep_briefly(20);
	th_spin_ms(5);
	cr_assert_eq(pev_counter_disable(clk), 0);
	cr_assert_eq(pev_counter_disable(cs), 0);

	struct pev_counter *cs_and_clk[2] = {clk, cs};
	for (int j = 0; j < 2; j++) {
		struct pev_counter *c = cs_and_clk[j];
		uint64_t sum = 0, te = 0;
		cr_assert_eq(pev_counter_read(c, &total), 0);
		for (int i = 0; i < n; i++) {
			cr_assert_eq(pev_counter_read_fd(c, i, &one), 0);
			if (c == clk)
				cr_expect_gt(one.value, 0, "cpu-clock on CPU %d", pev_counter_cpu(c, i));
			uint64_t id;
			cr_assert_eq(pev_counter_id(c, i, &id), 0);
			cr_expect_eq(one.id, c == cs ? id : 0, "one descriptor read: its id");
			sum += one.value;
			te += one.time_enabled;
		}
		cr_expect_eq(total.value, sum, "%s: total %" PRIu64 ", sum of CPUs %" PRIu64,
			     pev_counter_name(c), total.value, sum);
		cr_expect_eq(total.time_enabled, te);
		if (n > 1)
			cr_expect_eq(total.id, 0, "several descriptors: no single id");
	}
	cr_assert_eq(pev_counter_read(cs, &total), 0);
	cr_expect_geq(total.value, 20, "20 sleeps: %" PRIu64 " switches on all CPUs", total.value);
	pev_counter_close(cs);
	pev_counter_close(clk);
}

/* ---- a child process with 4 threads ---------------------------------------- */

Test(read_live, per_thread_descriptors_sum_to_the_total, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct th_threaded_child tc;
	struct pev_counter *c = NULL;
	struct pev_error err;
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);

	th_threaded_child_start(&tc);
	struct pev_target t = pev_target_process(tc.pid);
	o.read_format = TE | TR;
	int r = pev_counter_open(&ev, &o, &t, NULL, &c, &err);
	int status = th_threaded_child_finish(&tc);
	cr_assert_eq(r, 0, "open on process %d: %s", (int)tc.pid, err.message);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);

	/* The child is gone: every count is final. */
	struct pev_count total, one;
	uint64_t sum = 0;
	cr_assert_eq(pev_counter_nr_fds(c), 4, "%d descriptors for 4 threads",
		     pev_counter_nr_fds(c));
	cr_assert_eq(pev_counter_read(c, &total), 0);
	for (int i = 0; i < 4; i++) {
		cr_assert_eq(pev_counter_read_fd(c, i, &one), 0);
		cr_expect_geq(one.value, 10 * 1000000ULL, "thread %d spun 20 ms: %" PRIu64 " ns",
			      (int)pev_counter_tid(c, i), one.value);
		cr_expect(one.counted);
		sum += one.value;
	}
	cr_expect_eq(total.value, sum, "total %" PRIu64 ", sum of threads %" PRIu64, total.value,
		     sum);
	cr_expect(total.counted);
	pev_counter_close(c);
}

/* ---- the defaults: both times read, counted, scaled ------------------------- */

/* The read_format the last perf_event_open(2) was given. */
static uint64_t seen_read_format;

static int capture_open(struct pev_attr *attr, pid_t pid, int cpu, int group_fd,
			unsigned long flags)
{
	seen_read_format = attr->read_format;
	return pev__sys_real.perf_event_open(attr, pid, cpu, group_fd, flags);
}

/* Opens task-clock with o (NULL: defaults); returns the read_format the kernel got. */
static uint64_t format_sent(const struct pev_opts *o)
{
	struct pev_counter *c;

	fake_sys = pev__sys_real;
	fake_sys.perf_event_open = capture_open;
	pev__sys_set(&fake_sys);
	seen_read_format = UINT64_MAX;
	c = th_open_ok(pev_event_software(PEV_SW_TASK_CLOCK), o, NULL, NULL);
	th_inject_reset();
	cr_expect_eq(pev_counter_attr(c)->read_format, seen_read_format,
		     "pev_counter_attr shows what was sent");
	pev_counter_close(c);
	return seen_read_format;
}

Test(read_defaults, opts_init_asks_for_both_times, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_opts o = PEV_OPTS_INIT;

	cr_expect_eq(format_sent(&o), TE | TR, "PEV_OPTS_INIT");
	cr_expect_eq(format_sent(NULL), TE | TR, "NULL options");
	o.read_format = ID | LO;
	cr_expect_eq(format_sent(&o), ID | LO | TE | TR, "an explicit format gains the times");
	o.open_flags = PEV_OPEN_EXACT_READ_FORMAT;
	cr_expect_eq(format_sent(&o), ID | LO, "PEV_OPEN_EXACT_READ_FORMAT: as given");
	o.read_format = 0;
	cr_expect_eq(format_sent(&o), 0);
}

/* A multiplexed count, as the kernel would report it, is scaled with default options. */
Test(read_defaults, multiplexed_counts_are_scaled, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_target self = pev_target_self();
	struct pev_counter *c = th_open_ok(pev_event_software(PEV_SW_TASK_CLOCK), &o, NULL, NULL);
	struct pev_count v, out[2];

	inject_read(1000, 400, 100); /* on the PMU a quarter of the time */
	cr_assert_eq(pev_counter_read(c, &v), 0);
	cr_expect(v.counted);
	cr_expect_eq(v.value, 1000);
	cr_expect_eq(v.scaled, 4000, "scaled %" PRIu64, v.scaled);
	cr_expect_eq(v.running, 0.25);
	cr_assert_eq(pev_counter_read_fd(c, 0, &v), 0);
	cr_expect_eq(v.scaled, 4000);
	th_inject_reset();
	pev_counter_close(c);

	/* A group: the leader asks only for GROUP | ID, the member for nothing. */
	o.read_format = GR | ID;
	struct pev_counter *l = th_open_ok(pev_event_software(PEV_SW_TASK_CLOCK), &o, &self, NULL);
	struct pev_counter *m = th_open_ok(pev_event_software(PEV_SW_PAGE_FAULTS), NULL, &self, l);
	uint64_t lid, mid;
	cr_assert_eq(pev_counter_id(l, 0, &lid), 0);
	cr_assert_eq(pev_counter_id(m, 0, &mid), 0);
	inject_read(2, 400, 100, 10, lid, 20, mid);
	cr_assert_eq(pev_counter_read_group(l, out, 2), 2);
	cr_expect_eq(out[0].scaled, 40);
	cr_expect_eq(out[1].scaled, 80);
	cr_expect(out[0].counted && out[1].counted);
	inject_read(2, 400, 0, 0, lid, 0, mid);
	cr_assert_eq(pev_counter_read_group(l, out, 2), 2);
	cr_expect_not(out[0].counted || out[1].counted, "a group that never ran");
	th_inject_reset();
	pev_counter_close(m);
	pev_counter_close(l);
}

Test(read_live, never_enabled_is_not_counted, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_target self = pev_target_self();
	struct pev_count v, out[2];

	o.disabled = true;
	struct pev_counter *c = th_open_ok(pev_event_software(PEV_SW_TASK_CLOCK), &o, NULL, NULL);
	th_spin_ms(2);
	cr_assert_eq(pev_counter_read(c, &v), 0);
	cr_expect_not(v.counted, "opened disabled, never enabled: no count");
	cr_expect_eq(v.value, 0);
	cr_expect_eq(v.scaled, 0);
	cr_expect_eq(v.time_running, 0);
	cr_assert_eq(pev_counter_read_fd(c, 0, &v), 0);
	cr_expect_not(v.counted);
	cr_assert_eq(pev_counter_enable(c), 0);
	th_spin_ms(2);
	cr_assert_eq(pev_counter_disable(c), 0);
	cr_assert_eq(pev_counter_read(c, &v), 0);
	cr_expect(v.counted, "enabled, then read: counted");
	cr_expect_gt(v.value, 0);
	cr_expect_eq(v.scaled, v.value, "software events run all the time they are enabled");
	pev_counter_close(c);

	/* A group opened disabled: neither the leader nor its member counted. */
	o.read_format = GR | ID;
	struct pev_counter *l = th_open_ok(pev_event_software(PEV_SW_TASK_CLOCK), &o, &self, NULL);
	struct pev_counter *m = th_open_ok(pev_event_software(PEV_SW_PAGE_FAULTS), NULL, &self, l);
	th_touch_pages(4);
	cr_assert_eq(pev_counter_read_group(l, out, 2), 2);
	cr_expect_not(out[0].counted);
	cr_expect_not(out[1].counted);
	cr_assert_eq(pev_counter_read(m, &v), 0);
	cr_expect_not(v.counted);
	cr_assert_eq(pev_counter_enable_group(l), 0);
	th_touch_pages(4);
	cr_assert_eq(pev_counter_disable_group(l), 0);
	cr_assert_eq(pev_counter_read_group(l, out, 2), 2);
	cr_expect(out[0].counted);
	cr_expect(out[1].counted);
	cr_expect_geq(out[1].value, 4);
	pev_counter_close(m);
	pev_counter_close(l);
}

/*
 * Real scaling without a hardware PMU: task-clock of this thread counted on
 * one CPU only runs while the thread is there, and is enabled all along.
 */
Test(read_live, a_task_counted_on_one_cpu_is_scaled, .init = th_leak_init, .fini = th_leak_fini)
{
	cpu_set_t saved, one;
	int cpus[2] = {-1, -1}, n = 0;

	cr_assert_eq(sched_getaffinity(0, sizeof(saved), &saved), 0);
	for (int i = 0; i < CPU_SETSIZE && n < 2; i++)
		if (CPU_ISSET(i, &saved))
			cpus[n++] = i;
	if (n < 2)
		th_skip("needs two CPUs this thread may run on");
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_target t = pev_target_self();
	t.cpu = cpus[0];
	struct pev_counter *c = th_open_ok(pev_event_software(PEV_SW_TASK_CLOCK), &o, &t, NULL);

	for (int k = 1; k >= 0; k--) { /* 20 ms elsewhere, then 20 ms on the counted CPU */
		CPU_ZERO(&one);
		CPU_SET(cpus[k], &one);
		cr_assert_eq(sched_setaffinity(0, sizeof(one), &one), 0);
		th_spin_ms(20);
	}
	cr_assert_eq(sched_setaffinity(0, sizeof(saved), &saved), 0);
	struct pev_count v;
	cr_assert_eq(pev_counter_read(c, &v), 0);
	pev_counter_close(c);
	cr_expect(v.counted);
	cr_expect_lt(v.time_running, v.time_enabled, "running %" PRIu64 " of %" PRIu64 " ns",
		     v.time_running, v.time_enabled);
	cr_expect_lt(v.running, 0.9, "20 ms of 40 off the counted CPU: %.3f", v.running);
	uint64_t want = (uint64_t)((unsigned __int128)v.value * v.time_enabled / v.time_running);
	cr_expect_eq(v.scaled, want, "scaled %" PRIu64 ", value x enabled / running %" PRIu64,
		     v.scaled, want);
	cr_expect_gt(v.scaled, v.value);
}
