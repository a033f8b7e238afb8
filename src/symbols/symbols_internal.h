/* SPDX-License-Identifier: MIT */
/*
 * symbols_internal.h - what the files of the symbols layer share:
 *
 *   symbols.c        the object, the public entry points, resolve dispatch
 *   symbols_maps.c   address spaces: mappings per process, /proc/PID/maps
 *   symbols_dso.c    ELF files through libdwfl: build ids, symbols, lines,
 *                    inline frames, demangling, the per-DSO caches
 *   symbols_index.c  a DSO's symbols sorted into address ranges: lookups
 *   symbols_alias.c  the name of a function that several symbols share
 *   symbols_plt.c    names for PLT stubs ("sin@plt")
 *   symbols_cus.c    the DWARF compile unit holding an address, also where
 *                    .debug_aranges does not list it (clang)
 *   symbols_debuginfo.c separate debuginfo files: perf's build-id cache, the
 *                    debug directory, .gnu_debuglink (debuginfod on request)
 *   symbols_kernel.c /proc/kallsyms
 *   symbols_jit.c    /tmp/perf-PID.map
 *   symbols_jitdump.c jit-PID.dump (what node --perf-prof and JVM agents write)
 *   symbols_unwind.c user stacks unwound from sampled registers and stack
 *   symbols_shortname.c a demangled name without parameters, as perf shows it
 *   symbols_util.c   an arena and a 64-bit-key hash map
 */
#ifndef PERFEV_SYMBOLS_INTERNAL_H
#define PERFEV_SYMBOLS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <elfutils/libdwfl.h>

#include "perfev/record.h"
#include "perfev/symbols.h"

#define SYM_UNKNOWN "[unknown]"

/* ---- arena and map (symbols_util.c) ------------------------------------ */

/* Bump allocator: everything lives until pev__arena_free. */
struct pev__arena {
	struct arena_chunk *head;
};

/* Returns size zeroed bytes (16-byte aligned), or NULL when out of memory. */
void *pev__arena_alloc(struct pev__arena *a, size_t size);
/* Copies s (len bytes, then a NUL) into the arena. */
char *pev__arena_strndup(struct pev__arena *a, const char *s, size_t len);
char *pev__arena_strdup(struct pev__arena *a, const char *s);
void pev__arena_free(struct pev__arena *a);

/* Open-addressing hash map from a 64-bit key to a non-NULL pointer. */
struct pev__u64map {
	uint64_t *keys;
	void **vals; /* NULL: free slot */
	size_t cap;  /* a power of two, or 0 */
	size_t len;
};

void *pev__u64map_get(const struct pev__u64map *m, uint64_t key);
/* Inserts or replaces. Returns 0 or -ENOMEM. */
int pev__u64map_put(struct pev__u64map *m, uint64_t key, void *val);
/* Removes key; returns its value or NULL. */
void *pev__u64map_del(struct pev__u64map *m, uint64_t key);
void pev__u64map_free(struct pev__u64map *m);
/* Calls fn on every value (in no particular order). */
void pev__u64map_each(const struct pev__u64map *m, void (*fn)(void *val, void *ctx), void *ctx);

uint64_t pev__hash_str(const char *s);

/* ---- DSOs (symbols_dso.c) ---------------------------------------------- */

/*
 * The address ranges of a DSO's compile units that .debug_aranges does not
 * list (symbols_cus.c), built on the first address the aranges miss.
 */
struct dso_cus {
	struct cu_range *ranges; /* sorted by address */
	size_t n;
	bool built;
};

/* One symbol of a DSO (shared by every address inside it). */
struct dso_sym {
	uint64_t start; /* ELF vaddr */
	uint64_t size;
	const char *name; /* display name: demangled when possible; NULL until named */
	const char *raw;  /* the symbol table's name (index entries) */
	bool mangled;     /* a _Z name left as it is */
	bool label;       /* size 0 in the table: size is the reach the index gives it */
};

/*
 * The symbol index of a DSO (symbols_index.c): range k covers the ELF
 * addresses [at[k], at[k + 1]) and names syms[sym[k]], or no symbol when
 * sym[k] is UINT32_MAX; the last range runs to the end of the address space.
 */
struct sym_index {
	struct sym_index *next_same_key; /* indexes whose build ids key alike */
	struct sym_index *next_all;      /* every index of the symbolizer */
	unsigned char bid[PEV_BUILD_ID_MAX];
	size_t bid_len; /* 0: not shared */
	uint64_t *at;
	uint32_t *sym;
	size_t nranges;
	struct dso_sym *syms;
	size_t nsyms;
};

/* One resolved address of a DSO: the cache entry. */
struct dso_addr {
	const struct dso_sym *sym; /* NULL: no symbol */
	const char *file;
	unsigned line, column;
	const struct pev_symbol_frame *frames;
	unsigned nframes;
};

/* The named stubs of a DSO's .plt (symbols_plt.c), built at its first unnamed address. */
struct dso_plt {
	uint64_t header;    /* ELF vaddr of the PLT's header (its first entry) */
	uint64_t start;     /* ELF vaddr of the first stub after the header */
	uint64_t entsize;   /* bytes per stub */
	const char **names; /* n names, "sin@plt" (arena) */
	size_t n;
	bool built;
};

struct sym_dso {
	struct sym_dso *next_same_hash; /* DSOs whose path hashes alike */
	char *path;                     /* the path as mapped: what results show */
	char *open_path;                /* the file to open (path, or via /proc/PID/root) */
	unsigned char want_bid[PEV_BUILD_ID_MAX]; /* build id the mapping recorded */
	size_t want_bid_len;                      /* 0: none recorded */
	bool is_vdso;

	/* Filled when first needed (dso_open). */
	bool opened;
	enum pev_symbol_status status; /* OK: mod usable */
	unsigned flags;                /* PEV_SYMBOL_BY_BUILD_ID */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	unsigned char bid[PEV_BUILD_ID_MAX]; /* build id of the file read */
	size_t bid_len;
	/* PT_LOAD headers of the file read. offsets_known is false for a
	 * debuginfo-only file, whose p_offset fields are not the real ones. */
	struct dso_load {
		uint64_t vaddr, offset, filesz, memsz;
		bool exec;
	} *loads;
	size_t nloads;
	bool offsets_known;
	bool dwarf_tried;
	bool has_dwarf;
	const char *debug_file; /* separate debuginfo file, or NULL */
	struct dso_cus cus;

	struct pev__u64map addrs; /* ELF vaddr -> struct dso_addr */
	struct pev__u64map syms;  /* start -> struct dso_sym, for PLT stubs and DWARF functions */
	struct sym_index *index;  /* built at the first lookup; owned by the symbolizer */
	struct dso_plt plt;
};

/* ---- address spaces (symbols_maps.c) ----------------------------------- */

struct sym_map {
	uint64_t start, end, pgoff;
	struct sym_dso *dso; /* NULL: not a file (anon, heap, ...) */
	const char *label;   /* for dso == NULL: "//anon", "[heap]", ... (arena) */
	/* the process whose mapping record made it (a forked child inherits it):
	 * anonymous code is named from that process's JIT map, as perf names it */
	int32_t owner;
};

struct sym_jit; /* symbols_jit.c */
struct sym_unwind; /* symbols_unwind.c */

struct sym_proc {
	int32_t pid;
	struct sym_map *maps; /* sorted by start, disjoint */
	size_t nmaps, cap;
	/* bumped by every change of the mappings of files (not by anonymous
	 * memory): what the unwinder's modules are made of */
	uint64_t files_version;
	struct sym_unwind *unwind; /* the unwinder of its samples, or NULL */
};

/* ---- the object --------------------------------------------------------- */

struct sym_kernel; /* symbols_kernel.c */

struct pev_symbols {
	struct pev_symbols_opts opts;
	char *kallsyms_path, *jit_dir, *debug_dir, *buildid_cache;
	char *debuginfo_path; /* libdwfl's search path string */
	Dwfl_Callbacks callbacks;

	struct pev__arena arena;
	struct pev__u64map procs; /* pid (as uint32) -> struct sym_proc */
	struct pev__u64map dsos;  /* hash of path -> struct sym_dso (chain) */
	struct pev__u64map labels; /* hash of label -> its one copy (arena) */
	struct pev__u64map indexes; /* build id key -> struct sym_index (chain) */
	struct sym_index *all_indexes;
	/* pid -> struct sym_jit. Kept after the process exits: results point
	 * into them, and samples may still name the pid. */
	struct pev__u64map jits;
	/* Threads known to run (symbols_threads.c): pid -> struct sym_live, and
	 * (pid << 32 | tid) -> the generation of pid it was counted in. */
	struct pev__u64map live, threads;
	uintptr_t live_gen; /* the last generation handed out */
	/* pid -> struct sym_jitdump, from the MMAP of a jit-PID.dump; dumps a
	 * pid no longer names chain on old_jitdumps (results point into them). */
	struct pev__u64map jitdumps;
	struct sym_jitdump *old_jitdumps;

	struct sym_dso *vdso; /* the "[vdso]" DSO, when mapped */

	struct sym_kernel *kernel;
	bool kernel_tried;
	/* Where the recording's kernel text started (pev__kernel_text_at). */
	uint64_t kernel_text_addr;
	bool kernel_text_set, kernel_text_is_stext;
	const char *kallsyms_fallback; /* pev__kernel_list_fallback; static, not owned */
	/* The recording's kernel modules, by start (pev__kernel_module_at) */
	struct sym_kmod *kmods;
	size_t nkmods, kmods_cap;
	int kernel_code; /* pev_symbols_read_kernel's answer */
	char *kernel_msg;
	struct pev_error kernel_err;

	struct pev_symbols_stats st;
	uint64_t unwind_clock; /* samples unwound: the age of each process's unwinder */
};

/* symbols_maps.c */
struct sym_proc *pev__sym_proc(struct pev_symbols *s, int32_t pid, bool create);
void pev__sym_proc_free(struct sym_proc *p);
const struct sym_map *pev__sym_map_find(const struct sym_proc *p, uint64_t addr);
int pev__sym_map_insert(struct pev_symbols *s, struct sym_proc *p, uint64_t start, uint64_t end,
			uint64_t pgoff, struct sym_dso *dso, const char *label);
int pev__sym_read_maps(struct pev_symbols *s, int32_t pid, struct pev_error *err);

/* symbols_threads.c: pid starts afresh (exec, a new process): its known threads are forgotten. */
void pev__threads_new_generation(struct pev_symbols *s, int32_t pid);
/* symbols_threads.c: frees what the symbolizer knows of threads. */
void pev__threads_free(struct pev_symbols *s);

/* symbols.c: adds mapping [start, end) of path to p, files opened under root
 * (NULL: "/"). Returns 0 or -ENOMEM. */
int pev__sym_add(struct pev_symbols *s, struct sym_proc *p, uint64_t start, uint64_t end,
		 uint64_t pgoff, const char *path, const char *root, const unsigned char *bid,
		 size_t bid_len);

/* symbols_dso.c */
/* Finds or creates the DSO for path (opened through open_path, NULL: path). */
struct sym_dso *pev__dso_get(struct pev_symbols *s, const char *path, const char *open_path,
			     const unsigned char *bid, size_t bid_len);
void pev__dso_free(struct sym_dso *d);
/* Resolves addr of mapping m into out. Returns 0 or -ENOMEM. */
int pev__dso_resolve(struct pev_symbols *s, const struct sym_map *m, uint64_t addr,
		     struct pev_symbol *out);
/*
 * Demangles a C++ name into the arena, with short_form as perf shows it
 * (pev__sym_short_name); NULL when not mangled or no demangler.
 */
const char *pev__sym_demangle(struct pev__arena *a, const char *name, bool short_form);
/* A C++ name demangled in its short form, malloc'ed; NULL when not mangled or no demangler. */
char *pev__sym_demangle_short(const char *name);

/* symbols_shortname.c */
/*
 * The part of a demangled name perf shows by default: without parameter
 * list, qualifiers, return type and clone suffixes. Returns its offset in
 * name; *len gets its length (the whole name when it is no function).
 */
size_t pev__sym_short_name(const char *name, size_t *len);

/* symbols_alias.c */
/* What perf's rule among aliases looks at in a symbol. */
struct alias_sym {
	const char *name;
	bool sized; /* a size, or the last at its address (perf stretches it) */
	unsigned char type, bind;
};

/*
 * Whether perf reads sym (name its name) among a DSO's symbols; machine is
 * the ELF file's e_machine: on Arm (EM_ARM, EM_AARCH64) a mapping symbol
 * ("$x", "$d", "$a", "$t", alone or followed by "."), which marks where code
 * or data starts and names no function, is left out, as perf leaves it out.
 */
bool pev__alias_counts(const char *name, const GElf_Sym *sym, unsigned machine);
/* Whether b wins over a, which comes before it in the symbol table. */
bool pev__alias_beats(const struct alias_sym *b, const struct alias_sym *a);

/* symbols_index.c */
/* A symbol the index is made of. */
struct pev__index_sym {
	uint64_t start, size;
	uint64_t limit; /* for size 0: the end of its section (0: none known) */
	const char *name;
	uint32_t order; /* its index in the symbol table: ties keep it */
	unsigned char type, bind; /* STT_*, STB_* */
};

/*
 * An index of the n symbols c[] (sorted in place; the names are borrowed
 * and must outlive it), or NULL when out of memory.
 */
struct sym_index *pev__index_new(struct pev__index_sym *c, size_t n);
/* d's index (d opened, status OK): found by build id or built now; NULL when out of memory. */
struct sym_index *pev__dso_index(struct pev_symbols *s, struct sym_dso *d);
/* The symbol whose range holds vaddr (an ELF address of the DSO), or NULL. */
struct dso_sym *pev__index_find(const struct sym_index *x, uint64_t vaddr);
/* The symbol that starts last at or before vaddr, whatever it holds, or NULL. */
struct dso_sym *pev__index_before(const struct sym_index *x, uint64_t vaddr);
/* The bytes x takes. */
size_t pev__index_bytes(const struct sym_index *x);
void pev__index_free(struct sym_index *x);

/* symbols_plt.c */
/*
 * Whether vaddr (an ELF vaddr of d, opened) lies in a stub of d's .plt:
 * returns 1 with the stub's *start, *size and *name ("sin@plt", owned by
 * s's arena), 0 when not (or d has no PLT names), -ENOMEM. An address in
 * the PLT's header (the lazy-binding trampoline) is named as perf names it:
 * by the symbol of size 0 before the PLT (`_init`, which perf stretches to
 * the first stub), when there is one.
 */
int pev__dso_plt_find(struct pev_symbols *s, struct sym_dso *d, uint64_t vaddr, uint64_t *start,
		      uint64_t *size, const char **name);

/* symbols_cus.c */
/*
 * Finds the compile unit DIE of mod's DWARF that holds vaddr (a module
 * address): through .debug_aranges, else through c's table of the other
 * units. Returns 1 with *out and *bias (DWARF address = vaddr - bias) set,
 * 0 when no unit holds vaddr, -ENOMEM.
 */
int pev__dso_cu_find(struct dso_cus *c, Dwfl_Module *mod, uint64_t vaddr, Dwarf_Die *out,
		     uint64_t *bias);
void pev__dso_cus_free(struct dso_cus *c);

/* symbols_debuginfo.c: libdwfl's find_debuginfo callback. The module's userdata is the
 * struct pev_symbols. Searches perf's build-id cache, then the disk as libdwfl does; asks
 * debuginfod (through dwfl_standard_find_debuginfo) only when DEBUGINFOD_URLS is set. Returns an fd and sets
 * *debuginfo_file_name (malloc'ed, libdwfl frees it), or -1. */
int pev__find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, GElf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name);

/* symbols_kernel.c */
int pev__kernel_load(struct pev_symbols *s, struct pev_error *err);
void pev__kernel_resolve(struct pev_symbols *s, uint64_t addr, struct pev_symbol *out);
/*
 * Tells s where the kernel a recording was made on had its text: symbol
 * name ("_text" or "_stext", as its "[kernel.kallsyms]_text" mapping names
 * it) at addr. Kernel addresses are then looked up moved by how far the
 * kallsyms list's same symbol lies from addr (a kernel placed at random,
 * KASLR, listed by another boot), and reported where the recording had them.
 */
void pev__kernel_text_at(struct pev_symbols *s, const char *name, uint64_t addr);
/*
 * Tells s that the recording's kernel had a module at [start, end), mapped
 * from path (its file, "/lib/modules/.../nfs.ko.xz", or "[nfs]"): a kernel
 * address there is the module's, past its last listed symbol too. Other
 * kernel mappings are ignored. 0, or -ENOMEM.
 */
int pev__kernel_module_at(struct pev_symbols *s, uint64_t start, uint64_t end, const char *path);
/*
 * The list to read instead of s's kallsyms file when that one lacks the
 * symbol pev__kernel_text_at named (it cannot be moved to the recording's
 * boot). path must outlive s (a string literal: "/proc/kallsyms").
 */
void pev__kernel_list_fallback(struct pev_symbols *s, const char *path);
void pev__kernel_free(struct sym_kernel *k);
uint64_t pev__kernel_count(const struct sym_kernel *k);

/* symbols_jit.c */
/* Looks addr up in pid's JIT map; fills out and returns true when found. */
bool pev__jit_resolve(struct pev_symbols *s, int32_t pid, uint64_t addr, struct pev_symbol *out);
void pev__jit_free(struct sym_jit *j);
/* The path of pid's JIT map (DIR/perf-PID.map, owned by s), or NULL when out of memory. */
const char *pev__jit_map_path(struct pev_symbols *s, int32_t pid);

/* symbols_dso.c: d's ELF image (opened when first needed) for reading its
 * segments and CFI, or NULL when d did not open or only a debuginfo file
 * (whose segment offsets are not the real ones) stands for it. d owns it. */
Elf *pev__dso_elf(struct pev_symbols *s, struct sym_dso *d);

/* symbols_unwind.c */
/* One frame of an unwound user stack. */
struct pev__unwind_frame {
	uint64_t pc;
	bool activation; /* the pc of an interrupted frame, not a return address */
};

/*
 * Unwinds the user stack of a sample of pid (thread tid) from its register
 * dump (PERF_SAMPLE_REGS_USER) and stack copy (PERF_SAMPLE_STACK_USER):
 * stores up to max frames in out, innermost (the sampled pc) first. The
 * walk stops where the call frame information or the copy ends; a garbage
 * or truncated copy gives a shorter chain, never a crash. Returns the
 * number of frames (0 when the registers hold no user pc and stack
 * pointer; 1, the pc, when it is in no mapped ELF file of pid: JIT code,
 * as perf 6.1), PEV_ENOMEM,
 * PEV_EBADARG, or PEV_EUNSUPPORTED
 * for a process of a machine without a register table (x86-64 and arm64
 * have one; the machine is that of the process's mapped ELF files).
 */
int pev__symbols_unwind(struct pev_symbols *s, int32_t pid, int32_t tid,
			const struct pev_sample_regs *regs, const struct pev_sample_stack *stack,
			struct pev__unwind_frame *out, size_t max);
/*
 * arm64 frame-pointer call chains: the kernel's walk misses the caller of a
 * leaf function that has not saved its link register yet (that caller is in
 * LR only). When pid's files are arm64 code, regs (a sample's user
 * registers) hold LR, and the CFI of the function at leaf says its return
 * address is still in LR, sets *caller to LR - 1 (the call, as unwound
 * frames are given) and returns 1; LR - 1 too where no CFI covers leaf or
 * its CFA is built on the frame pointer, as perf's unwinder falls back to
 * LR there; LR itself where it is the signal return trampoline (a signal
 * handler's return). Returns 0 when there is none to add, PEV_ENOMEM, or
 * PEV_EBADARG. perf 6.1 adds the same frame.
 */
int pev__symbols_leaf_caller(struct pev_symbols *s, int32_t pid, int32_t tid, uint64_t leaf,
			     const struct pev_sample_regs *regs, uint64_t *caller);
void pev__unwind_free(struct sym_unwind *u);
/*
 * The perf register dump index (PERF_SAMPLE_REGS_USER order) the unwinder
 * gives DWARF register dwarf of ELF machine machine (EM_X86_64,
 * EM_AARCH64); dwarf UINT_MAX asks for the pc's index. Returns -1 for a
 * register it gives none, PEV_EUNSUPPORTED for a machine without a table.
 */
int pev__unwind_perf_reg(unsigned machine, unsigned dwarf);

/* symbols_jitdump.c */
/* One line entry of a jitdump's DEBUG_INFO record. */
struct jitdump_line {
	uint64_t addr;
	const char *file; /* in the dump's arena */
	uint32_t line;
};

/* One piece of code a jitdump loaded (CODE_LOAD) or moved (CODE_MOVE). */
struct jitdump_code {
	uint64_t start, size;
	uint64_t time;    /* the record's time */
	uint32_t order;   /* its place in the file: later ones win */
	const char *name; /* the function (arena) */
	const char *dso;  /* "DIR/jitted-PID-INDEX.so", as perf inject --jit names it (arena) */
	const struct jitdump_line *lines; /* sorted by address, or NULL */
	uint32_t nlines;
};

/* A jitdump file: read once, at its first lookup. */
struct sym_jitdump {
	struct sym_jitdump *next_old; /* pev_symbols.old_jitdumps */
	char *path, *dir;
	bool loaded;
	uint64_t read_size;  /* bytes read: a lookup that misses reads a grown file again */
	bool swapped;        /* written in the other byte order */
	bool arch_timestamp; /* times are the CPU's counter: not compared with samples' */
	bool truncated;      /* the last record was cut short */
	unsigned bad;        /* records skipped as malformed */
	uint32_t version, pid; /* the header's */
	struct jitdump_code *code; /* sorted by start, then order */
	size_t n, cap;
	uint64_t max_size;
	struct pev__u64map by_index; /* code index -> name, for CODE_MOVE */
	struct pev__arena arena;
};

/* A dump for path (not read yet), or NULL when out of memory. */
struct sym_jitdump *pev__jitdump_new(const char *path);
void pev__jitdump_free(struct sym_jitdump *d);
/*
 * Parses len bytes of a jitdump into d: the pieces of code it loads and
 * moves. Returns 0 (a record cut short or malformed ends or is skipped:
 * d->truncated, d->bad), -EINVAL when the header is not a jitdump's, or
 * -ENOMEM. Never reads outside [bytes, bytes + len).
 */
int pev__jitdump_parse(struct sym_jitdump *d, const void *bytes, size_t len);
/*
 * The code of d (read now when not yet) that holds addr at `time`: the one
 * loaded last no later than time (UINT64_MAX: the one loaded last in the
 * file). *from and *until get the times between which the answer holds.
 */
const struct jitdump_code *pev__jitdump_find(struct sym_jitdump *d, uint64_t addr, uint64_t time,
					     uint64_t *from, uint64_t *until);
/* Looks addr up in pid's jitdump at `time`; fills out and returns true when found. */
bool pev__jitdump_resolve(struct pev_symbols *s, int32_t pid, uint64_t addr, uint64_t time,
			  struct pev_symbol *out, uint64_t *from, uint64_t *until);
/* Whether path's file name is jit-PID.dump; *pid (optional) gets PID. */
bool pev__jitdump_path(const char *path, int32_t *pid);
/* Makes path pid's jitdump. Returns 0 or -ENOMEM. */
int pev__jitdump_add(struct pev_symbols *s, int32_t pid, const char *path);
/* pid's process execs or exits: its jitdump names none of its code any more. */
void pev__jitdump_forget(struct pev_symbols *s, int32_t pid);

/*
 * pev_symbols_resolve at a time (symbols.c): jitdump code loaded after time
 * does not name addr (UINT64_MAX: the code loaded last); *from and *until
 * (optional) get the times between which the answer holds.
 */
int pev__symbols_resolve_at(struct pev_symbols *s, int32_t pid, uint64_t addr, uint64_t time,
			    struct pev_symbol *out, uint64_t *from, uint64_t *until);

/* symbols.c: fills out with an "[unknown]" result. */
void pev__sym_unknown(struct pev_symbol *out, enum pev_symbol_status st, const char *dso,
		      uint64_t dso_addr);

#endif /* PERFEV_SYMBOLS_INTERNAL_H */
