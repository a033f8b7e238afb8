/* SPDX-License-Identifier: MIT */
/*
 * report_otlp.c - the profile as OpenTelemetry profiles (OTLP, signal
 * version v1development): one ExportProfilesServiceRequest
 * (src/report/otlp_service.proto and the files it imports).
 *
 * The request holds one resource (host.name, service.name and, when every
 * sample written is one process's, process.pid, process.executable.name
 * and .path), one scope ("perfev", its version) and one Profile per event
 * written. Every profile refers to one dictionary, each of whose tables
 * starts with its zero entry and holds each value once:
 *
 *   strings     every name, key and unit, "" first;
 *   mappings    one per DSO (its range and file offset as pprof's, see
 *               report_pprof.c), filename and the attribute
 *               process.executable.build_id.gnu when its build id is known;
 *   functions   (name, system name, source file) of the resolved frames;
 *   locations   a code address (its DSO offset when known, as pprof's)
 *               with its mapping, its lines (inlined functions innermost
 *               first, the function holding them last) and the attribute
 *               profile.frame.type: "kernel" or "native";
 *   stacks      location indices, leaf first;
 *   attributes  key, value (string or int) pairs by value;
 *   links       only the zero link (16 and 8 zero bytes).
 *
 * A Profile's samples are its event's, merged by (stack, attributes). The
 * per-sample attributes come from one table (sample_attrs below): a new
 * field of the samples becomes one with one line there. Values: where the
 * profile keeps its timeline and knows when it started, every
 * observation's weight with its time (UTC: the start pev_profile_time
 * gives is the first sample's time), in time order, else one value per
 * sample: the sum of its periods.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/pprof_shim.h"

#include "core/error_internal.h"
#include "perfev/common.h"
#include "report/otlp_service.pb-c.h"
#include "report/report_dl.h"
#include "report/report_internal.h"
#include "report/report_otlp.h"
#include "perfev/cgroup.h"

/* The generated names (c_package in the .proto files): the profiles and common packages'. */
#define P_(name) Pev__Otlp__Profiles__##name
#define p_init(name, msg) pev__otlp__profiles__##name##__init(msg)
#define C_(name) Pev__Otlp__Common__##name
#define c_init(name, msg) pev__otlp__common__##name##__init(msg)
typedef Pev__Otlp__Collector__ExportProfilesServiceRequest Request;

/* ---- interning keys of 32-bit words ------------------------------------------------ */

/* Keys of any length kept once each; a key's index is its order of arrival. */
struct ktab {
	uint32_t *w; /* every key's words, one key after the other */
	size_t nw, cap_w;
	uint32_t *off; /* key i is w[off[i] .. off[i + 1]) */
	uint32_t n;
	size_t cap_off;
	struct pev__idset set; /* ids: index + 1 */
};

struct kq {
	const uint32_t *k;
	uint32_t n;
};

static bool ktab_eq(const void *owner, uint32_t id, const void *key)
{
	const struct ktab *t = owner;
	const struct kq *q = key;
	uint32_t lo = t->off[id - 1], hi = t->off[id];

	if (hi - lo != q->n)
		return false;
	return q->n == 0 || memcmp(t->w + lo, q->k, q->n * sizeof(*q->k)) == 0;
}

static const uint32_t *ktab_key(const struct ktab *t, uint32_t i, uint32_t *n)
{
	*n = t->off[i + 1] - t->off[i];
	return *n ? t->w + t->off[i] : NULL; /* no words yet: w may be NULL */
}

/* The index of key k (n words), added when new. 0 or -ENOMEM. */
static int ktab_intern(struct ktab *t, const uint32_t *k, uint32_t n, uint32_t *index)
{
	struct kq q = {k, n};
	uint32_t h = (uint32_t)pev__hash_bytes(PEV__HASH_SEED, k, n * sizeof(*k)), id;

	if ((id = pev__idset_find(&t->set, h, ktab_eq, t, &q))) {
		*index = id - 1;
		return 0;
	}
	/* Indices go out as int32. */
	if (t->n >= INT32_MAX - 1 || t->nw + n >= UINT32_MAX ||
	    pev__grow((void **)&t->off, &t->cap_off, (size_t)t->n + 2, sizeof(*t->off)) ||
	    pev__grow((void **)&t->w, &t->cap_w, t->nw + n, sizeof(*t->w)) ||
	    pev__idset_add(&t->set, h, t->n + 1))
		return -ENOMEM;
	if (n)
		memcpy(t->w + t->nw, k, n * sizeof(*k));
	t->off[t->n] = (uint32_t)t->nw;
	t->nw += n;
	t->off[t->n + 1] = (uint32_t)t->nw;
	*index = t->n++;
	return 0;
}

static void ktab_free(struct ktab *t)
{
	free(t->w);
	free(t->off);
	pev__idset_free(&t->set);
	memset(t, 0, sizeof(*t));
}

/* ---- the builder ------------------------------------------------------------------- */

/* Attribute values: a string (an id in vals) or an integer. */
enum { KIND_STR = 1, KIND_INT = 2 };

struct mapping {
	uint32_t dso;    /* profile string id */
	uint64_t lo, hi; /* addresses seen; lo > hi: none */
	bool offsets;    /* they are offsets in the file */
};

struct builder {
	const struct pev_profile *p;
	unsigned flags, labels;
	struct pev__strtab st;   /* string_table: index = id - 1 */
	uint32_t *str_index;     /* profile string id -> st id, 0: not yet */
	struct pev__strtab vals; /* attribute string values, kept once (not written as a table) */
	struct ktab attrs;       /* attribute_table: key, kind, value (2 words) */
	struct ktab fns;         /* function_table: name, system name, file */
	struct ktab locs;        /* location_table: mapping, address (2), type, (function, line)* */
	struct ktab stacks;      /* stack_table: location indices, leaf first */
	struct ktab asets;       /* sets of sample attributes: attribute indices */
	uint32_t *fn_of_frame;   /* frame id -> function index (0: not yet) */
	uint32_t *dso_mapping;   /* profile string id -> mapping index (0: not yet) */
	struct mapping *map;     /* map[0]: the zero mapping */
	uint32_t nr_map;
	size_t cap_map;
	uint32_t frame_type[2];  /* attribute of profile.frame.type native, kernel (0: not yet) */
	void **mem;              /* what the message points to, freed at the end */
	size_t nr_mem, cap_mem;
};

/* calloc of n elements (never of zero bytes) freed with the builder; NULL when out of memory. */
static void *balloc(struct builder *b, size_t n, size_t size)
{
	void *m;

	if (pev__grow((void **)&b->mem, &b->cap_mem, b->nr_mem + 1, sizeof(*b->mem)))
		return NULL;
	if (!(m = calloc(n ? n : 1, size)))
		return NULL;
	b->mem[b->nr_mem++] = m;
	return m;
}

#define BALLOC(b, ptr, n) ((ptr) = balloc((b), (n), sizeof(*(ptr))))

/* text as valid UTF-8 (protobuf's strings must be), in the builder's memory. */
static char *utf8(struct builder *b, const char *text)
{
	size_t n = pev_text_utf8(NULL, 0, text);
	char *t = balloc(b, n + 1, 1);

	if (t)
		pev_text_utf8(t, n + 1, text);
	return t;
}

/* Interns text as valid UTF-8 into t. */
static int intern_utf8(struct pev__strtab *t, const char *text, uint32_t *id)
{
	char small[512], *s = small;
	size_t n = pev_text_utf8(small, sizeof(small), text ? text : "");
	int r;

	if (n >= sizeof(small)) {
		if (!(s = malloc(n + 1)))
			return -ENOMEM;
		pev_text_utf8(s, n + 1, text);
	}
	r = pev__strtab_intern_str(t, s, id);
	if (s != small)
		free(s);
	return r;
}

/* The string_table index of text (NULL: ""). */
static int str_of(struct builder *b, const char *text, uint32_t *index)
{
	uint32_t id;

	if (intern_utf8(&b->st, text, &id))
		return -ENOMEM;
	*index = id - 1;
	return 0;
}

/* The string_table index of a profile string id (0: ""). */
static int str_of_id(struct builder *b, uint32_t sid, uint32_t *index)
{
	if (!sid) {
		*index = 0;
		return 0;
	}
	if (!b->str_index[sid] && intern_utf8(&b->st, pev__strtab_get(&b->p->str, sid),
					       &b->str_index[sid]))
		return -ENOMEM;
	*index = b->str_index[sid] - 1;
	return 0;
}

/* The attribute_table index of (key, string value). */
static int attr_str(struct builder *b, const char *key, const char *value, uint32_t *index)
{
	uint32_t k[4] = {0, KIND_STR, 0, 0};

	if (str_of(b, key, &k[0]) || intern_utf8(&b->vals, value, &k[2]))
		return -ENOMEM;
	return ktab_intern(&b->attrs, k, 4, index);
}

/* The attribute_table index of (key, integer value). */
static int attr_int(struct builder *b, const char *key, int64_t value, uint32_t *index)
{
	uint32_t k[4] = {0, KIND_INT, (uint32_t)(uint64_t)value, (uint32_t)((uint64_t)value >> 32)};

	if (str_of(b, key, &k[0]))
		return -ENOMEM;
	return ktab_intern(&b->attrs, k, 4, index);
}

/* A frame's address in the profile: its offset in its DSO's file when known (as pprof's). */
static uint64_t frame_address(const struct pev__frame *f)
{
	return (f->flags & PEV_FRAME_DSO_OFFSET) ? f->dso_offset : f->address;
}

/* The function_table index of a resolved frame's function. */
static int function_of(struct builder *b, uint32_t frame, uint32_t *index)
{
	const struct pev__frame *f = &b->p->frames[frame];
	uint32_t k[3];

	if (b->fn_of_frame[frame]) {
		*index = b->fn_of_frame[frame];
		return 0;
	}
	/* The system name is the symbol's, which is what perfev keeps of it. */
	if (str_of_id(b, b->p->syms[f->sym].name, &k[0]) || str_of_id(b, f->file, &k[2]))
		return -ENOMEM;
	k[1] = k[0];
	if (ktab_intern(&b->fns, k, 3, index))
		return -ENOMEM;
	b->fn_of_frame[frame] = *index;
	return 0;
}

/* The mapping_table index of a frame's DSO (0: none), the addresses seen widened. */
static int mapping_of(struct builder *b, uint32_t frame, uint32_t *index)
{
	const struct pev__frame *f = &b->p->frames[frame];
	uint32_t dso = b->p->syms[f->sym].dso;
	struct mapping *m;

	*index = 0;
	if (!dso)
		return 0;
	if (!b->dso_mapping[dso]) {
		if (pev__grow((void **)&b->map, &b->cap_map, (size_t)b->nr_map + 1,
			      sizeof(*b->map)))
			return -ENOMEM;
		b->map[b->nr_map] = (struct mapping){dso, UINT64_MAX, 0, false};
		b->dso_mapping[dso] = b->nr_map++;
	}
	*index = b->dso_mapping[dso];
	m = &b->map[*index];
	m->offsets |= (f->flags & PEV_FRAME_DSO_OFFSET) != 0;
	if (frame_address(f) < m->lo)
		m->lo = frame_address(f);
	if (frame_address(f) > m->hi)
		m->hi = frame_address(f);
	return 0;
}

/* The location_table index of the frames st[i .. j]: i .. j-1 inlined into j. */
static int location_of(struct builder *b, const uint32_t *st, unsigned i, unsigned j,
		       uint32_t *key, uint32_t *index)
{
	const struct pev_profile *p = b->p;
	const struct pev__frame *f = &p->frames[st[j]];
	bool kernel = (f->flags & PEV_FRAME_KERNEL) != 0;
	uint32_t n = 4;
	uint64_t addr = frame_address(f);

	if (mapping_of(b, st[j], &key[0]))
		return -ENOMEM;
	key[1] = (uint32_t)addr;
	key[2] = (uint32_t)(addr >> 32);
	if (!b->frame_type[kernel] &&
	    attr_str(b, "profile.frame.type", kernel ? "kernel" : "native", &b->frame_type[kernel]))
		return -ENOMEM;
	key[3] = b->frame_type[kernel];
	for (unsigned k = i; k <= j; k++) {
		const struct pev__frame *g = &p->frames[st[k]];
		if (!p->syms[g->sym].name)
			continue; /* an unresolved address: no line */
		if (function_of(b, st[k], &key[n]))
			return -ENOMEM;
		if (!key[n])
			continue; /* a name that is "" and no file: Function{}, no function */
		key[n + 1] = g->line;
		n += 2;
	}
	return ktab_intern(&b->locs, key, n, index);
}

/* The stack_table index of sample s's stack (inline chains per the flags). */
static int stack_of(struct builder *b, const struct pev__sample *s, uint32_t *locs,
		    uint32_t *key, uint32_t *index)
{
	const struct pev_profile *p = b->p;
	const uint32_t *st = pev__sample_stack(p, s);
	unsigned n = 0, at = 0, first, last;

	while (pev__next_location(p, s, b->flags & PEV_REPORT_NO_INLINE, &at, &first, &last)) {
		if (location_of(b, st, first, last, key, &locs[n]))
			return -ENOMEM;
		n++;
	}
	return ktab_intern(&b->stacks, locs, n, index);
}

/* ---- per-sample attributes ---------------------------------------------------------- */

/* What a sample attribute's field of struct pev__sample holds. */
enum field_kind {
	FIELD_STR,    /* a string id (uint32_t); 0: none */
	FIELD_INT,    /* an int32_t */
	FIELD_INT_ID, /* an int32_t that is none when negative (a CPU) */
	FIELD_CONTAINER, /* a string id of a cgroup path: the container id it names, if any */
};

/*
 * The attributes of each sample (semantic-convention keys), in this order:
 * the key, the PEV_REPORT_LABEL_* bit that asks for it (0: always), and
 * the field of struct pev__sample it shows. A new one is one line.
 */
static const struct sample_attr {
	const char *key;
	unsigned label;
	enum field_kind kind;
	size_t offset;
} sample_attrs[] = {
	{"thread.name", PEV_REPORT_LABEL_COMM, FIELD_STR, offsetof(struct pev__sample, comm)},
	{"thread.id", PEV_REPORT_LABEL_TID, FIELD_INT, offsetof(struct pev__sample, tid)},
	{"process.pid", PEV_REPORT_LABEL_PID, FIELD_INT, offsetof(struct pev__sample, pid)},
	{"cpu.logical_number", PEV_REPORT_LABEL_CPU, FIELD_INT_ID,
	 offsetof(struct pev__sample, cpu)},
	{"process.linux.cgroup", PEV_REPORT_LABEL_CGROUP, FIELD_STR,
	 offsetof(struct pev__sample, cgroup)},
	{"container.id", PEV_REPORT_LABEL_CGROUP, FIELD_CONTAINER,
	 offsetof(struct pev__sample, cgroup)},
};
#define NR_SAMPLE_ATTRS (sizeof(sample_attrs) / sizeof(sample_attrs[0]))

/* The index of sample s's set of attributes (0: the empty set). */
static int attrset_of(struct builder *b, const struct pev__sample *s, uint32_t *index)
{
	uint32_t k[NR_SAMPLE_ATTRS], n = 0;

	for (size_t i = 0; i < NR_SAMPLE_ATTRS; i++) {
		const struct sample_attr *a = &sample_attrs[i];
		const char *field = (const char *)s + a->offset;
		uint32_t sid;
		int32_t v;
		int r;

		if (a->label && !(b->labels & a->label))
			continue;
		if (a->kind == FIELD_STR) {
			memcpy(&sid, field, sizeof(sid));
			if (!sid)
				continue;
			r = attr_str(b, a->key, pev__strtab_get(&b->p->str, sid), &k[n]);
		} else if (a->kind == FIELD_CONTAINER) {
			char id[65];
			memcpy(&sid, field, sizeof(sid));
			if (!sid ||
			    pev_cgroup_container_id(pev__strtab_get(&b->p->str, sid), id, sizeof(id)) != 1)
				continue;
			r = attr_str(b, a->key, id, &k[n]);
		} else {
			memcpy(&v, field, sizeof(v));
			if (a->kind == FIELD_INT_ID && v < 0)
				continue;
			r = attr_int(b, a->key, v, &k[n]);
		}
		if (r)
			return -ENOMEM;
		n++;
	}
	return ktab_intern(&b->asets, k, n, index);
}

/* ---- the profiles -------------------------------------------------------------------- */

/* Where each stored sample went in its event's profile, and what the timeline says of it. */
struct slots {
	uint32_t *sample;  /* slot -> sample index in its profile */
	uint32_t *tl_n;    /* slot -> timeline entries */
	uint64_t *tl_sum;  /* slot -> their summed weight */
};

/* An observation of a timed sample. */
struct obs {
	uint64_t time;
	int64_t value;
};

static int obs_cmp(const void *a, const void *b)
{
	const struct obs *x = a, *y = b;

	return pev__cmp_u64(x->time, y->time);
}

static int64_t i64(uint64_t v)
{
	return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* The sample type of event e: its value's type and unit. */
static const char *sample_type(const struct pev_profile *p, unsigned e, const char **unit)
{
	const struct pev__event *ev = &p->events[e];

	*unit = ev->unit == PEV_PROFILE_UNIT_NANOSECONDS ? "nanoseconds"
		: ev->unit == PEV_PROFILE_UNIT_BYTES    ? "bytes"
							: "count";
	if (ev->flags & PEV_PROFILE_EVENT_OFFCPU)
		return "off_cpu";
	if (ev->value_type)
		return pev__strtab_get(&p->str, ev->value_type);
	return ev->unit == PEV_PROFILE_UNIT_NANOSECONDS ? "cpu" : pev__event_name(p, e);
}

static int value_type(struct builder *b, const char *type, const char *unit, P_(ValueType) **out)
{
	P_(ValueType) *t;

	if (!BALLOC(b, t, 1))
		return -ENOMEM;
	p_init(value_type, t);
	if (str_of(b, type, (uint32_t *)&t->type_strindex) ||
	    str_of(b, unit, (uint32_t *)&t->unit_strindex))
		return -ENOMEM;
	*out = t;
	return 0;
}

/* Profile attribute indices into a new array of *n. */
static int profile_attrs(struct builder *b, unsigned e, int32_t **out, size_t *n)
{
	uint32_t idx;

	*n = 0;
	if (!BALLOC(b, *out, 2) || attr_str(b, "perfev.event", pev__event_name(b->p, e), &idx))
		return -ENOMEM;
	(*out)[(*n)++] = (int32_t)idx;
	if (b->p->lost) {
		if (attr_int(b, "perfev.lost_samples", i64(b->p->lost), &idx))
			return -ENOMEM;
		(*out)[(*n)++] = (int32_t)idx;
	}
	return 0;
}

/*
 * Builds event e's Profile into *out: its samples merged by (stack,
 * attribute set), timed (start: the wall clock at the first sample's
 * time) when every one of its samples is in the timeline.
 */
static int build_profile(struct builder *b, unsigned e, struct slots *sl, uint64_t start,
			 uint64_t duration, uint32_t *locs, uint32_t *key, P_(Profile) *out)
{
	const struct pev_profile *p = b->p;
	const struct pev__event *ev = &p->events[e];
	struct ktab samples = {0};
	uint64_t *sums = NULL, last = 0;
	size_t cap_sums = 0, *first = NULL, *fill = NULL, total = 0;
	bool timed = p->timeline && start && p->has_time;
	const char *type, *unit;
	int rc = -ENOMEM;

	p_init(profile, out);
	type = sample_type(p, e, &unit);
	if (value_type(b, type, unit, &out->sample_type))
		return -ENOMEM;
	if (ev->flags & PEV_PROFILE_EVENT_OFFCPU) {
		/* Sampled at every context switch (perfev record --off-cpu). */
		if (value_type(b, "context_switch", "count", &out->period_type))
			return -ENOMEM;
		out->period = 1;
	} else {
		out->period_type = out->sample_type;
		out->period = i64(ev->period    ? ev->period
				  : ev->samples ? ev->total / ev->samples
						: 0);
	}
	if (profile_attrs(b, e, &out->attribute_indices, &out->n_attribute_indices))
		return -ENOMEM;

	/* The samples, and whether the timeline holds each of them whole. */
	for (uint32_t si = 0; si < p->nr_samples; si++) {
		const struct pev__sample *s = &p->samples[si];
		uint32_t k[2];
		if (s->event != e)
			continue;
		if (stack_of(b, s, locs, key, &k[0]) || attrset_of(b, s, &k[1]) ||
		    ktab_intern(&samples, k, 2, &sl->sample[si]) ||
		    pev__grow((void **)&sums, &cap_sums, samples.n, sizeof(*sums)))
			goto out;
		if (sl->sample[si] == samples.n - 1)
			sums[sl->sample[si]] = 0;
		sums[sl->sample[si]] += s->period;
		if (sl->tl_n[si] != s->count || sl->tl_sum[si] != s->period)
			timed = false;
	}

	out->n_samples = samples.n;
	if (!BALLOC(b, out->samples, samples.n))
		goto out;
	if (timed) {
		/* Each sample's observations: first[k] .. first[k + 1] of one array. */
		struct obs *obs;
		if (!(first = calloc((size_t)samples.n + 1, sizeof(*first))) ||
		    !(fill = calloc((size_t)samples.n + 1, sizeof(*fill))))
			goto out;
		for (uint32_t si = 0; si < p->nr_samples; si++)
			if (p->samples[si].event == e)
				first[sl->sample[si] + 1] += sl->tl_n[si];
		for (uint32_t k = 0; k < samples.n; k++)
			first[k + 1] += first[k];
		total = first[samples.n];
		if (!BALLOC(b, obs, total))
			goto out;
		memcpy(fill, first, ((size_t)samples.n + 1) * sizeof(*fill));
		for (size_t i = 0; i < p->nr_tl; i++) {
			const struct pev__tl_entry *t = &p->tl[i];
			uint64_t at;
			if (p->samples[t->slot].event != e)
				continue;
			at = start + (t->time > p->min_time ? t->time - p->min_time : 0);
			if (at > last)
				last = at;
			obs[fill[sl->sample[t->slot]]++] = (struct obs){at, i64(t->weight)};
		}
		for (uint32_t k = 0; k < samples.n; k++) {
			P_(Sample) *x;
			size_t n = first[k + 1] - first[k];
			if (!BALLOC(b, x, 1))
				goto out;
			p_init(sample, x);
			qsort(obs + first[k], n, sizeof(*obs), obs_cmp);
			if (!BALLOC(b, x->values, n) || !BALLOC(b, x->timestamps_unix_nano, n))
				goto out;
			for (size_t i = 0; i < n; i++) {
				x->values[i] = obs[first[k] + i].value;
				x->timestamps_unix_nano[i] = obs[first[k] + i].time;
			}
			x->n_values = x->n_timestamps_unix_nano = n;
			out->samples[k] = x;
		}
	} else {
		for (uint32_t k = 0; k < samples.n; k++) {
			P_(Sample) *x;
			if (!BALLOC(b, x, 1))
				goto out;
			p_init(sample, x);
			if (!BALLOC(b, x->values, 1))
				goto out;
			x->values[0] = i64(sums[k]);
			x->n_values = 1;
			out->samples[k] = x;
		}
	}
	/* Stacks and attribute sets. */
	for (uint32_t k = 0; k < samples.n; k++) {
		P_(Sample) *x = out->samples[k];
		uint32_t n, an;
		const uint32_t *sk = ktab_key(&samples, k, &n);
		const uint32_t *as = ktab_key(&b->asets, sk[1], &an);
		x->stack_index = (int32_t)sk[0];
		if (!BALLOC(b, x->attribute_indices, an))
			goto out;
		for (uint32_t i = 0; i < an; i++)
			x->attribute_indices[i] = (int32_t)as[i];
		x->n_attribute_indices = an;
	}
	out->time_unix_nano = start;
	/* Every timestamp in [time, time + duration): one past the last at least. */
	out->duration_nano =
		timed && total && last - start >= duration ? last - start + 1 : duration;
	rc = 0;
out:
	free(first);
	free(fill);
	free(sums);
	ktab_free(&samples);
	return rc;
}

/* ---- the dictionary --------------------------------------------------------------------- */

static int build_mappings(struct builder *b, P_(ProfilesDictionary) *d)
{
	const struct pev_profile *p = b->p;

	if (!BALLOC(b, d->mapping_table, b->nr_map))
		return -ENOMEM;
	for (uint32_t i = 0; i < b->nr_map; i++) {
		P_(Mapping) *x;
		const struct mapping *y = &b->map[i];
		const struct pev__mapinfo *info = i ? pev__profile_mapinfo(p, y->dso) : NULL;
		uint32_t idx;

		if (!BALLOC(b, x, 1))
			return -ENOMEM;
		p_init(mapping, x);
		d->mapping_table[i] = x;
		if (!i)
			continue; /* the zero mapping */
		pev__mapping_range(info, y->lo, y->hi, y->offsets, &x->memory_start,
				   &x->memory_limit, &x->file_offset);
		if (str_of_id(b, y->dso, (uint32_t *)&x->filename_strindex))
			return -ENOMEM;
		if (info && info->build_id) {
			if (attr_str(b, "process.executable.build_id.gnu",
				     pev__strtab_get(&p->str, info->build_id), &idx) ||
			    !BALLOC(b, x->attribute_indices, 1))
				return -ENOMEM;
			x->attribute_indices[0] = (int32_t)idx;
			x->n_attribute_indices = 1;
		}
	}
	d->n_mapping_table = b->nr_map;
	return 0;
}

static int build_locations(struct builder *b, P_(ProfilesDictionary) *d)
{
	if (!BALLOC(b, d->location_table, b->locs.n))
		return -ENOMEM;
	for (uint32_t i = 0; i < b->locs.n; i++) {
		P_(Location) *x;
		uint32_t n;
		const uint32_t *k = ktab_key(&b->locs, i, &n);

		if (!BALLOC(b, x, 1))
			return -ENOMEM;
		p_init(location, x);
		d->location_table[i] = x;
		if (!n)
			continue; /* the zero location */
		x->mapping_index = (int32_t)k[0];
		x->address = (uint64_t)k[2] << 32 | k[1];
		if (!BALLOC(b, x->attribute_indices, 1))
			return -ENOMEM;
		x->attribute_indices[0] = (int32_t)k[3];
		x->n_attribute_indices = 1;
		x->n_lines = (n - 4) / 2;
		if (!BALLOC(b, x->lines, x->n_lines))
			return -ENOMEM;
		for (size_t l = 0; l < x->n_lines; l++) {
			P_(Line) *line;
			if (!BALLOC(b, line, 1))
				return -ENOMEM;
			p_init(line, line);
			line->function_index = (int32_t)k[4 + 2 * l];
			line->line = k[5 + 2 * l];
			x->lines[l] = line;
		}
	}
	d->n_location_table = b->locs.n;
	return 0;
}

static int build_tables(struct builder *b, P_(ProfilesDictionary) *d)
{
	P_(Link) *link;
	uint8_t *zeros;

	if (build_mappings(b, d) || build_locations(b, d))
		return -ENOMEM;
	/* Functions. */
	if (!BALLOC(b, d->function_table, b->fns.n))
		return -ENOMEM;
	for (uint32_t i = 0; i < b->fns.n; i++) {
		P_(Function) *x;
		uint32_t n;
		const uint32_t *k = ktab_key(&b->fns, i, &n);
		if (!BALLOC(b, x, 1))
			return -ENOMEM;
		p_init(function, x);
		x->name_strindex = (int32_t)k[0];
		x->system_name_strindex = (int32_t)k[1];
		x->filename_strindex = (int32_t)k[2];
		d->function_table[i] = x;
	}
	d->n_function_table = b->fns.n;
	/* Stacks. */
	if (!BALLOC(b, d->stack_table, b->stacks.n))
		return -ENOMEM;
	for (uint32_t i = 0; i < b->stacks.n; i++) {
		P_(Stack) *x;
		uint32_t n;
		const uint32_t *k = ktab_key(&b->stacks, i, &n);
		if (!BALLOC(b, x, 1))
			return -ENOMEM;
		p_init(stack, x);
		if (!BALLOC(b, x->location_indices, n))
			return -ENOMEM;
		for (uint32_t j = 0; j < n; j++)
			x->location_indices[j] = (int32_t)k[j];
		x->n_location_indices = n;
		d->stack_table[i] = x;
	}
	d->n_stack_table = b->stacks.n;
	/* Links: the zero one, of 16 and 8 zero bytes as strict codecs want. */
	if (!BALLOC(b, d->link_table, 1) || !BALLOC(b, link, 1) || !BALLOC(b, zeros, 16))
		return -ENOMEM;
	p_init(link, link);
	link->trace_id = (ProtobufCBinaryData){16, zeros};
	link->span_id = (ProtobufCBinaryData){8, zeros};
	d->link_table[0] = link;
	d->n_link_table = 1;
	/* Attributes (the last that adds strings). */
	if (!BALLOC(b, d->attribute_table, b->attrs.n))
		return -ENOMEM;
	for (uint32_t i = 0; i < b->attrs.n; i++) {
		P_(KeyValueAndUnit) *x;
		uint32_t n;
		const uint32_t *k = ktab_key(&b->attrs, i, &n);
		if (!BALLOC(b, x, 1))
			return -ENOMEM;
		p_init(key_value_and_unit, x);
		d->attribute_table[i] = x;
		if (!n)
			continue; /* the zero attribute */
		if (!BALLOC(b, x->value, 1))
			return -ENOMEM;
		c_init(any_value, x->value);
		x->key_strindex = (int32_t)k[0];
		if (k[1] == KIND_STR) {
			x->value->value_case = PEV__OTLP__COMMON__ANY_VALUE__VALUE_STRING_VALUE;
			x->value->string_value = (char *)pev__strtab_get(&b->vals, k[2]);
		} else {
			x->value->value_case = PEV__OTLP__COMMON__ANY_VALUE__VALUE_INT_VALUE;
			x->value->int_value = (int64_t)((uint64_t)k[3] << 32 | k[2]);
		}
	}
	d->n_attribute_table = b->attrs.n;
	/* Strings. */
	if (!BALLOC(b, d->string_table, b->st.n - 1))
		return -ENOMEM;
	for (uint32_t i = 1; i < b->st.n; i++)
		d->string_table[i - 1] = (char *)pev__strtab_get(&b->st, i);
	d->n_string_table = b->st.n - 1;
	return 0;
}

/* ---- the resource ------------------------------------------------------------------------ */

/* Appends (key, value) to the resource's attributes: a string (str) or an integer. */
static int resource_attr(struct builder *b, C_(KeyValue) **kv, size_t *n, const char *key,
			 const char *str, int64_t num)
{
	C_(KeyValue) *x;

	if (!BALLOC(b, x, 1))
		return -ENOMEM;
	c_init(key_value, x);
	if (!BALLOC(b, x->value, 1))
		return -ENOMEM;
	c_init(any_value, x->value);
	x->key = (char *)key;
	if (str) {
		x->value->value_case = PEV__OTLP__COMMON__ANY_VALUE__VALUE_STRING_VALUE;
		if (!(x->value->string_value = utf8(b, str)))
			return -ENOMEM;
	} else {
		x->value->value_case = PEV__OTLP__COMMON__ANY_VALUE__VALUE_INT_VALUE;
		x->value->int_value = num;
	}
	kv[(*n)++] = x;
	return 0;
}

/*
 * The resource: host.name; with samples of one process its pid, command
 * (also service.name) and program; else service.name "perfev".
 */
static int build_resource(struct builder *b, const char *host, const int *column,
			  Pev__Otlp__Resource__Resource *r)
{
	const struct pev_profile *p = b->p;
	C_(KeyValue) **kv;
	size_t n = 0;
	int32_t pid = -1;
	bool one = false;
	uint32_t comm = 0, main = 0;
	char name[256];

	bool any = false;

	for (uint32_t si = 0; si < p->nr_samples; si++) {
		const struct pev__sample *s = &p->samples[si];
		if (column[s->event] < 0)
			continue;
		if (!any) {
			pid = s->pid;
			comm = s->comm;
			any = one = true;
		} else if (s->pid != pid) {
			one = false;
		}
		if (s->tid == pid && s->comm)
			comm = s->comm; /* the main thread names the process */
	}
	one = one && pid > 0;
	if (one && pev__profile_thread_name(p, pid))
		comm = pev__profile_thread_name(p, pid); /* its last name */
	if (one && pev__profile_main_dso(p, &main))
		return -ENOMEM;
	if (!host) {
		if (gethostname(name, sizeof(name)) != 0)
			name[0] = '\0';
		name[sizeof(name) - 1] = '\0';
		host = name;
	}
	if (!BALLOC(b, kv, 5))
		return -ENOMEM;
	if ((host[0] && resource_attr(b, kv, &n, "host.name", host, 0)) ||
	    resource_attr(b, kv, &n, "service.name",
			  one && comm ? pev__strtab_get(&p->str, comm) : "perfev", 0))
		return -ENOMEM;
	if (one && (resource_attr(b, kv, &n, "process.pid", NULL, pid) ||
		    (comm && resource_attr(b, kv, &n, "process.executable.name",
					   pev__strtab_get(&p->str, comm), 0)) ||
		    (main && resource_attr(b, kv, &n, "process.executable.path",
					   pev__strtab_get(&p->str, main), 0))))
		return -ENOMEM;
	r->attributes = kv;
	r->n_attributes = n;
	return 0;
}

/* ---- the request ------------------------------------------------------------------------- */

static void builder_free(struct builder *b)
{
	pev__strtab_free(&b->st);
	pev__strtab_free(&b->vals);
	free(b->str_index);
	ktab_free(&b->attrs);
	ktab_free(&b->fns);
	ktab_free(&b->locs);
	ktab_free(&b->stacks);
	ktab_free(&b->asets);
	free(b->fn_of_frame);
	free(b->dso_mapping);
	free(b->map);
	for (size_t i = 0; i < b->nr_mem; i++)
		free(b->mem[i]);
	free(b->mem);
}

/* Every table's zero entry, index 0. */
static int zero_entries(struct builder *b)
{
	uint32_t empty, idx, zero4[4] = {0};

	if (pev__strtab_intern_str(&b->st, "", &empty) ||
	    pev__strtab_intern_str(&b->vals, "", &idx))
		return -ENOMEM;
	b->nr_map = 1;
	if (pev__grow((void **)&b->map, &b->cap_map, 1, sizeof(*b->map)))
		return -ENOMEM;
	b->map[0] = (struct mapping){0, UINT64_MAX, 0, false};
	/* The zero attribute, location, stack and attribute set: keys of no words. */
	return ktab_intern(&b->attrs, NULL, 0, &idx) || ktab_intern(&b->fns, zero4, 3, &idx) ||
			       ktab_intern(&b->locs, NULL, 0, &idx) ||
			       ktab_intern(&b->stacks, NULL, 0, &idx) ||
			       ktab_intern(&b->asets, NULL, 0, &idx)
		       ? -ENOMEM
		       : 0;
}

/* Builds and packs the request for the checked options o (event: -1 all). */
static int encode(const struct pev_profile *p, const struct pev_report_opts *o, int event,
		  uint8_t **buf, size_t *len, const char *func, struct pev_error *err)
{
	struct builder b;
	struct slots sl = {0};
	Request req;
	P_(ResourceProfiles) rp, *rpp = &rp;
	P_(ScopeProfiles) sp, *spp = &sp;
	P_(ProfilesDictionary) dict;
	Pev__Otlp__Resource__Resource res;
	C_(InstrumentationScope) scope;
	uint32_t *locs = NULL, *key = NULL;
	int *column = NULL, r;
	unsigned ne = 0;
	uint64_t start = 0, duration = 0;

	*buf = NULL;
	*len = 0;
	memset(&b, 0, sizeof(b));
	b.p = p;
	b.flags = o->flags;
	b.labels = pev__report_labels(p, o->labels);
	column = calloc(p->nr_events ? p->nr_events : 1, sizeof(*column));
	b.str_index = calloc(p->str.n ? p->str.n : 1, sizeof(*b.str_index));
	b.dso_mapping = calloc(p->str.n ? p->str.n : 1, sizeof(*b.dso_mapping));
	b.fn_of_frame = calloc(p->nr_frames ? p->nr_frames : 1, sizeof(*b.fn_of_frame));
	sl.sample = calloc(p->nr_samples ? p->nr_samples : 1, sizeof(*sl.sample));
	sl.tl_n = calloc(p->nr_samples ? p->nr_samples : 1, sizeof(*sl.tl_n));
	sl.tl_sum = calloc(p->nr_samples ? p->nr_samples : 1, sizeof(*sl.tl_sum));
	locs = malloc(PEV__PROFILE_MAX_FRAMES * sizeof(*locs));
	/* A location's key: 4 words and 2 a line. */
	key = malloc((4 + 2 * PEV__PROFILE_MAX_FRAMES) * sizeof(*key));
	if (!column || !b.str_index || !b.dso_mapping || !b.fn_of_frame || !sl.sample ||
	    !sl.tl_n || !sl.tl_sum || !locs || !key || zero_entries(&b))
		goto nomem;
	for (size_t i = 0; i < p->nr_tl; i++) {
		sl.tl_n[p->tl[i].slot]++;
		sl.tl_sum[p->tl[i].slot] += p->tl[i].weight;
	}
	pev_profile_time(p, &start, &duration);

	pev__otlp__collector__export_profiles_service_request__init(
		&req);
	p_init(resource_profiles, &rp);
	p_init(scope_profiles, &sp);
	p_init(profiles_dictionary, &dict);
	pev__otlp__resource__resource__init(&res);
	c_init(instrumentation_scope, &scope);
	for (unsigned e = 0; e < p->nr_events; e++) {
		column[e] = event < 0 || (unsigned)event == e ? (int)ne++ : -1;
	}
	if (!BALLOC(&b, sp.profiles, ne))
		goto nomem;
	for (unsigned e = 0; e < p->nr_events; e++) {
		P_(Profile) *x;
		if (column[e] < 0)
			continue;
		if (!BALLOC(&b, x, 1) || build_profile(&b, e, &sl, start, duration, locs, key, x))
			goto nomem;
		sp.profiles[sp.n_profiles++] = x;
	}
	scope.name = (char *)"perfev";
	scope.version = (char *)PEV_VERSION_STRING;
	sp.scope = &scope;
	if (build_resource(&b, o->host, column, &res) || build_tables(&b, &dict))
		goto nomem;
	rp.resource = &res;
	rp.scope_profiles = &spp;
	rp.n_scope_profiles = 1;
	req.resource_profiles = &rpp;
	req.n_resource_profiles = 1;
	req.dictionary = &dict;

	*len = pev__otlp__collector__export_profiles_service_request__get_packed_size(
		&req);
	if (!(*buf = malloc(*len ? *len : 1)))
		goto nomem;
	if (pev__otlp__collector__export_profiles_service_request__pack(
		    &req, *buf) != *len) {
		free(*buf);
		*buf = NULL;
		*len = 0;
		r = pev__error_start(err, PEV_EUNEXPECTED, 0, NULL, NULL, false);
		pev__error_msg(err, "%s: libprotobuf-c packed a size other than it announced",
			       func);
		goto out;
	}
	r = 0;
	goto out;
nomem:
	r = pev__report_nomem(err, func);
out:
	builder_free(&b);
	free(sl.sample);
	free(sl.tl_n);
	free(sl.tl_sum);
	free(locs);
	free(key);
	free(column);
	return r;
}

int pev__otlp_encode(const struct pev_profile *p, const struct pev_report_opts *opts,
		     uint8_t **buf, size_t *len, struct pev_error *err)
{
	static const char func[] = "pev__otlp_encode";
	struct pev_report_opts o;
	int event, r;

	pev__error_clear(err);
	if (!buf || !len)
		return pev__bad_arg(err, func, "buf", "NULL");
	*buf = NULL;
	*len = 0;
	if ((r = pev__report_check(p, opts, &o, &event, func, err)) < 0 ||
	    (r = pev__report_dl_protobuf_for(func, "OTLP", err)) < 0)
		return r;
	return encode(p, &o, event, buf, len, func, err);
}

int pev_profile_write_otlp(const struct pev_profile *p, FILE *out,
			   const struct pev_report_opts *opts, struct pev_error *err)
{
	static const char func[] = "pev_profile_write_otlp";
	struct pev_report_opts o;
	uint8_t *buf = NULL;
	size_t len = 0;
	int event, r;
	FILE *s;

	pev__error_clear(err);
	if ((r = pev__report_begin(p, out, opts, &o, &event, func, err)) < 0 ||
	    (r = pev__report_dl_protobuf_for(func, "OTLP", err)) < 0)
		return r;
	if ((r = encode(p, &o, event, &buf, &len, func, err)) < 0)
		return r;
	if (!(s = pev__report_stream(out, o.flags))) {
		free(buf);
		return pev__report_nomem(err, func);
	}
	if (len && fwrite(buf, 1, len, s) != len) {
		int e = errno;
		r = pev__error_start(err, PEV_EIO, e, "write", NULL, false);
		pev__error_msg(err, "%s: writing the profile failed: %s", func,
			       e ? strerror(e) : "stream error");
	}
	free(buf);
	return pev__report_finish(s, out, r, func, err);
}
