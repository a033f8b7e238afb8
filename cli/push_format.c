/* SPDX-License-Identifier: MIT */
/*
 * push_format.c - the formats `perfev record --push` sends windows in, and
 * the making of one window's body in memory (open_memstream): a perf.data
 * window is loaded into a profile (symbolized as `perfev report` does) and
 * written by the format's libperfev writer; a pprof window (--format
 * pprof) is already the body.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfev.h"
#include "push_format.h"

static const struct push_format formats[] = {
    /* Pyroscope reads gzipped profile.proto (it inflates what starts with gzip's magic). */
    {"pprof", "application/octet-stream", "pprof", pev_profile_write_pprof},
    /* "comm;root;...;leaf N" lines: Pyroscope's folded (collapsed) text. */
    {"folded", "text/plain; charset=utf-8", "folded", pev_profile_write_folded},
    /* An ExportProfilesServiceRequest, for an OTLP/HTTP collector. */
    {"otlp", "application/x-protobuf", NULL, pev_profile_write_otlp},
};

#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

const struct push_format *push_format_find(const char *name)
{
	for (size_t i = 0; i < NFORMATS; i++)
		if (strcmp(formats[i].name, name) == 0)
			return &formats[i];
	return NULL;
}

const char *push_format_names(void)
{
	return "pprof, folded or otlp";
}

bool push_path_is_otlp(const char *path)
{
	static const char tail[] = "/v1development/profiles";
	size_t n = strcspn(path, "?"), t = strlen(tail);

	while (n > 1 && path[n - 1] == '/')
		n--;
	return n >= t && strncmp(path + n - t, tail, t) == 0;
}

/* The whole file at path into *body. Returns 0 or -1 (errno). */
static int read_file(const char *path, char **body, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	char *buf;
	size_t have = 0;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !(buf = malloc((size_t)st.st_size + 1))) {
		int e = errno ? errno : EINVAL;
		close(fd);
		errno = e;
		return -1;
	}
	while (have < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + have, (size_t)st.st_size - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
	}
	close(fd);
	*body = buf;
	*len = have;
	return 0;
}

enum push_encoded push_encode(const struct push_format *f, const char *path, bool pprof,
			      uint64_t start_ns, uint64_t end_ns, char **body, size_t *len,
			      char *why, size_t size)
{
	struct pev_replay_opts ro = PEV_REPLAY_OPTS_INIT;
	struct pev_report_opts po = PEV_REPORT_OPTS_INIT;
	struct pev_perfdata *pd = NULL;
	struct pev_profile *p = NULL;
	struct pev_error err;
	enum push_encoded r = PUSH_UNREADABLE;
	FILE *out = NULL;
	char *buf = NULL;
	size_t n = 0;

	*body = NULL;
	*len = 0;
	if (pprof) {
		if (strcmp(f->name, "pprof") != 0) {
			snprintf(why, size, "a pprof window cannot be sent as %s (only as pprof)",
				 f->name);
			return PUSH_UNREADABLE;
		}
		if (read_file(path, body, len) != 0) {
			snprintf(why, size, "cannot read it: %s", strerror(errno));
			return PUSH_UNREADABLE;
		}
		return PUSH_ENCODED;
	}
	if (!f->write) {
		snprintf(why, size, "this perfev was built without the %s writer", f->name);
		return PUSH_UNSUPPORTED;
	}
	/* OTLP gives each sample its time: the profile keeps its timeline. */
	if (!strcmp(f->name, "otlp"))
		ro.flags |= PEV_REPLAY_TIMELINE;
	if (pev_perfdata_open(path, 0, &pd, &err) != 0 || pev_profile_load(pd, &ro, &p, &err) != 0) {
		snprintf(why, size, "cannot read it: %s", err.message);
		goto out;
	}
	pev_profile_set_time(p, start_ns, end_ns > start_ns ? end_ns - start_ns : 0);
	if (!(out = open_memstream(&buf, &n))) {
		snprintf(why, size, "out of memory");
		r = PUSH_UNSUPPORTED;
		goto out;
	}
	if (f->write(p, out, &po, &err) != 0) {
		snprintf(why, size, "cannot convert it to %s: %s", f->name, err.message);
		r = err.code == PEV_EUNSUPPORTED ? PUSH_UNSUPPORTED : PUSH_UNREADABLE;
		goto out;
	}
	if (fclose(out) != 0) {
		out = NULL;
		snprintf(why, size, "out of memory");
		r = PUSH_UNSUPPORTED;
		goto out;
	}
	out = NULL;
	*body = buf;
	*len = n;
	buf = NULL;
	r = PUSH_ENCODED;
out:
	if (out)
		fclose(out);
	free(buf);
	pev_profile_free(p);
	pev_perfdata_close(pd);
	return r;
}
