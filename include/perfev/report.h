/* SPDX-License-Identifier: MIT */
/*
 * perfev/report.h - a profile of symbolized samples, and every way to
 * write it out.
 *
 * A profile (struct pev_profile) holds samples that are already
 * symbolized: each has an event, a weight (its period), the thread it hit
 * (comm, pid, tid), a CPU, a time, and a stack of frames, leaf first, each
 * frame an address with what is known about it (symbol, DSO, source
 * position, inlined or not, kernel or user). Where the samples came from
 * does not matter: a perf.data file, a live ring, a test.
 *
 *   struct pev_profile *p;
 *   struct pev_profile_event ev = PEV_PROFILE_EVENT_INIT;
 *   struct pev_profile_sample s = PEV_PROFILE_SAMPLE_INIT;
 *   pev_profile_new(&p);
 *   ev.name = "cpu-clock"; ev.unit = PEV_PROFILE_UNIT_NANOSECONDS;
 *   int e = pev_profile_add_event(p, &ev);
 *   s.event = e; s.period = 250000; s.comm = "w"; s.pid = s.tid = 42;
 *   s.frames = frames; s.nr_frames = n;        // leaf first
 *   pev_profile_add_sample(p, &s);
 *   pev_profile_write_table(p, stdout, NULL, &err);   // like perf report --stdio
 *   pev_profile_free(p);
 *
 * Strings are copied into the profile (interned: each distinct string is
 * kept once), so the caller's strings need to live only for the call.
 *
 * Writers: the overhead table with optional call graphs
 * (pev_profile_write_table), folded stacks (pev_profile_write_folded), an
 * interactive SVG flame graph (pev_profile_write_flamegraph), pprof
 * (pev_profile_write_pprof), OpenTelemetry profiles
 * (pev_profile_write_otlp) and JSON (pev_profile_write_json). All take
 * the same options struct; each reads the fields that apply to it.
 * share/doc/perfev/REPORT.md describes each format.
 *
 * pprof and OTLP need libprotobuf-c and JSON needs libjson-c: both are loaded when
 * first used, so a machine without them loses only that format (the writer
 * returns PEV_EUNSUPPORTED and says which library is missing).
 *
 * A profile is not locked: use it from one thread at a time. Writers do
 * not change it; several may run one after the other on the same profile.
 */
#ifndef PERFEV_REPORT_H
#define PERFEV_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "perfev/common.h"
#include "perfev/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A profile: events, samples, and the interned strings and frames they use. Opaque. */
struct pev_profile;

/* ---- the model --------------------------------------------------------------- */

/** What an event's period counts. */
enum pev_profile_unit {
	PEV_PROFILE_UNIT_COUNT = 0,       /**< occurrences of the event (cycles, page faults) */
	PEV_PROFILE_UNIT_NANOSECONDS = 1, /**< time (cpu-clock, task-clock) */
	PEV_PROFILE_UNIT_BYTES = 2,       /**< bytes (memory events) */
};

/** An event of a profile. Initialize with PEV_PROFILE_EVENT_INIT. */
struct pev_profile_event {
	size_t sz;                  /**< sizeof(struct pev_profile_event), set by the INIT macro */
	const char *name;           /**< the event as perf names it ("cycles", "cpu-clock"); required */
	enum pev_profile_unit unit; /**< what its period counts */
	/**
	 * pprof's name for this event's weighted values; NULL: "cpu" for an
	 * event in nanoseconds, else the event's name.
	 */
	const char *value_type;
	/** The sampling period when it was fixed (-c); 0: unknown or frequency-based. */
	uint64_t period;
	/** PEV_PROFILE_EVENT_* */
	uint32_t flags;
};

/**
 * pev_profile_event.flags: the event's samples are off-CPU time (`perfev
 * record --off-cpu`): each is a thread's stack when it left the CPU,
 * weighted by the nanoseconds until it ran again. Folded stacks and flame
 * graphs mark them (see pev_profile_write_folded()).
 */
#define PEV_PROFILE_EVENT_OFFCPU (1u << 0)

/** Initializer for struct pev_profile_event: everything zero, the size set. */
#define PEV_PROFILE_EVENT_INIT PEV_SIZED_INIT(struct pev_profile_event)

/** pev_profile_frame.flags: a kernel address (shown as "[k]"; user ones as "[.]"). */
#define PEV_FRAME_KERNEL (1u << 0)
/**
 * pev_profile_frame.flags: a function inlined into the frame that follows
 * it in the stack (its caller); both share the address.
 */
#define PEV_FRAME_INLINED (1u << 1)
/**
 * pev_profile_frame.flags: dso_offset holds the address's offset in its
 * DSO's file. An unresolved frame is then shown, and grouped, by that
 * offset (as perf shows it), not by its run-time address.
 */
#define PEV_FRAME_DSO_OFFSET (1u << 2)
/**
 * pev_profile_frame.flags: a caller the call chain did not hold. On arm64
 * a frame-pointer chain (`-g`) skips the caller of a leaf function that has
 * not saved its return address yet; it is taken from the link register
 * (x30), as perf adds it. A report's --max-stack does not count it, as
 * perf's does not.
 */
#define PEV_FRAME_LINK_REGISTER (1u << 3)

/**
 * One frame of a stack. Any string may be NULL when unknown: a NULL symbol
 * is an unresolved address, a NULL dso an address in no known file.
 */
struct pev_profile_frame {
	uint64_t address;   /**< the instruction address (a return address for callers) */
	const char *symbol; /**< the function's name, or NULL when unresolved */
	uint64_t offset;    /**< the address's offset in the function */
	const char *dso;    /**< the file it was loaded from ("/usr/lib/.../libc.so.6", "[kernel.kallsyms]") */
	const char *file;   /**< the source file, or NULL */
	uint32_t line;      /**< the source line, or 0 */
	uint32_t flags;     /**< PEV_FRAME_* */
	/**
	 * With PEV_FRAME_DSO_OFFSET: the address's offset in the DSO's file
	 * (address - mapping start + the mapping's file offset), the same in
	 * every process that maps the file.
	 */
	uint64_t dso_offset;
	/**
	 * The name the debuginfo gives the function of a frame that is not
	 * PEV_FRAME_INLINED, where it differs from `symbol` (libc's
	 * "__libc_start_main_impl", symbol "__libc_start_main"), or NULL.
	 * Under PEV_REPORT_INLINE_MARKS the table's call graphs show it.
	 */
	const char *debug_name;
};

/** A sample to add. Initialize with PEV_PROFILE_SAMPLE_INIT. */
struct pev_profile_sample {
	size_t sz;        /**< sizeof(struct pev_profile_sample), set by the INIT macro */
	size_t frame_sz;  /**< sizeof(struct pev_profile_frame): the stride of frames[], set by the INIT macro */
	unsigned event;   /**< the index pev_profile_add_event returned */
	uint64_t period;  /**< the sample's weight (its period: events or nanoseconds) */
	const char *comm; /**< the command name; NULL: "[unknown]" */
	int32_t pid;      /**< process id */
	int32_t tid;      /**< thread id */
	int32_t cpu;      /**< CPU, or -1 when not recorded */
	uint64_t time;    /**< timestamp in nanoseconds (perf's clock); 0 when not recorded */
	const struct pev_profile_frame *frames; /**< the stack, leaf first */
	size_t nr_frames; /**< frames in the stack (0: a sample without an address) */
	/**
	 * The sample's text for the "trace" sort key (perf's "Trace output": a
	 * tracepoint's formatted payload), copied; NULL: none. Samples that
	 * differ only in it stay apart.
	 */
	const char *trace;
	/**
	 * The path of the cgroup the sample's task was in
	 * ("/system.slice/nginx.service"; pev_replay_cgroup_path() gives it
	 * for a perf.data sample), copied; NULL: unknown. The "cgroup" sort
	 * key, pprof's "cgroup" label and the other writers show it.
	 */
	const char *cgroup;
	/**
	 * The cgroup's id (PEV_SAMPLE_CGROUP's value), or 0 when unknown: the
	 * table orders rows of the cgroup key that weigh the same by it, as
	 * perf does. The first id given for a path stays.
	 */
	uint64_t cgroup_id;
};

#ifdef __cplusplus
/** C++: what PEV_PROFILE_SAMPLE_INIT gives there (zero fields, the sizes set, cpu -1). */
static inline struct pev_profile_sample pev_profile_sample_init(void)
{
	struct pev_profile_sample s = PEV_SIZED_INIT(struct pev_profile_sample);

	s.frame_sz = sizeof(struct pev_profile_frame);
	s.cpu = -1;
	return s;
}
/** Initializer for struct pev_profile_sample: zero fields, the sizes set, cpu -1. */
#define PEV_PROFILE_SAMPLE_INIT (pev_profile_sample_init())
#else
/** Initializer for struct pev_profile_sample: zero fields, the sizes set, cpu -1. */
#define PEV_PROFILE_SAMPLE_INIT                                                                    \
	{.sz = sizeof(struct pev_profile_sample), .frame_sz = sizeof(struct pev_profile_frame),       \
	 .cpu = -1}
#endif

/**
 * Allocates an empty profile into *out. Returns 0, PEV_EBADARG (out NULL)
 * or PEV_ENOMEM. Free it with pev_profile_free().
 */
PEV_API int pev_profile_new(struct pev_profile **out);

/** Frees a profile and everything it interned. NULL is a no-op. */
PEV_API void pev_profile_free(struct pev_profile *p);

/**
 * Adds an event. Returns its index (0, 1, ...: what samples name in their
 * `event`), or PEV_EBADARG (no name, a name already there, an unknown unit,
 * an options struct that sets fields this library does not know) or
 * PEV_ENOMEM. At most 65535 events.
 */
PEV_API int pev_profile_add_event(struct pev_profile *p, const struct pev_profile_event *ev);

/**
 * Adds a sample; its strings and frames are copied. Returns 0, PEV_EBADARG
 * (an event index not added, frames NULL with nr_frames > 0, a frame_sz
 * smaller than the first four fields of struct pev_profile_frame, more than
 * 65535 frames, a period that would take its event's total past 2^64 - 1:
 * then every share of a total a writer shows stays at or below 100%) or
 * PEV_ENOMEM.
 */
PEV_API int pev_profile_add_sample(struct pev_profile *p, const struct pev_profile_sample *s);

/**
 * Makes events leader .. leader + nr_members - 1 one group (perf's event
 * groups, "{a,b}"), led by the first; name is the group's name, or NULL
 * for an unnamed one (copied). The table writer shows a group as one
 * section with a column per event under PEV_REPORT_GROUP. Returns 0, or
 * PEV_EBADARG (events not added, fewer than two, an event already in a
 * group) or PEV_ENOMEM.
 */
PEV_API int pev_profile_set_group(struct pev_profile *p, unsigned leader, unsigned nr_members,
				  const char *name);

/**
 * Records how many samples were lost while recording (the table's
 * "# Total Lost Samples" line). Returns 0 or PEV_EBADARG.
 */
PEV_API int pev_profile_set_lost(struct pev_profile *p, uint64_t lost);

/**
 * Records when the recording started (wall clock, nanoseconds since the
 * epoch) and how long it ran, for pprof's time_nanos and duration_nanos.
 * Without it pprof gets time 0 and the span between the first and last
 * sample's time. Returns 0 or PEV_EBADARG.
 */
PEV_API int pev_profile_set_time(struct pev_profile *p, uint64_t start_ns, uint64_t duration_ns);

/**
 * Adds the event "wall-clock" (nanoseconds): a copy of every sample of the
 * events in nanoseconds, on-CPU (cpu-clock, task-clock: weighted by their
 * period) and off-CPU (PEV_PROFILE_EVENT_OFFCPU: by the time waited), so
 * that a stack's share of it is its share of the threads' wall-clock time.
 * The off-CPU copies keep their mark. Stores its index in *event (may be
 * NULL). Returns 0, PEV_EBADARG (p NULL, an event of that name already
 * there), PEV_ENOENT (no off-CPU event) or PEV_ENOMEM.
 */
PEV_API int pev_profile_add_wall_clock(struct pev_profile *p, unsigned *event);

/**
 * The PEV_PROFILE_EVENT_* flags of an event into *flags. Returns 0 or
 * PEV_EBADARG (p or flags NULL, no such event).
 */
PEV_API int pev_profile_event_flags(const struct pev_profile *p, unsigned event, uint32_t *flags);
/* ---- the timeline ------------------------------------------------------------ */

/**
 * Makes the profile keep its timeline: every sample added from now on, in
 * the order added, with its time and weight (besides the samples'
 * aggregated form every writer uses), and the markers of
 * pev_profile_add_marker(). The Firefox Profiler's format
 * (pev_profile_write_gecko) needs it; speedscope's
 * (pev_profile_write_speedscope) then lays each thread's samples out in
 * time order. It costs 32 bytes a sample. Call it before the first sample.
 * Returns 0, or PEV_EBADARG (p NULL, samples already added).
 */
PEV_API int pev_profile_keep_timeline(struct pev_profile *p);

/** What a marker of the timeline marks (struct pev_profile_marker.kind). */
enum pev_profile_marker_kind {
	/** Records the kernel dropped (a full ring): value is how many (an instant). */
	PEV_PROFILE_MARKER_LOST = 1,
	/** Sampling throttled by the kernel (its rate limit), from start to end. */
	PEV_PROFILE_MARKER_THROTTLED = 2,
	/** The recording, from start to end (a `record --rotate` window's edges). */
	PEV_PROFILE_MARKER_RECORDING = 3,
	/** The thread's process ran a new program (execve); text is its new name (an instant). */
	PEV_PROFILE_MARKER_EXEC = 4,
	/** The thread was created (clone, fork); value is its parent's thread id (an instant). */
	PEV_PROFILE_MARKER_THREAD_START = 5,
	/** The thread ended (an instant). */
	PEV_PROFILE_MARKER_THREAD_END = 6,
};

/**
 * Something that happened at a time, or from one time to another, to one
 * thread or to the whole recording. Initialize with PEV_PROFILE_MARKER_INIT.
 */
struct pev_profile_marker {
	size_t sz; /**< sizeof(struct pev_profile_marker), set by the INIT macro */
	enum pev_profile_marker_kind kind; /**< what it marks */
	int32_t pid;    /**< the process, or -1 (set by the INIT macro): the whole recording */
	int32_t tid;    /**< the thread, or -1 (set by the INIT macro): the whole recording */
	uint64_t start; /**< when it happened or began, in nanoseconds (the samples' clock) */
	uint64_t end;   /**< when it ended; at most start: an instant */
	uint64_t value; /**< a number it carries (see the kinds), or 0 */
	const char *text; /**< a text it carries (see the kinds; copied), or NULL */
};

#ifdef __cplusplus
/** C++: what PEV_PROFILE_MARKER_INIT gives there (zero fields, the size set, pid and tid -1). */
static inline struct pev_profile_marker pev_profile_marker_init(void)
{
	struct pev_profile_marker m = PEV_SIZED_INIT(struct pev_profile_marker);

	m.pid = -1;
	m.tid = -1;
	return m;
}
/** Initializer for struct pev_profile_marker: zero fields, the size set, pid and tid -1. */
#define PEV_PROFILE_MARKER_INIT (pev_profile_marker_init())
#else
/** Initializer for struct pev_profile_marker: zero fields, the size set, pid and tid -1. */
#define PEV_PROFILE_MARKER_INIT                                                                    \
	{.sz = sizeof(struct pev_profile_marker), .pid = -1, .tid = -1}
#endif

/**
 * Adds a marker to the timeline (pev_profile_keep_timeline). Returns 0,
 * PEV_EBADARG (p or m NULL, an unknown kind or options, no timeline kept)
 * or PEV_ENOMEM.
 */
PEV_API int pev_profile_add_marker(struct pev_profile *p, const struct pev_profile_marker *m);

/** pev_profile_mapping.flags: the recorded program (pprof's main mapping, listed first). */
#define PEV_PROFILE_MAPPING_MAIN (1u << 0)

/**
 * A file mapped into the recorded processes, for pprof's mappings.
 * Initialize with PEV_PROFILE_MAPPING_INIT. start, limit and file_offset
 * use the numbering the DSO's frames use: for frames with
 * PEV_FRAME_DSO_OFFSET, offsets in the file (start = file_offset = the
 * mapping's file offset, limit = start + its length); else run-time
 * addresses (the kernel: its start, end, and perf's file offset).
 */
struct pev_profile_mapping {
	size_t sz;         /**< sizeof(struct pev_profile_mapping), set by the INIT macro */
	const char *dso;   /**< the file, as frames name it in their dso; required */
	uint64_t start;    /**< the lowest address of its code; start = limit = 0: unknown */
	uint64_t limit;    /**< one past the highest */
	uint64_t file_offset; /**< the offset in the file that start maps */
	const unsigned char *build_id; /**< the file's build id, or NULL */
	size_t build_id_size;          /**< its length in bytes (at most 64) */
	unsigned flags;    /**< PEV_PROFILE_MAPPING_* */
};

/** Initializer for struct pev_profile_mapping: everything zero, the size set. */
#define PEV_PROFILE_MAPPING_INIT PEV_SIZED_INIT(struct pev_profile_mapping)

/**
 * Describes a DSO for pprof (copied). Calls for one DSO add up: its range
 * grows to cover each one's, the first build id stays, flags are or'ed.
 * Without a call, a DSO's mapping spans its frames' addresses. Returns 0,
 * PEV_EBADARG (no dso, limit below start, a build id over 64 bytes, unknown
 * flags or options) or PEV_ENOMEM.
 */
PEV_API int pev_profile_add_mapping(struct pev_profile *p, const struct pev_profile_mapping *m);

/**
 * When the recording started (0: unknown) and how long it ran: what
 * pev_profile_set_time recorded, else 0 and the span between the first and
 * last sample's time (0 without times). Either pointer may be NULL.
 * Returns 0 or PEV_EBADARG.
 */
PEV_API int pev_profile_time(const struct pev_profile *p, uint64_t *start_ns,
			     uint64_t *duration_ns);

/** Number of events added. p NULL: 0. */
PEV_API unsigned pev_profile_nr_events(const struct pev_profile *p);

/**
 * The totals of one event: samples added and the sum of their periods
 * (either pointer may be NULL). Returns 0 or PEV_EBADARG.
 */
PEV_API int pev_profile_totals(const struct pev_profile *p, unsigned event, uint64_t *samples,
			       uint64_t *period);

/* ---- writing ----------------------------------------------------------------- */

/** How the table shows call graphs (pev_report_opts.callgraph). */
enum pev_report_callgraph {
	PEV_REPORT_CALLGRAPH_NONE = 0,   /**< no call graph */
	PEV_REPORT_CALLGRAPH_CALLEE = 1, /**< each entry, then its callers (perf's default under -g) */
	PEV_REPORT_CALLGRAPH_CALLER = 2, /**< each entry's stacks from the outermost caller down (perf -G) */
};

/** How the table draws each call graph (pev_report_opts.callgraph_print): perf's print types. */
enum pev_report_cg_print {
	PEV_REPORT_CG_GRAPH = 0,   /**< a tree, percentages of the event's total (perf's "graph") */
	PEV_REPORT_CG_FRACTAL = 1, /**< a tree, percentages of the parent branch (perf's "fractal") */
	PEV_REPORT_CG_FLAT = 2,    /**< every distinct chain on its own, one frame a line ("flat") */
	PEV_REPORT_CG_FOLDED = 3,  /**< every distinct chain on one line, frames joined by ';' ("folded") */
};

/** What the table's call graphs show for each branch (pev_report_opts.callgraph_value). */
enum pev_report_cg_value {
	PEV_REPORT_CG_PERCENT = 0, /**< a percentage */
	PEV_REPORT_CG_PERIOD = 1,  /**< the summed period */
	PEV_REPORT_CG_COUNT = 2,   /**< the number of samples */
};

/* pev_report_opts.flags */
/** Table, JSON: add the Children (inclusive) column and sort by it, as perf --children. */
#define PEV_REPORT_CHILDREN (1u << 0)
/** Folded, flame graph: weigh stacks by period instead of counting samples. */
#define PEV_REPORT_PERIOD (1u << 1)
/** Folded, flame graph: no command name at the root of each stack. */
#define PEV_REPORT_NO_COMM (1u << 2)
/** Folded, flame graph: the root is "comm-PID" (separate stacks per process). */
#define PEV_REPORT_PID (1u << 3)
/** Folded, flame graph: the root is "comm-PID/TID" (separate stacks per thread). */
#define PEV_REPORT_TID (1u << 4)
/** Folded, flame graph, call graphs: an unresolved frame shows its address ("0x4005d0"), not "[unknown]". */
#define PEV_REPORT_ADDRESSES (1u << 5)
/** Folded, flame graph: kernel frames end in "_[k]", inlined ones in "_[i]" (flamegraph.pl's marks). */
#define PEV_REPORT_ANNOTATE (1u << 6)
/** Every format: drop inlined frames (keep only the functions the code was compiled into). */
#define PEV_REPORT_NO_INLINE (1u << 7)
/** JSON: indent the output. */
#define PEV_REPORT_PRETTY (1u << 8)
/** Table: no "#" header lines (the column titles and event sections stay out too). */
#define PEV_REPORT_NO_HEADER (1u << 9)
/**
 * Table: each event group (pev_profile_set_group) is one section with one
 * column per event, as perf report --group; in a profile without groups,
 * all events form one.
 */
#define PEV_REPORT_GROUP (1u << 10)
/** Table: the Shared Object column shows each file's full path, not its base name (perf -v). */
#define PEV_REPORT_FULL_PATHS (1u << 11)
/** Table: a Samples column after the overhead (perf -n, --show-nr-samples). */
#define PEV_REPORT_NR_SAMPLES (1u << 12)
/**
 * Table: inlined functions as perf shows them: "name (inlined)" in call
 * graphs and, under PEV_REPORT_CHILDREN, as entries of their own; a frame
 * whose debuginfo names its function otherwise than its symbol
 * (pev_profile_frame.debug_name) shows that name, marked the same way.
 */
#define PEV_REPORT_INLINE_MARKS (1u << 13)
/**
 * Table, JSON: each of the comms, dsos and symbols filters is one name
 * (commas included) written as the table shows it: escaped as
 * pev_text_escape() escapes it, a DSO by its base name or full path. A
 * name passes when it shows so. A live view (perfev top) filters by the
 * cell a user selected, whatever bytes the name holds. Two names that
 * show alike (a control byte and the text of its escape) both pass.
 */
#define PEV_REPORT_FILTER_SHOWN (1u << 14)
/**
 * Gecko, speedscope: gzip-compress the output (a ".json.gz" file, which
 * both viewers open); OTLP: the serialized request gzip-compressed.
 */
#define PEV_REPORT_GZIP (1u << 15)
/**
 * Folded, flame graph: each stack starts at its sample's cgroup path
 * (pev_profile_sample.cgroup; "N/A" when unknown), then the command.
 * (Gecko and speedscope always name a thread's cgroup with its process,
 * and pprof labels each sample with it, where samples have one.)
 */
#define PEV_REPORT_CGROUP (1u << 16)

/* pev_report_opts.labels: the pprof labels (OTLP: attributes) each sample carries. */
/** pprof label "comm" (string); OTLP thread.name. */
#define PEV_REPORT_LABEL_COMM (1u << 0)
/** pprof label "pid" (number); OTLP process.pid. */
#define PEV_REPORT_LABEL_PID (1u << 1)
/** pprof label "tid" (number); OTLP thread.id. */
#define PEV_REPORT_LABEL_TID (1u << 2)
/** pprof label "cpu" (number); OTLP cpu.logical_number. */
#define PEV_REPORT_LABEL_CPU (1u << 3)
/** pprof label "cgroup" (string; default on for a profile whose samples have one), and "container_id" where the path names a container. */
#define PEV_REPORT_LABEL_CGROUP (1u << 4)
/** No pprof labels at all (labels 0 means the default: comm, pid, tid, cpu, and cgroup when known). */
#define PEV_REPORT_LABEL_NONE (1u << 31)

/**
 * Options of every writer. Initialize with PEV_REPORT_OPTS_INIT; zero
 * fields keep their defaults. A field a format does not use is ignored.
 */
struct pev_report_opts {
	size_t sz; /**< sizeof(struct pev_report_opts), set by the INIT macro */
	/**
	 * Table, JSON: the sort keys, comma-separated, in order: comm, pid, tid,
	 * cpu, dso, sym (perf's "symbol" is accepted too), srcline, trace (the
	 * samples' trace text, pev_profile_sample.trace), cgroup (the samples'
	 * cgroup path, "N/A" where unknown, as perf). NULL: "comm,dso,sym".
	 */
	const char *sort;
	/**
	 * Which event to write, by name. NULL: the table, JSON and pprof write
	 * every event (the table and JSON one section each); folded stacks and
	 * the flame graph the first event.
	 */
	const char *event;
	unsigned flags; /**< PEV_REPORT_* */
	/** Table, JSON: the call graph under each entry. */
	enum pev_report_callgraph callgraph;
	/** Table, JSON: hide entries below this percentage (perf --percent-limit). 0: show all. */
	double percent_limit;
	/**
	 * Table, JSON: hide call-graph branches below this percentage of the
	 * event's total (perf's graph threshold). 0: 0.5; negative: show all.
	 */
	double callgraph_limit;
	/** Flame graph: the title. NULL: "Flame Graph". */
	const char *title;
	/** Flame graph: the image width in pixels. 0: 1200. */
	unsigned width;
	/** Flame graph: the height of a frame in pixels. 0: 16. */
	unsigned frame_height;
	/** Flame graph: frames narrower than this many pixels are left out. 0: 0.1. */
	double min_width;
	/**
	 * pprof, OTLP: PEV_REPORT_LABEL_* bits. 0: comm, pid, tid and cpu (cpu
	 * where samples have one).
	 */
	unsigned labels;
	/** Table: how call graphs are drawn. 0: a graph, as perf's default. */
	enum pev_report_cg_print callgraph_print;
	/** Table: what each call-graph branch shows. 0: percentages. */
	enum pev_report_cg_value callgraph_value;
	/** Table: the most branches shown at each level of a call graph (perf's print limit). 0: all. */
	unsigned callgraph_print_limit;
	/**
	 * Table: the most frames of each stack the Children column and the call
	 * graphs use, counted from the leaf or, with PEV_REPORT_CALLGRAPH_CALLER,
	 * from the outermost caller (perf's --max-stack). 0: every frame.
	 */
	unsigned max_stack;
	/*
	 * Table, JSON: filters, each a comma-separated list (NULL: no filter). A
	 * sample counts only when its command, process and thread are listed;
	 * an entry only when its function's DSO (base name or full path) and
	 * symbol name are. Percentages stay shares of the whole event, as perf's.
	 * The table leaves out the column of a comm, dso or symbol filter of one
	 * name and names it in the header ("# comm: w"), as perf does.
	 */
	const char *comms;   /**< commands (perf --comms) */
	const char *pids;    /**< process ids (perf --pid) */
	const char *tids;    /**< thread ids (perf --tid) */
	const char *dsos;    /**< DSOs (perf --dsos) */
	const char *symbols; /**< symbol names (perf --symbols) */
	/**
	 * Table: the columns, comma-separated, as perf's -F: overhead,
	 * overhead_children, sample, period and sort keys, in the order given,
	 * then the keys of `sort` (when set) not among them. Entries are grouped
	 * by all those keys and sorted by the `sort` keys, then by the fields
	 * left to right. NULL: perf's default columns.
	 */
	const char *fields;
	/**
	 * Table: write at most this many entries (with their call graphs), the
	 * first in the table's order (perf top's --entries). The columns stay as
	 * wide as every entry. 0: all.
	 */
	unsigned max_entries;
	/**
	 * OTLP: the resource's host.name, the machine that recorded the
	 * profile (a perf.data file's HOSTNAME). NULL: this machine's name
	 * (gethostname); "": no host.name.
	 */
	const char *host;
};

/** Initializer for struct pev_report_opts: everything zero (the defaults), the size set. */
#define PEV_REPORT_OPTS_INIT PEV_SIZED_INIT(struct pev_report_opts)

/**
 * Writes the overhead table as `perf report --stdio` does: per event a
 * "# Samples: N of event 'E'" / "# Event count (approx.): P" header, the
 * column titles, then one line per entry of the sort keys with its share
 * of the event's period ("Overhead", and "Children" first with
 * PEV_REPORT_CHILDREN), sorted by it. Symbols carry "[.]" (user) or "[k]"
 * (kernel); an unresolved symbol shows its address, an unknown DSO
 * "[unknown]". With opts->callgraph, each entry is followed by its call
 * graph as perf draws it. opts NULL: the defaults.
 *
 * Returns 0; PEV_EBADARG (p or out NULL, bad options); PEV_EPARSE (an
 * unknown sort key); PEV_ENOTFOUND (no event of that name); PEV_ENOMEM;
 * PEV_EIO (writing failed). err, when not NULL, gets the message.
 */
PEV_API int pev_profile_write_table(const struct pev_profile *p, FILE *out,
				    const struct pev_report_opts *opts, struct pev_error *err);

/**
 * Writes folded stacks, one line per distinct stack, "comm;root;...;leaf N"
 * (flamegraph.pl, inferno and speedscope read them): N the number of
 * samples (or the sum of periods with PEV_REPORT_PERIOD), lines sorted.
 * Frames show the symbol's name, "[unknown]" (or the address with
 * PEV_REPORT_ADDRESSES) when unresolved; ';' in a name becomes ':' and
 * control characters become spaces. An off-CPU sample's stack
 * (PEV_PROFILE_EVENT_OFFCPU) ends in the frame "[off-cpu]". Returns as
 * pev_profile_write_table.
 */
PEV_API int pev_profile_write_folded(const struct pev_profile *p, FILE *out,
				     const struct pev_report_opts *opts, struct pev_error *err);

/**
 * Writes a self-contained interactive SVG flame graph of one event: the
 * root at the bottom, each frame as wide as its share, children in name
 * order. Opened in a browser it zooms into a frame on click, resets,
 * searches (highlighting matches and showing the matched percentage) and
 * shows the name, samples and percentage of the frame under the pointer.
 * Frames whose weight is mostly off-CPU samples' (PEV_PROFILE_EVENT_OFFCPU)
 * are drawn in blues. It needs no external resource. Returns as pev_profile_write_table.
 */
PEV_API int pev_profile_write_flamegraph(const struct pev_profile *p, FILE *out,
					 const struct pev_report_opts *opts, struct pev_error *err);

/**
 * Writes a gzip-compressed pprof profile (profile.proto) that
 * `go tool pprof`, Pyroscope and Parca read: per event two sample types,
 * the sample count and the weighted period (e.g. samples/count and
 * cpu/nanoseconds), locations with their inline chains, functions,
 * mappings per DSO, and labels (opts->labels). Returns as
 * pev_profile_write_table, and PEV_EUNSUPPORTED when libprotobuf-c cannot
 * be loaded.
 */
PEV_API int pev_profile_write_pprof(const struct pev_profile *p, FILE *out,
				    const struct pev_report_opts *opts, struct pev_error *err);

/**
 * Writes the profile as OpenTelemetry profiles (OTLP, the v1development
 * signal): one serialized ExportProfilesServiceRequest, the body an
 * OTLP/HTTP receiver takes at /v1development/profiles (gzip-compressed
 * with PEV_REPORT_GZIP). One resource (host.name from opts->host,
 * service.name, and the process's attributes when all samples are one
 * process's), one scope ("perfev" and its version), and one Profile per
 * event (opts->event: only that one) whose sample type is (cpu,
 * nanoseconds) for time events, (off_cpu, nanoseconds) for off-CPU ones
 * (PEV_PROFILE_EVENT_OFFCPU), else (the event's name, count). Samples
 * refer to the dictionary's shared stacks (leaf first); locations carry
 * their inline chains as lines (innermost first), their mapping and the
 * attribute profile.frame.type ("native", "kernel"); mappings carry
 * process.executable.build_id.gnu; samples carry thread.name, thread.id,
 * process.pid and cpu.logical_number per opts->labels. Where the profile
 * keeps its timeline (pev_profile_keep_timeline) and knows when it
 * started (pev_profile_time), each sample has its observations' times
 * (UTC) and weights, else one value: the summed period.
 * share/doc/perfev/REPORT.md has the details. out may be an
 * open_memstream() stream. Returns as pev_profile_write_table, and
 * PEV_EUNSUPPORTED when libprotobuf-c cannot be loaded.
 */
PEV_API int pev_profile_write_otlp(const struct pev_profile *p, FILE *out,
				   const struct pev_report_opts *opts, struct pev_error *err);

/**
 * Writes the table as JSON: per event its name, unit, sample count, total
 * period and rows (the sort keys' values, overhead and children
 * percentages, period and samples, as numbers), and with opts->callgraph
 * each row's call tree. Returns as pev_profile_write_table, and
 * PEV_EUNSUPPORTED when libjson-c cannot be loaded.
 */
PEV_API int pev_profile_write_json(const struct pev_profile *p, FILE *out,
				   const struct pev_report_opts *opts, struct pev_error *err);

/**
 * Writes the Firefox Profiler's Gecko profile format (JSON, version 24,
 * presymbolicated), which https://profiler.firefox.com opens: a thread
 * per recorded thread (named by its command, with its pid and tid, the
 * threads of a process grouped by the Profiler), each with its samples in
 * time order, stack, frame and string tables, and markers. Frames are
 * "function (in library)", kernel frames in the category "Kernel", user
 * ones in "User", inlined functions as frames of their own. Each sample
 * carries the CPU time its thread used since its previous sample
 * (threadCPUDelta, in nanoseconds; null where the profile does not know
 * it), so the Profiler's CPU graph drops while a thread waits; each
 * off-CPU sample (PEV_PROFILE_EVENT_OFFCPU) is also an "Off-CPU" interval
 * marker holding its stack. The markers of pev_profile_add_marker follow.
 * opts->event: only that event's samples (default: every event's).
 * The profile needs its timeline (pev_profile_keep_timeline). Returns as
 * pev_profile_write_table, and PEV_EBADARG when the profile keeps no
 * timeline.
 */
PEV_API int pev_profile_write_gecko(const struct pev_profile *p, FILE *out,
				   const struct pev_report_opts *opts, struct pev_error *err);

/**
 * Writes speedscope's file format (JSON, https://www.speedscope.app/file-format-schema.json):
 * the frames shared by all profiles (function, file, line), and one
 * "sampled" profile per thread of one event (opts->event, else the first)
 * with its stacks, root first, and their weights in the event's unit
 * (nanoseconds for time events). With the profile's timeline, each
 * thread's samples come in time order (speedscope's "Time Order" view is
 * then a timeline), else one per distinct stack. An off-CPU sample's stack
 * ends in the frame "[off-cpu]". The "wall-clock" event
 * (pev_profile_add_wall_clock) weighs on-CPU samples by the time they stand
 * for and off-CPU ones by the time waited. Returns as pev_profile_write_table.
 */
PEV_API int pev_profile_write_speedscope(const struct pev_profile *p, FILE *out,
					 const struct pev_report_opts *opts,
					 struct pev_error *err);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_REPORT_H */
