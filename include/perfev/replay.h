/* SPDX-License-Identifier: MIT */
/*
 * perfev/replay.h - a perf.data file replayed into symbolized samples.
 *
 * A replay (struct pev_replay) reads the records of an open perf.data
 * reader in time order (perf's rounds: records are sorted between two
 * FINISHED_ROUND markers), feeds the side-band records (COMM, FORK, EXIT,
 * MMAP, MMAP2) into a symbolizer, and hands out the samples one at a
 * time, each with its event, thread, CPU, time, period and its stack
 * resolved to functions, DSOs and inline frames. Build ids from the
 * file's BUILD_ID feature (or MMAP2 records) tell the symbolizer which
 * build each DSO was, so a rebuilt binary is not taken for the recorded one.
 *
 *   struct pev_perfdata *pd;
 *   struct pev_replay *r;
 *   struct pev_replay_sample s;
 *   pev_perfdata_open("perf.data", 0, &pd, &err);
 *   pev_replay_open(pd, NULL, &r, &err);
 *   while (pev_replay_next(r, &s, &err) == 1)
 *           printf("%s %d %s\n", s.comm, s.tid, s.frames[0].symbol);
 *   pev_replay_close(r);
 *   pev_perfdata_close(pd);
 *
 * pev_profile_load() does this loop into a struct pev_profile, which the
 * report writers (perfev/report.h) turn into tables, call graphs, folded
 * stacks, flame graphs, pprof and JSON. share/doc/perfev/REPORT.md and
 * share/doc/perfev/SYMBOLS.md describe both.
 */
#ifndef PERFEV_REPLAY_H
#define PERFEV_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfev/common.h"
#include "perfev/error.h"
#include "perfev/perfdata.h"
#include "perfev/record.h"
#include "perfev/report.h"
#include "perfev/symbols.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A perf.data file being replayed. Opaque. */
struct pev_replay;

/* Flags of struct pev_replay_opts. */
/** Stacks hold the sample's own address only, even when samples carry call chains. */
#define PEV_REPLAY_NO_CALLCHAIN (1u << 0)
/** No inline frames: each address gives the one function it was compiled into. */
#define PEV_REPLAY_NO_INLINE (1u << 1)
/** Hand out records in file order instead of time order (no sorting, less memory). */
#define PEV_REPLAY_FILE_ORDER (1u << 2)
/**
 * Name each caller of a frame-pointer call chain by the symbol at its
 * return address, as perf does, instead of by its call instruction (the
 * return address - 1, the default). The two differ where a call is the
 * last instruction of its function (a call to a noreturn function): the
 * return address is then the next function's first byte.
 */
#define PEV_REPLAY_SYMBOL_AT_RETURN (1u << 3)
/**
 * Keep call-chain entries of address 0 as frames, as perf does (a
 * frame-pointer walk that read a zero as the outermost return address).
 * By default they are left out: no code runs at address 0.
 */
#define PEV_REPLAY_ZERO_FRAMES (1u << 4)
/**
 * arm64 frame-pointer chains: the caller of a leaf that had not saved its
 * link register is taken from it (PEV_FRAME_LINK_REGISTER) before the
 * chain's second user frame. With this flag a leaf that is its chain's
 * only user frame (the kernel's walk found no frame record) gets it too,
 * as perf 6.1 does when it orders chains from the callers (its --children
 * and -G views); without it, as perf's callee-ordered views and script.
 */
#define PEV_REPLAY_LONE_LEAF_CALLER (1u << 5)

/**
 * pev_profile_load only: the profile keeps its timeline
 * (pev_profile_keep_timeline), which the Firefox Profiler's format
 * (pev_profile_write_gecko) needs: every sample in time order with the CPU
 * time its thread used since its previous sample (known where the file has
 * context-switch records), each off-CPU sample's time waited, and markers
 * for records lost, sampling throttled, the recording's edges, exec, and
 * thread start and end.
 */
#define PEV_REPLAY_TIMELINE (1u << 6)

struct pev_replay_sample;

/** Options of pev_replay_open and pev_profile_load. Initialize with PEV_REPLAY_OPTS_INIT. */
struct pev_replay_opts {
	size_t sz;      /**< sizeof(struct pev_replay_opts), set by the INIT macro */
	unsigned flags; /**< PEV_REPLAY_* */
	/**
	 * The symbolizer to feed, which stays the caller's (it must outlive the
	 * replay and, for pev_profile_load, nothing after the load). NULL: the
	 * replay makes its own from symbols_opts and frees it on close.
	 */
	struct pev_symbols *symbols;
	/**
	 * Options of the replay's own symbolizer; NULL: defaults (without
	 * PEV_SYMBOLS_PROC: a recording's pids may since have been reused).
	 */
	const struct pev_symbols_opts *symbols_opts;
	/**
	 * pev_profile_load only: called with each sample before it is added;
	 * the text it returns (NULL: none) becomes the profile sample's trace
	 * (the "trace" sort key), copied at once, so the callback may reuse
	 * its buffer. NULL: samples have no trace text.
	 */
	const char *(*sample_text)(void *ctx, const struct pev_replay_sample *s);
	void *sample_text_ctx; /**< passed to sample_text */
};

/** Default options. */
#define PEV_REPLAY_OPTS_INIT PEV_SIZED_INIT(struct pev_replay_opts)

/**
 * One sample, symbolized. Everything it points to stays valid until the
 * next pev_replay_next() call, but for the strings of the frames and comm,
 * which live until pev_replay_close().
 */
struct pev_replay_sample {
	const struct pev_perfdata_event *event; /**< the event that took it (never NULL) */
	/** The decoded record: every sample field (raw payload, addr, weights, ...). */
	const struct pev_record *record;
	uint64_t offset;  /**< where the record starts in the file */
	const char *comm; /**< the thread's name at the sample's time; ":TID" when never named */
	int32_t pid;      /**< process id, or -1 when the sample lacks PEV_SAMPLE_TID */
	int32_t tid;      /**< thread id, or -1 */
	int32_t cpu;      /**< CPU, or -1 when the sample lacks PEV_SAMPLE_CPU */
	uint64_t time;    /**< timestamp, or 0 when the sample lacks PEV_SAMPLE_TIME */
	/** The weight: the sample's PERIOD, else the event's fixed period, else 1. */
	uint64_t period;
	unsigned cpumode; /**< PEV_RECORD_MISC_KERNEL, _USER, ... of the sample */
	/**
	 * The stack, leaf first: the sample's address, then the callers from
	 * its call chain (context markers consumed: PEV_FRAME_KERNEL says
	 * which side each frame is on). An address with inlined code gives
	 * the inlined functions first (PEV_FRAME_INLINED), then the function
	 * that holds them. symbol is NULL for an unresolved address.
	 */
	const struct pev_profile_frame *frames;
	size_t nr_frames; /**< frames in the stack */
	size_t nr_addresses; /**< distinct addresses among them (frames without PEV_FRAME_INLINED) */
};

/**
 * Starts replaying pd, which stays the caller's and must outlive the
 * replay; the replay reads its records with pev_perfdata_next() (do not
 * read from pd while the replay is in use). opts may be NULL. Returns 0
 * and stores the replay in *out, PEV_EBADARG (a NULL argument, options
 * this library does not know) or PEV_ENOMEM; err (optional) says why.
 */
PEV_API int pev_replay_open(struct pev_perfdata *pd, const struct pev_replay_opts *opts,
			    struct pev_replay **out, struct pev_error *err);

/**
 * Hands out the next sample. Returns 1 and fills *out, 0 at the end of the
 * file, or a negative code with err (optional) filled: the reader's
 * (PEV_EFORMAT with where the file is damaged, PEV_EUNSUPPORTED for
 * compressed data, PEV_EIO), PEV_ENOMEM, PEV_EBADARG.
 */
PEV_API int pev_replay_next(struct pev_replay *r, struct pev_replay_sample *out,
			    struct pev_error *err);

/**
 * Samples the kernel reported lost in the records read so far, counted as
 * perf report counts its "Total Lost Samples": the sum of the LOST_SAMPLES
 * records (the kernel counts each loss in a LOST record too; both sums are
 * not added). A file without LOST_SAMPLES records (perf before 6.0) gives
 * the sum of its LOST records instead, where perf says 0.
 */
PEV_API uint64_t pev_replay_lost(const struct pev_replay *r);

/** The symbolizer the replay feeds (its own or the caller's). Never NULL for a non-NULL r. */
PEV_API struct pev_symbols *pev_replay_symbols(const struct pev_replay *r);

/**
 * The path of cgroup id (a sample's PEV_SAMPLE_CGROUP value,
 * s->record->sample.cgroup) as the CGROUP records read so far name it
 * ("/system.slice/foo.service"), or NULL when none has. Valid until the
 * next pev_replay_next() call.
 */
PEV_API const char *pev_replay_cgroup_path(const struct pev_replay *r, uint64_t id);

/**
 * The path of the cgroup sample s (handed out by r) was taken in: its
 * PEV_SAMPLE_CGROUP id as pev_replay_cgroup_path() names it, "unknown"
 * for an id no CGROUP record named (as perf report shows it), or NULL when
 * the sample carries no cgroup (recorded without --all-cgroups). Valid
 * until the next pev_replay_next() call.
 */
PEV_API const char *pev_replay_sample_cgroup(const struct pev_replay *r,
					     const struct pev_replay_sample *s);

/** Ends the replay and frees its symbolizer unless it was the caller's. pd stays open. NULL is ignored. */
PEV_API void pev_replay_close(struct pev_replay *r);

/**
 * The unit of an event's period as a profile counts it: nanoseconds for
 * the cpu-clock and task-clock software events, counts for the rest.
 */
PEV_API enum pev_profile_unit pev_replay_event_unit(const struct pev_perfdata_event *ev);

/**
 * The display name of an event: its name from the file (EVENT_DESC,
 * EVENT_UPDATE), else one made from its type and config ("cpu-clock",
 * "tracepoint:42", "raw:0x1234"). Written into buf (size bytes, always
 * terminated). Returns buf.
 */
PEV_API char *pev_replay_event_name(const struct pev_perfdata_event *ev, char *buf, size_t size);

/**
 * The periods of samples that read counters (PEV_SAMPLE_READ, a ':S'
 * group's leader), one per counter read, as perf report and perf script
 * weigh them: how much the counter grew since its read before (the whole
 * count at its first read). An inherited event whose samples carry their
 * thread is read per thread, as perf 7.2 reads it. A count smaller than
 * the one read before it (a counter never goes back: bad input) counts
 * for nothing and is counted (pev_read_periods_backwards). Feed it every
 * sample of one replay, in order.
 */
struct pev_read_periods;

/** One counter's share of a sample (pev_read_periods_take). */
struct pev_read_period {
	const struct pev_perfdata_event *event; /**< the event whose counter was read */
	uint64_t period;                        /**< how much it grew, > 0 */
};

/**
 * A new tracker of the counters read in pd's samples (pd must outlive it).
 * Returns 0 and stores it in *out, PEV_EBADARG or PEV_ENOMEM.
 */
PEV_API int pev_read_periods_new(struct pev_perfdata *pd, struct pev_read_periods **out);

/** Frees rp. NULL is ignored. */
PEV_API void pev_read_periods_free(struct pev_read_periods *rp);

/**
 * Entry i of the values sample s read (s->record->sample.read, the leader
 * first), remembered for the next read of the same counter. Returns 1 with
 * *out filled when the counter grew, 0 when the entry counts for nothing
 * (it did not grow, went back, has an unknown id, or s read no entry i),
 * PEV_EBADARG or PEV_ENOMEM.
 */
PEV_API int pev_read_periods_take(struct pev_read_periods *rp, const struct pev_replay_sample *s,
				  uint64_t i, struct pev_read_period *out);

/**
 * How many of the values taken so far went back (left out); *reads
 * (optional) gets how many were taken. 0 for NULL rp.
 */
PEV_API uint64_t pev_read_periods_backwards(const struct pev_read_periods *rp, uint64_t *reads);

/**
 * Reads every sample of pd into a new profile (one profile event per file
 * event, in file order; an event with no name gets one from
 * pev_replay_event_name(), a repeated name a "#N" suffix), with the lost
 * count and the recording's times. Stores it in *out (free it with
 * pev_profile_free(); it holds copies of every string) and returns 0, or
 * a negative code as pev_replay_open() and pev_replay_next(), with *out
 * NULL. pd is read to its end.
 */
PEV_API int pev_profile_load(struct pev_perfdata *pd, const struct pev_replay_opts *opts,
			     struct pev_profile **out, struct pev_error *err);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_REPLAY_H */
