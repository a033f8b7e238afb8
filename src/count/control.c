/* SPDX-License-Identifier: MIT */
/*
 * control.c - the ioctls of an open counter, and prctl for all of a process's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "perfev/machine.h"

#include "count/counter_internal.h"
#include "core/error_internal.h"
#include "core/sys.h"

/* An ioctl request and the name perfev gives it in messages. */
struct request {
	unsigned long code;
	const char *name;
};

static const struct request ENABLE = {PEV_IOC_ENABLE, "ioctl(ENABLE)"};
static const struct request DISABLE = {PEV_IOC_DISABLE, "ioctl(DISABLE)"};
static const struct request RESET = {PEV_IOC_RESET, "ioctl(RESET)"};
static const struct request REFRESH = {PEV_IOC_REFRESH, "ioctl(REFRESH)"};
static const struct request PERIOD = {PEV_IOC_PERIOD, "ioctl(PERIOD)"};
static const struct request SET_FILTER = {PEV_IOC_SET_FILTER, "ioctl(SET_FILTER)"};
static const struct request SET_BPF = {PEV_IOC_SET_BPF, "ioctl(SET_BPF)"};
static const struct request QUERY_BPF = {PEV_IOC_QUERY_BPF, "ioctl(QUERY_BPF)"};
static const struct request PAUSE_OUTPUT = {PEV_IOC_PAUSE_OUTPUT, "ioctl(PAUSE_OUTPUT)"};
static const struct request MODIFY = {PEV_IOC_MODIFY_ATTRIBUTES, "ioctl(MODIFY_ATTRIBUTES)"};

/* What makes the kernel refuse req with EINVAL on c, as far as perfev knows; or NULL. */
static const char *einval_reason(const struct pev_counter *c, unsigned long req)
{
	bool sampling = c->attr.sample_period != 0;

	if (req == PEV_IOC_PERIOD)
		return !sampling ? "the counter does not sample (no period or frequency at open): "
				   "only a sampling event takes a new period"
		       : (c->attr.flags & PEV_ATTR_FREQ)
			   ? "a frequency event takes a new frequency: 0, or one above "
			     "kernel.perf_event_max_sample_rate, is refused"
			   : "the new period is 0, or has bit 63 set";
	if (req == PEV_IOC_REFRESH)
		return !sampling ? "the counter does not sample: refresh counts overflows"
		       : (c->attr.flags & PEV_ATTR_INHERIT)
			   ? "the counter is inherited by child tasks: the kernel refreshes "
			     "only an event open with opts.inherit = PEV_INHERIT_NONE"
			   : NULL;
	if (req == PEV_IOC_SET_FILTER)
		return "a filter applies to tracepoint, kprobe and uprobe events, in tracefs's "
		       "filter syntax (e.g. \"prev_pid == 1\"), with fields of the event's format";
	if (req == PEV_IOC_SET_BPF)
		return "a BPF program attaches to tracepoint, kprobe and uprobe events, and must be "
		       "of the matching program type";
	if (req == PEV_IOC_MODIFY_ATTRIBUTES)
		return "only a hardware breakpoint's address, length and type can change, to a "
		       "breakpoint of the same kind; every other field must stay as opened";
	return NULL;
}

/* Fills this thread's last error for req failing on c with errno errnum; returns the code. */
static int call_failed(const struct pev_counter *c, const struct request *req, int errnum)
{
	const char *why = errnum == EINVAL ? einval_reason(c, req->code) : NULL;

	pev_diagnose_call(req->name, c->name, errnum, NULL);
	if (why)
		pev__error_hint(NULL, "%s", why);
	if (req->code == PEV_IOC_PAUSE_OUTPUT && errnum == EINVAL)
		pev__error_hint(NULL, "pausing needs a ring mapped on the counter (pev_ring_open)");
	return pev_last_error()->code;
}

/* Runs one ioctl on every descriptor of c. Returns 0 or the first failure's code. */
static int ioctl_each(struct pev_counter *c, const struct request *req, unsigned long arg,
		      const char *func)
{
	if (!c)
		return pev__bad_arg(NULL, func, "c", "NULL");
	for (int i = 0; i < c->nr; i++) {
		int r = pev__sys_ioctl(c->slots[i].fd, req->code, arg);
		if (r < 0)
			return call_failed(c, req, -r);
	}
	return 0;
}

PEV_API int pev_counter_enable(struct pev_counter *c)
{
	return ioctl_each(c, &ENABLE, 0, "pev_counter_enable");
}

PEV_API int pev_counter_disable(struct pev_counter *c)
{
	return ioctl_each(c, &DISABLE, 0, "pev_counter_disable");
}

PEV_API int pev_counter_reset(struct pev_counter *c)
{
	return ioctl_each(c, &RESET, 0, "pev_counter_reset");
}

/* The group forms act through the leader's descriptors with PEV_IOC_FLAG_GROUP. */
static int group_ioctl(struct pev_counter *c, const struct request *req, const char *func)
{
	if (!c)
		return pev__bad_arg(NULL, func, "c", "NULL");
	return ioctl_each(c->leader ? c->leader : c, req, PEV_IOC_FLAG_GROUP, func);
}

PEV_API int pev_counter_enable_group(struct pev_counter *c)
{
	static const char fn[] = "pev_counter_enable_group";
	const struct pev_counter *l;

	if (!c)
		return pev__bad_arg(NULL, fn, "c", "NULL");
	/*
	 * The members first, then the leader with the group flag. The kernel's
	 * group enable goes leader first, and a member it enables after its
	 * leader is running may wait for the next context switch to start
	 * (measured on Linux 6.18 with a task-clock or cpu-clock leader: a whole
	 * time slice of page faults missed). Members enabled while their leader
	 * is off start together with it.
	 */
	l = c->leader ? c->leader : c;
	for (int i = 0; i < l->nr_members; i++) {
		int r = ioctl_each(l->members[i], &ENABLE, 0, fn);
		if (r < 0)
			return r;
	}
	return group_ioctl(c, &ENABLE, fn);
}

PEV_API int pev_counter_disable_group(struct pev_counter *c)
{
	return group_ioctl(c, &DISABLE, "pev_counter_disable_group");
}

PEV_API int pev_counter_reset_group(struct pev_counter *c)
{
	return group_ioctl(c, &RESET, "pev_counter_reset_group");
}

PEV_API int pev_counter_refresh(struct pev_counter *c, int n)
{
	static const char fn[] = "pev_counter_refresh";

	if (n <= 0)
		return pev__bad_arg(NULL, fn, "n", "%d: refresh by 1 overflow or more", n);
	return ioctl_each(c, &REFRESH, (unsigned long)n, fn);
}

PEV_API int pev_counter_set_period(struct pev_counter *c, uint64_t period)
{
	/* The kernel reads the new period through the pointer. */
	return ioctl_each(c, &PERIOD, (unsigned long)(uintptr_t)&period, "pev_counter_set_period");
}

PEV_API int pev_counter_set_filter(struct pev_counter *c, const char *filter)
{
	static const char fn[] = "pev_counter_set_filter";

	if (!filter)
		return pev__bad_arg(NULL, fn, "filter", "NULL");
	return ioctl_each(c, &SET_FILTER, (unsigned long)(uintptr_t)filter, fn);
}

PEV_API int pev_counter_set_bpf(struct pev_counter *c, int prog_fd)
{
	static const char fn[] = "pev_counter_set_bpf";

	if (prog_fd < 0)
		return pev__bad_arg(NULL, fn, "prog_fd", "%d: give a BPF program's descriptor",
				    prog_fd);
	return ioctl_each(c, &SET_BPF, (unsigned long)prog_fd, fn);
}

PEV_API int pev_counter_query_bpf(const struct pev_counter *c, uint32_t *ids, uint32_t max,
				  uint32_t *count)
{
	static const char fn[] = "pev_counter_query_bpf";
	struct pev_query_bpf *q;
	int r;

	if (!c || c->nr < 1)
		return pev__bad_arg(NULL, fn, "c", c ? "has no descriptor" : "NULL");
	if (!count)
		return pev__bad_arg(NULL, fn, "count", "NULL");
	if (max && !ids)
		return pev__bad_arg(NULL, fn, "ids", "NULL with max %u", max);
	if (max > 65536)
		return pev__bad_arg(NULL, fn, "max", "%u: 65536 programs at most", max);
	q = calloc(1, sizeof(*q) + sizeof(uint32_t) * max);
	if (!q) {
		pev__error_start(NULL, PEV_ENOMEM, ENOMEM, NULL, c->name, true);
		pev__error_msg(NULL, "%s: no memory for %u program ids", fn, max);
		return PEV_ENOMEM;
	}
	q->ids_len = max;
	r = pev__sys_ioctl(c->slots[0].fd, PEV_IOC_QUERY_BPF, (unsigned long)(uintptr_t)q);
	if (r == 0 || r == -ENOSPC) {
		/* ENOSPC: more programs than ids fit; the count is still right. */
		*count = q->prog_cnt;
		if (ids && q->prog_cnt) /* memcpy from or to NULL is undefined even for 0 bytes */
			memcpy(ids, q->ids, sizeof(uint32_t) * (q->prog_cnt < max ? q->prog_cnt : max));
		r = 0;
	}
	free(q);
	return r < 0 ? call_failed(c, &QUERY_BPF, -r) : 0;
}

PEV_API int pev_counter_pause_output(struct pev_counter *c, bool pause)
{
	return ioctl_each(c, &PAUSE_OUTPUT, pause ? 1 : 0, "pev_counter_pause_output");
}

PEV_API int pev_counter_modify(struct pev_counter *c, const struct pev_attr *attr)
{
	static const char fn[] = "pev_counter_modify";
	struct pev_attr copy;

	if (!c || !attr)
		return pev__bad_arg(NULL, fn, c ? "attr" : "c", "NULL");
	copy = *attr;
	if (!copy.size)
		copy.size = pev_attr_min_size(&copy);
	int r = ioctl_each(c, &MODIFY, (unsigned long)(uintptr_t)&copy, fn);
	if (r == 0) {
		c->attr.bp_addr = copy.bp_addr;
		c->attr.bp_len = copy.bp_len;
		c->attr.bp_type = copy.bp_type;
		/* The kernel switches the event on or off as the new block says. */
		c->attr.flags = (c->attr.flags & ~PEV_ATTR_DISABLED) | (copy.flags & PEV_ATTR_DISABLED);
	}
	return r;
}

/* Runs prctl(option); on failure fills this thread's last error, naming it. */
static int process_counters(int option, const char *name)
{
	if (prctl(option, 0, 0, 0, 0) == 0)
		return 0;
	return pev_diagnose_call(name, "this process's counters", errno, NULL);
}

PEV_API int pev_process_counters_enable(void)
{
	return process_counters(PR_TASK_PERF_EVENTS_ENABLE, "prctl(PR_TASK_PERF_EVENTS_ENABLE)");
}

PEV_API int pev_process_counters_disable(void)
{
	return process_counters(PR_TASK_PERF_EVENTS_DISABLE, "prctl(PR_TASK_PERF_EVENTS_DISABLE)");
}
