/* SPDX-License-Identifier: MIT */
/*
 * symbols_index.c - the symbol index of a DSO: every function (and object)
 * symbol of the table libdwfl chose for it (.symtab, else the debuginfo
 * file's .symtab, else .dynsym, with a MiniDebugInfo table merged in),
 * read once, sorted, and cut into disjoint address ranges that each name
 * one symbol or none. A lookup is one binary search in those ranges:
 * libdwfl's own dwfl_module_addrinfo scans the whole table for every
 * address, which costs samples x frames x symbols on a big program.
 *
 * Built when an address of the DSO is first looked up, in four steps:
 *
 *   1. the symbols perf reads (symbols_alias.c: functions, indirect
 *      functions, objects, labels that are not hidden; defined, named and
 *      not absolute), with their address, size and table order;
 *   2. sorted by address, then table order;
 *   3. the symbols at one address become one entry, named by perf's rule
 *      among aliases (pev__alias_beats); the entry spans the largest size
 *      among them;
 *   4. the entries become ranges: at each address the sized entry holding
 *      it that starts last names it (a symbol nested in another names its
 *      own bytes); an entry of size 0 (an assembly label, `_init` in some
 *      files) holds the addresses from its start to the next entry's start
 *      or the end of its section, whichever comes first, and none at all
 *      when a sized entry holds its start (as libdwfl: such a label is a
 *      name inside a function, never one for the bytes after it).
 *
 * Indexes are kept by build id (pev_symbols.indexes): a file mapped by
 * many processes under several paths (a container's /proc/PID/root, the
 * /lib and /usr/lib of a merged /usr) is indexed once. Names point into the
 * symbol table of the DSO that built the index, which lives as long as the
 * symbolizer, as the index does; a display name (demangled) is made when a
 * lookup first lands on the entry.
 */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symbols_internal.h"

/* No symbol: the value of a range between functions. */
#define NO_SYM UINT32_MAX


/*
 * The end of section shndx of elf, in module addresses, or 0 when there is
 * none: an absolute symbol (a version name in .dynsym), a common one, or
 * a file without section headers. A symbol of size 0 holds no address
 * then (libdwfl's rule: such a label matches only its own address).
 */
static uint64_t section_end(Elf *elf, GElf_Word shndx, Dwarf_Addr bias)
{
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (!elf || shndx == SHN_UNDEF || shndx >= SHN_LORESERVE)
		return 0;
	scn = elf_getscn(elf, shndx);
	if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
		return 0;
	return sh.sh_addr + bias + sh.sh_size;
}

/* Reads the symbols perf reads from mod's table into a malloc'ed array. */
static int collect(Dwfl_Module *mod, struct pev__index_sym **out, size_t *n)
{
	int nsyms = dwfl_module_getsymtab(mod);
	struct pev__index_sym *c;
	size_t k = 0;
	Elf *machine_of = NULL; /* the file whose e_machine `machine` is */
	unsigned machine = EM_NONE;

	*out = NULL;
	*n = 0;
	if (nsyms <= 1)
		return 0;
	c = malloc((size_t)nsyms * sizeof(*c));
	if (!c)
		return -ENOMEM;
	for (int i = 1; i < nsyms; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *elf = NULL;
		Dwarf_Addr bias = 0;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, &elf, &bias);

		if (elf != machine_of) {
			GElf_Ehdr eh;
			machine_of = elf;
			machine = elf && gelf_getehdr(elf, &eh) ? eh.e_machine : EM_NONE;
		}
		if (!pev__alias_counts(name, &sym, machine))
			continue;
		c[k] = (struct pev__index_sym){
			.start = addr,
			.size = sym.st_size,
			.limit = sym.st_size ? UINT64_MAX : section_end(elf, shndx, bias),
			.name = name,
			.order = (uint32_t)i,
			.type = GELF_ST_TYPE(sym.st_info),
			.bind = GELF_ST_BIND(sym.st_info),
		};
		k++;
	}
	*out = c;
	*n = k;
	return 0;
}

static int by_start_then_order(const void *a, const void *b)
{
	const struct pev__index_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/*
 * Folds each run of symbols at one address of c[0..n) (sorted) into its
 * first element: perf's choice of name, the largest size and section limit.
 * Returns the number of entries left, packed at the front.
 */
static size_t fold_aliases(struct pev__index_sym *c, size_t n)
{
	size_t out = 0;

	for (size_t i = 0; i < n;) {
		size_t end = i + 1;
		struct pev__index_sym best = c[i];
		struct alias_sym bsym = {c[i].name, c[i].size != 0, c[i].type, c[i].bind};

		while (end < n && c[end].start == c[i].start)
			end++;
		/* Rule 1: perf stretches a size-0 symbol to the next one, so the
		 * last at an address counts as sized. */
		if (end - i > 1)
			bsym.sized = c[i].size != 0 || i == end - 1;
		for (size_t j = i + 1; j < end; j++) {
			struct alias_sym cur = {c[j].name, c[j].size != 0 || j == end - 1, c[j].type,
						c[j].bind};

			if (pev__alias_beats(&cur, &bsym)) {
				bsym = cur;
				best.name = c[j].name;
			}
			if (c[j].size > best.size)
				best.size = c[j].size;
			if (c[j].limit > best.limit)
				best.limit = c[j].limit;
		}
		c[out++] = best;
		i = end;
	}
	return out;
}

/* The ranges under construction. */
struct ranges {
	uint64_t *at;
	uint32_t *sym;
	size_t n, cap;
};

static int emit(struct ranges *r, uint64_t at, uint32_t sym)
{
	if (r->n && r->sym[r->n - 1] == sym)
		return 0; /* continues the range before */
	if (r->n && r->at[r->n - 1] == at) { /* an empty range: replaced */
		r->sym[r->n - 1] = sym;
		if (r->n > 1 && r->sym[r->n - 2] == sym)
			r->n--;
		return 0;
	}
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		uint64_t *at2 = realloc(r->at, cap * sizeof(*at2));

		if (!at2)
			return -ENOMEM;
		r->at = at2;
		uint32_t *sym2 = realloc(r->sym, cap * sizeof(*sym2));
		if (!sym2)
			return -ENOMEM;
		r->sym = sym2;
		r->cap = cap;
	}
	r->at[r->n] = at;
	r->sym[r->n] = sym;
	r->n++;
	return 0;
}

static uint64_t end_of(const struct pev__index_sym *c)
{
	return c->start + c->size < c->start ? UINT64_MAX : c->start + c->size;
}

/*
 * Emits the ranges of [*cur, to) from the sized entries open on the stack
 * (the one that starts last holds an address; those that ended are
 * popped), or one range of no symbol where none is open; *cur becomes to.
 */
static int fill_until(struct ranges *r, const struct pev__index_sym *c, uint32_t *stack,
		      size_t *depth, uint64_t *cur, uint64_t to)
{
	while (*cur < to) {
		uint32_t top;
		uint64_t end;

		while (*depth && end_of(&c[stack[*depth - 1]]) <= *cur)
			(*depth)--;
		if (!*depth) {
			int err = emit(r, *cur, NO_SYM);

			*cur = to;
			return err;
		}
		top = stack[*depth - 1];
		end = end_of(&c[top]) < to ? end_of(&c[top]) : to;
		if (emit(r, *cur, top) < 0)
			return -ENOMEM;
		*cur = end;
	}
	return 0;
}

/* Turns the entries c[0..n) (one per address, sorted) into x's ranges. */
static int build_ranges(struct sym_index *x, const struct pev__index_sym *c, size_t n)
{
	struct ranges r = {0};
	uint32_t *stack = malloc((n ? n : 1) * sizeof(*stack));
	size_t depth = 0;
	uint64_t cur = 0;
	int err = -ENOMEM;

	if (!stack)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint64_t at = c[i].start, end;

		/* the addresses before this entry: open entries, or a gap */
		if (at > cur && fill_until(&r, c, stack, &depth, &cur, at) < 0)
			goto out;
		while (depth && end_of(&c[stack[depth - 1]]) <= at)
			depth--;
		if (c[i].size) {
			stack[depth++] = (uint32_t)i;
			if (emit(&r, at, (uint32_t)i) < 0)
				goto out;
			cur = at;
			continue;
		}
		/* A label: up to the next entry or its section's end; nothing
		 * when a function holds it. */
		end = i + 1 < n ? c[i + 1].start : UINT64_MAX;
		if (c[i].limit < end)
			end = c[i].limit;
		if (depth || end <= at)
			continue;
		if (emit(&r, at, (uint32_t)i) < 0)
			goto out;
		cur = end;
		if (end != UINT64_MAX && emit(&r, end, NO_SYM) < 0)
			goto out;
	}
	if (fill_until(&r, c, stack, &depth, &cur, UINT64_MAX) < 0)
		goto out;
	/* Kept for the symbolizer's life: no room to spare. */
	x->at = realloc(r.at, r.n * sizeof(*r.at));
	x->sym = realloc(r.sym, r.n * sizeof(*r.sym));
	x->at = x->at ? x->at : r.at;
	x->sym = x->sym ? x->sym : r.sym;
	x->nranges = r.n;
	r.at = NULL;
	r.sym = NULL;
	err = 0;
out:
	free(r.at);
	free(r.sym);
	free(stack);
	return err;
}

struct sym_index *pev__index_new(struct pev__index_sym *c, size_t n)
{
	struct sym_index *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	if (n) /* c is NULL for a file with no symbol table */
		qsort(c, n, sizeof(*c), by_start_then_order);
	n = fold_aliases(c, n);
	if (build_ranges(x, c, n) < 0)
		goto fail;
	x->syms = calloc(n ? n : 1, sizeof(*x->syms));
	if (!x->syms)
		goto fail;
	for (size_t i = 0; i < n; i++)
		x->syms[i] = (struct dso_sym){
			.start = c[i].start, .size = c[i].size, .raw = c[i].name, .label = !c[i].size};
	/* A label's size is the extent the ranges give it. */
	for (size_t k = 0; k < x->nranges; k++) {
		uint32_t i = x->sym[k];

		if (i != NO_SYM && !x->syms[i].size && k + 1 < x->nranges)
			x->syms[i].size = x->at[k + 1] - x->at[k];
	}
	x->nsyms = n;
	return x;
fail:
	pev__index_free(x);
	return NULL;
}

/* The index of mod's symbols, tagged with build id bid (bid_len bytes, 0: none). */
static struct sym_index *index_build(const unsigned char *bid, size_t bid_len, Dwfl_Module *mod)
{
	struct pev__index_sym *c = NULL;
	struct sym_index *x;
	size_t n = 0;

	if (collect(mod, &c, &n) < 0)
		return NULL;
	x = pev__index_new(c, n);
	free(c);
	if (x) {
		memcpy(x->bid, bid, bid_len);
		x->bid_len = bid_len;
	}
	return x;
}

/* The key of a build id in pev_symbols.indexes: its first bytes (a hash already). */
static uint64_t bid_key(const unsigned char *bid, size_t len)
{
	uint64_t key = 0;

	memcpy(&key, bid, len < sizeof(key) ? len : sizeof(key));
	return key ^ len;
}

struct sym_index *pev__dso_index(struct pev_symbols *s, struct sym_dso *d)
{
	uint64_t key = bid_key(d->bid, d->bid_len);
	struct sym_index *x;

	if (d->index)
		return d->index;
	for (x = d->bid_len ? pev__u64map_get(&s->indexes, key) : NULL; x; x = x->next_same_key)
		if (x->bid_len == d->bid_len && memcmp(x->bid, d->bid, d->bid_len) == 0)
			return d->index = x;
	x = index_build(d->bid, d->bid_len, d->mod);
	if (!x)
		return NULL;
	if (d->bid_len) {
		x->next_same_key = pev__u64map_get(&s->indexes, key);
		if (pev__u64map_put(&s->indexes, key, x) < 0) {
			pev__index_free(x);
			return NULL;
		}
	}
	x->next_all = s->all_indexes;
	s->all_indexes = x;
	s->st.index_symbols += x->nsyms;
	s->st.index_bytes += pev__index_bytes(x);
	return d->index = x;
}

size_t pev__index_bytes(const struct sym_index *x)
{
	return sizeof(*x) + x->nranges * (sizeof(*x->at) + sizeof(*x->sym)) +
	       x->nsyms * sizeof(*x->syms);
}

struct dso_sym *pev__index_find(const struct sym_index *x, uint64_t vaddr)
{
	size_t lo = 0, hi = x->nranges;

	/* the last range starting at or before vaddr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->at[mid] <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || x->sym[lo - 1] == NO_SYM)
		return NULL;
	return &x->syms[x->sym[lo - 1]];
}

struct dso_sym *pev__index_before(const struct sym_index *x, uint64_t vaddr)
{
	size_t lo = 0, hi = x->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->syms[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &x->syms[lo - 1] : NULL;
}

void pev__index_free(struct sym_index *x)
{
	if (!x)
		return;
	free(x->at);
	free(x->sym);
	free(x->syms);
	free(x);
}
