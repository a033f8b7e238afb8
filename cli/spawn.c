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

/*
 * Opens a disabled, non-inherited dummy event on perfev itself, so that the
 * child about to be spawned gets a perf context of its own rather than a
 * clone of perfev's. The kernel marks a child's context as a clone of its
 * parent's only when every event of the parent was inherited; two cloned
 * contexts may be swapped between the tasks at a context switch (an
 * optimisation that assumes inherited events are interchangeable). They are
 * not for uprobes: the kernel's uprobe filter counts a hit only for an event whose
 * target task (hw.target, never updated by the swap) has the probed mm. With
 * the swap, the command's exec enables perfev's own event, every hit in the
 * command is filtered out and the uprobe counts 0 (or samples nothing).
 * Returns the counter (NULL when it could not open: then nothing changes).
 */
static struct pev_counter *no_context_clone(void)
{
	struct pev_event ev = pev_event_software(PEV_SW_DUMMY);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_target self = pev_target_self();
	struct pev_counter *c = NULL;
	struct pev_error err;

	o.disabled = true;
	o.exclude_kernel = o.exclude_hv = true; /* allowed at any perf_event_paranoid < 3 */
	o.inherit = PEV_INHERIT_NONE;
	if (pev_counter_open(&ev, &o, &self, NULL, &c, &err) < 0)
		return NULL;
	return c;
}

int cli_spawn_command(char **argv, pid_t *child)
{
	posix_spawnattr_t attr;
	sigset_t none, dfl;
	struct pev_counter *guard;

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
	/* The child's context is made at the fork: the guard is needed only then. */
	guard = no_context_clone();
	r = posix_spawnp(child, argv[0], NULL, &attr, argv, environ);
	pev_counter_close(guard);
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
