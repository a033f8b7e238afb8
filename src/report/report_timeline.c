/* SPDX-License-Identifier: MIT */
/*
 * report_timeline.c - what the timeline writers share: the profile's
 * threads with their samples in time order, JSON strings, and a map of id
 * pairs.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_timeline.h"

/* ---- threads ---------------------------------------------------------------------- */

/* Threads in the order written: by pid, a process's main thread first, then by tid. */
static int thread_cmp(const void *a, const void *b)
{
	const struct pev__tl_thread *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if ((x->tid == x->pid) != (y->tid == y->pid))
		return x->tid == x->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* An entry of one thread's run, to sort by time (then by the order added). */
struct timed {
	uint64_t time;
	uint32_t idx;
};

static int timed_cmp(const void *a, const void *b)
{
	const struct timed *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

bool *pev__tl_events(const struct pev_profile *p, int event)
{
	bool *want = calloc(p->nr_events ? p->nr_events : 1, sizeof(*want));

	if (!want)
		return NULL;
	for (unsigned e = 0; e < p->nr_events; e++)
		want[e] = event < 0 || (unsigned)event == e;
	return want;
}

/*
 * The thread pid/tid's index in t->threads, added (count 0, start time)
 * when new. UINT32_MAX: out of memory.
 */
static uint32_t thread_index(struct pev__tl_threads *t, struct pev__pairmap *m, size_t *cap,
			     int32_t pid, int32_t tid, uint64_t time)
{
	uint32_t a = (uint32_t)pid + 1, b = (uint32_t)tid; /* pid -1 is 0 */
	uint32_t i = pev__pairmap_get(m, a, b);

	if (i != UINT32_MAX) {
		if (time && (!t->threads[i].start || time < t->threads[i].start))
			t->threads[i].start = time;
		return i;
	}
	if (t->nr_threads >= UINT32_MAX - 1 ||
	    pev__grow((void **)&t->threads, cap, t->nr_threads + 1, sizeof(*t->threads)) ||
	    pev__pairmap_put(m, a, b, (uint32_t)t->nr_threads))
		return UINT32_MAX;
	t->threads[t->nr_threads] = (struct pev__tl_thread){.pid = pid, .tid = tid, .start = time};
	return (uint32_t)t->nr_threads++;
}

/* Sorts one thread's run of order[] by time, where the entries were not added in it. */
static int sort_run(const struct pev__tl_entry *tl, uint32_t *run, size_t n)
{
	bool sorted = true;

	for (size_t i = 1; i < n && sorted; i++)
		sorted = tl[run[i - 1]].time <= tl[run[i]].time;
	if (sorted)
		return 0;
	struct timed *k = malloc(n * sizeof(*k));
	if (!k)
		return -1;
	for (size_t i = 0; i < n; i++)
		k[i] = (struct timed){tl[run[i]].time, run[i]};
	qsort(k, n, sizeof(*k), timed_cmp);
	for (size_t i = 0; i < n; i++)
		run[i] = k[i].idx;
	free(k);
	return 0;
}

/*
 * Linear in the samples: each entry's thread is looked up once (a hash of
 * pid and tid), the threads (few) are sorted, and the entries are dealt
 * into their thread's run in the order added, which the replay makes time
 * order; a run that is not is sorted on its own.
 */
int pev__tl_threads_build(const struct pev_profile *p, const struct pev__tl_entry *tl,
			  size_t nr_tl, const bool *want, bool markers, struct pev__tl_threads *t)
{
	struct pev__pairmap map = {0};
	uint32_t *of = NULL, *rank = NULL; /* entry -> thread; thread (as met) -> place written */
	size_t cap = 0, n = 0;
	int rc = -1;

	memset(t, 0, sizeof(*t));
	if (!(of = malloc((nr_tl ? nr_tl : 1) * sizeof(*of))))
		goto out;
	/* A thread's index by the low bits of its tid, looked at before the map. */
	uint32_t recent[64];
	for (size_t i = 0; i < 64; i++)
		recent[i] = UINT32_MAX;
	for (size_t i = 0; i < nr_tl; i++) {
		const struct pev__sample *s = &p->samples[tl[i].slot];
		uint32_t *r = &recent[(uint32_t)s->tid & 63];

		of[i] = UINT32_MAX;
		if (!want[s->event])
			continue;
		if (*r != UINT32_MAX && t->threads[*r].pid == s->pid && t->threads[*r].tid == s->tid)
			of[i] = *r;
		else if ((of[i] = *r = thread_index(t, &map, &cap, s->pid, s->tid, tl[i].time)) ==
			 UINT32_MAX)
			goto out;
		t->threads[of[i]].count++;
		if (!t->threads[of[i]].comm)
			t->threads[of[i]].comm = s->comm; /* its first sample's, until its last name */
		if (!t->threads[of[i]].cgroup)
			t->threads[of[i]].cgroup = s->cgroup;
		n++;
	}
	for (size_t i = 0; markers && i < p->nr_markers; i++)
		if (p->markers[i].tid >= 0 &&
		    thread_index(t, &map, &cap, p->markers[i].pid, p->markers[i].tid,
				 p->markers[i].start) == UINT32_MAX)
			goto out;
	for (size_t i = 0; i < t->nr_threads; i++) {
		uint32_t last = pev__profile_thread_name(p, t->threads[i].tid);
		if (last)
			t->threads[i].comm = last;
		t->threads[i].first = i; /* remembers where it was met, for rank[] */
	}
	if (t->nr_threads > 1)
		qsort(t->threads, t->nr_threads, sizeof(*t->threads), thread_cmp);
	if (!(rank = malloc((t->nr_threads ? t->nr_threads : 1) * sizeof(*rank))) ||
	    !(t->order = malloc((n ? n : 1) * sizeof(*t->order))))
		goto out;
	for (size_t i = 0, at = 0; i < t->nr_threads; i++) {
		rank[t->threads[i].first] = (uint32_t)i;
		t->threads[i].first = at;
		at += t->threads[i].count;
	}
	/* Deal the entries out; count is the fill level meanwhile, and ends as it was. */
	for (size_t i = 0; i < t->nr_threads; i++)
		t->threads[i].count = 0;
	for (size_t i = 0; i < nr_tl; i++) {
		if (of[i] == UINT32_MAX)
			continue;
		struct pev__tl_thread *th = &t->threads[rank[of[i]]];
		t->order[th->first + th->count++] = (uint32_t)i;
	}
	t->nr_order = n;
	for (size_t i = 0; i < t->nr_threads; i++) {
		struct pev__tl_thread *th = &t->threads[i];
		if (sort_run(tl, t->order + th->first, th->count))
			goto out;
		/* Its start: its first sample's time, or a marker's before it. */
		uint64_t first = th->count ? tl[t->order[th->first]].time : 0;
		if (first && (!th->start || first < th->start))
			th->start = first;
	}
	rc = 0;
out:
	pev__pairmap_free(&map);
	free(of);
	free(rank);
	if (rc)
		pev__tl_threads_free(t);
	return rc;
}

void pev__tl_threads_free(struct pev__tl_threads *t)
{
	free(t->order);
	free(t->threads);
	memset(t, 0, sizeof(*t));
}

const struct pev__tl_thread *pev__tl_thread_find(const struct pev__tl_threads *t, int32_t pid,
						 int32_t tid)
{
	for (size_t i = 0; i < t->nr_threads; i++)
		if (t->threads[i].pid == pid && t->threads[i].tid == tid)
			return &t->threads[i];
	return NULL;
}

const char *pev__tl_unit_name(enum pev_profile_unit u)
{
	switch (u) {
	case PEV_PROFILE_UNIT_NANOSECONDS:
		return "nanoseconds";
	case PEV_PROFILE_UNIT_BYTES:
		return "bytes";
	default:
		return "none";
	}
}

/* ---- JSON strings ------------------------------------------------------------------ */

/* The length of the UTF-8 sequence at s (1-4), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n;
	uint32_t c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, c = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8. */
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return n;
}

void pev__json_chars(FILE *out, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	while (*u) {
		size_t n = utf8_len(u);

		if (n == 0) {
			fputs("\xef\xbf\xbd", out); /* U+FFFD for a byte that is not UTF-8 */
			u++;
		} else if (*u == '"' || *u == '\\') {
			putc('\\', out);
			putc(*u++, out);
		} else if (*u < 0x20 || *u == 0x7f) {
			fprintf(out, "\\u%04x", *u++);
		} else {
			fwrite(u, 1, n, out);
			u += n;
		}
	}
}

void pev__json_string(FILE *out, const char *s)
{
	if (!s) {
		fputs("null", out);
		return;
	}
	putc('"', out);
	pev__json_chars(out, s);
	putc('"', out);
}

void pev__jb_printf(struct pev__jbuf *b, const char *fmt, ...)
{
	va_list ap;

	pev__jb_flush(b);
	va_start(ap, fmt);
	vfprintf(b->out, fmt, ap);
	va_end(ap);
}

void pev__jb_json_string(struct pev__jbuf *b, const char *s)
{
	pev__jb_flush(b);
	pev__json_string(b->out, s);
}

void pev__jb_json_chars(struct pev__jbuf *b, const char *s)
{
	pev__jb_flush(b);
	pev__json_chars(b->out, s);
}

/* ---- pairs of ids ------------------------------------------------------------------- */

static uint32_t pair_slot(const struct pev__pairmap *m, uint64_t key)
{
	return (uint32_t)pev__hash_u64(PEV__HASH_SEED, key) & m->mask;
}

uint32_t pev__pairmap_get(const struct pev__pairmap *m, uint32_t a, uint32_t b)
{
	uint64_t key = ((uint64_t)a + 1) << 32 | b;

	if (!m->mask)
		return UINT32_MAX;
	for (uint32_t i = pair_slot(m, key);; i = (i + 1) & m->mask) {
		if (m->keys[i] == key)
			return m->vals[i];
		if (!m->keys[i])
			return UINT32_MAX;
	}
}

static int pair_grow(struct pev__pairmap *m)
{
	uint32_t n = m->mask ? (m->mask + 1) * 2 : 256;
	uint64_t *keys = calloc(n, sizeof(*keys));
	uint32_t *vals = malloc(n * sizeof(*vals));
	struct pev__pairmap g = {keys, vals, n - 1, m->count};

	if (!keys || !vals || n == 0) {
		free(keys);
		free(vals);
		return -1;
	}
	for (uint32_t i = 0; m->mask && i <= m->mask; i++) {
		if (!m->keys[i])
			continue;
		uint32_t j = pair_slot(&g, m->keys[i]);
		while (g.keys[j])
			j = (j + 1) & g.mask;
		g.keys[j] = m->keys[i];
		g.vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	*m = g;
	return 0;
}

int pev__pairmap_put(struct pev__pairmap *m, uint32_t a, uint32_t b, uint32_t v)
{
	uint64_t key = ((uint64_t)a + 1) << 32 | b;
	uint32_t i;

	/* At most half full: probes stay short. */
	if ((!m->mask || (uint64_t)(m->count + 1) * 2 > (uint64_t)m->mask + 1) && pair_grow(m))
		return -1;
	for (i = pair_slot(m, key); m->keys[i]; i = (i + 1) & m->mask)
		;
	m->keys[i] = key;
	m->vals[i] = v;
	m->count++;
	return 0;
}

void pev__pairmap_clear(struct pev__pairmap *m)
{
	if (m->mask)
		memset(m->keys, 0, ((size_t)m->mask + 1) * sizeof(*m->keys));
	m->count = 0;
}

void pev__pairmap_free(struct pev__pairmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
