/* SPDX-License-Identifier: MIT */
/*
 * perfev/event.h - what to count: an event's identity.
 *
 * A struct pev_event names one event (its type, config words, breakpoint
 * fields) apart from how it is opened (struct pev_opts, perfev/opts.h). The
 * constructors below cover the fixed event kinds; probes read their PMU type
 * from sysfs. Strings an event points to are borrowed, never owned.
 */
#ifndef PERFEV_EVENT_H
#define PERFEV_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfev/abi.h"
#include "perfev/common.h"
#include "perfev/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * An event's identity. For breakpoints config1 is the address and config2
 * the length; for uprobes/kprobes config1 points to the path or function
 * name (which must stay valid until the event is opened) and config2 is
 * the offset.
 */
struct pev_event {
	uint32_t type;    /**< enum pev_type or a PMU's dynamic type */
	uint32_t bp_type; /**< breakpoints: enum pev_bp_type */
	uint64_t config;  /**< which event of that type (e.g. enum pev_hw_id) */
	uint64_t config1; /**< more event bits; breakpoint address; probe path or function */
	uint64_t config2; /**< more event bits; breakpoint length; probe offset */
	uint64_t config3; /**< more event bits, beyond config2 */
	const char *name; /**< how the user named it, for messages; may be NULL */
	const char *pmu;  /**< the PMU's sysfs name, for messages; may be NULL */
	/**
	 * Zero. The struct's size is frozen (it is an element of arrays such as
	 * struct pev_session_event): fields of later versions take this room, and
	 * a library that does not know them refuses a non-zero one (PEV_EBADARG).
	 */
	uint64_t reserved[4];
};

/** A generic hardware event (cycles, instructions, ...). */
static inline struct pev_event pev_event_hardware(enum pev_hw_id id)
{
	struct pev_event ev = {PEV_TYPE_HARDWARE, 0, (uint64_t)id, 0, 0, 0, NULL, NULL, {0}};
	return ev;
}

/** A software event (cpu-clock, task-clock, page-faults, ...). */
static inline struct pev_event pev_event_software(enum pev_sw_id id)
{
	struct pev_event ev = {PEV_TYPE_SOFTWARE, 0, (uint64_t)id, 0, 0, 0, NULL, NULL, {0}};
	return ev;
}

/** A generic cache event: level, operation and result. */
static inline struct pev_event pev_event_cache(enum pev_hw_cache_id id, enum pev_hw_cache_op op,
					       enum pev_hw_cache_result result)
{
	struct pev_event ev = {
		PEV_TYPE_HW_CACHE, 0, PEV_HW_CACHE_CONFIG(id, op, result), 0, 0, 0, NULL, NULL, {0}};
	return ev;
}

/** A CPU-specific raw event code (the core PMU's config). */
static inline struct pev_event pev_event_raw(uint64_t config)
{
	struct pev_event ev = {PEV_TYPE_RAW, 0, config, 0, 0, 0, NULL, NULL, {0}};
	return ev;
}

/** A tracepoint by its tracefs id (events/<subsystem>/<event>/id). */
static inline struct pev_event pev_event_tracepoint(uint64_t id)
{
	struct pev_event ev = {PEV_TYPE_TRACEPOINT, 0, id, 0, 0, 0, NULL, NULL, {0}};
	return ev;
}

/** A hardware breakpoint on len bytes at addr, for the accesses in bp_type. */
static inline struct pev_event pev_event_breakpoint(uint64_t addr, uint64_t len,
						    enum pev_bp_type bp_type)
{
	struct pev_event ev = {PEV_TYPE_BREAKPOINT, (uint32_t)bp_type, 0, addr, len, 0, NULL, NULL, {0}};
	return ev;
}

/**
 * Describes a uprobe (or, with retprobe, a uretprobe) at byte offset
 * `offset` of the file at `path`, on the `uprobe` PMU. Reads the PMU type and
 * the retprobe bit from sysfs under `sysfs_root` (NULL means "/sys").
 * `path` is borrowed until the event is opened.
 *
 * Counting the uprobe in a command you start: open it on the child's pid
 * (pev_target_thread) before the child execs, as perf does. If it is opened
 * inherited on the calling thread instead and then the command is forked,
 * keep at least one non-inherited event open on the calling thread across
 * the fork (perfev stat and record open a disabled dummy): when every event
 * of the parent is inherited, the kernel makes the child's perf context a
 * clone of the parent's and may swap the two at a context switch, and a
 * uprobe counts only hits in its own task's address space, so the command's
 * hits are then lost (a count of 0 in a third to half of the runs).
 *
 * Returns 0, or PEV_ENOENT when this kernel has no uprobe PMU (with err filled).
 */
PEV_API int pev_event_uprobe(struct pev_event *ev, const char *path, uint64_t offset,
			     bool retprobe, const char *sysfs_root, struct pev_error *err);

/**
 * Describes a kprobe (or kretprobe) on kernel function `func` plus `offset`,
 * on the `kprobe` PMU, as pev_event_uprobe does for uprobes.
 * Returns 0, or PEV_ENOENT when this kernel has no kprobe PMU.
 */
PEV_API int pev_event_kprobe(struct pev_event *ev, const char *func, uint64_t offset,
			     bool retprobe, const char *sysfs_root, struct pev_error *err);

/**
 * Finds the file offset of function `symbol` in the ELF file at `path` (an
 * executable, PIE or not, or a shared library): the offset a uprobe on it
 * needs (pev_event_uprobe). Looks in .symtab, then in .dynsym, for a defined
 * STT_FUNC or STT_GNU_IFUNC symbol of that name (for an IFUNC that is its
 * resolver), or an untyped (STT_NOTYPE) label inside an executable segment;
 * when several match, a function beats a label, the default version a hidden
 * one and a global or weak symbol a local one. `symbol` may carry a version:
 * "malloc@@GLIBC_2.2.5" asks for the default version, "memcpy@GLIBC_2.2.5"
 * for that version whether default or not; a plain name matches any version
 * and prefers the default. Only the name is looked up: the caller adds any
 * offset within the function. The symbol's address becomes a file offset
 * through the PT_LOAD segment that holds it (address - p_vaddr + p_offset).
 * Stores it in *offset and returns 0. Errors (err filled when non-NULL,
 * *offset untouched): PEV_ENOENT (no such file; PEV_EACCES and other
 * errnos as open(2) gives them), PEV_EFORMAT (a directory, an empty or
 * non-regular file, not ELF, a relocatable object or core dump, truncated or
 * damaged, or a symbol at an address no part of the file is loaded at),
 * PEV_ENOTFOUND (no such function; the hint names up to 3 close names, the
 * versions that exist, or says the file is stripped), PEV_EBADARG (NULL or
 * empty arguments). Thread-safe.
 */
PEV_API int pev_uprobe_resolve(const char *path, const char *symbol, uint64_t *offset,
			       struct pev_error *err);

/**
 * Looks up a PMU's dynamic type in sysfs (`<sysfs_root>/bus/event_source/
 * devices/<name>/type`, sysfs_root NULL meaning "/sys"). Returns the type
 * (>= 0), PEV_ENOENT when there is no such PMU (or its type is unreadable),
 * or PEV_EBADARG for an empty name or one holding '/'.
 */
PEV_API int pev_pmu_type(const char *name, const char *sysfs_root);

/**
 * Finds a generic event by perf's name or alias: hardware ("cycles",
 * "instructions", "branch-misses", ...), software ("cpu-clock", "cs",
 * "page-faults", ...) and cache ("L1-dcache-load-misses", "LLC-loads", ...;
 * case-insensitive). On success fills ev and returns 0; for hardware and
 * software names ev->name points into a static table, for cache names it is
 * NULL (pev_event_describe() gives the canonical name). Returns PEV_ENOTFOUND
 * for other names and PEV_EBADARG for NULL arguments.
 */
PEV_API int pev_event_lookup(const char *name, struct pev_event *ev);

/**
 * Writes a short human name for ev into buf (at most size bytes): its name
 * when set, else perf's name for generic events ("task-clock"), else a
 * description in perf's syntax ("mem:0x1000/4:w", "r3c", "msr/config=0x1/",
 * "uprobe:/bin/true+0x1040", "type 42 config 0x10"). Returns buf.
 */
PEV_API char *pev_event_describe(const struct pev_event *ev, char *buf, size_t size);

/**
 * Receives one generic event name: `name` as perf spells it, `canonical` the
 * first spelling of the same event (equal to name for that one), `kind`
 * PEV_TYPE_HARDWARE, PEV_TYPE_SOFTWARE or PEV_TYPE_HW_CACHE, and its
 * encoding. A non-zero return stops the walk.
 */
typedef int (*pev_event_name_fn)(const char *name, const char *canonical, uint32_t kind,
				 const struct pev_event *ev, void *ctx);

/**
 * Calls fn for every generic event name perfev accepts: hardware and
 * software names with their aliases, then every valid cache event by perf's
 * canonical name (the aliases of cache levels, operations and results are
 * accepted by pev_event_lookup but not listed). Returns the number of names
 * passed, or fn's non-zero return.
 */
PEV_API int pev_event_foreach_name(pev_event_name_fn fn, void *ctx);

/** Returns perf's name of a hardware event id, or NULL if out of range. */
PEV_API const char *pev_hw_name(uint64_t id);
/** Returns perf's name of a software event id, or NULL if out of range. */
PEV_API const char *pev_sw_name(uint64_t id);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_EVENT_H */
