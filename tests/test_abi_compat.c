/* SPDX-License-Identifier: MIT */
/*
 * test_abi_compat.c - callers built against other versions of perfev's
 * structs, as the library sees them at run time.
 *
 * An older caller is written here the way its compiler laid it out: a copy
 * of struct pev_opts that ends after read_format (a smaller sz), in an
 * array of session events whose elements are therefore smaller than this
 * library's struct pev_session_event, and session options from before
 * pev_session_opts.event_sz existed. A newer caller is a struct pev_opts
 * with a field this library does not know. Both open a two-event session of
 * software events (task-clock and page-faults) on this thread, and the
 * samples must come back from the right events with the right periods.
 * The frozen structs (pev_event, pev_target) refuse a non-zero reserved
 * word, as a field of a newer library.
 */
#include <stddef.h>
#include <string.h>

#include "helpers.h"
#include "workloads.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

TestSuite(abi_compat, .init = th_leak_init, .fini = th_leak_fini);

/* ---- an older caller's layouts ------------------------------------------------ */

/* struct pev_opts as an older perfev declared it: the fields up to read_format. */
struct old_opts {
	size_t sz;
	bool exclude_user, exclude_kernel, exclude_hv, exclude_idle, exclude_host, exclude_guest;
	bool disabled, enable_on_exec, remove_on_exec;
	enum pev_inherit inherit;
	bool inherit_stat, pinned, exclusive;
	uint64_t sample_period;
	uint64_t sample_freq;
	enum pev_skid skid;
	uint64_t sample_type;
	uint16_t callchain_max_stack;
	bool exclude_callchain_kernel, exclude_callchain_user;
	uint64_t sample_regs_user;
	uint32_t sample_stack_user;
	uint64_t sample_regs_intr;
	uint64_t branch_sample_type;
	uint32_t aux_sample_size;
	uint64_t read_format;
};

/* The layout is the prefix of today's: what makes an old binary work at all. */
#define SAME_AT(f) _Static_assert(offsetof(struct old_opts, f) == offsetof(struct pev_opts, f), #f)
SAME_AT(exclude_kernel);
SAME_AT(inherit);
SAME_AT(sample_period);
SAME_AT(skid);
SAME_AT(sample_type);
SAME_AT(exclude_callchain_user);
SAME_AT(aux_sample_size);
SAME_AT(read_format);
_Static_assert(sizeof(struct old_opts) < sizeof(struct pev_opts), "an older, smaller struct");

/* Its session event: smaller than today's, so a stride of today's size misreads [1]. */
struct old_session_event {
	struct pev_event ev;
	struct old_opts opts;
};

/* struct pev_session_opts before event_sz. */
struct old_session_opts {
	size_t sz;
	const struct old_session_event *events;
	int nr_events;
	const char *event_text;
	const struct pev_parse_opts *parse_opts;
	uint64_t sample_period, sample_freq, sample_type;
	const struct pev_target *target;
	size_t data_pages;
	bool track;
};
_Static_assert(offsetof(struct old_session_opts, track) == offsetof(struct pev_session_opts, track),
               "pev_session_opts grew only at its end");

/* ---- a newer caller's layout ---------------------------------------------------- */

struct new_opts {
	struct pev_opts o;
	uint64_t newer; /* a field of a later perfev */
};

struct new_session_event {
	struct pev_event ev;
	struct new_opts opts;
};

/* ---- the workload and what it must give ---------------------------------------------- */

#define TASK_CLOCK_PERIOD 500000ULL /* ns: 0.5 ms */
#define FAULT_PAGES       64

struct tally {
	size_t samples[2];
	size_t other;
};

/* Runs the session over 20 ms of CPU and FAULT_PAGES page faults; counts samples per event. */
static struct tally run(struct pev_session *s)
{
	struct pev_session_record rec;
	struct tally t = {{0, 0}, 0};
	int r;

	cr_assert_eq(pev_session_enable(s), 0);
	th_spin_ms(20);
	th_touch_pages(FAULT_PAGES);
	cr_assert_eq(pev_session_disable(s), 0);
	while ((r = pev_session_read(s, &rec)) == 1) {
		if (rec.rec.type != PEV_RECORD_SAMPLE)
			continue;
		if (rec.event == 0 || rec.event == 1)
			t.samples[rec.event]++;
		else
			t.other++;
	}
	cr_assert_eq(r, 0, "pev_session_read: %s", pev_strerror(r));
	return t;
}

/* Event 0 is task-clock every 0.5 ms, event 1 page-faults every fault: check both arrived. */
static void expect_two_events(struct pev_session *s)
{
	cr_assert_eq(pev_session_nr_events(s), 2);
	const struct pev_attr *a0 = pev_counter_attr(pev_session_counter(s, 0));
	const struct pev_attr *a1 = pev_counter_attr(pev_session_counter(s, 1));

	cr_expect_eq(a0->type, PEV_TYPE_SOFTWARE);
	cr_expect_eq(a0->config, PEV_SW_TASK_CLOCK);
	cr_expect_eq(a0->sample_period, TASK_CLOCK_PERIOD);
	cr_expect_eq(a1->type, PEV_TYPE_SOFTWARE);
	cr_expect_eq(a1->config, PEV_SW_PAGE_FAULTS);
	cr_expect_eq(a1->sample_period, 1);
	cr_expect(a1->sample_type & PEV_SAMPLE_ADDR,
	          "event 1's own sample_type reached the kernel");

	struct tally t = run(s);
	cr_expect_geq(t.samples[0], 5, "20 ms of CPU at 0.5 ms: %zu task-clock samples",
	              t.samples[0]);
	cr_expect_geq(t.samples[1], FAULT_PAGES, "%d faults at period 1: %zu samples", FAULT_PAGES,
	              t.samples[1]);
	cr_expect_eq(t.other, 0);
}

static void fill_old(struct old_session_event ev[2])
{
	memset(ev, 0, 2 * sizeof(ev[0]));
	ev[0].ev = pev_event_software(PEV_SW_TASK_CLOCK);
	ev[0].opts.sz = sizeof(ev[0].opts);
	ev[0].opts.sample_period = TASK_CLOCK_PERIOD;
	ev[0].opts.sample_type = PEV_SAMPLE_IP;
	ev[1].ev = pev_event_software(PEV_SW_PAGE_FAULTS);
	ev[1].opts.sz = sizeof(ev[1].opts);
	ev[1].opts.sample_period = 1;
	ev[1].opts.sample_type = PEV_SAMPLE_ADDR;
}

static struct pev_session *open_ok(const void *opts)
{
	struct pev_session *s = NULL;
	struct pev_error err;
	int r = pev_session_open((const struct pev_session_opts *)opts, &s, &err);

	cr_assert_eq(r, 0, "pev_session_open: %s (%s)", err.message, err.hint);
	cr_expect_eq(err.code, 0, "a success leaves no error behind");
	return s;
}

/* ---- older callers ------------------------------------------------------------------ */

Test(abi_compat, a_caller_built_before_event_sz_with_a_smaller_pev_opts_opens_two_events)
{
	struct old_session_event ev[2];
	struct old_session_opts o;

	fill_old(ev);
	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	o.events = ev;
	o.nr_events = 2;
	struct pev_session *s = open_ok(&o);
	expect_two_events(s);
	pev_session_close(s);
}

Test(abi_compat, event_sz_gives_the_stride_of_a_smaller_pev_opts)
{
	struct old_session_event ev[2];
	struct pev_session_opts o = PEV_SESSION_OPTS_INIT;

	cr_expect_eq(o.event_sz, sizeof(struct pev_session_event), "the INIT macro sets it");
	fill_old(ev);
	o.events = (const struct pev_session_event *)(const void *)ev;
	o.nr_events = 2;
	o.event_sz = sizeof(ev[0]);
	struct pev_session *s = open_ok(&o);
	expect_two_events(s);
	pev_session_close(s);
}

Test(abi_compat, a_caller_of_this_version_opens_two_events)
{
	struct pev_session_event ev[2] = {{pev_event_software(PEV_SW_TASK_CLOCK), PEV_OPTS_INIT},
	                                  {pev_event_software(PEV_SW_PAGE_FAULTS), PEV_OPTS_INIT}};
	struct pev_session_opts o = PEV_SESSION_OPTS_INIT;

	ev[0].opts.sample_period = TASK_CLOCK_PERIOD;
	ev[0].opts.sample_type = PEV_SAMPLE_IP;
	ev[1].opts.sample_period = 1;
	ev[1].opts.sample_type = PEV_SAMPLE_ADDR;
	o.events = ev;
	o.nr_events = 2;
	struct pev_session *s = open_ok(&o);
	expect_two_events(s);
	pev_session_close(s);
}

/* ---- newer callers ------------------------------------------------------------------ */

static void fill_new(struct new_session_event ev[2])
{
	memset(ev, 0, 2 * sizeof(ev[0]));
	ev[0].ev = pev_event_software(PEV_SW_TASK_CLOCK);
	ev[0].opts.o.sz = sizeof(ev[0].opts);
	ev[0].opts.o.sample_period = TASK_CLOCK_PERIOD;
	ev[0].opts.o.sample_type = PEV_SAMPLE_IP;
	ev[1].ev = pev_event_software(PEV_SW_PAGE_FAULTS);
	ev[1].opts.o.sz = sizeof(ev[1].opts);
	ev[1].opts.o.sample_period = 1;
	ev[1].opts.o.sample_type = PEV_SAMPLE_ADDR;
}

Test(abi_compat, a_newer_caller_with_a_zero_unknown_field_opens_two_events)
{
	struct new_session_event ev[2];
	struct pev_session_opts o = PEV_SESSION_OPTS_INIT;

	fill_new(ev);
	o.events = (const struct pev_session_event *)(const void *)ev;
	o.nr_events = 2;
	o.event_sz = sizeof(ev[0]);
	struct pev_session *s = open_ok(&o);
	expect_two_events(s);
	pev_session_close(s);
}

Test(abi_compat, a_newer_caller_setting_an_unknown_field_is_refused)
{
	struct new_session_event ev[2];
	struct pev_session_opts o = PEV_SESSION_OPTS_INIT;
	struct pev_session *s = NULL;
	struct pev_error err;
	int fds = th_count_fds();

	fill_new(ev);
	ev[1].opts.newer = 1;
	o.events = (const struct pev_session_event *)(const void *)ev;
	o.nr_events = 2;
	o.event_sz = sizeof(ev[0]);
	cr_expect_eq(pev_session_open(&o, &s, &err), PEV_EBADARG);
	cr_expect_null(s);
	cr_expect(strstr(err.message, "upgrade libperfev"), "%s", err.message);
	cr_expect_eq(th_count_fds(), fds, "event 0 was closed again");
}

Test(abi_compat, an_element_size_that_cannot_hold_its_options_is_refused)
{
	struct new_session_event ev[2];
	struct pev_session_opts o = PEV_SESSION_OPTS_INIT;
	struct pev_session *s = NULL;
	struct pev_error err;

	fill_new(ev);
	o.events = (const struct pev_session_event *)(const void *)ev;
	o.nr_events = 2;
	o.event_sz = sizeof(struct pev_session_event); /* smaller than the caller's elements */
	cr_expect_eq(pev_session_open(&o, &s, &err), PEV_EBADARG);
	cr_expect_str_eq(err.field, "events");
	o.event_sz = 3;
	cr_expect_eq(pev_session_open(&o, &s, &err), PEV_EBADARG);
	cr_expect_str_eq(err.field, "event_sz");
	cr_expect_null(s);
}

/* ---- frozen structs: a reserved word is a newer library's field ------------------------- */

Test(abi_compat, a_set_reserved_word_of_an_event_or_target_is_refused)
{
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_target t = pev_target_self();
	struct pev_counter *c = NULL;
	struct pev_error err;
	struct pev_attr attr;

	cr_assert_eq(pev_attr_encode(&attr, &ev, NULL, &err), 0, "%s", err.message);
	cr_assert_eq(pev_counter_open(&ev, NULL, &t, NULL, &c, &err), 0, "%s", err.message);
	pev_counter_close(c);

	ev.reserved[3] = 1;
	cr_expect_eq(pev_attr_encode(&attr, &ev, NULL, &err), PEV_EBADARG);
	cr_expect(strstr(err.message, "ev.reserved[3]"), "%s", err.message);
	cr_expect_eq(pev_counter_open(&ev, NULL, &t, NULL, &c, &err), PEV_EBADARG);
	cr_expect_null(c);

	struct pev_session_event se = {ev, PEV_OPTS_INIT};
	struct pev_session_opts so = PEV_SESSION_OPTS_INIT;
	struct pev_session *s = NULL;
	se.opts.sample_period = TASK_CLOCK_PERIOD;
	so.events = &se;
	so.nr_events = 1;
	cr_expect_eq(pev_session_open(&so, &s, &err), PEV_EBADARG);
	cr_expect_null(s);

	ev.reserved[3] = 0;
	t.reserved[1] = 1;
	cr_expect_eq(pev_counter_open(&ev, NULL, &t, NULL, &c, &err), PEV_EBADARG);
	cr_expect(strstr(err.message, "target.reserved[1]"), "%s", err.message);
	cr_expect_eq(pev_counter_open_attr(&attr, sizeof(attr), &t, NULL, 0, &c, &err),
	             PEV_EBADARG);
	cr_expect_null(c);
}

/* Outputs of frozen size come back with their reserved words zero, whatever was there. */
Test(abi_compat, reserved_words_of_outputs_are_zeroed)
{
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_counter *c = NULL;
	struct pev_count n;
	struct pev_error err;

	memset(&err, 0xff, sizeof(err));
	cr_assert_eq(pev_counter_open(&ev, NULL, NULL, NULL, &c, &err), 0);
	for (size_t i = 0; i < NELEM(err.reserved); i++)
		cr_expect_eq(err.reserved[i], 0);
	memset(&n, 0xff, sizeof(n));
	cr_assert_eq(pev_counter_read(c, &n), 0);
	for (size_t i = 0; i < NELEM(n.reserved); i++)
		cr_expect_eq(n.reserved[i], 0);
	memset(&n, 0xff, sizeof(n));
	cr_assert_eq(pev_counter_read_fd(c, 0, &n), 0);
	for (size_t i = 0; i < NELEM(n.reserved); i++)
		cr_expect_eq(n.reserved[i], 0);
	struct pev_opts go = PEV_OPTS_INIT;
	struct pev_event pf = pev_event_software(PEV_SW_PAGE_FAULTS);
	struct pev_counter *member = NULL;
	struct pev_count two[2];
	pev_counter_close(c);
	go.read_format = PEV_FORMAT_GROUP | PEV_FORMAT_ID;
	cr_assert_eq(pev_counter_open(&ev, &go, NULL, NULL, &c, &err), 0, "%s", err.message);
	cr_assert_eq(pev_counter_open(&pf, &go, NULL, c, &member, &err), 0, "%s", err.message);
	memset(two, 0xff, sizeof(two));
	cr_assert_eq(pev_counter_read_group(c, two, 2), 2);
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < NELEM(two[k].reserved); i++)
			cr_expect_eq(two[k].reserved[i], 0);
	pev_counter_close(member);
	memset(&ev, 0xff, sizeof(ev));
	cr_assert_eq(pev_event_lookup("page-faults", &ev), 0);
	for (size_t i = 0; i < NELEM(ev.reserved); i++)
		cr_expect_eq(ev.reserved[i], 0);
	pev_counter_close(c);
}
