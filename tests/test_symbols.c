/* SPDX-License-Identifier: MIT */
/*
 * test_symbols.c - the symbols layer (perfev/symbols.h).
 *
 * Real code, real files: functions of this test binary (entry, middle,
 * source line, an inline chain, a C++-mangled name), libc through dlsym,
 * the vDSO, and two helper programs built from one source as a PIE and as a
 * non-PIE executable (symbols_helper.c, -O2 -g) - each resolved through
 * mappings fed by hand, as records would feed them, and through the live
 * /proc/PID/maps of the running child. Kernel symbols from the real
 * /proc/kallsyms as root and as nobody, and from fixture files; JIT maps
 * written here; build-id mismatches with copied binaries; the mapping
 * arithmetic, process lifetimes, caches and argument checks.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "perfev.h"

/* AddressSanitizer builds: interceptors and redzones change what some symbols are. */
#if defined(__SANITIZE_ADDRESS__)
#define TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_ASAN 1
#endif
#endif
#ifndef TEST_ASAN
#define TEST_ASAN 0
#endif

/* ---- functions of this binary that the tests resolve -------------------- */

int sym_alpha(int x);
int sym_outer(int x);
int sym_mangled(int x) __asm__("_ZN6perfev4test7mangledEi");

static uintptr_t alpha_ra, inner_ra;
static int alpha_line, inner_line, outer_line;

/* Records its caller's return address and the caller's source line. */
__attribute__((noinline)) static void mark(uintptr_t *ra, int *line_out, int line)
{
	*ra = (uintptr_t)__builtin_return_address(0);
	*line_out = line;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline, used)) int sym_alpha(int x)
{
	mark(&alpha_ra, &alpha_line, __LINE__);
	__asm__ volatile("" : "+r"(x));
	return x * 3 + 1;
}

static inline __attribute__((always_inline)) int sym_inner(int x)
{
	mark(&inner_ra, &inner_line, __LINE__);
	__asm__ volatile("" : "+r"(x));
	return x * 5 + 2;
}

__attribute__((noinline, used)) int sym_outer(int x)
{
	outer_line = __LINE__; int y = sym_inner(x);
	__asm__ volatile("" : "+r"(y));
	return y + 7;
}

__attribute__((noinline, used)) int sym_mangled(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 11;
}

/* Data: initialized (in the file) and zero-filled (.bss, past the file's contents). */
int sym_data_var[4] = {1, 2, 3, 4};
int sym_bss_var[16];

static int (*volatile call_alpha)(int) = sym_alpha;
static int (*volatile call_outer)(int) = sym_outer;

/* Runs the functions once so the return addresses are recorded. */
static void run_marks(void)
{
	cr_assert_eq(call_alpha(1) + call_outer(2), 4 + 19);
	cr_assert_neq(alpha_ra, 0);
	cr_assert_neq(inner_ra, 0);
}

/* ---- helpers ------------------------------------------------------------------ */

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static void self_exe(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);

	cr_assert_gt(n, 0, "readlink /proc/self/exe: %s", strerror(errno));
	buf[n] = '\0';
}

static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path;
}

static struct pev_symbols *new_symbols(const struct pev_symbols_opts *o)
{
	struct pev_symbols *s = NULL;
	struct pev_error err;
	int r = pev_symbols_new(o, &s, &err);

	cr_assert_eq(r, 0, "pev_symbols_new: %d %s", r, err.message);
	cr_assert_not_null(s);
	return s;
}

static struct pev_symbol resolve(struct pev_symbols *s, int32_t pid, uint64_t addr)
{
	struct pev_symbol sym = PEV_SYMBOL_INIT;
	int r = pev_symbols_resolve(s, pid, addr, &sym);

	cr_assert_eq(r, 0, "pev_symbols_resolve(%" PRId32 ", %#" PRIx64 "): %d", pid, addr, r);
	cr_assert_not_null(sym.name);
	return sym;
}

static struct pev_symbols_stats stats(struct pev_symbols *s)
{
	struct pev_symbols_stats st = PEV_SYMBOLS_STATS_INIT;

	cr_assert_eq(pev_symbols_stats(s, &st), 0);
	return st;
}

static void hex_of(const unsigned char *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = '\0';
}

/* The GNU build id of an ELF file, read here with libelf. Returns its length (0: none). */
static size_t file_build_id(const char *path, unsigned char *out, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t len = 0;

	cr_assert_geq(fd, 0, "open %s: %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert_not_null(e, "elf_begin %s", path);
	while (!len && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t off = 0, next, name_off, desc_off;
		GElf_Nhdr nh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)))
			continue;
		while ((next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp((char *)d->d_buf + name_off, "GNU", 4) == 0 && nh.n_descsz <= max) {
				memcpy(out, (char *)d->d_buf + desc_off, nh.n_descsz);
				len = nh.n_descsz;
				break;
			}
			off = next;
		}
	}
	elf_end(e);
	close(fd);
	return len;
}

static int elf_type(const char *path)
{
	Elf64_Ehdr eh;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	cr_assert_geq(fd, 0, "open %s: %s", path, strerror(errno));
	cr_assert_eq(read(fd, &eh, sizeof(eh)), (ssize_t)sizeof(eh));
	close(fd);
	return eh.e_type;
}

static void copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC);
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	ssize_t n;

	cr_assert(in >= 0 && out >= 0, "copy %s -> %s: %s", from, to, strerror(errno));
	while ((n = read(in, buf, sizeof(buf))) > 0)
		cr_assert_eq(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
}

static void write_file(const char *path, const char *text, const char *mode)
{
	FILE *f = fopen(path, mode);

	cr_assert_not_null(f, "fopen %s: %s", path, strerror(errno));
	fputs(text, f);
	fclose(f);
}

static void mkdirs(const char *path)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(tmp, 0755);
			*p = '/';
		}
	cr_assert(mkdir(tmp, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", tmp, strerror(errno));
}

static void remove_tree(const char *path)
{
	cr_expect_eq(th_remove_tree(path), 0, "cannot remove %s", path);
}

/* th_temp_dir into the caller's buffer (removed at exit even if the test fails). */
static void temp_dir(char *buf, size_t size)
{
	snprintf(buf, size, "%s", th_temp_dir("symbols"));
}

/*
 * Feeds the mappings of process `from` (read from its /proc/PID/maps here,
 * not by perfev) to s as pid `as`, the way MMAP2 records would; a path equal
 * to `rename_from` is given as `rename_to` with the build id bid. Returns
 * how many were fed.
 */
static int feed_maps(struct pev_symbols *s, pid_t from, int32_t as, const char *rename_from,
		     const char *rename_to, const unsigned char *bid, size_t bid_len)
{
	char path[64], line[4200];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)from);
	f = fopen(path, "re");
	cr_assert_not_null(f, "fopen %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off;
		int pos = -1;
		char *name;
		size_t len = strlen(line);

		if (len && line[len - 1] == '\n')
			line[len - 1] = '\0';
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s%n", &lo, &hi, &off, &pos) < 3 || pos < 0)
			continue;
		name = line + pos;
		while (*name == ' ')
			name++;
		if (!*name)
			name = "//anon";
		bool renamed = rename_from && strcmp(name, rename_from) == 0;
		cr_assert_eq(pev_symbols_add_mapping(s, as, lo, hi - lo, off,
						     renamed ? rename_to : name,
						     renamed ? bid : NULL, renamed ? bid_len : 0),
			     0);
		n++;
	}
	fclose(f);
	return n;
}

/* ---- the helper programs ------------------------------------------------------- */

struct helper {
	pid_t pid;
	int in_fd;
	FILE *out;
	char path[PATH_MAX];
	uint64_t alpha, alpha_ra, outer, inner_ra;
	int alpha_line, inner_line, outer_line;
};

/* The path of helper program `name`, built next to this test. */
static void helper_path(const char *name, char *buf, size_t size)
{
	char exe[PATH_MAX - 64];
	char *slash;

	self_exe(exe, sizeof(exe));
	slash = strrchr(exe, '/');
	cr_assert_not_null(slash);
	*slash = '\0';
	snprintf(buf, size, "%s/%s", exe, name);
	cr_assert_eq(access(buf, X_OK), 0, "helper %s: %s (build the tests first)", buf,
		     strerror(errno));
}

static void helper_start(const char *exe, struct helper *h)
{
	int in[2], out[2];
	char line[256];

	memset(h, 0, sizeof(*h));
	snprintf(h->path, sizeof(h->path), "%s", exe);
	cr_assert_eq(pipe2(in, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(out, O_CLOEXEC), 0);
	h->pid = fork();
	cr_assert_geq(h->pid, 0);
	if (h->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execl(exe, exe, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	h->in_fd = in[1];
	h->out = fdopen(out[0], "r");
	cr_assert_not_null(h->out);
	while (fgets(line, sizeof(line), h->out) && strncmp(line, "ready", 5) != 0) {
		char key[32];
		unsigned long long v;

		if (sscanf(line, "%31s %llx", key, &v) != 2)
			continue;
		if (!strcmp(key, "alpha"))
			h->alpha = v;
		else if (!strcmp(key, "alpha_ra"))
			h->alpha_ra = v;
		else if (!strcmp(key, "outer"))
			h->outer = v;
		else if (!strcmp(key, "inner_ra"))
			h->inner_ra = v;
		else if (!strcmp(key, "alpha_line"))
			h->alpha_line = (int)strtol(line + 11, NULL, 10);
		else if (!strcmp(key, "inner_line"))
			h->inner_line = (int)strtol(line + 11, NULL, 10);
		else if (!strcmp(key, "outer_line"))
			h->outer_line = (int)strtol(line + 11, NULL, 10);
	}
	cr_assert(h->alpha && h->alpha_ra && h->outer && h->inner_ra && h->alpha_line > 0 &&
			  h->inner_line > 0 && h->outer_line > 0,
		  "helper %s did not report its addresses", exe);
}

static void helper_stop(struct helper *h)
{
	int status;

	close(h->in_fd);
	fclose(h->out);
	cr_assert_eq(waitpid(h->pid, &status, 0), h->pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "helper status %#x", status);
}

/* Checks every address the helper reported, as process pid of s. */
static void expect_helper(struct pev_symbols *s, int32_t pid, const struct helper *h,
			  const char *dso)
{
	struct pev_symbol a = resolve(s, pid, h->alpha);
	struct pev_symbol mid = resolve(s, pid, h->alpha_ra - 1);
	struct pev_symbol o = resolve(s, pid, h->outer);
	struct pev_symbol in = resolve(s, pid, h->inner_ra - 1);

	/* Entry of a function. */
	cr_expect_eq(a.status, PEV_SYMBOL_OK, "%s", pev_symbol_status_str(a.status));
	cr_expect_str_eq(a.name, "helper_alpha");
	cr_expect_eq(a.offset, 0);
	cr_expect_eq(a.start, h->alpha);
	cr_expect_gt(a.size, 0);
	cr_expect_str_eq(a.dso, dso);
	cr_expect_str_eq(base_name(a.file), "symbols_helper.c");
	cr_expect(a.line > 0 && (int)a.line <= h->alpha_line, "entry line %u, call at %d", a.line,
		  h->alpha_line);
	cr_expect_not_null(a.build_id);

	/* The middle of it: same symbol, the offset, the line of the call. */
	cr_expect_str_eq(mid.name, "helper_alpha");
	cr_expect_eq(mid.start, h->alpha);
	cr_expect_eq(mid.offset, h->alpha_ra - 1 - h->alpha);
	cr_expect_lt(mid.offset, mid.size);
	cr_expect_eq(mid.line, (unsigned)h->alpha_line);
	cr_expect_eq(mid.nframes, 1);
	if (mid.nframes)
		cr_expect_str_eq(mid.frames[0].function, "helper_alpha");

	/* An inline chain: helper_inner inlined into helper_outer. */
	cr_expect_str_eq(o.name, "helper_outer");
	cr_expect_str_eq(in.name, "helper_outer");
	cr_expect_eq(in.start, h->outer);
	cr_expect_eq(in.line, (unsigned)h->inner_line);
	cr_assert_eq(in.nframes, 2, "frames %u", in.nframes);
	cr_expect_str_eq(in.frames[0].function, "helper_inner");
	cr_expect_eq(in.frames[0].line, (unsigned)h->inner_line);
	cr_expect_str_eq(base_name(in.frames[0].file), "symbols_helper.c");
	cr_expect_str_eq(in.frames[1].function, "helper_outer");
	cr_expect_eq(in.frames[1].line, (unsigned)h->outer_line);
	cr_expect_str_eq(base_name(in.frames[1].file), "symbols_helper.c");
	cr_expect(in.flags & PEV_SYMBOL_DEBUGINFO);
}

/* ---- this binary ---------------------------------------------------------------- */

Test(symbols, own_functions_entry_middle_and_line, .init = th_leak_init, .fini = th_leak_fini)
{
	char exe[PATH_MAX];
	unsigned char bid[PEV_BUILD_ID_MAX];
	size_t bid_len;
	struct pev_symbols *s = new_symbols(NULL);

	run_marks();
	self_exe(exe, sizeof(exe));
	cr_assert_eq(pev_symbols_read_process(s, getpid(), NULL), 0);

	struct pev_symbol a = resolve(s, getpid(), (uintptr_t)&sym_alpha);
	cr_expect_eq(a.status, PEV_SYMBOL_OK);
	cr_expect_str_eq(a.name, "sym_alpha");
	cr_expect_eq(a.offset, 0);
	cr_expect_eq(a.start, (uintptr_t)&sym_alpha);
	cr_expect_str_eq(a.dso, exe);
	cr_expect_str_eq(base_name(a.file), "test_symbols.c");
	cr_expect(a.line > 0 && (int)a.line <= alpha_line);

	struct pev_symbol m = resolve(s, getpid(), alpha_ra - 1);
	cr_expect_str_eq(m.name, "sym_alpha");
	cr_expect_eq(m.offset, alpha_ra - 1 - (uintptr_t)&sym_alpha);
	cr_expect_gt(m.offset, 0);
	cr_expect_lt(m.offset, m.size);
	cr_expect_eq(m.line, (unsigned)alpha_line);
	cr_expect_str_eq(base_name(m.file), "test_symbols.c");

	/* The build id is the file's, and the ELF address is what addr2line takes. */
	bid_len = file_build_id(exe, bid, sizeof(bid));
	cr_assert_gt(bid_len, 0);
	cr_expect_eq(a.build_id_size, bid_len);
	cr_expect(a.build_id && memcmp(a.build_id, bid, bid_len) == 0);
	if (elf_type(exe) == ET_EXEC)
		cr_expect_eq(a.dso_addr, (uintptr_t)&sym_alpha);
	else
		cr_expect_lt(a.dso_addr, (uintptr_t)&sym_alpha);
	cr_expect_eq(m.dso_addr - a.dso_addr, m.offset);
	pev_symbols_free(s);
}

/* The path of this process's mapping holding addr ("" for anonymous memory). */
static void mapping_of(uintptr_t addr, char *path, size_t size)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[4200];

	cr_assert_not_null(f);
	path[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;
		int pos = -1;

		if (sscanf(line, "%llx-%llx %*s %*s %*s %*s%n", &lo, &hi, &pos) < 2 || pos < 0 ||
		    addr < lo || addr >= hi)
			continue;
		char *name = line + pos;
		while (*name == ' ')
			name++;
		name[strcspn(name, "\n")] = '\0';
		snprintf(path, size, "%s", name);
		break;
	}
	fclose(f);
}

Test(symbols, own_data_and_bss, .init = th_leak_init, .fini = th_leak_fini)
{
	char where[PATH_MAX], exe[PATH_MAX];
	struct pev_symbols *s = new_symbols(NULL);

	self_exe(exe, sizeof(exe));
	cr_assert_eq(pev_symbols_read_process(s, getpid(), NULL), 0);
	struct pev_symbol d = resolve(s, getpid(), (uintptr_t)&sym_data_var[2]);
	cr_expect_str_eq(d.name, "sym_data_var");
	cr_expect_eq(d.offset, 2 * sizeof(int));
	/* The size is the ELF symbol's: under AddressSanitizer (clang) a global's
	 * symbol also covers the redzone placed after it. */
	if (TEST_ASAN)
		cr_expect_geq(d.size, sizeof(sym_data_var));
	else
		cr_expect_eq(d.size, sizeof(sym_data_var));

	/* .bss in the file's last page belongs to the file; past it, to anonymous memory. */
	sym_bss_var[3] = 1;
	mapping_of((uintptr_t)&sym_bss_var[3], where, sizeof(where));
	struct pev_symbol b = resolve(s, getpid(), (uintptr_t)&sym_bss_var[3]);
	if (strcmp(where, exe) == 0) {
		cr_expect_eq(b.status, PEV_SYMBOL_OK);
		cr_expect_str_eq(b.name, "sym_bss_var");
		cr_expect_eq(b.offset, 3 * sizeof(int));
	} else {
		cr_expect_eq(b.status, PEV_SYMBOL_ANON, "bss in %s", where);
	}
	pev_symbols_free(s);
}

Test(symbols, own_inline_chain, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_symbols *s = new_symbols(NULL);

	run_marks();
	cr_assert_eq(pev_symbols_read_process(s, getpid(), NULL), 0);
	struct pev_symbol in = resolve(s, getpid(), inner_ra - 1);

	cr_expect_str_eq(in.name, "sym_outer");
	cr_expect_eq(in.start, (uintptr_t)&sym_outer);
	cr_expect_eq(in.line, (unsigned)inner_line);
	cr_assert_eq(in.nframes, 2);
	cr_expect_str_eq(in.frames[0].function, "sym_inner");
	cr_expect_eq(in.frames[0].line, (unsigned)inner_line);
	cr_expect_str_eq(in.frames[1].function, "sym_outer");
	cr_expect_eq(in.frames[1].line, (unsigned)outer_line);
	cr_expect_str_eq(base_name(in.frames[1].file), "test_symbols.c");

	/* Without inline frames: the line stays, the chain goes. */
	struct pev_symbols_opts o = PEV_SYMBOLS_OPTS_INIT;
	o.flags = PEV_SYMBOLS_NO_INLINE;
	struct pev_symbols *s2 = new_symbols(&o);
	cr_assert_eq(pev_symbols_read_process(s2, getpid(), NULL), 0);
	struct pev_symbol ni = resolve(s2, getpid(), inner_ra - 1);
	cr_expect_str_eq(ni.name, "sym_outer");
	cr_expect_eq(ni.line, (unsigned)inner_line);
	cr_expect_eq(ni.nframes, 0);
	cr_expect_null(ni.frames);

	/* Without DWARF at all: the symbol only. */
	o.flags = PEV_SYMBOLS_NO_SRCLINE;
	struct pev_symbols *s3 = new_symbols(&o);
	cr_assert_eq(pev_symbols_read_process(s3, getpid(), NULL), 0);
	struct pev_symbol ns = resolve(s3, getpid(), inner_ra - 1);
	cr_expect_str_eq(ns.name, "sym_outer");
	cr_expect_null(ns.file);
	cr_expect_eq(ns.line, 0);
	cr_expect_eq(ns.nframes, 0);
	cr_expect_not(ns.flags & PEV_SYMBOL_DEBUGINFO);
	pev_symbols_free(s3);
	pev_symbols_free(s2);
	pev_symbols_free(s);
}

Test(symbols, demangled_and_mangled, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_symbols_opts o = PEV_SYMBOLS_OPTS_INIT;
	struct pev_symbols *s = new_symbols(NULL);
	void *libstdcxx = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_NOLOAD);

	cr_assert_eq(sym_mangled(1), 12);
	cr_assert_eq(pev_symbols_read_process(s, getpid(), NULL), 0);
	struct pev_symbol d = resolve(s, getpid(), (uintptr_t)&sym_mangled + 1);
	bool have_demangler = libstdcxx || dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_NOLOAD) ||
			      access("/usr/lib/x86_64-linux-gnu/libstdc++.so.6", F_OK) == 0 ||
			      access("/usr/lib/aarch64-linux-gnu/libstdc++.so.6", F_OK) == 0;
	if (have_demangler) {
		cr_expect_str_eq(d.name, "perfev::test::mangled(int)");
		cr_expect_not(d.flags & PEV_SYMBOL_MANGLED);
	} else {
		cr_expect_str_eq(d.name, "_ZN6perfev4test7mangledEi");
		cr_expect(d.flags & PEV_SYMBOL_MANGLED);
	}
	cr_expect_eq(d.offset, 1);

	o.flags = PEV_SYMBOLS_NO_DEMANGLE;
	struct pev_symbols *raw = new_symbols(&o);
	cr_assert_eq(pev_symbols_read_process(raw, getpid(), NULL), 0);
	struct pev_symbol r = resolve(raw, getpid(), (uintptr_t)&sym_mangled);
	cr_expect_str_eq(r.name, "_ZN6perfev4test7mangledEi");
	cr_expect(r.flags & PEV_SYMBOL_MANGLED);

	/* A plain C name is never marked. */
	struct pev_symbol c = resolve(raw, getpid(), (uintptr_t)&sym_alpha);
	cr_expect_not(c.flags & PEV_SYMBOL_MANGLED);
	pev_symbols_free(raw);
	pev_symbols_free(s);
}

/* ---- libc and the vDSO ----------------------------------------------------------- */

/*
 * libc's own definitions of its functions: looked up in libc.so.6 itself, not
 * in the global scope, where a sanitizer's interceptors (qsort, ...) in the
 * test binary come first.
 */
Test(symbols, libc_function_with_debuginfo, .init = th_leak_init, .fini = th_leak_fini)
{
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	void *fn;
	struct pev_symbols_opts o = PEV_SYMBOLS_OPTS_INIT;
	/* The debuginfo tree's file, not a copy of it in a build-id cache (searched first). */
	o.buildid_cache = "";
	struct pev_symbols *s = new_symbols(&o);
	unsigned char bid[PEV_BUILD_ID_MAX];
	char hex[2 * PEV_BUILD_ID_MAX + 1], debug[PATH_MAX];
	size_t bid_len;

	cr_assert_not_null(libc, "libc.so.6 is not loaded: %s", dlerror());
	fn = dlsym(libc, "getpid");
	cr_assert_not_null(fn);
	cr_assert_eq(pev_symbols_read_process(s, getpid(), NULL), 0);
	struct pev_symbol g = resolve(s, getpid(), (uintptr_t)fn);
	cr_expect_eq(g.status, PEV_SYMBOL_OK);
	cr_expect(strcmp(g.name, "getpid") == 0 || strcmp(g.name, "__getpid") == 0, "name %s",
		  g.name);
	cr_expect_eq(g.offset, 0);
	cr_assert_not_null(g.dso);
	cr_expect_str_eq(base_name(g.dso), "libc.so.6");

	/* The build id read from the file, and the debuginfo it names. */
	bid_len = file_build_id(g.dso, bid, sizeof(bid));
	cr_assert_gt(bid_len, 1);
	cr_expect_eq(g.build_id_size, bid_len);
	cr_expect(g.build_id && memcmp(g.build_id, bid, bid_len) == 0);
	hex_of(bid, bid_len, hex);
	snprintf(debug, sizeof(debug), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	if (access(debug, R_OK) == 0) {
		cr_expect_str_eq(g.debug_file, debug);
		cr_expect_not_null(g.file);
		cr_expect_gt(g.line, 0);
		cr_expect(g.flags & PEV_SYMBOL_DEBUGINFO);
	} else {
		cr_log_info("no debuginfo at %s: file:line not checked", debug);
	}

	/* Inside a bigger libc function. */
	void *pf = dlsym(libc, "qsort");
	cr_assert_not_null(pf);
	struct pev_symbol q = resolve(s, getpid(), (uintptr_t)pf + 4);
	cr_expect_eq(q.offset, 4);
	cr_expect_eq(q.start, (uintptr_t)pf);
	cr_expect_str_eq(q.dso, g.dso);
	pev_symbols_free(s);
	dlclose(libc);
}

/* The address of symbol `name` in the vDSO mapped into this process, or 0. */
static uint64_t vdso_symbol(const char *name)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
	uint64_t found = 0;

	if (!base)
		return 0;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(base + eh->e_shoff);
	for (int i = 0; i < eh->e_shnum && !found; i++) {
		if (sh[i].sh_type != SHT_DYNSYM)
			continue;
		const Elf64_Sym *sym = (const Elf64_Sym *)(base + sh[i].sh_offset);
		const char *str = (const char *)(base + sh[sh[i].sh_link].sh_offset);
		for (size_t k = 0; k < sh[i].sh_size / sizeof(*sym); k++)
			if (sym[k].st_name && strcmp(str + sym[k].st_name, name) == 0)
				found = base + sym[k].st_value;
	}
	return found;
}

Test(symbols, vdso, .init = th_leak_init, .fini = th_leak_fini)
{
	uint64_t addr = vdso_symbol("__vdso_clock_gettime");
	struct pev_symbols *s = new_symbols(NULL);

	if (!addr)
		th_skip("no vDSO with __vdso_clock_gettime in this process");
	cr_assert_eq(pev_symbols_read_process(s, getpid(), NULL), 0);
	struct pev_symbol v = resolve(s, getpid(), addr + 2);
	cr_expect_eq(v.status, PEV_SYMBOL_OK, "%s", pev_symbol_status_str(v.status));
	cr_expect(strstr(v.name, "clock_gettime") != NULL, "name %s", v.name);
	cr_expect_eq(v.offset, 2);
	cr_expect_str_eq(v.dso, "[vdso]");
	cr_expect(v.flags & PEV_SYMBOL_VDSO);

	/* Fed as a record would: the label "[vdso]" for another pid. */
	uint64_t lo = getauxval(AT_SYSINFO_EHDR);
	cr_assert_eq(pev_symbols_add_mapping(s, 4242, lo, 8192, 0, "[vdso]", NULL, 0), 0);
	struct pev_symbol w = resolve(s, 4242, addr + 2);
	cr_expect_str_eq(w.name, v.name);
	cr_expect(w.flags & PEV_SYMBOL_VDSO);

	/* A vDSO of another build (a recording from another kernel) is not used. */
	static const unsigned char other[20] = {1, 2, 3};
	cr_assert_eq(pev_symbols_add_mapping(s, 4343, lo, 8192, 0, "[vdso]", other, 20), 0);
	struct pev_symbol x = resolve(s, 4343, addr + 2);
	cr_expect_eq(x.status, PEV_SYMBOL_BUILDID_MISMATCH);
	cr_expect_str_eq(x.name, "[unknown]");
	cr_expect_str_eq(x.dso, "[vdso]");
	pev_symbols_free(s);
}

/* ---- the helper programs: PIE and non-PIE, fed and live --------------------------- */

static void helper_fed(const char *name, int want_type)
{
	char exe[PATH_MAX];
	struct helper h;
	struct pev_symbols *s = new_symbols(NULL);

	helper_path(name, exe, sizeof(exe));
	cr_assert_eq(elf_type(exe), want_type, "%s has the wrong ELF type", exe);
	helper_start(exe, &h);
	cr_assert_gt(feed_maps(s, h.pid, h.pid, NULL, NULL, NULL, 0), 3);
	helper_stop(&h);
	/* The process is gone: only what was fed describes it. */
	expect_helper(s, h.pid, &h, exe);
	if (want_type == ET_EXEC)
		cr_expect_lt(h.alpha, 0x10000000, "non-PIE code at its link address");
	pev_symbols_free(s);
}

static void helper_live(const char *name, int want_type)
{
	char exe[PATH_MAX];
	struct helper h;
	struct pev_symbols *s = new_symbols(NULL);
	struct pev_error err;

	helper_path(name, exe, sizeof(exe));
	cr_assert_eq(elf_type(exe), want_type);
	helper_start(exe, &h);
	cr_assert_eq(pev_symbols_read_process(s, h.pid, &err), 0, "%s", err.message);
	expect_helper(s, h.pid, &h, exe);
	helper_stop(&h);
	pev_symbols_free(s);
}

Test(symbols, pie_helper_fed_mappings, .init = th_leak_init, .fini = th_leak_fini)
{
	helper_fed("symbols_helper_pie", ET_DYN);
}

Test(symbols, pie_helper_live_maps, .init = th_leak_init, .fini = th_leak_fini)
{
	helper_live("symbols_helper_pie", ET_DYN);
}

Test(symbols, nopie_helper_fed_mappings, .init = th_leak_init, .fini = th_leak_fini)
{
	helper_fed("symbols_helper_nopie", ET_EXEC);
}

Test(symbols, nopie_helper_live_maps, .init = th_leak_init, .fini = th_leak_fini)
{
	helper_live("symbols_helper_nopie", ET_EXEC);
}

/* Whether ELF file path has a section called name. */
static bool has_section(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool found = false;

	cr_assert_geq(fd, 0, "open %s: %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert_not_null(e, "elf_begin %s", path);
	cr_assert_eq(elf_getshdrstrndx(e, &shstrndx), 0);
	while (!found && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (gelf_getshdr(scn, &sh) && (n = elf_strptr(e, shstrndx, sh.sh_name)))
			found = strcmp(n, name) == 0;
	}
	elf_end(e);
	close(fd);
	return found;
}

/*
 * A program whose DWARF has no .debug_aranges (clang emits none by default;
 * here the PIE helper with the section removed, whatever the compiler):
 * lines and inline frames come from the compile units' own ranges.
 */
Test(symbols, helper_without_aranges, .init = th_leak_init, .fini = th_leak_fini)
{
	char self[PATH_MAX - 64], exe[PATH_MAX];

	self_exe(self, sizeof(self));
	*strrchr(self, '/') = '\0';
	snprintf(exe, sizeof(exe), "%s/symbols_helper_noaranges", self);
	if (access(exe, X_OK) != 0)
		th_skip("%s not built (objcopy was not found when the build was set up)", exe);
	cr_assert(has_section(exe, ".debug_info"), "%s has no DWARF", exe);
	cr_assert_not(has_section(exe, ".debug_aranges"), "%s still has .debug_aranges", exe);
	helper_live("symbols_helper_noaranges", ET_DYN);
	helper_fed("symbols_helper_noaranges", ET_DYN);
}

Test(symbols, proc_flag_reads_maps_on_first_lookup, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_symbols_opts o = PEV_SYMBOLS_OPTS_INIT;
	char exe[PATH_MAX];
	struct helper h;

	o.flags = PEV_SYMBOLS_PROC;
	struct pev_symbols *s = new_symbols(&o);
	helper_path("symbols_helper_pie", exe, sizeof(exe));
	helper_start(exe, &h);
	struct pev_symbol a = resolve(s, h.pid, h.alpha);
	cr_expect_str_eq(a.name, "helper_alpha");
	cr_expect_eq(stats(s).processes, 1);
	helper_stop(&h);

	/* Without the flag an unknown pid stays unknown. */
	struct pev_symbols *plain = new_symbols(NULL);
	struct pev_symbol u = resolve(plain, getpid(), (uintptr_t)&sym_alpha);
	cr_expect_eq(u.status, PEV_SYMBOL_NO_MAPPING);
	cr_expect_str_eq(u.name, "[unknown]");
	cr_expect_null(u.dso);
	pev_symbols_free(plain);
	pev_symbols_free(s);
}

/* ---- caches --------------------------------------------------------------------- */

Test(symbols, caches_open_once_and_hit, .init = th_leak_init, .fini = th_leak_fini)
{
	char exe[PATH_MAX];
	struct pev_symbols *s = new_symbols(NULL);
	struct pev_symbols_stats st;

	run_marks();
	self_exe(exe, sizeof(exe));
	cr_assert_eq(pev_symbols_read_process(s, getpid(), NULL), 0);
	st = stats(s);
	cr_expect_eq(st.dso_opens, 0, "nothing is opened before it is needed");
	cr_expect_gt(st.dsos, 2);
	cr_expect_gt(st.mappings, 5);
	cr_expect_eq(st.processes, 1);

	for (int i = 0; i < 100; i++) {
		struct pev_symbol a = resolve(s, getpid(), alpha_ra - 1);
		cr_assert_str_eq(a.name, "sym_alpha");
	}
	st = stats(s);
	cr_expect_eq(st.lookups, 100);
	cr_expect_eq(st.cache_hits, 99);
	cr_expect_eq(st.dso_opens, 1);

	/* Another process mapping the same file shares the opened DSO and its cache. */
	cr_assert_eq(pev_symbols_fork(s, getpid(), 999001), 0);
	feed_maps(s, getpid(), 999002, NULL, NULL, NULL, 0);
	uint64_t dsos = stats(s).dsos;
	struct pev_symbol f = resolve(s, 999001, alpha_ra - 1);
	struct pev_symbol g = resolve(s, 999002, alpha_ra - 1);
	cr_expect_str_eq(f.name, "sym_alpha");
	cr_expect_str_eq(g.name, "sym_alpha");
	cr_expect_eq(f.name, g.name, "one string for both");
	st = stats(s);
	cr_expect_eq(st.dso_opens, 1);
	cr_expect_eq(st.cache_hits, 101);
	cr_expect_eq(st.dsos, dsos);
	cr_expect_eq(st.processes, 3);

	/* A second address in the same function: looked up, the symbol shared. */
	struct pev_symbol e = resolve(s, getpid(), (uintptr_t)&sym_alpha);
	cr_expect_eq(stats(s).cache_hits, 101);
	cr_expect_eq(e.name, f.name);
	pev_symbols_free(s);

	/* Mappings with and without the recorded build id name one DSO, in either order. */
	unsigned char bid[PEV_BUILD_ID_MAX];
	size_t bid_len = file_build_id(exe, bid, sizeof(bid));
	cr_assert_gt(bid_len, 0);
	for (int with_first = 0; with_first < 2; with_first++) {
		s = new_symbols(NULL);
		feed_maps(s, getpid(), 1001, exe, exe, with_first ? bid : NULL,
			  with_first ? bid_len : 0);
		cr_expect_str_eq(resolve(s, 1001, alpha_ra - 1).name, "sym_alpha");
		dsos = stats(s).dsos;
		feed_maps(s, getpid(), 1002, exe, exe, with_first ? NULL : bid,
			  with_first ? 0 : bid_len);
		cr_expect_str_eq(resolve(s, 1002, alpha_ra - 1).name, "sym_alpha");
		st = stats(s);
		cr_expect_eq(st.dso_opens, 1, "build id given %s", with_first ? "first" : "second");
		cr_expect_eq(st.dsos, dsos);
		cr_expect_eq(st.cache_hits, 1);
		pev_symbols_free(s);
	}
}

/* ---- kernel --------------------------------------------------------------------------- */

/* The address of symbol `name` in /proc/kallsyms as this user sees it, or 0. */
static uint64_t kallsyms_addr(const char *name)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], sym[256], type;
	unsigned long long addr;
	uint64_t found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) == 3 && !strcmp(sym, name) &&
		    (type == 'T' || type == 't'))
			found = addr;
	fclose(f);
	return found;
}

Test(symbols, kernel_symbol_as_root, .init = th_leak_init, .fini = th_leak_fini)
{
	uint64_t sched;
	struct pev_symbols *s;
	struct pev_error err;

	th_require_root();
	sched = kallsyms_addr("schedule");
	if (!sched)
		th_skip("kallsyms shows no address for schedule (kptr_restrict=%ld)",
			     th_sysctl("kptr_restrict"));
	s = new_symbols(NULL);
	struct pev_symbol k = resolve(s, 1, sched);
	cr_expect_eq(k.status, PEV_SYMBOL_OK);
	cr_expect_str_eq(k.name, "schedule");
	cr_expect_eq(k.offset, 0);
	cr_expect_str_eq(k.dso, "[kernel.kallsyms]");
	cr_expect(k.flags & PEV_SYMBOL_KERNEL);
	cr_expect_gt(k.size, 0);

	struct pev_symbol k2 = resolve(s, -1, sched + 3);
	cr_expect_str_eq(k2.name, "schedule");
	cr_expect_eq(k2.offset, 3);
	cr_expect_null(pev_symbols_kernel_message(s));
	cr_expect_eq(pev_symbols_read_kernel(s, &err), 0);
	cr_expect_gt(stats(s).kernel_symbols, 1000);
	pev_symbols_free(s);
}

struct nobody_ctx {
	uint64_t addr;
	int status[2];
	int read_code;
	int warnings;
	char message[2 * PEV_ERROR_MESSAGE_MAX + 16];
	char err_message[PEV_ERROR_MESSAGE_MAX];
	char err_hint[PEV_ERROR_MESSAGE_MAX];
};

static struct nobody_ctx *log_ctx_ptr;

static void count_warnings(enum pev_log_level level, const char *line, void *ctx)
{
	(void)line;
	(void)ctx;
	if (level == PEV_LOG_WARN && strstr(line, "kernel symbols unavailable"))
		log_ctx_ptr->warnings++;
}

static void resolve_kernel_as_nobody(void *arg)
{
	struct nobody_ctx *c = arg;
	struct pev_symbols *s = NULL;
	struct pev_symbol sym = PEV_SYMBOL_INIT;
	struct pev_error err;

	log_ctx_ptr = c;
	pev_set_log(count_warnings, NULL, PEV_LOG_WARN);
	if (pev_symbols_new(NULL, &s, NULL) != 0)
		_exit(3);
	for (int i = 0; i < 2; i++) {
		if (pev_symbols_resolve(s, getpid(), c->addr + (uint64_t)i, &sym) != 0)
			_exit(4);
		c->status[i] = sym.status;
	}
	c->read_code = pev_symbols_read_kernel(s, &err);
	snprintf(c->err_message, sizeof(c->err_message), "%s", err.message);
	snprintf(c->err_hint, sizeof(c->err_hint), "%s", err.hint);
	snprintf(c->message, sizeof(c->message), "%s",
		 pev_symbols_kernel_message(s) ? pev_symbols_kernel_message(s) : "(null)");
	pev_symbols_free(s);
	pev_set_log(NULL, NULL, PEV_LOG_WARN);
}

Test(symbols, kernel_unavailable_as_nobody_said_once)
{
	struct nobody_ctx c = {0};
	long kptr = th_sysctl("kptr_restrict"), paranoid = th_sysctl("perf_event_paranoid");
	char want[64];

	th_require_root();
	if (kptr == 0 && paranoid <= 1)
		th_skip("kptr_restrict=0 and perf_event_paranoid=%ld show nobody the addresses",
			     paranoid);
	c.addr = kallsyms_addr("schedule");
	if (!c.addr)
		c.addr = UINT64_C(0xffffffff81000000);
	cr_assert(th_as_nobody(resolve_kernel_as_nobody, &c, sizeof(c)));
	cr_expect_eq(c.status[0], PEV_SYMBOL_KERNEL_UNAVAILABLE);
	cr_expect_eq(c.status[1], PEV_SYMBOL_KERNEL_UNAVAILABLE);
	cr_expect_eq(c.read_code, PEV_EACCES);
	cr_expect_eq(c.warnings, 1, "said once, not per address: %d", c.warnings);
	snprintf(want, sizeof(want), "kernel symbols unavailable: kptr_restrict=%ld", kptr);
	cr_expect(strncmp(c.message, want, strlen(want)) == 0, "message: %s", c.message);
	expect_has(c.message, "; fix: ");
	expect_has(c.message, "uid 65534");
	expect_has(c.err_message, want);
	expect_has(c.err_hint, kptr == 2 ? "kptr_restrict" : "CAP_SYSLOG");
}

static void write_kallsyms(const char *path)
{
	write_file(path,
		   "ffffffff81000000 T _text\n"
		   "ffffffff81000000 t startup_64\n"
		   "ffffffff81000000 T _stext\n"
		   "ffffffff81000100 t __schedule_local\n"
		   "ffffffff81000100 T schedule\n"
		   "ffffffff81000100 r schedule_rodata\n"
		   "ffffffff81000180 W weak_fn\n"
		   "ffffffff81000200 D some_data\n"
		   "ffffffffc0001000 t mod_func\t[mymod]\n"
		   "ffffffffc0001040 T mod_other\t[mymod]\n"
		   "0000000000000010 A abs_sym\n"
		   "this is not a symbol line\n",
		   "we");
}

Test(symbols, kernel_from_fixture, .init = th_leak_init, .fini = th_leak_fini)
{
	char dir[64], path[128];
	struct pev_symbols_opts o = PEV_SYMBOLS_OPTS_INIT;
	struct pev_symbols *s;

	temp_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	write_kallsyms(path);
	o.kallsyms = path;
	s = new_symbols(&o);
	cr_expect_eq(pev_symbols_read_kernel(s, NULL), 0);
	cr_expect_eq(stats(s).kernel_symbols, 6);

	struct pev_symbol t = resolve(s, 0, UINT64_C(0xffffffff81000000));
	cr_expect_str_eq(t.name, "_stext", "the last listed, as perf");
	struct pev_symbol sc = resolve(s, 0, UINT64_C(0xffffffff81000105));
	cr_expect_str_eq(sc.name, "schedule", "the last listed that perf keeps (not rodata)");
	cr_expect_eq(sc.offset, 5);
	cr_expect_eq(sc.size, 0x80);
	cr_expect_eq(sc.start, UINT64_C(0xffffffff81000100));
	struct pev_symbol w = resolve(s, 0, UINT64_C(0xffffffff81000181));
	cr_expect_str_eq(w.name, "weak_fn");
	struct pev_symbol m = resolve(s, 0, UINT64_C(0xffffffffc0001010));
	cr_expect_str_eq(m.name, "mod_func");
	cr_expect_str_eq(m.dso, "[mymod]");
	cr_expect_eq(m.size, 0x40);
	struct pev_symbol last = resolve(s, 0, UINT64_C(0xffffffffc0001050));
	cr_expect_str_eq(last.name, "mod_other");
	cr_expect_eq(last.offset, 0x10);
	struct pev_symbol far = resolve(s, 0, UINT64_C(0xffffffffc0009000));
	cr_expect_eq(far.status, PEV_SYMBOL_NO_SYMBOL);
	cr_expect_str_eq(far.dso, "[unknown]", "past every symbol no file is known (as perf)");
	struct pev_symbol gap = resolve(s, 0, UINT64_C(0xffffffff81002000));
	cr_expect_eq(gap.status, PEV_SYMBOL_NO_SYMBOL, "the core kernel's last symbol does not reach "
						       "the modules");
	struct pev_symbol below = resolve(s, 0, UINT64_C(0xffffffff80000000));
	cr_expect_eq(below.status, PEV_SYMBOL_NO_SYMBOL);
	cr_expect(below.flags & PEV_SYMBOL_KERNEL);
	cr_expect_null(pev_symbols_kernel_message(s));
	pev_symbols_free(s);
	remove_tree(dir);
}

/*
 * The recording's module mappings (pid -1, perf's records) give each module
 * its extent: past its last listed symbol an address is still the module's,
 * named by that symbol as perf names it; outside every module nothing
 * changes. A module is named by its file ("my-mod.ko.xz" is [my_mod]) or by
 * a "[name]" mapping; the kernel's own mapping names no module.
 */
Test(symbols, kernel_module_extents_from_mappings, .init = th_leak_init, .fini = th_leak_fini)
{
	char dir[64], path[128];
	struct pev_symbols_opts o = PEV_SYMBOLS_OPTS_INIT;
	struct pev_symbols *s;
	const uint64_t mod = UINT64_C(0xffffffffc0001000);

	temp_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	write_kallsyms(path);
	o.kallsyms = path;
	s = new_symbols(&o);
	cr_assert_eq(pev_symbols_add_mapping(s, -1, UINT64_C(0xffffffff81000000), 0x1000000, 0,
					     "[kernel.kallsyms]_text", NULL, 0), 0);
	cr_assert_eq(pev_symbols_add_mapping(s, -1, mod, 0x10000, 0,
					     "/lib/modules/6.1.0/kernel/drivers/mymod.ko.xz", NULL,
					     0), 0);
	cr_assert_eq(pev_symbols_add_mapping(s, -1, UINT64_C(0xffffffffc0020000), 0x2000, 0,
					     "/lib/modules/6.1.0/extra/my-mod.ko", NULL, 0), 0);
	cr_assert_eq(pev_symbols_add_mapping(s, -1, UINT64_C(0xffffffffc0030000), 0x2000, 0,
					     "[loose]", NULL, 0), 0);

	struct pev_symbol far = resolve(s, 0, mod + 0x8000);
	cr_expect_str_eq(far.name, "mod_other", "the module's last symbol runs to its end");
	cr_expect_str_eq(far.dso, "[mymod]");
	cr_expect_eq(far.offset, 0x8000 - 0x40);
	cr_expect_eq(far.size, 0x10000 - 0x40);
	struct pev_symbol first = resolve(s, 0, mod + 0x10);
	cr_expect_str_eq(first.name, "mod_func", "a symbol before the next keeps its size");
	cr_expect_eq(first.size, 0x40);
	struct pev_symbol dashed = resolve(s, 0, UINT64_C(0xffffffffc0020010));
	cr_expect_eq(dashed.status, PEV_SYMBOL_NO_SYMBOL, "no symbol of my_mod is listed");
	cr_expect_str_eq(dashed.dso, "[my_mod]", "the file's '-' is the module name's '_'");
	struct pev_symbol loose = resolve(s, 0, UINT64_C(0xffffffffc0030000));
	cr_expect_str_eq(loose.dso, "[loose]");
	struct pev_symbol out = resolve(s, 0, UINT64_C(0xffffffffc0040000));
	cr_expect_eq(out.status, PEV_SYMBOL_NO_SYMBOL);
	cr_expect_str_eq(out.dso, "[unknown]", "outside every module no file is known");
	struct pev_symbol sc = resolve(s, 0, UINT64_C(0xffffffff81000105));
	cr_expect_str_eq(sc.name, "schedule", "the kernel's mapping changes nothing");
	cr_expect_str_eq(sc.dso, "[kernel.kallsyms]");
	pev_symbols_free(s);
	remove_tree(dir);
}

/* A listing longer than the reader's 64 KiB chunks: 4000 symbols 16 bytes apart, a line too
 * long to be a symbol's, a module listed in two parts, and a last line without '\n'. */
static char *big_kallsyms(void)
{
	size_t cap = 400000, n = 0;
	char *t = malloc(cap);

	cr_assert_not_null(t);
	for (int i = 0; i < 4000; i++) {
		n += (size_t)snprintf(t + n, cap - n, "%016" PRIx64 " t fn_%04d\n",
				      UINT64_C(0xffffffff81000000) + (uint64_t)i * 16, i);
		if (i == 2000) {
			n += (size_t)snprintf(t + n, cap - n, "ffffffff90000000 T ");
			memset(t + n, 'x', 3000);
			n += 3000;
			t[n++] = '\n';
			n += (size_t)snprintf(t + n, cap - n, "ffffffffc0002000 t late_mod\t[m2]\n");
		}
	}
	n += (size_t)snprintf(t + n, cap - n, "ffffffffc0001000 t early_mod\t[m1]\n"
					       "ffffffffc0002040 t late_mod2\t[m2]");
	return t;
}

static void check_big_kallsyms(struct pev_symbols *s)
{
	cr_expect_eq(stats(s).kernel_symbols, 4003);
	struct pev_symbol a = resolve(s, 0, UINT64_C(0xffffffff81000000) + 3999 * 16 + 3);
	cr_expect_str_eq(a.name, "fn_3999");
	cr_expect_eq(a.offset, 3);
	struct pev_symbol b = resolve(s, 0, UINT64_C(0xffffffff81000000) + 2001 * 16);
	cr_expect_str_eq(b.name, "fn_2001", "the symbol after a skipped long line");
	cr_expect_eq(b.size, 16);
	struct pev_symbol again = resolve(s, 0, UINT64_C(0xffffffff81000000) + 2001 * 16 + 1);
	cr_expect_eq(again.name, b.name, "a name is read once and kept");
	struct pev_symbol m = resolve(s, 0, UINT64_C(0xffffffffc0002010));
	cr_expect_str_eq(m.name, "late_mod");
	cr_expect_str_eq(m.dso, "[m2]");
	cr_expect_eq(m.size, 0x40, "a module listed in two parts is one module");
	struct pev_symbol last = resolve(s, 0, UINT64_C(0xffffffffc0002041));
	cr_expect_str_eq(last.name, "late_mod2", "the last line has no newline");
	struct pev_symbol e = resolve(s, 0, UINT64_C(0xffffffffc0001001));
	cr_expect_str_eq(e.dso, "[m1]");
	cr_expect_eq(e.size, 0, "the next symbol is another module's");
}

Test(symbols, kernel_big_file_and_pipe, .init = th_leak_init, .fini = th_leak_fini)
{
	char dir[64], path[128], fdpath[64];
	struct pev_symbols_opts o = PEV_SYMBOLS_OPTS_INIT;
	struct pev_symbols *s;
	char *text = big_kallsyms();
	int p[2];

	/* A regular file: names read back by offset. */
	temp_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	write_file(path, text, "we");
	o.kallsyms = path;
	s = new_symbols(&o);
	cr_expect_eq(pev_symbols_read_kernel(s, NULL), 0);
	check_big_kallsyms(s);
	pev_symbols_free(s);
	remove_tree(dir);

	/* A pipe is refused, not read: only regular files are opened (procfs's
	 * kallsyms is one, of no size; kernel_symbol_as_root reads it). */
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	cr_assert_eq(write(p[1], text, 4096), 4096);
	close(p[1]);
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", p[0]);
	o.kallsyms = fdpath;
	s = new_symbols(&o);
	struct pev_error err = {0};
	cr_expect_lt(pev_symbols_read_kernel(s, &err), 0, "a pipe as kallsyms is refused");
	cr_expect(strstr(err.message, "not a regular file"), "%s", err.message);
	pev_symbols_free(s);
	close(p[0]);
	free(text);
}

/* Resolves one address in each of a FIFO, a link to /dev/zero and a link to a FIFO. */
struct special_ctx {
	char fifo[128], zero[128], via[128];
	int status[3];
	uint64_t opens;
};

static void resolve_specials(void *arg)
{
	struct special_ctx *c = arg;
	struct pev_symbols *s = NULL;
	const char *paths[3] = {c->fifo, c->zero, c->via};

	alarm(20); /* a blocking open fails the test instead of hanging it */
	if (pev_symbols_new(NULL, &s, NULL) != 0)
		_exit(3);
	for (int i = 0; i < 3; i++) {
		struct pev_symbol sym = PEV_SYMBOL_INIT;
		uint64_t at = UINT64_C(0x10000) * (uint64_t)(i + 1);

		if (pev_symbols_add_mapping(s, 4321, at, 0x1000, 0, paths[i], NULL, 0) != 0 ||
		    pev_symbols_resolve(s, 4321, at + 0x10, &sym) != 0)
			_exit(4);
		c->status[i] = sym.status;
	}
	c->opens = stats(s).dso_opens;
	pev_symbols_free(s);
}

Test(symbols, fifo_and_device_never_opened)
{
	char dir[64];
	struct special_ctx c = {.status = {-1, -1, -1}, .opens = 99};

	temp_dir(dir, sizeof(dir));
	snprintf(c.fifo, sizeof(c.fifo), "%s/libfifo.so", dir);
	snprintf(c.zero, sizeof(c.zero), "%s/libzero.so", dir);
	snprintf(c.via, sizeof(c.via), "%s/libvia.so", dir);
	cr_assert_eq(mkfifo(c.fifo, 0644), 0, "mkfifo: %s", strerror(errno));
	cr_assert_eq(symlink("/dev/zero", c.zero), 0);
	cr_assert_eq(symlink(c.fifo, c.via), 0);
	cr_assert(th_in_child(resolve_specials, &c, sizeof(c)),
		  "resolving in a FIFO or device must not block");
	for (int i = 0; i < 3; i++)
		cr_expect_eq(c.status[i], PEV_SYMBOL_NOT_ELF, "path %d: status %d", i, c.status[i]);
	cr_expect_eq(c.opens, 0);
	remove_tree(dir);
}

static int fixture_warnings;

static void count_fixture_warnings(enum pev_log_level level, const char *line, void *ctx)
{
	(void)ctx;
	if (level == PEV_LOG_WARN && strstr(line, "kernel symbols unavailable"))
		fixture_warnings++;
}

Test(symbols, kernel_hidden_addresses_fixture, .init = th_leak_init, .fini = th_leak_fini)
{
	char dir[64], path[128];
	struct pev_symbols_opts o = PEV_SYMBOLS_OPTS_INIT;
	struct pev_error err;
	struct pev_symbols *s;

	temp_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	write_file(path,
		   "0000000000000000 T _text\n0000000000000000 T schedule\n"
		   "0000000000000000 t mod_func\t[mymod]\n",
		   "we");
	o.kallsyms = path;
	s = new_symbols(&o);
	fixture_warnings = 0;
	pev_set_log(count_fixture_warnings, NULL, PEV_LOG_WARN);
	for (int i = 0; i < 5; i++) {
		struct pev_symbol k = resolve(s, 0, UINT64_C(0xffffffff81000000) + (uint64_t)i);
		cr_expect_eq(k.status, PEV_SYMBOL_KERNEL_UNAVAILABLE);
		cr_expect_str_eq(k.name, "[unknown]");
		cr_expect_str_eq(k.dso, "[kernel.kallsyms]");
	}
	cr_expect_eq(pev_symbols_read_kernel(s, &err), PEV_EACCES);
	pev_set_log(NULL, NULL, PEV_LOG_WARN);
	cr_expect_eq(fixture_warnings, 1);
	expect_has(err.message, "kernel symbols unavailable: kptr_restrict=");
	cr_expect_neq(err.hint[0], '\0');
	cr_assert_not_null(pev_symbols_kernel_message(s));
	expect_has(pev_symbols_kernel_message(s), "; fix: ");
	cr_expect_eq(stats(s).kernel_symbols, 0);
	cr_expect_eq(stats(s).unknown, 5);
	pev_symbols_free(s);

	/* No file at all. */
	snprintf(path, sizeof(path), "%s/none", dir);
	s = new_symbols(&o);
	cr_expect_eq(pev_symbols_read_kernel(s, &err), PEV_ENOENT);
	expect_has(err.message, "cannot read");
	pev_symbols_free(s);

	/* Turned off: no file read, no warning. */
	o.flags = PEV_SYMBOLS_NO_KERNEL;
	fixture_warnings = 0;
	pev_set_log(count_fixture_warnings, NULL, PEV_LOG_WARN);
	s = new_symbols(&o);
	struct pev_symbol off = resolve(s, 0, UINT64_C(0xffffffff81000000));
	cr_expect_eq(off.status, PEV_SYMBOL_KERNEL_UNAVAILABLE);
	cr_expect_eq(pev_symbols_read_kernel(s, NULL), PEV_EUNSUPPORTED);
	pev_set_log(NULL, NULL, PEV_LOG_WARN);
	cr_expect_eq(fixture_warnings, 0);
	pev_symbols_free(s);
	remove_tree(dir);
}

/* ---- JIT maps ---------------------------------------------------------------------------- */

Test(symbols, jit_map, .init = th_leak_init, .fini = th_leak_fini)
{
	char dir[64], path[128];
	struct pev_symbols_opts o = PEV_SYMBOLS_OPTS_INIT;
	struct pev_symbols *s;
	const int32_t pid = 777001;

	temp_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/perf-%d.map", dir, (int)pid);
	write_file(path,
		   "7f0000001000 100 LazyCompile:*first app.js:10\n"
		   "7f0000002040 10 jit_stale\n"
		   "0x7f0000002000 0x80 jit_second\n"
		   "7f0000001000 10 jit_replaced\n"
		   "not a line\n"
		   "7f0000003000 0 zero_size\n",
		   "we");
	o.jit_dir = dir;
	s = new_symbols(&o);
	cr_assert_eq(pev_symbols_add_mapping(s, pid, UINT64_C(0x7f0000001000), 0x4000, 0, "//anon",
					     NULL, 0),
		     0);

	struct pev_symbol a = resolve(s, pid, UINT64_C(0x7f0000001005));
	cr_expect_eq(a.status, PEV_SYMBOL_OK);
	cr_expect_str_eq(a.name, "jit_replaced", "the later line wins");
	cr_expect_eq(a.offset, 5);
	cr_expect_str_eq(a.dso, path);
	cr_expect(a.flags & PEV_SYMBOL_JIT);
	struct pev_symbol b = resolve(s, pid, UINT64_C(0x7f0000001050));
	cr_expect_str_eq(b.name, "LazyCompile:*first app.js:10");
	cr_expect_eq(b.offset, 0x50);
	cr_expect_eq(b.size, 0x100);
	struct pev_symbol c = resolve(s, pid, UINT64_C(0x7f000000207f));
	cr_expect_str_eq(c.name, "jit_second");
	struct pev_symbol st = resolve(s, pid, UINT64_C(0x7f0000002045));
	cr_expect_str_eq(st.name, "jit_second", "a later, wider entry covers the stale one");
	struct pev_symbol gap = resolve(s, pid, UINT64_C(0x7f0000003010));
	cr_expect_eq(gap.status, PEV_SYMBOL_ANON);
	cr_expect_str_eq(gap.dso, path, "anonymous code is the JIT map's (perf's [JIT] tid PID)");
	cr_expect_eq(stats(s).jit_reads, 1);

	/* The JIT appends: a miss reads the new part; half a line waits. */
	write_file(path, "7f0000003000 40 jit_late\n7f0000004000 10 jit_partial", "ae");
	struct pev_symbol late = resolve(s, pid, UINT64_C(0x7f0000003010));
	cr_expect_str_eq(late.name, "jit_late");
	struct pev_symbol part = resolve(s, pid, UINT64_C(0x7f0000004001));
	cr_expect_eq(part.status, PEV_SYMBOL_ANON);
	write_file(path, "\n", "ae");
	part = resolve(s, pid, UINT64_C(0x7f0000004001));
	cr_expect_str_eq(part.name, "jit_partial");
	cr_expect_eq(stats(s).jit_reads, 3);
	cr_expect_str_eq(a.name, "jit_replaced", "earlier results stay valid");

	/* No mapping known at all: the JIT map still names the code. */
	struct pev_symbol nm = resolve(s, pid, UINT64_C(0x7f0000002010));
	cr_expect_str_eq(nm.name, "jit_second");
	struct pev_symbol none = resolve(s, 777002, UINT64_C(0x7f0000002010));
	cr_expect_eq(none.status, PEV_SYMBOL_NO_MAPPING);
	pev_symbols_free(s);
	remove_tree(dir);
}

static int jit_skips;
static char jit_skip_line[512];

static void count_jit_skips(enum pev_log_level level, const char *line, void *ctx)
{
	(void)ctx;
	if (level == PEV_LOG_WARN && strstr(line, "JIT map")) {
		jit_skips++;
		snprintf(jit_skip_line, sizeof(jit_skip_line), "%s", line);
	}
}

/* Resolves 0x7f0000001005 in pid's JIT map under dir with a new symbolizer. */
static struct pev_symbol jit_lookup(const char *dir, int32_t pid)
{
	struct pev_symbols_opts o = PEV_SYMBOLS_OPTS_INIT;
	struct pev_symbols *s;

	o.jit_dir = dir;
	s = new_symbols(&o);
	cr_assert_eq(pev_symbols_add_mapping(s, pid, UINT64_C(0x7f0000001000), 0x4000, 0, "//anon",
					     NULL, 0),
		     0);
	struct pev_symbol a = resolve(s, pid, UINT64_C(0x7f0000001005));
	struct pev_symbol b = resolve(s, pid, UINT64_C(0x7f0000001006));
	cr_expect_eq(a.status, b.status, "asked again, the same answer");
	pev_symbols_free(s);
	return a; /* only its status may be read: the names went with s */
}

Test(symbols, jit_map_only_from_its_owner_or_root, .init = th_leak_init, .fini = th_leak_fini)
{
	char dir[64], path[128];
	const int32_t pid = 777003;

	th_require_root();
	temp_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/perf-%d.map", dir, (int)pid);
	write_file(path, "7f0000001000 100 jit_planted\n", "we");
	cr_assert_eq(chmod(path, 0644), 0);
	pev_set_log(count_jit_skips, NULL, PEV_LOG_WARN);

	/* Another user's map: not read, and said once. */
	cr_assert_eq(chown(path, 65534, 65534), 0, "chown: %s", strerror(errno));
	jit_skips = 0;
	struct pev_symbol a = jit_lookup(dir, pid);
	cr_expect_eq(a.status, PEV_SYMBOL_ANON, "a map owned by nobody is not used");
	cr_expect_eq(jit_skips, 1, "the skip is logged once");
	cr_expect(strstr(jit_skip_line, path) && strstr(jit_skip_line, "owned by another user"),
		  "%s", jit_skip_line);

	/* Root's own, but writable by others: not read either. */
	cr_assert_eq(chown(path, 0, 0), 0);
	cr_assert_eq(chmod(path, 0666), 0);
	jit_skips = 0;
	cr_expect_eq(jit_lookup(dir, pid).status, PEV_SYMBOL_ANON);
	cr_expect_eq(jit_skips, 1);
	cr_expect(strstr(jit_skip_line, "writable by group or others"), "%s", jit_skip_line);

	/* Root's, 0644: used. */
	cr_assert_eq(chmod(path, 0644), 0);
	jit_skips = 0;
	cr_expect_eq(jit_lookup(dir, pid).status, PEV_SYMBOL_OK, "root's map is used");
	cr_expect_eq(jit_skips, 0);
	pev_set_log(NULL, NULL, PEV_LOG_WARN);
	remove_tree(dir);
}

/* ---- build ids and missing files ---------------------------------------------------------- */

Test(symbols, build_id_mismatch_detected, .init = th_leak_init, .fini = th_leak_fini)
{
	char exe[PATH_MAX], other[PATH_MAX], dir[64], copy[128], dbg[512], cache[512], hex[200];
	unsigned char bid[PEV_BUILD_ID_MAX], bid2[PEV_BUILD_ID_MAX];
	size_t bid_len;
	struct helper h;
	const int32_t pid = 555001;

	helper_path("symbols_helper_nopie", exe, sizeof(exe));
	helper_path("symbols_helper_pie", other, sizeof(other));
	temp_dir(dir, sizeof(dir));
	snprintf(copy, sizeof(copy), "%s/prog", dir);
	copy_file(exe, copy, 0755);
	bid_len = file_build_id(copy, bid, sizeof(bid));
	cr_assert_gt(bid_len, 0);
	cr_assert_neq(file_build_id(other, bid2, sizeof(bid2)), 0);
	cr_assert_neq(memcmp(bid, bid2, bid_len), 0, "the two helpers must differ");
	helper_start(exe, &h);

	/* Recorded build id and file agree: used. */
	struct pev_symbols *s = new_symbols(NULL);
	feed_maps(s, h.pid, pid, exe, copy, bid, bid_len);
	struct pev_symbol ok = resolve(s, pid, h.alpha);
	cr_expect_eq(ok.status, PEV_SYMBOL_OK);
	cr_expect_str_eq(ok.name, "helper_alpha");
	cr_expect_str_eq(ok.dso, copy);
	cr_expect_not(ok.flags & PEV_SYMBOL_BY_BUILD_ID);
	pev_symbols_free(s);

	/* The file at the path is now another build: reported, not used. */
	copy_file(other, copy, 0755);
	s = new_symbols(NULL);
	feed_maps(s, h.pid, pid, exe, copy, bid, bid_len);
	struct pev_symbol mis = resolve(s, pid, h.alpha);
	cr_expect_eq(mis.status, PEV_SYMBOL_BUILDID_MISMATCH);
	cr_expect_str_eq(mis.name, "[unknown]");
	cr_expect_str_eq(mis.dso, copy);
	cr_expect_str_eq(pev_symbol_status_str(mis.status), "build id mismatch");
	/* Without a recorded build id nothing can tell: the file is used. */
	struct pev_symbols *blind = new_symbols(NULL);
	feed_maps(blind, h.pid, pid, exe, copy, NULL, 0);
	struct pev_symbol b = resolve(blind, pid, h.alpha);
	cr_expect_neq(b.status, PEV_SYMBOL_BUILDID_MISMATCH);
	pev_symbols_free(blind);
	pev_symbols_free(s);

	/* Debuginfo with the recorded build id is preferred over the wrong file. */
	struct pev_symbols_opts o = PEV_SYMBOLS_OPTS_INIT;
	hex_of(bid, bid_len, hex);
	snprintf(dbg, sizeof(dbg), "%s/debug/.build-id/%.2s", dir, hex);
	mkdirs(dbg);
	snprintf(dbg, sizeof(dbg), "%s/debug/.build-id/%.2s/%s.debug", dir, hex, hex + 2);
	copy_file(exe, dbg, 0644);
	snprintf(dbg, sizeof(dbg), "%s/debug", dir);
	o.debug_dir = dbg;
	o.buildid_cache = "";
	s = new_symbols(&o);
	feed_maps(s, h.pid, pid, exe, copy, bid, bid_len);
	struct pev_symbol byid = resolve(s, pid, h.alpha_ra - 1);
	cr_expect_eq(byid.status, PEV_SYMBOL_OK, "%s", pev_symbol_status_str(byid.status));
	cr_expect_str_eq(byid.name, "helper_alpha");
	cr_expect_eq(byid.offset, h.alpha_ra - 1 - h.alpha);
	cr_expect(byid.flags & PEV_SYMBOL_BY_BUILD_ID);
	cr_expect_eq(byid.build_id_size, bid_len);
	cr_expect(byid.build_id && memcmp(byid.build_id, bid, bid_len) == 0);
	pev_symbols_free(s);

	/* So is a copy in perf's build-id cache. */
	struct pev_symbols_opts o2 = PEV_SYMBOLS_OPTS_INIT;
	snprintf(cache, sizeof(cache), "%s/cache/.build-id/%.2s/%s", dir, hex, hex + 2);
	mkdirs(cache);
	snprintf(cache, sizeof(cache), "%s/cache/.build-id/%.2s/%s/elf", dir, hex, hex + 2);
	copy_file(exe, cache, 0755);
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	o2.buildid_cache = cache;
	o2.debug_dir = "/nonexistent";
	s = new_symbols(&o2);
	feed_maps(s, h.pid, pid, exe, copy, bid, bid_len);
	struct pev_symbol cached = resolve(s, pid, h.alpha);
	cr_expect_str_eq(cached.name, "helper_alpha");
	cr_expect(cached.flags & PEV_SYMBOL_BY_BUILD_ID);
	pev_symbols_free(s);

	helper_stop(&h);
	remove_tree(dir);
}

/* Runs a shell command line; asserts it succeeds. */
static void sh(const char *cmd)
{
	cr_assert_eq(system(cmd), 0, "failed: %s", cmd);
}

/*
 * Separate debuginfo found by .gnu_debuglink name: beside the file, in .debug/
 * beside it and under the debug directory followed by the file's directory
 * (the build-id paths hold nothing here), without debuginfod.
 */
Test(symbols, debuginfo_by_debuglink, .init = th_leak_init, .fini = th_leak_fini)
{
	char exe[PATH_MAX], dir[64], bin[128], prog[160], cmd[3 * PATH_MAX], dbg[512];
	const char *place[] = {"%s/bin/prog.dbg", "%s/bin/.debug/prog.dbg", "%s/debug%s/bin/prog.dbg"};
	struct helper h;
	const int32_t pid = 555002;

	if (access("/usr/bin/objcopy", X_OK) != 0)
		th_skip("objcopy is not installed: no file to strip");
	helper_path("symbols_helper_pie", exe, sizeof(exe));
	temp_dir(dir, sizeof(dir));
	snprintf(bin, sizeof(bin), "%s/bin", dir);
	mkdirs(bin);
	snprintf(prog, sizeof(prog), "%s/prog", bin);
	/* prog: symbols without DWARF, and a link to prog.dbg: the DWARF only. */
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && objcopy --only-keep-debug '%s' prog.dbg && "
		 "objcopy --strip-debug --add-gnu-debuglink=prog.dbg '%s' prog && rm prog.dbg",
		 bin, exe, exe);
	sh(cmd);
	helper_start(exe, &h);
	for (size_t i = 0; i < sizeof(place) / sizeof(place[0]); i++) {
		struct pev_symbols_opts o = PEV_SYMBOLS_OPTS_INIT;
		char debug[128], at[512];

		snprintf(debug, sizeof(debug), "%s/debug", dir);
		o.debug_dir = debug;
		o.buildid_cache = "";
		if (i == 2)
			snprintf(at, sizeof(at), place[i], dir, dir);
		else
			snprintf(at, sizeof(at), place[i], dir);
		snprintf(dbg, sizeof(dbg), "%s", at);
		*strrchr(dbg, '/') = '\0';
		mkdirs(dbg);
		snprintf(cmd, sizeof(cmd), "objcopy --only-keep-debug '%s' '%s'", exe, at);
		sh(cmd);
		struct pev_symbols *s = new_symbols(&o);
		feed_maps(s, h.pid, pid, exe, prog, NULL, 0);
		struct pev_symbol mid = resolve(s, pid, h.alpha_ra - 1);
		cr_expect_str_eq(mid.name, "helper_alpha", "debuginfo at %s", at);
		cr_expect_eq(mid.line, (unsigned)h.alpha_line, "debuginfo at %s", at);
		cr_expect(mid.file && strcmp(base_name(mid.file), "symbols_helper.c") == 0,
			  "debuginfo at %s: file %s", at, mid.file ? mid.file : "(none)");
		pev_symbols_free(s);
		cr_assert_eq(unlink(at), 0);
	}
	/* Nowhere: the symbol still, no line. */
	struct pev_symbols_opts o = PEV_SYMBOLS_OPTS_INIT;
	o.debug_dir = "/nonexistent";
	o.buildid_cache = "";
	struct pev_symbols *s = new_symbols(&o);
	feed_maps(s, h.pid, pid, exe, prog, NULL, 0);
	struct pev_symbol bare = resolve(s, pid, h.alpha_ra - 1);
	cr_expect_str_eq(bare.name, "helper_alpha");
	cr_expect_eq(bare.line, 0);
	pev_symbols_free(s);
	helper_stop(&h);
	remove_tree(dir);
}

/*
 * A stripped file at its path, with the right build id, takes its symbols
 * and DWARF from perf's build-id cache: the unstripped build cached as elf
 * (before the file was stripped), or a debug file cached as debug. A cached
 * elf that is the stripped file itself (perf hard-links its copies) is
 * passed over for the debug directory. PERF_BUILDID_DIR names the cache.
 */
Test(symbols, stripped_file_symbols_from_the_build_id_cache, .init = th_leak_init,
     .fini = th_leak_fini)
{
	char exe[PATH_MAX], dir[64], prog[128], cmd[3 * PATH_MAX], entry[512], file[600], hex[129];
	unsigned char bid[64];
	size_t bid_len;
	struct helper h;
	const int32_t pid = 555003;

	if (access("/usr/bin/objcopy", X_OK) != 0)
		th_skip("objcopy is not installed: no file to strip");
	helper_path("symbols_helper_pie", exe, sizeof(exe));
	temp_dir(dir, sizeof(dir));
	snprintf(prog, sizeof(prog), "%s/prog", dir);
	snprintf(cmd, sizeof(cmd), "objcopy --strip-all '%s' '%s'", exe, prog);
	sh(cmd);
	bid_len = file_build_id(prog, bid, sizeof(bid));
	cr_assert_gt(bid_len, 0);
	hex_of(bid, bid_len, hex);
	snprintf(entry, sizeof(entry), "%s/cache/.build-id/%.2s/%s", dir, hex, hex + 2);
	mkdirs(entry);
	helper_start(exe, &h);

	/* Nothing cached: the stripped file names nothing. */
	struct pev_symbols_opts o = PEV_SYMBOLS_OPTS_INIT;
	char cache[128], debug[128];
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	snprintf(debug, sizeof(debug), "%s/debug", dir);
	o.buildid_cache = cache;
	o.debug_dir = debug;
	struct pev_symbols *s = new_symbols(&o);
	feed_maps(s, h.pid, pid, exe, prog, bid, bid_len);
	struct pev_symbol bare = resolve(s, pid, h.alpha_ra - 1);
	cr_expect_str_neq(bare.name, "helper_alpha");
	pev_symbols_free(s);

	/* The unstripped build as elf, and a debug file as debug: each names it, with its line. */
	const char *kinds[2] = {"elf", "debug"};
	for (int k = 0; k < 2; k++) {
		snprintf(file, sizeof(file), "%s/%s", entry, kinds[k]);
		if (k == 0)
			copy_file(exe, file, 0755);
		else {
			snprintf(cmd, sizeof(cmd), "objcopy --only-keep-debug '%s' '%s'", exe, file);
			sh(cmd);
		}
		s = new_symbols(&o);
		feed_maps(s, h.pid, pid, exe, prog, bid, bid_len);
		struct pev_symbol got = resolve(s, pid, h.alpha_ra - 1);
		cr_expect_str_eq(got.name, "helper_alpha", "cached %s", kinds[k]);
		cr_expect_eq(got.line, (unsigned)h.alpha_line, "cached %s", kinds[k]);
		cr_expect_str_eq(got.dso, prog);
		cr_expect(got.debug_file && strcmp(got.debug_file, file) == 0, "debug file %s",
			  got.debug_file ? got.debug_file : "(none)");
		pev_symbols_free(s);
		cr_assert_eq(unlink(file), 0);
	}

	/* The cached elf is the stripped file (a hard link): the debug directory comes next. */
	snprintf(file, sizeof(file), "%s/elf", entry);
	cr_assert_eq(link(prog, file), 0);
	snprintf(entry, sizeof(entry), "%s/debug/.build-id/%.2s", dir, hex);
	mkdirs(entry);
	snprintf(cmd, sizeof(cmd), "objcopy --only-keep-debug '%s' '%s/%s.debug'", exe, entry,
		 hex + 2);
	sh(cmd);
	s = new_symbols(&o);
	feed_maps(s, h.pid, pid, exe, prog, bid, bid_len);
	struct pev_symbol dd = resolve(s, pid, h.alpha_ra - 1);
	cr_expect_str_eq(dd.name, "helper_alpha");
	cr_expect(dd.debug_file && strstr(dd.debug_file, "/debug/.build-id/"), "debug file %s",
		  dd.debug_file ? dd.debug_file : "(none)");
	pev_symbols_free(s);

	/* The file is gone and the cache holds only its debug file: symbols without code. */
	char gone[128];
	snprintf(gone, sizeof(gone), "%s/gone", dir);
	snprintf(entry, sizeof(entry), "%s/cache/.build-id/%.2s/%s", dir, hex, hex + 2);
	snprintf(file, sizeof(file), "%s/elf", entry);
	cr_assert_eq(unlink(file), 0);
	snprintf(file, sizeof(file), "%s/debug", entry);
	snprintf(cmd, sizeof(cmd), "objcopy --only-keep-debug '%s' '%s'", exe, file);
	sh(cmd);
	struct pev_symbols_opts o3 = o;
	o3.debug_dir = "/nonexistent";
	s = new_symbols(&o3);
	feed_maps(s, h.pid, pid, exe, gone, bid, bid_len);
	struct pev_symbol dbg_only = resolve(s, pid, h.alpha_ra - 1);
	cr_expect_str_eq(dbg_only.name, "helper_alpha");
	cr_expect(dbg_only.flags & PEV_SYMBOL_BY_BUILD_ID);
	cr_expect_str_eq(dbg_only.dso, gone);
	pev_symbols_free(s);

	/* PERF_BUILDID_DIR and PERFEV_DEBUG_DIR stand for the options left NULL. */
	setenv("PERF_BUILDID_DIR", cache, 1);
	setenv("PERFEV_DEBUG_DIR", debug, 1);
	s = new_symbols(NULL);
	feed_maps(s, h.pid, pid, exe, prog, bid, bid_len);
	struct pev_symbol env = resolve(s, pid, h.alpha_ra - 1);
	cr_expect_str_eq(env.name, "helper_alpha");
	pev_symbols_free(s);
	unsetenv("PERFEV_DEBUG_DIR");
	helper_stop(&h);
	remove_tree(dir);
}

Test(symbols, missing_and_bad_files_give_unknown, .init = th_leak_init, .fini = th_leak_fini)
{
	char dir[64], text[128], empty[128];
	struct pev_symbols *s = new_symbols(NULL);
	const int32_t pid = 666001;

	temp_dir(dir, sizeof(dir));
	snprintf(text, sizeof(text), "%s/notelf.so", dir);
	write_file(text, "this is not an ELF file\n", "we");
	snprintf(empty, sizeof(empty), "%s/empty.so", dir);
	write_file(empty, "", "we");
	cr_assert_eq(pev_symbols_add_mapping(s, pid, 0x10000, 0x1000, 0, "/nonexistent/libx.so",
					     NULL, 0),
		     0);
	cr_assert_eq(pev_symbols_add_mapping(s, pid, 0x20000, 0x1000, 0, text, NULL, 0), 0);
	cr_assert_eq(pev_symbols_add_mapping(s, pid, 0x30000, 0x1000, 0, empty, NULL, 0), 0);
	cr_assert_eq(pev_symbols_add_mapping(s, pid, 0x40000, 0x1000, 0, dir, NULL, 0), 0);

	struct pev_symbol m = resolve(s, pid, 0x10010);
	cr_expect_eq(m.status, PEV_SYMBOL_DSO_MISSING);
	cr_expect_str_eq(m.name, "[unknown]");
	cr_expect_str_eq(m.dso, "/nonexistent/libx.so");
	struct pev_symbol n = resolve(s, pid, 0x20010);
	cr_expect_eq(n.status, PEV_SYMBOL_NOT_ELF);
	cr_expect_str_eq(n.dso, text);
	cr_expect_eq(resolve(s, pid, 0x30010).status, PEV_SYMBOL_NOT_ELF);
	cr_expect_eq(resolve(s, pid, 0x40010).status, PEV_SYMBOL_NOT_ELF, "a directory");
	/* Asked again: the answer comes without opening anything again. */
	cr_expect_eq(resolve(s, pid, 0x10020).status, PEV_SYMBOL_DSO_MISSING);
	cr_expect_eq(stats(s).dso_opens, 0);
	cr_expect_eq(stats(s).unknown, 5);
	pev_symbols_free(s);
	remove_tree(dir);
}

struct unreadable_ctx {
	char path[128];
	int status;
};

static void resolve_unreadable(void *arg)
{
	struct unreadable_ctx *c = arg;
	struct pev_symbols *s = NULL;
	struct pev_symbol sym = PEV_SYMBOL_INIT;

	if (pev_symbols_new(NULL, &s, NULL) != 0 ||
	    pev_symbols_add_mapping(s, 1234, 0x10000, 0x1000, 0, c->path, NULL, 0) != 0 ||
	    pev_symbols_resolve(s, 1234, 0x10010, &sym) != 0)
		_exit(3);
	c->status = sym.status;
	pev_symbols_free(s);
}

Test(symbols, unreadable_file_as_nobody)
{
	char exe[PATH_MAX], dir[64];
	struct unreadable_ctx c = {.status = -1};

	th_require_root();
	helper_path("symbols_helper_pie", exe, sizeof(exe));
	temp_dir(dir, sizeof(dir));
	cr_assert_eq(chmod(dir, 0755), 0);
	snprintf(c.path, sizeof(c.path), "%s/private", dir);
	copy_file(exe, c.path, 0600);
	cr_assert(th_as_nobody(resolve_unreadable, &c, sizeof(c)));
	cr_expect_eq(c.status, PEV_SYMBOL_DSO_UNREADABLE);
	remove_tree(dir);
}

/* ---- address spaces --------------------------------------------------------------------- */

Test(symbols, mappings_overlap_like_mmap, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_symbols *s = new_symbols(NULL);
	const int32_t pid = 321;

	/* A missing file still tells where the address is in it (dso_addr = file offset). */
	cr_assert_eq(pev_symbols_add_mapping(s, pid, 0x10000, 0x10000, 0x1000, "/nonexistent/a.so",
					     NULL, 0),
		     0);
	cr_expect_eq(resolve(s, pid, 0x10010).dso_addr, 0x1010);
	cr_expect_eq(stats(s).mappings, 1);

	/* Anonymous memory in the middle splits it; the tail keeps its file offset. */
	cr_assert_eq(pev_symbols_add_mapping(s, pid, 0x14000, 0x1000, 0, "//anon", NULL, 0), 0);
	cr_expect_eq(stats(s).mappings, 3);
	struct pev_symbol an = resolve(s, pid, 0x14010);
	cr_expect_eq(an.status, PEV_SYMBOL_ANON);
	/* As perf: code in anonymous memory is the JIT map's, file or not. */
	cr_expect(strstr(an.dso, "/perf-321.map") != NULL, "%s", an.dso);
	struct pev_symbol tail = resolve(s, pid, 0x15010);
	cr_expect_str_eq(tail.dso, "/nonexistent/a.so");
	cr_expect_eq(tail.dso_addr, 0x6010);
	cr_expect_eq(resolve(s, pid, 0x13ff0).dso_addr, 0x4ff0);

	/* Over the head of the first one. */
	cr_assert_eq(pev_symbols_add_mapping(s, pid, 0xf000, 0x2000, 0, "/nonexistent/b.so", NULL,
					     0),
		     0);
	cr_expect_eq(stats(s).mappings, 4);
	struct pev_symbol hb = resolve(s, pid, 0x10010);
	cr_expect_str_eq(hb.dso, "/nonexistent/b.so");
	cr_expect_eq(hb.dso_addr, 0x1010);
	struct pev_symbol ha = resolve(s, pid, 0x11010);
	cr_expect_str_eq(ha.dso, "/nonexistent/a.so");
	cr_expect_eq(ha.dso_addr, 0x2010);

	/* Exactly over the anonymous one, then over everything. */
	cr_assert_eq(pev_symbols_add_mapping(s, pid, 0x14000, 0x1000, 0, "[heap]", NULL, 0), 0);
	cr_expect_eq(stats(s).mappings, 4);
	cr_expect(strstr(resolve(s, pid, 0x14010).dso, "/perf-321.map") != NULL);
	cr_assert_eq(pev_symbols_add_mapping(s, pid, 0, 0x100000, 0x7000, "/nonexistent/c.so", NULL,
					     0),
		     0);
	cr_expect_eq(stats(s).mappings, 1);
	struct pev_symbol c = resolve(s, pid, 0x14010);
	cr_expect_str_eq(c.dso, "/nonexistent/c.so");
	cr_expect_eq(c.dso_addr, 0x7000 + 0x14010);

	struct pev_symbol none = resolve(s, pid, 0x200000);
	cr_expect_eq(none.status, PEV_SYMBOL_NO_MAPPING);
	cr_expect_null(none.dso);

	/* A deleted file is looked for under its name; memfd code is anonymous. */
	cr_assert_eq(pev_symbols_add_mapping(s, pid, 0x300000, 0x1000, 0,
					     "/nonexistent/d.so (deleted)", NULL, 0),
		     0);
	cr_expect_str_eq(resolve(s, pid, 0x300010).dso, "/nonexistent/d.so");
	cr_assert_eq(pev_symbols_add_mapping(s, pid, 0x400000, 0x1000, 0, "/memfd:jit (deleted)",
					     NULL, 0),
		     0);
	cr_expect_eq(resolve(s, pid, 0x400010).status, PEV_SYMBOL_ANON);

	/* Kernel mappings are accepted and not needed. */
	cr_expect_eq(pev_symbols_add_mapping(s, -1, UINT64_C(0xffffffff81000000), 0x1000000, 0,
					     "[kernel.kallsyms]_text", NULL, 0),
		     0);
	pev_symbols_free(s);
}

Test(symbols, fork_exec_exit, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_symbols *s = new_symbols(NULL);

	cr_assert_eq(pev_symbols_add_mapping(s, 100, 0x10000, 0x1000, 0, "/nonexistent/p", NULL, 0),
		     0);
	cr_assert_eq(pev_symbols_fork(s, 100, 101), 0);
	cr_assert_eq(pev_symbols_fork(s, 100, 100), 0, "a new thread: nothing to do");
	cr_expect_str_eq(resolve(s, 101, 0x10010).dso, "/nonexistent/p");
	cr_expect_eq(stats(s).processes, 2);
	cr_expect_eq(stats(s).mappings, 2);

	/* The child's new mappings are its own. */
	cr_assert_eq(pev_symbols_add_mapping(s, 101, 0x10000, 0x1000, 0, "/nonexistent/q", NULL, 0),
		     0);
	cr_expect_str_eq(resolve(s, 100, 0x10010).dso, "/nonexistent/p");
	cr_expect_str_eq(resolve(s, 101, 0x10010).dso, "/nonexistent/q");

	/*
	 * An exec keeps the old mappings until the new program's replace them,
	 * as perf: execve's own page faults still return to the old program.
	 */
	cr_assert_eq(pev_symbols_exec(s, 101), 0);
	cr_expect_str_eq(resolve(s, 101, 0x10010).dso, "/nonexistent/q");
	cr_assert_eq(pev_symbols_add_mapping(s, 101, 0x10000, 0x800, 0, "/nonexistent/r", NULL, 0),
		     0);
	cr_expect_str_eq(resolve(s, 101, 0x10010).dso, "/nonexistent/r");
	cr_expect_str_eq(resolve(s, 101, 0x10810).dso, "/nonexistent/q", "the rest of the old one");
	cr_expect_str_eq(resolve(s, 100, 0x10010).dso, "/nonexistent/p");

	cr_assert_eq(pev_symbols_exit(s, 100), 0);
	cr_expect_eq(resolve(s, 100, 0x10010).status, PEV_SYMBOL_NO_MAPPING);
	cr_expect_eq(stats(s).processes, 1);
	cr_assert_eq(pev_symbols_exit(s, 100), 0, "twice is harmless");
	cr_assert_eq(pev_symbols_exec(s, 12345), 0, "an unknown pid is harmless");

	/* A fork from an unknown parent starts empty. */
	cr_assert_eq(pev_symbols_fork(s, 4000, 4001), 0);
	cr_expect_eq(resolve(s, 4001, 0x10010).status, PEV_SYMBOL_NO_MAPPING);
	pev_symbols_free(s);
}

/*
 * The address space is the process's: it lives while a thread of it runs,
 * and goes with the last one (issue 21: a main thread that calls
 * pthread_exit left its worker's samples without symbols).
 */
Test(symbols, address_space_outlives_main_thread, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_symbols *s = new_symbols(NULL);

	cr_assert_eq(pev_symbols_add_mapping(s, 100, 0x10000, 0x1000, 0, "/nonexistent/p", NULL, 0),
		     0);
	cr_assert_eq(pev_symbols_thread(s, 100, 100), 0);
	cr_assert_eq(pev_symbols_thread(s, 100, 101), 0);
	cr_assert_eq(pev_symbols_thread(s, 100, 101), 0, "twice counts once");
	cr_expect_eq(pev_symbols_exit_thread(s, 100, 100), 0, "the main thread leaves first");
	cr_expect_str_eq(resolve(s, 100, 0x10010).dso, "/nonexistent/p");
	cr_expect_eq(pev_symbols_exit_thread(s, 100, 101), 1, "the last thread");
	cr_expect_eq(resolve(s, 100, 0x10010).status, PEV_SYMBOL_NO_MAPPING);
	cr_expect_eq(stats(s).processes, 0);

	/* Workers that leave before the main thread do not end the process. */
	cr_assert_eq(pev_symbols_add_mapping(s, 200, 0x10000, 0x1000, 0, "/nonexistent/p", NULL, 0),
		     0);
	cr_assert_eq(pev_symbols_thread(s, 200, 201), 0);
	cr_expect_eq(pev_symbols_exit_thread(s, 200, 201), 0);
	cr_expect_str_eq(resolve(s, 200, 0x10010).dso, "/nonexistent/p");
	cr_expect_eq(pev_symbols_exit_thread(s, 200, 200), 1, "nothing else known to run");
	cr_expect_eq(stats(s).processes, 0);

	/* A process no thread was named for ends with its first thread, not another's. */
	cr_assert_eq(pev_symbols_add_mapping(s, 300, 0x10000, 0x1000, 0, "/nonexistent/p", NULL, 0),
		     0);
	cr_expect_eq(pev_symbols_exit_thread(s, 300, 301), 0);
	cr_expect_eq(stats(s).processes, 1);
	cr_expect_eq(pev_symbols_exit_thread(s, 300, 300), 1);

	/* An exec leaves one thread: those counted before it are forgotten. */
	cr_assert_eq(pev_symbols_thread(s, 400, 400), 0);
	cr_assert_eq(pev_symbols_thread(s, 400, 401), 0);
	cr_assert_eq(pev_symbols_exec(s, 400), 0);
	cr_assert_eq(pev_symbols_thread(s, 400, 400), 0);
	cr_assert_eq(pev_symbols_add_mapping(s, 400, 0x10000, 0x1000, 0, "/nonexistent/q", NULL, 0),
		     0);
	cr_expect_eq(pev_symbols_exit_thread(s, 400, 400), 1, "thread 401 went at the exec");

	/* So does a new process under the pid of one whose threads were not all seen to exit. */
	cr_assert_eq(pev_symbols_thread(s, 500, 501), 0);
	cr_assert_eq(pev_symbols_fork(s, 100, 500), 0);
	cr_assert_eq(pev_symbols_thread(s, 500, 500), 0);
	cr_expect_eq(pev_symbols_exit_thread(s, 500, 500), 1);

	cr_expect_eq(pev_symbols_thread(s, -1, 1), PEV_EBADARG);
	cr_expect_eq(pev_symbols_exit_thread(s, 1, -1), PEV_EBADARG);
	pev_symbols_free(s);
}

/* ---- arguments, sizes, formatting ---------------------------------------------------------- */

Test(symbols, bad_arguments, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_symbols *s = new_symbols(NULL);
	struct pev_symbol sym = PEV_SYMBOL_INIT;
	struct pev_error err;
	struct {
		struct pev_symbols_opts o;
		char newer[8];
	} big = {.o = PEV_SYMBOLS_OPTS_INIT};
	struct pev_symbols *none = NULL;
	struct pev_symbols_opts bad = PEV_SYMBOLS_OPTS_INIT;

	cr_expect_eq(pev_symbols_new(NULL, NULL, &err), PEV_EBADARG);
	expect_has(err.message, "pev_symbols_new");
	bad.sz = 0;
	cr_expect_eq(pev_symbols_new(&bad, &none, &err), PEV_EBADARG);
	expect_has(err.message, "PEV_SYMBOLS_OPTS_INIT");
	cr_expect_null(none);
	bad = (struct pev_symbols_opts)PEV_SYMBOLS_OPTS_INIT;
	bad.flags = 1u << 30;
	cr_expect_eq(pev_symbols_new(&bad, &none, &err), PEV_EBADARG);
	/* A newer caller's struct: zero tail accepted, a set field refused. */
	big.o.sz = sizeof(big);
	cr_expect_eq(pev_symbols_new(&big.o, &none, NULL), 0);
	pev_symbols_free(none);
	big.newer[3] = 1;
	cr_expect_eq(pev_symbols_new(&big.o, &none, &err), PEV_EBADARG);
	expect_has(err.message, "upgrade libperfev");
	/* An older caller's struct: fields past its sz are defaults. */
	struct pev_symbols_opts old = PEV_SYMBOLS_OPTS_INIT;
	old.sz = offsetof(struct pev_symbols_opts, kallsyms);
	old.kallsyms = "/nonexistent";
	cr_expect_eq(pev_symbols_new(&old, &none, NULL), 0);
	pev_symbols_free(none);

	cr_expect_eq(pev_symbols_resolve(NULL, 1, 0x1000, &sym), PEV_EBADARG);
	cr_expect_eq(pev_symbols_resolve(s, 1, 0x1000, NULL), PEV_EBADARG);
	sym.sz = 4;
	cr_expect_eq(pev_symbols_resolve(s, 1, 0x1000, &sym), PEV_EBADARG);
	cr_expect_eq(pev_symbols_add_mapping(NULL, 1, 0x1000, 0x1000, 0, "/x", NULL, 0), PEV_EBADARG);
	cr_expect_eq(pev_symbols_add_mapping(s, 1, 0x1000, 0x1000, 0, NULL, NULL, 0), PEV_EBADARG);
	cr_expect_eq(pev_symbols_add_mapping(s, 1, 0x1000, 0, 0, "/x", NULL, 0), PEV_EBADARG);
	cr_expect_eq(pev_symbols_add_mapping(s, 1, UINT64_MAX - 5, 0x1000, 0, "/x", NULL, 0),
		     PEV_EBADARG);
	cr_expect_eq(pev_symbols_add_mapping(s, 1, 0x1000, 0x1000, 0, "/x", NULL, 4), PEV_EBADARG);
	unsigned char huge[PEV_BUILD_ID_MAX + 1] = {0};
	cr_expect_eq(pev_symbols_add_mapping(s, 1, 0x1000, 0x1000, 0, "/x", huge, sizeof(huge)),
		     PEV_EBADARG);
	cr_expect_eq(pev_symbols_read_process(NULL, 1, NULL), PEV_EBADARG);
	cr_expect_eq(pev_symbols_read_process(s, 0, &err), PEV_EBADARG);
	expect_has(err.message, "pid");
	cr_expect_eq(pev_symbols_read_process(s, th_reaped_pid(), &err), PEV_ESRCH);
	expect_has(err.message, "no process");
	cr_expect_eq(pev_symbols_fork(NULL, 1, 2), PEV_EBADARG);
	cr_expect_eq(pev_symbols_exec(NULL, 1), PEV_EBADARG);
	cr_expect_eq(pev_symbols_exit(NULL, 1), PEV_EBADARG);
	cr_expect_eq(pev_symbols_thread(NULL, 1, 1), PEV_EBADARG);
	cr_expect_eq(pev_symbols_exit_thread(NULL, 1, 1), PEV_EBADARG);
	cr_expect_eq(pev_symbols_read_kernel(NULL, NULL), PEV_EBADARG);
	cr_expect_eq(pev_symbols_stats(NULL, NULL), PEV_EBADARG);
	cr_expect_null(pev_symbols_kernel_message(NULL));
	cr_expect_eq(pev_symbol_format(NULL, NULL, 0), PEV_EBADARG);
	pev_symbols_free(NULL);
	pev_symbols_free(s);
}

Test(symbols, result_size_honoured, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_symbols *s = new_symbols(NULL);
	union {
		struct pev_symbol sym;
		unsigned char bytes[sizeof(struct pev_symbol)];
	} u;
	size_t small = offsetof(struct pev_symbol, dso);

	cr_assert_eq(pev_symbols_read_process(s, getpid(), NULL), 0);
	memset(&u, 0xa5, sizeof(u));
	u.sym.sz = small;
	cr_assert_eq(pev_symbols_resolve(s, getpid(), (uintptr_t)&sym_alpha, &u.sym), 0);
	cr_expect_str_eq(u.sym.name, "sym_alpha");
	cr_expect_eq(u.sym.offset, 0);
	cr_expect_eq(u.sym.sz, small);
	for (size_t i = small; i < sizeof(u); i++)
		cr_assert_eq(u.bytes[i], 0xa5, "byte %zu past sz written", i);

	struct pev_symbols_stats st;
	memset(&st, 0xa5, sizeof(st));
	st.sz = offsetof(struct pev_symbols_stats, unknown);
	cr_assert_eq(pev_symbols_stats(s, &st), 0);
	cr_expect_eq(st.lookups, 1);
	cr_expect_eq(st.unknown, UINT64_C(0xa5a5a5a5a5a5a5a5));
	pev_symbols_free(s);
}

Test(symbols, format_and_status_text, .init = th_leak_init, .fini = th_leak_fini)
{
	char exe[PATH_MAX], buf[PATH_MAX + 256], want[PATH_MAX + 256], tiny[8];
	struct pev_symbols *s = new_symbols(NULL);
	int n;

	run_marks();
	self_exe(exe, sizeof(exe));
	cr_assert_eq(pev_symbols_read_process(s, getpid(), NULL), 0);
	struct pev_symbol a = resolve(s, getpid(), alpha_ra - 1);
	cr_assert_not_null(a.file, "no source file for sym_alpha+%#" PRIx64, a.offset);
	n = pev_symbol_format(&a, buf, sizeof(buf));
	snprintf(want, sizeof(want), "sym_alpha+0x%" PRIx64 " (%s) %s:%d", a.offset, exe, a.file,
		 alpha_line);
	cr_expect_str_eq(buf, want);
	cr_expect_eq(n, (int)strlen(want));
	cr_expect_eq(pev_symbol_format(&a, tiny, sizeof(tiny)), n, "the length it needs");
	cr_expect_str_eq(tiny, "sym_alp");
	cr_expect_eq(pev_symbol_format(&a, NULL, 0), n);

	cr_assert_eq(pev_symbols_add_mapping(s, 77, 0x1000, 0x1000, 0, "/nonexistent/z.so", NULL, 0),
		     0);
	struct pev_symbol m = resolve(s, 77, 0x1010);
	pev_symbol_format(&m, buf, sizeof(buf));
	cr_expect_str_eq(buf, "[unknown] (/nonexistent/z.so: file not found)");
	struct pev_symbol none = resolve(s, 77, 0x9000);
	pev_symbol_format(&none, buf, sizeof(buf));
	cr_expect_str_eq(buf, "[unknown] (no mapping holds the address)");

	for (int st = PEV_SYMBOL_OK; st <= PEV_SYMBOL_KERNEL_UNAVAILABLE; st++) {
		const char *t = pev_symbol_status_str((enum pev_symbol_status)st);
		cr_expect(t && t[0] && strcmp(t, "unknown status") != 0, "status %d", st);
	}
	cr_expect_str_eq(pev_symbol_status_str((enum pev_symbol_status)99), "unknown status");
	pev_symbols_free(s);
}
