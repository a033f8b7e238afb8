/* SPDX-License-Identifier: MIT */
/*
 * perfdata_write.c - writing a file-mode perf.data: a provisional header at
 * open, the events' ids and attribute blocks before the first record, the
 * records as the caller hands them over (buffered, never decoded), and on
 * finish the features and the final header.
 *
 * Layout (as perf record writes it):
 *   0            header
 *   104          the id arrays of every event, one after the other
 *   attrs_offset one entry per event: attribute block + {ids offset, size}
 *   data_offset  records
 *   feat_offset  feature section table, then the sections
 */
#include "perfdata/perfdata_writer.h"
#include "perfev/text.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/error_internal.h"
#include "perfev/opts.h"

#define PW_BUF_SIZE ((size_t)256 << 10)
/* The flags the writer knows. */
#define PW_FLAGS (PEV_PERFDATA_WRITER_NO_MACHINE | PEV_PERFDATA_WRITER_PIPE)

/* ---- errors --------------------------------------------------------------- */

int pev__pw_fail(struct pev_perfdata_writer *w, struct pev_error *err, int code, int sys_errno,
		 const char *fmt, ...)
{
	va_list ap;

	pev__error_start(err, code, sys_errno, sys_errno ? "pwrite" : NULL, NULL, false);
	pev__error_msg(err, "%s: ", w->name);
	va_start(ap, fmt);
	pev__vappendf(pev__error_of(err)->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return code;
}

/* A failed write poisons the writer: later calls fail with the same message. */
int pev__pw_poison(struct pev_perfdata_writer *w, struct pev_error *err, int code, int e,
		   const char *what, uint64_t off, size_t len)
{
	pev__pw_fail(w, err, code, e, "cannot write %s (0x%zx bytes at offset 0x%" PRIx64 "): %s",
		     what, len, off, strerror(e));
	if (e == ENOSPC || e == EDQUOT)
		pev__error_hint(err, "free some space on the file system, or record less "
				     "(a lower frequency, a shorter run)");
	w->failed = code;
	snprintf(w->fail_msg, sizeof(w->fail_msg), "%s: cannot write %s: %s", w->name, what,
		 strerror(e));
	return code;
}

static int pw_check(struct pev_perfdata_writer *w, struct pev_error *err, const char *func)
{
	if (w->failed) {
		pev__error_start(err, w->failed, 0, NULL, NULL, false);
		pev__error_msg(err, "%s (an earlier write failed)", w->fail_msg);
		return w->failed;
	}
	if (w->finished)
		return pev__bad_arg(err, func, "w", "the file is finished already");
	return 0;
}

/*
 * For the calls that take no struct pev_error: refuses a writer that is
 * finished, or (unless only the finish counts) failed, saying which.
 * Returns 0 or PEV_EBADARG.
 */
static int writer_closed(const struct pev_perfdata_writer *w, bool failed_too, const char *func)
{
	if (failed_too && w->failed)
		return pev__bad_arg(NULL, func, "w", "an earlier write failed: %s", w->fail_msg);
	if (w->finished)
		return pev__bad_arg(NULL, func, "w", "the file is finished already");
	return 0;
}

/* pwrite all of it, through EINTR and short writes. */
static int pw_pwrite(struct pev_perfdata_writer *w, const void *p, size_t len, uint64_t off,
		     const char *what, struct pev_error *err)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(w->fd, (const char *)p + done, len - done, (off_t)(off + done));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			return pev__pw_poison(w, err, pev_error_from_errno(e), e, what, off, len);
		}
		if (n == 0)
			return pev__pw_poison(w, err, PEV_EIO, EIO, what, off, len);
		done += (size_t)n;
	}
	return 0;
}

/* ---- the header and the events ------------------------------------------------- */

static void header_bytes(const struct pev_perfdata_writer *w, unsigned char *h, uint64_t data_size,
			 const uint64_t *bits)
{
	memset(h, 0, PEV_PERFDATA_HEADER_SIZE);
	pd_put_u64(h + PD_HDR_MAGIC, PEV_PERFDATA_MAGIC);
	pd_put_u64(h + PD_HDR_SIZE, PEV_PERFDATA_HEADER_SIZE);
	if (w->started) {
		pd_put_u64(h + PD_HDR_ATTR_SIZE, w->file_attr_size + PD_SECTION_SIZE);
		pd_put_u64(h + PD_HDR_ATTRS, w->attrs_offset);
		pd_put_u64(h + PD_HDR_ATTRS + 8, w->attrs_size);
		pd_put_u64(h + PD_HDR_DATA, w->data_offset);
		pd_put_u64(h + PD_HDR_DATA + 8, data_size);
	}
	if (bits)
		memcpy(h + PD_HDR_FEATURES, bits, PEV_HEADER_FEAT_BITS / 8);
}

static int cmp_pw_id(const void *a, const void *b)
{
	const struct pw_id *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Reference times for CLOCK_DATA, taken back to back when the events are written. */
static void take_clock_reference(struct pev_perfdata_writer *w)
{
	struct timespec tod, clk, res;

	for (int i = 0; i < w->nr_events; i++) {
		if (w->events[i].attr.flags & PEV_ATTR_USE_CLOCKID) {
			w->use_clockid = true;
			w->clockid = w->events[i].attr.clockid;
			break;
		}
	}
	if (!w->use_clockid)
		return;
	if (clock_gettime(CLOCK_REALTIME, &tod) == 0 &&
	    clock_gettime((clockid_t)w->clockid, &clk) == 0) {
		w->clock_tod_ns = (uint64_t)tod.tv_sec * 1000000000u + (uint64_t)tod.tv_nsec;
		w->clock_ns = (uint64_t)clk.tv_sec * 1000000000u + (uint64_t)clk.tv_nsec;
	}
	if (clock_getres((clockid_t)w->clockid, &res) == 0)
		w->clock_res_ns = (uint64_t)res.tv_sec * 1000000000u + (uint64_t)res.tv_nsec;
}

/* Sorts the events' ids, and finds their common layout, for SAMPLE_TIME. */
static int pw_sort_ids(struct pev_perfdata_writer *w, uint64_t total_ids, struct pev_error *err)
{
	w->ids = calloc(total_ids ? total_ids : 1, sizeof(*w->ids));
	if (!w->ids)
		return pev__pw_fail(w, err, PEV_ENOMEM, 0, "out of memory for the ids");
	for (int i = 0; i < w->nr_events; i++) {
		for (size_t k = 0; k < w->events[i].nr_ids; k++)
			w->ids[w->nr_ids++] = (struct pw_id){w->events[i].ids[k], i};
		pev__pd_layout_common(&w->common, &w->events[i].layout, i == 0);
	}
	qsort(w->ids, w->nr_ids, sizeof(*w->ids), cmp_pw_id);
	return 0;
}

/*
 * Writes the ids and attrs and a header saying the data section is empty
 * (pipe mode: the events and features as records).
 */
static int pw_start(struct pev_perfdata_writer *w, struct pev_error *err)
{
	uint64_t total_ids = 0;
	uint32_t asz = PEV_ATTR_SIZE_VER0;
	unsigned char h[PEV_PERFDATA_HEADER_SIZE];
	int rc;

	if (w->started)
		return 0;
	for (int i = 0; i < w->nr_events; i++) {
		uint32_t m = pev_attr_min_size(&w->events[i].attr);
		if (m > asz)
			asz = m;
		total_ids += w->events[i].nr_ids;
	}
	w->file_attr_size = asz;
	if (w->pipe) {
		take_clock_reference(w); /* CLOCK_DATA goes out now */
		rc = pev__pw_pipe_start(w, err);
		if (rc)
			return rc;
		w->started = true;
		return pw_sort_ids(w, total_ids, err);
	}
	w->attrs_offset = PEV_PERFDATA_HEADER_SIZE + 8 * total_ids;
	w->attrs_size = (uint64_t)w->nr_events * (asz + PD_SECTION_SIZE);
	w->data_offset = w->attrs_offset + w->attrs_size;

	/* The ids, then the attr entries pointing at them. */
	size_t len = (size_t)(w->data_offset - PEV_PERFDATA_HEADER_SIZE);
	unsigned char *b = calloc(1, len ? len : 1);
	if (!b)
		return pev__pw_fail(w, err, PEV_ENOMEM, 0, "out of memory for the attr section");
	uint64_t ids_at = PEV_PERFDATA_HEADER_SIZE;
	unsigned char *e = b + (w->attrs_offset - PEV_PERFDATA_HEADER_SIZE);
	for (int i = 0; i < w->nr_events; i++) {
		struct pw_event *ev = &w->events[i];
		struct pev_attr a = ev->attr;

		if (ev->nr_ids) /* an event with no ids may have no array (memcpy needs one) */
			memcpy(b + (ids_at - PEV_PERFDATA_HEADER_SIZE), ev->ids, ev->nr_ids * 8);
		a.size = asz;
		memcpy(e, &a, asz);
		pd_put_u64(e + asz, ids_at);
		pd_put_u64(e + asz + 8, ev->nr_ids * 8);
		e += asz + PD_SECTION_SIZE;
		ids_at += ev->nr_ids * 8;
	}
	rc = pw_pwrite(w, b, len, PEV_PERFDATA_HEADER_SIZE, "the events' ids and attributes", err);
	free(b);
	if (rc)
		return rc;
	w->started = true;
	header_bytes(w, h, 0, NULL);
	rc = pw_pwrite(w, h, sizeof(h), 0, "the header", err);
	if (rc)
		return rc;
	take_clock_reference(w);
	return pw_sort_ids(w, total_ids, err);
}

/* ---- opening ------------------------------------------------------------------------ */

static int pw_new(int fd, bool own, const char *name, unsigned flags,
		  struct pev_perfdata_writer **out, struct pev_error *err)
{
	struct pev_perfdata_writer *w = calloc(1, sizeof(*w));
	unsigned char h[PEV_PERFDATA_HEADER_SIZE];

	if (!w) {
		if (own)
			close(fd);
		pev__error_start(err, PEV_ENOMEM, 0, NULL, NULL, false);
		pev__error_msg(err, "%s: out of memory for the writer", name);
		return PEV_ENOMEM;
	}
	w->fd = fd;
	w->own_fd = own;
	w->flags = flags;
	w->pipe = flags & PEV_PERFDATA_WRITER_PIPE;
	pev_text_escape(w->name, sizeof(w->name), name, 0); /* for messages: escaped */
	w->buf_cap = PW_BUF_SIZE;
	w->buf = malloc(w->buf_cap);
	if (!w->buf) {
		pev_perfdata_writer_close(w);
		pev__error_start(err, PEV_ENOMEM, 0, NULL, NULL, false);
		pev__error_msg(err, "%s: out of memory for the writer", name);
		return PEV_ENOMEM;
	}
	/*
	 * A provisional header: a reader told the file is not complete yet
	 * (attr_size 0) rather than that it is not a perf.data file. Pipe
	 * mode's is final: magic and size 16.
	 */
	header_bytes(w, h, 0, NULL);
	if (w->pipe)
		pd_put_u64(h + PD_HDR_SIZE, PEV_PERFDATA_PIPE_HEADER_SIZE);
	int rc = w->pipe
		     ? pev__pw_pipe_write(w, h, PEV_PERFDATA_PIPE_HEADER_SIZE, "the header", err)
		     : pw_pwrite(w, h, sizeof(h), 0, "the header", err);
	if (rc == 0 && !w->pipe && ftruncate(fd, sizeof(h)) != 0) {
		int e = errno;
		rc = pev__pw_fail(w, err, pev_error_from_errno(e), e, "cannot truncate: %s",
				  strerror(e));
		pev__strlcpy(pev__error_of(err)->syscall, "ftruncate", sizeof(err->syscall));
	}
	if (rc) {
		w->failed = rc;
		pev_perfdata_writer_close(w);
		return rc;
	}
	*out = w;
	return 0;
}

PEV_API int pev_perfdata_writer_open_fd(int fd, unsigned flags, struct pev_perfdata_writer **out,
					struct pev_error *err)
{
	struct stat st;
	char name[48];

	pev__error_clear(err);
	if (!out)
		return pev__bad_arg(err, "pev_perfdata_writer_open_fd", "out", "must not be NULL");
	*out = NULL;
	if (flags & ~PW_FLAGS)
		return pev__bad_arg(err, "pev_perfdata_writer_open_fd", "flags",
				    "unknown flags 0x%x", flags & ~PW_FLAGS);
	if (flags & PEV_PERFDATA_WRITER_PIPE) {
		if (fcntl(fd, F_GETFL) < 0)
			return pev__bad_arg(err, "pev_perfdata_writer_open_fd", "fd",
					    "descriptor %d is not open", fd);
	} else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return pev__bad_arg(err, "pev_perfdata_writer_open_fd", "fd",
				    "descriptor %d is not a regular file: a perf.data file is "
				    "written out of order (its header last)",
				    fd);
	snprintf(name, sizeof(name), "perf.data (descriptor %d)", fd);
	return pw_new(fd, false, name, flags, out, err);
}

PEV_API int pev_perfdata_writer_open(const char *path, unsigned flags,
				     struct pev_perfdata_writer **out, struct pev_error *err)
{
	pev__error_clear(err);
	if (!out)
		return pev__bad_arg(err, "pev_perfdata_writer_open", "out", "must not be NULL");
	*out = NULL;
	if (!path)
		return pev__bad_arg(err, "pev_perfdata_writer_open", "path", "must not be NULL");
	if (flags & ~PW_FLAGS)
		return pev__bad_arg(err, "pev_perfdata_writer_open", "flags", "unknown flags 0x%x",
				    flags & ~PW_FLAGS);
	/*
	 * O_NOFOLLOW: a link at path is refused, never its target truncated.
	 * O_NONBLOCK: a FIFO or device there never blocks the open; it is
	 * refused below (only a regular file can be written out of order).
	 */
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK |
				O_CLOEXEC,
		      0600);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		pev__error_start(err, PEV_EINVAL, EINVAL, "open", NULL, false);
		pev__error_field(err, "path");
		pev__error_msg(err, "%s: is not a regular file: a perf.data file is written out "
				    "of order (its header last); name a regular file",
			       path);
		return PEV_EINVAL;
	}
	if (fd >= 0) {
		int fl = fcntl(fd, F_GETFL);
		if (fl >= 0)
			fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	}
	if (fd < 0) {
		int e = errno;
		bool link = e == ELOOP && lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
		pev__error_start(err, pev_error_from_errno(e), e, "open", NULL, false);
		pev__error_field(err, "path");
		if (link)
			pev__error_msg(err, "%s: is a symbolic link: a perf.data file is not written "
					    "through one; give the file's own path or remove the link",
				       path);
		else
			pev__error_msg(err, "%s: cannot create: %s", path, strerror(e));
		return pev_error_from_errno(e);
	}
	return pw_new(fd, true, path, flags, out, err);
}

/* ---- what goes in ----------------------------------------------------------------- */

PEV_API int pev_perfdata_writer_add_event(struct pev_perfdata_writer *w,
					  const struct pev_attr *attr, const char *name,
					  const uint64_t *ids, size_t nr_ids, struct pev_error *err)
{
	static const char func[] = "pev_perfdata_writer_add_event";

	pev__error_clear(err);
	if (!w)
		return pev__bad_arg(err, func, "w", "must not be NULL");
	int rc = pw_check(w, err, func);
	if (rc)
		return rc;
	if (!attr)
		return pev__bad_arg(err, func, "attr", "must not be NULL");
	if (!ids && nr_ids)
		return pev__bad_arg(err, func, "ids", "must not be NULL with nr_ids %zu", nr_ids);
	if (w->started)
		return pev__bad_arg(err, func, "attr",
				    "events must be added before the first record is written");
	if (attr->size && attr->size < PEV_ATTR_SIZE_VER0)
		return pev__pw_fail(w, err, PEV_EFORMAT, 0,
				    "event #%d: attr.size %u is below the smallest ABI size (%d)",
				    w->nr_events, attr->size, PEV_ATTR_SIZE_VER0);
	if (nr_ids > (SIZE_MAX / 8) / 2)
		return pev__bad_arg(err, func, "nr_ids", "%zu ids are too many", nr_ids);
	if (w->nr_events == w->cap_events) {
		int cap = w->cap_events ? 2 * w->cap_events : 4;
		struct pw_event *n = realloc(w->events, (size_t)cap * sizeof(*n));
		if (!n)
			return pev__pw_fail(w, err, PEV_ENOMEM, 0, "out of memory for an event");
		w->events = n;
		w->cap_events = cap;
	}
	struct pw_event *ev = &w->events[w->nr_events];
	memset(ev, 0, sizeof(*ev));
	/* A block that claims to be larger than perfev's is taken as far as perfev knows it. */
	size_t copy = attr->size && attr->size < sizeof(ev->attr) ? attr->size : sizeof(ev->attr);
	memcpy(&ev->attr, attr, copy);
	ev->attr.size = 0; /* set to the file's size when written */
	if (name && !(ev->name = strdup(name)))
		return pev__pw_fail(w, err, PEV_ENOMEM, 0, "out of memory for an event");
	if (nr_ids) {
		ev->ids = malloc(nr_ids * 8);
		if (!ev->ids) {
			free(ev->name);
			return pev__pw_fail(w, err, PEV_ENOMEM, 0, "out of memory for an event");
		}
		memcpy(ev->ids, ids, nr_ids * 8);
	}
	ev->nr_ids = nr_ids;
	pev__pd_layout_from_attr(&ev->attr, &ev->layout);
	return w->nr_events++;
}

PEV_API int pev_perfdata_writer_add_group(struct pev_perfdata_writer *w, const char *name,
					  uint32_t leader, uint32_t nr_members)
{
	static const char func[] = "pev_perfdata_writer_add_group";

	if (!w)
		return pev__bad_arg(NULL, func, "w", "must not be NULL");
	int r;

	if ((r = writer_closed(w, true, func)) < 0)
		return r;
	if (nr_members < 2)
		return pev__bad_arg(NULL, func, "nr_members", "%u: a group has 2 events or more",
				    nr_members);
	if (leader >= (uint32_t)w->nr_events || nr_members > (uint32_t)w->nr_events - leader)
		return pev__bad_arg(NULL, func, "leader", "events %u to %u: the file has %d",
				    leader, leader + nr_members - 1, w->nr_events);
	if (w->nr_groups == w->cap_groups) {
		size_t cap = w->cap_groups ? 2 * w->cap_groups : 4;
		struct pw_group *n = realloc(w->groups, cap * sizeof(*n));
		if (!n)
			return PEV_ENOMEM;
		w->groups = n;
		w->cap_groups = cap;
	}
	char *copy = strdup(name ? name : "{anon_group}");
	if (!copy)
		return PEV_ENOMEM;
	w->groups[w->nr_groups++] = (struct pw_group){copy, leader, nr_members};
	return 0;
}

PEV_API int pev_perfdata_writer_add_build_id(struct pev_perfdata_writer *w, int32_t pid,
					     uint16_t cpumode, const void *build_id, size_t size,
					     const char *filename)
{
	static const char fn[] = "pev_perfdata_writer_add_build_id";
	int r;

	if (!w || !build_id || !filename)
		return pev__bad_arg(NULL, fn, !w ? "w" : !build_id ? "build_id" : "filename", "NULL");
	if ((r = writer_closed(w, true, fn)) < 0)
		return r;
	if (size == 0 || size > PEV_PERFDATA_BUILD_ID_MAX)
		return pev__bad_arg(NULL, fn, "size", "%zu: a build id has 1 to %d bytes", size,
				    PEV_PERFDATA_BUILD_ID_MAX);
	if (cpumode & ~PEV_RECORD_MISC_CPUMODE_MASK)
		return pev__bad_arg(NULL, fn, "cpumode", "%#x has bits outside the cpumode mask",
				    (unsigned)cpumode);
	if (strlen(filename) > 4096)
		return pev__bad_arg(NULL, fn, "filename", "%zu bytes; 4096 at most",
				    strlen(filename));
	if (w->nr_build_ids == w->cap_build_ids) {
		size_t cap = w->cap_build_ids ? 2 * w->cap_build_ids : 16;
		struct pw_build_id *n = realloc(w->build_ids, cap * sizeof(*n));
		if (!n)
			return PEV_ENOMEM;
		w->build_ids = n;
		w->cap_build_ids = cap;
	}
	struct pw_build_id *b = &w->build_ids[w->nr_build_ids];
	memset(b, 0, sizeof(*b));
	b->filename = strdup(filename);
	if (!b->filename)
		return PEV_ENOMEM;
	b->pid = pid;
	b->cpumode = cpumode;
	b->size = (uint8_t)size;
	memcpy(b->id, build_id, size);
	w->nr_build_ids++;
	return 0;
}

static void free_cmdline(struct pev_perfdata_writer *w)
{
	for (int i = 0; i < w->nr_cmdline; i++)
		free(w->cmdline[i]);
	free(w->cmdline);
	w->cmdline = NULL;
	w->nr_cmdline = 0;
}

PEV_API int pev_perfdata_writer_set_cmdline(struct pev_perfdata_writer *w, int argc,
					    const char *const *argv)
{
	static const char fn[] = "pev_perfdata_writer_set_cmdline";
	int r;

	if (!w)
		return pev__bad_arg(NULL, fn, "w", "NULL");
	if (argc < 0 || (argc && !argv))
		return pev__bad_arg(NULL, fn, argc < 0 ? "argc" : "argv", "argc %d, argv %p", argc,
				    (const void *)argv);
	if ((r = writer_closed(w, true, fn)) < 0)
		return r;
	for (int i = 0; i < argc; i++)
		if (!argv[i])
			return pev__bad_arg(NULL, fn, "argv", "argv[%d] of %d is NULL", i, argc);
	char **words = calloc((size_t)argc + 1, sizeof(*words));
	if (!words)
		return PEV_ENOMEM;
	for (int i = 0; i < argc; i++) {
		if (!(words[i] = strdup(argv[i]))) {
			while (i--)
				free(words[i]);
			free(words);
			return PEV_ENOMEM;
		}
	}
	free_cmdline(w);
	w->cmdline = words;
	w->nr_cmdline = argc;
	w->cmdline_set = true;
	return 0;
}

PEV_API int pev_perfdata_writer_set_sample_time(struct pev_perfdata_writer *w, uint64_t first,
						uint64_t last)
{
	static const char fn[] = "pev_perfdata_writer_set_sample_time";
	int r;

	if (!w)
		return pev__bad_arg(NULL, fn, "w", "NULL");
	if ((r = writer_closed(w, false, fn)) < 0)
		return r;
	if (first > last)
		return pev__bad_arg(NULL, fn, "first", "%" PRIu64 " is after last (%" PRIu64 ")",
				    first, last);
	w->time_set = true;
	w->time_first = first;
	w->time_last = last;
	return 0;
}

/* The checks of a call fn that overrides a feature of w: an open writer, a feature bit. */
static int feature_call_check(struct pev_perfdata_writer *w, unsigned feature, const char *fn)
{
	int r;

	if (!w)
		return pev__bad_arg(NULL, fn, "w", "NULL");
	if ((r = writer_closed(w, false, fn)) < 0)
		return r;
	if (feature == 0 || feature >= PEV_HEADER_FEAT_BITS)
		return pev__bad_arg(NULL, fn, "feature", "%u: features are 1 to %d", feature,
				    PEV_HEADER_FEAT_BITS - 1);
	return 0;
}

PEV_API int pev_perfdata_writer_set_feature(struct pev_perfdata_writer *w, unsigned feature,
					    const void *data, size_t size)
{
	static const char fn[] = "pev_perfdata_writer_set_feature";
	int r;

	if ((r = feature_call_check(w, feature, fn)) < 0)
		return r;
	if (!data && size)
		return pev__bad_arg(NULL, fn, "data", "NULL with size %zu", size);
	if (size > PD_SECTION_MAX)
		return pev__bad_arg(NULL, fn, "size", "%zu bytes; %" PRIu64 " at most", size,
				    PD_SECTION_MAX);
	unsigned char *copy = malloc(size ? size : 1);
	if (!copy)
		return PEV_ENOMEM;
	if (size)
		memcpy(copy, data, size);
	struct pw_override *o = &w->overrides[feature];
	free(o->data);
	o->data = copy;
	o->size = size;
	o->set = true;
	o->drop = false;
	return 0;
}

PEV_API int pev_perfdata_writer_drop_feature(struct pev_perfdata_writer *w, unsigned feature)
{
	static const char fn[] = "pev_perfdata_writer_drop_feature";
	int r;

	if ((r = feature_call_check(w, feature, fn)) < 0)
		return r;
	struct pw_override *o = &w->overrides[feature];
	free(o->data);
	o->data = NULL;
	o->size = 0;
	o->set = false;
	o->drop = true;
	return 0;
}

/* ---- records --------------------------------------------------------------------- */

/* Writes records after those written so far. */
static int pw_out(struct pev_perfdata_writer *w, const void *p, size_t len, struct pev_error *err)
{
	if (w->pipe)
		return pev__pw_pipe_write(w, p, len, "records", err);
	return pw_pwrite(w, p, len, w->data_offset + w->written, "records", err);
}

/*
 * Pipe mode: a stream that ends with FINISHED_ROUND reads as finished.
 * Until finish, a flush for room keeps a FINISHED_ROUND that is last in
 * the buffer, so that a recorder killed after it leaves a stream that
 * says it is unfinished.
 */
static size_t pw_held_back(const struct pev_perfdata_writer *w)
{
	if (!w->pipe || w->buf_len < w->last_size || w->last_type != PEV_RECORD_FINISHED_ROUND)
		return 0;
	return w->last_size;
}

/* Writes the buffer but what pipe mode holds back (see pw_held_back). */
static int pw_flush_for_room(struct pev_perfdata_writer *w, struct pev_error *err)
{
	size_t keep = pw_held_back(w), len = w->buf_len - keep;

	if (len == 0)
		return 0;
	int rc = pw_out(w, w->buf, len, err);
	if (rc)
		return rc;
	w->written += len;
	memmove(w->buf, w->buf + len, keep);
	w->buf_len = keep;
	return 0;
}

static int pw_flush_buffer(struct pev_perfdata_writer *w, struct pev_error *err)
{
	if (w->buf_len == 0)
		return 0;
	int rc = pw_out(w, w->buf, w->buf_len, err);
	if (rc)
		return rc;
	w->written += w->buf_len;
	w->buf_len = 0;
	return 0;
}

static int pw_append(struct pev_perfdata_writer *w, const void *p, size_t len,
		     struct pev_error *err)
{
	if (w->buf_len + len > w->buf_cap) {
		int rc = pw_flush_for_room(w, err);
		if (rc)
			return rc;
		if (w->buf_len + len > w->buf_cap) {
			/* Too large for the buffer: what it holds, then these, written now. */
			rc = pw_flush_buffer(w, err);
			if (rc == 0)
				rc = pw_out(w, p, len, err);
			if (rc == 0)
				w->written += len;
			return rc;
		}
	}
	memcpy(w->buf + w->buf_len, p, len);
	w->buf_len += len;
	return 0;
}

/* The event of a record, as a reader would find it; NULL when it cannot be told. */
static const struct pw_event *pw_record_event(const struct pev_perfdata_writer *w,
					      const unsigned char *rec, size_t size)
{
	uint64_t id;

	if (w->nr_events == 1)
		return &w->events[0];
	if (w->nr_events == 0 || !pev__pd_layout_id(&w->common, rec, size, &id))
		return NULL;
	size_t lo = 0, hi = w->nr_ids;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (w->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < w->nr_ids && w->ids[lo].id == id ? &w->events[w->ids[lo].event] : NULL;
}

static void pw_see_time(struct pev_perfdata_writer *w, const unsigned char *rec, size_t size)
{
	const struct pw_event *ev = pw_record_event(w, rec, size);
	uint64_t t;

	if (!ev || !pev__pd_layout_time(&ev->layout, rec, size, &t))
		return;
	if (!w->time_seen || t < w->time_first)
		w->time_first = t;
	if (!w->time_seen || t > w->time_last)
		w->time_last = t;
	w->time_seen = true;
}

PEV_API int pev_perfdata_writer_write(struct pev_perfdata_writer *w, const void *records,
				      size_t len, struct pev_error *err)
{
	static const char func[] = "pev_perfdata_writer_write";
	const unsigned char *p = records;

	pev__error_clear(err);
	if (!w)
		return pev__bad_arg(err, func, "w", "must not be NULL");
	int rc = pw_check(w, err, func);
	if (rc)
		return rc;
	if (!records && len)
		return pev__bad_arg(err, func, "records", "must not be NULL with len %zu", len);
	/* Check every header before writing any of it. */
	size_t last = 0;
	for (size_t at = 0, k = 0; at < len; k++) {
		last = at;
		if (len - at < 8)
			return pev__pw_fail(
			    w, err, PEV_EFORMAT, 0,
			    "record #%zu at byte %zu of the buffer: only %zu bytes left, "
			    "less than a record header",
			    k, at, len - at);
		uint16_t size = pd_u16(p + at + 6);
		if (size < 8 || size % 8 || size > len - at)
			return pev__pw_fail(
			    w, err, PEV_EFORMAT, 0,
			    "record #%zu (type %u) at byte %zu of the buffer: size %u is %s", k,
			    pd_u32(p + at), at, size,
			    size < 8   ? "less than its 8-byte header"
			    : size % 8 ? "not a multiple of 8"
				       : "past the end of the buffer");
		at += size;
	}
	rc = pw_start(w, err);
	if (rc)
		return rc;
	if (!w->time_set) {
		for (size_t at = 0; at < len; at += pd_u16(p + at + 6))
			if (pd_u32(p + at) == PEV_RECORD_SAMPLE)
				pw_see_time(w, p + at, pd_u16(p + at + 6));
	}
	if (len)
		w->since_round = true;
	rc = pw_append(w, p, len, err);
	if (rc == 0 && len) {
		w->last_type = pd_u32(p + last);
		w->last_size = pd_u16(p + last + 6);
	}
	return rc;
}

PEV_API int pev_perfdata_writer_round(struct pev_perfdata_writer *w, struct pev_error *err)
{
	static const unsigned char round[8] = {PEV_RECORD_FINISHED_ROUND, 0, 0, 0, 0, 0, 8, 0};

	pev__error_clear(err);
	if (!w)
		return pev__bad_arg(err, "pev_perfdata_writer_round", "w", "must not be NULL");
	int rc = pw_check(w, err, "pev_perfdata_writer_round");
	if (rc || !w->since_round)
		return rc;
	w->since_round = false;
	rc = pw_append(w, round, sizeof(round), err);
	if (rc == 0) {
		w->last_type = PEV_RECORD_FINISHED_ROUND;
		w->last_size = sizeof(round);
	}
	return rc;
}

static int pw_write_header(struct pev_perfdata_writer *w, const uint64_t *bits,
			   struct pev_error *err)
{
	unsigned char h[PEV_PERFDATA_HEADER_SIZE];

	header_bytes(w, h, w->written, bits);
	return pw_pwrite(w, h, sizeof(h), 0, "the header", err);
}

PEV_API int pev_perfdata_writer_flush(struct pev_perfdata_writer *w, struct pev_error *err)
{
	pev__error_clear(err);
	if (!w)
		return pev__bad_arg(err, "pev_perfdata_writer_flush", "w", "must not be NULL");
	int rc = pw_check(w, err, "pev_perfdata_writer_flush");
	if (!rc)
		rc = pw_start(w, err);
	if (!rc)
		rc = pw_flush_buffer(w, err);
	if (!rc && !w->pipe)
		rc = pw_write_header(w, NULL, err);
	return rc;
}

PEV_API uint64_t pev_perfdata_writer_data_size(const struct pev_perfdata_writer *w)
{
	return w ? w->written + w->buf_len : 0;
}

/* The features after the data: the section table, then each section in bit order. */
static int pw_write_features(struct pev_perfdata_writer *w, uint64_t *bits,
			     struct pev_error *err)
{
	struct pw_buf secs[PEV_HEADER_FEAT_BITS];
	unsigned n = 0;
	int rc = 0;

	memset(secs, 0, sizeof(secs));
	for (unsigned f = 1; f < PEV_HEADER_FEAT_BITS; f++) {
		const struct pw_override *o = &w->overrides[f];
		bool on;

		if (o->drop)
			continue;
		if (o->set) {
			pev__pw_put(&secs[f], o->data, o->size);
			on = true;
		} else {
			on = pev__pw_feature_encode(w, f, &secs[f]);
		}
		if (secs[f].failed) {
			rc = pev__pw_fail(w, err, PEV_ENOMEM, 0, "out of memory for feature %s",
					  pev_perfdata_feature_name(f));
			break;
		}
		if (on) {
			bits[f / 64] |= UINT64_C(1) << (f % 64);
			n++;
		}
	}
	uint64_t table = w->data_offset + w->written;
	uint64_t at = table + (uint64_t)n * PD_SECTION_SIZE;
	unsigned char *tab = calloc(n ? n : 1, PD_SECTION_SIZE);
	if (!rc && !tab)
		rc = pev__pw_fail(w, err, PEV_ENOMEM, 0, "out of memory for the feature table");
	for (unsigned f = 1, k = 0; !rc && f < PEV_HEADER_FEAT_BITS; f++) {
		if (!((bits[f / 64] >> (f % 64)) & 1))
			continue;
		pd_put_u64(tab + k * PD_SECTION_SIZE, at);
		pd_put_u64(tab + k * PD_SECTION_SIZE + 8, secs[f].len);
		k++;
		if (secs[f].len)
			rc = pw_pwrite(w, secs[f].p, secs[f].len, at, pev_perfdata_feature_name(f),
				       err);
		at += secs[f].len;
	}
	if (!rc && n)
		rc = pw_pwrite(w, tab, (size_t)n * PD_SECTION_SIZE, table, "the feature table", err);
	if (!rc && ftruncate(w->fd, (off_t)at) != 0) {
		int e = errno;
		rc = pev__pw_poison(w, err, pev_error_from_errno(e), e, "the end of the file", at,
				    0);
	}
	free(tab);
	for (unsigned f = 0; f < PEV_HEADER_FEAT_BITS; f++)
		free(secs[f].p);
	return rc;
}

PEV_API int pev_perfdata_writer_finish(struct pev_perfdata_writer *w, struct pev_error *err)
{
	uint64_t bits[PEV_HEADER_FEAT_BITS / 64] = {0};

	pev__error_clear(err);
	if (!w)
		return pev__bad_arg(err, "pev_perfdata_writer_finish", "w", "must not be NULL");
	int rc = pw_check(w, err, "pev_perfdata_writer_finish");
	if (!rc)
		rc = pw_start(w, err);
	if (!rc)
		rc = pw_flush_buffer(w, err);
	if (!rc && w->pipe) {
		rc = pev__pw_pipe_finish(w, err);
		if (!rc)
			w->finished = true;
		return rc;
	}
	if (!rc && !w->cmdline_set && !w->cmdline)
		pev__pw_default_cmdline(w);
	if (!rc)
		rc = pw_write_features(w, bits, err);
	if (!rc)
		rc = pw_write_header(w, bits, err);
	if (!rc)
		w->finished = true;
	return rc;
}

PEV_API void pev_perfdata_writer_close(struct pev_perfdata_writer *w)
{
	if (!w)
		return;
	if (!w->finished && !w->failed && w->started) {
		/* Best effort: the records so far, and a header that covers them. */
		if (pw_flush_buffer(w, NULL) == 0 && !w->pipe)
			pw_write_header(w, NULL, NULL);
	}
	if (w->own_fd)
		close(w->fd);
	for (int i = 0; i < w->nr_events; i++) {
		free(w->events[i].name);
		free(w->events[i].ids);
	}
	free(w->events);
	for (size_t i = 0; i < w->nr_groups; i++)
		free(w->groups[i].name);
	free(w->groups);
	for (size_t i = 0; i < w->nr_build_ids; i++)
		free(w->build_ids[i].filename);
	free(w->build_ids);
	free_cmdline(w);
	for (unsigned f = 0; f < PEV_HEADER_FEAT_BITS; f++)
		free(w->overrides[f].data);
	free(w->ids);
	free(w->buf);
	free(w);
}
