/* SPDX-License-Identifier: MIT */
/*
 * perfev/symbols.h - addresses to functions, files and lines.
 *
 * A symbolizer (struct pev_symbols) turns (pid, address) into the function
 * that holds the address, its offset in it, the file it was loaded from
 * (DSO) and its build id, the source file and line when debuginfo exists,
 * and the chain of inlined functions at that address. It knows the
 * address space of each process in one of two ways:
 *
 *   - live, from /proc/PID/maps (pev_symbols_read_process, or on first use
 *     with PEV_SYMBOLS_PROC), for a process that is running;
 *   - fed from records (MMAP/MMAP2, FORK, COMM with the exec flag, EXIT):
 *     pev_symbols_add_mapping, pev_symbols_fork, pev_symbols_exec,
 *     pev_symbols_thread and pev_symbols_exit_thread keep each process's
 *     map as the kernel did, until its last thread exits.
 *
 * Kernel addresses come from /proc/kallsyms, code of JIT compilers from
 * a jitdump (jit-PID.dump) the process maps and /tmp/perf-PID.map, everything else from the ELF files through elfutils'
 * libdwfl. Each file is opened once however many processes map it, and
 * each address is looked up once: later lookups come from a cache.
 *
 *   struct pev_symbols *s;
 *   struct pev_symbol sym = PEV_SYMBOL_INIT;
 *   pev_symbols_new(NULL, &s, &err);
 *   pev_symbols_read_process(s, pid, &err);
 *   pev_symbols_resolve(s, pid, ip, &sym);   // sym.name, sym.offset, sym.dso, sym.file:sym.line
 *   pev_symbols_free(s);
 *
 * Results never fail for want of a file: an address in a DSO that is
 * missing, unreadable, not ELF, stripped or of another build resolves to
 * "[unknown]" with the DSO's path and a status saying why.
 * share/doc/perfev/SYMBOLS.md has the order in which sources are tried and the limits.
 */
#ifndef PERFEV_SYMBOLS_H
#define PERFEV_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "perfev/common.h"
#include "perfev/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A symbolizer: address spaces, opened DSOs, their caches. Opaque. */
struct pev_symbols;

/** The longest build id perfev keeps, in bytes (GNU build ids are 16 or 20). */
#define PEV_BUILD_ID_MAX 64

/* Flags of struct pev_symbols_opts. */
/** Keep C++ names as the symbol table spells them ("_ZN3foo3barEv"). */
#define PEV_SYMBOLS_NO_DEMANGLE (1u << 0)
/** Read no DWARF: no file:line and no inline frames (faster to open and look up). */
#define PEV_SYMBOLS_NO_SRCLINE (1u << 1)
/** Read file:line but not the chain of inlined functions. */
#define PEV_SYMBOLS_NO_INLINE (1u << 2)
/** Never read the kernel's symbols: kernel addresses resolve to "[unknown]". */
#define PEV_SYMBOLS_NO_KERNEL (1u << 3)
/**
 * A pid the symbolizer knows nothing about is read from /proc/PID/maps on its
 * first lookup. Meant for live profiling; leave it off when resolving a
 * recording, where a pid may since have been reused by another program.
 */
#define PEV_SYMBOLS_PROC (1u << 4)
/**
 * Demangle C++ names as perf shows them by default: without parameter list,
 * qualifiers, return type and clone suffixes ("geo::Circle::area", not
 * "geo::Circle::area() const").
 */
#define PEV_SYMBOLS_SHORT_NAMES (1u << 5)
/**
 * Read the chain of inlined functions but no file:line (frames' file NULL,
 * line 0): the DWARF lookup that reads least (no line tables).
 */
#define PEV_SYMBOLS_NO_LINES (1u << 6)

/** Options of pev_symbols_new. Initialize with PEV_SYMBOLS_OPTS_INIT. */
struct pev_symbols_opts {
	size_t sz;            /**< sizeof(struct pev_symbols_opts), set by the INIT macro */
	unsigned flags;       /**< PEV_SYMBOLS_* flags */
	const char *kallsyms; /**< the kernel's symbol list; NULL: "/proc/kallsyms" */
	const char *jit_dir;  /**< where perf-PID.map files are; NULL: "/tmp" */
	/** Debuginfo root (holds .build-id/xx/rest.debug and path-mirrored
	 *  files); NULL: $PERFEV_DEBUG_DIR when set, else "/usr/lib/debug". */
	const char *debug_dir;
	/** perf's build-id cache (holds .build-id/xx/rest/{elf,debug}); NULL:
	 *  $PERF_BUILDID_DIR when set, else $HOME/.debug; "": none. */
	const char *buildid_cache;
};

/** Default options. */
#define PEV_SYMBOLS_OPTS_INIT PEV_SIZED_INIT(struct pev_symbols_opts)

/** Why a lookup gave what it gave (struct pev_symbol.status). */
enum pev_symbol_status {
	PEV_SYMBOL_OK = 0,                /**< a symbol holds the address */
	PEV_SYMBOL_NO_MAPPING = 1,        /**< no mapping of the process holds the address */
	PEV_SYMBOL_ANON = 2,              /**< anonymous memory, and no JIT map entry for it */
	PEV_SYMBOL_DSO_MISSING = 3,       /**< the DSO is not on disk (nor found by build id) */
	PEV_SYMBOL_DSO_UNREADABLE = 4,    /**< the DSO cannot be opened (permissions, I/O) */
	PEV_SYMBOL_NOT_ELF = 5,           /**< the DSO is not an ELF file, or a damaged one */
	PEV_SYMBOL_BUILDID_MISMATCH = 6,  /**< the file on disk is another build than the one mapped */
	PEV_SYMBOL_NO_SYMBOL = 7,         /**< the file has no symbol for the address (stripped?) */
	PEV_SYMBOL_KERNEL_UNAVAILABLE = 8, /**< kernel symbols cannot be read (pev_symbols_kernel_message) */
};

/* Flags of struct pev_symbol. */
/** A kernel address (core kernel or module). */
#define PEV_SYMBOL_KERNEL (1u << 0)
/** Resolved through a JIT map (perf-PID.map) or a jitdump (jit-PID.dump). */
#define PEV_SYMBOL_JIT (1u << 1)
/** An address in the vDSO. */
#define PEV_SYMBOL_VDSO (1u << 2)
/** The name is a C++ mangled name left as it is (no demangler, or PEV_SYMBOLS_NO_DEMANGLE). */
#define PEV_SYMBOL_MANGLED (1u << 3)
/** file, line and frames come from DWARF debuginfo. */
#define PEV_SYMBOL_DEBUGINFO (1u << 4)
/** The symbols were read from a file found by build id (perf's cache or the
 *  debuginfo tree) because the file at the DSO's path is missing or another build. */
#define PEV_SYMBOL_BY_BUILD_ID (1u << 5)
/** The address is in a mapped file (an ELF file, the vDSO, a memfd): file_offset holds its offset in it. */
#define PEV_SYMBOL_IN_FILE (1u << 6)

/**
 * One function of an inline chain. `function` is the function's name
 * (demangled like the symbol), `file`:`line`:`column` the position in it:
 * for the innermost frame, the address's own source position; for each
 * outer frame, the place where it calls the frame inside it. Strings are
 * owned by the symbolizer; any may be NULL (line 0) when DWARF lacks it.
 */
struct pev_symbol_frame {
	const char *function; /**< the function's name, or NULL */
	const char *file;     /**< its source file, or NULL */
	unsigned line;        /**< the line in file, or 0 */
	unsigned column;      /**< the column in that line, or 0 */
};

/**
 * What an address resolved to. Initialize with PEV_SYMBOL_INIT;
 * pev_symbols_resolve writes no more than `sz` bytes of it. Every string and
 * array it points to is owned by the symbolizer and stays valid until
 * pev_symbols_free.
 */
struct pev_symbol {
	size_t sz;                       /**< sizeof(struct pev_symbol), set by the INIT macro */
	enum pev_symbol_status status;   /**< PEV_SYMBOL_OK, or why name is "[unknown]" */
	unsigned flags;                  /**< PEV_SYMBOL_* flags */
	/** The function (demangled), or "[unknown]". Never NULL. */
	const char *name;
	uint64_t offset;                 /**< address - start; 0 when unknown */
	uint64_t start;                  /**< the symbol's first address, in the caller's address space */
	uint64_t size;                   /**< the symbol's size in bytes; 0 when unknown */
	/**
	 * Where the address lives: the DSO's path as mapped, "[vdso]",
	 * "[kernel.kallsyms]", "[MODULE]" for a kernel module, the JIT map's
	 * path (also for unnamed code in anonymous memory, the heap or a
	 * stack, as perf), "DIR/jitted-PID-INDEX.so" for jitdump code (the file
	 * perf inject --jit would write), the label of another mapping that is
	 * no file, or NULL when no mapping holds the address.
	 */
	const char *dso;
	/** The address in the DSO's own numbering (ELF virtual address, what
	 *  `addr2line -e DSO` takes); the address itself for the kernel and JIT code. */
	uint64_t dso_addr;
	const unsigned char *build_id;   /**< build id of the file read, or NULL */
	size_t build_id_size;            /**< its length in bytes, or 0 */
	/** Source file of the address (innermost, inlined code included), or NULL.
	 *  Found with or without .debug_aranges (clang emits none by default). */
	const char *file;
	unsigned line;                   /**< its line, or 0 */
	unsigned column;                 /**< its column, or 0 */
	/**
	 * The functions active at the address, innermost first: each function
	 * inlined there, then the function that holds them (whose name usually
	 * equals `name`). 1 entry when nothing is inlined; 0 without DWARF.
	 */
	const struct pev_symbol_frame *frames;
	unsigned nframes;                /**< entries of frames */
	/** The separate debuginfo file DWARF came from, or NULL (none, or in the DSO itself). */
	const char *debug_file;
	/**
	 * With PEV_SYMBOL_IN_FILE: the address's offset in the mapped file
	 * (address - mapping start + the mapping's file offset), what perf
	 * shows for an unresolved user address and `objdump --start-address`
	 * takes for a PIE or shared library; the same in every process that
	 * maps the file. 0 otherwise (kernel, anonymous memory, no mapping).
	 */
	uint64_t file_offset;
};

/** An initializer for struct pev_symbol. */
#define PEV_SYMBOL_INIT PEV_SIZED_INIT(struct pev_symbol)

/** Counters of a symbolizer's work (pev_symbols_stats). Initialize with PEV_SYMBOLS_STATS_INIT. */
struct pev_symbols_stats {
	size_t sz;               /**< sizeof(struct pev_symbols_stats), set by the INIT macro */
	uint64_t lookups;        /**< pev_symbols_resolve calls that resolved an address */
	uint64_t cache_hits;     /**< of them, answered from a DSO's address cache */
	uint64_t unknown;        /**< of them, answered "[unknown]" */
	uint64_t dso_opens;      /**< ELF files opened (main files, vDSO images, files found by build id) */
	uint64_t dsos;           /**< DSOs known (mapped), opened or not */
	uint64_t processes;      /**< address spaces known */
	uint64_t mappings;       /**< mappings in them */
	uint64_t kernel_symbols; /**< symbols read from kallsyms (0 when unavailable or unread) */
	uint64_t jit_reads;      /**< JIT map files read (re-reads after they grew included) */
	/** Symbols in the DSOs' symbol indexes (a build id is indexed once, however many DSOs map it). */
	uint64_t index_symbols;
	uint64_t index_bytes;    /**< memory the symbol indexes take, in bytes */
	/** Processes whose stack unwinder (a Dwfl with their modules and CFI) is kept now:
	 *  at most 64, the one used least recently ends first. */
	uint64_t unwinders;
	/** Unwinders built: one per process unwound, again after its mappings of files changed. */
	uint64_t unwind_builds;
};

/** An initializer for struct pev_symbols_stats. */
#define PEV_SYMBOLS_STATS_INIT PEV_SIZED_INIT(struct pev_symbols_stats)

/**
 * Creates a symbolizer with no address spaces yet. opts may be NULL
 * (defaults). Opens nothing until an address needs it. Stores it in *out
 * and returns 0, PEV_EBADARG (a NULL out, options this library does not
 * know) or PEV_ENOMEM; err (optional) says why.
 */
PEV_API int pev_symbols_new(const struct pev_symbols_opts *opts, struct pev_symbols **out,
			    struct pev_error *err);

/** Frees the symbolizer, every DSO it opened and every result it handed out. NULL is ignored. */
PEV_API void pev_symbols_free(struct pev_symbols *s);

/**
 * Records that process pid maps [start, start + len) from file offset pgoff
 * of `path`, as an MMAP or MMAP2 record says. Mappings it overlaps are cut
 * back or dropped, as mmap(2) with MAP_FIXED does. path is copied; it may
 * be a file, "[vdso]", "//anon", "[heap]", "[stack]" or any label that
 * does not start with '/' (anonymous memory: looked up in the JIT map).
 * A path whose file name is jit-PID.dump is a JIT's jitdump: it names the
 * code of process pid (read at its first lookup; share/doc/perfev/SYMBOLS.md,
 * "JIT code").
 * build_id (build_id_size bytes, at most PEV_BUILD_ID_MAX; NULL/0 when not
 * known) is the build id of the file that was mapped: a file on disk with
 * another build id is then not used (see pev_symbol.status).
 * Kernel mappings (pid -1) are accepted and ignored: kernel addresses are
 * resolved through kallsyms. Returns 0, PEV_EBADARG or PEV_ENOMEM.
 */
PEV_API int pev_symbols_add_mapping(struct pev_symbols *s, int32_t pid, uint64_t start,
				    uint64_t len, uint64_t pgoff, const char *path,
				    const unsigned char *build_id, size_t build_id_size);

/**
 * Reads the address space of the running process pid from /proc/PID/maps,
 * replacing what was known of pid. Files of a process in another mount
 * namespace are opened through /proc/PID/root. Returns 0, PEV_ESRCH (no
 * such process), PEV_EACCES/PEV_EPERM (not allowed to read its maps),
 * PEV_EBADARG or PEV_ENOMEM; err (optional) says why and what to do.
 */
PEV_API int pev_symbols_read_process(struct pev_symbols *s, int32_t pid, struct pev_error *err);

/**
 * Finds the file that a path in /proc/PID/maps names. The kernel writes a
 * newline in a path as the four characters "\012" and every other byte as
 * it is (a backslash too), so "\012" may also be the file's own text: of
 * the readings of name (each "\012" a newline or not), the one whose file
 * has inode ino (the line's inode column; 0: unknown) is chosen, else the
 * first that exists, trying every escape as a newline first, else that
 * reading. Files are looked for under root (a prefix such as
 * "/proc/PID/root"; NULL: "/"). A name without "\012" is copied as it is,
 * with no system call. Writes the path into path (size bytes, terminated
 * when size > 0) and returns its whole length, as snprintf. NULL name is "".
 * pev_symbols_read_process and perfev's recorder read maps through it.
 */
PEV_API size_t pev_maps_name_lookup(const char *name, uint64_t ino, const char *root, char *path,
				    size_t size);

/**
 * A FORK record of a new process: child starts with a copy of parent's
 * mappings (anonymous code it inherits is looked up in perf-PARENT.map, as
 * perf does; code it maps itself in perf-CHILD.map). Threads of one process
 * share one address space: parent == child is a no-op. An unknown parent
 * (or -1) gives the child an empty map: a process perf record found
 * running (PEV_RECORD_MISC_FORK_EXEC) whose own mappings follow. Returns
 * 0, PEV_EBADARG or PEV_ENOMEM.
 */
PEV_API int pev_symbols_fork(struct pev_symbols *s, int32_t parent, int32_t child);

/**
 * A COMM record with the exec flag: pid runs a new program. Its old
 * mappings stay until the new program's mappings replace the ranges they
 * overlap, as perf keeps them: the kernel writes this record while execve
 * still runs, so samples taken after it (page faults of the loader) still
 * return to the old program's code (libc's execve). Its JIT maps and dumps
 * are forgotten. Returns 0 or PEV_EBADARG.
 */
PEV_API int pev_symbols_exec(struct pev_symbols *s, int32_t pid);

/**
 * Forgets pid's address space now (and the threads known to run in it).
 * DSOs stay open and cached for other processes, and results handed out
 * stay valid. For EXIT records use pev_symbols_exit_thread, which keeps the
 * space while another thread of the process runs. Returns 0 or PEV_EBADARG.
 */
PEV_API int pev_symbols_exit(struct pev_symbols *s, int32_t pid);

/**
 * Thread tid of process pid runs: a COMM or FORK record names it, or a
 * sample was taken in it. Call it after pev_symbols_fork and
 * pev_symbols_exec for the same record (they start the pid afresh: an exec
 * leaves one thread). Returns 0, PEV_EBADARG (a negative id) or PEV_ENOMEM.
 */
PEV_API int pev_symbols_thread(struct pev_symbols *s, int32_t pid, int32_t tid);

/**
 * An EXIT record of thread tid of process pid. The address space belongs to
 * the process, not to its first thread: it is forgotten (pev_symbols_exit)
 * once the first thread (tid == pid) has exited and no other thread
 * pev_symbols_thread named is still running, so that the workers of a main
 * thread that called pthread_exit keep their symbols. An EXIT of the first
 * thread of a process no thread was named for ends it. Returns 1 when the
 * address space was forgotten, 0 when it lives on, or PEV_EBADARG.
 */
PEV_API int pev_symbols_exit_thread(struct pev_symbols *s, int32_t pid, int32_t tid);

struct pev_record;

/**
 * Feeds one record of a live session (or any decoded record) to the
 * symbolizer: MMAP and MMAP2 (data mappings skipped; MMAP2's build id
 * used) add mappings, a COMM with the exec flag starts the process afresh,
 * FORK copies the parent's map into a new process, EXIT ends a thread (and
 * the address space with the last one), and COMM and FORK name the thread.
 * Every other record changes nothing. Call it for every record in the order
 * the session delivers them, before resolving a sample's addresses. With
 * PEV_SYMBOLS_PROC, a process no record described yet is read from
 * /proc/PID/maps on its first lookup, so a session attached to a running
 * process resolves its samples without MMAP records. Returns 0, PEV_EBADARG
 * or PEV_ENOMEM.
 */
PEV_API int pev_symbols_feed(struct pev_symbols *s, const struct pev_record *rec);

/**
 * Resolves address addr of process pid into *out (see struct pev_symbol).
 * Kernel addresses (the upper half of the 64-bit address space) resolve
 * through kallsyms whatever pid is; callchain context markers
 * (PEV_CONTEXT_*) are not addresses: skip them. Returns 0 whenever out was
 * filled, "[unknown]" results included; PEV_EBADARG for a NULL argument or
 * an out->sz too small to hold the fields up to `name`, PEV_ENOMEM.
 */
PEV_API int pev_symbols_resolve(struct pev_symbols *s, int32_t pid, uint64_t addr,
				struct pev_symbol *out);

/**
 * Reads the kernel's symbols now (otherwise the first kernel address does).
 * Returns 0; PEV_EACCES when kallsyms hides its addresses from this user
 * (kptr_restrict, perf_event_paranoid) or cannot be read, PEV_ENOENT when it
 * does not exist, PEV_EUNSUPPORTED with PEV_SYMBOLS_NO_KERNEL; err says why
 * and how to fix it. Later calls return the first answer again.
 */
PEV_API int pev_symbols_read_kernel(struct pev_symbols *s, struct pev_error *err);

/**
 * Returns why kernel symbols are unavailable ("kernel symbols unavailable:
 * kptr_restrict=N ...; fix: ..."), one message for the whole symbolizer (it
 * also goes to the log once, as a warning); NULL while they are available
 * or have not been needed yet. Owned by s.
 */
PEV_API const char *pev_symbols_kernel_message(const struct pev_symbols *s);

/** Copies s's counters into *out (no more than out->sz bytes). Returns 0 or PEV_EBADARG. */
PEV_API int pev_symbols_stats(const struct pev_symbols *s, struct pev_symbols_stats *out);

/** Returns a short lowercase description of a status ("build id mismatch"). Never NULL; static. */
PEV_API const char *pev_symbol_status_str(enum pev_symbol_status status);

/**
 * Writes a one-line description of sym into buf (size bytes, always
 * terminated): "name+0xOFF (DSO)", with " FILE:LINE" when known, and for an
 * unknown symbol "[unknown] (DSO: status)". Returns the length the whole
 * line needs (like snprintf), or PEV_EBADARG.
 */
PEV_API int pev_symbol_format(const struct pev_symbol *sym, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_SYMBOLS_H */
