/* SPDX-License-Identifier: MIT */
/*
 * test_hw_pmu.c - hardware events on a real PMU driver: exact instruction
 * counts, groups read in one read(2), more events than counters scaled,
 * sampling on cycles with callchains, refusals the PMU gives diagnosed,
 * user-space counter reads, `perfev check` and `perfev stat` beside perf.
 *
 * The PMU lab (scripts/pmu-lab.sh, docs/PMU_LAB.md) runs these on QEMU's
 * emulated Armv8 PMU with -icount shift=0 and sets PERFEV_LAB_ICOUNT=1: there
 * every user instruction counts exactly, and the tests assert exact counts.
 * On real hardware they assert bounds instead. Where `cycles` does not open
 * (no PMU driver, as in most VMs) they skip, saying why; in the lab
 * (PERFEV_LAB set) nothing skips for want of a PMU.
 */
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "helpers.h"

TestSuite(hw_pmu, .init = th_leak_init, .fini = th_leak_fini);

/* ---- a loop of known length ---------------------------------------------- */

/*
 * hw_pmu_loop(n): n rounds of exactly 4 instructions (n >= 1), then return.
 * Written in assembly so that no compiler changes its length.
 * hw_pmu_loop_end marks where its code ends (for samples' addresses).
 */
void hw_pmu_loop(uint64_t n);
extern const char hw_pmu_loop_end[];

#if defined(__aarch64__)
#define HW_LOOP_KNOWN 1
__asm__(".text\n"
	".globl hw_pmu_loop\n"
	".type hw_pmu_loop, %function\n"
	"hw_pmu_loop:\n"
	"1:	add x1, x1, #1\n"
	"	nop\n"
	"	sub x0, x0, #1\n"
	"	cbnz x0, 1b\n"
	"	ret\n"
	".globl hw_pmu_loop_end\n"
	"hw_pmu_loop_end:\n"
	".size hw_pmu_loop, hw_pmu_loop_end - hw_pmu_loop\n");
#elif defined(__x86_64__)
#define HW_LOOP_KNOWN 1
__asm__(".text\n"
	".globl hw_pmu_loop\n"
	".type hw_pmu_loop, @function\n"
	"hw_pmu_loop:\n"
	"1:	add $1, %rsi\n"
	"	nop\n"
	"	dec %rdi\n"
	"	jnz 1b\n"
	"	ret\n"
	".globl hw_pmu_loop_end\n"
	"hw_pmu_loop_end:\n"
	".size hw_pmu_loop, hw_pmu_loop_end - hw_pmu_loop\n");
#else
#define HW_LOOP_KNOWN 0
void hw_pmu_loop(uint64_t n)
{
	(void)n;
}
const char hw_pmu_loop_end[1];
#endif

/* User instructions a measured region adds to the loop's (calls, the enable and disable paths). */
#define REGION_OVERHEAD_MAX 4000

/* ---- the machine ---------------------------------------------------------- */

/* Whether QEMU's -icount makes `instructions` exact here (the lab says so). */
static bool icount(void)
{
	const char *v = getenv("PERFEV_LAB_ICOUNT");
	return v && strcmp(v, "1") == 0;
}

/* Whether this runs in the PMU lab, where a PMU driver is there by construction. */
static bool in_lab(void)
{
	return getenv("PERFEV_LAB") != NULL;
}

/*
 * Skips the test, with perfev's diagnosis, when hardware event `id` (user
 * space) does not open here; in the lab that fails the test instead. Also
 * skips where the loop has no known length.
 */
static void need_hw(enum pev_hw_id id)
{
	struct pev_event ev = pev_event_hardware(id);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_target self = pev_target_self();
	struct pev_counter *c = NULL;
	struct pev_error err;

	if (!HW_LOOP_KNOWN)
		th_skip("no loop of known length for this architecture (x86-64 and arm64 have one)");
	o.exclude_kernel = true;
	o.exclude_hv = true;
	o.disabled = true;
	int rc = pev_counter_open(&ev, &o, &self, NULL, &c, &err);
	if (rc == 0) {
		pev_counter_close(c);
		return;
	}
	if (in_lab() && !icount() && id == PEV_HW_INSTRUCTIONS)
		th_skip("the PMU lab runs without -icount (PERFEV_LAB_ICOUNT=0): QEMU then offers "
			"no instructions event");
	cr_assert(!in_lab(), "%s does not open in the PMU lab: %s %s", pev_hw_name(id), err.message,
		  err.hint);
	th_skip("no hardware %s here (%s): %s", pev_hw_name(id), pev_error_name(rc), err.message);
}

/* Opens hardware event id on the calling thread, user space only, disabled; group may be NULL. */
static struct pev_counter *open_hw(enum pev_hw_id id, struct pev_counter *group, uint64_t read_format)
{
	struct pev_event ev = pev_event_hardware(id);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_target self = pev_target_self();

	o.exclude_kernel = true;
	o.exclude_hv = true;
	o.disabled = group == NULL;
	o.read_format = read_format;
	return th_open_ok(ev, &o, &self, group);
}

/* The user instructions of a region running the loop n times: enabled, looped, disabled. */
static uint64_t instructions_of(uint64_t n)
{
	struct pev_counter *c = open_hw(PEV_HW_INSTRUCTIONS, NULL, 0);

	cr_assert_eq(pev_counter_enable(c), 0);
	hw_pmu_loop(n);
	cr_assert_eq(pev_counter_disable(c), 0);
	uint64_t v = th_value(c);
	pev_counter_close(c);
	return v;
}

/*
 * Runs that keep the smallest count. Under QEMU an interrupt taken in the
 * region adds user instructions of its own (one to two thousand, every timer
 * tick, 4 ms apart in virtual time: 4 M instructions), so a region of a few
 * ten thousand instructions is exact unless a tick fell in it: the smallest
 * of 5 runs has none.
 */
#define RUNS 5

/* The smallest count of RUNS regions of the loop run n times. */
static uint64_t fewest_instructions(uint64_t n)
{
	uint64_t least = UINT64_MAX;

	for (int i = 0; i < RUNS; i++) {
		uint64_t v = instructions_of(n);
		least = v < least ? v : least;
	}
	return least;
}

/* ---- counting --------------------------------------------------------------- */

Test(hw_pmu, instructions_count_the_loop_exactly)
{
	need_hw(PEV_HW_INSTRUCTIONS);
	const uint64_t n[3] = {1000, 4000, 10000};
	uint64_t v[3];

	for (int i = 0; i < 3; i++) {
		v[i] = fewest_instructions(n[i]);
		cr_expect_geq(v[i], 4 * n[i], "%" PRIu64 " instructions for a loop of %" PRIu64, v[i],
			      4 * n[i]);
		cr_expect_leq(v[i], 4 * n[i] + 4 * n[i] / 1000 + REGION_OVERHEAD_MAX,
			      "%" PRIu64 " instructions for a loop of %" PRIu64, v[i], 4 * n[i]);
	}
	if (icount()) {
		/* -icount: 4 per round, and the region's fixed part is the same every time. */
		uint64_t fixed = v[0] - 4 * n[0];
		for (int i = 1; i < 3; i++)
			cr_expect_eq(v[i], 4 * n[i] + fixed,
				     "loops of %" PRIu64 " and %" PRIu64 " rounds counted %" PRIu64
				     " and %" PRIu64 ": not 4 per round and %" PRIu64 " around them",
				     n[0], n[i], v[0], v[i], fixed);
		cr_log_info("instructions:u of a region: 4 x rounds + %" PRIu64 ", exactly", fixed);
	}
}

Test(hw_pmu, group_of_cycles_and_instructions_is_read_in_one_call)
{
	need_hw(PEV_HW_CPU_CYCLES);
	need_hw(PEV_HW_INSTRUCTIONS);
	const uint64_t n = 200000;
	struct pev_counter *lead = open_hw(PEV_HW_CPU_CYCLES, NULL, PEV_FORMAT_GROUP | PEV_FORMAT_ID);
	struct pev_counter *ins = open_hw(PEV_HW_INSTRUCTIONS, lead, PEV_FORMAT_GROUP | PEV_FORMAT_ID);

	cr_assert_eq(pev_counter_enable_group(lead), 0);
	hw_pmu_loop(n);
	cr_assert_eq(pev_counter_disable_group(lead), 0);

	/* One read(2) of the leader returns both counts. */
	uint64_t buf[16], enabled = 0, running = 0, id_lead = 0, id_ins = 0;
	struct pev_read_value v[4];
	ssize_t len = read(pev_counter_fd(lead, 0), buf, sizeof(buf));
	cr_assert_gt(len, 0, "read(2) of the group leader: %m");
	int nr = pev_read_decode(buf, (size_t)len, pev_counter_attr(lead)->read_format, &enabled,
				 &running, v, 4);
	cr_assert_eq(nr, 2, "one read(2) of {cycles,instructions} holds %d values", nr);
	cr_assert_eq(pev_counter_id(lead, 0, &id_lead), 0);
	cr_assert_eq(pev_counter_id(ins, 0, &id_ins), 0);
	cr_expect_eq(v[0].id, id_lead);
	cr_expect_eq(v[1].id, id_ins);
	cr_expect_gt(v[0].value, 0, "cycles of a loop of %" PRIu64 " instructions", 4 * n);
	cr_expect_geq(v[1].value, 4 * n);
	cr_expect_leq(v[1].value, 4 * n + 4 * n / 1000 + REGION_OVERHEAD_MAX, "%" PRIu64, v[1].value);
	cr_expect_gt(running, 0);
	cr_expect_eq(enabled, running, "two events on free counters ran all the time they were enabled");

	/* perfev's group read gives the same (the group is disabled: nothing moves). */
	struct pev_count cnt[2];
	cr_assert_eq(pev_counter_read_group(lead, cnt, 2), 2);
	cr_expect_eq(cnt[0].value, v[0].value);
	cr_expect_eq(cnt[1].value, v[1].value);
	cr_expect(cnt[0].counted && cnt[1].counted);
	pev_counter_close(ins);
	pev_counter_close(lead);
}

/* Events opened at once for the multiplexing test: more than any PMU here has counters. */
#define MUX_EVENTS 10
/* How far a multiplexed (scaled) count may stray from the truth, in percent. */
#define MUX_BOUND_PERCENT 5

Test(hw_pmu, more_events_than_counters_are_scaled)
{
	need_hw(PEV_HW_INSTRUCTIONS);
	const uint64_t n = 25000000;
	struct pev_counter *c[MUX_EVENTS];
	struct pev_count cnt[MUX_EVENTS];
	int multiplexed = 0;
	double worst = 0;

	for (int i = 0; i < MUX_EVENTS; i++)
		c[i] = open_hw(PEV_HW_INSTRUCTIONS, NULL, 0);
	/* One prctl starts them all, so that each is enabled for the same region. */
	cr_assert_eq(pev_process_counters_enable(), 0);
	hw_pmu_loop(n);
	cr_assert_eq(pev_process_counters_disable(), 0);
	for (int i = 0; i < MUX_EVENTS; i++) {
		cr_assert_eq(pev_counter_read(c[i], &cnt[i]), 0);
		pev_counter_close(c[i]);
	}
	for (int i = 0; i < MUX_EVENTS; i++) {
		const struct pev_count *k = &cnt[i];
		uint64_t truth = 4 * n, bound = truth / 100 * MUX_BOUND_PERCENT;
		cr_expect(k->counted, "event %d never ran", i);
		if (k->time_running < k->time_enabled) {
			multiplexed++;
			cr_expect_lt(k->value, truth, "event %d ran %.1f%% of the time but counted it all",
				     i, 100.0 * k->running);
		}
		cr_expect(k->scaled + bound >= truth && k->scaled <= truth + bound + REGION_OVERHEAD_MAX,
			  "event %d: %" PRIu64 " counted in %" PRIu64 " of %" PRIu64 " ns, scaled to %" PRIu64
			  ", more than %d%% from the %" PRIu64 " instructions the loop has",
			  i, k->value, k->time_running, k->time_enabled, k->scaled, MUX_BOUND_PERCENT, truth);
		double off = 100.0 * ((double)k->scaled - (double)truth) / (double)truth;
		worst = off * off > worst * worst ? off : worst;
	}
	cr_log_info("%d of %d events multiplexed; scaled counts at most %+.2f%% from the truth",
		    multiplexed, MUX_EVENTS, worst);
	if (in_lab())
		/* 6 programmable counters there, and the cycle counter counts cycles only. */
		cr_expect_eq(multiplexed, MUX_EVENTS, "%d of %d events multiplexed", multiplexed,
			     MUX_EVENTS);
	else if (multiplexed == 0)
		th_skip("this PMU counts %d instructions events at once: nothing was multiplexed",
			MUX_EVENTS);
}

/* ---- sampling --------------------------------------------------------------- */

/* Runs the loop from a function of its own, so that samples have a caller to find. */
__attribute__((noinline)) static void sampled_work(uint64_t n)
{
	hw_pmu_loop(n);
	__asm__ volatile("" ::: "memory"); /* no tail call */
}

/* Whether addr lies in the loop's code. */
static bool in_loop(uint64_t addr)
{
	return addr >= (uint64_t)(uintptr_t)hw_pmu_loop && addr < (uint64_t)(uintptr_t)hw_pmu_loop_end;
}

Test(hw_pmu, samples_on_cycles_overflow_carry_callchains)
{
	need_hw(PEV_HW_CPU_CYCLES);
	struct pev_event ev = pev_event_hardware(PEV_HW_CPU_CYCLES);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_target self = pev_target_self();
	struct pev_record_format fmt;
	struct pev_ring *r = NULL;
	struct pev_error err;
	size_t samples = 0, in_the_loop = 0, with_caller = 0;

	o.disabled = true;
	o.exclude_kernel = true;
	o.exclude_hv = true;
	o.exclude_callchain_kernel = true;
	o.sample_period = 100000;
	o.sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_TID | PEV_SAMPLE_PERIOD | PEV_SAMPLE_CALLCHAIN;
	struct pev_counter *c = th_open_ok(ev, &o, &self, NULL);
	cr_assert_eq(pev_ring_open(c, 0, 64, &r, &err), 0, "%s", err.message);
	cr_assert_eq(pev_record_format_from_attr(pev_counter_attr(c), &fmt), 0);

	/*
	 * 20 M instructions; 100 M in the lab without -icount, where cycles follow
	 * QEMU's virtual clock and a fast host runs many instructions a cycle.
	 */
	cr_assert_eq(pev_counter_enable(c), 0);
	sampled_work(in_lab() && !icount() ? 25000000 : 5000000);
	cr_assert_eq(pev_counter_disable(c), 0);

	struct pev_ring_record rec;
	cr_assert_geq(pev_ring_begin(r), 0);
	while (pev_ring_next(r, &rec) == 1) {
		struct pev_record d;
		if (rec.header->type != PEV_RECORD_SAMPLE)
			continue;
		cr_assert_gt(pev_record_decode(&fmt, rec.header, rec.size, &d), 0);
		const struct pev_sample *s = &d.sample;
		samples++;
		cr_expect_eq(s->period, o.sample_period);
		cr_expect_eq(d.sample_id.pid, (uint32_t)getpid());
		if (!in_loop(s->ip))
			continue;
		in_the_loop++;
		/* The chain: the user-space marker, the sampled address, then the callers. */
		cr_assert_geq(s->callchain_nr, 2, "a sample in the loop with %" PRIu64 " callchain entries",
			      s->callchain_nr);
		cr_expect_eq(s->callchain[0], PEV_CONTEXT_USER);
		cr_expect_eq(s->callchain[1], s->ip);
		for (uint64_t i = 2; i < s->callchain_nr; i++)
			if (s->callchain[i] < PEV_CONTEXT_MAX && !in_loop(s->callchain[i])) {
				with_caller++;
				break;
			}
	}
	cr_assert_eq(pev_ring_end(r), 0);
	pev_ring_close(r);
	pev_counter_close(c);

	/* 20 M instructions are at least 20 M cycles under -icount, 5 M on a 4-wide core. */
	cr_expect_geq(samples, 20, "%zu samples of cycles every 100,000", samples);
	cr_expect_geq(in_the_loop * 10, samples * 8, "%zu of %zu samples in the loop", in_the_loop,
		      samples);
	cr_expect_eq(with_caller, in_the_loop, "%zu of %zu callchains from the loop reach a caller",
		     with_caller, in_the_loop);
}

/* ---- what the PMU refuses ------------------------------------------------------ */

/*
 * Opens a cycles sampler on the calling thread with o (exclusions and
 * sampling fields the caller set) and returns perfev's code; err says why.
 * A counter that opens is closed.
 */
static int open_cycles_sampler(struct pev_opts *o, struct pev_error *err)
{
	struct pev_event ev = pev_event_hardware(PEV_HW_CPU_CYCLES);
	struct pev_target self = pev_target_self();
	struct pev_counter *c = NULL;

	o->exclude_kernel = true;
	o->sample_period = 100000;
	o->sample_type |= PEV_SAMPLE_IP;
	int rc = pev_counter_open(&ev, o, &self, NULL, &c, err);
	pev_counter_close(c);
	return rc;
}

Test(hw_pmu, precise_ip_is_refused_with_a_diagnosis_or_taken)
{
	need_hw(PEV_HW_CPU_CYCLES);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_error err;

	o.skid = PEV_SKID_ZERO;
	int rc = open_cycles_sampler(&o, &err);
	if (rc == 0) {
		/* Arm's PMU driver takes precise_ip and ignores it (it has no zero-skid mode):
		 * perfev must not refuse what the kernel takes. */
		if (!in_lab())
			th_skip("this PMU takes precise_ip 3 for cycles: nothing to refuse");
		return;
	}
	cr_assert(!in_lab(), "precise_ip 3 refused in the lab, where the arm64 kernel takes it: %s",
		  err.message);
	cr_expect(rc == PEV_EOPNOTSUPP || rc == PEV_EINVAL, "precise_ip 3 refused with %s",
		  pev_error_name(rc));
	cr_expect_eq(err.code, rc);
	cr_expect(strstr(err.message, "precise") || strstr(err.message, "skid"),
		  "the diagnosis does not name precise_ip: %s", err.message);
}

Test(hw_pmu, branch_stack_refusal_is_diagnosed)
{
	need_hw(PEV_HW_CPU_CYCLES);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_error err;

	o.sample_type = PEV_SAMPLE_BRANCH_STACK;
	o.branch_sample_type = PEV_BRANCH_ANY | PEV_BRANCH_USER;
	int rc = open_cycles_sampler(&o, &err);
	if (rc == 0) {
		cr_assert(!in_lab(), "QEMU's Armv8 PMU has no branch records, yet a branch stack opened");
		th_skip("this PMU records branch stacks: nothing to refuse");
	}
	cr_expect_eq(rc, PEV_EOPNOTSUPP, "a branch stack refused with %s", pev_error_name(rc));
	cr_expect_eq(err.code, rc);
	cr_expect(strstr(err.message, "BRANCH_STACK"),
		  "the diagnosis does not name the branch stack: %s", err.message);
}

Test(hw_pmu, exclude_refusals_are_diagnosed)
{
	need_hw(PEV_HW_CPU_CYCLES);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_error err;

	o.exclude_idle = true;
	int rc = open_cycles_sampler(&o, &err);
	if (rc == 0) {
		cr_assert(!in_lab(), "the Armv8 PMU cannot exclude idle, yet exclude_idle opened");
		th_skip("this PMU honours exclude_idle: nothing to refuse");
	}
	cr_expect(rc == PEV_EOPNOTSUPP || rc == PEV_EPERM || rc == PEV_EINVAL,
		  "exclude_idle refused with %s", pev_error_name(rc));
	cr_expect_eq(err.code, rc);
	cr_expect(strstr(err.message, "exclude_idle"), "the diagnosis does not name exclude_idle: %s",
		  err.message);
}

/* ---- user-space reads ------------------------------------------------------------ */

Test(hw_pmu, user_space_read_equals_read)
{
	need_hw(PEV_HW_INSTRUCTIONS);
	struct pev_event ev = pev_event_hardware(PEV_HW_INSTRUCTIONS);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_target self = pev_target_self();
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct pev_count m1, m2, k;

#if defined(__aarch64__)
	/* arm64 lets user space read an event only when it asks (config1 bit 1, "rdpmc"). */
	ev.config1 |= 2;
#endif
	o.exclude_kernel = true;
	o.exclude_hv = true;
	struct pev_counter *c = th_open_ok(ev, &o, &self, NULL);
	const struct pev_mmap_page *pc =
		mmap(NULL, page, PROT_READ, MAP_SHARED, pev_counter_fd(c, 0), 0);
	cr_assert_neq(pc, MAP_FAILED, "mapping the control page: %m");
	hw_pmu_loop(10000);
	if (!(pc->capabilities & PEV_CAP_USER_RDPMC)) {
		munmap((void *)pc, page);
		pev_counter_close(c);
		cr_assert(!in_lab(), "the lab sets kernel.perf_user_access=1, yet cap_user_rdpmc is 0");
		th_skip("the kernel does not let user space read counters here (cap_user_rdpmc 0)");
	}
	int rc1 = pev_mmap_read(pc, &m1);
	int rc = pev_counter_read(c, &k);
	int rc2 = pev_mmap_read(pc, &m2);
	munmap((void *)pc, page);
	pev_counter_close(c);
	cr_assert_eq(rc1, 0, "pev_mmap_read: %s", pev_error_name(rc1));
	cr_assert_eq(rc, 0);
	cr_assert_eq(rc2, 0, "pev_mmap_read: %s", pev_error_name(rc2));
	/* read(2) came between the two user-space reads: its count lies between theirs. */
	cr_expect_leq(m1.value, k.value, "user-space read %" PRIu64 ", then read(2) %" PRIu64,
		      m1.value, k.value);
	cr_expect_leq(k.value, m2.value, "read(2) %" PRIu64 ", then user-space read %" PRIu64,
		      k.value, m2.value);
	cr_expect_geq(m1.value, 40000);
	cr_expect_lt(m2.value - m1.value, REGION_OVERHEAD_MAX,
		     "%" PRIu64 " user instructions between two reads around one read(2)",
		     m2.value - m1.value);
}

Test(hw_pmu, selfmon_reads_without_system_calls)
{
	need_hw(PEV_HW_INSTRUCTIONS);
	struct pev_selfmon *s = NULL;
	struct pev_error err;
	const uint64_t n = 10000;
	uint64_t least = UINT64_MAX;

	cr_assert_eq(pev_selfmon_open("instructions", &s, &err), 0, "%s", err.message);
	bool direct = pev_selfmon_uses_rdpmc(s, 0);
	/* The smallest of RUNS regions: the first also resolves the library's lazy bindings. */
	for (int i = 0; i < RUNS; i++) {
		struct pev_count cnt;
		cr_assert_eq(pev_selfmon_start(s), 0);
		hw_pmu_loop(n);
		cr_assert_eq(pev_selfmon_stop(s), 0);
		cr_assert_eq(pev_selfmon_read(s, &cnt, 1), 1);
		least = cnt.value < least ? cnt.value : least;
	}
	pev_selfmon_close(s);
	if (in_lab())
		cr_expect(direct, "the lab lets user space read counters, yet selfmon uses read(2)");
	cr_expect_geq(least, 4 * n);
	cr_expect_leq(least, 4 * n + REGION_OVERHEAD_MAX, "%" PRIu64 " for a loop of %" PRIu64, least,
		      4 * n);
}

/* ---- the commands ------------------------------------------------------------------ */

Test(hw_pmu, check_proves_hardware_events)
{
	need_hw(PEV_HW_CPU_CYCLES);
	struct th_output r = th_perfev("check", "--json");
	cr_assert_eq(r.status, 0, "perfev check --json exited %d: %s", r.status, r.err);
	struct json_object *doc = th_json_parse(r.out);
	struct json_object *m = th_json_get(doc, "machine"), *checks = th_json_get(doc, "checks");
	bool found = false;

	cr_expect(json_object_get_boolean(th_json_get(m, "hardware_pmu")),
		  "check sees no hardware PMU where cycles opens (PMUs: %s)",
		  json_object_to_json_string(th_json_get(m, "pmus")));
	for (size_t i = 0; i < json_object_array_length(checks); i++) {
		struct json_object *c = json_object_array_get_idx(checks, i);
		if (strcmp(th_json_get_str(c, "id"), "hardware") != 0)
			continue;
		found = true;
		cr_expect_str_eq(th_json_get_str(c, "status"), "yes", "hardware events: %s (%s)",
				 th_json_get_str(c, "status"), th_json_get_str(c, "detail"));
	}
	cr_expect(found, "no hardware check in perfev check --json");
	json_object_put(doc);
	th_output_free(&r);
}

/* The row of `stat` output (stderr) naming event, its leading blanks kept, into buf. */
static bool stat_row(const char *text, const char *event, char *buf, size_t size)
{
	for (const char *line = text; *line;) {
		size_t len = strcspn(line, "\n");
		if (len < size) {
			memcpy(buf, line, len);
			buf[len] = '\0';
			if (strstr(buf, event))
				return true;
		}
		line += len + (line[len] == '\n');
	}
	return false;
}

/* The count a row starts with, digit grouping ("4,000,005") skipped. */
static uint64_t row_count(const char *row)
{
	uint64_t v = 0;

	row += strspn(row, " ");
	for (; *row && *row != ' '; row++)
		if (*row >= '0' && *row <= '9')
			v = v * 10 + (uint64_t)(*row - '0');
		else if (*row != ',' && *row != '.')
			break;
	return v;
}

/*
 * Runs `tool stat -e instructions:u [-x,] hw_loop` RUNS times and returns the
 * row of the run that counted fewest (malloc'ed): under QEMU a timer tick
 * adds user instructions to the run it falls in (see fewest_instructions).
 */
static char *stat_row_of(const char *tool, bool csv)
{
	const char *argv[] = {tool, "stat", "-e", "instructions:u", csv ? "-x," : "--",
			      th_test_program("hw_loop"), NULL};
	char row[512], *best = NULL;
	uint64_t least = UINT64_MAX;

	for (int i = 0; i < RUNS; i++) {
		char *out, *err;
		int status = th_run((char *const *)argv, false, &out, &err);
		cr_assert_eq(status, 0, "%s stat exited %d:\n%s", tool, status, err);
		cr_assert(stat_row(err, "instructions:u", row, sizeof(row)), "%s stat printed:\n%s",
			  tool, err);
		if (row_count(row) < least) {
			least = row_count(row);
			free(best);
			best = strdup(row);
		}
		free(out);
		free(err);
	}
	return best;
}

/* The count, unit and event fields of a CSV row (perf's 4th and later fields are times). */
static void csv_head(char *row)
{
	char *p = row;
	for (int commas = 0; *p; p++)
		if (*p == ',' && ++commas == 3) {
			*p = '\0';
			return;
		}
}

Test(hw_pmu, stat_counts_and_prints_as_perf)
{
	need_hw(PEV_HW_INSTRUCTIONS);
	th_need_perf();
	char *perf = th_which("perf");
#if defined(__aarch64__)
	const uint64_t exact = 400005; /* hw_loop's user instructions (hw_loop.c) */
#else
	const uint64_t exact = 400004;
#endif

	for (int csv = 0; csv < 2; csv++) {
		char *theirs = stat_row_of(perf, csv), *ours = stat_row_of(th_perfev_bin(), csv);
		uint64_t vt = row_count(theirs), vo = row_count(ours);
		if (icount()) {
			/* The same program, exactly counted: the same row. */
			cr_expect_eq(vt, exact, "perf counted %" PRIu64 " of hw_loop's %" PRIu64, vt, exact);
			cr_expect_eq(vo, exact, "perfev counted %" PRIu64 " of hw_loop's %" PRIu64, vo,
				     exact);
			if (csv) {
				csv_head(theirs);
				csv_head(ours);
			}
			cr_expect_str_eq(ours, theirs, "perf's row:\n%s\nperfev's:\n%s", theirs, ours);
		} else {
			cr_expect(vt >= exact && vt <= exact + 4000, "perf counted %" PRIu64, vt);
			cr_expect(vo >= exact && vo <= exact + 4000, "perfev counted %" PRIu64, vo);
		}
		free(theirs);
		free(ours);
	}
	free(perf);
}
