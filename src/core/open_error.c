/* SPDX-License-Identifier: MIT */
/*
 * open_error.c - what validation (validate.c) and the diagnosis of kernel
 * errors (diagnose.c) both need: the opening of an open error ("cannot open
 * 'EVENT' TARGET: "), the event and target of a request in words, and facts
 * about an attr on a machine (privilege, address halves, PMU kinds).
 * Both files use this one; neither uses the other's internals, except that
 * the diagnosis re-runs validation (pev_attr_check).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/diag_internal.h"

bool pev__privileged(const struct pev_machine *m)
{
	return m && (m->cap_perfmon || m->cap_sys_admin);
}

const char *pev__kernel_only_software(const struct pev_attr *a)
{
	if (a->type != PEV_TYPE_SOFTWARE)
		return NULL;
	switch (a->config) {
	case PEV_SW_CONTEXT_SWITCHES:
		return "context switches";
	case PEV_SW_CPU_MIGRATIONS:
		return "CPU migrations";
	case PEV_SW_CGROUP_SWITCHES:
		return "cgroup switches";
	default:
		return NULL;
	}
}

/* The architecture of m, or of the running program when m has none. */
static const char *arch_of(const struct pev_machine *m)
{
	if (m && m->arch[0])
		return m->arch;
#if defined(__x86_64__)
	return "x86_64";
#elif defined(__i386__)
	return "i686";
#elif defined(__aarch64__)
	return "aarch64";
#else
	return "";
#endif
}

int pev__x86_word_size(const struct pev_machine *m)
{
	const char *arch = arch_of(m);

	if (strcmp(arch, "x86_64") == 0)
		return 8;
	if (strcmp(arch, "i386") == 0 || strcmp(arch, "i486") == 0 || strcmp(arch, "i586") == 0 ||
	    strcmp(arch, "i686") == 0)
		return 4;
	return 0;
}

bool pev__kernel_address(const struct pev_machine *m, uint64_t addr)
{
	const char *arch = arch_of(m);

	if (strcmp(arch, "x86_64") == 0)
		return addr >= UINT64_C(0x0000800000000000);
	if (pev__x86_word_size(m) == 4)
		return addr >= UINT64_C(0xc0000000);
	if (strcmp(arch, "aarch64") == 0)
		return addr >= UINT64_C(0xffff000000000000);
	return false;
}

bool pev__is_hardware_type(const struct pev_machine *m, uint32_t type)
{
	if (type == PEV_TYPE_HARDWARE || type == PEV_TYPE_HW_CACHE || type == PEV_TYPE_RAW)
		return true;
	const char *name = m ? pev_machine_pmu_name(m, type) : NULL;
	return name && m->core_pmus[0] && strstr(m->core_pmus, name);
}

const char *pev__pmu_of(const struct pev_machine *m, uint32_t type, char *buf, size_t size)
{
	static const char *const fixed[] = {"hardware", "software", "tracepoint", "hardware cache",
					    "cpu (raw)", "breakpoint"};
	const char *name = m ? pev_machine_pmu_name(m, type) : NULL;

	if (type < PEV_ARRAY_SIZE(fixed) && type != PEV_TYPE_SOFTWARE &&
	    type != PEV_TYPE_TRACEPOINT && type != PEV_TYPE_BREAKPOINT)
		snprintf(buf, size, "%s", fixed[type]);
	else if (name)
		snprintf(buf, size, "%s", name);
	else if (type < PEV_ARRAY_SIZE(fixed))
		snprintf(buf, size, "%s", fixed[type]);
	else
		snprintf(buf, size, "type %u", type);
	return buf;
}


const char *pev__request_event(const struct pev_machine *m, const struct pev_open_request *req,
			       char *buf, size_t size)
{
	struct pev_event ev = {0};

	if (req->event && req->event[0])
		return req->event;
	ev.type = req->attr->type;
	ev.config = req->attr->config;
	ev.config1 = req->attr->config1;
	ev.config2 = req->attr->config2;
	ev.bp_type = req->attr->bp_type;
	ev.pmu = m ? pev_machine_pmu_name(m, ev.type) : NULL;
	return pev_event_describe(&ev, buf, size);
}

void pev__describe_target(const struct pev_open_request *req, char *buf, size_t size)
{
	char cpu[32];

	if (req->cpu >= 0)
		snprintf(cpu, sizeof(cpu), "CPU %d", req->cpu);
	if (req->flags & PEV_FLAG_PID_CGROUP)
		snprintf(buf, size, "for cgroup %s on %s", req->cgroup ? req->cgroup : "(fd)",
			 req->cpu >= 0 ? cpu : "every CPU");
	else if (req->pid == -1)
		snprintf(buf, size, "on every task of %s", req->cpu >= 0 ? cpu : "every CPU");
	else if (req->pid == 0)
		snprintf(buf, size, "on the calling thread%s%s", req->cpu >= 0 ? " on " : "",
			 req->cpu >= 0 ? cpu : "");
	else
		snprintf(buf, size, "on thread %d%s%s", (int)req->pid, req->cpu >= 0 ? " on " : "",
			 req->cpu >= 0 ? cpu : "");
}

int pev__open_error(struct pev_error *err, const struct pev_machine *m,
		    const struct pev_open_request *req, int code, bool before_syscall)
{
	char buf[96], target[160];
	/* The caller's name, or a description written into buf. */
	const char *name = pev__request_event(m, req, buf, sizeof(buf));

	pev__describe_target(req, target, sizeof(target));
	pev__error_start(err, code, -code < 4000 ? -code : 0, "perf_event_open", name,
			 before_syscall);
	pev__error_msg(err, "cannot open '%s' %s: ", name, target);
	return code;
}

