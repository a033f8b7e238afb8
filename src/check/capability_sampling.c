/* SPDX-License-Identifier: MIT */
/*
 * capability_sampling.c - the probes of perfev/capability.h that sample:
 * each opens a sampling event with a ring on the calling thread, causes
 * what it samples (busy work, system calls, page faults), decodes every
 * record the ring delivered and counts the samples that show what was
 * caused.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "check/capability_internal.h"
#include "core/diag_internal.h"
#include "perfev/record.h"
#include "perfev/ring.h"
#include "perfev/symbols.h"

/* Data pages of a probe's ring (plus the control page). */
#define RING_PAGES 8

/*
 * Busy time of a sampling probe, and the sampling period (task-clock ns).
 * A probe whose ring is still empty after SAMPLE_SPIN_NS goes on, up to
 * SAMPLE_SPIN_MAX_NS: a loaded or emulated machine can hold back every
 * timer for a few milliseconds (the kernel delays hrtimers after an
 * interrupt it judged too long), and the arm64 guest's check once had no
 * sample of 50 in 5 ms.
 */
#define SAMPLE_SPIN_NS     5000000ULL
#define SAMPLE_SPIN_MAX_NS 200000000ULL
#define SAMPLE_PERIOD_NS   100000ULL

/* What a probe counts in the samples it reads. */
struct tally {
	uint64_t samples;
	uint64_t matched;
	uint64_t lost;
	uint64_t switch_ins; /* SWITCH records of this thread coming back onto a CPU */
};

/* Decides whether one sample shows what the probe caused. */
typedef bool (*sample_match_fn)(const struct pev_record *r, void *ctx);

/* Opens ev as a sampler on the calling thread with a ring. Returns 0, or a code with out filled. */
static int open_sampler(struct pev_capability *out, const struct pev_event *ev, struct pev_opts *o,
                        bool user_retry, struct pev_counter **c, struct pev_ring **ring)
{
	struct pev_target self = pev_target_self();
	struct pev_error err;
	int r;

	o->disabled = true;
	if ((r = pev__cap_open(out, ev, o, &self, user_retry, c)) < 0)
		return r;
	if ((r = pev_ring_open(*c, 0, RING_PAGES, ring, &err)) < 0) {
		pev_counter_close(*c);
		pev__cap_refused(out, &err, r);
		return r;
	}
	return 0;
}

/* Reads every record the ring holds; closes the ring and the counter. */
static void drain_and_close(struct pev_counter *c, struct pev_ring *ring, sample_match_fn match,
                            void *ctx, struct tally *t)
{
	struct pev_record_format fmt;
	struct pev_ring_record rec;
	struct pev_record r;

	memset(t, 0, sizeof(*t));
	if (pev_record_format_from_attr(pev_counter_attr(c), &fmt) == 0 &&
	    pev_ring_begin(ring) >= 0) {
		while (pev_ring_next(ring, &rec) == 1) {
			if (pev_record_decode(&fmt, rec.header, rec.size, &r) < 0)
				continue;
			if (r.type == PEV_RECORD_LOST) {
				t->lost += r.lost.lost;
			} else if (r.type == PEV_RECORD_SWITCH) {
				t->switch_ins += !pev_record_switch_out(&r) &&
						 r.sample_id.tid == (uint32_t)gettid();
			} else if (r.type == PEV_RECORD_SAMPLE) {
				t->samples++;
				if (match(&r, ctx))
					t->matched++;
			}
		}
		pev_ring_end(ring);
	}
	pev_ring_close(ring);
	pev_counter_close(c);
}

/*
 * Sets the verdict of a sampling probe: SILENT without samples, WORKS when
 * at least `want` samples came and at least half of them matched, PARTIAL
 * otherwise. `shows` says what a matching sample shows.
 */
static void judge_samples(struct pev_capability *out, const struct tally *t, uint64_t want,
                          const char *event, const char *shows)
{
	bool user_only = out->verdict == PEV_CAP_PARTIAL && out->code != 0;
	char refusal[PEV_ERROR_MESSAGE_MAX];

	out->measured = t->samples;
	out->matched = t->matched;
	pev__cap_set(refusal, sizeof(refusal), "%s", user_only ? out->detail : "");
	if (t->samples == 0) {
		out->verdict = PEV_CAP_SILENT;
		pev__cap_set(out->detail, sizeof(out->detail),
		             "%s opens but delivered no sample (%" PRIu64 " expected, %" PRIu64
		             " lost)",
		             event, out->expected, t->lost);
		pev__cap_silent_fix(out);
		return;
	}
	pev__cap_set(out->detail, sizeof(out->detail),
	             "%s delivered %" PRIu64 " samples (%" PRIu64 " expected), %" PRIu64 " %s",
	             event, t->samples, out->expected, t->matched, shows);
	if (t->lost)
		pev__appendf(out->detail, sizeof(out->detail), "; %" PRIu64 " lost", t->lost);
	if (t->samples < want || t->matched * 2 < t->samples) {
		out->verdict = PEV_CAP_PARTIAL;
		if (!user_only)
			pev__cap_set(out->fix, sizeof(out->fix), "%s",
			             t->matched * 2 < t->samples
			                 ? "the samples do not show what was sampled: profiles "
			                   "from this class are not to be trusted here"
			                 : "fewer samples arrive than the period asks for: "
			                   "profiles will be coarse");
		return;
	}
	if (user_only) {
		pev__appendf(out->detail, sizeof(out->detail), "; user space only (':u'): %s",
		             refusal);
		return;
	}
	out->verdict = PEV_CAP_WORKS;
}

/* What a probe does to be sampled, for about ns of this thread's CPU time. */
typedef void (*busy_fn)(uint64_t ns, void *ctx);

/*
 * Enables c and runs work in rounds of SAMPLE_SPIN_NS until the ring holds
 * a record or SAMPLE_SPIN_MAX_NS have passed; disables c. Returns the
 * thread's CPU time the rounds took.
 */
static uint64_t busy_until_sampled(struct pev_counter *c, const struct pev_ring *ring,
                                   busy_fn work, void *ctx)
{
	uint64_t start = pev__cap_thread_ns(), busy;

	pev_counter_enable(c);
	do {
		work(SAMPLE_SPIN_NS, ctx);
		busy = pev__cap_thread_ns() - start;
	} while (pev_ring_pending(ring) == 0 && busy < SAMPLE_SPIN_MAX_NS);
	pev_counter_disable(c);
	return busy;
}

/* The user-space work: perfev's spin. */
static void spin_in_user_space(uint64_t ns, void *ctx)
{
	(void)ctx;
	pev__cap_spin(ns);
}

/* A sample of this thread. */
static bool sample_is_ours(const struct pev_record *r, void *ctx)
{
	(void)ctx;
	return r->sample_id.tid == (uint32_t)gettid();
}

/* Opens task-clock sampling (user space first) and spins. Returns 0 with *t filled. */
static int sample_spin(struct pev_capability *out, uint64_t sample_type, sample_match_fn match,
                       void *ctx, struct tally *t)
{
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_counter *c;
	struct pev_ring *ring;
	uint64_t busy;

	ev.name = "task-clock";
	o.sample_period = SAMPLE_PERIOD_NS;
	o.sample_type = sample_type;
	/* The busy work is in user space; ':u' needs no privilege. */
	o.exclude_kernel = true;
	o.exclude_hv = true;
	if (open_sampler(out, &ev, &o, false, &c, &ring) < 0)
		return -1;
	busy = busy_until_sampled(c, ring, spin_in_user_space, NULL);
	out->expected = busy / SAMPLE_PERIOD_NS;
	drain_and_close(c, ring, match, ctx, t);
	return 0;
}

void pev__cap_probe_sampling(struct pev_capability *out, const struct pev_machine *m)
{
	(void)m;
	struct tally t;

	if (sample_spin(out, PEV_SAMPLE_IP | PEV_SAMPLE_TID, sample_is_ours, NULL, &t) == 0)
		judge_samples(out, &t, out->expected / 4 ? out->expected / 4 : 1,
		              "task-clock:u every 100 us", "of this thread");
}

/* The callchain probe's lookups. */
struct callchain_ctx {
	struct pev_symbols *sym;
	int32_t pid;
	enum pev_symbol_status status; /* of the last user address that did not resolve */
};

/* A sample whose callchain has a frame in pev__cap_spin. */
static bool callchain_shows_spin(const struct pev_record *r, void *ctx)
{
	struct callchain_ctx *cc = ctx;
	const struct pev_sample *s = &r->sample;

	for (uint64_t i = 0; i < s->callchain_nr; i++) {
		struct pev_symbol sym = PEV_SYMBOL_INIT;

		if (pev_callchain_is_context(s->callchain[i]))
			continue;
		if (pev_symbols_resolve(cc->sym, cc->pid, s->callchain[i], &sym) < 0)
			continue;
		if (sym.status == PEV_SYMBOL_OK && strcmp(sym.name, "pev__cap_spin") == 0)
			return true;
		if (sym.status != PEV_SYMBOL_OK)
			cc->status = sym.status;
	}
	return false;
}

void pev__cap_probe_callchain(struct pev_capability *out, const struct pev_machine *m)
{
	(void)m;
	struct pev_symbols_opts so = PEV_SYMBOLS_OPTS_INIT;
	struct callchain_ctx cc = {.pid = (int32_t)getpid(), .status = PEV_SYMBOL_OK};
	struct pev_error err;
	struct tally t;
	int r;

	so.flags = PEV_SYMBOLS_NO_SRCLINE | PEV_SYMBOLS_NO_KERNEL;
	if ((r = pev_symbols_new(&so, &cc.sym, &err)) < 0 ||
	    (r = pev_symbols_read_process(cc.sym, cc.pid, &err)) < 0) {
		pev_symbols_free(cc.sym);
		pev__cap_unavailable(out, r, err.hint, "cannot read this process's mappings: %s",
		                     err.message);
		return;
	}
	r = sample_spin(out, PEV_SAMPLE_IP | PEV_SAMPLE_TID | PEV_SAMPLE_CALLCHAIN,
	                callchain_shows_spin, &cc, &t);
	pev_symbols_free(cc.sym);
	if (r < 0)
		return;
	judge_samples(out, &t, 1, "task-clock:u with callchains",
	              "with a frame that resolves to perfev's pev__cap_spin");
	if (t.samples && t.matched == 0 && cc.status != PEV_SYMBOL_OK)
		pev__cap_set(out->fix, sizeof(out->fix),
		             "callchains arrive but their addresses do not resolve here (%s): is "
		             "perfev's own file stripped?",
		             pev_symbol_status_str(cc.status));
}

/* A sample taken in the kernel, at a kernel address. */
static bool sample_in_kernel(const struct pev_record *r, void *ctx)
{
	const struct pev_machine *m = ctx;

	return (r->misc & PEV_RECORD_MISC_CPUMODE_MASK) == PEV_RECORD_MISC_KERNEL &&
	       pev__kernel_address(m, r->sample.ip);
}

/* The kernel work: reading /dev/zero (*ctx) keeps the thread in the kernel, clearing buffers. */
static void read_zeros(uint64_t ns, void *ctx)
{
	static char buf[65536];
	uint64_t start = pev__cap_thread_ns();

	while (pev__cap_thread_ns() - start < ns)
		if (read(*(int *)ctx, buf, sizeof(buf)) < 0)
			break;
}

void pev__cap_probe_kernel_sampling(struct pev_capability *out, const struct pev_machine *m)
{
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_counter *c;
	struct pev_ring *ring;
	struct tally t;
	int fd;

	ev.name = "task-clock:k";
	o.sample_period = SAMPLE_PERIOD_NS;
	o.sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_TID;
	o.exclude_user = true;
	if ((fd = open("/dev/zero", O_RDONLY | O_CLOEXEC)) < 0) {
		pev__cap_unavailable(out, PEV_ENOENT, NULL, "cannot open /dev/zero to read from");
		return;
	}
	if (open_sampler(out, &ev, &o, false, &c, &ring) < 0) {
		close(fd);
		return;
	}
	out->expected = busy_until_sampled(c, ring, read_zeros, &fd) / SAMPLE_PERIOD_NS;
	close(fd);
	drain_and_close(c, ring, sample_in_kernel, (void *)m, &t);
	judge_samples(out, &t, 1, "task-clock:k every 100 us", "at kernel addresses");
	if (t.samples && t.matched * 2 < t.samples)
		pev__cap_set(
		    out->fix, sizeof(out->fix),
		    "kernel samples arrive without kernel addresses (hidden from this user?): "
		    "kernel profiles cannot be symbolized here");
}

/* Sleeps of the off-CPU probe, each 1 ms. */
#define OFFCPU_SLEEPS 20

/* A switch-out sample of this thread whose call chain has the user stack it waits in. */
static bool sample_shows_wait(const struct pev_record *r, void *ctx)
{
	const struct pev_sample *s = &r->sample;

	(void)ctx;
	if (r->sample_id.tid != (uint32_t)gettid())
		return false;
	for (uint64_t i = 0; i + 1 < s->callchain_nr; i++)
		if (s->callchain[i] == PEV_CONTEXT_USER && !pev_callchain_is_context(s->callchain[i + 1]))
			return true;
	return false;
}

/*
 * What `perfev record --off-cpu` needs: context-switches sampled at every
 * switch out with call chains (the kernel takes the sample in schedule(),
 * so kernel sampling must be allowed: a ':u' event opens but never fires),
 * and SWITCH records for the switches back in.
 */
void pev__cap_probe_offcpu(struct pev_capability *out, const struct pev_machine *m)
{
	struct pev_event ev = pev_event_software(PEV_SW_CONTEXT_SWITCHES);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_counter *c;
	struct pev_ring *ring;
	struct tally t;

	(void)m;
	ev.name = "context-switches";
	o.sample_period = 1;
	o.sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_TID | PEV_SAMPLE_TIME | PEV_SAMPLE_CALLCHAIN;
	o.context_switch = true;
	o.sample_id_all = true;
	if (open_sampler(out, &ev, &o, false, &c, &ring) < 0) {
		if (out->code == PEV_EACCES || out->code == PEV_EPERM)
			pev__cap_set(out->fix, sizeof(out->fix),
				     "off-CPU samples are taken in the kernel, which this user may "
				     "not sample (a ':u' event never fires)\nrun as root, give "
				     "CAP_PERFMON, or sysctl kernel.perf_event_paranoid=1");
		return;
	}
	pev_counter_enable(c);
	for (int i = 0; i < OFFCPU_SLEEPS; i++) {
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	pev_counter_disable(c);
	out->expected = OFFCPU_SLEEPS;
	drain_and_close(c, ring, sample_shows_wait, NULL, &t);
	judge_samples(out, &t, OFFCPU_SLEEPS, "context-switches every switch",
		      "with the user stack the thread slept in");
	pev__appendf(out->detail, sizeof(out->detail), "; %" PRIu64 " switches back in",
		     t.switch_ins);
	if (out->verdict == PEV_CAP_WORKS && t.switch_ins < OFFCPU_SLEEPS) {
		out->verdict = PEV_CAP_PARTIAL;
		pev__cap_set(out->fix, sizeof(out->fix),
			     "switch records go missing: off-CPU times will be short");
	}
}

/* A sample of a page fault inside the probe's region. */
struct fault_ctx {
	uintptr_t start, end;
};

static bool fault_in_region(const struct pev_record *r, void *ctx)
{
	const struct fault_ctx *f = ctx;

	return r->sample.addr >= f->start && r->sample.addr < f->end;
}

void pev__cap_probe_ring(struct pev_capability *out, const struct pev_machine *m)
{
	struct pev_event ev = pev_event_software(PEV_SW_PAGE_FAULTS);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_counter *c;
	struct pev_ring *ring;
	struct fault_ctx f;
	struct tally t;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len = page * PEV_CAP_REPEAT;
	char *region;
	int cpus = m->cpus_online > 0 ? m->cpus_online : 1;

	region = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED) {
		pev__cap_unavailable(out, PEV_ENOMEM, NULL, "cannot map %zu bytes to fault in",
		                     len);
		return;
	}
	/* One fault per page: no huge page may back the region. */
	madvise(region, len, MADV_NOHUGEPAGE);
	ev.name = "page-faults";
	o.sample_period = 1;
	o.sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_TID | PEV_SAMPLE_ADDR;
	o.exclude_kernel = true;
	o.exclude_hv = true;
	if (open_sampler(out, &ev, &o, false, &c, &ring) < 0) {
		munmap(region, len);
		return;
	}
	pev_counter_enable(c);
	for (size_t i = 0; i < PEV_CAP_REPEAT; i++)
		((volatile char *)region)[i * page] = 1;
	pev_counter_disable(c);
	f.start = (uintptr_t)region;
	f.end = f.start + len;
	out->expected = PEV_CAP_REPEAT;
	drain_and_close(c, ring, fault_in_region, &f, &t);
	munmap(region, len);
	out->measured = t.samples;
	out->matched = t.matched;
	if (t.samples == 0) {
		out->verdict = PEV_CAP_SILENT;
		pev__cap_set(out->detail, sizeof(out->detail),
		             "a 1+%d page ring maps but delivered no record for %d page faults",
		             RING_PAGES, PEV_CAP_REPEAT);
		pev__cap_silent_fix(out);
		return;
	}
	pev__cap_set(out->detail, sizeof(out->detail),
	             "a 1+%d page ring delivered %" PRIu64
	             " of %d page-fault samples at the faulting "
	             "addresses",
	             RING_PAGES, t.matched, PEV_CAP_REPEAT);
	if (t.matched != PEV_CAP_REPEAT) {
		out->verdict = PEV_CAP_PARTIAL;
		pev__cap_set(out->fix, sizeof(out->fix),
		             "records went missing between the kernel and the reader (%" PRIu64
		             " lost)",
		             t.lost);
		return;
	}
	out->verdict = PEV_CAP_WORKS;
	if (m->mlock_kb == PEV_UNKNOWN)
		pev__appendf(out->detail, sizeof(out->detail),
		             "; the locked-memory budget is unknown (kernel.perf_event_mlock_kb "
		             "unreadable)");
	else if (m->cap_ipc_lock || m->paranoid == -1)
		pev__appendf(out->detail, sizeof(out->detail),
		             "; this process has %s, so the locked-memory budget "
		             "(perf_event_mlock_kb %d KiB per CPU) does not limit it",
		             m->cap_ipc_lock ? "CAP_IPC_LOCK" : "perf_event_paranoid -1",
		             m->mlock_kb);
	else
		pev__appendf(
		    out->detail, sizeof(out->detail),
		    "; budget: perf_event_mlock_kb %d KiB per CPU (%d KiB on %d CPUs) plus "
		    "RLIMIT_MEMLOCK",
		    m->mlock_kb, m->mlock_kb * cpus, cpus);
}
