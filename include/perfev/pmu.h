/* SPDX-License-Identifier: MIT */
/*
 * perfev/pmu.h - the PMUs a machine offers, as sysfs describes them.
 *
 * Every directory under <sysfs>/bus/event_source/devices is a PMU: its
 * dynamic type, the format fields that place named values into config words
 * (format/), named events with their default terms, scale and unit (events/),
 * and the CPUs it counts on (cpus, cpumask). pev_pmus_read() reads them all;
 * the records it returns are read-only views owned by the list.
 *
 * Reading is defensive: files must be regular files of printable text no
 * longer than a page (4 KiB; 64 KiB for CPU lists), directories are read up
 * to fixed limits (4096 PMUs, 256 formats and 8192 aliases per PMU), and
 * whatever is malformed is skipped one file at a time.
 */
#ifndef PERFEV_PMU_H
#define PERFEV_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfev/common.h"
#include "perfev/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most bit ranges one format field may span ("config:0-7,32-35" has two). */
#define PEV_FORMAT_MAX_RANGES 8

/** One bit range of a format field: bits lo..hi (inclusive) of a config word. */
struct pev_bit_range {
	uint8_t lo; /**< lowest bit, 0..63 */
	uint8_t hi; /**< highest bit, lo..63 */
};

/**
 * A format field (format/<name>): where a named value goes. The value's low
 * bits fill the first range, its next bits the second, and so on. Ranges
 * never overlap, so bits is at most 64.
 */
struct pev_pmu_format {
	const char *name;  /**< "event", "umask", "cmask", ... */
	int word;          /**< config word: 0 config, 1 config1, 2 config2, 3 config3 */
	int nr_ranges;     /**< ranges used, 1..PEV_FORMAT_MAX_RANGES, in the file's order */
	struct pev_bit_range ranges[PEV_FORMAT_MAX_RANGES]; /**< the ranges, value's low bits first */
	int bits;          /**< total width in bits */
};

/**
 * A named event of a PMU (events/<name>, with events/<name>.scale, .unit,
 * .per-pkg and .snapshot, which are not aliases themselves).
 */
struct pev_pmu_alias {
	const char *name;  /**< "cache-misses", "energy-pkg", "tsc" */
	const char *terms; /**< its default terms, e.g. "event=0x2e,umask=0x41" (the file, trimmed) */
	double scale;      /**< multiply counts by this to get `unit`; 1.0 when absent or malformed
				(parsed in the C locale; must be finite and positive) */
	const char *unit;  /**< unit of scaled counts ("Joules"), "" when absent or malformed */
	bool per_pkg;      /**< counts once per package (events/<name>.per-pkg exists, not "0") */
	bool snapshot;     /**< a value, not a count (events/<name>.snapshot exists, not "0") */
};

/** One PMU. */
struct pev_pmu {
	const char *name;   /**< sysfs directory name: "cpu", "cpu_core", "msr", "uncore_imc_0" */
	uint32_t type;      /**< attr.type for its events (the decimal in "type") */
	bool core;          /**< a core PMU (counts CPU events: cycles, raw codes): type 4
				 (PERF_TYPE_RAW), the name "cpu", or a "cpus" file (hybrid) */
	const char *cpus;   /**< CPU list from "cpus", else "cpumask"; "" when it counts anywhere
				 or the list is malformed */
	bool per_cpu_only;  /**< not core and has a cpumask: events must be CPU-wide (uncore-like) */
	int max_precise;    /**< caps/max_precise (0-3), or -1 when the PMU does not say */
	int nr_formats;     /**< entries in formats */
	const struct pev_pmu_format *formats; /**< format fields, sorted by name */
	int nr_aliases;     /**< entries in aliases */
	const struct pev_pmu_alias *aliases;  /**< event aliases, sorted by name (strcmp) */
};

/** A list of PMUs. Opaque. */
struct pev_pmus;

/**
 * Reads every PMU under <sysfs_root>/bus/event_source/devices (sysfs_root NULL
 * or "": "/sys"). PMUs whose type cannot be read are skipped; malformed format
 * or event files are skipped field by field (a PMU with a bad format file still
 * lists its good ones). Stores the list in *out (free with pev_pmus_free) and
 * returns 0; an empty directory gives an empty list. Returns PEV_ENOENT when
 * the directory does not exist, PEV_ENOMEM, PEV_EBADARG (out NULL), or the
 * negated errno of a directory that cannot be read (PEV_EACCES); *out is then
 * NULL. err (optional) receives the message and hint. Thread-safe.
 */
PEV_API int pev_pmus_read(const char *sysfs_root, struct pev_pmus **out, struct pev_error *err);

/** Frees a list and every record in it. NULL is ignored. */
PEV_API void pev_pmus_free(struct pev_pmus *pmus);

/** Returns how many PMUs the list holds, or PEV_EBADARG for NULL. */
PEV_API int pev_pmus_count(const struct pev_pmus *pmus);

/** Returns PMU i (sorted by name), or NULL when out of range. */
PEV_API const struct pev_pmu *pev_pmus_at(const struct pev_pmus *pmus, int i);

/** Returns the PMU called name (case-sensitive, as sysfs), or NULL. */
PEV_API const struct pev_pmu *pev_pmus_find(const struct pev_pmus *pmus, const char *name);

/** Returns the PMU whose type is `type` (the first by name if several), or NULL. */
PEV_API const struct pev_pmu *pev_pmus_find_type(const struct pev_pmus *pmus, uint32_t type);

/** Returns how many core PMUs the list holds (more than one on hybrid CPUs), or PEV_EBADARG for NULL. */
PEV_API int pev_pmus_core_count(const struct pev_pmus *pmus);

/** Returns format field `name` of pmu (case-sensitive), or NULL. */
PEV_API const struct pev_pmu_format *pev_pmu_format(const struct pev_pmu *pmu, const char *name);

/**
 * Returns the event alias `name` of pmu, or NULL. The lookup is
 * case-insensitive, as perf's; an alias spelled exactly `name` wins over one
 * that differs only in case.
 */
PEV_API const struct pev_pmu_alias *pev_pmu_alias(const struct pev_pmu *pmu, const char *name);

/**
 * Places `value` into the bits of format field f within config[4] (config,
 * config1, config2, config3), replacing what those bits held and leaving
 * every other bit alone. The value's low bits go to f's first range, the
 * next bits to the second, and so on. Returns 0; PEV_EINVAL when value does
 * not fit in the field's width (the sum of its ranges' widths, f->bits for a
 * parsed field), leaving config unchanged; PEV_EBADARG when f or config is
 * NULL or f is not a valid field (word outside 0-3, no ranges, a range
 * outside bits 0-63).
 */
PEV_API int pev_pmu_format_apply(const struct pev_pmu_format *f, uint64_t value,
				 uint64_t config[4]);

/**
 * Parses the text of a sysfs format file ("config:0-7,32-35", "config1:0-63",
 * "config2:5") into f (name left NULL). The syntax is strict: "config",
 * "config1", "config2" or "config3", a colon, then up to
 * PEV_FORMAT_MAX_RANGES comma-separated decimal bits or lo-hi ranges within
 * 0-63, lo <= hi, none overlapping; only white space may surround it.
 * Returns 0, PEV_EFORMAT (f unchanged), or PEV_EBADARG when text or f is NULL.
 */
PEV_API int pev_pmu_format_parse(const char *text, struct pev_pmu_format *f);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_PMU_H */
