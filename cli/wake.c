/* SPDX-License-Identifier: MIT */
/*
 * wake.c - signals that wake a command's poll loop: SIGCHLD, SIGTERM, SIGHUP
 * and SIGINT each write a byte into a pipe the loop polls, and SIGTERM,
 * SIGHUP and SIGINT are remembered as the request to stop (a closed
 * terminal ends a recording with a whole file). Shared by stat and record.
 */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static int wake_pipe[2] = {-1, -1};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	int saved = errno;

	if (sig != SIGCHLD)
		stop_signal = sig;
	if (write(wake_pipe[1], "", 1) < 0) {
		/* The pipe is full: the loop is awake already. */
	}
	errno = saved;
}

int cli_wake_setup(bool ignore_sigint)
{
	struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_NOCLDSTOP};
	struct sigaction ign = {.sa_handler = SIG_IGN};

	if (pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		cli_error("cannot create a pipe: %s", strerror(errno));
		return 1;
	}
	stop_signal = 0;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&ign.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGINT, ignore_sigint ? &ign : &sa, NULL);
	return 0;
}

void cli_wake_restore(void)
{
	struct sigaction dfl = {.sa_handler = SIG_DFL};

	sigemptyset(&dfl.sa_mask);
	sigaction(SIGCHLD, &dfl, NULL);
	sigaction(SIGTERM, &dfl, NULL);
	sigaction(SIGHUP, &dfl, NULL);
	sigaction(SIGINT, &dfl, NULL);
	close(wake_pipe[0]);
	close(wake_pipe[1]);
	wake_pipe[0] = wake_pipe[1] = -1;
}

int cli_wake_fd(void)
{
	return wake_pipe[0];
}

void cli_wake_drain(void)
{
	char buf[64];

	while (read(wake_pipe[0], buf, sizeof(buf)) > 0)
		;
}

int cli_stop_signal(void)
{
	return stop_signal;
}
