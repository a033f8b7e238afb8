/* SPDX-License-Identifier: MIT */
/*
 * output.c - the one place perfev opens a file to write: an output a user
 * names (-o PATH, or perf.data by default) and the temporaries it makes
 * itself. The rules (docs/REPORT.md, "Output files"):
 *
 * - A temporary is always a new file: a name with random letters, created
 *   with O_EXCL (nothing already there is ever opened, a link is never
 *   followed), mode 0600.
 * - A named output that does not exist is created with O_EXCL.
 * - An existing one is judged before it is opened and checked again once
 *   open (the same inode): a regular file is truncated; a FIFO is opened
 *   without blocking (nobody reading: an error, never a wait); a character
 *   device only when it is /dev/null, /dev/zero, /dev/full, perfev's own
 *   terminal or its standard output or error; nothing else.
 * - A symbolic link is followed only to what perfev itself has open
 *   (/dev/stdout, /dev/stderr, /dev/fd/N of a shell's >(...)), to one of
 *   the devices above, or to a FIFO; never to a regular file (it would
 *   truncate whatever the link names) nor to a missing one.
 * - In a sticky world-writable directory (/tmp), anything there that
 *   belongs neither to perfev's user nor to the directory's owner is
 *   refused, link or not, as the kernel's protected_symlinks,
 *   protected_fifos and protected_regular do: another user planted it.
 */
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* "option '-o': " or "" for an output no option named. */
static const char *said(const char *option, char *buf, size_t size)
{
	if (!option)
		return "";
	snprintf(buf, size, "option '%s': ", option);
	return buf;
}

#define SAY(option, fmt, ...)                                                                      \
	do {                                                                                       \
		char opt_[64];                                                                     \
		cli_error("%s" fmt, said(option, opt_, sizeof(opt_)), __VA_ARGS__);                \
	} while (0)

/* What kind of file st is, in words. */
static const char *kind(const struct stat *st)
{
	switch (st->st_mode & S_IFMT) {
	case S_IFREG:
		return "a regular file";
	case S_IFDIR:
		return "a directory";
	case S_IFLNK:
		return "a symbolic link";
	case S_IFIFO:
		return "a FIFO";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFSOCK:
		return "a socket";
	default:
		return "a special file";
	}
}

/*
 * Whether path's entry (st, from lstat) was put in a sticky world-writable
 * directory by a user who is neither perfev's nor the directory's owner;
 * says so when it was.
 */
static bool planted(const char *option, const char *path, const struct stat *st)
{
	char copy[PATH_MAX];
	struct stat dir;

	if (st->st_uid == geteuid() ||
	    snprintf(copy, sizeof(copy), "%s", path) >= (int)sizeof(copy))
		return false;
	const char *parent = dirname(copy);
	if (stat(parent, &dir) != 0 || !(dir.st_mode & S_ISVTX) || !(dir.st_mode & S_IWOTH) ||
	    st->st_uid == dir.st_uid)
		return false;
	SAY(option,
	    "'%s' is %s of user %u in the shared directory '%s' (sticky, writable by all): "
	    "perfev does not write to what another user put there; remove it, or name a "
	    "path of your own",
	    path, kind(st), (unsigned)st->st_uid, parent);
	return true;
}

/* The device number of this process's controlling terminal, or 0. */
static dev_t own_terminal(void)
{
	char buf[1024], *p;
	unsigned long tty = 0;
	ssize_t n;
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* pid (comm) state ppid pgrp session tty_nr: comm may hold anything but ')'. */
	if (!(p = strrchr(buf, ')')) || sscanf(p + 1, " %*c %*d %*d %*d %lu", &tty) != 1)
		return 0;
	return (dev_t)tty;
}

/*
 * Whether a character device is one perfev may write to: /dev/null, /dev/zero,
 * /dev/full, /dev/tty, its controlling terminal, or the device its standard
 * output or error is.
 */
static bool device_allowed(const struct stat *st)
{
	unsigned ma = major(st->st_rdev), mi = minor(st->st_rdev);
	dev_t tty;

	if ((ma == 1 && (mi == 3 || mi == 5 || mi == 7)) || (ma == 5 && mi == 0))
		return true;
	for (int fd = 1; fd <= 2; fd++) {
		struct stat own;
		if (fstat(fd, &own) == 0 && S_ISCHR(own.st_mode) && own.st_rdev == st->st_rdev)
			return true;
	}
	tty = own_terminal();
	return tty && major(tty) == ma && minor(tty) == mi;
}

/*
 * A descriptor this process already has open for writing on the object st
 * describes, duplicated (close-on-exec), or -1 when it has none.
 */
static int own_descriptor(const struct stat *st)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int found = -1;

	if (!d)
		return -1;
	while (found < 0 && (e = readdir(d))) {
		char *end;
		long n = strtol(e->d_name, &end, 10);
		struct stat own;
		int fl;

		if (*end || end == e->d_name || n == dirfd(d) || n > INT_MAX)
			continue;
		if (fstat((int)n, &own) != 0 || own.st_dev != st->st_dev ||
		    own.st_ino != st->st_ino || (fl = fcntl((int)n, F_GETFL)) < 0 ||
		    (fl & O_ACCMODE) == O_RDONLY)
			continue;
		found = fcntl((int)n, F_DUPFD_CLOEXEC, 3);
	}
	closedir(d);
	return found;
}

/* Turns O_NONBLOCK off again on fd (it was only for the open). Returns fd. */
static int blocking(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

/*
 * Opens what path names (following a link there when follow) without
 * blocking and without creating it, and checks that it is still the
 * object want describes. Returns the descriptor (blocking again), or -1
 * after saying why.
 */
static int open_existing(const char *option, const char *path, const struct stat *want, int access,
                         bool follow)
{
	struct stat st;
	int fd = open(path, access | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));

	if (fd < 0) {
		if (errno == ENXIO && S_ISFIFO(want->st_mode))
			SAY(option,
			    "nothing reads the FIFO '%s'; start its reader first, or name a "
			    "regular file",
			    path);
		else
			SAY(option,
			    "cannot open '%s' for writing: %s; check the path and its "
			    "permissions",
			    path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || st.st_dev != want->st_dev || st.st_ino != want->st_ino) {
		SAY(option, "'%s' changed while perfev opened it; run again", path);
		close(fd);
		return -1;
	}
	return blocking(fd);
}

/* Follows the link at path where the rules allow it (see the top). Returns fd or -1. */
static int follow_link(const char *option, const char *path, unsigned how)
{
	struct stat target;
	int fd;

	if (!(how & CLI_OUTPUT_FILE_ONLY) && stat(path, &target) == 0) {
		if ((fd = own_descriptor(&target)) >= 0)
			return fd;
		if ((S_ISCHR(target.st_mode) && device_allowed(&target)) ||
		    S_ISFIFO(target.st_mode))
			return open_existing(option, path, &target, O_WRONLY, true);
		if (S_ISCHR(target.st_mode)) {
			SAY(option,
			    "'%s' is a symbolic link to a character device that is not perfev's "
			    "own terminal: perfev does not write there; name a file, or use "
			    "/dev/stdout",
			    path);
			return -1;
		}
	}
	SAY(option,
	    "'%s' is a symbolic link; perfev does not write through links: give the path "
	    "of the file itself, or remove the link",
	    path);
	return -1;
}

int cli_output_fd(const char *option, const char *path, unsigned how)
{
	int access = how & CLI_OUTPUT_RDWR ? O_RDWR : O_WRONLY;
	struct stat st;
	int fd;

	if (lstat(path, &st) != 0) {
		if (errno != ENOENT) {
			SAY(option,
			    "cannot open '%s' for writing: %s; check the path and its "
			    "permissions",
			    path, strerror(errno));
			return -1;
		}
		/* Nothing there: created here, so nothing anyone planted is opened. */
		fd =
		    open(path, access | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0666);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST || lstat(path, &st) != 0) {
			SAY(option, "cannot create '%s': %s; %s", path, strerror(errno),
			    option ? "check the directory and its permissions"
			           : "run in a writable directory, or name the file with -o");
			return -1;
		}
		/* Something appeared meanwhile: judged as any existing entry. */
	}
	if (planted(option, path, &st))
		return -1;
	if (S_ISLNK(st.st_mode))
		return follow_link(option, path, how);
	if (S_ISREG(st.st_mode)) {
		if ((fd = open_existing(option, path, &st, access, false)) >= 0 &&
		    ftruncate(fd, 0) != 0) {
			SAY(option, "cannot truncate '%s': %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		return fd;
	}
	if (!(how & CLI_OUTPUT_FILE_ONLY) &&
	    (S_ISFIFO(st.st_mode) || (S_ISCHR(st.st_mode) && device_allowed(&st))))
		return open_existing(option, path, &st, O_WRONLY, false);
	if (S_ISCHR(st.st_mode) && !(how & CLI_OUTPUT_FILE_ONLY))
		SAY(option,
		    "'%s' is a character device that is not perfev's own terminal, /dev/null "
		    "or its standard output: perfev does not write there; name a file",
		    path);
	else
		SAY(option, "'%s' is %s, not a file perfev can write%s; name a regular file", path,
		    kind(&st),
		    how & CLI_OUTPUT_FILE_ONLY ? " (this output is written out of order)" : "");
	return -1;
}

FILE *cli_open_output(const char *option, const char *path)
{
	FILE *f;
	int fd = cli_output_fd(option, path, 0);

	if (fd < 0)
		return NULL;
	if (!(f = fdopen(fd, "w"))) {
		SAY(option, "cannot write '%s': %s", path, strerror(errno));
		close(fd);
	}
	return f;
}

int cli_temp_create(const char *dir, const char *prefix, const char *suffix, char *path,
                    size_t size)
{
	static const char letters[] =
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

	for (int tries = 0; tries < 100; tries++) {
		unsigned char rnd[8];
		char tag[sizeof(rnd) + 1];

		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			return -1;
		for (size_t i = 0; i < sizeof(rnd); i++)
			tag[i] = letters[rnd[i] % (sizeof(letters) - 1)];
		tag[sizeof(rnd)] = '\0';
		size_t n = strlen(dir);
		if (snprintf(path, size, "%s%s%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/",
		             prefix, tag, suffix) >= (int)size) {
			errno = ENAMETOOLONG;
			return -1;
		}
		int fd =
		    open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	errno = EEXIST;
	return -1;
}
