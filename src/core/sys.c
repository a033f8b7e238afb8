/* SPDX-License-Identifier: MIT */
/*
 * sys.c - the real kernel behind the syscall seam.
 */
#include "core/sys.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static int real_perf_event_open(struct pev_attr *attr, pid_t pid, int cpu, int group_fd,
				unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);

	return fd < 0 ? -errno : (int)fd;
}

static int real_ioctl(int fd, unsigned long request, unsigned long arg)
{
	int r = ioctl(fd, request, arg);

	return r < 0 ? -errno : r;
}

ssize_t pev__sys_real_read(int fd, void *buf, size_t count)
{
	ssize_t n;

	do
		n = read(fd, buf, count);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

static void *real_mmap(size_t length, int prot, int flags, int fd, off_t offset, int *err)
{
	void *p = mmap(NULL, length, prot, flags, fd, offset);

	if (p == MAP_FAILED) {
		*err = errno;
		return NULL;
	}
	*err = 0;
	return p;
}

static int real_munmap(void *addr, size_t length)
{
	return munmap(addr, length) < 0 ? -errno : 0;
}

static int real_close(int fd)
{
	/* Linux releases the fd even when close reports EINTR: never retry. */
	return close(fd) < 0 && errno != EINTR ? -errno : 0;
}

static int real_fcntl(int fd, int cmd, unsigned long arg)
{
	int r = fcntl(fd, cmd, arg);

	return r < 0 ? -errno : r;
}

const struct pev_sys pev__sys_real = {
	.perf_event_open = real_perf_event_open,
	.ioctl = real_ioctl,
	.read = pev__sys_real_read,
	.mmap = real_mmap,
	.munmap = real_munmap,
	.close = real_close,
	.fcntl = real_fcntl,
};

const struct pev_sys *pev__sys_ops = &pev__sys_real;

const struct pev_sys *pev__sys_set(const struct pev_sys *ops)
{
	const struct pev_sys *old = pev__sys_ops;

	pev__sys_ops = ops ? ops : &pev__sys_real;
	return old;
}
