/* SPDX-License-Identifier: MIT */
/*
 * record_rotate.c - `perfev record --rotate SECONDS -o DIR/`: one complete
 * file per window of time, for an agent to ship (continuous profiling).
 *
 * A window is written to a dot file in DIR and renamed to its final name,
 * perfev-<UTC start>.data (or .pb.gz with --format pprof), only once it is
 * complete and on disk: a reader that skips dot files never sees half a
 * window, and a recorder killed mid-way loses only the window it was in.
 * Each window stands alone: its own header and events, the kernel's and
 * the running tasks' COMM / MMAP2 records made again from /proc, and the
 * build ids of the files its samples hit. What perfev keeps between
 * windows is fixed in size: the mapping table is rebuilt at each window
 * from the tasks alive, so memory stays flat however long it runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "record.h"

/* The window being written. */
struct rec_window {
	char tmp[PATH_MAX];    /* the perf.data being written (a dot file in the directory) */
	char pb_tmp[PATH_MAX]; /* --format pprof: the profile being written */
	char final[PATH_MAX];  /* its name once complete */
	double end_ms;         /* CLOCK_MONOTONIC time the window ends */
	uint64_t start_ns;     /* CLOCK_REALTIME when it started (pprof's time_nanos) */
	unsigned long done;    /* windows completed */
};

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Names the window starting now and sets when it ends. Returns 0, or 1 when a name is too long. */
static int name_window(struct rec_state *s)
{
	struct rec_window *w = s->window;
	const char *dir = s->cfg.rotate_dir;
	struct timespec now;
	struct tm tm;
	char stamp[64];

	clock_gettime(CLOCK_REALTIME, &now);
	w->start_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	gmtime_r(&now.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm);
	int a = snprintf(w->tmp, sizeof(w->tmp), "%s/.perfev-window-%d.data", dir, (int)getpid());
	int b = snprintf(w->pb_tmp, sizeof(w->pb_tmp), "%s/.perfev-window-%d.pb.gz", dir,
			 (int)getpid());
	int c = snprintf(w->final, sizeof(w->final), "%s/perfev-%s.%03ldZ.%s", dir, stamp,
			 now.tv_nsec / 1000000, s->cfg.rotate_pprof ? "pb.gz" : "data");
	if (a >= (int)sizeof(w->tmp) || b >= (int)sizeof(w->pb_tmp) || c >= (int)sizeof(w->final)) {
		cli_error("option '-o': the directory's name is too long: '%s'", dir);
		return 1;
	}
	/* Windows keep their cadence (the time spent finishing one is not added to the next). */
	double now_ms = mono_ms();
	w->end_ms = (w->end_ms ? w->end_ms : now_ms) + s->cfg.rotate_s * 1e3;
	if (w->end_ms <= now_ms) /* finishing took longer than a window: start afresh */
		w->end_ms = now_ms + s->cfg.rotate_s * 1e3;
	s->cfg.output = w->tmp;
	return 0;
}

int rec_rotate_begin(struct rec_state *s)
{
	const char *dir = s->cfg.rotate_dir;
	struct stat st;

	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		cli_error("option '-o': cannot create the directory '%s': %s", dir, strerror(errno));
		return 1;
	}
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		cli_error("option '-o': '%s' is not a directory; --rotate writes one file per "
			  "window into a directory (-o DIR/)",
			  dir);
		return 1;
	}
	if (access(dir, W_OK | X_OK) != 0) {
		cli_error("option '-o': cannot write into '%s': %s", dir, strerror(errno));
		return 1;
	}
	s->window = cli_xcalloc(1, sizeof(*s->window));
	return name_window(s);
}

int rec_rotate_wait_ms(const struct rec_state *s)
{
	if (!s->window || !s->writer)
		return -1;
	double left = s->window->end_ms - mono_ms();
	return left <= 0 ? 0 : (int)left + 1;
}

/* fsyncs the directory holding path, so that a rename into it lasts. */
static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* fsyncs the file at path; false (said) when it cannot. */
static bool sync_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ok = fd >= 0 && fsync(fd) == 0;

	if (!ok)
		cli_error("cannot write '%s': %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return ok;
}

/*
 * Turns the window's perf.data into pprof at pb_tmp, its time the window's
 * (a store files a profile under it). Returns 0 or 1 (said).
 */
static int convert_to_pprof(const struct rec_window *w)
{
	struct pev_replay_opts ro = PEV_REPLAY_OPTS_INIT;
	struct pev_report_opts po = PEV_REPORT_OPTS_INIT;
	struct pev_perfdata *pd = NULL;
	struct pev_profile *p = NULL;
	struct pev_error err;
	FILE *out = NULL;
	int r = 1;

	struct timespec now;

	if (pev_perfdata_open(w->tmp, 0, &pd, &err) != 0 || pev_profile_load(pd, &ro, &p, &err) != 0) {
		cli_error("cannot read the window '%s': %s", w->tmp, err.message);
		goto out;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	uint64_t end_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	pev_profile_set_time(p, w->start_ns, end_ns > w->start_ns ? end_ns - w->start_ns : 0);
	int fd = open(w->pb_tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || !(out = fdopen(fd, "w"))) {
		cli_error("cannot write '%s': %s", w->pb_tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	if (pev_profile_write_pprof(p, out, &po, &err) != 0) {
		cli_error("cannot write '%s': %s", w->pb_tmp, err.message);
		goto out;
	}
	if (fflush(out) != 0 || fsync(fileno(out)) != 0) {
		cli_error("cannot write '%s': %s", w->pb_tmp, strerror(errno));
		goto out;
	}
	r = 0;
out:
	if (out && fclose(out) != 0 && r == 0) {
		cli_error("cannot write '%s': %s", w->pb_tmp, strerror(errno));
		r = 1;
	}
	if (r != 0)
		unlink(w->pb_tmp);
	pev_profile_free(p);
	pev_perfdata_close(pd);
	return r;
}

/* Gives the completed window its final name (in pprof with --format pprof). */
static int publish(struct rec_state *s)
{
	struct rec_window *w = s->window;
	const char *done = w->tmp;

	if (s->cfg.rotate_pprof) {
		if (convert_to_pprof(w) != 0)
			return 1;
		unlink(w->tmp);
		done = w->pb_tmp;
	} else if (!sync_file(w->tmp)) {
		return 1;
	}
	if (rename(done, w->final) != 0) {
		cli_error("cannot rename '%s' to '%s': %s", done, w->final, strerror(errno));
		return 1;
	}
	sync_dir(s->cfg.rotate_dir);
	w->done++;
	return 0;
}

/* The live processes the mapping table knows, kept for the next window's records. */
static void keep_known_processes(struct rec_state *s)
{
	int n = 0;

	for (int b = 0; b < REC_PROC_BUCKETS; b++)
		for (const struct rec_proc *p = s->dsos.procs[b]; p; p = p->next)
			n += p->pid > 0;
	free(s->known);
	s->known = cli_xcalloc(n ? (size_t)n : 1, sizeof(pid_t));
	s->nknown = 0;
	for (int b = 0; b < REC_PROC_BUCKETS; b++) {
		for (const struct rec_proc *p = s->dsos.procs[b]; p; p = p->next) {
			char path[64];
			snprintf(path, sizeof(path), "/proc/%d", (int)p->pid);
			if (p->pid > 0 && access(path, F_OK) == 0)
				s->known[s->nknown++] = p->pid;
		}
	}
}

int rec_rotate(struct rec_state *s, bool last)
{
	struct pev_error err;

	if (rec_drain(s) != 0)
		return 1;
	rec_dsos_add_build_ids(s);
	if (rec_tracing_data(s) != 0)
		return 1;
	if (pev_perfdata_writer_finish(s->writer, &err) != 0) {
		cli_error("cannot finish '%s': %s", s->cfg.output, err.message);
		return 1;
	}
	pev_perfdata_writer_close(s->writer);
	s->writer = NULL;
	if (publish(s) != 0)
		return 1;
	if (last)
		return 0;

	/* The next window: the mapping table starts again from what runs now. */
	keep_known_processes(s);
	rec_dsos_free(&s->dsos);
	memset(&s->dsos, 0, sizeof(s->dsos));
	if (name_window(s) != 0)
		return 1;
	if (pev_perfdata_writer_open(s->cfg.output, 0, &s->writer, &err) != 0) {
		cli_error("option '-o': %s", err.message);
		return 1;
	}
	if (rec_add_events(s) != 0 || rec_synthesize(s) != 0)
		return 1;
	return 0;
}

void rec_rotate_free(struct rec_state *s)
{
	if (s->window) {
		unlink(s->window->tmp);
		unlink(s->window->pb_tmp);
	}
	free(s->window);
	s->window = NULL;
	free(s->known);
	s->known = NULL;
	s->nknown = 0;
}

unsigned long rec_rotate_done(const struct rec_state *s)
{
	return s->window ? s->window->done : 0;
}
