/* SPDX-License-Identifier: MIT */
/*
 * make_ring_corpus.c - writes the seed corpus of fuzz_ring: rings laid out
 * as the kernel leaves them, filled with the test suite's golden records
 * (tests/record_golden.c) under their own event formats.
 *
 *   forward-NN     one file per event format: its records from a start
 *                  position chosen so that one wraps the end of the area
 *                  (a different split in each file), or around 2^64
 *   full           a forward ring exactly full (head = tail + area)
 *   overwrite-*    overwrite rings: written less than one lap, exactly one,
 *                  and many laps (the oldest record partly overwritten),
 *                  the script moving the head after the reader opened
 *   aux-*          forward and snapshot AUX areas whose heads wrap
 *   bad-*          a head behind the tail, an unaligned tail, a record size
 *                  of 0, a record larger than the batch
 *
 * The layout of a file is fuzz_ring.c's.
 *   ./build-fuzz/fuzz/make_ring_corpus [OUT_DIR]   (default fuzz/corpus/ring)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../tests/record_golden.h"

#define HEADER 56
#define AREA_MAX 65536

/* fuzz_ring's operations (see enum op there). */
enum { OP_BEGIN, OP_NEXT, OP_DRAIN, OP_CONSUME, OP_END, OP_SKIP, OP_PENDING, OP_STATS,
       OP_MOVE_HEAD, OP_JUMP_HEAD, OP_AUX_BEGIN, OP_AUX_END, OP_AUX_MOVE, OP_WRITE_RECORD,
       OP_REOPEN, OP_DESCRIBE };

struct seed {
	unsigned char hdr[HEADER];
	unsigned char script[255];
	size_t nops;
	unsigned char data[AREA_MAX];
	size_t size; /* the data area */
};

static const char *dir;
static int files;

static int shift_of(size_t size)
{
	int s = 0;

	while (((size_t)8 << s) < size)
		s++;
	return s;
}

static void seed_init(struct seed *s, size_t size, const struct pev_record_config *c)
{
	memset(s, 0, sizeof(*s));
	s->size = size;
	s->hdr[0] = (unsigned char)shift_of(size);
	if (c) {
		memcpy(s->hdr + 40, &c->sample_type, 8);
		s->hdr[48] = (unsigned char)c->read_format;
		s->hdr[49] = (unsigned char)((c->sample_id_all ? 1 : 0) |
					     (c->branch_sample_type & PEV_BRANCH_HW_INDEX ? 2 : 0) |
					     (c->branch_sample_type & PEV_BRANCH_COUNTERS ? 4 : 0) |
					     (c->sample_regs_intr > 0xff ? 8 : 0));
		s->hdr[50] = (unsigned char)c->sample_regs_user;
		s->hdr[51] = (unsigned char)c->sample_regs_intr;
		s->hdr[52] = (unsigned char)c->group_size;
	}
}

static void set_u64(struct seed *s, size_t at, uint64_t v)
{
	memcpy(s->hdr + at, &v, 8);
}

static void op(struct seed *s, unsigned char o)
{
	if (s->nops < sizeof(s->script))
		s->script[s->nops++] = o;
}

/* Script ops that move the head by n bytes (a multiple of 8) in the writer's direction. */
static void move_by(struct seed *s, uint64_t n)
{
	while (n >= s->size) {
		op(s, 8 << 4 | OP_JUMP_HEAD); /* one lap */
		n -= s->size;
	}
	while (n) {
		uint64_t k = n / 8 > 15 ? 15 : n / 8;
		op(s, (unsigned char)(k << 4 | OP_MOVE_HEAD));
		n -= k * 8;
	}
}

static void put(struct seed *s, uint64_t pos, const void *src, size_t n)
{
	const unsigned char *b = src;

	for (size_t i = 0; i < n; i++)
		s->data[(pos + i) & (s->size - 1)] = b[i];
}

static void emit(const struct seed *s, const char *name)
{
	char path[4096];
	unsigned char hdr[HEADER];
	FILE *f;

	memcpy(hdr, s->hdr, HEADER);
	hdr[3] = (unsigned char)s->nops;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(f = fopen(path, "wb")) || fwrite(hdr, 1, HEADER, f) != HEADER ||
	    fwrite(s->script, 1, s->nops, f) != s->nops ||
	    fwrite(s->data, 1, s->size, f) != s->size || fclose(f) != 0) {
		fprintf(stderr, "make_ring_corpus: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	files++;
}

/* The golden records of g's event format, at most `max` bytes of them; returns the bytes. */
static size_t collect(size_t g, const struct rg_golden **out, size_t *n, size_t max)
{
	const struct pev_record_config *c = &rg_golden[g].config;
	size_t bytes = 0;

	*n = 0;
	for (size_t j = 0; j < rg_golden_count; j++) {
		const struct rg_golden *x = &rg_golden[j];
		if (memcmp(&x->config, c, sizeof(*c)) || bytes + x->nwords * 8 > max)
			continue;
		out[(*n)++] = x;
		bytes += x->nwords * 8;
	}
	return bytes;
}

static size_t area_for(size_t bytes)
{
	size_t size = 64;

	while (size < bytes && size < AREA_MAX)
		size *= 2;
	return size;
}

static void forward_seeds(void)
{
	const struct rg_golden **recs = calloc(rg_golden_count, sizeof(*recs));
	bool *done = calloc(rg_golden_count, sizeof(*done));
	int k = 0;

	if (!recs || !done)
		exit(1);
	for (size_t g = 0; g < rg_golden_count && k < 60; g++) {
		struct seed *s = malloc(sizeof(*s));
		size_t n;
		char name[32];

		if (done[g] || !s)
			continue;
		size_t bytes = collect(g, recs, &n, AREA_MAX);
		for (size_t j = 0; j < rg_golden_count; j++)
			if (!memcmp(&rg_golden[j].config, &rg_golden[g].config,
				    sizeof(rg_golden[g].config)))
				done[j] = true;
		seed_init(s, area_for(bytes), &rg_golden[g].config);
		/* Start so that the first record crosses the end, at a split that changes. */
		size_t first = recs[0]->nwords * 8;
		uint64_t start = s->size - 8 * (1 + (uint64_t)k % (first / 8));
		if (k % 5 == 4)
			start -= s->size; /* just below 2^64: the positions wrap around 0 */
		uint64_t pos = start;
		for (size_t i = 0; i < n; i++) {
			put(s, pos, recs[i]->words, recs[i]->nwords * 8);
			pos += recs[i]->nwords * 8;
		}
		set_u64(s, 8, pos);
		set_u64(s, 16, start);
		snprintf(name, sizeof(name), "forward-%02d", k++);
		emit(s, name);
		free(s);
	}
	free(recs);
	free(done);
}

/* The first golden SAMPLE with a callchain: a realistic record for the special cases. */
static const struct rg_golden *a_sample(void)
{
	for (size_t j = 0; j < rg_golden_count; j++)
		if ((rg_golden[j].config.sample_type & PEV_SAMPLE_CALLCHAIN) &&
		    rg_golden[j].want.type == PEV_RECORD_SAMPLE)
			return &rg_golden[j];
	return &rg_golden[0];
}

static void full_seed(void)
{
	const struct rg_golden *g = a_sample();
	struct seed *s = malloc(sizeof(*s));
	size_t rsize = g->nwords * 8;

	if (!s)
		exit(1);
	seed_init(s, area_for(rsize * 4), &g->config);
	uint64_t pos = 24;
	while (pos - 24 + rsize <= s->size) {
		put(s, pos, g->words, rsize);
		pos += rsize;
	}
	/* Pad the remainder with whole records of the kernel's smallest kind. */
	while (pos - 24 < s->size) {
		struct pev_event_header h = {PEV_RECORD_SWITCH, 0, 8};
		put(s, pos, &h, 8);
		pos += 8;
	}
	set_u64(s, 8, pos);
	set_u64(s, 16, 24);
	emit(s, "full");
	free(s);
}

/*
 * An overwrite ring the writer filled with `bytes` of records since the
 * reader opened at head h0; the script moves the head there, then reads.
 */
static void overwrite_seed(const char *name, size_t size, uint64_t h0, size_t bytes)
{
	const struct rg_golden *g = a_sample();
	struct seed *s = malloc(sizeof(*s));
	uint64_t head = h0;
	size_t written = 0;
	uint16_t seq = 0;

	if (!s)
		exit(1);
	seed_init(s, size, &g->config);
	s->hdr[1] = 1;
	while (written < bytes) {
		const uint64_t *w = g->words;
		size_t n = g->nwords * 8;
		struct pev_event_header h = {PEV_RECORD_SWITCH, seq, 8};
		if (seq++ % 3 == 2) { /* mix in small records */
			w = (const uint64_t *)(const void *)&h;
			n = 8;
		}
		if (written + n > bytes)
			n = 8, w = (const uint64_t *)(const void *)&h;
		head -= n;
		put(s, head, w, n);
		written += n;
	}
	set_u64(s, 8, h0);
	set_u64(s, 16, 0xdeadbeef);
	move_by(s, written);
	op(s, OP_PENDING);
	op(s, OP_BEGIN);
	op(s, OP_DRAIN);
	op(s, OP_DESCRIBE);
	op(s, OP_END);
	op(s, OP_STATS | 0xa0);
	move_by(s, 48);
	op(s, OP_BEGIN);
	op(s, OP_NEXT);
	op(s, OP_END);
	op(s, OP_SKIP);
	emit(s, name);
	free(s);
}

static void aux_seed(const char *name, bool snapshot, unsigned aux_shift, uint64_t tail,
		     uint64_t head)
{
	struct seed *s = malloc(sizeof(*s));

	if (!s)
		exit(1);
	seed_init(s, 64, NULL);
	s->hdr[1] = (unsigned char)(2 | (snapshot ? 4 : 0));
	s->hdr[2] = (unsigned char)aux_shift;
	set_u64(s, 24, head);
	set_u64(s, 32, tail);
	op(s, OP_AUX_BEGIN);
	op(s, 4 << 4 | OP_AUX_END);
	op(s, OP_AUX_BEGIN);
	op(s, 15 << 4 | OP_AUX_END);
	op(s, 3 << 4 | OP_AUX_MOVE);
	op(s, OP_AUX_BEGIN);
	op(s, 0 << 4 | OP_AUX_END);
	op(s, OP_AUX_END);
	op(s, OP_STATS | 0x90);
	emit(s, name);
	free(s);
}

static void bad_seeds(void)
{
	const struct rg_golden *g = a_sample();
	struct seed *s = malloc(sizeof(*s));
	size_t n = g->nwords * 8;

	if (!s)
		exit(1);
	/* A head behind the tail, then a skip and records again. */
	seed_init(s, 256, &g->config);
	put(s, 64, g->words, n);
	set_u64(s, 8, 32);
	set_u64(s, 16, 64);
	op(s, OP_BEGIN);
	op(s, OP_PENDING);
	op(s, OP_SKIP);
	op(s, 13 << 4 | OP_WRITE_RECORD);
	op(s, OP_BEGIN);
	op(s, OP_DRAIN);
	op(s, OP_END);
	emit(s, "bad-head-behind");

	/* An unaligned tail. */
	seed_init(s, 256, &g->config);
	set_u64(s, 8, 64);
	set_u64(s, 16, 4);
	emit(s, "bad-tail-unaligned");

	/* A record of size 0 after a good one, and one larger than the batch. */
	seed_init(s, 256, &g->config);
	put(s, 0, g->words, n);
	set_u64(s, 8, n + 16);
	set_u64(s, 16, 0);
	struct pev_event_header h0 = {PEV_RECORD_SAMPLE, 0, 0};
	put(s, n, &h0, 8);
	emit(s, "bad-size-0");
	seed_init(s, 256, &g->config);
	struct pev_event_header big = {PEV_RECORD_SAMPLE, 0, 248};
	put(s, 200, &big, 8);
	set_u64(s, 8, 200 + 64);
	set_u64(s, 16, 200);
	emit(s, "bad-size-past-batch");
	free(s);
}

int main(int argc, char **argv)
{
	dir = argc > 1 ? argv[1] : "fuzz/corpus/ring";
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "make_ring_corpus: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	forward_seeds();
	full_seed();
	overwrite_seed("overwrite-less-than-a-lap", 1024, 0, 600);
	overwrite_seed("overwrite-one-lap", 512, 4096, 512);
	overwrite_seed("overwrite-many-laps", 512, 16, 512 * 5 + 200);
	overwrite_seed("overwrite-around-2-64", 256, 64, 256 * 3 + 96);
	aux_seed("aux-forward-wraps", false, 12, 4000, 4000 + 3000);
	aux_seed("aux-forward-at-2-64", false, 8, UINT64_MAX - 100, 60);
	aux_seed("aux-snapshot-wrapped", true, 10, 0, 1024 * 3 + 100);
	aux_seed("aux-forward-bad-head", false, 6, 100, 50);
	bad_seeds();
	printf("make_ring_corpus: %d files in %s\n", files, dir);
	return 0;
}
