/* SPDX-License-Identifier: MIT */
/*
 * pfm_internal.h - libpfm4 encoding for the event parser.
 */
#ifndef PERFEV_PFM_INTERNAL_H
#define PERFEV_PFM_INTERNAL_H

#include "perfev/opts.h"
#include "perfev/pfm.h"

/*
 * pev_pfm_encode(), and when opts is not NULL, libpfm4's own privilege
 * modifiers in the name (":u", ":k=0") set opts' exclude_* fields instead
 * of being refused.
 */
int pev__pfm_encode(const char *name, struct pev_event *ev, struct pev_opts *opts,
		    struct pev_error *err);

/* Tests: the library dlopen() loads instead of libpfm.so.4; call before any lookup. */
void pev__pfm_set_soname(const char *soname);

#endif /* PERFEV_PFM_INTERNAL_H */
