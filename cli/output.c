/* SPDX-License-Identifier: MIT */
/*
 * output.c - opening the file an -o option names without following a
 * symbolic link: a link there (dangling or not) is refused, so an output
 * never truncates or creates the file a link points to. Two kinds of link
 * are writes nobody can abuse and are followed: one to this process's own
 * standard output or error (/dev/stdout, /dev/stderr: written through the
 * stream the caller gave perfev), and one to a device, pipe or socket.
 */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool cli_output_is_link(const char *option, const char *path)
{
	struct stat st;

	if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode))
		return false;
	if (option)
		cli_error("option '%s': '%s' is a symbolic link; perfev does not write through "
			  "links: give the path of the file itself, or remove the link",
			  option, path);
	else
		cli_error("'%s' is a symbolic link; perfev does not write through links: remove "
			  "the link, or name another file with -o",
			  path);
	return true;
}

/*
 * Opens the file the link at path leads to when that is this process's
 * standard output or error (a new descriptor of it), or a character device,
 * pipe or socket. Returns the descriptor, or -1 when the link must not be
 * followed.
 */
static int follow_safe_link(const char *path)
{
	struct stat target, own;
	int fd;

	if (stat(path, &target) != 0)
		return -1;
	for (int std = 1; std <= 2; std++)
		if (fstat(std, &own) == 0 && own.st_dev == target.st_dev &&
		    own.st_ino == target.st_ino)
			return fcntl(std, F_DUPFD_CLOEXEC, 3);
	if (!S_ISCHR(target.st_mode) && !S_ISFIFO(target.st_mode) && !S_ISSOCK(target.st_mode))
		return -1;
	/* No O_TRUNC, no O_CREAT: it exists and is no file to cut. Checked again once open. */
	fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, &target) != 0 || S_ISREG(target.st_mode) ||
			S_ISDIR(target.st_mode) || S_ISBLK(target.st_mode))) {
		close(fd);
		return -1;
	}
	return fd;
}

FILE *cli_open_output(const char *option, const char *path)
{
	FILE *f;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0666);

	if (fd < 0 && errno == ELOOP)
		fd = follow_safe_link(path);
	if (fd < 0) {
		int e = errno;
		if (cli_output_is_link(option, path))
			return NULL;
		cli_error("option '%s': cannot open '%s' for writing: %s; check the directory "
			  "and its permissions",
			  option, path, strerror(e));
		return NULL;
	}
	if (!(f = fdopen(fd, "w"))) {
		cli_error("option '%s': cannot write '%s': %s", option, path, strerror(errno));
		close(fd);
	}
	return f;
}
