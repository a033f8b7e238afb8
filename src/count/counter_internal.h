/* SPDX-License-Identifier: MIT */
/*
 * counter_internal.h - the inside of struct pev_counter, shared by the files
 * that open (counter.c), control (control.c) and read (read.c) counters.
 */
#ifndef PERFEV_COUNTER_INTERNAL_H
#define PERFEV_COUNTER_INTERNAL_H

#include "perfev/counter.h"

/* One descriptor: an event on one CPU for one thread. */
struct pev__slot {
	int fd;
	int cpu;     /* -1: follows the thread */
	pid_t tid;   /* thread id, 0 calling thread, -1 every task of the CPU */
	uint64_t id; /* the kernel's id, when read_format or grouping needs it; else 0 */
};

/*
 * Where the words of a one-descriptor, non-group read land, worked out once
 * at open so that pev_counter_read's common case does no decoding: words is
 * the read's length in words (0 when the counter needs the general path), and
 * pos the index in the read buffer of time enabled, time running, id and
 * lost, or SINGLE_READ_ZERO (a word that is always 0) for those not read.
 */
#define SINGLE_READ_ZERO 7
struct pev__single_read {
	uint8_t words;
	uint8_t pos_enabled, pos_running, pos_id, pos_lost;
	bool running; /* the running time is read: it says whether the counter ran (as scale_as_read) */
};

/* Fills c->single from c->nr and c->attr.read_format. */
void pev__single_read_init(struct pev_counter *c);

struct pev_counter {
	struct pev_attr attr;
	char name[96];
	struct pev_counter *leader;   /* the group leader (itself when leading), or NULL */
	struct pev_counter **members; /* a leader's members, in the order they joined */
	int nr_members;
	int nr;
	struct pev__single_read single; /* pev_counter_read's layout, set by pev__single_read_init */
	struct pev__slot slots[];
};

#endif /* PERFEV_COUNTER_INTERNAL_H */
