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

struct pev_counter {
	struct pev_attr attr;
	char name[96];
	struct pev_counter *leader;   /* the group leader (itself when leading), or NULL */
	struct pev_counter **members; /* a leader's members, in the order they joined */
	int nr_members;
	int nr;
	struct pev__slot slots[];
};

#endif /* PERFEV_COUNTER_INTERNAL_H */
