/* SPDX-License-Identifier: MIT */
/*
 * perfev/error.h - error codes and the diagnosis a failed call hands back.
 *
 * Every fallible perfev function returns 0 (or a count) on success and a
 * negative PEV_E* code on failure. Codes for kernel errors are the negated
 * errno (PEV_EINVAL == -EINVAL); codes perfev adds sit below -4000.
 * Functions that open something also fill an optional struct pev_error
 * with a message written for the person at the keyboard: what failed, why
 * on this machine, and what to do about it. A call with no struct pev_error
 * to fill leaves the same diagnosis in pev_last_error().
 */
#ifndef PERFEV_ERROR_H
#define PERFEV_ERROR_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfev/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The error table: X(code, value, name, text).
 * name is perfev's stable identifier for the error: the name Zig's
 * perf_event_open wrapper gives the same errno where it has one, except
 * AccessDenied for EACCES (Zig: PermissionDenied, which perfev keeps for
 * EPERM); text is a short lowercase description.
 */
#define PEV_ERROR_TABLE(X)                                                                         \
	X(PEV_E2BIG, -E2BIG, "TooBig", "attribute size not accepted by this kernel")               \
	X(PEV_EACCES, -EACCES, "AccessDenied", "access denied by perf_event_paranoid or capabilities") \
	X(PEV_EBADF, -EBADF, "BadFileDescriptor", "bad group or cgroup file descriptor")           \
	X(PEV_EBUSY, -EBUSY, "DeviceBusy", "another event holds exclusive access to the PMU")      \
	X(PEV_EFAULT, -EFAULT, "BadAddress", "the kernel could not read memory the request points to") \
	X(PEV_EINTR, -EINTR, "Interrupted", "interrupted (uprobe shared with ftrace)")             \
	X(PEV_EINVAL, -EINVAL, "InvalidArgument", "invalid event attributes or arguments")         \
	X(PEV_EMFILE, -EMFILE, "ProcessResources", "too many open files in this process")          \
	X(PEV_ENFILE, -ENFILE, "SystemResources", "too many open files in the system")             \
	X(PEV_ENODEV, -ENODEV, "EventRequiresUnsupportedCpuFeature", "the event needs a CPU feature this CPU lacks") \
	X(PEV_ENOENT, -ENOENT, "EventNotFound", "no such event type or event on this machine")     \
	X(PEV_ENOSPC, -ENOSPC, "TooManyBreakpoints", "no free hardware breakpoint slot")           \
	X(PEV_ENOSYS, -ENOSYS, "SampleStackNotSupported", "not supported by this kernel or blocked by a filter") \
	X(PEV_EOPNOTSUPP, -EOPNOTSUPP, "EventNotSupported", "the PMU does not support what the event asks") \
	X(PEV_EOVERFLOW, -EOVERFLOW, "SampleMaxStackOverflow", "callchain depth above perf_event_max_stack") \
	X(PEV_EPERM, -EPERM, "PermissionDenied", "operation not permitted")                       \
	X(PEV_ESRCH, -ESRCH, "ProcessNotFound", "no such process")                                 \
	X(PEV_ENOMEM, -ENOMEM, "OutOfMemory", "out of memory")                                     \
	X(PEV_EAGAIN, -EAGAIN, "WouldBlock", "resource temporarily unavailable")                   \
	X(PEV_ENOTTY, -ENOTTY, "NotAPerfEvent", "the file descriptor is not a perf event")         \
	X(PEV_EIO, -EIO, "IoError", "input/output error")                                          \
	X(PEV_ENXIO, -ENXIO, "NoSuchDevice", "no such device or address")                          \
	X(PEV_EEXIST, -EEXIST, "AlreadyExists", "already exists")                                  \
	X(PEV_EBADARG, -4001, "BadArgument", "invalid argument passed to perfev")                  \
	X(PEV_EPARSE, -4002, "ParseError", "cannot parse the event description")                  \
	X(PEV_ENOTFOUND, -4003, "NotFound", "no event, PMU or symbol by that name")                \
	X(PEV_EFORMAT, -4004, "MalformedData", "malformed or truncated data")                      \
	X(PEV_EUNSUPPORTED, -4005, "Unsupported", "not supported by this build or machine")        \
	X(PEV_EVERSION, -4006, "NewerVersion", "data written by a newer version")                  \
	X(PEV_EUNEXPECTED, -4099, "Unexpected", "unexpected error")

/** Error codes: negative errno values, or perfev's own below -4000. */
enum pev_error_code {
#define PEV_ERROR_ENUM_(code, value, name, text) code = (value),
	PEV_ERROR_TABLE(PEV_ERROR_ENUM_)
#undef PEV_ERROR_ENUM_
};

/** The size of the message and hint buffers; longer text is cut at the limit. */
#define PEV_ERROR_MESSAGE_MAX 1536

/**
 * What went wrong, for the caller and for the user. Filled by opening
 * functions when the caller passes one; owned by the caller, no allocation.
 * Every function that takes one resets it on entry (code 0, empty strings,
 * position -1), so after a success it holds no earlier call's message.
 */
struct pev_error {
	int code;              /**< the negative PEV_E* code the call returned */
	int sys_errno;         /**< errno the kernel returned or would return; 0 if none */
	bool before_syscall;   /**< true when perfev caught it before calling the kernel */
	char syscall[24];      /**< the failing call ("perf_event_open", "mmap", "open", ...) or "" */
	char event[96];        /**< the event's name, as the caller named it */
	char field[48];        /**< the attribute or argument at fault, or "" */
	int position;          /**< parse errors: byte offset of the bad part in the input, else -1 */
	int length;            /**< parse errors: its length in bytes, else 0 */
	char message[PEV_ERROR_MESSAGE_MAX]; /**< what failed and why, on this machine */
	char hint[PEV_ERROR_MESSAGE_MAX];    /**< what to do about it, or "" */
	/**
	 * Zeroed with the rest. The struct's size is frozen (callers allocate it
	 * without a size field): fields of later versions take this room, so a
	 * caller built against this header always has space for them.
	 */
	uint64_t reserved[8];
};

/**
 * Returns the diagnosis of this thread's most recent failed call that had no
 * struct pev_error to fill: every function that takes none (the ioctls, the
 * reads, the ring and writer calls, ...) and every one given NULL. Like errno,
 * it is meaningful only right after a call that failed, and a success does
 * not clear it. Never NULL; owned by the library, valid in this thread until
 * its next failing call.
 */
PEV_API const struct pev_error *pev_last_error(void);

/**
 * Returns a short, lowercase description of a code (e.g. "no such process");
 * 0 gives "success", unknown codes "unexpected error". Never NULL; the string is static.
 */
PEV_API const char *pev_strerror(int code);

/**
 * Returns the stable name of a code (e.g. "ProcessNotFound" for PEV_ESRCH);
 * 0 gives "Success", unknown codes "Unexpected". Never NULL; the string is static.
 */
PEV_API const char *pev_error_name(int code);

/**
 * Maps an errno value (positive) to its perfev code. Errnos outside the table
 * keep their value, negated, so no information is lost.
 */
PEV_API int pev_error_from_errno(int errnum);

/**
 * Writes "<message>\n" and then "hint: <line>\n" for each line of the hint
 * (each line is one alternative fix) into buf (at most size bytes, always
 * NUL-terminated). Returns buf.
 */
PEV_API char *pev_error_format(const struct pev_error *err, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_ERROR_H */
