/* SPDX-License-Identifier: MIT */
/*
 * threads_work.c - threads sharing counters (threads_work.h).
 */
#include "threads_work.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfev.h"

#define ROUNDS 2000
#define READERS 3
#define OPENERS 4

/* What every thread works on. */
struct shared {
	struct pev_counter *alone;  /* task-clock of the calling thread */
	struct pev_counter *leader; /* {task-clock,page-faults} of the calling thread */
	struct pev_counter *member;
	struct pev_counter_list *list;
	struct pev_event_list *events; /* one parsed list every opener opens too */
	atomic_int failures;
	atomic_int readers; /* still reading */
};

static void fail_if(struct shared *s, bool bad)
{
	if (bad)
		atomic_fetch_add(&s->failures, 1);
}

static void *reader(void *arg)
{
	struct shared *s = arg;
	struct pev_count one, group[2], list[3];
	uint64_t last = 0, id;

	for (int i = 0; i < ROUNDS; i++) {
		fail_if(s, pev_counter_read(s->alone, &one) < 0);
		fail_if(s, one.value < last); /* nothing resets it: it never goes back */
		last = one.value;
		fail_if(s, pev_counter_read_fd(s->alone, 0, &one) < 0);
		fail_if(s, pev_counter_read_group(s->leader, group, 2) != 2);
		fail_if(s, pev_counter_read(s->member, &one) < 0);
		fail_if(s, pev_counter_list_read(s->list, list, 3) != 3);
		fail_if(s, pev_counter_id(s->member, 0, &id) < 0 || id == 0);
		fail_if(s, pev_counter_fd(s->alone, 0) < 0 || pev_counter_nr_fds(s->leader) != 1);
		fail_if(s, !pev_counter_attr(s->alone) || !pev_counter_name(s->member) ||
				   pev_counter_leader(s->member) != s->leader);
		fail_if(s, pev_counter_list_count(s->list) != 3 || !pev_counter_list_at(s->list, 2));
	}
	atomic_fetch_sub(&s->readers, 1);
	return NULL;
}

/* Switches the group, the member and the list on and off while the readers read. */
static void *controller(void *arg)
{
	struct shared *s = arg;

	while (atomic_load(&s->readers) > 0) {
		fail_if(s, pev_counter_disable_group(s->leader) < 0);
		fail_if(s, pev_counter_enable_group(s->leader) < 0);
		fail_if(s, pev_counter_reset_group(s->leader) < 0);
		fail_if(s, pev_counter_disable(s->member) < 0);
		fail_if(s, pev_counter_enable(s->member) < 0);
		fail_if(s, pev_counter_reset(s->member) < 0);
		fail_if(s, pev_counter_list_disable(s->list) < 0);
		fail_if(s, pev_counter_list_enable(s->list) < 0);
		fail_if(s, pev_counter_list_reset(s->list) < 0);
	}
	return NULL;
}

static int open_shared(struct shared *s, char *why, size_t size)
{
	struct pev_event tc = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_event pf = pev_event_software(PEV_SW_PAGE_FAULTS);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_event_list *events = NULL;
	struct pev_error err;
	int r;

	if ((r = pev_counter_open(&tc, NULL, NULL, NULL, &s->alone, &err)) < 0)
		goto fail;
	o.read_format = PEV_FORMAT_GROUP | PEV_FORMAT_ID;
	if ((r = pev_counter_open(&tc, &o, NULL, NULL, &s->leader, &err)) < 0)
		goto fail;
	if ((r = pev_counter_open(&pf, NULL, NULL, s->leader, &s->member, &err)) < 0)
		goto fail;
	if ((r = pev_event_parse("{task-clock,page-faults},cpu-clock", NULL, &events, &err)) < 0)
		goto fail;
	r = pev_counter_list_open(events, NULL, NULL, &s->list, &err);
	pev_event_list_free(events);
	if (r == 0)
		return 0;
fail:
	snprintf(why, size, "%s", err.message);
	return -1;
}

static void close_shared(struct shared *s)
{
	pev_counter_list_close(s->list);
	pev_counter_close(s->member);
	pev_counter_close(s->leader);
	pev_counter_close(s->alone);
}

int tw_share_counters(char *why, size_t size)
{
	struct shared s;
	pthread_t r[READERS], c;
	int started = 0, n;

	memset(&s, 0, sizeof(s));
	if (open_shared(&s, why, size) < 0) {
		close_shared(&s);
		return -1;
	}
	atomic_store(&s.readers, READERS);
	for (int i = 0; i < READERS; i++)
		if (pthread_create(&r[i], NULL, reader, &s) == 0)
			started++;
		else
			atomic_fetch_sub(&s.readers, 1);
	fail_if(&s, started != READERS || pthread_create(&c, NULL, controller, &s) != 0);
	/* The counted thread works meanwhile: fresh pages to fault in. */
	for (int k = 0; k < 64; k++) {
		char *p = malloc(1 << 16);
		if (p)
			memset(p, k, 1 << 16);
		free(p);
	}
	for (int i = 0; i < started; i++)
		pthread_join(r[i], NULL);
	if (started == READERS)
		pthread_join(c, NULL);
	n = atomic_load(&s.failures);
	close_shared(&s);
	return n;
}

/* Each thread opens, reads and closes its own counters and lists. */
static void *opener(void *arg)
{
	struct shared *s = arg;
	struct pev_event_list *events = NULL;

	fail_if(s, pev_event_parse("{task-clock,page-faults},cpu-clock:u", NULL, &events, NULL) < 0);
	for (int i = 0; i < 50 && events; i++) {
		struct pev_counter *c = NULL;
		struct pev_counter_list *l = NULL;
		struct pev_event ev = pev_event_software(PEV_SW_CPU_CLOCK);
		struct pev_error err;
		struct pev_count v[3];

		fail_if(s, pev_counter_open(&ev, NULL, NULL, NULL, &c, &err) < 0);
		fail_if(s, pev_counter_list_open(events, NULL, NULL, &l, &err) < 0);
		fail_if(s, c && pev_counter_read(c, v) < 0);
		fail_if(s, l && pev_counter_list_read(l, v, 3) != 3);
		pev_counter_list_close(l);
		l = NULL;
		fail_if(s, pev_event_list_count(s->events) != 2 || !pev_event_list_at(s->events, 1));
		fail_if(s, pev_counter_list_open(s->events, NULL, NULL, &l, &err) < 0);
		fail_if(s, l && pev_counter_list_read(l, v, 2) != 2);
		pev_counter_list_close(l);
		pev_counter_close(c);
	}
	pev_event_list_free(events);
	return NULL;
}

int tw_open_concurrently(void)
{
	struct shared s;
	pthread_t t[OPENERS];
	int started = 0;

	memset(&s, 0, sizeof(s));
	if (pev_event_parse("task-clock,page-faults:u", NULL, &s.events, NULL) < 0)
		return 1;
	for (int i = 0; i < OPENERS; i++)
		if (pthread_create(&t[started], NULL, opener, &s) == 0)
			started++;
	fail_if(&s, started != OPENERS);
	for (int i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	pev_event_list_free(s.events);
	return atomic_load(&s.failures);
}

/* ---- pev_last_error, one per thread ------------------------------------------ */

/* The call thread i fails, and the name its diagnosis must carry. */
static int fail_one(int i)
{
	switch (i) {
	case 0:
		return pev_counter_enable(NULL);
	case 1:
		return pev_ring_begin(NULL);
	case 2:
		return pev_session_flush(NULL);
	default:
		return pev_cpulist_parse(NULL, NULL, 0);
	}
}

static const char *const fail_names[] = {"pev_counter_enable", "pev_ring_begin",
					 "pev_session_flush", "pev_cpulist_parse"};

static void *fail_repeatedly(void *arg)
{
	int i = (int)(intptr_t)arg, wrong = 0;

	for (int k = 0; k < 200; k++) {
		const struct pev_error *e;
		if (fail_one(i) != PEV_EBADARG)
			wrong++;
		e = pev_last_error();
		if (e->code != PEV_EBADARG || strncmp(e->message, fail_names[i],
						      strlen(fail_names[i])) != 0)
			wrong++;
	}
	return (void *)(intptr_t)wrong;
}

int tw_last_errors_per_thread(void)
{
	pthread_t t[4];
	int started = 0, wrong = 0;

	for (int i = 0; i < 4; i++)
		if (pthread_create(&t[started], NULL, fail_repeatedly, (void *)(intptr_t)i) == 0)
			started++;
	for (int i = 0; i < started; i++) {
		void *r;
		pthread_join(t[i], &r);
		wrong += (int)(intptr_t)r;
	}
	return wrong + (started != 4);
}
