/* SPDX-License-Identifier: MIT */
/*
 * lazy_libs.c - the shared libraries perfev calls, loaded on their first call.
 *
 * `perfev stat` needs no library but libc, yet the executable it lives in
 * calls elfutils (symbols, call chains, build ids, uprobes by name), json-c
 * (--json) and zlib (pprof, perfev archive). Linked as start-up dependencies, the dynamic
 * loader would open, map and relocate all of them, and libdw's own
 * liblzma and libbz2, at every start: about 0.3 ms, a fifth of a whole
 * `perfev stat true` (docs/BENCHMARKS.md, "perfev stat's own start-up").
 *
 * So every function perfev calls in them is defined here, as a stub that
 * loads its library with dlopen on the first call of any of them and then
 * forwards the call. A library that cannot be loaded costs only what needs
 * it: the first call warns once, naming the library, what is lost and the
 * package to install, and every stub of that library returns the value its
 * function returns on failure (NULL, -1, false...), which the callers handle
 * already. JSON output asks first (cli_json_available) and fails with a
 * message instead. Each stub is type-checked against the library's header.
 *
 * The libraries stay on perfev's link line, --as-needed: a call to a function
 * not listed here still works, but links its library at start-up again,
 * which tests/test_startup.c reports. Add the function to the lists then.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <json-c/json.h>
#include <libelf.h>
#include <zlib.h>

#include "cli.h"

enum lib { LIB_ELF, LIB_DW, LIB_JSONC, LIB_Z, NLIBS };

enum { UNTRIED, LOADED, FAILED };

static struct {
	const char *soname, *package, *loses;
	int state; /* UNTRIED, LOADED, FAILED: read without the lock once set */
	bool warned;
	char why[256];
} libs[NLIBS] = {
	[LIB_ELF] = {.soname = "libelf.so.1", .package = "libelf1",
	             .loses = "build ids in perf.data and uprobes by function name"},
	[LIB_DW] = {.soname = "libdw.so.1", .package = "libdw1",
	            .loses = "function names, source lines, inline frames and DWARF call chains"},
	[LIB_JSONC] = {.soname = "libjson-c.so.5", .package = "libjson-c5", .loses = "JSON output"},
	[LIB_Z] = {.soname = "libz.so.1", .package = "zlib1g", .loses = "pprof output and archives"},
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * Each function: F(library, return type, name, (parameters), (arguments),
 * value when the library cannot be loaded); V(...) for those returning void.
 */
#define ELF_FUNCTIONS(F, V)                                                                       \
	F(LIB_ELF, Elf *, elf_begin, (int fd, Elf_Cmd cmd, Elf *ref), (fd, cmd, ref), NULL)         \
	F(LIB_ELF, int, elf_end, (Elf *elf), (elf), 0)                                              \
	F(LIB_ELF, const char *, elf_errmsg, (int error), (error), libs[LIB_ELF].why)               \
	F(LIB_ELF, Elf_Data *, elf_getdata, (Elf_Scn *scn, Elf_Data *data), (scn, data), NULL)      \
	F(LIB_ELF, int, elf_getphdrnum, (Elf *elf, size_t *dst), (elf, dst), -1)                    \
	F(LIB_ELF, Elf_Scn *, elf_getscn, (Elf *elf, size_t index), (elf, index), NULL)             \
	F(LIB_ELF, int, elf_getshdrnum, (Elf *elf, size_t *dst), (elf, dst), -1)                    \
	F(LIB_ELF, int, elf_getshdrstrndx, (Elf *elf, size_t *dst), (elf, dst), -1)                 \
	F(LIB_ELF, Elf_Kind, elf_kind, (Elf *elf), (elf), ELF_K_NONE)                               \
	F(LIB_ELF, Elf_Scn *, elf_nextscn, (Elf *elf, Elf_Scn *scn), (elf, scn), NULL)              \
	F(LIB_ELF, Elf_Data *, elf_rawdata, (Elf_Scn *scn, Elf_Data *data), (scn, data), NULL)      \
	F(LIB_ELF, char *, elf_rawfile, (Elf *elf, size_t *nbytes), (elf, nbytes), NULL)            \
	F(LIB_ELF, char *, elf_strptr, (Elf *elf, size_t index, size_t offset),                     \
	  (elf, index, offset), NULL)                                                               \
	F(LIB_ELF, unsigned int, elf_version, (unsigned int version), (version), EV_NONE)           \
	F(LIB_ELF, size_t, gelf_fsize, (Elf *elf, Elf_Type type, size_t count, unsigned int version), \
	  (elf, type, count, version), 0)                                                           \
	F(LIB_ELF, GElf_Ehdr *, gelf_getehdr, (Elf *elf, GElf_Ehdr *dst), (elf, dst), NULL)         \
	F(LIB_ELF, GElf_Phdr *, gelf_getphdr, (Elf *elf, int ndx, GElf_Phdr *dst), (elf, ndx, dst), \
	  NULL)                                                                                     \
	F(LIB_ELF, GElf_Rel *, gelf_getrel, (Elf_Data *data, int ndx, GElf_Rel *dst),               \
	  (data, ndx, dst), NULL)                                                                   \
	F(LIB_ELF, GElf_Rela *, gelf_getrela, (Elf_Data *data, int ndx, GElf_Rela *dst),            \
	  (data, ndx, dst), NULL)                                                                   \
	F(LIB_ELF, GElf_Shdr *, gelf_getshdr, (Elf_Scn *scn, GElf_Shdr *dst), (scn, dst), NULL)     \
	F(LIB_ELF, GElf_Sym *, gelf_getsym, (Elf_Data *data, int ndx, GElf_Sym *dst),               \
	  (data, ndx, dst), NULL)                                                                   \
	F(LIB_ELF, GElf_Verdaux *, gelf_getverdaux, (Elf_Data *data, int offset, GElf_Verdaux *dst), \
	  (data, offset, dst), NULL)                                                                \
	F(LIB_ELF, GElf_Verdef *, gelf_getverdef, (Elf_Data *data, int offset, GElf_Verdef *dst),   \
	  (data, offset, dst), NULL)                                                                \
	F(LIB_ELF, GElf_Versym *, gelf_getversym, (Elf_Data *data, int ndx, GElf_Versym *dst),      \
	  (data, ndx, dst), NULL)

#define DW_FUNCTIONS(F, V)                                                                        \
	F(LIB_DW, Dwarf_Attribute *, dwarf_attr,                                                    \
	  (Dwarf_Die *die, unsigned int name, Dwarf_Attribute *result), (die, name, result), NULL)  \
	F(LIB_DW, Dwarf_Attribute *, dwarf_attr_integrate,                                          \
	  (Dwarf_Die *die, unsigned int name, Dwarf_Attribute *result), (die, name, result), NULL)  \
	F(LIB_DW, int, dwarf_cfi_addrframe, (Dwarf_CFI *cache, Dwarf_Addr address, Dwarf_Frame **frame), \
	  (cache, address, frame), -1)                                                              \
	F(LIB_DW, Dwarf_Die *, dwarf_diecu,                                                         \
	  (Dwarf_Die *die, Dwarf_Die *result, uint8_t *address_size, uint8_t *offset_size),         \
	  (die, result, address_size, offset_size), NULL)                                           \
	F(LIB_DW, const char *, dwarf_diename, (Dwarf_Die *die), (die), NULL)                       \
	F(LIB_DW, Dwarf_Off, dwarf_dieoffset, (Dwarf_Die *die), (die), (Dwarf_Off)-1)               \
	F(LIB_DW, const char *, dwarf_filesrc,                                                      \
	  (Dwarf_Files *file, size_t idx, Dwarf_Word *mtime, Dwarf_Word *length),                   \
	  (file, idx, mtime, length), NULL)                                                         \
	F(LIB_DW, const char *, dwarf_formstring, (Dwarf_Attribute *attr), (attr), NULL)            \
	F(LIB_DW, int, dwarf_frame_cfa, (Dwarf_Frame *frame, Dwarf_Op **ops, size_t *nops),         \
	  (frame, ops, nops), -1)                                                                   \
	F(LIB_DW, int, dwarf_formudata, (Dwarf_Attribute *attr, Dwarf_Word *value), (attr, value),  \
	  -1)                                                                                       \
	F(LIB_DW, int, dwarf_get_units,                                                             \
	  (Dwarf *dwarf, Dwarf_CU *cu, Dwarf_CU **next_cu, Dwarf_Half *version, uint8_t *unit_type, \
	   Dwarf_Die *cudie, Dwarf_Die *subdie),                                                    \
	  (dwarf, cu, next_cu, version, unit_type, cudie, subdie), -1)                              \
	F(LIB_DW, int, dwarf_getarangeinfo,                                                         \
	  (Dwarf_Arange *arange, Dwarf_Addr *addr, Dwarf_Word *length, Dwarf_Off *offset),          \
	  (arange, addr, length, offset), -1)                                                       \
	F(LIB_DW, int, dwarf_getaranges, (Dwarf *dbg, Dwarf_Aranges **aranges, size_t *n),          \
	  (dbg, aranges, n), -1)                                                                    \
	F(LIB_DW, int, dwarf_getscopes, (Dwarf_Die *cudie, Dwarf_Addr pc, Dwarf_Die **scopes),      \
	  (cudie, pc, scopes), -1)                                                                  \
	F(LIB_DW, int, dwarf_getscopes_die, (Dwarf_Die *die, Dwarf_Die **scopes), (die, scopes), -1) \
	F(LIB_DW, Dwarf_Line *, dwarf_getsrc_die, (Dwarf_Die *cudie, Dwarf_Addr addr), (cudie, addr), \
	  NULL)                                                                                     \
	F(LIB_DW, int, dwarf_getsrcfiles, (Dwarf_Die *cudie, Dwarf_Files **files, size_t *n),       \
	  (cudie, files, n), -1)                                                                    \
	F(LIB_DW, int, dwarf_highpc, (Dwarf_Die *die, Dwarf_Addr *addr), (die, addr), -1)           \
	F(LIB_DW, int, dwarf_linecol, (Dwarf_Line *line, int *col), (line, col), -1)                \
	F(LIB_DW, int, dwarf_lineno, (Dwarf_Line *line, int *lineno), (line, lineno), -1)           \
	F(LIB_DW, const char *, dwarf_linesrc,                                                      \
	  (Dwarf_Line *line, Dwarf_Word *mtime, Dwarf_Word *length), (line, mtime, length), NULL)   \
	F(LIB_DW, int, dwarf_lowpc, (Dwarf_Die *die, Dwarf_Addr *addr), (die, addr), -1)            \
	F(LIB_DW, Dwarf_Die *, dwarf_offdie, (Dwarf *dbg, Dwarf_Off offset, Dwarf_Die *result),     \
	  (dbg, offset, result), NULL)                                                              \
	F(LIB_DW, Dwarf_Arange *, dwarf_onearange, (Dwarf_Aranges *aranges, size_t idx),            \
	  (aranges, idx), NULL)                                                                     \
	F(LIB_DW, ptrdiff_t, dwarf_ranges,                                                          \
	  (Dwarf_Die *die, ptrdiff_t offset, Dwarf_Addr *base, Dwarf_Addr *start, Dwarf_Addr *end), \
	  (die, offset, base, start, end), -1)                                                      \
	F(LIB_DW, int, dwarf_siblingof, (Dwarf_Die *die, Dwarf_Die *result), (die, result), -1)     \
	F(LIB_DW, int, dwarf_tag, (Dwarf_Die *die), (die), DW_TAG_invalid)                          \
	F(LIB_DW, ssize_t, dwelf_elf_gnu_build_id, (Elf *elf, const void **id), (elf, id), -1)      \
	F(LIB_DW, Dwfl_Module *, dwfl_addrmodule, (Dwfl *dwfl, Dwarf_Addr address),                 \
	  (dwfl, address), NULL)                                                                    \
	F(LIB_DW, bool, dwfl_attach_state,                                                          \
	  (Dwfl *dwfl, Elf *elf, pid_t pid, const Dwfl_Thread_Callbacks *callbacks, void *arg),     \
	  (dwfl, elf, pid, callbacks, arg), false)                                                  \
	F(LIB_DW, Dwfl *, dwfl_begin, (const Dwfl_Callbacks *callbacks), (callbacks), NULL)         \
	F(LIB_DW, int, dwfl_build_id_find_elf,                                                      \
	  (Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base, char **file,       \
	   Elf **elf),                                                                              \
	  (mod, userdata, name, base, file, elf), -1)                                               \
	V(LIB_DW, void, dwfl_end, (Dwfl *dwfl), (dwfl), 0)                                          \
	F(LIB_DW, const char *, dwfl_errmsg, (int error), (error), libs[LIB_DW].why)                \
	F(LIB_DW, bool, dwfl_frame_pc, (Dwfl_Frame *state, Dwarf_Addr *pc, bool *isactivation),     \
	  (state, pc, isactivation), false)                                                         \
	F(LIB_DW, int, dwfl_frame_reg, (Dwfl_Frame *state, unsigned regno, Dwarf_Word *val),        \
	  (state, regno, val), -1)                                                                  \
	F(LIB_DW, int, dwfl_getthread_frames,                                                       \
	  (Dwfl *dwfl, pid_t tid, int (*callback)(Dwfl_Frame *, void *), void *arg),                \
	  (dwfl, tid, callback, arg), -1)                                                           \
	F(LIB_DW, Dwarf_Die *, dwfl_module_addrdie,                                                 \
	  (Dwfl_Module *mod, Dwarf_Addr addr, Dwarf_Addr *bias), (mod, addr, bias), NULL)           \
	F(LIB_DW, int, dwfl_module_build_id,                                                        \
	  (Dwfl_Module *mod, const unsigned char **bits, GElf_Addr *vaddr), (mod, bits, vaddr), -1) \
	F(LIB_DW, Dwarf_CFI *, dwfl_module_dwarf_cfi, (Dwfl_Module *mod, Dwarf_Addr *bias),         \
	  (mod, bias), NULL)                                                                        \
	F(LIB_DW, Dwarf_CFI *, dwfl_module_eh_cfi, (Dwfl_Module *mod, Dwarf_Addr *bias), (mod, bias), \
	  NULL)                                                                                     \
	F(LIB_DW, Dwarf *, dwfl_module_getdwarf, (Dwfl_Module *mod, Dwarf_Addr *bias), (mod, bias), \
	  NULL)                                                                                     \
	F(LIB_DW, Elf *, dwfl_module_getelf, (Dwfl_Module *mod, GElf_Addr *bias), (mod, bias), NULL) \
	F(LIB_DW, const char *, dwfl_module_getsym,                                                 \
	  (Dwfl_Module *mod, int ndx, GElf_Sym *sym, GElf_Word *shndx), (mod, ndx, sym, shndx),     \
	  NULL)                                                                                     \
	F(LIB_DW, const char *, dwfl_module_getsym_info,                                            \
	  (Dwfl_Module *mod, int ndx, GElf_Sym *sym, GElf_Addr *addr, GElf_Word *shndx, Elf **elf,  \
	   Dwarf_Addr *bias),                                                                       \
	  (mod, ndx, sym, addr, shndx, elf, bias), NULL)                                            \
	F(LIB_DW, int, dwfl_module_getsymtab, (Dwfl_Module *mod), (mod), -1)                        \
	F(LIB_DW, const char *, dwfl_module_info,                                                   \
	  (Dwfl_Module *mod, void ***userdata, Dwarf_Addr *start, Dwarf_Addr *end,                  \
	   Dwarf_Addr *dwbias, Dwarf_Addr *symbias, const char **mainfile, const char **debugfile), \
	  (mod, userdata, start, end, dwbias, symbias, mainfile, debugfile), NULL)                  \
	V(LIB_DW, void, dwfl_report_begin, (Dwfl *dwfl), (dwfl), 0)                                 \
	F(LIB_DW, Dwfl_Module *, dwfl_report_elf,                                                   \
	  (Dwfl *dwfl, const char *name, const char *file, int fd, GElf_Addr base, bool add_vaddr), \
	  (dwfl, name, file, fd, base, add_vaddr), NULL)                                            \
	F(LIB_DW, int, dwfl_report_end,                                                             \
	  (Dwfl *dwfl,                                                                              \
	   int (*removed)(Dwfl_Module *, void *, const char *, Dwarf_Addr, void *), void *arg),     \
	  (dwfl, removed, arg), -1)                                                                 \
	F(LIB_DW, Dwfl_Module *, dwfl_report_module,                                                \
	  (Dwfl *dwfl, const char *name, Dwarf_Addr start, Dwarf_Addr end),                         \
	  (dwfl, name, start, end), NULL)                                                           \
	F(LIB_DW, int, dwfl_standard_find_debuginfo,                                                \
	  (Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base, const char *file,  \
	   const char *debuglink, GElf_Word crc, char **debuginfo),                                 \
	  (mod, userdata, name, base, file, debuglink, crc, debuginfo), -1)                         \
	V(LIB_DW, void, dwfl_thread_state_register_pc, (Dwfl_Thread *thread, Dwarf_Word pc),        \
	  (thread, pc), 0)                                                                          \
	F(LIB_DW, bool, dwfl_thread_state_registers,                                                \
	  (Dwfl_Thread *thread, int first, unsigned n, const Dwarf_Word *regs),                     \
	  (thread, first, n, regs), false)

#define JSONC_FUNCTIONS(F, V)                                                                     \
	F(LIB_JSONC, int, json_object_array_add, (json_object *array, json_object *value),          \
	  (array, value), -1)                                                                       \
	F(LIB_JSONC, json_object *, json_object_new_array, (void), (), NULL)                        \
	F(LIB_JSONC, json_object *, json_object_new_boolean, (json_bool b), (b), NULL)              \
	F(LIB_JSONC, json_object *, json_object_new_double, (double d), (d), NULL)                  \
	F(LIB_JSONC, json_object *, json_object_new_double_s, (double d, const char *text),         \
	  (d, text), NULL)                                                                          \
	F(LIB_JSONC, json_object *, json_object_new_int, (int32_t i), (i), NULL)                    \
	F(LIB_JSONC, json_object *, json_object_new_int64, (int64_t i), (i), NULL)                  \
	F(LIB_JSONC, json_object *, json_object_new_object, (void), (), NULL)                       \
	F(LIB_JSONC, json_object *, json_object_new_string, (const char *s), (s), NULL)             \
	F(LIB_JSONC, json_object *, json_object_new_uint64, (uint64_t i), (i), NULL)                \
	F(LIB_JSONC, int, json_object_object_add,                                                   \
	  (json_object *object, const char *key, json_object *value), (object, key, value), -1)     \
	F(LIB_JSONC, int, json_object_put, (json_object *object), (object), 0)                      \
	F(LIB_JSONC, const char *, json_object_to_json_string_ext, (json_object *object, int flags), \
	  (object, flags), NULL)

#define Z_FUNCTIONS(F, V)                                                                         \
	F(LIB_Z, int, deflate, (z_streamp strm, int flush), (strm, flush), Z_STREAM_ERROR)          \
	F(LIB_Z, int, deflateEnd, (z_streamp strm), (strm), Z_STREAM_ERROR)                         \
	F(LIB_Z, int, deflateInit2_,                                                                \
	  (z_streamp strm, int level, int method, int window_bits, int mem_level, int strategy,     \
	   const char *version, int stream_size),                                                   \
	  (strm, level, method, window_bits, mem_level, strategy, version, stream_size),            \
	  Z_VERSION_ERROR)                                                                          \
	F(LIB_Z, int, gzclose, (gzFile file), (file), Z_STREAM_ERROR)                               \
	F(LIB_Z, gzFile, gzdopen, (int fd, const char *mode), (fd, mode), NULL)                     \
	F(LIB_Z, const char *, gzerror, (gzFile file, int *errnum), (file, errnum),                 \
	  libs[LIB_Z].why)                                                                          \
	F(LIB_Z, int, gzread, (gzFile file, voidp buf, unsigned len), (file, buf, len), -1)         \
	F(LIB_Z, int, gzwrite, (gzFile file, voidpc buf, unsigned len), (file, buf, len), 0)

#define ALL_FUNCTIONS(F, V) ELF_FUNCTIONS(F, V) DW_FUNCTIONS(F, V) JSONC_FUNCTIONS(F, V) Z_FUNCTIONS(F, V)

/* FN_<name>: the function's slot in fn[] and names[]. */
#define SLOT(lib, type, name, params, args, fail) FN_##name,
enum { ALL_FUNCTIONS(SLOT, SLOT) NFUNCTIONS };
#undef SLOT

#define NAME(lib, type, name, params, args, fail) {lib, #name},
static const struct {
	enum lib lib;
	const char *name;
} names[NFUNCTIONS] = {ALL_FUNCTIONS(NAME, NAME)};
#undef NAME

/* The loaded functions; set before their library's state becomes LOADED. */
static void *fn[NFUNCTIONS];

/* Loads lib once (its state tells how that went); says nothing. */
static void load(enum lib lib)
{
	void *h;
	const char *e;

	pthread_mutex_lock(&lock);
	if (libs[lib].state != UNTRIED)
		goto out;
	if (!(h = dlopen(libs[lib].soname, RTLD_NOW | RTLD_LOCAL))) {
		e = dlerror();
		snprintf(libs[lib].why, sizeof(libs[lib].why), "%s", e ? e : libs[lib].soname);
		__atomic_store_n(&libs[lib].state, FAILED, __ATOMIC_RELEASE);
		goto out;
	}
	for (int i = 0; i < NFUNCTIONS; i++) {
		if (names[i].lib != lib)
			continue;
		if (!(fn[i] = dlsym(h, names[i].name))) {
			snprintf(libs[lib].why, sizeof(libs[lib].why), "%s has no %s (too old?)",
			         libs[lib].soname, names[i].name);
			__atomic_store_n(&libs[lib].state, FAILED, __ATOMIC_RELEASE);
			goto out; /* h stays loaded: its other users, if any, keep it */
		}
	}
	__atomic_store_n(&libs[lib].state, LOADED, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&lock);
}

/* Whether lib is loaded, loading it on the first call; warns once when it cannot be. */
static bool ready(enum lib lib)
{
	int state = __atomic_load_n(&libs[lib].state, __ATOMIC_ACQUIRE);

	if (state == LOADED)
		return true;
	if (state == UNTRIED) {
		load(lib);
		if (__atomic_load_n(&libs[lib].state, __ATOMIC_ACQUIRE) == LOADED)
			return true;
	}
	pthread_mutex_lock(&lock);
	if (!libs[lib].warned) {
		libs[lib].warned = true;
		cli_warning("cannot load %s (%s): going on without %s; install it (Debian: "
		            "apt-get install %s)",
		            libs[lib].soname, libs[lib].why, libs[lib].loses, libs[lib].package);
	}
	pthread_mutex_unlock(&lock);
	return false;
}

bool cli_json_available(const char *option)
{
	load(LIB_JSONC);
	if (__atomic_load_n(&libs[LIB_JSONC].state, __ATOMIC_ACQUIRE) == LOADED)
		return true;
	cli_error("%s needs %s, which cannot be loaded: %s", option, libs[LIB_JSONC].soname,
	          libs[LIB_JSONC].why);
	fprintf(stderr, "hint: install it (Debian: apt-get install %s)\n", libs[LIB_JSONC].package);
	return false;
}

/* The stubs. They are declared by the libraries' headers. */
#define STUB(lib, type, name, params, args, fail)                                                 \
	type name params                                                                          \
	{                                                                                         \
		return ready(lib) ? ((__typeof__(name) *)fn[FN_##name]) args : (fail);            \
	}
#define STUB_VOID(lib, type, name, params, args, fail)                                            \
	void name params                                                                          \
	{                                                                                         \
		if (ready(lib))                                                                   \
			((__typeof__(name) *)fn[FN_##name]) args;                                 \
	}
ALL_FUNCTIONS(STUB, STUB_VOID)
