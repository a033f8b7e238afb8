/* SPDX-License-Identifier: MIT */
/*
 * perfev/signal.h - signals from perf events: overflow notification by
 * descriptor, and the synchronous SIGTRAP of events opened with sigtrap.
 *
 * Two mechanisms (share/doc/perfev/SIGNALS.md compares them):
 *
 * - Notification (pev_counter_notify): on each overflow of a sampling event,
 *   and on each ring-buffer wake-up, the kernel sends a signal of the
 *   caller's choice to a thread or process of its choice. The handler learns
 *   which descriptor fired from si_fd. The signal is asynchronous: it reaches
 *   the owner shortly after the overflow, whatever the owner is doing.
 * - Synchronous SIGTRAP (pev_opts.sigtrap with remove_on_exec): the kernel
 *   sends SIGTRAP to the very thread whose work overflowed the event, before
 *   that thread runs on, with the event's pev_opts.sig_data in si_perf_data.
 *
 * pev_siginfo_decode() reads either kind out of a siginfo_t, including the
 * si_perf_* fields that glibc 2.36 does not name.
 */
#ifndef PERFEV_SIGNAL_H
#define PERFEV_SIGNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "perfev/common.h"
#include "perfev/counter.h"
#include "perfev/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** si_code of the SIGTRAP an event opened with sigtrap sends (the kernel's TRAP_PERF). */
#define PEV_TRAP_PERF 6
/**
 * si_perf_flags bit (the kernel's TRAP_PERF_FLAG_ASYNC, Linux 5.19): SIGTRAP
 * was blocked when the event overflowed, so the signal was queued and
 * arrives after the thread ran on: it is not synchronous.
 */
#define PEV_TRAP_PERF_FLAG_ASYNC 0x1U

/** Who receives a counter's notification signal. */
enum pev_notify_owner {
	PEV_NOTIFY_THREAD = 0,        /**< one thread (F_OWNER_TID) */
	PEV_NOTIFY_PROCESS = 1,       /**< a process: whichever of its threads does not block the signal (F_OWNER_PID) */
	PEV_NOTIFY_PROCESS_GROUP = 2, /**< every process of a process group (F_OWNER_PGRP) */
};

/**
 * How pev_counter_notify() signals. Zero fields mean: SIGIO, to the calling
 * thread. Initialize with PEV_NOTIFY_OPTS_INIT; fields added later go at the
 * end, as for struct pev_opts.
 */
struct pev_notify_opts {
	size_t sz;                   /**< sizeof(struct pev_notify_opts), for compatibility */
	int signo;                   /**< the signal (0: SIGIO); a real-time signal (SIGRTMIN + n) queues one per overflow, a standard one merges while pending */
	enum pev_notify_owner owner; /**< whether pid names a thread, a process or a process group */
	pid_t pid;                   /**< the thread, process or group id; 0: the caller's own thread, process or group */
};

/** Initializer for struct pev_notify_opts: SIGIO to the calling thread, the size set. */
#define PEV_NOTIFY_OPTS_INIT PEV_SIZED_INIT(struct pev_notify_opts)

/**
 * Makes every descriptor of c send signal opts->signo to opts's owner on
 * each overflow (a sampling event's sample_period or sample_freq reached)
 * and each ring-buffer wake-up (wakeup_events, wakeup_bytes): F_SETSIG,
 * then F_SETOWN_EX, then O_ASYNC through F_SETFL. opts NULL means SIGIO to
 * the calling thread.
 *
 * The handler (installed with SA_SIGINFO before the first overflow: the
 * default action of SIGIO and of real-time signals ends the process) gets
 * si_fd, the descriptor that fired (pev_counter_lookup_fd() maps it back to
 * the counter), and si_code POLL_IN, or POLL_HUP when the event disabled
 * itself because the budget of pev_counter_refresh() ran out: refresh(k)
 * gives k signals, the last one POLL_HUP, then the counter stays disabled
 * until refreshed again. pev_siginfo_decode() reads all of it. Standard
 * signals that arrive while one is pending merge into one: use a real-time
 * signal to get one per overflow. The kernel checks at each delivery that the
 * caller (as it was at this call) may signal the owner, and drops the signal
 * silently otherwise.
 *
 * Calling it again reconfigures c. On failure every descriptor is back as it
 * was. Returns 0; PEV_EBADARG for a NULL c, bad opts (sz unset, an unknown
 * owner, a negative pid); PEV_EINVAL when the kernel refuses the signal
 * number; PEV_ESRCH when the owner does not exist; another code when fcntl
 * fails. err, if not NULL, receives the explanation.
 */
PEV_API int pev_counter_notify(struct pev_counter *c, const struct pev_notify_opts *opts,
			       struct pev_error *err);

/**
 * Stops c's notification signals: clears O_ASYNC, the signal and the owner
 * on every descriptor. Signals already queued are still delivered. Returns 0,
 * PEV_EBADARG for a NULL c, or the first fcntl failure (the other
 * descriptors are still stopped).
 */
PEV_API int pev_counter_notify_stop(struct pev_counter *c);

/**
 * Returns the index (for pev_counter_fd(), pev_counter_read_fd(), ...) of
 * c's descriptor fd, PEV_ENOTFOUND when fd is not one of c's, or PEV_EBADARG
 * for a NULL c. Async-signal-safe: call it from a notification handler with
 * si_fd to learn which counter fired.
 */
PEV_API int pev_counter_lookup_fd(const struct pev_counter *c, int fd);

/** What a siginfo_t says about a perf event. */
enum pev_siginfo_kind {
	PEV_SIGINFO_OTHER = 0,   /**< not a signal from a perf event */
	PEV_SIGINFO_NOTIFY = 1,  /**< a descriptor's notification (pev_counter_notify) */
	PEV_SIGINFO_SIGTRAP = 2, /**< the SIGTRAP of an event opened with sigtrap */
};

/**
 * A perf event's signal, decoded by pev_siginfo_decode(). Fields that do not
 * apply to the kind are 0 (fd is -1).
 */
struct pev_siginfo {
	size_t sz;                  /**< sizeof(struct pev_siginfo): set by PEV_SIGINFO_INIT */
	enum pev_siginfo_kind kind; /**< which of the two mechanisms sent it */
	int signo;                  /**< si_signo */
	int code;                   /**< si_code: POLL_IN, POLL_HUP, SI_SIGIO or PEV_TRAP_PERF */
	/* PEV_SIGINFO_NOTIFY */
	int fd;                     /**< si_fd: the descriptor that fired, or -1 */
	long band;                  /**< si_band: POLLIN | POLLRDNORM, or POLLHUP | POLLERR when hangup */
	bool hangup;                /**< the event disabled itself: its refresh budget ran out */
	/* PEV_SIGINFO_SIGTRAP */
	void *addr;                 /**< si_addr: the address that overflowed the event (a breakpoint's watched address, a page fault's address) or NULL */
	uint64_t data;              /**< si_perf_data: the event's sig_data (an unsigned long: 32 bits on 32-bit systems) */
	uint32_t type;              /**< si_perf_type: the event's type (PEV_TYPE_*) */
	uint32_t flags;             /**< si_perf_flags: PEV_TRAP_PERF_FLAG_* */
	bool async;                 /**< flags has PEV_TRAP_PERF_FLAG_ASYNC: delivered late, SIGTRAP was blocked */
};

/** Initializer for struct pev_siginfo: the size set. */
#define PEV_SIGINFO_INIT PEV_SIZED_INIT(struct pev_siginfo)

/**
 * Decodes the siginfo_t that `siginfo` points to, as a SA_SIGINFO handler
 * (or sigwaitinfo) received it, into out, whose sz the caller sets
 * (PEV_SIGINFO_INIT): at most sz bytes are written and sz is set to the bytes
 * filled. (siginfo is a void pointer so that this header does not need the
 * POSIX feature macros that <signal.h> wants for siginfo_t under -std=c11.) A notification is recognised by
 * its si_code (POLL_IN..POLL_HUP, or SI_SIGIO for signals that have codes of
 * their own such as SIGSEGV), a perf SIGTRAP by si_code PEV_TRAP_PERF.
 * Reads si_perf_data, si_perf_type and si_perf_flags at the kernel's offsets
 * (checked at build time against <asm/siginfo.h>), whatever the C library
 * names. Returns the kind (>= 0) or PEV_EBADARG for NULL arguments or sz
 * unset. Async-signal-safe.
 */
PEV_API int pev_siginfo_decode(const void *siginfo, struct pev_siginfo *out);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_SIGNAL_H */
