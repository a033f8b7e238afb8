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
 *
 * The dot files are temporaries (cli_temp_create: random names, O_EXCL,
 * 0600) named .perfev-window-PID-XXXXXXXX.data (.pb.gz), held with an
 * flock while they are written: at its start a recorder finishes the
 * windows that recorders killed in the same directory left behind.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "record.h"

/* The window being written. */
struct rec_window {
	char tmp[PATH_MAX];    /* the perf.data being written (a dot file in the directory), or "" */
	char pb_tmp[PATH_MAX]; /* --format pprof: the profile being written, or "" */
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

/* "/" to put between dir and a name in it, or "" when dir ends with one. */
static const char *sep(const char *dir)
{
	size_t n = strlen(dir);

	return n && dir[n - 1] == '/' ? "" : "/";
}

/* The temporaries' names: PREFIX<pid>-<random letters>.data (.pb.gz). */
#define TEMP_PREFIX ".perfev-window-"

/*
 * Creates a temporary for a window in dir (suffix ".data" or ".pb.gz"),
 * its path in path, locked (flock) for as long as it is open: a recorder
 * that finds it unlocked knows its writer is gone. Returns the descriptor,
 * or -1 after saying why.
 */
static int create_temp(const char *dir, const char *suffix, char *path, size_t size)
{
	char prefix[64];
	int fd;

	snprintf(prefix, sizeof(prefix), TEMP_PREFIX "%d-", (int)getpid());
	fd = cli_temp_create(dir, prefix, suffix, path, size);
	if (fd < 0) {
		cli_error("option '-o': cannot create a window's file in '%s': %s; check the "
			  "directory and its permissions",
			  dir, strerror(errno));
		path[0] = '\0';
		return -1;
	}
	flock(fd, LOCK_EX | LOCK_NB);
	return fd;
}

/* "perfev-YYYYmmddTHHMMSS.mmmZ.<tail>" for time t in dir, in out. Returns 0, or 1 (said). */
static int final_name(const char *dir, const struct timespec *t, const char *tail, char *out,
		      size_t size)
{
	struct tm tm;
	char stamp[64];

	gmtime_r(&t->tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm);
	if (snprintf(out, size, "%s%sperfev-%s.%03ldZ.%s", dir, sep(dir), stamp,
		     t->tv_nsec / 1000000, tail) >= (int)size) {
		cli_error("option '-o': the directory's name is too long: '%s'", dir);
		return 1;
	}
	return 0;
}

/*
 * Names the window starting now, creates its temporary (s->out_fd) and sets
 * when it ends. Returns 0, or 1 (said).
 */
static int name_window(struct rec_state *s)
{
	struct rec_window *w = s->window;
	const char *dir = s->cfg.rotate_dir;
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	w->start_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	w->pb_tmp[0] = '\0';
	if (final_name(dir, &now, s->cfg.rotate_pprof ? "pb.gz" : "data", w->final,
		       sizeof(w->final)) != 0)
		return 1;
	if ((s->out_fd = create_temp(dir, ".data", w->tmp, sizeof(w->tmp))) < 0)
		return 1;
	/* Windows keep their cadence (the time spent finishing one is not added to the next). */
	double now_ms = mono_ms();
	w->end_ms = (w->end_ms ? w->end_ms : now_ms) + s->cfg.rotate_s * 1e3;
	if (w->end_ms <= now_ms) /* finishing took longer than a window: start afresh */
		w->end_ms = now_ms + s->cfg.rotate_s * 1e3;
	s->cfg.output = w->tmp;
	return 0;
}

static void recover_stale_windows(const struct rec_state *s);

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
	recover_stale_windows(s);
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

/*
 * Turns the perf.data at data into pprof in a new temporary in dir (its
 * path in pb_tmp), with the times start_ns and end_ns (a store files a
 * profile under them). Returns 0 or 1 (said; the temporary removed).
 */
static int convert_to_pprof(const char *dir, const char *data, uint64_t start_ns, uint64_t end_ns,
			    char *pb_tmp, size_t size)
{
	struct pev_replay_opts ro = PEV_REPLAY_OPTS_INIT;
	struct pev_report_opts po = PEV_REPORT_OPTS_INIT;
	struct pev_perfdata *pd = NULL;
	struct pev_profile *p = NULL;
	struct pev_error err;
	FILE *out = NULL;
	int r = 1;

	if (pev_perfdata_open(data, 0, &pd, &err) != 0 || pev_profile_load(pd, &ro, &p, &err) != 0) {
		cli_error("cannot read the window '%s': %s", data, err.message);
		goto out;
	}
	pev_profile_set_time(p, start_ns, end_ns > start_ns ? end_ns - start_ns : 0);
	int fd = create_temp(dir, ".pb.gz", pb_tmp, size);
	if (fd < 0)
		goto out;
	if (!(out = fdopen(fd, "w"))) {
		cli_error("cannot write '%s': %s", pb_tmp, strerror(errno));
		close(fd);
		goto out;
	}
	if (pev_profile_write_pprof(p, out, &po, &err) != 0) {
		cli_error("cannot write '%s': %s", pb_tmp, err.message);
		goto out;
	}
	if (fflush(out) != 0 || fsync(fileno(out)) != 0) {
		cli_error("cannot write '%s': %s", pb_tmp, strerror(errno));
		goto out;
	}
	r = 0;
out:
	if (out && fclose(out) != 0 && r == 0) {
		cli_error("cannot write '%s': %s", pb_tmp, strerror(errno));
		r = 1;
	}
	if (r != 0 && pb_tmp[0]) {
		unlink(pb_tmp);
		pb_tmp[0] = '\0';
	}
	pev_profile_free(p);
	pev_perfdata_close(pd);
	return r;
}

/* Gives the completed window its final name (in pprof with --format pprof). */
static int publish(struct rec_state *s)
{
	struct rec_window *w = s->window;
	const char *done = w->tmp;
	struct timespec now;

	if (s->cfg.rotate_pprof) {
		clock_gettime(CLOCK_REALTIME, &now);
		uint64_t end_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
		if (convert_to_pprof(s->cfg.rotate_dir, w->tmp, w->start_ns, end_ns, w->pb_tmp,
				     sizeof(w->pb_tmp)) != 0)
			return 1;
		unlink(w->tmp);
		w->tmp[0] = '\0';
		done = w->pb_tmp;
	} else if (fsync(s->out_fd) != 0) {
		cli_error("cannot write '%s': %s", w->tmp, strerror(errno));
		return 1;
	}
	if (rename(done, w->final) != 0) {
		cli_error("cannot rename '%s' to '%s': %s", done, w->final, strerror(errno));
		return 1;
	}
	w->tmp[0] = w->pb_tmp[0] = '\0';
	sync_dir(s->cfg.rotate_dir);
	w->done++;
	rec_push_notify(s); /* --push: one more window to send */
	return 0;
}

/*
 * The recorder that wrote the temporary called name (TEMP_PREFIX<pid>,
 * then -<letters>, or nothing in earlier perfev's names, then .data or .pb.gz), and in
 * *data whether it is a perf.data. Returns the pid, or 0 for another name.
 */
static pid_t temp_owner(const char *name, bool *data)
{
	size_t n = strlen(TEMP_PREFIX);
	char *end;
	long pid;

	if (strncmp(name, TEMP_PREFIX, n) != 0 || !isdigit((unsigned char)name[n]))
		return 0;
	pid = strtol(name + n, &end, 10);
	if (pid <= 0 || pid > INT_MAX)
		return 0;
	if (*end == '-')
		while (isalnum((unsigned char)*++end))
			;
	if (strcmp(end, ".data") == 0)
		*data = true;
	else if (strcmp(end, ".pb.gz") == 0)
		*data = false;
	else
		return 0;
	return (pid_t)pid;
}

/* Where perf_file_header keeps data.size: after magic, size, attr_size, attrs, data.offset. */
#define HEADER_DATA_SIZE_AT 48

/*
 * Finishes the perf.data at path that a killed recorder left with its
 * header's provisional "no data": cuts what follows its last whole record
 * and writes the data section's size in the header, so that perf reads it
 * (it has no features: no build ids, no event names). The file is this
 * machine's (the writer's byte order). Returns false when it cannot be
 * read or holds no sample.
 */
static bool finish_window(const char *path)
{
	struct pev_perfdata *pd = NULL;
	struct pev_perfdata_record r;
	uint64_t start, end = 0;
	bool sampled = false;
	int fd;

	if (pev_perfdata_open(path, 0, &pd, NULL) != 0)
		return false;
	start = end = pev_perfdata_layout(pd)->data_offset;
	while (pev_perfdata_next(pd, &r, NULL) == 1) {
		sampled |= r.type == PEV_RECORD_SAMPLE;
		end = r.offset + r.size;
	}
	pev_perfdata_close(pd);
	if (!sampled || (fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return false;
	uint64_t size = end - start, magic = 0;
	bool ok = pread(fd, &magic, sizeof(magic), 0) == (ssize_t)sizeof(magic) &&
		  magic == PEV_PERFDATA_MAGIC && ftruncate(fd, (off_t)end) == 0 &&
		  pwrite(fd, &size, sizeof(size), HEADER_DATA_SIZE_AT) == (ssize_t)sizeof(size) &&
		  fsync(fd) == 0;
	close(fd);
	return ok;
}

/*
 * Finishes the perf.data window at path, which a killed recorder left (st:
 * its status), and gives it a final name of its own, *.recovered.data
 * (converted to *.recovered.pb.gz with --format pprof), and says so.
 * Returns false when nothing could be read from it.
 */
static bool recover_window(const struct rec_state *s, const char *path, pid_t pid,
			   const struct stat *st)
{
	const char *dir = s->cfg.rotate_dir;
	struct timespec start = st->st_mtim;
	struct statx sx;
	char final[PATH_MAX], pb_tmp[PATH_MAX] = "";
	const char *done = path;

	if (!finish_window(path))
		return false;
	/* The window started when its file was made (where the file system keeps that). */
	if (statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_BTIME, &sx) == 0 &&
	    (sx.stx_mask & STATX_BTIME)) {
		start.tv_sec = sx.stx_btime.tv_sec;
		start.tv_nsec = sx.stx_btime.tv_nsec;
	}
	if (final_name(dir, &start, s->cfg.rotate_pprof ? "recovered.pb.gz" : "recovered.data",
		       final, sizeof(final)) != 0)
		return false;
	if (s->cfg.rotate_pprof) {
		uint64_t ns0 = (uint64_t)start.tv_sec * 1000000000u + (uint64_t)start.tv_nsec;
		uint64_t ns1 = (uint64_t)st->st_mtim.tv_sec * 1000000000u +
			       (uint64_t)st->st_mtim.tv_nsec;
		if (convert_to_pprof(dir, path, ns0, ns1, pb_tmp, sizeof(pb_tmp)) != 0)
			return false;
		done = pb_tmp;
	}
	if (rename(done, final) != 0) {
		cli_error("cannot rename '%s' to '%s': %s", done, final, strerror(errno));
		if (pb_tmp[0])
			unlink(pb_tmp);
		return false;
	}
	if (pb_tmp[0])
		unlink(path);
	sync_dir(dir);
	cli_warning("recorder %d was killed while writing the window '%s': recovered as '%s' "
		    "(the records it had written; no build ids)",
		    (int)pid, path, final);
	return true;
}

/*
 * Finds the windows of recorders killed in the directory: a temporary of
 * this user whose recorder is no longer running and that nobody holds (its
 * flock is free). A perf.data is recovered (recover_window), a pprof
 * being written (its perf.data is still there) or a perf.data that cannot
 * be read is removed; each said on stderr. Anything else is left alone.
 */
static void recover_stale_windows(const struct rec_state *s)
{
	const char *dir = s->cfg.rotate_dir;
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[PATH_MAX];
		struct stat st, now;
		bool data = false;
		pid_t pid = temp_owner(e->d_name, &data);
		int fd;

		if (!pid || pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		/* Judged before it is opened (no device, FIFO or link is), and again once open. */
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(st.st_mode) || st.st_uid != geteuid())
			continue;
		fd = openat(dirfd(d), e->d_name,
			    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &now) != 0 || now.st_ino != st.st_ino || now.st_dev != st.st_dev ||
		    flock(fd, LOCK_EX | LOCK_NB) != 0 ||
		    snprintf(path, sizeof(path), "%s%s%s", dir, sep(dir), e->d_name) >=
			(int)sizeof(path)) {
			close(fd);
			continue;
		}
		if (!data || !recover_window(s, path, pid, &st)) {
			unlink(path);
			cli_warning("recorder %d was killed while writing the window '%s': removed "
				    "it (%s)",
				    (int)pid, path,
				    data ? "nothing in it could be read"
					 : "a pprof half made; its perf.data is recovered when still "
					   "there");
		}
		close(fd);
	}
	closedir(d);
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
	int r = publish(s);
	close(s->out_fd); /* and its lock */
	s->out_fd = -1;
	if (r != 0)
		return 1;
	if (last)
		return 0;

	/* The next window: the mapping table starts again from what runs now. */
	keep_known_processes(s);
	rec_dsos_free(&s->dsos);
	memset(&s->dsos, 0, sizeof(s->dsos));
	if (name_window(s) != 0)
		return 1;
	if (pev_perfdata_writer_open_fd(s->out_fd, 0, &s->writer, &err) != 0) {
		cli_error("cannot write '%s': %s", s->cfg.output, err.message);
		return 1;
	}
	if (rec_add_events(s) != 0 || rec_synthesize(s) != 0)
		return 1;
	return 0;
}

void rec_rotate_free(struct rec_state *s)
{
	if (s->window && s->window->tmp[0])
		unlink(s->window->tmp);
	if (s->window && s->window->pb_tmp[0])
		unlink(s->window->pb_tmp);
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
