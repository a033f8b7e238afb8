/* SPDX-License-Identifier: MIT */
/*
 * counter.c - opening an event on a target and owning its descriptors.
 *
 * A target expands to (CPU, task) slots: one slot for a task on any CPU,
 * one per online CPU for PEV_CPU_ALL. Every slot is checked, then opened;
 * the first failure closes what was opened and turns into a diagnosis.
 */
#include "perfev/counter.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpulist.h"
#include "diag_internal.h"
#include "machine_internal.h"
#include "opts_internal.h"
#include "probe.h"
#include "sys.h"

struct slot {
	int fd;
	int cpu; /* -1: follows the task */
};

struct pev_counter {
	struct pev_attr attr;
	char name[96];
	int nr;
	struct slot slots[];
};

/* Largest attribute block perfev passes on (the kernel refuses more than a page). */
#define RAW_ATTR_MAX 8192

/* The attribute block to send, with room for sizes the kernel must refuse. */
union attr_buf {
	struct pev_attr attr;
	unsigned char bytes[RAW_ATTR_MAX];
};

static void close_slots(struct pev_counter *c, int n)
{
	for (int i = 0; i < n; i++)
		if (c->slots[i].fd >= 0)
			pev__sys_close(c->slots[i].fd);
}

PEV_API void pev_counter_close(struct pev_counter *c)
{
	if (!c)
		return;
	close_slots(c, c->nr);
	free(c);
}

/* Fills cpus[] for the target; returns how many, or a negative code. */
static int expand_cpus(const struct pev_target *t, const struct pev_machine *m, int **cpus,
		       struct pev_error *err)
{
	int cpu = t->cpu;

	if (t->cgroup && cpu == PEV_CPU_ANY)
		cpu = PEV_CPU_ALL;
	if (cpu != PEV_CPU_ALL) {
		*cpus = malloc(sizeof(int));
		if (!*cpus)
			return PEV_ENOMEM;
		(*cpus)[0] = cpu;
		return 1;
	}
	int n = pev__cpulist_parse(m->cpus_online_list, NULL, 0);
	if (n <= 0) {
		/* Say why: at the descriptor limit this is EMFILE, not a missing file. */
		char list[sizeof(m->cpus_online_list)];
		int e = pev__read_text("/sys/devices/system/cpu/online", list, sizeof(list));
		int errnum = e < 0 ? -e : ENOENT;
		int code = pev_error_from_errno(errnum);
		pev__error_start(err, code, errnum, "open", NULL, true);
		pev__error_msg(err, "cannot list the online CPUs: /sys/devices/system/cpu/online: %s",
			       strerror(errnum));
		if (errnum == EMFILE)
			pev__error_hint(err, "every descriptor RLIMIT_NOFILE allows is in use: close "
					     "some, or raise the limit (ulimit -n)");
		return code;
	}
	*cpus = malloc(sizeof(int) * (size_t)n);
	if (!*cpus)
		return PEV_ENOMEM;
	pev__cpulist_parse(m->cpus_online_list, *cpus, n);
	return n;
}

/* Explains a refused open: facts, diagnosis, and the refused field when probing finds one. */
static int diagnose(const struct pev_open_request *req, int errnum, uint32_t size_back,
		    unsigned open_flags, struct pev_error *err)
{
	struct pev_machine *m;
	int code;

	/* Without an error to fill, the facts and the retries would be wasted work. */
	if (!err || !(m = calloc(1, sizeof(*m))))
		return pev_error_from_errno(errnum);
	pev_machine_read(m, NULL);
	code = pev_diagnose_open(m, req, errnum, size_back, err);
	free(m);
	/* Probe only when the diagnosis has not named the field already. */
	if ((errnum == EINVAL || errnum == EOPNOTSUPP) && !(open_flags & PEV_OPEN_NO_PROBE) &&
	    !err->field[0]) {
		char field[64];
		if (pev__probe_refused_field(req->attr, req->pid, req->cpu, req->group_fd,
					     req->flags, field, sizeof(field))) {
			pev__error_field(err, field);
			pev__error_msg(err, " The kernel accepts the event without %s: that is what "
					    "this kernel or PMU refuses.",
				       field);
			pev__error_hint(err, "drop %s from the event", field);
		} else {
			pev__error_msg(err, " Retrying without each optional field in turn did not "
					    "help: no single field explains the refusal, so the "
					    "kernel refuses the event itself (type and config), its "
					    "target, or a combination of fields.");
		}
	}
	return code;
}

static int open_slots(struct pev_counter *c, const union attr_buf *attr, pid_t pid,
		      unsigned long flags, const char *cgroup, const struct pev_counter *group,
		      unsigned open_flags, struct pev_error *err)
{
	for (int i = 0; i < c->nr; i++) {
		union attr_buf buf;
		size_t n = attr->attr.size > sizeof(buf) ? sizeof(buf) : attr->attr.size;
		struct pev_open_request req = {
			.attr = &attr->attr,
			.pid = pid,
			.cpu = c->slots[i].cpu,
			.group_fd = group ? group->slots[i].fd : -1,
			.flags = flags,
			.event = c->name,
			.cgroup = cgroup,
			.fds_needed = c->nr,
		};
		if (n < sizeof(struct pev_attr))
			n = sizeof(struct pev_attr);
		memcpy(&buf, attr, n);
		int fd = pev__sys_perf_event_open(&buf.attr, pid, req.cpu, req.group_fd,
						 flags | PEV_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			close_slots(c, i);
			return diagnose(&req, -fd, buf.attr.size, open_flags, err);
		}
		c->slots[i].fd = fd;
	}
	return 0;
}

static int check_group(const struct pev_counter *group, const int *cpus, int n,
		       struct pev_error *err)
{
	if (group->nr != n)
		return pev__bad_arg(err, "pev_counter_open", "group",
				    "the leader '%s' has %d descriptors and this target expands to "
				    "%d; a group's members must use the leader's target",
				    group->name, group->nr, n);
	for (int i = 0; i < n; i++)
		if (group->slots[i].cpu != cpus[i]) {
			pev__error_start(err, PEV_EINVAL, EINVAL, "perf_event_open", NULL, true);
			pev__error_field(err, "cpu");
			pev__error_msg(err, "a group member must count on the leader's CPU: the "
					    "leader '%s' is on CPU %d and this event on CPU %d",
				       group->name, group->slots[i].cpu, cpus[i]);
			return PEV_EINVAL;
		}
	return 0;
}

/* The common path of both open functions: attr is complete, name set. */
static int open_counter(const union attr_buf *attr, const char *name,
			const struct pev_target *user_target, const struct pev_counter *group,
			unsigned open_flags, struct pev_counter **out, struct pev_error *err)
{
	struct pev_target target = user_target ? *user_target : pev_target_self();
	struct pev_machine m;
	unsigned long flags = 0;
	int *cpus = NULL, cgroup_fd = -1, n, r;
	pid_t pid = target.pid;
	struct pev_counter *c = NULL;

	*out = NULL;
	pev__machine_read_for_check(&m, &attr->attr, target.cpu != PEV_CPU_ANY || target.cgroup);
	n = expand_cpus(&target, &m, &cpus, err);
	if (n < 0)
		return n;
	if (group && (r = check_group(group, cpus, n, err)) < 0)
		goto out;
	if (target.cgroup) {
		cgroup_fd = open(target.cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (cgroup_fd < 0) {
			r = pev__error_start(err, pev_error_from_errno(errno), errno, "open", name,
					     true);
			pev__error_field(err, "cgroup");
			pev__error_msg(err, "cannot open cgroup directory '%s': %s", target.cgroup,
				       strerror(errno));
			pev__error_hint(err, "give a cgroup v2 directory, e.g. "
					     "/sys/fs/cgroup/system.slice/foo.service");
			goto out;
		}
		pid = cgroup_fd;
		flags |= PEV_FLAG_PID_CGROUP;
	}
	if (!(open_flags & PEV_OPEN_NO_VALIDATE)) {
		for (int i = 0; i < n; i++) {
			struct pev_open_request req = {
				.attr = &attr->attr,
				.pid = pid,
				.cpu = cpus[i],
				.group_fd = group ? group->slots[i].fd : -1,
				.flags = flags,
				.event = name,
				.cgroup = target.cgroup,
				.fds_needed = n,
			};
			if ((r = pev_attr_check(&m, &req, err)) < 0)
				goto out;
		}
	}
	c = calloc(1, sizeof(*c) + sizeof(struct slot) * (size_t)n);
	if (!c) {
		r = PEV_ENOMEM;
		goto out;
	}
	c->attr = attr->attr;
	pev__strlcpy(c->name, name, sizeof(c->name));
	c->nr = n;
	for (int i = 0; i < n; i++) {
		c->slots[i].fd = -1;
		c->slots[i].cpu = cpus[i];
	}
	r = open_slots(c, attr, pid, flags, target.cgroup, group, open_flags, err);
	if (r == 0) {
		*out = c;
		c = NULL;
	}
out:
	free(c);
	free(cpus);
	if (cgroup_fd >= 0)
		close(cgroup_fd);
	return r;
}

PEV_API int pev_counter_open(const struct pev_event *ev, const struct pev_opts *opts,
			     const struct pev_target *target, const struct pev_counter *group,
			     struct pev_counter **out, struct pev_error *err)
{
	union attr_buf attr;
	struct pev_opts o;
	char name[96];
	int r;

	if (!out)
		return pev__bad_arg(err, "pev_counter_open", "out", "must not be NULL");
	*out = NULL;
	if (!ev)
		return pev__bad_arg(err, "pev_counter_open", "ev", "must not be NULL");
	if ((r = pev__opts_copy(&o, opts, "pev_counter_open", err)) < 0)
		return r;
	memset(&attr, 0, sizeof(attr));
	if ((r = pev__attr_encode(&attr.attr, ev, &o, "pev_counter_open", err)) < 0)
		return r;
	pev_event_describe(ev, name, sizeof(name));
	return open_counter(&attr, name, target, group, o.open_flags, out, err);
}

PEV_API int pev_counter_open_attr(const void *user_attr, size_t attr_len,
				  const struct pev_target *target, const struct pev_counter *group,
				  unsigned flags, struct pev_counter **out, struct pev_error *err)
{
	static const char func[] = "pev_counter_open_attr";
	union attr_buf attr;
	struct pev_event ev = {0};
	char name[96];

	if (!out)
		return pev__bad_arg(err, func, "out", "must not be NULL");
	*out = NULL;
	if (!user_attr)
		return pev__bad_arg(err, func, "attr", "must not be NULL");
	if (attr_len < PEV_ATTR_SIZE_VER0 || attr_len > sizeof(attr))
		return pev__bad_arg(err, func, "attr_len",
				    "%zu bytes; an attribute block is %d to %zu bytes", attr_len,
				    PEV_ATTR_SIZE_VER0, sizeof(attr));
	memset(&attr, 0, sizeof(attr));
	memcpy(&attr, user_attr, attr_len);
	if (attr.attr.size > attr_len)
		return pev__bad_arg(err, func, "attr",
				    "attr.size is %u but only %zu bytes were passed", attr.attr.size,
				    attr_len);
	ev.type = attr.attr.type;
	ev.config = attr.attr.config;
	ev.config1 = attr.attr.config1;
	ev.config2 = attr.attr.config2;
	ev.bp_type = attr.attr.bp_type;
	pev_event_describe(&ev, name, sizeof(name));
	return open_counter(&attr, name, target, group, flags, out, err);
}

PEV_API int pev_counter_nr_fds(const struct pev_counter *c)
{
	return c ? c->nr : 0;
}

PEV_API int pev_counter_fd(const struct pev_counter *c, int i)
{
	return c && i >= 0 && i < c->nr ? c->slots[i].fd : PEV_EBADARG;
}

PEV_API int pev_counter_cpu(const struct pev_counter *c, int i)
{
	return c && i >= 0 && i < c->nr ? c->slots[i].cpu : PEV_EBADARG;
}

PEV_API const struct pev_attr *pev_counter_attr(const struct pev_counter *c)
{
	return c ? &c->attr : NULL;
}

PEV_API const char *pev_counter_name(const struct pev_counter *c)
{
	return c ? c->name : NULL;
}

static int ioctl_all(struct pev_counter *c, unsigned long request)
{
	if (!c)
		return PEV_EBADARG;
	for (int i = 0; i < c->nr; i++) {
		int r = pev__sys_ioctl(c->slots[i].fd, request, 0);
		if (r < 0)
			return pev_error_from_errno(-r);
	}
	return 0;
}

PEV_API int pev_counter_enable(struct pev_counter *c)
{
	return ioctl_all(c, PEV_IOC_ENABLE);
}

PEV_API int pev_counter_disable(struct pev_counter *c)
{
	return ioctl_all(c, PEV_IOC_DISABLE);
}

PEV_API int pev_counter_reset(struct pev_counter *c)
{
	return ioctl_all(c, PEV_IOC_RESET);
}

PEV_API int pev_counter_id(const struct pev_counter *c, int i, uint64_t *id)
{
	if (!c || i < 0 || i >= c->nr || !id)
		return PEV_EBADARG;
	int r = pev__sys_ioctl(c->slots[i].fd, PEV_IOC_ID, (unsigned long)(uintptr_t)id);
	return r < 0 ? pev_error_from_errno(-r) : 0;
}

/*
 * Adds one descriptor's read(2) result, laid out by read_format, to out.
 * A PEV_FORMAT_GROUP read lists the whole group whichever member's fd is
 * read; with PEV_FORMAT_ID the entry whose id is `id` is this event's own
 * (otherwise the first, the leader's).
 */
static int add_reading(const uint64_t *v, size_t words, uint64_t rf, uint64_t id,
		       struct pev_count *out)
{
	size_t i = 0;
	uint64_t value, nr = 1;

	if (rf & PEV_FORMAT_GROUP) {
		if (words < 1 || (nr = v[i++]) < 1)
			return PEV_EFORMAT;
	}
	if (!(rf & PEV_FORMAT_GROUP))
		value = v[i++];
	if (rf & PEV_FORMAT_TOTAL_TIME_ENABLED)
		out->time_enabled += v[i++];
	if (rf & PEV_FORMAT_TOTAL_TIME_RUNNING)
		out->time_running += v[i++];
	if (rf & PEV_FORMAT_GROUP) {
		size_t entry = 1 + !!(rf & PEV_FORMAT_ID) + !!(rf & PEV_FORMAT_LOST);
		if (nr > (words - (i < words ? i : words)) / entry)
			return PEV_EFORMAT;
		if ((rf & PEV_FORMAT_ID) && id) {
			for (uint64_t k = 0; k < nr; k++)
				if (v[i + k * entry + 1] == id) {
					i += k * entry;
					break;
				}
		}
		value = v[i++];
	}
	if (rf & PEV_FORMAT_ID)
		i++;
	if (rf & PEV_FORMAT_LOST)
		out->lost += v[i++];
	if (i > words)
		return PEV_EFORMAT;
	out->value += value;
	return 0;
}

PEV_API int pev_counter_read(const struct pev_counter *c, struct pev_count *out)
{
	uint64_t buf[512];

	if (!c || !out)
		return PEV_EBADARG;
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < c->nr; i++) {
		ssize_t n = pev__sys_read(c->slots[i].fd, buf, sizeof(buf));
		if (n < 0)
			return pev_error_from_errno((int)-n);
		uint64_t id = 0;
		if ((c->attr.read_format & (PEV_FORMAT_GROUP | PEV_FORMAT_ID)) ==
			    (PEV_FORMAT_GROUP | PEV_FORMAT_ID) &&
		    pev__sys_ioctl(c->slots[i].fd, PEV_IOC_ID, (unsigned long)(uintptr_t)&id) < 0)
			id = 0;
		int r = add_reading(buf, (size_t)n / sizeof(uint64_t), c->attr.read_format, id, out);
		if (r < 0)
			return r;
	}
	return 0;
}
