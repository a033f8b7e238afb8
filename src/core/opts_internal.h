/* SPDX-License-Identifier: MIT */
/*
 * opts_internal.h - reading a caller's struct pev_opts safely.
 */
#ifndef PERFEV_OPTS_INTERNAL_H
#define PERFEV_OPTS_INTERNAL_H

#include "perfev/opts.h"

/*
 * Copies the caller's options (NULL: defaults) into a full-size struct,
 * honouring src->sz: a shorter struct from an older caller leaves the newer
 * fields zero; a longer one is refused when it sets fields this library does
 * not know. Returns 0 or PEV_EBADARG (err filled, naming func).
 */
int pev__opts_copy(struct pev_opts *dst, const struct pev_opts *src, const char *func,
		   struct pev_error *err);

/*
 * pev_attr_encode(), reporting argument errors as coming from func (the
 * public function the caller called).
 */
int pev__attr_encode(struct pev_attr *attr, const struct pev_event *ev,
		     const struct pev_opts *opts, const char *func, struct pev_error *err);

#endif /* PERFEV_OPTS_INTERNAL_H */
