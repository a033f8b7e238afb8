/* SPDX-License-Identifier: MIT */
/*
 * perfev/pfm.h - CPU vendor event names through libpfm4.
 *
 * libpfm4 knows the event tables of many CPUs (INST_RETIRED:ANY_P,
 * skl::INST_RETIRED:ANY_P). perfev uses it, when built with it, for names
 * that are neither generic nor in sysfs. The tables are those of the CPU
 * libpfm4 detects, or of the one named by the environment variable
 * LIBPFM_FORCE_PMU (with LIBPFM_ENCODE_INACTIVE=1 to encode for a CPU that
 * is not this one, e.g. LIBPFM_FORCE_PMU=skl).
 *
 * libpfm4 is initialized once per process, on the first call of
 * pev_pfm_encode or pev_pfm_foreach, and reads those variables then: set
 * them before. The functions are thread-safe.
 *
 * Only libpfm4's CPU PMUs (core and uncore: "skl", "amd64_fam19h_zen3",
 * "rapl", ...) take part. Its generic OS PMUs "perf" and "perf_raw"
 * (PERF_COUNT_HW_CPU_CYCLES, r0c0) repeat perf's generic events and raw
 * syntax, and are left to those.
 */
#ifndef PERFEV_PFM_H
#define PERFEV_PFM_H

#include <stdbool.h>

#include "perfev/common.h"
#include "perfev/error.h"
#include "perfev/event.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Returns true when CPU vendor names can be looked up: perfev was built with
 * libpfm4's header and libpfm.so.4 loads (the first call loads it; nothing
 * else in perfev does until a vendor name is looked up).
 */
PEV_API bool pev_pfm_available(void);

/**
 * Encodes a CPU vendor event name for the detected or forced CPU into ev:
 * libpfm4's "EVENT[:UMASK...][:MOD=VAL...]" spelling, optionally prefixed by
 * its PMU ("skl::EVENT:UMASK"), or perf's "EVENT.UMASK" spelling (matched
 * ignoring case). Sets ev->type (PEV_TYPE_RAW for core PMUs, the sysfs type
 * for others) and config, config1, config2; zeroes the other fields (ev->name
 * and ev->pmu are NULL). For core PMUs config holds the event select, unit
 * mask, edge, invert and counter mask, but not the USR/OS/enable bits (16,
 * 17, 22), which the kernel sets from the attribute's exclude_* and enable,
 * as for perf: INST_RETIRED:ANY_P on Skylake is config 0xc0.
 *
 * libpfm4's PMU modifiers (":c=1", ":i", ":e", ":ldlat=3", ...) go into the
 * config words. Its privilege modifiers (":u", ":k", ":h") cannot: a name
 * that excludes a level with them is refused (PEV_EPARSE) rather than
 * silently counting every level; the caller applies privilege levels
 * (perf's modifiers after the name, pev_opts.exclude_*). perf_event's
 * precise/period/freq are perfev's own options, not part of the name.
 *
 * Returns 0; PEV_ENOTFOUND when no active PMU has the event or unit mask, the
 * event needs a unit mask, or the name is one of libpfm4's generic perf names
 * (err suggests close names, the event's unit masks or perf's name);
 * PEV_EINVAL for a bad modifier value or unit masks that do not combine;
 * PEV_EPARSE for privilege modifiers; PEV_EUNSUPPORTED when perfev was built
 * without libpfm4 or libpfm4 has no table for this CPU (err names the CPU and
 * how to force one; with LIBPFM_ENCODE_INACTIVE=1 a name that carries its PMU
 * still encodes); PEV_EBADARG for a NULL or empty name or a NULL ev. On
 * failure ev is left as it was.
 */
PEV_API int pev_pfm_encode(const char *name, struct pev_event *ev, struct pev_error *err);

/**
 * Called for each name pev_pfm_foreach finds: pmu is libpfm4's PMU name
 * ("skl"), name an encodable name, description the unit mask's description
 * (the event's for an event without unit masks; "" when libpfm4 has none).
 * The strings are valid during the call only. Non-zero stops the walk.
 */
typedef int (*pev_pfm_fn)(const char *pmu, const char *name, const char *description,
			  void *ctx);

/**
 * Calls fn for every name of every CPU PMU libpfm4 considers active (see
 * above): "EVENT:UMASK" for each unit mask of an event, "EVENT" for an event
 * without unit masks. Returns the number of names passed, fn's non-zero
 * return, PEV_EUNSUPPORTED (built without libpfm4, or no table for this CPU)
 * or PEV_EBADARG (fn NULL).
 */
PEV_API int pev_pfm_foreach(pev_pfm_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_PFM_H */
