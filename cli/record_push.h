/* SPDX-License-Identifier: MIT */
/*
 * record_push.h - `perfev record --rotate SECS -o DIR/ --push URL`: every
 * finished window is sent to a profile store (Pyroscope's /ingest, or an
 * OTLP/HTTP profiles endpoint), oldest first, by a thread of its own, so
 * that recording never waits for the network.
 *
 * The finished windows in DIR are the queue (push_queue.c): a window is
 * deleted only once the store answered 2xx; while the store is down they
 * wait on disk, at most --push-queue of them (the oldest is dropped, said
 * and counted, when one more would pass the bound); a window the store
 * refuses for good (a 4xx other than 408 and 429) is renamed *.rejected.
 * What is left at the end stays for the next `perfev record --push` in
 * DIR, which sends it first. docs/FLEET.md has the whole contract.
 */
#ifndef PERFEV_CLI_RECORD_PUSH_H
#define PERFEV_CLI_RECORD_PUSH_H

#include <stdbool.h>

#define REC_PUSH_MAX_LABELS    32
#define REC_PUSH_DEFAULT_QUEUE 64   /* --push-queue */
#define REC_PUSH_DEFAULT_TIMEOUT 10 /* --push-timeout, seconds */

/* The --push options as given. */
struct rec_push_opts {
	const char *url;    /* --push, or NULL */
	const char *format; /* --push-format, or NULL: from the URL */
	const char *name;   /* --push-name, or NULL: the command's basename, else "perfev" */
	const char *labels[REC_PUSH_MAX_LABELS]; /* --push-label KEY=VALUE */
	int nlabels;
	long queue;       /* --push-queue (0: not given) */
	double timeout_s; /* --push-timeout (0: not given) */
};

/* getopt_long values of the --push options (in cmd_record.c's table). */
enum {
	REC_OPT_PUSH = 400,
	REC_OPT_PUSH_FORMAT,
	REC_OPT_PUSH_NAME,
	REC_OPT_PUSH_LABEL,
	REC_OPT_PUSH_QUEUE,
	REC_OPT_PUSH_TIMEOUT,
};

/* The help lines of the --push options. */
#define REC_PUSH_HELP                                                                              \
	"      --push URL            with --rotate: send each finished window to a profile\n"     \
	"                            store: Pyroscope (http://HOST:4040) or an OTLP/HTTP\n"      \
	"                            collector (http://HOST:4318/v1development/profiles)\n"      \
	"      --push-format FORMAT  pprof (Pyroscope's default), folded, or otlp\n"              \
	"      --push-name APP       Pyroscope's application name (default: the command)\n"      \
	"      --push-label KEY=VALUE  a Pyroscope label (repeatable)\n"                          \
	"      --push-queue N        windows kept on disk while the store is down (default\n"    \
	"                            64); past that the oldest is dropped, said\n"              \
	"      --push-timeout SECS   per request (default 10)\n"

/*
 * Reads one --push option (opt: REC_OPT_PUSH...) into o. Returns 0, or
 * 129 after saying why the value is wrong.
 */
int rec_push_option(struct rec_push_opts *o, int opt, const char *arg);

struct rec_config;

/*
 * Checks the --push options against the rest of the command line (--push
 * needs --rotate; the URL, the format, the name and the labels are
 * valid). Returns 0, or 129 after saying why.
 */
int rec_push_check(const struct rec_config *cfg);

struct rec_state;

/*
 * --push: takes DIR for this recorder's sender (one per directory: a
 * second is refused, naming the first). Call after rec_rotate_begin.
 * Returns 0 (also without --push), or 1 after saying why.
 */
int rec_push_begin(struct rec_state *s);

/*
 * Starts the sender thread, which sends the windows already in DIR first.
 * Call once the command runs (no fork after it). Returns 0 or 1 (said).
 */
int rec_push_start(struct rec_state *s);

/* Tells the sender a window was completed (record_rotate.c, after its rename). */
void rec_push_notify(struct rec_state *s);

/*
 * The end: sends what is left for up to twice --push-timeout (a signal
 * meanwhile, a second Ctrl-C, stops it after the request in flight), stops
 * the sender, prints the summary line unless quiet (sent, retried,
 * dropped, rejected, left in DIR) and says how many windows stay. Returns
 * the windows left unsent.
 */
unsigned long rec_push_finish(struct rec_state *s, bool quiet);

/* Stops the sender at once (an error path) and frees what --push holds. */
void rec_push_free(struct rec_state *s);

#endif /* PERFEV_CLI_RECORD_PUSH_H */
