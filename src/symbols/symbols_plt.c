/* SPDX-License-Identifier: MIT */
/*
 * symbols_plt.c - names for the stubs of a DSO's procedure linkage table
 * (PLT), which no symbol table lists: a call to sin() from a library goes
 * through a stub in its .plt, and a sample taken there is named "sin@plt",
 * as perf 6.1 names it.
 *
 * The names are made the way perf 6.1 makes them, from the section
 * headers of the file itself (a debuginfo file has no PLT contents):
 *
 *   - the relocations of the PLT's GOT slots, .rela.plt (or .rel.plt),
 *     whose sh_link must be the .dynsym section;
 *   - the .plt section, whose sh_entsize is the size of a stub and of the
 *     PLT's header (the lazy-binding trampoline), which gets no name; on
 *     Arm the architecture fixes both sizes (plt_layout);
 *   - relocation i names stub i + 1 after the header: the name of the
 *     .dynsym symbol it refers to, followed by "@plt" (demangled first).
 *     A relocation without a symbol (R_X86_64_IRELATIVE) gives "@plt".
 *
 * Only .plt is named: perf 6.1 knows nothing of .plt.sec (binaries built
 * with -fcf-protection) or .plt.got, so neither does perfev. Also as perf
 * 6.1 does, a file with no symbol of its own (a stripped executable whose
 * .dynsym defines nothing) gets no PLT names either.
 */
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>

#include "symbols/symbols_internal.h"

/* Whether d's symbol table (libdwfl's choice: .symtab, else .dynsym) defines a function or object. */
static bool defines_symbols(struct sym_dso *d)
{
	int n = dwfl_module_getsymtab(d->mod);

	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		const char *name = dwfl_module_getsym(d->mod, i, &sym, NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		if (name && name[0] && sym.st_shndx != SHN_UNDEF &&
		    (type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_OBJECT))
			return true;
	}
	return false;
}

/* The section of elf named name, with its header in *sh; NULL when none. */
static Elf_Scn *section_named(Elf *elf, size_t shstrndx, const char *name, GElf_Shdr *sh)
{
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

/* The .dynsym index of relocation i of data (a SHT_RELA or SHT_REL section); -1 when unreadable. */
static long reloc_symbol(Elf_Data *data, bool rela, int i)
{
	if (rela) {
		GElf_Rela r;
		return gelf_getrela(data, i, &r) ? (long)GELF_R_SYM(r.r_info) : -1;
	}
	GElf_Rel r;
	return gelf_getrel(data, i, &r) ? (long)GELF_R_SYM(r.r_info) : -1;
}

/*
 * The sizes of the PLT's header and of a stub: fixed by the architecture on
 * Arm (AArch64: a 32-byte header, 16-byte stubs; 32-bit Arm: 20 and 12),
 * where the linker leaves .plt's sh_entsize 0; elsewhere both are
 * sh_entsize. As perf 6.1. False when neither is known.
 */
static bool plt_layout(Elf *elf, const GElf_Shdr *plt_sh, uint64_t *header, uint64_t *entsize)
{
	GElf_Ehdr eh;

	if (!gelf_getehdr(elf, &eh))
		return false;
	switch (eh.e_machine) {
	case EM_AARCH64:
		*header = 32, *entsize = 16;
		break;
	case EM_ARM:
		*header = 20, *entsize = 12;
		break;
	default:
		*header = *entsize = plt_sh->sh_entsize;
		break;
	}
	return *entsize != 0;
}

/* Fills d->plt from the file's sections. Returns 0 (also when it has no PLT) or -ENOMEM. */
static int build(struct pev_symbols *s, struct sym_dso *d)
{
	struct dso_plt *p = &d->plt;
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(d->mod, &bias);
	GElf_Shdr rel_sh, plt_sh, dyn_sh;
	Elf_Scn *rel, *dyn;
	Elf_Data *rel_data, *dyn_data;
	size_t shstrndx, n;
	uint64_t header_size, entsize;
	bool rela = true;

	p->built = true;
	if (!elf || !d->offsets_known || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	rel = section_named(elf, shstrndx, ".rela.plt", &rel_sh);
	if (!rel) {
		rel = section_named(elf, shstrndx, ".rel.plt", &rel_sh);
		rela = false;
	}
	if (!rel || rel_sh.sh_type != (rela ? SHT_RELA : SHT_REL) || !rel_sh.sh_entsize ||
	    !section_named(elf, shstrndx, ".plt", &plt_sh) || plt_sh.sh_type != SHT_PROGBITS ||
	    !plt_layout(elf, &plt_sh, &header_size, &entsize))
		return 0;
	dyn = elf_getscn(elf, rel_sh.sh_link);
	if (!dyn || !gelf_getshdr(dyn, &dyn_sh) || dyn_sh.sh_type != SHT_DYNSYM)
		return 0;
	rel_data = elf_getdata(rel, NULL);
	dyn_data = elf_getdata(dyn, NULL);
	if (!rel_data || !dyn_data || !defines_symbols(d))
		return 0;

	n = rel_sh.sh_size / rel_sh.sh_entsize;
	p->names = pev__arena_alloc(&s->arena, (n ? n : 1) * sizeof(*p->names));
	if (!p->names)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		long idx = reloc_symbol(rel_data, rela, (int)i);
		GElf_Sym sym;
		const char *name = "", *dm;
		char *full;
		size_t len;

		if (idx < 0)
			break;
		if (idx > 0 && gelf_getsym(dyn_data, (int)idx, &sym))
			name = elf_strptr(elf, dyn_sh.sh_link, sym.st_name);
		if (!name)
			name = "";
		if (!(s->opts.flags & PEV_SYMBOLS_NO_DEMANGLE) &&
		    (dm = pev__sym_demangle(&s->arena, name,
						(s->opts.flags & PEV_SYMBOLS_SHORT_NAMES) != 0)))
			name = dm;
		len = strlen(name) + sizeof("@plt");
		full = pev__arena_alloc(&s->arena, len);
		if (!full)
			return -ENOMEM;
		snprintf(full, len, "%s@plt", name);
		p->names[i] = full;
		p->n = i + 1;
	}
	p->header = plt_sh.sh_addr;
	p->start = plt_sh.sh_addr + header_size;
	p->entsize = entsize;
	return 0;
}

int pev__dso_plt_find(struct pev_symbols *s, struct sym_dso *d, uint64_t vaddr, uint64_t *start,
		      uint64_t *size, const char **name)
{
	struct dso_plt *p = &d->plt;
	uint64_t i;

	if (!p->built) {
		int r = build(s, d);
		if (r < 0)
			return r;
	}
	if (!p->n || vaddr < p->header)
		return 0;
	if (vaddr < p->start) {
		/* The header: perf's stretched label before it, as perf names it. */
		struct sym_index *x = pev__dso_index(s, d);
		const struct dso_sym *label = x ? pev__index_before(x, p->header - 1) : NULL;

		if (!x)
			return -ENOMEM;
		if (!label || !label->label)
			return 0;
		*start = label->start;
		*size = p->start - label->start;
		*name = label->raw;
		return 1;
	}
	i = (vaddr - p->start) / p->entsize;
	if (i >= p->n)
		return 0;
	*start = p->start + i * p->entsize;
	*size = p->entsize;
	*name = p->names[i];
	return 1;
}
