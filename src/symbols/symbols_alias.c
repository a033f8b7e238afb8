/* SPDX-License-Identifier: MIT */
/*
 * symbols_alias.c - the name of a function that several ELF symbols share:
 * aliases at one address (glibc's pthread_mutex_lock@@GLIBC_2.2.5 and
 * __pthread_mutex_lock@GLIBC_2.2.5, a weak name beside a strong one, a C++
 * constructor's C1 and C2 names). libdwfl answers with whichever it meets
 * first; perfev chooses as perf does (choose_best_symbol in perf's
 * util/symbol.c), so that a report names what perf's names. Among the
 * symbols that start at the address, in this order:
 *
 *   1. a symbol with a size over one without, where the last symbol at
 *      the address (in table order) counts as sized: perf stretches a
 *      symbol of size 0 to the start of the next one before choosing, and
 *      only the last one's next symbol starts further on;
 *   2. a typed symbol over a label (STT_NOTYPE; perf 6.14 and later);
 *   3. a non-weak symbol over a weak one;
 *   4. a global symbol over a non-global one (local, unique);
 *   5. fewer leading underscores ("__GI___access" has two);
 *   6. the longer name (a version suffix counts: names are the symbol
 *      table's own strings);
 *   7. the one that comes first in the symbol table.
 *
 * The symbols that count are those perf loads: functions, indirect
 * functions and objects, and labels that are neither absolute nor hidden;
 * all defined and named.
 *
 * The symbols that share an address with another are found once per DSO,
 * at its first symbol looked up: one pass over the symbol table and a
 * sort, keeping a short list by address. The choice among those at an
 * address is made when a lookup first lands there (the DSO's cache keeps
 * the result); any other address costs a binary search in that list.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symbols_internal.h"

/* What the rule looks at in a symbol. */
struct alias_sym {
	const char *name;
	bool sized;
	unsigned char type, bind;
};

/*
 * A symbol, while the table is read and in d->aliases: its address (as
 * an offset from the module's start) above ALIAS_NDX_BITS bits of its
 * index in the table. Sorting the keys sorts by address, then table order.
 */
#define ALIAS_NDX_BITS 24
#define ALIAS_NDX_MASK ((UINT64_C(1) << ALIAS_NDX_BITS) - 1)

/* Whether perf would keep sym among the symbols of a DSO. */
static bool counts(const char *name, const GElf_Sym *sym)
{
	if (!name || !name[0] || sym->st_shndx == SHN_UNDEF)
		return false;
	switch (GELF_ST_TYPE(sym->st_info)) {
	case STT_FUNC:
	case STT_GNU_IFUNC:
	case STT_OBJECT:
		return true;
	case STT_NOTYPE:
		return sym->st_shndx != SHN_ABS &&
		       GELF_ST_VISIBILITY(sym->st_other) != STV_HIDDEN &&
		       GELF_ST_VISIBILITY(sym->st_other) != STV_INTERNAL;
	default:
		return false;
	}
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* Whether b wins over a, which comes before it in the symbol table. */
static bool alias_beats(const struct alias_sym *b, const struct alias_sym *a)
{
	bool a_weak = a->bind == STB_WEAK, b_weak = b->bind == STB_WEAK;
	bool a_global = a->bind == STB_GLOBAL, b_global = b->bind == STB_GLOBAL;
	size_t a_us, b_us;

	if (a->sized != b->sized)
		return b->sized;
	if ((a->type == STT_NOTYPE) != (b->type == STT_NOTYPE))
		return a->type == STT_NOTYPE;
	if (a_weak != b_weak)
		return a_weak;
	if (a_global != b_global)
		return b_global;
	a_us = leading_underscores(a->name);
	b_us = leading_underscores(b->name);
	if (a_us != b_us)
		return b_us < a_us;
	return strlen(b->name) > strlen(a->name);
}

/*
 * Sorts keys v[0..n) with a radix sort, one pass per byte in which they
 * differ. tmp has room for n. Returns the sorted array (v or tmp).
 */
static uint64_t *sort_keys(uint64_t *v, uint64_t *tmp, size_t n)
{
	uint64_t differ = 0;

	for (size_t i = 1; i < n; i++)
		differ |= v[i] ^ v[0];
	for (unsigned shift = 0; shift < 64; shift += 8) {
		size_t at[256] = {0}, pos = 0;
		uint64_t *swap;

		if (!((differ >> shift) & 0xff))
			continue;
		for (size_t i = 0; i < n; i++)
			at[(v[i] >> shift) & 0xff]++;
		for (size_t k = 0; k < 256; k++) {
			size_t c = at[k];
			at[k] = pos;
			pos += c;
		}
		for (size_t i = 0; i < n; i++)
			tmp[at[(v[i] >> shift) & 0xff]++] = v[i];
		swap = v;
		v = tmp;
		tmp = swap;
	}
	return v;
}

/*
 * Fills d->aliases with the keys of the symbols that share their address
 * with another, sorted: one pass over the table, a sort, and the lone
 * symbols dropped. A module wider than 2^40 bytes or with more than 2^24
 * symbols gets none (libdwfl's names).
 */
static int alias_build(struct sym_dso *d)
{
	int nsyms = dwfl_module_getsymtab(d->mod);
	Dwarf_Addr lo = 0, hi = 0;
	uint64_t *buf, *v, *shrunk;
	size_t n = 0, kept = 0;

	dwfl_module_info(d->mod, NULL, &lo, &hi, NULL, NULL, NULL, NULL);
	if (nsyms <= 2 || (uint64_t)nsyms > ALIAS_NDX_MASK || hi < lo ||
	    hi - lo >= UINT64_C(1) << (64 - ALIAS_NDX_BITS))
		return 0;
	d->alias_base = lo;
	buf = malloc(2 * (size_t)nsyms * sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	for (int i = 1; i < nsyms; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(d->mod, i, &sym, &addr, NULL, NULL, NULL);

		if (counts(name, &sym) && addr >= lo && addr < hi)
			buf[n++] = (addr - lo) << ALIAS_NDX_BITS | (uint64_t)i;
	}
	v = sort_keys(buf, buf + nsyms, n);
	for (size_t i = 0; i < n; i++) {
		uint64_t at = v[i] >> ALIAS_NDX_BITS;

		if ((i > 0 && v[i - 1] >> ALIAS_NDX_BITS == at) ||
		    (i + 1 < n && v[i + 1] >> ALIAS_NDX_BITS == at))
			buf[kept++] = v[i]; /* kept <= i: v's unread keys stay */
	}
	if (!kept) {
		free(buf);
		return 0;
	}
	shrunk = realloc(buf, kept * sizeof(*buf));
	d->aliases = shrunk ? shrunk : buf;
	d->naliases = kept;
	return 0;
}

/* The name perf's rule chooses among keys[0..n) (one address, in table order). */
static const char *alias_choose(Dwfl_Module *mod, const uint64_t *keys, size_t n)
{
	struct alias_sym best = {0}, cur;
	GElf_Sym sym;
	GElf_Addr addr;

	for (size_t i = 0; i < n; i++) {
		cur.name = dwfl_module_getsym_info(mod, (int)(keys[i] & ALIAS_NDX_MASK), &sym, &addr,
						   NULL, NULL, NULL);
		if (!cur.name)
			continue;
		/* Rule 1: perf stretches a size-0 symbol to the next one. */
		cur.sized = sym.st_size != 0 || i == n - 1;
		cur.type = GELF_ST_TYPE(sym.st_info);
		cur.bind = GELF_ST_BIND(sym.st_info);
		if (!best.name || alias_beats(&cur, &best))
			best = cur;
	}
	return best.name;
}

const char *pev__dso_alias_name(struct sym_dso *d, uint64_t start, const char *name)
{
	size_t lo = 0, hi, end;
	uint64_t at;
	const char *chosen;

	if (!d->aliases_built) {
		d->aliases_built = true;
		if (alias_build(d) < 0)
			return name; /* out of memory: libdwfl's name, as before */
	}
	if (!d->naliases || start < d->alias_base)
		return name;
	at = start - d->alias_base;
	hi = d->naliases;
	while (lo < hi) { /* the first key at or after at */
		size_t mid = lo + (hi - lo) / 2;

		if (d->aliases[mid] >> ALIAS_NDX_BITS < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < d->naliases && d->aliases[end] >> ALIAS_NDX_BITS == at; end++)
		;
	if (end == lo)
		return name;
	chosen = alias_choose(d->mod, d->aliases + lo, end - lo);
	return chosen ? chosen : name;
}
