/* SPDX-License-Identifier: MIT */
/*
 * top_model.c - the samples `perfev top` has seen: one entry per distinct
 * stack of functions (event, the functions of its frames, and the command,
 * process and thread where the view sorts or zooms by them) with its
 * weight (summed periods); the threads' names; the symbolizer fed with the
 * side-band records. Every sample is symbolized (one index lookup a
 * frame), so entries are as few as the table's rows, as perf top's: keyed
 * by addresses and threads, a system-wide top of a compiler loop kept
 * some 2,000 new entries a second, each rebuilt into the profile at every
 * refresh for the 100 s its weight takes to decay. A refresh makes a
 * struct pev_profile of the entries for the report writer, then ages them
 * (decay or zeroing).
 */
#include <stdlib.h>
#include <string.h>

#include "top.h"

#define BUCKETS 4096

/* A distinct stack and its weight. */
struct top_stack {
	struct top_stack *next;
	uint64_t hash;
	unsigned event;
	int32_t pid, tid; /* of the first sample, where the key has none */
	char comm[16];    /* the thread's name at the first sample */
	uint64_t weight;
	struct pev_profile_frame *frames; /* the first sample's */
	size_t nframes;
};

/* A thread's name. */
struct top_comm {
	struct top_comm *next;
	int32_t tid;
	char comm[16];
};

struct top_model {
	struct pev_symbols *sym;
	struct top_stack *stacks[BUCKETS];
	struct top_comm *comms[BUCKETS];
	char **names;
	int nevents;
	uint64_t samples; /* fed since the last profile */
	uint64_t lost;
	struct pev_record_format synth_fmt; /* synthesized records: no trailer */
	struct pev_profile_frame *scratch;  /* frames of the stack being added */
	size_t scratch_cap;
	unsigned key; /* TOP_KEY_*: what tells entries apart besides event and functions */
};

struct top_model *top_model_new(const char *const *names, int nevents)
{
	struct top_model *m = cli_xcalloc(1, sizeof(*m));
	struct pev_symbols_opts so = PEV_SYMBOLS_OPTS_INIT;
	struct pev_record_config rc = PEV_RECORD_CONFIG_INIT;
	struct pev_error err;

	/* No DWARF: file:line and inline frames cost time a live table does not show. */
	so.flags = PEV_SYMBOLS_NO_SRCLINE | PEV_SYMBOLS_NO_INLINE;
	if (pev_symbols_new(&so, &m->sym, &err) != 0 || pev_record_format_init(&m->synth_fmt, &rc)) {
		cli_error("cannot start the symbolizer: %s", err.message);
		free(m);
		return NULL;
	}
	m->names = cli_xcalloc((size_t)nevents, sizeof(char *));
	m->nevents = nevents;
	for (int i = 0; i < nevents; i++)
		m->names[i] = strdup(names[i]);
	return m;
}

static void stack_free(struct top_stack *st)
{
	free(st->frames);
	free(st);
}

void top_model_free(struct top_model *m)
{
	if (!m)
		return;
	for (int b = 0; b < BUCKETS; b++) {
		for (struct top_stack *st = m->stacks[b], *n; st; st = n) {
			n = st->next;
			stack_free(st);
		}
		for (struct top_comm *c = m->comms[b], *n; c; c = n) {
			n = c->next;
			free(c);
		}
	}
	for (int i = 0; i < m->nevents; i++)
		free(m->names[i]);
	free(m->names);
	free(m->scratch);
	pev_symbols_free(m->sym);
	free(m);
}

/* ---- thread names ---------------------------------------------------------------- */

static struct top_comm *comm_find(struct top_model *m, int32_t tid, bool add)
{
	struct top_comm **head = &m->comms[(uint32_t)tid % BUCKETS];

	for (struct top_comm *c = *head; c; c = c->next)
		if (c->tid == tid)
			return c;
	if (!add)
		return NULL;
	struct top_comm *c = cli_xcalloc(1, sizeof(*c));
	c->tid = tid;
	c->next = *head;
	*head = c;
	return c;
}

static void comm_set(struct top_model *m, int32_t tid, const char *comm)
{
	struct top_comm *c = comm_find(m, tid, true);

	snprintf(c->comm, sizeof(c->comm), "%s", comm);
}

/* ---- side band ------------------------------------------------------------------- */

static void sideband(struct top_model *m, const struct pev_record *rec)
{
	switch (rec->type) {
	case PEV_RECORD_COMM:
		comm_set(m, (int32_t)rec->comm.tid, rec->comm.comm);
		if (pev_record_comm_exec(rec))
			pev_symbols_exec(m->sym, (int32_t)rec->comm.pid);
		pev_symbols_thread(m->sym, (int32_t)rec->comm.pid, (int32_t)rec->comm.tid);
		break;
	case PEV_RECORD_FORK: {
		struct top_comm *parent = comm_find(m, (int32_t)rec->task.ptid, false);
		/* A new task, even where one of that tid was known: its parent's
		 * name until a COMM names it (as replay.c, as perf). */
		if (parent && rec->task.tid != rec->task.ptid)
			comm_set(m, (int32_t)rec->task.tid, parent->comm);
		if (rec->task.pid != rec->task.ppid)
			pev_symbols_fork(m->sym, (int32_t)rec->task.ppid, (int32_t)rec->task.pid);
		pev_symbols_thread(m->sym, (int32_t)rec->task.pid, (int32_t)rec->task.tid);
		break;
	}
	case PEV_RECORD_EXIT:
		/* The address space goes with the process's last thread (a main
		 * thread may leave first); its stacks keep their frames (the
		 * symbolizer's strings live on). */
		pev_symbols_exit_thread(m->sym, (int32_t)rec->task.pid, (int32_t)rec->task.tid);
		break;
	case PEV_RECORD_MMAP:
		if (!pev_record_mmap_data(rec))
			pev_symbols_add_mapping(m->sym, (int32_t)rec->mmap.pid, rec->mmap.addr,
			                        rec->mmap.len, rec->mmap.pgoff, rec->mmap.filename,
			                        NULL, 0);
		break;
	case PEV_RECORD_MMAP2:
		if (!pev_record_mmap_data(rec))
			pev_symbols_add_mapping(
			    m->sym, (int32_t)rec->mmap2.pid, rec->mmap2.addr, rec->mmap2.len,
			    rec->mmap2.pgoff, rec->mmap2.filename,
			    rec->mmap2.has_build_id ? rec->mmap2.build_id : NULL,
			    rec->mmap2.has_build_id ? rec->mmap2.build_id_size : 0);
		break;
	case PEV_RECORD_LOST:
		m->lost += rec->lost.lost;
		break;
	default:
		break;
	}
}

int top_model_synth_sink(void *ctx, const void *bytes, size_t len)
{
	struct top_model *m = ctx;
	struct pev_record rec;

	for (size_t at = 0; at < len;) {
		const struct pev_event_header *h = (const void *)((const char *)bytes + at);
		if (h->size < sizeof(*h))
			break;
		if (pev_record_decode(&m->synth_fmt, h, len - at, &rec) > 0)
			sideband(m, &rec);
		at += h->size;
	}
	return 0;
}

/* ---- samples --------------------------------------------------------------------- */

/*
 * Where frame f's function starts (its address when unresolved): with its
 * name and DSO, which function it is.
 */
static uint64_t frame_spot(const struct pev_profile_frame *f)
{
	uint64_t at = (f->flags & PEV_FRAME_DSO_OFFSET) ? f->dso_offset : f->address;

	return f->symbol ? at - f->offset : at;
}

/*
 * Whether two frames are of one function (names and paths are the
 * symbolizer's: one pointer each).
 */
static bool same_function(const struct pev_profile_frame *a, const struct pev_profile_frame *b)
{
	return a->symbol == b->symbol && a->dso == b->dso && frame_spot(a) == frame_spot(b) &&
	       (a->flags & PEV_FRAME_KERNEL) == (b->flags & PEV_FRAME_KERNEL);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 1099511628211ULL;
}

/* The hash of an entry's key: the event, the fields m->key names, the functions of frames[]. */
static uint64_t hash_key(const struct top_model *m, unsigned event, int32_t pid, int32_t tid,
                         const char *comm, const struct pev_profile_frame *frames, size_t n)
{
	uint64_t h = mix(1469598103934665603ULL, event);

	if (m->key & TOP_KEY_PID)
		h = mix(h, (uint32_t)pid);
	if (m->key & TOP_KEY_TID)
		h = mix(h, (uint32_t)tid);
	for (const char *c = (m->key & TOP_KEY_COMM) ? comm : ""; *c; c++)
		h = mix(h, (unsigned char)*c);
	for (size_t i = 0; i < n; i++)
		h = mix(mix(h, (uintptr_t)frames[i].symbol ^ (uintptr_t)frames[i].dso),
		        frame_spot(&frames[i]));
	return h ^ (h >> 29);
}

/* Whether entry st has the key of a sample (the same fields as hash_key). */
static bool same_key(const struct top_model *m, const struct top_stack *st, unsigned event,
                     int32_t pid, int32_t tid, const char *comm,
                     const struct pev_profile_frame *frames, size_t n)
{
	if (st->event != event || st->nframes != n || ((m->key & TOP_KEY_PID) && st->pid != pid) ||
	    ((m->key & TOP_KEY_TID) && st->tid != tid) ||
	    ((m->key & TOP_KEY_COMM) && strcmp(st->comm, comm) != 0))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!same_function(&st->frames[i], &frames[i]))
			return false;
	return true;
}

static struct pev_profile_frame *push_frame(struct top_model *m, size_t *n)
{
	if (*n == m->scratch_cap) {
		m->scratch_cap = m->scratch_cap ? 2 * m->scratch_cap : 64;
		m->scratch = realloc(m->scratch, m->scratch_cap * sizeof(*m->scratch));
		if (!m->scratch) {
			cli_error("out of memory");
			exit(1);
		}
	}
	return &m->scratch[(*n)++];
}

/* The frame of addr (looked up at `lookup`: a return address less one stays in its call). */
static void add_frame(struct top_model *m, size_t *n, int32_t pid, uint64_t addr,
                      uint64_t lookup, bool kernel)
{
	struct pev_symbol sym = PEV_SYMBOL_INIT;
	struct pev_profile_frame *f = push_frame(m, n);
	int32_t space = kernel ? -1 : pid;

	memset(f, 0, sizeof(*f));
	f->address = addr;
	if (pev_symbols_resolve(m->sym, space, lookup, &sym) != 0)
		return;
	if (kernel || (sym.flags & PEV_SYMBOL_KERNEL))
		f->flags |= PEV_FRAME_KERNEL;
	if (sym.status == PEV_SYMBOL_OK) {
		f->symbol = sym.name;
		f->offset = sym.offset + (addr - lookup);
	}
	f->dso = sym.dso;
	if (sym.flags & PEV_SYMBOL_IN_FILE) {
		f->flags |= PEV_FRAME_DSO_OFFSET;
		f->dso_offset = sym.file_offset + (addr - lookup);
	}
}

static bool kernel_mode(unsigned cpumode)
{
	return cpumode == PEV_RECORD_MISC_KERNEL || cpumode == PEV_RECORD_MISC_GUEST_KERNEL;
}

/* Symbolizes a sample's addresses, leaf first, into m->scratch; returns how many. */
static size_t resolve_stack(struct top_model *m, int32_t pid, const struct pev_record *rec)
{
	const struct pev_sample *s = &rec->sample;
	bool kmode = kernel_mode(pev_record_cpumode(rec));
	size_t n = 0;

	if ((s->fields & PEV_SAMPLE_CALLCHAIN) && s->callchain_nr) {
		struct pev_callchain_iter it;
		struct pev_callchain_frame f;
		uint64_t context = UINT64_MAX;

		pev_callchain_iter_init(&it, s->callchain, s->callchain_nr);
		while (pev_callchain_iter_next(&it, &f)) {
			bool kernel = f.context == PEV_CONTEXT_KERNEL ||
			              f.context == PEV_CONTEXT_GUEST_KERNEL || (f.context == 0 && kmode);
			/* The first address of a context is where it stopped; the rest return there. */
			bool first = f.context != context;
			context = f.context;
			if (f.context == PEV_CONTEXT_HV || f.ip == 0)
				continue;
			add_frame(m, &n, pid, f.ip, first ? f.ip : f.ip - 1, kernel);
		}
	}
	if (!n && (s->fields & PEV_SAMPLE_IP))
		add_frame(m, &n, pid, s->ip, s->ip, kmode);
	return n;
}

static void add_sample(struct top_model *m, const struct pev_session_record *r)
{
	const struct pev_record *rec = &r->rec;
	const struct pev_sample *s = &rec->sample;
	int32_t pid = (int32_t)rec->sample_id.pid, tid = (int32_t)rec->sample_id.tid;
	const struct top_comm *c;
	const char *comm;
	size_t n;

	if (r->event < 0 || r->event >= m->nevents)
		return;
	/* A thread sampled runs: its process's address space outlives its main thread. */
	if (rec->id_fields & PEV_SAMPLE_TID)
		pev_symbols_thread(m->sym, pid, tid);
	n = resolve_stack(m, pid, rec);
	c = comm_find(m, tid, false);
	if (!c) /* a thread that started before top: its process's name */
		c = comm_find(m, pid, false);
	comm = c ? c->comm : "";
	uint64_t h = hash_key(m, (unsigned)r->event, pid, tid, comm, m->scratch, n);
	struct top_stack **head = &m->stacks[h % BUCKETS], *st;
	for (st = *head; st; st = st->next)
		if (st->hash == h && same_key(m, st, (unsigned)r->event, pid, tid, comm, m->scratch, n))
			break;
	if (!st) {
		st = cli_xcalloc(1, sizeof(*st));
		st->hash = h;
		st->event = (unsigned)r->event;
		st->pid = pid;
		st->tid = tid;
		snprintf(st->comm, sizeof(st->comm), "%s", comm);
		st->frames = malloc((n ? n : 1) * sizeof(*st->frames));
		if (!st->frames) {
			cli_error("out of memory");
			exit(1);
		}
		memcpy(st->frames, m->scratch, n * sizeof(*st->frames));
		st->nframes = n;
		st->next = *head;
		*head = st;
	}
	st->weight += (s->fields & PEV_SAMPLE_PERIOD) && s->period ? s->period : 1;
	m->samples++;
}

void top_model_feed(struct top_model *m, const struct pev_session_record *r, bool drop)
{
	if (r->rec.type == PEV_RECORD_SAMPLE) {
		if (!drop)
			add_sample(m, r);
	} else {
		sideband(m, &r->rec);
	}
}

/* ---- refresh --------------------------------------------------------------------- */

/* What an event's period counts: time for the clock events, else occurrences. */
static enum pev_profile_unit unit_of(const char *name)
{
	return strncmp(name, "cpu-clock", 9) == 0 || strncmp(name, "task-clock", 10) == 0
	           ? PEV_PROFILE_UNIT_NANOSECONDS
	           : PEV_PROFILE_UNIT_COUNT;
}

struct pev_profile *top_model_profile(struct top_model *m, uint64_t *samples_out)
{
	struct pev_profile *p;

	*samples_out = m->samples;
	m->samples = 0;
	if (pev_profile_new(&p) != 0)
		return NULL;
	for (int i = 0; i < m->nevents; i++) {
		struct pev_profile_event ev = PEV_PROFILE_EVENT_INIT;
		ev.name = m->names[i];
		ev.unit = unit_of(m->names[i]);
		if (pev_profile_add_event(p, &ev) < 0)
			goto fail;
	}
	for (int b = 0; b < BUCKETS; b++)
		for (struct top_stack *st = m->stacks[b]; st; st = st->next) {
			struct pev_profile_sample s = PEV_PROFILE_SAMPLE_INIT;
			s.event = st->event;
			s.period = st->weight;
			s.comm = st->comm[0] ? st->comm : NULL;
			if (!(m->key & TOP_KEY_COMM)) {
				/* a process or thread row shows its name now, as report its last */
				int32_t who = (m->key & TOP_KEY_TID) ? st->tid : st->pid;
				const struct top_comm *c = comm_find(m, who, false);
				if (c && c->comm[0])
					s.comm = c->comm;
			}
			s.pid = st->pid;
			s.tid = st->tid;
			s.frames = st->frames;
			s.nr_frames = st->nframes;
			if (pev_profile_add_sample(p, &s) != 0)
				goto fail;
		}
	pev_profile_set_lost(p, m->lost);
	return p;
fail:
	pev_profile_free(p);
	return NULL;
}

void top_model_key(struct top_model *m, unsigned key)
{
	if (key == m->key)
		return;
	m->key = key;
	top_model_decay(m, true);
}

void top_model_decay(struct top_model *m, bool zero)
{
	for (int b = 0; b < BUCKETS; b++)
		for (struct top_stack **pp = &m->stacks[b]; *pp;) {
			struct top_stack *st = *pp;
			st->weight = zero ? 0 : st->weight * 7 / 8;
			if (!st->weight) {
				*pp = st->next;
				stack_free(st);
			} else {
				pp = &st->next;
			}
		}
}

uint64_t top_model_lost(const struct top_model *m)
{
	return m->lost;
}
