/* SPDX-License-Identifier: MIT */
/*
 * push_queue.h - the windows `perfev record --rotate` finished in its
 * directory, read as the queue of `--push`: perfev-<UTC start>.data and
 * .pb.gz (and *.recovered.* from a killed recorder), oldest first (the
 * names sort in time order). Dot files (windows being written), rejected
 * windows (*.rejected) and anything else are not in it.
 */
#ifndef PERFEV_CLI_PUSH_QUEUE_H
#define PERFEV_CLI_PUSH_QUEUE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One finished window. */
struct push_window {
	char name[NAME_MAX + 1]; /* its file name in the directory */
	uint64_t start_ns;       /* when it started (from its name), Unix time in ns */
	uint64_t end_ns;         /* when it ended (its last write), Unix time in ns */
	bool pprof;              /* a .pb.gz (else a perf.data) */
};

/*
 * Whether name is a finished window's, and then its start (Unix ns) and
 * kind. Pure: unit-tested.
 */
bool push_window_parse(const char *name, uint64_t *start_ns, bool *pprof);

/*
 * Lists the finished windows of dir, oldest first, into *out (malloc'ed,
 * the caller frees; *n of them). Returns 0, or -1 with errno set when the
 * directory cannot be read.
 */
int push_queue_scan(const char *dir, struct push_window **out, size_t *n);

#endif /* PERFEV_CLI_PUSH_QUEUE_H */
