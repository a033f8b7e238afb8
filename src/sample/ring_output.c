/* SPDX-License-Identifier: MIT */
/*
 * ring_output.c - several events writing into one ring (SET_OUTPUT), and
 * waiting for rings to fill (poll).
 *
 * poll(2) is called directly, not through the syscall seam of sys.h: it is
 * not a perf event syscall (it only waits on descriptors), its errors are
 * the generic ones (EINTR, ENOMEM), and the seam exists to inject what the
 * kernel's perf code returns.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error_internal.h"
#include "perfev/ring.h"
#include "sample/ring_internal.h"
#include "core/sys.h"

/* ---- SET_OUTPUT ---------------------------------------------------------------- */

static void describe_place(int cpu, pid_t tid, char *buf, size_t size)
{
	if (cpu >= 0)
		snprintf(buf, size, "CPU %d", cpu);
	else if (tid == 0)
		snprintf(buf, size, "the calling thread (any CPU)");
	else
		snprintf(buf, size, "thread %d (any CPU)", (int)tid);
}

static const char *clock_text(int32_t clockid, char *buf, size_t size)
{
	if (clockid < 0)
		return "perf's clock";
	snprintf(buf, size, "clockid %d", (int)clockid);
	return buf;
}

/* Explains a refused SET_OUTPUT from what both sides are. */
static int redirect_error(const struct pev_ring *r, const struct pev_counter *c, int fd_index,
			  int e, struct pev_error *err)
{
	const struct pev_attr *a = pev_counter_attr(c);
	const char *name = pev_counter_name(c);
	int cpu = pev_counter_cpu(c, fd_index);
	pid_t tid = pev_counter_tid(c, fd_index);
	uint64_t flags = a ? a->flags : 0;
	int32_t clockid = a && (flags & PEV_ATTR_USE_CLOCKID) ? a->clockid : -1;
	int code = pev_error_from_errno(e);
	char here[64], there[64], c1[32], c2[32];

	pev__error_start(err, code, e, "ioctl(SET_OUTPUT)", name, false);
	pev__error_msg(err, "cannot send the records of '%s' (descriptor %d) into the ring of '%s': ",
		       name ? name : "?", fd_index, r->name);
	if (e == EBADF) {
		pev__error_msg(err, "a descriptor is closed (EBADF): the ring's counter must stay open "
				    "while the ring is used.");
		return code;
	}
	if (e != EINVAL) {
		pev__error_msg(err, "%s (errno %d).", strerror(e), e);
		return code;
	}
	describe_place(cpu, tid, here, sizeof(here));
	describe_place(r->cpu, r->tid, there, sizeof(there));
	if (pev_counter_fd(c, fd_index) == r->fd) {
		pev__error_field(err, "fd_index");
		pev__error_msg(err, "that descriptor is the ring's own (EINVAL).");
	} else if (cpu != r->cpu) {
		pev__error_field(err, "cpu");
		pev__error_msg(err, "the descriptor counts on %s and the ring's event on %s; the kernel "
				    "shares a ring only between events of one CPU (EINVAL).",
			       here, there);
		pev__error_hint(err, "open one ring per CPU and send each CPU's descriptor to the ring "
				     "of the same CPU (pev_counter_cpu tells a descriptor's CPU)");
	} else if (cpu < 0 && tid != r->tid) {
		pev__error_field(err, "pid");
		pev__error_msg(err, "the descriptor follows %s and the ring's event %s; per-task events "
				    "share a ring only when they follow the same task (EINVAL).",
			       here, there);
		pev__error_hint(err, "open the events on one CPU each, or one ring per task");
	} else if (clockid != r->clockid) {
		pev__error_field(err, "clockid");
		pev__error_msg(err, "the descriptor stamps records with %s and the ring's event with "
				    "%s; the kernel does not mix clocks in one ring (EINVAL).",
			       clock_text(clockid, c1, sizeof(c1)), clock_text(r->clockid, c2, sizeof(c2)));
		pev__error_hint(err, "open both events with the same use_clockid and clockid");
	} else if ((flags ^ r->attr_flags) & PEV_ATTR_WRITE_BACKWARD) {
		pev__error_field(err, "write_backward");
		pev__error_msg(err, "one event writes backward (overwrite mode) and the other forward; "
				    "a ring has one direction (EINVAL).");
		pev__error_hint(err, "open both events with the same write_backward");
	} else {
		pev__error_msg(err, "both events are on %s with the same clock and direction, so the "
				    "kernel refused for another reason (EINVAL): the descriptor has a ring "
				    "of its own mapped, it already writes into another ring, both events "
				    "fill AUX areas of different PMUs, or the ring's event was closed.",
			       here);
		pev__error_hint(err, "close the descriptor's own ring before redirecting it");
	}
	return code;
}

PEV_API int pev_ring_redirect(struct pev_ring *r, const struct pev_counter *c, int fd_index,
			      struct pev_error *err)
{
	static const char func[] = "pev_ring_redirect";
	int fd;

	pev__error_clear(err);
	if (!r)
		return pev__bad_arg(err, func, "r", "must not be NULL");
	if (r->fd < 0)
		return pev__bad_arg(err, func, "r", "has no descriptor (a ring over caller memory)");
	if (!c)
		return pev__bad_arg(err, func, "c", "must not be NULL");
	if ((fd = pev_counter_fd(c, fd_index)) < 0)
		return pev__bad_arg(err, func, "fd_index", "%d is not a descriptor of the counter",
				    fd_index);
	int rc = pev__sys_ioctl(fd, PEV_IOC_SET_OUTPUT, (unsigned long)r->fd);
	if (rc < 0)
		return redirect_error(r, c, fd_index, -rc, err);
	return 0;
}

/* ---- poll --------------------------------------------------------------------- */

/* Rings polled with a buffer on the stack; more take one from the heap. */
#define POLL_STACK 32

PEV_API int pev_ring_poll(struct pev_ring *const *rings, size_t n, int timeout_ms,
			  unsigned *ready)
{
	struct pollfd stack[POLL_STACK], *pfd = stack;
	int rc;

	static const char fn[] = "pev_ring_poll";

	if (n && (!rings || !ready))
		return pev__bad_arg(NULL, fn, rings ? "ready" : "rings", "NULL with n %zu", n);
	if (n > (size_t)INT32_MAX)
		return pev__bad_arg(NULL, fn, "n", "%zu rings", n);
	for (size_t i = 0; i < n; i++)
		if (!rings[i] || rings[i]->fd < 0)
			return pev__bad_arg(NULL, fn, "rings", "rings[%zu] is %s", i,
					    rings[i] ? "closed" : "NULL");
	if (n > POLL_STACK && !(pfd = calloc(n, sizeof(*pfd))))
		return PEV_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		pfd[i].fd = rings[i]->fd;
		pfd[i].events = POLLIN;
		pfd[i].revents = 0;
	}
	rc = poll(n ? pfd : NULL, (nfds_t)n, timeout_ms);
	if (rc < 0) {
		rc = pev_error_from_errno(errno);
	} else {
		rc = 0;
		for (size_t i = 0; i < n; i++) {
			unsigned bits = 0;
			if (pfd[i].revents & POLLIN)
				bits |= PEV_RING_READABLE;
			if (pfd[i].revents & POLLHUP)
				bits |= PEV_RING_HUP;
			if (pfd[i].revents & (POLLERR | POLLNVAL))
				bits |= PEV_RING_ERROR;
			ready[i] = bits;
			rc += bits != 0;
		}
	}
	if (pfd != stack)
		free(pfd);
	return rc;
}
