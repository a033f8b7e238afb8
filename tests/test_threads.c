/* SPDX-License-Identifier: MIT */
/*
 * test_threads.c - what docs/API.md promises about threads: the reads and
 * control calls of one counter (and of one counter list) run concurrently
 * from several threads, and distinct objects open and close concurrently.
 * .ci/run also runs this file under ThreadSanitizer, which reports any data
 * race these calls have.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "helpers.h"
#include "workloads.h"

#define ROUNDS 2000

/* What every thread works on; the counts of failures go to `failures`. */
struct shared {
	struct pev_counter *alone;  /* task-clock of the main thread */
	struct pev_counter *leader; /* {task-clock,page-faults} of the main thread */
	struct pev_counter *member;
	struct pev_counter_list *list;
	atomic_int failures;
	atomic_int going; /* readers still running */
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
		fail_if(s, one.value < last); /* a count never goes back (reset aside: not here) */
		last = one.value;
		fail_if(s, pev_counter_read_fd(s->alone, 0, &one) < 0);
		fail_if(s, pev_counter_read_group(s->leader, group, 2) != 2);
		fail_if(s, pev_counter_read(s->member, &one) < 0);
		fail_if(s, pev_counter_list_read(s->list, list, 3) != 3);
		fail_if(s, pev_counter_id(s->member, 0, &id) < 0 || id == 0);
		fail_if(s, pev_counter_fd(s->alone, 0) < 0 || pev_counter_nr_fds(s->leader) != 1);
		fail_if(s, pev_counter_attr(s->alone) == NULL || !pev_counter_name(s->member));
	}
	atomic_fetch_sub(&s->going, 1);
	return NULL;
}

/* Switches the group and the list on and off while the readers read. */
static void *controller(void *arg)
{
	struct shared *s = arg;

	while (atomic_load(&s->going) > 0) {
		fail_if(s, pev_counter_disable_group(s->leader) < 0);
		fail_if(s, pev_counter_enable_group(s->leader) < 0);
		fail_if(s, pev_counter_list_disable(s->list) < 0);
		fail_if(s, pev_counter_list_enable(s->list) < 0);
		fail_if(s, pev_counter_list_reset(s->list) < 0);
		fail_if(s, pev_counter_disable(s->member) < 0);
		fail_if(s, pev_counter_enable(s->member) < 0);
		fail_if(s, pev_counter_reset(s->member) < 0);
	}
	return NULL;
}

Test(threads, reads_and_controls_of_one_counter_run_concurrently, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct shared s;
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_target self = pev_target_self();
	struct pev_event_list *events;
	struct pev_error err;
	pthread_t r[3], c;

	memset(&s, 0, sizeof(s));
	s.alone = th_open_ok(pev_event_software(PEV_SW_TASK_CLOCK), NULL, NULL, NULL);
	o.read_format = PEV_FORMAT_GROUP | PEV_FORMAT_ID;
	s.leader = th_open_ok(pev_event_software(PEV_SW_TASK_CLOCK), &o, &self, NULL);
	s.member = th_open_ok(pev_event_software(PEV_SW_PAGE_FAULTS), NULL, &self, s.leader);
	cr_assert_eq(pev_event_parse("{task-clock,page-faults},cpu-clock", NULL, &events, &err), 0,
		     "%s", err.message);
	cr_assert_eq(pev_counter_list_open(events, NULL, NULL, &s.list, &err), 0, "%s",
		     err.message);
	pev_event_list_free(events);
	atomic_store(&s.going, 3);

	for (int i = 0; i < 3; i++)
		cr_assert_eq(pthread_create(&r[i], NULL, reader, &s), 0);
	cr_assert_eq(pthread_create(&c, NULL, controller, &s), 0);
	th_touch_pages(64); /* the counted thread works meanwhile */
	for (int i = 0; i < 3; i++)
		pthread_join(r[i], NULL);
	pthread_join(c, NULL);
	cr_expect_eq(atomic_load(&s.failures), 0, "%d calls failed", atomic_load(&s.failures));

	struct pev_count v;
	cr_assert_eq(pev_counter_read(s.alone, &v), 0);
	cr_expect(v.counted);
	pev_counter_list_close(s.list);
	pev_counter_close(s.member);
	pev_counter_close(s.leader);
	pev_counter_close(s.alone);
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
		pev_counter_close(c);
	}
	pev_event_list_free(events);
	return NULL;
}

Test(threads, distinct_objects_open_and_close_concurrently, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct shared s;
	pthread_t t[4];

	memset(&s, 0, sizeof(s));
	for (int i = 0; i < 4; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, opener, &s), 0);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	cr_expect_eq(atomic_load(&s.failures), 0, "%d calls failed", atomic_load(&s.failures));
}
