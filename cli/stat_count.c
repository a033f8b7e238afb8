/* SPDX-License-Identifier: MIT */
/*
 * stat_count.c - the counters of `perfev stat`: the events of the -e lists,
 * opened on each target unit (perfev itself for a command, each -p / -t id,
 * or the CPUs), the rows they are printed in, the reading of their counts
 * into cells, and the statistics of -r.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stat.h"

void stat_counters_free(struct stat_state *s)
{
	/* Members before their leaders: a leader closed first would leave them ungrouped. */
	for (int e = s->nevents - 1; e >= 0; e--) {
		struct stat_event *ev = &s->events[e];
		for (int u = 0; ev->counters && u < s->nunits; u++)
			pev_counter_close(ev->counters[u]);
		free(ev->counters);
		ev->counters = NULL;
	}
}

int stat_state_free(struct stat_state *s)
{
	int lost = 0;

	stat_counters_free(s);
	for (int i = 0; i < s->nlists; i++)
		pev_event_list_free(s->lists[i]);
	for (int e = 0; e < s->nevents; e++) {
		free(s->events[e].cgroup);
		free(s->events[e].cgroup_dir);
	}
	free(s->events);
	free(s->units);
	free(s->keys);
	free(s->cfg.ids);
	free(s->cfg.cpus);
	free(s->cfg.cpu_list);
	free(s->cfg.path);
	if (s->cfg.out && s->cfg.out != stderr)
		lost = cli_finish_output(s->cfg.out, s->cfg.out_name ? s->cfg.out_name : "the output");
	s->cfg.out = NULL;
	return lost;
}

struct stat_event *stat_new_event(struct stat_state *s)
{
	if (s->nevents == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->events = realloc(s->events, sizeof(*s->events) * (size_t)s->cap);
		if (!s->events) {
			cli_error("out of memory");
			exit(1);
		}
	}
	struct stat_event *ev = &s->events[s->nevents++];
	memset(ev, 0, sizeof(*ev));
	return ev;
}

int stat_add_parsed_events(struct stat_state *s, const char *text)
{
	struct pev_event_list *list;
	struct pev_error err;
	int leader = -1;

	if (s->nlists == MAX_LISTS) {
		cli_error("too many -e options (at most %d)", MAX_LISTS);
		return 129;
	}
	if (pev_event_parse(text, cli_event_parse_opts(), &list, &err) < 0) {
		cli_print_error(&err);
		return 129;
	}
	s->lists[s->nlists++] = list;
	for (int i = 0; i < pev_event_list_count(list); i++) {
		const struct pev_event_spec *spec = pev_event_list_at(list, i);
		struct stat_event *ev = stat_new_event(s);
		ev->spec = spec;
		ev->cls = stat_classify(spec);
		snprintf(ev->name, sizeof(ev->name), "%s", spec->ev.name);
		if (spec->group_leader)
			leader = s->nevents - 1;
		ev->leader = spec->group >= 0 && !spec->group_leader ? leader : -1;
		if (ev->leader >= 0)
			s->events[ev->leader].has_members = true;
	}
	return 0;
}

static bool unsupported_here(int code)
{
	return code == PEV_ENOENT || code == PEV_ENODEV || code == PEV_EOPNOTSUPP;
}

/*
 * Opens event e on unit u (in its leader's group there). Every counter
 * starts disabled: group leaders and lone events are enabled at the
 * command's exec (command targets) or by stat_enable_all(); members follow their
 * leader. An event whose string chose no privilege levels counts user space
 * only where counting the kernel is refused (libperfev's rule, as perf
 * does): its name gets ":u". Returns 0 or the error code.
 */
static int open_on_unit(struct stat_state *s, int e, int u, struct pev_error *err)
{
	struct stat_event *ev = &s->events[e];
	const struct pev_event_spec *spec = ev->spec;
	struct pev_target cgroup_target = s->units[u];
	const struct pev_target *target = &s->units[u];
	struct pev_opts o = spec->opts;

	if (ev->cgroup_dir) { /* the cgroup's tasks, on the unit's CPUs */
		cgroup_target.cgroup = ev->cgroup_dir;
		target = &cgroup_target;
	}
	struct pev_counter *group = NULL;

	if (ev->leader >= 0) {
		group = s->events[ev->leader].counters[u];
		if (!group) {
			memset(err, 0, sizeof(*err));
			err->code = PEV_EBADF;
			snprintf(err->event, sizeof(err->event), "%.*s",
			         (int)sizeof(err->event) - 1, ev->name);
			snprintf(err->message, sizeof(err->message),
			         "cannot open '%s': its group leader '%s' is not open", ev->name,
			         s->events[ev->leader].name);
			return PEV_EBADF;
		}
	}
	bool command = s->cfg.target == STAT_TARGET_COMMAND;
	/*
	 * Counting reads no samples: what a modifier asks samples to carry
	 * (":S" leader sampling adds READ) does not apply, nor do the period=
	 * and freq= terms (a cpu-clock overflow every 5 us would only slow
	 * the command down), as in perf stat.
	 */
	o.sample_type = 0;
	o.sample_period = 0;
	o.sample_freq = 0;
	o.disabled = !group;
	o.enable_on_exec = !group && command;
	if (target->pid != PEV_PID_ANY)
		o.inherit = PEV_INHERIT_ALL;
	o.read_format |= PEV_FORMAT_TOTAL_TIME_ENABLED | PEV_FORMAT_TOTAL_TIME_RUNNING;
	if (ev->has_members || group)
		o.read_format |= PEV_FORMAT_ID;
	if (ev->has_members)
		o.read_format |= PEV_FORMAT_GROUP;
	int r = pev_counter_open(&spec->ev, &o, target, group, &ev->counters[u], err);
	if (r == 0)
		cli_name_user_only(ev->name, sizeof(ev->name), &spec->opts, ev->counters[u]);
	return r;
}

/* Opens every event on every unit. An event that opens on no unit is marked so. */
void stat_open_events(struct stat_state *s)
{
	for (int e = 0; e < s->nevents; e++) {
		struct stat_event *ev = &s->events[e];
		struct pev_error err;
		int code = 0, opened = 0;

		ev->counters = cli_xcalloc((size_t)s->nunits, sizeof(*ev->counters));
		if (ev->tool != STAT_TOOL_NONE) {
			ev->open = STAT_OPEN_OK; /* perfev measures it: nothing to open */
			continue;
		}
		for (int u = 0; u < s->nunits; u++) {
			int r = open_on_unit(s, e, u, &err);
			if (r == 0) {
				opened++;
			} else if (!code) {
				code = r;
				ev->err = err;
			}
		}
		if (opened)
			ev->open = STAT_OPEN_OK;
		else
			ev->open =
			    unsupported_here(code) ? STAT_OPEN_UNSUPPORTED : STAT_OPEN_FAILED;
	}
}

/* Enables every leader and lone event (the members follow). */
void stat_enable_all(struct stat_state *s)
{
	for (int e = 0; e < s->nevents; e++) {
		struct stat_event *ev = &s->events[e];
		for (int u = 0; ev->leader < 0 && u < s->nunits; u++)
			if (ev->counters[u] && pev_counter_enable(ev->counters[u]) < 0)
				cli_warning("cannot enable '%s': %s", ev->name, strerror(errno));
	}
}

/* The name of thread tid (its comm), or "?" when it is gone. */
static void read_comm(pid_t tid, char *buf, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
	if (!cli_read_comm(path, buf, size))
		snprintf(buf, size, "?");
}

static int find_key(const struct stat_state *s, int cpu, pid_t tid)
{
	for (int k = 0; k < s->nkeys; k++)
		if (s->keys[k].cpu == cpu && s->keys[k].tid == tid)
			return k;
	return -1;
}

static void add_key(struct stat_state *s, int cpu, pid_t tid)
{
	if (find_key(s, cpu, tid) >= 0)
		return;
	if (s->nkeys == s->key_cap) {
		s->key_cap = s->key_cap ? s->key_cap * 2 : 16;
		s->keys = realloc(s->keys, sizeof(*s->keys) * (size_t)s->key_cap);
		if (!s->keys) {
			cli_error("out of memory");
			exit(1);
		}
	}
	struct stat_key *k = &s->keys[s->nkeys++];
	memset(k, 0, sizeof(*k));
	k->cpu = cpu;
	k->tid = tid;
	if (tid >= 0)
		read_comm(tid, k->comm, sizeof(k->comm));
}

/* The rows of each event: one; one per CPU; or one per thread the counters hold. */
void stat_make_keys(struct stat_state *s)
{
	s->nkeys = 0;
	if (s->cfg.aggr == STAT_AGGR_GLOBAL) {
		add_key(s, -1, -1);
	} else if (s->cfg.aggr == STAT_AGGR_CPU) {
		for (int i = 0; i < s->cfg.ncpus; i++)
			add_key(s, s->cfg.cpus[i], -1);
	} else {
		for (int e = 0; e < s->nevents; e++)
			for (int u = 0; s->events[e].counters && u < s->nunits; u++) {
				struct pev_counter *c = s->events[e].counters[u];
				for (int i = 0; c && i < pev_counter_nr_fds(c); i++)
					add_key(s, -1, pev_counter_tid(c, i));
			}
		if (s->nkeys == 0)
			add_key(s, -1, -1);
	}
}

static void add_count(struct raw *r, const struct pev_count *c)
{
	r->value += c->value;
	r->enabled += c->time_enabled;
	r->running += c->time_running;
}

/* A failed read: the event shows <not counted> with the diagnosis. */
static void read_failed(struct stat_event *ev, int code)
{
	pev_diagnose_call("read", ev->name, -code, &ev->err);
	ev->open = STAT_OPEN_FAILED;
}

/* Reads a whole group on unit u with one read per descriptor into out[]. */
static void read_group(struct stat_state *s, int e, int u, struct raw *out)
{
	struct pev_count counts[64];
	int members[64], n = 0;

	members[n++] = e;
	for (int m = e + 1; m < s->nevents && n < 64; m++)
		if (s->events[m].leader == e && s->events[m].counters[u])
			members[n++] = m;
	int got = pev_counter_read_group(s->events[e].counters[u], counts, n);
	if (got < 0) {
		for (int i = 0; i < n; i++)
			read_failed(&s->events[members[i]], got);
		return;
	}
	for (int i = 0; i < got; i++)
		add_count(&out[members[i] * s->nkeys], &counts[i]);
}

/* Reads every open counter into out[event * nkeys + key] (zeroed first). */
void stat_read_all(struct stat_state *s, struct raw *out)
{
	memset(out, 0, sizeof(*out) * (size_t)s->nevents * (size_t)s->nkeys);
	for (int e = 0; e < s->nevents; e++) {
		struct stat_event *ev = &s->events[e];
		if (ev->open != STAT_OPEN_OK)
			continue;
		for (int u = 0; u < s->nunits; u++) {
			struct pev_counter *c = ev->counters[u];
			struct pev_count count;
			int r = 0;
			if (!c)
				continue;
			if (s->cfg.aggr == STAT_AGGR_GLOBAL) {
				if (ev->has_members)
					read_group(s, e, u, out);
				else if (ev->leader < 0 && (r = pev_counter_read(c, &count)) == 0)
					add_count(&out[e * s->nkeys], &count);
			} else {
				for (int i = 0; r == 0 && i < pev_counter_nr_fds(c); i++) {
					int cpu = s->cfg.aggr == STAT_AGGR_CPU
					              ? pev_counter_cpu(c, i)
					              : -1;
					pid_t tid = s->cfg.aggr == STAT_AGGR_THREAD
					                ? pev_counter_tid(c, i)
					                : -1;
					int k = find_key(s, cpu, tid);
					if (k >= 0 && (r = pev_counter_read_fd(c, i, &count)) == 0)
						add_count(&out[e * s->nkeys + k], &count);
				}
			}
			if (r < 0) {
				read_failed(ev, r);
				break;
			}
		}
	}
	stat_read_tools(s, out);
}

/* Turns counts (or the deltas now - prev) into cells. */
void stat_make_cells(const struct stat_state *s, const struct raw *now, const struct raw *prev,
                       struct stat_cell *cells)
{
	for (int e = 0; e < s->nevents; e++) {
		for (int k = 0; k < s->nkeys; k++) {
			int i = e * s->nkeys + k;
			struct stat_cell *cell = &cells[i];
			memset(cell, 0, sizeof(*cell));
			if (s->events[e].open != STAT_OPEN_OK) {
				cell->state = s->events[e].open == STAT_OPEN_UNSUPPORTED
				                  ? STAT_CELL_NOT_SUPPORTED
				                  : STAT_CELL_NOT_COUNTED;
				continue;
			}
			struct pev_count c = {0};
			c.value = now[i].value - (prev ? prev[i].value : 0);
			c.time_enabled = now[i].enabled - (prev ? prev[i].enabled : 0);
			c.time_running = now[i].running - (prev ? prev[i].running : 0);
			/*
			 * Both times are always read, so no running time means no count
			 * (pev_count_scale), as in perf: a task's times stand still while
			 * it sleeps.
			 */
			pev_count_scale(&c);
			cell->state = c.counted ? STAT_CELL_COUNTED : STAT_CELL_NOT_COUNTED;
			cell->value = c.counted ? (double)c.scaled : 0;
			cell->enabled = (double)c.time_enabled;
			cell->running = (double)c.time_running;
		}
	}
}

/* The square root by Newton's method: perfev does not link libm, to start fast. */
static double square_root(double x)
{
	double r = x > 1 ? x : 1;

	if (x <= 0)
		return 0;
	for (int i = 0; i < 200; i++) {
		double next = (r + x / r) / 2;
		if (next >= r)
			break;
		r = next;
	}
	return r;
}

/* The standard deviation of the mean (0 for fewer than two values). */
double stat_sd_of_mean(const struct acc *a)
{
	return a->n < 2 ? 0 : square_root(a->m2 / (a->n - 1) / a->n);
}

/* The standard deviation of the mean, in % of the mean (perf's "+-"). */
double stat_noise_pct(const struct acc *a)
{
	if (a->n < 2 || a->mean == 0)
		return 0;
	return 100.0 * stat_sd_of_mean(a) / (a->mean < 0 ? -a->mean : a->mean);
}

/* The -r means into cells (states from the last run where nothing counted). */
void stat_acc_cells(const struct acc *a, struct stat_cell *cells, int n)
{
	for (int i = 0; i < n; i++) {
		if (a[i].n == 0)
			continue;
		cells[i].state = STAT_CELL_COUNTED;
		cells[i].value = a[i].mean;
		cells[i].enabled = a[i].enabled;
		cells[i].running = a[i].running;
		cells[i].noise_pct = stat_noise_pct(&a[i]);
	}
}

void stat_acc_value(struct acc *a, double v)
{
	a->n++;
	double d = v - a->mean;
	a->mean += d / a->n;
	a->m2 += d * (v - a->mean);
}

/* What make_report needs besides the cells. */
struct stat_report stat_make_report(const struct stat_state *s, const struct stat_cell *cells)
{
	struct stat_report r;

	memset(&r, 0, sizeof(r));
	r.cfg = &s->cfg;
	r.events = s->events;
	r.nevents = s->nevents;
	r.keys = s->keys;
	r.nkeys = s->nkeys;
	r.cells = cells;
	r.timestamp_s = -1;
	r.exit_status = -1;
	return r;
}

/* The units each event opens on. */
void stat_make_units(struct stat_state *s)
{
	const struct stat_config *cfg = &s->cfg;

	s->nunits =
	    cfg->target == STAT_TARGET_PROCESS || cfg->target == STAT_TARGET_THREAD ? cfg->nids : 1;
	s->units = cli_xcalloc((size_t)s->nunits, sizeof(*s->units));
	for (int u = 0; u < s->nunits; u++) {
		switch (cfg->target) {
		case STAT_TARGET_COMMAND:
			/* perfev itself: the command inherits the counters (spawn_command). */
			s->units[u] = pev_target_self();
			break;
		case STAT_TARGET_PROCESS:
			s->units[u] = pev_target_process(cfg->ids[u]);
			break;
		case STAT_TARGET_THREAD:
			s->units[u] = pev_target_thread(cfg->ids[u]);
			break;
		case STAT_TARGET_CPUS:
		case STAT_TARGET_SYSTEM:
			s->units[u] = pev_target_cpu_list(cfg->cpu_list);
			break;
		}
	}
}
