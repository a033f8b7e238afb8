/* SPDX-License-Identifier: MIT */
/*
 * control.c - the ioctls of an open counter, and prctl for all of a process's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "count/counter_internal.h"
#include "core/error_internal.h"
#include "core/sys.h"

/* Runs one ioctl on every descriptor of c. Returns 0 or the first failure's code. */
static int ioctl_each(struct pev_counter *c, unsigned long request, unsigned long arg)
{
	if (!c)
		return PEV_EBADARG;
	for (int i = 0; i < c->nr; i++) {
		int r = pev__sys_ioctl(c->slots[i].fd, request, arg);
		if (r < 0)
			return pev_error_from_errno(-r);
	}
	return 0;
}

PEV_API int pev_counter_enable(struct pev_counter *c)
{
	return ioctl_each(c, PEV_IOC_ENABLE, 0);
}

PEV_API int pev_counter_disable(struct pev_counter *c)
{
	return ioctl_each(c, PEV_IOC_DISABLE, 0);
}

PEV_API int pev_counter_reset(struct pev_counter *c)
{
	return ioctl_each(c, PEV_IOC_RESET, 0);
}

/* The group forms act through the leader's descriptors with PEV_IOC_FLAG_GROUP. */
static int group_ioctl(struct pev_counter *c, unsigned long request)
{
	if (!c)
		return PEV_EBADARG;
	return ioctl_each(c->leader ? c->leader : c, request, PEV_IOC_FLAG_GROUP);
}

PEV_API int pev_counter_enable_group(struct pev_counter *c)
{
	const struct pev_counter *l;

	if (!c)
		return PEV_EBADARG;
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
		int r = ioctl_each(l->members[i], PEV_IOC_ENABLE, 0);
		if (r < 0)
			return r;
	}
	return group_ioctl(c, PEV_IOC_ENABLE);
}

PEV_API int pev_counter_disable_group(struct pev_counter *c)
{
	return group_ioctl(c, PEV_IOC_DISABLE);
}

PEV_API int pev_counter_reset_group(struct pev_counter *c)
{
	return group_ioctl(c, PEV_IOC_RESET);
}

PEV_API int pev_counter_refresh(struct pev_counter *c, int n)
{
	if (n <= 0)
		return PEV_EBADARG;
	return ioctl_each(c, PEV_IOC_REFRESH, (unsigned long)n);
}

PEV_API int pev_counter_set_period(struct pev_counter *c, uint64_t period)
{
	/* The kernel reads the new period through the pointer. */
	return ioctl_each(c, PEV_IOC_PERIOD, (unsigned long)(uintptr_t)&period);
}

PEV_API int pev_counter_set_filter(struct pev_counter *c, const char *filter)
{
	if (!filter)
		return PEV_EBADARG;
	return ioctl_each(c, PEV_IOC_SET_FILTER, (unsigned long)(uintptr_t)filter);
}

PEV_API int pev_counter_set_bpf(struct pev_counter *c, int prog_fd)
{
	if (prog_fd < 0)
		return PEV_EBADARG;
	return ioctl_each(c, PEV_IOC_SET_BPF, (unsigned long)prog_fd);
}

PEV_API int pev_counter_query_bpf(const struct pev_counter *c, uint32_t *ids, uint32_t max,
				  uint32_t *count)
{
	struct pev_query_bpf *q;
	int r;

	if (!c || c->nr < 1 || !count || (max && !ids) || max > 65536)
		return PEV_EBADARG;
	q = calloc(1, sizeof(*q) + sizeof(uint32_t) * max);
	if (!q)
		return PEV_ENOMEM;
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
	return r < 0 ? pev_error_from_errno(-r) : 0;
}

PEV_API int pev_counter_pause_output(struct pev_counter *c, bool pause)
{
	return ioctl_each(c, PEV_IOC_PAUSE_OUTPUT, pause ? 1 : 0);
}

PEV_API int pev_counter_modify(struct pev_counter *c, const struct pev_attr *attr)
{
	struct pev_attr copy;

	if (!c || !attr)
		return PEV_EBADARG;
	copy = *attr;
	if (!copy.size)
		copy.size = pev_attr_min_size(&copy);
	int r = ioctl_each(c, PEV_IOC_MODIFY_ATTRIBUTES, (unsigned long)(uintptr_t)&copy);
	if (r == 0) {
		c->attr.bp_addr = copy.bp_addr;
		c->attr.bp_len = copy.bp_len;
		c->attr.bp_type = copy.bp_type;
		/* The kernel switches the event on or off as the new block says. */
		c->attr.flags = (c->attr.flags & ~PEV_ATTR_DISABLED) | (copy.flags & PEV_ATTR_DISABLED);
	}
	return r;
}

PEV_API int pev_process_counters_enable(void)
{
	return prctl(PR_TASK_PERF_EVENTS_ENABLE, 0, 0, 0, 0) < 0 ? pev_error_from_errno(errno) : 0;
}

PEV_API int pev_process_counters_disable(void)
{
	return prctl(PR_TASK_PERF_EVENTS_DISABLE, 0, 0, 0, 0) < 0 ? pev_error_from_errno(errno)
								   : 0;
}
