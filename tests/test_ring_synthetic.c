/* SPDX-License-Identifier: MIT */
/*
 * test_ring_synthetic.c - the ring reader over memory the test lays out
 * (src/sample/ring_internal.h: pev__ring_new), no syscalls: records in place and
 * across the end at every split, 64-bit head wrap-around, batches and when
 * the tail is published, overwrite-ring recovery over a buffer wrapped many
 * times, malformed heads and sizes, the AUX area, statistics.
 *
 * Every data area is allocated to its exact size, so under ASan a read past
 * it fails the test.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "sample/ring_internal.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

TestSuite(ring_synthetic, .init = th_leak_init, .fini = th_leak_fini);

/* ---- a synthetic ring and its writers ---------------------------------------- */

struct syn {
	struct pev_mmap_page page;
	unsigned char *data;
	size_t size;
	uint64_t head; /* the writer's head, published with publish() */
	struct pev_ring *r;
};

/* A ring of `size` bytes whose head and tail start at `start`. */
static void syn_open(struct syn *s, size_t size, bool overwrite, uint64_t start)
{
	memset(s, 0, sizeof(*s));
	s->size = size;
	s->data = aligned_alloc(8, size);
	cr_assert_not_null(s->data);
	memset(s->data, 0, size);
	s->head = start;
	s->page.data_head = start;
	s->page.data_tail = start;
	s->page.data_size = size;
	cr_assert_eq(pev__ring_new(&s->page, s->data, size, overwrite, &s->r), 0);
}

static void syn_close(struct syn *s)
{
	pev_ring_close(s->r);
	free(s->data);
}

static void publish(struct syn *s)
{
	s->page.data_head = s->head;
}

/* Byte i of the record with sequence number seq (after its 8-byte header and seq word). */
static uint8_t pattern(uint64_t seq, size_t i)
{
	return (uint8_t)(seq * 131 + i * 7 + 1);
}

/* Writes size bytes at position pos, wrapping at the end of the data area. */
static void put_bytes(struct syn *s, uint64_t pos, const void *src, size_t size)
{
	const unsigned char *b = src;

	for (size_t i = 0; i < size; i++)
		s->data[(pos + i) & (s->size - 1)] = b[i];
}

/* Builds record seq of `size` bytes: header, the sequence number (if room), the pattern. */
static void make_record(unsigned char *buf, uint64_t seq, uint16_t size)
{
	struct pev_event_header h = {PEV_RECORD_SAMPLE, (uint16_t)seq, size};

	memcpy(buf, &h, sizeof(h));
	if (size >= 16)
		memcpy(buf + 8, &seq, 8);
	for (size_t i = 16; i < size; i++)
		buf[i] = pattern(seq, i);
}

/* The forward kernel: a record at head, head += size. */
static void write_fwd(struct syn *s, uint64_t seq, uint16_t size)
{
	static unsigned char buf[65536];

	make_record(buf, seq, size);
	put_bytes(s, s->head, buf, size);
	s->head += size;
}

/* The backward kernel: head -= size, a record at the new head. */
static void write_bwd(struct syn *s, uint64_t seq, uint16_t size)
{
	static unsigned char buf[65536];

	make_record(buf, seq, size);
	s->head -= size;
	put_bytes(s, s->head, buf, size);
}

/* Writes a raw 8-byte header at head (forward) without the body. */
static void write_header(struct syn *s, uint32_t type, uint16_t size)
{
	struct pev_event_header h = {type, 0, size};

	put_bytes(s, s->head, &h, sizeof(h));
}

/* Checks that rec is record seq of `size` bytes, byte for byte. */
static void expect_record(const struct pev_ring_record *rec, uint64_t seq, size_t size)
{
	const unsigned char *b = (const unsigned char *)rec->header;
	uint64_t got;

	cr_assert_eq(rec->size, size, "record %llu: size %zu, want %zu", (unsigned long long)seq,
		     rec->size, size);
	cr_assert_eq((uintptr_t)b % 8, 0, "record %llu is not 8-aligned", (unsigned long long)seq);
	cr_assert_eq(rec->header->size, size);
	cr_assert_eq(rec->header->type, PEV_RECORD_SAMPLE);
	if (size >= 16) {
		memcpy(&got, b + 8, 8);
		cr_assert_eq(got, seq, "record sequence %llu, want %llu", (unsigned long long)got,
			     (unsigned long long)seq);
	}
	for (size_t i = 16; i < size; i++)
		cr_assert_eq(b[i], pattern(seq, i), "record %llu byte %zu", (unsigned long long)seq, i);
}

static bool in_data(const struct syn *s, const struct pev_ring_record *rec)
{
	const unsigned char *b = (const unsigned char *)rec->header;

	return b >= s->data && b + rec->size <= s->data + s->size;
}

static struct pev_ring_stats stats_of(const struct pev_ring *r)
{
	struct pev_ring_stats st = PEV_RING_STATS_INIT;

	cr_assert_eq(pev_ring_stats(r, &st), 0);
	return st;
}

/* A small deterministic generator. */
static uint64_t rng_state = 88172645463325252ULL;
static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* A record size from 16 to max, a multiple of 8 (room for the sequence number). */
static uint16_t some_size(size_t max)
{
	return (uint16_t)(16 + 8 * (rng() % (max / 8 - 1)));
}

/* ---- forward rings: in place ---------------------------------------------------- */

Test(ring_synthetic, records_in_the_data_area_are_read_in_place)
{
	struct syn s;
	struct pev_ring_record rec;
	static const uint16_t sizes[] = {8, 16, 24, 32, 48, 64, 80, 128, 256, 512};
	size_t total = 0;

	syn_open(&s, 4096, false, 0);
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		write_fwd(&s, i, sizes[i]);
		total += sizes[i];
	}
	publish(&s);
	cr_expect_eq(pev_ring_pending(s.r), (int)total);
	cr_assert_eq(pev_ring_begin(s.r), (int)total);
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		cr_assert_eq(pev_ring_next(s.r, &rec), 1, "record %zu", i);
		expect_record(&rec, i, sizes[i]);
		cr_expect(in_data(&s, &rec), "record %zu is read in place", i);
		cr_expect_not(rec.wrapped);
	}
	cr_expect_eq(pev_ring_next(s.r, &rec), 0, "the batch is empty");
	cr_expect_eq(pev_ring_next(s.r, &rec), 0, "and stays empty");
	cr_expect_eq(s.page.data_tail, 0, "nothing given back before the end of the batch");
	cr_assert_eq(pev_ring_end(s.r), 0);
	cr_expect_eq(s.page.data_tail, total, "end gives everything back");
	cr_expect_eq(pev_ring_pending(s.r), 0);

	struct pev_ring_stats st = stats_of(s.r);
	cr_expect_eq(st.records, ARRAY_SIZE(sizes));
	cr_expect_eq(st.bytes, total);
	cr_expect_eq(st.wrapped, 0);
	cr_expect_eq(st.batches, 1);
	cr_expect_eq(st.malformed, 0);
	syn_close(&s);
}

Test(ring_synthetic, an_empty_ring_gives_an_empty_batch)
{
	struct syn s;
	struct pev_ring_record rec;

	syn_open(&s, 4096, false, 4096 * 7 + 40);
	cr_expect_eq(pev_ring_begin(s.r), 0);
	cr_expect_eq(pev_ring_next(s.r, &rec), 0);
	cr_expect_eq(pev_ring_end(s.r), 0);
	cr_expect_eq(s.page.data_tail, 4096 * 7 + 40, "the tail is where it was");
	syn_close(&s);
}

/* ---- forward rings: across the end -------------------------------------------- */

/* A record of `size` bytes starting `first` bytes before the end of a `ring`-byte area. */
static void check_split(size_t ring, uint16_t size, size_t first)
{
	struct syn s;
	struct pev_ring_record rec;
	uint64_t start = ring * 3 - first; /* the third lap, `first` bytes before its end */
	uint16_t next = ring - size < 24 ? (uint16_t)(ring - size) : 24;

	syn_open(&s, ring, false, start);
	write_fwd(&s, 1, size);
	write_fwd(&s, 2, next);
	publish(&s);
	cr_assert_eq(pev_ring_begin(s.r), size + next);
	cr_assert_eq(pev_ring_next(s.r, &rec), 1);
	expect_record(&rec, 1, size);
	cr_assert(rec.wrapped, "size %u split %zu/%zu is copied", size, first, size - first);
	cr_assert_not(in_data(&s, &rec), "a wrapped record is not in the data area");
	cr_assert_eq(pev_ring_next(s.r, &rec), 1);
	expect_record(&rec, 2, next);
	cr_assert_not(rec.wrapped, "the record after it is in place");
	cr_assert_eq((const unsigned char *)rec.header, s.data + (size - first));
	cr_assert_eq(pev_ring_next(s.r, &rec), 0);
	cr_assert_eq(pev_ring_end(s.r), 0);
	cr_assert_eq(s.page.data_tail, start + size + next);
	cr_assert_eq(stats_of(s.r).wrapped, 1);
	syn_close(&s);
}

Test(ring_synthetic, a_record_across_the_end_is_copied_at_every_split)
{
	static const uint16_t sizes[] = {16, 24, 40, 64, 136, 1000, 4096};

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
		for (size_t first = 8; first <= (size_t)sizes[i] - 8; first += 8)
			check_split(8192, sizes[i], first);
}

Test(ring_synthetic, the_largest_record_wraps_at_every_split)
{
	/* 65528 bytes, the most header.size allows, in a 64 KiB ring: every 8th split. */
	for (size_t first = 8; first <= 65528 - 8; first += 8 * 97)
		check_split(65536, 65528, first);
	check_split(65536, 65528, 65520);
	check_split(65536, 65528, 8);
}

Test(ring_synthetic, a_record_ending_exactly_at_the_end_is_in_place)
{
	struct syn s;
	struct pev_ring_record rec;

	syn_open(&s, 4096, false, 4096 - 64);
	write_fwd(&s, 1, 64);
	write_fwd(&s, 2, 64);
	publish(&s);
	pev_ring_begin(s.r);
	cr_assert_eq(pev_ring_next(s.r, &rec), 1);
	cr_expect_not(rec.wrapped);
	cr_expect_eq((const unsigned char *)rec.header, s.data + 4096 - 64);
	cr_assert_eq(pev_ring_next(s.r, &rec), 1);
	cr_expect_not(rec.wrapped);
	cr_expect_eq((const unsigned char *)rec.header, s.data, "the next one starts the area");
	expect_record(&rec, 2, 64);
	pev_ring_end(s.r);
	syn_close(&s);
}

/* ---- forward rings: many laps, 64-bit wrap-around -------------------------------- */

/* Writes and reads `laps` data areas' worth of random records; checks every byte. */
static void run_laps(size_t ring, uint64_t start, int laps, size_t max_record)
{
	struct syn s;
	struct pev_ring_record rec;
	uint64_t written = 0, read = 0, bytes = 0;

	syn_open(&s, ring, false, start);
	while (s.head - start < (uint64_t)laps * ring) {
		/* The writer fills up to the free space (never past the tail). */
		for (;;) {
			uint16_t size = some_size(max_record);
			if (s.head + size - s.page.data_tail > ring)
				break;
			write_fwd(&s, written++, size);
		}
		publish(&s);
		int n = pev_ring_begin(s.r);
		cr_assert_eq((uint64_t)n, s.head - s.page.data_tail);
		/* Read about half the batch, give it back, read the rest. */
		int got;
		size_t i = 0;
		while ((got = pev_ring_next(s.r, &rec)) == 1) {
			cr_assert_eq(rec.header->misc, (uint16_t)read);
			cr_assert_geq(rec.size, 16);
			uint64_t seq;
			memcpy(&seq, (const unsigned char *)rec.header + 8, 8);
			cr_assert_eq(seq, read, "records in order");
			expect_record(&rec, read, rec.size);
			bytes += rec.size;
			read++;
			if (++i == 3)
				pev_ring_consume(s.r);
		}
		cr_assert_eq(got, 0, "no error in a well-formed ring (got %d)", got);
		cr_assert_eq(pev_ring_end(s.r), 0);
		cr_assert_eq(s.page.data_tail, s.head, "everything given back");
	}
	cr_expect_eq(read, written);
	struct pev_ring_stats st = stats_of(s.r);
	cr_expect_eq(st.records, written);
	cr_expect_eq(st.bytes, bytes);
	cr_expect_eq(bytes, s.head - start);
	cr_expect_gt(st.wrapped, 0, "some records crossed the end");
	syn_close(&s);
}

Test(ring_synthetic, many_laps_with_records_of_every_size)
{
	run_laps(4096, 0, 200, 512);
}

Test(ring_synthetic, the_64_bit_head_wraps_around_zero)
{
	/* Starts 3 laps before 2^64: head and tail overflow while records wrap. */
	run_laps(4096, UINT64_MAX - 3 * 4096 + 1, 10, 256);
	run_laps(1024, UINT64_MAX - 40 + 1, 10, 64);
}

Test(ring_synthetic, the_smallest_ring_holds_one_header)
{
	struct syn s;
	struct pev_ring_record rec;

	syn_open(&s, 8, false, UINT64_MAX - 7);
	for (int i = 0; i < 5; i++) {
		write_fwd(&s, (uint64_t)i, 8);
		publish(&s);
		cr_assert_eq(pev_ring_begin(s.r), 8);
		cr_assert_eq(pev_ring_next(s.r, &rec), 1);
		cr_expect_eq(rec.size, 8);
		cr_expect_eq(rec.header->misc, i);
		cr_assert_eq(pev_ring_end(s.r), 0);
	}
	syn_close(&s);
}

/* ---- forward rings: batches ---------------------------------------------------- */

Test(ring_synthetic, the_tail_is_published_only_by_consume_and_end)
{
	struct syn s;
	struct pev_ring_record rec;
	const struct pev_ring_record *kept[3];
	struct pev_ring_record held[3];

	syn_open(&s, 4096, false, 800);
	for (int i = 0; i < 6; i++)
		write_fwd(&s, (uint64_t)i, 32);
	publish(&s);
	cr_assert_eq(pev_ring_begin(s.r), 6 * 32);
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(pev_ring_next(s.r, &held[i]), 1);
		kept[i] = &held[i];
		cr_expect_eq(s.page.data_tail, 800, "next does not publish");
	}
	/* Records read in place stay valid while the batch holds them. */
	for (int i = 0; i < 3; i++)
		expect_record(kept[i], (uint64_t)i, 32);
	cr_assert_eq(pev_ring_consume(s.r), 0);
	cr_expect_eq(s.page.data_tail, 800 + 3 * 32, "consume gives back what next returned");
	cr_expect_eq(pev_ring_pending(s.r), 3 * 32, "three records still to read");
	cr_assert_eq(pev_ring_next(s.r, &rec), 1);
	expect_record(&rec, 3, 32);
	cr_expect_eq(s.page.data_tail, 800 + 3 * 32);
	cr_assert_eq(pev_ring_end(s.r), 0);
	cr_expect_eq(s.page.data_tail, 800 + 4 * 32, "end gives back only what was returned");

	/* The next batch starts with the records not returned. */
	cr_assert_eq(pev_ring_begin(s.r), 2 * 32);
	cr_assert_eq(pev_ring_next(s.r, &rec), 1);
	expect_record(&rec, 4, 32);
	pev_ring_end(s.r);
	syn_close(&s);
}

Test(ring_synthetic, begin_inside_a_batch_sees_new_records)
{
	struct syn s;
	struct pev_ring_record rec;

	syn_open(&s, 4096, false, 0);
	write_fwd(&s, 0, 40);
	write_fwd(&s, 1, 40);
	publish(&s);
	cr_assert_eq(pev_ring_begin(s.r), 80);
	cr_assert_eq(pev_ring_next(s.r, &rec), 1);
	write_fwd(&s, 2, 40);
	publish(&s);
	cr_expect_eq(pev_ring_next(s.r, &rec), 1, "the batch holds record 1");
	cr_expect_eq(pev_ring_next(s.r, &rec), 0, "not record 2 until begin again");
	cr_assert_eq(pev_ring_begin(s.r), 40, "begin again: 40 bytes left in the batch");
	cr_assert_eq(pev_ring_next(s.r, &rec), 1);
	expect_record(&rec, 2, 40);
	cr_assert_eq(pev_ring_end(s.r), 0);
	cr_expect_eq(s.page.data_tail, 120);
	cr_expect_eq(stats_of(s.r).batches, 2);
	syn_close(&s);
}

Test(ring_synthetic, next_outside_a_batch_and_null_arguments_are_refused)
{
	struct syn s;
	struct pev_ring_record rec;
	struct pev_ring_stats st = PEV_RING_STATS_INIT;

	syn_open(&s, 4096, false, 0);
	write_fwd(&s, 0, 16);
	publish(&s);
	cr_expect_eq(pev_ring_next(s.r, &rec), PEV_EBADARG, "no batch begun");
	cr_expect_eq(pev_ring_next(NULL, &rec), PEV_EBADARG);
	cr_expect_eq(pev_ring_begin(NULL), PEV_EBADARG);
	cr_expect_eq(pev_ring_end(NULL), PEV_EBADARG);
	cr_expect_eq(pev_ring_consume(NULL), PEV_EBADARG);
	cr_expect_eq(pev_ring_skip(NULL), PEV_EBADARG);
	cr_expect_eq(pev_ring_pending(NULL), PEV_EBADARG);
	cr_expect_eq(pev_ring_stats(NULL, &st), PEV_EBADARG);
	cr_expect_eq(pev_ring_stats(s.r, NULL), PEV_EBADARG);
	st.sz = 0;
	cr_expect_eq(pev_ring_stats(s.r, &st), PEV_EBADARG, "sz 0");
	cr_expect_eq(pev_ring_fd(s.r), PEV_EBADARG, "a synthetic ring has no descriptor");
	cr_expect_not(pev_ring_overwrite(s.r));
	cr_expect_not(pev_ring_overwrite(NULL));
	cr_expect_eq(pev_ring_fd(NULL), PEV_EBADARG);
	cr_assert_eq(pev_ring_begin(s.r), 16);
	cr_expect_eq(pev_ring_next(s.r, NULL), PEV_EBADARG);
	cr_expect_eq(pev_ring_end(s.r), 0);
	cr_expect_eq(pev_ring_end(s.r), 0, "end outside a batch does nothing");
	cr_expect_eq(s.page.data_tail, 0, "nothing was returned, nothing given back");
	syn_close(&s);
}

Test(ring_synthetic, bad_synthetic_areas_are_refused)
{
	struct pev_mmap_page page;
	uint64_t area[64];
	struct pev_ring *r = (struct pev_ring *)1;

	memset(&page, 0, sizeof(page));
	cr_expect_eq(pev__ring_new(&page, area, 24, false, &r), PEV_EBADARG, "not a power of two");
	cr_expect_null(r);
	cr_expect_eq(pev__ring_new(&page, area, 4, false, &r), PEV_EBADARG, "below one header");
	cr_expect_eq(pev__ring_new(&page, (char *)area + 4, 64, false, &r), PEV_EBADARG,
		     "misaligned");
	cr_expect_eq(pev__ring_new(NULL, area, 64, false, &r), PEV_EBADARG);
	cr_expect_eq(pev__ring_new(&page, NULL, 64, false, &r), PEV_EBADARG);
	cr_expect_eq(pev__ring_new(&page, area, 64, false, NULL), PEV_EBADARG);
	cr_assert_eq(pev__ring_new(&page, area, 64, false, &r), 0);
	cr_expect_eq(pev__ring_set_aux(r, area, 48, false), PEV_EBADARG);
	cr_expect_eq(pev__ring_set_aux(r, NULL, 64, false), PEV_EBADARG);
	cr_expect_eq(pev_ring_aux_size(r), 0);
	pev_ring_close(r);
}

Test(ring_synthetic, stats_honour_the_callers_size)
{
	struct syn s;
	struct pev_ring_record rec;
	struct {
		struct pev_ring_stats st;
		uint64_t canary;
	} small;

	syn_open(&s, 4096, false, 0);
	write_fwd(&s, 0, 16);
	publish(&s);
	pev_ring_begin(s.r);
	pev_ring_next(s.r, &rec);
	pev_ring_end(s.r);
	memset(&small, 0xab, sizeof(small));
	/* An older caller that knows only sz and records. */
	small.st.sz = offsetof(struct pev_ring_stats, bytes);
	cr_assert_eq(pev_ring_stats(s.r, &small.st), 0);
	cr_expect_eq(small.st.sz, offsetof(struct pev_ring_stats, bytes));
	cr_expect_eq(small.st.records, 1);
	cr_expect_eq(small.st.bytes, 0xababababababababULL, "bytes beyond sz are not written");
	/* A newer caller: only what this library knows is filled. */
	small.st.sz = sizeof(small);
	cr_assert_eq(pev_ring_stats(s.r, &small.st), 0);
	cr_expect_eq(small.st.sz, sizeof(struct pev_ring_stats));
	cr_expect_eq(small.st.bytes, 16);
	cr_expect_eq(small.canary, 0xababababababababULL);
	syn_close(&s);
}

/* ---- forward rings: malformed data ------------------------------------------------ */

/* Expects begin to refuse the head, then skip to resynchronize and records to flow again. */
static void expect_bad_head(uint64_t tail, uint64_t head, const char *what)
{
	struct syn s;
	struct pev_ring_record rec;

	syn_open(&s, 4096, false, tail);
	s.page.data_head = head;
	cr_expect_eq(pev_ring_pending(s.r), PEV_EFORMAT, "%s: pending", what);
	cr_expect_eq(pev_ring_begin(s.r), PEV_EFORMAT, "%s: begin", what);
	cr_expect_eq(pev_ring_next(s.r, &rec), PEV_EBADARG, "%s: no batch after a bad begin", what);
	cr_expect_eq(stats_of(s.r).malformed, 1, "%s", what);
	cr_assert_eq(pev_ring_skip(s.r), 0);
	cr_expect_eq(s.page.data_tail, head, "%s: skip moves the tail to the head", what);
	if (!(head & 7)) {
		s.head = head;
		write_fwd(&s, 9, 32);
		publish(&s);
		cr_expect_eq(pev_ring_begin(s.r), 32, "%s: records flow after skip", what);
		cr_assert_eq(pev_ring_next(s.r, &rec), 1);
		expect_record(&rec, 9, 32);
		pev_ring_end(s.r);
	}
	syn_close(&s);
}

Test(ring_synthetic, heads_that_cannot_be_right_are_refused)
{
	expect_bad_head(0, 4096 + 8, "one record beyond the data area");
	expect_bad_head(1000, 1000 + 5000, "far beyond");
	expect_bad_head(1000, 1000 - 8, "behind the tail");
	expect_bad_head(1000, 1004, "misaligned");
	expect_bad_head(0, UINT64_MAX - 7, "2^64 - 8: behind by wrap-around");
	expect_bad_head(UINT64_MAX - 7, 4096, "4104 bytes ahead across 2^64");
}

Test(ring_synthetic, a_head_exactly_one_area_ahead_is_a_full_ring)
{
	struct syn s;
	struct pev_ring_record rec;
	int n = 0;

	syn_open(&s, 4096, false, 200);
	for (int i = 0; i < 4096 / 64; i++)
		write_fwd(&s, (uint64_t)i, 64);
	publish(&s);
	cr_assert_eq(pev_ring_begin(s.r), 4096);
	while (pev_ring_next(s.r, &rec) == 1)
		expect_record(&rec, (uint64_t)n++, 64);
	cr_expect_eq(n, 64);
	pev_ring_end(s.r);
	syn_close(&s);
}

/* Writes a header of `size` at the head (claimed_head bytes published), expects next to refuse it. */
static void expect_bad_size(uint16_t size, uint64_t published, const char *what)
{
	struct syn s;
	struct pev_ring_record rec;

	syn_open(&s, 4096, false, 4096 * 5 - 16);
	write_fwd(&s, 1, 24);
	write_header(&s, PEV_RECORD_SAMPLE, size);
	s.head += published;
	publish(&s);
	cr_assert_eq(pev_ring_begin(s.r), (int)(24 + published), "%s", what);
	cr_assert_eq(pev_ring_next(s.r, &rec), 1, "%s: the good record first", what);
	expect_record(&rec, 1, 24);
	cr_expect_eq(pev_ring_next(s.r, &rec), PEV_EFORMAT, "%s", what);
	cr_expect_eq(pev_ring_next(s.r, &rec), PEV_EFORMAT, "%s: the reader stays at it", what);
	cr_expect_eq(stats_of(s.r).malformed, 2);
	cr_assert_eq(pev_ring_end(s.r), 0);
	cr_expect_eq(s.page.data_tail, 4096 * 5 - 16 + 24, "%s: the good record is given back", what);
	/* Resynchronize: skip drops the bad bytes. */
	cr_assert_eq(pev_ring_skip(s.r), 0);
	cr_expect_eq(s.page.data_tail, s.head);
	cr_expect_eq(stats_of(s.r).skipped, published, "%s", what);
	write_fwd(&s, 2, 48);
	publish(&s);
	cr_assert_eq(pev_ring_begin(s.r), 48);
	cr_assert_eq(pev_ring_next(s.r, &rec), 1);
	expect_record(&rec, 2, 48);
	pev_ring_end(s.r);
	syn_close(&s);
}

Test(ring_synthetic, record_sizes_that_cannot_be_right_are_refused)
{
	expect_bad_size(0, 64, "size 0");
	expect_bad_size(4, 64, "size 4, below a header");
	expect_bad_size(12, 64, "size 12, not a multiple of 8");
	expect_bad_size(65535, 64, "size 65535");
	expect_bad_size(72, 64, "size 72 with 64 bytes published");
	expect_bad_size(65528, 4096 - 24, "larger than the whole data area");
	expect_bad_size(16, 8, "16 bytes with only 8 published");
}

Test(ring_synthetic, fewer_bytes_than_a_header_are_refused)
{
	struct syn s;
	struct pev_ring_record rec;

	/* An aligned head 8 bytes ahead is fine; what the ring cannot have is 4. */
	syn_open(&s, 64, false, 0);
	s.page.data_head = 4;
	cr_expect_eq(pev_ring_begin(s.r), PEV_EFORMAT);
	s.page.data_head = 8;
	write_header(&s, PEV_RECORD_LOST, 8);
	cr_assert_eq(pev_ring_begin(s.r), 8);
	cr_assert_eq(pev_ring_next(s.r, &rec), 1);
	cr_expect_eq(rec.header->type, PEV_RECORD_LOST);
	pev_ring_end(s.r);
	syn_close(&s);
}

/* ---- overwrite rings ------------------------------------------------------------ */

struct written {
	uint64_t seq;
	uint16_t size;
};

/* The records a backward ring still holds whole: newest first while they fit. */
static size_t expected_window(const struct written *w, size_t n, size_t ring, size_t since,
			      bool *partial)
{
	size_t sum = 0, k = 0;

	*partial = false;
	for (size_t i = n; i-- > since;) {
		if (sum + w[i].size > ring) {
			/* Unless the whole records fill the area exactly, the next one is torn. */
			*partial = sum < ring;
			break;
		}
		sum += w[i].size;
		k++;
	}
	return k;
}

static void check_window(struct syn *s, const struct written *w, size_t n, size_t since)
{
	struct pev_ring_record rec;
	bool partial;
	size_t k = expected_window(w, n, s->size, since, &partial);
	size_t bytes = 0;
	uint64_t partial_before = stats_of(s->r).partial;

	int avail = pev_ring_begin(s->r);
	cr_assert_geq(avail, 0, "begin: %d", avail);
	for (size_t j = 0; j < k; j++) {
		const struct written *want = &w[n - 1 - j];
		cr_assert_eq(pev_ring_next(s->r, &rec), 1, "record %zu of %zu (seq %llu)", j, k,
			     (unsigned long long)want->seq);
		expect_record(&rec, want->seq, want->size);
		cr_assert_eq(rec.wrapped, !in_data(s, &rec));
		bytes += rec.size;
	}
	cr_assert_eq(pev_ring_next(s->r, &rec), 0, "the window ends after %zu records", k);
	cr_assert_eq(stats_of(s->r).partial - partial_before, partial ? 1 : 0,
		     "a partly overwritten oldest record is dropped and counted");
	cr_assert_leq(bytes, s->size);
	cr_assert_eq(pev_ring_end(s->r), 0);
}

Test(ring_synthetic, an_overwrite_ring_before_its_first_wrap)
{
	struct syn s;
	struct written w[5];

	syn_open(&s, 4096, true, 0);
	s.page.data_tail = 0xdeadbeef; /* a read-only page: never written */
	for (size_t i = 0; i < 5; i++) {
		w[i].seq = i;
		w[i].size = (uint16_t)(16 * (i + 1));
		write_bwd(&s, i, w[i].size);
	}
	publish(&s);
	cr_expect_eq(pev_ring_pending(s.r), 16 + 32 + 48 + 64 + 80);
	check_window(&s, w, 5, 0);
	cr_expect_eq(stats_of(s.r).partial, 0);
	cr_expect_eq(stats_of(s.r).overwritten, 0);
	cr_expect_eq(pev_ring_begin(s.r), 0, "nothing new");
	pev_ring_end(s.r);
	cr_expect_eq(s.page.data_tail, 0xdeadbeef, "an overwrite reader never stores data_tail");
	cr_expect(pev_ring_overwrite(s.r));
	syn_close(&s);
}

Test(ring_synthetic, overwrite_recovery_after_many_wraps)
{
	static struct written w[20000];
	struct syn s;
	size_t n = 0;
	uint64_t bytes = 0;

	syn_open(&s, 4096, true, 0);
	s.page.data_tail = 0x5151;
	/* About 200 laps of records from 8 to 256 bytes. */
	while (n < 6000) {
		w[n].seq = n;
		w[n].size = some_size(256);
		write_bwd(&s, n, w[n].size);
		bytes += w[n].size;
		n++;
	}
	publish(&s);
	cr_assert_gt(bytes, 100 * 4096);
	cr_expect_eq(pev_ring_pending(s.r), 4096, "a wrapped ring offers its whole area");
	check_window(&s, w, n, 0);
	cr_expect_eq(stats_of(s.r).overwritten, bytes - 4096, "what the kernel wrote over");

	/* Three more: the next batch holds exactly those, newest first. */
	for (int i = 0; i < 3; i++, n++) {
		w[n].seq = n;
		w[n].size = some_size(128);
		write_bwd(&s, n, w[n].size);
	}
	publish(&s);
	check_window(&s, w, n, n - 3);

	/* Wrapped again, many times over. */
	size_t since = n;
	for (int i = 0; i < 10000; i++, n++) {
		w[n].seq = n;
		w[n].size = some_size(64);
		write_bwd(&s, n, w[n].size);
	}
	publish(&s);
	check_window(&s, w, n, since);
	cr_expect_eq(s.page.data_tail, 0x5151);
	syn_close(&s);
}

Test(ring_synthetic, overwrite_window_that_fills_the_area_exactly_has_no_partial_record)
{
	struct syn s;
	struct written w[200];

	syn_open(&s, 4096, true, 1 << 20);
	for (size_t i = 0; i < 200; i++) {
		w[i].seq = i;
		w[i].size = 64;
		write_bwd(&s, i, 64);
	}
	publish(&s);
	check_window(&s, w, 200, 0);
	cr_expect_eq(stats_of(s.r).partial, 0, "64 x 64 bytes fill the area exactly");
	cr_expect_eq(stats_of(s.r).records, 64);
	syn_close(&s);
}

Test(ring_synthetic, ending_an_overwrite_batch_early_drops_the_older_records)
{
	struct syn s;
	struct pev_ring_record rec;

	syn_open(&s, 4096, true, 0);
	for (int i = 0; i < 10; i++)
		write_bwd(&s, (uint64_t)i, 32);
	publish(&s);
	cr_assert_eq(pev_ring_begin(s.r), 320);
	cr_assert_eq(pev_ring_next(s.r, &rec), 1);
	expect_record(&rec, 9, 32);
	cr_assert_eq(pev_ring_begin(s.r), 320 - 32, "begin again inside the batch: what is left");
	cr_assert_eq(pev_ring_next(s.r, &rec), 1);
	expect_record(&rec, 8, 32);
	cr_assert_eq(pev_ring_consume(s.r), 0, "consume does nothing on an overwrite ring");
	cr_assert_eq(pev_ring_end(s.r), 0);
	cr_expect_eq(stats_of(s.r).skipped, 8 * 32);
	cr_expect_eq(pev_ring_begin(s.r), 0, "the next batch starts at this one's head");
	pev_ring_end(s.r);
	syn_close(&s);
}

Test(ring_synthetic, a_malformed_overwrite_window_is_refused_and_skipped)
{
	struct syn s;
	struct pev_ring_record rec;

	/* A record of size 0 in the middle of what was written. */
	syn_open(&s, 4096, true, 0);
	write_bwd(&s, 1, 32);
	s.head -= 64; /* 64 bytes "written" but zero */
	write_bwd(&s, 2, 32);
	publish(&s);
	cr_assert_eq(pev_ring_begin(s.r), 128);
	cr_assert_eq(pev_ring_next(s.r, &rec), 1);
	expect_record(&rec, 2, 32);
	cr_expect_eq(pev_ring_next(s.r, &rec), PEV_EFORMAT, "size 0 inside the window");
	cr_assert_eq(pev_ring_skip(s.r), 0);
	cr_expect_eq(pev_ring_begin(s.r), 0, "skip starts over at the head");
	pev_ring_end(s.r);
	syn_close(&s);

	/* A record that crosses the previous batch's head (not wrapped). */
	syn_open(&s, 4096, true, 0);
	write_bwd(&s, 1, 32);
	s.head -= 16;
	write_header(&s, PEV_RECORD_SAMPLE, 64);
	publish(&s);
	cr_assert_eq(pev_ring_begin(s.r), 48);
	cr_expect_eq(pev_ring_next(s.r, &rec), PEV_EFORMAT, "64 bytes claimed, 48 written");
	cr_expect_eq(stats_of(s.r).malformed, 1);
	pev_ring_end(s.r);
	syn_close(&s);

	/* A misaligned head, and one that overlaps nothing sensible. */
	syn_open(&s, 4096, true, 0);
	s.page.data_head = (uint64_t)-12;
	cr_expect_eq(pev_ring_pending(s.r), PEV_EFORMAT);
	cr_expect_eq(pev_ring_begin(s.r), PEV_EFORMAT);
	cr_expect_eq(pev_ring_next(s.r, &rec), PEV_EBADARG, "no batch");
	s.page.data_head = (uint64_t)-24;
	write_bwd(&s, 5, 8);
	s.head = (uint64_t)-24;
	write_header(&s, PEV_RECORD_SAMPLE, 13);
	cr_assert_eq(pev_ring_begin(s.r), 24);
	cr_expect_eq(pev_ring_next(s.r, &rec), PEV_EFORMAT, "size 13");
	cr_assert_eq(pev_ring_skip(s.r), 0);
	cr_expect_eq(stats_of(s.r).skipped, 24);
	syn_close(&s);
}

Test(ring_synthetic, a_wrapped_overwrite_window_ending_in_a_torn_header_is_partial)
{
	struct syn s;
	struct pev_ring_record rec;
	int n = 0;

	/* Fill with 24-byte records: 4096 / 24 leaves 16 bytes of a torn record. */
	syn_open(&s, 4096, true, 0);
	for (int i = 0; i < 1000; i++)
		write_bwd(&s, (uint64_t)i, 24);
	publish(&s);
	cr_assert_eq(pev_ring_begin(s.r), 4096);
	while (pev_ring_next(s.r, &rec) == 1)
		expect_record(&rec, (uint64_t)(999 - n++), 24);
	cr_expect_eq(n, 4096 / 24);
	cr_expect_eq(stats_of(s.r).partial, 1);
	pev_ring_end(s.r);
	syn_close(&s);
}

/* ---- the AUX area --------------------------------------------------------------- */

static void fill_aux(unsigned char *aux, size_t size, uint64_t from, uint64_t to)
{
	for (uint64_t p = from; p != to; p++)
		aux[p & (size - 1)] = (uint8_t)(p * 13 + 5);
}

static void expect_aux_bytes(const struct pev_ring_aux *a, uint64_t from, size_t n)
{
	const unsigned char *p0 = a->data[0], *p1 = a->data[1];

	cr_assert_eq(a->size[0] + a->size[1], n);
	cr_assert_eq(a->offset, from);
	for (size_t i = 0; i < n; i++) {
		uint8_t b = i < a->size[0] ? p0[i] : p1[i - a->size[0]];
		cr_assert_eq(b, (uint8_t)((from + i) * 13 + 5), "AUX byte %zu", i);
	}
}

Test(ring_synthetic, a_forward_aux_area_wraps_and_gives_back_what_is_consumed)
{
	struct syn s;
	struct pev_ring_aux a;
	unsigned char *aux = malloc(4096);

	cr_assert_not_null(aux);
	syn_open(&s, 4096, false, 0);
	s.page.aux_tail = 4000;
	s.page.aux_head = 4000;
	cr_assert_eq(pev__ring_set_aux(s.r, aux, 4096, false), 0);
	cr_expect_eq(pev_ring_aux_size(s.r), 4096);
	cr_expect_eq(pev__ring_set_aux(s.r, aux, 4096, false), PEV_EBADARG, "only once");
	cr_expect_eq(pev_ring_aux_end(s.r, 0), PEV_EBADARG, "no read begun");

	fill_aux(aux, 4096, 4000, 4200);
	s.page.aux_head = 4200;
	cr_assert_eq(pev_ring_aux_begin(s.r, &a), 200);
	cr_expect_eq(a.size[0], 96, "up to the end of the area");
	cr_expect_eq(a.size[1], 104, "then from its start");
	cr_expect_eq(a.head, 4200);
	cr_expect_not(a.snapshot);
	expect_aux_bytes(&a, 4000, 200);
	cr_expect_eq(pev_ring_aux_end(s.r, 201), PEV_EBADARG, "more than shown");
	cr_assert_eq(pev_ring_aux_end(s.r, 150), 0);
	cr_expect_eq(s.page.aux_tail, 4150);

	cr_assert_eq(pev_ring_aux_begin(s.r, &a), 50);
	expect_aux_bytes(&a, 4150, 50);
	cr_expect_eq(a.size[1], 0, "no wrap");
	cr_assert_eq(pev_ring_aux_end(s.r, 50), 0);
	cr_expect_eq(s.page.aux_tail, 4200);
	cr_expect_eq(stats_of(s.r).aux_bytes, 200);

	/* Heads that cannot be right. */
	s.page.aux_head = 4200 + 4097;
	cr_expect_eq(pev_ring_aux_begin(s.r, &a), PEV_EFORMAT, "beyond the area");
	s.page.aux_head = 4199;
	cr_expect_eq(pev_ring_aux_begin(s.r, &a), PEV_EFORMAT, "behind the tail");
	s.page.aux_head = 4200 + 4096;
	fill_aux(aux, 4096, 4200, 4200 + 4096);
	cr_assert_eq(pev_ring_aux_begin(s.r, &a), 4096, "a full area");
	expect_aux_bytes(&a, 4200, 4096);
	cr_assert_eq(pev_ring_aux_end(s.r, 4096), 0);
	syn_close(&s);
	free(aux);
}

Test(ring_synthetic, a_snapshot_aux_area_shows_the_newest_bytes)
{
	struct syn s;
	struct pev_ring_aux a;
	unsigned char *aux = malloc(1024);

	cr_assert_not_null(aux);
	syn_open(&s, 4096, false, 0);
	s.page.aux_tail = 77; /* never written in snapshot mode */
	cr_assert_eq(pev__ring_set_aux(s.r, aux, 1024, true), 0);
	fill_aux(aux, 1024, 10000 - 1024, 10000);
	s.page.aux_head = 10000;
	cr_assert_eq(pev_ring_aux_begin(s.r, &a), 1024, "capped at the area");
	cr_expect(a.snapshot);
	expect_aux_bytes(&a, 10000 - 1024, 1024);
	cr_assert_eq(pev_ring_aux_end(s.r, 0), 0);
	cr_expect_eq(pev_ring_aux_begin(s.r, &a), 0, "nothing new");
	pev_ring_aux_end(s.r, 0);
	fill_aux(aux, 1024, 10000, 10100);
	s.page.aux_head = 10100;
	cr_assert_eq(pev_ring_aux_begin(s.r, &a), 100);
	expect_aux_bytes(&a, 10000, 100);
	pev_ring_aux_end(s.r, 0);
	cr_expect_eq(s.page.aux_tail, 77);
	cr_expect_eq(stats_of(s.r).aux_bytes, 1124);
	/* A head that went backwards shows at most the area. */
	s.page.aux_head = 5;
	int n = pev_ring_aux_begin(s.r, &a);
	cr_expect_eq(n, 1024);
	pev_ring_aux_end(s.r, 0);
	syn_close(&s);
	free(aux);
}

Test(ring_synthetic, aux_calls_without_an_aux_area_are_refused)
{
	struct syn s;
	struct pev_ring_aux a;

	syn_open(&s, 4096, false, 0);
	cr_expect_eq(pev_ring_aux_begin(s.r, &a), PEV_EBADARG);
	cr_expect_eq(pev_ring_aux_begin(NULL, &a), PEV_EBADARG);
	cr_expect_eq(pev_ring_aux_end(s.r, 0), PEV_EBADARG);
	cr_expect_eq(pev_ring_aux_size(NULL), 0);
	syn_close(&s);
}

/* ---- poll and redirect need descriptors --------------------------------------------- */

Test(ring_synthetic, poll_and_redirect_refuse_rings_without_descriptors)
{
	struct syn s;
	unsigned ready[1];
	struct pev_error err;

	syn_open(&s, 4096, false, 0);
	struct pev_ring *rings[1] = {s.r};
	cr_expect_eq(pev_ring_poll(rings, 1, 0, ready), PEV_EBADARG);
	cr_expect_eq(pev_ring_poll(NULL, 1, 0, ready), PEV_EBADARG);
	cr_expect_eq(pev_ring_poll(rings, 1, 0, NULL), PEV_EBADARG);
	cr_expect_eq(pev_ring_poll(NULL, 0, 0, NULL), 0, "no rings: a timeout");
	cr_expect_eq(pev_ring_redirect(s.r, NULL, 0, &err), PEV_EBADARG);
	cr_expect_str_eq(err.field, "r");
	cr_expect_eq(pev_ring_redirect(NULL, NULL, 0, &err), PEV_EBADARG);
	syn_close(&s);
}
