/* SPDX-License-Identifier: MIT */
/*
 * fuzz_ring.c - libFuzzer harness for the ring reader (src/sample/ring_read.c,
 * src/sample/ring_aux.c) over a synthetic ring (pev__ring_new, no syscalls), with
 * every record it returns decoded by pev_record_decode().
 *
 * Input (native byte order):
 *
 *   byte  0      data area size: 8 << (v % 14) bytes (8 B .. 64 KiB)
 *   byte  1      bit 0 overwrite ring, bit 1 AUX area, bit 2 AUX snapshot mode
 *   byte  2      AUX area size: 1 << (v % 17) bytes (1 B .. 64 KiB)
 *   byte  3      length of the operation script (0: a default script)
 *   bytes 4-7    unused
 *   bytes 8-15   data_head      bytes 16-23  data_tail
 *   bytes 24-31  aux_head       bytes 32-39  aux_tail
 *   bytes 40-55  the record format, as fuzz_record's 16-byte prefix
 *   then         the operation script, then the data area's contents (the
 *                rest of the input, zero-padded or cut to the area's size)
 *
 * Each script byte is an operation (low 4 bits, enum op) and an argument
 * (high 4 bits): begin, next, drain, consume, end, skip, pending, stats,
 * the kernel moving the head (by arg x 8 bytes, or by laps of the area, in
 * its direction: up for a forward ring, down for an overwrite ring) or
 * writing a record header, a head jumping far (64-bit wrap, against the
 * writer, unaligned), AUX begin/end and the AUX head moving, and reopening
 * the reader from the control page. Heads and tails therefore take any value:
 * beyond the area, behind the tail, unaligned, wrapping around 2^64.
 *
 * The data area, the AUX area and the control page are heap blocks of
 * exactly their size, so the sanitizer sees any read outside them. Besides,
 * the harness abort()s when the reader breaks a promise: a record that is
 * not 8-aligned, not a multiple of 8, larger than the area, outside the area
 * or the ring's copy buffer, or whose bytes differ from the ring's at its
 * position; an error other than the documented ones; an overwrite reader
 * that stores data_tail; a forward reader whose published tail passes the
 * head it saw; AUX parts that do not add up or lie outside the area.
 *
 * Seeds: fuzz/corpus/ring/, written by fuzz/make_ring_corpus.
 * Build: CC=clang meson setup build-fuzz -Dfuzz=true, then
 *   ./build-fuzz/fuzz/fuzz_ring -max_total_time=60 fuzz/corpus/ring
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfev.h"
#include "sample/ring_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HEADER 56

enum op {
	OP_BEGIN,
	OP_NEXT,
	OP_DRAIN,
	OP_CONSUME,
	OP_END,
	OP_SKIP,
	OP_PENDING,
	OP_STATS,
	OP_MOVE_HEAD,
	OP_JUMP_HEAD,
	OP_AUX_BEGIN,
	OP_AUX_END,
	OP_AUX_MOVE,
	OP_WRITE_RECORD,
	OP_REOPEN,
	OP_DESCRIBE,
};

static const uint8_t default_script[] = {
	OP_PENDING, OP_BEGIN, OP_DRAIN, OP_END,   OP_STATS,   OP_SKIP,      OP_BEGIN,
	OP_DRAIN,   OP_END,   OP_AUX_BEGIN, 0x8b /* AUX end, half */, OP_AUX_BEGIN, 0xfb, OP_STATS,
};

struct fz {
	struct pev_mmap_page *page;
	unsigned char *data;
	size_t data_size;
	unsigned char *aux;
	size_t aux_size;
	bool overwrite, snapshot;
	uint64_t tail0; /* data_tail as the input set it (an overwrite reader never stores) */
	struct pev_record_format fmt;
	struct pev_ring *r;
	struct pev_record last;
	bool have_last;
};

static uint64_t sink;

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_ring: %s\n", what);
	abort();
}

static uint64_t u64_at(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The record format from fuzz_record's 16-byte prefix. */
static void format_from(const uint8_t *p, struct pev_record_format *fmt)
{
	struct pev_record_config c = PEV_RECORD_CONFIG_INIT;

	c.sample_type = u64_at(p) & PEV_SAMPLE_ALL;
	c.read_format = p[8] & PEV_FORMAT_ALL;
	c.sample_id_all = p[9] & 1;
	c.branch_sample_type = PEV_BRANCH_ANY | (p[9] & 2 ? PEV_BRANCH_HW_INDEX : 0) |
			       (p[9] & 4 ? PEV_BRANCH_COUNTERS : 0);
	c.sample_regs_user = p[10];
	c.sample_regs_intr = p[9] & 8 ? UINT64_MAX : p[11];
	c.group_size = p[12];
	if (pev_record_format_init(fmt, &c) != 0)
		fail("a masked format was refused");
}

static void reopen(struct fz *z)
{
	pev_ring_close(z->r);
	z->r = NULL;
	z->have_last = false;
	if (pev__ring_new(z->page, z->data, z->data_size, z->overwrite, &z->r) != 0)
		fail("a valid synthetic ring was refused");
	if (z->aux_size && pev__ring_set_aux(z->r, z->aux, z->aux_size, z->snapshot) != 0)
		fail("a valid synthetic AUX area was refused");
}

/* Where the next record starts, as the reader sees it. */
static uint64_t next_position(const struct pev_ring *r)
{
	return r->overwrite ? r->head + r->pos : r->pos;
}

/* Checks a record the ring returned against the area, then decodes it. */
static void check_record(struct fz *z, uint64_t at, const struct pev_ring_record *rec)
{
	const unsigned char *b = (const unsigned char *)rec->header;
	uint64_t off = at & (z->data_size - 1);

	if (!b || rec->size < 8 || rec->size % 8 || rec->size > z->data_size)
		fail("a record size that cannot be right");
	if ((uintptr_t)b % 8)
		fail("a record that is not 8-aligned");
	if (rec->wrapped) {
		if (b != z->r->scratch || rec->size > z->r->scratch_size)
			fail("a wrapped record outside the copy buffer");
		if (off + rec->size <= z->data_size)
			fail("a record copied although it does not wrap");
		size_t first = z->data_size - off;
		if (memcmp(b, z->data + off, first) || memcmp(b + first, z->data, rec->size - first))
			fail("a wrapped record differs from the ring's bytes");
	} else {
		if (b != z->data + off || off + rec->size > z->data_size)
			fail("a record in place outside the data area or not at its position");
	}
	struct pev_event_header h;
	memcpy(&h, b, sizeof(h));
	if (h.size != rec->size)
		fail("rec.size differs from header.size");

	int got = pev_record_decode(&z->fmt, b, rec->size, &z->last);
	if (got > 0) {
		if ((size_t)got != rec->size)
			fail("the decoder consumed another size than the ring's");
		z->have_last = true;
	} else if (got != PEV_EFORMAT) {
		fail("the decoder gave an error other than PEV_EFORMAT");
	} else {
		z->have_last = false;
	}
	uint64_t t;
	(void)pev_record_time(&z->fmt, b, rec->size, &t);
	(void)pev_record_id(&z->fmt, b, rec->size, &t);
}

/* One pev_ring_next(); returns its result. */
static int next_one(struct fz *z)
{
	struct pev_ring_record rec;
	bool in_batch = z->r->in_batch;
	uint64_t at = next_position(z->r);
	int rc = pev_ring_next(z->r, &rec);

	if (rc == 1)
		check_record(z, at, &rec);
	else if (rc != 0 && rc != PEV_EFORMAT && rc != PEV_EBADARG)
		fail("pev_ring_next gave an undocumented result");
	if (rc == PEV_EBADARG && in_batch)
		fail("pev_ring_next refused a call inside a batch");
	return rc;
}

static void check_tail(struct fz *z)
{
	if (z->overwrite) {
		if (z->page->data_tail != z->tail0)
			fail("an overwrite reader stored data_tail");
	} else if (z->r->in_batch && z->r->head - z->page->data_tail > z->data_size) {
		fail("the published tail passed the head of the batch");
	}
}

static void aux_begin(struct fz *z)
{
	struct pev_ring_aux a;
	int rc = pev_ring_aux_begin(z->r, &a);

	if (rc == PEV_EBADARG && !z->aux_size)
		return;
	if (rc < 0) {
		if (rc != PEV_EFORMAT || z->snapshot)
			fail("pev_ring_aux_begin gave an undocumented error");
		return;
	}
	if ((size_t)rc != a.size[0] + a.size[1] || (size_t)rc > z->aux_size)
		fail("the AUX parts do not add up");
	const unsigned char *lo = z->aux, *hi = z->aux + z->aux_size;
	for (int i = 0; i < 2; i++) {
		const unsigned char *p = a.data[i];
		if (!a.size[i])
			continue;
		if (p < lo || p >= hi || a.size[i] > (size_t)(hi - p))
			fail("an AUX part outside the area");
		for (size_t k = 0; k < a.size[i]; k++)
			sink += p[k];
	}
	if (a.size[1] && a.data[1] != z->aux)
		fail("the second AUX part does not start at the area");
}

static void stats(struct fz *z, unsigned arg)
{
	static const size_t sizes[] = {0, 4, 8, 16, 24, 40, 64, 72, 80, sizeof(struct pev_ring_stats),
				       sizeof(struct pev_ring_stats) + 8};
	unsigned char buf[sizeof(struct pev_ring_stats) + 16];
	struct pev_ring_stats s;
	size_t sz = sizes[arg % (sizeof(sizes) / sizeof(sizes[0]))];

	memset(buf, 0xa5, sizeof(buf));
	memcpy(buf, &sz, sizeof(sz));
	int rc = pev_ring_stats(z->r, (struct pev_ring_stats *)(void *)buf);
	if (sz < sizeof(size_t)) {
		if (rc != PEV_EBADARG)
			fail("pev_ring_stats took a size below sizeof(size_t)");
		return;
	}
	if (rc != 0)
		fail("pev_ring_stats failed");
	size_t filled = sz < sizeof(s) ? sz : sizeof(s);
	memcpy(&s.sz, buf, sizeof(s.sz));
	if (s.sz != filled)
		fail("pev_ring_stats set another size than it filled");
	for (size_t i = filled; i < sizeof(buf); i++)
		if (buf[i] != 0xa5)
			fail("pev_ring_stats wrote past the caller's size");
	memcpy(&s, buf, filled);
	if (filled == sizeof(s) && s.wrapped > s.records)
		fail("more wrapped records than records");
}

/* The kernel's head moves by n bytes in its direction: up (forward), down (overwrite). */
static void move_head(struct fz *z, uint64_t n)
{
	if (z->overwrite)
		z->page->data_head -= n;
	else
		z->page->data_head += n;
}

/* The kernel writes a record header of size arg * 8 at its head and moves it. */
static void write_record(struct fz *z, unsigned arg)
{
	struct pev_event_header h = {PEV_RECORD_SAMPLE, 0, (uint16_t)(arg * 8)};
	uint64_t head = z->page->data_head;

	if (z->overwrite)
		head -= h.size;
	for (size_t i = 0; i < sizeof(h) && i < z->data_size; i++)
		z->data[(head + i) & (z->data_size - 1)] = ((const unsigned char *)&h)[i];
	if (!z->overwrite)
		head += h.size;
	z->page->data_head = head;
}

/* FUZZ_RING_TRACE=1 in the environment prints each operation and the reader's state. */
static void trace(const struct fz *z, uint8_t byte)
{
	static int on = -1;

	if (on < 0)
		on = getenv("FUZZ_RING_TRACE") != NULL;
	if (!on)
		return;
	fprintf(stderr, "op %2u arg %2u: head %#llx tail %#llx pos %#llx batch %d records %llu "
			"malformed %llu\n",
		byte & 15, byte >> 4, (unsigned long long)z->page->data_head,
		(unsigned long long)z->page->data_tail, (unsigned long long)z->r->pos,
		z->r->in_batch, (unsigned long long)z->r->stats.records,
		(unsigned long long)z->r->stats.malformed);
}

static void run_op(struct fz *z, uint8_t byte)
{
	unsigned arg = byte >> 4;
	int rc;

	trace(z, byte);

	switch ((enum op)(byte & 15)) {
	case OP_BEGIN:
		rc = pev_ring_begin(z->r);
		if (rc < 0 && rc != PEV_EFORMAT)
			fail("pev_ring_begin gave an undocumented error");
		if (rc > 0 && (size_t)rc > z->data_size)
			fail("a batch larger than the data area");
		break;
	case OP_NEXT:
		next_one(z);
		break;
	case OP_DRAIN:
		for (size_t i = 0; i <= z->data_size / 8; i++)
			if (next_one(z) != 1)
				break;
		break;
	case OP_CONSUME:
		if (pev_ring_consume(z->r) != 0)
			fail("pev_ring_consume failed");
		z->have_last = false;
		break;
	case OP_END:
		if (pev_ring_end(z->r) != 0)
			fail("pev_ring_end failed on a synthetic ring");
		z->have_last = false;
		break;
	case OP_SKIP:
		if (pev_ring_skip(z->r) != 0)
			fail("pev_ring_skip failed on a synthetic ring");
		if (!z->overwrite && z->page->data_tail != z->page->data_head)
			fail("a forward skip did not give back everything up to the head");
		z->have_last = false;
		break;
	case OP_PENDING:
		rc = pev_ring_pending(z->r);
		if (rc < 0 && rc != PEV_EFORMAT)
			fail("pev_ring_pending gave an undocumented error");
		if (rc > 0 && (size_t)rc > z->data_size)
			fail("more pending than the data area holds");
		break;
	case OP_STATS:
		stats(z, arg);
		break;
	case OP_MOVE_HEAD:
		move_head(z, (uint64_t)arg * 8);
		break;
	case OP_JUMP_HEAD:
		/* Far jumps: around 2^64, laps of the area, against the writer, unaligned. */
		if (arg < 8)
			z->page->data_head ^= UINT64_C(1) << (arg * 8 + 7);
		else if (arg < 12)
			move_head(z, (uint64_t)z->data_size << (arg - 8));
		else if (arg < 15)
			move_head(z, (uint64_t)0 - (uint64_t)(arg - 11) * 8);
		else
			z->page->data_head += 4;
		break;
	case OP_AUX_BEGIN:
		aux_begin(z);
		break;
	case OP_AUX_END:
		rc = pev_ring_aux_end(z->r, arg == 15 ? SIZE_MAX : arg * (z->aux_size / 8 + 1));
		if (rc != 0 && rc != PEV_EBADARG)
			fail("pev_ring_aux_end gave an undocumented error");
		break;
	case OP_AUX_MOVE:
		z->page->aux_head += arg < 15 ? (uint64_t)arg * (z->aux_size / 4 + 1) : UINT64_MAX / 2;
		break;
	case OP_WRITE_RECORD:
		write_record(z, arg);
		break;
	case OP_REOPEN:
		reopen(z);
		break;
	case OP_DESCRIBE:
		/* The last decoded record, if its bytes are still valid (no consume/end since). */
		if (z->have_last) {
			char line[128];
			pev_record_describe(&z->last, line, sizeof(line));
			sink += (unsigned char)line[0];
		}
		break;
	}
	check_tail(z);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz z;

	if (size < HEADER)
		return 0;
	memset(&z, 0, sizeof(z));
	z.data_size = (size_t)8 << (data[0] % 14);
	z.overwrite = data[1] & 1;
	z.aux_size = data[1] & 2 ? (size_t)1 << (data[2] % 17) : 0;
	z.snapshot = data[1] & 4;
	format_from(data + 40, &z.fmt);

	const uint8_t *script = data + HEADER;
	size_t nops = data[3];
	if (nops > size - HEADER)
		nops = size - HEADER;
	const uint8_t *body = script + nops;
	size_t body_size = size - HEADER - nops;
	if (!nops) {
		script = default_script;
		nops = sizeof(default_script);
	}

	z.page = calloc(1, sizeof(*z.page));
	z.data = malloc(z.data_size);
	z.aux = z.aux_size ? malloc(z.aux_size) : NULL;
	if (!z.page || !z.data || (z.aux_size && !z.aux))
		goto out;
	memset(z.data, 0, z.data_size);
	memcpy(z.data, body, body_size < z.data_size ? body_size : z.data_size);
	for (size_t i = 0; i < z.aux_size; i++)
		z.aux[i] = (unsigned char)(i * 31 + 7);
	z.page->data_head = u64_at(data + 8);
	z.page->data_tail = u64_at(data + 16);
	z.page->data_size = z.data_size;
	z.page->aux_head = u64_at(data + 24);
	z.page->aux_tail = u64_at(data + 32);
	z.page->aux_size = z.aux_size;
	z.tail0 = z.page->data_tail;
	reopen(&z);

	for (size_t i = 0; i < nops; i++)
		run_op(&z, script[i]);
	/* Whatever state the script left, ending and skipping are always safe. */
	run_op(&z, OP_END);
	run_op(&z, OP_BEGIN);
	run_op(&z, OP_DRAIN);
	run_op(&z, OP_SKIP);
	run_op(&z, 0xf0 | OP_STATS);
out:
	pev_ring_close(z.r);
	free(z.aux);
	free(z.data);
	free(z.page);
	return 0;
}
