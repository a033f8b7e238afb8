/* SPDX-License-Identifier: MIT */
/*
 * log_internal.h - the library's side of perfev/log.h.
 */
#ifndef PERFEV_LOG_INTERNAL_H
#define PERFEV_LOG_INTERNAL_H

#include <stdarg.h>

#include "perfev/log.h"
#include "core/util.h"

/* Formats one line and hands it to the application's callback, if any. */
void pev__log(enum pev_log_level level, const char *fmt, ...) PEV_PRINTF(2, 3);

#endif /* PERFEV_LOG_INTERNAL_H */
