/* SPDX-License-Identifier: MIT */
/*
 * spawn.c - starting the command a perfev command measures (stat, record),
 * and saying why it could not start.
 */
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>

#include "cli.h"

extern char **environ;

int cli_spawn_command(char **argv, pid_t *child)
{
	posix_spawnattr_t attr;
	sigset_t none, dfl;

	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGTERM);
	sigaddset(&dfl, SIGCHLD);
	int r = posix_spawnattr_init(&attr);
	if (r != 0)
		return r;
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	r = posix_spawnp(child, argv[0], NULL, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	return r;
}

int cli_exec_error(const char *cmd, int e)
{
	if (e == ENOENT && !strchr(cmd, '/')) {
		cli_error("cannot run '%s': command not found (not in PATH)", cmd);
		return 127;
	}
	if (e == ENOENT) {
		cli_error("cannot run '%s': no such file", cmd);
		return 127;
	}
	if (e == EACCES)
		cli_error("cannot run '%s': permission denied (not an executable file, or no "
		          "execute permission)",
		          cmd);
	else if (e == ENOEXEC)
		cli_error("cannot run '%s': not an executable format", cmd);
	else
		cli_error("cannot run '%s': %s", cmd, strerror(e));
	return 126;
}
