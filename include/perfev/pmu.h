/* SPDX-License-Identifier: MIT */
/*
 * perfev/pmu.h - the PMUs a machine offers, as sysfs describes them.
 *
 * Every directory under <sysfs>/bus/event_source/devices is a PMU: its
 * dynamic type, the format fields that place named values into config words
 * (format/), named events with their default terms, scale and unit (events/),
 * and the CPUs it counts on (cpus, cpumask). pev_pmus_read() reads them all;
 * the records it returns are read-only views owned by the list.
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
	uint8_t lo;
	uint8_t hi;
};

/**
 * A format field (format/<name>): where a named value goes. The value's low
 * bits fill the first range, its next bits the second, and so on.
 */
struct pev_pmu_format {
	const char *name;  /**< "event", "umask", "cmask", ... */
	int word;          /**< config word: 0 config, 1 config1, 2 config2, 3 config3 */
	int nr_ranges;
	struct pev_bit_range ranges[PEV_FORMAT_MAX_RANGES];
	int bits;          /**< total width in bits */
};

/** A named event of a PMU (events/<name>, with events/<name>.scale and .unit). */
struct pev_pmu_alias {
	const char *name;  /**< "cache-misses", "energy-pkg", "tsc" */
	const char *terms; /**< its default terms, e.g. "event=0x2e,umask=0x41" */
	double scale;      /**< multiply counts by this to get `unit`; 1.0 when absent */
	const char *unit;  /**< unit of scaled counts ("Joules"), "" when absent */
	bool per_pkg;      /**< counts once per package (events/<name>.per-pkg) */
	bool snapshot;     /**< a value, not a count (events/<name>.snapshot) */
};

/** One PMU. */
struct pev_pmu {
	const char *name;   /**< sysfs directory name: "cpu", "cpu_core", "msr", "uncore_imc_0" */
	uint32_t type;      /**< attr.type for its events */
	bool core;          /**< a core PMU (counts CPU events: cycles, raw codes) */
	const char *cpus;   /**< CPU list from "cpus" or "cpumask", "" when it counts anywhere */
	bool per_cpu_only;  /**< it has a cpumask: events must be CPU-wide (uncore-like) */
	int max_precise;    /**< caps/max_precise, or -1 when the PMU does not say */
	int nr_formats;
	const struct pev_pmu_format *formats;
	int nr_aliases;
	const struct pev_pmu_alias *aliases;
};

/** A list of PMUs. Opaque. */
struct pev_pmus;

/**
 * Reads every PMU under <sysfs_root>/bus/event_source/devices (sysfs_root NULL:
 * "/sys"). PMUs whose files cannot be read are skipped; malformed format or
 * event files are skipped field by field (a PMU with a bad format file still
 * lists its good ones). Stores the list in *out (free with pev_pmus_free) and
 * returns 0; returns PEV_ENOENT when the directory does not exist, PEV_ENOMEM,
 * or PEV_EBADARG.
 */
PEV_API int pev_pmus_read(const char *sysfs_root, struct pev_pmus **out, struct pev_error *err);

/** Frees a list and every record in it. NULL is ignored. */
PEV_API void pev_pmus_free(struct pev_pmus *pmus);

/** Returns how many PMUs the list holds. */
PEV_API int pev_pmus_count(const struct pev_pmus *pmus);

/** Returns PMU i (sorted by name), or NULL when out of range. */
PEV_API const struct pev_pmu *pev_pmus_at(const struct pev_pmus *pmus, int i);

/** Returns the PMU called name, or NULL. */
PEV_API const struct pev_pmu *pev_pmus_find(const struct pev_pmus *pmus, const char *name);

/** Returns the PMU whose type is `type`, or NULL. */
PEV_API const struct pev_pmu *pev_pmus_find_type(const struct pev_pmus *pmus, uint32_t type);

/** Returns how many core PMUs the list holds (more than one on hybrid CPUs). */
PEV_API int pev_pmus_core_count(const struct pev_pmus *pmus);

/** Returns format field `name` of pmu, or NULL. */
PEV_API const struct pev_pmu_format *pev_pmu_format(const struct pev_pmu *pmu, const char *name);

/** Returns the event alias `name` of pmu (case-insensitive, as perf), or NULL. */
PEV_API const struct pev_pmu_alias *pev_pmu_alias(const struct pev_pmu *pmu, const char *name);

/**
 * Places `value` into the bits of format field f within config[4] (config,
 * config1, config2, config3), replacing what those bits held.
 * Returns 0, or PEV_EINVAL when value does not fit in f->bits bits.
 */
PEV_API int pev_pmu_format_apply(const struct pev_pmu_format *f, uint64_t value,
				 uint64_t config[4]);

/**
 * Parses the text of a sysfs format file ("config:0-7,32-35", "config1:0-63",
 * "config2:5") into f (name left NULL). Returns 0 or PEV_EFORMAT.
 */
PEV_API int pev_pmu_format_parse(const char *text, struct pev_pmu_format *f);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_PMU_H */
