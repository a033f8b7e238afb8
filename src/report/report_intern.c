/* SPDX-License-Identifier: MIT */
/*
 * report_intern.c - hashing, the id set and interned strings that the
 * profile and its writers are built on (see report_internal.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"

#define FNV_PRIME 0x100000001b3ULL

uint64_t pev__hash_bytes(uint64_t h, const void *data, size_t len)
{
	const unsigned char *b = data;

	for (size_t i = 0; i < len; i++) {
		h ^= b[i];
		h *= FNV_PRIME;
	}
	return h;
}

int pev__grow(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2 / size)
			return -ENOMEM;
		n *= 2;
	}
	p = realloc(*arr, n * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = n;
	return 0;
}

/* ---- id set -------------------------------------------------------------------------- */

static void idset_place(uint64_t *slots, uint32_t mask, uint64_t v)
{
	uint32_t i;

	for (i = (uint32_t)(v >> 32) & mask; (uint32_t)slots[i]; i = (i + 1) & mask)
		;
	slots[i] = v;
}

int pev__idset_add(struct pev__idset *s, uint32_t h, uint32_t id)
{
	/* Keep the load at most 1/2: probes stay short. */
	if ((uint64_t)(s->count + 1) * 2 > (uint64_t)s->mask + (s->mask ? 1 : 0)) {
		uint32_t n = s->mask ? (s->mask + 1) * 2 : 64, mask = n - 1;
		uint64_t *slots;

		if (n == 0 || n > (1u << 31))
			return -ENOMEM;
		slots = calloc(n, sizeof(*slots));
		if (!slots)
			return -ENOMEM;
		if (s->mask)
			for (uint32_t i = 0; i <= s->mask; i++)
				if ((uint32_t)s->slots[i])
					idset_place(slots, mask, s->slots[i]);
		free(s->slots);
		s->slots = slots;
		s->mask = mask;
	}
	idset_place(s->slots, s->mask, (uint64_t)h << 32 | id);
	s->count++;
	return 0;
}

void pev__idset_free(struct pev__idset *s)
{
	free(s->slots);
	memset(s, 0, sizeof(*s));
}

/* ---- strings ------------------------------------------------------------------------- */

struct str_key {
	const char *s;
	size_t len;
};

static bool str_eq(const void *owner, uint32_t id, const void *key)
{
	const struct pev__strtab *t = owner;
	const struct str_key *k = key;
	const char *s = t->buf + t->off[id];

	return strncmp(s, k->s, k->len) == 0 && s[k->len] == '\0';
}

int pev__strtab_intern(struct pev__strtab *t, const char *s, size_t len, uint32_t *id)
{
	struct str_key k = {s, len};
	uint32_t h = (uint32_t)pev__hash_bytes(PEV__HASH_SEED, s, len);
	uint32_t found;

	/* A string with a NUL inside is kept up to the NUL: it is what C sees. */
	k.len = strnlen(s, len);
	if (k.len != len)
		h = (uint32_t)pev__hash_bytes(PEV__HASH_SEED, s, k.len);
	found = pev__idset_find(&t->set, h, str_eq, t, &k);
	if (found) {
		*id = found;
		return 0;
	}
	if (t->n == 0)
		t->n = 1; /* id 0 stays "no string" */
	if (t->n == UINT32_MAX || t->len + k.len + 1 > UINT32_MAX)
		return -ENOMEM;
	if (pev__grow((void **)&t->off, &t->cap_ids, t->n + 1, sizeof(*t->off)) ||
	    pev__grow((void **)&t->buf, &t->cap, t->len + k.len + 1, 1))
		return -ENOMEM;
	memcpy(t->buf + t->len, s, k.len);
	t->buf[t->len + k.len] = '\0';
	if (pev__idset_add(&t->set, h, t->n))
		return -ENOMEM;
	t->off[t->n] = (uint32_t)t->len;
	t->len += k.len + 1;
	*id = t->n++;
	return 0;
}

int pev__strtab_intern_str(struct pev__strtab *t, const char *s, uint32_t *id)
{
	size_t slot = ((uintptr_t)s >> 3) % PEV_ARRAY_SIZE(t->recent);
	int r;

	if (!s) {
		*id = 0;
		return 0;
	}
	if (t->recent[slot].ptr == s && strcmp(t->buf + t->off[t->recent[slot].id], s) == 0) {
		*id = t->recent[slot].id;
		return 0;
	}
	if ((r = pev__strtab_intern(t, s, strlen(s), id)) == 0) {
		t->recent[slot].ptr = s;
		t->recent[slot].id = *id;
	}
	return r;
}

void pev__strtab_free(struct pev__strtab *t)
{
	free(t->buf);
	free(t->off);
	pev__idset_free(&t->set);
	memset(t, 0, sizeof(*t));
}
