/* SPDX-License-Identifier: MIT */
/*
 * perfdata_writer.h - the inside of struct pev_perfdata_writer, shared by
 * the file that writes the header, events and records (perfdata_write.c)
 * and the one that encodes the features (perfdata_write_features.c).
 */
#ifndef PERFEV_PERFDATA_WRITER_H
#define PERFEV_PERFDATA_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/util.h"
#include "perfdata/perfdata_format.h"
#include "perfev/perfdata.h"

struct pw_event {
	struct pev_attr attr;
	char *name;
	uint64_t *ids;
	size_t nr_ids;
	struct pd_layout layout;
};

struct pw_group {
	char *name;
	uint32_t leader, nr_members;
};

struct pw_build_id {
	int32_t pid;
	uint16_t cpumode;
	uint8_t size;
	uint8_t id[PEV_PERFDATA_BUILD_ID_MAX];
	char *filename;
};

/* A feature the caller set or dropped. */
struct pw_override {
	bool set, drop;
	unsigned char *data;
	size_t size;
};

/* An id and the event it belongs to, sorted by id (SAMPLE_TIME needs the event). */
struct pw_id {
	uint64_t id;
	int event;
};

/* A growing byte buffer; `failed` when memory ran out. */
struct pw_buf {
	unsigned char *p;
	size_t len, cap;
	bool failed;
};

struct pev_perfdata_writer {
	int fd;
	bool own_fd;
	unsigned flags;
	char name[160];

	struct pw_event *events;
	int nr_events, cap_events;
	struct pw_group *groups;
	size_t nr_groups, cap_groups;
	struct pw_build_id *build_ids;
	size_t nr_build_ids, cap_build_ids;
	char **cmdline;
	int nr_cmdline;
	bool cmdline_set;
	struct pw_override overrides[PEV_HEADER_FEAT_BITS];

	/* SAMPLE_TIME: set by the caller, or seen in the SAMPLE records written. */
	bool time_set, time_seen;
	uint64_t time_first, time_last;
	struct pw_id *ids;
	size_t nr_ids;
	struct pd_layout common;

	/* CLOCK_DATA: reference times taken when the events are written. */
	int32_t clockid;
	bool use_clockid;
	uint64_t clock_tod_ns, clock_ns, clock_res_ns;

	/* The file. */
	bool pipe;     /* pipe mode: written in order with write(2) */
	uint64_t piped; /* pipe mode: bytes written so far, the header included */
	bool started;  /* the header, ids and attrs are written */
	bool finished;
	int failed;    /* a write failed: every call fails so */
	char fail_msg[PEV_ERROR_MESSAGE_MAX];
	uint32_t file_attr_size;
	uint64_t attrs_offset, attrs_size, data_offset;
	uint64_t written;  /* bytes of data in the file */
	unsigned char *buf; /* records not yet written */
	size_t buf_len, buf_cap;
	bool since_round;  /* records were written since the last FINISHED_ROUND */
	uint32_t last_type; /* the type of the last record in buf (pipe mode holds back ends) */
	uint16_t last_size;
};

/* ---- byte buffers (perfdata_write_features.c) ---------------------------- */

void pev__pw_put(struct pw_buf *b, const void *p, size_t n);
void pev__pw_put_u32(struct pw_buf *b, uint32_t v);
void pev__pw_put_u64(struct pw_buf *b, uint64_t v);
/* A perf string: u32 length, the bytes, NUL and zeros up to a multiple of 64. */
void pev__pw_put_string(struct pw_buf *b, const char *s);

/*
 * Encodes feature `feature` into b as the writer would write it. Returns
 * true when the feature is to be written (b holds its bytes), false when the
 * writer has nothing for it (b stays empty).
 */
bool pev__pw_feature_encode(struct pev_perfdata_writer *w, unsigned feature, struct pw_buf *b);

/* Encodes one BUILD_ID entry (the feature's, and pipe mode's record of that type). */
void pev__pw_build_id_encode(const struct pw_build_id *bid, uint32_t type, struct pw_buf *b);

/* Fills the CMDLINE default: this process's command line, the executable's path first. */
int pev__pw_default_cmdline(struct pev_perfdata_writer *w);

/* ---- pipe mode (perfdata_write_pipe.c) ------------------------------------ */

/*
 * Writes len bytes at p in order (write(2) through EINTR and short writes).
 * A failure poisons the writer. Returns 0 or a negative code.
 */
int pev__pw_pipe_write(struct pev_perfdata_writer *w, const void *p, size_t len, const char *what,
		       struct pev_error *err);

/* Writes the events and the features known now, as records. */
int pev__pw_pipe_start(struct pev_perfdata_writer *w, struct pev_error *err);

/*
 * Writes what only the end knows: the build ids, as records, then a
 * FINISHED_ROUND, the end of a finished stream.
 */
int pev__pw_pipe_finish(struct pev_perfdata_writer *w, struct pev_error *err);

/* ---- errors (perfdata_write.c) ---------------------------------------------- */

/*
 * Fails the call (and every later one) after a write of len bytes at off
 * failed with errno e. Returns code.
 */
int pev__pw_poison(struct pev_perfdata_writer *w, struct pev_error *err, int code, int e,
		   const char *what, uint64_t off, size_t len);

/* Fails the call with code and a message about the writer's output. Returns code. */
int pev__pw_fail(struct pev_perfdata_writer *w, struct pev_error *err, int code, int sys_errno,
		 const char *fmt, ...) PEV_PRINTF(5, 6);

#endif /* PERFEV_PERFDATA_WRITER_H */
