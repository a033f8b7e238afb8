/* SPDX-License-Identifier: MIT */
/*
 * signal.c - overflow notification by signal (fcntl on a counter's
 * descriptors), and decoding the siginfo_t of a perf event's signal.
 *
 * Notification sets, on each descriptor, the signal (F_SETSIG), the owner
 * (F_SETOWN_EX) and then O_ASYNC, through the syscall seam so that tests can
 * make any step fail. A failure puts back what the earlier steps changed.
 */
#include "perfev/signal.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "count/counter_internal.h"
#include "core/error_internal.h"
#include "core/log_internal.h"
#include "core/sys.h"

/* ---- the kernel's siginfo layout for TRAP_PERF ----------------------------- */

/*
 * The perf fields of a SIGTRAP with si_code TRAP_PERF (Linux 5.13; flags
 * from 5.19, zero before). In the kernel's siginfo the fault member of the
 * field union holds the address, then a union aligned like a pointer whose
 * perf member is this struct. glibc 2.36 does not name these fields, so
 * perfev reads them at that offset, checked below against the kernel's
 * header (meson measures the offsets in <asm/siginfo.h>) and against the C
 * library's names where it has them.
 */
struct kperf {
	unsigned long data; /* si_perf_data: attr.sig_data */
	uint32_t type;      /* si_perf_type: attr.type */
	uint32_t flags;     /* si_perf_flags: TRAP_PERF_FLAG_* */
};

#define KPERF_OFFSET (offsetof(siginfo_t, si_addr) + sizeof(void *))

_Static_assert(KPERF_OFFSET + sizeof(struct kperf) <= sizeof(siginfo_t),
	       "the perf fields lie inside siginfo_t");
#ifdef PEV_KSI_PERF_DATA
_Static_assert(KPERF_OFFSET + offsetof(struct kperf, data) == PEV_KSI_PERF_DATA,
	       "si_perf_data is where the kernel's header puts it");
_Static_assert(KPERF_OFFSET + offsetof(struct kperf, type) == PEV_KSI_PERF_TYPE,
	       "si_perf_type is where the kernel's header puts it");
_Static_assert(KPERF_OFFSET + offsetof(struct kperf, flags) == PEV_KSI_PERF_FLAGS,
	       "si_perf_flags is where the kernel's header puts it");
_Static_assert(PEV_KSI_TRAP_PERF == PEV_TRAP_PERF, "TRAP_PERF");
_Static_assert(PEV_KSI_TRAP_PERF_FLAG_ASYNC == PEV_TRAP_PERF_FLAG_ASYNC, "TRAP_PERF_FLAG_ASYNC");
#endif
#ifdef si_perf_data
_Static_assert(offsetof(siginfo_t, si_perf_data) == KPERF_OFFSET, "C library's si_perf_data");
#endif
#ifdef si_perf_type
_Static_assert(offsetof(siginfo_t, si_perf_type) == KPERF_OFFSET + offsetof(struct kperf, type),
	       "C library's si_perf_type");
#endif
#ifdef si_perf_flags
_Static_assert(offsetof(siginfo_t, si_perf_flags) == KPERF_OFFSET + offsetof(struct kperf, flags),
	       "C library's si_perf_flags");
#endif

/* ---- options --------------------------------------------------------------- */

static int notify_opts_copy(struct pev_notify_opts *dst, const struct pev_notify_opts *src,
			    struct pev_error *err)
{
	static const char func[] = "pev_counter_notify";
	int r = pev__opts_copy_sized(dst, sizeof(*dst), src, func, "PEV_NOTIFY_OPTS_INIT", err);

	if (r < 0 || !src)
		return r;
	if ((unsigned)dst->owner > PEV_NOTIFY_PROCESS_GROUP)
		return pev__bad_arg(err, func, "opts",
				    "owner %d is not PEV_NOTIFY_THREAD, PEV_NOTIFY_PROCESS or "
				    "PEV_NOTIFY_PROCESS_GROUP",
				    (int)dst->owner);
	if (dst->pid < 0)
		return pev__bad_arg(err, func, "opts",
				    "pid %d is negative; give a thread, process or group id, or 0 "
				    "for the caller's own",
				    (int)dst->pid);
	return 0;
}

/* ---- notification ---------------------------------------------------------- */

/* What notification changes on one descriptor, saved to put it back. */
struct fd_state {
	int flags;
	int sig;
	struct f_owner_ex owner;
};

static const char *owner_word(enum pev_notify_owner o)
{
	return o == PEV_NOTIFY_THREAD ? "thread" : o == PEV_NOTIFY_PROCESS ? "process"
									 : "process group";
}

static int owner_type(enum pev_notify_owner o)
{
	return o == PEV_NOTIFY_THREAD ? F_OWNER_TID : o == PEV_NOTIFY_PROCESS ? F_OWNER_PID
									   : F_OWNER_PGRP;
}

/* Explains fcntl `what` failing with -r on descriptor i of c. Returns the code. */
static int fcntl_failed(const struct pev_counter *c, int i, const char *what, int r,
			const struct pev_notify_opts *o, int signo, pid_t pid, struct pev_error *err)
{
	int code = pev_error_from_errno(-r);
	int fd = c->slots[i].fd;

	pev__error_start(err, code, -r, "fcntl", c->name, false);
	pev__error_msg(err, "cannot make '%s' signal on overflow: ", c->name);
	if (r == -EBADF) {
		pev__error_field(err, "fd");
		pev__error_msg(err, "its descriptor %d is not open (fcntl %s: EBADF)", fd, what);
		pev__error_hint(err, "close counters only with pev_counter_close(), never their "
				     "descriptors");
	} else if (strcmp(what, "F_SETSIG") == 0 && r == -EINVAL) {
		pev__error_field(err, "signo");
		pev__error_msg(err, "%d is not a signal number the kernel can send (fcntl F_SETSIG "
				    "takes 1 to %d, or 0 for plain SIGIO)",
			       signo, SIGRTMAX);
		pev__error_hint(err, "use a real-time signal such as SIGRTMIN+1 (%d): one is queued "
				     "per overflow",
				SIGRTMIN + 1);
		pev__error_hint(err, "or leave signo 0 for SIGIO (signals that arrive while one is "
				     "pending merge)");
	} else if (strcmp(what, "F_SETOWN_EX") == 0 && r == -ESRCH) {
		pev__error_field(err, "pid");
		pev__error_msg(err, "no %s %d exists (fcntl F_SETOWN_EX: ESRCH)", owner_word(o->owner),
			       (int)pid);
		if (o->owner == PEV_NOTIFY_THREAD)
			pev__error_hint(err, "give a live thread id (gettid() in that thread, not a "
					     "pthread_t), or 0 for the calling thread");
		else
			pev__error_hint(err, "give a live %s id, or 0 for the caller's own",
					owner_word(o->owner));
	} else {
		pev__error_msg(err, "fcntl %s on descriptor %d failed: %s", what, fd,
			       pev_strerror(code));
	}
	return code;
}

/* Puts descriptors 0..n-1 of c back as saved (best effort: this runs after a failure). */
static void restore(struct pev_counter *c, const struct fd_state *saved, int n)
{
	for (int i = n - 1; i >= 0; i--) {
		int fd = c->slots[i].fd;
		pev__sys_fcntl(fd, F_SETFL, (unsigned long)(saved[i].flags & ~O_ASYNC));
		pev__sys_fcntl(fd, F_SETSIG, (unsigned long)saved[i].sig);
		pev__sys_fcntl(fd, F_SETOWN_EX, (unsigned long)(uintptr_t)&saved[i].owner);
		if (saved[i].flags & O_ASYNC)
			pev__sys_fcntl(fd, F_SETFL, (unsigned long)saved[i].flags);
	}
}

/*
 * Saves descriptor fd's state into *s and configures it. Returns 0 or the
 * failing step's -errno, named in *what; *changed tells whether the state was
 * saved and a change may have been made.
 */
static int notify_one(int fd, int signo, const struct f_owner_ex *owner, struct fd_state *s,
		      const char **what, bool *changed)
{
	int r;

	*changed = false;
	*what = "F_GETFL";
	if ((r = pev__sys_fcntl(fd, F_GETFL, 0)) < 0)
		return r;
	s->flags = r;
	*what = "F_GETSIG";
	if ((r = pev__sys_fcntl(fd, F_GETSIG, 0)) < 0)
		return r;
	s->sig = r;
	*what = "F_GETOWN_EX";
	if ((r = pev__sys_fcntl(fd, F_GETOWN_EX, (unsigned long)(uintptr_t)&s->owner)) < 0)
		return r;
	*changed = true;
	/* Reconfiguring: stop signals while the signal and owner change. */
	*what = "F_SETFL";
	if ((s->flags & O_ASYNC) &&
	    (r = pev__sys_fcntl(fd, F_SETFL, (unsigned long)(s->flags & ~O_ASYNC))) < 0)
		return r;
	*what = "F_SETSIG";
	if ((r = pev__sys_fcntl(fd, F_SETSIG, (unsigned long)signo)) < 0)
		return r;
	*what = "F_SETOWN_EX";
	if ((r = pev__sys_fcntl(fd, F_SETOWN_EX, (unsigned long)(uintptr_t)owner)) < 0)
		return r;
	*what = "F_SETFL";
	if ((r = pev__sys_fcntl(fd, F_SETFL, (unsigned long)(s->flags | O_ASYNC))) < 0)
		return r;
	return 0;
}

/* Signals whose default action is not to end (or stop) the process. */
static bool default_is_harmless(int signo)
{
	return signo == SIGCHLD || signo == SIGURG || signo == SIGWINCH || signo == SIGCONT;
}

/* Warns (log) when the caller's own process would die of, or lose, the first signal. */
static void check_disposition(const struct pev_counter *c, int signo)
{
	struct sigaction sa;

	if (sigaction(signo, NULL, &sa) < 0)
		return;
	if (sa.sa_handler == SIG_IGN)
		pev__log(PEV_LOG_WARN, "%s: signal %d is ignored in this process: its overflow "
				       "notifications are discarded",
			 c->name, signo);
	else if (sa.sa_handler == SIG_DFL && !default_is_harmless(signo))
		pev__log(PEV_LOG_WARN, "%s: signal %d has no handler in this process: its default "
				       "action ends the process at the first overflow, unless the "
				       "owner blocks it and waits for it (sigwaitinfo)",
			 c->name, signo);
}

PEV_API int pev_counter_notify(struct pev_counter *c, const struct pev_notify_opts *opts,
			       struct pev_error *err)
{
	struct pev_notify_opts o;
	struct f_owner_ex owner;
	struct fd_state *saved;
	int signo, r;

	pev__error_clear(err);
	if (!c)
		return pev__bad_arg(err, "pev_counter_notify", "c", "must not be NULL");
	if ((r = notify_opts_copy(&o, opts, err)) < 0)
		return r;
	signo = o.signo ? o.signo : SIGIO;
	owner.type = owner_type(o.owner);
	owner.pid = o.pid ? o.pid
		    : o.owner == PEV_NOTIFY_THREAD  ? gettid()
		    : o.owner == PEV_NOTIFY_PROCESS ? getpid()
						    : getpgrp();
	if (c->nr == 0)
		return 0;
	saved = calloc((size_t)c->nr, sizeof(*saved));
	if (!saved) {
		pev__error_start(err, PEV_ENOMEM, ENOMEM, NULL, c->name, true);
		pev__error_msg(err, "cannot make '%s' signal on overflow: out of memory", c->name);
		return PEV_ENOMEM;
	}
	for (int i = 0; i < c->nr; i++) {
		const char *what;
		bool changed;

		r = notify_one(c->slots[i].fd, signo, &owner, &saved[i], &what, &changed);
		if (r < 0) {
			restore(c, saved, changed ? i + 1 : i);
			free(saved);
			return fcntl_failed(c, i, what, r, &o, signo, owner.pid, err);
		}
	}
	free(saved);
	if (o.pid == 0 && o.owner != PEV_NOTIFY_PROCESS_GROUP)
		check_disposition(c, signo);
	return 0;
}

PEV_API int pev_counter_notify_stop(struct pev_counter *c)
{
	static const struct f_owner_ex nobody = {F_OWNER_PID, 0};
	int first = 0;

	if (!c)
		return pev__bad_arg(NULL, "pev_counter_notify_stop", "c", "NULL");
	for (int i = 0; i < c->nr; i++) {
		int fd = c->slots[i].fd;
		int r = pev__sys_fcntl(fd, F_GETFL, 0);

		if (r >= 0)
			r = pev__sys_fcntl(fd, F_SETFL, (unsigned long)(r & ~O_ASYNC));
		if (r >= 0)
			r = pev__sys_fcntl(fd, F_SETSIG, 0);
		if (r >= 0)
			r = pev__sys_fcntl(fd, F_SETOWN_EX, (unsigned long)(uintptr_t)&nobody);
		if (r < 0 && !first)
			first = pev_error_from_errno(-r);
	}
	return first;
}

PEV_API int pev_counter_lookup_fd(const struct pev_counter *c, int fd)
{
	if (!c)
		return pev__bad_arg(NULL, "pev_counter_lookup_fd", "c", "NULL");
	for (int i = 0; i < c->nr; i++)
		if (c->slots[i].fd == fd)
			return i;
	return PEV_ENOTFOUND;
}

/* ---- siginfo --------------------------------------------------------------- */

/* Signals with si_codes of their own: the kernel's notification uses SI_SIGIO for them. */
static bool has_own_codes(int signo)
{
	return signo == SIGILL || signo == SIGFPE || signo == SIGSEGV || signo == SIGBUS ||
	       signo == SIGTRAP || signo == SIGCHLD || signo == SIGSYS;
}

PEV_API int pev_siginfo_decode(const void *siginfo, struct pev_siginfo *out)
{
	const siginfo_t *si = siginfo;
	struct pev_siginfo d;
	size_t n;

	if (!si || !out)
		return pev__bad_arg(NULL, "pev_siginfo_decode", si ? "out" : "siginfo", "NULL");
	if (out->sz < sizeof(out->sz))
		return pev__bad_arg(NULL, "pev_siginfo_decode", "out", "out->sz is %zu: initialize "
				    "it with PEV_SIGINFO_INIT", out->sz);
	memset(&d, 0, sizeof(d));
	d.sz = sizeof(d);
	d.signo = si->si_signo;
	d.code = si->si_code;
	d.fd = -1;
	if (si->si_signo == SIGTRAP && si->si_code == PEV_TRAP_PERF) {
		struct kperf p;

		memcpy(&p, (const char *)si + KPERF_OFFSET, sizeof(p));
		d.kind = PEV_SIGINFO_SIGTRAP;
		d.addr = si->si_addr;
		d.data = p.data;
		d.type = p.type;
		d.flags = p.flags;
		d.async = (p.flags & PEV_TRAP_PERF_FLAG_ASYNC) != 0;
	} else if ((si->si_code >= POLL_IN && si->si_code <= POLL_HUP &&
		    !has_own_codes(si->si_signo)) ||
		   si->si_code == SI_SIGIO) {
		d.kind = PEV_SIGINFO_NOTIFY;
		d.fd = si->si_fd;
		d.band = si->si_band;
		d.hangup = si->si_code == POLL_HUP || (si->si_band & POLLHUP);
	}
	n = out->sz < sizeof(d) ? out->sz : sizeof(d);
	d.sz = n;
	memcpy(out, &d, n);
	return (int)d.kind;
}
