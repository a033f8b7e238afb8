/* SPDX-License-Identifier: MIT */
/*
 * tp_format_internal.h - reading a tracepoint's format file, shared by
 * pev_tp_format_load (tp_format.c) and pev_tp_printer_load (tp_printer.c).
 */
#ifndef PERFEV_TP_FORMAT_INTERNAL_H
#define PERFEV_TP_FORMAT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "perfev/error.h"

/*
 * Reads <tracefs>/events/<system>/<name>/format (tracefs NULL: found, never
 * mounted) into *text (malloc'ed, NUL-terminated, *len bytes before the
 * NUL) and the tracepoint's id into *id. fn names the caller in errors.
 * Returns 0, or as pev_tp_format_load() fails, with *text NULL.
 */
int pev__tp_format_read(const char *tracefs, const char *system, const char *name,
			const char *fn, char **text, size_t *len, uint64_t *id, struct pev_error *err);

#endif /* PERFEV_TP_FORMAT_INTERNAL_H */
