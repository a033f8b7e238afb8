/* SPDX-License-Identifier: MIT */
/*
 * symbols_alias.c - the name of a function that several ELF symbols share:
 * aliases at one address (glibc's pthread_mutex_lock@@GLIBC_2.2.5 and
 * __pthread_mutex_lock@GLIBC_2.2.5, a weak name beside a strong one, a C++
 * constructor's C1 and C2 names). perfev chooses as perf does (choose_best_symbol in perf's
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
 * functions and objects, and labels that are not hidden; all defined,
 * named and not absolute.
 *
 * The choice is made once per address, when the DSO's symbol index is
 * built (symbols_index.c).
 */
#include <string.h>

#include "symbols/symbols_internal.h"

/* An Arm mapping symbol: "$x" (code), "$d" (data), "$a" (Arm), "$t" (Thumb), maybe ".suffix". */
static bool arm_mapping_symbol(const char *name)
{
	return name[0] == '$' && name[1] && strchr("adtx", name[1]) &&
	       (name[2] == '\0' || name[2] == '.');
}

bool pev__alias_counts(const char *name, const GElf_Sym *sym, unsigned machine)
{
	/* An absolute symbol (a version name of .dynsym: libstdc++'s CXXABI_TM_1
	 * at 0) names no code: perf leaves it out, and so no label before the
	 * PLT's header is made of it. */
	if (!name || !name[0] || sym->st_shndx == SHN_UNDEF || sym->st_shndx == SHN_ABS)
		return false;
	if ((machine == EM_ARM || machine == EM_AARCH64) && arm_mapping_symbol(name))
		return false;
	switch (GELF_ST_TYPE(sym->st_info)) {
	case STT_FUNC:
	case STT_GNU_IFUNC:
	case STT_OBJECT:
		return true;
	case STT_NOTYPE:
		return GELF_ST_VISIBILITY(sym->st_other) != STV_HIDDEN &&
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

bool pev__alias_beats(const struct alias_sym *b, const struct alias_sym *a)
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
