/* SPDX-License-Identifier: MIT */
/*
 * perfev/log.h - where the library's log lines go.
 *
 * libperfev never prints. It hands log lines to a callback the application
 * sets; without one, they are dropped.
 */
#ifndef PERFEV_LOG_H
#define PERFEV_LOG_H

#include "perfev/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Log levels, most severe first. */
enum pev_log_level {
	PEV_LOG_ERROR = 0,
	PEV_LOG_WARN = 1,
	PEV_LOG_INFO = 2,
	PEV_LOG_DEBUG = 3,
};

/** Receives one log line (no trailing newline); ctx is the pointer given to pev_set_log. */
typedef void (*pev_log_fn)(enum pev_log_level level, const char *line, void *ctx);

/**
 * Sends lines up to max_level to fn (NULL drops everything). Not thread-safe
 * against concurrent logging: set it once at start-up.
 */
PEV_API void pev_set_log(pev_log_fn fn, void *ctx, enum pev_log_level max_level);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_LOG_H */
