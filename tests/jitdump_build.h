/* SPDX-License-Identifier: MIT */
/*
 * jitdump_build.h - writes jitdump files (jit-PID.dump) in memory for the
 * tests of src/symbols/symbols_jitdump.c and the fuzz harness's seeds: the
 * header and CODE_LOAD, CODE_MOVE, DEBUG_INFO and CLOSE records, in this
 * machine's byte order or swapped.
 */
#ifndef PERFEV_TESTS_JITDUMP_BUILD_H
#define PERFEV_TESTS_JITDUMP_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A dump being written. */
struct jd_buf {
	unsigned char *p;
	size_t len, cap;
	bool swap; /* written in the other byte order */
};

/* One line entry of jd_debug_info. */
struct jd_line {
	uint64_t addr;
	uint32_t line;
	const char *file; /* "\xff": the previous entry's file */
};

static inline void jd_bytes(struct jd_buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n)
			cap *= 2;
		unsigned char *np = realloc(b->p, cap);
		if (!np)
			abort();
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static inline void jd_u32(struct jd_buf *b, uint32_t v)
{
	if (b->swap)
		v = __builtin_bswap32(v);
	jd_bytes(b, &v, 4);
}

static inline void jd_u64(struct jd_buf *b, uint64_t v)
{
	if (b->swap)
		v = __builtin_bswap64(v);
	jd_bytes(b, &v, 8);
}

/* Patches the u32 at offset at. */
static inline void jd_put32(struct jd_buf *b, size_t at, uint32_t v)
{
	if (b->swap)
		v = __builtin_bswap32(v);
	memcpy(b->p + at, &v, 4);
}

/* The 40-byte header of version 1 (flags 1: times are the CPU's counter). */
static inline void jd_header(struct jd_buf *b, uint32_t pid, uint64_t flags)
{
	jd_u32(b, 0x4A695444u); /* "JiTD" */
	jd_u32(b, 1);           /* version */
	jd_u32(b, 40);          /* header size */
	jd_u32(b, 62);          /* EM_X86_64 */
	jd_u32(b, 0);
	jd_u32(b, pid);
	jd_u64(b, 1000);
	jd_u64(b, flags);
}

/* Starts a record; returns its offset for jd_end. */
static inline size_t jd_begin(struct jd_buf *b, uint32_t id, uint64_t time)
{
	size_t at = b->len;

	jd_u32(b, id);
	jd_u32(b, 0); /* size: jd_end */
	jd_u64(b, time);
	return at;
}

static inline void jd_end(struct jd_buf *b, size_t at)
{
	jd_put32(b, at + 4, (uint32_t)(b->len - at));
}

/* CODE_LOAD of name at [addr, addr + size), code bytes 0xcc. */
static inline void jd_load(struct jd_buf *b, uint64_t time, uint32_t pid, uint64_t addr,
			   uint64_t size, uint64_t index, const char *name)
{
	size_t at = jd_begin(b, 0, time);

	jd_u32(b, pid);
	jd_u32(b, pid);
	jd_u64(b, addr);
	jd_u64(b, addr);
	jd_u64(b, size);
	jd_u64(b, index);
	jd_bytes(b, name, strlen(name) + 1);
	for (uint64_t i = 0; i < size && i < 4096; i++)
		jd_bytes(b, "\xcc", 1);
	jd_end(b, at);
}

/* CODE_MOVE of the code of index from `from` to `to`. */
static inline void jd_move(struct jd_buf *b, uint64_t time, uint32_t pid, uint64_t from,
			   uint64_t to, uint64_t size, uint64_t index)
{
	size_t at = jd_begin(b, 1, time);

	jd_u32(b, pid);
	jd_u32(b, pid);
	jd_u64(b, to);
	jd_u64(b, from);
	jd_u64(b, to);
	jd_u64(b, size);
	jd_u64(b, index);
	jd_end(b, at);
}

/* DEBUG_INFO for the code at addr (the CODE_LOAD that follows). */
static inline void jd_debug_info(struct jd_buf *b, uint64_t time, uint64_t addr,
				 const struct jd_line *lines, size_t n)
{
	size_t at = jd_begin(b, 2, time);

	jd_u64(b, addr);
	jd_u64(b, n);
	for (size_t i = 0; i < n; i++) {
		jd_u64(b, lines[i].addr);
		jd_u32(b, lines[i].line);
		jd_u32(b, 0); /* discriminator */
		jd_bytes(b, lines[i].file, strlen(lines[i].file) + 1);
	}
	jd_end(b, at);
}

static inline void jd_close(struct jd_buf *b, uint64_t time)
{
	jd_end(b, jd_begin(b, 3, time));
}

#endif /* PERFEV_TESTS_JITDUMP_BUILD_H */
