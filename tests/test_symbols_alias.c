/* SPDX-License-Identifier: MIT */
/*
 * test_symbols_alias.c - the name of a function that several ELF symbols
 * share (src/symbols/symbols_alias.c, docs/SYMBOLS.md "Aliases").
 *
 * A shared object built here from assembly holds one group of symbols per
 * rule, each group at one address, where the symbol the rule makes win is
 * one that every later rule would reject: the symbolizer must name each
 * group as the rule says, on any host. Where perf is installed, perf must
 * name the groups alike (a perf older than 6.14 has no rule for labels),
 * and glibc's pthread_mutex_lock (four symbols at one address in its debug
 * symbols) must get the same name from perf and perfev, report and script.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "perfev.h"

/* ---- the shared object ---------------------------------------------------------- */

/* A few thousand iterations: something for perf to sample in each group. */
#if defined(__x86_64__) || defined(__i386__)
#define LOOP "mov $2000, %eax\n1: dec %eax\njnz 1b\nret\n"
#elif defined(__aarch64__)
#define LOOP "mov w9, #2000\n1: subs w9, w9, #1\nb.ne 1b\nret\n"
#endif

/*
 * One group of symbols per rule, each at one address. "winner" is what
 * perf's rule names the address; "call" is a name the workload calls it by.
 */
struct group {
	const char *rule, *call, *winner;
};

static const struct group groups[] = {
	{"sized over size 0", "__a", "__a"},
	{"size 0, last at its address, counts as sized", "b_last_zero", "b_last_zero"},
	{"typed over label", "__c", "__c"},
	{"non-weak over weak", "d_weak_long_name", "__d"},
	{"global over local", "__e", "__e"},
	{"fewer leading underscores", "f", "f"},
	{"leading underscores only, then the longer name", "__g", "__GI___g"},
	{"the first in the symbol table", "h_one", NULL /* read from the file */},
	{"versions: the table's own name", "v", "v@@VT_2"},
};

#define NGROUPS (sizeof(groups) / sizeof(groups[0]))

#ifdef LOOP
/* The groups' assembly, in the order of groups[]. */
static const char alias_asm[] =
	".text\n"
	/* the size-0 symbol is local, so not the last at its address */
	".p2align 4\n.weak __a\n.type __a, %function\n.type a_zero_local_long_name, %function\n"
	"a_zero_local_long_name:\n__a:\n" LOOP ".size __a, .-__a\n"
	/* locals come first in a symbol table: the global size-0 one is last */
	".p2align 4\n.globl b_last_zero\n.type __b_local, %function\n"
	".type b_last_zero, %function\n"
	"__b_local:\nb_last_zero:\n" LOOP ".size __b_local, .-__b_local\n"
	/* a label with a size: no .type */
	".p2align 4\n.weak __c\n.globl c_label_long_name\n.type __c, %function\n"
	"__c:\nc_label_long_name:\n" LOOP ".size __c, .-__c\n"
	".size c_label_long_name, .-__c\n"
	".p2align 4\n.weak d_weak_long_name\n.type __d, %function\n"
	".type d_weak_long_name, %function\n"
	"__d:\nd_weak_long_name:\n" LOOP ".size __d, .-__d\n.size d_weak_long_name, .-__d\n"
	".p2align 4\n.globl __e\n.type __e, %function\n.type e_local_long_name, %function\n"
	"e_local_long_name:\n__e:\n" LOOP ".size __e, .-__e\n.size e_local_long_name, .-__e\n"
	".p2align 4\n.globl f\n.globl __f_long_name\n.type f, %function\n"
	".type __f_long_name, %function\n"
	"__f_long_name:\nf:\n" LOOP ".size f, .-f\n.size __f_long_name, .-f\n"
	".p2align 4\n.weak __g\n.weak __GI___g\n.type __g, %function\n"
	".type __GI___g, %function\n"
	"__g:\n__GI___g:\n" LOOP ".size __g, .-__g\n.size __GI___g, .-__g\n"
	".p2align 4\n.globl h_one\n.globl h_two\n.type h_one, %function\n"
	".type h_two, %function\n"
	"h_one:\nh_two:\n" LOOP ".size h_one, .-h_one\n.size h_two, .-h_one\n"
	/* as glibc's pthread_mutex_lock@@GLIBC_2.2.5 and __pthread_mutex_lock@GLIBC_2.2.5 */
	".p2align 4\n.globl _v_new\n.globl __v_old\n.type _v_new, %function\n"
	".type __v_old, %function\n"
	"_v_new:\n__v_old:\n" LOOP ".size _v_new, .-_v_new\n.size __v_old, .-_v_new\n"
	".symver _v_new, v@@VT_2\n.symver __v_old, __v@VT_1\n";
#endif

static const char alias_versions[] = "VT_1 { global: __v; };\nVT_2 { global: v; } VT_1;\n";

/*
 * The workload perf records: "work LIB" calls each group of LIB for a
 * second; "work --mutex" locks and unlocks a mutex for a second.
 */
static const char work_source[] =
	"#include <dlfcn.h>\n#include <pthread.h>\n#include <stdio.h>\n#include <string.h>\n"
	"#include <time.h>\n"
	"static const char *names[] = {%s};\n"
	"static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;\n"
	"static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);\n"
	"	return t.tv_sec + t.tv_nsec / 1e9; }\n"
	"int main(int argc, char **argv) {\n"
	"	enum { N = sizeof(names) / sizeof(names[0]) };\n"
	"	void (*fn[N])(void); double end = now() + 1;\n"
	"	if (argc > 1 && !strcmp(argv[1], \"--mutex\")) {\n"
	"		while (now() < end) for (int k = 0; k < 10000; k++) {\n"
	"			pthread_mutex_lock(&m); pthread_mutex_unlock(&m); }\n"
	"		return 0; }\n"
	"	void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;\n"
	"	if (!h) { fprintf(stderr, \"%%s\\n\", dlerror()); return 1; }\n"
	"	for (int i = 0; i < N; i++) if (!(*(void **)&fn[i] = dlsym(h, names[i]))) return 2;\n"
	"	while (now() < end) for (int k = 0; k < 100; k++) for (int i = 0; i < N; i++) fn[i]();\n"
	"	return 0; }\n";

static const char *dir; /* removed when the test's process exits */


static void need_cc(void)
{
#ifndef LOOP
	th_skip("no assembly for this architecture's test functions");
#endif
	if (!th_have_program("cc"))
		th_skip("no C compiler (cc) to build the test's shared object");
}

/* Builds DIR/libalias.so; returns its path (kept for the test's life). */
static const char *build_alias_so(void)
{
	static char so[PATH_MAX];
	char src[PATH_MAX], map[PATH_MAX], cmd[4 * PATH_MAX];

	need_cc();
	snprintf(src, sizeof(src), "%s/alias.s", dir);
	snprintf(map, sizeof(map), "%s/alias.map", dir);
	snprintf(so, sizeof(so), "%s/libalias.so", dir);
#ifdef LOOP
	th_write_file(src, alias_asm);
#endif
	th_write_file(map, alias_versions);
	snprintf(cmd, sizeof(cmd), "cc -shared -fPIC -Wl,--version-script='%s' -o '%s' '%s' 2>&1",
		 map, so, src);
	free(th_sh_ok(cmd));
	return so;
}

/* Builds DIR/work (work_source); returns its path. */
static const char *build_work(void)
{
	static char exe[PATH_MAX];
	char src[PATH_MAX], cmd[4 * PATH_MAX], names[1024] = "", text[sizeof(work_source) + 1024];

	need_cc();
	for (size_t i = 0; i < NGROUPS; i++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s\"%s\"",
			 i ? ", " : "", groups[i].call);
	snprintf(text, sizeof(text), work_source, names);
	snprintf(src, sizeof(src), "%s/work.c", dir);
	snprintf(exe, sizeof(exe), "%s/work", dir);
	th_write_file(src, text);
	snprintf(cmd, sizeof(cmd),
		 "cc -O1 -fno-omit-frame-pointer -fno-plt -o '%s' '%s' -ldl -pthread 2>&1", exe, src);
	free(th_sh_ok(cmd));
	return exe;
}

/* ---- symbol tables, read here with libelf -------------------------------------- */

/* Calls fn on each named symbol of path's .symtab with its index. Returns false without one. */
static bool each_symbol(const char *path, void (*fn)(const char *name, const GElf_Sym *sym,
						     size_t ndx, void *ctx),
			void *ctx)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e;
	Elf_Scn *scn = NULL;
	bool found = false;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && !found && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		found = true;
		for (size_t i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (gelf_getsym(d, (int)i, &sym) &&
			    (name = elf_strptr(e, sh.sh_link, sym.st_name)) && name[0])
				fn(name, &sym, i, ctx);
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return found;
}

struct first_of {
	const char *a, *b; /* two names */
	size_t ndx;
	const char *first;
};

static void note_first(const char *name, const GElf_Sym *sym, size_t ndx, void *ctx)
{
	struct first_of *f = ctx;

	(void)sym;
	if ((strcmp(name, f->a) == 0 || strcmp(name, f->b) == 0) && (!f->first || ndx < f->ndx)) {
		f->first = strcmp(name, f->a) == 0 ? f->a : f->b;
		f->ndx = ndx;
	}
}

/* Which of names a and b comes first in path's .symtab. */
static const char *first_in_table(const char *path, const char *a, const char *b)
{
	struct first_of f = {.a = a, .b = b};

	cr_assert(each_symbol(path, note_first, &f), "%s has no .symtab", path);
	cr_assert_not_null(f.first, "neither %s nor %s in %s", a, b, path);
	return f.first;
}

static void note_any(const char *name, const GElf_Sym *sym, size_t ndx, void *ctx)
{
	(void)name;
	(void)sym;
	(void)ndx;
	*(bool *)ctx = true;
}

/* A name looked for in a .symtab, and whether it is there. */
struct has_name {
	const char *name;
	bool found;
};

static void note_name(const char *name, const GElf_Sym *sym, size_t ndx, void *ctx)
{
	struct has_name *h = ctx;

	(void)sym;
	(void)ndx;
	h->found |= strcmp(name, h->name) == 0;
}

/* What group i's address must be named in so. */
static const char *expected(const char *so, size_t i)
{
	if (!groups[i].winner)
		return first_in_table(so, "h_one", "h_two");
	if (strcmp(groups[i].winner, "v@@VT_2") == 0) {
		/* A linker that leaves version suffixes out of .symtab names it "v". */
		struct has_name h = {.name = "v@@VT_2"};
		each_symbol(so, note_name, &h);
		return h.found ? "v@@VT_2" : "v";
	}
	return groups[i].winner;
}

/* ---- the rule, through the symbolizer ------------------------------------------- */

/*
 * One timeout for the whole suite: Criterion 2.4's runner leaks 48 bytes
 * (LeakSanitizer fails the run) when the tests of a file have different
 * timeouts of their own.
 */
TestSuite(symbols_alias, .init = th_leak_init, .fini = th_leak_fini, .timeout = 120);

Test(symbols_alias, each_rule)
{
	const char *so;
	void *h;
	struct pev_symbols *s = NULL;
	struct pev_error err;

	dir = th_temp_dir("alias");
	so = build_alias_so();
	h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
	cr_assert_not_null(h, "dlopen %s: %s", so, dlerror());
	cr_assert_eq(pev_symbols_new(NULL, &s, &err), 0, "%s", err.message);
	cr_assert_eq(pev_symbols_read_process(s, getpid(), &err), 0, "%s", err.message);
	for (size_t i = 0; i < NGROUPS; i++) {
		void *fn = dlsym(h, groups[i].call);
		const char *want = expected(so, i);

		cr_assert_not_null(fn, "dlsym %s: %s", groups[i].call, dlerror());
		/* At the start and inside: both are the group's function. */
		for (uintptr_t off = 0; off <= 4; off += 4) {
			struct pev_symbol sym = PEV_SYMBOL_INIT;

			cr_assert_eq(pev_symbols_resolve(s, getpid(), (uintptr_t)fn + off, &sym), 0);
			cr_expect_eq(sym.status, PEV_SYMBOL_OK, "%s: %s", groups[i].rule,
				     pev_symbol_status_str(sym.status));
			cr_expect_str_eq(sym.name, want, "%s: %s, want %s", groups[i].rule, sym.name,
					 want);
			cr_expect_eq(sym.offset, off);
		}
	}
	pev_symbols_free(s);
	dlclose(h);
}

/* ---- Arm mapping symbols --------------------------------------------------------- */

/* Data only (never run): a function, then two labels, a mapping symbol and a name like one. */
static const char mapping_asm[] =
	".text\n.p2align 4\n.globl first\n.type first, %function\n"
	"first: .byte 0,0,0,0,0,0,0,0\n.size first, 8\n"
	".p2align 4\n\"$x\": .byte 0,0,0,0,0,0,0,0\n"
	".p2align 4\n\"$xray\": .byte 0,0,0,0,0,0,0,0\n";

/* st_value of the symbol called name in path's .symtab (0 when absent). */
struct value_of {
	const char *name;
	uint64_t value;
};

static void note_value(const char *name, const GElf_Sym *sym, size_t ndx, void *ctx)
{
	struct value_of *v = ctx;

	(void)ndx;
	if (strcmp(name, v->name) == 0)
		v->value = sym->st_value;
}

/* The name pev_symbols gives address vaddr of so (mapped whole at 0x10000000), malloc'ed. */
static char *name_at_vaddr(const char *so, uint64_t vaddr)
{
	const uint64_t base = 0x10000000;
	struct pev_symbols *s = NULL;
	struct pev_symbol sym = PEV_SYMBOL_INIT;
	struct pev_error err;
	char *name;

	cr_assert_eq(pev_symbols_new(NULL, &s, &err), 0, "%s", err.message);
	cr_assert_eq(pev_symbols_add_mapping(s, 4242, base, 0x100000, 0, so, NULL, 0), 0);
	cr_assert_eq(pev_symbols_resolve(s, 4242, base + vaddr, &sym), 0);
	name = strdup(sym.status == PEV_SYMBOL_OK && sym.name ? sym.name : "(none)");
	cr_assert_not_null(name);
	pev_symbols_free(s);
	return name;
}

/* Where symbol is in the file so (its st_value). */
static uint64_t value_in(const char *so, const char *symbol)
{
	struct value_of v = {.name = symbol};

	cr_assert(each_symbol(so, note_value, &v) && v.value, "%s: no %s", so, symbol);
	return v.value;
}

/* The name pev_symbols gives the address of symbol `label` of so. */
static char *name_at(const char *so, const char *label)
{
	return name_at_vaddr(so, value_in(so, label));
}

#if !defined(__aarch64__) && !defined(__arm__)
/* Rewrites the e_machine of the little-endian ELF file at path. */
static void set_machine(const char *path, uint16_t machine)
{
	unsigned char le[2] = {(unsigned char)(machine & 0xff), (unsigned char)(machine >> 8)};
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(pwrite(fd, le, 2, offsetof(Elf64_Ehdr, e_machine)), 2);
	close(fd);
}
#endif

/*
 * On Arm the assembler marks where code and data start with local symbols
 * "$x", "$d" (and "$a", "$t" on 32-bit Arm), several per function; they
 * name no function, and perf leaves them out of an Arm file's symbols (in
 * glibc's arm64 debug symbols they would otherwise name code all over
 * libc). The same object is read as built and as an AArch64 file (its
 * e_machine rewritten): "$x" is a label like any other only in a file not for
 * Arm; "$xray" is no mapping symbol anywhere.
 */
Test(symbols_alias, arm_mapping_symbols_name_nothing)
{
	char src[PATH_MAX], so[PATH_MAX], cmd[4 * PATH_MAX], *name;

	need_cc();
	dir = th_temp_dir("alias");
	snprintf(src, sizeof(src), "%s/mapping.s", dir);
	snprintf(so, sizeof(so), "%s/libmapping.so", dir);
	th_write_file(src, mapping_asm);
	snprintf(cmd, sizeof(cmd), "cc -shared -nostdlib -o '%s' '%s' 2>&1", so, src);
	free(th_sh_ok(cmd));
#if !defined(__aarch64__) && !defined(__arm__)
	name = name_at(so, "$x");
	cr_expect_str_eq(name, "$x", "a label in a file not for Arm names its code");
	free(name);
	set_machine(so, EM_AARCH64);
#endif
	name = name_at(so, "$x");
	cr_expect_str_neq(name, "$x", "an AArch64 mapping symbol names code");
	free(name);
	name = name_at(so, "$xray");
	cr_expect_str_eq(name, "$xray");
	free(name);
	name = name_at(so, "first");
	cr_expect_str_eq(name, "first");
	free(name);
}

/* ---- debuginfo of an aliased function -------------------------------------------- */

#ifdef LOOP
/* One function under two names; the assembler's debuginfo (-g) describes each. */
static const char twin_asm[] = ".text\n.p2align 4\n.globl __twin_fn\n.globl twin_fn\n"
			       ".type __twin_fn, %function\n.type twin_fn, %function\n"
			       "__twin_fn:\ntwin_fn:\n" LOOP ".size __twin_fn, .-__twin_fn\n"
			       ".size twin_fn, .-twin_fn\n"
			       /* The other order: twin_other first. */
			       ".p2align 4\n.globl twin_other\n.globl __twin_other\n"
			       ".type twin_other, %function\n.type __twin_other, %function\n"
			       "twin_other:\n__twin_other:\n" LOOP ".size twin_other, .-twin_other\n"
			       ".size __twin_other, .-__twin_other\n";
#endif

/*
 * Builds DIR/lib.so from source (in DIR/NAME: ".s" or ".c", built with -g
 * and flags), its path in so (PATH_MAX bytes), and maps it at DEBUG_BASE
 * as process 4242 of a new symbols object, which the caller frees.
 */
#define DEBUG_BASE UINT64_C(0x10000000)
static struct pev_symbols *map_debug_so(const char *name, const char *source, const char *flags,
					char *so)
{
	char src[PATH_MAX], cmd[4 * PATH_MAX];
	struct pev_symbols *s = NULL;
	struct pev_error err;

	need_cc();
	dir = th_temp_dir("alias");
	snprintf(src, sizeof(src), "%s/%s", dir, name);
	snprintf(so, PATH_MAX, "%s/lib.so", dir);
	th_write_file(src, source);
	snprintf(cmd, sizeof(cmd), "cc -g %s -shared -nostdlib -o '%s' '%s' 2>&1", flags, so, src);
	free(th_sh_ok(cmd));
	cr_assert_eq(pev_symbols_new(NULL, &s, &err), 0, "%s", err.message);
	cr_assert_eq(pev_symbols_add_mapping(s, 4242, DEBUG_BASE, 0x100000, 0, so, NULL, 0), 0);
	return s;
}

/*
 * GNU as (2.40) gives each name of an assembly function a DWARF subprogram
 * with the same range, in the order of the source: glibc's arm64 ld.so has
 * `__strlen` and then `strlen`. The function the debuginfo names at an
 * address is then the last of them, as binutils' addr2line names it (so
 * perf, which marks it inlined where it is not the ELF symbol's name):
 * `twin_fn` for `__twin_fn` then `twin_fn`, `__twin_other` for
 * `twin_other` then `__twin_other` (the ELF symbol is `twin_other`).
 */
Test(symbols_alias, debuginfo_twins_named_as_the_symbol, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_symbol sym = PEV_SYMBOL_INIT;
	char so[PATH_MAX];
#ifdef LOOP
	struct pev_symbols *s = map_debug_so("twin.s", twin_asm, "", so);
#else
	struct pev_symbols *s = NULL;
	need_cc(); /* skips */
#endif

	cr_assert_eq(pev_symbols_resolve(s, 4242, DEBUG_BASE + value_in(so, "twin_fn") + 4, &sym), 0);
	cr_assert_eq(sym.status, PEV_SYMBOL_OK);
	cr_expect_str_eq(sym.name, "twin_fn");
	if (!sym.nframes) {
		pev_symbols_free(s);
		th_skip("this assembler describes no functions in its debuginfo (GNU as < 2.38?)");
	}
	cr_expect_eq(sym.nframes, 1, "one function, nothing inlined");
	cr_expect_str_eq(sym.frames[sym.nframes - 1].function, "twin_fn");
	sym = (struct pev_symbol)PEV_SYMBOL_INIT;
	cr_assert_eq(pev_symbols_resolve(s, 4242, DEBUG_BASE + value_in(so, "twin_other") + 4, &sym),
		     0);
	cr_expect_str_eq(sym.name, "twin_other");
	cr_expect_eq(sym.nframes, 1);
	cr_expect_str_eq(sym.frames[sym.nframes - 1].function, "__twin_other");
	pev_symbols_free(s);
}

/*
 * A C function declared with an asm label (glibc's hidden_proto: `__open64_nocancel`
 * is `__GI___open64_nocancel` to the assembler): its debuginfo has the C
 * name and the assembler's as its linkage name. The function the
 * debuginfo names is the assembler's, as binutils' addr2line and perf name
 * it: the ELF symbol's, so the frame is not an inlined `labelled_fn`.
 */
Test(symbols_alias, debuginfo_names_a_c_function_by_its_asm_label, .init = th_leak_init,
     .fini = th_leak_fini)
{
	static const char source[] = "int labelled_fn(int x) __asm__(\"__GI_labelled_fn\");\n"
				     "int labelled_fn(int x) { return x * 3 + 1; }\n";
	struct pev_symbol sym = PEV_SYMBOL_INIT;
	char so[PATH_MAX];
	struct pev_symbols *s = map_debug_so("labelled.c", source, "-O1", so);

	cr_assert_eq(pev_symbols_resolve(s, 4242, DEBUG_BASE + value_in(so, "__GI_labelled_fn"), &sym),
		     0);
	cr_assert_eq(sym.status, PEV_SYMBOL_OK);
	cr_expect_str_eq(sym.name, "__GI_labelled_fn");
	cr_assert_eq(sym.nframes, 1, "one function, nothing inlined");
	cr_expect_str_eq(sym.frames[0].function, "__GI_labelled_fn");
	pev_symbols_free(s);
}

/* ---- the PLT of an AArch64 file ---------------------------------------------------- */

/* Two calls through the PLT. */
static const char plt_source[] = "double sin(double); double cos(double);\n"
				 "double both(double x) { return sin(x) + cos(x); }\n";

/* The address of so's .plt and the names of the symbols of its first two .rela.plt entries. */
static uint64_t plt_and_first_relocs(const char *so, char names[2][64])
{
	int fd = open(so, O_RDONLY | O_CLOEXEC);
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	uint64_t plt = 0;
	int got = 0;

	cr_assert_geq(fd, 0);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert(e && elf_getshdrstrndx(e, &shstrndx) == 0);
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh, dsh;
		const char *n;
		if (!gelf_getshdr(scn, &sh) || !(n = elf_strptr(e, shstrndx, sh.sh_name)))
			continue;
		if (strcmp(n, ".plt") == 0)
			plt = sh.sh_addr;
		if (strcmp(n, ".rela.plt") != 0)
			continue;
		Elf_Scn *dyn = elf_getscn(e, sh.sh_link);
		Elf_Data *d = elf_getdata(scn, NULL), *dd = dyn ? elf_getdata(dyn, NULL) : NULL;
		cr_assert(d && dd && gelf_getshdr(dyn, &dsh));
		for (int i = 0; i < 2; i++) {
			GElf_Rela r;
			GElf_Sym sym;
			cr_assert(gelf_getrela(d, i, &r) && gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &sym));
			snprintf(names[i], 64, "%s", elf_strptr(e, dsh.sh_link, sym.st_name));
			got++;
		}
	}
	elf_end(e);
	close(fd);
	cr_assert(plt && got == 2, "%s: no .plt with two .rela.plt entries", so);
	return plt;
}

/*
 * On AArch64 the PLT's header is 32 bytes and a stub 16, whatever .plt's
 * sh_entsize says (GNU ld leaves it 0 there): perf 6.1 names the stubs by
 * those sizes. An object built here is read as an AArch64 file (its
 * e_machine rewritten): the first stub starts 32 bytes in.
 */
Test(symbols_alias, aarch64_plt_stubs_named_as_perf)
{
	char src[PATH_MAX], so[PATH_MAX], cmd[4 * PATH_MAX], names[2][64], want[160], *name;

	need_cc();
	dir = th_temp_dir("alias");
	snprintf(src, sizeof(src), "%s/plt.c", dir);
	snprintf(so, sizeof(so), "%s/libplt.so", dir);
	th_write_file(src, plt_source);
	snprintf(cmd, sizeof(cmd), "cc -shared -fPIC -O1 -fno-builtin -Wl,-z,lazy -o '%s' '%s' -lm 2>&1",
		 so, src);
	free(th_sh_ok(cmd));
	uint64_t plt = plt_and_first_relocs(so, names);
#if !defined(__aarch64__) && !defined(__arm__)
	set_machine(so, EM_AARCH64);
#endif
	for (int i = 0; i < 2; i++) {
		snprintf(want, sizeof(want), "%s@plt", names[i]);
		name = name_at_vaddr(so, plt + 32 + 16 * (uint64_t)i + 4);
		cr_expect_str_eq(name, want, "stub %d of the PLT at 0x%" PRIx64, i, plt);
		free(name);
	}
}

/* ---- against perf ------------------------------------------------------------------ */

/* perf's version as major * 100 + minor (0 when unknown). */
static int perf_version(void)
{
	char *out = th_sh_ok("perf --version");
	int major = 0, minor = 0;

	sscanf(out, "perf version %d.%d", &major, &minor);
	free(out);
	return major * 100 + minor;
}

/* The symbol names of a `report --sort sym` table ("[.] NAME" lines), one per line. */
static char *report_names(const char *report)
{
	size_t cap = strlen(report) + 2, len = 0;
	char *names = calloc(1, cap);

	cr_assert_not_null(names);
	for (const char *l = report; *l;) {
		size_t n = strcspn(l, "\n");
		const char *tag = strstr(l, "[.] ");

		if (tag && tag < l + n) {
			const char *name = tag + 4;
			size_t k = (size_t)(l + n - name);

			while (k && name[k - 1] == ' ')
				k--;
			len += (size_t)snprintf(names + len, cap - len, "%.*s\n", (int)k, name);
		}
		l += n + (l[n] != '\0');
	}
	return names;
}

static bool has_line(const char *lines, const char *name)
{
	size_t n = strlen(name);

	for (const char *l = lines; *l; l += strcspn(l, "\n") + 1) {
		if (strncmp(l, name, n) == 0 && l[n] == '\n')
			return true;
		if (!l[strcspn(l, "\n")])
			break;
	}
	return false;
}

/* Both tools' `report --sort sym` names for file. */
static void reports(const char *file, char **ours, char **perfs)
{
	char cmd[2 * PATH_MAX], *out;

	snprintf(cmd, sizeof(cmd), "'%s' report -i '%s' --sort sym", th_perfev_bin(), file);
	out = th_sh_ok(cmd);
	*ours = report_names(out);
	free(out);
	snprintf(cmd, sizeof(cmd), "perf report -i '%s' --stdio --sort sym 2>/dev/null", file);
	out = th_sh_ok(cmd);
	*perfs = report_names(out);
	free(out);
}

Test(symbols_alias, each_rule_like_perf)
{
	char file[PATH_MAX], cmd[4 * PATH_MAX], *ours, *perfs;
	const char *so, *work;
	int version;

	th_need_perf();
	dir = th_temp_dir("alias");
	so = build_alias_so();
	work = build_work();
	snprintf(file, sizeof(file), "%s/perf.data", dir);
	snprintf(cmd, sizeof(cmd), "perf record -q -o '%s' '%s' '%s' 2>&1", file, work, so);
	free(th_sh_ok(cmd));
	version = perf_version();
	reports(file, &ours, &perfs);
	for (size_t i = 0; i < NGROUPS; i++) {
		const char *want = expected(so, i);

		/* perf before 6.14 (commit 8c2eafbbfd78) has no rule for labels. */
		if (strcmp(groups[i].winner ? groups[i].winner : "", "__c") == 0 && version < 614) {
			cr_log_info("perf %d.%d predates the label rule: \"%s\" not compared",
				    version / 100, version % 100, groups[i].rule);
			continue;
		}
		cr_expect(has_line(perfs, want), "%s: perf does not name %s; it names:\n%s",
			  groups[i].rule, want, perfs);
		cr_expect(has_line(ours, want), "%s: perfev does not name %s; it names:\n%s",
			  groups[i].rule, want, ours);
	}
	free(ours);
	free(perfs);
}

/* ---- glibc's pthread_mutex_lock ----------------------------------------------------- */

/* The file holding libc's symbol table: libc itself, or its debug file by build id. */
static bool libc_symbols(char *out, size_t size)
{
	Dl_info info;
	bool any = false;
	int fd;
	Elf *e;
	Elf_Scn *scn = NULL;
	char hex[2 * 64 + 1] = "";

	if (!dladdr((void *)pthread_mutex_lock, &info) || !info.dli_fname)
		return false;
	if (each_symbol(info.dli_fname, note_any, &any) && any) {
		snprintf(out, size, "%s", info.dli_fname);
		return true;
	}
	if ((fd = open(info.dli_fname, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && !hex[0] && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		GElf_Nhdr nh;
		Elf_Data *d;
		size_t off = 0, next, name_off, desc_off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)))
			continue;
		while (!hex[0] && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_descsz <= 64 && nh.n_descsz > 1)
				for (size_t i = 0; i < nh.n_descsz; i++)
					sprintf(hex + 2 * i, "%02x",
						((unsigned char *)d->d_buf)[desc_off + i]);
			off = next;
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	if (!hex[0])
		return false;
	snprintf(out, size, "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	any = false;
	return each_symbol(out, note_any, &any) && any;
}

/* The distinct words of text that contain "pthread_mutex_lock" (offsets dropped), a line each. */
static char *lock_names(const char *text)
{
	char *names = calloc(1, strlen(text) + 2);
	size_t len = 0;

	cr_assert_not_null(names);
	for (const char *p = text; (p = strstr(p, "pthread_mutex_lock"));) {
		const char *b = p, *e = p;
		char one[256];

		while (b > text && b[-1] != ' ' && b[-1] != '\t' && b[-1] != '\n')
			b--;
		while (*e && *e != ' ' && *e != '\t' && *e != '\n' && *e != '+')
			e++;
		snprintf(one, sizeof(one), "%.*s", (int)(e - b), b);
		if (!has_line(names, one))
			len += (size_t)sprintf(names + len, "%s\n", one);
		p = e;
	}
	return names;
}

Test(symbols_alias, pthread_mutex_lock_like_perf)
{
	char file[PATH_MAX], debug[PATH_MAX], cmd[4 * PATH_MAX];
	char *ours, *perfs, *out, *a, *b;
	const char *work;

	th_need_perf();
	if (!libc_symbols(debug, sizeof(debug)))
		th_skip("no symbol table for libc here (its debug symbols: Debian libc6-dbg, "
			     "Fedora glibc-debuginfo): nothing to choose among");
	cr_log_info("libc's symbols: %s", debug);
	dir = th_temp_dir("alias");
	work = build_work();
	snprintf(file, sizeof(file), "%s/perf.data", dir);
	snprintf(cmd, sizeof(cmd), "perf record -q -o '%s' '%s' --mutex 2>&1", file, work);
	free(th_sh_ok(cmd));

	reports(file, &ours, &perfs);
	a = lock_names(ours);
	b = lock_names(perfs);
	cr_assert_neq(b[0], '\0', "perf names no pthread_mutex_lock:\n%s", perfs);
	cr_expect_str_eq(a, b, "perfev report names\n%sperf report names\n%s", a, b);
	free(a);
	free(b);
	free(ours);
	free(perfs);

	snprintf(cmd, sizeof(cmd), "'%s' script -i '%s'", th_perfev_bin(), file);
	out = th_sh_ok(cmd);
	a = lock_names(out);
	free(out);
	snprintf(cmd, sizeof(cmd), "perf script -i '%s' 2>/dev/null", file);
	out = th_sh_ok(cmd);
	b = lock_names(out);
	free(out);
	cr_expect_str_eq(a, b, "perfev script names\n%sperf script names\n%s", a, b);
	free(a);
	free(b);
}
