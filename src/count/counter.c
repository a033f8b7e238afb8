/* SPDX-License-Identifier: MIT */
/*
 * counter.c - opening an event on a target and owning its descriptors.
 *
 * A target expands to (CPU, thread) slots (target.c). Every slot is checked,
 * then opened; the first failure closes what was opened and turns into a
 * diagnosis. A counter opened into a group joins its leader's member list,
 * which pev_counter_read_group() reads in one go.
 */
#include "perfev/counter.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "count/counter_internal.h"
#include "count/levels.h"
#include "core/diag_internal.h"
#include "core/machine_internal.h"
#include "core/opts_internal.h"
#include "core/probe.h"
#include "core/sys.h"
#include "count/target.h"

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

/* Takes c out of its leader's member list, and releases the members of a leader. */
static void leave_group(struct pev_counter *c)
{
	struct pev_counter *l = c->leader;

	if (l && l != c) {
		for (int i = 0; i < l->nr_members; i++)
			if (l->members[i] == c) {
				memmove(&l->members[i], &l->members[i + 1],
					sizeof(l->members[0]) * (size_t)(l->nr_members - i - 1));
				l->nr_members--;
				break;
			}
	}
	for (int i = 0; i < c->nr_members; i++)
		c->members[i]->leader = NULL;
	free(c->members);
	c->members = NULL;
	c->nr_members = 0;
}

PEV_API void pev_counter_close(struct pev_counter *c)
{
	if (!c)
		return;
	leave_group(c);
	close_slots(c, c->nr);
	free(c);
}

/*
 * EPERM is also what a PMU that cannot filter by privilege level says for
 * an exclude_* bit on some architectures (the man page's EPERM entry): when
 * the event opens without its exclude_* bits, that, not privilege, is the
 * cause, and the diagnosis says so instead.
 */
static void explain_exclusions(const struct pev_machine *m, const struct pev_open_request *req,
			       struct pev_error *err)
{
	char field[64];

	if (!pev__probe_refused_exclusions(req->attr, req->pid, req->cpu, req->group_fd,
					   req->flags, field, sizeof(field)))
		return;
	pev__open_error(err, m, req, PEV_EPERM, false);
	err->sys_errno = EPERM;
	pev__error_field(err, field);
	pev__error_msg(err, "operation not permitted (EPERM), but not for lack of privilege: the "
			    "kernel accepts the event without %s. This PMU cannot filter by "
			    "privilege level (exclude_user, exclude_kernel, exclude_hv, "
			    "exclude_idle, exclude_host, exclude_guest) and refuses the bit.",
		       field);
	pev__error_hint(err, "drop %s (the event's :u, :k or :h modifier, opts.exclude_*): "
			     "this PMU counts every privilege level",
			field);
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
	if (errnum == EPERM && !(open_flags & PEV_OPEN_NO_PROBE))
		explain_exclusions(m, req, err);
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

/* True when read_format or sample_type will need each descriptor's id. */
static bool needs_ids(const struct pev_attr *a, bool grouped)
{
	return grouped || (a->read_format & PEV_FORMAT_ID) ||
	       (a->sample_type & (PEV_SAMPLE_ID | PEV_SAMPLE_IDENTIFIER));
}

/*
 * Opens every slot of c. A thread of an all_threads target that has exited
 * meanwhile (ESRCH) is dropped; any other failure closes what was opened.
 */
static int open_slots(struct pev_counter *c, const union attr_buf *attr, unsigned long flags,
		      const struct pev_target *t, const struct pev_counter *group,
		      unsigned open_flags, struct pev_error *err)
{
	int kept = 0;

	for (int i = 0; i < c->nr; i++) {
		union attr_buf buf;
		size_t n = attr->attr.size > sizeof(buf) ? sizeof(buf) : attr->attr.size;
		struct pev_open_request req = {
			.attr = &attr->attr,
			.pid = c->slots[i].tid,
			.cpu = c->slots[i].cpu,
			.group_fd = group ? group->slots[i].fd : -1,
			.flags = flags,
			.event = c->name,
			.cgroup = t->cgroup,
			.fds_needed = c->nr,
		};
		if (n < sizeof(struct pev_attr))
			n = sizeof(struct pev_attr);
		memcpy(&buf, attr, n);
		int fd = pev__sys_perf_event_open(&buf.attr, req.pid, req.cpu, req.group_fd,
						 flags | PEV_FLAG_FD_CLOEXEC);
		if (fd == -ESRCH && t->all_threads && !group)
			continue; /* the thread exited after it was listed */
		if (fd < 0) {
			close_slots(c, kept);
			return diagnose(&req, -fd, buf.attr.size, open_flags, err);
		}
		c->slots[kept] = c->slots[i];
		c->slots[kept].fd = fd;
		if (needs_ids(&c->attr, group != NULL) &&
		    pev__sys_ioctl(fd, PEV_IOC_ID, (unsigned long)(uintptr_t)&c->slots[kept].id) < 0)
			c->slots[kept].id = 0;
		kept++;
	}
	if (kept == 0 && c->nr > 0) {
		pev__error_start(err, PEV_ESRCH, ESRCH, "perf_event_open", c->name, false);
		pev__error_msg(err, "cannot open '%s': every thread of process %d exited before it "
				    "could be counted",
			       c->name, (int)t->pid);
		return PEV_ESRCH;
	}
	c->nr = kept;
	return 0;
}

static int check_group(const struct pev_counter *group, const struct pev__plan *plan,
		       struct pev_error *err)
{
	int n = plan->nr_cpus * plan->nr_tids;

	if (group->nr != n)
		return pev__bad_arg(err, "pev_counter_open", "group",
				    "the leader '%s' has %d descriptors and this target expands to "
				    "%d; a group's members must use the leader's target",
				    group->name, group->nr, n);
	for (int i = 0; i < n; i++) {
		int cpu = plan->cpus[i / plan->nr_tids];
		if (group->slots[i].cpu != cpu) {
			pev__error_start(err, PEV_EINVAL, EINVAL, "perf_event_open", NULL, true);
			pev__error_field(err, "cpu");
			pev__error_msg(err, "a group member must count on the leader's CPU: the "
					    "leader '%s' is on CPU %d and this event on CPU %d",
				       group->name, group->slots[i].cpu, cpu);
			return PEV_EINVAL;
		}
	}
	return 0;
}

/* Records c as a member of leader (for pev_counter_read_group). */
static int join_group(struct pev_counter *leader, struct pev_counter *c)
{
	struct pev_counter **m = realloc(leader->members,
					 sizeof(*m) * (size_t)(leader->nr_members + 1));
	if (!m)
		return PEV_ENOMEM;
	leader->members = m;
	leader->members[leader->nr_members++] = c;
	leader->leader = leader;
	c->leader = leader;
	return 0;
}

/* The common path of both open functions: attr is complete, name set. */
static int open_counter(const union attr_buf *attr, const char *name,
			const struct pev_target *user_target, struct pev_counter *group,
			unsigned open_flags, struct pev_counter **out, struct pev_error *err)
{
	struct pev_target target = user_target ? *user_target : pev_target_self();
	struct pev_machine m;
	struct pev__plan plan;
	unsigned long flags = 0;
	int cgroup_fd = -1, n, r;
	struct pev_counter *c = NULL;

	*out = NULL;
	pev__machine_read_for_check(&m, &attr->attr,
				    target.cpu != PEV_CPU_ANY || target.cgroup || target.cpus);
	if ((r = pev__target_expand(&target, &m, &plan, err)) < 0)
		return r;
	n = plan.nr_cpus * plan.nr_tids;
	if (group && (r = check_group(group, &plan, err)) < 0)
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
		plan.tids[0] = cgroup_fd;
		flags |= PEV_FLAG_PID_CGROUP;
	}
	c = calloc(1, sizeof(*c) + sizeof(struct pev__slot) * (size_t)n);
	if (!c) {
		r = PEV_ENOMEM;
		goto out;
	}
	c->attr = attr->attr;
	pev__strlcpy(c->name, name, sizeof(c->name));
	c->nr = n;
	for (int i = 0; i < n; i++) {
		c->slots[i].fd = -1;
		c->slots[i].cpu = plan.cpus[i / plan.nr_tids];
		c->slots[i].tid = plan.tids[i % plan.nr_tids];
	}
	if (!(open_flags & PEV_OPEN_NO_VALIDATE)) {
		if ((r = pev__check_kernel_only(&attr->attr, name, err)) < 0)
			goto out;
		for (int i = 0; i < n; i++) {
			struct pev_open_request req = {
				.attr = &attr->attr,
				.pid = c->slots[i].tid,
				.cpu = c->slots[i].cpu,
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
	r = open_slots(c, attr, flags, &target, group, open_flags, err);
	if (r == 0 && group && (r = join_group(group, c)) < 0)
		close_slots(c, c->nr);
	if (r == 0) {
		/* The kernel saw the cgroup's fd as the pid; record every task (-1) instead. */
		if (target.cgroup)
			for (int i = 0; i < c->nr; i++)
				c->slots[i].tid = -1;
		pev__single_read_init(c);
		*out = c;
		c = NULL;
	}
out:
	free(c);
	pev__plan_free(&plan);
	if (cgroup_fd >= 0)
		close(cgroup_fd);
	return r;
}

/*
 * The fallback of an event whose caller chose no privilege level, refused
 * (first, err) for counting the kernel: user space only, as perf does. The
 * kernel checks privilege before it looks at the event, so a retry refused
 * as absent (no such PMU or event: ENOENT, ENODEV) or for its target or
 * resources is the more basic refusal and replaces the first diagnosis. A
 * retry refused for privilege again, or with EINVAL or EOPNOTSUPP, which is
 * what a PMU that cannot filter by privilege level (msr) says of the
 * exclusion bits the retry added, leaves the first: it says what counting
 * the kernel, which the caller asked for, needs.
 */
static int open_user_space_only(union attr_buf *attr, const char *name,
				const struct pev_target *target, struct pev_counter *group,
				unsigned open_flags, struct pev_counter **out, int first,
				struct pev_error *err)
{
	struct pev_error user_err;
	int r;

	attr->attr.flags |= PEV_ATTR_EXCLUDE_KERNEL | PEV_ATTR_EXCLUDE_HV;
	r = open_counter(attr, name, target, group, open_flags, out, &user_err);
	if (r == 0) {
		pev__error_clear(err);
		return 0;
	}
	if (r == PEV_EACCES || r == PEV_EPERM || r == PEV_EINVAL || r == PEV_EOPNOTSUPP)
		return first;
	*pev__error_of(err) = user_err;
	return r;
}

PEV_API int pev_counter_open(const struct pev_event *ev, const struct pev_opts *opts,
			     const struct pev_target *target, struct pev_counter *group,
			     struct pev_counter **out, struct pev_error *err)
{
	union attr_buf attr;
	struct pev_opts o;
	char name[96];
	int r;

	pev__error_clear(err);
	if (!out)
		return pev__bad_arg(err, "pev_counter_open", "out", "must not be NULL");
	*out = NULL;
	if (!ev)
		return pev__bad_arg(err, "pev_counter_open", "ev", "must not be NULL");
	if (target && (r = pev__reserved_check(target->reserved, PEV_ARRAY_SIZE(target->reserved),
					       "pev_counter_open", "target", err)) < 0)
		return r;
	if ((r = pev__opts_copy(&o, opts, "pev_counter_open", err)) < 0)
		return r;
	memset(&attr, 0, sizeof(attr));
	if ((r = pev__attr_encode(&attr.attr, ev, &o, "pev_counter_open", err)) < 0)
		return r;
	/* Both times, so that reads are scaled and tell a counter that never ran. */
	if (!(o.open_flags & PEV_OPEN_EXACT_READ_FORMAT))
		attr.attr.read_format |= PEV_FORMAT_TOTAL_TIME_ENABLED | PEV_FORMAT_TOTAL_TIME_RUNNING;
	pev_event_describe(ev, name, sizeof(name));
	r = open_counter(&attr, name, target, group, o.open_flags, out, err);
	if ((r == PEV_EACCES || r == PEV_EPERM) && !(o.open_flags & PEV_OPEN_EXACT_LEVELS) &&
	    !pev__levels_chosen(&o) && pev__event_side(&attr.attr, name) == PEV__SIDE_USER_TOO)
		r = open_user_space_only(&attr, name, target, group, o.open_flags, out, r, err);
	return r;
}

PEV_API int pev_counter_open_attr(const void *user_attr, size_t attr_len,
				  const struct pev_target *target, struct pev_counter *group,
				  unsigned flags, struct pev_counter **out, struct pev_error *err)
{
	static const char func[] = "pev_counter_open_attr";
	union attr_buf attr;
	struct pev_event ev = {0};
	char name[96];
	int r;

	pev__error_clear(err);
	if (!out)
		return pev__bad_arg(err, func, "out", "must not be NULL");
	*out = NULL;
	if (!user_attr)
		return pev__bad_arg(err, func, "attr", "must not be NULL");
	if (target && (r = pev__reserved_check(target->reserved, PEV_ARRAY_SIZE(target->reserved),
					       func, "target", err)) < 0)
		return r;
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
	return c ? c->nr : pev__bad_arg(NULL, "pev_counter_nr_fds", "c", "NULL");
}

PEV_API int pev_counter_fd(const struct pev_counter *c, int i)
{
	return c && i >= 0 && i < c->nr ? c->slots[i].fd
					: pev__bad_index("pev_counter_fd", c, "c", i, c ? c->nr : 0);
}

PEV_API int pev_counter_cpu(const struct pev_counter *c, int i)
{
	return c && i >= 0 && i < c->nr ? c->slots[i].cpu
					: pev__bad_index("pev_counter_cpu", c, "c", i, c ? c->nr : 0);
}

PEV_API pid_t pev_counter_tid(const struct pev_counter *c, int i)
{
	return c && i >= 0 && i < c->nr ? c->slots[i].tid
					: pev__bad_index("pev_counter_tid", c, "c", i, c ? c->nr : 0);
}

PEV_API const struct pev_attr *pev_counter_attr(const struct pev_counter *c)
{
	return c ? &c->attr : NULL;
}

PEV_API const char *pev_counter_name(const struct pev_counter *c)
{
	return c ? c->name : NULL;
}

PEV_API struct pev_counter *pev_counter_leader(const struct pev_counter *c)
{
	return c ? c->leader : NULL;
}

PEV_API int pev_counter_id(const struct pev_counter *c, int i, uint64_t *id)
{
	if (!c || i < 0 || i >= c->nr)
		return pev__bad_index("pev_counter_id", c, "c", i, c ? c->nr : 0);
	if (!id)
		return pev__bad_arg(NULL, "pev_counter_id", "id", "NULL");
	if (c->slots[i].id) {
		*id = c->slots[i].id;
		return 0;
	}
	int r = pev__sys_ioctl(c->slots[i].fd, PEV_IOC_ID, (unsigned long)(uintptr_t)id);
	return r < 0 ? pev_error_from_errno(-r) : 0;
}
