/* SPDX-License-Identifier: MIT */
/*
 * report_otlp.h - the OTLP profiles writer's bytes in memory
 * (report_otlp.c), for senders that post them themselves.
 */
#ifndef PERFEV_REPORT_OTLP_H
#define PERFEV_REPORT_OTLP_H

#include <stddef.h>
#include <stdint.h>

#include "perfev/report.h"

/*
 * What pev_profile_write_otlp writes, serialized into *buf (malloc'ed, the
 * caller frees it; *len bytes), never compressed (PEV_REPORT_GZIP is
 * ignored: a sender compresses as its protocol says). opts NULL: the
 * defaults. Returns 0 or as pev_profile_write_otlp (*buf NULL then).
 */
int pev__otlp_encode(const struct pev_profile *p, const struct pev_report_opts *opts,
		     uint8_t **buf, size_t *len, struct pev_error *err);

#endif /* PERFEV_REPORT_OTLP_H */
