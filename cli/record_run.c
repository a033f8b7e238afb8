/* SPDX-License-Identifier: MIT */
/*
 * record_run.c - `perfev record`'s loop: waits on the rings (the kernel
 * wakes perfev when one is half full) and on a pipe its signal handlers
 * write to; drains every ring into the file as it stands, whole runs of
 * records with one call (the writer buffers them: no system call per
 * record), and ends each pass with FINISHED_ROUND, as perf record does;
 * stops when the command exits, every -p / -t task has exited, or SIGINT
 * or SIGTERM arrives. On a terminal it keeps a status line up to date.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "record.h"

#define STATUS_MS     250  /* the status line changes at most 4 times a second */
#define KILL_AFTER_MS 2000 /* a command that outlives SIGTERM this long gets SIGKILL */
#define LOST_SAMPLES_MAX 256 /* a LOST_SAMPLES record: header, count, sample_id trailer */

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Writes len bytes of whole records; 0 or a negative code (said once). */
static int put(struct rec_state *s, const void *p, size_t len)
{
	struct pev_error err;
	int r;

	if (!len)
		return 0;
	r = pev_perfdata_writer_write(s->writer, p, len, &err);
	if (r != 0)
		cli_error("cannot write '%s': %s", s->cfg.output, err.message);
	return r;
}

/*
 * The LOST_SAMPLES record that goes after a LOST record: the same count and
 * sample_id trailer. perf report counts lost samples from LOST_SAMPLES
 * records only (perf record writes them at the end from each event's
 * PERF_FORMAT_LOST count, which counts the same losses as the ring's LOST
 * records); without them it says "Total Lost Samples: 0".
 */
static int put_lost_samples(struct rec_state *s, const struct pev_event_header *lost, size_t size)
{
	unsigned char buf[LOST_SAMPLES_MAX];
	struct pev_event_header h = *lost;

	/* LOST: header, id, lost, trailer; LOST_SAMPLES: header, lost, trailer. */
	if (size < 24 || size - 8 > sizeof(buf))
		return 0;
	h.type = PEV_RECORD_LOST_SAMPLES;
	h.size = (uint16_t)(size - 8);
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + 8, (const unsigned char *)lost + 16, size - 16);
	return put(s, buf, size - 8);
}

/* Drains one ring: runs of records that lie one after the other go out in one write. */
static int drain_ring(struct rec_state *s, struct pev_ring *ring, bool *wrote)
{
	struct pev_ring_record rec;
	const unsigned char *run = NULL;
	size_t run_len = 0;
	int n, r = 0;

	n = pev_ring_begin(ring);
	if (n <= 0) {
		if (n < 0)
			pev_ring_skip(ring);
		else
			pev_ring_end(ring);
		return 0;
	}
	*wrote = true;
	while (r == 0 && (n = pev_ring_next(ring, &rec)) == 1) {
		const unsigned char *p = (const unsigned char *)rec.header;
		rec_dsos_account(s, rec.header, rec.size);
		s->stats.records++;
		if (rec.header->type == PEV_RECORD_LOST) {
			/* Out with the run and this record, then its LOST_SAMPLES twin. */
			if (!(run_len && run + run_len == p)) {
				r = put(s, run, run_len);
				run_len = 0;
				r = r ? r : put(s, p, rec.size);
			} else {
				r = put(s, run, run_len + rec.size);
				run_len = 0;
			}
			if (r == 0)
				r = put_lost_samples(s, rec.header, rec.size);
		} else if (rec.wrapped) {
			/* The ring's copy lasts until the next record: out with it now. */
			r = put(s, run, run_len);
			run_len = 0;
			if (r == 0)
				r = put(s, p, rec.size);
		} else if (run_len && run + run_len == p) {
			run_len += rec.size;
		} else {
			r = put(s, run, run_len);
			run = p;
			run_len = rec.size;
		}
	}
	if (r == 0)
		r = put(s, run, run_len);
	if (n < 0)
		pev_ring_skip(ring); /* a malformed ring: drop what is left of it */
	else
		pev_ring_end(ring);
	return r;
}

int rec_drain(struct rec_state *s)
{
	struct pev_error err;
	bool wrote = false;

	for (int i = 0; i < s->nrings; i++) {
		int r = drain_ring(s, s->rings[i].ring, &wrote);
		if (r != 0)
			return r;
	}
	rec_dsos_retry(s);
	if (wrote && pev_perfdata_writer_round(s->writer, &err) != 0) {
		cli_error("cannot write '%s': %s", s->cfg.output, err.message);
		return -1;
	}
	return 0;
}

static void print_status(const struct rec_state *s)
{
	fprintf(stderr, "\r[ perfev record: %llu samples, %llu lost, %.3f MB written ]\033[K",
	        (unsigned long long)s->stats.samples, (unsigned long long)s->stats.lost,
	        (double)pev_perfdata_writer_data_size(s->writer) / (1024.0 * 1024.0));
	fflush(stderr);
}

int rec_loop(struct rec_state *s, pid_t child, int *status)
{
	bool tty = !s->cfg.quiet && isatty(STDERR_FILENO);
	bool per_task = s->cfg.target == REC_TARGET_PROCESS || s->cfg.target == REC_TARGET_THREAD;
	struct pollfd *fds = cli_xcalloc((size_t)s->nrings + 1, sizeof(*fds));
	double forwarded = 0;
	bool killed = false;
	double last = 0;

	fds[0].fd = cli_wake_fd();
	fds[0].events = POLLIN;
	for (int i = 0; i < s->nrings; i++) {
		fds[1 + i].fd = pev_ring_fd(s->rings[i].ring);
		fds[1 + i].events = POLLIN;
	}
	for (;;) {
		int timeout = tty || forwarded > 0 ? STATUS_MS : -1;
		int window_ms = rec_rotate_wait_ms(s);
		if (window_ms >= 0 && (timeout < 0 || window_ms < timeout))
			timeout = window_ms;
		int n = poll(fds, (nfds_t)s->nrings + 1, timeout);
		if (n < 0 && errno != EINTR) {
			cli_warning("poll: %s", strerror(errno));
			break;
		}
		cli_wake_drain();
		bool ready = false, all_hup = s->nrings > 0;
		for (int i = 0; n > 0 && i < s->nrings; i++) {
			ready |= (fds[1 + i].revents & POLLIN) != 0;
			if (fds[1 + i].revents & (POLLHUP | POLLERR)) {
				s->rings[i].hup = true;
				fds[1 + i].fd = -1; /* drained below for the last time */
			}
		}
		for (int i = 0; i < s->nrings; i++)
			all_hup &= s->rings[i].hup;
		s->stats.wakeups += ready;
		if (rec_drain(s) != 0)
			break;
		if (rec_rotate_wait_ms(s) == 0 && rec_rotate(s, false) != 0) {
			s->failed = true;
			break;
		}
		if (child > 0 && waitpid(child, status, WNOHANG) == child) {
			child = -1;
			rec_drain(s); /* what it wrote while it exited */
			break;
		}
		if (cli_stop_signal() && child <= 0)
			break;
		if (cli_stop_signal() && forwarded <= 0) {
			/* Stop the command (Ctrl-C on a terminal reached it already). */
			kill(child, SIGTERM);
			forwarded = now_ms();
		} else if (cli_stop_signal() && !killed && now_ms() - forwarded > KILL_AFTER_MS) {
			kill(child, SIGKILL); /* it does not stop on SIGTERM */
			killed = true;
		}
		if (child <= 0 && per_task && all_hup)
			break;
		if (tty && now_ms() - last >= STATUS_MS) {
			print_status(s);
			last = now_ms();
		}
	}
	if (child > 0) {
		/* A write error ended the loop: do not leave the command behind. */
		kill(child, SIGTERM);
		waitpid(child, status, 0);
	}
	if (tty)
		fprintf(stderr, "\r\033[K");
	free(fds);
	return cli_stop_signal();
}
