/* SPDX-License-Identifier: MIT */
/*
 * report_stacks.c - the samples of one event merged into a tree of
 * display names, root first: what folded stacks list line by line and
 * what a flame graph draws. Two frames merge when their names do, exactly
 * as tools that read folded text merge them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"

static bool node_eq(const void *owner, uint32_t id, const void *key)
{
	const struct pev__stacks *s = owner;
	const uint32_t *k = key;

	return s->node[id].parent == k[0] && s->node[id].name == k[1];
}

static uint32_t child_get(struct pev__stacks *s, uint32_t parent, uint32_t name, unsigned kind)
{
	uint32_t k[2] = {parent, name};
	uint32_t h = (uint32_t)pev__hash_u64(PEV__HASH_SEED, (uint64_t)parent << 32 | name);
	uint32_t id = pev__idset_find(&s->set, h, node_eq, s, k);
	struct pev__stack_node *n;

	if (id)
		return id;
	if (s->n == UINT32_MAX ||
	    pev__grow((void **)&s->node, &s->cap, (size_t)s->n + 1, sizeof(*s->node)) ||
	    pev__idset_add(&s->set, h, s->n))
		return 0;
	n = &s->node[s->n];
	memset(n, 0, sizeof(*n));
	n->parent = parent;
	n->name = name;
	n->hash = h;
	n->kind = (uint16_t)kind;
	n->depth = (uint16_t)(s->node[parent].depth + 1);
	if (n->depth > s->max_depth)
		s->max_depth = n->depth;
	return s->n++;
}

/*
 * Makes text safe for one folded frame: ';' splits frames, control
 * characters split lines (C1 controls, U+0080-U+009F, drive terminals that
 * show the file): each becomes one space.
 */
static void sanitize(char *t)
{
	char *w = t;

	for (; *t; t++) {
		unsigned char c = (unsigned char)*t;

		if (c == ';')
			*w++ = ':';
		else if (c < 0x20 || c == 0x7f)
			*w++ = ' ';
		else if (c == 0xc2 && (unsigned char)t[1] >= 0x80 && (unsigned char)t[1] < 0xa0)
			*w++ = ' ', t++;
		else
			*w++ = *t;
	}
	*w = '\0';
}

/*
 * Interns text as a folded frame: sanitized, and valid UTF-8 (a byte that
 * is not becomes U+FFFD, pev_text_utf8), as flame graph tools read it.
 */
static int intern_clean(struct pev__stacks *s, const char *text, uint32_t *id)
{
	char small[256];
	size_t l = pev_text_utf8(small, sizeof(small), text);
	char *t = l < sizeof(small) ? small : malloc(l + 1);
	int r;

	if (!t)
		return -ENOMEM;
	if (t != small)
		pev_text_utf8(t, l + 1, text);
	sanitize(t);
	r = pev__strtab_intern(&s->names, t, strlen(t), id);
	if (t != small)
		free(t);
	return r;
}

/* The name id of a frame, computed once per frame. */
static int frame_name(struct pev__stacks *s, uint32_t frame, unsigned flags, uint32_t *id,
		      unsigned *kind)
{
	const struct pev_profile *p = s->p;
	const struct pev__frame *f = &p->frames[frame];
	const struct pev__sym *y = &p->syms[f->sym];

	if (f->flags & PEV_FRAME_INLINED)
		*kind = PEV__STACK_INLINED;
	else if (y->kernel)
		*kind = PEV__STACK_KERNEL;
	else if (!y->name)
		*kind = PEV__STACK_UNKNOWN;
	else
		*kind = PEV__STACK_USER;
	if (!s->frame_name[frame]) {
		char addr[32], *buf;
		const char *name = pev__sym_label(p, f->sym, flags & PEV_REPORT_ADDRESSES, addr,
						  sizeof(addr));
		size_t l = strlen(name);
		uint32_t n;
		int r;

		if (!(flags & PEV_REPORT_ANNOTATE) ||
		    !(f->flags & (PEV_FRAME_KERNEL | PEV_FRAME_INLINED))) {
			if (intern_clean(s, name, &n))
				return -ENOMEM;
		} else {
			if (!(buf = malloc(l + 5)))
				return -ENOMEM;
			memcpy(buf, name, l);
			memcpy(buf + l, (f->flags & PEV_FRAME_INLINED) ? "_[i]" : "_[k]", 5);
			r = intern_clean(s, buf, &n);
			free(buf);
			if (r)
				return -ENOMEM;
		}
		s->frame_name[frame] = n + 1;
	}
	*id = s->frame_name[frame] - 1;
	return 0;
}

static int comm_name(struct pev__stacks *s, const struct pev__sample *x, unsigned flags,
		     uint32_t *id)
{
	const char *comm = pev__strtab_get(&s->p->str, x->comm);
	char buf[512];

	if (flags & PEV_REPORT_TID)
		snprintf(buf, sizeof(buf), "%s-%" PRId32 "/%" PRId32, comm, x->pid, x->tid);
	else if (flags & PEV_REPORT_PID)
		snprintf(buf, sizeof(buf), "%s-%" PRId32, comm, x->pid);
	else
		return intern_clean(s, comm, id);
	return intern_clean(s, buf, id);
}

static int cmp_names(const void *a, const void *b, void *arg)
{
	const struct pev__stacks *s = arg;

	return strcmp(pev__stack_name(s, *(const uint32_t *)a), pev__stack_name(s, *(const uint32_t *)b));
}

int pev__stacks_init(struct pev__stacks *s)
{
	uint32_t none;

	memset(s, 0, sizeof(*s));
	if (pev__grow((void **)&s->node, &s->cap, 1, sizeof(*s->node)) ||
	    pev__strtab_intern_str(&s->names, "all", &none) ||
	    pev__strtab_intern_str(&s->names, "[off-cpu]", &s->offcpu_name)) {
		pev__stacks_free(s);
		return -ENOMEM;
	}
	memset(&s->node[0], 0, sizeof(s->node[0]));
	s->node[0].name = none;
	s->node[0].kind = PEV__STACK_ROOT;
	s->n = 1;
	return 0;
}

/*
 * Adds w to node's weights: the base ones (a diff's first profile) or the
 * shown ones, and to its off-CPU weight for an off-CPU sample's.
 */
static void weigh(struct pev__stack_node *n, uint64_t w, bool base, bool offcpu)
{
	if (base)
		n->base_total += w;
	else
		n->total += w;
	if (offcpu && !base)
		n->offcpu += w;
}

int pev__stacks_add(struct pev__stacks *s, const struct pev_profile *p, unsigned event,
		    unsigned flags, bool base)
{
	free(s->frame_name); /* frame ids are the profile's own */
	s->p = p;
	s->frame_name = calloc(p->nr_frames ? p->nr_frames : 1, sizeof(*s->frame_name));
	if (!s->frame_name)
		return -ENOMEM;
	if (base)
		s->base_samples += p->events[event].samples;
	else
		s->samples += p->events[event].samples;
	for (uint32_t si = 0; si < p->nr_samples; si++) {
		const struct pev__sample *x = &p->samples[si];
		const uint32_t *st = pev__sample_stack(p, x);
		uint64_t w = (flags & PEV_REPORT_PERIOD) ? x->period : x->count;
		uint32_t node = 0, name;
		unsigned kind;

		if (x->event != event)
			continue;
		weigh(&s->node[0], w, base, x->offcpu);
		if (flags & PEV_REPORT_CGROUP) {
			const char *cg = pev__strtab_get(&p->str, x->cgroup);
			if (intern_clean(s, cg ? cg : "N/A", &name) ||
			    !(node = child_get(s, node, name, PEV__STACK_COMM)))
				return -ENOMEM;
			weigh(&s->node[node], w, base, x->offcpu);
		}
		if (!(flags & PEV_REPORT_NO_COMM)) {
			if (comm_name(s, x, flags, &name) ||
			    !(node = child_get(s, node, name, PEV__STACK_COMM)))
				return -ENOMEM;
			weigh(&s->node[node], w, base, x->offcpu);
		}
		for (int i = (int)x->nr - 1; i >= 0; i--) {
			if ((flags & PEV_REPORT_NO_INLINE) &&
			    (p->frames[st[i]].flags & PEV_FRAME_INLINED))
				continue;
			if (frame_name(s, st[i], flags, &name, &kind) ||
			    !(node = child_get(s, node, name, kind)))
				return -ENOMEM;
			weigh(&s->node[node], w, base, x->offcpu);
		}
		if (x->offcpu) {
			/* An off-CPU stack ends in a frame of its own, told apart in the graph. */
			if (!(node = child_get(s, node, s->offcpu_name, PEV__STACK_OFFCPU)))
				return -ENOMEM;
			weigh(&s->node[node], w, base, true);
		}
		if (node == 0) {
			/* No command and no frame (NO_COMM): the stack is "[unknown]". */
			if (pev__strtab_intern_str(&s->names, "[unknown]", &name) ||
			    !(node = child_get(s, 0, name, PEV__STACK_UNKNOWN)))
				return -ENOMEM;
			weigh(&s->node[node], w, base, x->offcpu);
		}
		if (base)
			s->node[node].base_self += w;
		else
			s->node[node].self += w;
	}
	return 0;
}

int pev__stacks_finish(struct pev__stacks *s)
{
	uint32_t *fill;

	s->kids = malloc(s->n * sizeof(*s->kids));
	fill = calloc(s->n, sizeof(*fill));
	if (!s->kids || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (uint32_t i = 1; i < s->n; i++)
		s->node[s->node[i].parent].nr++;
	for (uint32_t i = 0, at = 0; i < s->n; i++) {
		s->node[i].child = at;
		fill[i] = at;
		at += s->node[i].nr;
	}
	for (uint32_t i = 1; i < s->n; i++)
		s->kids[fill[s->node[i].parent]++] = i;
	for (uint32_t i = 0; i < s->n; i++)
		if (s->node[i].nr > 1)
			qsort_r(s->kids + s->node[i].child, s->node[i].nr, sizeof(*s->kids), cmp_names,
				s);
	free(fill);
	return 0;
}

int pev__stacks_build(const struct pev_profile *p, unsigned event, unsigned flags,
		      struct pev__stacks *s)
{
	if (pev__stacks_init(s))
		return -ENOMEM;
	if (pev__stacks_add(s, p, event, flags, false) || pev__stacks_finish(s)) {
		pev__stacks_free(s);
		return -ENOMEM;
	}
	return 0;
}

int pev__stacks_diff(struct pev__stacks *s, const struct pev_profile *a, unsigned ea,
		     const struct pev_profile *b, unsigned eb, unsigned flags)
{
	if (pev__stacks_init(s))
		return -ENOMEM;
	if (pev__stacks_add(s, a, ea, flags, true) || pev__stacks_add(s, b, eb, flags, false) ||
	    pev__stacks_finish(s)) {
		pev__stacks_free(s);
		return -ENOMEM;
	}
	return 0;
}

void pev__stacks_free(struct pev__stacks *s)
{
	pev__strtab_free(&s->names);
	free(s->node);
	pev__idset_free(&s->set);
	free(s->kids);
	free(s->frame_name);
	memset(s, 0, sizeof(*s));
}
