/* SPDX-License-Identifier: MIT */
/*
 * record.c - the record decoder's entry points: the format derived from an
 * event's attributes, dispatch on the header's type, the records other than
 * SAMPLE (sample.c), the sample_id trailer, and the fast time and id reads.
 *
 * Every record other than SAMPLE is
 *   header, body, [sample_id trailer when the event has sample_id_all]
 * The trailer's size follows from sample_type, so it is read from the
 * record's end, and the body is what lies between. Bodies of fixed size must
 * match it exactly; bodies that end in a string (MMAP, MMAP2, COMM, KSYMBOL,
 * CGROUP) or in bytes (TEXT_POKE) may carry padding after it, which the
 * kernel adds to reach a whole word.
 *
 * A malformed record gives PEV_EFORMAT, and the failure path that finds the
 * fault says which in pev_last_error() (see pev__record_bad()).
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "sample/record_internal.h"
#include "core/error_internal.h"

/* ---- the format ---------------------------------------------------------------- */

static uint16_t words_of(uint64_t bits)
{
	return (uint16_t)(8 * __builtin_popcountll(bits));
}

static int format_build(struct pev_record_format *f, const struct pev_record_config *c)
{
	uint64_t st = c->sample_type;

	if ((st & ~PEV_SAMPLE_ALL) || (c->read_format & ~PEV_FORMAT_ALL) ||
	    (c->branch_sample_type & ~PEV_BRANCH_ALL))
		return PEV_EVERSION;
	memset(f, 0, sizeof(*f));
	f->sample_type = st;
	f->read_format = c->read_format;
	f->branch_sample_type = c->branch_sample_type;
	f->sample_regs_user = c->sample_regs_user;
	f->sample_regs_intr = c->sample_regs_intr;
	f->nr_regs_user = (uint32_t)__builtin_popcountll(c->sample_regs_user);
	f->nr_regs_intr = (uint32_t)__builtin_popcountll(c->sample_regs_intr);
	f->group_size = c->group_size;
	f->sample_id_all = c->sample_id_all;

	/* Where the fixed-size fields of a SAMPLE sit. */
	f->sample_id_fields = st & PEV__ID_FIELDS;
	f->prefix_size = (uint16_t)(8 + words_of(st & PEV__SAMPLE_PREFIX));
	f->min_size = (uint16_t)(f->prefix_size + (st & PEV_SAMPLE_CALLCHAIN ? 8 : 0));
	if (st & (PEV_SAMPLE_ADDR | PEV_SAMPLE_ID | PEV_SAMPLE_STREAM_ID))
		f->priv.prefix_kind = PEV__PREFIX_GENERAL;
	else
		f->priv.prefix_kind = (uint8_t)((st & PEV_SAMPLE_IDENTIFIER ? 1 : 0) |
						(st & PEV_SAMPLE_IP ? 2 : 0) |
						(st & PEV_SAMPLE_TID ? 4 : 0) |
						(st & PEV_SAMPLE_TIME ? 8 : 0) |
						(st & PEV_SAMPLE_CPU ? 16 : 0) |
						(st & PEV_SAMPLE_PERIOD ? 32 : 0));
	if (st & PEV_SAMPLE_TIME)
		f->sample_time_at = (uint16_t)(8 + words_of(st & (PEV_SAMPLE_IDENTIFIER |
								  PEV_SAMPLE_IP | PEV_SAMPLE_TID)));
	if (st & PEV_SAMPLE_IDENTIFIER)
		f->sample_id_at = 8;
	else if (st & PEV_SAMPLE_ID)
		f->sample_id_at = (uint16_t)(8 + words_of(st & (PEV_SAMPLE_IP | PEV_SAMPLE_TID |
								PEV_SAMPLE_TIME | PEV_SAMPLE_ADDR)));

	/* The trailer: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER, counted from the end. */
	if (c->sample_id_all) {
		f->id_fields = st & PEV__ID_FIELDS;
		f->id_size = words_of(f->id_fields);
		if (st & PEV_SAMPLE_TIME)
			f->trailer_time_back = (uint16_t)(f->id_size - words_of(st & PEV_SAMPLE_TID));
		if (st & PEV_SAMPLE_IDENTIFIER)
			f->trailer_id_back = 8;
		else if (st & PEV_SAMPLE_ID)
			f->trailer_id_back = (uint16_t)(f->id_size -
							words_of(st & (PEV_SAMPLE_TID | PEV_SAMPLE_TIME)));
	}
	return 0;
}

PEV_API int pev_record_format_init(struct pev_record_format *fmt,
				   const struct pev_record_config *cfg)
{
	struct pev_record_config c;

	static const char fn[] = "pev_record_format_init";
	int r;

	if (!fmt || !cfg)
		return pev__bad_arg(NULL, fn, fmt ? "cfg" : "fmt", "NULL");
	/* A newer caller's fields must be zero; an older caller's missing ones are. */
	if ((r = pev__opts_copy_sized(&c, sizeof(c), cfg, fn, "PEV_RECORD_CONFIG_INIT", NULL)) < 0)
		return r;
	return format_build(fmt, &c);
}

PEV_API int pev_record_format_from_attr(const struct pev_attr *attr,
					struct pev_record_format *fmt)
{
	struct pev_record_config c = PEV_RECORD_CONFIG_INIT;

	if (!attr || !fmt)
		return pev__bad_arg(NULL, "pev_record_format_from_attr", attr ? "fmt" : "attr",
				    "NULL");
	c.sample_type = attr->sample_type;
	c.read_format = attr->read_format;
	c.sample_id_all = !!(attr->flags & PEV_ATTR_SAMPLE_ID_ALL);
	c.branch_sample_type = attr->branch_sample_type;
	c.sample_regs_user = attr->sample_regs_user;
	c.sample_regs_intr = attr->sample_regs_intr;
	return format_build(fmt, &c);
}

/* ---- saying why a record is malformed ------------------------------------------ */

static bool known_type(uint32_t type)
{
	return type >= PEV_RECORD_MMAP && type < PEV_RECORD_KERNEL_MAX;
}

/*
 * Sets this thread's last error to PEV_EFORMAT with the message
 * "<func>: <TYPE> record of <size> bytes: [PEV_SAMPLE_<FIELD>: ]<reason>";
 * size 0 leaves out " of <size> bytes" (for a header whose size is the
 * fault). Returns PEV_EFORMAT.
 */
static int __attribute__((cold)) PEV_PRINTF(5, 0)
vreport(const char *func, uint32_t type, size_t size, const char *field, const char *fmt,
	va_list ap)
{
	char reason[PEV_ERROR_MESSAGE_MAX], bit[48] = "";

	vsnprintf(reason, sizeof(reason), fmt, ap);
	pev__error_start(NULL, PEV_EFORMAT, 0, NULL, NULL, false);
	if (field) {
		/* "callchain" -> "PEV_SAMPLE_CALLCHAIN: " */
		snprintf(bit, sizeof(bit), "PEV_SAMPLE_%s: ", field);
		for (char *c = bit; *c; c++)
			*c = (char)toupper((unsigned char)*c);
		pev__error_field(NULL, field);
	}
	if (known_type(type))
		pev__error_msg(NULL, "%s: %s record", func, pev_record_type_name(type));
	else
		pev__error_msg(NULL, "%s: record of unknown type %" PRIu32, func, type);
	if (size)
		pev__error_msg(NULL, " of %zu bytes", size);
	pev__error_msg(NULL, ": %s%s", bit, reason);
	return PEV_EFORMAT;
}

/* vreport() with the arguments given here. */
static int __attribute__((cold)) PEV_PRINTF(5, 6)
report(const char *func, uint32_t type, size_t size, const char *field, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(func, type, size, field, fmt, ap);
	va_end(ap);
	return PEV_EFORMAT;
}

int pev__record_bad(const unsigned char *rec, const char *field, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("pev_record_decode", pev__ld32(rec), pev__ld16(rec + 6), field, fmt, ap);
	va_end(ap);
	return PEV_EFORMAT;
}

int pev__record_no_room(const unsigned char *rec, const char *field, uint64_t count,
			const char *what, uint64_t per, size_t left)
{
	if (count > UINT64_MAX / per)
		return pev__record_bad(rec, field,
				       "%" PRIu64 " %s need 2^64 bytes or more, %zu remain", count,
				       what, left);
	return pev__record_bad(rec, field, "%" PRIu64 " %s need %" PRIu64 " bytes, %zu remain",
			       count, what, count * per, left);
}

/*
 * The header of the len bytes at p is at fault: fewer bytes than a header,
 * or a size below 8, above len or not a whole number of words.
 */
static int __attribute__((cold, noinline)) bad_header(const char *func, const unsigned char *p,
						      size_t len)
{
	struct pev_event_header h;

	if (len < sizeof(h)) {
		pev__error_start(NULL, PEV_EFORMAT, 0, NULL, NULL, false);
		pev__error_msg(NULL, "%s: %zu bytes given, fewer than the %zu of a record header",
			       func, len, sizeof(h));
		return PEV_EFORMAT;
	}
	memcpy(&h, p, sizeof(h));
	if (h.size < sizeof(h))
		return report(func, h.type, 0, NULL, "header size %u is below %zu",
			      (unsigned)h.size, sizeof(h));
	if (h.size > len)
		return report(func, h.type, 0, NULL, "header size %u is above the %zu bytes given",
			      (unsigned)h.size, len);
	return report(func, h.type, 0, NULL, "header size %u is not a multiple of 8",
		      (unsigned)h.size);
}

/* A record other than SAMPLE too short for the format's sample_id trailer. */
static int __attribute__((cold, noinline)) bad_trailer(const char *func, struct pev_event_header h,
						       unsigned id_size)
{
	return report(func, h.type, h.size, NULL,
		      "its %zu bytes after the header cannot hold the %u-byte sample_id trailer",
		      h.size - sizeof(h), id_size);
}

/* ---- bodies of the records other than SAMPLE ------------------------------------ */

/*
 * A NUL-terminated string (`what`, for the report) filling the n bytes at s
 * (with padding after the NUL) of the record at rec. Returns 0 or
 * PEV_EFORMAT when no NUL is there.
 */
static int take_string(const unsigned char *rec, const unsigned char *s, size_t n,
		       const char *what, const char **out, uint16_t *len)
{
	const unsigned char *nul = memchr(s, '\0', n);

	if (!nul) {
		if (!n)
			return pev__record_bad(rec, NULL, "it ends before its %s", what);
		return pev__record_bad(rec, NULL, "its %s has no NUL in its %zu bytes", what, n);
	}
	*out = (const char *)s;
	*len = (uint16_t)(nul - s);
	return 0;
}

/* The sample_id trailer (fields f->id_fields, f->id_size bytes) at t. */
static void decode_trailer(const struct pev_record_format *f, const unsigned char *t,
			   struct pev_sample_id *id)
{
	uint64_t st = f->id_fields, w;

	memset(id, 0, sizeof(*id));
	if (st & PEV_SAMPLE_TID) {
		w = pev__ld64(t);
		id->pid = (uint32_t)w;
		id->tid = (uint32_t)(w >> 32);
		t += 8;
	}
	if (st & PEV_SAMPLE_TIME) {
		id->time = pev__ld64(t);
		t += 8;
	}
	if (st & PEV_SAMPLE_ID) {
		id->id = pev__ld64(t);
		t += 8;
	}
	if (st & PEV_SAMPLE_STREAM_ID) {
		id->stream_id = pev__ld64(t);
		t += 8;
	}
	if (st & PEV_SAMPLE_CPU) {
		w = pev__ld64(t);
		id->cpu = (uint32_t)w;
		id->cpu_res = (uint32_t)(w >> 32);
		t += 8;
	}
	if (st & PEV_SAMPLE_IDENTIFIER)
		id->identifier = pev__ld64(t);
}

/* pid and tid, the first word of several bodies. */
static void take_pid_tid(const unsigned char *b, uint32_t *pid, uint32_t *tid)
{
	*pid = pev__ld32(b);
	*tid = pev__ld32(b + 4);
}

/* A body of n bytes (the trailer aside) where `want` are needed, exactly or at least. */
static int __attribute__((cold, noinline)) bad_body_size(const struct pev_record_format *f,
							 const unsigned char *p, size_t n,
							 bool exactly, size_t want)
{
	const char *how = exactly ? "exactly" : "at least";

	if (f->id_size)
		return pev__record_bad(p, NULL,
				       "its body is %zu bytes besides its %u-byte sample_id "
				       "trailer, %s %zu expected",
				       n, (unsigned)f->id_size, how, want);
	return pev__record_bad(p, NULL, "its body is %zu bytes, %s %zu expected", n, how, want);
}

/* Exactly `want` body bytes, or the record is malformed. */
#define BODY_IS(want)                                                                              \
	do {                                                                                       \
		if (n != (want))                                                                   \
			return bad_body_size(f, p, n, true, (want));                               \
	} while (0)

/* At least `want` body bytes before a string or byte array. */
#define BODY_AT_LEAST(want)                                                                        \
	do {                                                                                       \
		if (n < (want))                                                                    \
			return bad_body_size(f, p, n, false, (want));                              \
	} while (0)

/* The body of the record at p other than SAMPLE: n bytes after its header. */
static int decode_body(const struct pev_record_format *f, uint32_t type, uint16_t misc,
		       const unsigned char *p, size_t n, struct pev_record *r)
{
	const unsigned char *b = p + sizeof(struct pev_event_header);

	switch (type) {
	case PEV_RECORD_MMAP: {
		struct pev_record_mmap *m = &r->mmap;
		BODY_AT_LEAST(32);
		memset(m, 0, sizeof(*m));
		take_pid_tid(b, &m->pid, &m->tid);
		m->addr = pev__ld64(b + 8);
		m->len = pev__ld64(b + 16);
		m->pgoff = pev__ld64(b + 24);
		return take_string(p, b + 32, n - 32, "filename", &m->filename, &m->filename_len);
	}
	case PEV_RECORD_MMAP2: {
		struct pev_record_mmap2 *m = &r->mmap2;
		BODY_AT_LEAST(64);
		memset(m, 0, sizeof(*m));
		take_pid_tid(b, &m->pid, &m->tid);
		m->addr = pev__ld64(b + 8);
		m->len = pev__ld64(b + 16);
		m->pgoff = pev__ld64(b + 24);
		if (misc & PEV_RECORD_MISC_MMAP_BUILD_ID) {
			m->has_build_id = true;
			m->build_id_size = b[32];
			if (m->build_id_size > PEV_MMAP2_BUILD_ID_MAX)
				return pev__record_bad(p, NULL, "build id size %u is above %d",
						       (unsigned)m->build_id_size,
						       PEV_MMAP2_BUILD_ID_MAX);
			m->build_id = b + 36;
		} else {
			m->maj = pev__ld32(b + 32);
			m->min = pev__ld32(b + 36);
			m->ino = pev__ld64(b + 40);
			m->ino_generation = pev__ld64(b + 48);
		}
		m->prot = pev__ld32(b + 56);
		m->flags = pev__ld32(b + 60);
		return take_string(p, b + 64, n - 64, "filename", &m->filename, &m->filename_len);
	}
	case PEV_RECORD_LOST:
		BODY_IS(16);
		r->lost.id = pev__ld64(b);
		r->lost.lost = pev__ld64(b + 8);
		return 0;
	case PEV_RECORD_COMM:
		BODY_AT_LEAST(8);
		memset(&r->comm, 0, sizeof(r->comm));
		take_pid_tid(b, &r->comm.pid, &r->comm.tid);
		return take_string(p, b + 8, n - 8, "comm", &r->comm.comm, &r->comm.comm_len);
	case PEV_RECORD_EXIT:
	case PEV_RECORD_FORK:
		BODY_IS(24);
		r->task.pid = pev__ld32(b);
		r->task.ppid = pev__ld32(b + 4);
		r->task.tid = pev__ld32(b + 8);
		r->task.ptid = pev__ld32(b + 12);
		r->task.time = pev__ld64(b + 16);
		return 0;
	case PEV_RECORD_THROTTLE:
	case PEV_RECORD_UNTHROTTLE:
		BODY_IS(24);
		r->throttle.time = pev__ld64(b);
		r->throttle.id = pev__ld64(b + 8);
		r->throttle.stream_id = pev__ld64(b + 16);
		return 0;
	case PEV_RECORD_READ: {
		BODY_AT_LEAST(8);
		memset(&r->read, 0, sizeof(r->read));
		take_pid_tid(b, &r->read.pid, &r->read.tid);
		int used = pev__read_block_decode(f->read_format, f->group_size, p, b + 8, n - 8,
						  &r->read.values);
		if (used < 0)
			return used;
		if ((size_t)used != n - 8)
			return pev__record_bad(p, NULL,
					       "%zu bytes are left over after its values "
					       "(read_format 0x%" PRIx64 ")",
					       n - 8 - (size_t)used, f->read_format);
		return 0;
	}
	case PEV_RECORD_AUX:
		BODY_IS(24);
		r->aux.aux_offset = pev__ld64(b);
		r->aux.aux_size = pev__ld64(b + 8);
		r->aux.flags = pev__ld64(b + 16);
		return 0;
	case PEV_RECORD_ITRACE_START:
		BODY_IS(8);
		take_pid_tid(b, &r->itrace_start.pid, &r->itrace_start.tid);
		return 0;
	case PEV_RECORD_LOST_SAMPLES:
		BODY_IS(8);
		r->lost_samples.lost = pev__ld64(b);
		return 0;
	case PEV_RECORD_SWITCH:
		BODY_IS(0);
		r->sw.next_prev_pid = r->sw.next_prev_tid = 0;
		return 0;
	case PEV_RECORD_SWITCH_CPU_WIDE:
		BODY_IS(8);
		take_pid_tid(b, &r->sw.next_prev_pid, &r->sw.next_prev_tid);
		return 0;
	case PEV_RECORD_NAMESPACES: {
		struct pev_record_namespaces *ns = &r->namespaces;
		BODY_AT_LEAST(16);
		take_pid_tid(b, &ns->pid, &ns->tid);
		ns->nr = pev__ld64(b + 8);
		if (ns->nr > (n - 16) / sizeof(struct pev_ns_link_info))
			return pev__record_no_room(p, NULL, ns->nr, "namespace links",
						   sizeof(struct pev_ns_link_info), n - 16);
		if (16 + ns->nr * sizeof(struct pev_ns_link_info) != n)
			return pev__record_bad(p, NULL,
					       "%zu bytes are left over after its %" PRIu64
					       " namespace links",
					       n - 16 - ns->nr * sizeof(struct pev_ns_link_info),
					       ns->nr);
		ns->link = ns->nr ? (const struct pev_ns_link_info *)(const void *)(b + 16) : NULL;
		return 0;
	}
	case PEV_RECORD_KSYMBOL: {
		struct pev_record_ksymbol *k = &r->ksymbol;
		BODY_AT_LEAST(16);
		memset(k, 0, sizeof(*k));
		k->addr = pev__ld64(b);
		k->len = pev__ld32(b + 8);
		k->ksym_type = pev__ld16(b + 12);
		k->flags = pev__ld16(b + 14);
		return take_string(p, b + 16, n - 16, "name", &k->name, &k->name_len);
	}
	case PEV_RECORD_BPF_EVENT:
		BODY_IS(8 + PEV_BPF_TAG_SIZE);
		r->bpf_event.type = pev__ld16(b);
		r->bpf_event.flags = pev__ld16(b + 2);
		r->bpf_event.id = pev__ld32(b + 4);
		r->bpf_event.tag = b + 8;
		return 0;
	case PEV_RECORD_CGROUP:
		BODY_AT_LEAST(8);
		memset(&r->cgroup, 0, sizeof(r->cgroup));
		r->cgroup.id = pev__ld64(b);
		return take_string(p, b + 8, n - 8, "path", &r->cgroup.path, &r->cgroup.path_len);
	case PEV_RECORD_TEXT_POKE: {
		struct pev_record_text_poke *t = &r->text_poke;
		BODY_AT_LEAST(12);
		t->addr = pev__ld64(b);
		t->old_len = pev__ld16(b + 8);
		t->new_len = pev__ld16(b + 10);
		if ((size_t)t->old_len + t->new_len > n - 12)
			return pev__record_bad(p, NULL,
					       "its old and new bytes (%u + %u) run past the %zu "
					       "bytes that remain",
					       (unsigned)t->old_len, (unsigned)t->new_len, n - 12);
		t->old_bytes = t->old_len ? b + 12 : NULL;
		t->new_bytes = t->new_len ? b + 12 + t->old_len : NULL;
		return 0;
	}
	case PEV_RECORD_AUX_OUTPUT_HW_ID:
		BODY_IS(8);
		r->aux_output_hw_id.hw_id = pev__ld64(b);
		return 0;
	default: /* not reached: the caller handles unknown types */
		return pev__record_bad(p, NULL, "the decoder has no case for this type");
	}
}

/* ---- the entry point ------------------------------------------------------------- */

/* The header's three fields sit in the record as in struct pev_event_header. */
_Static_assert(offsetof(struct pev_record, misc) == offsetof(struct pev_record, type) + 4 &&
		       offsetof(struct pev_record, size) == offsetof(struct pev_record, type) + 6,
	       "pev_record starts like pev_event_header");

/* Any record but a SAMPLE, its header checked: kept out of the SAMPLE path. */
static int __attribute__((noinline)) decode_other(const struct pev_record_format *fmt,
						  const unsigned char *p, struct pev_event_header h,
						  struct pev_record *out)
{
	if (!known_type(h.type)) {
		out->id_fields = 0;
		memset(&out->sample_id, 0, sizeof(out->sample_id));
		out->unknown.data = p + sizeof(h);
		out->unknown.size = h.size - sizeof(h);
		return h.size;
	}
	size_t body = h.size - sizeof(h);
	if (body < fmt->id_size)
		return bad_trailer("pev_record_decode", h, fmt->id_size);
	body -= fmt->id_size;
	out->id_fields = fmt->id_fields;
	decode_trailer(fmt, p + h.size - fmt->id_size, &out->sample_id);
	int e = decode_body(fmt, h.type, h.misc, p, body, out);
	return e ? e : h.size;
}

/*
 * Aligned to a cache line: the SAMPLE path is some 70 instructions, and
 * where it falls relative to 32- and 64-byte boundaries decides how fast
 * the CPU's front end feeds it (on CPUs with the JCC-erratum microcode, a
 * branch that crosses or ends on a 32-byte boundary is not cached
 * decoded). Measured with bench_decode: 30% faster aligned than at the
 * 16-byte boundary the linker happened to give it.
 */
__attribute__((aligned(64))) PEV_API int pev_record_decode(const struct pev_record_format *fmt,
							   const void *bytes, size_t len,
							   struct pev_record *out)
{
	const unsigned char *p = bytes;
	struct pev_event_header h;

	if (__builtin_expect(!fmt, 0) || __builtin_expect(!out, 0) ||
	    __builtin_expect(!bytes || ((uintptr_t)bytes & 7), 0))
		return pev__bad_arg(NULL, "pev_record_decode", !fmt ? "fmt" : !out ? "out" : "bytes",
				    "%s", bytes || !fmt || !out ? "not 8-byte aligned" : "NULL");
	out->bytes = bytes;
	if (__builtin_expect(len < sizeof(h), 0)) {
		memset(&h, 0, sizeof(h));
		memcpy(&out->type, &h, sizeof(h));
		return bad_header("pev_record_decode", p, len);
	}
	memcpy(&h, p, sizeof(h));
	memcpy(&out->type, &h, sizeof(h)); /* type, misc, size */
	/*
	 * 8 <= size <= len (one comparison: a size below 8 wraps around), and
	 * a whole number of words, as the kernel keeps every record.
	 */
	if (__builtin_expect((size_t)h.size - sizeof(h) > len - sizeof(h) || (h.size & 7), 0))
		return bad_header("pev_record_decode", p, len);
	if (__builtin_expect(h.type != PEV_RECORD_SAMPLE, 0))
		return decode_other(fmt, p, h, out);
	return pev__sample_decode(fmt, p, h.size, out);
}

/* ---- reading one field without decoding ------------------------------------------ */

/* A SAMPLE of `size` bytes that ends before the word at `at` that peek() reads. */
static int __attribute__((cold, noinline)) bad_peek(const char *func,
						    const struct pev_record_format *fmt,
						    bool is_time, size_t size, unsigned at)
{
	const char *field = "time";

	if (!is_time)
		field = fmt->sample_type & PEV_SAMPLE_IDENTIFIER ? "identifier" : "id";
	return report(func, PEV_RECORD_SAMPLE, size, field,
		      "its word at bytes %u..%u lies past the record's end", at, at + 7);
}

/*
 * The word `at` bytes from the start of a SAMPLE or `back` bytes before the
 * end of another record (0: the format has no such field): the time, or
 * (is_time false) the id. Returns 1, 0 or a code.
 */
static int peek(const char *func, bool is_time, const struct pev_record_format *fmt,
		const void *bytes, size_t len, uint16_t sample_at, uint16_t back, uint64_t *out)
{
	const unsigned char *p = bytes;
	struct pev_event_header h;

	if (!fmt || !bytes || !out)
		return pev__bad_arg(NULL, func, !fmt ? "fmt" : !bytes ? "bytes" : "out", "NULL");
	if (len < sizeof(h))
		return bad_header(func, p, len);
	memcpy(&h, p, sizeof(h));
	if (h.size < sizeof(h) || h.size > len || (h.size & 7))
		return bad_header(func, p, len);
	if (h.type == PEV_RECORD_SAMPLE) {
		if (!sample_at)
			return 0;
		if ((size_t)sample_at + 8 > h.size)
			return bad_peek(func, fmt, is_time, h.size, sample_at);
		*out = pev__ld64(p + sample_at);
		return 1;
	}
	if (!known_type(h.type) || !back)
		return 0;
	if (h.size < sizeof(h) + fmt->id_size)
		return bad_trailer(func, h, fmt->id_size);
	*out = pev__ld64(p + h.size - back);
	return 1;
}

PEV_API int pev_record_time(const struct pev_record_format *fmt, const void *bytes, size_t len,
			    uint64_t *time)
{
	return peek("pev_record_time", true, fmt, bytes, len, fmt ? fmt->sample_time_at : 0,
		    fmt ? fmt->trailer_time_back : 0, time);
}

PEV_API int pev_record_id(const struct pev_record_format *fmt, const void *bytes, size_t len,
			  uint64_t *id)
{
	return peek("pev_record_id", false, fmt, bytes, len, fmt ? fmt->sample_id_at : 0,
		    fmt ? fmt->trailer_id_back : 0, id);
}

/* ---- names and misc flags ------------------------------------------------------------ */

static const char *const type_names[PEV_RECORD_KERNEL_MAX] = {
	[PEV_RECORD_MMAP] = "MMAP",
	[PEV_RECORD_LOST] = "LOST",
	[PEV_RECORD_COMM] = "COMM",
	[PEV_RECORD_EXIT] = "EXIT",
	[PEV_RECORD_THROTTLE] = "THROTTLE",
	[PEV_RECORD_UNTHROTTLE] = "UNTHROTTLE",
	[PEV_RECORD_FORK] = "FORK",
	[PEV_RECORD_READ] = "READ",
	[PEV_RECORD_SAMPLE] = "SAMPLE",
	[PEV_RECORD_MMAP2] = "MMAP2",
	[PEV_RECORD_AUX] = "AUX",
	[PEV_RECORD_ITRACE_START] = "ITRACE_START",
	[PEV_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
	[PEV_RECORD_SWITCH] = "SWITCH",
	[PEV_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
	[PEV_RECORD_NAMESPACES] = "NAMESPACES",
	[PEV_RECORD_KSYMBOL] = "KSYMBOL",
	[PEV_RECORD_BPF_EVENT] = "BPF_EVENT",
	[PEV_RECORD_CGROUP] = "CGROUP",
	[PEV_RECORD_TEXT_POKE] = "TEXT_POKE",
	[PEV_RECORD_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID",
};

PEV_API const char *pev_record_type_name(uint32_t type)
{
	return known_type(type) ? type_names[type] : "UNKNOWN";
}

PEV_API unsigned pev_record_cpumode(const struct pev_record *r)
{
	return r ? r->misc & PEV_RECORD_MISC_CPUMODE_MASK : PEV_RECORD_MISC_CPUMODE_UNKNOWN;
}

PEV_API const char *pev_cpumode_name(unsigned cpumode)
{
	switch (cpumode) {
	case PEV_RECORD_MISC_KERNEL:
		return "kernel";
	case PEV_RECORD_MISC_USER:
		return "user";
	case PEV_RECORD_MISC_HYPERVISOR:
		return "hypervisor";
	case PEV_RECORD_MISC_GUEST_KERNEL:
		return "guest-kernel";
	case PEV_RECORD_MISC_GUEST_USER:
		return "guest-user";
	default:
		return "unknown";
	}
}

/* True when r is of type a or b and has misc bit `bit`. */
static bool misc_bit(const struct pev_record *r, uint32_t a, uint32_t b, unsigned bit)
{
	return r && (r->type == a || r->type == b) && (r->misc & bit);
}

PEV_API bool pev_record_exact_ip(const struct pev_record *r)
{
	return misc_bit(r, PEV_RECORD_SAMPLE, PEV_RECORD_SAMPLE, PEV_RECORD_MISC_EXACT_IP);
}

PEV_API bool pev_record_mmap_data(const struct pev_record *r)
{
	return misc_bit(r, PEV_RECORD_MMAP, PEV_RECORD_MMAP2, PEV_RECORD_MISC_MMAP_DATA);
}

PEV_API bool pev_record_mmap_build_id(const struct pev_record *r)
{
	return misc_bit(r, PEV_RECORD_MMAP2, PEV_RECORD_MMAP2, PEV_RECORD_MISC_MMAP_BUILD_ID);
}

PEV_API bool pev_record_comm_exec(const struct pev_record *r)
{
	return misc_bit(r, PEV_RECORD_COMM, PEV_RECORD_COMM, PEV_RECORD_MISC_COMM_EXEC);
}

PEV_API bool pev_record_switch_out(const struct pev_record *r)
{
	return misc_bit(r, PEV_RECORD_SWITCH, PEV_RECORD_SWITCH_CPU_WIDE,
			PEV_RECORD_MISC_SWITCH_OUT);
}

PEV_API bool pev_record_switch_preempt(const struct pev_record *r)
{
	return pev_record_switch_out(r) && (r->misc & PEV_RECORD_MISC_SWITCH_OUT_PREEMPT);
}
