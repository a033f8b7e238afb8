/* SPDX-License-Identifier: MIT */
/*
 * record.h - what the parts of `perfev record` share: the checked command
 * line, the events opened on their targets with their rings, the output
 * file, and what was seen in the records (counts, mappings hit by samples).
 *
 * cmd_record.c reads the options and runs the whole job; record_open.c
 * opens the events and rings and starts the file; record_synth.c writes the
 * COMM, FORK and MMAP2 records of tasks that already run; record_run.c
 * drains the rings into the file until the end; record_dsos.c follows the
 * mappings, marks those samples hit and adds their build ids.
 */
#ifndef PERFEV_CLI_RECORD_H
#define PERFEV_CLI_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cli.h"
#include "record_push.h"

#define REC_MAX_LISTS     64    /* most -e options */
#define REC_DEFAULT_FREQ  4000  /* -F, as perf */
#define REC_DEFAULT_PAGES 128   /* -m: 512 KiB of data per ring, as perf as root */
#define REC_DEFAULT_STACK 8192  /* --call-graph dwarf's stack dump, as perf */
#define REC_MAX_STACK     65528 /* the largest dump the kernel takes (a u16, 8-aligned) */

/* What the events are attached to. */
enum rec_target {
	REC_TARGET_COMMAND, /* the command perfev runs, and its descendants */
	REC_TARGET_PROCESS, /* -p: every thread of existing processes */
	REC_TARGET_THREAD,  /* -t: existing threads */
	REC_TARGET_CPUS,    /* -a or -C: every task on some CPUs */
};

/* How samples collect call chains. */
enum rec_callgraph {
	REC_CG_NONE,
	REC_CG_FP,    /* -g, --call-graph fp: the kernel walks frame pointers */
	REC_CG_DWARF, /* --call-graph dwarf: user registers and stack for unwinding later */
};

/* The command line, checked. */
struct rec_config {
	char **argv; /* the command and its arguments, NULL-terminated; NULL if none */
	char *path;  /* the file argv[0] names, as cli_check_command found it (owned) */
	enum rec_target target;
	pid_t *ids; /* -p pids or -t tids */
	int nids;
	bool output_given; /* -o was given (messages name it only then) */
	char *cpus; /* -C's CPUs ascending, each once ("0,2"; owned), or NULL for every online CPU (-a) */
	const char *event_text[REC_MAX_LISTS];
	int nevent_text; /* 0: the default, cycles */
	uint64_t freq;   /* -F (samples a second), or 0 with -c */
	uint64_t period; /* -c, or 0 */
	bool rate_given; /* -F or -c was given (tracepoints sample every hit otherwise) */
	enum rec_callgraph callgraph;
	uint32_t stack_size; /* dwarf: bytes of user stack in each sample */
	size_t pages;        /* -m: data pages of each ring */
	const char *output;  /* -o */
	bool pipe;           /* -o -: pipe mode to standard output */
	bool quiet;          /* -q: no status line, no summary */
	double rotate_s;     /* --rotate: seconds of each window, or 0 */
	const char *rotate_dir; /* --rotate: the directory the windows go to (-o DIR/) */
	bool rotate_pprof;   /* --format pprof: windows in pprof, not perf.data */
	bool off_cpu;        /* --off-cpu: every switch-out with its stack, and switch records */
	bool no_buildid_cache; /* -N: the files hit are not added to perf's build-id cache */
	char *cgroups;       /* -G: cgroup names, comma-separated, the -G options joined (owned), or NULL */
	bool all_cgroups;    /* --all-cgroups: each sample's cgroup id, CGROUP records */
	bool use_clockid;    /* -k: sample times from clockid */
	int32_t clockid;     /* CLOCK_MONOTONIC, ... */
	struct rec_push_opts push; /* --push and its options (record_push.c) */
};

/* One event, opened on every unit of the target. */
struct rec_event {
	char name[160];                /* as written into the file (EVENT_DESC) */
	char tracepoint[160];          /* "system:name" of a tracepoint, else "" */
	struct pev_counter **counters; /* one per unit */
	int leader;                    /* index of its group's leader; -1 alone or leading */
	int nr_members;                /* events of the group it leads, itself included; 1 alone */
	bool leader_sampling;          /* in a ':S' group: the leader samples, reading all */
};

/* One ring: a CPU's (or a thread's), with every descriptor there sent into it. */
struct rec_ring {
	struct pev_ring *ring;
	bool hup; /* its task exited: drained for the last time */
};

/* One mapping of a file into a process, as an MMAP or MMAP2 record said. */
struct rec_map {
	uint64_t start, end;
	uint64_t time; /* when it was mapped (0 without times) */
	int dso;       /* index in rec_dsos.dsos */
};

/*
 * A process's mappings (a bucket chain of the hash by pid). The rings are
 * read one after another, so a process's records come out of time order:
 * with times, an exec or a fork keeps the mappings made after it, and a
 * lookup takes only the mappings of the program that ran at the sample's
 * time; without, they drop every mapping.
 */
struct rec_proc {
	int32_t pid;
	int32_t parent;     /* forked from this pid: look there too (before start); -1 */
	uint64_t start;     /* the time of its last exec or fork (0: none seen) */
	bool exec;          /* that was an exec: nothing of the parent's serves it after */
	struct rec_map *maps;
	int nmaps, cap;
	int last; /* the mapping the last lookup found */
	struct rec_proc *next;
};

/* A file samples may hit. */
struct rec_dso {
	char *path;
	bool hit;
};

#define REC_PROC_BUCKETS 1024

/* Mappings seen in the records and the files they map. */
struct rec_dsos {
	struct rec_proc *procs[REC_PROC_BUCKETS];
	struct rec_dso *dsos;
	int ndsos, cap;
	bool kernel_hit;
	bool vdso_mapped; /* a process mapped the [vdso] */
	/* User addresses that no mapping held when their sample was read: the rings
	 * are read one after another, so a sample may come before the MMAP2 record
	 * (in another CPU's ring) of the file it hit. Looked up again after the pass. */
	struct rec_pending {
		int32_t pid;
		uint64_t ip;
		uint64_t time;
	} *pending;
	size_t npending, cap_pending;
};

/* What the records written so far held. */
struct rec_stats {
	uint64_t samples;
	uint64_t lost;        /* records the kernel dropped (LOST, LOST_SAMPLES) */
	uint64_t records;     /* every record from the rings */
	uint64_t wakeups;     /* polls that found a ring ready */
	uint64_t synthesized; /* records perfev made from /proc */
};

/* Everything one `perfev record` holds. */
struct rec_window;

struct rec_state {
	struct rec_config cfg;
	struct pev_event_list *lists[REC_MAX_LISTS];
	int nlists;
	struct rec_event *events;
	int nevents;
	int offcpu; /* --off-cpu: the index of its context-switches event, else -1 */
	struct pev_target *units; /* what each event is opened on */
	int nunits;
	struct rec_ring *rings;
	int nrings;
	struct pev_perfdata_writer *writer;
	int out_fd;                   /* the output's descriptor (the writer does not own it), or -1 */
	struct pev_record_format fmt; /* of the first event (the records' trailer) */
	uint64_t sample_type;         /* the first event's */
	bool uniform;                 /* every event has that sample_type */
	struct rec_dsos dsos;
	struct rec_stats stats;
	/*
	 * The command, forked and held before its exec when the events open on
	 * its own pid (a ':S' group, whose counters are not inherited); else
	 * none (pid 0): the command starts after the events, inheriting them.
	 */
	struct cli_paused command;
	/* --rotate: the window being written, and the processes earlier ones saw. */
	struct rec_window *window;
	pid_t *known; /* processes to describe again at each new window (command target) */
	int nknown;
	bool failed; /* a window could not be completed: stop, exit 1 */
	struct rec_push *push; /* --push: the sender of the windows, or NULL */
};

/* cmd_record.c (`perfev top` reads the same options) */

/* -F: a rate from 1 to the kernel's limit, or "max", into cfg->freq. Returns 0 or the exit status. */
int rec_parse_freq(struct rec_config *cfg, const char *text);

/*
 * The rate to sample at when the command line gave none (neither -F nor -c):
 * dflt, or kernel.perf_event_max_sample_rate where that limit is lower, said
 * in one warning line on stderr, as perf lowers its default. A rate the user
 * gave is never lowered: rec_parse_freq refuses it above the limit.
 */
uint64_t rec_default_freq(uint64_t dflt);

/* -p (opt 'p') or -t: existing process or thread ids into cfg->ids. Returns 0 or the exit status. */
int rec_parse_ids(struct rec_config *cfg, char opt, const char *text);

/* record_open.c */

/*
 * Parses the -e lists (or cycles), opens every event on every unit (cycles
 * falls back to cpu-clock where the machine has no hardware PMU, saying so
 * in one line), maps the rings (one per CPU or per thread, the other
 * events' records sent there) and opens the output file with the events.
 * With a ':S' group the command is forked first (s->command) and the
 * events open on it. Returns 0 or the exit status to stop with (the error
 * printed).
 */
int rec_open(struct rec_state *s);

/* Adds every event to the output with the ids of all its descriptors. Returns 0 or 1. */
int rec_add_events(struct rec_state *s);

/* Enables every event (targets other than a command perfev starts). */
void rec_enable(struct rec_state *s);

/* Closes the rings, the counters, the file (unfinished) and frees the events. */
void rec_close(struct rec_state *s);

/* record_synth.c */

/*
 * Writes the records the kernel will not: the kernel's own mapping, and
 * for tasks that run already (-p, -t, -a, -C) their COMM, FORK (threads)
 * and MMAP2 records from /proc. Returns 0 or a negative code.
 */
int rec_synthesize(struct rec_state *s);

/* record_cgroup.c: -G. */

/* Adds a -G option's list to cfg->cgroups. Returns 0 or 1 (said). */
int rec_add_cgroups(struct rec_config *cfg, const char *list);

/*
 * The directory of the cgroup event e samples, into dir. Returns 1 (dir
 * set), 0 (no cgroup: every task of the target) or -1 (the error said).
 */
int rec_cgroup_dir(const struct rec_state *s, int e, char *dir, size_t size);

/* Receives synthesized records (len bytes of whole records); returns 0 or a negative code. */
typedef int (*rec_synth_sink)(void *ctx, const void *bytes, size_t len);

/*
 * Makes the records rec_synthesize writes (the kernel's mapping; COMM, FORK
 * and MMAP2 of the tasks of target: ids for -p and -t, and for a command
 * the processes --rotate's earlier windows saw; every process for CPUs), each ending with `trailer` zero bytes, and hands them to sink in
 * batches (`perfev top` feeds its symbolizer with them). Returns 0 or the
 * sink's first non-zero result.
 */
int rec_synth_tasks(enum rec_target target, const pid_t *ids, int nids, size_t trailer,
                    rec_synth_sink sink, void *ctx);

/*
 * Writes FINISHED_INIT, the end of the records made at start, as perf
 * record does before the first of the kernel's. Returns 0 or a negative code.
 */
int rec_finished_init(struct rec_state *s);

/* record_tracing.c */

/*
 * Adds the TRACING_DATA feature (tracefs's formats of the recorded
 * tracepoints) when some event is a tracepoint. Returns 0 or a negative code.
 */
int rec_tracing_data(struct rec_state *s);

/* record_run.c */

/*
 * Drains the rings into the file until the end: the command exits (when
 * child > 0; then reaped into *status), every -p / -t task has exited, or
 * SIGINT / SIGTERM arrives (passed on to the command as SIGTERM). Returns
 * the signal that stopped perfev, or 0.
 */
int rec_loop(struct rec_state *s, pid_t child, int *status);

/* Drains every ring once into the file, then ends the round. Returns 0 or a negative code. */
int rec_drain(struct rec_state *s);

/* record_dsos.c */

/* Notes one record written to the file: samples, lost, and the mappings. */
void rec_dsos_account(struct rec_state *s, const struct pev_event_header *h, size_t size);

/*
 * Looks again the user addresses up that no mapping held when their samples
 * were read (rec_dsos.pending), and forgets them: called after each pass over
 * the rings, which by then has read every MMAP2 record written before them.
 */
void rec_dsos_retry(struct rec_state *s);

/*
 * Adds the build id of every file samples hit (and the kernel's, and the
 * vDSO's) to the file and, as perf record does unless -N (and never in pipe
 * mode), the files themselves to perf's build-id cache (buildid_cache.h).
 */
void rec_dsos_add_build_ids(struct rec_state *s);

/* Frees what d holds. */
void rec_dsos_free(struct rec_dsos *d);

/* record_rotate.c: --rotate, one complete file per window of time. */

/*
 * Starts the first window: checks and creates the directory, recovers the
 * windows recorders killed there left (said on stderr), creates the
 * window's temporary file (a dot file in it, its descriptor in out_fd) and
 * points cfg.output at it. Returns 0 or an exit status after an error message.
 */
int rec_rotate_begin(struct rec_state *s);

/* Milliseconds until the current window ends (0: now), or -1 without --rotate. */
int rec_rotate_wait_ms(const struct rec_state *s);

/*
 * Ends the current window: drains the rings, completes its file (build
 * ids, tracing data, features), gives it its final name (converted to pprof
 * with --format pprof), and, unless last, starts the next window's file
 * with the events and the running tasks' records. Returns 0 or an exit
 * status after an error message.
 */
int rec_rotate(struct rec_state *s, bool last);

/* The windows completed so far. */
unsigned long rec_rotate_done(const struct rec_state *s);

/* Frees what --rotate holds (an unfinished window's temporary file is removed). */
void rec_rotate_free(struct rec_state *s);

#endif /* PERFEV_CLI_RECORD_H */
