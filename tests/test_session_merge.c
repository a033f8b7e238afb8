/* SPDX-License-Identifier: MIT */
/*
 * test_session_merge.c - the session's flush rounds and time-ordered merge
 * over rings laid out in memory (no kernel): which records a round holds
 * back and why, ring order for records without a time, a held record that
 * wraps the data area's end, the space given back to the "kernel"
 * (data_tail) only for delivered records, rings whose task exited, flush,
 * and the accounting. test_session.c runs sessions on the live kernel.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "sample/ring_internal.h"
#include "sample/session_internal.h"

#define DATA_SIZE 128 /* 24-byte records: the sixth one wraps the end */
#define NR_RINGS 2

/* Two events: ids 1001 and 2002; SAMPLE = header, IDENTIFIER, TIME (24 bytes). */
static const uint64_t ids[2] = {1001, 2002};

struct fake_ring {
	struct pev_mmap_page page;
	uint64_t data[DATA_SIZE / 8];
};

struct fixture {
	struct fake_ring *fr[NR_RINGS];
	struct pev_session *s;
};

static void setup(struct fixture *f)
{
	struct pev_record_config cfg = PEV_RECORD_CONFIG_INIT;
	struct pev_record_format fmts[2];
	struct pev_ring *rings[NR_RINGS];
	int cpus[NR_RINGS] = {0, 1};

	cfg.sample_type = PEV_SAMPLE_IDENTIFIER | PEV_SAMPLE_TIME;
	cfg.sample_id_all = true;
	cr_assert_eq(pev_record_format_init(&fmts[0], &cfg), 0);
	fmts[1] = fmts[0];
	for (int i = 0; i < NR_RINGS; i++) {
		f->fr[i] = aligned_alloc(64, sizeof(*f->fr[i]));
		cr_assert_not_null(f->fr[i]);
		memset(f->fr[i], 0, sizeof(*f->fr[i]));
		f->fr[i]->page.data_size = DATA_SIZE;
		cr_assert_eq(pev__ring_new(&f->fr[i]->page, f->fr[i]->data, DATA_SIZE, false,
					   &rings[i]),
			     0);
	}
	cr_assert_eq(pev__session_synthetic(fmts, ids, 2, rings, cpus, NR_RINGS, &f->s), 0);
}

static void teardown(struct fixture *f)
{
	pev_session_close(f->s);
	for (int i = 0; i < NR_RINGS; i++)
		free(f->fr[i]);
}

/* Writes words at the ring's head (wrapping the end as the kernel does) and publishes it. */
static void put(struct fake_ring *r, const uint64_t *w, size_t n)
{
	uint64_t head = r->page.data_head;

	for (size_t i = 0; i < n; i++)
		r->data[((head / 8) + i) % (DATA_SIZE / 8)] = w[i];
	__atomic_store_n(&r->page.data_head, head + 8 * n, __ATOMIC_RELEASE);
}

static uint64_t header(uint32_t type, uint16_t size)
{
	struct pev_event_header h = {.type = type, .misc = 0, .size = size};
	uint64_t w;

	memcpy(&w, &h, sizeof(w));
	return w;
}

/* A SAMPLE of event `ev` (0 or 1) at time t. */
static void sample(struct fixture *f, int ring, int ev, uint64_t t)
{
	uint64_t w[3] = {header(PEV_RECORD_SAMPLE, 24), ids[ev], t};

	put(f->fr[ring], w, 3);
}

/* A record of a type the decoder does not know: no id, no time. */
static void untimed(struct fixture *f, int ring, uint64_t payload)
{
	uint64_t w[2] = {header(100, 16), payload};

	put(f->fr[ring], w, 2);
}

/* Reads what may be delivered now: times into t (a type-100 record as 1000000 + payload). */
static int take(struct fixture *f, uint64_t *t, int max, int *rings)
{
	struct pev_session_record rec;
	int n = 0, r;

	while ((r = pev_session_read(f->s, &rec)) == 1) {
		cr_assert_lt(n, max, "more records than expected");
		if (rec.rec.type == PEV_RECORD_SAMPLE) {
			cr_assert_eq(rec.rec.sample_id.time, rec.time);
			t[n] = rec.time;
			cr_assert_eq(rec.event, rec.rec.sample_id.identifier == ids[0] ? 0 : 1);
		} else {
			cr_assert_eq(rec.rec.type, 100);
			cr_assert_eq(rec.event, -1);
			uint64_t payload;
			memcpy(&payload, rec.rec.unknown.data, 8);
			t[n] = 1000000 + payload;
		}
		if (rings)
			rings[n] = rec.ring;
		cr_assert_eq(rec.cpu, rec.ring, "ring j is on CPU j");
		n++;
	}
	cr_assert_eq(r, 0);
	return n;
}

static void expect_times(const uint64_t *got, int n, const uint64_t *want, int nwant)
{
	cr_assert_eq(n, nwant, "%d records delivered, %d expected", n, nwant);
	for (int i = 0; i < n; i++)
		cr_expect_eq(got[i], want[i], "record %d: time %llu, expected %llu", i,
			     (unsigned long long)got[i], (unsigned long long)want[i]);
}

/* Reads exactly n records (each read must deliver one); their times into t. */
static void take_n(struct fixture *f, int n, const uint64_t *want)
{
	struct pev_session_record rec;

	for (int i = 0; i < n; i++) {
		cr_assert_eq(pev_session_read(f->s, &rec), 1, "record %d of %d", i, n);
		cr_expect_eq(rec.time, want[i], "record %d: time %llu, expected %llu", i,
			     (unsigned long long)rec.time, (unsigned long long)want[i]);
	}
}

static struct pev_session_stats stats_of(struct fixture *f, enum pev_session_scope scope, int i)
{
	struct pev_session_stats st = PEV_SESSION_STATS_INIT;

	cr_assert_eq(pev_session_stats(f->s, scope, i, &st), 0);
	return st;
}

Test(session_merge, a_round_delivers_up_to_the_oldest_newest_time_and_holds_the_rest)
{
	struct fixture f;
	uint64_t t[16];

	setup(&f);
	sample(&f, 0, 0, 10);
	sample(&f, 0, 0, 20);
	sample(&f, 0, 1, 30);
	sample(&f, 1, 1, 5);
	sample(&f, 1, 0, 15);
	/* Ring 1's newest is 15: ring 0's 20 and 30 wait, ring 1 may still write 16..19. */
	take_n(&f, 3, (uint64_t[]){5, 10, 15});
	cr_expect_eq(stats_of(&f, PEV_SESSION_TOTAL, 0).held, 2);
	cr_expect_eq(stats_of(&f, PEV_SESSION_TOTAL, 0).rounds, 1);
	/* A record's space goes back at the next read: 5 and 10 are back, 15 is still
	 * readable, and ring 0's held records stay out of the kernel's reach. */
	cr_expect_eq(f.fr[0]->page.data_tail, 24);
	cr_expect_eq(f.fr[1]->page.data_tail, 24);

	/* Both rings show records: the limit is ring 0's newest, 30; 40 waits. */
	sample(&f, 1, 1, 25);
	sample(&f, 1, 0, 40);
	take_n(&f, 3, (uint64_t[]){20, 25, 30});
	cr_expect_eq(stats_of(&f, PEV_SESSION_TOTAL, 0).held, 3);
	cr_expect_eq(f.fr[0]->page.data_tail, 48, "20 back, 30 not yet");
	cr_expect_eq(f.fr[1]->page.data_tail, 72);

	/* Ring 0 writes 50: limit 40 (ring 1's newest), then 50 once ring 1 is empty. */
	sample(&f, 0, 0, 50);
	int n = take(&f, t, 16, NULL);
	expect_times(t, n, (uint64_t[]){40, 50}, 2);

	/* A new record while ring 1 shows nothing: it waits one round (ring 1 might be
	 * writing something older right now), then goes. */
	sample(&f, 0, 0, 60);
	n = take(&f, t, 16, NULL);
	cr_expect_eq(n, 0, "60 is newer than anything seen before: held a round");
	n = take(&f, t, 16, NULL);
	expect_times(t, n, (uint64_t[]){60}, 1);

	struct pev_session_stats st = stats_of(&f, PEV_SESSION_TOTAL, 0);
	cr_expect_eq(st.records, 9);
	cr_expect_eq(st.samples, 9);
	cr_expect_eq(st.out_of_order, 0);
	cr_expect_eq(stats_of(&f, PEV_SESSION_EVENT, 0).samples, 6);
	cr_expect_eq(stats_of(&f, PEV_SESSION_EVENT, 1).samples, 3);
	cr_expect_eq(stats_of(&f, PEV_SESSION_RING, 1).samples, 4);
	for (int i = 0; i < NR_RINGS; i++)
		cr_expect_eq(f.fr[i]->page.data_tail, f.fr[i]->page.data_head, "ring %d given back",
			     i);
	teardown(&f);
}

Test(session_merge, records_without_a_time_keep_their_ring_order)
{
	struct fixture f;
	uint64_t t[16];
	int rings[16];

	setup(&f);
	sample(&f, 0, 0, 10);
	untimed(&f, 0, 1); /* after 10 in ring 0: takes time 10 */
	sample(&f, 0, 0, 30);
	untimed(&f, 1, 2); /* first in ring 1: time 0 */
	sample(&f, 1, 1, 20);
	cr_assert_eq(pev_session_flush(f.s), 0);
	int n = take(&f, t, 16, rings);
	expect_times(t, n, (uint64_t[]){1000002, 10, 1000001, 20, 30}, 5);
	struct pev_session_stats st = PEV_SESSION_STATS_INIT;
	cr_assert_eq(pev_session_stats(f.s, PEV_SESSION_TOTAL, 0, &st), 0);
	cr_expect_eq(st.unknown_id, 2);
	cr_expect_eq(st.by_type[0], 2, "type 100 counts as 'other'");
	cr_expect_eq(st.by_type[PEV_RECORD_SAMPLE], 3);
	teardown(&f);
}

Test(session_merge, a_held_record_that_wraps_the_end_stays_valid)
{
	struct fixture f;
	uint64_t t[16];

	setup(&f);
	/* Ring 0: four records fill 0..96; later 50 fills 96..120 and 60 wraps (120..144). */
	for (int i = 1; i <= 4; i++)
		sample(&f, 0, 0, (uint64_t)i * 10);
	sample(&f, 1, 1, 45);
	take_n(&f, 4, (uint64_t[]){10, 20, 30, 40});
	sample(&f, 0, 0, 50);
	sample(&f, 0, 1, 60);
	sample(&f, 1, 1, 55);
	/* Limit 55: 60, the wrapped record, waits in the ring's copy. */
	take_n(&f, 3, (uint64_t[]){45, 50, 55});
	sample(&f, 1, 1, 70);
	/* The next round reads ring 1 again; 60 is still intact, and event 1's. */
	struct pev_session_record rec;
	cr_assert_eq(pev_session_read(f.s, &rec), 1);
	cr_expect_eq(rec.time, 60);
	cr_expect_eq(rec.event, 1);
	cr_expect_eq(rec.ring, 0);
	struct pev_ring_stats rs = PEV_RING_STATS_INIT;
	cr_assert_eq(pev_ring_stats(f.s->rings[0].ring, &rs), 0);
	cr_expect_eq(rs.wrapped, 1);
	cr_assert_eq(pev_session_flush(f.s), 0);
	cr_expect_eq(f.fr[0]->page.data_tail, 144, "flush gave back the wrapped record");
	int n = take(&f, t, 16, NULL);
	expect_times(t, n, (uint64_t[]){70}, 1);
	teardown(&f);
}

Test(session_merge, a_ring_whose_task_exited_does_not_hold_the_others)
{
	struct fixture f;
	uint64_t t[16];

	setup(&f);
	sample(&f, 0, 0, 10);
	sample(&f, 0, 0, 50);
	sample(&f, 1, 1, 20);
	f.s->rings[1].hup = true; /* as pev_session_poll marks it */
	/* Ring 1 is final: only ring 0 limits (50); ring 1's 20 goes in order. */
	int n = take(&f, t, 16, NULL);
	expect_times(t, n, (uint64_t[]){10, 20, 50}, 3);
	teardown(&f);
}

Test(session_merge, a_late_record_is_counted_out_of_order)
{
	struct fixture f;
	uint64_t t[16];

	setup(&f);
	sample(&f, 0, 0, 10);
	sample(&f, 0, 0, 50);
	int n = take(&f, t, 16, NULL); /* ring 1 showed nothing: the first round waits */
	cr_expect_eq(n, 0);
	n = take(&f, t, 16, NULL);
	expect_times(t, n, (uint64_t[]){10, 50}, 2);
	/* Ring 1 now shows a record written before 50: too late. */
	sample(&f, 1, 1, 40);
	n = take(&f, t, 16, NULL);
	expect_times(t, n, (uint64_t[]){40}, 1);
	struct pev_session_stats st = PEV_SESSION_STATS_INIT;
	cr_assert_eq(pev_session_stats(f.s, PEV_SESSION_TOTAL, 0, &st), 0);
	cr_expect_eq(st.out_of_order, 1, "never silent");
	cr_assert_eq(pev_session_stats(f.s, PEV_SESSION_RING, 1, &st), 0);
	cr_expect_eq(st.out_of_order, 1);
	teardown(&f);
}

Test(session_merge, lost_and_throttle_records_are_counted)
{
	struct fixture f;
	uint64_t t[16];

	setup(&f);
	/* LOST: id, lost; trailer: time, identifier. */
	uint64_t lost[5] = {header(PEV_RECORD_LOST, 40), ids[1], 7, 5, ids[1]};
	put(f.fr[0], lost, 5);
	uint64_t thr[6] = {header(PEV_RECORD_THROTTLE, 48), 6, ids[0], ids[0], 6, ids[0]};
	put(f.fr[1], thr, 6);
	cr_assert_eq(pev_session_flush(f.s), 0);
	struct pev_session_record rec;
	int n = 0;
	while (pev_session_read(f.s, &rec) == 1)
		t[n++] = rec.time;
	expect_times(t, n, (uint64_t[]){5, 6}, 2);
	struct pev_session_stats st = PEV_SESSION_STATS_INIT;
	cr_assert_eq(pev_session_stats(f.s, PEV_SESSION_TOTAL, 0, &st), 0);
	cr_expect_eq(st.lost, 7);
	cr_expect_eq(st.lost_records, 1);
	cr_expect_eq(st.throttle, 1);
	cr_expect_eq(st.samples, 0);
	cr_assert_eq(pev_session_stats(f.s, PEV_SESSION_EVENT, 1, &st), 0);
	cr_expect_eq(st.lost, 7, "the LOST record is event 1's");
	cr_assert_eq(pev_session_stats(f.s, PEV_SESSION_EVENT, 0, &st), 0);
	cr_expect_eq(st.throttle, 1);
	teardown(&f);
}

/* ---- many rings ------------------------------------------------------------------------- */

#define MANY 9
#define MANY_SIZE 4096

Test(session_merge, nine_rings_merge_in_order_across_partial_reads)
{
	struct pev_record_config cfg = PEV_RECORD_CONFIG_INIT;
	struct pev_record_format fmt;
	struct fake_ring_big {
		struct pev_mmap_page page;
		uint64_t data[MANY_SIZE / 8];
	} *fr = aligned_alloc(64, MANY * sizeof(*fr));
	struct pev_ring *rings[MANY];
	int cpus[MANY];
	struct pev_session *s;
	uint64_t id = ids[0], last = 0, last_in_ring[MANY] = {0};
	size_t written = 0, read = 0;
	unsigned seed = 7;

	cr_assert_not_null(fr);
	memset(fr, 0, MANY * sizeof(*fr));
	cfg.sample_type = PEV_SAMPLE_IDENTIFIER | PEV_SAMPLE_TIME;
	cfg.sample_id_all = true;
	cr_assert_eq(pev_record_format_init(&fmt, &cfg), 0);
	for (int j = 0; j < MANY; j++) {
		fr[j].page.data_size = MANY_SIZE;
		int r = pev__ring_new(&fr[j].page, fr[j].data, MANY_SIZE, false, &rings[j]);
		cr_assert_eq(r, 0);
		cpus[j] = j;
	}
	cr_assert_eq(pev__session_synthetic(&fmt, &id, 1, rings, cpus, MANY, &s), 0);

	for (int phase = 0; phase < 40; phase++) {
		/* Each ring gets 0..5 records, times rising within the phase's own range. */
		for (int j = 0; j < MANY; j++) {
			uint64_t t = (uint64_t)phase * 1000 + (uint64_t)(rand_r(&seed) % 100);
			int n = rand_r(&seed) % 6;
			for (int k = 0; k < n; k++) {
				uint64_t head = fr[j].page.data_head;
				uint64_t w[3] = {header(PEV_RECORD_SAMPLE, 24), id, t};
				if (head + 24 - fr[j].page.data_tail > MANY_SIZE)
					break; /* full: the kernel would drop it */
				for (uint64_t q = 0; q < 3; q++)
					fr[j].data[(head / 8 + q) % (MANY_SIZE / 8)] = w[q];
				fr[j].page.data_head = head + 24;
				t += (uint64_t)(rand_r(&seed) % 50);
				written++;
			}
		}
		/* Read some of it, or all that may go. */
		int want = phase % 3 == 2 ? 1000 : rand_r(&seed) % 20;
		struct pev_session_record rec;
		for (int k = 0; k < want && pev_session_read(s, &rec) == 1; k++) {
			cr_assert_geq(rec.time, last, "time %llu after %llu",
				      (unsigned long long)rec.time, (unsigned long long)last);
			cr_assert_geq(rec.time, last_in_ring[rec.ring]);
			last = last_in_ring[rec.ring] = rec.time;
			read++;
		}
	}
	cr_assert_eq(pev_session_flush(s), 0);
	struct pev_session_record rec;
	while (pev_session_read(s, &rec) == 1) {
		cr_assert_geq(rec.time, last);
		last = rec.time;
		read++;
	}
	struct pev_session_stats st = PEV_SESSION_STATS_INIT;
	cr_assert_eq(pev_session_stats(s, PEV_SESSION_TOTAL, 0, &st), 0);
	cr_expect_eq(read, written, "%zu records written, %zu read", written, read);
	cr_expect_eq(st.records, written);
	cr_expect_eq(st.out_of_order, 0);
	cr_expect_gt(st.held, 0, "rounds held records back");
	for (int j = 0; j < MANY; j++)
		cr_expect_eq(fr[j].page.data_tail, fr[j].page.data_head, "ring %d given back", j);
	pev_session_close(s);
	free(fr);
}

Test(session_merge, a_malformed_record_is_skipped_after_the_good_ones_and_counted)
{
	struct fixture f;
	uint64_t t[16];

	setup(&f);
	sample(&f, 0, 0, 10);
	sample(&f, 0, 0, 20);
	uint64_t bad[2] = {header(PEV_RECORD_SAMPLE, 12), 0}; /* a size not a multiple of 8 */
	put(f.fr[0], bad, 2);
	sample(&f, 0, 0, 30); /* lost with the rest of the ring */
	cr_assert_eq(pev_session_flush(f.s), 0);
	int n = take(&f, t, 16, NULL);
	expect_times(t, n, (uint64_t[]){10, 20}, 2);
	struct pev_session_stats st = stats_of(&f, PEV_SESSION_TOTAL, 0);
	cr_expect_eq(st.malformed, 1);
	cr_expect_eq(st.skipped, 40, "the bad 16 bytes and the 24-byte record after them");
	cr_expect_eq(stats_of(&f, PEV_SESSION_RING, 0).skipped, 40);
	cr_expect_eq(f.fr[0]->page.data_tail, f.fr[0]->page.data_head, "resynchronized");
	/* The ring reads again after it. */
	sample(&f, 0, 1, 40);
	cr_assert_eq(pev_session_flush(f.s), 0);
	n = take(&f, t, 16, NULL);
	expect_times(t, n, (uint64_t[]){40}, 1);
	teardown(&f);
}
