/* SPDX-License-Identifier: MIT */
/*
 * report_internal.h - what the profile model (profile.c) and the report
 * writers (report_*.c) share: interning tables, the stored form of events,
 * symbols, frames and samples, and helpers every writer uses.
 *
 * Storage is flat: a sample is 48 bytes plus 4 bytes per frame (an index
 * into the frame table); frames, symbols and strings are interned, each
 * distinct one kept once. Lookups go through one kind of hash set (idset)
 * that maps a 32-bit hash to an id and asks the owner whether the id
 * matches, so no table allocates per entry.
 */
#ifndef PERFEV_REPORT_INTERNAL_H
#define PERFEV_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "perfev/diff.h"
#include "perfev/text.h"
#include "perfev/report.h"
#include "core/util.h"

/* The most frames a sample may have (deeper stacks are refused). */
#define PEV__PROFILE_MAX_FRAMES 4096
/* The most events a profile may have. */
#define PEV__PROFILE_MAX_EVENTS 65535

/* ---- hashing and the id set -------------------------------------------------------- */

/* 64-bit FNV-1a of bytes, continuing from h (start with PEV__HASH_SEED). */
#define PEV__HASH_SEED 0xcbf29ce484222325ULL
uint64_t pev__hash_bytes(uint64_t h, const void *data, size_t len);
/*
 * Mixes a 64-bit value into h: splitmix64's finalizer over h + v, every
 * input bit reaching every output bit. Inline: interning calls it for every
 * frame of every sample.
 */
static inline uint64_t pev__hash_u64(uint64_t h, uint64_t v)
{
	uint64_t z = h + v * 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * An open-addressing set of ids (1..2^32-1; 0 is never stored). Each slot
 * holds (hash << 32 | id), so growing never asks the owner to rehash.
 */
struct pev__idset {
	uint64_t *slots;
	uint32_t mask;  /* slots - 1 (a power of two), or 0 before the first insert */
	uint32_t count; /* ids stored */
};

/* Asks the owner whether id is the key being looked up. */
typedef bool (*pev__idset_eq)(const void *owner, uint32_t id, const void *key);

/*
 * Returns the id whose hash is h and that eq accepts, or 0. Inline, so that
 * each caller's eq is inlined into its probe loop.
 */
static inline uint32_t pev__idset_find(const struct pev__idset *s, uint32_t h, pev__idset_eq eq,
				       const void *owner, const void *key)
{
	if (!s->mask)
		return 0;
	for (uint32_t i = h & s->mask;; i = (i + 1) & s->mask) {
		uint64_t v = s->slots[i];
		uint32_t id = (uint32_t)v;

		if (!id)
			return 0;
		if ((uint32_t)(v >> 32) == h && eq(owner, id, key))
			return id;
	}
}
/* Stores id under hash h (the caller checked it is absent). Returns 0 or -ENOMEM. */
int pev__idset_add(struct pev__idset *s, uint32_t h, uint32_t id);
/* Frees the slots. */
void pev__idset_free(struct pev__idset *s);

/* ---- strings --------------------------------------------------------------------- */

/*
 * Interned strings: id 0 is "no string" (NULL), ids from 1 name distinct
 * strings kept once, NUL-terminated, in one growing buffer.
 */
struct pev__strtab {
	char *buf;
	size_t len, cap;
	uint32_t *off;  /* id -> offset in buf; off[0] unused */
	uint32_t n;     /* ids used, including 0 */
	size_t cap_ids;
	struct pev__idset set;
	/* Callers pass the same pointers again and again: the id last interned from a
	 * pointer, checked against the text before use (the caller may reuse a buffer). */
	struct {
		const char *ptr;
		uint32_t id;
	} recent[256];
};

/* Interns s (len bytes, need not be terminated); *id gets its id. 0 or -ENOMEM. */
int pev__strtab_intern(struct pev__strtab *t, const char *s, size_t len, uint32_t *id);
/* Same for a NUL-terminated string; NULL gives id 0. */
int pev__strtab_intern_str(struct pev__strtab *t, const char *s, uint32_t *id);
/* The string of an id (id 0: NULL). */
static inline const char *pev__strtab_get(const struct pev__strtab *t, uint32_t id)
{
	return id ? t->buf + t->off[id] : NULL;
}
void pev__strtab_free(struct pev__strtab *t);

/* ---- the model -------------------------------------------------------------------- */

/* A symbol: what the table groups by. Unresolved addresses are symbols of their own. */
struct pev__sym {
	/* unresolved: the address as shown, its DSO offset when known (PEV_FRAME_DSO_OFFSET),
	 * else the address itself; resolved: 0 */
	uint64_t address;
	uint32_t name;    /* string id, 0 when unresolved */
	uint32_t dso;     /* string id, 0 when unknown */
	uint16_t kernel;  /* 1 for a kernel symbol */
	uint16_t inlined; /* 1 for an inlined function's, or a debuginfo name's (shown "(inlined)") */
	uint32_t hash;
};

/* A distinct frame. */
struct pev__frame {
	uint64_t address;
	uint64_t offset;
	uint64_t dso_offset; /* with PEV_FRAME_DSO_OFFSET: the offset in the DSO's file */
	uint32_t sym;  /* index into syms */
	uint32_t gsym; /* the symbol call graphs show with PEV_REPORT_INLINE_MARKS (debug_name's) */
	/*
	 * The entry children mode gives the frame with PEV_REPORT_INLINE_MARKS:
	 * gsym, but an inlined function (or a debuginfo name) is one entry per
	 * function holding it, as perf keeps them.
	 */
	uint32_t esym;
	uint32_t file; /* string id */
	uint32_t line;
	uint32_t flags; /* PEV_FRAME_* */
	uint32_t hash;
};

/* A stored sample. */
/*
 * The samples added with one event, command, pid, tid, cpu and call chain,
 * stored once: the writers need nothing else of a sample (times are only
 * kept as the profile's first and last).
 */
struct pev__sample {
	uint64_t period; /* summed */
	/*
	 * On-CPU samples in nanoseconds of a file with switch records: the
	 * time they stand for, summed (profile_load.c); 0: their period does.
	 */
	uint64_t wall;
	uint32_t count;  /* samples */
	uint32_t frames; /* offset of its first (leaf) frame in stack[] */
	uint32_t nr : 15;     /* frames (at most PEV__PROFILE_MAX_FRAMES) */
	uint32_t offcpu : 1;  /* off-CPU time (its event's, or a wall-clock copy of one) */
	uint32_t event : 16;
	uint32_t comm; /* string id */
	int32_t pid, tid, cpu;
	uint32_t trace; /* string id of the trace text, or 0 */
	uint32_t cgroup; /* string id of the cgroup's path, or 0 */
};

struct pev__event {
	uint32_t name;       /* string id */
	uint32_t value_type; /* string id, or 0 */
	enum pev_profile_unit unit;
	uint64_t period;     /* fixed sampling period, or 0 */
	uint64_t samples;    /* samples added */
	uint64_t total;      /* sum of their periods */
	uint32_t leader;     /* its group's leader; its own index when alone */
	uint32_t nr_members; /* events of the group it leads, itself included; 1 alone */
	uint32_t group_name; /* string id of its group's name (on the leader), or 0 */
	uint32_t flags;      /* PEV_PROFILE_EVENT_* */
	bool wall;           /* the event pev_profile_add_wall_clock made */
};

/* A sample of the timeline (pev_profile_keep_timeline), in the order added. */
struct pev__tl_entry {
	uint64_t time;
	uint64_t weight; /* its period; an off-CPU sample's: the time waited (profile_load.c) */
	uint32_t slot;   /* the stored sample: its event, thread and stack */
	/* its thread's CPU time since its previous sample in nanoseconds (held at
	 * PEV__TL_CPU_MAX, 4.3 s), or PEV__TL_CPU_UNKNOWN */
	uint32_t cpu;
};
#define PEV__TL_CPU_UNKNOWN UINT32_MAX
#define PEV__TL_CPU_MAX (UINT32_MAX - 1)

/* A marker of the timeline (pev_profile_add_marker). */
struct pev__marker {
	enum pev_profile_marker_kind kind;
	int32_t pid, tid;
	uint64_t start, end, value;
	uint32_t text; /* string id, or 0 */
};

/* What pev_profile_add_mapping said of a DSO. */
struct pev__mapinfo {
	uint32_t dso;      /* string id */
	uint32_t build_id; /* string id of its hex digits, or 0 */
	uint64_t start, limit, file_offset; /* limit 0: no range */
	unsigned flags;    /* PEV_PROFILE_MAPPING_* */
};

/* The name a thread had last (its final COMM): what perf's pid key shows. */
struct pev__thread_name {
	int32_t tid;
	uint32_t comm; /* string id */
};

struct pev_profile {
	struct pev__strtab str;

	struct pev__thread_name *thread_names; /* sorted by tid */
	uint32_t nr_thread_names;
	size_t cap_thread_names;

	struct pev__mapinfo *maps; /* DSOs described, in the order first described */
	uint32_t nr_maps;
	size_t cap_maps;
	struct pev__idset map_set; /* ids: index + 1 */

	struct pev__sym *syms; /* syms[0]: the unknown symbol of samples without frames */
	uint32_t nr_syms;
	size_t cap_syms;
	struct pev__idset sym_set;

	struct pev__frame *frames; /* frames[0] unused (ids start at 1) */
	uint32_t nr_frames;
	size_t cap_frames;
	struct pev__idset frame_set;

	struct pev__sample *samples;
	uint32_t nr_samples;
	size_t cap_samples;
	struct pev__idset sample_set; /* ids: sample index + 1 */

	uint32_t *stack; /* frame ids of every sample, leaf first */
	size_t nr_stack, cap_stack;

	struct pev__event *events;
	unsigned nr_events;
	size_t cap_events;

	bool timeline; /* pev_profile_keep_timeline was called */
	struct pev__tl_entry *tl;
	size_t nr_tl, cap_tl;
	struct pev__marker *markers;
	size_t nr_markers, cap_markers;

	uint64_t lost;
	uint64_t start_ns, duration_ns;
	bool time_set;
	uint64_t min_time, max_time;
	bool has_time;
	bool has_cgroup; /* a sample has a cgroup */
	/* The cgroup paths' ids (pev_profile_sample.cgroup_id), sorted by path's string id. */
	struct pev__cgroup_id {
		uint32_t path; /* string id */
		uint64_t id;
	} *cgroup_ids;
	size_t nr_cgroup_ids, cap_cgroup_ids;
};

/*
 * pev_profile_add_sample() that also stores in *slot where the sample went
 * (the index of the alike samples it joined), for pev__profile_add_period.
 */
int pev__profile_add_sample_slot(struct pev_profile *p, const struct pev_profile_sample *s,
				 uint32_t *slot);

/*
 * The timeline entry of the sample added last, or NULL when the profile
 * keeps no timeline (or the sample was not added).
 */
static inline struct pev__tl_entry *pev__profile_last_entry(struct pev_profile *p)
{
	return p->timeline && p->nr_tl ? &p->tl[p->nr_tl - 1] : NULL;
}

/* Adds period to the stored samples at slot and to their event's total. */
void pev__profile_add_period(struct pev_profile *p, uint32_t slot, uint64_t period);
/* Adds ns to the on-CPU time the stored samples at slot stand for (their wall). */
void pev__profile_add_wall(struct pev_profile *p, uint32_t slot, uint64_t ns);
/* What was said of DSO dso (a string id), or NULL. */
const struct pev__mapinfo *pev__profile_mapinfo(const struct pev_profile *p, uint32_t dso);

/*
 * Names thread tid by the name it had last in the recording (replacing
 * what was said of it before): perf's pid key shows a thread by that name,
 * whatever the name its samples were taken under. 0 or PEV_ENOMEM.
 */
int pev__profile_name_thread(struct pev_profile *p, int32_t tid, const char *comm);
/* The string id of the last name of thread tid, or 0 when none was said. */
uint32_t pev__profile_thread_name(const struct pev_profile *p, int32_t tid);

/* The unknown symbol (samples without frames) is syms[0]. */
#define PEV__SYM_NONE 0u

/* ---- helpers for writers ------------------------------------------------------------ */

/*
 * Copies a caller's options (NULL: defaults) into *dst honouring sz, as
 * every options struct does. Returns 0 or PEV_EBADARG (err names func).
 */
int pev__report_opts_copy(struct pev_report_opts *dst, const struct pev_report_opts *src,
			  const char *func, struct pev_error *err);

/*
 * The common entry checks of a writer: p and out not NULL, the options
 * copied, the event named in them found. *event gets its index, or -1 when
 * none was named. Returns 0 or a PEV_E* code with err filled.
 */
int pev__report_begin(const struct pev_profile *p, FILE *out, const struct pev_report_opts *opts,
		      struct pev_report_opts *o, int *event, const char *func,
		      struct pev_error *err);

/*
 * pev__report_begin without an output stream (a writer into memory):
 * the same checks of p and the options, the same *event.
 */
int pev__report_check(const struct pev_profile *p, const struct pev_report_opts *opts,
		      struct pev_report_opts *o, int *event, const char *func,
		      struct pev_error *err);

/*
 * The PEV_REPORT_LABEL_* a pprof or OTLP writer puts on samples for the
 * options' labels: 0 gives the default (comm, pid, tid, cpu, and cgroup
 * where samples have one), PEV_REPORT_LABEL_NONE none.
 */
unsigned pev__report_labels(const struct pev_profile *p, unsigned labels);

/*
 * A DSO's mapping as pprof and OTLP write it: the addresses its frames hit
 * (lo..hi; lo > hi: none), widened to what pev_profile_add_mapping said
 * (info, may be NULL), into *start and *limit (one past the end); the file
 * offset start maps into *file_offset where known (addresses that are file
 * offsets, `offsets`, map to themselves), else it is left as it was.
 */
void pev__mapping_range(const struct pev__mapinfo *info, uint64_t lo, uint64_t hi, bool offsets,
			uint64_t *start, uint64_t *limit, uint64_t *file_offset);

/* The id samples gave the cgroup path of string id path, or 0 when none did. */
uint64_t pev__profile_cgroup_id(const struct pev_profile *p, uint32_t path);

/*
 * The next location (one address) of sample s's stack from frame *at, as
 * pprof and OTLP write them: its inlined functions then the function that
 * holds them, frames first..last (leaf first); with no_inline the holder
 * alone (first == last). Returns false past the last frame; *at moves on.
 */
bool pev__next_location(const struct pev_profile *p, const struct pev__sample *s,
			bool no_inline, unsigned *at, unsigned *first, unsigned *last);

/*
 * The recorded program into *best (its DSO's string id, 0 when unknown):
 * the DSO described with PEV_PROFILE_MAPPING_MAIN, else the file named like
 * a program that is in the most samples' user stacks. 0 or -ENOMEM.
 */
int pev__profile_main_dso(const struct pev_profile *p, uint32_t *best);

/* Ends a writer: PEV_EIO (err filled) when out has an error, else rc. */
int pev__report_end(FILE *out, int rc, const char *func, struct pev_error *err);

/*
 * A stream that gzip-compresses what is written to it into out (which
 * stays the caller's), or NULL when out of memory. fclose() finishes the
 * compressed stream and fails (EOF) when writing it did.
 */
FILE *pev__gzip_open(FILE *out);

/*
 * A writer's stream: out, or with PEV_REPORT_GZIP a compressing stream
 * into it (NULL: out of memory). pev__report_finish() closes it.
 */
FILE *pev__report_stream(FILE *out, unsigned flags);
/*
 * Ends a writer that wrote to stream s (from pev__report_stream): closes
 * s when it compresses into out, then does what pev__report_end does.
 */
int pev__report_finish(FILE *s, FILE *out, int rc, const char *func, struct pev_error *err);

/* Fills err for an allocation failure in func. Returns PEV_ENOMEM. */
int pev__report_nomem(struct pev_error *err, const char *func);

/*
 * Pads a cell of `used` characters to a column `width` wide: writes c
 * width - used times, or nothing when the cell is as wide or wider (a cell
 * wider than its column overflows it, as perf's do). The only way the
 * table writers pad: no width arithmetic of theirs can go below zero.
 */
void pev__pad(FILE *out, char c, size_t width, size_t used);

/* The name of an event. */
static inline const char *pev__event_name(const struct pev_profile *p, unsigned e)
{
	return pev__strtab_get(&p->str, p->events[e].name);
}

/* The frame ids of sample s, leaf first. */
static inline const uint32_t *pev__sample_stack(const struct pev_profile *p,
					       const struct pev__sample *s)
{
	return p->stack ? p->stack + s->frames : NULL; /* NULL while no sample has a frame */
}

/*
 * Index of the frame of s the table counts as its self frame: the first
 * that is not inlined (the outermost when all are; 0 when s has none).
 */
unsigned pev__sample_self(const struct pev_profile *p, const struct pev__sample *s);

/*
 * Writes a symbol's display name into buf (size bytes): its name, or
 * when unresolved "[unknown]" or with `address` its address ("0x4005d0").
 * Returns buf.
 */
const char *pev__sym_label(const struct pev_profile *p, uint32_t sym, bool address, char *buf,
			   size_t size);

/* A growable array: ensures room for `need` elements of `size` bytes. 0 or -ENOMEM. */
int pev__grow(void **arr, size_t *cap, size_t need, size_t size);


/* ---- table rows (report_rows.c) ------------------------------------------------------- */

/* A sort key. */
enum pev__key {
	PEV__KEY_COMM,
	PEV__KEY_PID,     /* perf's "pid": the thread, shown "tid:comm" */
	PEV__KEY_PROCESS, /* perfev's "process": the process, shown "pid:comm" */
	PEV__KEY_TID,
	PEV__KEY_CPU,
	PEV__KEY_DSO,
	PEV__KEY_SYM,
	PEV__KEY_SRCLINE, /* perf's "srcline": the sampled line, "file.c:42" */
	PEV__KEY_TRACE,   /* perf's "trace": the sample's formatted tracepoint payload */
	PEV__KEY_CGROUP,  /* perf's "cgroup": the path of the sample's cgroup */
};

#define PEV__MAX_KEYS 8

/* Parsed sort keys, in order. */
struct pev__keys {
	unsigned n;
	enum pev__key k[PEV__MAX_KEYS];
};

/*
 * Parses "comm,dso,sym" (NULL: that). Returns 0, or PEV_EPARSE with err
 * naming the unknown key and the known ones.
 */
int pev__keys_parse(const char *sort, struct pev__keys *keys, const char *func,
		    struct pev_error *err);

/* The name perf gives a key ("comm", "dso", "sym", ...). */
const char *pev__key_name(enum pev__key k);

/* ---- filters (report_filter.c) ------------------------------------------------------- */

/* Whether the comma-separated list holds s. */
bool pev__list_has(const char *list, const char *s);
/* Whether list is set and holds one name (perf then leaves the column out). */
bool pev__list_single(const char *list);
/* Whether name is in list: one of its comma-separated names or, when shown
 * (PEV_REPORT_FILTER_SHOWN), the one name list is, as pev_text_escape shows it. */
bool pev__list_names(const char *list, bool shown, const char *name);
/*
 * A DSO's name as perf shows it: its base name ("[kernel.kallsyms]" stays as
 * it is), and for a JIT map (DIR/perf-PID.map) "[JIT] tid PID", written into
 * buf (size bytes; NULL: the base name).
 */
const char *pev__dso_base(const char *path, char *buf, size_t size);

/*
 * Whether a file may be a program: a path (not "//anon", not a memfd) not
 * named like a shared library ("libc.so.6", "x.so").
 */
bool pev__path_program_like(const char *path);

/* The filters of pev_report_opts, prepared for one profile. */
struct pev__filter {
	const char *comms, *pids, *tids; /* lists, or NULL */
	bool shown; /* PEV_REPORT_FILTER_SHOWN: comms is one name as shown */
	uint8_t *sym_ok; /* per symbol: passes the DSO and symbol lists; NULL: all do */
};

/* Prepares o's filters (o may be NULL: none). 0 or -1 when out of memory. */
int pev__filter_init(struct pev__filter *f, const struct pev_profile *p,
		     const struct pev_report_opts *o);
/* Whether sample s passes the command, process and thread lists. */
bool pev__filter_sample(const struct pev__filter *f, const struct pev_profile *p,
			const struct pev__sample *s);
/* Whether an entry of symbol sym passes the DSO and symbol lists. */
static inline bool pev__filter_sym(const struct pev__filter *f, uint32_t sym)
{
	return !f->sym_ok || f->sym_ok[sym];
}
void pev__filter_free(struct pev__filter *f);

/* One entry of the table: the values of its keys (unused keys 0) and its sums. */
struct pev__row {
	uint32_t comm, dso, sym;
	int32_t pid, tid, cpu;
	/* srcline: the file's string id and the line, or without a line 0 and the frame */
	uint32_t src_file, src_pos;
	uint32_t trace;      /* string id of the sample's trace text (the trace key), or 0 */
	uint32_t cgroup;     /* string id of the sample's cgroup path (the cgroup key), or 0 */
	uint32_t shown_comm; /* the command a pid or tid key shows where its thread has no
			      * last name (pev__profile_thread_name): its first sample's */
	int32_t shown_tid;   /* the thread of its first sample */
	bool first_unresolved; /* its first sample's symbol is an address (perf's DSO width) */
	uint32_t hash;
	uint32_t stamp; /* last sample (index + 1) counted in children */
	uint64_t self, children;                 /* periods */
	uint64_t self_samples, children_samples; /* samples */
};

/* A sample that belongs to a row, and where the row's frame is in its stack. */
struct pev__member {
	uint32_t sample;
	uint32_t pos : 31;
	/*
	 * The sample's self row (not a caller's, nor the self frame's inline
	 * name): its graph is the whole chain down to the self frame.
	 */
	uint32_t self : 1;
};

/*
 * Which frames of each stack the Children column and the call graphs use,
 * and in what order (perf's --max-stack and call-graph order).
 */
struct pev__window {
	unsigned max_stack; /* the most frames of a stack used; 0: all */
	bool root_first;    /* the chain runs from the outermost caller (perf's caller order) */
};

/* The table of one event, or of a group of events (perf report --group). */
struct pev__rows {
	const struct pev_profile *p;
	struct pev__keys keys;
	bool children;
	struct pev__window win;
	unsigned event;         /* the event, or the group's leader */
	unsigned nr_members;    /* events in the table: event .. event + nr_members - 1 */
	uint64_t *sums;         /* with nr_members > 1: per row, each event's self then children period */
	size_t cap_sums;
	struct pev__row *row;
	uint32_t n;
	size_t cap;
	struct pev__idset set;
	uint32_t *order;        /* the rows shown, sorted */
	uint32_t nr_order;
	uint64_t total;         /* the event's period */
	uint64_t samples;       /* the event's samples */
	unsigned flags;         /* PEV_REPORT_* of the writer */
	struct pev__filter filter;
	struct pev__member *mem; /* with members: every row's samples, row after row */
	uint32_t *mem_off;       /* row i's are mem[mem_off[i] .. mem_off[i + 1]) */
};

/*
 * Builds the table of event: rows for the keys, self (and with children,
 * inclusive) periods of the samples and entries o's filters keep (o may be
 * NULL), the rows at or above percent_limit sorted as perf sorts them, and
 * with members each row's samples. win (NULL: every frame, leaf first)
 * says which frames count towards Children; a row met twice in one stack
 * keeps the position met first in its order. 0 or -ENOMEM.
 */
int pev__rows_build(const struct pev_profile *p, unsigned event, const struct pev__keys *keys,
		    bool children, const struct pev__window *win, double percent_limit,
		    bool members, struct pev__rows *rows, const struct pev_report_opts *o);
/*
 * The same for the group of nr_members events from leader on: one row per
 * key values among all their samples. A row's self and children (and its
 * members, for call graphs) are the leader's; pev__row_sum gives each
 * event's. Rows sort by the leader's period (its children's first with
 * children), then each member's self period in turn.
 */
int pev__rows_build_group(const struct pev_profile *p, unsigned leader, unsigned nr_members,
			  const struct pev__keys *keys, bool children,
			  const struct pev__window *win, double percent_limit, bool members,
			  struct pev__rows *rows, const struct pev_report_opts *o);
void pev__rows_free(struct pev__rows *rows);

/*
 * The frames [*lo, *hi) of s that r's window uses: its max_stack addresses
 * from the leaf (or the root), as perf counts them, with their inlined
 * functions' frames and not counting a caller from the link register.
 */
void pev__rows_window(const struct pev__rows *r, const struct pev__sample *s, unsigned *lo,
		      unsigned *hi);

/* Group tables: the self (or, children true, inclusive) period of event k of the group in row i. */
static inline uint64_t pev__row_sum(const struct pev__rows *r, uint32_t i, unsigned k,
				    bool children)
{
	if (r->nr_members < 2)
		return children ? r->row[i].children : r->row[i].self;
	return r->sums[((size_t)i * r->nr_members + k) * 2 + children];
}

/* The period a row is sorted and filtered by (children's when shown). */
static inline uint64_t pev__row_period(const struct pev__rows *r, const struct pev__row *row)
{
	return r->children ? row->children : row->self;
}

/* Whether any event of the row's table (a group's members too) has a period or samples in row i. */
bool pev__row_used(const struct pev__rows *r, uint32_t i);

/* Percentage of the event's period. */
static inline double pev__percent(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0.0;
}

/* -1, 0 or 1 as a is below, equal to or above b. */
static inline int pev__cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

/* The text of a row's key k as the table shows it (without the [.] mark). */
const char *pev__row_text(const struct pev__rows *r, const struct pev__row *row, enum pev__key k,
			  char *buf, size_t size);

/* The title of key k's column ("Shared Object"; report_table.c). */
const char *pev__key_title(enum pev__key k);
/* A table cell of key k: the key's text, with "[.] " or "[k] " in front of a symbol. */
const char *pev__row_cell(const struct pev__rows *r, const struct pev__row *row,
			  enum pev__key k, char *buf, size_t size);
/*
 * The width perf gives cell (key k's) of row: for the command, the length
 * of the last name of the thread of the entry's first sample (perf sizes
 * the column by the thread's name and cuts a longer command to the
 * column's width); for other keys the cell's length.
 */
size_t pev__row_width(const struct pev__rows *r, const struct pev__row *row, enum pev__key k,
		      const char *cell);

/* ---- diffs (report_diff.c) ----------------------------------------------------------- */

/*
 * The entry checks of a diff writer: a, b and out not NULL, opts copied
 * into *d and its report options into *o, the event they name found in
 * both (*ea, *eb; -1 when none is named). 0 or a PEV_E* code, err filled.
 */
int pev__diff_begin(const struct pev_profile *a, const struct pev_profile *b, FILE *out,
		    const struct pev_diff_opts *opts, struct pev_diff_opts *d,
		    struct pev_report_opts *o, int *ea, int *eb, const char *func,
		    struct pev_error *err);
/* With no event named (*ea < 0): the first of a that b has. 0, or -1 when none is in both. */
int pev__diff_event(const struct pev_profile *a, const struct pev_profile *b, int *ea, int *eb);

/* ---- call graphs (report_callgraph.c) ------------------------------------------------- */

/* The key of a call-graph node that stands for every unresolved frame. */
#define PEV__CG_UNKNOWN UINT32_MAX

/* A node of a call graph: a function, reached by the path from the root. */
struct pev__cg_node {
	uint32_t parent;
	uint32_t key;   /* symbol index, or PEV__CG_UNKNOWN */
	uint32_t hash;
	uint32_t child; /* after pev__cgraph_build: its children are kids[child .. child + nr) */
	uint32_t nr;
	uint64_t period;
	uint64_t samples;
	uint64_t address; /* the run-time address of the first frame met (unresolved labels) */
};

/* The call graph of one table entry; node 0 is a root above every path. */
struct pev__cgraph {
	struct pev__cg_node *node;
	uint32_t n;
	size_t cap;
	struct pev__idset set;
	uint32_t *kids; /* children of every node, each list sorted by period, then name */
};

/*
 * Builds the call graph of table row `row` (rows built with members):
 * CALLEE: the entry's frame then its callers; CALLER: without children the
 * stacks from the outermost caller down to the entry's frame, with
 * children from the entry's frame down to the leaf. flags: PEV_REPORT_*
 * (NO_INLINE, ADDRESSES). 0 or -ENOMEM.
 */
int pev__cgraph_build(const struct pev__rows *r, uint32_t row, enum pev_report_callgraph mode,
		      unsigned flags, struct pev__cgraph *g);
void pev__cgraph_free(struct pev__cgraph *g);

/* The name a call-graph node shows. */
const char *pev__cg_label(const struct pev_profile *p, const struct pev__cg_node *n,
			  unsigned flags, char *buf, size_t size);

/* How a call graph is drawn. */
struct pev__cg_style {
	enum pev_report_cg_print print;
	enum pev_report_cg_value value;
	double limit;          /* the threshold in percent (graph: of total; fractal: of the
			        * parent; flat, folded: of total); negative: none */
	unsigned print_limit;  /* the most branches per level (chains for flat, folded); 0: all */
	bool skip_first;       /* one chain holding the entry: leave out its first frame (perf
			        * does when the table is sorted by symbol first) */
	unsigned flags;        /* PEV_REPORT_* (ADDRESSES) */
	uint64_t total;        /* the event's period */
	uint64_t entry;        /* the entry's period (Children's with children) */
};

/*
 * Draws g under its table line as perf draws the style's print type;
 * writes nothing when nothing reaches the threshold. Returns 0 or -ENOMEM.
 */
int pev__cgraph_print(FILE *out, const struct pev_profile *p, const struct pev__cgraph *g,
		      const struct pev__cg_style *st);

/* ---- merged stacks for folded output and flame graphs (report_stacks.c) ---------------- */

/* What a stack node stands for (pev__stack_node.kind), for colours. */
enum pev__stack_kind {
	PEV__STACK_USER = 0,
	PEV__STACK_KERNEL = 1,
	PEV__STACK_INLINED = 2,
	PEV__STACK_UNKNOWN = 3,
	PEV__STACK_COMM = 4,
	PEV__STACK_ROOT = 5,
	PEV__STACK_OFFCPU = 6, /* the "[off-cpu]" leaf (and the colour of mostly off-CPU frames) */
};

/* A node of the merged stacks: a name reached by the path from the root. */
struct pev__stack_node {
	uint32_t parent;
	uint32_t name; /* id in pev__stacks.names */
	uint32_t hash;
	uint32_t child; /* its children are kids[child .. child + nr), sorted by name */
	uint32_t nr;
	uint16_t kind;
	uint16_t depth; /* the root is 0 */
	uint64_t total; /* weight of the stacks through this node */
	uint64_t self;  /* weight of the stacks ending here */
	uint64_t base_total, base_self; /* the same in a diff's baseline (pev__stacks_add) */
	uint64_t offcpu; /* weight of the off-CPU stacks through this node */
};

/* Every stack of one event, root first, merged by display name. Node 0 is the root. */
struct pev__stacks {
	const struct pev_profile *p;
	struct pev__strtab names;
	struct pev__stack_node *node;
	uint32_t n;
	size_t cap;
	struct pev__idset set;
	uint32_t *kids;
	uint32_t *frame_name; /* frame id -> name id + 1, 0 until first used */
	unsigned max_depth;
	uint64_t samples; /* samples of the event */
	uint64_t base_samples; /* samples of a diff's baseline event */
	uint32_t offcpu_name;  /* "[off-cpu]", the last frame of off-CPU stacks */
};

/*
 * Merges the stacks of event's samples as flamegraph.pl would read their
 * folded lines: the root frame is the command (per flags: none, comm,
 * comm-pid, comm-pid/tid), each frame its display name, weights counted or
 * summed (PEV_REPORT_PERIOD). 0 or -ENOMEM.
 */
int pev__stacks_build(const struct pev_profile *p, unsigned event, unsigned flags,
		      struct pev__stacks *s);
void pev__stacks_free(struct pev__stacks *s);
/*
 * The same in steps, for a diff that merges two profiles into one tree:
 * init makes the root, add merges event's samples of p into the shown
 * weights (total, self) or with base into the baseline's (base_total,
 * base_self), finish orders each node's children. Each returns 0 or
 * -ENOMEM; free the stacks either way.
 */
int pev__stacks_init(struct pev__stacks *s);
int pev__stacks_add(struct pev__stacks *s, const struct pev_profile *p, unsigned event,
		    unsigned flags, bool base);
int pev__stacks_finish(struct pev__stacks *s);
/* The stacks of event ea of a as the baseline, merged with those of event eb of b. 0 or -ENOMEM. */
int pev__stacks_diff(struct pev__stacks *s, const struct pev_profile *a, unsigned ea,
		     const struct pev_profile *b, unsigned eb, unsigned flags);

/* The display name of node i. */
static inline const char *pev__stack_name(const struct pev__stacks *s, uint32_t i)
{
	const char *n = pev__strtab_get(&s->names, s->node[i].name);
	return n ? n : "";
}

#endif /* PERFEV_REPORT_INTERNAL_H */
