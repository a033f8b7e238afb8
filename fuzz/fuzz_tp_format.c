/* SPDX-License-Identifier: MIT */
/*
 * fuzz_tp_format.c - libFuzzer harness for tracepoint formats
 * (src/events/tp_format.c): pev_tp_format_parse() of untrusted format text,
 * then every field read from a raw payload with pev_tp_field_int, _uint and
 * _bytes, and the whole payload printed with pev_tp_format_print.
 *
 * Input:
 *
 *   bytes 0-1   n, little-endian: the length of the format text
 *   bytes 2-    the text (n bytes), then the raw payload of one sample
 *
 * Both are copied into heap buffers of exactly their length, so the
 * sanitizer sees a read past either. The custom mutator keeps that framing:
 * it mutates the text or the payload alone, or rewrites one number of a
 * field line (offset:, size:, signed:) or the u32 of a __data_loc field in
 * the payload, where the parser's and the getters' bounds are.
 *
 * Seeds (fuzz/corpus/tp_format/): fuzz/make_tp_format_corpus.py, from the
 * fixture tracefs's formats with payloads laid out as they say.
 *   ./build-fuzz/fuzz/fuzz_tp_format -max_total_time=60 fuzz/corpus/tp_format
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfev/tracepoint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pev_tp_format *f;
	struct pev_error err;
	char out[512];
	uint16_t n;

	if (size < 2)
		return 0;
	memcpy(&n, data, 2);
	if (n > size - 2)
		return 0;
	char *text = malloc(n ? n : 1);
	size_t raw_size = size - 2 - n;
	unsigned char *raw = malloc(raw_size ? raw_size : 1);
	if (!text || !raw)
		abort();
	memcpy(text, data + 2, n);
	memcpy(raw, data + 2 + n, raw_size);
	if (pev_tp_format_parse(text, n, &f, &err) == 0) {
		for (int i = 0; i < pev_tp_format_nr_fields(f); i++) {
			const struct pev_tp_field *fd = pev_tp_format_field_at(f, i);
			const void *bytes;
			size_t len;
			int64_t v;
			uint64_t u;
			if (pev_tp_format_field(f, fd->name) == NULL)
				abort(); /* a field is found by its own name */
			if (pev_tp_field_bytes(fd, raw, raw_size, &bytes, &len) == 0) {
				/* What it points at lies inside the payload: read it all. */
				volatile unsigned sum = 0;
				for (size_t k = 0; k < len; k++)
					sum += ((const unsigned char *)bytes)[k];
				(void)sum;
			}
			(void)pev_tp_field_int(fd, raw, raw_size, &v);
			(void)pev_tp_field_uint(fd, raw, raw_size, &u);
		}
		(void)pev_tp_format_print(f, raw, raw_size, out, sizeof(out));
		(void)pev_tp_format_print(f, raw, raw_size, NULL, 0);
		pev_tp_format_free(f);
	}
	free(text);
	free(raw);
	return 0;
}

/* Replaces the number after the k-th `key` in text[0, n) by v; returns the new length. */
static size_t set_number(uint8_t *text, size_t n, size_t cap, const char *key, unsigned k,
			 unsigned long v)
{
	size_t klen = strlen(key);
	char digits[24];

	for (size_t i = 0; i + klen <= n; i++) {
		if (memcmp(text + i, key, klen) != 0 || k--)
			continue;
		size_t from = i + klen, to = from;
		while (to < n && text[to] >= '0' && text[to] <= '9')
			to++;
		size_t d = (size_t)snprintf(digits, sizeof(digits), "%lu", v);
		if (n - (to - from) + d > cap)
			return n;
		memmove(text + from + d, text + to, n - to);
		memcpy(text + from, digits, d);
		return n - (to - from) + d;
	}
	return n;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	static const char *const keys[] = {"offset:", "size:", "signed:"};
	static const unsigned long values[] = {0, 1, 2, 4, 7, 8, 16, 255, 4096, 65532, 65535,
					       65536, 99999};
	uint16_t n;

	if (size < 2 || max_size < 64)
		return LLVMFuzzerMutate(data, size, max_size);
	memcpy(&n, data, 2);
	if (n > size - 2)
		return LLVMFuzzerMutate(data, size, max_size);
	uint8_t *text = data + 2, *raw = text + n;
	size_t raw_size = size - 2 - n;
	/* Room for the text to grow: at most what max_size leaves after the payload. */
	size_t text_cap = max_size - 2 - raw_size;
	if (text_cap > 65535)
		text_cap = 65535;

	switch (seed % 4) {
	case 0: { /* the text alone; the payload moves with its end */
		uint8_t *copy = malloc(raw_size ? raw_size : 1);
		if (!copy)
			return size;
		memcpy(copy, raw, raw_size);
		size_t m = LLVMFuzzerMutate(text, n, text_cap);
		memcpy(text + m, copy, raw_size);
		free(copy);
		n = (uint16_t)m;
		memcpy(data, &n, 2);
		return 2 + m + raw_size;
	}
	case 1: /* the payload alone */
		return 2 + n + LLVMFuzzerMutate(raw, raw_size, max_size - 2 - n);
	case 2: { /* one number of a field line */
		uint8_t *copy = malloc(raw_size ? raw_size : 1);
		if (!copy)
			return size;
		memcpy(copy, raw, raw_size);
		size_t m = set_number(text, n, text_cap, keys[(seed / 4) % 3], (seed / 12) % 16,
				      values[(seed / 192) % (sizeof(values) / sizeof(values[0]))]);
		memcpy(text + m, copy, raw_size);
		free(copy);
		n = (uint16_t)m;
		memcpy(data, &n, 2);
		return 2 + m + raw_size;
	}
	default: { /* a __data_loc word in the payload: offset and length */
		if (raw_size < 16)
			return LLVMFuzzerMutate(data, size, max_size);
		size_t at = ((seed / 4) % (raw_size / 4)) * 4;
		uint32_t loc = (uint32_t)values[(seed / 64) % 11] |
			       ((uint32_t)values[(seed / 1024) % 11] << 16);
		memcpy(raw + at, &loc, 4);
		return size;
	}
	}
}
