/* SPDX-License-Identifier: MIT */
/*
 * cmd_check.c - `perfev check`: the machine's facts, then for each class of
 * event whether it works here, proved by making it happen and counting
 * (perfev/capability.h), and the fix when it does not.
 */
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage[] = "perfev check [--json]";

/* The classes in the order they are shown, with their human names. */
static const struct {
	enum pev_cap cap;
	const char *what;
} classes[] = {
	{PEV_CAP_SOFTWARE, "software events"},
	{PEV_CAP_HARDWARE, "hardware events"},
	{PEV_CAP_CACHE, "cache events"},
	{PEV_CAP_TRACEPOINT, "tracepoints"},
	{PEV_CAP_BREAKPOINT, "breakpoints"},
	{PEV_CAP_UPROBE, "uprobes"},
	{PEV_CAP_KPROBE, "kprobes"},
	{PEV_CAP_CPU_WIDE, "CPU-wide counting"},
	{PEV_CAP_SAMPLING, "sampling"},
	{PEV_CAP_CALLCHAIN, "callchains"},
	{PEV_CAP_KERNEL_SAMPLING, "kernel-side sampling"},
	{PEV_CAP_RING, "ring buffer (mlock budget)"},
	{PEV_CAP_OFFCPU, "off-CPU (--off-cpu)"},
};

#define NR_CLASSES (sizeof(classes) / sizeof(classes[0]))

/* The yes/partial/no word of a verdict: a class that opens but never fires does not work. */
static const char *status_word(enum pev_cap_verdict v)
{
	return v == PEV_CAP_WORKS ? "yes" : v == PEV_CAP_PARTIAL ? "partial" : "no";
}

/*
 * The detail as shown: without the "cannot open 'x' on ...: " openings of
 * diagnoses and the sentences that repeat facts the machine section shows
 * (the paranoid level, the process's capabilities). Returns buf.
 */
static const char *shown_detail(const char *detail, char *buf, size_t size)
{
	static const char *const shown_above[] = {"perf_event_paranoid is ", "This process (uid "};
	const char *p = detail;

	buf[0] = '\0';
	while (*p) {
		const char *end = strstr(p, ". ");
		size_t len = end ? (size_t)(end - p) + 1 : strlen(p);
		const char *open = strstr(p, "cannot open '");
		bool skip = false;

		/* Drop the opening of a diagnosis inside this sentence. */
		if (open && open < p + len) {
			const char *colon = strstr(open, ": ");
			if (colon && colon < p + len) {
				snprintf(buf + strlen(buf), size - strlen(buf), "%s%.*s",
					 buf[0] && p != detail ? " " : "", (int)(open - p), p);
				len -= (size_t)(colon + 2 - p);
				p = colon + 2;
			}
		}
		for (size_t i = 0; i < sizeof(shown_above) / sizeof(shown_above[0]); i++)
			if (strncmp(p, shown_above[i], strlen(shown_above[i])) == 0)
				skip = true;
		if (!skip) {
			const char *sep = buf[0] && buf[strlen(buf) - 1] != ' ' ? " " : "";
			snprintf(buf + strlen(buf), size - strlen(buf), "%s%.*s", sep, (int)len, p);
		}
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

/* Runs every probe into caps (NR_CLASSES entries) and tidies what is shown. */
static void run_checks(struct pev_capability *caps, const struct pev_machine *m)
{
	for (size_t i = 0; i < NR_CLASSES; i++) {
		struct pev_capability *c = &caps[i];
		char buf[sizeof(c->detail)];

		*c = (struct pev_capability)PEV_CAPABILITY_INIT;
		if (pev_capability_probe(classes[i].cap, m, c) < 0) {
			c->verdict = PEV_CAP_UNAVAILABLE;
			snprintf(c->detail, sizeof(c->detail), "the probe could not run");
			continue;
		}
		shown_detail(c->detail, buf, sizeof(buf));
		snprintf(c->detail, sizeof(c->detail), "%s", buf);
		if (c->verdict == PEV_CAP_PARTIAL && (c->code == PEV_EACCES || c->code == PEV_EPERM)) {
			keep_fixes_without_user_only(buf, sizeof(buf), c->fix);
			snprintf(c->fix, sizeof(c->fix), "%s", buf);
		}
	}
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

/* The facts; text read from procfs, sysfs and the mount table may hold any byte (cli_shown). */
static void print_facts(const struct pev_machine *m)
{
	char a[32], b[32], c[32], d[32];

	printf("machine\n");
	printf("  %-20s %s (%s)\n", "kernel", cli_shown(m->kernel_release), cli_shown(m->arch));
	printf("  %-20s %s\n", "perf events", m->perf_events ? "supported" : "not in this kernel");
	if (m->attr_size > 0)
		printf("  %-20s %d bytes expected by the kernel\n", "attr size", m->attr_size);
	printf("  %-20s %s%s%s%s\n", "virtualization",
	       m->hypervisor ? "virtual machine" : "none detected", m->vm_vendor[0] ? " (" : "",
	       cli_shown(m->vm_vendor), m->vm_vendor[0] ? ")" : "");
	printf("  %-20s %s%s%s\n", "cpu", cli_shown(m->cpu_vendor),
	       m->cpu_vendor[0] && m->cpu_model[0] ? ", " : "", cli_shown(m->cpu_model));
	if (m->has_core_pmu)
		printf("  %-20s %s%s\n", "hardware PMU", cli_shown(m->core_pmus),
		       m->hybrid ? " (hybrid)" : "");
	else
		printf("  %-20s none%s\n", "hardware PMU",
		       m->hypervisor ? " (the hypervisor does not expose the CPU's counters)" : "");
	printf("  %-20s", "PMUs");
	for (int i = 0; i < m->nr_pmus; i++)
		printf(" %s(%u)", cli_shown(m->pmus[i].name), m->pmus[i].type);
	printf("\n");
	printf("  %-20s %s online (%s)\n", "CPUs", fact(m->cpus_online, a, sizeof(a)),
	       cli_shown(m->cpus_online_list));
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
	       cli_shown(m->tracefs_path));
}

static void print_checks(const struct pev_capability *caps)
{
	printf("\nwhat works here (each class made to happen and counted)\n");
	for (size_t i = 0; i < NR_CLASSES; i++) {
		const struct pev_capability *c = &caps[i];
		char fix[PEV_ERROR_MESSAGE_MAX + 8];
		printf("  %-27s %-8s ", classes[i].what, status_word(c->verdict));
		cli_print_wrapped(stdout, cli_shown(c->detail), 39, 100);
		const char *line = c->fix;
		while (*line && c->verdict != PEV_CAP_WORKS) {
			int len = (int)strcspn(line, "\n");
			snprintf(fix, sizeof(fix), "%.*s", len, line);
			printf("  %-27s %-8s fix: ", "", "");
			cli_print_wrapped(stdout, cli_shown(fix), 44, 100);
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

/* The document; every string goes through cli_json_string, so that it is valid UTF-8. */
static void print_json(const struct pev_machine *m, const struct pev_capability *caps)
{
	json_object *root = json_object_new_object(), *mj = json_object_new_object();
	json_object *pmus = json_object_new_array(), *cj = json_object_new_array();

	json_object_object_add(mj, "kernel_release", cli_json_string(m->kernel_release));
	json_object_object_add(mj, "arch", cli_json_string(m->arch));
	json_object_object_add(mj, "perf_events", json_object_new_boolean(m->perf_events));
	json_object_object_add(mj, "attr_size", m->attr_size > 0 ? json_object_new_int(m->attr_size) : NULL);
	json_object_object_add(mj, "paranoid", json_fact_int(m->paranoid));
	json_object_object_add(mj, "paranoid_meaning",
			       cli_json_string(pev_paranoid_meaning(m->paranoid)));
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
	json_object_object_add(mj, "vm_vendor", cli_json_string(m->vm_vendor));
	json_object_object_add(mj, "cpu_vendor", cli_json_string(m->cpu_vendor));
	json_object_object_add(mj, "cpu_model", cli_json_string(m->cpu_model));
	json_object_object_add(mj, "hardware_pmu", json_object_new_boolean(m->has_core_pmu));
	json_object_object_add(mj, "core_pmus", cli_json_string(m->core_pmus));
	json_object_object_add(mj, "debug_registers", json_object_new_int(m->debug_registers));
	json_object_object_add(mj, "cpus_online", json_fact_int(m->cpus_online));
	json_object_object_add(mj, "cpus_online_list", cli_json_string(m->cpus_online_list));
	for (int i = 0; i < m->nr_pmus; i++) {
		json_object *p = json_object_new_object();
		json_object_object_add(p, "name", cli_json_string(m->pmus[i].name));
		json_object_object_add(p, "type", json_object_new_int64(m->pmus[i].type));
		json_object_array_add(pmus, p);
	}
	json_object_object_add(mj, "pmus", pmus);
	json_object_object_add(mj, "tracefs_supported", json_object_new_boolean(m->tracefs_supported));
	json_object_object_add(mj, "tracefs_mounted", json_object_new_boolean(m->tracefs_mounted));
	json_object_object_add(mj, "tracefs_path", cli_json_string(m->tracefs_path));
	json_object_object_add(root, "machine", mj);
	for (size_t i = 0; i < NR_CLASSES; i++) {
		const struct pev_capability *k = &caps[i];
		json_object *c = json_object_new_object();
		json_object_object_add(c, "id", cli_json_string(pev_capability_name(k->cap)));
		json_object_object_add(c, "what", cli_json_string(classes[i].what));
		json_object_object_add(c, "status", cli_json_string(status_word(k->verdict)));
		json_object_object_add(c, "works", json_object_new_boolean(k->verdict == PEV_CAP_WORKS ||
									    k->verdict == PEV_CAP_PARTIAL));
		json_object_object_add(c, "verdict",
				       cli_json_string(pev_capability_verdict_name(k->verdict)));
		json_object_object_add(c, "code", k->code ? cli_json_string(pev_error_name(k->code))
							  : NULL);
		json_object_object_add(c, "expected", json_object_new_int64((int64_t)k->expected));
		json_object_object_add(c, "measured", json_object_new_int64((int64_t)k->measured));
		json_object_object_add(c, "matched", json_object_new_int64((int64_t)k->matched));
		json_object_object_add(c, "elapsed_us", json_object_new_int64((int64_t)(k->elapsed_ns / 1000)));
		json_object_object_add(c, "detail", cli_json_string(k->detail));
		json_object_object_add(c, "fix", cli_json_string(k->fix));
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
	opterr = 0; /* perfev's own messages (cli_bad_option), not getopt's */
	while ((opt = getopt_long(argc, argv, ":jh", options, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'h':
			printf("usage: %s\n\nReports this machine's facts and, for each class of "
			       "event, whether it works here (made to happen and counted) and how to fix it "
			       "when not.\n\n"
			       "  -j, --json    print the report as one JSON document\n"
			       "  -h, --help    print this help\n\n"
			       "'man perfev-check' has the details.\n",
			       usage);
			return 0;
		default:
			return cli_bad_option(opt, argv, usage);
		}
	}
	if (optind < argc) {
		cli_error("unexpected argument '%s'", argv[optind]);
		return cli_usage(usage);
	}
	if (json && !cli_json_available("--json"))
		return 1;

	struct pev_machine *m = calloc(1, sizeof(*m));
	struct pev_capability caps[NR_CLASSES];
	if (!m) {
		cli_error("out of memory");
		return 1;
	}
	pev_machine_read(m, NULL);
	pev_machine_probe_attr_size(m);
	run_checks(caps, m);
	if (json) {
		print_json(m, caps);
	} else {
		print_facts(m);
		print_checks(caps);
	}
	free(m);
	return 0;
}
