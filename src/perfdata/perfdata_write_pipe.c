/* SPDX-License-Identifier: MIT */
/*
 * perfdata_write_pipe.c - pipe mode: what file mode keeps in the header,
 * the attr section and the feature sections goes out as records, in the
 * order perf 6.1 writes them (see perfdata_format.h), so that the output
 * can be read as it is written, from a pipe.
 */
#include "perfdata/perfdata_writer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error_internal.h"

int pev__pw_pipe_write(struct pev_perfdata_writer *w, const void *p, size_t len, const char *what,
		       struct pev_error *err)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(w->fd, (const char *)p + done, len - done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			return pev__pw_poison(w, err, pev_error_from_errno(e), e, what, w->piped,
					      len);
		}
		if (n == 0)
			return pev__pw_poison(w, err, PEV_EIO, EIO, what, w->piped, len);
		done += (size_t)n;
		w->piped += (uint64_t)n;
	}
	return 0;
}

/* Starts a record of type in b: its header, size to be set by end_record. */
static size_t start_record(struct pw_buf *b, uint32_t type)
{
	size_t at = b->len;

	pev__pw_put_u32(b, type);
	pev__pw_put_u32(b, 0); /* misc, size */
	return at;
}

/* Sets the size of the record started at `at`; false when it is too large for one. */
static bool end_record(struct pw_buf *b, size_t at)
{
	size_t size = b->len - at;

	if (b->failed || size > UINT16_MAX)
		return false;
	uint16_t sz = (uint16_t)size;
	memcpy(b->p + at + 6, &sz, sizeof(sz));
	return true;
}

/* One HEADER_ATTR per event: the attribute block, then its ids. */
static int put_attrs(struct pev_perfdata_writer *w, struct pw_buf *b, struct pev_error *err)
{
	uint32_t asz = w->file_attr_size > PD_PIPE_ATTR_SIZE ? w->file_attr_size
							      : PD_PIPE_ATTR_SIZE;
	unsigned char block[sizeof(struct pev_attr) > PD_PIPE_ATTR_SIZE ? sizeof(struct pev_attr)
									: PD_PIPE_ATTR_SIZE];

	for (int i = 0; i < w->nr_events; i++) {
		const struct pw_event *ev = &w->events[i];
		struct pev_attr a = ev->attr;

		memset(block, 0, sizeof(block));
		a.size = asz;
		memcpy(block, &a, sizeof(a) < asz ? sizeof(a) : asz);
		size_t at = start_record(b, PEV_RECORD_HEADER_ATTR);
		pev__pw_put(b, block, asz);
		if (ev->nr_ids)
			pev__pw_put(b, ev->ids, ev->nr_ids * 8);
		if (!end_record(b, at)) {
			if (b->failed)
				return pev__pw_fail(w, err, PEV_ENOMEM, 0,
						    "out of memory for the events");
			return pev__pw_fail(
			    w, err, PEV_EFORMAT, 0,
			    "event #%d: %zu ids do not fit in a pipe-mode HEADER_ATTR "
			    "record (64 KiB); record fewer CPUs or threads, or write a file",
			    i, ev->nr_ids);
		}
	}
	return 0;
}

/* A feature in pipe mode: perf reads from HEADER_FEATURE records only these. */
static bool pipe_feature(const struct pev_perfdata_writer *w, unsigned f)
{
	switch (f) {
	case PEV_HEADER_TRACING_DATA: /* a record of its own */
	case PEV_HEADER_BUILD_ID:     /* records at the end, when the hit files are known */
	case PEV_HEADER_BRANCH_STACK: /* a flag with no bytes: perf sends none */
		return false;
	case PEV_HEADER_SAMPLE_TIME: /* only the end knows it, unless the caller set it */
		return w->time_set || w->overrides[f].set;
	default:
		return f < PD_PIPE_FEATURES_END;
	}
}

/* One HEADER_FEATURE per feature known now, then the end marker. */
static int put_features(struct pev_perfdata_writer *w, struct pw_buf *b, struct pev_error *err)
{
	struct pw_buf sec;

	if (!w->cmdline_set && !w->cmdline)
		pev__pw_default_cmdline(w);
	for (unsigned f = 1; f < PD_PIPE_FEATURES_END; f++) {
		const struct pw_override *o = &w->overrides[f];
		bool on;

		if (o->drop || !pipe_feature(w, f))
			continue;
		memset(&sec, 0, sizeof(sec));
		if (o->set) {
			pev__pw_put(&sec, o->data, o->size);
			on = true;
		} else {
			on = pev__pw_feature_encode(w, f, &sec);
		}
		if (sec.failed) {
			free(sec.p);
			return pev__pw_fail(w, err, PEV_ENOMEM, 0, "out of memory for feature %s",
					    pev_perfdata_feature_name(f));
		}
		/* A section too large for a record (64 KiB) is left out, as perf does. */
		if (on && sec.len <= UINT16_MAX - PD_PIPE_FEATURE_FIXED) {
			size_t at = start_record(b, PEV_RECORD_HEADER_FEATURE);
			pev__pw_put_u64(b, f);
			pev__pw_put(b, sec.p, sec.len);
			end_record(b, at);
		}
		free(sec.p);
	}
	size_t at = start_record(b, PEV_RECORD_HEADER_FEATURE);
	pev__pw_put_u64(b, PD_PIPE_FEATURES_END);
	end_record(b, at);
	return b->failed ? pev__pw_fail(w, err, PEV_ENOMEM, 0, "out of memory for the features")
			 : 0;
}

/*
 * An EVENT_UPDATE naming each named event (by its first id): perf names
 * the events of a stream from these, not from EVENT_DESC.
 */
static void put_names(struct pev_perfdata_writer *w, struct pw_buf *b)
{
	static const unsigned char zeros[8];

	for (int i = 0; i < w->nr_events; i++) {
		const struct pw_event *ev = &w->events[i];
		if (!ev->name || !ev->nr_ids)
			continue;
		size_t len = strlen(ev->name) + 1, padded = (len + 7) & ~(size_t)7;
		size_t at = start_record(b, PEV_RECORD_EVENT_UPDATE);
		pev__pw_put_u64(b, PD_EVENT_UPDATE_NAME);
		pev__pw_put_u64(b, ev->ids[0]);
		pev__pw_put(b, ev->name, len);
		pev__pw_put(b, zeros, padded - len);
		if (!end_record(b, at) && !b->failed)
			b->len = at; /* a name too long for a record: left out */
	}
}

/* HEADER_TRACING_DATA: the record, then the data padded to 8 bytes. */
static void put_tracing_data(struct pev_perfdata_writer *w, struct pw_buf *b)
{
	static const unsigned char zeros[8];
	const struct pw_override *o = &w->overrides[PEV_HEADER_TRACING_DATA];
	size_t padded = (o->size + 7) & ~(size_t)7;

	if (!o->set || o->drop || !o->size || padded > UINT32_MAX)
		return;
	size_t at = start_record(b, PEV_RECORD_HEADER_TRACING_DATA);
	pev__pw_put_u32(b, (uint32_t)padded);
	pev__pw_put_u32(b, 0);
	end_record(b, at);
	pev__pw_put(b, o->data, o->size);
	pev__pw_put(b, zeros, padded - o->size);
}

int pev__pw_pipe_start(struct pev_perfdata_writer *w, struct pev_error *err)
{
	struct pw_buf b = {0};
	int rc = put_attrs(w, &b, err);

	if (!rc)
		rc = put_features(w, &b, err);
	if (!rc) {
		put_names(w, &b);
		put_tracing_data(w, &b);
		if (b.failed)
			rc = pev__pw_fail(w, err, PEV_ENOMEM, 0,
					  "out of memory for the tracing data");
	}
	if (!rc)
		rc = pev__pw_pipe_write(w, b.p, b.len, "the events and features", err);
	free(b.p);
	return rc;
}

int pev__pw_pipe_finish(struct pev_perfdata_writer *w, struct pev_error *err)
{
	struct pw_buf b = {0};
	int rc = 0;

	if (!w->overrides[PEV_HEADER_BUILD_ID].drop)
		for (size_t i = 0; i < w->nr_build_ids; i++)
			pev__pw_build_id_encode(&w->build_ids[i], PEV_RECORD_HEADER_BUILD_ID, &b);
	size_t at = start_record(&b, PEV_RECORD_FINISHED_ROUND);
	end_record(&b, at);
	if (b.failed)
		rc = pev__pw_fail(w, err, PEV_ENOMEM, 0, "out of memory for the build ids");
	else if (b.len)
		rc = pev__pw_pipe_write(w, b.p, b.len, "the build ids", err);
	free(b.p);
	return rc;
}
