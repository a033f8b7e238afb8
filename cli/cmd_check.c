/* SPDX-License-Identifier: MIT */
/*
 * cmd_check.c - `perfev check`: the machine's facts, then for each class of
 * event whether it opens here, and the fix when it does not.
 */
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage[] = "perfev check [--json]";

enum check_status { CHECK_YES, CHECK_PARTIAL, CHECK_NO };

struct check {
	const char *id;   /* stable key for --json */
	const char *what; /* human name */
	enum check_status status;
	char detail[PEV_ERROR_MESSAGE_MAX + 64];
	char fix[PEV_ERROR_MESSAGE_MAX];
};

/* Something for a breakpoint to watch. */
static volatile int watched_variable;

static const char *status_word(enum check_status s)
{
	return s == CHECK_YES ? "yes" : s == CHECK_PARTIAL ? "partial" : "no";
}

/*
 * The reason part of a diagnosis: the message after "cannot open 'x' on ...: ",
 * without the sentences that repeat facts the machine section shows (the
 * paranoid level, the process's capabilities). Returns buf.
 */
static const char *reason_of(const struct pev_error *err, char *buf, size_t size)
{
	static const char *const shown_above[] = {"perf_event_paranoid is ", "This process (uid "};
	const char *colon = strstr(err->message, ": ");
	const char *p = colon && strncmp(err->message, "cannot open", 11) == 0 ? colon + 2
										: err->message;

	buf[0] = '\0';
	while (*p) {
		const char *end = strstr(p, ". ");
		size_t len = end ? (size_t)(end - p) + 1 : strlen(p);
		bool skip = false;
		for (size_t i = 0; i < sizeof(shown_above) / sizeof(shown_above[0]); i++)
			if (strncmp(p, shown_above[i], strlen(shown_above[i])) == 0)
				skip = true;
		if (!skip)
			snprintf(buf + strlen(buf), size - strlen(buf), "%s%.*s", buf[0] ? " " : "",
				 (int)len, p);
		p += len;
		while (*p == ' ')
			p++;
	}
	return buf;
}

/*
 * Copies the hint lines that do not suggest ':u' (a partial result already
 * is user space only), dropping the "or " of what becomes the first line.
 */
static void keep_fixes_without_user_only(char *out, size_t size, const char *hint)
{
	out[0] = '\0';
	for (const char *line = hint; *line;) {
		size_t len = strcspn(line, "\n");
		if (!memmem(line, len, "':u'", 4)) {
			bool first = out[0] == '\0';
			const char *text = line;
			size_t n = len;
			if (first && n > 3 && strncmp(text, "or ", 3) == 0)
				text += 3, n -= 3;
			snprintf(out + strlen(out), size - strlen(out), "%s%.*s", first ? "" : "\n",
				 (int)n, text);
		}
		line += len + (line[len] == '\n');
	}
}

static void record_failure(struct check *c, const struct pev_error *err)
{
	c->status = CHECK_NO;
	reason_of(err, c->detail, sizeof(c->detail));
	snprintf(c->fix, sizeof(c->fix), "%s", err->hint);
}

/*
 * Opens ev with opts on target. When the kernel-side version is refused for
 * lack of privilege, tries again user-space only (":u") and reports partial.
 */
static void try_event(struct check *c, const struct pev_event *ev, const struct pev_opts *opts,
		      const struct pev_target *target, const char *ok_detail)
{
	/* Tracepoints fire in the kernel: a user-space-only one opens but counts nothing. */
	bool user_only_counts = ev->type != PEV_TYPE_TRACEPOINT;
	struct pev_opts o = *opts;
	struct pev_counter *counter;
	struct pev_error err;

	int r = pev_counter_open(ev, &o, target, NULL, &counter, &err);
	if (r == 0) {
		pev_counter_close(counter);
		c->status = CHECK_YES;
		snprintf(c->detail, sizeof(c->detail), "%s", ok_detail);
		return;
	}
	if ((r == PEV_EACCES || r == PEV_EPERM) && !o.exclude_kernel && user_only_counts) {
		struct pev_error first = err;
		o.exclude_kernel = true;
		o.exclude_hv = true;
		if (pev_counter_open(ev, &o, target, NULL, &counter, &err) == 0) {
			pev_counter_close(counter);
			c->status = CHECK_PARTIAL;
			char reason[PEV_ERROR_MESSAGE_MAX];
			snprintf(c->detail, sizeof(c->detail), "user space only (':u'); with the kernel: %s",
				 reason_of(&first, reason, sizeof(reason)));
			keep_fixes_without_user_only(c->fix, sizeof(c->fix), first.hint);
			return;
		}
		/* A refusal that is not about privilege is the more basic problem. */
		record_failure(c, err.code == PEV_EACCES || err.code == PEV_EPERM ? &first : &err);
		return;
	}
	record_failure(c, &err);
}

static void check_plain(struct check *c, const char *name, const char *ok_detail)
{
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_event ev;
	struct pev_target self = pev_target_self();

	pev_event_lookup(name, &ev);
	o.disabled = true;
	try_event(c, &ev, &o, &self, ok_detail);
}

static void check_tracepoint(struct check *c, const struct pev_machine *m)
{
	char path[256], id_text[32];
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_target self = pev_target_self();

	if (!m->tracefs_mounted) {
		c->status = CHECK_NO;
		snprintf(c->detail, sizeof(c->detail),
			 "tracefs is not mounted, so tracepoints cannot be looked up by name "
			 "(the tracepoint PMU itself is %s)",
			 pev_machine_pmu_name(m, PEV_TYPE_TRACEPOINT) ? "present" : "missing");
		snprintf(c->fix, sizeof(c->fix),
			 "%s", m->tracefs_supported
				       ? "mount it (as root): mount -t tracefs nodev /sys/kernel/tracing"
				       : "the kernel lacks tracefs (CONFIG_TRACING)");
		return;
	}
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/id", m->tracefs_path);
	FILE *f = fopen(path, "re");
	uint64_t id = 0;
	if (!f || !fgets(id_text, sizeof(id_text), f) || sscanf(id_text, "%" SCNu64, &id) != 1) {
		if (f)
			fclose(f);
		c->status = CHECK_NO;
		snprintf(c->detail, sizeof(c->detail), "cannot read %s (tracefs is mounted at %s)",
			 path, m->tracefs_path);
		snprintf(c->fix, sizeof(c->fix), "run as root, or make %s/events readable",
			 m->tracefs_path);
		return;
	}
	fclose(f);
	struct pev_event ev = pev_event_tracepoint(id);
	ev.name = "sched:sched_switch";
	o.disabled = true;
	try_event(c, &ev, &o, &self, "sched:sched_switch opens (tracefs at the mount point)");
	if (c->status == CHECK_YES)
		snprintf(c->detail, sizeof(c->detail), "sched:sched_switch opens (tracefs at %s)",
			 m->tracefs_path);
}

static void check_breakpoint(struct check *c, const struct pev_machine *m)
{
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_target self = pev_target_self();
	struct pev_event ev = pev_event_breakpoint((uint64_t)(uintptr_t)&watched_variable,
						   sizeof(watched_variable), PEV_BP_W);
	char detail[128];

	o.disabled = true;
	o.exclude_kernel = true;
	if (m->debug_registers)
		snprintf(detail, sizeof(detail), "a write watchpoint opens; %d debug registers per "
						 "thread",
			 m->debug_registers);
	else
		snprintf(detail, sizeof(detail), "a write watchpoint opens");
	try_event(c, &ev, &o, &self, detail);
}

static void check_uprobe(struct check *c, const struct pev_machine *m)
{
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_target self = pev_target_self();
	struct pev_event ev;
	struct pev_error err;
	char file[768];
	uint64_t offset;

	if (!m->has_uprobe_pmu) {
		c->status = CHECK_NO;
		snprintf(c->detail, sizeof(c->detail), "this kernel has no uprobe PMU");
		snprintf(c->fix, sizeof(c->fix), "boot a kernel with CONFIG_UPROBE_EVENTS=y");
		return;
	}
	if (!cli_code_location((const void *)(uintptr_t)cmd_check, file, sizeof(file), &offset)) {
		c->status = CHECK_NO;
		snprintf(c->detail, sizeof(c->detail), "cannot find perfev's own code in /proc/self/maps");
		return;
	}
	if (pev_event_uprobe(&ev, file, offset, false, NULL, &err) < 0) {
		record_failure(c, &err);
		return;
	}
	ev.name = "uprobe on perfev";
	o.disabled = true;
	o.exclude_kernel = true;
	try_event(c, &ev, &o, &self, "a uprobe on perfev's own code opens");
}

static void check_kprobe(struct check *c, const struct pev_machine *m)
{
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_target self = pev_target_self();
	struct pev_event ev;
	struct pev_error err;

	if (!m->has_kprobe_pmu) {
		c->status = CHECK_NO;
		snprintf(c->detail, sizeof(c->detail),
			 "this kernel has no kprobe PMU (no /sys/bus/event_source/devices/kprobe)");
		snprintf(c->fix, sizeof(c->fix),
			 "kprobes need CONFIG_KPROBE_EVENTS; where the kernel has them they can also "
			 "be created through tracefs (kprobe_events) and counted as tracepoints");
		return;
	}
	if (pev_event_kprobe(&ev, "vfs_read", 0, false, NULL, &err) < 0) {
		record_failure(c, &err);
		return;
	}
	ev.name = "kprobe on vfs_read";
	o.disabled = true;
	try_event(c, &ev, &o, &self, "a kprobe on vfs_read opens");
}

static void check_cpu_wide(struct check *c)
{
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_target cpu0 = pev_target_cpu(0);
	struct pev_event ev = pev_event_software(PEV_SW_CPU_CLOCK);

	o.disabled = true;
	try_event(c, &ev, &o, &cpu0, "cpu-clock opens on every task of CPU 0");
}

static void check_sampling(struct check *c, bool callchain)
{
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_target self = pev_target_self();
	struct pev_event ev = pev_event_software(PEV_SW_CPU_CLOCK);

	o.disabled = true;
	o.sample_period = 1000000;
	o.sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_TID | PEV_SAMPLE_TIME;
	if (callchain)
		o.sample_type |= PEV_SAMPLE_CALLCHAIN;
	try_event(c, &ev, &o, &self,
		  callchain ? "cpu-clock samples with callchains open"
			    : "cpu-clock samples including the kernel open");
}

static void check_ring(struct check *c, const struct pev_machine *m)
{
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_target self = pev_target_self();
	struct pev_event ev = pev_event_software(PEV_SW_DUMMY);
	struct pev_counter *counter;
	struct pev_ring *ring;
	struct pev_error err;
	const size_t pages = 8;
	int cpus = m->cpus_online > 0 ? m->cpus_online : 1;

	o.disabled = true;
	o.exclude_kernel = true;
	o.sample_period = 1;
	if (pev_counter_open(&ev, &o, &self, NULL, &counter, &err) < 0) {
		record_failure(c, &err);
		return;
	}
	if (pev_ring_open(counter, 0, pages, &ring, &err) < 0) {
		record_failure(c, &err);
		pev_counter_close(counter);
		return;
	}
	pev_ring_close(ring);
	pev_counter_close(counter);
	c->status = CHECK_YES;
	if (m->mlock_kb == PEV_UNKNOWN)
		snprintf(c->detail, sizeof(c->detail),
			 "1+%zu pages map; the locked-memory budget is unknown "
			 "(kernel.perf_event_mlock_kb unreadable)",
			 pages);
	else if (m->cap_ipc_lock || m->paranoid == -1)
		snprintf(c->detail, sizeof(c->detail),
			 "1+%zu pages map; this process has %s, so the locked-memory budget "
			 "(perf_event_mlock_kb %d KiB per CPU) does not limit it",
			 pages, m->cap_ipc_lock ? "CAP_IPC_LOCK" : "perf_event_paranoid -1",
			 m->mlock_kb);
	else
		snprintf(c->detail, sizeof(c->detail),
			 "1+%zu pages map; budget: perf_event_mlock_kb %d KiB per CPU (%d KiB on %d "
			 "CPUs) plus RLIMIT_MEMLOCK",
			 pages, m->mlock_kb, m->mlock_kb * cpus, cpus);
}

static int run_checks(struct check *checks, const struct pev_machine *m)
{
	int n = 0;

	checks[n] = (struct check){.id = "software", .what = "software events"};
	check_plain(&checks[n++], "task-clock", "task-clock opens");
	checks[n] = (struct check){.id = "hardware", .what = "hardware events"};
	check_plain(&checks[n++], "cycles", "cycles opens");
	checks[n] = (struct check){.id = "cache", .what = "cache events"};
	check_plain(&checks[n++], "L1-dcache-load-misses", "L1-dcache-load-misses opens");
	checks[n] = (struct check){.id = "tracepoint", .what = "tracepoints"};
	check_tracepoint(&checks[n++], m);
	checks[n] = (struct check){.id = "breakpoint", .what = "breakpoints"};
	check_breakpoint(&checks[n++], m);
	checks[n] = (struct check){.id = "uprobe", .what = "uprobes"};
	check_uprobe(&checks[n++], m);
	checks[n] = (struct check){.id = "kprobe", .what = "kprobes"};
	check_kprobe(&checks[n++], m);
	checks[n] = (struct check){.id = "cpu_wide", .what = "CPU-wide counting"};
	check_cpu_wide(&checks[n++]);
	checks[n] = (struct check){.id = "kernel_sampling", .what = "kernel-side sampling"};
	check_sampling(&checks[n++], false);
	checks[n] = (struct check){.id = "callchains", .what = "callchains"};
	check_sampling(&checks[n++], true);
	checks[n] = (struct check){.id = "ring_buffer", .what = "ring buffer (mlock budget)"};
	check_ring(&checks[n++], m);
	return n;
}

static void limit_text(uint64_t v, uint64_t unit, char *buf, size_t size)
{
	if (v == PEV_UNLIMITED)
		snprintf(buf, size, "unlimited");
	else
		snprintf(buf, size, "%" PRIu64, v / unit);
}

/* A fact as text: the number, or "unknown". Returns buf. */
static const char *fact(int v, char *buf, size_t size)
{
	if (v == PEV_UNKNOWN)
		snprintf(buf, size, "unknown");
	else
		snprintf(buf, size, "%d", v);
	return buf;
}

static void print_facts(const struct pev_machine *m)
{
	char a[32], b[32], c[32], d[32];

	printf("machine\n");
	printf("  %-20s %s (%s)\n", "kernel", m->kernel_release, m->arch);
	printf("  %-20s %s\n", "perf events", m->perf_events ? "supported" : "not in this kernel");
	if (m->attr_size > 0)
		printf("  %-20s %d bytes expected by the kernel\n", "attr size", m->attr_size);
	printf("  %-20s %s%s%s%s\n", "virtualization",
	       m->hypervisor ? "virtual machine" : "none detected", m->vm_vendor[0] ? " (" : "",
	       m->vm_vendor, m->vm_vendor[0] ? ")" : "");
	printf("  %-20s %s%s%s\n", "cpu", m->cpu_vendor, m->cpu_model[0] ? ", " : "", m->cpu_model);
	if (m->has_core_pmu)
		printf("  %-20s %s%s\n", "hardware PMU", m->core_pmus, m->hybrid ? " (hybrid)" : "");
	else
		printf("  %-20s none%s\n", "hardware PMU",
		       m->hypervisor ? " (the hypervisor does not expose the CPU's counters)" : "");
	printf("  %-20s", "PMUs");
	for (int i = 0; i < m->nr_pmus; i++)
		printf(" %s(%u)", m->pmus[i].name, m->pmus[i].type);
	printf("\n");
	printf("  %-20s %s online (%s)\n", "CPUs", fact(m->cpus_online, a, sizeof(a)),
	       m->cpus_online_list);
	printf("  %-20s %s: %s\n", "perf_event_paranoid", fact(m->paranoid, a, sizeof(a)),
	       pev_paranoid_meaning(m->paranoid));
	printf("  %-20s uid %d; CAP_PERFMON %s, CAP_SYS_ADMIN %s, CAP_SYS_PTRACE %s\n", "privileges",
	       (int)m->euid, m->cap_perfmon ? "yes" : "no", m->cap_sys_admin ? "yes" : "no",
	       m->cap_sys_ptrace ? "yes" : "no");
	printf("  %-20s %s%s\n", "seccomp",
	       m->seccomp == 2 ? "filter active" : m->seccomp == 1 ? "strict" : m->seccomp == 0 ? "none" : "unknown",
	       m->in_container ? "; running in a container" : "");
	printf("  %-20s max sample rate %s Hz, max stack %s frames, mlock %s KiB per CPU\n",
	       "limits", fact(m->max_sample_rate, a, sizeof(a)), fact(m->max_stack, b, sizeof(b)),
	       fact(m->mlock_kb, c, sizeof(c)));
	limit_text(m->nofile_soft, 1, a, sizeof(a));
	limit_text(m->nofile_hard, 1, b, sizeof(b));
	limit_text(m->memlock_soft, 1024, c, sizeof(c));
	limit_text(m->memlock_hard, 1024, d, sizeof(d));
	printf("  %-20s open files %s/%s, locked memory %s/%s KiB (soft/hard)\n", "rlimits", a, b, c,
	       d);
	if (m->debug_registers)
		printf("  %-20s %d\n", "debug registers", m->debug_registers);
	printf("  %-20s %s%s\n", "tracefs",
	       m->tracefs_mounted ? "mounted at " : m->tracefs_supported ? "not mounted" : "not supported",
	       m->tracefs_path);
}

static void print_checks(const struct check *checks, int n)
{
	printf("\nwhat works here\n");
	for (int i = 0; i < n; i++) {
		char fix[PEV_ERROR_MESSAGE_MAX + 8];
		printf("  %-27s %-8s ", checks[i].what, status_word(checks[i].status));
		cli_print_wrapped(stdout, checks[i].detail, 39, 100);
		const char *line = checks[i].fix;
		while (*line && checks[i].status != CHECK_YES) {
			int len = (int)strcspn(line, "\n");
			snprintf(fix, sizeof(fix), "%.*s", len, line);
			printf("  %-27s %-8s fix: ", "", "");
			cli_print_wrapped(stdout, fix, 44, 100);
			line += len + (line[len] == '\n');
		}
	}
}

static json_object *json_limit(uint64_t v)
{
	return v == PEV_UNLIMITED ? NULL : json_object_new_int64((int64_t)v);
}

static json_object *json_fact_int(int v)
{
	return v == PEV_UNKNOWN ? NULL : json_object_new_int(v);
}

static void print_json(const struct pev_machine *m, const struct check *checks, int n)
{
	json_object *root = json_object_new_object(), *mj = json_object_new_object();
	json_object *pmus = json_object_new_array(), *cj = json_object_new_array();

	json_object_object_add(mj, "kernel_release", json_object_new_string(m->kernel_release));
	json_object_object_add(mj, "arch", json_object_new_string(m->arch));
	json_object_object_add(mj, "perf_events", json_object_new_boolean(m->perf_events));
	json_object_object_add(mj, "attr_size", m->attr_size > 0 ? json_object_new_int(m->attr_size) : NULL);
	json_object_object_add(mj, "paranoid", json_fact_int(m->paranoid));
	json_object_object_add(mj, "paranoid_meaning",
			       json_object_new_string(pev_paranoid_meaning(m->paranoid)));
	json_object_object_add(mj, "max_sample_rate", json_fact_int(m->max_sample_rate));
	json_object_object_add(mj, "max_stack", json_fact_int(m->max_stack));
	json_object_object_add(mj, "mlock_kb", json_fact_int(m->mlock_kb));
	json_object_object_add(mj, "euid", json_object_new_int((int)m->euid));
	json_object_object_add(mj, "cap_perfmon", json_object_new_boolean(m->cap_perfmon));
	json_object_object_add(mj, "cap_sys_admin", json_object_new_boolean(m->cap_sys_admin));
	json_object_object_add(mj, "cap_sys_ptrace", json_object_new_boolean(m->cap_sys_ptrace));
	json_object_object_add(mj, "seccomp", json_fact_int(m->seccomp));
	json_object_object_add(mj, "in_container", json_object_new_boolean(m->in_container));
	json_object_object_add(mj, "nofile_soft", json_limit(m->nofile_soft));
	json_object_object_add(mj, "nofile_hard", json_limit(m->nofile_hard));
	json_object_object_add(mj, "memlock_soft_bytes", json_limit(m->memlock_soft));
	json_object_object_add(mj, "memlock_hard_bytes", json_limit(m->memlock_hard));
	json_object_object_add(mj, "hypervisor", json_object_new_boolean(m->hypervisor));
	json_object_object_add(mj, "vm_vendor", json_object_new_string(m->vm_vendor));
	json_object_object_add(mj, "cpu_vendor", json_object_new_string(m->cpu_vendor));
	json_object_object_add(mj, "cpu_model", json_object_new_string(m->cpu_model));
	json_object_object_add(mj, "hardware_pmu", json_object_new_boolean(m->has_core_pmu));
	json_object_object_add(mj, "core_pmus", json_object_new_string(m->core_pmus));
	json_object_object_add(mj, "debug_registers", json_object_new_int(m->debug_registers));
	json_object_object_add(mj, "cpus_online", json_fact_int(m->cpus_online));
	json_object_object_add(mj, "cpus_online_list", json_object_new_string(m->cpus_online_list));
	for (int i = 0; i < m->nr_pmus; i++) {
		json_object *p = json_object_new_object();
		json_object_object_add(p, "name", json_object_new_string(m->pmus[i].name));
		json_object_object_add(p, "type", json_object_new_int64(m->pmus[i].type));
		json_object_array_add(pmus, p);
	}
	json_object_object_add(mj, "pmus", pmus);
	json_object_object_add(mj, "tracefs_supported", json_object_new_boolean(m->tracefs_supported));
	json_object_object_add(mj, "tracefs_mounted", json_object_new_boolean(m->tracefs_mounted));
	json_object_object_add(mj, "tracefs_path", json_object_new_string(m->tracefs_path));
	json_object_object_add(root, "machine", mj);
	for (int i = 0; i < n; i++) {
		json_object *c = json_object_new_object();
		json_object_object_add(c, "id", json_object_new_string(checks[i].id));
		json_object_object_add(c, "what", json_object_new_string(checks[i].what));
		json_object_object_add(c, "status", json_object_new_string(status_word(checks[i].status)));
		json_object_object_add(c, "works", json_object_new_boolean(checks[i].status != CHECK_NO));
		json_object_object_add(c, "detail", json_object_new_string(checks[i].detail));
		json_object_object_add(c, "fix", json_object_new_string(checks[i].fix));
		json_object_array_add(cj, c);
	}
	json_object_object_add(root, "checks", cj);
	printf("%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
							    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
}

int cmd_check(int argc, char **argv)
{
	static const struct option options[] = {
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool json = false;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "jh", options, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'h':
			printf("usage: %s\n\nReports this machine's facts and, for each class of "
			       "event, whether it opens here and how to fix it when not.\n",
			       usage);
			return 0;
		default:
			return cli_usage(usage);
		}
	}
	if (optind < argc) {
		cli_error("unexpected argument '%s'", argv[optind]);
		return cli_usage(usage);
	}

	struct pev_machine *m = calloc(1, sizeof(*m));
	struct check checks[16];
	if (!m) {
		cli_error("out of memory");
		return 1;
	}
	pev_machine_read(m, NULL);
	pev_machine_probe_attr_size(m);
	int n = run_checks(checks, m);
	if (json) {
		print_json(m, checks, n);
	} else {
		print_facts(m);
		print_checks(checks, n);
	}
	free(m);
	return 0;
}
