/* SPDX-License-Identifier: MIT */
/*
 * test_symbols_index.c - the ranges of a DSO's symbol index
 * (src/symbols/symbols_index.c, docs/SYMBOLS.md "The symbol index"): which
 * symbol names each address when symbols nest, cross, leave gaps, or have
 * no size.
 *
 * A shared object built here from assembly lays out its symbols with
 * `.skip` (the bytes are never run, so any architecture's assembler
 * builds it); the test maps its segments into a made-up process with
 * pev_symbols_add_mapping and resolves addresses at known offsets.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "perfev.h"

/*
 * The layout, in .text:
 *   outer   [0x000, 0x100) global, holding inner [0x040, 0x060) local;
 *   a gap   [0x100, 0x140);
 *   lbl     0x140, a label (no type, no size) up to the next symbol;
 *   cross_a [0x170, 0x1d0) and cross_b [0x1a0, 0x200): they overlap;
 *   in_fn   [0x200, 0x240) with a label in_lbl at 0x210; a gap [0x240, 0x260);
 *   last_lbl 0x260, a label, the last symbol of .text, which ends at 0x270.
 * Then .after (executable, aligned to 256) with after_fn: the bytes between
 * .text's end and .after belong to no symbol.
 */
static const char index_asm[] =
	".text\n"
	".p2align 8\n"
	".globl outer\n.type outer, %function\nouter:\n.skip 0x40\n"
	".type inner, %function\ninner:\n.skip 0x20\n.size inner, .-inner\n"
	".skip 0xa0\n.size outer, .-outer\n"
	".skip 0x40\n"
	".globl lbl\nlbl:\n.skip 0x30\n"
	".globl cross_a\n.type cross_a, %function\ncross_a:\n.skip 0x30\n"
	".globl cross_b\n.type cross_b, %function\ncross_b:\n.skip 0x30\n"
	".size cross_a, .-cross_a\n.skip 0x30\n.size cross_b, .-cross_b\n"
	".globl in_fn\n.type in_fn, %function\nin_fn:\n.skip 0x10\n"
	".globl in_lbl\nin_lbl:\n.skip 0x30\n.size in_fn, .-in_fn\n"
	".skip 0x20\n"
	".globl last_lbl\nlast_lbl:\n.skip 0x10\n"
	".section .after, \"ax\"\n.p2align 8\n"
	".globl after_fn\n.type after_fn, %function\nafter_fn:\n.skip 0x10\n"
	".size after_fn, .-after_fn\n";

/* What an address at offset off from `outer` must resolve to. */
struct expect {
	uint64_t off;
	const char *name; /* NULL: no symbol */
	uint64_t sym_off; /* the offset in it */
};

static const struct expect expects[] = {
	{0x000, "outer", 0x000},    {0x03f, "outer", 0x03f},  {0x040, "inner", 0x000},
	{0x05f, "inner", 0x01f},    {0x060, "outer", 0x060},  {0x0ff, "outer", 0x0ff},
	{0x100, NULL, 0},           {0x13f, NULL, 0},         {0x140, "lbl", 0x000},
	{0x16f, "lbl", 0x02f},      {0x170, "cross_a", 0x000}, {0x19f, "cross_a", 0x02f},
	{0x1a0, "cross_b", 0x000},  {0x1ff, "cross_b", 0x05f}, {0x200, "in_fn", 0x000},
	{0x210, "in_fn", 0x010},    {0x23f, "in_fn", 0x03f},  {0x240, NULL, 0},
	{0x25f, NULL, 0},           {0x260, "last_lbl", 0x000}, {0x26f, "last_lbl", 0x00f},
	{0x270, NULL, 0},           {0x2ff, NULL, 0},         {0x300, "after_fn", 0x000},
};

/*
 * Builds the shared object NAME.so of assembly text in dir, with cc's
 * extra flags; returns its path (static).
 */
static const char *build_so_of(const char *dir, const char *name, const char *text,
			       const char *flags)
{
	static char so[PATH_MAX];
	char src[PATH_MAX], cmd[3 * PATH_MAX];

	if (!th_have_program("cc"))
		th_skip("no C compiler (cc) to build the test's shared object");
	snprintf(src, sizeof(src), "%s/%s.s", dir, name);
	snprintf(so, sizeof(so), "%s/lib%s.so", dir, name);
	th_write_file(src, text);
	snprintf(cmd, sizeof(cmd), "cc -shared -nostdlib %s -o '%s' '%s' 2>&1", flags, so, src);
	free(th_sh_ok(cmd));
	return so;
}

/* Builds the shared object of index_asm in dir; returns its path (static). */
static const char *build_so(const char *dir)
{
	return build_so_of(dir, "index", index_asm, "");
}

/* Where the made-up processes load the shared object. */
#define BASE UINT64_C(0x7f0000000000)

/*
 * Maps every PT_LOAD segment of path into process pid of s at BASE;
 * returns the process address of symbol `outer` (0 when it has none,
 * which fails the test unless outer_needed is false).
 */
static uint64_t map_segments(struct pev_symbols *s, int32_t pid, const char *path,
			     bool outer_needed)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t n;
	uint64_t outer = 0;

	cr_assert_geq(fd, 0, "open %s: %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert_not_null(e);
	cr_assert_eq(elf_getphdrnum(e, &n), 0);
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		uint64_t start, end;

		cr_assert_not_null(gelf_getphdr(e, (int)i, &ph));
		if (ph.p_type != PT_LOAD)
			continue;
		start = BASE + (ph.p_vaddr & ~UINT64_C(0xfff));
		end = BASE + ph.p_vaddr + ph.p_memsz;
		if (end == start)
			continue;
		cr_assert_eq(pev_symbols_add_mapping(s, pid, start, end - start,
						     ph.p_offset & ~UINT64_C(0xfff), path, NULL, 0),
			     0);
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (gelf_getsym(d, (int)i, &sym) &&
			    (name = elf_strptr(e, sh.sh_link, sym.st_name)) &&
			    strcmp(name, "outer") == 0)
				outer = sym.st_value;
		}
	}
	elf_end(e);
	close(fd);
	if (!outer_needed)
		return outer ? BASE + outer : 0;
	cr_assert_neq(outer, 0, "no symbol outer in %s", path);
	return BASE + outer;
}

static uint64_t map_file(struct pev_symbols *s, int32_t pid, const char *path)
{
	return map_segments(s, pid, path, true);
}

TestSuite(symbols_index, .init = th_leak_init, .fini = th_leak_fini);

Test(symbols_index, ranges_of_nested_crossing_and_sizeless_symbols)
{
	const char *so = build_so(th_temp_dir("symindex"));
	struct pev_symbols_opts opts = PEV_SYMBOLS_OPTS_INIT;
	struct pev_symbols_stats st = PEV_SYMBOLS_STATS_INIT;
	struct pev_symbols *s = NULL;
	struct pev_error err;
	uint64_t outer;

	opts.flags = PEV_SYMBOLS_NO_SRCLINE | PEV_SYMBOLS_NO_KERNEL;
	cr_assert_eq(pev_symbols_new(&opts, &s, &err), 0, "%s", err.message);
	outer = map_file(s, 4242, so);
	for (size_t i = 0; i < sizeof(expects) / sizeof(expects[0]); i++) {
		const struct expect *x = &expects[i];
		struct pev_symbol sym = PEV_SYMBOL_INIT;

		cr_assert_eq(pev_symbols_resolve(s, 4242, outer + x->off, &sym), 0);
		if (!x->name) {
			cr_expect_eq(sym.status, PEV_SYMBOL_NO_SYMBOL, "outer+%#llx: %s, want no symbol",
				     (unsigned long long)x->off, sym.name);
			continue;
		}
		cr_expect_eq(sym.status, PEV_SYMBOL_OK, "outer+%#llx: %s",
			     (unsigned long long)x->off, pev_symbol_status_str(sym.status));
		cr_expect_str_eq(sym.name, x->name, "outer+%#llx: %s, want %s",
				 (unsigned long long)x->off, sym.name, x->name);
		cr_expect_eq(sym.offset, x->sym_off, "outer+%#llx: offset %#llx, want %#llx",
			     (unsigned long long)x->off, (unsigned long long)sym.offset,
			     (unsigned long long)x->sym_off);
		cr_expect_eq(sym.start + sym.offset, outer + x->off);
	}
	cr_assert_eq(pev_symbols_stats(s, &st), 0);
	/* the 9 above, and what the linker adds (_DYNAMIC) */
	cr_expect_geq(st.index_symbols, 9, "symbols indexed: %llu",
		      (unsigned long long)st.index_symbols);
	cr_expect_gt(st.index_bytes, 0);
	pev_symbols_free(s);
}

/* Two paths of one build (a copy, as a container's root shows it): indexed once. */
Test(symbols_index, one_index_per_build_id)
{
	const char *dir = th_temp_dir("symindex2");
	const char *so = build_so(dir);
	char copy[PATH_MAX], cmd[3 * PATH_MAX];
	struct pev_symbols_opts opts = PEV_SYMBOLS_OPTS_INIT;
	struct pev_symbols_stats st = PEV_SYMBOLS_STATS_INIT, st1 = PEV_SYMBOLS_STATS_INIT;
	struct pev_symbols *s = NULL;
	struct pev_symbol a = PEV_SYMBOL_INIT, b = PEV_SYMBOL_INIT;
	struct pev_error err;
	uint64_t outer;

	snprintf(copy, sizeof(copy), "%s/copy.so", dir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", so, copy);
	free(th_sh_ok(cmd));
	opts.flags = PEV_SYMBOLS_NO_SRCLINE | PEV_SYMBOLS_NO_KERNEL;
	cr_assert_eq(pev_symbols_new(&opts, &s, &err), 0, "%s", err.message);
	outer = map_file(s, 100, so);
	cr_assert_eq(map_file(s, 200, copy), outer);
	cr_assert_eq(pev_symbols_resolve(s, 100, outer + 0x45, &a), 0);
	cr_assert_eq(pev_symbols_stats(s, &st1), 0);
	cr_assert_eq(pev_symbols_resolve(s, 200, outer + 0x45, &b), 0);
	cr_expect_str_eq(a.name, "inner");
	cr_expect_str_eq(b.name, "inner");
	cr_expect_str_eq(b.dso, copy);
	cr_assert_eq(pev_symbols_stats(s, &st), 0);
	cr_expect_eq(st.dso_opens, 2, "both files are opened");
	if (a.build_id_size) /* cc without --build-id gives no note: nothing to share by */
		cr_expect_eq(st.index_symbols, st1.index_symbols, "indexed once: %llu symbols, %llu "
				     "after one file", (unsigned long long)st.index_symbols,
			     (unsigned long long)st1.index_symbols);
	else
		th_skip_log("the test's shared object has no build id: not shared");
	pev_symbols_free(s);
}

/*
 * A file with no symbol table at all (no .symtab, a .dynsym of the null
 * entry only), as stripped static programs are: its addresses have no
 * symbol, and the empty index is built without undefined behaviour (a
 * sorted NULL array, seen under UBSan in a system-wide recording).
 */
Test(symbols_index, a_file_without_symbols)
{
	const char *so = build_so_of(th_temp_dir("symindex3"), "bare", ".text\n.skip 0x100\n", "-s");
	struct pev_symbols_opts opts = PEV_SYMBOLS_OPTS_INIT;
	struct pev_symbols *s = NULL;
	struct pev_symbol sym = PEV_SYMBOL_INIT;
	struct pev_error err;

	opts.flags = PEV_SYMBOLS_NO_SRCLINE | PEV_SYMBOLS_NO_KERNEL;
	cr_assert_eq(pev_symbols_new(&opts, &s, &err), 0, "%s", err.message);
	cr_assert_eq(map_segments(s, 77, so, false), 0, "a symbol in a stripped file");
	for (uint64_t off = 0; off < 0x2000; off += 0x80) {
		cr_assert_eq(pev_symbols_resolve(s, 77, BASE + off, &sym), 0);
		cr_expect_neq(sym.status, PEV_SYMBOL_OK, "%#llx named %s", (unsigned long long)off,
			      sym.name);
	}
	pev_symbols_free(s);
}
