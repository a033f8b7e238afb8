/* SPDX-License-Identifier: MIT */
/*
 * push_format.h - what `perfev record --push` sends a window as: a table of
 * formats (name, Content-Type, Pyroscope's format= word, the writer that
 * makes the body from a loaded profile), and the encoding of one window
 * file into a body in memory.
 */
#ifndef PERFEV_CLI_PUSH_FORMAT_H
#define PERFEV_CLI_PUSH_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct pev_profile;
struct pev_report_opts;
struct pev_error;

/* One format a window can be sent in. */
struct push_format {
	const char *name;         /* --push-format's word */
	const char *content_type; /* of the request's body */
	const char *pyroscope;    /* /ingest's format= value; NULL: not Pyroscope's (OTLP) */
	/* Writes the body from a loaded profile (libperfev's writers); NULL: not in this build. */
	int (*write)(const struct pev_profile *p, FILE *out, const struct pev_report_opts *opts,
		     struct pev_error *err);
};

/* The format called name, or NULL. */
const struct push_format *push_format_find(const char *name);

/* The formats' names for a message: "pprof, folded, otlp". */
const char *push_format_names(void);

/*
 * Whether a URL's path is OTLP/HTTP's profiles endpoint
 * (.../v1development/profiles): its default format is otlp, and the
 * request goes to the URL itself rather than to Pyroscope's /ingest.
 */
bool push_path_is_otlp(const char *path);

/* How push_encode ended. */
enum push_encoded {
	PUSH_ENCODED,      /* *body holds the request's body */
	PUSH_UNREADABLE,   /* the window cannot be read or converted: set it aside */
	PUSH_UNSUPPORTED,  /* this build cannot make the format (libprotobuf-c missing): stop */
};

/*
 * Makes the body of the window at path (a perf.data, or a gzipped pprof
 * when pprof is true: sent as it is) in format f, with the window's time
 * (start_ns, end_ns: Unix ns) in the profile. *body (malloc'ed, the
 * caller frees) and *len get the bytes; why (size bytes) says what went
 * wrong otherwise. A perf.data is symbolized as `perfev report` does (build
 * ids, the files on this machine). Thread-safe.
 */
enum push_encoded push_encode(const struct push_format *f, const char *path, bool pprof,
			      uint64_t start_ns, uint64_t end_ns, char **body, size_t *len,
			      char *why, size_t size);

#endif /* PERFEV_CLI_PUSH_FORMAT_H */
