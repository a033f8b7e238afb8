/* SPDX-License-Identifier: MIT */
/*
 * log.c - the application's log callback.
 */
#include "core/log_internal.h"

#include <stdio.h>

static pev_log_fn log_fn;
static void *log_ctx;
static enum pev_log_level log_max = PEV_LOG_WARN;

PEV_API void pev_set_log(pev_log_fn fn, void *ctx, enum pev_log_level max_level)
{
	log_fn = fn;
	log_ctx = ctx;
	log_max = max_level;
}

void pev__log(enum pev_log_level level, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (!log_fn || level > log_max)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	log_fn(level, line, log_ctx);
}
