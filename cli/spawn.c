/* SPDX-License-Identifier: MIT */
/*
 * spawn.c - starting the command a perfev command measures (stat, record),
 * and saying why it could not start.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

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

/*
 * In the child before its exec: only async-signal-safe calls, and no write
 * to memory but the child's own stack (after vfork it shares perfev's memory
 * until it execs). Returns only when the exec failed: its errno.
 */
static int child_exec(char **argv, const char *path, pid_t parent)
{
	static const int defaults[] = {SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGPIPE};
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	sigset_t none;

	sigemptyset(&dfl.sa_mask);
	for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
		sigaction(defaults[i], &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* The command does not outlive perfev: killed with perfev, it is told to end. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) == 0 && getppid() != parent)
		_exit(128 + SIGTERM);
	/* The file perfev found; should that fail, the search as the shell would make it. */
	if (path)
		execv(path, argv);
	execvp(argv[0], argv);
	return errno;
}

/*
 * Waits for the exec of child to report: returns 0 when the exec closed
 * report (or report is -1), else its errno with the child reaped and
 * *child -1. Closes report.
 */
static int wait_exec(int report, pid_t *child)
{
	ssize_t n;
	int e = 0;

	if (report < 0)
		return 0;
	while ((n = read(report, &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(report);
	if (n == (ssize_t)sizeof(e)) {
		while (waitpid(*child, NULL, 0) < 0 && errno == EINTR)
			;
		*child = -1;
		return e ? e : ENOEXEC;
	}
	return 0;
}

int cli_spawn_paused(char **argv, const char *path, struct cli_paused *p)
{
	pid_t parent = getpid();
	int report[2], go[2], e;

	p->pid = 0;
	p->go = p->report = -1;
	if (pipe2(go, O_CLOEXEC) < 0)
		return errno;
	if (pipe2(report, O_CLOEXEC) < 0)
		report[0] = report[1] = -1;
	p->pid = fork();
	if (p->pid == 0) {
		char c = 0;
		ssize_t n;
		/* Only async-signal-safe calls: a byte lets it exec, end of file ends it. */
		close(go[1]);
		while ((n = read(go[0], &c, 1)) < 0 && errno == EINTR)
			;
		if (n != 1)
			_exit(127);
		e = child_exec(argv, path, parent);
		if (report[1] >= 0 && write(report[1], &e, sizeof(e)) != (ssize_t)sizeof(e)) {
			/* perfev sees the exit status alone then. */
		}
		_exit(127);
	}
	e = errno;
	close(go[0]);
	if (report[1] >= 0)
		close(report[1]);
	if (p->pid < 0) {
		close(go[1]);
		if (report[0] >= 0)
			close(report[0]);
		p->pid = 0;
		return e;
	}
	p->go = go[1];
	p->report = report[0];
	return 0;
}

int cli_spawn_resume(struct cli_paused *p, pid_t *child)
{
	char c = 'g';

	*child = p->pid;
	if (write(p->go, &c, 1) != 1) {
		cli_spawn_abort(p);
		*child = -1;
		return ECHILD;
	}
	close(p->go);
	p->pid = 0;
	p->go = -1;
	int e = wait_exec(p->report, child);
	p->report = -1;
	return e;
}

void cli_spawn_abort(struct cli_paused *p)
{
	if (p->pid <= 0)
		return;
	close(p->go);
	if (p->report >= 0)
		close(p->report);
	while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR)
		;
	p->pid = 0;
	p->go = p->report = -1;
}

int cli_spawn_command(char **argv, const char *path, pid_t *child)
{
	struct pev_counter *guard;
	pid_t parent = getpid();
	sigset_t all, old;
	volatile int exec_errno = 0;
	int e;

	/* The child's context is made at the fork: the guard is needed only then. */
	guard = no_context_clone();
	/*
	 * vfork, not fork: perfev's pages are not copied for a child that only
	 * execs (a fork costs about 0.15 ms more here), and the exec's errno
	 * comes back in exec_errno, since perfev waits in vfork until the
	 * child has exec'ed or exited. No handler of perfev's may run in the
	 * child meanwhile: every signal stays blocked until child_exec has
	 * put the defaults back.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	*child = vfork();
	if (*child == 0) {
		exec_errno = child_exec(argv, path, parent);
		_exit(127);
	}
	e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pev_counter_close(guard);
	if (*child < 0)
		return e;
	if (exec_errno) {
		while (waitpid(*child, NULL, 0) < 0 && errno == EINTR)
			;
		*child = -1;
		return exec_errno;
	}
	return 0;
}

/* 0 with *path a copy of file (when path is not NULL). */
static int found(const char *file, char **path)
{
	if (path && !(*path = strdup(file)))
		return ENOMEM;
	return 0;
}

int cli_check_command(const char *cmd, char **path)
{
	const char *search = getenv("PATH");
	char full[4096];
	struct stat st;

	if (strchr(cmd, '/')) {
		if (stat(cmd, &st) != 0)
			return errno;
		return S_ISREG(st.st_mode) && access(cmd, X_OK) == 0 ? found(cmd, path) : EACCES;
	}
	/* As execvp searches: each PATH entry ("" is the current directory). */
	for (const char *p = search ? search : "/usr/local/bin:/bin:/usr/bin";; p++) {
		size_t len = strcspn(p, ":");
		snprintf(full, sizeof(full), "%.*s%s%s", (int)len, p, len ? "/" : "", cmd);
		if (stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0)
			return found(full, path);
		p += len;
		if (!*p)
			break;
	}
	return ENOENT;
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
