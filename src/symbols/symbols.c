/* SPDX-License-Identifier: MIT */
/*
 * symbols.c - the symbolizer object (perfev/symbols.h): options, the
 * record-driven updates of address spaces, and the order in which a lookup
 * tries its sources:
 *
 *   1. an address in the kernel half: kallsyms (symbols_kernel.c);
 *   2. the process's jitdump, when a mapping of a jit-PID.dump named one
 *      (symbols_jitdump.c): its code overrides what is mapped there, as the
 *      mappings perf inject --jit adds do;
 *   3. the process's mapping that holds the address:
 *      a file or the vDSO: its ELF symbols and DWARF (symbols_dso.c);
 *      anonymous memory, or no mapping at all: the JIT map (symbols_jit.c);
 *   4. otherwise "[unknown]", with the reason in the status.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error_internal.h"
#include "symbols/symbols_internal.h"
#include "core/util.h"

/* ---- options and lifetime ------------------------------------------------- */

static int copy_opts(struct pev_symbols_opts *dst, const struct pev_symbols_opts *src,
		     struct pev_error *err)
{
	static const char func[] = "pev_symbols_new";

	int r = pev__opts_copy_sized(dst, sizeof(*dst), src, func, "PEV_SYMBOLS_OPTS_INIT", err);

	if (r < 0)
		return r;
	if (dst->flags & ~(PEV_SYMBOLS_NO_DEMANGLE | PEV_SYMBOLS_NO_SRCLINE | PEV_SYMBOLS_NO_INLINE |
			   PEV_SYMBOLS_NO_KERNEL | PEV_SYMBOLS_PROC | PEV_SYMBOLS_SHORT_NAMES |
			   PEV_SYMBOLS_NO_LINES))
		return pev__bad_arg(err, func, "opts", "opts.flags has unknown bits (0x%x)",
				    dst->flags);
	return 0;
}

/* Copies opt (or def when NULL), dropping trailing slashes. */
static char *dir_or(const char *opt, const char *def)
{
	const char *v = opt ? opt : def;
	size_t len = strlen(v);

	while (len > 1 && v[len - 1] == '/')
		len--;
	return strndup(v, len);
}

PEV_API int pev_symbols_new(const struct pev_symbols_opts *opts, struct pev_symbols **out,
			    struct pev_error *err)
{
	struct pev_symbols *s;
	const char *home = getenv("HOME"), *cache_env = getenv("PERF_BUILDID_DIR");
	const char *debug_env = getenv("PERFEV_DEBUG_DIR");
	char cache_def[4096];
	size_t plen;
	int r;

	pev__error_clear(err);
	if (!out)
		return pev__bad_arg(err, "pev_symbols_new", "out", "out is NULL");
	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return pev__error_start(err, PEV_ENOMEM, ENOMEM, NULL, NULL, true);
	if ((r = copy_opts(&s->opts, opts, err)) < 0) {
		free(s);
		return r;
	}
	/* perf's cache: PERF_BUILDID_DIR, else $HOME/.debug. */
	if (cache_env && cache_env[0])
		snprintf(cache_def, sizeof(cache_def), "%s", cache_env);
	else
		snprintf(cache_def, sizeof(cache_def), "%s/.debug",
			 home && home[0] ? home : "/root");
	s->kallsyms_path = strdup(s->opts.kallsyms ? s->opts.kallsyms : "/proc/kallsyms");
	s->jit_dir = dir_or(s->opts.jit_dir, "/tmp");
	s->debug_dir = dir_or(s->opts.debug_dir,
			      debug_env && debug_env[0] ? debug_env : "/usr/lib/debug");
	s->buildid_cache = s->opts.buildid_cache && !s->opts.buildid_cache[0]
				   ? strdup("")
				   : dir_or(s->opts.buildid_cache, cache_def);
	/* Borrowed strings are not kept: the copies above stand for them. */
	s->opts.kallsyms = s->opts.jit_dir = s->opts.debug_dir = s->opts.buildid_cache = NULL;
	plen = (s->debug_dir ? strlen(s->debug_dir) : 0) + 16;
	s->debuginfo_path = malloc(plen);
	if (!s->kallsyms_path || !s->jit_dir || !s->debug_dir || !s->buildid_cache ||
	    !s->debuginfo_path) {
		pev_symbols_free(s);
		return pev__error_start(err, PEV_ENOMEM, ENOMEM, NULL, NULL, true);
	}
	/* libdwfl looks for debuginfo next to the file, in .debug/ beside it,
	 * then under debug_dir: by build id (.build-id/xx/rest.debug) first, by
	 * path and .gnu_debuglink name after. */
	snprintf(s->debuginfo_path, plen, ":.debug:%s", s->debug_dir);
	s->callbacks.find_elf = dwfl_build_id_find_elf;
	s->callbacks.find_debuginfo = pev__find_debuginfo;
	s->callbacks.debuginfo_path = &s->debuginfo_path;
	*out = s;
	return 0;
}

static void free_proc(void *val, void *ctx)
{
	(void)ctx;
	pev__sym_proc_free(val);
}

static void free_jit(void *val, void *ctx)
{
	(void)ctx;
	pev__jit_free(val);
}

static void free_jitdump(void *val, void *ctx)
{
	(void)ctx;
	pev__jitdump_free(val);
}

static void free_dso_chain(void *val, void *ctx)
{
	struct sym_dso *d = val;
	(void)ctx;

	while (d) {
		struct sym_dso *next = d->next_same_hash;
		pev__dso_free(d);
		d = next;
	}
}

PEV_API void pev_symbols_free(struct pev_symbols *s)
{
	if (!s)
		return;
	pev__u64map_each(&s->procs, free_proc, NULL);
	pev__u64map_free(&s->procs);
	pev__u64map_each(&s->dsos, free_dso_chain, NULL);
	pev__u64map_free(&s->dsos);
	pev__u64map_free(&s->labels);
	pev__u64map_free(&s->indexes);
	while (s->all_indexes) {
		struct sym_index *next = s->all_indexes->next_all;
		pev__index_free(s->all_indexes);
		s->all_indexes = next;
	}
	pev__u64map_each(&s->jits, free_jit, NULL);
	pev__u64map_free(&s->jits);
	pev__threads_free(s);
	pev__u64map_each(&s->jitdumps, free_jitdump, NULL);
	pev__u64map_free(&s->jitdumps);
	while (s->old_jitdumps) {
		struct sym_jitdump *next = s->old_jitdumps->next_old;
		pev__jitdump_free(s->old_jitdumps);
		s->old_jitdumps = next;
	}
	pev__kernel_free(s->kernel);
	free(s->kmods);
	pev__arena_free(&s->arena);
	free(s->kallsyms_path);
	free(s->jit_dir);
	free(s->debug_dir);
	free(s->buildid_cache);
	free(s->debuginfo_path);
	free(s);
}

/* ---- address spaces -------------------------------------------------------- */

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t sl = strlen(suffix);

	return len >= sl && memcmp(s + len - sl, suffix, sl) == 0;
}

/* One copy of each label ("//anon", "[heap]", ...), however many mappings carry it. */
static const char *intern_label(struct pev_symbols *s, const char *name, size_t len)
{
	char tmp[256];
	uint64_t h;
	const char *have;

	if (len >= sizeof(tmp))
		len = sizeof(tmp) - 1;
	memcpy(tmp, name, len);
	tmp[len] = '\0';
	h = pev__hash_str(tmp);
	have = pev__u64map_get(&s->labels, h);
	if (have && strcmp(have, tmp) == 0)
		return have;
	char *copy = pev__arena_strdup(&s->arena, tmp);
	if (!copy)
		return NULL;
	if (!have && pev__u64map_put(&s->labels, h, copy) < 0)
		return NULL;
	return copy;
}

int pev__sym_add(struct pev_symbols *s, struct sym_proc *p, uint64_t start, uint64_t end,
		 uint64_t pgoff, const char *path, const char *root, const unsigned char *bid,
		 size_t bid_len)
{
	static const char deleted[] = " (deleted)";
	size_t len = strlen(path);
	struct sym_dso *dso = NULL;
	const char *label = NULL;
	char name[4096], open_path[4096 + 64];

	/* A deleted file is looked for under its old name: found when a copy
	 * took its place (a build id then tells whether it is the same build). */
	if (path[0] == '/' && ends_with(path, len, deleted))
		len -= sizeof(deleted) - 1;
	if (len >= sizeof(name))
		len = sizeof(name) - 1;
	memcpy(name, path, len);
	name[len] = '\0';

	if (name[0] == '/' && pev__jitdump_path(name, NULL)) {
		/* The mapping a JIT makes of its jitdump so that recordings name it:
		 * the file describes the process's code (no ELF file to open). */
		if (root)
			snprintf(open_path, sizeof(open_path), "%s%s", root, name);
		if (pev__jitdump_add(s, p->pid, root ? open_path : name) < 0 ||
		    !(label = intern_label(s, name, strlen(name))))
			return -ENOMEM;
	} else if (name[0] == '/' && strncmp(name, "/memfd:", 7) != 0 &&
		   strncmp(name, "//anon", 6) != 0) {
		if (root) {
			snprintf(open_path, sizeof(open_path), "%s%s", root, name);
			dso = pev__dso_get(s, name, open_path, bid, bid_len);
		} else {
			dso = pev__dso_get(s, name, NULL, bid, bid_len);
		}
		if (!dso)
			return -ENOMEM;
	} else if (strcmp(name, "[vdso]") == 0) {
		if (!(dso = pev__dso_get(s, name, NULL, bid, bid_len)))
			return -ENOMEM;
	} else {
		/* Anonymous memory, memfd code, [heap], [stack]: JIT code lives here.
		 * Named as the kernel named it, " (deleted)" included, as perf does. */
		size_t full = strlen(path);
		label = intern_label(s, path[0] ? path : "//anon", path[0] ? full : 6);
		if (!label)
			return -ENOMEM;
	}
	return pev__sym_map_insert(s, p, start, end, pgoff, dso, label);
}

PEV_API int pev_symbols_add_mapping(struct pev_symbols *s, int32_t pid, uint64_t start,
				    uint64_t len, uint64_t pgoff, const char *path,
				    const unsigned char *build_id, size_t build_id_size)
{
	struct sym_proc *p;

	static const char fn[] = "pev_symbols_add_mapping";

	if (!s || !path)
		return pev__bad_arg(NULL, fn, s ? "path" : "s", "NULL");
	if (!len || start + len < start)
		return pev__bad_arg(NULL, fn, "len", "%" PRIu64 " bytes at %#" PRIx64 ": empty or "
				    "past the end of the address space", len, start);
	if (build_id_size > PEV_BUILD_ID_MAX || (build_id_size && !build_id))
		return pev__bad_arg(NULL, fn, "build_id", "%zu bytes at %p (%d at most)",
				    build_id_size, (const void *)build_id, PEV_BUILD_ID_MAX);
	if (pid == -1) /* the kernel's own mappings: kallsyms covers them, but for modules' ends */
		return pev__kernel_module_at(s, start, start + len, path) < 0 ? PEV_ENOMEM : 0;
	if (!(p = pev__sym_proc(s, pid, true)))
		return PEV_ENOMEM;
	return pev__sym_add(s, p, start, start + len, pgoff, path, NULL, build_id, build_id_size) < 0
		       ? PEV_ENOMEM
		       : 0;
}

PEV_API int pev_symbols_read_process(struct pev_symbols *s, int32_t pid, struct pev_error *err)
{
	pev__error_clear(err);
	if (!s)
		return pev__bad_arg(err, "pev_symbols_read_process", "s", "s is NULL");
	if (pid <= 0)
		return pev__bad_arg(err, "pev_symbols_read_process", "pid",
				    "pid %" PRId32 " is not a process id", pid);
	return pev__sym_read_maps(s, pid, err);
}

PEV_API int pev_symbols_fork(struct pev_symbols *s, int32_t parent, int32_t child)
{
	struct sym_proc *pp, *cp;

	if (!s)
		return pev__bad_arg(NULL, "pev_symbols_fork", "s", "NULL");
	if (child < 0)
		return pev__bad_arg(NULL, "pev_symbols_fork", "child", "%d: not a pid", (int)child);
	if (parent == child)
		return 0;
	pp = pev__sym_proc(s, parent, false);
	if (!(cp = pev__sym_proc(s, child, true)))
		return PEV_ENOMEM;
	cp->nmaps = 0;
	cp->files_version++;
	pev__threads_new_generation(s, child);
	if (!pp || !pp->nmaps)
		return 0;
	if (cp->cap < pp->nmaps) {
		struct sym_map *m = realloc(cp->maps, pp->nmaps * sizeof(*m));
		if (!m)
			return PEV_ENOMEM;
		cp->maps = m;
		cp->cap = pp->nmaps;
	}
	if (pp->nmaps)
		memcpy(cp->maps, pp->maps, pp->nmaps * sizeof(*cp->maps));
	cp->nmaps = pp->nmaps;
	return 0;
}

PEV_API int pev_symbols_exec(struct pev_symbols *s, int32_t pid)
{
	struct sym_proc *p;

	if (!s)
		return pev__bad_arg(NULL, "pev_symbols_exec", "s", "NULL");
	/* The old mappings stay until the new program's replace them (see the header). */
	if ((p = pev__sym_proc(s, pid, false)))
		p->files_version++;
	pev__threads_new_generation(s, pid);
	pev__jitdump_forget(s, pid);
	return 0;
}

PEV_API int pev_symbols_exit(struct pev_symbols *s, int32_t pid)
{
	if (!s)
		return pev__bad_arg(NULL, "pev_symbols_exit", "s", "NULL");
	pev__sym_proc_free(pev__u64map_del(&s->procs, (uint32_t)pid));
	pev__threads_new_generation(s, pid);
	pev__jitdump_forget(s, pid);
	return 0;
}

/* ---- lookups ----------------------------------------------------------------- */

void pev__sym_unknown(struct pev_symbol *out, enum pev_symbol_status st, const char *dso,
		      uint64_t dso_addr)
{
	out->status = st;
	out->name = SYM_UNKNOWN;
	out->offset = out->start = out->size = 0;
	if (dso)
		out->dso = dso;
	out->dso_addr = dso_addr;
}

/*
 * Whether a mapping labelled so is memory perf names by the process's JIT
 * map when it holds code: anonymous memory, /dev/zero, huge pages, the heap,
 * stacks, SysV shared memory.
 */
static bool anon_code(const char *label)
{
	return strcmp(label, "//anon") == 0 || strncmp(label, "/dev/zero", 9) == 0 ||
	       strncmp(label, "/anon_hugepage", 14) == 0 || strncmp(label, "[stack", 6) == 0 ||
	       strcmp(label, "[heap]") == 0 || strncmp(label, "/SYSV", 5) == 0;
}

/* The kernel half of a 64-bit address space (callchain markers included). */
static bool is_kernel_addr(uint64_t addr)
{
	return addr >> 63;
}

PEV_API int pev_symbols_resolve(struct pev_symbols *s, int32_t pid, uint64_t addr,
				struct pev_symbol *out)
{
	return pev__symbols_resolve_at(s, pid, addr, UINT64_MAX, out, NULL, NULL);
}

int pev__symbols_resolve_at(struct pev_symbols *s, int32_t pid, uint64_t addr, uint64_t time,
			    struct pev_symbol *out, uint64_t *from, uint64_t *until)
{
	struct pev_symbol r = PEV_SYMBOL_INIT;
	struct sym_proc *p;
	const struct sym_map *m;
	uint64_t valid_from = 0, valid_until = UINT64_MAX;
	size_t sz;

	if (!s || !out)
		return pev__bad_arg(NULL, "pev_symbols_resolve", s ? "out" : "s", "NULL");
	if (out->sz < offsetof(struct pev_symbol, name) + sizeof(out->name))
		return pev__bad_arg(NULL, "pev_symbols_resolve", "out", "out->sz is %zu: initialize "
				    "it with PEV_SYMBOL_INIT", out->sz);
	s->st.lookups++;
	if (is_kernel_addr(addr)) {
		if (!s->kernel_tried && pev__kernel_load(s, NULL) == PEV_ENOMEM)
			return PEV_ENOMEM;
		pev__kernel_resolve(s, addr, &r);
		goto done;
	}
	p = pev__sym_proc(s, pid, false);
	if (!p && (s->opts.flags & PEV_SYMBOLS_PROC) && pid > 0) {
		if (pev__sym_read_maps(s, pid, NULL) == PEV_ENOMEM)
			return PEV_ENOMEM;
		p = pev__sym_proc(s, pid, false);
	}
	m = p ? pev__sym_map_find(p, addr) : NULL;
	if (s->jitdumps.len &&
	    pev__jitdump_resolve(s, pid, addr, time, &r, &valid_from, &valid_until)) {
		goto done;
	} else if (m && m->dso) {
		if (pev__dso_resolve(s, m, addr, &r) < 0)
			return PEV_ENOMEM;
		r.flags |= PEV_SYMBOL_IN_FILE;
		r.file_offset = addr - m->start + m->pgoff;
	} else if (!pev__jit_resolve(s, m ? m->owner : pid, addr, &r)) {
		/* Anonymous memory, or no mapping at all: JIT code is named in the
		 * JIT map even when no record described its mapping. A mapping a
		 * forked child inherited is its parent's, JIT map included (perf
		 * names the mapping once, from the record that made it). */
		const char *dso = m ? m->label : NULL;
		/* As perf: anonymous code is the JIT map's, whether or not it exists. */
		if (dso && anon_code(dso) && !(dso = pev__jit_map_path(s, m->owner)))
			return PEV_ENOMEM;
		pev__sym_unknown(&r, m ? PEV_SYMBOL_ANON : PEV_SYMBOL_NO_MAPPING, dso,
				 m ? addr - m->start + m->pgoff : addr);
	}
	/* A memfd is a file too (perf shows offsets in it); anonymous memory is not. */
	if (m && !m->dso && m->label && strncmp(m->label, "/memfd:", 7) == 0) {
		r.flags |= PEV_SYMBOL_IN_FILE;
		r.file_offset = addr - m->start + m->pgoff;
	}
done:
	if (from)
		*from = valid_from;
	if (until)
		*until = valid_until;
	if (r.status != PEV_SYMBOL_OK)
		s->st.unknown++;
	sz = out->sz < sizeof(r) ? out->sz : sizeof(r);
	r.sz = sz;
	memcpy(out, &r, sz);
	return 0;
}

PEV_API int pev_symbols_read_kernel(struct pev_symbols *s, struct pev_error *err)
{
	pev__error_clear(err);
	if (!s)
		return pev__bad_arg(err, "pev_symbols_read_kernel", "s", "s is NULL");
	return pev__kernel_load(s, err);
}

PEV_API const char *pev_symbols_kernel_message(const struct pev_symbols *s)
{
	return s ? s->kernel_msg : NULL;
}

static void count_maps(void *val, void *ctx)
{
	*(uint64_t *)ctx += ((struct sym_proc *)val)->nmaps;
}

PEV_API int pev_symbols_stats(const struct pev_symbols *s, struct pev_symbols_stats *out)
{
	struct pev_symbols_stats st;
	size_t sz;

	if (!s || !out)
		return pev__bad_arg(NULL, "pev_symbols_stats", s ? "out" : "s", "NULL");
	if (out->sz < sizeof(out->sz))
		return pev__bad_arg(NULL, "pev_symbols_stats", "out", "out->sz is %zu: initialize "
				    "it with PEV_SYMBOLS_STATS_INIT", out->sz);
	st = s->st;
	st.processes = s->procs.len;
	st.mappings = 0;
	pev__u64map_each(&s->procs, count_maps, &st.mappings);
	st.kernel_symbols = pev__kernel_count(s->kernel);
	sz = out->sz < sizeof(st) ? out->sz : sizeof(st);
	st.sz = sz;
	memcpy(out, &st, sz);
	return 0;
}

PEV_API const char *pev_symbol_status_str(enum pev_symbol_status status)
{
	switch (status) {
	case PEV_SYMBOL_OK:
		return "resolved";
	case PEV_SYMBOL_NO_MAPPING:
		return "no mapping holds the address";
	case PEV_SYMBOL_ANON:
		return "anonymous memory without a JIT map entry";
	case PEV_SYMBOL_DSO_MISSING:
		return "file not found";
	case PEV_SYMBOL_DSO_UNREADABLE:
		return "file not readable";
	case PEV_SYMBOL_NOT_ELF:
		return "not an ELF file";
	case PEV_SYMBOL_BUILDID_MISMATCH:
		return "build id mismatch";
	case PEV_SYMBOL_NO_SYMBOL:
		return "no symbol for the address";
	case PEV_SYMBOL_KERNEL_UNAVAILABLE:
		return "kernel symbols unavailable";
	}
	return "unknown status";
}

PEV_API int pev_symbol_format(const struct pev_symbol *sym, char *buf, size_t size)
{
	char tmp[2];
	int n;

	static const char fn[] = "pev_symbol_format";

	if (!sym)
		return pev__bad_arg(NULL, fn, "sym", "NULL");
	if (!buf && size)
		return pev__bad_arg(NULL, fn, "buf", "NULL with size %zu", size);
	if (sym->sz < offsetof(struct pev_symbol, name) + sizeof(sym->name))
		return pev__bad_arg(NULL, fn, "sym", "sym->sz is %zu: initialize it with "
				    "PEV_SYMBOL_INIT", sym->sz);
	if (!size) { /* measure only */
		buf = tmp;
		size = 1;
	}
	/* Fields past what the caller's struct holds count as absent. */
#define HAS(field) (sym->sz >= offsetof(struct pev_symbol, field) + sizeof(sym->field))
	const char *dso = HAS(dso) ? sym->dso : NULL;
	const char *file = HAS(column) ? sym->file : NULL;
	unsigned line = HAS(column) ? sym->line : 0;
	uint64_t offset = HAS(offset) ? sym->offset : 0;
#undef HAS
	if (sym->status != PEV_SYMBOL_OK || !sym->name) {
		if (dso)
			n = snprintf(buf, size, "%s (%s: %s)", SYM_UNKNOWN, dso,
				     pev_symbol_status_str(sym->status));
		else
			n = snprintf(buf, size, "%s (%s)", SYM_UNKNOWN,
				     pev_symbol_status_str(sym->status));
		return n;
	}
	n = snprintf(buf, size, "%s+0x%" PRIx64 " (%s)", sym->name, offset, dso ? dso : "?");
	if (n >= 0 && file) {
		size_t used = (size_t)n < size ? (size_t)n : size - 1;
		int m = line ? snprintf(buf + used, size - used, " %s:%u", file, line)
			     : snprintf(buf + used, size - used, " %s", file);
		n = m < 0 ? m : n + m;
	}
	return n;
}
