/* SPDX-License-Identifier: MIT */
/*
 * symbols_dso.c - ELF files (DSOs) through elfutils' libdwfl: finding the
 * file with the right build id, turning a process address into the file's
 * own virtual address, and from there the symbol, the source line and the
 * inline chain. Both are cached per DSO: every file is opened once, every
 * address looked up once.
 *
 * Each DSO gets a Dwfl session of its own holding one module reported at
 * its link-time addresses (bias 0), so module addresses are the file's
 * p_vaddr numbering whatever address a process loaded it at. A mapping
 * (start, pgoff) turns an address into a file offset, and the PT_LOAD
 * segment holding that offset turns it into a virtual address. This serves
 * PIE and non-PIE executables, shared libraries and the vDSO alike, and
 * lets any number of processes share one opened file.
 */
#include <dlfcn.h>
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdw.h>

#include "core/log_internal.h"
#include "symbols/symbols_internal.h"
#include "core/file_open.h"
#include "core/util.h"

/* ---- demangling ------------------------------------------------------------ */

/*
 * C++ names are demangled with libstdc++'s __cxa_demangle, found in the
 * process (dlsym) or loaded on first need (dlopen "libstdc++.so.6"); the
 * library is never linked, so a C program pays nothing until it meets a
 * mangled name. Without it, names stay mangled and results say so.
 */
typedef char *(*demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

static demangle_fn demangler;
static pthread_once_t demangler_once = PTHREAD_ONCE_INIT;

static void load_demangler(void)
{
	void *fn = dlsym(RTLD_DEFAULT, "__cxa_demangle");

	if (!fn) {
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);

		/* Kept open for the life of the process, like any demangler. */
		if (h)
			fn = dlsym(h, "__cxa_demangle");
		if (!fn)
			pev__log(PEV_LOG_INFO, "symbols: no C++ demangler (libstdc++.so.6 not "
					       "found); C++ names stay mangled");
	}
	memcpy(&demangler, &fn, sizeof(fn)); /* object pointer to function pointer */
}

static bool is_mangled(const char *name)
{
	return name[0] == '_' && name[1] == 'Z';
}

/* name demangled by __cxa_demangle (malloc'ed), or NULL when it cannot. */
static char *demangle_whole(const char *name)
{
	int status = -1;
	char *d = demangler(name, NULL, NULL, &status);

	if (d && status != 0) {
		free(d);
		d = NULL;
	}
	return d;
}

/*
 * The name alone of a function whose whole encoding the demangler refuses
 * (malloc'ed), or NULL. libstdc++'s demangler fails on some names whose
 * parameter types it cannot resolve (node's
 * v8::internal::StringShape::DispatchToSpecificTypeWithoutCast<...>),
 * where perf, which does not read the parameters unless asked to, names
 * them. A <name> ends in 'E' when nested (N...E) or templated (I...E),
 * every shorter prefix that ends in 'E' leaves a bracket open, and a
 * function without template arguments has no return type, so the shortest
 * prefix ending in 'E' that demangles holds the whole name, at most with
 * parameters that the short form drops.
 */
static char *demangle_name_only(const char *name)
{
	size_t len = strlen(name);
	char *prefix = malloc(len + 1), *d = NULL;

	if (!prefix)
		return NULL;
	for (size_t k = 3; k < len && !d; k++) {
		if (name[k - 1] != 'E')
			continue;
		memcpy(prefix, name, k);
		prefix[k] = '\0';
		d = demangle_whole(prefix);
	}
	free(prefix);
	return d;
}

/*
 * name demangled, malloc'ed; short_form: perf's short form (no parameter
 * lists), and a name only its prefix demangles. NULL when name is not
 * mangled or no demangler loads.
 */
static char *demangle_malloc(const char *name, bool short_form)
{
	char *d;

	if (!is_mangled(name))
		return NULL;
	pthread_once(&demangler_once, load_demangler);
	if (!demangler)
		return NULL;
	d = demangle_whole(name);
	if (!d && short_form)
		d = demangle_name_only(name);
	if (d && short_form) {
		size_t len = strlen(d), start = pev__sym_short_name(d, &len);
		memmove(d, d + start, len);
		d[len] = '\0';
	}
	return d;
}

const char *pev__sym_demangle(struct pev__arena *a, const char *name, bool short_form)
{
	char *d = demangle_malloc(name, short_form);
	const char *copy;

	if (!d)
		return NULL;
	copy = pev__arena_strndup(a, d, strlen(d));
	free(d);
	return copy;
}

char *pev__sym_demangle_short(const char *name)
{
	return demangle_malloc(name, true);
}

static bool short_names(const struct pev_symbols *s)
{
	return s->opts.flags & PEV_SYMBOLS_SHORT_NAMES;
}

/* ---- finding DSOs ------------------------------------------------------------ */

static bool same_bid(const unsigned char *a, size_t alen, const unsigned char *b, size_t blen)
{
	return alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
}

static void dso_open(struct pev_symbols *s, struct sym_dso *d);

struct sym_dso *pev__dso_get(struct pev_symbols *s, const char *path, const char *open_path,
			     const unsigned char *bid, size_t bid_len)
{
	uint64_t h = pev__hash_str(path);
	struct sym_dso *head = pev__u64map_get(&s->dsos, h), *d;
	const char *want_open = open_path ? open_path : path;

	for (d = head; d; d = d->next_same_hash) {
		if (strcmp(d->path, path) != 0 || strcmp(d->open_path, want_open) != 0)
			continue;
		if (same_bid(d->want_bid, d->want_bid_len, bid, bid_len))
			return d;
		/* Without a recorded build id, the file at the path will do. */
		if (!bid_len && d->opened && d->status == PEV_SYMBOL_OK &&
		    !(d->flags & PEV_SYMBOL_BY_BUILD_ID))
			return d;
		/* A DSO opened without a recorded build id is this one when the
		 * file it read has the build id asked for. */
		if (bid_len && !d->want_bid_len) {
			if (!d->opened)
				dso_open(s, d);
			if (d->status == PEV_SYMBOL_OK && same_bid(d->bid, d->bid_len, bid, bid_len))
				return d;
		}
	}

	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->path = strdup(path);
	d->open_path = strdup(want_open);
	if (!d->path || !d->open_path) {
		pev__dso_free(d);
		return NULL;
	}
	if (bid_len)
		memcpy(d->want_bid, bid, bid_len);
	d->want_bid_len = bid_len;
	d->is_vdso = strcmp(path, "[vdso]") == 0;
	d->next_same_hash = head;
	if (pev__u64map_put(&s->dsos, h, d) < 0) {
		pev__dso_free(d);
		return NULL;
	}
	if (d->is_vdso && !s->vdso)
		s->vdso = d;
	s->st.dsos++;
	return d;
}

void pev__dso_free(struct sym_dso *d)
{
	if (!d)
		return;
	if (d->dwfl)
		dwfl_end(d->dwfl);
	pev__dso_cus_free(&d->cus);
	pev__u64map_free(&d->addrs);
	pev__u64map_free(&d->syms);
	free(d->loads);
	free(d->path);
	free(d->open_path);
	free(d);
}

/* ---- opening DSOs ----------------------------------------------------------- */

static void hex(char *out, const unsigned char *bid, size_t len)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		out[2 * i] = digits[bid[i] >> 4];
		out[2 * i + 1] = digits[bid[i] & 15];
	}
	out[2 * len] = '\0';
}

/* Reads the module's PT_LOAD headers and build id into d. */
static bool read_headers(struct sym_dso *d, Dwfl_Module *mod)
{
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	size_t n;
	const unsigned char *bits;
	GElf_Addr vaddr;
	int len;

	if (!elf || elf_getphdrnum(elf, &n) != 0)
		return false;
	d->loads = calloc(n ? n : 1, sizeof(*d->loads));
	if (!d->loads)
		return false;
	d->nloads = 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		d->loads[d->nloads++] = (struct dso_load){.vaddr = ph.p_vaddr,
							  .offset = ph.p_offset,
							  .filesz = ph.p_filesz,
							  .memsz = ph.p_memsz,
							  .exec = (ph.p_flags & PF_X) != 0};
	}
	len = dwfl_module_build_id(mod, &bits, &vaddr);
	d->bid_len = 0;
	if (len > 0 && (size_t)len <= sizeof(d->bid)) {
		memcpy(d->bid, bits, (size_t)len);
		d->bid_len = (size_t)len;
	}
	return true;
}

/*
 * Opens file (a regular ELF file) as d's symbols. debug_only: the file is
 * a separate debuginfo file, whose segment offsets are not the real ones.
 * Returns PEV_SYMBOL_OK with d->dwfl and d->mod set, or why not.
 */
static enum pev_symbol_status try_file(struct pev_symbols *s, struct sym_dso *d,
				       const char *file, bool debug_only)
{
	Dwfl *dwfl;
	Dwfl_Module *mod;
	int fd = pev__open_regular(file);

	if (fd == PEV_ENOTREG)
		return PEV_SYMBOL_NOT_ELF;
	if (fd < 0)
		return fd == -ENOENT || fd == -ENOTDIR ? PEV_SYMBOL_DSO_MISSING
						       : PEV_SYMBOL_DSO_UNREADABLE;
	dwfl = dwfl_begin(&s->callbacks);
	if (!dwfl) {
		close(fd);
		return PEV_SYMBOL_DSO_UNREADABLE;
	}
	dwfl_report_begin(dwfl);
	/* libdwfl keeps fd when the module is made (dwfl_end closes it), and
	 * leaves it to us when not: it never opens the path itself. */
	mod = dwfl_report_elf(dwfl, d->path, file, fd, 0, true);
	if (!mod)
		close(fd);
	if (mod) { /* for pev__find_debuginfo */
		void **ud;
		dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
		*ud = s;
	}
	if (!mod || dwfl_report_end(dwfl, NULL, NULL) != 0) {
		pev__log(PEV_LOG_DEBUG, "symbols: %s: %s", file, dwfl_errmsg(-1));
		dwfl_end(dwfl);
		return PEV_SYMBOL_NOT_ELF;
	}
	s->st.dso_opens++;
	free(d->loads);
	d->loads = NULL;
	if (!read_headers(d, mod)) {
		dwfl_end(dwfl);
		return PEV_SYMBOL_NOT_ELF;
	}
	if (d->want_bid_len && !same_bid(d->bid, d->bid_len, d->want_bid, d->want_bid_len)) {
		dwfl_end(dwfl);
		return PEV_SYMBOL_BUILDID_MISMATCH;
	}
	d->dwfl = dwfl;
	d->mod = mod;
	d->offsets_known = !debug_only;
	return PEV_SYMBOL_OK;
}

/*
 * The vDSO: the kernel maps the same image into every process, so perfev's
 * own copy (AT_SYSINFO_EHDR) stands for every process's. It is copied into
 * a memfd for libdwfl to open like a file.
 */
static enum pev_symbol_status open_vdso(struct pev_symbols *s, struct sym_dso *d)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	char line[256], path[64];
	unsigned long long lo, hi, size = 0;
	enum pev_symbol_status st;
	FILE *f;
	int fd;

	if (!base)
		return PEV_SYMBOL_DSO_MISSING;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return PEV_SYMBOL_DSO_UNREADABLE;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 && lo == base && hi > lo) {
			size = hi - lo;
			break;
		}
	fclose(f);
	if (!size)
		return PEV_SYMBOL_DSO_MISSING;
	fd = memfd_create("perfev-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return PEV_SYMBOL_DSO_UNREADABLE;
	/* write(2) copies from the mapping in the kernel: no user-space reads of it. */
	if (write(fd, (const void *)base, size) != (ssize_t)size) {
		close(fd);
		return PEV_SYMBOL_DSO_UNREADABLE;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	st = try_file(s, d, path, false);
	close(fd); /* libdwfl holds its own descriptor */
	return st;
}

/* Opens d: the file at its path, else a file with the recorded build id. */
static void dso_open(struct pev_symbols *s, struct sym_dso *d)
{
	enum pev_symbol_status st;
	char bidhex[2 * PEV_BUILD_ID_MAX + 1], file[4096];

	d->opened = true;
	if (d->is_vdso) {
		d->status = open_vdso(s, d);
		return;
	}
	st = try_file(s, d, d->open_path, false);
	if (st == PEV_SYMBOL_OK || !d->want_bid_len) {
		d->status = st;
		return;
	}
	/* The recorded build: perf's build-id cache keeps a copy of the file
	 * (elf) and maybe its debug file (debug), the debuginfo tree a debug
	 * file with the symbols. */
	hex(bidhex, d->want_bid, d->want_bid_len);
	if (s->buildid_cache[0]) {
		snprintf(file, sizeof(file), "%s/.build-id/%.2s/%s/elf", s->buildid_cache, bidhex,
			 bidhex + 2);
		if (try_file(s, d, file, false) == PEV_SYMBOL_OK) {
			d->flags |= PEV_SYMBOL_BY_BUILD_ID;
			d->status = PEV_SYMBOL_OK;
			return;
		}
		snprintf(file, sizeof(file), "%s/.build-id/%.2s/%s/debug", s->buildid_cache,
			 bidhex, bidhex + 2);
		if (try_file(s, d, file, true) == PEV_SYMBOL_OK) {
			d->flags |= PEV_SYMBOL_BY_BUILD_ID;
			d->status = PEV_SYMBOL_OK;
			return;
		}
	}
	snprintf(file, sizeof(file), "%s/.build-id/%.2s/%s.debug", s->debug_dir, bidhex, bidhex + 2);
	if (try_file(s, d, file, true) == PEV_SYMBOL_OK) {
		d->flags |= PEV_SYMBOL_BY_BUILD_ID;
		d->status = PEV_SYMBOL_OK;
		return;
	}
	d->status = st;
}

/* ---- addresses ---------------------------------------------------------------- */

/*
 * The file's virtual address of process address addr in mapping m: the
 * file offset (addr - start + pgoff) goes through the PT_LOAD segment whose
 * file contents hold it. An offset past every segment's contents may be
 * zero-filled memory (.bss) in the mapping's last page: it belongs to the
 * segment whose file contents the mapping shows (the mapping's pgoff lies
 * in them) and whose memory reaches that far. For a debuginfo-only file the real offsets are unknown: the mapping
 * is taken to be the executable segment, which holds every code address.
 */
static bool to_vaddr(const struct sym_dso *d, const struct sym_map *m, uint64_t addr,
		     uint64_t *out)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t off = addr - m->start + m->pgoff;

	if (!d->offsets_known) {
		for (size_t i = 0; i < d->nloads; i++)
			if (d->loads[i].exec) {
				*out = (d->loads[i].vaddr & ~(page - 1)) + (addr - m->start);
				return true;
			}
		return false;
	}
	for (size_t i = 0; i < d->nloads; i++) {
		const struct dso_load *l = &d->loads[i];

		if (off >= l->offset && off - l->offset < l->filesz) {
			*out = off - l->offset + l->vaddr;
			return true;
		}
	}
	for (size_t i = 0; i < d->nloads; i++) {
		const struct dso_load *l = &d->loads[i];

		if ((l->offset & ~(page - 1)) <= m->pgoff && m->pgoff < l->offset + l->filesz &&
		    off >= l->offset && off - l->offset < l->memsz) {
			*out = off - l->offset + l->vaddr;
			return true;
		}
	}
	/* A mapping that reserves the whole file's span (ld.so's first mmap of
	 * a library, before it maps the segments over it) reaches past the
	 * file: its bytes there are a segment's zero-filled memory, as perf
	 * counts offsets (a garbage return address into .bss is named as perf
	 * names it). */
	for (size_t i = 0; i < d->nloads; i++) {
		const struct dso_load *l = &d->loads[i];

		if (off >= l->offset && off - l->offset < l->memsz) {
			*out = off - l->offset + l->vaddr;
			return true;
		}
	}
	return false;
}

/* ---- DWARF: lines and inline frames -------------------------------------------- */

/*
 * A DIE's name for people: its linkage name demangled, else its name. A
 * linkage name that is no C++ name is the assembler's name of a C function
 * (glibc's `__GI___open64_nocancel` for `__open64_nocancel`, declared with
 * an asm label): that one, as binutils' addr2line and so perf name it.
 */
static const char *die_name(struct pev_symbols *s, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name = NULL;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr)) {
		const char *linkage = dwarf_formstring(&attr);
		if (linkage && strncmp(linkage, "_Z", 2) != 0)
			return linkage;
		if (linkage && !(s->opts.flags & PEV_SYMBOLS_NO_DEMANGLE) &&
		    (name = pev__sym_demangle(&s->arena, linkage, short_names(s))))
			return name;
	}
	return dwarf_diename(die);
}

/* Where an inlined subroutine DIE is called from. */
static void call_site(Dwarf_Die *die, const char **file, unsigned *line, unsigned *col)
{
	Dwarf_Attribute attr;
	Dwarf_Word v;
	Dwarf_Die cu;
	Dwarf_Files *files;
	size_t nfiles;

	*file = NULL;
	*line = *col = 0;
	if (dwarf_attr(die, DW_AT_call_line, &attr) && dwarf_formudata(&attr, &v) == 0)
		*line = (unsigned)v;
	if (dwarf_attr(die, DW_AT_call_column, &attr) && dwarf_formudata(&attr, &v) == 0)
		*col = (unsigned)v;
	if (dwarf_attr(die, DW_AT_call_file, &attr) && dwarf_formudata(&attr, &v) == 0 &&
	    dwarf_diecu(die, &cu, NULL, NULL) && dwarf_getsrcfiles(&cu, &files, &nfiles) == 0 &&
	    v < nfiles)
		*file = dwarf_filesrc(files, v, NULL, NULL);
}

/*
 * The name of the subprogram fn, or where the assembler described one
 * function under each of its names (GNU as 2.40 gives `__strlen` and
 * `strlen` a subprogram each, with one range, in the source's order), the
 * last of those twins: binutils' addr2line keeps the last one read of
 * subprograms over one range, and perf names the function as it does
 * (marked inlined where that is not the ELF symbol's name).
 */
static const char *subprogram_name(struct pev_symbols *s, Dwarf_Die *fn)
{
	Dwarf_Addr lo, hi, twin_lo, twin_hi;
	Dwarf_Die twin = *fn, last = *fn;

	if (dwarf_lowpc(fn, &lo) != 0 || dwarf_highpc(fn, &hi) != 0)
		return die_name(s, fn);
	while (dwarf_siblingof(&twin, &twin) == 0 && dwarf_tag(&twin) == DW_TAG_subprogram &&
	       dwarf_lowpc(&twin, &twin_lo) == 0 && twin_lo == lo &&
	       dwarf_highpc(&twin, &twin_hi) == 0 && twin_hi == hi)
		last = twin;
	return die_name(s, &last);
}

/*
 * Collects the inline chain and the containing function at vaddr (in
 * compile unit cu, whose DWARF addresses are module addresses - bias) into
 * e. dwarf_getscopes gives the innermost scope at the address; from an inlined
 * instance it continues with the inlined function's own (abstract) parents,
 * so the callers come from the innermost scope's parents in the DIE tree
 * (dwarf_getscopes_die): inlined instances nested in one another, inside
 * the function that holds them all.
 */
static int read_frames(struct pev_symbols *s, Dwarf_Die *cu, uint64_t bias, uint64_t vaddr,
		       struct dso_addr *e, uint64_t *fn_lo, uint64_t *fn_hi)
{
	Dwarf_Die *scopes = NULL, *chain = NULL;
	int n, nfun = 0, k = 0;
	struct pev_symbol_frame *fr;

	n = dwarf_getscopes(cu, vaddr - bias, &scopes);
	if (n > 0)
		n = dwarf_getscopes_die(&scopes[0], &chain);
	free(scopes);
	if (n <= 0) {
		free(chain);
		return 0;
	}
	for (int i = 0; i < n; i++) {
		int tag = dwarf_tag(&chain[i]);
		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram)
			nfun++;
		if (tag == DW_TAG_subprogram)
			break;
	}
	if (!nfun) {
		free(chain);
		return 0;
	}
	fr = pev__arena_alloc(&s->arena, (size_t)nfun * sizeof(*fr));
	if (!fr) {
		free(chain);
		return -ENOMEM;
	}
	const char *file = e->file;
	unsigned line = e->line, col = e->column;

	for (int i = 0; i < n && k < nfun; i++) {
		int tag = dwarf_tag(&chain[i]);

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		fr[k].function = tag == DW_TAG_subprogram
					 ? subprogram_name(s, &chain[i])
					 : die_name(s, &chain[i]);
		fr[k].file = file;
		fr[k].line = line;
		fr[k].column = col;
		k++;
		if (tag == DW_TAG_inlined_subroutine) {
			if (!(s->opts.flags & PEV_SYMBOLS_NO_LINES))
				call_site(&chain[i], &file, &line, &col);
		} else {
			Dwarf_Addr lo, hi;
			if (dwarf_lowpc(&chain[i], &lo) == 0 && dwarf_highpc(&chain[i], &hi) == 0 &&
			    hi > lo) {
				*fn_lo = lo + bias;
				*fn_hi = hi + bias;
			}
		}
	}
	free(chain);
	e->frames = fr;
	e->nframes = (unsigned)k;
	return 0;
}

/*
 * Reads the source position and (unless PEV_SYMBOLS_NO_INLINE) the inline
 * chain at vaddr into e. The compile unit comes from pev__dso_cu_find, not
 * from dwfl_module_getsrc, which knows only the units .debug_aranges lists.
 */
static int read_dwarf(struct pev_symbols *s, struct sym_dso *d, uint64_t vaddr,
		      struct dso_addr *e, uint64_t *fn_lo, uint64_t *fn_hi)
{
	Dwarf_Die cu;
	Dwarf_Line *l;
	uint64_t bias;
	int line = 0, col = 0, r;

	if (!d->dwarf_tried) {
		Dwarf_Addr b;
		const char *debugfile = NULL, *mainfile = NULL;

		d->dwarf_tried = true;
		d->has_dwarf = dwfl_module_getdwarf(d->mod, &b) != NULL;
		dwfl_module_info(d->mod, NULL, NULL, NULL, NULL, NULL, &mainfile, &debugfile);
		if (d->has_dwarf && debugfile && (!mainfile || strcmp(debugfile, mainfile) != 0))
			d->debug_file = debugfile;
	}
	if (!d->has_dwarf)
		return 0;
	r = pev__dso_cu_find(&d->cus, d->mod, vaddr, &cu, &bias);
	if (r <= 0)
		return r;
	l = (s->opts.flags & PEV_SYMBOLS_NO_LINES) ? NULL : dwarf_getsrc_die(&cu, vaddr - bias);
	if (l) {
		e->file = dwarf_linesrc(l, NULL, NULL);
		if (dwarf_lineno(l, &line) == 0 && line > 0)
			e->line = (unsigned)line;
		if (dwarf_linecol(l, &col) == 0 && col > 0)
			e->column = (unsigned)col;
	}
	if (s->opts.flags & PEV_SYMBOLS_NO_INLINE)
		return 0;
	return read_frames(s, &cu, bias, vaddr, e, fn_lo, fn_hi);
}

/* ---- symbols ------------------------------------------------------------------ */

/* Names ds for display: its raw name demangled when it is a C++ name. */
static void name_sym(struct pev_symbols *s, struct dso_sym *ds, const char *raw)
{
	const char *dm = NULL;

	ds->name = raw;
	if (!is_mangled(raw))
		return;
	if (!(s->opts.flags & PEV_SYMBOLS_NO_DEMANGLE))
		dm = pev__sym_demangle(&s->arena, raw, short_names(s));
	if (dm)
		ds->name = dm;
	else
		ds->mangled = true;
}

/* The symbol of a PLT stub or a DWARF function at start (made once per start). */
static const struct dso_sym *get_sym(struct pev_symbols *s, struct sym_dso *d, uint64_t start,
				     uint64_t size, const char *raw)
{
	struct dso_sym *ds = pev__u64map_get(&d->syms, start);

	if (ds)
		return ds;
	ds = pev__arena_alloc(&s->arena, sizeof(*ds));
	if (!ds)
		return NULL;
	ds->start = start;
	ds->size = size;
	name_sym(s, ds, raw);
	if (pev__u64map_put(&d->syms, start, ds) < 0)
		return NULL;
	return ds;
}

/*
 * The ELF symbol holding vaddr in d: from the index, else a PLT stub's.
 * Returns 0 with *out (NULL: none) or -ENOMEM.
 */
static int elf_symbol(struct pev_symbols *s, struct sym_dso *d, uint64_t vaddr,
		      const struct dso_sym **out)
{
	struct sym_index *x = pev__dso_index(s, d);
	struct dso_sym *ds;
	const char *plt_name;
	uint64_t plt_start, plt_size;
	int plt;

	*out = NULL;
	if (!x)
		return -ENOMEM;
	if ((ds = pev__index_find(x, vaddr))) {
		if (!ds->name)
			name_sym(s, ds, ds->raw);
		*out = ds;
	} else if ((plt = pev__dso_plt_find(s, d, vaddr, &plt_start, &plt_size, &plt_name)) != 0) {
		/* A PLT stub: named after the function it jumps to, as perf does. */
		if (plt < 0 || !(*out = get_sym(s, d, plt_start, plt_size, plt_name)))
			return -ENOMEM;
	}
	return 0;
}

/* Looks vaddr up in d (ELF symbols, then DWARF) and caches the answer. */
static struct dso_addr *lookup(struct pev_symbols *s, struct sym_dso *d, uint64_t vaddr)
{
	struct dso_addr *e = pev__arena_alloc(&s->arena, sizeof(*e));
	uint64_t fn_lo = 0, fn_hi = 0;

	if (!e || elf_symbol(s, d, vaddr, &e->sym) < 0 ||
	    read_dwarf(s, d, vaddr, e, &fn_lo, &fn_hi) < 0)
		return NULL;
	if (e->sym) {
		/* named */
	} else if (e->nframes && e->frames[e->nframes - 1].function && fn_hi > fn_lo &&
		   vaddr >= fn_lo && vaddr < fn_hi) {
		/* No ELF symbol (a stripped file with separate DWARF, a local
		 * symbol dropped): the DWARF function stands in for it. */
		if (!(e->sym = get_sym(s, d, fn_lo, fn_hi - fn_lo,
				       e->frames[e->nframes - 1].function)))
			return NULL;
	}
	if (pev__u64map_put(&d->addrs, vaddr, e) < 0)
		return NULL;
	return e;
}

int pev__dso_resolve(struct pev_symbols *s, const struct sym_map *m, uint64_t addr,
		     struct pev_symbol *out)
{
	struct sym_dso *d = m->dso;
	uint64_t vaddr;
	struct dso_addr *e, nodwarf = {0};

	if (!d->opened)
		dso_open(s, d);
	if (d->status != PEV_SYMBOL_OK) {
		pev__sym_unknown(out, d->status, d->path, addr - m->start + m->pgoff);
		if (d->is_vdso)
			out->flags |= PEV_SYMBOL_VDSO;
		return 0;
	}
	if (!to_vaddr(d, m, addr, &vaddr)) {
		pev__sym_unknown(out, PEV_SYMBOL_NO_SYMBOL, d->path, addr - m->start + m->pgoff);
		return 0;
	}
	if (s->opts.flags & PEV_SYMBOLS_NO_SRCLINE) {
		/* No DWARF to keep: the index answers at once, no cache needed. */
		if (elf_symbol(s, d, vaddr, &nodwarf.sym) < 0)
			return -ENOMEM;
		e = &nodwarf;
	} else if ((e = pev__u64map_get(&d->addrs, vaddr))) {
		s->st.cache_hits++;
	} else if (!(e = lookup(s, d, vaddr))) {
		return -ENOMEM;
	}

	if (e->sym) {
		out->status = PEV_SYMBOL_OK;
		out->name = e->sym->name;
		out->offset = vaddr - e->sym->start;
		out->start = addr - out->offset;
		out->size = e->sym->size;
		if (e->sym->mangled)
			out->flags |= PEV_SYMBOL_MANGLED;
	} else {
		pev__sym_unknown(out, PEV_SYMBOL_NO_SYMBOL, NULL, 0);
	}
	out->dso = d->path;
	out->dso_addr = vaddr;
	out->build_id = d->bid_len ? d->bid : NULL;
	out->build_id_size = d->bid_len;
	out->file = e->file;
	out->line = e->line;
	out->column = e->column;
	out->frames = e->nframes ? e->frames : NULL;
	out->nframes = e->nframes;
	out->debug_file = d->debug_file;
	out->flags |= d->flags;
	if (e->file || e->nframes)
		out->flags |= PEV_SYMBOL_DEBUGINFO;
	if (d->is_vdso)
		out->flags |= PEV_SYMBOL_VDSO;
	return 0;
}

Elf *pev__dso_elf(struct pev_symbols *s, struct sym_dso *d)
{
	Dwarf_Addr bias;

	if (!d->opened)
		dso_open(s, d);
	if (d->status != PEV_SYMBOL_OK || !d->offsets_known)
		return NULL;
	return dwfl_module_getelf(d->mod, &bias);
}
