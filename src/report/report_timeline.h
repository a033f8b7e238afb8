/* SPDX-License-Identifier: MIT */
/*
 * report_timeline.h - what the timeline writers (report_gecko.c,
 * report_speedscope.c) share: the profile's threads with their samples in
 * time order, JSON strings, and a map of pairs of ids (stack tables).
 */
#ifndef PERFEV_REPORT_TIMELINE_H
#define PERFEV_REPORT_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "report/report_internal.h"

/* A thread of the timeline and where its samples are in pev__tl_threads.order. */
struct pev__tl_thread {
	int32_t pid, tid;
	uint32_t comm;       /* string id of its name: its last, else its first sample's */
	uint32_t cgroup;     /* string id of its first sample's cgroup path, or 0 */
	size_t first, count; /* its samples: order[first .. first + count) */
	uint64_t start;      /* its first sample's or marker's time, 0: none */
};

/* The threads of a profile, their samples (timeline entries) in time order. */
struct pev__tl_threads {
	uint32_t *order; /* entry indices grouped by thread (in threads[] order), each in time order */
	size_t nr_order;
	struct pev__tl_thread *threads; /* by pid, the process's main thread first, then tid */
	size_t nr_threads;
};

/*
 * Groups entries tl[0 .. nr_tl) (the profile's timeline, or entries made
 * from its stored samples) of the events with want[event] set by thread;
 * order[] indexes tl. With markers, threads that only have markers
 * (thread start, exec, end) are threads too. 0 or -ENOMEM.
 */
int pev__tl_threads_build(const struct pev_profile *p, const struct pev__tl_entry *tl,
			  size_t nr_tl, const bool *want, bool markers, struct pev__tl_threads *t);
void pev__tl_threads_free(struct pev__tl_threads *t);
/* The thread pid/tid, or NULL. */
const struct pev__tl_thread *pev__tl_thread_find(const struct pev__tl_threads *t, int32_t pid,
						 int32_t tid);

/*
 * Writes s as a JSON string, quoted: '"', '\' and control characters
 * escaped, bytes that are not UTF-8 written as U+FFFD. NULL: null.
 */
void pev__json_string(FILE *out, const char *s);
/*
 * Text gathered before it goes to a stream: the hot loops (a sample, a
 * stack) add numbers and bytes to it and write it out in one call.
 */
struct pev__jbuf {
	FILE *out;
	size_t n;
	char b[4096];
};

/* Writes what b holds to its stream and empties it. */
static inline void pev__jb_flush(struct pev__jbuf *b)
{
	if (b->n)
		fwrite(b->b, 1, b->n, b->out);
	b->n = 0;
}

/* Makes room for need more bytes (at most 64). */
static inline void pev__jb_room(struct pev__jbuf *b, size_t need)
{
	if (b->n + need > sizeof(b->b))
		pev__jb_flush(b);
}

static inline void pev__jb_char(struct pev__jbuf *b, char c)
{
	pev__jb_room(b, 1);
	b->b[b->n++] = c;
}

/* Adds a text. */
static inline void pev__jb_str(struct pev__jbuf *b, const char *s)
{
	size_t n = strlen(s);

	if (n > 64) {
		pev__jb_flush(b);
		fwrite(s, 1, n, b->out);
		return;
	}
	pev__jb_room(b, n);
	for (size_t i = 0; i < n; i++) /* short texts: no call to memcpy */
		b->b[b->n + i] = s[i];
	b->n += n;
}

/* Adds what printf would write. */
void pev__jb_printf(struct pev__jbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Adds s as pev__json_string writes it. */
void pev__jb_json_string(struct pev__jbuf *b, const char *s);
/* Adds s as pev__json_chars writes it. */
void pev__jb_json_chars(struct pev__jbuf *b, const char *s);

/* The two digits of 0 .. 99, for pev__jb_u64. */
static const char pev__digit_pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";

/* Adds v in decimal: two digits per division, copied without a call to memcpy. */
static inline void pev__jb_u64(struct pev__jbuf *b, uint64_t v)
{
	char d[20];
	size_t i = sizeof(d);

	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		d[--i] = pev__digit_pairs[2 * r + 1];
		d[--i] = pev__digit_pairs[2 * r];
	}
	if (v >= 10) {
		d[--i] = pev__digit_pairs[2 * v + 1];
		d[--i] = pev__digit_pairs[2 * v];
	} else {
		d[--i] = (char)('0' + v);
	}
	pev__jb_room(b, sizeof(d) - i);
	while (i < sizeof(d))
		b->b[b->n++] = d[i++];
}
/* Writes s escaped as pev__json_string does, without the quotes (part of a string). */
void pev__json_chars(FILE *out, const char *s);

/*
 * A map of (a, b) pairs of 32-bit ids to 32-bit values: the stack tables
 * (a prefix and a frame to a stack), without an allocation per entry.
 */
struct pev__pairmap {
	uint64_t *keys; /* (a + 1) << 32 | b, 0: empty */
	uint32_t *vals;
	uint32_t mask, count;
};
/* The value of (a, b), or UINT32_MAX when absent. */
uint32_t pev__pairmap_get(const struct pev__pairmap *m, uint32_t a, uint32_t b);
/* Stores (a, b) -> v (absent before). 0 or -ENOMEM. */
int pev__pairmap_put(struct pev__pairmap *m, uint32_t a, uint32_t b, uint32_t v);
/* Empties the map, keeping its memory. */
void pev__pairmap_clear(struct pev__pairmap *m);
void pev__pairmap_free(struct pev__pairmap *m);

/* Which events' samples a timeline writer takes: the one named (event >= 0) or all. */
bool *pev__tl_events(const struct pev_profile *p, int event);

/* The time unit a writer shows an event's weights in. */
const char *pev__tl_unit_name(enum pev_profile_unit u);

#endif /* PERFEV_REPORT_TIMELINE_H */
