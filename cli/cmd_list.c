/* SPDX-License-Identifier: MIT */
/*
 * cmd_list.c - `perfev list`: every event this machine offers, section by
 * section (generic hardware, software and cache events, each sysfs PMU's
 * named events, tracepoints, the SDT events of perf's build-id cache,
 * breakpoint and probe syntax, CPU vendor names),
 * each marked with the reason when this machine cannot open it.
 *
 * Availability comes from opening events, disabled, and closing them at
 * once. Opens are kept few: a class whose first event fails for a reason
 * that holds for the whole class (no hardware PMU, no privilege) is marked
 * from that one probe, and tracepoints and vendor names are judged by one
 * representative each.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sdt.h"

static const char usage[] = "perfev list [--json] [--vendor] [--tracefs-mount] [FILTER]";

/*
 * Where the text output puts the annotation of a row. Nothing wraps: one
 * line per event or note, so that grep finds an event with its reason.
 */
#define NAME_COLUMN 41

/* ---- the listing: sections of rows ------------------------------------ */

/* Whether an event opens here, and why not. */
struct verdict {
	int code;        /* 0 when it opens, else the refusal's PEV_E* code */
	bool class_wide; /* the refusal holds for every event of its class */
	char reason[640];
};

struct row {
	char *name;
	const char *aliases[4];             /* generic events: other spellings, NULL-terminated */
	char *description;                  /* syntax rows, vendor names; or NULL */
	const struct pev_pmu_alias *alias;  /* sysfs aliases: terms, scale, unit */
	bool has_id;                        /* tracepoints: the id below is set */
	uint64_t id;
	bool probe;                         /* decided by opening ev (probe_rows) */
	struct pev_event ev;
	bool available;
	char *reason;                       /* when not available */
};

struct section {
	char name[80];      /* unique key in the JSON output: "hardware", "pmu:msr" */
	const char *kind;   /* "hardware", "software", "cache", "pmu", "tracepoint", ... */
	char title[320];    /* heading of the text output */
	const struct pev_pmu *pmu; /* sysfs PMU of its events, or NULL */
	bool kernel_side;   /* its events only count in the kernel (tracepoints) */
	char *note;         /* one line in place of rows (tracefs not mounted, ...), or NULL */
	struct row *rows;
	int nr, cap;
};

struct listing {
	const char *filter;          /* FILTER, or NULL */
	const struct pev_machine *m;
	const struct pev_pmus *pmus; /* may be NULL when sysfs cannot be read */
	struct section **sections;
	int nr, cap;
	bool oom;
};

/* Copies src into dst (size bytes), cut at the limit. */
static void copy_text(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static char *dup_or_flag(struct listing *l, const char *s)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		l->oom = true;
	return d;
}

static struct section *section_new(struct listing *l, const char *name, const char *kind,
				   const char *title)
{
	struct section *s;

	if (l->nr == l->cap) {
		int cap = l->cap ? 2 * l->cap : 16;
		struct section **grown = realloc(l->sections, sizeof(*grown) * (size_t)cap);
		if (!grown) {
			l->oom = true;
			return NULL;
		}
		l->sections = grown;
		l->cap = cap;
	}
	if (!(s = calloc(1, sizeof(*s)))) {
		l->oom = true;
		return NULL;
	}
	copy_text(s->name, sizeof(s->name), name);
	s->kind = kind;
	copy_text(s->title, sizeof(s->title), title);
	l->sections[l->nr++] = s;
	return s;
}

static void section_free(struct section *s)
{
	for (int i = 0; i < s->nr; i++) {
		free(s->rows[i].name);
		free(s->rows[i].description);
		free(s->rows[i].reason);
	}
	free(s->rows);
	free(s->note);
	free(s);
}

static void listing_free(struct listing *l)
{
	for (int i = 0; i < l->nr; i++)
		section_free(l->sections[i]);
	free(l->sections);
}

/* ---- FILTER --------------------------------------------------------------- */

/* A shell glob (matched with fnmatch, ignoring case) or a substring (ignoring case). */
static bool name_matches(const char *filter, const char *name)
{
	if (strpbrk(filter, "*?["))
		return fnmatch(filter, name, FNM_CASEFOLD) == 0;
	return strcasestr(name, filter) != NULL;
}

static bool row_matches(const char *filter, const char *name, const char *const *aliases)
{
	if (!filter || name_matches(filter, name))
		return true;
	for (int i = 0; aliases && aliases[i]; i++)
		if (name_matches(filter, aliases[i]))
			return true;
	return false;
}

/*
 * Adds a row named `name` (other spellings in aliases, may be NULL) to s when
 * it passes the filter. Returns the row, available until decided otherwise,
 * or NULL when filtered out or out of memory.
 */
static struct row *row_add(struct listing *l, struct section *s, const char *name,
			   const char *const *aliases, const char *description)
{
	struct row *r;

	if (!s || !row_matches(l->filter, name, aliases))
		return NULL;
	if (s->nr == s->cap) {
		int cap = s->cap ? 2 * s->cap : 16;
		struct row *grown = realloc(s->rows, sizeof(*grown) * (size_t)cap);
		if (!grown) {
			l->oom = true;
			return NULL;
		}
		s->rows = grown;
		s->cap = cap;
	}
	r = &s->rows[s->nr];
	memset(r, 0, sizeof(*r));
	r->name = dup_or_flag(l, name);
	r->description = dup_or_flag(l, description);
	for (int i = 0; aliases && aliases[i] && i < 3; i++)
		r->aliases[i] = aliases[i];
	r->available = true;
	if (!r->name)
		return NULL;
	s->nr++;
	return r;
}

static void row_mark(struct listing *l, struct row *r, const struct verdict *v)
{
	if (!r)
		return;
	free(r->reason);
	r->reason = NULL;
	r->available = v->code == 0;
	if (!r->available)
		r->reason = dup_or_flag(l, v->reason);
}

static void section_mark_all(struct listing *l, struct section *s, const struct verdict *v)
{
	for (int i = 0; i < s->nr; i++)
		row_mark(l, &s->rows[i], v);
}

/* ---- opening events: the verdicts ----------------------------------------- */

/*
 * The sentences of a diagnosis after its "cannot open 'x' on ...: " prefix.
 * Returns a pointer into message.
 */
static const char *diagnosis_body(const char *message)
{
	const char *on = strncmp(message, "cannot open '", 13) == 0 ? strstr(message, "' on ") : NULL;
	const char *colon = on ? strstr(on, ": ") : NULL;

	return colon ? colon + 2 : message;
}

/* Copies the sentence at p (up to ". " or the end, without its period) into buf; returns its end. */
static const char *copy_sentence(const char *p, char *buf, size_t size)
{
	const char *end = strstr(p, ". ");
	size_t len = end ? (size_t)(end - p) : strlen(p);

	if (len > 0 && p[len - 1] == '.')
		len--;
	snprintf(buf, size, "%.*s", (int)len, p);
	p += len;
	while (*p == '.' || *p == ' ')
		p++;
	return p;
}

/* "permission denied (EACCES)": the errno alone, which "needs privilege" says already. */
static bool bare_errno(const char *sentence)
{
	size_t n = strlen(sentence);

	return n > 0 && sentence[n - 1] == ')' && strstr(sentence, " (E") && !strchr(sentence, ':');
}

/*
 * The sentence of a privilege refusal that says what the event needs: not
 * the bare errno, nor the facts about the paranoid level and the process,
 * which are the same for every event. Falls back on the first sentence.
 */
static void privilege_sentence(const char *message, char *buf, size_t size)
{
	static const char *const facts[] = {"perf_event_paranoid is ", "This process (uid "};
	const char *body = diagnosis_body(message);
	char sentence[512];

	copy_sentence(body, buf, size);
	for (const char *p = body; *p;) {
		bool skip;
		p = copy_sentence(p, sentence, sizeof(sentence));
		skip = !sentence[0] || bare_errno(sentence);
		for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++)
			skip = skip || strncmp(sentence, facts[i], strlen(facts[i])) == 0;
		if (!skip) {
			/* "The event ..." reads as "needs privilege: the event ...". */
			if (isupper((unsigned char)sentence[0]) && islower((unsigned char)sentence[1]))
				sentence[0] = (char)tolower((unsigned char)sentence[0]);
			copy_text(buf, size, sentence);
			return;
		}
	}
}

static bool needs_core_pmu(uint32_t type)
{
	return type == PEV_TYPE_HARDWARE || type == PEV_TYPE_HW_CACHE || type == PEV_TYPE_RAW;
}

/* Turns a refusal into a verdict with a one-line reason. */
static void verdict_from_error(const struct listing *l, const struct pev_event *ev,
			       const struct pev_error *err, struct verdict *v)
{
	char sentence[480];

	v->code = err->code;
	v->class_wide = false;
	if (err->code == PEV_EACCES || err->code == PEV_EPERM) {
		privilege_sentence(err->message, sentence, sizeof(sentence));
		/* "which needs level 1 or less": say which level, and where this one is. */
		if (strstr(sentence, " level ") && l->m->paranoid != PEV_UNKNOWN)
			snprintf(v->reason, sizeof(v->reason),
				 "needs privilege: %s (perf_event_paranoid is %d)", sentence,
				 l->m->paranoid);
		else
			snprintf(v->reason, sizeof(v->reason), "needs privilege: %s", sentence);
		v->class_wide = true;
	} else if (err->code == PEV_ENOENT && needs_core_pmu(ev->type) && !l->m->has_core_pmu) {
		snprintf(v->reason, sizeof(v->reason), "not supported here: no hardware PMU%s",
			 l->m->hypervisor ? " (virtual machine)" : "");
		v->class_wide = true;
	} else {
		copy_sentence(diagnosis_body(err->message), sentence, sizeof(sentence));
		copy_text(v->reason, sizeof(v->reason), sentence);
	}
}

/* A verdict for something that cannot even be described (no PMU, no code to probe). */
static void verdict_refused(struct verdict *v, int code, const char *reason)
{
	v->code = code < 0 ? code : PEV_EUNSUPPORTED;
	v->class_wide = true;
	copy_text(v->reason, sizeof(v->reason), reason);
}

/* The first CPU of a CPU list ("0-3,8" gives 0), or 0. */
static int first_cpu(const char *cpus)
{
	return cpus && isdigit((unsigned char)cpus[0]) ? atoi(cpus) : 0;
}

/* Where a PMU's events open: per-CPU-only PMUs CPU-wide on their first CPU, others on this thread. */
static struct pev_target target_for(const struct pev_pmu *pmu)
{
	if (pmu && pmu->per_cpu_only)
		return pev_target_cpu(first_cpu(pmu->cpus));
	return pev_target_self();
}

static int open_and_close(const struct pev_event *ev, const struct pev_target *t, bool user_only,
			  struct pev_error *err)
{
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_counter *c;

	o.disabled = true;
	o.exclude_kernel = o.exclude_hv = user_only;
	int r = pev_counter_open(ev, &o, t, NULL, &c, err);
	if (r == 0)
		pev_counter_close(c);
	return r;
}

/*
 * Opens ev the cheapest way that needs no privilege: user space only (unless
 * it counts in the kernel alone), then, when the PMU refuses the exclusion
 * bits (msr, power), with every privilege level. Only a refusal is opened
 * again with a struct pev_error, for the diagnosis.
 */
static void probe(const struct listing *l, const struct pev_event *ev, const struct pev_pmu *pmu,
		  bool kernel_side, struct verdict *v)
{
	struct pev_target t = target_for(pmu);
	struct pev_error err;
	bool user_only = !kernel_side;
	int r = open_and_close(ev, &t, user_only, NULL);

	if (r != 0 && user_only && (r == PEV_EINVAL || r == PEV_EOPNOTSUPP)) {
		user_only = false;
		r = open_and_close(ev, &t, user_only, NULL);
	}
	if (r == 0) {
		*v = (struct verdict){.code = 0};
		return;
	}
	r = open_and_close(ev, &t, user_only, &err);
	if (r == 0)
		*v = (struct verdict){.code = 0};
	else
		verdict_from_error(l, ev, &err, v);
}

/*
 * Decides the rows of s that carry an event: the first is opened, and the
 * others too unless the first one's refusal holds for the whole class.
 */
static void probe_rows(struct listing *l, struct section *s)
{
	struct verdict first, v;
	bool have_first = false;

	for (int i = 0; i < s->nr; i++) {
		struct row *r = &s->rows[i];
		if (!r->probe)
			continue;
		if (have_first && first.class_wide) {
			row_mark(l, r, &first);
			continue;
		}
		probe(l, &r->ev, s->pmu, s->kernel_side, have_first ? &v : &first);
		row_mark(l, r, have_first ? &v : &first);
		have_first = true;
	}
}

/* ---- generic events: hardware, software, cache ---------------------------- */

struct alias_walk {
	const char *canonical;
	const char **out;
	int n;
};

static int collect_alias(const char *name, const char *canonical, uint32_t kind,
			 const struct pev_event *ev, void *ctx)
{
	struct alias_walk *w = ctx;

	(void)kind, (void)ev;
	if (w->n < 3 && strcmp(canonical, w->canonical) == 0 && strcmp(name, canonical) != 0)
		w->out[w->n++] = name; /* the library's static spelling */
	return 0;
}

/* Collects into out (up to 3, NULL-terminated) the other spellings of the event called name. */
static void aliases_of(const struct pev_event *ev, const char *name, const char **out)
{
	struct alias_walk w = {name, out, 0};

	(void)ev;
	pev_event_foreach_name(collect_alias, &w);
	out[w.n] = NULL;
}

static void add_generic(struct listing *l, struct section *s, const struct pev_event *ev,
			const char *name)
{
	const char *aliases[4];
	struct row *r;

	aliases_of(ev, name, aliases);
	if ((r = row_add(l, s, name, aliases, NULL))) {
		r->probe = true;
		r->ev = *ev;
	}
}

static void list_hardware(struct listing *l)
{
	struct section *s = section_new(l, "hardware", "hardware", "hardware events");
	struct row *raw;

	for (uint64_t id = 0; id < PEV_HW_MAX; id++) {
		struct pev_event ev = pev_event_hardware((enum pev_hw_id)id);
		if (pev_hw_name(id))
			add_generic(l, s, &ev, pev_hw_name(id));
	}
	raw = row_add(l, s, "rNNN", NULL, "a raw event code of the core PMU, in hex (r3c)");
	if (raw) {
		raw->probe = true;
		raw->ev = pev_event_raw(0);
	}
	if (s)
		probe_rows(l, s);
}

static void list_software(struct listing *l)
{
	struct section *s = section_new(l, "software", "software", "software events");

	for (uint64_t id = 0; id < PEV_SW_MAX; id++) {
		struct pev_event ev = pev_event_software((enum pev_sw_id)id);
		if (pev_sw_name(id))
			add_generic(l, s, &ev, pev_sw_name(id));
	}
	if (s)
		probe_rows(l, s);
}

/* Every level x operation x result perf names: those whose name reads back as the same event. */
static void list_cache(struct listing *l)
{
	struct section *s = section_new(l, "cache", "cache", "hardware cache events");

	for (int level = 0; level < PEV_HW_CACHE_MAX; level++)
		for (int op = 0; op < PEV_HW_CACHE_OP_MAX; op++)
			for (int result = 0; result < PEV_HW_CACHE_RESULT_MAX; result++) {
				struct pev_event ev = pev_event_cache(
					(enum pev_hw_cache_id)level, (enum pev_hw_cache_op)op,
					(enum pev_hw_cache_result)result);
				struct pev_event back;
				char name[64];
				pev_event_describe(&ev, name, sizeof(name));
				if (pev_event_lookup(name, &back) == 0 && back.config == ev.config)
					add_generic(l, s, &ev, name);
			}
	if (s)
		probe_rows(l, s);
}

/* ---- sysfs PMUs ------------------------------------------------------------ */

/* PMUs whose events other sections list: fixed types and the probe PMUs. */
static bool listed_elsewhere(const struct pev_pmu *pmu)
{
	static const char *const names[] = {"software", "tracepoint", "breakpoint", "uprobe",
					    "kprobe"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(pmu->name, names[i]) == 0)
			return true;
	return pmu->type == PEV_TYPE_SOFTWARE || pmu->type == PEV_TYPE_TRACEPOINT ||
	       pmu->type == PEV_TYPE_BREAKPOINT;
}

/* "pmu/event=N,umask=N,edge/": its format terms, flags (one bit) without a value. */
static void format_syntax(const struct pev_pmu *pmu, char *buf, size_t size)
{
	size_t n = (size_t)snprintf(buf, size, "%s/", pmu->name);

	for (int i = 0; i < pmu->nr_formats && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s%s", i ? "," : "",
				      pmu->formats[i].name, pmu->formats[i].bits > 1 ? "=N" : "");
	if (n < size)
		snprintf(buf + n, size - n, "/");
}

/* "event: config:0-7,32-35; umask: config:8-15": where each term goes. */
static void format_description(const struct pev_pmu *pmu, char *buf, size_t size)
{
	static const char *const words[] = {"config", "config1", "config2", "config3"};
	size_t n = (size_t)snprintf(buf, size, "terms of %s:", pmu->name);

	for (int i = 0; i < pmu->nr_formats && n < size; i++) {
		const struct pev_pmu_format *f = &pmu->formats[i];
		n += (size_t)snprintf(buf + n, size - n, "%s %s=%s:", i ? ";" : "", f->name,
				      words[f->word & 3]);
		for (int k = 0; k < f->nr_ranges && n < size; k++) {
			if (f->ranges[k].lo == f->ranges[k].hi)
				n += (size_t)snprintf(buf + n, size - n, "%s%d", k ? "," : "",
						      f->ranges[k].lo);
			else
				n += (size_t)snprintf(buf + n, size - n, "%s%d-%d", k ? "," : "",
						      f->ranges[k].lo, f->ranges[k].hi);
		}
	}
}

/*
 * The term line of a PMU opens whatever its aliases open. A PMU without
 * aliases is tried with config 0: whether 0 is one of its events is up to
 * the PMU, so only a refusal for privilege marks the line.
 */
static void decide_format_row(struct listing *l, struct section *s, struct row *format)
{
	struct verdict v;

	for (int i = 0; i < s->nr; i++)
		if (s->rows[i].alias && s->rows[i].available) {
			row_mark(l, format, &(struct verdict){.code = 0});
			return;
		}
	for (int i = 0; i < s->nr; i++)
		if (s->rows[i].alias) {
			format->available = false;
			format->reason = dup_or_flag(l, s->rows[i].reason);
			return;
		}
	struct pev_event ev = {.type = s->pmu->type, .pmu = s->pmu->name, .name = format->name};
	probe(l, &ev, s->pmu, false, &v);
	if (v.code == PEV_EACCES || v.code == PEV_EPERM)
		row_mark(l, format, &v);
}

/*
 * Fills r->ev with the event of PMU alias row r, as the parser builds it from
 * the alias's terms. An alias the parser refuses is listed unavailable, with
 * the parser's reason.
 */
static void alias_event(struct listing *l, const struct pev_pmu *pmu, struct row *r)
{
	struct pev_parse_opts po = PEV_PARSE_OPTS_INIT;
	struct pev_event_list *list;
	struct pev_error err;

	po.pmus = l->pmus;
	po.no_mount = true;
	po.no_pfm = true;
	if (pev_event_parse(r->name, &po, &list, &err) < 0) {
		struct verdict v;
		char sentence[480];
		copy_sentence(err.message, sentence, sizeof(sentence));
		verdict_refused(&v, err.code, sentence);
		row_mark(l, r, &v);
		return;
	}
	if (pev_event_list_count(list) > 0) {
		r->ev = pev_event_list_at(list, 0)->ev;
		r->ev.name = r->name;
		r->ev.pmu = pmu->name;
		r->probe = true;
	}
	pev_event_list_free(list);
}

static void list_pmu(struct listing *l, const struct pev_pmu *pmu)
{
	char key[80], title[160], syntax[512], description[1024];
	struct section *s;
	struct row *format = NULL;

	snprintf(key, sizeof(key), "pmu:%s", pmu->name);
	snprintf(title, sizeof(title), "%s PMU (type %" PRIu32 "%s%s)", pmu->name, pmu->type,
		 pmu->per_cpu_only ? ", CPU-wide only, CPUs " : "",
		 pmu->per_cpu_only ? pmu->cpus : "");
	if (!(s = section_new(l, key, "pmu", title)))
		return;
	s->pmu = pmu;
	for (int i = 0; i < pmu->nr_aliases; i++) {
		const struct pev_pmu_alias *a = &pmu->aliases[i];
		char name[300];
		struct row *r;
		snprintf(name, sizeof(name), "%s/%s/", pmu->name, a->name);
		if ((r = row_add(l, s, name, NULL, NULL))) {
			r->alias = a;
			alias_event(l, pmu, r);
		}
	}
	if (pmu->nr_formats > 0) {
		format_syntax(pmu, syntax, sizeof(syntax));
		format_description(pmu, description, sizeof(description));
		format = row_add(l, s, syntax, NULL, description);
	}
	probe_rows(l, s);
	if (format)
		decide_format_row(l, s, format);
}

static void list_pmus(struct listing *l)
{
	for (int i = 0; i < pev_pmus_count(l->pmus); i++) {
		const struct pev_pmu *pmu = pev_pmus_at(l->pmus, i);
		if (!listed_elsewhere(pmu) && (pmu->nr_aliases > 0 || pmu->nr_formats > 0))
			list_pmu(l, pmu);
	}
}

/* ---- tracepoints ---------------------------------------------------------- */

struct tracepoint_walk {
	struct listing *l;
	struct section *s;
	uint64_t first_id; /* of the first tracepoint listed, 0 before */
};

static int add_tracepoint(const struct pev_tracepoint *tp, void *ctx)
{
	struct tracepoint_walk *w = ctx;
	char name[512];
	struct row *r;

	snprintf(name, sizeof(name), "%s:%s", tp->system, tp->name);
	if ((r = row_add(w->l, w->s, name, NULL, NULL))) {
		r->has_id = true;
		r->id = tp->id;
		if (!w->first_id)
			w->first_id = tp->id;
	}
	return w->l->oom ? -1 : 0;
}

/* The note when tracefs is not mounted: what exists, and how to mount it. */
static void note_unmounted(struct listing *l, struct section *s, bool tried_mount,
			   const struct pev_error *err)
{
	char note[2 * PEV_ERROR_MESSAGE_MAX + 256];

	if (!l->m->tracefs_supported)
		snprintf(note, sizeof(note), "this kernel has no tracefs (CONFIG_TRACING), so it "
					     "offers no tracepoints");
	else if (tried_mount)
		snprintf(note, sizeof(note), "tracepoints exist but tracefs could not be mounted: "
					     "%s",
			 err->message);
	else
		snprintf(note, sizeof(note), "tracepoints exist but tracefs is not mounted, so "
					     "they cannot be listed; mount it (as root): mount -t "
					     "tracefs nodev /sys/kernel/tracing, or run 'perfev list "
					     "--tracefs-mount'");
	s->note = dup_or_flag(l, note);
}

/*
 * One representative decides every tracepoint: sched:sched_switch when it
 * exists, else the first one listed. It is opened kernel included, since a
 * tracepoint fires in the kernel only.
 */
static void decide_tracepoints(struct listing *l, struct section *s, const char *tracefs,
			       uint64_t first_id)
{
	struct pev_event ev;
	struct verdict v;
	uint64_t id;

	if (pev_tracepoint_id(tracefs, "sched", "sched_switch", &id, NULL) < 0)
		id = first_id;
	ev = pev_event_tracepoint(id);
	ev.name = id == first_id ? s->rows[0].name : "sched:sched_switch";
	probe(l, &ev, NULL, true, &v);
	section_mark_all(l, s, &v);
}

static void list_tracepoints(struct listing *l, bool may_mount)
{
	struct section *s = section_new(l, "tracepoint", "tracepoint", "tracepoints");
	struct tracepoint_walk w = {l, s, 0};
	struct pev_error err;
	char tracefs[256];

	if (!s)
		return;
	s->kernel_side = true;
	if (pev_tracefs_path(may_mount, tracefs, sizeof(tracefs), &err) < 0) {
		note_unmounted(l, s, may_mount, &err);
		return;
	}
	snprintf(s->title, sizeof(s->title), "tracepoints (tracefs at %s)", tracefs);
	if (pev_tracepoints_foreach(tracefs, NULL, NULL, add_tracepoint, &w, &err) < 0 && !l->oom) {
		char note[2 * PEV_ERROR_MESSAGE_MAX + 64];
		snprintf(note, sizeof(note), "tracepoints exist but cannot be listed: %s%s%s",
			 err.message, err.hint[0] ? "; fix: " : "", err.hint);
		for (char *nl = strchr(note, '\n'); nl; nl = strchr(nl, '\n'))
			*nl = ' ';
		s->note = dup_or_flag(l, note);
		return;
	}
	if (s->nr > 0)
		decide_tracepoints(l, s, tracefs, w.first_id);
}

/* ---- breakpoints and probes ------------------------------------------------ */

/* Something for the breakpoint probe to watch. */
static volatile int watched_variable;

static void list_breakpoints(struct listing *l)
{
	struct section *s = section_new(l, "breakpoint", "breakpoint", "hardware breakpoints");
	struct row *r = row_add(l, s, "mem:ADDR[/LEN][:rwx]", NULL,
				"a watchpoint on LEN bytes (1, 2, 4 or 8) at ADDR, for reads "
				"(r), writes (w) or execution (x); rw by default");

	if (r) {
		r->probe = true;
		r->ev = pev_event_breakpoint((uint64_t)(uintptr_t)&watched_variable,
					     sizeof(watched_variable), PEV_BP_W);
		r->ev.name = "mem:ADDR";
		probe_rows(l, s);
	}
}

/* Opens a uprobe on perfev's own code: whether uprobes (and uretprobes) work here. */
static void uprobe_verdict(struct listing *l, struct verdict *v)
{
	struct pev_event ev;
	struct pev_error err;
	char file[768];
	uint64_t offset;

	if (!cli_code_location((const void *)(uintptr_t)cmd_list, file, sizeof(file), &offset)) {
		verdict_refused(v, PEV_EUNSUPPORTED,
				"cannot find perfev's own code in /proc/self/maps to try a uprobe");
		return;
	}
	if (pev_event_uprobe(&ev, file, offset, false, NULL, &err) < 0) {
		verdict_refused(v, err.code, err.message);
		return;
	}
	ev.name = "uprobe on perfev";
	probe(l, &ev, NULL, false, v);
}

/* Opens a kprobe on vfs_read: whether kprobes work here. */
static void kprobe_verdict(struct listing *l, struct verdict *v)
{
	struct pev_event ev;
	struct pev_error err;
	char reason[PEV_ERROR_MESSAGE_MAX + 32];

	if (pev_event_kprobe(&ev, "vfs_read", 0, false, NULL, &err) < 0) {
		snprintf(reason, sizeof(reason), "not supported here: %s", err.message);
		verdict_refused(v, err.code, reason);
		return;
	}
	ev.name = "kprobe on vfs_read";
	probe(l, &ev, NULL, true, v);
}

static void list_probes(struct listing *l)
{
	struct section *s = section_new(l, "probe", "probe", "probes");
	struct verdict v;
	struct row *up = row_add(l, s, "uprobe:PATH:SYMBOL[+OFFSET]", NULL,
				 "a uprobe at a function (or +OFFSET into the file) of an "
				 "executable or library");
	struct row *uret = row_add(l, s, "uretprobe:PATH:SYMBOL[+OFFSET]", NULL,
				   "a uprobe on the function's return");
	struct row *k = row_add(l, s, "kprobe:FUNCTION[+OFFSET]", NULL,
				"a kprobe at a kernel function");
	struct row *kret = row_add(l, s, "kretprobe:FUNCTION[+OFFSET]", NULL,
				   "a kprobe on the kernel function's return");

	if (up || uret) {
		uprobe_verdict(l, &v);
		row_mark(l, up, &v);
		row_mark(l, uret, &v);
	}
	if (k || kret) {
		kprobe_verdict(l, &v);
		row_mark(l, k, &v);
		row_mark(l, kret, &v);
	}
}

/* ---- SDT events in perf's build-id cache ---------------------------------- */

/*
 * The SDT events perf lists: those of the binaries in its build-id cache
 * (list_sdt.c), named as perf names them: "provider:event", or with
 * "@PATH(BUILD-ID)" when several cached binaries have an event of that name.
 * Each is a uprobe, so uprobes decide whether they open here.
 */
static void list_sdt(struct listing *l)
{
	struct cli_sdt_event *events;
	int n = cli_sdt_events_read(&events);
	struct section *s;
	struct verdict v = {0};
	bool decided = false;

	if (n < 0) {
		l->oom = true;
		return;
	}
	if (n == 0 || !(s = section_new(l, "sdt", "sdt", "SDT events (perf's build-id cache)"))) {
		cli_sdt_events_free(events, n);
		return;
	}
	for (int i = 0; i < n; i++) {
		const struct cli_sdt_event *e = &events[i];
		bool shared = (i > 0 && strcmp(events[i - 1].name, e->name) == 0) ||
			      (i + 1 < n && strcmp(events[i + 1].name, e->name) == 0);
		char name[PATH_MAX + 256], description[PATH_MAX + 64];
		if (shared)
			snprintf(name, sizeof(name), "%s@%s(%.12s)", e->name, e->path, e->build_id);
		else
			snprintf(name, sizeof(name), "%s", e->name);
		snprintf(description, sizeof(description), "SDT event in %s", e->path);
		struct row *r = row_add(l, s, name, NULL, description);
		if (r && !decided) {
			uprobe_verdict(l, &v);
			decided = true;
		}
		row_mark(l, r, &v);
	}
	cli_sdt_events_free(events, n);
}

/* ---- CPU vendor names (libpfm4) ------------------------------------------- */

struct vendor_walk {
	struct listing *l;
	int count;
	char pmus[256]; /* libpfm4 PMU names seen, comma-separated */
	bool collect;   /* add rows, not only count */
};

static struct section *vendor_section(struct listing *l, const char *pmu)
{
	char key[80], title[160];

	snprintf(key, sizeof(key), "vendor:%s", pmu);
	for (int i = 0; i < l->nr; i++)
		if (strcmp(l->sections[i]->name, key) == 0)
			return l->sections[i];
	snprintf(title, sizeof(title), "CPU vendor events of %s (libpfm4)", pmu);
	return section_new(l, key, "vendor", title);
}

static void remember_pmu(struct vendor_walk *w, const char *pmu)
{
	size_t n = strlen(pmu), len = strlen(w->pmus);

	for (const char *p = w->pmus; (p = strstr(p, pmu)); p += n)
		if ((p == w->pmus || p[-1] == ' ') && (p[n] == ',' || p[n] == '\0'))
			return;
	snprintf(w->pmus + len, sizeof(w->pmus) - len, "%s%s", len ? ", " : "", pmu);
}

static int add_vendor_name(const char *pmu, const char *name, const char *description,
			   void *ctx)
{
	struct vendor_walk *w = ctx;

	w->count++;
	remember_pmu(w, pmu);
	if (w->collect)
		row_add(w->l, vendor_section(w->l, pmu), name, NULL, description);
	return w->l->oom ? -1 : 0;
}

/* One representative per libpfm4 PMU, its first name, decides all its names. */
static void decide_vendor_section(struct listing *l, struct section *s)
{
	const char *pmu = s->name + strlen("vendor:");
	struct pev_event ev;
	struct pev_error err;
	struct verdict v;
	char name[512];

	snprintf(name, sizeof(name), "%s::%s", pmu, s->rows[0].name);
	if (pev_pfm_encode(name, &ev, &err) < 0) {
		verdict_refused(&v, err.code, err.message);
	} else {
		ev.name = s->rows[0].name;
		probe(l, &ev, pev_pmus_find_type(l->pmus, ev.type), false, &v);
	}
	section_mark_all(l, s, &v);
}

static void list_vendor(struct listing *l, bool all)
{
	struct vendor_walk w = {.l = l, .collect = all};
	struct section *s;
	char note[512];
	int first = l->nr;

	if (!pev_pfm_available()) {
		if ((s = section_new(l, "vendor", "vendor", "CPU vendor events (libpfm4)")))
			s->note = dup_or_flag(l, "libpfm4 is not available (perfev was built "
						 "without it, or libpfm.so.4 is not installed), so "
						 "no CPU vendor event names are known");
		return;
	}
	int r = pev_pfm_foreach(add_vendor_name, &w);
	if (r < 0 && !l->oom) {
		if ((s = section_new(l, "vendor", "vendor", "CPU vendor events (libpfm4)")))
			s->note = dup_or_flag(l, "libpfm4 has no event table for this CPU (set "
						 "LIBPFM_FORCE_PMU to list another CPU's)");
		return;
	}
	if (all) {
		for (int i = first; i < l->nr; i++)
			if (l->sections[i]->nr > 0)
				decide_vendor_section(l, l->sections[i]);
		return;
	}
	snprintf(note, sizeof(note), "libpfm4 knows %d CPU vendor event names for this machine "
				     "(%s); 'perfev list --vendor' lists them",
		 w.count, w.pmus);
	if ((s = section_new(l, "vendor", "vendor", "CPU vendor events (libpfm4)")))
		s->note = dup_or_flag(l, note);
}

/* ---- output ----------------------------------------------------------------- */

static int total_rows(const struct listing *l)
{
	int n = 0;

	for (int i = 0; i < l->nr; i++)
		n += l->sections[i]->nr;
	return n;
}

/*
 * A section's note shows without a FILTER; with one, when nothing matched,
 * and the tracepoint note also when the FILTER looks like a tracepoint
 * (has a ':').
 */
static bool note_shown(const struct listing *l, const struct section *s)
{
	return s->note && (!l->filter || total_rows(l) == 0 ||
			   (!strcmp(s->kind, "tracepoint") && strchr(l->filter, ':')));
}

static bool section_shown(const struct listing *l, const struct section *s)
{
	return s->nr > 0 || note_shown(l, s);
}

/* The text after a row's name: description, unit and scale, and the reason it is unavailable. */
static void row_annotation(const struct row *r, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	if (r->description && r->description[0])
		n += (size_t)snprintf(buf + n, size - n, "%s", r->description);
	if (r->alias && n < size && (r->alias->unit[0] || r->alias->scale != 1.0))
		n += (size_t)snprintf(buf + n, size - n, "%s(%s%sscale %g)", n ? " " : "",
				      r->alias->unit, r->alias->unit[0] ? ", " : "",
				      r->alias->scale);
	if (!r->available && n < size)
		snprintf(buf + n, size - n, "%s[unavailable: %s]", n ? " " : "", r->reason);
}

/* "name OR alias  annotation" on one line. */
static void print_row(const struct row *r)
{
	char name[1024], annotation[2048];

	snprintf(name, sizeof(name), "%s", r->name);
	for (int i = 0; r->aliases[i]; i++)
		snprintf(name + strlen(name), sizeof(name) - strlen(name), " OR %s", r->aliases[i]);
	row_annotation(r, annotation, sizeof(annotation));
	/* Names and terms come from sysfs, tracefs and libpfm4: any byte (cli_shown). */
	if (annotation[0])
		printf("  %-*s %s\n", NAME_COLUMN - 3, cli_shown(name), cli_shown(annotation));
	else
		printf("  %s\n", cli_shown(name));
}

static void print_text(const struct listing *l)
{
	bool first = true;

	for (int i = 0; i < l->nr; i++) {
		const struct section *s = l->sections[i];
		if (!section_shown(l, s))
			continue;
		printf("%s%s\n", first ? "" : "\n", cli_shown(s->title));
		first = false;
		for (int k = 0; k < s->nr; k++)
			print_row(&s->rows[k]);
		if (note_shown(l, s))
			printf("  %s\n", cli_shown(s->note));
	}
}

static json_object *json_row(const struct section *s, const struct row *r)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "name", cli_json_string(r->name));
	if (!strcmp(s->kind, "hardware") || !strcmp(s->kind, "software") ||
	    !strcmp(s->kind, "cache")) {
		json_object *a = json_object_new_array();
		for (int i = 0; r->aliases[i]; i++)
			json_object_array_add(a, cli_json_string(r->aliases[i]));
		json_object_object_add(o, "aliases", a);
	}
	if (r->description)
		json_object_object_add(o, "description", cli_json_string(r->description));
	if (r->alias) {
		json_object_object_add(o, "terms", cli_json_string(r->alias->terms));
		json_object_object_add(o, "scale", json_object_new_double(r->alias->scale));
		json_object_object_add(o, "unit", cli_json_string(r->alias->unit));
	}
	if (r->has_id)
		json_object_object_add(o, "id", json_object_new_uint64(r->id));
	json_object_object_add(o, "available", json_object_new_boolean(r->available));
	if (!r->available)
		json_object_object_add(o, "reason", cli_json_string(r->reason));
	return o;
}

/*
 * The document; names, terms, titles and reasons come from sysfs, tracefs
 * and libpfm4, so every string goes through cli_json_string (valid UTF-8).
 */
static void print_json(const struct listing *l)
{
	json_object *root = json_object_new_object(), *sections = json_object_new_array();

	for (int i = 0; i < l->nr; i++) {
		const struct section *s = l->sections[i];
		if (!section_shown(l, s))
			continue;
		json_object *so = json_object_new_object(), *events = json_object_new_array();
		json_object_object_add(so, "name", cli_json_string(s->name));
		json_object_object_add(so, "kind", cli_json_string(s->kind));
		json_object_object_add(so, "title", cli_json_string(s->title));
		if (s->pmu) {
			json_object_object_add(so, "pmu", cli_json_string(s->pmu->name));
			json_object_object_add(so, "type", json_object_new_int64(s->pmu->type));
		}
		if (note_shown(l, s))
			json_object_object_add(so, "note", cli_json_string(s->note));
		for (int k = 0; k < s->nr; k++)
			json_object_array_add(events, json_row(s, &s->rows[k]));
		json_object_object_add(so, "events", events);
		json_object_array_add(sections, so);
	}
	json_object_object_add(root, "sections", sections);
	printf("%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
							    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
}

/* ---- the command ------------------------------------------------------------- */

struct list_options {
	bool json, vendor, tracefs_mount;
	const char *filter;
};

/* Parses the arguments; returns -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, struct list_options *o)
{
	static const struct option options[] = {
		{"json", no_argument, NULL, 'j'},
		{"vendor", no_argument, NULL, 'v'},
		{"tracefs-mount", no_argument, NULL, 'm'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int opt;

	optind = 1;
	opterr = 0; /* perfev's own messages (cli_bad_option), not getopt's */
	while ((opt = getopt_long(argc, argv, ":jh", options, NULL)) != -1) {
		switch (opt) {
		case 'j':
			o->json = true;
			break;
		case 'v':
			o->vendor = true;
			break;
		case 'm':
			o->tracefs_mount = true;
			break;
		case 'h':
			printf("usage: %s\n\nLists every event this machine offers, by section, "
			       "each marked with the reason when it cannot be opened here. FILTER "
			       "(a shell glob or a substring) keeps the matching names.\n\n"
			       "  -j, --json            print the list as one JSON document\n"
			       "      --vendor          the CPU vendor's event tables (libpfm4) too\n"
			       "      --tracefs-mount   mount tracefs first when it is not mounted\n"
			       "  -h, --help            print this help\n\n"
			       "'man perfev-list' has the details.\n",
			       usage);
			return 0;
		default:
			return cli_bad_option(opt, argv, usage);
		}
	}
	if (optind < argc)
		o->filter = argv[optind++];
	if (optind < argc) {
		cli_error("unexpected argument '%s' (one FILTER at most)", argv[optind]);
		return cli_usage(usage);
	}
	if (o->filter && !o->filter[0])
		o->filter = NULL;
	if (o->json && !cli_json_available("--json"))
		return 1;
	return -1;
}

static void build_listing(struct listing *l, const struct list_options *o)
{
	list_hardware(l);
	list_software(l);
	list_cache(l);
	list_pmus(l);
	list_tracepoints(l, o->tracefs_mount);
	list_sdt(l);
	list_breakpoints(l);
	list_probes(l);
	list_vendor(l, o->vendor);
}

int cmd_list(int argc, char **argv)
{
	struct list_options o = {0};
	struct pev_machine *m;
	struct pev_pmus *pmus = NULL;
	int status = parse_options(argc, argv, &o);

	if (status >= 0)
		return status;
	if (!(m = calloc(1, sizeof(*m)))) {
		cli_error("out of memory");
		return 1;
	}
	pev_machine_read(m, NULL);
	pev_pmus_read(NULL, &pmus, NULL); /* without sysfs: no PMU sections */
	struct listing l = {.filter = o.filter, .m = m, .pmus = pmus};
	build_listing(&l, &o);
	if (l.oom) {
		cli_error("out of memory");
		status = 1;
	} else {
		if (o.json)
			print_json(&l);
		else
			print_text(&l);
		status = 0;
	}
	listing_free(&l);
	pev_pmus_free(pmus);
	free(m);
	return status;
}
