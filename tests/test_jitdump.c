/* SPDX-License-Identifier: MIT */
/*
 * test_jitdump.c - the jitdump reader (src/symbols/symbols_jitdump.c,
 * docs/SYMBOLS.md "JIT code"): dumps written here (tests/jitdump_build.h)
 * with loads, moves, line tables and code replaced over time, in this
 * machine's byte order and swapped; dumps cut short, with a bad magic,
 * with records that lie about their sizes; and the whole path from a
 * mapping of DIR/jit-PID.dump to names through pev_symbols_resolve.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "jitdump_build.h"
#include "perfev.h"

#include "symbols/symbols_internal.h"

#define PID 4242
#define A1 UINT64_C(0x7f0000001000)
#define A2 UINT64_C(0x7f0000002000)
#define A3 UINT64_C(0x7f0000003000)

/*
 * The dump every test starts from:
 *   t=100 load #1 "JS:*hot app.js:1" at A1 (0x100 bytes), lines 10 and 12;
 *   t=200 load #2 "Builtin:Entry" at A2 (0x40);
 *   t=300 load #3 "JS:*hot app.js:1" again at A1 (0x80): re-JITted, replacing #1;
 *   t=400 move of #2 to A3;
 *   t=500 close.
 */
static struct jd_buf sample_dump(bool swap)
{
	struct jd_buf b = {.swap = swap};
	const struct jd_line lines[] = {
		{A1, 10, "app.js"},
		{A1 + 0x40, 14, "\xff"}, /* 0xff: the previous entry's file */
		{A1 + 0x20, 12, "\xff"}, /* out of address order */
	};

	jd_header(&b, PID, 0);
	jd_debug_info(&b, 90, A1, lines, 3);
	jd_load(&b, 100, PID, A1, 0x100, 1, "JS:*hot app.js:1");
	jd_load(&b, 200, PID, A2, 0x40, 2, "Builtin:Entry");
	jd_load(&b, 300, PID, A1, 0x80, 3, "JS:*hot app.js:1");
	jd_move(&b, 400, PID, A2, A3, 0x40, 2);
	jd_close(&b, 500);
	return b;
}

static struct sym_jitdump *parse(const struct jd_buf *b, int want)
{
	struct sym_jitdump *d = pev__jitdump_new("/some/dir/jit-4242.dump");

	cr_assert_not_null(d);
	d->loaded = true; /* bytes given here: no file to read */
	cr_assert_eq(pev__jitdump_parse(d, b->p, b->len), want);
	return d;
}

/* The code holding addr at time t (UINT64_MAX: the latest), or NULL. */
static const struct jitdump_code *at(struct sym_jitdump *d, uint64_t addr, uint64_t t)
{
	uint64_t from, until;

	return pev__jitdump_find(d, addr, t, &from, &until);
}

static void check_sample_dump(struct sym_jitdump *d)
{
	const struct jitdump_code *c;

	cr_expect_eq(d->n, 4, "three loads and a move");
	cr_expect_eq(d->pid, PID);
	cr_expect(!d->truncated);
	cr_expect_eq(d->bad, 0);

	/* Latest: the re-JITted copy at A1, the moved builtin at A2 and A3. */
	c = at(d, A1 + 0x10, UINT64_MAX);
	cr_assert_not_null(c);
	cr_expect_eq(c->size, 0x80);
	cr_expect_str_eq(c->dso, "/some/dir/jitted-4242-3.so");
	c = at(d, A1 + 0x90, UINT64_MAX);
	cr_assert_not_null(c, "the old copy's tail, past the new one");
	cr_expect_str_eq(c->dso, "/some/dir/jitted-4242-1.so");
	c = at(d, A3 + 0x3f, UINT64_MAX);
	cr_assert_not_null(c);
	cr_expect_str_eq(c->name, "Builtin:Entry");
	cr_expect_str_eq(c->dso, "/some/dir/jitted-4242-2.so", "a move keeps the code's index");
	cr_expect_null(at(d, A3 + 0x40, UINT64_MAX));
	cr_expect_null(at(d, A1 - 1, UINT64_MAX));

	/* In time: before the first load nothing; then the first copy, with its lines. */
	cr_expect_null(at(d, A1, 99));
	c = at(d, A1 + 0x30, 150);
	cr_assert_not_null(c);
	cr_expect_str_eq(c->dso, "/some/dir/jitted-4242-1.so");
	cr_assert_eq(c->nlines, 3);
	cr_expect_eq(c->lines[0].addr, A1);
	cr_expect_str_eq(c->lines[0].file, "app.js");
	cr_expect_str_eq(c->lines[1].file, "app.js", "0xff: the previous entry's file");
	cr_expect_eq(c->lines[1].line, 12);
	cr_expect_str_eq(at(d, A1 + 0x10, 300)->dso, "/some/dir/jitted-4242-3.so");
	cr_expect_null(at(d, A3, 399), "moved there at 400");
	cr_expect_not_null(at(d, A3, 400));

	/* The window the answer holds in. */
	uint64_t from, until;
	c = pev__jitdump_find(d, A1, 150, &from, &until);
	cr_expect_eq(from, 100);
	cr_expect_eq(until, 300);
	cr_expect_null(pev__jitdump_find(d, A1, 50, &from, &until));
	cr_expect_eq(until, 100);
	pev__jitdump_find(d, A1, UINT64_MAX, &from, &until);
	cr_expect_eq(from, 0);
	cr_expect_eq(until, UINT64_MAX);
}

Test(jitdump, loads_moves_lines_and_time, .init = th_leak_init, .fini = th_leak_fini)
{
	struct jd_buf b = sample_dump(false);
	struct sym_jitdump *d = parse(&b, 0);

	check_sample_dump(d);
	cr_expect(!d->swapped);
	pev__jitdump_free(d);
	free(b.p);
}

Test(jitdump, other_byte_order, .init = th_leak_init, .fini = th_leak_fini)
{
	struct jd_buf b = sample_dump(true);
	struct sym_jitdump *d = parse(&b, 0);

	cr_expect(d->swapped);
	check_sample_dump(d);
	pev__jitdump_free(d);
	free(b.p);
}

Test(jitdump, arch_timestamps_are_not_compared, .init = th_leak_init, .fini = th_leak_fini)
{
	struct jd_buf b = {0};

	jd_header(&b, PID, 1); /* JITDUMP_FLAGS_ARCH_TIMESTAMP */
	jd_load(&b, 5000, PID, A1, 0x10, 1, "tsc_timed");
	struct sym_jitdump *d = parse(&b, 0);
	cr_expect(d->arch_timestamp);
	cr_expect_not_null(at(d, A1, 10), "the CPU's counter is no sample time: the latest names it");
	pev__jitdump_free(d);
	free(b.p);
}

Test(jitdump, bad_magic_and_header, .init = th_leak_init, .fini = th_leak_fini)
{
	struct jd_buf b = sample_dump(false);
	struct sym_jitdump *d;

	b.p[0] ^= 0x55;
	d = parse(&b, -EINVAL);
	cr_expect_eq(d->n, 0);
	pev__jitdump_free(d);
	b.p[0] ^= 0x55;

	/* A header size past the file, or smaller than the header. */
	jd_put32(&b, 8, 1u << 30);
	pev__jitdump_free(parse(&b, -EINVAL));
	jd_put32(&b, 8, 12);
	pev__jitdump_free(parse(&b, -EINVAL));

	/* Too short for a header. */
	struct jd_buf tiny = {.p = b.p, .len = 3};
	pev__jitdump_free(parse(&tiny, -EINVAL));
	free(b.p);
}

Test(jitdump, cut_short_at_every_byte, .init = th_leak_init, .fini = th_leak_fini)
{
	struct jd_buf b = sample_dump(false);

	/* A dump still being written ends anywhere: what came before stays. */
	for (size_t len = 0; len <= b.len; len++) {
		struct jd_buf cut = {.p = malloc(len ? len : 1), .len = len};
		struct sym_jitdump *d = pev__jitdump_new("/d/jit-1.dump");

		cr_assert_not_null(cut.p);
		memcpy(cut.p, b.p, len);
		d->loaded = true;
		int rc = pev__jitdump_parse(d, cut.p, cut.len);
		cr_assert(rc == 0 || (rc == -EINVAL && len < 40), "len %zu: %d", len, rc);
		cr_assert(d->n <= 4);
		if (len == b.len)
			cr_expect(!d->truncated);
		for (size_t i = 0; i < d->n; i++) /* every piece found where it is */
			cr_expect_not_null(at(d, d->code[i].start, UINT64_MAX));
		pev__jitdump_free(d);
		free(cut.p);
	}
	free(b.p);
}

Test(jitdump, records_that_lie, .init = th_leak_init, .fini = th_leak_fini)
{
	struct jd_buf b = {0};
	size_t r;

	jd_header(&b, PID, 0);
	jd_load(&b, 10, PID, A1, 0x10, 1, "good");
	/* A load whose name runs to the record's end (no NUL): skipped. */
	r = jd_begin(&b, 0, 20);
	jd_u32(&b, PID);
	jd_u32(&b, PID);
	jd_u64(&b, A2);
	jd_u64(&b, A2);
	jd_u64(&b, 0x10);
	jd_u64(&b, 2);
	jd_bytes(&b, "noterminator", 12);
	jd_end(&b, r);
	/* A load too short for its fields: skipped. */
	r = jd_begin(&b, 0, 30);
	jd_u32(&b, PID);
	jd_end(&b, r);
	/* Debug info shorter than its own fields (a header alone, an address alone),
	 * whose count the next record's bytes would make huge: nothing read. */
	jd_end(&b, jd_begin(&b, 2, 41));
	r = jd_begin(&b, 2, 42);
	jd_u64(&b, A2);
	jd_end(&b, r);
	jd_load(&b, 43, PID, A1 + 0x100, 0x10, 6, "\xff\xff\xff\xff\xff\xff\xff\xff");
	/* Debug info claiming 2^60 entries: as many as fit are read. */
	r = jd_begin(&b, 2, 40);
	jd_u64(&b, A3);
	jd_u64(&b, UINT64_C(1) << 60);
	jd_u64(&b, A3);
	jd_u32(&b, 7);
	jd_u32(&b, 0);
	jd_bytes(&b, "\xff", 2); /* "the previous file" with none before: no file */
	jd_end(&b, r);
	/* Code that wraps around the address space, and empty code: no code. */
	jd_load(&b, 50, PID, UINT64_MAX - 4, 0x10, 3, "wraps");
	jd_load(&b, 51, PID, A2, 0, 4, "empty");
	/* A move of an index never loaded: nothing to name. */
	jd_move(&b, 55, PID, A1, A3 + 0x1000, 0x10, 99);
	/* An unknown record id is skipped by its size. */
	jd_end(&b, jd_begin(&b, 77, 58));
	jd_load(&b, 60, PID, A3, 0x20, 5, "after_debug");
	/* A record whose size runs past the file: the reading ends there. */
	r = jd_begin(&b, 0, 70);
	jd_end(&b, r);
	jd_put32(&b, r + 4, 1u << 20);

	struct sym_jitdump *d = parse(&b, 0);
	cr_expect_eq(d->n, 3, "good, the 0xff one and after_debug: %zu", d->n);
	cr_expect_eq(d->bad, 4, "the load without a NUL, the short one, the two short debug infos");
	cr_expect(d->truncated);
	cr_expect_str_eq(at(d, A1 + 1, UINT64_MAX)->name, "good");
	const struct jitdump_code *c = at(d, A3 + 1, UINT64_MAX);
	cr_assert_not_null(c);
	cr_expect_str_eq(c->name, "after_debug");
	cr_assert_eq(c->nlines, 1, "the debug info precedes its load");
	cr_expect_eq(c->lines[0].line, 7);
	cr_expect_null(c->lines[0].file);
	cr_expect_null(at(d, A2 + 1, UINT64_MAX));
	cr_expect_null(at(d, UINT64_MAX - 1, UINT64_MAX));
	pev__jitdump_free(d);

	/* A record of size 0 cannot be stepped over: the reading ends. */
	struct jd_buf z = {0};
	jd_header(&z, PID, 0);
	jd_load(&z, 10, PID, A1, 0x10, 1, "before");
	r = jd_begin(&z, 0, 20);
	jd_load(&z, 30, PID, A2, 0x10, 2, "never");
	d = parse(&z, 0);
	cr_expect_eq(d->n, 1);
	cr_expect(d->truncated);
	pev__jitdump_free(d);
	free(z.p);
	free(b.p);
}

static void write_bytes(const char *path, const struct jd_buf *b, mode_t mode)
{
	FILE *f = fopen(path, "we");

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	cr_assert_eq(fwrite(b->p, 1, b->len, f), b->len);
	fclose(f);
	cr_assert_eq(chmod(path, mode), 0);
}

static struct pev_symbol resolve(struct pev_symbols *s, int32_t pid, uint64_t addr)
{
	struct pev_symbol sym = PEV_SYMBOL_INIT;

	cr_assert_eq(pev_symbols_resolve(s, pid, addr, &sym), 0);
	return sym;
}

Test(jitdump, named_through_the_mapping_of_the_dump, .init = th_leak_init,
     .fini = th_leak_fini)
{
	const char *dir = th_temp_dir("jitdump");
	char path[256], jitted[256];
	struct jd_buf b = sample_dump(false);
	struct pev_symbols_opts o = PEV_SYMBOLS_OPTS_INIT;
	struct pev_symbols *s;
	struct pev_error err;

	snprintf(path, sizeof(path), "%s/jit-%d.dump", dir, PID);
	write_bytes(path, &b, 0644);
	o.jit_dir = dir; /* no perf map there */
	cr_assert_eq(pev_symbols_new(&o, &s, &err), 0);
	/* The JIT's code lives in anonymous memory; the dump is mapped apart. */
	cr_assert_eq(pev_symbols_add_mapping(s, PID, A1, 0x10000, 0, "//anon", NULL, 0), 0);
	cr_assert_eq(pev_symbols_add_mapping(s, PID, UINT64_C(0x7f1000000000), 0x1000, 0, path,
					     NULL, 0),
		     0);

	struct pev_symbol a = resolve(s, PID, A1 + 0x44);
	cr_expect_eq(a.status, PEV_SYMBOL_OK);
	cr_expect_str_eq(a.name, "JS:*hot app.js:1");
	cr_expect_eq(a.offset, 0x44);
	cr_expect_eq(a.start, A1);
	snprintf(jitted, sizeof(jitted), "%s/jitted-%d-3.so", dir, PID);
	cr_expect_str_eq(a.dso, jitted, "perf inject --jit's file name");
	cr_expect(a.flags & PEV_SYMBOL_JIT);
	cr_expect(a.flags & PEV_SYMBOL_IN_FILE);
	cr_expect_eq(a.file_offset, 0x80 + 0x44, "where perf inject's ELF file holds it");
	cr_expect_null(a.file, "the re-JITted copy has no line table");

	/* Earlier in time, the first copy and its lines (the replay passes times). */
	struct pev_symbol e = PEV_SYMBOL_INIT;
	uint64_t from, until;
	cr_assert_eq(pev__symbols_resolve_at(s, PID, A1 + 0x44, 150, &e, &from, &until), 0);
	snprintf(jitted, sizeof(jitted), "%s/jitted-%d-1.so", dir, PID);
	cr_expect_str_eq(e.dso, jitted);
	cr_expect_str_eq(e.file, "app.js");
	cr_expect_eq(e.line, 14);
	cr_expect_eq(from, 100);
	cr_expect_eq(until, 300);

	/* Before any load: anonymous code, the JIT map's as perf names it. */
	cr_assert_eq(pev__symbols_resolve_at(s, PID, A1 + 0x44, 10, &e, &from, &until), 0);
	cr_expect_eq(e.status, PEV_SYMBOL_ANON);
	cr_expect_eq(until, 100);

	/* Another process (no dump): nothing. */
	cr_expect_neq(resolve(s, PID + 1, A1).status, PEV_SYMBOL_OK);

	/* The JIT goes on writing (perfev top, live): a miss reads the grown file. */
	cr_expect_neq(resolve(s, PID, A1 + 0x8000).status, PEV_SYMBOL_OK);
	jd_load(&b, 600, PID, A1 + 0x8000, 0x20, 7, "JS:late");
	write_bytes(path, &b, 0644);
	struct pev_symbol late = resolve(s, PID, A1 + 0x8004);
	cr_expect_str_eq(late.name, "JS:late");
	cr_expect_str_eq(a.name, "JS:*hot app.js:1", "earlier results stay valid");

	/* The process execs another program (or exits and its pid comes back):
	 * the dump names none of its code any more. */
	cr_assert_eq(pev_symbols_exec(s, PID), 0);
	cr_expect_neq(resolve(s, PID, A1 + 0x44).status, PEV_SYMBOL_OK);
	cr_expect_str_eq(late.name, "JS:late", "earlier results stay valid");
	pev_symbols_free(s);
	free(b.p);
}

Test(jitdump, dump_of_another_user_or_writable_is_skipped, .init = th_leak_init,
     .fini = th_leak_fini)
{
	const char *dir = th_temp_dir("jitdump");
	char path[256];
	struct jd_buf b = sample_dump(false);
	struct pev_symbols *s;
	struct pev_error err;

	snprintf(path, sizeof(path), "%s/jit-%d.dump", dir, PID);
	write_bytes(path, &b, 0666);
	cr_assert_eq(pev_symbols_new(NULL, &s, &err), 0);
	cr_assert_eq(pev_symbols_add_mapping(s, PID, UINT64_C(0x7f1000000000), 0x1000, 0, path,
					     NULL, 0),
		     0);
	cr_expect_neq(resolve(s, PID, A1).status, PEV_SYMBOL_OK, "world-writable: not read");
	pev_symbols_free(s);

	/* A file that is not a dump at that name: nothing, no crash. */
	write_bytes(path, &(struct jd_buf){.p = (unsigned char *)"garbage!", .len = 8}, 0644);
	cr_assert_eq(pev_symbols_new(NULL, &s, &err), 0);
	cr_assert_eq(pev_symbols_add_mapping(s, PID, UINT64_C(0x7f1000000000), 0x1000, 0, path,
					     NULL, 0),
		     0);
	cr_expect_neq(resolve(s, PID, A1).status, PEV_SYMBOL_OK);
	pev_symbols_free(s);
	free(b.p);
}

Test(jitdump, dump_names)
{
	int32_t pid = 0;

	cr_expect(pev__jitdump_path("/tmp/jit-123.dump", &pid));
	cr_expect_eq(pid, 123);
	cr_expect(pev__jitdump_path("/home/u/.debug/jit/java-jit-x/jit-9.dump", NULL));
	cr_expect(!pev__jitdump_path("/tmp/jit-.dump", NULL));
	cr_expect(!pev__jitdump_path("/tmp/jit-12.dump.bak", NULL));
	cr_expect(!pev__jitdump_path("/tmp/jit-12x.dump", NULL));
	cr_expect(!pev__jitdump_path("/tmp/xjit-12.dump", NULL));
	cr_expect(!pev__jitdump_path("/tmp/jit-1234567890123.dump", NULL));
}
