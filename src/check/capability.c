/* SPDX-License-Identifier: MIT */
/*
 * capability.c - the probes of perfev/capability.h that count: each opens
 * one event on the calling thread (or its CPU), causes a known number of
 * occurrences, reads the count and judges it. The sampling probes are in
 * capability_sampling.c.
 */
#include "perfev/capability.h"

#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "check/capability_internal.h"
#include "core/error_internal.h"
#include "core/util.h"
#include "perfev/tracepoint.h"

/* Busy time of the timed probes. */
#define SPIN_NS 2000000ULL

/* Iterations of the loops the hardware probes count. */
#define LOOP_ITERATIONS 100000ULL

PEV_API const char *pev_capability_verdict_name(enum pev_cap_verdict verdict)
{
	switch (verdict) {
	case PEV_CAP_WORKS:
		return "works";
	case PEV_CAP_PARTIAL:
		return "partial";
	case PEV_CAP_SILENT:
		return "opens_never_fires";
	case PEV_CAP_UNAVAILABLE:
		return "unavailable";
	}
	return NULL;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void pev__cap_set(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	buf[0] = '\0';
	va_start(ap, fmt);
	pev__vappendf(buf, size, fmt, ap);
	va_end(ap);
}

void pev__cap_unavailable(struct pev_capability *out, int code, const char *fix, const char *fmt,
                          ...)
{
	va_list ap;

	out->verdict = PEV_CAP_UNAVAILABLE;
	out->code = code;
	out->detail[0] = '\0';
	va_start(ap, fmt);
	pev__vappendf(out->detail, sizeof(out->detail), fmt, ap);
	va_end(ap);
	pev__cap_set(out->fix, sizeof(out->fix), "%s", fix ? fix : "");
}

void pev__cap_refused(struct pev_capability *out, const struct pev_error *err, int code)
{
	pev__cap_unavailable(out, err->code ? err->code : code, err->hint, "%s", err->message);
}

uint64_t pev__cap_thread_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

uint64_t pev__cap_now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

__attribute__((noinline)) uint64_t pev__cap_spin(uint64_t ns)
{
	uint64_t start = pev__cap_thread_ns(), now = start;
	volatile uint64_t x = 1;

	while (now - start < ns) {
		for (int i = 0; i < 20000; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		now = pev__cap_thread_ns();
	}
	return now - start;
}

/* What the uprobe probe probes: a function that does nothing the compiler may remove. */
__attribute__((noinline, used)) static int probed_call(int i)
{
	__asm__ volatile("" : : "r"(i) : "memory");
	return i + 1;
}

/* What the breakpoint probe watches. */
static volatile uint64_t watched;

int pev__cap_open(struct pev_capability *out, const struct pev_event *ev, struct pev_opts *opts,
                  const struct pev_target *target, bool user_retry, struct pev_counter **c)
{
	struct pev_error err, first;
	int r;

	/* A probe reports what it asked for: libperfev's fallback to user space is done here. */
	opts->open_flags |= PEV_OPEN_EXACT_LEVELS;
	r = pev_counter_open(ev, opts, target, NULL, c, &err);

	if (r == 0)
		return 0;
	if (user_retry && (r == PEV_EACCES || r == PEV_EPERM) && !opts->exclude_kernel) {
		first = err;
		opts->exclude_kernel = true;
		opts->exclude_hv = true;
		if (pev_counter_open(ev, opts, target, NULL, c, &err) == 0) {
			out->verdict = PEV_CAP_PARTIAL;
			out->code = first.code;
			pev__cap_set(out->detail, sizeof(out->detail), "%s", first.message);
			pev__cap_set(out->fix, sizeof(out->fix), "%s", first.hint);
			return 0;
		}
		/* A refusal that is not about privilege is the more basic problem. */
		if (err.code == PEV_EACCES || err.code == PEV_EPERM)
			err = first;
		r = err.code;
	}
	pev__cap_refused(out, &err, r);
	return r < 0 ? r : PEV_EINVAL;
}

void pev__cap_silent_fix(struct pev_capability *out)
{
	const char *fix;

	switch (out->cap) {
	case PEV_CAP_BREAKPOINT:
		fix = "the hypervisor does not deliver debug exceptions (seen in VMs on AMD EPYC "
		      "hosts): breakpoints and watchpoints take debug registers here but never "
		      "fire\nprobe code addresses with uprobes instead; for watchpoints, run on "
		      "bare metal or on a hypervisor that passes debug registers through";
		break;
	case PEV_CAP_HARDWARE:
	case PEV_CAP_CACHE:
		fix = "the PMU accepts the event but its counters do not run (a virtual PMU "
		      "the hypervisor left disabled)\ncount software events (task-clock, "
		      "cpu-clock) instead, or enable the virtual PMU in the hypervisor";
		break;
	case PEV_CAP_UPROBE:
	case PEV_CAP_KPROBE:
		fix = "the probe is registered but its hits are not delivered to this "
		      "process\nuse a tracepoint where one exists for the spot";
		break;
	default:
		fix = "the kernel accepts the event but never delivers it here: its counts "
		      "would all be zero";
		break;
	}
	pev__cap_set(out->fix, sizeof(out->fix), "%s", fix);
}

void pev__cap_judge(struct pev_capability *out, uint64_t expected, uint64_t measured, bool exact,
                    const char *what, const char *event)
{
	bool user_only = out->verdict == PEV_CAP_PARTIAL && out->code != 0;
	char kernel_refusal[PEV_ERROR_MESSAGE_MAX];
	bool right = exact ? measured == expected : measured >= expected;

	out->expected = expected;
	out->measured = measured;
	if (measured == 0) {
		out->verdict = PEV_CAP_SILENT;
		pev__cap_set(out->detail, sizeof(out->detail),
		             "%s opens but counted 0 of %" PRIu64 " %s", event, expected, what);
		pev__cap_silent_fix(out);
		return;
	}
	if (!right) {
		out->verdict = PEV_CAP_PARTIAL;
		pev__cap_set(out->detail, sizeof(out->detail),
		             "%s counted %" PRIu64 " for %" PRIu64 " %s: %s", event, measured,
		             expected, what,
		             exact ? "not one per occurrence" : "fewer than occurred");
		pev__cap_set(out->fix, sizeof(out->fix),
		             "counts of this class are not to be trusted on this machine");
		return;
	}
	if (user_only) {
		pev__cap_set(kernel_refusal, sizeof(kernel_refusal), "%s", out->detail);
		pev__cap_set(out->detail, sizeof(out->detail),
		             "user space only (':u'): %s counted %" PRIu64 " of %" PRIu64
		             " %s; with the kernel: %s",
		             event, measured, expected, what, kernel_refusal);
		return;
	}
	out->verdict = PEV_CAP_WORKS;
	pev__cap_set(out->detail, sizeof(out->detail), "%s counted %" PRIu64 " of %" PRIu64 " %s",
	             event, measured, expected, what);
}

/* Reads c's count into *value and closes c. Returns 0, or a code with out filled. */
static int read_and_close(struct pev_capability *out, struct pev_counter *c, uint64_t *value)
{
	struct pev_count count;
	int r = pev_counter_read(c, &count);

	pev_counter_close(c);
	if (r < 0) {
		pev__cap_unavailable(out, r, NULL, "reading the count failed: %s", pev_strerror(r));
		return r;
	}
	*value = count.value;
	return 0;
}

/* Opens ev disabled on the calling thread. */
static int open_self(struct pev_capability *out, const struct pev_event *ev, struct pev_opts *o,
                     bool user_retry, struct pev_counter **c)
{
	struct pev_target self = pev_target_self();

	o->disabled = true;
	return pev__cap_open(out, ev, o, &self, user_retry, c);
}

/* Judges a timed count: measured ns of a clock event for `expected` ns of time. */
static void judge_time(struct pev_capability *out, uint64_t expected, uint64_t measured,
                       const char *event, const char *of_what)
{
	bool user_only = out->verdict == PEV_CAP_PARTIAL && out->code != 0;
	char refusal[PEV_ERROR_MESSAGE_MAX];

	pev__cap_set(refusal, sizeof(refusal), "%s", user_only ? out->detail : "");
	out->expected = expected;
	out->measured = measured;
	if (measured == 0) {
		out->verdict = PEV_CAP_SILENT;
		pev__cap_set(out->detail, sizeof(out->detail),
		             "%s opens but counted 0 ns for %.2f ms of %s", event,
		             (double)expected / 1e6, of_what);
		pev__cap_silent_fix(out);
		return;
	}
	if (measured * 2 < expected || measured > expected * 2 + 1000000) {
		out->verdict = PEV_CAP_PARTIAL;
		pev__cap_set(out->fix, sizeof(out->fix),
		             "time counts of this class are not to be trusted on this machine");
	} else if (out->verdict != PEV_CAP_PARTIAL) {
		out->verdict = PEV_CAP_WORKS;
	}
	pev__cap_set(out->detail, sizeof(out->detail), "%s%s counted %.2f ms for %.2f ms of %s",
	             user_only ? "user space only (':u'): " : "", event, (double)measured / 1e6,
	             (double)expected / 1e6, of_what);
	if (user_only)
		pev__appendf(out->detail, sizeof(out->detail), "; with the kernel: %s", refusal);
}

static void probe_software(struct pev_capability *out, const struct pev_machine *m)
{
	(void)m;
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_counter *c;
	uint64_t busy, value;

	ev.name = "task-clock";
	if (open_self(out, &ev, &o, true, &c) < 0)
		return;
	pev_counter_enable(c);
	busy = pev__cap_spin(SPIN_NS);
	pev_counter_disable(c);
	if (read_and_close(out, c, &value) == 0)
		judge_time(out, busy, value, "task-clock", "this thread's CPU time");
}

/* Counts a user-space loop with a generic hardware or cache event. */
static void probe_loop(struct pev_capability *out, const char *name, bool loads)
{
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_event ev;
	struct pev_counter *c;
	volatile uint64_t cell = 0;
	uint64_t value, sink = 0;
	char event[64];

	if (pev_event_lookup(name, &ev) < 0) {
		pev__cap_unavailable(out, PEV_ENOTFOUND, NULL, "perfev does not know '%s'", name);
		return;
	}
	/* User space only: the loop runs there, and ':u' needs no privilege. */
	o.exclude_kernel = true;
	o.exclude_hv = true;
	if (open_self(out, &ev, &o, false, &c) < 0)
		return;
	pev_counter_enable(c);
	for (uint64_t i = 0; i < LOOP_ITERATIONS; i++) {
		if (loads)
			sink += cell;
		else
			cell = i;
	}
	pev_counter_disable(c);
	(void)sink;
	if (read_and_close(out, c, &value) == 0) {
		snprintf(event, sizeof(event), "%s:u", name);
		pev__cap_judge(out, LOOP_ITERATIONS, value, false,
		               loads ? "loads of a loop" : "iterations of a loop", event);
	}
}

/*
 * Hardware events: instructions where the PMU has it, else cycles (QEMU's
 * arm64 PMU without -icount, some embedded cores) counting at least one per
 * iteration of the same loop. A core PMU lacking the first says ENOENT or
 * EOPNOTSUPP; any other refusal (privilege, no PMU) is the verdict.
 */
static void probe_hardware(struct pev_capability *out, const struct pev_machine *m)
{
	probe_loop(out, "instructions", false);
	if (!m || !m->has_core_pmu || out->verdict != PEV_CAP_UNAVAILABLE ||
	    (out->code != PEV_ENOENT && out->code != PEV_EOPNOTSUPP))
		return;
	*out = (struct pev_capability){.sz = out->sz, .cap = out->cap};
	probe_loop(out, "cycles", false);
	if (out->verdict != PEV_CAP_UNAVAILABLE)
		pev__appendf(out->detail, sizeof(out->detail),
			     " (the core PMU has no instructions event)");
}

static void probe_cache(struct pev_capability *out, const struct pev_machine *m)
{
	(void)m;
	probe_loop(out, "L1-dcache-loads", true);
}

static void probe_tracepoint(struct pev_capability *out, const struct pev_machine *m)
{
	static const struct {
		const char *system, *name;
		bool exact;
	} candidates[] = {
	    {"syscalls", "sys_enter_getppid", true},
	    /* Every system call: the disabling ioctl is one more. */
	    {"raw_syscalls", "sys_enter", false},
	};
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_error err;
	struct pev_counter *c;
	char tracefs[512], name[128];
	uint64_t id = 0, value;
	size_t i;
	int r = PEV_ENOTFOUND;

	if (pev_tracefs_path(false, tracefs, sizeof(tracefs), &err) < 0) {
		pev__cap_unavailable(
		    out, err.code,
		    m->tracefs_supported
		        ? "mount it (as root): mount -t tracefs nodev /sys/kernel/tracing"
		        : "the kernel lacks tracefs (CONFIG_TRACING)",
		    "tracefs is not mounted, so tracepoints cannot be looked up by name "
		    "(the tracepoint PMU itself is %s)",
		    pev_machine_pmu_name(m, PEV_TYPE_TRACEPOINT) ? "present" : "missing");
		return;
	}
	for (i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
		r = pev_tracepoint_id(tracefs, candidates[i].system, candidates[i].name, &id, &err);
		if (r == 0 || r != PEV_ENOTFOUND)
			break;
	}
	if (r < 0) {
		pev__cap_refused(out, &err, r);
		return;
	}
	struct pev_event ev = pev_event_tracepoint(id);
	snprintf(name, sizeof(name), "%s:%s", candidates[i].system, candidates[i].name);
	ev.name = name;
	if (open_self(out, &ev, &o, false, &c) < 0)
		return;
	pev_counter_enable(c);
	for (int k = 0; k < PEV_CAP_REPEAT; k++)
		syscall(SYS_getppid);
	pev_counter_disable(c);
	if (read_and_close(out, c, &value) < 0)
		return;
	pev__cap_judge(out, PEV_CAP_REPEAT, value, candidates[i].exact, "getppid() calls", name);
	pev__appendf(out->detail, sizeof(out->detail), " (tracefs at %s)", tracefs);
}

static void probe_breakpoint(struct pev_capability *out, const struct pev_machine *m)
{
	struct pev_event ev =
	    pev_event_breakpoint((uint64_t)(uintptr_t)&watched, sizeof(watched), PEV_BP_W);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_counter *c;
	uint64_t value;

	ev.name = "a write watchpoint";
	o.exclude_kernel = true;
	o.exclude_hv = true;
	if (open_self(out, &ev, &o, false, &c) < 0)
		return;
	pev_counter_enable(c);
	for (int i = 0; i < PEV_CAP_REPEAT; i++)
		watched = (uint64_t)i;
	pev_counter_disable(c);
	if (read_and_close(out, c, &value) < 0)
		return;
	pev__cap_judge(out, PEV_CAP_REPEAT, value, true, "writes", "a write watchpoint");
	if (out->verdict == PEV_CAP_SILENT)
		pev__cap_set(out->detail, sizeof(out->detail),
		             "opens, never fires: a write watchpoint counted 0 of %d writes",
		             PEV_CAP_REPEAT);
	else if (out->verdict == PEV_CAP_WORKS && m->debug_registers)
		pev__appendf(out->detail, sizeof(out->detail), "; %d debug registers per thread",
		             m->debug_registers);
}

/*
 * Finds the file that maps addr in this process and addr's offset in it.
 * Returns true when a file mapping holds it.
 */
static bool code_location(const void *addr, char *file, size_t size, uint64_t *offset)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[4096 + 128];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off;
		const char *path = strchr(line, '/');

		if (sscanf(line, "%llx-%llx %*s %llx", &start, &end, &off) != 3 || !path)
			continue;
		if ((uintptr_t)addr >= start && (uintptr_t)addr < end) {
			snprintf(file, size, "%.*s", (int)strcspn(path, "\n"), path);
			*offset = (uintptr_t)addr - start + off;
			found = true;
		}
	}
	fclose(f);
	return found;
}

static void probe_uprobe(struct pev_capability *out, const struct pev_machine *m)
{
	int (*volatile call)(int) = probed_call;
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_event ev;
	struct pev_error err;
	struct pev_counter *c;
	char file[4096];
	uint64_t offset, value;

	if (!m->has_uprobe_pmu) {
		pev__cap_unavailable(out, PEV_ENOENT, "boot a kernel with CONFIG_UPROBE_EVENTS=y",
		                     "this kernel has no uprobe PMU");
		return;
	}
	if (!code_location((const void *)(uintptr_t)probed_call, file, sizeof(file), &offset)) {
		pev__cap_unavailable(out, PEV_ENOENT, NULL,
		                     "cannot find perfev's own code in /proc/self/maps");
		return;
	}
	if (pev_event_uprobe(&ev, file, offset, false, NULL, &err) < 0) {
		pev__cap_refused(out, &err, err.code);
		return;
	}
	ev.name = "a uprobe on perfev's own code";
	o.exclude_kernel = true;
	o.exclude_hv = true;
	if (open_self(out, &ev, &o, false, &c) < 0)
		return;
	pev_counter_enable(c);
	for (int i = 0; i < PEV_CAP_REPEAT; i++)
		call(i);
	pev_counter_disable(c);
	if (read_and_close(out, c, &value) == 0)
		pev__cap_judge(out, PEV_CAP_REPEAT, value, true, "calls",
		               "a uprobe on perfev's own code");
}

static void probe_kprobe(struct pev_capability *out, const struct pev_machine *m)
{
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_event ev;
	struct pev_error err;
	struct pev_counter *c;
	uint64_t value;
	char byte;
	int fd;

	if (!m->has_kprobe_pmu) {
		pev__cap_unavailable(
		    out, PEV_ENOENT,
		    "kprobes need CONFIG_KPROBE_EVENTS; where the kernel has them they can "
		    "also be created through tracefs (kprobe_events) and counted as "
		    "tracepoints",
		    "this kernel has no kprobe PMU (no /sys/bus/event_source/devices/kprobe)");
		return;
	}
	if (pev_event_kprobe(&ev, "vfs_read", 0, false, NULL, &err) < 0) {
		pev__cap_refused(out, &err, err.code);
		return;
	}
	ev.name = "a kprobe on vfs_read";
	if ((fd = open("/dev/zero", O_RDONLY | O_CLOEXEC)) < 0) {
		pev__cap_unavailable(out, PEV_ENOENT, NULL, "cannot open /dev/zero to read from");
		return;
	}
	if (open_self(out, &ev, &o, false, &c) < 0) {
		close(fd);
		return;
	}
	pev_counter_enable(c);
	for (int i = 0; i < PEV_CAP_REPEAT; i++)
		if (read(fd, &byte, 1) != 1)
			break;
	pev_counter_disable(c);
	close(fd);
	if (read_and_close(out, c, &value) == 0)
		pev__cap_judge(out, PEV_CAP_REPEAT, value, false, "read(2) calls",
		               "a kprobe on vfs_read");
}

static void probe_cpu_wide(struct pev_capability *out, const struct pev_machine *m)
{
	(void)m;
	struct pev_event ev = pev_event_software(PEV_SW_CPU_CLOCK);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_counter *c;
	struct pev_target target;
	uint64_t t0, t1, value;
	int cpu = sched_getcpu();
	char event[64];

	target = pev_target_cpu(cpu < 0 ? 0 : cpu);
	snprintf(event, sizeof(event), "cpu-clock on CPU %d", cpu < 0 ? 0 : cpu);
	ev.name = "cpu-clock";
	o.disabled = true;
	if (pev__cap_open(out, &ev, &o, &target, false, &c) < 0)
		return;
	t0 = pev__cap_now_ns();
	pev_counter_enable(c);
	pev__cap_spin(SPIN_NS);
	pev_counter_disable(c);
	t1 = pev__cap_now_ns();
	if (read_and_close(out, c, &value) == 0)
		judge_time(out, t1 - t0, value, event, "wall-clock time");
}

/* Each class: its stable name and its probe, indexed by enum pev_cap. */
static const struct {
	const char *name;
	void (*probe)(struct pev_capability *out, const struct pev_machine *m);
} classes[PEV_CAP_COUNT] = {
    [PEV_CAP_SOFTWARE] = {"software", probe_software},
    [PEV_CAP_HARDWARE] = {"hardware", probe_hardware},
    [PEV_CAP_CACHE] = {"cache", probe_cache},
    [PEV_CAP_TRACEPOINT] = {"tracepoint", probe_tracepoint},
    [PEV_CAP_BREAKPOINT] = {"breakpoint", probe_breakpoint},
    [PEV_CAP_UPROBE] = {"uprobe", probe_uprobe},
    [PEV_CAP_KPROBE] = {"kprobe", probe_kprobe},
    [PEV_CAP_CPU_WIDE] = {"cpu_wide", probe_cpu_wide},
    [PEV_CAP_SAMPLING] = {"sampling", pev__cap_probe_sampling},
    [PEV_CAP_CALLCHAIN] = {"callchains", pev__cap_probe_callchain},
    [PEV_CAP_KERNEL_SAMPLING] = {"kernel_sampling", pev__cap_probe_kernel_sampling},
    [PEV_CAP_RING] = {"ring_buffer", pev__cap_probe_ring},
    [PEV_CAP_OFFCPU] = {"off_cpu", pev__cap_probe_offcpu},
};

PEV_API const char *pev_capability_name(enum pev_cap cap)
{
	return (unsigned)cap < PEV_CAP_COUNT ? classes[cap].name : NULL;
}

PEV_API int pev_capability_probe(enum pev_cap cap, const struct pev_machine *m,
                                 struct pev_capability *out)
{
	struct pev_machine *own = NULL;
	uint64_t start;
	size_t sz;

	if (!out)
		return pev__bad_arg(NULL, "pev_capability_probe", "out", "NULL");
	if (out->sz < sizeof(struct pev_capability))
		return pev__bad_arg(NULL, "pev_capability_probe", "out", "out->sz is %zu: "
				    "initialize it with PEV_CAPABILITY_INIT", out->sz);
	if ((unsigned)cap >= PEV_CAP_COUNT)
		return pev__bad_arg(NULL, "pev_capability_probe", "cap", "%d is not a pev_cap",
				    (int)cap);
	if (!m) {
		if (!(own = calloc(1, sizeof(*own))))
			return PEV_ENOMEM;
		pev_machine_read(own, NULL);
		m = own;
	}
	sz = out->sz;
	memset(out, 0, sz);
	out->sz = sz;
	out->cap = cap;
	start = pev__cap_now_ns();
	classes[cap].probe(out, m);
	out->elapsed_ns = pev__cap_now_ns() - start;
	free(own);
	return 0;
}
