/* SPDX-License-Identifier: MIT */
/*
 * error_internal.h - building a struct pev_error step by step.
 *
 * pev__error_start() resets the error and records the code and context;
 * pev__error_msg() and pev__error_hint() append sentences. All of them accept
 * a NULL error and fill this thread's last error instead (pev_last_error()),
 * so callers never check whether the user asked for one, and a function
 * that takes no struct pev_error passes NULL to say why it failed.
 */
#ifndef PERFEV_ERROR_INTERNAL_H
#define PERFEV_ERROR_INTERNAL_H

#include "perfev/error.h"
#include "core/util.h"

/*
 * Resets err and records the code, the errno, the failing call and the event
 * name (any may be NULL). Returns code, so callers can `return pev__error_start(...)`.
 */
int pev__error_start(struct pev_error *err, int code, int sys_errno, const char *syscall,
		     const char *event, bool before_syscall);

/*
 * The error a helper fills for err: err itself, or this thread's last error
 * when err is NULL. For fields the helpers do not set (sys_errno, syscall,
 * position), so a caller that passed no error reads them in pev_last_error().
 */
struct pev_error *pev__error_of(struct pev_error *err);

/* Names the attribute or argument at fault. */
void pev__error_field(struct pev_error *err, const char *field);

/* Appends to the message. */
void pev__error_msg(struct pev_error *err, const char *fmt, ...) PEV_PRINTF(2, 3);

/* Adds one line of advice to the hint. */
void pev__error_hint(struct pev_error *err, const char *fmt, ...) PEV_PRINTF(2, 3);

/*
 * Reports a bad argument to a perfev function: sets PEV_EBADARG, names the
 * argument and the function. Returns PEV_EBADARG.
 */
int pev__bad_arg(struct pev_error *err, const char *func, const char *arg, const char *fmt, ...)
	PEV_PRINTF(4, 5);

/*
 * Refuses an index of func: obj (named obj_name) NULL, or i outside 0..n-1.
 * Returns PEV_EBADARG.
 */
int pev__bad_index(const char *func, const void *obj, const char *obj_name, int i, int n);

/*
 * Copies a caller's options struct, which begins with its own size (`size_t
 * sz`), into dst: dst_size bytes, zeroed first, dst's sz set to dst_size. A
 * NULL src gives the defaults. A sz too small to hold sz itself, or a larger
 * struct (built against a newer libperfev) with any unknown field set, is a
 * bad argument of func; init names the caller's INIT macro for the message.
 * Returns 0 or PEV_EBADARG.
 */
int pev__opts_copy_sized(void *dst, size_t dst_size, const void *src, const char *func,
			 const char *init, struct pev_error *err);

/*
 * Checks the reserved words of a frozen-size struct (pev_event, pev_target):
 * a non-zero one is a field of a newer libperfev this one does not know, a
 * bad argument `arg` of func. Returns 0 or PEV_EBADARG.
 */
int pev__reserved_check(const uint64_t *reserved, size_t n, const char *func, const char *arg,
			struct pev_error *err);

/* Resets err (when non-NULL) to "no error", so that a success leaves no stale message. */
void pev__error_clear(struct pev_error *err);

#endif /* PERFEV_ERROR_INTERNAL_H */
