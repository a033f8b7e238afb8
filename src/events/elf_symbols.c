/* SPDX-License-Identifier: MIT */
/*
 * elf_symbols.c - a function's name to its file offset in an ELF file, the
 * number a uprobe needs (pev_uprobe_resolve).
 *
 * The file is read through elfutils' libelf, which bounds-checks every header,
 * section and string it hands out; on top of that this file checks that the
 * program and section header tables lie inside the file, that symbol tables
 * have the expected entry size and that the offset it returns is inside the
 * file, so a truncated or hostile file gives PEV_EFORMAT, never a crash.
 *
 * Which symbols count as the function (see also perfev/event.h):
 * - .symtab is searched first; .dynsym only when .symtab has no match.
 * - A symbol matches when it is defined (st_shndx != SHN_UNDEF) and its type
 *   is STT_FUNC or STT_GNU_IFUNC, or STT_NOTYPE with a non-zero value inside
 *   an executable PT_LOAD segment (labels of hand-written assembly that lack
 *   a .type directive). Data, TLS, section and file symbols never match.
 * - Versions: "name" matches "name", "name@V" and "name@@V" (the spellings
 *   .symtab uses) and a .dynsym "name" of any version (.gnu.version); the
 *   default version wins. "name@@V" asks for the default version V,
 *   "name@V" for version V whether it is the default or not.
 * - When several symbols match, FUNC/IFUNC beats NOTYPE, a default (or
 *   unversioned) version beats a hidden one, global/weak beats local; among
 *   equals the first in the table wins (two static functions of the same
 *   name in different files are not told apart).
 * The symbol's virtual address becomes a file offset through the PT_LOAD
 * segment whose file-backed part holds it: addr - p_vaddr + p_offset, which
 * is right for non-PIE executables, PIE executables and shared libraries.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error_internal.h"
#include "perfev.h"
#include "core/suggest.h"
#include "core/util.h"

#define RESOLVE_FN "pev_uprobe_resolve"

/* Suggestions: how many, and the longest name considered (query or symbol). */

/* A name split at its version: "base", "base@ver" or "base@@ver". */
struct symname {
	const char *base;
	size_t base_len;
	const char *ver; /* NULL when unversioned */
	size_t ver_len;
	bool hidden; /* "@": a non-default version */
};

struct resolver {
	const char *path;
	const char *symbol;
	struct symname q; /* the query */
	Elf *elf;
	uint64_t file_size;
	size_t phnum;
	size_t shnum;
	GElf_Half machine;

	/* Where the tables are (section indexes; 0 = none). */
	size_t symtab, dynsym, versym, verdef;

	/* The best match so far. */
	bool found;
	int score;
	uint64_t addr;
	const char *table;

	/* What the search saw, for the explanation when nothing matches. */
	bool damaged;       /* a table or string could not be read */
	bool saw_undef;     /* the name is there, but imported */
	int saw_other_type; /* the name is there as a non-function (STT_*), or -1 */
	bool saw_nonexec;   /* the name is there as NOTYPE outside the code */
	char other_versions[160];

	char query_base[96]; /* the queried name without its version, for suggestions */
	struct pev_suggest sugg;
};

static void split_name(const char *name, struct symname *out)
{
	const char *at = strchr(name, '@');

	out->base = name;
	out->ver = NULL;
	out->ver_len = 0;
	out->hidden = false;
	if (!at) {
		out->base_len = strlen(name);
		return;
	}
	out->base_len = (size_t)(at - name);
	out->hidden = at[1] != '@';
	out->ver = out->hidden ? at + 1 : at + 2;
	out->ver_len = strlen(out->ver);
	if (out->ver_len == 0) { /* "name@" or "name@@": no version after all */
		out->ver = NULL;
		out->hidden = false;
	}
}

/* ---- suggestions ------------------------------------------------------ */

/* Offers name[0..len) as a suggestion if it is close enough to the query. */
static void consider_suggestion(struct resolver *r, const char *name, size_t len)
{
	char candidate[96];

	if (len == 0 || len >= sizeof(candidate) || !r->query_base[0])
		return;
	if (!r->sugg.word)
		pev__suggest_init(&r->sugg, r->query_base);
	memcpy(candidate, name, len);
	candidate[len] = '\0';
	pev__suggest_add(&r->sugg, candidate);
}

/* Remembers a version the queried name exists in, for the hint. */
static void note_version(struct resolver *r, const char *ver, size_t len, bool hidden)
{
	char one[80];

	if (!ver || len == 0 || len >= 64)
		return;
	snprintf(one, sizeof(one), "%s%.*s", hidden ? "@" : "@@", (int)len, ver);
	if (strstr(r->other_versions, one))
		return;
	if (strlen(r->other_versions) + strlen(one) + 3 >= sizeof(r->other_versions))
		return;
	pev__appendf(r->other_versions, sizeof(r->other_versions), "%s%s",
		     r->other_versions[0] ? ", " : "", one);
}

/* ---- addresses ---------------------------------------------------------- */

/*
 * Finds the PT_LOAD segment whose file-backed part holds addr. Returns true
 * and sets *off (and *exec) when there is one.
 */
static bool addr_to_offset(struct resolver *r, uint64_t addr, uint64_t *off, bool *exec)
{
	for (size_t i = 0; i < r->phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(r->elf, (int)i, &ph)) {
			r->damaged = true;
			return false;
		}
		if (ph.p_type != PT_LOAD || addr < ph.p_vaddr || addr - ph.p_vaddr >= ph.p_filesz)
			continue;
		/* The table checks in resolve() keep p_offset + p_filesz honest only
		 * here: the segment must lie inside the file. */
		if (ph.p_offset > r->file_size || ph.p_filesz > r->file_size - ph.p_offset) {
			r->damaged = true;
			return false;
		}
		*off = addr - ph.p_vaddr + ph.p_offset;
		if (exec)
			*exec = (ph.p_flags & PF_X) != 0;
		return true;
	}
	return false;
}

/* ---- symbol tables ------------------------------------------------------ */

/* The name of version index ndx in .gnu.version_d, or NULL. */
static const char *verdef_name(struct resolver *r, unsigned ndx)
{
	Elf_Scn *scn = r->verdef ? elf_getscn(r->elf, r->verdef) : NULL;
	GElf_Shdr sh;
	Elf_Data *data;
	size_t off = 0;

	if (!scn || !gelf_getshdr(scn, &sh) || !(data = elf_getdata(scn, NULL)))
		return NULL;
	/* sh_info counts the entries; the bound also stops a looping chain. */
	for (size_t i = 0; i < sh.sh_info && i < 65536; i++) {
		GElf_Verdef def;
		GElf_Verdaux aux;

		if (off > INT_MAX || !gelf_getverdef(data, (int)off, &def))
			return NULL;
		if (def.vd_ndx == ndx) {
			if (off + def.vd_aux > INT_MAX ||
			    !gelf_getverdaux(data, (int)(off + def.vd_aux), &aux))
				return NULL;
			return elf_strptr(r->elf, sh.sh_link, aux.vda_name);
		}
		if (def.vd_next == 0)
			break;
		off += def.vd_next;
	}
	return NULL;
}

/* The version of .dynsym entry i from .gnu.version: fills n->ver and n->hidden. */
static void dynsym_version(struct resolver *r, Elf_Data *versym, size_t i, struct symname *n)
{
	GElf_Versym vs;
	const char *name;

	if (!versym || i > INT_MAX || !gelf_getversym(versym, (int)i, &vs))
		return;
	if ((vs & 0x7fff) < 2) /* VER_NDX_LOCAL, VER_NDX_GLOBAL: unversioned */
		return;
	name = verdef_name(r, vs & 0x7fff);
	if (!name)
		return;
	n->ver = name;
	n->ver_len = strlen(name);
	n->hidden = (vs & 0x8000) != 0;
}

static bool is_func_type(int type)
{
	return type == STT_FUNC || type == STT_GNU_IFUNC;
}

/* Higher is a better match. */
static int match_score(int type, int bind, bool hidden)
{
	int s = 0;

	if (is_func_type(type))
		s += 8;
	if (!hidden)
		s += 4;
	if (bind != STB_LOCAL)
		s += 2;
	return s;
}

/* Does the symbol's name (n) answer the query? */
static bool name_matches(const struct resolver *r, const struct symname *n)
{
	const struct symname *q = &r->q;

	if (n->base_len != q->base_len || memcmp(n->base, q->base, q->base_len) != 0)
		return false;
	if (!q->ver)
		return true;
	if (!n->ver || n->ver_len != q->ver_len || memcmp(n->ver, q->ver, q->ver_len) != 0)
		return false;
	return q->hidden || !n->hidden; /* "@@V" wants the default version */
}

/*
 * Reads the symbol table in section ndx. With suggest false it looks for the
 * queried function; with suggest true it collects close names instead.
 */
static void scan_table(struct resolver *r, size_t ndx, const char *table, bool suggest)
{
	Elf_Scn *scn = elf_getscn(r->elf, ndx);
	Elf_Data *data, *versym = NULL;
	GElf_Shdr sh;
	size_t entsize = gelf_fsize(r->elf, ELF_T_SYM, 1, EV_CURRENT);
	size_t count;

	if (!scn || !gelf_getshdr(scn, &sh) || entsize == 0) {
		r->damaged = true;
		return;
	}
	if (sh.sh_type == SHT_NOBITS || sh.sh_size == 0)
		return;
	if (sh.sh_entsize != entsize || (sh.sh_flags & SHF_COMPRESSED) ||
	    sh.sh_offset > r->file_size || sh.sh_size > r->file_size - sh.sh_offset ||
	    sh.sh_link == 0 || sh.sh_link >= r->shnum || !(data = elf_getdata(scn, NULL)) ||
	    !data->d_buf) {
		r->damaged = true;
		return;
	}
	if (r->versym && ndx == r->dynsym) {
		Elf_Scn *vscn = elf_getscn(r->elf, r->versym);

		versym = vscn ? elf_getdata(vscn, NULL) : NULL;
	}
	count = data->d_size / entsize;
	if (count > INT_MAX) /* gelf_getsym takes an int */
		count = INT_MAX;

	for (size_t i = 1; i < count; i++) { /* entry 0 is the null symbol */
		GElf_Sym sym;
		const char *name;
		struct symname n;
		int type, bind;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		if (sym.st_name == 0)
			continue;
		name = elf_strptr(r->elf, sh.sh_link, sym.st_name);
		if (!name) {
			r->damaged = true;
			continue;
		}
		type = GELF_ST_TYPE(sym.st_info);
		bind = GELF_ST_BIND(sym.st_info);
		split_name(name, &n);
		bool same = n.base_len == r->q.base_len &&
			    memcmp(n.base, r->q.base, n.base_len) == 0;
		/* The version table is read only for the queried name. */
		if (same && !n.ver && versym)
			dynsym_version(r, versym, i, &n);

		if (suggest) {
			if (!is_func_type(type) || sym.st_shndx == SHN_UNDEF)
				continue;
			if (same)
				note_version(r, n.ver, n.ver_len, n.hidden);
			else
				consider_suggestion(r, n.base, n.base_len);
			continue;
		}

		if (!same || !name_matches(r, &n))
			continue;
		if (!is_func_type(type) && type != STT_NOTYPE) {
			r->saw_other_type = type;
			continue;
		}
		if (sym.st_shndx == SHN_UNDEF) {
			r->saw_undef = true;
			continue;
		}
		if (type == STT_NOTYPE) {
			uint64_t off;
			bool exec = false;

			if (sym.st_value == 0 || !addr_to_offset(r, sym.st_value, &off, &exec) ||
			    !exec) {
				r->saw_nonexec = true;
				continue;
			}
		}
		int score = match_score(type, bind, n.hidden);
		if (!r->found || score > r->score) {
			r->found = true;
			r->score = score;
			r->addr = sym.st_value;
			r->table = table;
			/* 32-bit ARM marks Thumb functions with bit 0 of the address. */
			if (r->machine == EM_ARM && is_func_type(type))
				r->addr &= ~(uint64_t)1;
		}
	}
}

/* ---- errors ------------------------------------------------------------- */

/* Reports "<path> is <what>" as PEV_EFORMAT. */
static int format_error(struct resolver *r, struct pev_error *err, const char *what)
{
	pev__error_start(err, PEV_EFORMAT, 0, NULL, r->symbol, true);
	pev__error_field(err, "path");
	pev__error_msg(err, "%s is %s", r->path, what);
	return PEV_EFORMAT;
}

static int open_error(const char *path, const char *symbol, int errnum, struct pev_error *err)
{
	/* A path through a regular file names no file either. */
	int code = errnum == ENOTDIR ? PEV_ENOENT : pev_error_from_errno(errnum);

	pev__error_start(err, code, errnum, "open", symbol, true);
	pev__error_field(err, "path");
	pev__error_msg(err, "cannot open %s: %s", path, strerror(errnum));
	if (errnum == ENOENT || errnum == ENOTDIR)
		pev__error_hint(err, "give the path of an existing executable or shared library "
				     "(uprobes need the file itself, e.g. $(command -v NAME))");
	else if (errnum == EACCES || errnum == EPERM)
		pev__error_hint(err, "run as a user who may read %s (uprobes need root or "
				     "CAP_PERFMON anyway)", path);
	return code;
}

static int not_found(struct resolver *r, struct pev_error *err)
{
	bool any_table = r->symtab || r->dynsym;

	if (any_table && !r->damaged) {
		if (r->symtab)
			scan_table(r, r->symtab, ".symtab", true);
		if (r->dynsym)
			scan_table(r, r->dynsym, ".dynsym", true);
	}
	if (r->damaged && !r->saw_undef && r->saw_other_type < 0 && !r->saw_nonexec &&
	    !r->other_versions[0])
		return format_error(r, err, "a damaged ELF file (a symbol table or its strings "
					    "cannot be read)");

	pev__error_start(err, PEV_ENOTFOUND, 0, NULL, r->symbol, true);
	pev__error_field(err, "symbol");
	pev__error_msg(err, "no function '%s' in %s", r->symbol, r->path);
	if (r->saw_undef)
		pev__error_msg(err, " ('%.*s' is imported there, not defined)", (int)r->q.base_len,
			       r->q.base);
	else if (r->saw_other_type == STT_OBJECT || r->saw_other_type == STT_COMMON)
		pev__error_msg(err, " ('%.*s' is a data object there)", (int)r->q.base_len,
			       r->q.base);
	else if (r->saw_other_type == STT_TLS)
		pev__error_msg(err, " ('%.*s' is a thread-local variable there)",
			       (int)r->q.base_len, r->q.base);
	else if (r->saw_other_type >= 0 || r->saw_nonexec)
		pev__error_msg(err, " ('%.*s' is there, but not as code)", (int)r->q.base_len,
			       r->q.base);

	/* Each hint is an alternative; pev__error_hint drops the first one's "or ". */
	if (r->saw_undef)
		pev__error_hint(err, "or probe it in the shared library that defines it (see: ldd %s)",
				r->path);
	if (r->other_versions[0])
		pev__error_hint(err, "or '%.*s' exists in version%s %s", (int)r->q.base_len,
				r->q.base, strchr(r->other_versions, ',') ? "s" : "",
				r->other_versions);
	pev__suggest_hint(&r->sugg, NULL, err);
	if (!any_table)
		pev__error_hint(err, "or %s has no symbol table (it is stripped): give the "
				     "function's file offset instead of its name, or use a build "
				     "with symbols", r->path);
	else if (!r->symtab)
		pev__error_hint(err, "or %s has no .symtab (it is stripped), so only its exported "
				     "functions can be found: give a file offset instead, or use a "
				     "build with symbols (or its debug package)", r->path);
	if (strchr(r->symbol, '+'))
		pev__error_hint(err, "or give the symbol alone: an offset after it ('+0x10') is "
				     "added by the caller, not looked up");
	return PEV_ENOTFOUND;
}

/* ---- the resolver ------------------------------------------------------- */

/* True when count entries of entsize bytes at off lie inside the file. */
static bool table_fits(uint64_t off, size_t count, size_t entsize, uint64_t file_size)
{
	if (count == 0)
		return true;
	if (off > file_size)
		return false;
	return (uint64_t)count <= (file_size - off) / entsize;
}

static int resolve(struct resolver *r, uint64_t *offset, struct pev_error *err)
{
	GElf_Ehdr eh;
	size_t phent, shent;
	uint64_t off;

	switch (elf_kind(r->elf)) {
	case ELF_K_ELF:
		break;
	case ELF_K_AR:
		return format_error(r, err, "an archive (.a), not an executable or "
							"shared library");
	default:
		return format_error(r, err, "not an ELF file");
	}
	if (!gelf_getehdr(r->elf, &eh))
		return format_error(r, err, "a truncated or damaged ELF file (its header "
							"cannot be read)");
	r->machine = eh.e_machine;
	if (eh.e_type == ET_REL)
		return format_error(r, err, "a relocatable object (.o), which is never "
							"mapped: probe the linked executable or library");
	if (eh.e_type == ET_CORE)
		return format_error(r, err, "a core dump, not an executable or shared "
							"library");
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return format_error(r, err, "an ELF file of unknown type");

	/*
	 * libelf quietly shrinks header counts to what fits in the file; a
	 * table cut short means a truncated file, so check the header's own
	 * counts (except the extended-numbering escapes, which libelf reads
	 * from section 0).
	 */
	phent = gelf_fsize(r->elf, ELF_T_PHDR, 1, EV_CURRENT);
	shent = gelf_fsize(r->elf, ELF_T_SHDR, 1, EV_CURRENT);
	if (elf_getphdrnum(r->elf, &r->phnum) != 0 || elf_getshdrnum(r->elf, &r->shnum) != 0)
		return format_error(r, err, "a truncated or damaged ELF file (its header counts "
					    "cannot be read)");
	size_t want_ph = eh.e_phnum != PN_XNUM && eh.e_phnum > r->phnum ? eh.e_phnum : r->phnum;
	size_t want_sh = eh.e_shnum > r->shnum ? eh.e_shnum : r->shnum;
	if (eh.e_shoff != 0 && want_sh == 0)
		want_sh = 1; /* extended numbering: section 0 holds the count */
	if (phent == 0 || shent == 0 || (want_ph && eh.e_phentsize != phent) ||
	    (want_sh && eh.e_shentsize != shent) ||
	    !table_fits(eh.e_phoff, want_ph, phent, r->file_size) ||
	    !table_fits(eh.e_shoff, want_sh, shent, r->file_size))
		return format_error(r, err, "a truncated or damaged ELF file (its "
							"program or section headers lie outside it)");
	if (r->phnum == 0)
		return format_error(r, err, "an ELF file without program headers, "
							"which cannot be mapped");
	/* Find the tables. */
	for (size_t i = 1; i < r->shnum; i++) {
		Elf_Scn *scn = elf_getscn(r->elf, i);
		GElf_Shdr sh;

		if (!scn || !gelf_getshdr(scn, &sh)) {
			r->damaged = true;
			continue;
		}
		if (sh.sh_type == SHT_SYMTAB && !r->symtab)
			r->symtab = i;
		else if (sh.sh_type == SHT_DYNSYM && !r->dynsym)
			r->dynsym = i;
		else if (sh.sh_type == SHT_GNU_verdef && !r->verdef)
			r->verdef = i;
	}
	for (size_t i = 1; r->dynsym && i < r->shnum; i++) {
		Elf_Scn *scn = elf_getscn(r->elf, i);
		GElf_Shdr sh;

		if (scn && gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_versym &&
		    sh.sh_link == r->dynsym) {
			r->versym = i;
			break;
		}
	}

	if (r->symtab)
		scan_table(r, r->symtab, ".symtab", false);
	if (!r->found && r->dynsym)
		scan_table(r, r->dynsym, ".dynsym", false);
	if (!r->found)
		return not_found(r, err);

	if (!addr_to_offset(r, r->addr, &off, NULL) || off >= r->file_size) {
		pev__error_start(err, PEV_EFORMAT, 0, NULL, r->symbol, true);
		pev__error_field(err, "symbol");
		pev__error_msg(err, "'%s' in %s (%s) is at 0x%" PRIx64 ", which no part of the file "
				    "is loaded at",
			       r->symbol, r->path, r->table, r->addr);
		pev__error_hint(err, "if %s is a separate debug-info file, give the executable or "
				     "library it belongs to", r->path);
		return PEV_EFORMAT;
	}
	*offset = off;
	return 0;
}

PEV_API int pev_uprobe_resolve(const char *path, const char *symbol, uint64_t *offset,
			       struct pev_error *err)
{
	struct resolver r;
	struct stat st;
	int fd, ret;

	pev__error_clear(err);
	if (!path || !*path)
		return pev__bad_arg(err, RESOLVE_FN, "path", "must name an ELF file");
	if (!symbol || !*symbol)
		return pev__bad_arg(err, RESOLVE_FN, "symbol", "must name a function");
	if (!offset)
		return pev__bad_arg(err, RESOLVE_FN, "offset", "must not be NULL");

	memset(&r, 0, sizeof(r));
	r.path = path;
	r.symbol = symbol;
	r.saw_other_type = -1;
	split_name(symbol, &r.q);
	if (r.q.base_len < sizeof(r.query_base)) {
		memcpy(r.query_base, r.q.base, r.q.base_len);
		r.query_base[r.q.base_len] = '\0';
	}

	/* O_NONBLOCK: a FIFO must not hang the open; it is refused below. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return open_error(path, symbol, errno, err);
	if (fstat(fd, &st) != 0) {
		int e = errno;

		close(fd);
		return open_error(path, symbol, e, err);
	}
	if (S_ISDIR(st.st_mode))
		ret = format_error(&r, err, "a directory, not an ELF file");
	else if (!S_ISREG(st.st_mode))
		ret = format_error(&r, err, "not a regular file");
	else if (st.st_size <= 0)
		ret = format_error(&r, err, "empty, not an ELF file");
	else if (elf_version(EV_CURRENT) == EV_NONE)
		ret = pev__error_start(err, PEV_EUNEXPECTED, 0, NULL, symbol, true);
	else {
		r.file_size = (uint64_t)st.st_size;
		/* ELF_C_READ reads with pread, so a file that shrinks meanwhile gives
		 * read errors, not SIGBUS as a mapping would. */
		r.elf = elf_begin(fd, ELF_C_READ, NULL);
		if (!r.elf) {
			char what[200];

			snprintf(what, sizeof(what), "not a readable ELF file (%s)", elf_errmsg(-1));
			ret = format_error(&r, err, what);
		} else {
			ret = resolve(&r, offset, err);
			elf_end(r.elf);
		}
	}
	close(fd);
	return ret;
}
