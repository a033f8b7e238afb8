/* SPDX-License-Identifier: MIT */
/*
 * perfdata_internal.h - the inside of struct pev_perfdata, shared by the
 * files of the reader: where bytes come from (perfdata_source.c), the
 * header, events and sections (perfdata_read.c), the features
 * (perfdata_features.c), the records and perf's own record types
 * (perfdata_records.c) and pipe mode's leading records (perfdata_pipe.c).
 */
#ifndef PERFEV_PERFDATA_INTERNAL_H
#define PERFEV_PERFDATA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfdata/perfdata_format.h"
#include "perfev/perfdata.h"
#include "perfev/text.h"
#include "core/util.h"

/* Where the bytes come from. */
enum pd_source_kind {
	PD_SRC_MEMORY, /* the caller's buffer: random access */
	PD_SRC_FILE,   /* a regular file: pread, random access */
	PD_SRC_STREAM, /* a pipe or socket: read once, in order */
};

/* One event and what the reader keeps for it. */
struct pd_event {
	struct pev_perfdata_event pub;
	struct pd_layout layout; /* where its records keep the id and time */
	uint64_t *ids;
	char *name;
	char *unit;
	char *group_name;
	int *cpus;
};

/* A block of the arena: memory that lives until the reader is closed. */
struct pd_block {
	struct pd_block *next;
	size_t used, size;
	_Alignas(16) unsigned char data[];
};

/* A record read ahead (pipe mode's leading records), handed out again by next(). */
struct pd_replay {
	struct pev_perfdata_record rec;
	unsigned char *bytes; /* the record, 8-aligned (from the arena) */
};

/* Size of the window the records are read through (it grows for a larger record). */
#define PD_WINDOW_SIZE ((size_t)256 << 10)
/* The largest record: header.size is 16 bits. */
#define PD_RECORD_MAX 65536

struct pev_perfdata {
	char name[160]; /* the file's name, first word of every message */
	unsigned flags;
	bool pipe;

	/* The source. */
	enum pd_source_kind kind;
	int fd;
	bool own_fd;
	const unsigned char *mem;
	uint64_t size;       /* bytes in the file, UINT64_MAX for a stream */
	uint64_t stream_pos; /* bytes read from a stream so far */

	struct pev_perfdata_layout layout;

	/* Events and the id -> event map. */
	struct pd_event **events;
	int nr_events, cap_events;
	uint64_t *id_keys;
	int *id_vals; /* event index + 1; 0: empty slot */
	size_t id_cap, id_count;
	struct pd_layout common; /* where every event keeps its id */

	/* Features and what perf's records said. */
	struct pev_perfdata_features feat;
	uint32_t nr_pmu_caps;                         /* CPU_PMU_CAPS and PMU_CAPS */
	const struct pev_perfdata_pmu_caps *pmu_caps;
	struct pev_perfdata_build_id *build_ids;
	size_t cap_build_ids;
	struct pev_perfdata_section *sections;
	size_t cap_sections;
	struct pev_perfdata_id_entry *id_index; /* sorted by id */
	size_t nr_id_index, cap_id_index;
	struct pev_perfdata_thread *threads;
	size_t nr_threads;
	int *cpus;
	size_t nr_cpus;
	struct pev_perfdata_time_conv time_conv;
	bool has_time_conv;
	const char **desc_names; /* EVENT_DESC names by event index (in the arena) */
	uint32_t nr_desc_names;
	struct pd_block *arena;

	/* Notes, and what was noted once already. */
	char **notes;
	size_t nr_notes, cap_notes;
	uint64_t noted_types[4]; /* record types 0..255 noted as unknown */
	bool noted_other_type;   /* a type above 255 was noted */
	bool noted_unknown_id;
	bool noted_attr_size;

	/* Reading records. */
	unsigned char *win;  /* the window: bytes [win_base, win_base + win_len) of the source */
	size_t win_cap, win_len;
	uint64_t win_base;
	unsigned char *scratch; /* an 8-aligned copy of a record the window holds unaligned */
	uint64_t pos;           /* offset of the next record */
	uint64_t end;           /* end of the data: data_offset + data_size, or the stream's end */
	bool recover;           /* not finalized: read to the end, stop quietly at a partial record */
	bool unfinished;        /* the header was never rewritten: no data size, no features */
	bool done;              /* the end was reached */
	uint32_t last_type;     /* pipe mode: the type of the last record read (its end tells) */
	bool expect_round;      /* pipe mode: a FINISHED_ROUND, or a record after FINISHED_INIT, was read */
	int failed;             /* a record failed: every later call fails so */
	char fail_msg[PEV_ERROR_MESSAGE_MAX];
	char fail_field[48];

	/* Pipe mode: records read by the open call, handed out first. */
	struct pd_replay *replay;
	size_t nr_replay, cap_replay, replay_at;
};

/* ---- errors and notes (perfdata_read.c) ---------------------------------- */

/*
 * Fills err (may be NULL) with code and "<file>: <message>", naming field;
 * returns code.
 */
int pev__pd_fail(const struct pev_perfdata *pd, struct pev_error *err, int code, const char *field,
		 const char *fmt, ...) PEV_PRINTF(5, 6);

/* Adds a note (one line) and logs it. Out of memory drops the note. */
void pev__pd_note(struct pev_perfdata *pd, const char *fmt, ...) PEV_PRINTF(2, 3);

/* Zeroed memory that lives until close; NULL when out of memory. */
void *pev__pd_alloc(struct pev_perfdata *pd, size_t size);

/* ---- the source (perfdata_source.c) --------------------------------------- */

/*
 * Copies up to len bytes at offset off into buf. Returns the bytes copied
 * (fewer at the end of the source), or a negative code with err filled.
 * A stream can only be read at its current position.
 */
int64_t pev__pd_fetch(struct pev_perfdata *pd, uint64_t off, void *buf, size_t len,
		      struct pev_error *err);

/* Whether pd's bytes can be read again at any offset (a file or a buffer, not a stream). */
bool pev__pd_random_access(const struct pev_perfdata *pd);

/*
 * Reads exactly len bytes at off (random-access sources), which must lie
 * within the file: else PEV_EFORMAT "<what> at offset .. size .. runs past
 * the end of the file".
 */
int pev__pd_read_at(struct pev_perfdata *pd, uint64_t off, void *buf, size_t len, const char *what,
		    struct pev_error *err);

/*
 * Makes bytes [pos, pos + n) available in the window (n <= PD_RECORD_MAX
 * + 8) and points *p at them. Returns how many are available (fewer than n
 * at the end of the source) or a negative code.
 */
int64_t pev__pd_window(struct pev_perfdata *pd, uint64_t pos, size_t n, const unsigned char **p,
		       struct pev_error *err);

/* Moves a stream past len bytes at pos (reading and dropping them). */
int pev__pd_skip(struct pev_perfdata *pd, uint64_t pos, uint64_t len, struct pev_error *err);

/* ---- events (perfdata_read.c) ---------------------------------------------- */

/*
 * Adds an event from an attribute block of block_size bytes at attr (at
 * least 64) and its ids. Returns the event or NULL (out of memory: err set).
 */
struct pd_event *pev__pd_event_add(struct pev_perfdata *pd, const void *attr, size_t block_size,
				   const void *ids, size_t nr_ids, struct pev_error *err);

/* The event with sample id `id`, or NULL. */
struct pd_event *pev__pd_event_find(const struct pev_perfdata *pd, uint64_t id);

/* ---- features (perfdata_features.c) ----------------------------------------- */

/*
 * Parses feature `feature` from its size bytes at data (which must live
 * until close: they are kept as the feature's raw section and parsed
 * strings point into them); offset is where they are in the file, for
 * messages (0: a HEADER_FEATURE record at record_offset). Returns 0 or
 * PEV_EFORMAT; with PEV_PERFDATA_LENIENT a malformed feature is dropped
 * with a note and 0 is returned.
 */
int pev__pd_feature_parse(struct pev_perfdata *pd, unsigned feature, const unsigned char *data,
			  uint64_t size, uint64_t offset, uint64_t record_offset,
			  struct pev_error *err);

/* Adds one build id entry of size bytes at p (a BUILD_ID entry or HEADER_BUILD_ID record). */
int pev__pd_build_id_add(struct pev_perfdata *pd, const unsigned char *p, size_t size,
			 bool old_layout, const char *where, struct pev_error *err);

/* Applies EVENT_DESC names and GROUP_DESC groups to the events (after both are known). */
void pev__pd_features_apply(struct pev_perfdata *pd);

/* ---- records (perfdata_records.c) ------------------------------------------- */

/* Reads the next record from the source (not the replay queue). Returns 1, 0 or < 0. */
int pev__pd_record_read(struct pev_perfdata *pd, struct pev_perfdata_record *rec,
			struct pev_error *err);

/* ---- pipe mode (perfdata_pipe.c) -------------------------------------------- */

/* Reads the leading records of a pipe-mode stream into the replay queue. */
int pev__pd_pipe_preamble(struct pev_perfdata *pd, struct pev_error *err);

/* Hands out the next queued record. Returns 1, or 0 when the queue is empty. */
int pev__pd_pipe_replay(struct pev_perfdata *pd, struct pev_perfdata_record *rec);

#endif /* PERFEV_PERFDATA_INTERNAL_H */
