/* SPDX-License-Identifier: MIT */
/*
 * test_uprobe_resolve.c - pev_uprobe_resolve: function name -> file offset.
 *
 * Real files: this PIE test binary (checked against /proc/self/maps) and the
 * C library (checked against dlsym + maps, versioned names included), a
 * stripped copy, files that are not ELF. A synthetic non-PIE executable
 * (ET_EXEC, two segments with different address-to-offset deltas) built here
 * byte by byte covers the symbol kinds, versions, duplicates, addresses no
 * segment loads, and damaged or truncated headers. One live test puts a
 * uprobe on a function of this binary and counts its calls.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "perfev.h"

/* ---- the functions probed ----------------------------------------------- */

int uprobe_target(int x);
int uprobe_other_target(int x);

__attribute__((noinline, used)) int uprobe_target(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 3 + 1;
}

__attribute__((noinline, used)) int uprobe_other_target(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 5 + 2;
}

/* Called through a volatile pointer so the compiler keeps every call. */
static int (*volatile target_fn)(int) = uprobe_target;

/* ---- helpers -------------------------------------------------------------- */

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* The path of this executable. */
static void self_path(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);

	cr_assert_gt(n, 0, "readlink /proc/self/exe: %s", strerror(errno));
	buf[n] = '\0';
}

/*
 * Finds the mapping of this process that holds addr: its start, its file
 * offset and its path. Returns false when there is none.
 */
static bool maps_lookup(uintptr_t addr, uint64_t *start, uint64_t *pgoff, char *path,
			size_t size)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[4096];
	bool found = false;

	cr_assert(f, "fopen /proc/self/maps: %s", strerror(errno));
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off;
		int pos = 0;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &lo, &hi, &off, &pos) < 3)
			continue;
		if (addr < lo || addr >= hi)
			continue;
		*start = lo;
		*pgoff = off;
		line[strcspn(line, "\n")] = '\0';
		snprintf(path, size, "%s", pos > 0 ? line + pos : "");
		found = true;
	}
	fclose(f);
	return found;
}

/* The offset a uprobe on the function at addr needs, from /proc/self/maps. */
static uint64_t expected_offset(const void *addr, char *path, size_t size)
{
	uint64_t start = 0, pgoff = 0;

	cr_assert(maps_lookup((uintptr_t)addr, &start, &pgoff, path, size),
		  "no mapping holds %p", addr);
	return (uintptr_t)addr - start + pgoff;
}

static char *read_whole(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rbe");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	cr_assert(f, "fopen %s: %s", path, strerror(errno));
	do {
		if (n == cap) {
			cap = cap ? cap * 2 : 1 << 16;
			buf = realloc(buf, cap);
			cr_assert(buf);
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	fclose(f);
	*len = n;
	return buf;
}

static void write_whole(const char *path, const void *buf, size_t len)
{
	/* A new file, not a truncated one: ext4 flushes files rewritten with O_TRUNC
	 * at close (auto_da_alloc), which makes the loops below crawl. */
	unlink(path);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	cr_assert_geq(fd, 0, "open %s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, buf, len), (ssize_t)len, "write %s", path);
	close(fd);
}

/* A fresh temporary directory, in buf. */
static void tmpdir_new(char *buf, size_t size)
{
	snprintf(buf, size, "/tmp/pev-uprobe-XXXXXX");
	cr_assert(mkdtemp(buf), "mkdtemp: %s", strerror(errno));
}

/* Removes a temporary directory and the plain files in it. */
static void tmpdir_remove(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[PATH_MAX];

	if (!d)
		return;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	closedir(d);
	rmdir(dir);
}

/* ---- a synthetic non-PIE executable --------------------------------------- */

#define SYN_BASE 0x400000ULL   /* first segment: file 0 at this address */
#define SYN_TEXT_OFF 0x1000U   /* .text in the file */
#define SYN_TEXT_SIZE 0x100U
#define SYN_DATA_OFF 0x2000U   /* .data in the file */
#define SYN_DATA_ADDR 0x602000ULL
#define SYN_DATA_SIZE 0x10U

struct syn_sym {
	const char *name;
	uint64_t value;
	int type, bind;
	uint16_t shndx;
};

/* Locals first (sh_info = index of the first global). */
static const struct syn_sym syn_syms[] = {
	{"dup", 0x401050, STT_FUNC, STB_LOCAL, 1},
	{"func_a", 0x401020, STT_FUNC, STB_GLOBAL, 1},
	{"label_b", 0x401040, STT_NOTYPE, STB_GLOBAL, 1},
	{"data_c", 0x602008, STT_NOTYPE, STB_GLOBAL, 2},
	{"obj_d", 0x602000, STT_OBJECT, STB_GLOBAL, 2},
	{"dup", 0x401060, STT_FUNC, STB_GLOBAL, 1},
	{"ver_f@VERS_1", 0x401070, STT_FUNC, STB_GLOBAL, 1},
	{"ver_f@@VERS_2", 0x401080, STT_FUNC, STB_GLOBAL, 1},
	{"undef_e", 0, STT_FUNC, STB_GLOBAL, SHN_UNDEF},
	{"ifunc_g", 0x401090, STT_GNU_IFUNC, STB_GLOBAL, 1},
	{"ghost", 0x500000, STT_FUNC, STB_GLOBAL, 1},
	{"bss_h", 0x602800, STT_FUNC, STB_GLOBAL, 2},
	{"weak_i", 0x4010a0, STT_FUNC, STB_WEAK, 1},
};
#define SYN_NSYMS (ARRAY_LEN(syn_syms) + 1)

/* Where the builder put things, for the tests that damage them. */
struct syn_layout {
	size_t size;
	size_t symtab_off, strtab_off, shstrtab_off, shdr_off;
	size_t func_a_sym; /* byte offset of func_a's Elf64_Sym */
};

/* The section headers, by index. */
enum { SYN_SH_NULL, SYN_SH_TEXT, SYN_SH_DATA, SYN_SH_SYMTAB, SYN_SH_STRTAB, SYN_SH_SHSTRTAB, SYN_NSH };

/* Builds the synthetic executable in a malloc'ed buffer. */
static unsigned char *syn_build(struct syn_layout *lay)
{
	static const char shstr[] = "\0.text\0.data\0.symtab\0.strtab\0.shstrtab";
	unsigned char *img;
	char strtab[512] = "";
	size_t strlen_ = 1, off;
	Elf64_Ehdr eh;
	Elf64_Phdr ph[2];
	Elf64_Shdr sh[SYN_NSH];
	Elf64_Sym syms[SYN_NSYMS];

	memset(syms, 0, sizeof(syms));
	for (size_t i = 0; i < ARRAY_LEN(syn_syms); i++) {
		const struct syn_sym *s = &syn_syms[i];
		size_t n = strlen(s->name) + 1;

		syms[i + 1].st_name = (Elf64_Word)strlen_;
		memcpy(strtab + strlen_, s->name, n);
		strlen_ += n;
		syms[i + 1].st_info = (unsigned char)ELF64_ST_INFO(s->bind, s->type);
		syms[i + 1].st_shndx = s->shndx;
		syms[i + 1].st_value = s->value;
		syms[i + 1].st_size = 8;
	}

	lay->symtab_off = SYN_DATA_OFF + SYN_DATA_SIZE;
	lay->strtab_off = lay->symtab_off + sizeof(syms);
	lay->shstrtab_off = lay->strtab_off + strlen_;
	lay->shdr_off = (lay->shstrtab_off + sizeof(shstr) + 7) & ~(size_t)7;
	lay->size = lay->shdr_off + sizeof(sh);
	lay->func_a_sym = lay->symtab_off + 2 * sizeof(Elf64_Sym);

	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_entry = 0x401020;
	eh.e_phoff = sizeof(eh);
	eh.e_shoff = lay->shdr_off;
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = 2;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = SYN_NSH;
	eh.e_shstrndx = SYN_SH_SHSTRTAB;

	memset(ph, 0, sizeof(ph));
	ph[0].p_type = PT_LOAD;
	ph[0].p_flags = PF_R | PF_X;
	ph[0].p_offset = 0;
	ph[0].p_vaddr = ph[0].p_paddr = SYN_BASE;
	ph[0].p_filesz = ph[0].p_memsz = SYN_TEXT_OFF + SYN_TEXT_SIZE;
	ph[0].p_align = 0x1000;
	ph[1].p_type = PT_LOAD;
	ph[1].p_flags = PF_R | PF_W;
	ph[1].p_offset = SYN_DATA_OFF;
	ph[1].p_vaddr = ph[1].p_paddr = SYN_DATA_ADDR;
	ph[1].p_filesz = SYN_DATA_SIZE;
	ph[1].p_memsz = 0x1000; /* the rest is bss: not in the file */
	ph[1].p_align = 0x1000;

	memset(sh, 0, sizeof(sh));
	sh[SYN_SH_TEXT] = (Elf64_Shdr){.sh_name = 1, .sh_type = SHT_PROGBITS,
				       .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
				       .sh_addr = SYN_BASE + SYN_TEXT_OFF, .sh_offset = SYN_TEXT_OFF,
				       .sh_size = SYN_TEXT_SIZE, .sh_addralign = 16};
	sh[SYN_SH_DATA] = (Elf64_Shdr){.sh_name = 7, .sh_type = SHT_PROGBITS,
				       .sh_flags = SHF_ALLOC | SHF_WRITE, .sh_addr = SYN_DATA_ADDR,
				       .sh_offset = SYN_DATA_OFF, .sh_size = SYN_DATA_SIZE,
				       .sh_addralign = 8};
	sh[SYN_SH_SYMTAB] = (Elf64_Shdr){.sh_name = 13, .sh_type = SHT_SYMTAB,
					 .sh_offset = lay->symtab_off, .sh_size = sizeof(syms),
					 .sh_link = SYN_SH_STRTAB, .sh_info = 2, .sh_addralign = 8,
					 .sh_entsize = sizeof(Elf64_Sym)};
	sh[SYN_SH_STRTAB] = (Elf64_Shdr){.sh_name = 21, .sh_type = SHT_STRTAB,
					 .sh_offset = lay->strtab_off, .sh_size = strlen_,
					 .sh_addralign = 1};
	sh[SYN_SH_SHSTRTAB] = (Elf64_Shdr){.sh_name = 29, .sh_type = SHT_STRTAB,
					   .sh_offset = lay->shstrtab_off, .sh_size = sizeof(shstr),
					   .sh_addralign = 1};

	img = calloc(1, lay->size);
	cr_assert(img);
	memcpy(img, &eh, sizeof(eh));
	memcpy(img + eh.e_phoff, ph, sizeof(ph));
	memset(img + SYN_TEXT_OFF, 0xc3, SYN_TEXT_SIZE);
	memcpy(img + lay->symtab_off, syms, sizeof(syms));
	memcpy(img + lay->strtab_off, strtab, strlen_);
	memcpy(img + lay->shstrtab_off, shstr, sizeof(shstr));
	off = lay->shdr_off;
	memcpy(img + off, sh, sizeof(sh));
	return img;
}

/* The synthetic executable, written to dir/name; its path goes to path. */
static void syn_write(const char *dir, const char *name, const unsigned char *img, size_t len,
		      char *path, size_t size)
{
	snprintf(path, size, "%s/%s", dir, name);
	write_whole(path, img, len);
}

/* Resolves symbol in the file at path; returns the code, with err filled. */
static int resolve(const char *path, const char *symbol, uint64_t *off, struct pev_error *err)
{
	*off = UINT64_MAX;
	memset(err, 0, sizeof(*err));
	return pev_uprobe_resolve(path, symbol, off, err);
}

/* ---- this PIE executable ---------------------------------------------------- */

Test(uprobe_resolve, pie_executable_offsets_match_proc_maps, .init = th_leak_init,
     .fini = th_leak_fini)
{
	char exe[PATH_MAX], mapped[PATH_MAX];
	struct pev_error err;
	uint64_t off;

	self_path(exe, sizeof(exe));
	uint64_t want = expected_offset((const void *)(uintptr_t)&uprobe_target, mapped,
					sizeof(mapped));
	cr_expect_str_eq(mapped, exe);
	cr_assert_eq(resolve(exe, "uprobe_target", &off, &err), 0, "%s", err.message);
	cr_expect_eq(off, want, "offset 0x%" PRIx64 ", maps say 0x%" PRIx64, off, want);

	want = expected_offset((const void *)(uintptr_t)&uprobe_other_target, mapped,
			       sizeof(mapped));
	cr_assert_eq(resolve("/proc/self/exe", "uprobe_other_target", &off, &err), 0, "%s",
		     err.message);
	cr_expect_eq(off, want, "offset 0x%" PRIx64 ", maps say 0x%" PRIx64, off, want);

	/* A global function from another object file (the test helpers). */
	want = expected_offset((const void *)(uintptr_t)&th_leak_init, mapped, sizeof(mapped));
	cr_assert_eq(resolve(exe, "th_leak_init", &off, &err), 0, "%s", err.message);
	cr_expect_eq(off, want);
}

Test(uprobe_resolve, this_binary_is_pie, .init = th_leak_init, .fini = th_leak_fini)
{
	char exe[PATH_MAX];
	Elf64_Ehdr eh;
	int fd;

	self_path(exe, sizeof(exe));
	fd = open(exe, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert_eq(read(fd, &eh, sizeof(eh)), (ssize_t)sizeof(eh));
	close(fd);
	/* The PIE case is only covered when the toolchain builds PIE (Debian's does). */
	if (eh.e_type != ET_DYN)
		th_skip("the test binary is not PIE (e_type %u)", eh.e_type);
	cr_expect_eq(eh.e_type, ET_DYN);
}

/* ---- the C library (.dynsym, versions) -------------------------------------- */

/* Checks that name resolves in the library holding dlsym(name) to what maps say. */
static void check_libc_function(const char *name)
{
	char lib[PATH_MAX];
	struct pev_error err;
	uint64_t off;
	void *addr = dlsym(RTLD_DEFAULT, name);

	cr_assert(addr, "dlsym %s: %s", name, dlerror());
	uint64_t want = expected_offset(addr, lib, sizeof(lib));
	cr_assert(lib[0] == '/', "%s is not in a file mapping", name);
	cr_assert_eq(resolve(lib, name, &off, &err), 0, "%s: %s", name, err.message);
	cr_expect_eq(off, want, "%s in %s: 0x%" PRIx64 ", maps say 0x%" PRIx64, name, lib, off,
		     want);
}

/* The path of the C library this process uses. */
static void libc_path(char *buf, size_t size)
{
	void *addr = dlsym(RTLD_DEFAULT, "getpid");

	cr_assert(addr);
	expected_offset(addr, buf, size);
	cr_assert(buf[0] == '/');
}

Test(uprobe_resolve, shared_library_offsets_match_dlsym, .init = th_leak_init,
     .fini = th_leak_fini)
{
	check_libc_function("getpid");
	check_libc_function("malloc");
	check_libc_function("getenv");
}

Test(uprobe_resolve, versioned_names, .init = th_leak_init, .fini = th_leak_fini)
{
	char lib[PATH_MAX];
	struct pev_error err;
	uint64_t plain, v;
#if defined(__x86_64__)
	const char *ver = "GLIBC_2.2.5";
#elif defined(__aarch64__)
	const char *ver = "GLIBC_2.17";
#else
	const char *ver = NULL;
#endif
	char name[64];

	if (!ver)
		th_skip("no known glibc base version for this architecture");
	libc_path(lib, sizeof(lib));
	cr_assert_eq(resolve(lib, "malloc", &plain, &err), 0, "%s", err.message);

	snprintf(name, sizeof(name), "malloc@@%s", ver);
	cr_expect_eq(resolve(lib, name, &v, &err), 0, "%s: %s", name, err.message);
	cr_expect_eq(v, plain, "%s", name);
	snprintf(name, sizeof(name), "malloc@%s", ver);
	cr_expect_eq(resolve(lib, name, &v, &err), 0, "%s: %s", name, err.message);
	cr_expect_eq(v, plain, "%s", name);

	/* A version the library does not have names the ones it has. */
	cr_expect_eq(resolve(lib, "malloc@@GLIBC_9.99", &v, &err), PEV_ENOTFOUND);
	expect_has(err.message, "no function 'malloc@@GLIBC_9.99'");
	expect_has(err.hint, ver);

#if defined(__x86_64__)
	/* memcpy has two: the old one (hidden, GLIBC_2.2.5) and the default (GLIBC_2.14). */
	uint64_t def, old;
	cr_assert_eq(resolve(lib, "memcpy", &def, &err), 0, "%s", err.message);
	cr_expect_eq(resolve(lib, "memcpy@@GLIBC_2.14", &v, &err), 0, "%s", err.message);
	cr_expect_eq(v, def);
	cr_expect_eq(resolve(lib, "memcpy@GLIBC_2.14", &v, &err), 0, "%s", err.message);
	cr_expect_eq(v, def);
	cr_expect_eq(resolve(lib, "memcpy@GLIBC_2.2.5", &old, &err), 0, "%s", err.message);
	cr_expect_neq(old, def, "the compat memcpy is a different function");
	/* "@@" asks for the default version, which 2.2.5 is not. */
	cr_expect_eq(resolve(lib, "memcpy@@GLIBC_2.2.5", &v, &err), PEV_ENOTFOUND);
	expect_has(err.hint, "@@GLIBC_2.14");
	expect_has(err.hint, "@GLIBC_2.2.5");
#endif
}

/* ---- not found --------------------------------------------------------------- */

Test(uprobe_resolve, misspelled_name_suggests_close_ones, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_error err;
	uint64_t off;

	cr_assert_eq(resolve("/proc/self/exe", "uprobe_targte", &off, &err), PEV_ENOTFOUND);
	cr_expect_eq(err.code, PEV_ENOTFOUND);
	cr_expect_eq(off, UINT64_MAX, "offset untouched on failure");
	cr_expect_str_eq(err.field, "symbol");
	expect_has(err.message, "no function 'uprobe_targte' in /proc/self/exe");
	expect_has(err.hint, "'uprobe_target'");
	expect_lacks(err.hint, "uprobe_other_target");
	expect_lacks(err.hint, "stripped");

	/* Far from everything: no suggestion. */
	cr_assert_eq(resolve("/proc/self/exe", "zzzzqqqqxxxxwwww", &off, &err), PEV_ENOTFOUND);
	expect_lacks(err.hint, "did you mean");

	/* An offset is the caller's job. */
	cr_assert_eq(resolve("/proc/self/exe", "uprobe_target+0x10", &off, &err), PEV_ENOTFOUND);
	expect_has(err.hint, "'uprobe_target'");
	expect_has(err.hint, "+0x10");

	/* Works without a struct pev_error too. */
	cr_expect_eq(pev_uprobe_resolve("/proc/self/exe", "uprobe_targte", &off, NULL),
		     PEV_ENOTFOUND);
}

Test(uprobe_resolve, imported_function_is_not_defined_here, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_error err;
	uint64_t off;

	/* This binary calls getpid but the C library defines it (malloc would not do:
	 * a sanitizer build defines its own). */
	cr_assert_gt(getpid(), 0);
	cr_assert_eq(resolve("/proc/self/exe", "getpid", &off, &err), PEV_ENOTFOUND);
	expect_has(err.message, "imported");
	expect_has(err.hint, "ldd");
}

Test(uprobe_resolve, stripped_binary, .init = th_leak_init, .fini = th_leak_fini)
{
	char exe[PATH_MAX], dir[64], copy[PATH_MAX];
	struct pev_error err;
	uint64_t off;
	const char *strip = access("/usr/bin/strip", X_OK) == 0 ? "/usr/bin/strip"
			    : access("/usr/bin/objcopy", X_OK) == 0 ? "/usr/bin/objcopy"
								     : NULL;

	if (!strip)
		th_skip("neither strip nor objcopy is installed");
	self_path(exe, sizeof(exe));
	tmpdir_new(dir, sizeof(dir));
	snprintf(copy, sizeof(copy), "%s/stripped", dir);
	char *argv[] = {(char *)strip, (char *)"--strip-all", exe, (char *)"-o", copy, NULL};
	if (strcmp(strip, "/usr/bin/objcopy") == 0) {
		argv[3] = copy;
		argv[4] = NULL;
	}
	int status = th_run(argv, false, NULL, NULL);
	cr_expect_eq(status, 0, "%s failed", strip);

	cr_expect_eq(resolve(copy, "uprobe_target", &off, &err), PEV_ENOTFOUND);
	expect_has(err.message, "no function 'uprobe_target'");
	expect_has(err.hint, "stripped");
	expect_has(err.hint, "offset");
	tmpdir_remove(dir);
}

/* ---- files that are not what they should be ------------------------------------ */

Test(uprobe_resolve, not_an_elf_file, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_error err;
	uint64_t off;

	cr_expect_eq(resolve("/etc/passwd", "main", &off, &err), PEV_EFORMAT);
	expect_has(err.message, "/etc/passwd is not an ELF file");
	cr_expect_str_eq(err.field, "path");
}

Test(uprobe_resolve, missing_file, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_error err;
	uint64_t off;

	cr_expect_eq(resolve("/nonexistent/pev-no-such-file", "main", &off, &err), PEV_ENOENT);
	cr_expect_eq(err.sys_errno, ENOENT);
	cr_expect_str_eq(err.syscall, "open");
	expect_has(err.message, "/nonexistent/pev-no-such-file");
	cr_expect_neq(err.hint[0], '\0');
	/* A path through a regular file is no file either. */
	cr_expect_eq(resolve("/etc/passwd/x", "main", &off, &err), PEV_ENOENT);
	cr_expect_eq(err.sys_errno, ENOTDIR);
}

Test(uprobe_resolve, directory_fifo_and_empty_file, .init = th_leak_init, .fini = th_leak_fini)
{
	char dir[64], path[PATH_MAX];
	struct pev_error err;
	uint64_t off;

	tmpdir_new(dir, sizeof(dir));
	cr_expect_eq(resolve(dir, "main", &off, &err), PEV_EFORMAT);
	expect_has(err.message, "is a directory");

	snprintf(path, sizeof(path), "%s/empty", dir);
	write_whole(path, "", 0);
	cr_expect_eq(resolve(path, "main", &off, &err), PEV_EFORMAT);
	expect_has(err.message, "empty");

	/* A FIFO must not hang the open. */
	snprintf(path, sizeof(path), "%s/fifo", dir);
	cr_expect_eq(mkfifo(path, 0600), 0);
	cr_expect_eq(resolve(path, "main", &off, &err), PEV_EFORMAT);
	expect_has(err.message, "not a regular file");

	/* Shorter than an ELF identification, with the magic. */
	snprintf(path, sizeof(path), "%s/short", dir);
	write_whole(path, "\177ELF", 4);
	cr_expect_eq(resolve(path, "main", &off, &err), PEV_EFORMAT);

	cr_expect_eq(resolve("/dev/null", "main", &off, &err), PEV_EFORMAT);
	tmpdir_remove(dir);
}

Test(uprobe_resolve, truncated_real_binary, .init = th_leak_init, .fini = th_leak_fini)
{
	char exe[PATH_MAX], dir[64], path[PATH_MAX];
	struct pev_error err;
	uint64_t off;
	size_t len;

	self_path(exe, sizeof(exe));
	char *img = read_whole(exe, &len);
	tmpdir_new(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/truncated", dir);
	const size_t cuts[] = {100, 64, 20, len / 2, len - 1};
	for (size_t i = 0; i < ARRAY_LEN(cuts); i++) {
		write_whole(path, img, cuts[i]);
		cr_expect_eq(resolve(path, "uprobe_target", &off, &err), PEV_EFORMAT,
			     "cut at %zu: %s", cuts[i], err.message);
		expect_has(err.message, path);
	}
	free(img);
	tmpdir_remove(dir);
}

Test(uprobe_resolve, bad_arguments, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_error err;
	uint64_t off;

	cr_expect_eq(resolve(NULL, "main", &off, &err), PEV_EBADARG);
	cr_expect_str_eq(err.field, "path");
	expect_has(err.message, "pev_uprobe_resolve");
	cr_expect_eq(resolve("", "main", &off, &err), PEV_EBADARG);
	cr_expect_eq(resolve("/proc/self/exe", NULL, &off, &err), PEV_EBADARG);
	cr_expect_str_eq(err.field, "symbol");
	cr_expect_eq(resolve("/proc/self/exe", "", &off, &err), PEV_EBADARG);
	cr_expect_eq(pev_uprobe_resolve("/proc/self/exe", "main", NULL, &err), PEV_EBADARG);
	cr_expect_str_eq(err.field, "offset");
	cr_expect_eq(pev_uprobe_resolve(NULL, NULL, NULL, NULL), PEV_EBADARG);
}

struct access_ctx {
	char path[PATH_MAX];
	int code;
	char message[256];
};

static void resolve_as_nobody(void *p)
{
	struct access_ctx *c = p;
	struct pev_error err;
	uint64_t off;

	c->code = pev_uprobe_resolve(c->path, "uprobe_target", &off, &err);
	memcpy(c->message, err.message, sizeof(c->message) - 1);
	c->message[sizeof(c->message) - 1] = '\0';
}

Test(uprobe_resolve, unreadable_file, .init = th_leak_init, .fini = th_leak_fini)
{
	char dir[64];
	struct access_ctx c = {.code = 1};

	th_require_root();
	tmpdir_new(dir, sizeof(dir));
	cr_assert_eq(chmod(dir, 0755), 0);
	snprintf(c.path, sizeof(c.path), "%s/secret", dir);
	write_whole(c.path, "\177ELF", 4);
	cr_expect_eq(chmod(c.path, 0600), 0);
	cr_expect(th_as_nobody(resolve_as_nobody, &c, sizeof(c)));
	cr_expect_eq(c.code, PEV_EACCES, "%s", c.message);
	expect_has(c.message, c.path);
	tmpdir_remove(dir);
}

/* ---- the synthetic non-PIE executable ----------------------------------------- */

Test(uprobe_resolve, non_pie_executable, .init = th_leak_init, .fini = th_leak_fini)
{
	struct syn_layout lay;
	char dir[64], path[PATH_MAX];
	struct pev_error err;
	uint64_t off;
	unsigned char *img = syn_build(&lay);

	tmpdir_new(dir, sizeof(dir));
	syn_write(dir, "exec", img, lay.size, path, sizeof(path));

	/* First segment: file 0 at 0x400000. */
	cr_expect_eq(resolve(path, "func_a", &off, &err), 0, "%s", err.message);
	cr_expect_eq(off, 0x1020);
	/* An untyped label in code counts; global beats local; weak and IFUNC count. */
	cr_expect_eq(resolve(path, "label_b", &off, &err), 0, "%s", err.message);
	cr_expect_eq(off, 0x1040);
	cr_expect_eq(resolve(path, "dup", &off, &err), 0, "%s", err.message);
	cr_expect_eq(off, 0x1060);
	cr_expect_eq(resolve(path, "weak_i", &off, &err), 0, "%s", err.message);
	cr_expect_eq(off, 0x10a0);
	cr_expect_eq(resolve(path, "ifunc_g", &off, &err), 0, "%s", err.message);
	cr_expect_eq(off, 0x1090);

	/* Versions spelled in .symtab names. */
	cr_expect_eq(resolve(path, "ver_f", &off, &err), 0, "%s", err.message);
	cr_expect_eq(off, 0x1080, "the default version wins");
	cr_expect_eq(resolve(path, "ver_f@@VERS_2", &off, &err), 0, "%s", err.message);
	cr_expect_eq(off, 0x1080);
	cr_expect_eq(resolve(path, "ver_f@VERS_2", &off, &err), 0, "%s", err.message);
	cr_expect_eq(off, 0x1080);
	cr_expect_eq(resolve(path, "ver_f@VERS_1", &off, &err), 0, "%s", err.message);
	cr_expect_eq(off, 0x1070);
	cr_expect_eq(resolve(path, "ver_f@@VERS_1", &off, &err), PEV_ENOTFOUND);
	expect_has(err.hint, "@VERS_1");
	expect_has(err.hint, "@@VERS_2");
	cr_expect_eq(resolve(path, "ver_f@@VERS_3", &off, &err), PEV_ENOTFOUND);

	/* Not functions. */
	cr_expect_eq(resolve(path, "obj_d", &off, &err), PEV_ENOTFOUND);
	expect_has(err.message, "data object");
	cr_expect_eq(resolve(path, "data_c", &off, &err), PEV_ENOTFOUND);
	expect_has(err.message, "not as code");
	cr_expect_eq(resolve(path, "undef_e", &off, &err), PEV_ENOTFOUND);
	expect_has(err.message, "imported");

	/* Functions at addresses no part of the file is loaded at. */
	cr_expect_eq(resolve(path, "ghost", &off, &err), PEV_EFORMAT);
	expect_has(err.message, "0x500000");
	cr_expect_eq(resolve(path, "bss_h", &off, &err), PEV_EFORMAT);

	/* Suggestions from .symtab, functions only. */
	cr_expect_eq(resolve(path, "func_b", &off, &err), PEV_ENOTFOUND);
	expect_has(err.hint, "'func_a'");
	expect_has(err.hint, "'ifunc_g'");
	const char *a = strstr(err.hint, "'func_a'"), *g = strstr(err.hint, "'ifunc_g'");
	cr_expect(a && g && a < g, "closest first: %s", err.hint);
	cr_expect_eq(resolve(path, "obj_e", &off, &err), PEV_ENOTFOUND);
	expect_lacks(err.hint, "obj_d");
	cr_expect_eq(resolve(path, "dupe", &off, &err), PEV_ENOTFOUND);
	expect_has(err.hint, "'dup'");

	free(img);
	tmpdir_remove(dir);
}

/* Writes img with `patch` (len bytes) at `at` and expects `code` resolving func_a. */
static void expect_damaged(const char *dir, const unsigned char *img, const struct syn_layout *lay,
			   size_t at, const void *patch, size_t len, int code, const char *what)
{
	char path[PATH_MAX];
	struct pev_error err;
	uint64_t off;
	unsigned char *copy = malloc(lay->size);

	cr_assert(copy);
	memcpy(copy, img, lay->size);
	memcpy(copy + at, patch, len);
	syn_write(dir, "damaged", copy, lay->size, path, sizeof(path));
	int r = resolve(path, "func_a", &off, &err);
	cr_expect_eq(r, code, "%s: got %d (%s) %s", what, r, pev_error_name(r), err.message);
	free(copy);
}

Test(uprobe_resolve, damaged_headers, .init = th_leak_init, .fini = th_leak_fini)
{
	struct syn_layout lay;
	char dir[64];
	unsigned char *img = syn_build(&lay);
	const size_t symtab_sh = lay.shdr_off + SYN_SH_SYMTAB * sizeof(Elf64_Shdr);
	const uint32_t bad_link = 99, data_link = SYN_SH_DATA, strange_name = 0xfffffff;
	const uint64_t huge = 0x7fffffffffff0000ULL, entsize = 7;
	const uint16_t rel = ET_REL, core = ET_CORE, odd_type = 0x1234, many = 0x7fff, none = 0;
	const unsigned char bad_class = 7;

	tmpdir_new(dir, sizeof(dir));
	expect_damaged(dir, img, &lay, symtab_sh + offsetof(Elf64_Shdr, sh_link), &bad_link,
		       sizeof(bad_link), PEV_EFORMAT, "symtab link out of range");
	expect_damaged(dir, img, &lay, symtab_sh + offsetof(Elf64_Shdr, sh_link), &data_link,
		       sizeof(data_link), PEV_EFORMAT, "symtab link to a non-string section");
	expect_damaged(dir, img, &lay, symtab_sh + offsetof(Elf64_Shdr, sh_offset), &huge,
		       sizeof(huge), PEV_EFORMAT, "symtab beyond the file");
	expect_damaged(dir, img, &lay, symtab_sh + offsetof(Elf64_Shdr, sh_size), &huge,
		       sizeof(huge), PEV_EFORMAT, "symtab larger than the file");
	expect_damaged(dir, img, &lay, symtab_sh + offsetof(Elf64_Shdr, sh_entsize), &entsize,
		       sizeof(entsize), PEV_EFORMAT, "odd entry size");
	expect_damaged(dir, img, &lay, lay.func_a_sym + offsetof(Elf64_Sym, st_name),
		       &strange_name, sizeof(strange_name), PEV_EFORMAT, "name beyond strtab");
	expect_damaged(dir, img, &lay, offsetof(Elf64_Ehdr, e_shoff), &huge, sizeof(huge),
		       PEV_EFORMAT, "section headers beyond the file");
	expect_damaged(dir, img, &lay, offsetof(Elf64_Ehdr, e_phoff), &huge, sizeof(huge),
		       PEV_EFORMAT, "program headers beyond the file");
	expect_damaged(dir, img, &lay, offsetof(Elf64_Ehdr, e_phnum), &many, sizeof(many),
		       PEV_EFORMAT, "too many program headers");
	expect_damaged(dir, img, &lay, offsetof(Elf64_Ehdr, e_shnum), &many, sizeof(many),
		       PEV_EFORMAT, "too many section headers");
	expect_damaged(dir, img, &lay, offsetof(Elf64_Ehdr, e_phnum), &none, sizeof(none),
		       PEV_EFORMAT, "no program headers");
	expect_damaged(dir, img, &lay, offsetof(Elf64_Ehdr, e_type), &rel, sizeof(rel),
		       PEV_EFORMAT, "relocatable object");
	expect_damaged(dir, img, &lay, offsetof(Elf64_Ehdr, e_type), &core, sizeof(core),
		       PEV_EFORMAT, "core dump");
	expect_damaged(dir, img, &lay, offsetof(Elf64_Ehdr, e_type), &odd_type, sizeof(odd_type),
		       PEV_EFORMAT, "unknown type");
	expect_damaged(dir, img, &lay, EI_CLASS, &bad_class, 1, PEV_EFORMAT, "bad class");
	expect_damaged(dir, img, &lay, sizeof(Elf64_Ehdr) + offsetof(Elf64_Phdr, p_offset),
		       &huge, sizeof(huge), PEV_EFORMAT, "segment beyond the file");

	/* No section headers at all: stripped of every table. */
	unsigned char *copy = malloc(lay.size);
	char path[PATH_MAX];
	struct pev_error err;
	uint64_t off;
	cr_assert(copy);
	memcpy(copy, img, lay.size);
	((Elf64_Ehdr *)(void *)copy)->e_shoff = 0;
	((Elf64_Ehdr *)(void *)copy)->e_shnum = 0;
	((Elf64_Ehdr *)(void *)copy)->e_shstrndx = 0;
	syn_write(dir, "nosections", copy, lay.size, path, sizeof(path));
	cr_expect_eq(resolve(path, "func_a", &off, &err), PEV_ENOTFOUND, "%s", err.message);
	expect_has(err.hint, "no symbol table");
	free(copy);

	free(img);
	tmpdir_remove(dir);
}

Test(uprobe_resolve, every_truncation_is_refused, .init = th_leak_init, .fini = th_leak_fini)
{
	struct syn_layout lay;
	char dir[64], path[PATH_MAX];
	struct pev_error err;
	uint64_t off;
	unsigned char *img = syn_build(&lay);
	int bad = 0;

	tmpdir_new(dir, sizeof(dir));
	for (size_t len = 0; len < lay.size; len++) {
		syn_write(dir, "cut", img, len, path, sizeof(path));
		int r = resolve(path, "func_a", &off, &err);
		if (r != PEV_EFORMAT && bad++ < 5)
			cr_expect_eq(r, PEV_EFORMAT, "cut at %zu of %zu: %d %s", len, lay.size, r,
				     err.message);
	}
	cr_expect_eq(bad, 0);
	syn_write(dir, "cut", img, lay.size, path, sizeof(path));
	cr_expect_eq(resolve(path, "func_a", &off, &err), 0, "%s", err.message);
	cr_expect_eq(off, 0x1020);
	free(img);
	tmpdir_remove(dir);
}

/* Random damage to the headers and tables: any answer but a crash or a wild offset. */
Test(uprobe_resolve, random_damage_never_crashes, .init = th_leak_init, .fini = th_leak_fini)
{
	struct syn_layout lay;
	char dir[64], path[PATH_MAX];
	struct pev_error err;
	uint64_t off;
	unsigned char *img = syn_build(&lay);
	unsigned char *copy = malloc(lay.size);
	uint32_t seed = 12345;
	static const char *const names[] = {"func_a", "dup", "ver_f", "label_b", "nothere"};

	cr_assert(copy);
	tmpdir_new(dir, sizeof(dir));
	for (int iter = 0; iter < 10000; iter++) {
		memcpy(copy, img, lay.size);
		int flips = 1 + iter % 4;
		for (int k = 0; k < flips; k++) {
			seed = seed * 1103515245u + 12345u;
			size_t at;
			/* Hit the ELF/program headers, or the tables and section headers. */
			if ((seed >> 8) & 1)
				at = (seed >> 9) % (sizeof(Elf64_Ehdr) + 2 * sizeof(Elf64_Phdr));
			else
				at = lay.symtab_off + (seed >> 9) % (lay.size - lay.symtab_off);
			seed = seed * 1103515245u + 12345u;
			copy[at] = (unsigned char)(seed >> 16);
		}
		syn_write(dir, "fuzz", copy, lay.size, path, sizeof(path));
		int r = resolve(path, names[iter % 5], &off, &err);
		cr_assert(r == 0 || r == PEV_EFORMAT || r == PEV_ENOTFOUND, "iteration %d: %d %s",
			  iter, r, err.message);
		if (r == 0)
			cr_assert_lt(off, lay.size, "iteration %d: offset 0x%" PRIx64, iter, off);
		else
			cr_assert_neq(err.message[0], '\0', "iteration %d: no message", iter);
	}
	free(copy);
	free(img);
	tmpdir_remove(dir);
}

/* ---- live: a uprobe at the resolved offset counts the calls ---------------------- */

static void count_calls(bool retprobe)
{
	char exe[PATH_MAX];
	struct pev_error err;
	struct pev_event ev;
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_target self = pev_target_self();
	struct pev_counter *c = NULL;
	struct pev_count count;
	uint64_t off;
	const int calls = 7;
	int sum = 0;

	th_require_root();
	th_require_cap(PEV_CAP_UPROBE);
	self_path(exe, sizeof(exe));
	cr_assert_eq(pev_uprobe_resolve(exe, "uprobe_target", &off, &err), 0, "%s", err.message);
	int r = pev_event_uprobe(&ev, exe, off, retprobe, NULL, &err);
	cr_assert_eq(r, 0, "%s", err.message);
	o.disabled = true;
	r = pev_counter_open(&ev, &o, &self, NULL, &c, &err);
	cr_assert_eq(r, 0, "%s (%s)\n%s", err.message, pev_error_name(r), err.hint);
	cr_assert_eq(pev_counter_enable(c), 0);
	for (int i = 0; i < calls; i++)
		sum += target_fn(i);
	cr_assert_eq(pev_counter_disable(c), 0);
	sum += target_fn(100); /* not counted */
	cr_expect_eq(pev_counter_read(c, &count), 0);
	cr_expect_eq(count.value, (uint64_t)calls, "%s: %" PRIu64 " hits for %d calls",
		     retprobe ? "uretprobe" : "uprobe", count.value, calls);
	cr_expect_gt(sum, 0);
	pev_counter_close(c);
}

Test(uprobe_resolve, live_uprobe_counts_calls, .init = th_leak_init, .fini = th_leak_fini)
{
	count_calls(false);
}

Test(uprobe_resolve, live_uretprobe_counts_returns, .init = th_leak_init, .fini = th_leak_fini)
{
	count_calls(true);
}
