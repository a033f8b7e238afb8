/* SPDX-License-Identifier: MIT */
/*
 * selfmon.c - reading counters from user space through their control page
 * (x86's rdpmc, arm64's mrs of PMEVCNTR<n>_EL0 / PMCCNTR_EL0), and the
 * start/stop measurement of a code region built on it.
 *
 * The control page protocol (the kernel's uapi perf_event.h): the kernel
 * bumps `lock` before and after it updates the page, so a reader takes lock,
 * reads the fields, executes rdpmc, and starts over if lock changed. The
 * count is offset + the counter's value sign-extended from pmc_width bits.
 * With cap_user_time the page also converts a TSC reading into the
 * nanoseconds since its last update:
 *
 *   delta = time_offset + (cyc >> shift) * mult + (((cyc & (2^shift - 1)) * mult) >> shift)
 *
 * where, with cap_user_time_short, cyc = time_cycles + ((cyc - time_cycles) & time_mask).
 */
#include "perfev/selfmon.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/error_internal.h"
#include "core/log_internal.h"
#include "perfev/parse.h"
#include "count/selfmon_internal.h"
#include "core/sys.h"
#include "core/util.h"

/* ---- the instructions and their seam ------------------------------------ */

#if defined(__x86_64__) || defined(__aarch64__)
#define HAVE_RDPMC 1
#else
#define HAVE_RDPMC 0
#endif

/* Set by tests; NULL (the default) runs the real instructions. */
static const struct pev__pmc_ops *pmc_test;

const struct pev__pmc_ops *pev__pmc_set(const struct pev__pmc_ops *ops)
{
	const struct pev__pmc_ops *old = pmc_test;

	pmc_test = ops;
	return old;
}

#if defined(__aarch64__)
/*
 * arm64's counters by number: PMEVCNTR<n>_EL0 for event counters 0..30,
 * PMCCNTR_EL0 for 31 (the page's index 32: the cycle counter). mrs names
 * its register in the instruction, hence one case per counter.
 */
#define PMEV_CASE(n)                                                                               \
	case n:                                                                                    \
		__asm__ __volatile__("mrs %0, pmevcntr" #n "_el0" : "=r"(v) : : "memory");         \
		break;

static inline uint64_t arm64_read_counter(uint32_t counter)
{
	uint64_t v = 0;

	switch (counter) {
	PMEV_CASE(0) PMEV_CASE(1) PMEV_CASE(2) PMEV_CASE(3) PMEV_CASE(4) PMEV_CASE(5)
	PMEV_CASE(6) PMEV_CASE(7) PMEV_CASE(8) PMEV_CASE(9) PMEV_CASE(10) PMEV_CASE(11)
	PMEV_CASE(12) PMEV_CASE(13) PMEV_CASE(14) PMEV_CASE(15) PMEV_CASE(16) PMEV_CASE(17)
	PMEV_CASE(18) PMEV_CASE(19) PMEV_CASE(20) PMEV_CASE(21) PMEV_CASE(22) PMEV_CASE(23)
	PMEV_CASE(24) PMEV_CASE(25) PMEV_CASE(26) PMEV_CASE(27) PMEV_CASE(28) PMEV_CASE(29)
	PMEV_CASE(30)
	case 31:
		__asm__ __volatile__("mrs %0, pmccntr_el0" : "=r"(v) : : "memory");
		break;
	default:
		break;
	}
	return v;
}
#undef PMEV_CASE
#endif

static inline uint64_t do_rdpmc(const struct pev__pmc_ops *ops, uint32_t counter)
{
	if (ops)
		return ops->rdpmc(counter);
#if defined(__x86_64__)
	uint32_t lo, hi;
	/* The memory clobber keeps the page's loads on their side of the instruction. */
	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter) : "memory");
	return (uint64_t)hi << 32 | lo;
#elif defined(__aarch64__)
	return arm64_read_counter(counter);
#else
	(void)counter;
	return 0;
#endif
}

/* The clock cap_user_time converts: the TSC on x86, the virtual counter on arm64. */
static inline uint64_t do_rdtsc(const struct pev__pmc_ops *ops)
{
	if (ops)
		return ops->rdtsc ? ops->rdtsc() : 0;
#if defined(__x86_64__)
	uint32_t lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return (uint64_t)hi << 32 | lo;
#elif defined(__aarch64__)
	uint64_t v;
	/* isb: not read ahead of the instructions before it. */
	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
#else
	return 0;
#endif
}

/* ---- pev_mmap_read ------------------------------------------------------ */

/* Attempts before giving up on a page whose lock keeps changing (then read(2) answers). */
#define SEQ_TRIES 100

/* v's low `width` bits (1..64) as a two's complement number. */
static inline uint64_t sign_extend(uint64_t v, unsigned width)
{
	uint64_t sign = UINT64_C(1) << (width - 1);
	uint64_t mask = width == 64 ? ~UINT64_C(0) : (sign << 1) - 1;

	return ((v & mask) ^ sign) - sign;
}

/* cyc x mult / 2^shift without losing the high bits (shift < 64). Wraps like the kernel's. */
static inline uint64_t cyc_to_ns(uint64_t cyc, uint32_t mult, unsigned shift)
{
	uint64_t quot = cyc >> shift, rem = cyc & ((UINT64_C(1) << shift) - 1);

	return quot * mult + (uint64_t)(((unsigned __int128)rem * mult) >> shift);
}

PEV_API int pev_mmap_read(const struct pev_mmap_page *pc, struct pev_count *out)
{
	const volatile struct pev_mmap_page *p = pc;
	const struct pev__pmc_ops *ops = pmc_test;

	if (!pc || !out)
		return pev__bad_arg(NULL, "pev_mmap_read", pc ? "out" : "pc", "NULL");
	if (ops ? !ops->rdpmc : !HAVE_RDPMC)
		return PEV_EAGAIN;
	for (int tries = 0; tries < SEQ_TRIES; tries++) {
		uint32_t seq = __atomic_load_n(&pc->lock, __ATOMIC_ACQUIRE);
		uint64_t caps, enabled, running, pmc, cyc = 0, time_offset = 0, time_cycles = 0;
		uint64_t time_mask = 0;
		uint32_t index, time_mult = 0;
		uint16_t width, time_shift = 0;
		int64_t offset;

		if (seq & 1)
			continue; /* an update is under way (on another CPU) */
		caps = p->capabilities;
		index = p->index;
		/* Not readable now: nothing lost by deciding on a torn read, read(2) is exact. */
		if (!(caps & PEV_CAP_USER_RDPMC) || index == 0)
			return PEV_EAGAIN;
		offset = p->offset;
		width = p->pmc_width;
		enabled = p->time_enabled;
		running = p->time_running;
		if (caps & PEV_CAP_USER_TIME) {
			cyc = do_rdtsc(ops);
			time_offset = p->time_offset;
			time_mult = p->time_mult;
			time_shift = p->time_shift;
			if (caps & PEV_CAP_USER_TIME_SHORT) {
				time_cycles = p->time_cycles;
				time_mask = p->time_mask;
			}
		}
		pmc = do_rdpmc(ops, index - 1);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&pc->lock, __ATOMIC_RELAXED) != seq)
			continue;

		/* A consistent snapshot; reject values no kernel writes. */
		if (width == 0 || width > 64 || ((caps & PEV_CAP_USER_TIME) && time_shift >= 64))
			return PEV_EAGAIN;
		memset(out, 0, sizeof(*out));
		out->value = (uint64_t)offset + sign_extend(pmc, width);
		if (caps & PEV_CAP_USER_TIME) {
			/*
			 * The kernel's example adds the delta only when enabled != running
			 * (the ratio is 1 otherwise); adding it always keeps both times
			 * current, so they agree with what read(2) would say.
			 */
			if (caps & PEV_CAP_USER_TIME_SHORT)
				cyc = time_cycles + ((cyc - time_cycles) & time_mask);
			uint64_t delta = time_offset + cyc_to_ns(cyc, time_mult, time_shift);
			enabled += delta;
			running += delta; /* index != 0: the event is on the PMU */
		}
		out->time_enabled = enabled;
		out->time_running = running;
		pev_count_scale(out);
		if (!running) {
			/* index != 0: it is on the PMU now, whatever a page without times says. */
			out->counted = true;
			out->scaled = out->value;
			out->running = 1.0;
		}
		return 0;
	}
	return PEV_EAGAIN;
}

/* ---- pev_selfmon -------------------------------------------------------- */

/* What the group read returns: nr, time_enabled, time_running, then {value, id} per event. */
#define SELFMON_FORMAT                                                                             \
	(PEV_FORMAT_GROUP | PEV_FORMAT_ID | PEV_FORMAT_TOTAL_TIME_ENABLED |                        \
	 PEV_FORMAT_TOTAL_TIME_RUNNING)

struct selfmon_event {
	struct pev_counter *c;
	const struct pev_mmap_page *page; /* NULL when the mapping was refused */
	uint64_t id;                      /* the kernel's id, to find the event in a group read */
	struct pev_count snap[2];         /* at start, at stop */
};

enum selfmon_state { IDLE, STARTED, STOPPED };

struct pev_selfmon {
	int n;
	enum selfmon_state state;
	int leader_fd;
	size_t page_size;
	size_t words;                  /* of a group read */
	uint64_t *buf;                 /* room for a group read, allocated once */
	struct pev_read_value *values; /* its decoded values */
	struct selfmon_event ev[];
};

PEV_API void pev_selfmon_close(struct pev_selfmon *s)
{
	if (!s)
		return;
	/* Members first: closing the leader first would leave them ungrouped. */
	for (int i = s->n - 1; i >= 0; i--) {
		if (s->ev[i].page)
			pev__sys_munmap((void *)s->ev[i].page, s->page_size);
		pev_counter_close(s->ev[i].c);
	}
	free(s->buf);
	free(s->values);
	free(s);
}

/* Fills err for a failed ioctl on c. Returns code. */
static int ioctl_failed(struct pev_error *err, int code, const struct pev_counter *c,
			const char *what)
{
	pev__error_start(err, code, -code, "ioctl", pev_counter_name(c), false);
	pev__error_msg(err, "cannot %s '%s': %s", what, pev_counter_name(c), pev_strerror(code));
	return code;
}

/*
 * arm64 lets user space read a counter only when its event asks for it:
 * config1 bit 1 (the PMU's "rdpmc" format field, Linux 5.17), granted when
 * the sysctl kernel.perf_user_access is 1. Generic hardware, cache and raw
 * events go to the CPU's PMU; an event of a PMU by its own type asks when
 * that PMU's format says so. True for an event that should ask.
 */
static bool wants_user_access(const struct pev_event *ev)
{
#if defined(__aarch64__)
	char dir[] = "/sys/bus/event_source/devices", path[512], text[64];
	struct dirent *e;
	bool yes = false;
	DIR *d;

	if (ev->type == PEV_TYPE_HARDWARE || ev->type == PEV_TYPE_HW_CACHE ||
	    ev->type == PEV_TYPE_RAW)
		return true;
	if (ev->type < PEV_TYPE_FIXED_MAX || !(d = opendir(dir)))
		return false;
	while (!yes && (e = readdir(d))) {
		long long type;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/type", dir, e->d_name);
		if (pev__read_long(path, &type) < 0 || type != (long long)ev->type)
			continue;
		snprintf(path, sizeof(path), "%s/%s/format/rdpmc", dir, e->d_name);
		yes = pev__read_text(path, text, sizeof(text)) > 0 && strcmp(text, "config1:1") == 0;
		break;
	}
	closedir(d);
	return yes;
#else
	(void)ev;
	return false;
#endif
}

/* Opens spec as event s->n (a member of event 0's group), maps its page, and counts it in s->n. */
static int open_event(struct pev_selfmon *s, const struct pev_event_spec *spec,
		      struct pev_error *err)
{
	struct selfmon_event *e = &s->ev[s->n];
	struct pev_target self = pev_target_self();
	struct pev_opts o = spec->opts;
	int r, fd, errnum;
	void *page;

	o.sz = sizeof(o);
	/* No privilege level named: pev_counter_open counts what the caller may (API.md). */
	/* The leader starts disabled, and the whole group is enabled once complete (see below). */
	o.disabled = s->n == 0;
	o.enable_on_exec = false;
	o.inherit = PEV_INHERIT_NONE;
	o.inherit_stat = false;
	o.read_format = SELFMON_FORMAT;
	struct pev_event ev = spec->ev;
	if (wants_user_access(&ev))
		ev.config1 |= UINT64_C(1) << 1;
	r = pev_counter_open(&ev, &o, &self, s->n ? s->ev[0].c : NULL, &e->c, err);
	if (r < 0)
		return r;
	s->n++;
	fd = pev_counter_fd(e->c, 0);
	if ((r = pev_counter_id(e->c, 0, &e->id)) < 0)
		return ioctl_failed(err, r, e->c, "read the id of");
	/* The control page alone: no data area, read-only. */
	page = pev__sys_mmap(s->page_size, PROT_READ, MAP_SHARED, fd, 0, &errnum);
	if (page)
		e->page = page;
	else
		pev__log(PEV_LOG_DEBUG, "selfmon: cannot map the control page of %s (errno %d): "
					"it is read with read(2)",
			 pev_counter_name(e->c), errnum);
	return 0;
}

PEV_API int pev_selfmon_open(const char *events, struct pev_selfmon **out, struct pev_error *err)
{
	static const char func[] = "pev_selfmon_open";
	struct pev_event_list *list = NULL;
	struct pev_selfmon *s;
	int n, r;

	pev__error_clear(err);
	if (!out)
		return pev__bad_arg(err, func, "out", "must not be NULL");
	*out = NULL;
	if (!events)
		return pev__bad_arg(err, func, "events", "must not be NULL");
	if ((r = pev_event_parse(events, NULL, &list, err)) < 0)
		return r;
	n = pev_event_list_count(list);
	if (n < 1) {
		pev_event_list_free(list);
		return pev__bad_arg(err, func, "events", "'%s' names no event", events);
	}
	s = calloc(1, sizeof(*s) + (size_t)n * sizeof(s->ev[0]));
	if (s) {
		s->words = 3 + 2 * (size_t)n;
		s->buf = calloc(s->words, sizeof(uint64_t));
		s->values = calloc((size_t)n, sizeof(s->values[0]));
		s->page_size = (size_t)sysconf(_SC_PAGESIZE);
	}
	if (!s || !s->buf || !s->values) {
		pev_event_list_free(list);
		pev_selfmon_close(s);
		pev__error_start(err, PEV_ENOMEM, ENOMEM, NULL, NULL, true);
		pev__error_msg(err, "out of memory for a set of %d events", n);
		return PEV_ENOMEM;
	}
	for (int i = 0; i < n && r == 0; i++)
		r = open_event(s, pev_event_list_at(list, i), err);
	pev_event_list_free(list);
	/*
	 * Enable the group in one go, as perf does at exec: a member that joins
	 * a running group whose leader sits on another software PMU is not
	 * scheduled until the thread's next context switch (task-clock leading
	 * page-faults counts no page fault; seen on Linux 6.18).
	 */
	if (r == 0 && (r = pev_counter_enable_group(s->ev[0].c)) < 0)
		ioctl_failed(err, r, s->ev[0].c, "enable the group led by");
	if (r < 0) {
		pev_selfmon_close(s);
		return r;
	}
	s->leader_fd = pev_counter_fd(s->ev[0].c, 0);
	*out = s;
	return 0;
}

PEV_API int pev_selfmon_count(const struct pev_selfmon *s)
{
	return s ? s->n : pev__bad_arg(NULL, "pev_selfmon_count", "s", "NULL");
}

PEV_API const char *pev_selfmon_name(const struct pev_selfmon *s, int i)
{
	return s && i >= 0 && i < s->n ? pev_counter_name(s->ev[i].c) : NULL;
}

/*
 * Reads e through its page. False when it must be read with read(2): no
 * page, no rdpmc now, or no cap_user_time; without that the page's times
 * are those of its last update, and a snapshot taken this way would not
 * agree with one taken by read(2).
 */
static bool read_fast(const struct selfmon_event *e, struct pev_count *out)
{
	const volatile struct pev_mmap_page *p = e->page;

	return p && (p->capabilities & PEV_CAP_USER_TIME) && pev_mmap_read(e->page, out) == 0;
}

PEV_API bool pev_selfmon_uses_rdpmc(const struct pev_selfmon *s, int i)
{
	struct pev_count c;

	return s && i >= 0 && i < s->n && read_fast(&s->ev[i], &c);
}

/* The value of the text file at path as a number, or -1 when unreadable. */
static long long file_number(const char *path)
{
	long long v;

	return pev__read_long(path, &v) == 0 ? v : -1;
}

PEV_API int pev_selfmon_rdpmc_error(const struct pev_selfmon *s, int i, struct pev_error *err)
{
	static const char func[] = "pev_selfmon_rdpmc_error";
	const struct selfmon_event *e;
	const volatile struct pev_mmap_page *p;
	const struct pev_attr *a;
	const char *name;
	struct pev_count c;

	pev__error_clear(err);
	if (!s)
		return pev__bad_arg(err, func, "s", "must not be NULL");
	if (i < 0 || i >= s->n)
		return pev__bad_arg(err, func, "i", "%d is not an event of the set (0 to %d)", i,
				    s->n - 1);
	e = &s->ev[i];
	if (read_fast(e, &c))
		return 0;
	p = e->page;
	a = pev_counter_attr(e->c);
	name = pev_counter_name(e->c);
	pev__error_start(err, PEV_EUNSUPPORTED, 0, NULL, name, true);
	if (!HAVE_RDPMC) {
		pev__error_msg(err, "perfev reads counters from user space on x86-64 and arm64 only");
		return PEV_EUNSUPPORTED;
	}
	if (a && (a->type == PEV_TYPE_SOFTWARE || a->type == PEV_TYPE_TRACEPOINT ||
		  a->type == PEV_TYPE_BREAKPOINT)) {
		pev__error_msg(err, "'%s' is counted by the kernel, not by a hardware counter that "
				    "user space could read", name);
		return PEV_EUNSUPPORTED;
	}
	if (!p) {
		pev__error_msg(err, "the control page of '%s' could not be mapped", name);
		return PEV_EUNSUPPORTED;
	}
#if defined(__aarch64__)
	if (file_number("/proc/sys/kernel/perf_user_access") == 0) {
		pev__error_start(err, PEV_EACCES, 0, NULL, name, true);
		pev__error_msg(err, "user-space counter reads are off: the sysctl "
				    "kernel.perf_user_access is 0");
		pev__error_hint(err, "as root: sysctl -w kernel.perf_user_access=1");
		return PEV_EACCES;
	}
#else
	if (file_number("/sys/bus/event_source/devices/cpu/rdpmc") == 0) {
		pev__error_start(err, PEV_EACCES, 0, NULL, name, true);
		pev__error_msg(err, "user-space counter reads (rdpmc) are off: "
				    "/sys/bus/event_source/devices/cpu/rdpmc is 0");
		pev__error_hint(err, "as root: echo 1 > /sys/bus/event_source/devices/cpu/rdpmc");
		return PEV_EACCES;
	}
#endif
	if (!(p->capabilities & PEV_CAP_USER_RDPMC)) {
		pev__error_start(err, PEV_EACCES, 0, NULL, name, true);
		pev__error_msg(err, "the kernel does not let user space read the counter of '%s' "
				    "(its page lacks cap_user_rdpmc)", name);
		return PEV_EACCES;
	}
	if (!(p->capabilities & PEV_CAP_USER_TIME)) {
		pev__error_msg(err, "the control page of '%s' cannot give the current times (no "
				    "cap_user_time)", name);
		return PEV_EUNSUPPORTED;
	}
	pev__error_start(err, PEV_EAGAIN, 0, NULL, name, true);
	pev__error_msg(err, "'%s' is not on a hardware counter now (the kernel multiplexes it)",
		       name);
	return PEV_EAGAIN;
}

/* Snapshot `which` of every event from one read(2) of the group. */
static int read_group(struct pev_selfmon *s, int which)
{
	uint64_t te, tr;
	ssize_t got = pev__sys_read(s->leader_fd, s->buf, s->words * sizeof(uint64_t));
	int nr;

	if (got < 0)
		return pev_error_from_errno((int)-got);
	nr = pev_read_decode(s->buf, (size_t)got, SELFMON_FORMAT, &te, &tr, s->values,
			     (size_t)s->n);
	if (nr < 0)
		return nr;
	if (nr != s->n)
		return PEV_EFORMAT;
	for (int i = 0; i < s->n; i++) {
		struct selfmon_event *e = &s->ev[i];
		struct pev_count *c = &e->snap[which];
		int k = i; /* the kernel lists the leader, then members in the order they joined */

		if (s->values[k].id != e->id)
			for (k = 0; k < nr && s->values[k].id != e->id; k++)
				;
		if (k == nr)
			return PEV_EFORMAT;
		memset(c, 0, sizeof(*c));
		c->value = s->values[k].value;
		c->time_enabled = te;
		c->time_running = tr;
		pev_count_scale(c);
	}
	return 0;
}

/* Snapshot `which` of every event: through the pages when all allow it, else one group read. */
static int snapshot(struct pev_selfmon *s, int which)
{
	int i;

	for (i = 0; i < s->n && read_fast(&s->ev[i], &s->ev[i].snap[which]); i++)
		;
	return i == s->n ? 0 : read_group(s, which);
}

PEV_API int pev_selfmon_start(struct pev_selfmon *s)
{
	int r;

	if (!s)
		return pev__bad_arg(NULL, "pev_selfmon_start", "s", "NULL");
	r = snapshot(s, 0);
	s->state = r < 0 ? IDLE : STARTED;
	return r;
}

PEV_API int pev_selfmon_stop(struct pev_selfmon *s)
{
	int r;

	if (!s)
		return pev__bad_arg(NULL, "pev_selfmon_stop", "s", "NULL");
	if (s->state == IDLE)
		return pev__bad_arg(NULL, "pev_selfmon_stop", "s", "not started: call "
				    "pev_selfmon_start() first");
	r = snapshot(s, 1);
	if (r < 0)
		return r;
	s->state = STOPPED;
	return 0;
}

/* b - a, or 0 when b is behind (two clocks read a few ns apart can disagree). */
static uint64_t since(uint64_t a, uint64_t b)
{
	return b > a ? b - a : 0;
}

PEV_API int pev_selfmon_read(const struct pev_selfmon *s, struct pev_count *out, int max)
{
	int n;

	static const char fn[] = "pev_selfmon_read";

	if (!s || !out)
		return pev__bad_arg(NULL, fn, s ? "out" : "s", "NULL");
	if (max < 1)
		return pev__bad_arg(NULL, fn, "max", "%d: out needs room for one count at least", max);
	if (s->state != STOPPED)
		return pev__bad_arg(NULL, fn, "s", "%s: read between pev_selfmon_stop() and the next "
				    "start", s->state == IDLE ? "never started" : "still counting");
	n = s->n < max ? s->n : max;
	for (int i = 0; i < n; i++) {
		const struct pev_count *a = &s->ev[i].snap[0], *b = &s->ev[i].snap[1];

		memset(&out[i], 0, sizeof(out[i]));
		out[i].value = since(a->value, b->value);
		out[i].time_enabled = since(a->time_enabled, b->time_enabled);
		out[i].time_running = since(a->time_running, b->time_running);
		out[i].id = s->ev[i].id;
		pev_count_scale(&out[i]);
	}
	return n;
}
