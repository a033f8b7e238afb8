/* SPDX-License-Identifier: MIT */
/*
 * output.c - opening the file an -o option names without following a
 * symbolic link: a link there (dangling or not) is refused, so an output
 * never truncates or creates the file a link points to.
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
	cli_error("option '%s': '%s' is a symbolic link; perfev does not write through links: "
		  "give the path of the file itself, or remove the link",
		  option, path);
	return true;
}

FILE *cli_open_output(const char *option, const char *path)
{
	FILE *f;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0666);

	if (fd < 0) {
		int e = errno;
		if (e == ELOOP && cli_output_is_link(option, path))
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
