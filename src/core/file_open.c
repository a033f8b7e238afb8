/* SPDX-License-Identifier: MIT */
#include "core/file_open.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int pev__open_regular(const char *path)
{
	struct stat before, st;
	int fd, fl;

	/* Never open a device, FIFO or socket: opening one can block or act. */
	if (stat(path, &before) < 0)
		return -errno;
	if (!S_ISREG(before.st_mode))
		return PEV_ENOTREG;
	/* It may be replaced meanwhile: O_NONBLOCK keeps a FIFO from blocking,
	 * O_NOCTTY a terminal from becoming ours, fstat tells what was opened. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return PEV_ENOTREG;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

const char *pev__open_strerror(int r)
{
	return r == PEV_ENOTREG ? "not a regular file" : strerror(-r);
}
