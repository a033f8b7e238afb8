/* SPDX-License-Identifier: MIT */
/*
 * perfev/pfm.h - CPU vendor event names through libpfm4.
 *
 * libpfm4 knows the event tables of many CPUs (INST_RETIRED:ANY_P,
 * skl::INST_RETIRED:ANY_P). perfev uses it, when built with it, for names
 * that are neither generic nor in sysfs. The tables are those of the CPU
 * libpfm4 detects, or of the one named by the environment variable
 * LIBPFM_FORCE_PMU (with LIBPFM_ENCODE_INACTIVE=1 to encode for a CPU that
 * is not this one).
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

/** Returns true when this perfev was built with libpfm4. */
PEV_API bool pev_pfm_available(void);

/**
 * Encodes a CPU vendor event name (libpfm4's "EVENT:UMASK[:MOD]" spelling,
 * optionally "pmu::EVENT:UMASK", or perf's "EVENT.UMASK" spelling) for the
 * detected or forced CPU into ev (type, config words). ev->name is left NULL.
 * Returns 0; PEV_ENOTFOUND when no active PMU has the event (err may suggest
 * close names); PEV_EUNSUPPORTED when perfev was built without libpfm4 or
 * libpfm4 does not know this CPU (err says which and how to force one).
 */
PEV_API int pev_pfm_encode(const char *name, struct pev_event *ev, struct pev_error *err);

/** Called for each event name pev_pfm_foreach finds; non-zero stops the walk. */
typedef int (*pev_pfm_fn)(const char *pmu, const char *name, const char *description,
			  void *ctx);

/**
 * Calls fn for every event (with each of its umasks, "EVENT:UMASK") of every
 * PMU libpfm4 considers active on this machine. Returns the number of names
 * passed, fn's non-zero return, or PEV_EUNSUPPORTED.
 */
PEV_API int pev_pfm_foreach(pev_pfm_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_PFM_H */
