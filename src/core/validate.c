/* SPDX-License-Identifier: MIT */
/*
 * validate.c - the rules of perf_event_open checked before the syscall.
 *
 * Each rule here mirrors a check the kernel makes (kernel/events/core.c,
 * the breakpoint code) and returns the same errno the kernel would, but with
 * a message that names the field, its value and the limit on this machine.
 * Rules that depend on the PMU or on state perfev cannot see are left to the
 * kernel and to the diagnosis. Each check is marked "rule N" with the number of
 * its row in docs/ERRORS.md; tests/test_docs.c checks that both agree.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/diag_internal.h"

/* Clocks perf_event_open accepts for attr.clockid. */
static bool clock_supported(int32_t id)
{
	return id == CLOCK_REALTIME || id == CLOCK_MONOTONIC || id == CLOCK_MONOTONIC_RAW ||
	       id == CLOCK_BOOTTIME || id == CLOCK_TAI;
}

static int lowest_bit(uint64_t v)
{
	return v ? __builtin_ctzll(v) : -1;
}

static int bad_field(struct pev_error *err, const struct pev_machine *m,
		     const struct pev_open_request *req, int code, const char *field)
{
	pev__open_error(err, m, req, code, true);
	pev__error_field(err, field);
	return code;
}

static int check_target(const struct pev_machine *m, const struct pev_open_request *req,
			struct pev_error *err)
{
	const struct pev_attr *a = req->attr;

	if (req->flags & ~PEV_FLAG_ALL) {
		/* rule 7 (docs/ERRORS.md) */
		bad_field(err, m, req, PEV_EINVAL, "flags");
		pev__error_msg(err, "unknown perf_event_open flags 0x%lx (known: 0x%lx)",
			       req->flags & ~PEV_FLAG_ALL, PEV_FLAG_ALL);
		return PEV_EINVAL;
	}
	if ((req->flags & PEV_FLAG_PID_CGROUP) && req->cpu < 0) {
		/* rule 8 (docs/ERRORS.md) */
		bad_field(err, m, req, PEV_EINVAL, "cpu");
		pev__error_msg(err, "cgroup events count per CPU, but cpu is %d", req->cpu);
		pev__error_hint(err, "open the cgroup event once per CPU (target cpu PEV_CPU_ALL does)");
		return PEV_EINVAL;
	}
	if (req->pid == -1 && req->cpu == -1) {
		/* rule 9 (docs/ERRORS.md) */
		bad_field(err, m, req, PEV_EINVAL, "pid");
		pev__error_msg(err, "pid -1 (every task) needs a CPU, but cpu is -1 (any CPU); "
				    "the kernel cannot count every task everywhere with one event");
		pev__error_hint(err, "give a CPU (one event per CPU: target cpu PEV_CPU_ALL), or a "
				     "task (pid 0 is the calling thread)");
		return PEV_EINVAL;
	}
	if (req->cpu < -1) {
		/* rule 10 (docs/ERRORS.md) */
		bad_field(err, m, req, PEV_EINVAL, "cpu");
		pev__error_msg(err, "cpu %d is not a CPU number (use -1 for any CPU)", req->cpu);
		return PEV_EINVAL;
	}
	if (req->cpu >= 0 && m && m->cpus_possible_list[0] &&
	    !pev_machine_cpu_possible(m, req->cpu)) {
		/* rule 11 (docs/ERRORS.md) */
		bad_field(err, m, req, PEV_EINVAL, "cpu");
		pev__error_msg(err, "CPU %d does not exist: this machine's CPUs are %s", req->cpu,
			       m->cpus_possible_list);
		return PEV_EINVAL;
	}
	/* The kernel refuses an offline CPU only for CPU-wide and cgroup events
	 * (perf_event_open checks cpuctx->online when it has no task); a task's
	 * event on an offline CPU opens and counts once the CPU comes back. */
	if (req->cpu >= 0 && (req->pid == -1 || (req->flags & PEV_FLAG_PID_CGROUP)) && m &&
	    m->cpus_online_list[0] && !pev_machine_cpu_online(m, req->cpu)) {
		/* rule 12 (docs/ERRORS.md) */
		bad_field(err, m, req, PEV_ENODEV, "cpu");
		pev__error_msg(err, "CPU %d is offline (online CPUs: %s)", req->cpu,
			       m->cpus_online_list);
		pev__error_hint(err, "bring it online (echo 1 > /sys/devices/system/cpu/cpu%d/online) "
				     "or choose an online CPU",
				req->cpu);
		return PEV_ENODEV;
	}
	if (req->group_fd != -1 && (a->flags & (PEV_ATTR_PINNED | PEV_ATTR_EXCLUSIVE))) {
		/* rule 13 (docs/ERRORS.md) */
		bad_field(err, m, req, PEV_EINVAL,
			  a->flags & PEV_ATTR_PINNED ? "pinned" : "exclusive");
		pev__error_msg(err, "%s applies to a whole group and may be set only on the group "
				    "leader, but this event joins group fd %d",
			       a->flags & PEV_ATTR_PINNED ? "pinned" : "exclusive", req->group_fd);
		pev__error_hint(err, "set it on the group leader instead");
		return PEV_EINVAL;
	}
	return 0;
}

static int check_reserved(const struct pev_machine *m, const struct pev_open_request *req,
			  struct pev_error *err)
{
	const struct pev_attr *a = req->attr;

	if (a->size && (a->size < PEV_ATTR_SIZE_VER0 || a->size > 4096)) {
		/* rule 1 (docs/ERRORS.md) */
		bad_field(err, m, req, PEV_E2BIG, "size");
		pev__error_msg(err, "attr.size %u is outside what any kernel accepts (%d to one page, "
				    "4096 bytes)",
			       a->size, PEV_ATTR_SIZE_VER0);
		pev__error_hint(err, "let perfev choose the size (pev_attr_encode sets it)");
		return PEV_E2BIG;
	}
	if (a->flags & ~PEV_ATTR_FLAGS_ALL) {
		/* rule 2 (docs/ERRORS.md) */
		bad_field(err, m, req, PEV_EINVAL, "flags");
		pev__error_msg(err, "reserved bit %d of the attribute flags is set (Linux 6.18 "
				    "defines bits 0-37)",
			       lowest_bit(a->flags & ~PEV_ATTR_FLAGS_ALL));
		return PEV_EINVAL;
	}
	if (a->aux_action & ~PEV_AUX_ACTION_ALL) {
		/* rule 3 (docs/ERRORS.md) */
		bad_field(err, m, req, PEV_EINVAL, "aux_action");
		pev__error_msg(err, "reserved bit %d of aux_action is set",
			       lowest_bit(a->aux_action & ~PEV_AUX_ACTION_ALL));
		return PEV_EINVAL;
	}
	if (a->reserved_2) {
		/* rule 4 (docs/ERRORS.md) */
		bad_field(err, m, req, PEV_EINVAL, "__reserved_2");
		pev__error_msg(err, "the reserved field after sample_max_stack is 0x%x, not 0",
			       a->reserved_2);
		return PEV_EINVAL;
	}
	if (a->sample_type & ~PEV_SAMPLE_ALL) {
		/* rule 5 (docs/ERRORS.md) */
		bad_field(err, m, req, PEV_EINVAL, "sample_type");
		pev__error_msg(err, "sample_type bit %d is not defined (Linux 6.18 defines bits 0-24)",
			       lowest_bit(a->sample_type & ~PEV_SAMPLE_ALL));
		return PEV_EINVAL;
	}
	if (a->read_format & ~PEV_FORMAT_ALL) {
		/* rule 6 (docs/ERRORS.md) */
		bad_field(err, m, req, PEV_EINVAL, "read_format");
		pev__error_msg(err, "read_format bit %d is not defined (Linux 6.18 defines bits 0-4)",
			       lowest_bit(a->read_format & ~PEV_FORMAT_ALL));
		return PEV_EINVAL;
	}
	return 0;
}

static int check_sampling(const struct pev_machine *m, const struct pev_open_request *req,
			  struct pev_error *err)
{
	const struct pev_attr *a = req->attr;

	if ((a->flags & PEV_ATTR_FREQ) && m && m->max_sample_rate != PEV_UNKNOWN &&
	    a->sample_freq > (uint64_t)m->max_sample_rate) {
		/* rule 17 (docs/ERRORS.md) */
		bad_field(err, m, req, PEV_EINVAL, "sample_freq");
		pev__error_msg(err, "sample_freq %" PRIu64 " Hz is above this machine's limit of %d "
				    "Hz (kernel.perf_event_max_sample_rate)",
			       a->sample_freq, m->max_sample_rate);
		pev__error_hint(err, "sample at %d Hz or less", m->max_sample_rate);
		/* The sysctl is an int: a rate above INT_MAX cannot be allowed at all. */
		if (a->sample_freq <= INT_MAX)
			pev__error_hint(err,
					"or raise the limit: sysctl kernel.perf_event_max_sample_rate=%" PRIu64,
					a->sample_freq);
		return PEV_EINVAL;
	}
	if (!(a->flags & PEV_ATTR_FREQ) && (a->sample_period >> 63)) {
		/* rule 18 (docs/ERRORS.md) */
		bad_field(err, m, req, PEV_EINVAL, "sample_period");
		pev__error_msg(err, "sample_period 0x%" PRIx64 " has bit 63 set; periods must be "
				    "below 2^63",
			       a->sample_period);
		return PEV_EINVAL;
	}
	if ((a->sample_type & PEV_SAMPLE_CALLCHAIN) && m && m->max_stack != PEV_UNKNOWN &&
	    a->sample_max_stack > m->max_stack) {
		/* rule 19 (docs/ERRORS.md) */
		bad_field(err, m, req, PEV_EOVERFLOW, "sample_max_stack");
		pev__error_msg(err, "sample_max_stack %u frames is above this machine's limit of %d "
				    "(kernel.perf_event_max_stack)",
			       a->sample_max_stack, m->max_stack);
		pev__error_hint(err, "ask for %d frames or fewer", m->max_stack);
		pev__error_hint(err, "or raise the limit: sysctl kernel.perf_event_max_stack=%u",
				a->sample_max_stack);
		return PEV_EOVERFLOW;
	}
	if ((a->sample_type & PEV_SAMPLE_WEIGHT) && (a->sample_type & PEV_SAMPLE_WEIGHT_STRUCT)) {
		/* rule 20 (docs/ERRORS.md) */
		bad_field(err, m, req, PEV_EINVAL, "sample_type");
		pev__error_msg(err, "sample_type has both WEIGHT and WEIGHT_STRUCT; they are two "
				    "layouts of the same field");
		pev__error_hint(err, "keep one of PEV_SAMPLE_WEIGHT and PEV_SAMPLE_WEIGHT_STRUCT");
		return PEV_EINVAL;
	}
	if (a->sample_type & PEV_SAMPLE_STACK_USER) {
		if (a->sample_stack_user >= 0xffff || a->sample_stack_user % 8) {
			/* rule 21 (docs/ERRORS.md) */
			bad_field(err, m, req, PEV_EINVAL, "sample_stack_user");
			pev__error_msg(err, "sample_stack_user %u bytes must be a multiple of 8 "
					    "below 65535 (a sample is at most 64 KiB)",
				       a->sample_stack_user);
			pev__error_hint(err, "use 8192 (perf's default) or another multiple of 8 up to 65528");
			return PEV_EINVAL;
		}
	}
	if (a->sample_type & PEV_SAMPLE_BRANCH_STACK) {
		uint64_t b = a->branch_sample_type;
		if (b & ~PEV_BRANCH_ALL) {
			/* rule 22 (docs/ERRORS.md) */
			bad_field(err, m, req, PEV_EINVAL, "branch_sample_type");
			pev__error_msg(err, "branch_sample_type bit %d is not defined (Linux 6.18 "
					    "defines bits 0-19)",
				       lowest_bit(b & ~PEV_BRANCH_ALL));
			return PEV_EINVAL;
		}
		if (!(b & ~PEV_BRANCH_PLM_ALL)) {
			/* rule 23 (docs/ERRORS.md) */
			bad_field(err, m, req, PEV_EINVAL, "branch_sample_type");
			pev__error_msg(err, "sample_type asks for branch stacks but branch_sample_type "
					    "0x%" PRIx64 " names no kind of branch",
				       b);
			pev__error_hint(err, "add a branch filter such as PEV_BRANCH_ANY");
			return PEV_EINVAL;
		}
	}
	if ((a->flags & PEV_ATTR_INHERIT) && (a->sample_type & PEV_SAMPLE_READ) &&
	    !(a->sample_type & PEV_SAMPLE_TID)) {
		/* rule 24 (docs/ERRORS.md) */
		bad_field(err, m, req, PEV_EINVAL, "sample_type");
		pev__error_msg(err, "an inherited event with PEV_SAMPLE_READ must also sample "
				    "PEV_SAMPLE_TID, so each value can be tied to its thread");
		pev__error_hint(err, "add PEV_SAMPLE_TID to sample_type, or drop inherit");
		return PEV_EINVAL;
	}
	return 0;
}

/*
 * remove_on_exec and sigtrap (Linux 5.13): the kernel refuses sigtrap without
 * remove_on_exec (a program exec'd later would get a SIGTRAP it has no
 * handler for), remove_on_exec with enable_on_exec, and sigtrap on an event
 * that follows no task (CPU-wide or cgroup): the signal goes to the task that
 * overflowed the event.
 */
static int check_exec_and_sigtrap(const struct pev_machine *m, const struct pev_open_request *req,
				  struct pev_error *err)
{
	const struct pev_attr *a = req->attr;
	bool sigtrap = (a->flags & PEV_ATTR_SIGTRAP) != 0;
	bool remove = (a->flags & PEV_ATTR_REMOVE_ON_EXEC) != 0;

	/* kernel_version is 0 in the facts pev_counter_open gathers for a check: unknown. */
	if ((sigtrap || remove) && m && m->kernel_version > 0 &&
	    m->kernel_version < (5 << 16 | 13 << 8)) {
		/* rule 31 (docs/ERRORS.md) */
		/* Older kernels know neither bit, nor attr.size 128 that sig_data needs. */
		int code = a->sig_data ? PEV_E2BIG : PEV_EINVAL;
		const char *field = a->sig_data ? "sig_data" : sigtrap ? "sigtrap" : "remove_on_exec";

		bad_field(err, m, req, code, field);
		pev__error_msg(err, "%s needs Linux 5.13 or later, and this kernel is %s", field,
			       m->kernel_release);
		pev__error_hint(err, "run on Linux 5.13 or later");
		if (sigtrap)
			pev__error_hint(err, "or drop sigtrap and get an asynchronous signal per "
					     "overflow with pev_counter_notify() (any kernel)");
		return code;
	}
	if (sigtrap && !remove) {
		/* rule 15 (docs/ERRORS.md) */
		bad_field(err, m, req, PEV_EINVAL, "sigtrap");
		pev__error_msg(err, "sigtrap requires remove_on_exec, so a signal cannot reach a "
				    "program exec'd later that does not expect it");
		pev__error_hint(err, "set remove_on_exec together with sigtrap");
		return PEV_EINVAL;
	}
	if (remove && (a->flags & PEV_ATTR_ENABLE_ON_EXEC)) {
		/* rule 32 (docs/ERRORS.md) */
		bad_field(err, m, req, PEV_EINVAL, "enable_on_exec");
		pev__error_msg(err, "enable_on_exec and remove_on_exec contradict each other: the same "
				    "execve would enable the event and remove it");
		pev__error_hint(err, sigtrap ? "drop enable_on_exec (sigtrap needs remove_on_exec) and "
					       "start the event with pev_counter_enable()"
					     : "keep one of enable_on_exec and remove_on_exec");
		return PEV_EINVAL;
	}
	if (sigtrap && (req->pid == -1 || (req->flags & PEV_FLAG_PID_CGROUP))) {
		/* rule 33 (docs/ERRORS.md) */
		bad_field(err, m, req, PEV_EINVAL, "sigtrap");
		pev__error_msg(err, "sigtrap sends SIGTRAP to the task whose work overflows the event, "
				    "but this event follows no task: it counts %s",
			       (req->flags & PEV_FLAG_PID_CGROUP) ? "the tasks of a cgroup"
								  : "every task of a CPU");
		pev__error_hint(err, "open it on a thread or a process (pev_target_self(), "
				     "pev_target_thread(), pev_target_process())");
		pev__error_hint(err, "or drop sigtrap and get a signal per overflow of the CPU-wide "
				     "event with pev_counter_notify()");
		return PEV_EINVAL;
	}
	return 0;
}

static int check_flags(const struct pev_machine *m, const struct pev_open_request *req,
		       struct pev_error *err)
{
	const struct pev_attr *a = req->attr;
	int r;

	if ((a->flags & PEV_ATTR_INHERIT_THREAD) && !(a->flags & PEV_ATTR_INHERIT)) {
		/* rule 14 (docs/ERRORS.md) */
		bad_field(err, m, req, PEV_EINVAL, "inherit_thread");
		pev__error_msg(err, "inherit_thread narrows inherit, which is not set");
		pev__error_hint(err, "use inherit mode PEV_INHERIT_THREADS (sets both)");
		return PEV_EINVAL;
	}
	if ((r = check_exec_and_sigtrap(m, req, err)) < 0)
		return r;
	if ((a->flags & PEV_ATTR_USE_CLOCKID) && !clock_supported(a->clockid)) {
		/* rule 16 (docs/ERRORS.md) */
		bad_field(err, m, req, PEV_EINVAL, "clockid");
		pev__error_msg(err, "clockid %d is not a clock perf events can use", a->clockid);
		pev__error_hint(err, "use CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW, CLOCK_REALTIME, "
				     "CLOCK_BOOTTIME or CLOCK_TAI");
		return PEV_EINVAL;
	}
	return 0;
}

/* A breakpoint length the kernel takes: 1, 2, 4 or 8; arm64 (byte masks) any of 1 to 8. */
static bool bp_len_valid(uint64_t len, bool arm64)
{
	return arm64 ? len >= 1 && len <= 8 : len == 1 || len == 2 || len == 4 || len == 8;
}

static int check_breakpoint(const struct pev_machine *m, const struct pev_open_request *req,
			    struct pev_error *err)
{
	const struct pev_attr *a = req->attr;
	/* Without facts (m NULL) the architecture's rules are not applied. */
	int word = m ? pev__x86_word_size(m) : 0;
	bool x86 = word != 0;
	bool arm64 = m && strcmp(m->arch, "aarch64") == 0;
	uint32_t t = a->bp_type;

	if (a->type != PEV_TYPE_BREAKPOINT)
		return 0;
	if (t == PEV_BP_EMPTY || t > PEV_BP_X || ((t & PEV_BP_X) && (t & PEV_BP_RW))) {
		/* rule 25 (docs/ERRORS.md) */
		bad_field(err, m, req, PEV_EINVAL, "bp_type");
		pev__error_msg(err, "breakpoint kind %u is not one of r, w, rw or x (x cannot be "
				    "combined with r or w)",
			       t);
		return PEV_EINVAL;
	}
	if (x86 && t == PEV_BP_R) {
		/* rule 26 (docs/ERRORS.md) */
		bad_field(err, m, req, PEV_EINVAL, "bp_type");
		pev__error_msg(err, "x86 debug registers cannot trap reads alone");
		pev__error_hint(err, "use rw (PEV_BP_RW): it traps reads and writes");
		return PEV_EINVAL;
	}
	if (t == PEV_BP_X) {
		if (x86 && a->bp_len != (uint64_t)word) {
			/* rule 27 (docs/ERRORS.md) */
			bad_field(err, m, req, PEV_EINVAL, "bp_len");
			pev__error_msg(err, "an execute breakpoint on x86 covers one instruction "
					    "fetch and must have length %d, not %" PRIu64,
				       word, a->bp_len);
			pev__error_hint(err, "set bp_len to %d (mem:ADDR:x without a length)", word);
			return PEV_EINVAL;
		}
	} else if (!bp_len_valid(a->bp_len, arm64)) {
		/* rule 28 (docs/ERRORS.md) */
		bad_field(err, m, req, PEV_EINVAL, "bp_len");
		pev__error_msg(err, "breakpoint length %" PRIu64 " is not %s bytes", a->bp_len,
			       arm64 ? "1 to 8" : "1, 2, 4 or 8");
		return PEV_EINVAL;
	} else if (x86 && (a->bp_addr & (a->bp_len - 1))) {
		/* rule 29 (docs/ERRORS.md) */
		bad_field(err, m, req, PEV_EINVAL, "bp_addr");
		pev__error_msg(err, "breakpoint address 0x%" PRIx64 " is not aligned to its length "
				    "%" PRIu64 "",
			       a->bp_addr, a->bp_len);
		pev__error_hint(err, "align the address down to a multiple of %" PRIu64
				     ", or use a smaller length",
				a->bp_len);
		return PEV_EINVAL;
	}
	if (pev__kernel_address(m, a->bp_addr) && (a->flags & PEV_ATTR_EXCLUDE_KERNEL)) {
		/* rule 30 (docs/ERRORS.md) */
		bad_field(err, m, req, PEV_EINVAL, "bp_addr");
		pev__error_msg(err, "breakpoint address 0x%" PRIx64 " is in the kernel, but the "
				    "event excludes the kernel (:u)",
			       a->bp_addr);
		pev__error_hint(err, "drop :u (exclude_kernel) to watch kernel memory, which needs "
				     "CAP_PERFMON or perf_event_paranoid <= 1");
		return PEV_EINVAL;
	}
	return 0;
}

PEV_API int pev_attr_check(const struct pev_machine *m, const struct pev_open_request *req,
			   struct pev_error *err)
{
	int r;

	pev__error_clear(err);
	if (!req || !req->attr)
		return pev__bad_arg(err, "pev_attr_check", "req", "needs a request with an attr");
	if ((r = check_reserved(m, req, err)) < 0)
		return r;
	if ((r = check_target(m, req, err)) < 0)
		return r;
	if ((r = check_flags(m, req, err)) < 0)
		return r;
	if ((r = check_sampling(m, req, err)) < 0)
		return r;
	if ((r = check_breakpoint(m, req, err)) < 0)
		return r;
	return 0;
}
