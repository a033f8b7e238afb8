/* SPDX-License-Identifier: MIT */
/*
 * sys.h - the one place perfev calls the kernel for perf events.
 *
 * Every perf_event_open, ioctl, read, mmap, munmap, close and fcntl on an
 * event fd goes through the function table below. Tests swap the table
 * (pev__sys_set) to inject errors the machine cannot produce for real;
 * nothing else in the library calls these syscalls directly. Each entry
 * returns -errno on failure and leaves the global errno alone as far as
 * callers are concerned.
 */
#ifndef PERFEV_SYS_H
#define PERFEV_SYS_H

#include <stddef.h>
#include <errno.h>
#include <sys/types.h>
#include <unistd.h>

#include "perfev/abi.h"

struct pev_sys {
	/* Returns an fd or -errno. The kernel may write attr->size on E2BIG. */
	int (*perf_event_open)(struct pev_attr *attr, pid_t pid, int cpu, int group_fd,
			       unsigned long flags);
	/* Returns the ioctl's result (>= 0) or -errno. */
	int (*ioctl)(int fd, unsigned long request, unsigned long arg);
	/* Returns bytes read or -errno. */
	ssize_t (*read)(int fd, void *buf, size_t count);
	/* Returns the mapping, or NULL with *err set to the errno. */
	void *(*mmap)(size_t length, int prot, int flags, int fd, off_t offset, int *err);
	/* Returns 0 or -errno. */
	int (*munmap)(void *addr, size_t length);
	/* Returns 0 or -errno. */
	int (*close)(int fd);
	/*
	 * fcntl(2) on an event fd (signal notification: F_SETSIG, F_SETOWN_EX,
	 * F_SETFL O_ASYNC and their getters). arg is the integer, or the pointer
	 * cast to unsigned long. Returns the result (>= 0) or -errno.
	 */
	int (*fcntl)(int fd, int cmd, unsigned long arg);
};

/* The table that calls the real kernel. */
extern const struct pev_sys pev__sys_real;

/* The table in use. */
extern const struct pev_sys *pev__sys_ops;

/* Installs ops (NULL restores the real kernel). Returns the table it replaced. */
const struct pev_sys *pev__sys_set(const struct pev_sys *ops);

static inline int pev__sys_perf_event_open(struct pev_attr *attr, pid_t pid, int cpu, int group_fd,
					  unsigned long flags)
{
	return pev__sys_ops->perf_event_open(attr, pid, cpu, group_fd, flags);
}

static inline int pev__sys_ioctl(int fd, unsigned long request, unsigned long arg)
{
	return pev__sys_ops->ioctl(fd, request, arg);
}

/* The real read(2), called directly (see pev__sys_read). */
ssize_t pev__sys_real_read(int fd, void *buf, size_t count);

/*
 * read(2) of a perf event fd: the kernel never returns EINTR for it (a read
 * of a count does not sleep), so no retry loop.
 */
static inline ssize_t pev__sys_read_direct(int fd, void *buf, size_t count)
{
	ssize_t n = read(fd, buf, count);

	return n < 0 ? -errno : n;
}

/*
 * Reads go straight to read(2) unless a test swapped the table: counter reads
 * are the hot path (docs/BENCHMARKS.md), and the indirect call and the retry
 * loop cost a measurable share of a 300-500 ns read on this project's VMs.
 */
static inline ssize_t pev__sys_read(int fd, void *buf, size_t count)
{
	if (__builtin_expect(pev__sys_ops == &pev__sys_real, 1))
		return pev__sys_read_direct(fd, buf, count);
	return pev__sys_ops->read(fd, buf, count);
}

static inline void *pev__sys_mmap(size_t length, int prot, int flags, int fd, off_t offset, int *err)
{
	return pev__sys_ops->mmap(length, prot, flags, fd, offset, err);
}

static inline int pev__sys_munmap(void *addr, size_t length)
{
	return pev__sys_ops->munmap(addr, length);
}

static inline int pev__sys_close(int fd)
{
	return pev__sys_ops->close(fd);
}

static inline int pev__sys_fcntl(int fd, int cmd, unsigned long arg)
{
	return pev__sys_ops->fcntl(fd, cmd, arg);
}

#endif /* PERFEV_SYS_H */
