/* SPDX-License-Identifier: MIT */
/*
 * record_open.c - `perfev record`'s events: parsed from -e (cycles by
 * default, cpu-clock where the machine has no hardware PMU), opened for
 * sampling on every unit of the target (groups as groups: "{a,b}" opens b
 * in a's group, "{a,b}:S" lets a sample and read b with it), their rings
 * mapped (one per CPU or thread; the other events' records sent into it
 * with SET_OUTPUT), and the output file started with their attributes, ids
 * and groups.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record.h"

/* The user registers perf asks for with --call-graph dwarf (every general register). */
#if defined(__x86_64__)
#define DWARF_REGS_MASK UINT64_C(0xff0fff) /* AX .. IP, FLAGS, CS, SS, R8 .. R15 (no DS-GS) */
#elif defined(__aarch64__)
#define DWARF_REGS_MASK UINT64_C(0x1ffffffff) /* X0 .. X30, SP, PC */
#else
#define DWARF_REGS_MASK UINT64_C(0)
#endif

/*
 * Sets the units each event opens on from the target. The kernel maps no
 * ring for an inherited event that follows a task on any CPU, so tasks are
 * followed on each CPU (one descriptor per CPU and thread), as perf does.
 */
static void make_units(struct rec_state *s)
{
	const struct rec_config *cfg = &s->cfg;

	switch (cfg->target) {
	case REC_TARGET_COMMAND:
		s->nunits = 1;
		s->units = cli_xcalloc(1, sizeof(*s->units));
		s->units[0] = s->command.pid > 0 ? pev_target_thread(s->command.pid)
		                                 : pev_target_self();
		s->units[0].cpu = PEV_CPU_ALL;
		break;
	case REC_TARGET_PROCESS:
	case REC_TARGET_THREAD:
		s->nunits = cfg->nids;
		s->units = cli_xcalloc((size_t)cfg->nids, sizeof(*s->units));
		for (int i = 0; i < cfg->nids; i++) {
			s->units[i] = cfg->target == REC_TARGET_PROCESS
			                  ? pev_target_process(cfg->ids[i])
			                  : pev_target_thread(cfg->ids[i]);
			s->units[i].cpu = PEV_CPU_ALL;
		}
		break;
	case REC_TARGET_CPUS:
		s->nunits = 1;
		s->units = cli_xcalloc(1, sizeof(*s->units));
		s->units[0] = cfg->cpus ? pev_target_cpu_list(cfg->cpus) : pev_target_all_cpus();
		break;
	}
}

/*
 * What a ':S' group asks of each of its events, as perf 6.1 does: every
 * event reads the whole group into the leader's samples (READ, with each
 * member's id and lost count), only the leader samples, and none is
 * inherited (kernels before 6.12 refuse inherited counters whose samples
 * read them; the events open on the command's own pid instead).
 */
static void leader_sampling_opts(struct pev_opts *o, bool member)
{
	o->sample_type |= PEV_SAMPLE_READ;
	o->read_format |= PEV_FORMAT_ID | PEV_FORMAT_GROUP | PEV_FORMAT_LOST;
	o->inherit = PEV_INHERIT_NONE;
	if (member)
		o->sample_period = o->sample_freq = 0;
}

/*
 * The sampling options of event e: its own modifiers and terms, and the
 * command line's. A group's leader starts disabled (enabled at exec, or by
 * rec_enable); its members are not, so that they count whenever it does.
 */
static struct pev_opts sample_opts(const struct rec_state *s, int e,
                                   const struct pev_event_spec *spec)
{
	const struct rec_config *cfg = &s->cfg;
	const struct rec_event *ev = &s->events[e];
	bool member = ev->leader >= 0;
	struct pev_opts o = spec->opts;

	o.open_flags |= PEV_OPEN_EXACT_READ_FORMAT; /* perf's read_format, in samples and the file */
	/* As perf: a tracepoint samples every hit, with its raw fields, unless told otherwise. */
	if (spec->ev.type == PEV_TYPE_TRACEPOINT) {
		o.sample_type |= PEV_SAMPLE_RAW | PEV_SAMPLE_CPU;
		if (!cfg->rate_given && !o.sample_freq)
			o.sample_period = 1;
	}
	/*
	 * --off-cpu: a sample at every switch out (its stack: where the thread
	 * waits), and SWITCH records for the switches back in. Call chains
	 * from frame pointers unless the command line chose a mode.
	 */
	if (e == s->offcpu) {
		o.sample_period = 1;
		o.sample_freq = 0;
		o.context_switch = true;
	}
	/* A period or frequency term of the event wins over -F and -c. */
	if (!o.sample_period && !o.sample_freq) {
		if (cfg->period)
			o.sample_period = cfg->period;
		else
			o.sample_freq = cfg->freq;
	}
	o.sample_type |= PEV_SAMPLE_IP | PEV_SAMPLE_TID | PEV_SAMPLE_TIME;
	/*
	 * The period goes into each sample only where it varies (frequency mode)
	 * or is 1. With a fixed period above 1, the kernel samples every event
	 * of a software event or tracepoint that asks for PERF_SAMPLE_PERIOD
	 * (and records the period as 1): `-c 1000 -e page-faults` would write
	 * a sample per fault. Readers take a fixed period from the attribute.
	 */
	if (o.sample_freq || o.sample_period == 1)
		o.sample_type |= PEV_SAMPLE_PERIOD;
	if (cfg->target == REC_TARGET_CPUS)
		o.sample_type |= PEV_SAMPLE_CPU;
	if (cfg->all_cgroups) /* each sample's cgroup id; the paths from CGROUP records */
		o.sample_type |= PEV_SAMPLE_CGROUP;
	if (s->nevents > 1)
		o.sample_type |= PEV_SAMPLE_IDENTIFIER;
	enum rec_callgraph cg = cfg->callgraph;
	if (spec->callgraph == PEV_CALLGRAPH_FP)
		cg = REC_CG_FP;
	else if (spec->callgraph == PEV_CALLGRAPH_DWARF)
		cg = REC_CG_DWARF;
	else if (spec->callgraph == PEV_CALLGRAPH_NONE)
		cg = REC_CG_NONE;
	if (e == s->offcpu && cg == REC_CG_NONE)
		cg = REC_CG_FP;
	if (cg != REC_CG_NONE)
		o.sample_type |= PEV_SAMPLE_CALLCHAIN;
	if (cg == REC_CG_DWARF) {
		/* perf's rule: the kernel's part of the chain, the user's from the stack dump. */
		o.sample_type |= PEV_SAMPLE_REGS_USER | PEV_SAMPLE_STACK_USER;
		o.exclude_callchain_user = true;
		o.sample_regs_user = DWARF_REGS_MASK;
		o.sample_stack_user =
		    spec->stack_size ? (spec->stack_size + 7) & ~7U : cfg->stack_size;
	}
#if defined(__aarch64__)
	/*
	 * arm64 frame pointers: a leaf function that has not saved its link
	 * register yet is missing its caller in the kernel's walk. As perf,
	 * each sample carries LR, and report and script put the caller back
	 * from it where the leaf's CFI says it is there (replay.c).
	 */
	if (cg == REC_CG_FP) {
		o.sample_type |= PEV_SAMPLE_REGS_USER;
		o.sample_regs_user = UINT64_C(1) << 30; /* x30, the link register */
	}
#endif
	/* The first event tracks the tasks: their mappings, names, forks and exits. */
	if (e == 0) {
		o.mmap = o.mmap2 = o.comm = o.comm_exec = o.task = true;
		o.cgroup = cfg->all_cgroups; /* a CGROUP record for each cgroup made meanwhile */
		/* Data mappings too for DWARF unwinding, as perf records them: perf's
		 * unwinder reads .eh_frame_hdr through the read-only segment's mapping. */
		o.mmap_data = cg == REC_CG_DWARF;
	}
	o.sample_id_all = true;
	if (cfg->use_clockid) { /* -k: times from that clock (a jitdump's: monotonic) */
		o.use_clockid = true;
		o.clockid = cfg->clockid;
	}
	if (cfg->target != REC_TARGET_CPUS)
		o.inherit = PEV_INHERIT_ALL;
	if (!member) {
		o.enable_on_exec = cfg->target == REC_TARGET_COMMAND;
		o.disabled = true;
	}
	if (ev->leader_sampling)
		leader_sampling_opts(&o, member);
	return o;
}

/* Whether spec is the generic cycles event (perf falls back to cpu-clock without a PMU). */
static bool is_cycles(const struct pev_event_spec *spec)
{
	return spec->ev.type == PEV_TYPE_HARDWARE && spec->ev.config == PEV_HW_CPU_CYCLES;
}

/*
 * Says why --off-cpu cannot record here. The kernel takes a switch-out's
 * sample in the kernel (in schedule()): with kernel sampling refused, a
 * user-only (":u") context-switches or sched_switch event opens but never
 * fires, so there is no fallback.
 */
static void offcpu_denied(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int level = 2;

	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = 2;
		fclose(f);
	}
	cli_error("option '--off-cpu' needs samples taken in the kernel at each context switch, "
		  "which kernel.perf_event_paranoid=%d refuses to this user; run as root, give "
		  "perfev CAP_PERFMON, or allow it: sysctl kernel.perf_event_paranoid=1 "
		  "('perfev check' says what works here)",
		  level);
}

/*
 * Opens event e (spec) on every unit: cycles falls back to cpu-clock where
 * there is no hardware PMU, and an event whose string chose no privilege
 * levels samples user space only where sampling the kernel is not allowed
 * (libperfev's rule; its name gets ":u"), both as perf does. Returns 0 or 1 (the error printed).
 */
static int open_event(struct rec_state *s, int e, const struct pev_event_spec *spec)
{
	struct rec_event *ev = &s->events[e];
	struct pev_opts o = sample_opts(s, e, spec);
	struct pev_event what = spec->ev;
	struct pev_error err;
	char cgroup[4096];
	int in_cgroup = rec_cgroup_dir(s, e, cgroup, sizeof(cgroup));

	if (in_cgroup < 0)
		return 1;

	snprintf(ev->name, sizeof(ev->name), "%s", spec->ev.name ? spec->ev.name : spec->text);
	if (spec->ev.type == PEV_TYPE_TRACEPOINT)
		snprintf(ev->tracepoint, sizeof(ev->tracepoint), "%s", ev->name);
	ev->counters = cli_xcalloc((size_t)s->nunits, sizeof(*ev->counters));
	for (int u = 0; u < s->nunits; u++) {
		int r = PEV_EBADARG;
		struct pev_counter *group =
		    ev->leader >= 0 ? s->events[ev->leader].counters[u] : NULL;
		for (int attempt = 0; attempt < 2; attempt++) {
			struct pev_target target = s->units[u];
			if (in_cgroup) /* -G: that cgroup's tasks, on the unit's CPUs */
				target.cgroup = cgroup;
			r = pev_counter_open(&what, &o, &target, group, &ev->counters[u], &err);
			if ((r == PEV_ENOENT || r == PEV_EOPNOTSUPP || r == PEV_ENODEV) &&
			    is_cycles(spec) && what.type == PEV_TYPE_HARDWARE) {
				const char *mods = strchr(spec->text, ':');
				if (!s->cfg.quiet)
					fprintf(
					    stderr,
					    "perfev: %s is not supported here (no hardware PMU); "
					    "recording cpu-clock instead\n",
					    spec->text);
				what = pev_event_software(PEV_SW_CPU_CLOCK);
				what.name = "cpu-clock";
				snprintf(ev->name, sizeof(ev->name), "cpu-clock%s", mods ? mods : "");
				continue;
			}
			break;
		}
		if (r != 0 && e == s->offcpu && (r == PEV_EACCES || r == PEV_EPERM)) {
			offcpu_denied();
			return 1;
		}
		if (r != 0) {
			cli_print_error(&err);
			return 1;
		}
		cli_name_user_only(ev->name, sizeof(ev->name), &spec->opts, ev->counters[u]);
	}
	return 0;
}

/* Maps one ring on descriptor i of c. Returns its index or -1 (the error printed). */
static int map_ring(struct rec_state *s, const struct pev_counter *c, int i, int *cap)
{
	struct pev_error err;
	struct pev_ring *r = NULL;

	if (pev_ring_open(c, i, s->cfg.pages, &r, &err) != 0) {
		cli_print_error(&err);
		return -1;
	}
	if (s->nrings == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		s->rings = realloc(s->rings, (size_t)*cap * sizeof(*s->rings));
		if (!s->rings) {
			cli_error("out of memory");
			exit(1);
		}
	}
	s->rings[s->nrings].ring = r;
	s->rings[s->nrings].hup = false;
	return s->nrings++;
}

/* The ring of descriptor i of c: the CPU's (or, following a task anywhere, the thread's). */
static int ring_for(const struct rec_state *s, const int *ring_cpu, const pid_t *ring_tid,
                    const struct pev_counter *c, int i)
{
	int cpu = pev_counter_cpu(c, i);
	pid_t tid = pev_counter_tid(c, i);

	for (int r = 0; r < s->nrings; r++)
		if (ring_cpu[r] == cpu && (cpu >= 0 || ring_tid[r] == tid))
			return r;
	return -1;
}

/*
 * One ring per CPU (per thread for descriptors that follow a thread on any
 * CPU): the first descriptor there gets it mapped, every other one (other
 * events, other threads) writes into it. Returns 0 or 1.
 */
static int map_rings(struct rec_state *s)
{
	int cap = 0, total = 0, rc = 0;

	for (int e = 0; e < s->nevents; e++)
		for (int u = 0; u < s->nunits; u++)
			total += pev_counter_nr_fds(s->events[e].counters[u]);
	int *ring_cpu = cli_xcalloc((size_t)total, sizeof(int));
	pid_t *ring_tid = cli_xcalloc((size_t)total, sizeof(pid_t));
	for (int e = 0; e < s->nevents && rc == 0; e++)
		for (int u = 0; u < s->nunits && rc == 0; u++) {
			const struct pev_counter *c = s->events[e].counters[u];
			for (int i = 0; i < pev_counter_nr_fds(c) && rc == 0; i++) {
				struct pev_error err;
				int r = ring_for(s, ring_cpu, ring_tid, c, i);
				if (r < 0) {
					if ((r = map_ring(s, c, i, &cap)) < 0) {
						rc = 1;
						break;
					}
					ring_cpu[r] = pev_counter_cpu(c, i);
					ring_tid[r] = pev_counter_tid(c, i);
				} else if (pev_ring_redirect(s->rings[r].ring, c, i, &err) != 0) {
					cli_print_error(&err);
					rc = 1;
				}
			}
		}
	free(ring_cpu);
	free(ring_tid);
	return rc;
}

/* perf's habit: an existing non-empty output file is kept as FILE.old
 * (rename replaces a link at FILE.old, never what it points to). Only a
 * file of this user's: another's is left for cli_output_fd to judge. */
static void keep_old_output(const char *path)
{
	struct stat st;
	char old[PATH_MAX];

	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0 ||
	    st.st_uid != geteuid())
		return;
	if (snprintf(old, sizeof(old), "%s.old", path) < (int)sizeof(old))
		rename(path, old);
}


/*
 * Starts pipe mode on standard output (-o -). The writer gets its own
 * descriptor of it, and standard output becomes standard error's, so that
 * the command's output (it inherits perfev's) goes to standard error, not
 * into the stream, as with perf record.
 */
static int open_pipe(struct rec_state *s)
{
	struct pev_error err;

	s->out_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (s->out_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		cli_error("option '-o': cannot write to standard output: %s; run with its "
			  "descriptor open, or give a file name",
			  strerror(errno));
		return 1;
	}
	if (pev_perfdata_writer_open_fd(s->out_fd, PEV_PERFDATA_WRITER_PIPE, &s->writer,
					&err) != 0) {
		cli_error("option '-o': %s", err.message);
		return 1;
	}
	return 0;
}

/*
 * Starts the output file (the previous one kept as FILE.old; with --rotate
 * the window's temporary, already created), or pipe mode on standard
 * output: every event with the ids of all its descriptors.
 */
static int open_output(struct rec_state *s)
{
	struct pev_error err;

	if (s->cfg.pipe)
		return open_pipe(s) || rec_add_events(s);
	if (!s->cfg.rotate_s) {
		keep_old_output(s->cfg.output);
		s->out_fd = cli_output_fd(s->cfg.output_given ? "-o" : NULL, s->cfg.output,
					  CLI_OUTPUT_RDWR | CLI_OUTPUT_FILE_ONLY);
		if (s->out_fd < 0)
			return 1;
	}
	if (pev_perfdata_writer_open_fd(s->out_fd, 0, &s->writer, &err) != 0) {
		cli_error("cannot write '%s': %s", s->cfg.output, err.message);
		return 1;
	}
	return rec_add_events(s);
}

int rec_add_events(struct rec_state *s)
{
	struct pev_error err;

	for (int e = 0; e < s->nevents; e++) {
		const struct rec_event *ev = &s->events[e];
		size_t n = 0;
		for (int u = 0; u < s->nunits; u++)
			n += (size_t)pev_counter_nr_fds(ev->counters[u]);
		uint64_t *ids = cli_xcalloc(n, sizeof(uint64_t));
		n = 0;
		for (int u = 0; u < s->nunits; u++)
			for (int i = 0; i < pev_counter_nr_fds(ev->counters[u]); i++)
				if (pev_counter_id(ev->counters[u], i, &ids[n]) == 0)
					n++;
		int r = pev_perfdata_writer_add_event(s->writer, pev_counter_attr(ev->counters[0]),
		                                      ev->name, ids, n, &err);
		free(ids);
		if (r < 0) {
			cli_error("cannot add event '%s' to '%s': %s", ev->name, s->cfg.output,
			          err.message);
			return 1;
		}
	}
	/* GROUP_DESC: each group that has members, as perf writes it (unnamed). */
	for (int e = 0; e < s->nevents; e++) {
		if (s->events[e].nr_members < 2)
			continue;
		if (pev_perfdata_writer_add_group(s->writer, NULL, (uint32_t)e,
		                                  (uint32_t)s->events[e].nr_members) < 0) {
			cli_error("cannot add the group of '%s' to '%s'; out of memory",
			          s->events[e].name, s->cfg.output);
			return 1;
		}
	}
	return 0;
}

/*
 * Finds the groups of the parsed events: each event's leader, how many
 * events each leader leads, and which groups sample through their leader
 * (':S'). A group never spans two -e options.
 */
static void find_groups(struct rec_state *s)
{
	int e = 0;

	for (int l = 0; l < s->nlists; l++) {
		int leader = -1;
		for (int i = 0; i < pev_event_list_count(s->lists[l]); i++, e++) {
			const struct pev_event_spec *spec = pev_event_list_at(s->lists[l], i);
			struct rec_event *ev = &s->events[e];

			ev->nr_members = 1;
			ev->leader = -1;
			ev->leader_sampling = spec->group >= 0 && spec->leader_sampling;
			if (spec->group < 0)
				continue;
			if (spec->group_leader || leader < 0) {
				leader = e;
				continue;
			}
			ev->leader = leader;
			s->events[leader].nr_members++;
		}
	}
}

/* Whether some group samples through its leader (':S'). */
static bool leader_sampling(const struct rec_state *s)
{
	for (int e = 0; e < s->nevents; e++)
		if (s->events[e].leader_sampling)
			return true;
	return false;
}

int rec_open(struct rec_state *s)
{
	struct pev_error err;
	const char *def = "cycles";
	int n = s->cfg.nevent_text ? s->cfg.nevent_text : 1;

	for (int i = 0; i < n; i++) {
		const char *text = s->cfg.nevent_text ? s->cfg.event_text[i] : def;
		if (pev_event_parse(text, cli_event_parse_opts(), &s->lists[s->nlists], &err) != 0) {
			cli_print_error(&err);
			return 129;
		}
		s->nevents += pev_event_list_count(s->lists[s->nlists++]);
	}
	if (s->cfg.off_cpu) {
		if (pev_event_parse("context-switches", NULL, &s->lists[s->nlists], &err) != 0) {
			cli_print_error(&err);
			return 1;
		}
		s->offcpu = s->nevents;
		s->nevents += pev_event_list_count(s->lists[s->nlists++]);
	}
	if (s->nevents == 0) {
		cli_error("no events to record; name some with -e");
		return 129;
	}
	s->events = cli_xcalloc((size_t)s->nevents, sizeof(*s->events));
	find_groups(s);
	if (s->cfg.target == REC_TARGET_COMMAND && s->cfg.argv && leader_sampling(s)) {
		int r = cli_spawn_paused(s->cfg.argv, s->cfg.path, &s->command);
		if (r != 0)
			return cli_exec_error(s->cfg.argv[0], r);
	}
	make_units(s);
	int e = 0;
	for (int l = 0; l < s->nlists; l++)
		for (int i = 0; i < pev_event_list_count(s->lists[l]); i++, e++)
			if (open_event(s, e, pev_event_list_at(s->lists[l], i)) != 0)
				return 1;
	const struct pev_attr *attr = pev_counter_attr(s->events[0].counters[0]);
	s->sample_type = attr->sample_type;
	s->uniform = true;
	for (e = 1; e < s->nevents; e++)
		s->uniform &=
		    pev_counter_attr(s->events[e].counters[0])->sample_type == s->sample_type;
	if (pev_record_format_from_attr(attr, &s->fmt) != 0) {
		cli_error("cannot decode the records of '%s'", s->events[0].name);
		return 1;
	}
	if (map_rings(s) != 0 || open_output(s) != 0)
		return 1;
	return 0;
}

void rec_enable(struct rec_state *s)
{
	for (int e = 0; e < s->nevents; e++)
		for (int u = 0; u < s->nunits; u++)
			if (s->events[e].counters && s->events[e].counters[u])
				pev_counter_enable(s->events[e].counters[u]);
}

void rec_close(struct rec_state *s)
{
	for (int r = 0; r < s->nrings; r++)
		pev_ring_close(s->rings[r].ring);
	free(s->rings);
	s->rings = NULL;
	s->nrings = 0;
	/* Members before their leaders (a leader closed first leaves them ungrouped). */
	for (int e = s->nevents - 1; e >= 0 && s->events; e--) {
		for (int u = 0; u < s->nunits && s->events[e].counters; u++)
			pev_counter_close(s->events[e].counters[u]);
		free(s->events[e].counters);
	}
	free(s->events);
	s->events = NULL;
	free(s->units);
	s->units = NULL;
	for (int l = 0; l < s->nlists; l++)
		pev_event_list_free(s->lists[l]);
	s->nlists = 0;
	pev_perfdata_writer_close(s->writer);
	s->writer = NULL;
	if (s->out_fd >= 0)
		close(s->out_fd);
	s->out_fd = -1;
	rec_dsos_free(&s->dsos);
	cli_spawn_abort(&s->command);
}
