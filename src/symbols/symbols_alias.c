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
 *      in 5 and 6 a C++ name counts as perf 6.1 compares it, demangled in
 *      its short form: _Znam ("operator new[]") beats _Znwm ("operator
 *      new") at one address, though both mangled names have five characters;
 *   7. the one that comes first in the symbol table.
 *
 * The symbols that count are those perf loads: functions, indirect
 * functions and objects, and labels that are not hidden; all defined,
 * named and not absolute.
 *
 * The choice is made once per address, when the DSO's symbol index is
 * built (symbols_index.c).
 */
#include <stdlib.h>
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

/*
 * Whether a and b are a C++ constructor's or destructor's variants (C1 and
 * C2, D0, D1 and D2: "_ZN3FooC1Ev" and "_ZN3FooC2Ev"), whose demangled
 * names are the same: spares demangling the commonest aliases.
 */
static bool structor_twins(const char *a, const char *b)
{
	size_t i = 0;

	if (a[0] != '_' || a[1] != 'Z' || strlen(a) != strlen(b))
		return false;
	while (a[i] && a[i] == b[i])
		i++;
	return i > 0 && a[i] && (a[i - 1] == 'C' || a[i - 1] == 'D') && a[i] >= '0' &&
	       a[i] <= '5' && b[i] >= '0' && b[i] <= '5' && strcmp(a + i + 1, b + i + 1) == 0;
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
	if (structor_twins(a->name, b->name))
		return false; /* one demangled name: the first in the table */
	char *ad = pev__sym_demangle_short(a->name), *bd = pev__sym_demangle_short(b->name);
	const char *an = ad ? ad : a->name, *bn = bd ? bd : b->name;
	bool beats;

	a_us = leading_underscores(an);
	b_us = leading_underscores(bn);
	if (a_us != b_us)
		beats = b_us < a_us;
	else
		beats = strlen(bn) > strlen(an);
	free(ad);
	free(bd);
	return beats;
}
