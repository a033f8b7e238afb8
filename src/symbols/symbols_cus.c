/* SPDX-License-Identifier: MIT */
/*
 * symbols_cus.c - the compile unit of a DSO's DWARF that holds an address.
 *
 * libdw (0.188 at least) finds the unit of an address through
 * .debug_aranges only: dwfl_module_addrdie, dwfl_module_getsrc and
 * dwarf_addrdie give nothing for code whose unit the aranges do not list.
 * clang emits no .debug_aranges unless asked (-gdwarf-aranges), and a file
 * linking gcc-built and clang-built objects lists only some of its units.
 * So the first time the aranges miss an address, the DSO's units are
 * walked once, and the address ranges of the units the aranges leave out
 * (the unit DIE's DW_AT_low_pc/high_pc or DW_AT_ranges) go into a table
 * sorted by address, searched from then on. Files whose aranges list every
 * unit cost one walk over the unit headers.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/log_internal.h"
#include "symbols/symbols_internal.h"

/* One address range of a unit the aranges leave out. */
struct cu_range {
	uint64_t lo, hi;   /* DWARF addresses, [lo, hi) */
	Dwarf_Off die_off; /* offset of the unit's DIE in .debug_info */
};

static int cmp_off(const void *a, const void *b)
{
	Dwarf_Off x = *(const Dwarf_Off *)a, y = *(const Dwarf_Off *)b;

	return x < y ? -1 : x > y;
}

static int cmp_range(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The unit DIE offsets .debug_aranges lists, sorted: *out (malloc'd; NULL when none). */
static int listed_units(Dwarf *dw, Dwarf_Off **out, size_t *n)
{
	Dwarf_Aranges *ar;
	size_t nar = 0, k = 0;
	Dwarf_Off *offs;

	*out = NULL;
	*n = 0;
	if (dwarf_getaranges(dw, &ar, &nar) != 0 || nar == 0)
		return 0;
	offs = malloc(nar * sizeof(*offs));
	if (!offs)
		return -ENOMEM;
	for (size_t i = 0; i < nar; i++) {
		Dwarf_Addr addr;
		Dwarf_Word len;
		Dwarf_Off off;

		if (dwarf_getarangeinfo(dwarf_onearange(ar, i), &addr, &len, &off) == 0)
			offs[k++] = off;
	}
	qsort(offs, k, sizeof(*offs), cmp_off);
	*out = offs;
	*n = k;
	return 0;
}

/* Appends the ranges of unit DIE cu to c's table. */
static int add_unit(struct dso_cus *c, size_t *cap, Dwarf_Die *cu)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(cu, off, &base, &lo, &hi)) > 0) {
		if (hi <= lo)
			continue;
		if (c->n == *cap) {
			size_t ncap = *cap ? 2 * *cap : 64;
			struct cu_range *r = realloc(c->ranges, ncap * sizeof(*r));

			if (!r)
				return -ENOMEM;
			c->ranges = r;
			*cap = ncap;
		}
		c->ranges[c->n++] =
		    (struct cu_range){.lo = lo, .hi = hi, .die_off = dwarf_dieoffset(cu)};
	}
	return 0;
}

/* Builds c's table from the units of dw that the aranges do not list. */
static int build(struct dso_cus *c, Dwarf *dw)
{
	Dwarf_Off *listed;
	size_t nlisted, cap = 0;
	Dwarf_CU *unit = NULL;
	Dwarf_Die cu;
	int r = listed_units(dw, &listed, &nlisted);

	if (r < 0)
		return r;
	while (dwarf_get_units(dw, unit, &unit, NULL, NULL, &cu, NULL) == 0) {
		Dwarf_Off off = dwarf_dieoffset(&cu);

		if (nlisted && bsearch(&off, listed, nlisted, sizeof(*listed), cmp_off))
			continue;
		if ((r = add_unit(c, &cap, &cu)) < 0)
			break;
	}
	free(listed);
	if (r < 0)
		return r;
	if (!c->n)
		return 0;
	qsort(c->ranges, c->n, sizeof(*c->ranges), cmp_range);
	pev__log(PEV_LOG_DEBUG, "symbols: %zu ranges of compile units .debug_aranges does not list",
	         c->n);
	return 0;
}

/* The unit DIE whose ranges hold addr, from the table; false when none does. */
static bool find_in_table(const struct dso_cus *c, Dwarf *dw, uint64_t addr, Dwarf_Die *out)
{
	size_t lo = 0, hi = c->n;

	/* Units do not overlap: the last range starting at or before addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->ranges[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && addr < c->ranges[lo - 1].hi &&
	       dwarf_offdie(dw, c->ranges[lo - 1].die_off, out) != NULL;
}

int pev__dso_cu_find(struct dso_cus *c, Dwfl_Module *mod, uint64_t vaddr, Dwarf_Die *out,
                     uint64_t *bias)
{
	Dwarf_Addr b;
	Dwarf_Die *die = dwfl_module_addrdie(mod, vaddr, &b);
	Dwarf *dw;

	if (die) {
		*out = *die;
		*bias = b;
		return 1;
	}
	dw = dwfl_module_getdwarf(mod, &b);
	if (!dw || vaddr < b)
		return 0;
	if (!c->built) {
		int r = build(c, dw);

		if (r < 0) {
			free(c->ranges);
			c->ranges = NULL;
			c->n = 0;
			return r;
		}
		c->built = true;
	}
	if (!find_in_table(c, dw, vaddr - b, out))
		return 0;
	*bias = b;
	return 1;
}

void pev__dso_cus_free(struct dso_cus *c)
{
	free(c->ranges);
	c->ranges = NULL;
	c->n = 0;
	c->built = false;
}
