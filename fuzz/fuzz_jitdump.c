/* SPDX-License-Identifier: MIT */
/*
 * fuzz_jitdump.c - libFuzzer harness for the jitdump reader
 * (src/symbols/symbols_jitdump.c): a jit-PID.dump file is bytes any
 * process wrote, read by whoever reports the recording.
 *
 * Input, by its first byte:
 *
 *   even  the rest is a dump as it is (bad headers, sizes that lie, cut
 *         short anywhere, the other byte order);
 *   odd   the rest is a program that writes a well-formed dump, so that
 *         mutations reach the records' contents rather than die at the
 *         header: bit 1 of the first byte swaps the byte order, then each
 *         step takes 8 bytes:
 *           byte 0    what: CODE_LOAD, CODE_MOVE, DEBUG_INFO, CLOSE, an
 *                     unknown id, a record with a size that lies (mod 6)
 *           byte 1    time step (times may go back: bit 7)
 *           byte 2-3  address (in 64 KiB, so that pieces overlap)
 *           byte 4-5  size (0 allowed)
 *           byte 6    code index (moves name loaded ones) / line count
 *           byte 7    name: one of 4
 *
 * The harness parses the dump and abort()s when a promise breaks:
 *   - the parser answers 0 or -EINVAL (never reads past the bytes: ASan);
 *   - pieces are sorted by start, non-empty, do not wrap around, and have
 *     names and DSO names; their line tables are sorted by address;
 *   - a lookup at each piece's start finds a piece holding the address;
 *     at the piece's own time it finds one loaded no later, and the window
 *     it gives holds that time.
 *
 * Build: CC=clang meson setup build-fuzz -Dfuzz=true, then
 *   ./build-fuzz/fuzz/fuzz_jitdump -max_total_time=60 fuzz/corpus/jitdump
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/jitdump_build.h"
#include "symbols/symbols_internal.h"

#define STEP      8
#define MAX_STEPS 512
#define BASE      UINT64_C(0x7f0000000000)

static const char *const names[4] = {"JS:*hot a.js:1", "Builtin:Entry", "", "LazyCompile:~f"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_jitdump: %s\n", what);
		abort();
	}
}

/* Writes the dump that the steps in p (n bytes) describe. */
static void build(struct jd_buf *b, const uint8_t *p, size_t n)
{
	uint64_t time = 1000;

	jd_header(b, 77, 0);
	for (size_t k = 0; k + STEP <= n && k / STEP < MAX_STEPS; k += STEP) {
		const uint8_t *s = p + k;
		uint64_t addr = BASE + (uint64_t)(s[2] | s[3] << 8);
		uint64_t len = (uint64_t)(s[4] | s[5] << 8);
		const char *name = names[s[7] & 3];
		size_t at;

		time = (s[1] & 0x80) ? time - (s[1] & 0x7f) : time + s[1];
		switch (s[0] % 6) {
		case 0:
			jd_load(b, time, 77, addr, len & 0x3ff, s[6], name);
			break;
		case 1:
			jd_move(b, time, 77, addr, addr + (len & 0xfff), len & 0x3ff, s[6]);
			break;
		case 2: {
			struct jd_line lines[8];
			size_t nl = s[6] & 7;
			for (size_t i = 0; i < nl; i++)
				lines[i] = (struct jd_line){addr + i * (len & 0x3f), (uint32_t)i,
							    i % 2 ? "\xff" : name};
			jd_debug_info(b, time, addr, lines, nl);
			break;
		}
		case 3:
			jd_close(b, time);
			break;
		case 4: /* an id from a later version */
			at = jd_begin(b, 5 + s[6], time);
			jd_bytes(b, s, STEP);
			jd_end(b, at);
			break;
		default: /* a record whose size says more or less than it holds */
			at = jd_begin(b, s[6] % 3, time);
			jd_bytes(b, s, STEP);
			jd_end(b, at);
			jd_put32(b, at + 4, (uint32_t)(b->len - at) + (uint32_t)(int8_t)s[7]);
			break;
		}
	}
}

static void check_dump(struct sym_jitdump *d)
{
	uint64_t from, until;

	for (size_t i = 0; i < d->n; i++) {
		const struct jitdump_code *c = &d->code[i];

		check(c->size > 0 && c->start + c->size > c->start, "a piece is empty or wraps");
		check(c->name && c->dso, "a piece without a name");
		check(c->size <= d->max_size, "max_size too small");
		check(i == 0 || d->code[i - 1].start <= c->start, "pieces out of order");
		for (uint32_t k = 1; k < c->nlines; k++)
			check(c->lines[k - 1].addr <= c->lines[k].addr, "lines out of order");
	}
	for (size_t i = 0; i < d->n && i < 64; i++) {
		const struct jitdump_code *c = &d->code[i], *f;

		f = pev__jitdump_find(d, c->start, UINT64_MAX, &from, &until);
		check(f && c->start - f->start < f->size, "a piece's start not found");
		check(from == 0 && until == UINT64_MAX, "an untimed answer with a window");
		if (d->arch_timestamp || c->time == UINT64_MAX)
			continue; /* times not compared */
		f = pev__jitdump_find(d, c->start, c->time, &from, &until);
		check(f && c->start - f->start < f->size, "a piece's start not found at its time");
		check(f->time <= c->time, "code loaded after the time names it");
		check(from <= c->time && c->time < until, "the window misses the time");
		if (c->time) {
			f = pev__jitdump_find(d, c->start, c->time - 1, &from, &until);
			check(!f || f->time < c->time, "code named before it was loaded");
			check(until <= c->time, "a window past a load");
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jd_buf b = {0};
	const uint8_t *bytes;
	size_t len;
	struct sym_jitdump *d;
	int rc;

	if (size < 1)
		return 0;
	if (data[0] & 1) {
		b.swap = data[0] & 2;
		build(&b, data + 1, size - 1);
		bytes = b.p;
		len = b.len;
	} else {
		bytes = data + 1;
		len = size - 1;
	}
	d = pev__jitdump_new("/fuzz/jit-77.dump");
	if (!d) {
		free(b.p);
		return 0;
	}
	d->loaded = true; /* the bytes are here: no file to read */
	rc = pev__jitdump_parse(d, bytes, len);
	check(rc == 0 || rc == -EINVAL || rc == -ENOMEM, "an unexpected return code");
	if (rc == 0)
		check_dump(d);
	if ((data[0] & 1) && rc != -ENOMEM)
		check(rc == 0, "a well-formed dump refused");
	pev__jitdump_free(d);
	free(b.p);
	return 0;
}
