/* SPDX-License-Identifier: MIT */
/*
 * symbols_util.c - the containers of the symbols layer: an arena that holds
 * every result string until the symbolizer is freed, and an open-addressing
 * hash map from a 64-bit key to a pointer (pids, addresses, path hashes).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symbols_internal.h"

/* ---- arena ---------------------------------------------------------------- */

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, size;
	_Alignas(16) unsigned char data[];
};

#define ARENA_CHUNK (64 * 1024)

void *pev__arena_alloc(struct pev__arena *a, size_t size)
{
	struct arena_chunk *c = a->head;
	size_t need = (size + 15) & ~(size_t)15;

	if (need < size)
		return NULL;
	if (!c || c->size - c->used < need) {
		/* Big requests get a chunk of their own, behind the current one,
		 * so the space left in the current chunk is not wasted. */
		size_t chunk = need > ARENA_CHUNK / 4 ? need : ARENA_CHUNK;
		struct arena_chunk *n = malloc(sizeof(*n) + chunk);

		if (!n)
			return NULL;
		n->size = chunk;
		n->used = 0;
		if (c && need > ARENA_CHUNK / 4) {
			n->next = c->next;
			c->next = n;
		} else {
			n->next = c;
			a->head = n;
		}
		c = n;
	}
	void *p = c->data + c->used;
	c->used += need;
	memset(p, 0, need);
	return p;
}

char *pev__arena_strndup(struct pev__arena *a, const char *s, size_t len)
{
	char *p = pev__arena_alloc(a, len + 1);

	if (p) {
		memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

char *pev__arena_strdup(struct pev__arena *a, const char *s)
{
	return pev__arena_strndup(a, s, strlen(s));
}

void pev__arena_free(struct pev__arena *a)
{
	struct arena_chunk *c = a->head;

	while (c) {
		struct arena_chunk *next = c->next;
		free(c);
		c = next;
	}
	a->head = NULL;
}

/* ---- hash map -------------------------------------------------------------- */

/* A 64-bit mixer (the finalizer of a well-known hash): nearby addresses and
 * small pids spread over the whole table. */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	x ^= x >> 33;
	return x;
}

uint64_t pev__hash_str(const char *s)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325); /* FNV-1a */

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= UINT64_C(0x100000001b3);
	}
	return mix64(h);
}

void *pev__u64map_get(const struct pev__u64map *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	for (size_t i = mix64(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (!m->vals[i])
			return NULL;
		if (m->keys[i] == key)
			return m->vals[i];
	}
}

static void put_slot(uint64_t *keys, void **vals, size_t cap, uint64_t key, void *val)
{
	size_t i = mix64(key) & (cap - 1);

	while (vals[i] && keys[i] != key)
		i = (i + 1) & (cap - 1);
	keys[i] = key;
	vals[i] = val;
}

static int grow(struct pev__u64map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 16;
	uint64_t *keys = calloc(cap, sizeof(*keys));
	void **vals = calloc(cap, sizeof(*vals));

	if (!keys || !vals || cap < m->cap) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->vals[i])
			put_slot(keys, vals, cap, m->keys[i], m->vals[i]);
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

int pev__u64map_put(struct pev__u64map *m, uint64_t key, void *val)
{
	if (!val)
		return -EINVAL;
	if ((m->len + 1) * 2 > m->cap) { /* load factor at most 1/2 */
		int r = grow(m);
		if (r < 0)
			return r;
	}
	size_t i = mix64(key) & (m->cap - 1);

	while (m->vals[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	if (!m->vals[i])
		m->len++;
	m->keys[i] = key;
	m->vals[i] = val;
	return 0;
}

void *pev__u64map_del(struct pev__u64map *m, uint64_t key)
{
	size_t i, j, mask = m->cap - 1;
	void *val;

	if (!m->cap)
		return NULL;
	for (i = mix64(key) & mask;; i = (i + 1) & mask) {
		if (!m->vals[i])
			return NULL;
		if (m->keys[i] == key)
			break;
	}
	val = m->vals[i];
	m->vals[i] = NULL;
	m->len--;
	/* Linear probing: move later entries of the cluster into the hole
	 * when their home slot does not lie between the hole and them. */
	for (j = (i + 1) & mask; m->vals[j]; j = (j + 1) & mask) {
		size_t home = mix64(m->keys[j]) & mask;
		bool between = i <= j ? (home > i && home <= j) : (home > i || home <= j);

		if (between)
			continue;
		m->keys[i] = m->keys[j];
		m->vals[i] = m->vals[j];
		m->vals[j] = NULL;
		i = j;
	}
	return val;
}

void pev__u64map_free(struct pev__u64map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

void pev__u64map_each(const struct pev__u64map *m, void (*fn)(void *val, void *ctx), void *ctx)
{
	for (size_t i = 0; i < m->cap; i++)
		if (m->vals[i])
			fn(m->vals[i], ctx);
}
