/* SPDX-License-Identifier: MIT */
/*
 * report_timeline.c - what the timeline writers share: the profile's
 * threads with their samples in time order, JSON strings, and a map of id
 * pairs.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_timeline.h"

/* ---- threads ---------------------------------------------------------------------- */

/* A sample (or, idx UINT32_MAX, a marker) to sort: by thread, then time, then order added. */
struct tl_key {
	int32_t pid, tid;
	uint64_t time;
	uint32_t idx;
};

static int key_cmp(const void *a, const void *b)
{
	const struct tl_key *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	/* A process's main thread first. */
	if ((x->tid == x->pid) != (y->tid == y->pid))
		return x->tid == x->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
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

int pev__tl_threads_build(const struct pev_profile *p, const struct pev__tl_entry *tl,
			  size_t nr_tl, const bool *want, bool markers, struct pev__tl_threads *t)
{
	size_t n = 0, cap = nr_tl + (markers ? p->nr_markers : 0);
	struct tl_key *keys = malloc((cap ? cap : 1) * sizeof(*keys));

	memset(t, 0, sizeof(*t));
	if (!keys)
		return -1;
	for (size_t i = 0; i < nr_tl; i++) {
		const struct pev__sample *s = &p->samples[tl[i].slot];

		if (want[s->event])
			keys[n++] = (struct tl_key){s->pid, s->tid, tl[i].time, (uint32_t)i};
	}
	for (size_t i = 0; markers && i < p->nr_markers; i++)
		if (p->markers[i].tid >= 0)
			keys[n++] = (struct tl_key){p->markers[i].pid, p->markers[i].tid,
						    p->markers[i].start, UINT32_MAX};
	qsort(keys, n, sizeof(*keys), key_cmp);
	t->order = malloc((n ? n : 1) * sizeof(*t->order));
	t->threads = malloc((n ? n : 1) * sizeof(*t->threads));
	if (!t->order || !t->threads) {
		free(keys);
		pev__tl_threads_free(t);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		struct pev__tl_thread *th = t->nr_threads ? &t->threads[t->nr_threads - 1] : NULL;

		if (!th || th->pid != keys[i].pid || th->tid != keys[i].tid) {
			th = &t->threads[t->nr_threads++];
			*th = (struct pev__tl_thread){.pid = keys[i].pid, .tid = keys[i].tid,
						      .first = t->nr_order, .start = keys[i].time};
			th->comm = pev__profile_thread_name(p, keys[i].tid);
		}
		if (keys[i].idx == UINT32_MAX)
			continue;
		if (!th->comm)
			th->comm = p->samples[tl[keys[i].idx].slot].comm;
		t->order[t->nr_order++] = keys[i].idx;
		th->count++;
	}
	free(keys);
	return 0;
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
