/* SPDX-License-Identifier: MIT */
/*
 * fuzz_index.c - libFuzzer harness for the symbol index of a DSO
 * (src/symbols/symbols_index.c): the symbols a file's symbol table holds,
 * any file's, hostile ones included, cut into address ranges.
 *
 * Input: 12 bytes a symbol, up to 4096 symbols:
 *
 *   bytes 0-3   start (little endian, the low 20 bits: symbols crowd a megabyte)
 *   bytes 4-5   size (0: a label)
 *   bytes 6-7   section end, as an offset from start (0: no section known)
 *   byte  8     type: STT_FUNC, STT_OBJECT, STT_NOTYPE, STT_GNU_IFUNC (mod 4)
 *   byte  9     binding: STB_LOCAL, STB_GLOBAL, STB_WEAK (mod 3)
 *   byte  10    name: one of 8 (aliases compare names)
 *   byte  11    unused
 *
 * The harness builds the index and abort()s when a promise breaks:
 *   - the ranges start at strictly increasing addresses;
 *   - a range that names a symbol lies inside it: from its start to its
 *     extent (a sized symbol's size, a label's reach);
 *   - a lookup at a sized symbol's start finds a symbol starting there (the
 *     symbol or an alias of it: the one that starts last holds an address),
 *     and one at its last byte a sized symbol (never a label, never none);
 *   - a lookup at any symbol's start, last byte and first byte after finds
 *     nothing or a symbol that starts at or before the address and holds it.
 *
 * Build: CC=clang meson setup build-fuzz -Dfuzz=true, then
 *   ./build-fuzz/fuzz/fuzz_index -max_total_time=60 fuzz/corpus/index
 */
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symbols_internal.h"

#define RECORD   12
#define MAX_SYMS 4096

static const char *const names[8] = {
	"f", "__f", "f_long_name", "_Z1fi", "__GI_f", "g", "v@@VT_2", "main",
};

static const unsigned char types[4] = {STT_FUNC, STT_OBJECT, STT_NOTYPE, STT_GNU_IFUNC};
static const unsigned char binds[3] = {STB_LOCAL, STB_GLOBAL, STB_WEAK};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_index: %s\n", what);
		abort();
	}
}

/* Whether the symbol found for addr (NULL: none) is allowed there. */
static void check_lookup(const struct sym_index *x, uint64_t addr)
{
	const struct dso_sym *s = pev__index_find(x, addr);

	if (!s)
		return;
	check(s->start <= addr, "a lookup found a symbol that starts after the address");
	check(!s->size || addr - s->start < s->size, "a lookup found a symbol that ends before it");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = size / RECORD;
	struct pev__index_sym *c, *orig;
	struct sym_index *x;

	if (n > MAX_SYMS)
		n = MAX_SYMS;
	c = calloc(n ? n : 1, sizeof(*c));
	orig = calloc(n ? n : 1, sizeof(*orig));
	if (!c || !orig)
		abort();
	for (size_t i = 0; i < n; i++) {
		const uint8_t *r = data + i * RECORD;
		uint32_t start = (uint32_t)r[0] | (uint32_t)r[1] << 8 | (uint32_t)(r[2] & 0x0f) << 16;
		uint16_t sz = (uint16_t)(r[4] | r[5] << 8), end = (uint16_t)(r[6] | r[7] << 8);

		c[i] = (struct pev__index_sym){
			.start = start,
			.size = sz,
			.limit = end ? (uint64_t)start + end : 0,
			.name = names[r[10] & 7],
			.order = (uint32_t)i + 1,
			.type = types[r[8] & 3],
			.bind = binds[r[9] % 3],
		};
	}
	memcpy(orig, c, n * sizeof(*c));
	x = pev__index_new(c, n);
	if (!x) /* out of memory: nothing to check */
		goto out;
	check(x->nranges >= 1, "no range at all");
	for (size_t k = 0; k < x->nranges; k++) {
		uint32_t i = x->sym[k];

		if (k + 1 < x->nranges)
			check(x->at[k] < x->at[k + 1], "ranges out of order");
		if (i == UINT32_MAX)
			continue;
		check(i < x->nsyms, "a range names no entry");
		const struct dso_sym *s = &x->syms[i];
		check(x->at[k] >= s->start, "a range starts before its symbol");
		if (k + 1 < x->nranges)
			check(s->size && x->at[k + 1] - s->start <= s->size,
			      "a range ends past its symbol");
	}
	for (size_t i = 0; i < n; i++) {
		const struct pev__index_sym *o = &orig[i];

		if (o->size) {
			const struct dso_sym *s = pev__index_find(x, o->start);
			check(s && s->start == o->start, "a sized symbol's start finds another");
			s = pev__index_find(x, o->start + o->size - 1);
			check(s && s->size, "a sized symbol's last byte is no sized symbol's");
		}
		check_lookup(x, o->start);
		check_lookup(x, o->start + (o->size ? o->size - 1 : 0));
		check_lookup(x, o->start + o->size);
		check_lookup(x, o->start ? o->start - 1 : 0);
	}
	pev__index_free(x);
out:
	free(c);
	free(orig);
	return 0;
}
