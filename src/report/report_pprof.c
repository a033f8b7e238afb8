/* SPDX-License-Identifier: MIT */
/*
 * report_pprof.c - the profile as pprof's gzip-compressed protocol buffer
 * (src/report/pprof.proto).
 *
 * Value types: per event written, the number of samples ("samples",
 * "count") and the sum of their periods (e.g. "cpu", "nanoseconds"), in
 * event order. Identical stacks with identical labels merge into one
 * Sample. A Location is a code address with its inline chain: the inlined
 * frames before a frame in the stack become the first lines of that
 * frame's location, innermost first. Functions are (name, source file);
 * mappings are DSOs, their range what pev_profile_add_mapping said of them
 * widened to the addresses seen, the main program's first (pprof's "main
 * binary"). Addresses in a file are its offsets there, as perf shows them:
 * one location per spot of a library, whatever the process that ran it;
 * such a mapping starts at its own file offset, so that pprof's and other
 * symbolizers' address - start + file_offset is that offset too.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>


#include "report/pprof_shim.h"

#include "core/error_internal.h"
#include "report/pprof.pb-c.h"
#include "report/report_dl.h"
#include "report/report_internal.h"
#include "perfev/cgroup.h"

/* A trie node: a key under a parent; val is the owner's (a location or sample slot). */
struct tnode {
	uint32_t parent, key, hash, val;
};

struct trie {
	struct tnode *node;
	uint32_t n;
	size_t cap;
	struct pev__idset set;
};

static bool tnode_eq(const void *owner, uint32_t id, const void *key)
{
	const struct trie *t = owner;
	const uint32_t *k = key;

	return t->node[id].parent == k[0] && t->node[id].key == k[1];
}

/* The child of parent with key, added when absent; node 0 is the root. 0 on ENOMEM. */
static uint32_t trie_child(struct trie *t, uint32_t parent, uint32_t key)
{
	uint32_t k[2] = {parent, key};
	uint32_t h = (uint32_t)pev__hash_u64(PEV__HASH_SEED, (uint64_t)parent << 32 | key), id;

	if (t->n == 0) {
		if (pev__grow((void **)&t->node, &t->cap, 1, sizeof(*t->node)))
			return 0;
		memset(&t->node[0], 0, sizeof(t->node[0]));
		t->n = 1;
	}
	if ((id = pev__idset_find(&t->set, h, tnode_eq, t, k)))
		return id;
	if (t->n == UINT32_MAX ||
	    pev__grow((void **)&t->node, &t->cap, (size_t)t->n + 1, sizeof(*t->node)) ||
	    pev__idset_add(&t->set, h, t->n))
		return 0;
	t->node[t->n] = (struct tnode){parent, key, h, 0};
	return t->n++;
}

static void trie_free(struct trie *t)
{
	free(t->node);
	pev__idset_free(&t->set);
}

struct mapping {
	uint32_t dso; /* profile string id */
	uint64_t lo, hi; /* the addresses seen; lo > hi: none */
	bool functions, filenames, lines, inlines;
	bool offsets; /* lo and hi are offsets in the file (PEV_FRAME_DSO_OFFSET) */
};

/*
 * A frame's address in the profile: its offset in its DSO's file when
 * known, as perf shows it (the same in every process, what objdump
 * takes), else the run-time address.
 */
static uint64_t frame_address(const struct pev__frame *f)
{
	return (f->flags & PEV_FRAME_DSO_OFFSET) ? f->dso_offset : f->address;
}

struct function {
	uint32_t name, file; /* profile string ids */
	uint32_t hash;
};

struct location {
	uint32_t first;  /* its frames: chain[first .. first + nr), innermost first */
	uint32_t nr;
	uint32_t mapping; /* 1-based, 0: none */
};

struct labelset {
	uint32_t comm;
	int32_t pid, tid, cpu; /* cpu -1: none */
	uint32_t cgroup;       /* the profile's string id of its path, or 0 */
	int64_t container;     /* pprof string index of the container id its path names, or 0 */
	uint32_t hash;
};

struct builder {
	const struct pev_profile *p;
	unsigned flags, labels;
	struct pev__strtab st;  /* pprof's strings: index = id - 1 */
	uint32_t *str_index;    /* profile string id -> st id (0: not yet) */
	uint32_t *dso_mapping;  /* profile string id of a DSO -> mapping (1-based) */
	struct mapping *map;
	uint32_t nr_map;
	size_t cap_map;
	struct function *fn;
	uint32_t nr_fn;
	size_t cap_fn;
	struct pev__idset fn_set;
	uint32_t *fn_of_frame;  /* frame id -> function (1-based), 0: not yet */
	struct trie loc_trie;   /* chains of frames, outermost (the real function) first */
	struct location *loc;
	uint32_t nr_loc;
	size_t cap_loc;
	uint32_t *chain;        /* frame ids of every location */
	size_t nr_chain, cap_chain;
	struct labelset *ls;
	uint32_t nr_ls;
	size_t cap_ls;
	struct pev__idset ls_set;
	struct trie samples;    /* root -> label set -> locations outermost first */
	int64_t *values;        /* per sample slot, nv values */
	uint32_t nr_slots;
	size_t cap_values;
	unsigned nv;
};

/*
 * Interns text into pprof's strings, which protobuf wants valid UTF-8: a
 * byte that is not becomes U+FFFD (pev_text_utf8), as in JSON output.
 */
static int intern_utf8(struct builder *b, const char *text, uint32_t *id)
{
	char small[512], *t = small;
	size_t n = pev_text_utf8(small, sizeof(small), text);
	int r;

	if (n == strlen(text))
		return pev__strtab_intern_str(&b->st, text, id);
	if (n >= sizeof(small)) {
		if (!(t = malloc(n + 1)))
			return -ENOMEM;
		pev_text_utf8(t, n + 1, text);
	}
	r = pev__strtab_intern_str(&b->st, t, id);
	if (t != small)
		free(t);
	return r;
}

/* The pprof string index of text (NULL: ""). */
static int str_of(struct builder *b, const char *text, int64_t *index)
{
	uint32_t id;

	if (intern_utf8(b, text ? text : "", &id))
		return -ENOMEM;
	*index = (int64_t)id - 1;
	return 0;
}

/* The pprof string index of a profile string id. */
static int str_of_id(struct builder *b, uint32_t sid, int64_t *index)
{
	if (!sid) {
		*index = 0;
		return 0;
	}
	if (!b->str_index[sid]) {
		uint32_t id;
		if (intern_utf8(b, pev__strtab_get(&b->p->str, sid), &id))
			return -ENOMEM;
		b->str_index[sid] = id;
	}
	*index = (int64_t)b->str_index[sid] - 1;
	return 0;
}

static bool fn_eq(const void *owner, uint32_t id, const void *key)
{
	const struct builder *b = owner;
	const struct function *f = &b->fn[id - 1], *k = key;

	return f->name == k->name && f->file == k->file;
}

/* The function (1-based) of a resolved frame. */
static int function_of(struct builder *b, uint32_t frame, uint32_t *id)
{
	const struct pev__frame *f = &b->p->frames[frame];
	struct function k = {b->p->syms[f->sym].name, f->file, 0};

	if (b->fn_of_frame[frame]) {
		*id = b->fn_of_frame[frame];
		return 0;
	}
	k.hash = (uint32_t)pev__hash_u64(PEV__HASH_SEED, (uint64_t)k.name << 32 | k.file);
	*id = pev__idset_find(&b->fn_set, k.hash, fn_eq, b, &k);
	if (!*id) {
		if (pev__grow((void **)&b->fn, &b->cap_fn, (size_t)b->nr_fn + 1, sizeof(*b->fn)) ||
		    pev__idset_add(&b->fn_set, k.hash, b->nr_fn + 1))
			return -ENOMEM;
		b->fn[b->nr_fn] = k;
		*id = ++b->nr_fn;
	}
	b->fn_of_frame[frame] = *id;
	return 0;
}

/* A new mapping for DSO dso (a profile string id), no address seen yet. */
static int mapping_new(struct builder *b, uint32_t dso)
{
	struct mapping *m;

	if (pev__grow((void **)&b->map, &b->cap_map, (size_t)b->nr_map + 1, sizeof(*b->map)))
		return -ENOMEM;
	m = &b->map[b->nr_map];
	memset(m, 0, sizeof(*m));
	m->dso = dso;
	m->lo = UINT64_MAX;
	b->dso_mapping[dso] = ++b->nr_map;
	return 0;
}

/* The mapping (1-based, 0: none) of a frame's DSO, its range and flags updated. */
static int mapping_of(struct builder *b, uint32_t frame, bool inlined_chain, uint32_t *id)
{
	const struct pev__frame *f = &b->p->frames[frame];
	const struct pev__sym *y = &b->p->syms[f->sym];
	struct mapping *m;

	*id = 0;
	if (!y->dso)
		return 0;
	if (!b->dso_mapping[y->dso] && mapping_new(b, y->dso))
		return -ENOMEM;
	*id = b->dso_mapping[y->dso];
	m = &b->map[*id - 1];
	m->offsets |= (f->flags & PEV_FRAME_DSO_OFFSET) != 0;
	if (frame_address(f) < m->lo)
		m->lo = frame_address(f);
	if (frame_address(f) > m->hi)
		m->hi = frame_address(f);
	m->functions |= y->name != 0;
	m->filenames |= f->file != 0;
	m->lines |= f->line != 0;
	m->inlines |= inlined_chain;
	return 0;
}

/*
 * The location of the chain st[i .. j] (inlined frames i .. j-1 inside the
 * real frame j), 1-based.
 */
static int location_of(struct builder *b, const uint32_t *st, unsigned i, unsigned j,
		       uint32_t *id)
{
	uint32_t node = 0;
	struct location *l;

	for (unsigned k = j + 1; k-- > i;)
		if (!(node = trie_child(&b->loc_trie, node, st[k])))
			return -ENOMEM;
	if (b->loc_trie.node[node].val) {
		*id = b->loc_trie.node[node].val;
		return 0;
	}
	if (pev__grow((void **)&b->loc, &b->cap_loc, (size_t)b->nr_loc + 1, sizeof(*b->loc)) ||
	    pev__grow((void **)&b->chain, &b->cap_chain, b->nr_chain + (j - i + 1),
		      sizeof(*b->chain)))
		return -ENOMEM;
	l = &b->loc[b->nr_loc];
	l->first = (uint32_t)b->nr_chain;
	l->nr = j - i + 1;
	if (mapping_of(b, st[j], j > i, &l->mapping))
		return -ENOMEM;
	for (unsigned k = i; k <= j; k++) {
		uint32_t fid;
		b->chain[b->nr_chain++] = st[k];
		if (b->p->syms[b->p->frames[st[k]].sym].name && function_of(b, st[k], &fid))
			return -ENOMEM;
	}
	*id = ++b->nr_loc;
	b->loc_trie.node[node].val = *id;
	return 0;
}

static bool ls_eq(const void *owner, uint32_t id, const void *key)
{
	const struct builder *b = owner;
	const struct labelset *a = &b->ls[id - 1], *k = key;

	return a->comm == k->comm && a->pid == k->pid && a->tid == k->tid && a->cpu == k->cpu &&
	       a->cgroup == k->cgroup;
}

static int labelset_of(struct builder *b, const struct pev__sample *s, uint32_t *id)
{
	struct labelset k = {0};
	uint64_t h;

	k.comm = (b->labels & PEV_REPORT_LABEL_COMM) ? s->comm : 0;
	k.pid = (b->labels & PEV_REPORT_LABEL_PID) ? s->pid : 0;
	k.tid = (b->labels & PEV_REPORT_LABEL_TID) ? s->tid : 0;
	k.cpu = (b->labels & PEV_REPORT_LABEL_CPU) && s->cpu >= 0 ? s->cpu : -1;
	k.cgroup = (b->labels & PEV_REPORT_LABEL_CGROUP) ? s->cgroup : 0;
	h = pev__hash_u64(PEV__HASH_SEED, (uint64_t)k.comm << 32 | (uint32_t)k.pid);
	h = pev__hash_u64(h, (uint64_t)(uint32_t)k.tid << 32 | (uint32_t)k.cpu);
	h = pev__hash_u64(h, k.cgroup);
	k.hash = (uint32_t)h;
	*id = pev__idset_find(&b->ls_set, k.hash, ls_eq, b, &k);
	if (*id)
		return 0;
	if (k.cgroup) {
		char cid[65];
		if (pev_cgroup_container_id(pev__strtab_get(&b->p->str, k.cgroup), cid,
					    sizeof(cid)) == 1 &&
		    str_of(b, cid, &k.container))
			return -ENOMEM;
	}
	if (pev__grow((void **)&b->ls, &b->cap_ls, (size_t)b->nr_ls + 1, sizeof(*b->ls)) ||
	    pev__idset_add(&b->ls_set, k.hash, b->nr_ls + 1))
		return -ENOMEM;
	b->ls[b->nr_ls] = k;
	*id = ++b->nr_ls;
	return 0;
}

/* Adds every sample of the events written (column[e]: its value pair, or -1). */
static int add_samples(struct builder *b, const int *column)
{
	const struct pev_profile *p = b->p;
	uint32_t *locs = malloc(PEV__PROFILE_MAX_FRAMES * sizeof(*locs));

	if (!locs)
		return -ENOMEM;
	for (uint32_t si = 0; si < p->nr_samples; si++) {
		const struct pev__sample *s = &p->samples[si];
		const uint32_t *st = pev__sample_stack(p, s);
		unsigned n = 0, at = 0, first, last;
		uint32_t node, ls;
		int64_t *v;

		if (column[s->event] < 0)
			continue;
		while (pev__next_location(p, s, b->flags & PEV_REPORT_NO_INLINE, &at, &first, &last)) {
			if (location_of(b, st, first, last, &locs[n]))
				goto nomem;
			n++;
		}
		if (labelset_of(b, s, &ls) || !(node = trie_child(&b->samples, 0, ls)))
			goto nomem;
		while (n)
			if (!(node = trie_child(&b->samples, node, locs[--n])))
				goto nomem;
		if (!b->samples.node[node].val) {
			if (pev__grow((void **)&b->values, &b->cap_values,
				      ((size_t)b->nr_slots + 1) * b->nv, sizeof(*b->values)))
				goto nomem;
			memset(b->values + (size_t)b->nr_slots * b->nv, 0, b->nv * sizeof(*b->values));
			b->samples.node[node].val = ++b->nr_slots;
		}
		v = b->values + (size_t)(b->samples.node[node].val - 1) * b->nv;
		v[2 * column[s->event]] += s->count;
		v[2 * column[s->event] + 1] += (int64_t)s->period;
	}
	free(locs);
	return 0;
nomem:
	free(locs);
	return -ENOMEM;
}

static const char *unit_name(enum pev_profile_unit u)
{
	return u == PEV_PROFILE_UNIT_NANOSECONDS ? "nanoseconds"
	       : u == PEV_PROFILE_UNIT_BYTES    ? "bytes"
						: "count";
}

/* The name of an event's weighted value. */
static const char *value_type(const struct pev_profile *p, unsigned e, bool by_name)
{
	const struct pev__event *ev = &p->events[e];

	if (by_name)
		return pev__event_name(p, e);
	if (ev->value_type)
		return pev__strtab_get(&p->str, ev->value_type);
	return ev->unit == PEV_PROFILE_UNIT_NANOSECONDS ? "cpu" : pev__event_name(p, e);
}

/* Everything the message points to, allocated in a few arrays. */
struct message {
	Pev__Pprof__Profile prof;
	Pev__Pprof__ValueType *types, **type_ptrs, period_type;
	Pev__Pprof__Sample *samples, **sample_ptrs;
	uint64_t *loc_ids;
	Pev__Pprof__Label *labels, **label_ptrs;
	Pev__Pprof__Mapping *maps, **map_ptrs;
	Pev__Pprof__Location *locs, **loc_ptrs;
	Pev__Pprof__Line *lines, **line_ptrs;
	Pev__Pprof__Function *fns, **fn_ptrs;
	char **strings;
	int64_t comments[2];
};

static void message_free(struct message *m)
{
	free(m->types);
	free(m->type_ptrs);
	free(m->samples);
	free(m->sample_ptrs);
	free(m->loc_ids);
	free(m->labels);
	free(m->label_ptrs);
	free(m->maps);
	free(m->map_ptrs);
	free(m->locs);
	free(m->loc_ptrs);
	free(m->lines);
	free(m->line_ptrs);
	free(m->fns);
	free(m->fn_ptrs);
	free(m->strings);
}

/* calloc of n elements, never of zero bytes. */
static void *alloc_n(size_t n, size_t size)
{
	return calloc(n > 0 ? n : 1, size);
}

#define ALLOC(ptr, n) ((ptr) = alloc_n((n), sizeof(*(ptr))))

static int build_message(struct builder *b, const unsigned *events, unsigned ne,
			 struct message *m)
{
	const struct pev_profile *p = b->p;
	unsigned nl = __builtin_popcount(b->labels & 0x1f) + ((b->labels & PEV_REPORT_LABEL_CGROUP) != 0);
	size_t depth_total = 0, lines_total = 0;
	bool by_name = false;
	int64_t key_comm = 0, key_pid = 0, key_tid = 0, key_cpu = 0, key_cgroup = 0,
		key_container = 0;

	memset(m, 0, sizeof(*m));
	pev__pprof__profile__init(&m->prof);
	pev__pprof__value_type__init(&m->period_type);

	/* Value types; when two events would share a name, every event uses its own. */
	for (unsigned i = 0; i < ne; i++)
		for (unsigned j = 0; j < i; j++)
			if (strcmp(value_type(p, events[i], false), value_type(p, events[j], false)) == 0)
				by_name = true;
	if (!ALLOC(m->types, 2 * ne) || !ALLOC(m->type_ptrs, 2 * ne))
		return -ENOMEM;
	for (unsigned i = 0; i < ne; i++) {
		const char *vt = value_type(p, events[i], by_name);
		char name[512];

		snprintf(name, sizeof(name), "%s%s", ne == 1 ? "" : vt, ne == 1 ? "samples" : "_samples");
		for (unsigned k = 0; k < 2; k++) {
			Pev__Pprof__ValueType *t = &m->types[2 * i + k];
			pev__pprof__value_type__init(t);
			if (str_of(b, k ? vt : name, &t->type) ||
			    str_of(b, k ? unit_name(p->events[events[i]].unit) : "count", &t->unit))
				return -ENOMEM;
			m->type_ptrs[2 * i + k] = t;
		}
	}
	m->prof.n_sample_type = 2 * ne;
	m->prof.sample_type = m->type_ptrs;
	if (ne) {
		const struct pev__event *ev = &p->events[events[0]];
		m->period_type = m->types[1];
		m->prof.period_type = &m->period_type;
		m->prof.period = (int64_t)(ev->period ? ev->period
					   : ev->samples ? ev->total / ev->samples : 0);
		m->prof.default_sample_type = m->types[1].type;
	}

	/* Samples: values, labels, and the locations from the leaf up to the label-set node. */
	if (b->labels & PEV_REPORT_LABEL_COMM && str_of(b, "comm", &key_comm))
		return -ENOMEM;
	if (b->labels & PEV_REPORT_LABEL_PID && str_of(b, "pid", &key_pid))
		return -ENOMEM;
	if (b->labels & PEV_REPORT_LABEL_TID && str_of(b, "tid", &key_tid))
		return -ENOMEM;
	if (b->labels & PEV_REPORT_LABEL_CPU && str_of(b, "cpu", &key_cpu))
		return -ENOMEM;
	if (b->labels & PEV_REPORT_LABEL_CGROUP &&
	    (str_of(b, "cgroup", &key_cgroup) || str_of(b, "container_id", &key_container)))
		return -ENOMEM;
	for (uint32_t i = 1; i < b->samples.n; i++)
		if (b->samples.node[i].val)
			for (uint32_t n = i; b->samples.node[n].parent; n = b->samples.node[n].parent)
				depth_total++;
	if (!ALLOC(m->samples, b->nr_slots) || !ALLOC(m->sample_ptrs, b->nr_slots) ||
	    !ALLOC(m->loc_ids, depth_total) || !ALLOC(m->labels, (size_t)b->nr_slots * nl) ||
	    !ALLOC(m->label_ptrs, (size_t)b->nr_slots * nl))
		return -ENOMEM;
	depth_total = 0;
	for (uint32_t i = 1; i < b->samples.n; i++) {
		const struct tnode *t = &b->samples.node[i];
		uint32_t slot = t->val, n;
		Pev__Pprof__Sample *s;
		Pev__Pprof__Label **lp;
		const struct labelset *ls;
		unsigned li = 0;

		if (!slot)
			continue;
		s = &m->samples[slot - 1];
		pev__pprof__sample__init(s);
		s->location_id = m->loc_ids + depth_total;
		for (n = i; b->samples.node[n].parent; n = b->samples.node[n].parent)
			m->loc_ids[depth_total++] = b->samples.node[n].key;
		s->n_location_id = (size_t)(m->loc_ids + depth_total - s->location_id);
		s->value = b->values + (size_t)(slot - 1) * b->nv;
		s->n_value = b->nv;
		ls = &b->ls[b->samples.node[n].key - 1];
		lp = m->label_ptrs + (size_t)(slot - 1) * nl;
		s->label = lp;
		for (unsigned k = 0; k < 6; k++) {
			Pev__Pprof__Label *l;
			/* label 5, the container id, comes with the cgroup's (bit 4) */
			if (!(b->labels & (1u << (k < 5 ? k : 4))) || (k == 3 && ls->cpu < 0) ||
			    (k == 4 && !ls->cgroup) || (k == 5 && !ls->container))
				continue;
			l = &m->labels[(size_t)(slot - 1) * nl + li];
			pev__pprof__label__init(l);
			switch (k) {
			case 0:
				l->key = key_comm;
				if (str_of_id(b, ls->comm, &l->str))
					return -ENOMEM;
				break;
			case 1:
				l->key = key_pid;
				l->num = ls->pid;
				break;
			case 2:
				l->key = key_tid;
				l->num = ls->tid;
				break;
			case 3:
				l->key = key_cpu;
				l->num = ls->cpu;
				/* A unit keeps CPU 0: readers drop a number label 0 without one. */
				l->num_unit = key_cpu;
				break;
			case 4:
				l->key = key_cgroup;
				if (str_of_id(b, ls->cgroup, &l->str))
					return -ENOMEM;
				break;
			default:
				l->key = key_container;
				l->str = ls->container;
				break;
			}
			lp[li++] = l;
		}
		s->n_label = li;
		m->sample_ptrs[slot - 1] = s;
	}
	m->prof.n_sample = b->nr_slots;
	m->prof.sample = m->sample_ptrs;

	/* Mappings. */
	if (!ALLOC(m->maps, b->nr_map) || !ALLOC(m->map_ptrs, b->nr_map))
		return -ENOMEM;
	for (uint32_t i = 0; i < b->nr_map; i++) {
		Pev__Pprof__Mapping *x = &m->maps[i];
		const struct mapping *y = &b->map[i];
		const struct pev__mapinfo *info = pev__profile_mapinfo(p, y->dso);

		pev__pprof__mapping__init(x);
		x->id = i + 1;
		pev__mapping_range(info, y->lo, y->hi, y->offsets, &x->memory_start, &x->memory_limit,
				   &x->file_offset);
		if (str_of_id(b, y->dso, &x->filename) ||
		    (info && str_of_id(b, info->build_id, &x->build_id)))
			return -ENOMEM;
		x->has_functions = y->functions;
		x->has_filenames = y->filenames;
		x->has_line_numbers = y->lines;
		x->has_inline_frames = y->inlines;
		m->map_ptrs[i] = x;
	}
	m->prof.n_mapping = b->nr_map;
	m->prof.mapping = m->map_ptrs;

	/* Locations and their lines. */
	for (uint32_t i = 0; i < b->nr_loc; i++)
		for (uint32_t k = 0; k < b->loc[i].nr; k++)
			lines_total += p->syms[p->frames[b->chain[b->loc[i].first + k]].sym].name != 0;
	if (!ALLOC(m->locs, b->nr_loc) || !ALLOC(m->loc_ptrs, b->nr_loc) ||
	    !ALLOC(m->lines, lines_total) || !ALLOC(m->line_ptrs, lines_total))
		return -ENOMEM;
	lines_total = 0;
	for (uint32_t i = 0; i < b->nr_loc; i++) {
		Pev__Pprof__Location *x = &m->locs[i];
		const struct location *y = &b->loc[i];
		const uint32_t *chain = b->chain + y->first;

		pev__pprof__location__init(x);
		x->id = i + 1;
		x->mapping_id = y->mapping;
		x->address = frame_address(&p->frames[chain[y->nr - 1]]);
		x->line = m->line_ptrs + lines_total;
		for (uint32_t k = 0; k < y->nr; k++) {
			const struct pev__frame *f = &p->frames[chain[k]];
			Pev__Pprof__Line *l;
			if (!p->syms[f->sym].name)
				continue;
			l = &m->lines[lines_total];
			pev__pprof__line__init(l);
			l->function_id = b->fn_of_frame[chain[k]];
			l->line = f->line;
			m->line_ptrs[lines_total++] = l;
		}
		x->n_line = (size_t)(m->line_ptrs + lines_total - x->line);
		m->loc_ptrs[i] = x;
	}
	m->prof.n_location = b->nr_loc;
	m->prof.location = m->loc_ptrs;

	/* Functions. */
	if (!ALLOC(m->fns, b->nr_fn) || !ALLOC(m->fn_ptrs, b->nr_fn))
		return -ENOMEM;
	for (uint32_t i = 0; i < b->nr_fn; i++) {
		Pev__Pprof__Function *x = &m->fns[i];
		pev__pprof__function__init(x);
		x->id = i + 1;
		if (str_of_id(b, b->fn[i].name, &x->name) || str_of_id(b, b->fn[i].file, &x->filename))
			return -ENOMEM;
		x->system_name = x->name;
		m->fn_ptrs[i] = x;
	}
	m->prof.n_function = b->nr_fn;
	m->prof.function = m->fn_ptrs;

	/* Times and comments. */
	{
		uint64_t start, duration;
		pev_profile_time(p, &start, &duration);
		m->prof.time_nanos = (int64_t)start;
		m->prof.duration_nanos = (int64_t)duration;
	}
	{
		char text[64];
		snprintf(text, sizeof(text), "perfev %d.%d.%d", PEV_VERSION_MAJOR, PEV_VERSION_MINOR,
			 PEV_VERSION_PATCH);
		if (str_of(b, text, &m->comments[0]))
			return -ENOMEM;
	}
	m->prof.comment = m->comments;
	m->prof.n_comment = 1;
	if (p->lost) {
		char text[64];
		snprintf(text, sizeof(text), "lost samples: %" PRIu64, p->lost);
		if (str_of(b, text, &m->comments[1]))
			return -ENOMEM;
		m->prof.n_comment = 2;
	}

	/* The string table last: everything above added to it. */
	if (!ALLOC(m->strings, b->st.n ? b->st.n - 1 : 0))
		return -ENOMEM;
	for (uint32_t i = 1; i < b->st.n; i++)
		m->strings[i - 1] = (char *)pev__strtab_get(&b->st, i);
	m->prof.n_string_table = b->st.n ? b->st.n - 1 : 0;
	m->prof.string_table = m->strings;
	return 0;
}

/* Writes data gzip-compressed to out. 0 or -EIO. */
static int gzip_write(FILE *out, const uint8_t *data, size_t len)
{
	FILE *gz = pev__gzip_open(out);

	if (!gz)
		return -ENOMEM;
	bool ok = fwrite(data, 1, len, gz) == len;
	return fclose(gz) == 0 && ok ? 0 : -EIO;
}

static void builder_free(struct builder *b)
{
	pev__strtab_free(&b->st);
	free(b->str_index);
	free(b->dso_mapping);
	free(b->map);
	free(b->fn);
	pev__idset_free(&b->fn_set);
	free(b->fn_of_frame);
	trie_free(&b->loc_trie);
	free(b->loc);
	free(b->chain);
	free(b->ls);
	pev__idset_free(&b->ls_set);
	trie_free(&b->samples);
	free(b->values);
}

int pev_profile_write_pprof(const struct pev_profile *p, FILE *out,
			    const struct pev_report_opts *opts, struct pev_error *err)
{
	static const char func[] = "pev_profile_write_pprof";
	struct pev_report_opts o;
	struct builder b;
	struct message m;
	unsigned *events = NULL, ne = 0;
	int *column = NULL, event, r;
	uint32_t empty, main;
	uint8_t *packed = NULL;
	size_t len;

	pev__error_clear(err);
	if ((r = pev__report_begin(p, out, opts, &o, &event, func, err)) < 0)
		return r;
	if ((r = pev__report_dl_protobuf(func, err)) < 0)
		return r;
	memset(&b, 0, sizeof(b));
	memset(&m, 0, sizeof(m));
	b.p = p;
	b.flags = o.flags;
	b.labels = pev__report_labels(p, o.labels);
	events = calloc(p->nr_events ? p->nr_events : 1, sizeof(*events));
	column = calloc(p->nr_events ? p->nr_events : 1, sizeof(*column));
	b.str_index = calloc(p->str.n ? p->str.n : 1, sizeof(*b.str_index));
	b.dso_mapping = calloc(p->str.n ? p->str.n : 1, sizeof(*b.dso_mapping));
	b.fn_of_frame = calloc(p->nr_frames ? p->nr_frames : 1, sizeof(*b.fn_of_frame));
	if (!events || !column || !b.str_index || !b.dso_mapping || !b.fn_of_frame ||
	    pev__strtab_intern_str(&b.st, "", &empty))
		goto nomem;
	for (unsigned e = 0; e < p->nr_events; e++) {
		column[e] = -1;
		if (event < 0 || (unsigned)event == e) {
			column[e] = (int)ne;
			events[ne++] = e;
		}
	}
	b.nv = 2 * ne;
	/* The recorded program's mapping is the first: pprof's main binary. */
	if (pev__profile_main_dso(p, &main) || (main && mapping_new(&b, main)))
		goto nomem;
	if ((ne && add_samples(&b, column)) || build_message(&b, events, ne, &m))
		goto nomem;
	len = pev__pprof__profile__get_packed_size(&m.prof);
	if (!(packed = malloc(len ? len : 1)))
		goto nomem;
	if (pev__pprof__profile__pack(&m.prof, packed) != len) {
		r = pev__error_start(err, PEV_EUNEXPECTED, 0, NULL, NULL, false);
		pev__error_msg(err, "%s: libprotobuf-c packed a size other than it announced", func);
		goto out;
	}
	if ((r = gzip_write(out, packed, len)) < 0) {
		int e = errno;
		r = pev__error_start(err, PEV_EIO, e, "write", NULL, false);
		pev__error_msg(err, "%s: writing the compressed profile failed", func);
	}
	goto out;
nomem:
	r = pev__report_nomem(err, func);
out:
	free(packed);
	message_free(&m);
	builder_free(&b);
	free(events);
	free(column);
	return pev__report_end(out, r, func, err);
}
