/* SPDX-License-Identifier: MIT */
/*
 * test_record.c - the record decoder, without a system call:
 *
 *   - every golden record (tests/record_golden.c: every record type and form,
 *     every sample_type bit alone and all together, branch stack, callchain,
 *     register and stack variants) decodes to exactly what it should, from a
 *     heap copy of its own size, and the fast time/id reads agree;
 *   - generated layouts: all 512 combinations of the fixed-size SAMPLE fields,
 *     all 32 read_formats in a SAMPLE and a READ record, all 64 sample_id
 *     trailers on three record types, branch stacks with and without hw_idx
 *     and counters;
 *   - malformed input: every golden record truncated at every byte, header
 *     sizes that lie, counts that overflow, sizes beyond the record, strings
 *     without their NUL; each gives an error and (under ASan) reads nothing
 *     outside the bytes;
 *   - the format, the misc flags, callchain walking, branch flags and data
 *     source fields against the kernel header's bit-fields, and describe.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "helpers.h"
#include "record_golden.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define ID_BITS                                                                                    \
	(PEV_SAMPLE_TID | PEV_SAMPLE_TIME | PEV_SAMPLE_ID | PEV_SAMPLE_STREAM_ID | PEV_SAMPLE_CPU | \
	 PEV_SAMPLE_IDENTIFIER)

TestSuite(record, .init = th_leak_init, .fini = th_leak_fini);

/* ---- helpers ------------------------------------------------------------------ */

/* A record being built word by word. */
struct rec {
	uint64_t w[1200];
	size_t n;
};

static void put(struct rec *r, uint64_t v)
{
	cr_assert_lt(r->n, ARRAY_SIZE(r->w), "test record too long");
	r->w[r->n++] = v;
}

static void begin(struct rec *r, uint32_t type, uint16_t misc)
{
	r->n = 0;
	put(r, (uint64_t)type | (uint64_t)misc << 32);
}

/* Writes the size into the header. */
static void finish(struct rec *r)
{
	r->w[0] = (r->w[0] & UINT64_C(0xffffffffffff)) | (uint64_t)(r->n * 8) << 48;
}

static uint64_t u32x2(uint32_t lo, uint32_t hi)
{
	return (uint64_t)lo | (uint64_t)hi << 32;
}

/* A heap copy of exactly len bytes (so ASan sees a read past them), 16-aligned. */
static void *copy_exact(const void *src, size_t len)
{
	void *p = malloc(len ? len : 1);

	cr_assert_not_null(p);
	if (len)
		memcpy(p, src, len);
	return p;
}

static void format_of(struct pev_record_format *f, uint64_t st, uint64_t rf, bool id_all)
{
	struct pev_record_config c = PEV_RECORD_CONFIG_INIT;

	c.sample_type = st;
	c.read_format = rf;
	c.sample_id_all = id_all;
	cr_assert_eq(pev_record_format_init(f, &c), 0);
}

/* Decodes len bytes of src from an exact heap copy; *copy keeps it for the pointers. */
static int decode_copy(const struct pev_record_format *f, const void *src, size_t len,
		       struct pev_record *out, void **copy)
{
	*copy = copy_exact(src, len);
	return pev_record_decode(f, *copy, len, out);
}

/* Expects (src, len) to decode as malformed, reading nothing outside len bytes. */
static void expect_malformed(const struct pev_record_format *f, const void *src, size_t len,
			     const char *what)
{
	struct pev_record r;
	void *copy;
	int n = decode_copy(f, src, len, &r, &copy);

	cr_expect_eq(n, PEV_EFORMAT, "%s: decode gave %d, want PEV_EFORMAT", what, n);
	free(copy);
}

/* ---- the golden table --------------------------------------------------------------- */

Test(record, golden_table_is_consistent)
{
	for (size_t i = 0; i < rg_golden_count; i++) {
		const struct rg_golden *g = &rg_golden[i];
		struct pev_record_format f;

		cr_expect_eq(g->words[0] >> 48, g->nwords * 8, "%s: header size vs words", g->name);
		cr_expect_eq((uint32_t)g->words[0], g->want.type, "%s: type", g->name);
		cr_expect_eq(g->want.size, g->nwords * 8, "%s: want.size", g->name);
		cr_expect_eq(rg_format(g, &f), 0, "%s: format", g->name);
	}
}

/* The table covers every record type and every sample_type bit alone. */
Test(record, golden_table_covers_every_type_and_bit)
{
	for (uint32_t t = PEV_RECORD_MMAP; t < PEV_RECORD_KERNEL_MAX; t++) {
		bool found = false;
		for (size_t i = 0; i < rg_golden_count; i++)
			found |= rg_golden[i].want.type == t;
		cr_expect(found, "no golden record of type %u (%s)", t, pev_record_type_name(t));
	}
	for (int bit = 0; bit < 25; bit++) {
		bool found = false;
		for (size_t i = 0; i < rg_golden_count; i++)
			found |= rg_golden[i].want.type == PEV_RECORD_SAMPLE &&
				 rg_golden[i].config.sample_type == UINT64_C(1) << bit;
		cr_expect(found, "no golden SAMPLE with sample_type bit %d alone", bit);
	}
	cr_expect_eq(PEV_SAMPLE_ALL, (UINT64_C(1) << 25) - 1, "a new sample bit needs a golden record");
}

Test(record, golden_records_decode)
{
	for (size_t i = 0; i < rg_golden_count; i++) {
		const struct rg_golden *g = &rg_golden[i];
		size_t len = g->nwords * 8;
		struct pev_record_format f;
		struct pev_record r;
		char why[256];
		void *copy;

		cr_assert_eq(rg_format(g, &f), 0);
		memset(&r, 0xa5, sizeof(r)); /* no reliance on a zeroed output */
		int n = decode_copy(&f, g->words, len, &r, &copy);
		cr_expect_eq(n, (int)len, "%s: decode gave %d, want %zu", g->name, n, len);
		if (n == (int)len)
			cr_expect(rg_record_same(&g->want, &r, why, sizeof(why)), "%s: %s", g->name,
				  why);
		cr_expect_eq(r.bytes, copy, "%s: bytes", g->name);
		free(copy);
	}
}

/*
 * One struct reused for a stream: every golden record decoded into a struct
 * that held every other golden record (or a failed decode of it) just
 * before, and back. Whatever it held, the result must be the record's own.
 */
Test(record, one_struct_reused_for_every_pair_of_records)
{
	for (size_t i = 0; i < rg_golden_count; i++) {
		for (size_t j = 0; j < rg_golden_count; j++) {
			const struct rg_golden *a = &rg_golden[i], *b = &rg_golden[j];
			struct pev_record_format fa, fb;
			struct pev_record r;
			char why[256];

			rg_format(a, &fa);
			rg_format(b, &fb);
			memset(&r, 0x5a, sizeof(r));
			cr_assert_eq(pev_record_decode(&fa, a->words, a->nwords * 8, &r),
				     (int)a->nwords * 8);
			cr_assert_eq(pev_record_decode(&fb, b->words, b->nwords * 8, &r),
				     (int)b->nwords * 8, "%s after %s", b->name, a->name);
			cr_expect(rg_record_same(&b->want, &r, why, sizeof(why)), "%s after %s: %s",
				  b->name, a->name, why);
			/* After a failed decode of a (cut short) too. */
			cr_assert_eq(pev_record_decode(&fa, a->words, a->nwords * 8 - 8, &r),
				     PEV_EFORMAT);
			cr_assert_eq(pev_record_decode(&fb, b->words, b->nwords * 8, &r),
				     (int)b->nwords * 8);
			cr_expect(rg_record_same(&b->want, &r, why, sizeof(why)),
				  "%s after a failed %s: %s", b->name, a->name, why);
			/* And a again, now that b sits where a's fields were. */
			cr_assert_eq(pev_record_decode(&fa, a->words, a->nwords * 8, &r),
				     (int)a->nwords * 8);
			cr_expect(rg_record_same(&a->want, &r, why, sizeof(why)),
				  "%s after %s after itself: %s", a->name, b->name, why);
		}
	}
}

/* The same layout again with less in it: what the first sample had is gone. */
Test(record, same_layout_with_shorter_fields)
{
	struct pev_record_config c = PEV_RECORD_CONFIG_INIT;
	struct pev_record_format f;
	struct pev_record r, copy;
	struct rec big, small;

	c.sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_CALLCHAIN | PEV_SAMPLE_RAW |
			PEV_SAMPLE_BRANCH_STACK | PEV_SAMPLE_REGS_USER | PEV_SAMPLE_STACK_USER |
			PEV_SAMPLE_AUX | PEV_SAMPLE_WEIGHT;
	c.branch_sample_type = PEV_BRANCH_ANY | PEV_BRANCH_COUNTERS;
	c.sample_regs_user = 0x3;
	cr_assert_eq(pev_record_format_init(&f, &c), 0);

	begin(&big, PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER);
	put(&big, 0x401000);
	put(&big, 2), put(&big, PEV_CONTEXT_USER), put(&big, 0x401000); /* callchain */
	put(&big, u32x2(4, 0xdeadbeef));                                 /* raw */
	put(&big, 1), put(&big, 1), put(&big, 2), put(&big, 3), put(&big, 9); /* branches */
	put(&big, PEV_SAMPLE_REGS_ABI_64), put(&big, 7), put(&big, 8); /* regs */
	put(&big, 8), put(&big, 0x55), put(&big, 8);                     /* stack */
	put(&big, 33);                                                    /* weight */
	put(&big, 8), put(&big, 0xcc);                                    /* aux */
	finish(&big);

	begin(&small, PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER);
	put(&small, 0x402000);
	put(&small, 0);                         /* no callchain */
	put(&small, u32x2(4, 0x11111111));      /* raw */
	put(&small, 0);                         /* no branches */
	put(&small, PEV_SAMPLE_REGS_ABI_NONE);  /* no registers */
	put(&small, 0);                         /* no stack, no dyn_size */
	put(&small, 44);                        /* weight */
	put(&small, 0);                         /* no aux */
	finish(&small);

	cr_assert_eq(pev_record_decode(&f, big.w, big.n * 8, &r), (int)big.n * 8);
	cr_assert_eq(r.sample.branch.nr, 1u);
	cr_assert_not_null(r.sample.branch.counters);
	cr_assert_eq(pev_record_decode(&f, small.w, small.n * 8, &r), (int)small.n * 8);
	const struct pev_sample *s = &r.sample;
	cr_expect_eq(s->ip, 0x402000u);
	cr_expect(s->callchain_nr == 0 && s->callchain == NULL);
	cr_expect_eq(*(const uint32_t *)s->raw, 0x11111111u);
	cr_expect(s->branch.nr == 0 && !s->branch.entries && !s->branch.counters);
	cr_expect(s->regs_user.abi == 0 && s->regs_user.nr == 0 && !s->regs_user.regs);
	cr_expect_eq(s->regs_user.mask, 0x3u);
	cr_expect(s->stack_user.size == 0 && !s->stack_user.data && s->stack_user.dyn_size == 0);
	cr_expect_eq(s->weight, 44u);
	cr_expect(s->aux_size == 0 && !s->aux);

	/* The always-set members are set even when the format lacks them. */
	memset(&copy, 0xa5, sizeof(copy));
	cr_assert_eq(pev_record_decode(&f, small.w, small.n * 8, &copy), (int)small.n * 8);
	cr_expect_eq(copy.sample.period, 0u);
	cr_expect_eq(copy.sample.addr, 0u);
	cr_expect_eq(copy.sample_id.time, 0u);
	cr_expect_eq(copy.sample_id.identifier, 0u);
	cr_expect_eq(copy.id_fields, 0u);
	cr_expect_eq(copy.sample.fields, c.sample_type);
}


/* A record followed by more bytes: only header.size of them are consumed. */
Test(record, golden_records_in_a_longer_buffer)
{
	for (size_t i = 0; i < rg_golden_count; i++) {
		const struct rg_golden *g = &rg_golden[i];
		uint64_t buf[128];
		struct pev_record_format f;
		struct pev_record r;
		char why[256];

		cr_assert_leq(g->nwords + 3, ARRAY_SIZE(buf));
		memcpy(buf, g->words, g->nwords * 8);
		memset(buf + g->nwords, 0xee, 3 * 8);
		rg_format(g, &f);
		cr_expect_eq(pev_record_decode(&f, buf, (g->nwords + 3) * 8, &r), (int)g->nwords * 8,
			     "%s", g->name);
		cr_expect(rg_record_same(&g->want, &r, why, sizeof(why)), "%s: %s", g->name, why);
	}
}

/* pev_record_time() and pev_record_id() give what a full decode gives, from unaligned bytes too. */
Test(record, time_and_id_agree_with_decode)
{
	static unsigned char buf[1024 + 3];

	for (size_t i = 0; i < rg_golden_count; i++) {
		const struct rg_golden *g = &rg_golden[i];
		const struct pev_record *w = &g->want;
		size_t len = g->nwords * 8;
		struct pev_record_format f;
		uint64_t t = 0, id = 0;

		rg_format(g, &f);
		for (int shift = 0; shift < 4; shift += 3) {
			memcpy(buf + shift, g->words, len);
			int rt = pev_record_time(&f, buf + shift, len, &t);
			int ri = pev_record_id(&f, buf + shift, len, &id);
			bool has_time = w->id_fields & PEV_SAMPLE_TIME;
			bool has_id = w->id_fields & (PEV_SAMPLE_ID | PEV_SAMPLE_IDENTIFIER);

			cr_expect_eq(rt, has_time, "%s: time gave %d", g->name, rt);
			if (has_time)
				cr_expect_eq(t, w->sample_id.time, "%s: time", g->name);
			cr_expect_eq(ri, has_id, "%s: id gave %d", g->name, ri);
			if (has_id)
				cr_expect_eq(id,
					     w->id_fields & PEV_SAMPLE_IDENTIFIER ? w->sample_id.identifier
										  : w->sample_id.id,
					     "%s: id", g->name);
		}
	}
}

/* Every golden record, cut short at every byte: an error, nothing read past the cut. */
Test(record, golden_records_truncated_at_every_byte)
{
	for (size_t i = 0; i < rg_golden_count; i++) {
		const struct rg_golden *g = &rg_golden[i];
		size_t len = g->nwords * 8;
		struct pev_record_format f;
		uint64_t v;

		rg_format(g, &f);
		for (size_t cut = 0; cut < len; cut++) {
			struct pev_record r;
			void *copy;
			int n = decode_copy(&f, g->words, cut, &r, &copy);

			cr_expect_eq(n, PEV_EFORMAT, "%s cut at %zu: %d", g->name, cut, n);
			cr_expect_eq(pev_record_time(&f, copy, cut, &v), PEV_EFORMAT, "%s cut at %zu",
				     g->name, cut);
			cr_expect_eq(pev_record_id(&f, copy, cut, &v), PEV_EFORMAT, "%s cut at %zu",
				     g->name, cut);
			if (cut >= 8)
				cr_expect_eq(r.size, len, "%s: the header is reported on failure",
					     g->name);
			free(copy);
		}
	}
}

/* True for records whose body has a fixed size (or, for SAMPLE, a size its fields fix). */
static bool size_is_exact(uint32_t type)
{
	switch (type) {
	case PEV_RECORD_MMAP:
	case PEV_RECORD_MMAP2:
	case PEV_RECORD_COMM:
	case PEV_RECORD_KSYMBOL:
	case PEV_RECORD_CGROUP:
	case PEV_RECORD_TEXT_POKE:
		return false; /* padding after a string or bytes may vary */
	default:
		return type >= PEV_RECORD_MMAP && type < PEV_RECORD_KERNEL_MAX;
	}
}

/* A header whose size lies: below 8, not a whole word, above len, or off by a word. */
Test(record, header_size_lies)
{
	for (size_t i = 0; i < rg_golden_count; i++) {
		const struct rg_golden *g = &rg_golden[i];
		size_t len = g->nwords * 8;
		uint64_t buf[130];
		struct pev_record_format f;
		char what[160];

		rg_format(g, &f);
		memcpy(buf, g->words, len);
		memset(buf + g->nwords, 0, 16); /* room for a size one word too large */
		for (uint64_t lie = 0; lie < len + 16; lie++) {
			if (lie == len)
				continue;
			buf[0] = (g->words[0] & UINT64_C(0xffffffffffff)) | lie << 48;
			snprintf(what, sizeof(what), "%s with size %" PRIu64, g->name, lie);
			if (lie < 8 || lie % 8) {
				expect_malformed(&f, buf, len + 16, what);
			} else if (lie > len) {
				/* More bytes than the buffer given. */
				expect_malformed(&f, buf, len, what);
				if (size_is_exact(g->want.type))
					expect_malformed(&f, buf, len + 16, what);
			} else if (size_is_exact(g->want.type)) {
				expect_malformed(&f, buf, lie, what);
			} else {
				/* A string record cut short may still hold a NUL: no overread. */
				struct pev_record r;
				void *copy;
				int n = decode_copy(&f, buf, lie, &r, &copy);
				cr_expect(n == (int)lie || n == PEV_EFORMAT, "%s: %d", what, n);
				free(copy);
			}
		}
	}
}

/* Records back to back, decoded as a stream. */
Test(record, a_stream_of_records)
{
	static uint64_t buf[4096];
	const struct rg_golden *first = NULL;
	size_t at = 0, count = 0;
	struct pev_record_format f;

	/* Every record written by the common non-sample event, one after another. */
	for (size_t i = 0; i < rg_golden_count; i++) {
		const struct rg_golden *g = &rg_golden[i];
		if (!g->config.sample_id_all || g->config.read_format)
			continue;
		if (!first)
			first = g;
		memcpy(buf + at, g->words, g->nwords * 8);
		at += g->nwords;
		count++;
	}
	cr_assert_gt(count, 15);
	rg_format(first, &f);
	size_t off = 0, seen = 0;
	for (size_t i = 0; i < rg_golden_count && off < at * 8; i++) {
		const struct rg_golden *g = &rg_golden[i];
		struct pev_record r;
		char why[256];
		if (!g->config.sample_id_all || g->config.read_format)
			continue;
		int n = pev_record_decode(&f, (const char *)buf + off, at * 8 - off, &r);
		cr_assert_eq(n, (int)g->nwords * 8, "%s in a stream: %d", g->name, n);
		cr_expect(rg_record_same(&g->want, &r, why, sizeof(why)), "%s: %s", g->name, why);
		off += (size_t)n;
		seen++;
	}
	cr_expect_eq(seen, count);
	cr_expect_eq(off, at * 8);
}

/* ---- generated layouts ---------------------------------------------------------------- */

/* The fixed-size SAMPLE fields in the kernel's order, each with a value of its own. */
static const struct {
	uint64_t bit;
	uint64_t value;
} prefix[] = {
	{PEV_SAMPLE_IDENTIFIER, 0x1d1},
	{PEV_SAMPLE_IP, 0x401000},
	{PEV_SAMPLE_TID, (uint64_t)22 << 32 | 21},
	{PEV_SAMPLE_TIME, 0x7777},
	{PEV_SAMPLE_ADDR, 0xadd0},
	{PEV_SAMPLE_ID, 0xd1},
	{PEV_SAMPLE_STREAM_ID, 0x5d},
	{PEV_SAMPLE_CPU, (uint64_t)0 << 32 | 6},
	{PEV_SAMPLE_PERIOD, 4001},
};

Test(record, every_combination_of_the_fixed_sample_fields)
{
	for (unsigned mask = 0; mask < 1u << ARRAY_SIZE(prefix); mask++) {
		uint64_t st = 0;
		struct pev_record_format f;
		struct pev_record r;
		struct rec b;
		uint64_t v;
		void *copy;

		begin(&b, PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER);
		for (size_t k = 0; k < ARRAY_SIZE(prefix); k++)
			if (mask & (1u << k)) {
				st |= prefix[k].bit;
				put(&b, prefix[k].value);
			}
		finish(&b);
		format_of(&f, st, 0, false);
		cr_assert_eq(decode_copy(&f, b.w, b.n * 8, &r, &copy), (int)b.n * 8, "mask 0x%x", mask);
		cr_expect_eq(r.id_fields, st & ID_BITS, "mask 0x%x", mask);
		cr_expect_eq(r.sample.fields, st);
		cr_expect_eq(r.sample_id.identifier, st & PEV_SAMPLE_IDENTIFIER ? 0x1d1 : 0);
		cr_expect_eq(r.sample.ip, st & PEV_SAMPLE_IP ? 0x401000 : 0, "mask 0x%x", mask);
		cr_expect_eq(r.sample_id.pid, st & PEV_SAMPLE_TID ? 21u : 0u);
		cr_expect_eq(r.sample_id.tid, st & PEV_SAMPLE_TID ? 22u : 0u);
		cr_expect_eq(r.sample_id.time, st & PEV_SAMPLE_TIME ? 0x7777u : 0u, "mask 0x%x", mask);
		cr_expect_eq(r.sample.addr, st & PEV_SAMPLE_ADDR ? 0xadd0u : 0u);
		cr_expect_eq(r.sample_id.id, st & PEV_SAMPLE_ID ? 0xd1u : 0u, "mask 0x%x", mask);
		cr_expect_eq(r.sample_id.stream_id, st & PEV_SAMPLE_STREAM_ID ? 0x5du : 0u);
		cr_expect_eq(r.sample_id.cpu, st & PEV_SAMPLE_CPU ? 6u : 0u);
		cr_expect_eq(r.sample.period, st & PEV_SAMPLE_PERIOD ? 4001u : 0u, "mask 0x%x", mask);

		cr_expect_eq(pev_record_time(&f, copy, b.n * 8, &v), !!(st & PEV_SAMPLE_TIME));
		if (st & PEV_SAMPLE_TIME)
			cr_expect_eq(v, 0x7777u, "time, mask 0x%x", mask);
		cr_expect_eq(pev_record_id(&f, copy, b.n * 8, &v),
			     !!(st & (PEV_SAMPLE_ID | PEV_SAMPLE_IDENTIFIER)));
		if (st & (PEV_SAMPLE_ID | PEV_SAMPLE_IDENTIFIER))
			cr_expect_eq(v, st & PEV_SAMPLE_IDENTIFIER ? 0x1d1u : 0xd1u, "id, mask 0x%x",
				     mask);
		free(copy);

		/* One word short, one word long: both malformed. */
		if (b.n > 1) {
			b.n--;
			finish(&b);
			expect_malformed(&f, b.w, b.n * 8, "sample one word short");
			b.n++;
		}
		put(&b, 0);
		finish(&b);
		expect_malformed(&f, b.w, b.n * 8, "sample one word long");
	}
}

/* Every always-set member of a SAMPLE, over a struct full of garbage, for each format. */
Test(record, always_set_members_are_set)
{
	for (unsigned mask = 0; mask < 1u << ARRAY_SIZE(prefix); mask++) {
		for (int cc = 0; cc < 2; cc++) {
			uint64_t st = cc ? PEV_SAMPLE_CALLCHAIN : 0;
			struct pev_record_format f;
			struct pev_record r;
			struct rec b;

			begin(&b, PEV_RECORD_SAMPLE, 0);
			for (size_t k = 0; k < ARRAY_SIZE(prefix); k++)
				if (mask & (1u << k)) {
					st |= prefix[k].bit;
					put(&b, UINT64_MAX);
				}
			if (cc)
				put(&b, 0);
			finish(&b);
			format_of(&f, st, 0, false);
			memset(&r, 0xa5, sizeof(r));
			cr_assert_eq(pev_record_decode(&f, b.w, b.n * 8, &r), (int)b.n * 8);
			for (size_t k = 0; k < ARRAY_SIZE(prefix); k++) {
				if (mask & (1u << k))
					continue;
				uint64_t bit = prefix[k].bit;
				uint64_t v = bit == PEV_SAMPLE_IDENTIFIER ? r.sample_id.identifier
					     : bit == PEV_SAMPLE_IP       ? r.sample.ip
					     : bit == PEV_SAMPLE_TID      ? r.sample_id.pid | (uint64_t)r.sample_id.tid << 32
					     : bit == PEV_SAMPLE_TIME     ? r.sample_id.time
					     : bit == PEV_SAMPLE_ADDR     ? r.sample.addr
					     : bit == PEV_SAMPLE_ID       ? r.sample_id.id
					     : bit == PEV_SAMPLE_STREAM_ID ? r.sample_id.stream_id
					     : bit == PEV_SAMPLE_CPU ? r.sample_id.cpu | (uint64_t)r.sample_id.cpu_res << 32
								     : r.sample.period;
				cr_expect_eq(v, 0u, "mask 0x%x: absent field %zu not zero", mask, k);
			}
			cr_expect_eq(r.sample.callchain_nr, 0u);
			cr_expect_null(r.sample.callchain);
			cr_expect_eq(r.sample.fields, st);
			cr_expect_eq(r.id_fields, st & ID_BITS);
		}
	}
}

/* The words of a read_format block, as the uapi comment lays them out (3 values in a group). */
static void put_read_block(struct rec *b, uint64_t rf)
{
	int nr = rf & PEV_FORMAT_GROUP ? 3 : 1;

	if (rf & PEV_FORMAT_GROUP) {
		put(b, (uint64_t)nr);
		if (rf & PEV_FORMAT_TOTAL_TIME_ENABLED)
			put(b, 0xe0e0);
		if (rf & PEV_FORMAT_TOTAL_TIME_RUNNING)
			put(b, 0x7070);
		for (int k = 0; k < nr; k++) {
			put(b, 0x1000u + (uint64_t)k);
			if (rf & PEV_FORMAT_ID)
				put(b, 0xd0u + (uint64_t)k);
			if (rf & PEV_FORMAT_LOST)
				put(b, 0x10u + (uint64_t)k);
		}
		return;
	}
	put(b, 0x1000);
	if (rf & PEV_FORMAT_TOTAL_TIME_ENABLED)
		put(b, 0xe0e0);
	if (rf & PEV_FORMAT_TOTAL_TIME_RUNNING)
		put(b, 0x7070);
	if (rf & PEV_FORMAT_ID)
		put(b, 0xd0);
	if (rf & PEV_FORMAT_LOST)
		put(b, 0x10);
}

static void expect_read_block(const struct pev_read_data *rd, uint64_t rf, const char *how)
{
	uint64_t nr = rf & PEV_FORMAT_GROUP ? 3 : 1;
	struct pev_read_value v;

	cr_expect_eq(rd->read_format, rf, "%s rf 0x%" PRIx64, how, rf);
	cr_expect_eq(rd->nr, nr, "%s rf 0x%" PRIx64, how, rf);
	cr_expect_eq(rd->time_enabled, rf & PEV_FORMAT_TOTAL_TIME_ENABLED ? 0xe0e0u : 0u);
	cr_expect_eq(rd->time_running, rf & PEV_FORMAT_TOTAL_TIME_RUNNING ? 0x7070u : 0u);
	for (uint64_t k = 0; k < nr; k++) {
		cr_assert_eq(pev_read_data_value(rd, k, &v), 0);
		cr_expect_eq(v.value, 0x1000 + k, "%s rf 0x%" PRIx64 " value %" PRIu64, how, rf, k);
		cr_expect_eq(v.id, rf & PEV_FORMAT_ID ? 0xd0 + k : 0, "%s rf 0x%" PRIx64, how, rf);
		cr_expect_eq(v.lost, rf & PEV_FORMAT_LOST ? 0x10 + k : 0, "%s rf 0x%" PRIx64, how, rf);
	}
	cr_expect_eq(pev_read_data_value(rd, nr, &v), PEV_EBADARG);
}

Test(record, every_read_format_in_a_sample_and_a_read_record)
{
	for (uint64_t rf = 0; rf <= PEV_FORMAT_ALL; rf++) {
		struct pev_record_format f;
		struct pev_record r;
		struct rec b;
		void *copy;

		/* SAMPLE with TID, READ and PERIOD: the block sits between fixed fields. */
		format_of(&f, PEV_SAMPLE_TID | PEV_SAMPLE_READ | PEV_SAMPLE_PERIOD, rf, false);
		begin(&b, PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER);
		put(&b, u32x2(5, 6));
		put(&b, 1000); /* period */
		put_read_block(&b, rf);
		finish(&b);
		cr_assert_eq(decode_copy(&f, b.w, b.n * 8, &r, &copy), (int)b.n * 8, "rf 0x%" PRIx64, rf);
		expect_read_block(&r.sample.read, rf, "SAMPLE");
		cr_expect_eq(r.sample.period, 1000u);
		free(copy);
		b.n--; /* one word of the block missing */
		finish(&b);
		expect_malformed(&f, b.w, b.n * 8, "SAMPLE READ one word short");

		/* READ record with a trailer of TID and TIME. */
		format_of(&f, PEV_SAMPLE_TID | PEV_SAMPLE_TIME, rf, true);
		begin(&b, PEV_RECORD_READ, 0);
		put(&b, u32x2(7, 8));
		put_read_block(&b, rf);
		put(&b, u32x2(7, 8));
		put(&b, 0x5555);
		finish(&b);
		cr_assert_eq(decode_copy(&f, b.w, b.n * 8, &r, &copy), (int)b.n * 8, "rf 0x%" PRIx64, rf);
		expect_read_block(&r.read.values, rf, "READ");
		cr_expect_eq(r.read.pid, 7u);
		cr_expect_eq(r.read.tid, 8u);
		cr_expect_eq(r.sample_id.time, 0x5555u);
		free(copy);
	}
}

Test(record, group_reads_bounded_by_the_bytes_and_group_size)
{
	uint64_t rf = PEV_FORMAT_GROUP | PEV_FORMAT_ID;
	struct pev_record_config c = PEV_RECORD_CONFIG_INIT;
	struct pev_record_format f;
	struct rec b;

	c.sample_type = PEV_SAMPLE_READ;
	c.read_format = rf;
	c.group_size = 3;
	cr_assert_eq(pev_record_format_init(&f, &c), 0);
	begin(&b, PEV_RECORD_SAMPLE, 0);
	put_read_block(&b, rf);
	finish(&b);
	struct pev_record r;
	cr_expect_eq(pev_record_decode(&f, b.w, b.n * 8, &r), (int)b.n * 8);

	/* nr 0: a group read always holds the leader. */
	b.w[1] = 0;
	expect_malformed(&f, b.w, b.n * 8, "group nr 0");
	/* nr 2 of a block of 3: words left over. */
	b.w[1] = 2;
	expect_malformed(&f, b.w, b.n * 8, "group nr too small");
	/* nr huge, and nr * words-per-entry wrapping around. */
	uint64_t huge[] = {4, UINT64_MAX, UINT64_MAX / 2 + 1, (UINT64_MAX / 2) + 2,
			   UINT64_C(0x8000000000000001)};
	for (size_t k = 0; k < ARRAY_SIZE(huge); k++) {
		b.w[1] = huge[k];
		expect_malformed(&f, b.w, b.n * 8, "group nr too large");
	}
	/* Bigger than the group the caller knows, even when the bytes would hold it. */
	c.group_size = 2;
	cr_assert_eq(pev_record_format_init(&f, &c), 0);
	b.w[1] = 3;
	expect_malformed(&f, b.w, b.n * 8, "group nr above group_size");
	c.group_size = 0; /* unknown: the bytes decide */
	cr_assert_eq(pev_record_format_init(&f, &c), 0);
	cr_expect_eq(pev_record_decode(&f, b.w, b.n * 8, &r), (int)b.n * 8);
}

/* The trailer's values, in the order the kernel writes them. */
static const struct {
	uint64_t bit;
	uint64_t value;
} trailer[] = {
	{PEV_SAMPLE_TID, (uint64_t)32 << 32 | 31},
	{PEV_SAMPLE_TIME, 0x71000},
	{PEV_SAMPLE_ID, 0x7200},
	{PEV_SAMPLE_STREAM_ID, 0x7300},
	{PEV_SAMPLE_CPU, (uint64_t)0x99 << 32 | 7},
	{PEV_SAMPLE_IDENTIFIER, 0x7400},
};

static void put_trailer(struct rec *b, uint64_t st)
{
	for (size_t k = 0; k < ARRAY_SIZE(trailer); k++)
		if (st & trailer[k].bit)
			put(b, trailer[k].value);
}

static void expect_trailer(const struct pev_record *r, uint64_t st, const char *how)
{
	cr_expect_eq(r->id_fields, st, "%s st 0x%" PRIx64, how, st);
	cr_expect_eq(r->sample_id.pid, st & PEV_SAMPLE_TID ? 31u : 0u, "%s st 0x%" PRIx64, how, st);
	cr_expect_eq(r->sample_id.tid, st & PEV_SAMPLE_TID ? 32u : 0u);
	cr_expect_eq(r->sample_id.time, st & PEV_SAMPLE_TIME ? 0x71000u : 0u, "%s st 0x%" PRIx64,
		     how, st);
	cr_expect_eq(r->sample_id.id, st & PEV_SAMPLE_ID ? 0x7200u : 0u, "%s st 0x%" PRIx64, how,
		     st);
	cr_expect_eq(r->sample_id.stream_id, st & PEV_SAMPLE_STREAM_ID ? 0x7300u : 0u);
	cr_expect_eq(r->sample_id.cpu, st & PEV_SAMPLE_CPU ? 7u : 0u);
	cr_expect_eq(r->sample_id.cpu_res, st & PEV_SAMPLE_CPU ? 0x99u : 0u);
	cr_expect_eq(r->sample_id.identifier, st & PEV_SAMPLE_IDENTIFIER ? 0x7400u : 0u);
}

Test(record, every_sample_id_trailer)
{
	for (unsigned mask = 0; mask < 1u << ARRAY_SIZE(trailer); mask++) {
		uint64_t st = 0;

		for (size_t k = 0; k < ARRAY_SIZE(trailer); k++)
			if (mask & (1u << k))
				st |= trailer[k].bit;
		for (int kind = 0; kind < 3; kind++) {
			/* Sampling bits that must not change the trailer. */
			uint64_t sample_bits = PEV_SAMPLE_IP | PEV_SAMPLE_CALLCHAIN | PEV_SAMPLE_ADDR;
			struct pev_record_format f;
			struct pev_record r;
			struct rec b;
			uint64_t v;
			void *copy;

			format_of(&f, st | sample_bits, 0, true);
			cr_expect_eq(f.id_size, 8 * __builtin_popcountll(st));
			if (kind == 0) {
				begin(&b, PEV_RECORD_LOST, 0);
				put(&b, 0xabc);
				put(&b, 12);
			} else if (kind == 1) {
				begin(&b, PEV_RECORD_COMM, PEV_RECORD_MISC_USER);
				put(&b, u32x2(1, 2));
				put(&b, 0x0000786f66656972); /* "riefox": r i e f o x, NUL */
			} else {
				begin(&b, PEV_RECORD_SWITCH, PEV_RECORD_MISC_SWITCH_OUT);
			}
			put_trailer(&b, st);
			finish(&b);
			cr_assert_eq(decode_copy(&f, b.w, b.n * 8, &r, &copy), (int)b.n * 8,
				     "kind %d st 0x%" PRIx64, kind, st);
			expect_trailer(&r, st, pev_record_type_name(r.type));
			if (kind == 0)
				cr_expect(r.lost.id == 0xabc && r.lost.lost == 12);
			else if (kind == 1)
				cr_expect_str_eq(r.comm.comm, "riefox");
			cr_expect_eq(pev_record_time(&f, copy, b.n * 8, &v), !!(st & PEV_SAMPLE_TIME));
			if (st & PEV_SAMPLE_TIME)
				cr_expect_eq(v, 0x71000u);
			cr_expect_eq(pev_record_id(&f, copy, b.n * 8, &v),
				     !!(st & (PEV_SAMPLE_ID | PEV_SAMPLE_IDENTIFIER)));
			if (st & (PEV_SAMPLE_ID | PEV_SAMPLE_IDENTIFIER))
				cr_expect_eq(v, st & PEV_SAMPLE_IDENTIFIER ? 0x7400u : 0x7200u);
			free(copy);

			/* Decoded with sample_id_all off, the trailer is body: fixed bodies object. */
			if (st && kind != 1) {
				format_of(&f, st | sample_bits, 0, false);
				expect_malformed(&f, b.w, b.n * 8, "trailer without sample_id_all");
			}
		}
	}
}

Test(record, branch_stacks_with_and_without_hw_idx_and_counters)
{
	for (int opts = 0; opts < 4; opts++) {
		uint64_t bst = PEV_BRANCH_ANY | (opts & 1 ? PEV_BRANCH_HW_INDEX : 0) |
			       (opts & 2 ? PEV_BRANCH_COUNTERS : 0);
		for (uint64_t nr = 0; nr < 5; nr++) {
			struct pev_record_config c = PEV_RECORD_CONFIG_INIT;
			struct pev_record_format f;
			struct pev_record r;
			struct rec b;
			void *copy;

			c.sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_BRANCH_STACK | PEV_SAMPLE_WEIGHT;
			c.branch_sample_type = bst;
			cr_assert_eq(pev_record_format_init(&f, &c), 0);
			begin(&b, PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER);
			put(&b, 0x401000);
			put(&b, nr);
			if (bst & PEV_BRANCH_HW_INDEX)
				put(&b, 0x11 + nr);
			for (uint64_t k = 0; k < nr; k++) {
				put(&b, 0x500000 + k);
				put(&b, 0x600000 + k);
				put(&b, k << 4);
			}
			if (bst & PEV_BRANCH_COUNTERS)
				for (uint64_t k = 0; k < nr; k++)
					put(&b, 0xc0 + k);
			put(&b, 77); /* weight: the field after the stack lands right */
			finish(&b);
			cr_assert_eq(decode_copy(&f, b.w, b.n * 8, &r, &copy), (int)b.n * 8,
				     "opts %d nr %" PRIu64, opts, nr);
			const struct pev_branch_stack *s = &r.sample.branch;
			cr_expect_eq(s->nr, nr);
			cr_expect_eq(s->hw_idx, bst & PEV_BRANCH_HW_INDEX ? 0x11 + nr : 0);
			cr_expect_eq(s->entries == NULL, nr == 0);
			cr_expect_eq(s->counters == NULL, nr == 0 || !(bst & PEV_BRANCH_COUNTERS));
			for (uint64_t k = 0; k < nr; k++) {
				cr_expect_eq(s->entries[k].from, 0x500000 + k);
				cr_expect_eq(s->entries[k].to, 0x600000 + k);
				cr_expect_eq(PEV_BRANCH_ENTRY_CYCLES(s->entries[k].flags), k);
				if (s->counters)
					cr_expect_eq(s->counters[k], 0xc0 + k);
			}
			cr_expect_eq(r.sample.weight, 77u, "opts %d nr %" PRIu64, opts, nr);
			free(copy);
		}
	}
}

/* ---- malformed bodies ------------------------------------------------------------------ */

/* A sample of one variable field: `words` after the header, decoded with format f. */
static void expect_sample_malformed(uint64_t st, const struct pev_record_config *extra,
				    const uint64_t *words, size_t n, const char *what)
{
	struct pev_record_config c = PEV_RECORD_CONFIG_INIT;
	struct pev_record_format f;
	struct rec b;

	if (extra)
		c = *extra;
	c.sample_type = st;
	cr_assert_eq(pev_record_format_init(&f, &c), 0);
	begin(&b, PEV_RECORD_SAMPLE, 0);
	for (size_t k = 0; k < n; k++)
		put(&b, words[k]);
	finish(&b);
	expect_malformed(&f, b.w, b.n * 8, what);
}

#define SAMPLE_BAD(st, extra, what, ...)                                                           \
	do {                                                                                       \
		const uint64_t w_[] = {__VA_ARGS__};                                               \
		expect_sample_malformed((st), (extra), w_, ARRAY_SIZE(w_), (what));                \
	} while (0)

Test(record, callchain_counts_that_overflow)
{
	const uint64_t bad[] = {3, 4, 1000, UINT64_MAX, UINT64_MAX / 8 + 1,
				UINT64_C(0x2000000000000001), UINT64_C(1) << 61};

	for (size_t k = 0; k < ARRAY_SIZE(bad); k++)
		SAMPLE_BAD(PEV_SAMPLE_CALLCHAIN, NULL, "callchain nr beyond the record", bad[k], 1,
			   2);
	/* nr 1 with 2 entries there: a word left over. */
	SAMPLE_BAD(PEV_SAMPLE_CALLCHAIN, NULL, "callchain nr too small", 1, 1, 2);
	SAMPLE_BAD(PEV_SAMPLE_CALLCHAIN, NULL, "callchain without nr");
}

Test(record, raw_sizes_beyond_the_record_or_unpadded)
{
	/* size word + data must fill whole words, inside the record. */
	SAMPLE_BAD(PEV_SAMPLE_RAW, NULL, "raw size 12 with 4 bytes", u32x2(12, 0));
	SAMPLE_BAD(PEV_SAMPLE_RAW, NULL, "raw size 5 (unpadded)", u32x2(5, 0), 0);
	SAMPLE_BAD(PEV_SAMPLE_RAW, NULL, "raw size 0 (unpadded)", u32x2(0, 0));
	SAMPLE_BAD(PEV_SAMPLE_RAW, NULL, "raw size huge", u32x2(UINT32_MAX, 0), 0);
	SAMPLE_BAD(PEV_SAMPLE_RAW, NULL, "raw size wraps", u32x2(UINT32_MAX - 3, 0), 0);
	SAMPLE_BAD(PEV_SAMPLE_RAW, NULL, "raw without size");
}

Test(record, branch_counts_that_overflow)
{
	struct pev_record_config c = PEV_RECORD_CONFIG_INIT;
	const uint64_t bad[] = {2, UINT64_MAX, UINT64_MAX / 24 + 1, UINT64_C(0x0aaaaaaaaaaaaaab),
				UINT64_MAX / 32 + 1};

	for (int counters = 0; counters < 2; counters++) {
		c.branch_sample_type = PEV_BRANCH_ANY | (counters ? PEV_BRANCH_COUNTERS : 0);
		for (size_t k = 0; k < ARRAY_SIZE(bad); k++)
			SAMPLE_BAD(PEV_SAMPLE_BRANCH_STACK, &c, "branch nr beyond the record", bad[k],
				   1, 2, 3, 4);
	}
	/* One entry but no room for its counter. */
	c.branch_sample_type = PEV_BRANCH_COUNTERS;
	SAMPLE_BAD(PEV_SAMPLE_BRANCH_STACK, &c, "branch counters missing", 1, 1, 2, 3);
	/* HW_INDEX announced but absent. */
	c.branch_sample_type = PEV_BRANCH_HW_INDEX;
	SAMPLE_BAD(PEV_SAMPLE_BRANCH_STACK, &c, "branch hw_idx missing", 0);
}

Test(record, register_dumps_without_room)
{
	struct pev_record_config c = PEV_RECORD_CONFIG_INIT;

	c.sample_regs_user = 0xff;
	c.sample_regs_intr = UINT64_MAX; /* 64 registers */
	SAMPLE_BAD(PEV_SAMPLE_REGS_USER, &c, "regs_user: 8 registers, 2 there",
		   PEV_SAMPLE_REGS_ABI_64, 1, 2);
	SAMPLE_BAD(PEV_SAMPLE_REGS_USER, &c, "regs_user: any non-NONE abi has registers", 77, 1);
	SAMPLE_BAD(PEV_SAMPLE_REGS_INTR, &c, "regs_intr: 64 registers, 1 there",
		   PEV_SAMPLE_REGS_ABI_32, 1);
	SAMPLE_BAD(PEV_SAMPLE_REGS_USER, &c, "regs_user without abi");
	/* ABI NONE but words follow: left over. */
	SAMPLE_BAD(PEV_SAMPLE_REGS_USER, &c, "regs_user NONE with words", PEV_SAMPLE_REGS_ABI_NONE,
		   1);
}

Test(record, user_stacks_that_lie)
{
	SAMPLE_BAD(PEV_SAMPLE_STACK_USER, NULL, "stack size beyond the record", 64, 1, 8);
	SAMPLE_BAD(PEV_SAMPLE_STACK_USER, NULL, "stack size huge", UINT64_MAX, 1, 8);
	SAMPLE_BAD(PEV_SAMPLE_STACK_USER, NULL, "stack size not whole words", 12, 1, 2, 8);
	SAMPLE_BAD(PEV_SAMPLE_STACK_USER, NULL, "dyn_size above size", 8, 1, 9);
	SAMPLE_BAD(PEV_SAMPLE_STACK_USER, NULL, "dyn_size missing", 8, 1);
	SAMPLE_BAD(PEV_SAMPLE_AUX, NULL, "aux size beyond the record", 16, 1);
	SAMPLE_BAD(PEV_SAMPLE_AUX, NULL, "aux size not whole words", 4, 1);
	SAMPLE_BAD(PEV_SAMPLE_AUX, NULL, "aux size huge", UINT64_MAX - 7, 1);
}

Test(record, each_single_word_field_missing)
{
	const uint64_t words[] = {PEV_SAMPLE_WEIGHT,         PEV_SAMPLE_WEIGHT_STRUCT,
				  PEV_SAMPLE_DATA_SRC,       PEV_SAMPLE_TRANSACTION,
				  PEV_SAMPLE_PHYS_ADDR,      PEV_SAMPLE_CGROUP,
				  PEV_SAMPLE_DATA_PAGE_SIZE, PEV_SAMPLE_CODE_PAGE_SIZE,
				  PEV_SAMPLE_AUX,            PEV_SAMPLE_READ};
	for (size_t k = 0; k < ARRAY_SIZE(words); k++)
		SAMPLE_BAD(words[k] | PEV_SAMPLE_IP, NULL, "a field missing at the end", 0x401000);
}

/* A non-sample record whose body is `words`, decoded without a trailer. */
static void expect_body_malformed(uint32_t type, uint16_t misc, const uint64_t *words, size_t n,
				  const char *what)
{
	struct pev_record_format f;
	struct rec b;

	format_of(&f, PEV_SAMPLE_IP, 0, false);
	begin(&b, type, misc);
	for (size_t k = 0; k < n; k++)
		put(&b, words[k]);
	finish(&b);
	expect_malformed(&f, b.w, b.n * 8, what);
}

#define BODY_BAD(type, misc, what, ...)                                                            \
	do {                                                                                       \
		const uint64_t w_[] = {__VA_ARGS__};                                               \
		expect_body_malformed((type), (misc), w_, ARRAY_SIZE(w_), (what));                 \
	} while (0)

#define NO_NUL UINT64_C(0x4141414141414141)

Test(record, strings_without_their_nul)
{
	BODY_BAD(PEV_RECORD_COMM, 0, "COMM without NUL", u32x2(1, 2), NO_NUL, NO_NUL);
	BODY_BAD(PEV_RECORD_COMM, 0, "COMM without name", u32x2(1, 2));
	BODY_BAD(PEV_RECORD_MMAP, 0, "MMAP without NUL", u32x2(1, 2), 1, 2, 3, NO_NUL);
	BODY_BAD(PEV_RECORD_MMAP, 0, "MMAP without name", u32x2(1, 2), 1, 2, 3);
	BODY_BAD(PEV_RECORD_MMAP2, 0, "MMAP2 without NUL", u32x2(1, 2), 1, 2, 3, 4, 5, 6, 7,
		 NO_NUL);
	BODY_BAD(PEV_RECORD_KSYMBOL, 0, "KSYMBOL without NUL", 1, 2, NO_NUL, NO_NUL);
	BODY_BAD(PEV_RECORD_CGROUP, 0, "CGROUP without NUL", 1, NO_NUL);
	BODY_BAD(PEV_RECORD_CGROUP, 0, "CGROUP without path", 1);
}

Test(record, bodies_of_the_wrong_size)
{
	BODY_BAD(PEV_RECORD_MMAP, 0, "MMAP short", u32x2(1, 2), 1, 2);
	BODY_BAD(PEV_RECORD_MMAP2, 0, "MMAP2 short", u32x2(1, 2), 1, 2, 3, 4, 5, 6);
	BODY_BAD(PEV_RECORD_MMAP2, PEV_RECORD_MISC_MMAP_BUILD_ID, "MMAP2 build id size 21",
		 u32x2(1, 2), 1, 2, 3, 21, 0, 0, 5, 0);
	BODY_BAD(PEV_RECORD_LOST, 0, "LOST short", 1);
	BODY_BAD(PEV_RECORD_LOST, 0, "LOST long", 1, 2, 3);
	BODY_BAD(PEV_RECORD_EXIT, 0, "EXIT short", 1, 2);
	BODY_BAD(PEV_RECORD_FORK, 0, "FORK long", 1, 2, 3, 4);
	BODY_BAD(PEV_RECORD_THROTTLE, 0, "THROTTLE short", 1);
	BODY_BAD(PEV_RECORD_UNTHROTTLE, 0, "UNTHROTTLE long", 1, 2, 3, 4);
	BODY_BAD(PEV_RECORD_READ, 0, "READ without values", u32x2(1, 2));
	BODY_BAD(PEV_RECORD_READ, 0, "READ with words left over", u32x2(1, 2), 5, 6);
	BODY_BAD(PEV_RECORD_AUX, 0, "AUX short", 1, 2);
	BODY_BAD(PEV_RECORD_ITRACE_START, 0, "ITRACE_START long", 1, 2);
	BODY_BAD(PEV_RECORD_LOST_SAMPLES, 0, "LOST_SAMPLES long", 1, 2);
	BODY_BAD(PEV_RECORD_SWITCH, 0, "SWITCH with a body", 1);
	BODY_BAD(PEV_RECORD_SWITCH_CPU_WIDE, 0, "SWITCH_CPU_WIDE long", 1, 2);
	BODY_BAD(PEV_RECORD_NAMESPACES, 0, "NAMESPACES without nr", u32x2(1, 2));
	BODY_BAD(PEV_RECORD_NAMESPACES, 0, "NAMESPACES nr beyond", u32x2(1, 2), 2, 1, 2);
	BODY_BAD(PEV_RECORD_NAMESPACES, 0, "NAMESPACES nr huge", u32x2(1, 2), UINT64_MAX, 1, 2);
	BODY_BAD(PEV_RECORD_NAMESPACES, 0, "NAMESPACES nr wraps", u32x2(1, 2),
		 UINT64_C(0x1000000000000001), 1, 2);
	BODY_BAD(PEV_RECORD_NAMESPACES, 0, "NAMESPACES nr too small", u32x2(1, 2), 0, 1, 2);
	BODY_BAD(PEV_RECORD_KSYMBOL, 0, "KSYMBOL short", 1);
	BODY_BAD(PEV_RECORD_BPF_EVENT, 0, "BPF_EVENT short", 1);
	BODY_BAD(PEV_RECORD_BPF_EVENT, 0, "BPF_EVENT long", 1, 2, 3);
	BODY_BAD(PEV_RECORD_TEXT_POKE, 0, "TEXT_POKE short", 1);
	BODY_BAD(PEV_RECORD_TEXT_POKE, 0, "TEXT_POKE bytes beyond", 1, u32x2(0x00050005, 0));
	BODY_BAD(PEV_RECORD_TEXT_POKE, 0, "TEXT_POKE bytes beyond by one", 1, u32x2(0x000a0003, 0), 0);
	BODY_BAD(PEV_RECORD_TEXT_POKE, 0, "TEXT_POKE lengths huge", 1, u32x2(0xffffffff, 0), 0);
	BODY_BAD(PEV_RECORD_AUX_OUTPUT_HW_ID, 0, "AUX_OUTPUT_HW_ID long", 1, 2);
	/* Below the trailer: a record shorter than the trailer the format promises. */
	struct pev_record_format f;
	struct rec b;
	format_of(&f, ID_BITS, 0, true);
	begin(&b, PEV_RECORD_SWITCH, 0);
	put(&b, 1);
	put(&b, 2);
	finish(&b);
	expect_malformed(&f, b.w, b.n * 8, "record shorter than its trailer");
	uint64_t v;
	cr_expect_eq(pev_record_time(&f, b.w, b.n * 8, &v), PEV_EFORMAT);
	cr_expect_eq(pev_record_id(&f, b.w, b.n * 8, &v), PEV_EFORMAT);
}

/* ---- why a record is malformed ------------------------------------------------------------ */

/*
 * Decodes the first len bytes of the record built in b with format f:
 * PEV_EFORMAT, and pev_last_error() names field ("" for none) and holds each
 * of the texts after it.
 */
#define EXPECT_REASON_LEN(f, b, len, field, ...)                                                   \
	do {                                                                                       \
		struct pev_record r_;                                                              \
		void *copy_;                                                                       \
		int n_ = decode_copy((f), (b)->w, (len), &r_, &copy_);                             \
		cr_expect_eq(n_, PEV_EFORMAT, "decode gave %d, want PEV_EFORMAT", n_);             \
		free(copy_);                                                                       \
		th_expect_last_error(PEV_EFORMAT, (field), __VA_ARGS__, NULL);                     \
	} while (0)

/* The same for the whole record. */
#define EXPECT_REASON(f, b, field, ...) EXPECT_REASON_LEN(f, b, (b)->n * 8, field, __VA_ARGS__)

/* Records other than SAMPLE, and headers: the type, the size and the fault. */
Test(record, malformed_records_say_why)
{
	struct pev_record_format f;
	struct rec b;

	format_of(&f, PEV_SAMPLE_IP, 0, false);

	/* An MMAP2 body cut short. */
	begin(&b, PEV_RECORD_MMAP2, 0);
	put(&b, u32x2(1, 2));
	put(&b, 0x400000);
	put(&b, 0x1000);
	finish(&b);
	EXPECT_REASON(&f, &b, "", "pev_record_decode: MMAP2 record of 32 bytes: ",
		      "its body is 24 bytes, at least 64 expected");

	/* An MMAP2 build id longer than the kernel's 20 bytes. */
	begin(&b, PEV_RECORD_MMAP2, PEV_RECORD_MISC_MMAP_BUILD_ID);
	put(&b, u32x2(1, 2));
	for (int k = 0; k < 3; k++)
		put(&b, 0);
	put(&b, 40); /* build_id_size, then 3 bytes of padding and the id */
	for (int k = 0; k < 3; k++)
		put(&b, 0);
	put(&b, 0); /* NUL-terminated filename "" */
	finish(&b);
	EXPECT_REASON(&f, &b, "", "MMAP2 record of 80 bytes: build id size 40 is above 20");

	/* A COMM whose name has no NUL. */
	begin(&b, PEV_RECORD_COMM, 0);
	put(&b, u32x2(1, 2));
	put(&b, NO_NUL);
	put(&b, NO_NUL);
	finish(&b);
	EXPECT_REASON(&f, &b, "", "pev_record_decode: COMM record of 32 bytes: ",
		      "its comm has no NUL in its 16 bytes");

	/* A fixed-size body of the wrong size. */
	begin(&b, PEV_RECORD_LOST, 0);
	put(&b, 1);
	finish(&b);
	EXPECT_REASON(&f, &b, "", "LOST record of 16 bytes: ",
		      "its body is 8 bytes, exactly 16 expected");

	/* Header sizes that lie: below 8, above the bytes given, not whole words. */
	begin(&b, PEV_RECORD_LOST, 0);
	put(&b, 1);
	put(&b, 2);
	b.w[0] = (uint64_t)PEV_RECORD_LOST | (uint64_t)4 << 48;
	EXPECT_REASON(&f, &b, "", "pev_record_decode: LOST record: header size 4 is below 8");
	b.w[0] = (uint64_t)PEV_RECORD_LOST | (uint64_t)512 << 48;
	EXPECT_REASON(&f, &b, "", "LOST record: header size 512 is above the 24 bytes given");
	b.w[0] = (uint64_t)PEV_RECORD_LOST | (uint64_t)20 << 48;
	EXPECT_REASON(&f, &b, "", "LOST record: header size 20 is not a multiple of 8");
	EXPECT_REASON_LEN(&f, &b, 5, "",
			  "pev_record_decode: 5 bytes given, fewer than the 8 of a record header");

	/* A record shorter than the sample_id trailer of its format. */
	format_of(&f, ID_BITS, 0, true);
	begin(&b, PEV_RECORD_SWITCH, 0);
	put(&b, 1);
	put(&b, 2);
	finish(&b);
	EXPECT_REASON(&f, &b, "", "SWITCH record of 24 bytes: ",
		      "its 16 bytes after the header cannot hold the 48-byte sample_id trailer");
	/* A body that is wrong once the trailer is set aside. */
	begin(&b, PEV_RECORD_LOST, 0);
	for (int k = 0; k < 7; k++)
		put(&b, (uint64_t)k);
	finish(&b);
	EXPECT_REASON(&f, &b, "", "LOST record of 64 bytes: ",
		      "its body is 8 bytes besides its 48-byte sample_id trailer, exactly 16 "
		      "expected");
}

/* SAMPLEs: the field at fault is named, as the error's field and in the message. */
Test(record, malformed_samples_name_the_field)
{
	struct pev_record_format f;
	struct rec b;

	/* A callchain count running past the record (the inline path hands it on). */
	format_of(&f, PEV_SAMPLE_IP | PEV_SAMPLE_CALLCHAIN, 0, false);
	begin(&b, PEV_RECORD_SAMPLE, 0);
	put(&b, 0x401000);
	put(&b, 900);
	put(&b, 1);
	put(&b, 2);
	put(&b, 3);
	finish(&b);
	EXPECT_REASON(&f, &b, "callchain", "pev_record_decode: SAMPLE record of 48 bytes: ",
		      "PEV_SAMPLE_CALLCHAIN: 900 entries need 7200 bytes, 24 remain");
	/* A count whose bytes do not fit in 64 bits. */
	b.w[2] = UINT64_MAX;
	EXPECT_REASON(&f, &b, "callchain", "PEV_SAMPLE_CALLCHAIN: 18446744073709551615 entries",
		      "2^64 bytes or more, 24 remain");
	/* A count too small: words left over. */
	b.w[2] = 2;
	EXPECT_REASON(&f, &b, "",
		      "SAMPLE record of 48 bytes: 8 bytes are left over after the fields of "
		      "sample_type 0x21");

	/* Shorter than the fixed-size fields. */
	format_of(&f, PEV_SAMPLE_IP | PEV_SAMPLE_TID | PEV_SAMPLE_TIME, 0, false);
	begin(&b, PEV_RECORD_SAMPLE, 0);
	put(&b, 0x401000);
	finish(&b);
	EXPECT_REASON(&f, &b, "", "SAMPLE record of 16 bytes: ",
		      "sample_type 0x7 needs at least 32 bytes");

	/* A field after CALLCHAIN, on the general path. */
	format_of(&f, PEV_SAMPLE_BRANCH_STACK, 0, false);
	begin(&b, PEV_RECORD_SAMPLE, 0);
	put(&b, 2);
	put(&b, 1);
	finish(&b);
	EXPECT_REASON(&f, &b, "branch_stack",
		      "PEV_SAMPLE_BRANCH_STACK: 2 entries need 48 bytes, 8 remain");

	/* A read_format block: under READ in a SAMPLE, under no field in a READ record. */
	format_of(&f, PEV_SAMPLE_READ, PEV_FORMAT_GROUP, false);
	begin(&b, PEV_RECORD_SAMPLE, 0);
	put(&b, 0);
	finish(&b);
	EXPECT_REASON(&f, &b, "read", "SAMPLE record of 16 bytes: PEV_SAMPLE_READ: group count 0");
	begin(&b, PEV_RECORD_READ, 0);
	put(&b, u32x2(1, 2));
	put(&b, 0);
	finish(&b);
	EXPECT_REASON(&f, &b, "", "READ record of 24 bytes: group count 0");
}

/* The fast reads say why too, under their own names. */
Test(record, time_and_id_say_why)
{
	struct pev_record_format f;
	struct rec b;
	uint64_t v;

	format_of(&f, PEV_SAMPLE_TIME | PEV_SAMPLE_IDENTIFIER, 0, false);
	begin(&b, PEV_RECORD_SAMPLE, 0);
	put(&b, 7); /* the identifier; no room for the time */
	finish(&b);
	cr_expect_eq(pev_record_time(&f, b.w, b.n * 8, &v), PEV_EFORMAT);
	th_expect_last_error(PEV_EFORMAT, "time", "pev_record_time: SAMPLE record of 16 bytes: ",
			     "PEV_SAMPLE_TIME: its word at bytes 16..23 lies past the record's end",
			     NULL);
	begin(&b, PEV_RECORD_SAMPLE, 0);
	finish(&b);
	cr_expect_eq(pev_record_id(&f, b.w, b.n * 8, &v), PEV_EFORMAT);
	th_expect_last_error(PEV_EFORMAT, "identifier", "pev_record_id: SAMPLE record of 8 bytes: ",
			     "PEV_SAMPLE_IDENTIFIER: its word at bytes 8..15", NULL);

	b.w[0] = (uint64_t)PEV_RECORD_LOST | (uint64_t)4 << 48;
	cr_expect_eq(pev_record_time(&f, b.w, 8, &v), PEV_EFORMAT);
	th_expect_last_error(PEV_EFORMAT, "", "pev_record_time: LOST record: ",
			     "header size 4 is below 8", NULL);
	cr_expect_eq(pev_record_id(&f, b.w, 3, &v), PEV_EFORMAT);
	th_expect_last_error(PEV_EFORMAT, "", "pev_record_id: 3 bytes given", NULL);

	format_of(&f, ID_BITS, 0, true);
	begin(&b, PEV_RECORD_SWITCH, 0);
	put(&b, 1);
	finish(&b);
	cr_expect_eq(pev_record_id(&f, b.w, b.n * 8, &v), PEV_EFORMAT);
	th_expect_last_error(PEV_EFORMAT, "", "pev_record_id: SWITCH record of 16 bytes: ",
			     "cannot hold the 48-byte sample_id trailer", NULL);
}

/* Success writes nothing: the last error of an earlier failure stays as it was. */
Test(record, a_record_that_decodes_leaves_the_last_error_alone)
{
	static char before[PEV_ERROR_MESSAGE_MAX];
	struct pev_record_format f;
	struct pev_record r;
	struct rec b;
	uint64_t v;

	format_of(&f, PEV_SAMPLE_IP | PEV_SAMPLE_TIME | PEV_SAMPLE_CALLCHAIN, 0, false);
	begin(&b, PEV_RECORD_SAMPLE, 0);
	put(&b, 0x401000);
	put(&b, 123);
	put(&b, 5);
	finish(&b);
	cr_assert_eq(pev_record_decode(&f, b.w, b.n * 8, &r), PEV_EFORMAT);
	snprintf(before, sizeof(before), "%s", pev_last_error()->message);
	cr_assert(strstr(before, "PEV_SAMPLE_CALLCHAIN"), "%s", before);

	b.w[3] = 0;
	finish(&b);
	cr_expect_eq(pev_record_decode(&f, b.w, b.n * 8, &r), (int)(b.n * 8));
	cr_expect_eq(pev_record_time(&f, b.w, b.n * 8, &v), 1);
	begin(&b, PEV_RECORD_LOST, 0);
	put(&b, 1);
	put(&b, 2);
	finish(&b);
	cr_expect_eq(pev_record_decode(&f, b.w, b.n * 8, &r), 24);
	cr_expect_eq(pev_last_error()->code, PEV_EFORMAT);
	cr_expect_str_eq(pev_last_error()->message, before);
}

/* ---- arguments ---------------------------------------------------------------------------- */

Test(record, bad_arguments)
{
	static uint64_t words[4] = {(uint64_t)PEV_RECORD_LOST | (uint64_t)24 << 48, 1, 2, 0};
	struct pev_record_format f;
	struct pev_record r;
	uint64_t v;

	format_of(&f, 0, 0, false);
	cr_expect_eq(pev_record_decode(NULL, words, 24, &r), PEV_EBADARG);
	cr_expect_eq(pev_record_decode(&f, NULL, 24, &r), PEV_EBADARG);
	cr_expect_eq(pev_record_decode(&f, words, 24, NULL), PEV_EBADARG);
	cr_expect_eq(pev_record_decode(&f, words, 24, &r), 24);
	/* Unaligned bytes: the decoder hands out typed pointers into them. */
	cr_expect_eq(pev_record_decode(&f, (const char *)words + 4, 20, &r), PEV_EBADARG);
	cr_expect_eq(pev_record_time(NULL, words, 24, &v), PEV_EBADARG);
	cr_expect_eq(pev_record_time(&f, NULL, 24, &v), PEV_EBADARG);
	cr_expect_eq(pev_record_time(&f, words, 24, NULL), PEV_EBADARG);
	cr_expect_eq(pev_record_id(NULL, words, 24, &v), PEV_EBADARG);
	cr_expect_eq(pev_record_id(&f, words, 24, &v), 0, "no id in this format");
	cr_expect_eq(pev_record_time(&f, words, 24, &v), 0, "no time in this format");
	/* Fewer bytes than a header. */
	for (size_t len = 0; len < 8; len++) {
		cr_expect_eq(pev_record_decode(&f, words, len, &r), PEV_EFORMAT);
		cr_expect_eq(r.size, 0u);
		cr_expect_eq(pev_record_time(&f, words, len, &v), PEV_EFORMAT);
	}
}

/* ---- the format ------------------------------------------------------------------------------ */

Test(record, format_init_checks_its_arguments)
{
	struct pev_record_config c = PEV_RECORD_CONFIG_INIT;
	struct pev_record_format f;

	cr_expect_eq(pev_record_format_init(NULL, &c), PEV_EBADARG);
	cr_expect_eq(pev_record_format_init(&f, NULL), PEV_EBADARG);
	c.sz = 0;
	cr_expect_eq(pev_record_format_init(&f, &c), PEV_EBADARG, "sz unset");
	c.sz = sizeof(c);
	c.sample_type = PEV_SAMPLE_ALL + 1;
	cr_expect_eq(pev_record_format_init(&f, &c), PEV_EVERSION, "sample bit 25");
	c.sample_type = 0;
	c.read_format = PEV_FORMAT_ALL + 1;
	cr_expect_eq(pev_record_format_init(&f, &c), PEV_EVERSION, "read_format bit 5");
	c.read_format = 0;
	c.branch_sample_type = PEV_BRANCH_ALL + 1;
	cr_expect_eq(pev_record_format_init(&f, &c), PEV_EVERSION, "branch bit 20");
}

Test(record, format_honours_the_callers_size)
{
	/* A newer caller: a longer struct, zero tail accepted, non-zero tail refused. */
	struct {
		struct pev_record_config c;
		uint64_t newer[2];
	} big;
	struct pev_record_format f;

	memset(&big, 0, sizeof(big));
	big.c.sz = sizeof(big);
	big.c.sample_type = PEV_SAMPLE_TIME;
	cr_expect_eq(pev_record_format_init(&f, &big.c), 0);
	cr_expect_eq(f.sample_time_at, 8);
	big.newer[1] = 1;
	cr_expect_eq(pev_record_format_init(&f, &big.c), PEV_EBADARG);

	/* An older caller that knew only sz, sample_type and read_format: the rest is zero. */
	struct pev_record_config c;
	memset(&c, 0xff, sizeof(c));
	c.sz = offsetof(struct pev_record_config, sample_id_all);
	c.sample_type = PEV_SAMPLE_TID | PEV_SAMPLE_TIME;
	c.read_format = PEV_FORMAT_ID;
	cr_expect_eq(pev_record_format_init(&f, &c), 0);
	cr_expect_eq(f.sample_type, PEV_SAMPLE_TID | PEV_SAMPLE_TIME);
	cr_expect_eq(f.read_format, PEV_FORMAT_ID);
	cr_expect_not(f.sample_id_all);
	cr_expect_eq(f.id_size, 0);
	cr_expect_eq(f.sample_regs_user, 0u);
	cr_expect_eq(f.group_size, 0u);
}

Test(record, format_derived_layout)
{
	struct pev_record_config c = PEV_RECORD_CONFIG_INIT;
	struct pev_record_format f;

	c.sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_TID | PEV_SAMPLE_TIME | PEV_SAMPLE_ID |
			PEV_SAMPLE_CPU | PEV_SAMPLE_PERIOD | PEV_SAMPLE_CALLCHAIN;
	c.sample_id_all = true;
	c.sample_regs_user = 0xff0f;
	c.sample_regs_intr = 1;
	cr_assert_eq(pev_record_format_init(&f, &c), 0);
	cr_expect_eq(f.nr_regs_user, 12u);
	cr_expect_eq(f.nr_regs_intr, 1u);
	cr_expect_eq(f.prefix_size, 8 + 6 * 8);
	cr_expect_eq(f.sample_time_at, 8 + 2 * 8);  /* after IP, TID */
	cr_expect_eq(f.sample_id_at, 8 + 3 * 8);    /* after IP, TID, TIME */
	cr_expect_eq(f.id_fields, PEV_SAMPLE_TID | PEV_SAMPLE_TIME | PEV_SAMPLE_ID | PEV_SAMPLE_CPU);
	cr_expect_eq(f.id_size, 4 * 8);
	cr_expect_eq(f.trailer_time_back, 3 * 8);   /* TIME, ID, CPU from the end */
	cr_expect_eq(f.trailer_id_back, 2 * 8);     /* ID, CPU */

	c.sample_type |= PEV_SAMPLE_IDENTIFIER;
	cr_assert_eq(pev_record_format_init(&f, &c), 0);
	cr_expect_eq(f.sample_id_at, 8, "IDENTIFIER comes first");
	cr_expect_eq(f.trailer_id_back, 8, "and last in the trailer");
	cr_expect_eq(f.sample_time_at, 8 + 3 * 8);
}

Test(record, format_from_attr)
{
	struct pev_attr a;
	struct pev_record_format f;

	memset(&a, 0, sizeof(a));
	a.sample_type = PEV_SAMPLE_IDENTIFIER | PEV_SAMPLE_TIME | PEV_SAMPLE_REGS_USER |
			PEV_SAMPLE_BRANCH_STACK | PEV_SAMPLE_READ;
	a.read_format = PEV_FORMAT_GROUP | PEV_FORMAT_ID;
	a.flags = PEV_ATTR_SAMPLE_ID_ALL | PEV_ATTR_MMAP2;
	a.branch_sample_type = PEV_BRANCH_ANY | PEV_BRANCH_HW_INDEX;
	a.sample_regs_user = 0x7;
	a.sample_regs_intr = 0x3;
	cr_assert_eq(pev_record_format_from_attr(&a, &f), 0);
	cr_expect_eq(f.sample_type, a.sample_type);
	cr_expect_eq(f.read_format, a.read_format);
	cr_expect(f.sample_id_all);
	cr_expect_eq(f.branch_sample_type, a.branch_sample_type);
	cr_expect_eq(f.sample_regs_user, 0x7u);
	cr_expect_eq(f.nr_regs_user, 3u);
	cr_expect_eq(f.nr_regs_intr, 2u);
	cr_expect_eq(f.group_size, 0u);
	cr_expect_eq(f.id_size, 16);

	a.flags = 0;
	cr_assert_eq(pev_record_format_from_attr(&a, &f), 0);
	cr_expect_not(f.sample_id_all);
	cr_expect_eq(f.id_size, 0);
	a.sample_type |= UINT64_C(1) << 40;
	cr_expect_eq(pev_record_format_from_attr(&a, &f), PEV_EVERSION);
	cr_expect_eq(pev_record_format_from_attr(NULL, &f), PEV_EBADARG);
	cr_expect_eq(pev_record_format_from_attr(&a, NULL), PEV_EBADARG);
}

/* ---- names, misc flags ------------------------------------------------------------------- */

Test(record, type_names)
{
	static const char *const names[] = {
		NULL, "MMAP", "LOST", "COMM", "EXIT", "THROTTLE", "UNTHROTTLE", "FORK", "READ",
		"SAMPLE", "MMAP2", "AUX", "ITRACE_START", "LOST_SAMPLES", "SWITCH",
		"SWITCH_CPU_WIDE", "NAMESPACES", "KSYMBOL", "BPF_EVENT", "CGROUP", "TEXT_POKE",
		"AUX_OUTPUT_HW_ID",
	};
	cr_assert_eq(ARRAY_SIZE(names), PEV_RECORD_KERNEL_MAX);
	for (uint32_t t = 1; t < PEV_RECORD_KERNEL_MAX; t++)
		cr_expect_str_eq(pev_record_type_name(t), names[t]);
	cr_expect_str_eq(pev_record_type_name(0), "UNKNOWN");
	cr_expect_str_eq(pev_record_type_name(22), "UNKNOWN");
	cr_expect_str_eq(pev_record_type_name(UINT32_MAX), "UNKNOWN");
}

Test(record, misc_flags_mean_something_only_for_their_types)
{
	struct pev_record r;

	memset(&r, 0, sizeof(r));
	r.misc = PEV_RECORD_MISC_GUEST_USER | (1u << 13) | (1u << 14);
	for (uint32_t t = 0; t < 30; t++) {
		r.type = t;
		cr_expect_eq(pev_record_cpumode(&r), PEV_RECORD_MISC_GUEST_USER);
		cr_expect_eq(pev_record_exact_ip(&r), t == PEV_RECORD_SAMPLE, "type %u", t);
		cr_expect_eq(pev_record_mmap_data(&r), t == PEV_RECORD_MMAP || t == PEV_RECORD_MMAP2);
		cr_expect_eq(pev_record_mmap_build_id(&r), t == PEV_RECORD_MMAP2);
		cr_expect_eq(pev_record_comm_exec(&r), t == PEV_RECORD_COMM);
		bool sw = t == PEV_RECORD_SWITCH || t == PEV_RECORD_SWITCH_CPU_WIDE;
		cr_expect_eq(pev_record_switch_out(&r), sw);
		cr_expect_eq(pev_record_switch_preempt(&r), sw);
	}
	r.misc = 0;
	for (uint32_t t = 0; t < 30; t++) {
		r.type = t;
		cr_expect_not(pev_record_exact_ip(&r) || pev_record_mmap_data(&r) ||
			      pev_record_mmap_build_id(&r) || pev_record_comm_exec(&r) ||
			      pev_record_switch_out(&r) || pev_record_switch_preempt(&r));
	}
	/* Preempted is meaningful only with out. */
	r.type = PEV_RECORD_SWITCH;
	r.misc = PEV_RECORD_MISC_SWITCH_OUT_PREEMPT;
	cr_expect_not(pev_record_switch_preempt(&r));
	cr_expect_not(pev_record_exact_ip(NULL));
	cr_expect_eq(pev_record_cpumode(NULL), PEV_RECORD_MISC_CPUMODE_UNKNOWN);

	cr_expect_str_eq(pev_cpumode_name(PEV_RECORD_MISC_KERNEL), "kernel");
	cr_expect_str_eq(pev_cpumode_name(PEV_RECORD_MISC_USER), "user");
	cr_expect_str_eq(pev_cpumode_name(PEV_RECORD_MISC_HYPERVISOR), "hypervisor");
	cr_expect_str_eq(pev_cpumode_name(PEV_RECORD_MISC_GUEST_KERNEL), "guest-kernel");
	cr_expect_str_eq(pev_cpumode_name(PEV_RECORD_MISC_GUEST_USER), "guest-user");
	cr_expect_str_eq(pev_cpumode_name(0), "unknown");
	cr_expect_str_eq(pev_cpumode_name(7), "unknown");
}

/* The misc flags of the golden records, decoded. */
Test(record, misc_flags_of_golden_records)
{
	int exact = 0, data = 0, exec = 0, out = 0, preempt = 0, build_id = 0;

	for (size_t i = 0; i < rg_golden_count; i++) {
		const struct rg_golden *g = &rg_golden[i];
		struct pev_record_format f;
		struct pev_record r;

		rg_format(g, &f);
		cr_assert_gt(pev_record_decode(&f, g->words, g->nwords * 8, &r), 0);
		exact += pev_record_exact_ip(&r);
		data += pev_record_mmap_data(&r);
		exec += pev_record_comm_exec(&r);
		out += pev_record_switch_out(&r);
		preempt += pev_record_switch_preempt(&r);
		build_id += pev_record_mmap_build_id(&r);
	}
	cr_expect_eq(exact, 3, "SAMPLE IP and the two every-field samples");
	cr_expect_eq(data, 1);
	cr_expect_eq(exec, 1);
	cr_expect_eq(out, 2);
	cr_expect_eq(preempt, 1);
	cr_expect_eq(build_id, 1);
}

/* ---- callchains ------------------------------------------------------------------------------ */

Test(record, callchain_frames_carry_their_context)
{
	const uint64_t cc[] = {0x1,
			       PEV_CONTEXT_HV,           0xfff0,
			       PEV_CONTEXT_KERNEL,       UINT64_C(0xffffffff81000010),
			       UINT64_C(0xffffffff81000020),
			       PEV_CONTEXT_USER,         0x401010,
			       PEV_CONTEXT_GUEST,        PEV_CONTEXT_GUEST_KERNEL,
			       UINT64_C(0xffffffff82000010),
			       PEV_CONTEXT_GUEST_USER,   0x501010,
			       PEV_CONTEXT_USER};
	const struct pev_callchain_frame want[] = {
		{0x1, 0},
		{0xfff0, PEV_CONTEXT_HV},
		{UINT64_C(0xffffffff81000010), PEV_CONTEXT_KERNEL},
		{UINT64_C(0xffffffff81000020), PEV_CONTEXT_KERNEL},
		{0x401010, PEV_CONTEXT_USER},
		{UINT64_C(0xffffffff82000010), PEV_CONTEXT_GUEST_KERNEL},
		{0x501010, PEV_CONTEXT_GUEST_USER},
	};
	struct pev_callchain_iter it;
	struct pev_callchain_frame fr;
	size_t k = 0;

	pev_callchain_iter_init(&it, cc, ARRAY_SIZE(cc));
	while (pev_callchain_iter_next(&it, &fr)) {
		cr_assert_lt(k, ARRAY_SIZE(want));
		cr_expect_eq(fr.ip, want[k].ip, "frame %zu", k);
		cr_expect_eq(fr.context, want[k].context, "frame %zu", k);
		k++;
	}
	cr_expect_eq(k, ARRAY_SIZE(want));
	cr_expect_not(pev_callchain_iter_next(&it, &fr), "stays at the end");

	/* Empty and NULL chains have no frames. */
	pev_callchain_iter_init(&it, NULL, 5);
	cr_expect_not(pev_callchain_iter_next(&it, &fr));
	pev_callchain_iter_init(&it, cc, 0);
	cr_expect_not(pev_callchain_iter_next(&it, &fr));
	cr_expect_not(pev_callchain_iter_next(NULL, &fr));
	pev_callchain_iter_init(NULL, cc, 1); /* ignored */

	cr_expect(pev_callchain_is_context(PEV_CONTEXT_MAX));
	cr_expect(pev_callchain_is_context(PEV_CONTEXT_USER));
	cr_expect_not(pev_callchain_is_context(PEV_CONTEXT_MAX - 1));
	cr_expect_not(pev_callchain_is_context(UINT64_C(0xffffffff81000010)));
	cr_expect_str_eq(pev_callchain_context_name(PEV_CONTEXT_HV), "hv");
	cr_expect_str_eq(pev_callchain_context_name(PEV_CONTEXT_KERNEL), "kernel");
	cr_expect_str_eq(pev_callchain_context_name(PEV_CONTEXT_USER), "user");
	cr_expect_str_eq(pev_callchain_context_name(PEV_CONTEXT_GUEST), "guest");
	cr_expect_str_eq(pev_callchain_context_name(PEV_CONTEXT_GUEST_KERNEL), "guest-kernel");
	cr_expect_str_eq(pev_callchain_context_name(PEV_CONTEXT_GUEST_USER), "guest-user");
	cr_expect_str_eq(pev_callchain_context_name(0), "unknown");
	cr_expect_str_eq(pev_callchain_context_name(PEV_CONTEXT_MAX), "unknown");
}

/* The callchain of a golden sample walked through the decoded record. */
Test(record, callchain_of_a_decoded_sample)
{
	for (size_t i = 0; i < rg_golden_count; i++) {
		const struct rg_golden *g = &rg_golden[i];
		struct pev_record_format f;
		struct pev_callchain_iter it;
		struct pev_callchain_frame fr;
		struct pev_record r;
		size_t frames = 0, markers = 0;

		if (strcmp(g->name, "SAMPLE CALLCHAIN") != 0)
			continue;
		rg_format(g, &f);
		cr_assert_eq(pev_record_decode(&f, g->words, g->nwords * 8, &r), (int)g->nwords * 8);
		pev_callchain_iter_init(&it, r.sample.callchain, r.sample.callchain_nr);
		while (pev_callchain_iter_next(&it, &fr)) {
			cr_expect_eq(fr.context, frames < 2 ? PEV_CONTEXT_KERNEL : PEV_CONTEXT_USER);
			frames++;
		}
		for (uint64_t k = 0; k < r.sample.callchain_nr; k++)
			markers += pev_callchain_is_context(r.sample.callchain[k]);
		cr_expect_eq(frames, 4u);
		cr_expect_eq(markers, 2u);
		return;
	}
	cr_assert_fail("no golden SAMPLE CALLCHAIN");
}

/* ---- branch flags and data source against the kernel header's bit-fields ------------------- */

/* The flags word of a kernel branch entry built with its bit-fields. */
static uint64_t kernel_branch_flags(unsigned mispred, unsigned predicted, unsigned in_tx,
				    unsigned abort, unsigned cycles, unsigned type, unsigned spec,
				    unsigned new_type, unsigned priv)
{
	struct perf_branch_entry e;
	uint64_t w;

	memset(&e, 0, sizeof(e));
	e.mispred = mispred & 1;
	e.predicted = predicted & 1;
	e.in_tx = in_tx & 1;
	e.abort = abort & 1;
	e.cycles = cycles & 0xffff;
	e.type = type & 0xf;
	e.spec = spec & 3;
	e.new_type = new_type & 0xf;
	e.priv = priv & 7;
	memcpy(&w, (const char *)&e + offsetof(struct pev_branch_entry, flags), sizeof(w));
	return w;
}

Test(record, branch_flags_match_the_kernel_bitfields)
{
	struct pev_branch_flags b;

	for (unsigned k = 0; k < 200; k++) {
		unsigned mispred = k & 1, predicted = (k >> 1) & 1, in_tx = (k >> 2) & 1,
			 abort = (k >> 3) & 1, cycles = (k * 331u) & 0xffff, type = k % 16,
			 spec = (k / 3) % 4, new_type = (k / 5) % 16, priv = (k / 7) % 8;
		uint64_t w = kernel_branch_flags(mispred, predicted, in_tx, abort, cycles, type, spec,
						 new_type, priv);

		pev_branch_flags_decode(w, &b);
		cr_expect_eq(b.mispred, mispred, "k %u", k);
		cr_expect_eq(b.predicted, predicted, "k %u", k);
		cr_expect_eq(b.in_tx, in_tx, "k %u", k);
		cr_expect_eq(b.abort, abort, "k %u", k);
		cr_expect_eq(b.cycles, cycles, "k %u", k);
		cr_expect_eq(b.type, type, "k %u", k);
		cr_expect_eq(b.spec, spec, "k %u", k);
		cr_expect_eq(b.new_type, new_type, "k %u", k);
		cr_expect_eq(b.priv, priv, "k %u", k);
	}
	/* The golden words, field by field as their comments say. */
	pev_branch_flags_decode(UINT64_C(0x43412345), &b);
	cr_expect(b.mispred && !b.predicted && b.in_tx && !b.abort);
	cr_expect(b.cycles == 0x1234 && b.type == PEV_BR_CALL && b.spec == PEV_BR_SPEC_CORRECT_PATH &&
		  b.new_type == 0 && b.priv == PEV_BR_PRIV_USER);
	pev_branch_flags_decode(UINT64_C(0x89f0007a), &b);
	cr_expect(!b.mispred && b.predicted && !b.in_tx && b.abort);
	cr_expect(b.cycles == 7 && b.type == PEV_BR_EXTEND_ABI && b.spec == PEV_BR_SPEC_WRONG_PATH &&
		  b.new_type == PEV_BR_NEW_FAULT_INST && b.priv == PEV_BR_PRIV_KERNEL);
	pev_branch_flags_decode(0, NULL); /* ignored */
}

Test(record, data_src_fields_match_the_kernel_bitfields)
{
	for (unsigned k = 0; k < 500; k++) {
		union perf_mem_data_src d;
		struct pev_data_src s;

		d.val = 0;
		d.mem_op = k & 0x1f;
		d.mem_lvl = (k * 37u) & 0x3fff;
		d.mem_snoop = (k / 3) & 0x1f;
		d.mem_lock = (k / 5) & 3;
		d.mem_dtlb = (k * 13u) & 0x7f;
		d.mem_lvl_num = (k / 7) & 0xf;
		d.mem_remote = (k / 11) & 1;
		d.mem_snoopx = (k / 13) & 3;
		d.mem_blk = (k / 17) & 7;
		d.mem_hops = (k / 19) & 7;
		d.mem_rsvd = k; /* the reserved bits change nothing */
		pev_data_src_decode(d.val, &s);
		cr_expect_eq(s.op, d.mem_op, "k %u", k);
		cr_expect_eq(s.lvl, d.mem_lvl, "k %u", k);
		cr_expect_eq(s.snoop, d.mem_snoop, "k %u", k);
		cr_expect_eq(s.lock, d.mem_lock, "k %u", k);
		cr_expect_eq(s.dtlb, d.mem_dtlb, "k %u", k);
		cr_expect_eq(s.lvl_num, d.mem_lvl_num, "k %u", k);
		cr_expect_eq(s.remote, d.mem_remote, "k %u", k);
		cr_expect_eq(s.snoopx, d.mem_snoopx, "k %u", k);
		cr_expect_eq(s.blk, d.mem_blk, "k %u", k);
		cr_expect_eq(s.hops, d.mem_hops, "k %u", k);
	}
	pev_data_src_decode(1, NULL); /* ignored */
}

/* ---- read blocks ----------------------------------------------------------------------------- */

Test(record, read_data_value_stays_inside_the_block)
{
	const uint64_t words[] = {3, 0xe0e0, 1, 11, 2, 22, 3, 33};
	struct pev_read_data rd = {.read_format = PEV_FORMAT_GROUP | PEV_FORMAT_TOTAL_TIME_ENABLED |
						  PEV_FORMAT_ID,
				   .nr = 3,
				   .words = words,
				   .nr_words = 8};
	struct pev_read_value v;

	cr_expect_eq(pev_read_data_value(&rd, 2, &v), 0);
	cr_expect(v.value == 3 && v.id == 33 && v.lost == 0);
	cr_expect_eq(pev_read_data_value(&rd, 3, &v), PEV_EBADARG);
	cr_expect_eq(pev_read_data_value(NULL, 0, &v), PEV_EBADARG);
	cr_expect_eq(pev_read_data_value(&rd, 0, NULL), PEV_EBADARG);
	/* A hand-made block that claims more than it has. */
	rd.nr = 5;
	cr_expect_eq(pev_read_data_value(&rd, 3, &v), PEV_EBADARG);
	rd.nr = UINT64_MAX;
	cr_expect_eq(pev_read_data_value(&rd, UINT64_MAX - 1, &v), PEV_EBADARG);
	rd.nr_words = 7;
	rd.nr = 3;
	cr_expect_eq(pev_read_data_value(&rd, 2, &v), PEV_EBADARG, "id word beyond nr_words");
	rd.words = NULL;
	cr_expect_eq(pev_read_data_value(&rd, 0, &v), PEV_EBADARG);
}

/* ---- describe --------------------------------------------------------------------------------- */

Test(record, describe_every_golden_record)
{
	for (size_t i = 0; i < rg_golden_count; i++) {
		const struct rg_golden *g = &rg_golden[i];
		struct pev_record_format f;
		struct pev_record r;
		char line[512], tiny[12];

		rg_format(g, &f);
		cr_assert_gt(pev_record_decode(&f, g->words, g->nwords * 8, &r), 0);
		cr_expect_eq(pev_record_describe(&r, line, sizeof(line)), line);
		cr_expect_eq(strncmp(line, pev_record_type_name(r.type),
				     strlen(pev_record_type_name(r.type))),
			     0, "%s: %s", g->name, line);
		cr_expect_null(strchr(line, '\n'), "one line: %s", line);
		if (r.id_fields & PEV_SAMPLE_TIME)
			expect_has(line, "time 20015998343868");
		/* A small buffer is cut and terminated. */
		memset(tiny, 'x', sizeof(tiny));
		pev_record_describe(&r, tiny, sizeof(tiny));
		cr_expect_eq(strlen(tiny), sizeof(tiny) - 1, "%s", g->name);
	}
	cr_expect_null(pev_record_describe(NULL, NULL, 0));
	char empty[4] = "abc";
	cr_expect_str_eq(pev_record_describe(NULL, empty, sizeof(empty)), "");
}

Test(record, describe_names_the_fields)
{
	char line[512];

	for (size_t i = 0; i < rg_golden_count; i++) {
		const struct rg_golden *g = &rg_golden[i];
		struct pev_record_format f;
		struct pev_record r;

		rg_format(g, &f);
		cr_assert_gt(pev_record_decode(&f, g->words, g->nwords * 8, &r), 0);
		pev_record_describe(&r, line, sizeof(line));
		if (!strcmp(g->name, "MMAP2")) {
			expect_has(line, "MMAP2 user");
			expect_has(line, "/usr/lib/libc.so.6");
			expect_has(line, "pid 4242 tid 4243");
			expect_has(line, "cpu 3");
			expect_has(line, "id 465");
		} else if (!strcmp(g->name, "MMAP2 build id")) {
			expect_has(line, "build-id 101112131415161718191a1b1c1d1e1f20212223");
		} else if (!strcmp(g->name, "SWITCH out, preempted")) {
			expect_has(line, "SWITCH user out-preempt");
		} else if (!strcmp(g->name, "SAMPLE profile: IP TID TIME CPU PERIOD CALLCHAIN")) {
			expect_has(line, "SAMPLE user ip 0x555555554abc period 100003 callchain 3");
		} else if (!strcmp(g->name, "SAMPLE IP")) {
			expect_has(line, "SAMPLE user exact ip 0x555555554abc");
		} else if (!strcmp(g->name, "COMM exec, no sample_id_all")) {
			expect_has(line, "COMM user exec 4242/4242: fifteen-chars-x");
		} else if (!strcmp(g->name, "unknown type 22")) {
			expect_has(line, "UNKNOWN user type 22 size 32");
		}
	}
}
