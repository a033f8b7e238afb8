/* SPDX-License-Identifier: MIT */
/*
 * perfdata_records.c - the records: framing (every size checked against the
 * data section or the stream), the event each kernel record belongs to, and
 * perf's own record types, handled before they are handed out.
 */
#include "perfdata/perfdata_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error_internal.h"

/* ---- which event wrote a record ------------------------------------------------ */

static void attribute(struct pev_perfdata *pd, struct pev_perfdata_record *rec)
{
	struct pd_event *ev = NULL;
	const void *r = rec->header;
	uint64_t id;

	if (pd->nr_events == 0)
		return;
	struct pd_event *first = pd->events[0];
	if (pd->nr_events == 1) {
		ev = first;
		rec->has_id = pev__pd_layout_id(&ev->layout, r, rec->size, &rec->id);
	} else if (rec->type != PEV_RECORD_SAMPLE &&
		   !(first->pub.attr.flags & PEV_ATTR_SAMPLE_ID_ALL)) {
		ev = first; /* no trailer: perf gives such records to the first event */
	} else if (pev__pd_layout_id(&pd->common, r, rec->size, &id)) {
		rec->has_id = true;
		rec->id = id;
		/* Records perf synthesizes carry id 0: they go to the first event. */
		ev = id == 0 ? first : pev__pd_event_find(pd, id);
		if (!ev && !pd->noted_unknown_id) {
			pd->noted_unknown_id = true;
			pev__pd_note(pd,
				     "%s record at offset 0x%" PRIx64 " has sample id %" PRIu64
				     ", which no event has: such records have no event",
				     pev_perfdata_record_type_name(rec->type), rec->offset, id);
		}
	}
	if (ev) {
		rec->event = &ev->pub;
		rec->has_time = pev__pd_layout_time(&ev->layout, r, rec->size, &rec->time);
	}
}

static void note_type(struct pev_perfdata *pd, uint32_t type, uint64_t offset)
{
	if (type < 256) {
		if ((pd->noted_types[type / 64] >> (type % 64)) & 1)
			return;
		pd->noted_types[type / 64] |= UINT64_C(1) << (type % 64);
	} else {
		if (pd->noted_other_type)
			return;
		pd->noted_other_type = true;
	}
	pev__pd_note(pd,
		     "record type %u at offset 0x%" PRIx64
		     " is unknown to perfev (a newer kernel or "
		     "perf?): handed out undecoded",
		     type, offset);
}

/* ---- perf's own records ------------------------------------------------------- */

/* A malformed body: an error, or with PEV_PERFDATA_LENIENT a note. */
static int bad_body(struct pev_perfdata *pd, const struct pev_perfdata_record *rec,
		    struct pev_error *err, const char *fmt, ...) PEV_PRINTF(4, 5);

static int bad_body(struct pev_perfdata *pd, const struct pev_perfdata_record *rec,
		    struct pev_error *err, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (pd->flags & PEV_PERFDATA_LENIENT) {
		pev__pd_note(pd, "%s record at offset 0x%" PRIx64 " ignored: %s",
			     pev_perfdata_record_type_name(rec->type), rec->offset, what);
		return 0;
	}
	return pev__pd_fail(pd, err, PEV_EFORMAT, "record", "%s record at offset 0x%" PRIx64 ": %s",
			    pev_perfdata_record_type_name(rec->type), rec->offset, what);
}

/* Decodes a CPU map (CPU_MAP records, EVENT_UPDATE CPUS) into a malloc'ed list. */
static int cpu_map_decode(const unsigned char *d, size_t len, int **out, size_t *nr,
			  char *why, size_t why_size)
{
	size_t n = 0;
	int *cpus = NULL;

	*out = NULL;
	*nr = 0;
	if (len < 2) {
		snprintf(why, why_size, "its CPU map has %zu bytes, not even a type", len);
		return -1;
	}
	switch (pd_u16(d)) {
	case PD_CPU_MAP_CPUS: {
		if (len < 4) {
			snprintf(why, why_size, "its CPU list has no count");
			return -1;
		}
		size_t count = pd_u16(d + 2);
		if (4 + 2 * count > len) {
			snprintf(why, why_size, "its CPU list of %zu CPUs needs %zu bytes, it has %zu",
				 count, 4 + 2 * count, len);
			return -1;
		}
		cpus = malloc((count + 1) * sizeof(*cpus));
		if (!cpus)
			return PEV_ENOMEM;
		for (size_t i = 0; i < count; i++)
			cpus[n++] = (int16_t)pd_u16(d + 4 + 2 * i);
		break;
	}
	case PD_CPU_MAP_MASK: {
		if (len < 6) {
			snprintf(why, why_size, "its CPU mask has no count and word size");
			return -1;
		}
		size_t words = pd_u16(d + 2), wsize = pd_u16(d + 4), at = wsize == 8 ? 10 : 6;
		if (wsize != 4 && wsize != 8) {
			snprintf(why, why_size, "its CPU mask has %zu-byte words (4 or 8)", wsize);
			return -1;
		}
		if (at + words * wsize > len) {
			snprintf(why, why_size, "its CPU mask of %zu words needs %zu bytes, it has %zu",
				 words, at + words * wsize, len);
			return -1;
		}
		cpus = malloc((words * wsize * 8 + 1) * sizeof(*cpus));
		if (!cpus)
			return PEV_ENOMEM;
		for (size_t w = 0; w < words; w++) {
			uint64_t bits = wsize == 8 ? pd_u64(d + at + 8 * w) : pd_u32(d + at + 4 * w);
			for (unsigned b = 0; b < wsize * 8; b++)
				if ((bits >> b) & 1)
					cpus[n++] = (int)(w * wsize * 8 + b);
		}
		break;
	}
	case PD_CPU_MAP_RANGE: {
		if (len < 8) {
			snprintf(why, why_size, "its CPU range has %zu bytes, not 8", len);
			return -1;
		}
		unsigned any = d[2], start = pd_u16(d + 4), end = pd_u16(d + 6);
		if (end < start) {
			snprintf(why, why_size, "its CPU range %u-%u ends before it starts", start, end);
			return -1;
		}
		cpus = malloc((end - start + 2) * sizeof(*cpus));
		if (!cpus)
			return PEV_ENOMEM;
		if (any)
			cpus[n++] = -1;
		for (unsigned c = start; c <= end; c++)
			cpus[n++] = (int)c;
		break;
	}
	default:
		snprintf(why, why_size, "its CPU map has type %u (0 list, 1 mask, 2 range)", pd_u16(d));
		return -1;
	}
	*out = cpus;
	*nr = n;
	return 0;
}

static int cmp_id_entry(const void *a, const void *b)
{
	const struct pev_perfdata_id_entry *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int do_id_index(struct pev_perfdata *pd, const struct pev_perfdata_record *rec,
		       struct pev_error *err)
{
	const unsigned char *r = (const unsigned char *)rec->header;

	if (rec->size < 16)
		return bad_body(pd, rec, err, "%zu bytes, too short for its count", rec->size);
	uint64_t nr = pd_u64(r + 8);
	if (nr > (rec->size - 16) / 32)
		return bad_body(pd, rec, err, "%" PRIu64 " entries of 32 bytes do not fit in %zu bytes",
				nr, rec->size);
	if (!nr)
		return 0; /* nothing to add (and before any entry the array is NULL: no qsort) */
	if (pd->nr_id_index + nr > pd->cap_id_index) {
		size_t cap = pd->cap_id_index ? pd->cap_id_index : 64;
		while (cap < pd->nr_id_index + nr)
			cap *= 2;
		struct pev_perfdata_id_entry *n = realloc(pd->id_index, cap * sizeof(*n));
		if (!n)
			return pev__pd_fail(pd, err, PEV_ENOMEM, "record",
					    "out of memory for ID_INDEX");
		pd->id_index = n;
		pd->cap_id_index = cap;
	}
	for (uint64_t i = 0; i < nr; i++) {
		const unsigned char *e = r + 16 + 32 * i;
		pd->id_index[pd->nr_id_index++] = (struct pev_perfdata_id_entry){
			pd_u64(e), pd_u64(e + 8), pd_u64(e + 16), pd_u64(e + 24)};
	}
	qsort(pd->id_index, pd->nr_id_index, sizeof(*pd->id_index), cmp_id_entry);
	return 0;
}

static int do_thread_map(struct pev_perfdata *pd, const struct pev_perfdata_record *rec,
			 struct pev_error *err)
{
	const unsigned char *r = (const unsigned char *)rec->header;

	if (rec->size < 16)
		return bad_body(pd, rec, err, "%zu bytes, too short for its count", rec->size);
	uint64_t nr = pd_u64(r + 8);
	if (nr > (rec->size - 16) / 24)
		return bad_body(pd, rec, err, "%" PRIu64 " threads of 24 bytes do not fit in %zu bytes",
				nr, rec->size);
	struct pev_perfdata_thread *t = calloc(nr ? nr : 1, sizeof(*t));
	if (!t)
		return pev__pd_fail(pd, err, PEV_ENOMEM, "record", "out of memory for THREAD_MAP");
	for (uint64_t i = 0; i < nr; i++) {
		t[i].pid = pd_u64(r + 16 + 24 * i);
		memcpy(t[i].comm, r + 24 + 24 * i, 16);
	}
	free(pd->threads);
	pd->threads = t;
	pd->nr_threads = nr;
	return 0;
}

static int do_cpu_map(struct pev_perfdata *pd, const struct pev_perfdata_record *rec,
		      struct pev_error *err)
{
	char why[160];
	int *cpus;
	size_t nr;
	int rc = cpu_map_decode((const unsigned char *)rec->header + 8, rec->size - 8, &cpus, &nr,
				why, sizeof(why));

	if (rc == PEV_ENOMEM)
		return pev__pd_fail(pd, err, PEV_ENOMEM, "record", "out of memory for CPU_MAP");
	if (rc)
		return bad_body(pd, rec, err, "%s", why);
	free(pd->cpus);
	pd->cpus = cpus;
	pd->nr_cpus = nr;
	return 0;
}

static char *dup_string(const unsigned char *s, size_t max, bool *bad)
{
	const unsigned char *nul = memchr(s, '\0', max);

	if (!nul) {
		*bad = true;
		return NULL;
	}
	return strdup((const char *)s);
}

static int do_event_update(struct pev_perfdata *pd, const struct pev_perfdata_record *rec,
			   struct pev_error *err)
{
	const unsigned char *r = (const unsigned char *)rec->header;
	bool bad = false;
	char why[160];

	if (rec->size < 24)
		return bad_body(pd, rec, err, "%zu bytes, too short for its type and id", rec->size);
	uint64_t type = pd_u64(r + 8), id = pd_u64(r + 16);
	const unsigned char *d = r + 24;
	size_t len = rec->size - 24;
	struct pd_event *ev = pev__pd_event_find(pd, id);
	if (!ev) {
		pev__pd_note(pd,
			     "EVENT_UPDATE record at offset 0x%" PRIx64 " is for sample id %" PRIu64
			     ", which no event has: ignored",
			     rec->offset, id);
		return 0;
	}
	switch (type) {
	case PD_EVENT_UPDATE_UNIT:
	case PD_EVENT_UPDATE_NAME: {
		char *s = dup_string(d, len, &bad);
		if (bad)
			return bad_body(pd, rec, err, "its %s (%zu bytes) has no terminating NUL",
					type == PD_EVENT_UPDATE_NAME ? "name" : "unit", len);
		if (!s)
			return pev__pd_fail(pd, err, PEV_ENOMEM, "record",
					    "out of memory for EVENT_UPDATE");
		if (type == PD_EVENT_UPDATE_NAME) {
			free(ev->name);
			ev->name = s;
			ev->pub.name = s;
		} else {
			free(ev->unit);
			ev->unit = s;
			ev->pub.unit = s;
		}
		return 0;
	}
	case PD_EVENT_UPDATE_SCALE:
		if (len < 8)
			return bad_body(pd, rec, err, "its scale needs 8 bytes, it has %zu", len);
		memcpy(&ev->pub.scale, d, sizeof(double));
		return 0;
	case PD_EVENT_UPDATE_CPUS: {
		int *cpus;
		size_t nr;
		int rc = cpu_map_decode(d, len, &cpus, &nr, why, sizeof(why));
		if (rc == PEV_ENOMEM)
			return pev__pd_fail(pd, err, PEV_ENOMEM, "record",
					    "out of memory for EVENT_UPDATE");
		if (rc)
			return bad_body(pd, rec, err, "%s", why);
		free(ev->cpus);
		ev->cpus = cpus;
		ev->pub.cpus = cpus;
		ev->pub.nr_cpus = nr;
		return 0;
	}
	default:
		pev__pd_note(pd,
			     "EVENT_UPDATE record at offset 0x%" PRIx64 " has type %" PRIu64
			     ", unknown to perfev: ignored",
			     rec->offset, type);
		return 0;
	}
}

static int do_time_conv(struct pev_perfdata *pd, const struct pev_perfdata_record *rec,
			struct pev_error *err)
{
	const unsigned char *r = (const unsigned char *)rec->header;
	struct pev_perfdata_time_conv t = {0};

	if (rec->size < 32)
		return bad_body(pd, rec, err, "%zu bytes, fewer than the 32 of its oldest form",
				rec->size);
	t.time_shift = pd_u64(r + 8);
	t.time_mult = pd_u64(r + 16);
	t.time_zero = pd_u64(r + 24);
	if (rec->size >= 56) {
		t.time_cycles = pd_u64(r + 32);
		t.time_mask = pd_u64(r + 40);
		t.cap_user_time_zero = r[48] != 0;
		t.cap_user_time_short = r[49] != 0;
	}
	pd->time_conv = t;
	pd->has_time_conv = true;
	return 0;
}

static int do_header_attr(struct pev_perfdata *pd, const struct pev_perfdata_record *rec,
			  struct pev_error *err)
{
	const unsigned char *r = (const unsigned char *)rec->header;

	if (rec->size < 8 + PEV_ATTR_SIZE_VER0)
		return bad_body(pd, rec, err, "%zu bytes, too short for an attribute block", rec->size);
	uint32_t asz = pd_u32(r + 12);
	size_t block = asz ? asz : PEV_ATTR_SIZE_VER0;
	if (block < PEV_ATTR_SIZE_VER0 || block > PD_ATTR_MAX || block > rec->size - 8)
		return bad_body(pd, rec, err,
				"its attribute block says it is %u bytes (64 to %d, within the "
				"record's %zu)",
				asz, PD_ATTR_MAX, rec->size);
	size_t rest = rec->size - 8 - block;
	if (rest % 8)
		return bad_body(pd, rec, err, "the %zu bytes after its attribute block are not whole ids",
				rest);
	if (!pev__pd_event_add(pd, r + 8, block, r + 8 + block, rest / 8, err))
		return PEV_ENOMEM;
	pev__pd_features_apply(pd);
	return 0;
}

static int do_header_feature(struct pev_perfdata *pd, const struct pev_perfdata_record *rec,
			     struct pev_error *err)
{
	const unsigned char *r = (const unsigned char *)rec->header;

	if (rec->size < 16)
		return bad_body(pd, rec, err, "%zu bytes, too short for a feature id", rec->size);
	uint64_t feat = pd_u64(r + 8);
	if (feat == 0 || feat >= PEV_HEADER_FEAT_BITS)
		return bad_body(pd, rec, err, "feature id %" PRIu64 " is not between 1 and %d", feat,
				PEV_HEADER_FEAT_BITS - 1);
	unsigned char *data = pev__pd_alloc(pd, rec->size - 16);
	if (!data)
		return pev__pd_fail(pd, err, PEV_ENOMEM, "record",
				    "out of memory for HEADER_FEATURE");
	memcpy(data, r + 16, rec->size - 16);
	int rc =
	    pev__pd_feature_parse(pd, (unsigned)feat, data, rec->size - 16, 0, rec->offset, err);
	if (rc == 0)
		pev__pd_features_apply(pd);
	return rc;
}

/* Copies the payload that follows a record into the arena (tracing data). */
static int read_payload(struct pev_perfdata *pd, uint64_t pos, uint64_t len, unsigned char *dst,
			struct pev_error *err)
{
	for (uint64_t done = 0; done < len;) {
		const unsigned char *p;
		size_t chunk = len - done < PD_RECORD_MAX ? (size_t)(len - done) : PD_RECORD_MAX;
		int64_t n = pev__pd_window(pd, pos + done, chunk, &p, err);
		if (n < 0)
			return (int)n;
		if (n == 0)
			return pev__pd_fail(pd, err, PEV_EFORMAT, "record",
					    "the data ends 0x%" PRIx64 " bytes into the 0x%" PRIx64
					    "-byte payload at offset 0x%" PRIx64,
					    done, len, pos);
		memcpy(dst + done, p, (size_t)n);
		done += (uint64_t)n;
	}
	return 0;
}

/* A record followed by bytes that are not records: AUXTRACE data, tracing data. */
static int payload(struct pev_perfdata *pd, struct pev_perfdata_record *rec, uint64_t len,
		   struct pev_error *err)
{
	uint64_t end;

	rec->payload_offset = pd->pos;
	rec->payload_size = len;
	if (!pd_add_ok(pd->pos, len, &end) || end > pd->end) {
		if (pd->recover) {
			pev__pd_note(pd,
				     "the file ends inside the payload of the %s record at offset "
				     "0x%" PRIx64 ": stopping there",
				     pev_perfdata_record_type_name(rec->type), rec->offset);
			pd->done = true;
			pd->pos = pd->end;
			return 0;
		}
		return pev__pd_fail(pd, err, PEV_EFORMAT, "record",
				    "%s record at offset 0x%" PRIx64 ": its 0x%" PRIx64
				    "-byte payload runs past the end of the data (0x%" PRIx64 ")",
				    pev_perfdata_record_type_name(rec->type), rec->offset, len,
				    pd->end);
	}
	/* The window moves below: the record must not live in it. */
	if ((const unsigned char *)rec->header != pd->scratch) {
		memcpy(pd->scratch, rec->header, rec->size);
		rec->header = (const struct pev_event_header *)pd->scratch;
	}
	if (rec->type == PEV_RECORD_HEADER_TRACING_DATA) {
		if (len > PD_SECTION_MAX)
			return pev__pd_fail(pd, err, PEV_EFORMAT, "record",
					    "HEADER_TRACING_DATA record at offset 0x%" PRIx64
					    ": 0x%" PRIx64
					    " bytes of tracing data, more than perfev "
					    "reads (0x%" PRIx64 ")",
					    rec->offset, len, PD_SECTION_MAX);
		unsigned char *data = pev__pd_alloc(pd, len);
		if (!data)
			return pev__pd_fail(pd, err, PEV_ENOMEM, "record",
					    "out of memory for tracing data");
		int rc = read_payload(pd, pd->pos, len, data, err);
		if (rc)
			return rc;
		pd->pos += len;
		return pev__pd_feature_parse(pd, PEV_HEADER_TRACING_DATA, data, len, 0, rec->offset,
					     err);
	}
	int rc = pev__pd_skip(pd, pd->pos, len, err);
	if (rc)
		return rc;
	pd->pos += len;
	return 0;
}

static int user_record(struct pev_perfdata *pd, struct pev_perfdata_record *rec,
		       struct pev_error *err)
{
	const unsigned char *r = (const unsigned char *)rec->header;
	char where[96];

	switch (rec->type) {
	case PEV_RECORD_HEADER_ATTR:
		return do_header_attr(pd, rec, err);
	case PEV_RECORD_HEADER_TRACING_DATA:
		if (rec->size < 12)
			return pev__pd_fail(pd, err, PEV_EFORMAT, "record",
					    "HEADER_TRACING_DATA record at offset 0x%" PRIx64
					    ": %zu bytes, too short for its size",
					    rec->offset, rec->size);
		return payload(pd, rec, pd_u32(r + 8), err);
	case PEV_RECORD_HEADER_BUILD_ID:
		snprintf(where, sizeof(where), "HEADER_BUILD_ID record at offset 0x%" PRIx64,
			 rec->offset);
		if (pd->flags & PEV_PERFDATA_LENIENT) {
			struct pev_error local;
			int rc = pev__pd_build_id_add(pd, r, rec->size, false, where, &local);
			if (rc == PEV_EFORMAT) {
				pev__pd_note(pd, "ignored: %s", local.message);
				return 0;
			}
			if (rc && err)
				*err = local;
			return rc;
		}
		return pev__pd_build_id_add(pd, r, rec->size, false, where, err);
	case PEV_RECORD_ID_INDEX:
		return do_id_index(pd, rec, err);
	case PEV_RECORD_AUXTRACE:
		if (rec->size < 16)
			return pev__pd_fail(pd, err, PEV_EFORMAT, "record",
					    "AUXTRACE record at offset 0x%" PRIx64
					    ": %zu bytes, too short for its size",
					    rec->offset, rec->size);
		return payload(pd, rec, pd_u64(r + 8), err);
	case PEV_RECORD_THREAD_MAP:
		return do_thread_map(pd, rec, err);
	case PEV_RECORD_CPU_MAP:
		return do_cpu_map(pd, rec, err);
	case PEV_RECORD_EVENT_UPDATE:
		return do_event_update(pd, rec, err);
	case PEV_RECORD_TIME_CONV:
		return do_time_conv(pd, rec, err);
	case PEV_RECORD_HEADER_FEATURE:
		return do_header_feature(pd, rec, err);
	case PEV_RECORD_COMPRESSED:
	case PEV_RECORD_COMPRESSED2: {
		int code = pev__pd_fail(pd, err, PEV_EUNSUPPORTED, "record",
					"%s record at offset 0x%" PRIx64
					": compressed (zstd) data is not supported",
					pev_perfdata_record_type_name(rec->type), rec->offset);
		pev__error_hint(err, "record without -z / --compression-level, or write an "
				     "uncompressed copy with 'perf inject -i FILE -o NEW'");
		return code;
	}
	case PEV_RECORD_HEADER_EVENT_TYPE:
	case PEV_RECORD_FINISHED_ROUND:
	case PEV_RECORD_AUXTRACE_INFO:
	case PEV_RECORD_AUXTRACE_ERROR:
	case PEV_RECORD_STAT_CONFIG:
	case PEV_RECORD_STAT:
	case PEV_RECORD_STAT_ROUND:
	case PEV_RECORD_FINISHED_INIT:
		return 0;
	default:
		note_type(pd, rec->type, rec->offset);
		return 0;
	}
}

/* ---- framing ------------------------------------------------------------------ */

/*
 * The end of a pipe-mode stream. A recorder that finishes a stream with
 * rounds, or with records after FINISHED_INIT, ends it with FINISHED_ROUND
 * (perf after its last pass over the rings, perfev's writer always); one
 * that is killed leaves another record last, or one cut short: the stream
 * is unfinished, read as far as it goes.
 */
static void pipe_ended(struct pev_perfdata *pd, bool cut, const char *how)
{
	pd->done = true;
	if (!cut && (!pd->expect_round || pd->last_type == PEV_RECORD_FINISHED_ROUND))
		return;
	pd->unfinished = true;
	pev__pd_note(pd, "%s: its recorder never finished the stream (killed?); stopping there",
		     how);
}

/* The data ended inside a record: an error, or the quiet end of a file not finalized. */
static int cut_short(struct pev_perfdata *pd, struct pev_error *err, const char *fmt, ...)
	PEV_PRINTF(3, 4);

static int cut_short(struct pev_perfdata *pd, struct pev_error *err, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (pd->recover) {
		pev__pd_note(pd, "%s: the recording was cut short there; stopping", what);
		pd->done = true;
		return 0;
	}
	if (pd->pipe) {
		pipe_ended(pd, true, what);
		return 0;
	}
	return pev__pd_fail(pd, err, PEV_EFORMAT, "record", "%s", what);
}

int pev__pd_record_read(struct pev_perfdata *pd, struct pev_perfdata_record *rec,
			struct pev_error *err)
{
	const unsigned char *p;
	int64_t n;

	memset(rec, 0, sizeof(*rec));
	if (pd->done)
		return 0;
	if (pd->pos >= pd->end) {
		if (pd->pipe)
			pipe_ended(pd, false, "the stream ends after a record other than FINISHED_ROUND");
		pd->done = true;
		return 0;
	}
	n = pev__pd_window(pd, pd->pos, 8, &p, err);
	if (n < 0)
		return (int)n;
	if (n == 0) {
		if (pd->kind != PD_SRC_STREAM && !pd->pipe && !pd->recover)
			return pev__pd_fail(
			    pd, err, PEV_EIO, "data",
			    "the file ended at offset 0x%" PRIx64
			    ", inside its data section (was it truncated while being "
			    "read?)",
			    pd->pos);
		if (pd->pipe)
			pipe_ended(pd, false, "the stream ends after a record other than FINISHED_ROUND");
		pd->done = true;
		return 0;
	}
	if (n < 8)
		return cut_short(pd, err,
				 "the data ends %" PRId64 " bytes into the header of a record at "
				 "offset 0x%" PRIx64,
				 n, pd->pos);
	uint32_t type = pd_u32(p);
	uint16_t size = pd_u16(p + 6);
	if (size < 8)
		return pev__pd_fail(pd, err, PEV_EFORMAT, "record",
				    "record at offset 0x%" PRIx64
				    " (type %u) has size %u, less than "
				    "its 8-byte header",
				    pd->pos, type, size);
	if (pd->end - pd->pos < size) {
		if (pd->pipe || pd->recover)
			return cut_short(pd, err,
					 "the data ends %" PRIu64 " bytes into a record of type %u "
					 "and size %u at offset 0x%" PRIx64,
					 pd->end - pd->pos, type, size, pd->pos);
		return pev__pd_fail(pd, err, PEV_EFORMAT, "record",
				    "record at offset 0x%" PRIx64
				    " (type %u, size %u) runs past the "
				    "end of the data section at 0x%" PRIx64,
				    pd->pos, type, size, pd->end);
	}
	n = pev__pd_window(pd, pd->pos, size, &p, err);
	if (n < 0)
		return (int)n;
	if (n < size)
		return cut_short(pd, err,
				 "the data ends %" PRId64 " bytes into a record of type %u and size "
				 "%u at offset 0x%" PRIx64,
				 n, type, size, pd->pos);
	if (!pd->scratch) {
		pd->scratch = malloc(PD_RECORD_MAX);
		if (!pd->scratch)
			return pev__pd_fail(pd, err, PEV_ENOMEM, "data",
					    "out of memory for a record");
	}
	if ((uintptr_t)p % 8) {
		memcpy(pd->scratch, p, size);
		p = pd->scratch;
	}
	rec->header = (const struct pev_event_header *)p;
	rec->size = size;
	rec->type = type;
	rec->offset = pd->pos;
	pd->pos += size;
	pd->expect_round |= type == PEV_RECORD_FINISHED_ROUND ||
			    pd->last_type == PEV_RECORD_FINISHED_INIT;
	pd->last_type = type;
	if (type >= PEV_RECORD_USER_TYPE_START) {
		int rc = user_record(pd, rec, err);
		return rc < 0 ? rc : 1;
	}
	if (type == 0 || type >= PEV_RECORD_KERNEL_MAX)
		note_type(pd, type, rec->offset);
	attribute(pd, rec);
	return 1;
}

PEV_API int pev_perfdata_next(struct pev_perfdata *pd, struct pev_perfdata_record *rec,
			      struct pev_error *err)
{
	struct pev_error local;
	struct pev_error *e = err ? err : &local;
	int rc;

	pev__error_clear(err);
	if (!pd || !rec)
		return pev__bad_arg(err, "pev_perfdata_next", pd ? "rec" : "pd",
				    "must not be NULL");
	if (pd->failed) {
		pev__error_start(err, pd->failed, 0, NULL, NULL, false);
		pev__error_field(err, pd->fail_field);
		pev__error_msg(err, "%s", pd->fail_msg);
		return pd->failed;
	}
	if (pev__pd_pipe_replay(pd, rec))
		return 1;
	rc = pev__pd_record_read(pd, rec, e);
	if (rc < 0) {
		pd->failed = rc;
		pev__strlcpy(pd->fail_msg, e->message, sizeof(pd->fail_msg));
		pev__strlcpy(pd->fail_field, e->field, sizeof(pd->fail_field));
	}
	return rc;
}
