/* SPDX-License-Identifier: MIT */
/*
 * replay.c - a perf.data file replayed: records in time order, side-band
 * records (COMM, FORK, EXIT, MMAP, MMAP2) fed to the symbolizer and the
 * thread names, samples turned into stacks of symbolized frames.
 *
 * Each distinct (address space, address) is symbolized once: the frames it
 * gave are kept in a cache, emptied whenever a mapping changes (exec, mmap,
 * fork, exit), which recordings do mostly at their start.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error_internal.h"
#include "core/log_internal.h"
#include "perfdata/perfdata_internal.h"
#include "perfev/event.h"
#include "report/replay_internal.h"
#include "report/report_internal.h"
#include "symbols/symbols_internal.h"
#include "core/util.h"
#include "perfev/cgroup.h"

/* What one address resolved to: its frames (inline ones first), in the frame pool. */
struct addr_frames {
	uint64_t addr;
	int32_t pid;
	uint32_t nr;
	uint32_t at; /* index in the pool */
	bool kernel;
	/* The sample times between which the answer holds (jitdump code comes
	 * and goes): [from, until). */
	uint64_t from, until;
};

/* A build id the file records for a path. */
struct bid_entry {
	const struct pev_perfdata_build_id *bid;
	struct bid_entry *next; /* same hash */
};

struct pev_replay {
	struct pev_perfdata *pd;
	struct pev_symbols *sym;
	bool own_sym;
	unsigned flags;

	struct pev__rq queue;
	bool reread;             /* big records are read again from the file, not queued */
	uint64_t *record;        /* a record read again (8-aligned) */
	size_t record_cap;       /* its bytes */
	uint64_t max_time;       /* newest time read */
	uint64_t round_limit;    /* newest time read at the previous FINISHED_ROUND */
	bool eof;

	struct pev_record_format *formats; /* per event index */
	bool *format_ok;
	size_t nr_formats;

	struct pev__arena arena;  /* comms, build-id entries */
	struct pev__u64map comms; /* tid -> const char * */
	struct pev__u64map first_names; /* tid -> the name its first COMM gave it while it had none */
	struct pev__u64map bids;  /* hash of the path -> struct bid_entry * */
	struct pev__u64map programs; /* pid -> its program's path (interned in prog_paths) */
	struct pev__u64map prog_paths; /* hash of a path -> struct prog_path * */
	pev__replay_map_fn map_fn;
	void *map_ctx;

	/* The address cache: open addressing on (pid, addr). */
	struct addr_frames *cache;
	size_t cache_cap, cache_len;
	struct pev_profile_frame *pool; /* frames of cached addresses */
	size_t pool_len, pool_cap;

	struct pev_profile_frame *frames; /* the stack handed out */
	size_t cap_frames;
	struct pev_record rec;
	/* The time of the sample being symbolized, as jitdumps' times count
	 * (CLOCK_MONOTONIC), or UINT64_MAX when its clock is another. */
	uint64_t now;
	struct pev__unwind_frame unwound[PEV_MAX_STACK_DEPTH]; /* a sample's user stack */
	bool unwind_warned;    /* said once that this build cannot unwind */
	bool period_warned;    /* said once that samples with impossible periods are skipped */
	uint64_t lost;         /* the sum of LOST records' counts */
	uint64_t lost_samples; /* the sum of LOST_SAMPLES records' counts */
	bool has_lost_samples; /* any LOST_SAMPLES record read */
	char unknown_comm[24];
	pev__replay_switch_fn on_switch; /* context switches, or NULL */
	void *switch_ctx;
	pev__replay_record_fn on_record; /* every side-band record, or NULL */
	void *record_ctx;
	struct pev_cgroup_names *cgroups; /* CGROUP records' ids and paths; NULL before the first */
};

/* ---- small helpers ---------------------------------------------------------- */

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 64;
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*arr, n * elem);
	if (!p)
		return PEV_ENOMEM;
	*arr = p;
	*cap = n;
	return 0;
}

static const struct pev_record_format *format_of(struct pev_replay *r,
						 const struct pev_perfdata_event *ev)
{
	size_t i = (size_t)ev->index;

	if (i >= r->nr_formats) {
		size_t n = i + 8, cap = r->nr_formats;
		if (grow((void **)&r->formats, &cap, n, sizeof(*r->formats)))
			return NULL;
		size_t cap2 = r->nr_formats;
		if (grow((void **)&r->format_ok, &cap2, cap, sizeof(*r->format_ok)))
			return NULL;
		memset(r->format_ok + r->nr_formats, 0, (cap - r->nr_formats) * sizeof(bool));
		r->nr_formats = cap;
	}
	if (!r->format_ok[i]) {
		if (pev_record_format_from_attr(&ev->attr, &r->formats[i]))
			return NULL;
		r->format_ok[i] = true;
	}
	return &r->formats[i];
}

/* ---- threads' names ------------------------------------------------------------ */

static void set_comm(struct pev_replay *r, uint32_t tid, const char *comm)
{
	const char *old = pev__u64map_get(&r->comms, tid);
	char *c;

	if (old && strcmp(old, comm) == 0)
		return;
	c = pev__arena_strdup(&r->arena, comm);
	if (c)
		pev__u64map_put(&r->comms, tid, c);
}

static const char *comm_of(struct pev_replay *r, int32_t pid, int32_t tid)
{
	const char *c = pev__u64map_get(&r->comms, (uint32_t)tid);

	(void)pid; /* as perf: a thread no record named has no name, whatever its process */
	if (c)
		return c;
	if (tid == 0)
		return "swapper"; /* the idle task, as perf names it */
	snprintf(r->unknown_comm, sizeof(r->unknown_comm), ":%d", (int)tid);
	return r->unknown_comm;
}

const char *pev__replay_thread_name(const struct pev_replay *r, int32_t tid)
{
	return tid >= 0 ? pev__u64map_get(&r->comms, (uint32_t)tid) : NULL;
}

const char *pev__replay_first_name(const struct pev_replay *r, int32_t tid)
{
	return tid >= 0 ? pev__u64map_get(&r->first_names, (uint32_t)tid) : NULL;
}

/* Names from the file's THREAD_MAP, for threads no COMM record names. */
static void thread_map_comms(struct pev_replay *r)
{
	size_t n = 0;
	const struct pev_perfdata_thread *t = pev_perfdata_threads(r->pd, &n);

	for (size_t i = 0; i < n; i++)
		if (t[i].comm[0] && !pev__u64map_get(&r->comms, (uint32_t)t[i].pid))
			set_comm(r, (uint32_t)t[i].pid, t[i].comm);
}

/* ---- build ids ------------------------------------------------------------------ */

static void index_build_ids(struct pev_replay *r)
{
	const struct pev_perfdata_features *f = pev_perfdata_features(r->pd);

	for (size_t i = 0; i < f->nr_build_ids; i++) {
		const struct pev_perfdata_build_id *b = &f->build_ids[i];
		struct bid_entry *e;
		uint64_t h;

		if (!b->filename || b->filename[0] != '/' || b->pid != -1 || !b->size)
			continue;
		e = pev__arena_alloc(&r->arena, sizeof(*e));
		if (!e)
			return;
		h = pev__hash_str(b->filename);
		e->bid = b;
		e->next = pev__u64map_get(&r->bids, h);
		pev__u64map_put(&r->bids, h, e);
	}
}

static const struct pev_perfdata_build_id *build_id_of(struct pev_replay *r, const char *path)
{
	for (struct bid_entry *e = pev__u64map_get(&r->bids, pev__hash_str(path)); e; e = e->next)
		if (strcmp(e->bid->filename, path) == 0)
			return e->bid;
	return NULL;
}

/* ---- programs and mappings ------------------------------------------------------- */

/* A program's path, kept once however many processes run it. */
struct prog_path {
	const char *path;
	struct prog_path *next; /* same hash */
};

static const char *prog_intern(struct pev_replay *r, const char *path)
{
	uint64_t h = pev__hash_str(path);
	struct prog_path *e;

	for (e = pev__u64map_get(&r->prog_paths, h); e; e = e->next)
		if (strcmp(e->path, path) == 0)
			return e->path;
	e = pev__arena_alloc(&r->arena, sizeof(*e));
	if (!e || !(e->path = pev__arena_strdup(&r->arena, path)))
		return NULL;
	e->next = pev__u64map_get(&r->prog_paths, h);
	return pev__u64map_put(&r->prog_paths, h, e) ? NULL : e->path;
}

/* A file mapping: the process's program when it has none yet, and the map function told. */
static int note_mapping(struct pev_replay *r, int32_t pid, uint64_t start, uint64_t len,
			uint64_t pgoff, const char *path, const unsigned char *bid, size_t bid_size)
{
	struct pev__replay_map m = {path, pid, start, len, pgoff, bid, bid_size};

	if (pid >= 0 && !pev__u64map_get(&r->programs, (uint32_t)pid) && pev__path_program_like(path)) {
		const char *prog = prog_intern(r, path);
		if (!prog || pev__u64map_put(&r->programs, (uint32_t)pid, (void *)prog))
			return PEV_ENOMEM;
	}
	return r->map_fn ? r->map_fn(r->map_ctx, &m) : 0;
}

void pev__replay_on_map(struct pev_replay *r, pev__replay_map_fn fn, void *ctx)
{
	r->map_fn = fn;
	r->map_ctx = ctx;
}

const char *pev__replay_program(const struct pev_replay *r, int32_t pid)
{
	return pid >= 0 ? pev__u64map_get(&r->programs, (uint32_t)pid) : NULL;
}

/* ---- the address cache --------------------------------------------------------- */

static void cache_clear(struct pev_replay *r)
{
	if (r->cache_len)
		memset(r->cache, 0, r->cache_cap * sizeof(*r->cache));
	r->cache_len = 0;
	r->pool_len = 0;
}

static uint64_t cache_hash(int32_t pid, uint64_t addr)
{
	uint64_t h = addr * UINT64_C(0x9e3779b97f4a7c15) ^ ((uint64_t)(uint32_t)pid << 17);
	return h ^ (h >> 29);
}

/* The slot of (pid, addr): the entry, or the empty slot where it goes (nr 0). */
static struct addr_frames *cache_slot(struct pev_replay *r, int32_t pid, uint64_t addr)
{
	size_t mask = r->cache_cap - 1;

	for (size_t i = cache_hash(pid, addr) & mask;; i = (i + 1) & mask) {
		struct addr_frames *e = &r->cache[i];
		if (!e->nr || (e->addr == addr && e->pid == pid))
			return e;
	}
}

static int cache_grow(struct pev_replay *r)
{
	struct addr_frames *old = r->cache;
	size_t old_cap = r->cache_cap, cap = old_cap ? old_cap * 2 : 4096;

	r->cache = calloc(cap, sizeof(*r->cache));
	if (!r->cache) {
		r->cache = old;
		return PEV_ENOMEM;
	}
	r->cache_cap = cap;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].nr)
			*cache_slot(r, old[i].pid, old[i].addr) = old[i];
	free(old);
	return 0;
}

/* Symbolizes one address into the pool; fills e. */
static int resolve_into(struct pev_replay *r, struct addr_frames *e, int32_t pid, uint64_t addr,
			uint64_t lookup, bool kernel)
{
	struct pev_symbol sym = PEV_SYMBOL_INIT;
	int rc = pev__symbols_resolve_at(r->sym, pid, lookup, r->now, &sym, &e->from, &e->until);
	unsigned nin = 0;
	uint32_t flags = kernel || (sym.flags & PEV_SYMBOL_KERNEL) ? PEV_FRAME_KERNEL : 0;
	/* In a file: its offset there, perf's DSO-relative address (same in every process). */
	uint64_t dso_offset = (sym.flags & PEV_SYMBOL_IN_FILE) ? sym.file_offset : 0;
	const char *debug_name = NULL;
	bool ok;

	if (rc)
		return rc;
	if (r->map_fn && sym.dso && sym.build_id_size) {
		struct pev__replay_map m = {.path = sym.dso, .pid = pid, .build_id = sym.build_id,
					    .build_id_size = sym.build_id_size};
		if ((rc = r->map_fn(r->map_ctx, &m)) < 0)
			return rc;
	}
	if (sym.flags & PEV_SYMBOL_IN_FILE)
		flags |= PEV_FRAME_DSO_OFFSET;
	ok = sym.status == PEV_SYMBOL_OK;
	if (ok && !(r->flags & PEV_REPLAY_NO_INLINE) && sym.nframes > 1)
		nin = sym.nframes - 1;
	/* The debuginfo's name of the function holding the address, where not the symbol's. */
	if (ok && !(r->flags & PEV_REPLAY_NO_INLINE) && sym.nframes && sym.name &&
	    sym.frames[sym.nframes - 1].function &&
	    strcmp(sym.frames[sym.nframes - 1].function, sym.name) != 0)
		debug_name = sym.frames[sym.nframes - 1].function;
	if (grow((void **)&r->pool, &r->pool_cap, r->pool_len + nin + 1, sizeof(*r->pool)))
		return PEV_ENOMEM;
	e->addr = addr;
	e->pid = pid;
	e->kernel = kernel;
	e->at = (uint32_t)r->pool_len;
	e->nr = nin + 1;
	for (unsigned i = 0; i < nin; i++)
		r->pool[r->pool_len++] = (struct pev_profile_frame){
			.address = addr,
			.symbol = sym.frames[i].function ? sym.frames[i].function : sym.name,
			.dso = sym.dso,
			.file = sym.frames[i].file,
			.line = sym.frames[i].line,
			.flags = flags | PEV_FRAME_INLINED,
			.dso_offset = dso_offset,
		};
	r->pool[r->pool_len++] = (struct pev_profile_frame){
		.address = addr,
		.symbol = ok ? sym.name : NULL,
		.offset = ok ? sym.offset : 0,
		.dso = sym.dso,
		.file = sym.nframes ? sym.frames[sym.nframes - 1].file : sym.file,
		.line = sym.nframes ? sym.frames[sym.nframes - 1].line : sym.line,
		.flags = flags,
		.dso_offset = dso_offset,
		.debug_name = debug_name,
	};
	return 0;
}

/*
 * Appends the frames of addr (looked up at `lookup`: a return address minus
 * one, so that a call at a function's end stays in it) to the stack.
 */
static int push_address(struct pev_replay *r, size_t *n, int32_t pid, uint64_t addr,
			uint64_t lookup, bool kernel)
{
	struct addr_frames *e;
	int32_t key_pid = kernel ? -1 : pid;
	int rc;

	if (r->cache_len * 2 >= r->cache_cap && (rc = cache_grow(r)))
		return rc;
	/* The lookup address is part of the key only through addr: callers use addr - 1. */
	e = cache_slot(r, key_pid, lookup);
	if (e->nr && (r->now < e->from || (e->until != UINT64_MAX && r->now >= e->until))) {
		/* JIT code loaded or replaced since: resolved again in place. */
		if ((rc = resolve_into(r, e, key_pid, addr, lookup, kernel)))
			return rc;
		e->addr = lookup;
	} else if (!e->nr) {
		if ((rc = resolve_into(r, e, key_pid, addr, lookup, kernel)))
			return rc;
		e->addr = lookup;
		r->cache_len++;
	}
	if (grow((void **)&r->frames, &r->cap_frames, *n + e->nr, sizeof(*r->frames)))
		return PEV_ENOMEM;
	for (uint32_t i = 0; i < e->nr; i++) {
		struct pev_profile_frame *f = &r->frames[(*n)++];
		*f = r->pool[e->at + i];
		f->address = addr;
		if (lookup != addr && f->symbol && !(f->flags & PEV_FRAME_INLINED))
			f->offset += addr - lookup;
		if (f->flags & PEV_FRAME_DSO_OFFSET)
			f->dso_offset += addr - lookup;
	}
	return 0;
}

/* ---- records ------------------------------------------------------------------ */

/*
 * The kernel's text mapping, "[kernel.kallsyms]_text" (or _stext), whose
 * offset is where that symbol was: kernel symbols are looked up relative
 * to it (a kernel placed at random lies elsewhere in another boot's list).
 */
static void kernel_text(struct pev_replay *r, uint32_t pid, const char *name, uint64_t pgoff)
{
	static const char prefix[] = "[kernel.kallsyms]";

	if (pid == UINT32_MAX && strncmp(name, prefix, sizeof(prefix) - 1) == 0 &&
	    (strcmp(name + sizeof(prefix) - 1, "_text") == 0 ||
	     strcmp(name + sizeof(prefix) - 1, "_stext") == 0))
		pev__kernel_text_at(r->sym, name + sizeof(prefix) - 1, pgoff);
}

static bool is_kernel_mode(unsigned cpumode)
{
	return cpumode == PEV_RECORD_MISC_KERNEL || cpumode == PEV_RECORD_MISC_GUEST_KERNEL;
}

static int sideband(struct pev_replay *r, const struct pev_record *rec)
{
	const struct pev_perfdata_build_id *b;
	int rc = 0;

	switch (rec->type) {
	case PEV_RECORD_COMM: {
		bool unnamed = !pev__u64map_get(&r->comms, rec->comm.tid);
		const char *c;

		set_comm(r, rec->comm.tid, rec->comm.comm);
		/* perf's reports name the thread's earlier samples by its first name. */
		if (unnamed && (c = pev__u64map_get(&r->comms, rec->comm.tid)) &&
		    pev__u64map_put(&r->first_names, rec->comm.tid, (void *)c))
			return PEV_ENOMEM;
		if (pev_record_comm_exec(rec)) {
			pev__u64map_del(&r->programs, rec->comm.pid);
			rc = pev_symbols_exec(r->sym, (int32_t)rec->comm.pid);
			cache_clear(r);
		}
		rc = rc ?: pev_symbols_thread(r->sym, (int32_t)rec->comm.pid, (int32_t)rec->comm.tid);
		break;
	}
	case PEV_RECORD_FORK:
		if (rec->task.tid != rec->task.ptid) {
			/* A new task, even where one of that tid was known (perf record's
			 * /proc walk can meet a task the kernel is making, and the kernel
			 * writes its FORK too): named as its parent until a COMM names it,
			 * as perf names it. */
			const char *c = pev__u64map_get(&r->comms, rec->task.ptid);
			pev__u64map_del(&r->first_names, rec->task.tid);
			if (!c)
				pev__u64map_del(&r->comms, rec->task.tid);
			else if (pev__u64map_put(&r->comms, rec->task.tid, (void *)c) < 0)
				return PEV_ENOMEM;
		}
		if (rec->task.pid != rec->task.ppid) {
			/* perf record marks the FORK it writes for a process it found
			 * running: that process's mappings come from /proc next, none
			 * of its parent's (it has exec'd since), as perf reads them. */
			bool found_running = rec->misc & PEV_RECORD_MISC_FORK_EXEC;
			void *prog = found_running ? NULL : pev__u64map_get(&r->programs, rec->task.ppid);
			if (prog && pev__u64map_put(&r->programs, rec->task.pid, prog))
				return PEV_ENOMEM;
			rc = pev_symbols_fork(r->sym, found_running ? -1 : (int32_t)rec->task.ppid,
					      (int32_t)rec->task.pid);
			cache_clear(r);
		}
		rc = rc ?: pev_symbols_thread(r->sym, (int32_t)rec->task.pid, (int32_t)rec->task.tid);
		break;
	case PEV_RECORD_EXIT:
		/* Samples of a process come before its last thread's exit; its pid
		 * may be reused after. A main thread may leave before its workers. */
		rc = pev_symbols_exit_thread(r->sym, (int32_t)rec->task.pid, (int32_t)rec->task.tid);
		if (rc == 1) {
			cache_clear(r);
			rc = 0;
		}
		break;
	case PEV_RECORD_MMAP:
		if (pev_record_mmap_data(rec))
			break;
		kernel_text(r, rec->mmap.pid, rec->mmap.filename, rec->mmap.pgoff);
		b = rec->mmap.filename[0] == '/' ? build_id_of(r, rec->mmap.filename) : NULL;
		rc = pev_symbols_add_mapping(r->sym, (int32_t)rec->mmap.pid, rec->mmap.addr,
					     rec->mmap.len, rec->mmap.pgoff, rec->mmap.filename,
					     b ? b->build_id : NULL, b ? b->size : 0);
		if (note_mapping(r, (int32_t)rec->mmap.pid, rec->mmap.addr, rec->mmap.len,
				 rec->mmap.pgoff, rec->mmap.filename, b ? b->build_id : NULL,
				 b ? b->size : 0) < 0)
			return PEV_ENOMEM;
		cache_clear(r);
		break;
	case PEV_RECORD_MMAP2:
		if (pev_record_mmap_data(rec))
			break;
		{
			const unsigned char *bid = NULL;
			size_t bid_size = 0;
			if (rec->mmap2.has_build_id) {
				bid = rec->mmap2.build_id;
				bid_size = rec->mmap2.build_id_size;
			} else if (rec->mmap2.filename[0] == '/' &&
				   (b = build_id_of(r, rec->mmap2.filename))) {
				bid = b->build_id;
				bid_size = b->size;
			}
			kernel_text(r, rec->mmap2.pid, rec->mmap2.filename, rec->mmap2.pgoff);
			rc = pev_symbols_add_mapping(r->sym, (int32_t)rec->mmap2.pid,
						     rec->mmap2.addr, rec->mmap2.len,
						     rec->mmap2.pgoff, rec->mmap2.filename, bid,
						     bid_size);
			if (note_mapping(r, (int32_t)rec->mmap2.pid, rec->mmap2.addr,
					 rec->mmap2.len, rec->mmap2.pgoff, rec->mmap2.filename,
					 bid, bid_size) < 0)
				return PEV_ENOMEM;
		}
		cache_clear(r);
		break;
	case PEV_RECORD_LOST:
		r->lost += rec->lost.lost;
		break;
	case PEV_RECORD_SWITCH:
	case PEV_RECORD_SWITCH_CPU_WIDE:
		/* The trailer names the task that switches (out of or into the CPU). */
		if (r->on_switch && (rec->id_fields & PEV_SAMPLE_TID) &&
		    (rec->id_fields & PEV_SAMPLE_TIME))
			rc = r->on_switch(r->switch_ctx, (int32_t)rec->sample_id.tid,
					  rec->sample_id.time, pev_record_switch_out(rec));
		break;
	case PEV_RECORD_LOST_SAMPLES:
		r->lost_samples += rec->lost_samples.lost;
		r->has_lost_samples = true;
		break;
	case PEV_RECORD_CGROUP:
		if (!r->cgroups && pev_cgroup_names_new(&r->cgroups) < 0)
			return PEV_ENOMEM;
		rc = pev_cgroup_names_add(r->cgroups, rec->cgroup.id, rec->cgroup.path);
		break;
	default:
		break;
	}
	/* A bad record (pid -1 for a user mapping, ...) is skipped, not fatal. */
	return rc == PEV_ENOMEM ? rc : 0;
}

/*
 * Appends the user frames unwound from the sample's registers and stack
 * copy (--call-graph dwarf), as perf does after the kernel's part of the
 * chain. Adds the frames pushed to *addrs.
 */
static int push_unwound(struct pev_replay *r, const struct pev_sample *s, size_t *n,
			const struct pev_replay_sample *out, size_t *addrs)
{
	int nr = pev__symbols_unwind(r->sym, out->pid, out->tid, &s->regs_user, &s->stack_user,
				     r->unwound, PEV_MAX_STACK_DEPTH);

	if (nr == PEV_EUNSUPPORTED) {
		if (!r->unwind_warned)
			pev__log(PEV_LOG_WARN, "cannot unwind --call-graph dwarf samples: this "
					       "build has no register table for its architecture; "
					       "showing the sampled functions only");
		r->unwind_warned = true;
		return 0;
	}
	for (int i = 0; i < nr; i++) {
		/* A return address is shown and looked up at address - 1, inside
		 * the call, as perf shows the frames it unwinds. */
		const struct pev__unwind_frame *f = &r->unwound[i];
		uint64_t at = f->activation ? f->pc : f->pc - 1;
		int rc = push_address(r, n, out->pid, at, at, false);
		if (rc)
			return rc;
		(*addrs)++;
	}
	return nr < 0 ? nr : 0;
}

/* Whether c is a context marker the kernel writes into call chains. */
static bool known_context(uint64_t c)
{
	return c == PEV_CONTEXT_HV || c == PEV_CONTEXT_KERNEL || c == PEV_CONTEXT_USER ||
	       c == PEV_CONTEXT_GUEST || c == PEV_CONTEXT_GUEST_KERNEL ||
	       c == PEV_CONTEXT_GUEST_USER;
}

/*
 * arm64 frame-pointer chains: pushes the caller of the user leaf taken from
 * LR (pev__symbols_leaf_caller), marked PEV_FRAME_LINK_REGISTER, unless it
 * is next (the frame the walk has after the leaf). Counts it in *addrs.
 */
static int push_leaf_caller(struct pev_replay *r, size_t *n, const struct pev_sample *s,
			    const struct pev_replay_sample *out, uint64_t leaf, uint64_t next,
			    size_t *addrs)
{
	uint64_t caller;
	size_t from = *n;
	int rc;

	if (pev__symbols_leaf_caller(r->sym, out->pid, out->tid, leaf, &s->regs_user, &caller) != 1 ||
	    caller == next)
		return 0;
	if ((rc = push_address(r, n, out->pid, caller, caller, false)))
		return rc;
	for (size_t k = from; k < *n; k++)
		r->frames[k].flags |= PEV_FRAME_LINK_REGISTER;
	(*addrs)++;
	return 0;
}

/* Builds the stack of a sample into r->frames. */
static int sample_stack(struct pev_replay *r, const struct pev_record *rec,
			struct pev_replay_sample *out)
{
	const struct pev_sample *s = &rec->sample;
	int32_t pid = out->pid;
	size_t n = 0, addrs = 0;
	int rc;

	if ((s->fields & PEV_SAMPLE_CALLCHAIN) && s->callchain_nr &&
	    !(r->flags & PEV_REPLAY_NO_CALLCHAIN)) {
		struct pev_callchain_iter it;
		struct pev_callchain_frame f;
		uint64_t context = UINT64_MAX;

		/* arm64 frame-pointer chains: the leaf's caller from LR (below). */
		bool leaf_lr = (s->fields & PEV_SAMPLE_REGS_USER) &&
			       !(s->fields & PEV_SAMPLE_STACK_USER);
		unsigned user_frames = 0;
		uint64_t leaf = 0;

		pev_callchain_iter_init(&it, s->callchain, s->callchain_nr);
		while (pev_callchain_iter_next(&it, &f)) {
			/* A marker no kernel writes (-1: a frame-pointer walk read
			 * garbage): the rest of the chain is garbage too. perf drops
			 * the whole chain; the frames before it are good. */
			if (f.context != context && f.context && !known_context(f.context))
				break;
			bool kernel = f.context == PEV_CONTEXT_KERNEL ||
				      f.context == PEV_CONTEXT_GUEST_KERNEL ||
				      (f.context == 0 && is_kernel_mode(out->cpumode));
			/*
			 * The first address of each context is where that mode was
			 * stopped: the sample's own address, or for the user part of a
			 * kernel sample the user code the kernel interrupted (its
			 * registers' IP). Only the others are return addresses.
			 */
			bool interrupted = f.context != context;
			context = f.context;
			if (f.context == PEV_CONTEXT_HV ||
			    (f.ip == 0 && !(r->flags & PEV_REPLAY_ZERO_FRAMES)))
				continue;
			bool as_is = interrupted || f.ip == 0 || (r->flags & PEV_REPLAY_SYMBOL_AT_RETURN);
			/*
			 * Before the user part's second frame, the caller of a leaf
			 * that had not saved its link register yet (the kernel's
			 * walk skips it), as perf 6.1 adds it on arm64. A caller
			 * the walk has already is not added again.
			 */
			if (f.context == PEV_CONTEXT_USER && leaf_lr && ++user_frames <= 2) {
				if (user_frames == 1)
					leaf = f.ip;
				else if ((rc = push_leaf_caller(r, &n, s, out, leaf, f.ip, &addrs)))
					return rc;
			}
			rc = push_address(r, &n, pid, f.ip, as_is ? f.ip : f.ip - 1, kernel);
			if (rc)
				return rc;
			addrs++;
		}
		/*
		 * A leaf that is its chain's only user frame gets its caller
		 * too where asked: perf 6.1 adds it so in caller order only.
		 */
		if (user_frames == 1 && (r->flags & PEV_REPLAY_LONE_LEAF_CALLER) &&
		    (rc = push_leaf_caller(r, &n, s, out, leaf, leaf, &addrs)))
			return rc;
	}
	/* As perf: no valid stack bytes (the kernel could not copy them) unwind nothing. */
	if ((s->fields & PEV_SAMPLE_REGS_USER) && (s->fields & PEV_SAMPLE_STACK_USER) &&
	    s->stack_user.dyn_size && !(r->flags & PEV_REPLAY_NO_CALLCHAIN) &&
	    (rc = push_unwound(r, s, &n, out, &addrs)))
		return rc;
	if (!addrs && (s->fields & PEV_SAMPLE_IP)) {
		rc = push_address(r, &n, pid, s->ip, s->ip, is_kernel_mode(out->cpumode));
		if (rc)
			return rc;
		addrs++;
	}
	out->frames = r->frames;
	out->nr_frames = n;
	out->nr_addresses = addrs;
	return 0;
}

static int fill_sample(struct pev_replay *r, const struct pev_record *rec,
		       const struct pev_perfdata_event *ev, uint64_t offset,
		       struct pev_replay_sample *out)
{
	const struct pev_sample *s = &rec->sample;

	memset(out, 0, sizeof(*out));
	out->event = ev;
	out->record = rec;
	out->offset = offset;
	out->cpumode = pev_record_cpumode(rec);
	out->pid = out->tid = -1;
	if (rec->id_fields & PEV_SAMPLE_TID) {
		out->pid = (int32_t)rec->sample_id.pid;
		out->tid = (int32_t)rec->sample_id.tid;
	}
	out->cpu = (rec->id_fields & PEV_SAMPLE_CPU) ? (int32_t)rec->sample_id.cpu : -1;
	out->time = (rec->id_fields & PEV_SAMPLE_TIME) ? rec->sample_id.time : 0;
	if (s->fields & PEV_SAMPLE_PERIOD)
		out->period = s->period;
	else if (!(ev->attr.flags & PEV_ATTR_FREQ) && ev->attr.sample_period)
		out->period = ev->attr.sample_period;
	else
		out->period = 1;
	out->comm = comm_of(r, out->pid, out->tid);
	/* A thread sampled runs: its process's address space outlives its main thread. */
	if (out->pid >= 0 && out->tid >= 0 &&
	    pev_symbols_thread(r->sym, out->pid, out->tid) == PEV_ENOMEM)
		return PEV_ENOMEM;
	/* jitdumps count time in CLOCK_MONOTONIC (1): other clocks do not compare. */
	r->now = (rec->id_fields & PEV_SAMPLE_TIME) && (ev->attr.flags & PEV_ATTR_USE_CLOCKID) &&
			 ev->attr.clockid == 1
		 ? out->time
		 : UINT64_MAX;
	return sample_stack(r, rec, out);
}

/*
 * Decodes one record; side-band records update the state and give 0, a
 * sample fills out and gives 1. A record that does not decode is skipped.
 */
static int process(struct pev_replay *r, const void *bytes, size_t len,
		   const struct pev_perfdata_event *ev, uint64_t offset,
		   struct pev_replay_sample *out)
{
	const struct pev_record_format *fmt;

	if (!ev)
		return 0;
	fmt = format_of(r, ev);
	if (!fmt)
		return 0;
	if (pev_record_decode(fmt, bytes, len, &r->rec) < 0)
		return 0;
	if (r->rec.type != PEV_RECORD_SAMPLE) {
		int rc = r->on_record ? r->on_record(r->record_ctx, &r->rec) : 0;
		return rc < 0 ? rc : sideband(r, &r->rec);
	}
	/*
	 * The kernel never writes a period with bit 63 set (it refuses such a
	 * sample_period, and its frequency mode stays far below): a damaged
	 * sample, skipped like a record that does not decode, so that no
	 * profile sums it into a total that wraps (percentages above 100).
	 */
	if ((r->rec.sample.fields & PEV_SAMPLE_PERIOD) && (r->rec.sample.period >> 63)) {
		if (!r->period_warned)
			pev__log(PEV_LOG_WARN, "skipping samples whose period has bit 63 set "
					       "(%#llx at file offset %llu): no kernel writes one",
				 (unsigned long long)r->rec.sample.period,
				 (unsigned long long)offset);
		r->period_warned = true;
		return 0;
	}
	return fill_sample(r, &r->rec, ev, offset, out) ?: 1;
}

/*
 * The kernel's symbols as perf's build-id cache kept them for the kernel the
 * file was recorded on ($PERF_BUILDID_DIR or $HOME/.debug, then
 * [kernel.kallsyms]/BUILD-ID/kallsyms):
 * the right symbols even after a reboot into another kernel, and a plain
 * file that reads several times faster than /proc/kallsyms. Fills path and
 * returns true when the file names a kernel build id and the copy exists.
 */
static bool cached_kallsyms(struct pev_perfdata *pd, const struct pev_symbols_opts *o,
			    char *path, size_t size)
{
	const struct pev_perfdata_features *f = pev_perfdata_features(pd);
	const char *cache = o ? o->buildid_cache : NULL;
	const char *home = getenv("HOME"), *env = getenv("PERF_BUILDID_DIR");
	char hex[2 * PEV_PERFDATA_BUILD_ID_MAX + 1];

	if (cache && !cache[0])
		return false;
	for (size_t i = 0; i < f->nr_build_ids; i++) {
		const struct pev_perfdata_build_id *b = &f->build_ids[i];
		if (b->pid != -1 || b->cpumode != PEV_RECORD_MISC_KERNEL || !b->filename ||
		    strcmp(b->filename, "[kernel.kallsyms]") != 0 || !b->size)
			continue;
		for (unsigned k = 0; k < b->size; k++)
			snprintf(hex + 2 * k, 3, "%02x", b->build_id[k]);
		if (!cache && env && env[0])
			cache = env;
		if (cache)
			snprintf(path, size, "%s/[kernel.kallsyms]/%s/kallsyms", cache, hex);
		else if (home)
			snprintf(path, size, "%s/.debug/[kernel.kallsyms]/%s/kallsyms", home, hex);
		else
			return false;
		/* Only a regular file: a FIFO or device put there is never opened. */
		struct stat st;
		return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, R_OK) == 0;
	}
	return false;
}

/* ---- the public functions ---------------------------------------------------------- */

int pev_replay_open(struct pev_perfdata *pd, const struct pev_replay_opts *opts,
		    struct pev_replay **out, struct pev_error *err)
{
	struct pev_replay_opts o = PEV_REPLAY_OPTS_INIT;
	struct pev_replay *r;
	int rc;

	pev__error_clear(err);
	if (!out)
		return pev__bad_arg(err, "pev_replay_open", "out", "is NULL");
	*out = NULL;
	if (!pd)
		return pev__bad_arg(err, "pev_replay_open", "pd", "is NULL");
	if (opts && (rc = pev__opts_copy_sized(&o, sizeof(o), opts, "pev_replay_open",
					       "PEV_REPLAY_OPTS_INIT", err)))
		return rc;
	r = calloc(1, sizeof(*r));
	if (!r)
		return pev__error_start(err, PEV_ENOMEM, 0, NULL, NULL, true);
	r->pd = pd;
	r->reread = pev__pd_random_access(pd);
	r->flags = o.flags;
	if (o.symbols) {
		r->sym = o.symbols;
	} else {
		struct pev_symbols_opts so = PEV_SYMBOLS_OPTS_INIT;
		char kallsyms[512];
		const struct pev_symbols_opts *use = o.symbols_opts;

		if ((!use || (use->sz >= offsetof(struct pev_symbols_opts, jit_dir) &&
			      !use->kallsyms)) &&
		    cached_kallsyms(pd, use, kallsyms, sizeof(kallsyms))) {
			if (use)
				memcpy(&so, use, use->sz < sizeof(so) ? use->sz : sizeof(so));
			so.sz = sizeof(so);
			so.kallsyms = kallsyms;
			use = &so;
		}
		rc = pev_symbols_new(use, &r->sym, err);
		if (rc) {
			free(r);
			return rc;
		}
		r->own_sym = true;
		if (use == &so) /* the cache's copy, which might lack _text */
			pev__kernel_list_fallback(r->sym, "/proc/kallsyms");
	}
	index_build_ids(r);
	*out = r;
	return 0;
}

PEV_API const char *pev_replay_cgroup_path(const struct pev_replay *r, uint64_t id)
{
	return r ? pev_cgroup_names_find(r->cgroups, id) : NULL;
}

PEV_API const char *pev_replay_sample_cgroup(const struct pev_replay *r,
					     const struct pev_replay_sample *s)
{
	if (!r || !s || !s->record || !(s->record->sample.fields & PEV_SAMPLE_CGROUP))
		return NULL;
	const char *path = pev_replay_cgroup_path(r, s->record->sample.cgroup);
	return path ? path : "unknown";
}

void pev_replay_close(struct pev_replay *r)
{
	if (!r)
		return;
	if (r->own_sym)
		pev_symbols_free(r->sym);
	pev__rq_free(&r->queue);
	free(r->record);
	free(r->formats);
	free(r->format_ok);
	pev__u64map_free(&r->comms);
	pev__u64map_free(&r->first_names);
	pev__u64map_free(&r->bids);
	pev__u64map_free(&r->programs);
	pev__u64map_free(&r->prog_paths);
	pev_cgroup_names_free(r->cgroups);
	pev__arena_free(&r->arena);
	free(r->cache);
	free(r->pool);
	free(r->frames);
	free(r);
}

/*
 * The kernel reports the same losses twice: a LOST record in the ring for
 * the records it could not write, and the event's PERF_FORMAT_LOST count,
 * which perf record (6.0 and later) and perfev record write as
 * LOST_SAMPLES records. perf report's "Total Lost Samples" is the sum of
 * the LOST_SAMPLES records alone; so is this, unless the file has none (an
 * older perf's): then the LOST records' sum, where perf says 0.
 */
uint64_t pev_replay_lost(const struct pev_replay *r)
{
	if (!r)
		return 0;
	return r->has_lost_samples ? r->lost_samples : r->lost;
}

struct pev_symbols *pev_replay_symbols(const struct pev_replay *r)
{
	return r ? r->sym : NULL;
}

/*
 * Records this big or bigger (a --call-graph dwarf sample carries 8 KiB of
 * stack) wait in the queue as their place in the file, not as a copy: a
 * round of them would hold tens of megabytes.
 */
#define REREAD_MIN 1024

/* The bytes of queued entry e, read again from the file: *bytes. 0 or a negative code. */
static int reread(struct pev_replay *r, const struct pev__rq_entry *e, const void **bytes,
		  struct pev_error *err)
{
	if (e->len > r->record_cap) {
		uint64_t *b = realloc(r->record, e->len);
		if (!b)
			return pev__error_start(err, PEV_ENOMEM, 0, NULL, NULL, true);
		r->record = b;
		r->record_cap = e->len;
	}
	int rc = pev__pd_read_at(r->pd, e->file_offset, r->record, e->len, "record", err);
	*bytes = r->record;
	return rc;
}

/* Reads records into the queue until some are ready or the file ends. */
static int fill_queue(struct pev_replay *r, struct pev_error *err)
{
	struct pev_perfdata_record rec;
	int rc;

	while ((rc = pev_perfdata_next(r->pd, &rec, err)) == 1) {
		if (rec.type == PEV_RECORD_FINISHED_ROUND) {
			uint64_t limit = r->round_limit;
			r->round_limit = r->max_time;
			if ((rc = pev__rq_release(&r->queue, limit)))
				return pev__error_start(err, rc, 0, NULL, NULL, true);
			if (r->queue.ready > r->queue.next)
				return 1;
			continue;
		}
		if (rec.type == PEV_RECORD_THREAD_MAP)
			thread_map_comms(r);
		if (rec.type >= PEV_RECORD_USER_TYPE_START || !rec.event)
			continue;
		/* A record without a time goes with the newest one read before it. */
		uint64_t t = rec.has_time ? rec.time : r->max_time;
		if (t > r->max_time)
			r->max_time = t;
		rc = pev__rq_push(&r->queue, rec.header, rec.size, t, rec.offset, rec.event,
				  !r->reread || rec.size < REREAD_MIN);
		if (rc)
			return pev__error_start(err, rc, 0, NULL, NULL, true);
	}
	if (rc < 0)
		return rc;
	r->eof = true;
	if ((rc = pev__rq_release(&r->queue, UINT64_MAX)))
		return pev__error_start(err, rc, 0, NULL, NULL, true);
	return r->queue.ready > r->queue.next;
}

/* File order: records go straight from the reader. */
static int next_in_file_order(struct pev_replay *r, struct pev_replay_sample *out,
			      struct pev_error *err)
{
	struct pev_perfdata_record rec;
	int rc;

	while ((rc = pev_perfdata_next(r->pd, &rec, err)) == 1) {
		if (rec.type == PEV_RECORD_THREAD_MAP)
			thread_map_comms(r);
		if (rec.type >= PEV_RECORD_USER_TYPE_START || !rec.event)
			continue;
		rc = process(r, rec.header, rec.size, rec.event, rec.offset, out);
		if (rc)
			return rc < 0 ? pev__error_start(err, rc, 0, NULL, NULL, true) : 1;
	}
	return rc;
}

void pev__replay_on_switch(struct pev_replay *r, pev__replay_switch_fn fn, void *ctx)
{
	r->on_switch = fn;
	r->switch_ctx = ctx;
}

void pev__replay_on_record(struct pev_replay *r, pev__replay_record_fn fn, void *ctx)
{
	r->on_record = fn;
	r->record_ctx = ctx;
}

int pev_replay_next(struct pev_replay *r, struct pev_replay_sample *out, struct pev_error *err)
{
	const struct pev__rq_entry *e;
	const void *bytes;
	int rc;

	pev__error_clear(err);
	if (!r || !out)
		return pev__bad_arg(err, "pev_replay_next", r ? "out" : "r", "is NULL");
	if (r->flags & PEV_REPLAY_FILE_ORDER)
		return next_in_file_order(r, out, err);
	for (;;) {
		while ((e = pev__rq_pop(&r->queue, &bytes))) {
			if (!bytes && (rc = reread(r, e, &bytes, err)) < 0)
				return rc;
			rc = process(r, bytes, e->len, e->event, e->file_offset, out);
			if (rc)
				return rc < 0 ? pev__error_start(err, rc, 0, NULL, NULL, true) : 1;
		}
		if (r->eof)
			return 0;
		rc = fill_queue(r, err);
		if (rc < 0)
			return rc;
	}
}

/* ---- events -------------------------------------------------------------------------- */

enum pev_profile_unit pev_replay_event_unit(const struct pev_perfdata_event *ev)
{
	if (ev && ev->attr.type == PEV_TYPE_SOFTWARE &&
	    (ev->attr.config == PEV_SW_CPU_CLOCK || ev->attr.config == PEV_SW_TASK_CLOCK))
		return PEV_PROFILE_UNIT_NANOSECONDS;
	return PEV_PROFILE_UNIT_COUNT;
}

char *pev_replay_event_name(const struct pev_perfdata_event *ev, char *buf, size_t size)
{
	const char *n = NULL;

	if (!buf || !size)
		return buf;
	if (!ev) {
		pev__strlcpy(buf, "[unknown]", size);
		return buf;
	}
	if (ev->name && ev->name[0]) {
		pev__strlcpy(buf, ev->name, size);
		return buf;
	}
	if (ev->attr.type == PEV_TYPE_HARDWARE)
		n = pev_hw_name(ev->attr.config);
	else if (ev->attr.type == PEV_TYPE_SOFTWARE)
		n = pev_sw_name(ev->attr.config);
	if (n)
		pev__strlcpy(buf, n, size);
	else if (ev->attr.type == PEV_TYPE_TRACEPOINT)
		snprintf(buf, size, "tracepoint:%" PRIu64, ev->attr.config);
	else
		snprintf(buf, size, "type%" PRIu32 ":0x%" PRIx64, ev->attr.type, ev->attr.config);
	return buf;
}
