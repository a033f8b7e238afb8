/* SPDX-License-Identifier: MIT */
/*
 * parse.c - perf's event syntax: a string becomes a list of event specs.
 *
 * The input is split at top-level commas into items; an item is a group
 * ("{a,b}:mods") or one event. Each event is classified by its shape, in
 * this order: a PMU with terms ("pmu/terms/mods"), a breakpoint ("mem:"), a
 * probe ("uprobe:", "kprobe:", ...), a raw code ("r3c"), a generic name
 * ("cycles:u"), a tracepoint ("sched:sched_switch"), a PMU event alias
 * without its PMU ("tsc"), a CPU vendor name (libpfm4). Anything else is an
 * unknown name, reported with a caret under it and the closest known names.
 */
#include "perfev/parse.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error_internal.h"
#include "perfev/pfm.h"
#include "perfev/text.h"
#include "events/pfm_internal.h"
#include "perfev/tracepoint.h"
#include "core/suggest.h"
#include "core/util.h"

/* ---- the list and the strings it owns --------------------------------- */

/* Strings live in blocks that never move, so specs can point into them. */
struct string_block {
	struct string_block *next;
	size_t used, size;
	char data[];
};

struct pev_event_list {
	int n, cap;
	struct pev_event_spec *specs;
	struct string_block *strings;
};

static char *list_strndup(struct pev_event_list *l, const char *s, size_t len)
{
	struct string_block *b = l->strings;

	if (!b || b->size - b->used < len + 1) {
		size_t size = len + 1 > 4000 ? len + 1 : 4000;
		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->used = 0;
		b->size = size;
		b->next = l->strings;
		l->strings = b;
	}
	char *p = b->data + b->used;
	memcpy(p, s, len);
	p[len] = '\0';
	b->used += len + 1;
	return p;
}

static char *list_strdup(struct pev_event_list *l, const char *s)
{
	return list_strndup(l, s, strlen(s));
}

PEV_API void pev_event_list_free(struct pev_event_list *l)
{
	if (!l)
		return;
	while (l->strings) {
		struct string_block *next = l->strings->next;
		free(l->strings);
		l->strings = next;
	}
	free(l->specs);
	free(l);
}

PEV_API int pev_event_list_count(const struct pev_event_list *l)
{
	return l ? l->n : pev__bad_arg(NULL, "pev_event_list_count", "list", "NULL");
}

PEV_API const struct pev_event_spec *pev_event_list_at(const struct pev_event_list *l, int i)
{
	return l && i >= 0 && i < l->n ? &l->specs[i] : NULL;
}

/* ---- the parser's state and error reporting --------------------------- */

/* Most events one string may give (tracepoint globs expand). */
#define MAX_EVENTS 100000

struct parser {
	const char *input;
	struct pev_parse_opts opts;
	const struct pev_pmus *pmus;
	struct pev_pmus *own_pmus;
	struct pev_event_list *list;
	struct pev_error *err;
	int group;          /* current group number, or -1 */
	int groups;         /* groups seen so far */
	int tracefs_state;  /* 0 not looked up, 1 found, negative: the error code */
	char tracefs[256];
	struct pev_error tracefs_err;
};

/*
 * Writes byte c as it is shown in messages: printable ASCII as itself, any
 * other byte (control, escape, non-ASCII) as \xHH (pev_text_escape), so that
 * an event string cannot drive the terminal. Returns the columns written (1 or 4).
 */
static int shown_byte(unsigned char c, char out[5])
{
	char in[2] = {(char)c, '\0'};

	return (int)pev_text_escape(out, 5, in, PEV_TEXT_ASCII);
}

/*
 * Appends the input, its bytes shown as by shown_byte(), with a caret line
 * under [pos, pos + len) to err's message.
 */
static void point_at(struct parser *p, size_t pos, size_t len)
{
	size_t n = strlen(p->input);
	int column = 0, width = 0;
	char b[5];

	if (!p->err)
		return;
	p->err->position = (int)pos;
	p->err->length = (int)len;
	if (pos > n)
		pos = n;
	if (len == 0)
		len = 1;
	pev__error_msg(p->err, "\n    ");
	for (size_t i = 0; i < n; i++) {
		int w = shown_byte((unsigned char)p->input[i], b);
		if (i < pos)
			column += w;
		else if (i < pos + len)
			width += w;
		pev__error_msg(p->err, "%s", b);
	}
	pev__error_msg(p->err, "\n    %*s^", column, "");
	for (int i = 1; i < width; i++)
		pev__error_msg(p->err, "~");
}

/* Reports an error at [pos, pos + len) of the input. Returns code. */
static int fail(struct parser *p, int code, size_t pos, size_t len, const char *fmt, ...)
	PEV_PRINTF(5, 6);
static int fail(struct parser *p, int code, size_t pos, size_t len, const char *fmt, ...)
{
	va_list ap;

	pev__error_start(p->err, code, 0, NULL, NULL, true);
	if (p->err) {
		va_start(ap, fmt);
		pev__vappendf(p->err->message, sizeof(p->err->message), fmt, ap);
		va_end(ap);
	}
	point_at(p, pos, len);
	return code;
}

/*
 * Reports an error another module described in `inner`, pointing at
 * [pos, pos + len) of the input. Returns inner's code.
 */
static int fail_with(struct parser *p, const struct pev_error *inner, size_t pos, size_t len)
{
	if (!p->err)
		return inner->code;
	*p->err = *inner;
	p->err->before_syscall = true;
	point_at(p, pos, len);
	return inner->code;
}

static size_t offset_of(const struct parser *p, const char *at)
{
	return (size_t)(at - p->input);
}

/* ---- building specs ----------------------------------------------------- */

static struct pev_event_spec *new_spec(struct parser *p, const char *text, size_t len)
{
	struct pev_event_list *l = p->list;

	if (l->n >= MAX_EVENTS)
		return NULL;
	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 8;
		struct pev_event_spec *s = realloc(l->specs, sizeof(*s) * (size_t)cap);
		if (!s)
			return NULL;
		l->specs = s;
		l->cap = cap;
	}
	struct pev_event_spec *spec = &l->specs[l->n];
	memset(spec, 0, sizeof(*spec));
	spec->opts.sz = sizeof(spec->opts);
	spec->opts.exclude_guest = p->opts.perf_guest; /* see apply_guest_host */
	spec->group = p->group;
	spec->scale = 1.0;
	spec->unit = "";
	spec->text = list_strndup(l, text, len);
	if (!spec->text)
		return NULL;
	l->n++;
	return spec;
}

static int out_of_memory(struct parser *p)
{
	pev__error_start(p->err, PEV_ENOMEM, ENOMEM, NULL, NULL, true);
	pev__error_msg(p->err, "out of memory while parsing events");
	return PEV_ENOMEM;
}

/* Adds one spec for ev from input text [text, text + len), named `name`. */
static struct pev_event_spec *add_event(struct parser *p, const struct pev_event *ev,
					const char *text, size_t len, const char *name)
{
	struct pev_event_spec *spec = new_spec(p, text, len);

	if (!spec)
		return NULL;
	spec->ev = *ev;
	spec->ev.name = list_strdup(p->list, name);
	if (!spec->ev.name) {
		p->list->n--;
		return NULL;
	}
	return spec;
}

/* ---- numbers and names -------------------------------------------------- */

/* Parses a whole number (decimal, 0x hex) of [s, s + len). */
static bool parse_number(const char *s, size_t len, uint64_t *out)
{
	char buf[64];

	if (len == 0 || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return pev__parse_u64(buf, out);
}

static bool is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

/* ---- modifiers ---------------------------------------------------------- */

/* What a modifier string asks for; applied to each event it covers. */
struct modifiers {
	bool u, k, h, G, H, I, S, D, W, e, P;
	int precise; /* number of 'p' */
	bool any;    /* the string was not empty */
};

/*
 * Parses the modifier letters [s, s + len). Returns 0 or an error pointing at
 * the bad letter.
 */
static int parse_modifiers(struct parser *p, const char *s, size_t len, struct modifiers *m)
{
	memset(m, 0, sizeof(*m));
	if (len == 0)
		return fail(p, PEV_EPARSE, offset_of(p, s) ? offset_of(p, s) - 1 : 0, 1,
			    "a ':' must be followed by modifiers (u k h G H I p P S D W e)");
	m->any = true;
	for (size_t i = 0; i < len; i++) {
		switch (s[i]) {
		case 'u': m->u = true; break;
		case 'k': m->k = true; break;
		case 'h': m->h = true; break;
		case 'G': m->G = true; break;
		case 'H': m->H = true; break;
		case 'I': m->I = true; break;
		case 'S': m->S = true; break;
		case 'D': m->D = true; break;
		case 'W': m->W = true; break;
		case 'e': m->e = true; break;
		case 'P': m->P = true; break;
		case 'p':
			if (++m->precise > 3)
				return fail(p, PEV_EINVAL, offset_of(p, s + i), 1,
					    "too many 'p' modifiers: 'ppp' (precise_ip 3) is the "
					    "highest skid constraint");
			break;
		default: {
			int r = fail(p, PEV_EPARSE, offset_of(p, s + i), 1,
				     "unknown modifier '%c'", s[i]);
			pev__error_hint(p->err, "modifiers are u (user), k (kernel), h "
						"(hypervisor), G (guest), H (host), I (not idle), p/pp/ppp "
						"(precise), P (most precise), S (leader sampling), D "
						"(pinned), W (weak group), e (exclusive)");
			return r;
		}
		}
	}
	return 0;
}

/* True when [s, s + len) is made of modifier letters only. */
static bool only_modifiers(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!s[i] || !strchr("ukhGHIpPSDWe", s[i]))
			return false;
	return true;
}

/*
 * Guest and host. G and H exclude the other side; with as_perf (the
 * option perf_guest), as perf 6.1 sets them: every event excludes the guest
 * (exclude_guest; perf_event_open's default counts both) until a modifier
 * says otherwise. An event's own modifier string decides anew: G and H
 * exclude the other side, and without them the guest stays excluded only
 * for 'u' or 'p' (":k" counts in the guest too). A group's modifiers add to
 * what each event has: 'u' and 'p' exclude the guest unless G or H was
 * given, here or on the event.
 */
static void apply_guest_host(struct pev_opts *o, const struct modifiers *m, bool group,
			     bool own_guest_host, bool as_perf)
{
	bool guest_host = own_guest_host || m->G || m->H;

	if (!group && !m->any)
		return;
	if (!group)
		o->exclude_host = o->exclude_guest = false;
	if (m->G || m->H) {
		if (!own_guest_host)
			o->exclude_host = o->exclude_guest = true;
		if (m->G)
			o->exclude_guest = false;
		if (m->H)
			o->exclude_host = false;
	} else if (as_perf && (m->u || m->precise) && !guest_host) {
		o->exclude_guest = true;
	}
}

/*
 * Applies modifiers to one spec, as perf does: on top of what the spec already
 * has, so that a group's modifiers combine with each event's own
 * ("{cycles:k,instructions}:u" counts cycles in user and kernel). The first
 * of u/k/h to limit the levels excludes the other two; later ones only add
 * their level back. 'p's add up. `group` tells a group's modifiers from the
 * event's own; own_guest_host, that the event's own had G or H.
 */
static void apply_modifiers_as(const struct parser *p, struct pev_event_spec *spec,
			       const struct modifiers *m, bool group, bool own_guest_host)
{
	struct pev_opts *o = &spec->opts;

	if (m->u || m->k || m->h) {
		if (!o->exclude_user && !o->exclude_kernel && !o->exclude_hv)
			o->exclude_user = o->exclude_kernel = o->exclude_hv = true;
		if (m->u)
			o->exclude_user = false;
		if (m->k)
			o->exclude_kernel = false;
		if (m->h)
			o->exclude_hv = false;
	}
	apply_guest_host(o, m, group, own_guest_host, p->opts.perf_guest);
	if (m->I)
		o->exclude_idle = true;
	if (m->precise)
		o->skid = (enum pev_skid)((int)o->skid + m->precise);
	if (m->P)
		spec->max_precise = true;
	if (m->S) {
		if (spec->group >= 0)
			spec->leader_sampling = true;
		else
			o->sample_type |= PEV_SAMPLE_READ;
	}
	if (m->D)
		o->pinned = true;
	if (m->e)
		o->exclusive = true;
	if (m->W)
		spec->weak_group = true;
}

/* Applies an event's own modifiers (none when m->any is false) to its new spec. */
static void apply_modifiers(const struct parser *p, struct pev_event_spec *spec,
			    const struct modifiers *m)
{
	apply_modifiers_as(p, spec, m, false, false);
}

/* Whether the modifiers at the end of an event's own text have G or H. */
static bool own_guest_host(const struct pev_event_spec *spec)
{
	const char *colon = strrchr(spec->text, ':'), *slash = strrchr(spec->text, '/');
	const char *mods = colon > slash ? colon + 1 : slash ? slash + 1 : NULL;

	if (!mods || !*mods || !only_modifiers(mods, strlen(mods)))
		return false;
	return strchr(mods, 'G') || strchr(mods, 'H');
}

/*
 * Applies a group's modifiers [mods, mods + len) to the specs from index
 * `first` on. Pinned (D) and exclusive (e) apply to a group as a whole: only
 * its leader carries them, as in perf (the kernel refuses them on members).
 */
static int apply_modifiers_from(struct parser *p, int first, const struct modifiers *m,
				const char *mods, size_t len)
{
	for (int i = first; i < p->list->n; i++) {
		struct pev_event_spec *spec = &p->list->specs[i];
		struct modifiers own = *m;
		if ((int)spec->opts.skid + m->precise > 3)
			return fail(p, PEV_EINVAL, offset_of(p, mods), len,
				    "too many 'p' modifiers: '%s' already asks for precise_ip %d, and "
				    "3 is the highest",
				    spec->ev.name ? spec->ev.name : "the event", (int)spec->opts.skid);
		if (!spec->group_leader)
			own.D = own.e = false;
		apply_modifiers_as(p, spec, &own, true, own_guest_host(spec));
	}
	return 0;
}

/* ---- PMUs ---------------------------------------------------------------- */

static int load_pmus(struct parser *p)
{
	struct pev_error e;

	if (p->pmus)
		return 0;
	int r = pev_pmus_read(p->opts.sysfs_root, &p->own_pmus, &e);
	if (r == PEV_ENOENT) {
		/* No sysfs PMUs at all (a fixture, a container): only fixed types resolve. */
		p->own_pmus = NULL;
		return 0;
	}
	if (r < 0)
		return fail_with(p, &e, 0, 0);
	p->pmus = p->own_pmus;
	return 0;
}

/* Names every term pmu accepts, for the hint of an unknown one. */
static void hint_terms(struct parser *p, const struct pev_pmu *pmu)
{
	char text[1024] = "";

	for (int i = 0; i < pmu->nr_formats; i++)
		pev__appendf(text, sizeof(text), "%s%s", i ? ", " : "", pmu->formats[i].name);
	pev__appendf(text, sizeof(text), "%sconfig, config1, config2, config3, name, period, freq, "
					 "call-graph, stack-size, max-stack, inherit, no-inherit, aux-output, "
					 "aux-sample-size",
		     text[0] ? ", " : "");
	pev__error_hint(p->err, "terms of %s: %s", pmu->name, text);
	if (pmu->nr_aliases)
		pev__error_hint(p->err, "or one of its %d events (ls %s/bus/event_source/devices/%s/events)",
				pmu->nr_aliases, p->opts.sysfs_root ? p->opts.sysfs_root : "/sys",
				pmu->name);
}

struct term_state {
	uint64_t config[4];
	char name[128];      /* name= */
	bool named;
	const struct pev_pmu_alias *alias; /* the alias the terms came from, for scale/unit */
	struct pev_event_spec extras;      /* opts and callgraph the terms set */
	bool generic; /* the terms of a generic name ("cpu-clock/period=5/"), not of a PMU */
};

static int apply_terms(struct parser *p, const struct pev_pmu *pmu, const char *s, size_t len,
		       struct term_state *t, int depth);

/* Applies one "name[=value]" term at [s, s + len). */
static int apply_term(struct parser *p, const struct pev_pmu *pmu, const char *s, size_t len,
		      struct term_state *t, int depth)
{
	const char *eq = memchr(s, '=', len);
	size_t name_len = eq ? (size_t)(eq - s) : len;
	const char *value = eq ? eq + 1 : NULL;
	size_t value_len = eq ? len - name_len - 1 : 0;
	uint64_t v = 1;
	char name[64];
	struct pev_opts *o = &t->extras.opts;

	if (name_len == 0 || name_len >= sizeof(name))
		return fail(p, PEV_EPARSE, offset_of(p, s), len ? len : 1,
			    "empty or overlong term in the terms of %s", pmu->name);
	memcpy(name, s, name_len);
	name[name_len] = '\0';

	if (strcmp(name, "name") == 0) {
		if (!value || value_len == 0 || value_len >= sizeof(t->name))
			return fail(p, PEV_EPARSE, offset_of(p, s), len, "name= needs a value");
		memcpy(t->name, value, value_len);
		t->name[value_len] = '\0';
		t->named = true;
		return 0;
	}
	if (strcmp(name, "call-graph") == 0) {
		static const struct {
			const char *word;
			enum pev_callgraph mode;
		} modes[] = {{"fp", PEV_CALLGRAPH_FP},
			     {"dwarf", PEV_CALLGRAPH_DWARF},
			     {"lbr", PEV_CALLGRAPH_LBR},
			     {"no", PEV_CALLGRAPH_NONE}};
		for (size_t i = 0; value && i < PEV_ARRAY_SIZE(modes); i++)
			if (strlen(modes[i].word) == value_len &&
			    strncmp(value, modes[i].word, value_len) == 0) {
				t->extras.callgraph = modes[i].mode;
				return 0;
			}
		return fail(p, PEV_EPARSE, value ? offset_of(p, value) : offset_of(p, s),
			    value ? value_len : len,
			    "call-graph must be fp, dwarf, lbr or no");
	}
	if (strcmp(name, "no-inherit") == 0 && !value) {
		o->inherit = PEV_INHERIT_NONE;
		return 0;
	}
	if (strcmp(name, "aux-output") == 0 && !value) {
		o->aux_output = true;
		return 0;
	}
	if (value && !parse_number(value, value_len, &v))
		return fail(p, PEV_EPARSE, offset_of(p, value), value_len ? value_len : 1,
			    "'%.*s' is not a number (decimal, or hex with 0x)", (int)value_len,
			    value);
	if (strncmp(name, "config", 6) == 0 &&
	    (name[6] == '\0' || ((name[6] == '1' || name[6] == '2' || name[6] == '3') && !name[7]))) {
		t->config[name[6] ? name[6] - '0' : 0] = v;
		return 0;
	}
	if (strcmp(name, "period") == 0) {
		o->sample_period = v;
		o->sample_freq = 0;
		return 0;
	}
	if (strcmp(name, "freq") == 0) {
		o->sample_freq = v;
		o->sample_period = 0;
		return 0;
	}
	if (strcmp(name, "stack-size") == 0) {
		t->extras.stack_size = (uint32_t)v;
		return 0;
	}
	if (strcmp(name, "max-stack") == 0) {
		if (v > UINT16_MAX)
			return fail(p, PEV_EINVAL, offset_of(p, s), len, "max-stack %" PRIu64
					    " is above 65535", v);
		o->callchain_max_stack = (uint16_t)v;
		return 0;
	}
	if (strcmp(name, "inherit") == 0) {
		o->inherit = v ? PEV_INHERIT_ALL : PEV_INHERIT_NONE;
		return 0;
	}
	if (strcmp(name, "aux-sample-size") == 0) {
		o->aux_sample_size = (uint32_t)v;
		o->sample_type |= PEV_SAMPLE_AUX;
		return 0;
	}
	const struct pev_pmu_format *f = pev_pmu_format(pmu, name);
	if (f) {
		if (pev_pmu_format_apply(f, v, t->config) < 0) {
			int r = fail(p, PEV_EINVAL, value ? offset_of(p, value) : offset_of(p, s),
				     value ? value_len : len,
				     "value 0x%" PRIx64 " does not fit in %s's %d bits", v, name,
				     f->bits);
			pev__error_hint(p->err, "the largest value of %s is 0x%" PRIx64, name,
					f->bits >= 64 ? UINT64_MAX : (UINT64_C(1) << f->bits) - 1);
			return r;
		}
		return 0;
	}
	const struct pev_pmu_alias *alias = !value ? pev_pmu_alias(pmu, name) : NULL;
	if (alias && depth == 0) {
		t->alias = alias;
		/* The alias's own terms, parsed from its text (not the input). */
		const char *saved = p->input;
		int r;
		p->input = alias->terms;
		r = apply_terms(p, pmu, alias->terms, strlen(alias->terms), t, depth + 1);
		p->input = saved;
		if (r < 0) {
			if (p->err) {
				p->err->position = (int)offset_of(p, s);
				p->err->length = (int)len;
			}
			return r;
		}
		return 0;
	}
	static const char *const builtin[] = {"config", "config1", "config2", "config3", "name",
					      "period", "freq", "call-graph", "stack-size",
					      "max-stack", "inherit", "no-inherit", "aux-output",
					      "aux-sample-size"};
	struct pev_suggest sg;
	pev__suggest_init(&sg, name);
	for (int i = 0; i < pmu->nr_formats; i++)
		pev__suggest_add(&sg, pmu->formats[i].name);
	for (int i = 0; i < pmu->nr_aliases; i++)
		pev__suggest_add(&sg, pmu->aliases[i].name);
	for (size_t i = 0; i < PEV_ARRAY_SIZE(builtin); i++)
		pev__suggest_add(&sg, builtin[i]);
	int r = fail(p, PEV_ENOTFOUND, offset_of(p, s), name_len, "unknown term '%s' for %s '%s'",
		     name, t->generic ? "event" : "PMU", pmu->name);
	pev__suggest_hint(&sg, NULL, p->err);
	hint_terms(p, pmu);
	return r;
}

/* Applies the comma-separated terms [s, s + len). */
static int apply_terms(struct parser *p, const struct pev_pmu *pmu, const char *s, size_t len,
		       struct term_state *t, int depth)
{
	const char *end = s + len;

	while (s < end) {
		const char *comma = memchr(s, ',', (size_t)(end - s));
		size_t n = comma ? (size_t)(comma - s) : (size_t)(end - s);
		int r;
		if (n == 0)
			return fail(p, PEV_EPARSE, offset_of(p, s), 1, "empty term");
		if ((r = apply_term(p, pmu, s, n, t, depth)) < 0)
			return r;
		s += n + (comma ? 1 : 0);
		if (comma && s == end)
			return fail(p, PEV_EPARSE, offset_of(p, comma), 1, "empty term after ','");
	}
	return 0;
}

/* Makes one spec for pmu from its parsed terms. */
static int add_pmu_event(struct parser *p, const struct pev_pmu *pmu, const struct term_state *t,
			 const char *text, size_t len, const struct modifiers *m)
{
	struct pev_event ev = {.type = pmu->type,
			       .config = t->config[0],
			       .config1 = t->config[1],
			       .config2 = t->config[2],
			       .config3 = t->config[3]};
	char name[256];

	if (t->named)
		snprintf(name, sizeof(name), "%s", t->name);
	else
		snprintf(name, sizeof(name), "%.*s", (int)len, text);
	struct pev_event_spec *spec = add_event(p, &ev, text, len, name);
	if (!spec)
		return out_of_memory(p);
	spec->pmu = list_strdup(p->list, pmu->name);
	spec->ev.pmu = spec->pmu;
	spec->opts = t->extras.opts;
	spec->opts.sz = sizeof(spec->opts);
	spec->opts.exclude_guest = p->opts.perf_guest;
	spec->callgraph = t->extras.callgraph;
	spec->stack_size = t->extras.stack_size;
	if (t->alias) {
		spec->scale = t->alias->scale;
		spec->unit = list_strdup(p->list, t->alias->unit ? t->alias->unit : "");
	}
	if (!spec->pmu || !spec->unit)
		return out_of_memory(p);
	apply_modifiers(p, spec, m);
	return 0;
}

/* PMUs named `name`, or its numbered instances name_0, name_1, ... (uncore_imc). */
static int matching_pmus(const struct pev_pmus *pmus, const char *name, size_t len,
			 const struct pev_pmu **out, int max)
{
	int n = 0;

	for (int i = 0; i < pev_pmus_count(pmus) && n < max; i++) {
		const struct pev_pmu *pmu = pev_pmus_at(pmus, i);
		if (strlen(pmu->name) == len && strncmp(pmu->name, name, len) == 0)
			return (out[0] = pmu), 1;
	}
	for (int i = 0; i < pev_pmus_count(pmus) && n < max; i++) {
		const struct pev_pmu *pmu = pev_pmus_at(pmus, i);
		const char *rest = pmu->name + len;
		if (strncmp(pmu->name, name, len) == 0 && rest[0] == '_' && isdigit((unsigned char)rest[1]) &&
		    strspn(rest + 1, "0123456789") == strlen(rest + 1))
			out[n++] = pmu;
	}
	return n;
}

static bool is_generic(const char *s, size_t len);
static int add_hybrid(struct parser *p, const struct pev_event *ev, const char *text, size_t len,
		      const char *name, const char *mods, const struct modifiers *m);

/*
 * "cpu-clock/period=5000/u": a generic name with the terms perf accepts on
 * one (config..config3, name, period, freq, call-graph, stack-size, ...);
 * there is no PMU whose formats or aliases they could name. config terms
 * replace the name's own config. Named as written, or by name=.
 */
static int parse_generic_with_terms(struct parser *p, const char *s, size_t len,
				    const char *slash, const char *close,
				    const struct modifiers *m)
{
	struct pev_pmu owner;
	struct pev_event ev;
	struct term_state t;
	char name[96];
	int first = p->list->n, r;

	snprintf(name, sizeof(name), "%.*s", (int)(slash - s), s);
	if (pev_event_lookup(name, &ev) < 0)
		return fail(p, PEV_ENOTFOUND, offset_of(p, s), (size_t)(slash - s),
			    "unknown event '%s'", name);
	memset(&owner, 0, sizeof(owner));
	owner.name = name;
	owner.type = ev.type;
	memset(&t, 0, sizeof(t));
	t.generic = true;
	t.extras.opts.sz = sizeof(t.extras.opts);
	t.config[0] = ev.config;
	t.config[1] = ev.config1;
	t.config[2] = ev.config2;
	t.config[3] = ev.config3;
	if ((r = apply_terms(p, &owner, slash + 1, (size_t)(close - slash - 1), &t, 0)) < 0)
		return r;
	ev.config = t.config[0];
	ev.config1 = t.config[1];
	ev.config2 = t.config[2];
	ev.config3 = t.config[3];
	if ((ev.type == PEV_TYPE_HARDWARE || ev.type == PEV_TYPE_HW_CACHE) && p->pmus &&
	    pev_pmus_core_count(p->pmus) > 1) {
		/* One event per core PMU of a hybrid machine, as for the bare name. */
		struct modifiers none;
		memset(&none, 0, sizeof(none));
		if ((r = add_hybrid(p, &ev, s, len, name, close + 1, &none)) < 0)
			return r;
	} else {
		char display[200];
		snprintf(display, sizeof(display), "%.*s", (int)len, s);
		if (!add_event(p, &ev, s, len, display))
			return out_of_memory(p);
	}
	for (int i = first; i < p->list->n; i++) {
		struct pev_event_spec *spec = &p->list->specs[i];
		spec->opts = t.extras.opts;
		spec->opts.sz = sizeof(spec->opts);
		spec->opts.exclude_guest = p->opts.perf_guest;
		spec->callgraph = t.extras.callgraph;
		spec->stack_size = t.extras.stack_size;
		if (t.named && !(spec->ev.name = list_strdup(p->list, t.name)))
			return out_of_memory(p);
		apply_modifiers(p, spec, m);
	}
	return 0;
}

/* "pmu/terms/mods" at [s, s + len); slash is the first '/'. */
static int parse_pmu_event(struct parser *p, const char *s, size_t len, const char *slash)
{
	const char *end = s + len;
	const char *close = memchr(slash + 1, '/', (size_t)(end - slash - 1));
	const struct pev_pmu *found[64];
	struct modifiers m;
	int r, n;

	if (!close)
		return fail(p, PEV_EPARSE, offset_of(p, slash), (size_t)(end - slash),
			    "the terms of a PMU event end with '/': %.*s/.../", (int)(slash - s), s);
	const char *mods = close + 1;
	if (mods < end && *mods == ':')
		mods++;
	if ((r = mods < end ? parse_modifiers(p, mods, (size_t)(end - mods), &m) : 0) < 0)
		return r;
	if (mods >= end)
		memset(&m, 0, sizeof(m));
	if ((r = load_pmus(p)) < 0)
		return r;
	n = matching_pmus(p->pmus, s, (size_t)(slash - s), found, 64);
	if (n == 0 && is_generic(s, (size_t)(slash - s)))
		return parse_generic_with_terms(p, s, len, slash, close, &m);
	if (n == 0) {
		struct pev_suggest sg;
		char name[64];
		snprintf(name, sizeof(name), "%.*s", (int)(slash - s), s);
		pev__suggest_init(&sg, name);
		for (int i = 0; i < pev_pmus_count(p->pmus); i++)
			pev__suggest_add(&sg, pev_pmus_at(p->pmus, i)->name);
		r = fail(p, PEV_ENOTFOUND, offset_of(p, s), (size_t)(slash - s),
			 "no PMU called '%s' on this machine", name);
		pev__suggest_hint(&sg, NULL, p->err);
		pev__error_hint(p->err, "the PMUs are the directories under %s/bus/event_source/devices",
				p->opts.sysfs_root ? p->opts.sysfs_root : "/sys");
		return r;
	}
	for (int i = 0; i < n; i++) {
		struct term_state t;
		memset(&t, 0, sizeof(t));
		t.extras.opts.sz = sizeof(t.extras.opts);
		if ((r = apply_terms(p, found[i], slash + 1, (size_t)(close - slash - 1), &t, 0)) < 0)
			return r;
		if ((r = add_pmu_event(p, found[i], &t, s, len, &m)) < 0)
			return r;
		if (n > 1) {
			/* Name each instance by its own PMU. */
			struct pev_event_spec *spec = &p->list->specs[p->list->n - 1];
			char name[256];
			if (t.named)
				snprintf(name, sizeof(name), "%s", t.name);
			else
				snprintf(name, sizeof(name), "%s/%.*s", found[i]->name,
					 (int)(end - slash - 1), slash + 1);
			spec->ev.name = list_strdup(p->list, name);
			if (!spec->ev.name)
				return out_of_memory(p);
		}
	}
	return 0;
}

/* ---- breakpoints: mem:ADDR[/LEN][:ACCESS[:MODS]] ------------------------ */

static int parse_breakpoint(struct parser *p, const char *s, size_t len)
{
	const char *end = s + len, *a = s + 4;
	const char *stop = a;
	uint64_t addr, bp_len = 0;
	uint32_t kind = 0;
	struct modifiers m;
	int r;

	while (stop < end && *stop != '/' && *stop != ':')
		stop++;
	if (!parse_number(a, (size_t)(stop - a), &addr))
		return fail(p, PEV_EPARSE, offset_of(p, a), stop > a ? (size_t)(stop - a) : 1,
			    "a breakpoint needs an address: mem:ADDR[/LEN][:rwx]");
	if (stop < end && *stop == '/') {
		const char *l = stop + 1;
		stop = l;
		while (stop < end && *stop != ':')
			stop++;
		if (!parse_number(l, (size_t)(stop - l), &bp_len) ||
		    (bp_len != 1 && bp_len != 2 && bp_len != 4 && bp_len != 8))
			return fail(p, PEV_EINVAL, offset_of(p, l), stop > l ? (size_t)(stop - l) : 1,
				    "a breakpoint length is 1, 2, 4 or 8 bytes");
	}
	memset(&m, 0, sizeof(m));
	if (stop < end && *stop == ':') {
		const char *acc = stop + 1, *acc_end = acc;
		while (acc_end < end && *acc_end != ':')
			acc_end++;
		size_t acc_len = (size_t)(acc_end - acc);
		/* "mem:ADDR:k": modifiers without an access, as perf reads them */
		if (acc_end == end && acc_len && strspn(acc, "rwx") < acc_len &&
		    only_modifiers(acc, acc_len)) {
			if ((r = parse_modifiers(p, acc, acc_len, &m)) < 0)
				return r;
			acc_end = acc = stop = end;
		}
		for (const char *c = acc; c < acc_end; c++) {
			uint32_t bit = *c == 'r' ? PEV_BP_R : *c == 'w' ? PEV_BP_W : *c == 'x' ? PEV_BP_X : 0;
			if (!bit || (kind & bit))
				return fail(p, PEV_EPARSE, offset_of(p, c), 1,
					    "breakpoint access is made of r, w and x, each once");
			kind |= bit;
		}
		if (acc_end == acc && stop < end)
			return fail(p, PEV_EPARSE, offset_of(p, stop), 1,
				    "':' after a breakpoint must be followed by r, w or x");
		if ((kind & PEV_BP_X) && (kind & PEV_BP_RW))
			return fail(p, PEV_EINVAL, offset_of(p, acc), (size_t)(acc_end - acc),
				    "an execute breakpoint (x) cannot also trap reads or writes");
		if (acc_end < end && (r = parse_modifiers(p, acc_end + 1, (size_t)(end - acc_end - 1), &m)) < 0)
			return r;
	}
	if (!kind)
		kind = PEV_BP_RW;
	if (!bp_len)
		bp_len = kind == PEV_BP_X ? sizeof(long) : 4;
	struct pev_event ev = pev_event_breakpoint(addr, bp_len, (enum pev_bp_type)kind);
	char name[128];
	snprintf(name, sizeof(name), "%.*s", (int)len, s);
	struct pev_event_spec *spec = add_event(p, &ev, s, len, name);
	if (!spec)
		return out_of_memory(p);
	apply_modifiers(p, spec, &m);
	return 0;
}

/* ---- probes: uprobe:PATH:SYMBOL[+OFF][:MODS], kprobe:FUNC[+OFF][:MODS] --- */

static const char *pmu_for_probe(struct parser *p, bool user)
{
	const char *name = user ? "uprobe" : "kprobe";
	return p->pmus && pev_pmus_find(p->pmus, name) ? name : NULL;
}

/* Parses "+OFFSET" at [s, end): stores it, returns false when malformed. */
static bool parse_offset(const char *s, const char *end, uint64_t *off)
{
	return s < end && *s == '+' && parse_number(s + 1, (size_t)(end - s - 1), off);
}

static int parse_probe(struct parser *p, const char *s, size_t len, const char *prefix_end,
		       bool user, bool ret)
{
	const char *end = s + len, *loc = prefix_end, *loc_end, *path = NULL;
	const struct pev_pmu *pmu;
	char target[512], symbol[256] = "";
	uint64_t offset = 0, extra = 0;
	struct modifiers m;
	int r;

	memset(&m, 0, sizeof(m));
	if ((r = load_pmus(p)) < 0)
		return r;
	if (!pmu_for_probe(p, user)) {
		r = fail(p, PEV_ENOENT, offset_of(p, s), (size_t)(prefix_end - s),
			 "this kernel has no '%s' PMU (no %s/bus/event_source/devices/%s)",
			 user ? "uprobe" : "kprobe", p->opts.sysfs_root ? p->opts.sysfs_root : "/sys",
			 user ? "uprobe" : "kprobe");
		pev__error_hint(p->err, "%s",
				user ? "the kernel needs CONFIG_UPROBE_EVENTS"
				     : "the kernel needs CONFIG_KPROBE_EVENTS; probes can also be "
				       "created through tracefs (kprobe_events) and used as "
				       "tracepoints");
		return r;
	}
	pmu = pev_pmus_find(p->pmus, user ? "uprobe" : "kprobe");
	if (user) {
		/* PATH ends at the first ':' (the symbol follows) or a trailing "+OFFSET". */
		path = loc;
		const char *colon = memchr(loc, ':', (size_t)(end - loc));
		const char *after_plus = colon;
		while (after_plus && after_plus > path && after_plus[-1] != '+')
			after_plus--;
		uint64_t off;
		if (colon && after_plus > path + 1 && parse_offset(after_plus - 1, colon, &off) &&
		    colon + 1 < end && only_modifiers(colon + 1, (size_t)(end - colon - 1))) {
			/* "PATH+OFFSET:MODS": the modifiers of an offset probe. */
			offset = off;
			loc = colon = after_plus - 1;
		} else if (colon) {
			loc = colon + 1;
		} else {
			const char *plus = NULL;
			for (const char *c = loc; c < end; c++)
				if (*c == '+')
					plus = c;
			if (plus && parse_offset(plus, end, &offset))
				loc = plus;
			else
				loc = end;
			colon = loc;
		}
		if (colon == path)
			return fail(p, PEV_EPARSE, offset_of(p, path), 1,
				    "a uprobe needs a file: uprobe:PATH:SYMBOL[+OFFSET]");
		snprintf(target, sizeof(target), "%.*s", (int)(colon - path), path);
	}
	loc_end = loc;
	while (loc_end < end && *loc_end != ':')
		loc_end++;
	if (loc_end < end && (r = parse_modifiers(p, loc_end + 1, (size_t)(end - loc_end - 1), &m)) < 0)
		return r;
	if (loc < loc_end && *loc != '+') {
		/* SYMBOL[+OFFSET], or a plain number for an offset or address. */
		const char *plus = memchr(loc, '+', (size_t)(loc_end - loc));
		const char *sym_end = plus ? plus : loc_end;
		if (plus && !parse_offset(plus, loc_end, &extra))
			return fail(p, PEV_EPARSE, offset_of(p, plus), (size_t)(loc_end - plus),
				    "an offset is +NUMBER (decimal, or hex with 0x)");
		if (!parse_number(loc, (size_t)(sym_end - loc), &offset)) {
			if ((size_t)(sym_end - loc) >= sizeof(symbol))
				return fail(p, PEV_EPARSE, offset_of(p, loc), (size_t)(sym_end - loc),
					    "symbol name too long");
			snprintf(symbol, sizeof(symbol), "%.*s", (int)(sym_end - loc), loc);
		}
	} else if (loc < loc_end && !parse_offset(loc, loc_end, &offset)) {
		return fail(p, PEV_EPARSE, offset_of(p, loc), (size_t)(loc_end - loc),
			    "an offset is +NUMBER (decimal, or hex with 0x)");
	}
	if (!user) {
		if (!symbol[0] && !offset)
			return fail(p, PEV_EPARSE, offset_of(p, prefix_end), 1,
				    "a kprobe needs a kernel function: kprobe:FUNCTION[+OFFSET]");
		snprintf(target, sizeof(target), "%s", symbol);
	} else if (symbol[0]) {
		struct pev_error e;
		if (pev_uprobe_resolve(target, symbol, &offset, &e) < 0) {
			/* Point at the part the error is about. */
			bool about_file = e.code == PEV_ENOENT || e.code == PEV_EFORMAT ||
					  e.code == PEV_EACCES;
			return fail_with(p, &e, offset_of(p, about_file ? path : loc),
					 about_file ? strlen(target) : strlen(symbol));
		}
	}
	offset += extra;

	/* The probed string must outlive the spec: the list owns it. */
	char *owned = list_strdup(p->list, target);
	if (!owned)
		return out_of_memory(p);
	struct pev_event ev = {.type = pmu->type,
			       .config1 = (uint64_t)(uintptr_t)(user || symbol[0] ? owned : NULL),
			       .config2 = offset};
	if (!user && !symbol[0])
		ev.config2 = offset; /* kprobe at an address: config1 0, config2 the address */
	if (ret) {
		const struct pev_pmu_format *f = pev_pmu_format(pmu, "retprobe");
		uint64_t words[4] = {0};
		if (f)
			pev_pmu_format_apply(f, 1, words);
		ev.config = f ? words[0] : 1;
	}
	char name[700];
	snprintf(name, sizeof(name), "%.*s", (int)len, s);
	struct pev_event_spec *spec = add_event(p, &ev, s, len, name);
	if (!spec)
		return out_of_memory(p);
	spec->pmu = spec->ev.pmu = user ? "uprobe" : "kprobe";
	apply_modifiers(p, spec, &m);
	return 0;
}

/* ---- generic names, raw codes, aliases ---------------------------------- */

/* A generic hardware or cache event on a hybrid machine: one spec per core PMU. */
static int add_hybrid(struct parser *p, const struct pev_event *ev, const char *text, size_t len,
		      const char *name, const char *mods, const struct modifiers *m)
{
	for (int i = 0; i < pev_pmus_count(p->pmus); i++) {
		const struct pev_pmu *pmu = pev_pmus_at(p->pmus, i);
		char full[256];
		if (!pmu->core)
			continue;
		struct pev_event e = *ev;
		e.config |= (uint64_t)pmu->type << PEV_PMU_TYPE_SHIFT;
		snprintf(full, sizeof(full), "%s/%s/%s", pmu->name, name, mods);
		struct pev_event_spec *spec = add_event(p, &e, text, len, full);
		if (!spec || !(spec->pmu = list_strdup(p->list, pmu->name)))
			return out_of_memory(p);
		spec->ev.pmu = spec->pmu;
		apply_modifiers(p, spec, m);
	}
	return 0;
}

/*
 * Adds ev named as the user wrote it ([s, s + len), modifiers included, cut
 * at 199 bytes). Returns the spec, or NULL when out of memory.
 */
static struct pev_event_spec *add_as_written(struct parser *p, const struct pev_event *ev,
					     const char *s, size_t len)
{
	char display[200];

	snprintf(display, sizeof(display), "%.*s", (int)len, s);
	return add_event(p, ev, s, len, display);
}

/* A generic name: returns 1 when it was one (and was added), 0 when not, or an error. */
static int try_generic(struct parser *p, const char *s, size_t len, size_t name_len,
		       const struct modifiers *m)
{
	struct pev_event ev;
	char name[96];
	int r;

	if (name_len >= sizeof(name))
		return 0;
	memcpy(name, s, name_len);
	name[name_len] = '\0';
	if (pev_event_lookup(name, &ev) < 0)
		return 0;
	if ((ev.type == PEV_TYPE_HARDWARE || ev.type == PEV_TYPE_HW_CACHE) &&
	    (r = load_pmus(p)) < 0)
		return r;
	if ((ev.type == PEV_TYPE_HARDWARE || ev.type == PEV_TYPE_HW_CACHE) && p->pmus &&
	    pev_pmus_core_count(p->pmus) > 1) {
		/* The modifiers of this event only: the input goes on after it. */
		char mods[64];
		snprintf(mods, sizeof(mods), "%.*s", (int)(name_len < len ? len - name_len - 1 : 0),
			 name_len < len ? s + name_len + 1 : "");
		return (r = add_hybrid(p, &ev, s, len, name, mods, m)) < 0 ? r : 1;
	}
	struct pev_event_spec *spec = add_as_written(p, &ev, s, len);
	if (!spec)
		return out_of_memory(p);
	apply_modifiers(p, spec, m);
	return 1;
}

/* "rNNNN": returns 1 when it was a raw code, 0 when not. */
static int try_raw(struct parser *p, const char *s, size_t len, size_t name_len,
		   const struct modifiers *m)
{
	const char *hex = s + 1;
	size_t n = name_len - 1;
	uint64_t config = 0;

	if (name_len < 2 || s[0] != 'r')
		return 0;
	if (n > 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X'))
		hex += 2, n -= 2;
	if (n == 0 || n > 16)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (!isxdigit((unsigned char)hex[i]))
			return 0;
		config = config << 4 | (uint64_t)(isdigit((unsigned char)hex[i])
							 ? hex[i] - '0'
							 : tolower((unsigned char)hex[i]) - 'a' + 10);
	}
	struct pev_event ev = pev_event_raw(config);
	struct pev_event_spec *spec = add_as_written(p, &ev, s, len);
	if (!spec)
		return out_of_memory(p);
	apply_modifiers(p, spec, m);
	return 1;
}

/* An alias of any PMU written without its PMU ("tsc"): one spec per PMU that has it. */
static int try_alias(struct parser *p, const char *s, size_t len, size_t name_len,
		     const struct modifiers *m)
{
	char name[96];
	int added = 0, r;

	if (!p->pmus || name_len >= sizeof(name))
		return 0;
	memcpy(name, s, name_len);
	name[name_len] = '\0';
	for (int i = 0; i < pev_pmus_count(p->pmus); i++) {
		const struct pev_pmu *pmu = pev_pmus_at(p->pmus, i);
		const struct pev_pmu_alias *alias = pev_pmu_alias(pmu, name);
		struct term_state t;
		if (!alias)
			continue;
		memset(&t, 0, sizeof(t));
		t.extras.opts.sz = sizeof(t.extras.opts);
		const char *saved = p->input;
		p->input = alias->terms;
		t.alias = alias;
		r = apply_terms(p, pmu, alias->terms, strlen(alias->terms), &t, 1);
		p->input = saved;
		if (r < 0)
			return fail(p, r, offset_of(p, s), name_len,
				    "the %s event '%s' has terms perfev cannot apply: %s", pmu->name,
				    alias->name, alias->terms);
		/* "msr/tsc/u", as generic names on hybrid CPUs keep their modifiers. */
		snprintf(t.name, sizeof(t.name), "%s/%s/%.*s", pmu->name, alias->name,
			 (int)(name_len < len ? len - name_len - 1 : 0),
			 name_len < len ? s + name_len + 1 : "");
		t.named = true;
		if ((r = add_pmu_event(p, pmu, &t, s, len, m)) < 0)
			return r;
		added++;
	}
	return added > 0;
}

/* ---- tracepoints and vendor names --------------------------------------- */

static int find_tracefs(struct parser *p)
{
	if (p->tracefs_state == 0) {
		if (p->opts.tracefs) {
			pev__strlcpy(p->tracefs, p->opts.tracefs, sizeof(p->tracefs));
			p->tracefs_state = 1;
		} else {
			int r = pev_tracefs_path(!p->opts.no_mount, p->tracefs, sizeof(p->tracefs),
						 &p->tracefs_err);
			p->tracefs_state = r < 0 ? r : 1;
		}
	}
	return p->tracefs_state < 0 ? p->tracefs_state : 0;
}

struct tp_add_ctx {
	struct parser *p;
	const char *text;
	size_t len;
	const struct modifiers *m;
	const char *mods;
	int error;
};

static int add_tracepoint(const struct pev_tracepoint *tp, void *arg)
{
	struct tp_add_ctx *c = arg;
	struct pev_event ev = pev_event_tracepoint(tp->id);
	char name[300];

	snprintf(name, sizeof(name), "%s:%s%s%s", tp->system, tp->name, c->mods[0] ? ":" : "",
		 c->mods);
	struct pev_event_spec *spec = add_event(c->p, &ev, c->text, c->len, name);
	if (!spec) {
		c->error = out_of_memory(c->p);
		return 1;
	}
	spec->pmu = spec->ev.pmu = "tracepoint";
	apply_modifiers(c->p, spec, c->m);
	return 0;
}

static bool has_glob(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] == '*' || s[i] == '?' || s[i] == '[')
			return true;
	return false;
}

/* True when tracefs has a system matching [s, s + len). */
static int count_system(const struct pev_tracepoint *tp, void *arg)
{
	(void)tp;
	(*(int *)arg)++;
	return 1;
}

/*
 * Whether word can be a tracepoint's system or name, as tracefs names
 * them: not empty, not "." or "..", no '/'.
 */
static bool tracepoint_word_ok(const char *word)
{
	return word[0] && strcmp(word, ".") != 0 && strcmp(word, "..") != 0 && !strchr(word, '/');
}

/*
 * "system:name[:mods]" with optional globs. Returns 1 when it named
 * tracepoints (and they were added), 0 when the system is unknown here, or
 * an error (a known system without that event, or no tracefs).
 */
static int try_tracepoint(struct parser *p, const char *s, size_t len)
{
	const char *colon = memchr(s, ':', len), *end = s + len;
	char system[128], name[160], mods[32] = "";
	struct modifiers m;
	int r, seen = 0;

	if (!colon || colon == s)
		return 0;
	const char *ev = colon + 1;
	const char *ev_end = memchr(ev, ':', (size_t)(end - ev));
	if (!ev_end)
		ev_end = end;
	if (ev_end == ev || (size_t)(colon - s) >= sizeof(system) ||
	    (size_t)(ev_end - ev) >= sizeof(name))
		return 0;
	for (const char *c = s; c < ev_end; c++)
		if (!is_name_char(*c) && *c != ':' && *c != '*' && *c != '?' && *c != '[' && *c != ']')
			return 0;
	snprintf(system, sizeof(system), "%.*s", (int)(colon - s), s);
	snprintf(name, sizeof(name), "%.*s", (int)(ev_end - ev), ev);
	if (find_tracefs(p) < 0)
		return 0;
	/* Does tracefs know this system at all? */
	pev_tracepoints_foreach(p->tracefs, system, "*", count_system, &seen, NULL);
	if (!seen)
		return 0;
	/* Only now: "EVENT:UMASK:c=1:i" is a libpfm4 name, not a tracepoint with bad modifiers. */
	memset(&m, 0, sizeof(m));
	if (ev_end < end) {
		if ((r = parse_modifiers(p, ev_end + 1, (size_t)(end - ev_end - 1), &m)) < 0)
			return r;
		snprintf(mods, sizeof(mods), "%.*s", (int)(end - ev_end - 1), ev_end + 1);
	}
	struct tp_add_ctx ctx = {p, s, len, &m, mods, 0};
	int n = pev_tracepoints_foreach(p->tracefs, system, name, add_tracepoint, &ctx, NULL);
	if (ctx.error)
		return ctx.error;
	if (n > 0)
		return 1;
	if (has_glob(s, (size_t)(ev_end - s)))
		return fail(p, PEV_ENOTFOUND, offset_of(p, ev), (size_t)(ev_end - ev),
			    "no tracepoint of '%s' matches '%s'", system, name);
	struct pev_error e;
	uint64_t id;
	if (!tracepoint_word_ok(name))
		return fail(p, PEV_ENOTFOUND, offset_of(p, ev), (size_t)(ev_end - ev),
			    "'%s' is not a tracepoint name (a tracepoint is 'system:name', each a "
			    "word without '/')",
			    name);
	if (pev_tracepoint_id(p->tracefs, system, name, &id, &e) < 0)
		return fail_with(p, &e, offset_of(p, ev), (size_t)(ev_end - ev));
	return fail(p, PEV_ENOTFOUND, offset_of(p, ev), (size_t)(ev_end - ev),
		    "no tracepoint '%s:%s'", system, name);
}

/*
 * Which privilege levels a libpfm4 name asks to count with its own modifiers
 * (":u", ":k=1", ":h"; any case): bit 0 user, 1 kernel, 2 hypervisor.
 */
static unsigned pfm_named_levels(const char *name)
{
	static const char letters[] = "ukh";
	const char *c = strstr(name, "::");
	unsigned levels = 0;

	c = strchr(c ? c + 2 : name, ':');
	while (c) {
		const char *next = strchr(c + 1, ':');
		size_t n = next ? (size_t)(next - c - 1) : strlen(c + 1);
		int letter = tolower((unsigned char)c[1]);
		const char *lv = letter ? strchr(letters, letter) : NULL;
		if (lv && (n == 1 || (n == 3 && c[2] == '=' && c[3] == '1')))
			levels |= 1u << (lv - letters);
		c = next;
	}
	return levels;
}

/* A vendor name through libpfm4: 1 when it was one, 0 when libpfm does not know it. */
static int try_pfm(struct parser *p, const char *s, size_t len, size_t name_len,
		   const struct modifiers *m, struct pev_error *pfm_err)
{
	char name[160];
	struct pev_event ev;

	if (p->opts.no_pfm || !pev_pfm_available() || name_len >= sizeof(name))
		return 0;
	memcpy(name, s, name_len);
	name[name_len] = '\0';
	struct pev_opts o = PEV_OPTS_INIT;
	if (pev__pfm_encode(name, &ev, &o, pfm_err) < 0)
		return 0;
	struct pev_event_spec *spec = add_as_written(p, &ev, s, len);
	if (!spec)
		return out_of_memory(p);
	/*
	 * libpfm4's modifiers (u, k, h inside the name) set the privilege levels,
	 * with perf's rule: naming levels excludes the others, the hypervisor
	 * too (libpfm4 leaves exclude_hv alone on PMUs without that level, x86).
	 */
	unsigned levels = pfm_named_levels(name);
	spec->opts = o;
	spec->opts.sz = sizeof(spec->opts);
	spec->opts.exclude_guest = p->opts.perf_guest;
	if (levels)
		spec->opts.exclude_hv = !(levels & 4u);
	apply_modifiers(p, spec, m);
	return 1;
}

static int suggest_generic(const char *name, const char *canonical, uint32_t kind,
			   const struct pev_event *ev, void *ctx)
{
	(void)canonical, (void)kind, (void)ev;
	pev__suggest_add(ctx, name);
	return 0;
}

/* Offers every name perfev knows without tracefs as a suggestion. */
static void suggest_known(struct parser *p, struct pev_suggest *sg)
{
	pev_event_foreach_name(suggest_generic, sg);
	for (int i = 0; p->pmus && i < pev_pmus_count(p->pmus); i++) {
		const struct pev_pmu *pmu = pev_pmus_at(p->pmus, i);
		for (int j = 0; j < pmu->nr_aliases; j++)
			pev__suggest_add(sg, pmu->aliases[j].name);
	}
}

/* True when [s, s + len) is a misspelling of a name perfev knows without libpfm4. */
static bool near_known_name(struct parser *p, const char *s, size_t len)
{
	char name[96];
	struct pev_suggest sg;

	snprintf(name, sizeof(name), "%.*s", (int)(len < 95 ? len : 95), s);
	pev__suggest_init(&sg, name);
	suggest_known(p, &sg);
	return sg.n > 0;
}

static int unknown_event(struct parser *p, const char *s, size_t name_len,
			 const struct pev_error *pfm_err)
{
	char name[96];
	struct pev_suggest sg;
	int r;

	snprintf(name, sizeof(name), "%.*s", (int)(name_len < 95 ? name_len : 95), s);
	pev__suggest_init(&sg, name);
	suggest_known(p, &sg);
	r = fail(p, PEV_ENOTFOUND, offset_of(p, s), name_len, "unknown event '%s'", name);
	pev__suggest_hint(&sg, NULL, p->err);
	if (pfm_err && pfm_err->code == PEV_EUNSUPPORTED && memchr(s, ':', name_len) == NULL &&
	    strpbrk(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
		pev__error_hint(p->err, "%s", pfm_err->message);
	pev__error_hint(p->err, "see the events of this machine: perfev list");
	return r;
}

/* ---- one event, groups, lists ------------------------------------------- */

static bool is_generic(const char *s, size_t len)
{
	char name[96];
	struct pev_event ev;

	if (len >= sizeof(name))
		return false;
	memcpy(name, s, len);
	name[len] = '\0';
	return pev_event_lookup(name, &ev) == 0;
}

/* "r" and 1..16 hex digits, with an optional 0x. */
static bool is_raw(const char *s, size_t len)
{
	size_t skip = len > 3 && s[1] == '0' && (s[2] == 'x' || s[2] == 'X') ? 3 : 1;

	if (len < 2 || s[0] != 'r' || len - skip == 0 || len - skip > 16)
		return false;
	for (size_t i = skip; i < len; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

static bool is_alias(struct parser *p, const char *s, size_t len)
{
	char name[96];

	if (!p->pmus || len >= sizeof(name))
		return false;
	memcpy(name, s, len);
	name[len] = '\0';
	for (int i = 0; i < pev_pmus_count(p->pmus); i++)
		if (pev_pmu_alias(pev_pmus_at(p->pmus, i), name))
			return true;
	return false;
}

static bool has_upper(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (isupper((unsigned char)s[i]))
			return true;
	return false;
}

static bool starts_with(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);
	return len >= n && strncmp(s, prefix, n) == 0;
}

/* Classifies and parses the event text [s, s + len). */
static int parse_event(struct parser *p, const char *s, size_t len)
{
	static const struct {
		const char *prefix;
		bool user, ret;
	} probes[] = {{"uprobe:", true, false},
		      {"uretprobe:", true, true},
		      {"kprobe:", false, false},
		      {"kretprobe:", false, true}};
	struct modifiers m;
	struct pev_error pfm_err;
	int r;

	if (len == 0)
		return fail(p, PEV_EPARSE, offset_of(p, s), 1, "empty event");
	if (starts_with(s, len, "mem:"))
		return parse_breakpoint(p, s, len);
	for (size_t i = 0; i < PEV_ARRAY_SIZE(probes); i++)
		if (starts_with(s, len, probes[i].prefix))
			return parse_probe(p, s, len, s + strlen(probes[i].prefix), probes[i].user,
					   probes[i].ret);
	/* "pmu/terms/": a name, then '/' before any ':'. */
	for (size_t i = 0; i < len && s[i] != ':'; i++) {
		if (s[i] == '/')
			return i ? parse_pmu_event(p, s, len, s + i)
				 : fail(p, PEV_EPARSE, offset_of(p, s), 1,
					"a PMU event starts with the PMU's name: pmu/terms/");
		if (!is_name_char(s[i]) && s[i] != '*' && s[i] != '?' && s[i] != '[' && s[i] != ']') {
			char shown[5];
			int bad = fail(p, PEV_EPARSE, offset_of(p, s + i), 1,
				       "unexpected character '%s' in an event name",
				       (shown_byte((unsigned char)s[i], shown), shown));
			if (s[i] == ' ' || s[i] == '\t')
				pev__error_hint(p->err, "separate events with ',' (blanks may "
							"surround the ',')");
			return bad;
		}
	}

	const char *colon = memchr(s, ':', len);
	const char *mods = colon ? colon + 1 : NULL;
	size_t base_len = colon ? (size_t)(colon - s) : len;
	size_t mods_len = colon ? len - base_len - 1 : 0;
	bool double_colon = colon && mods_len > 0 && mods[0] == ':';
	/* "base" or "base:mods": modifiers can follow only a name without other colons. */
	bool plain = !colon || (!double_colon && !memchr(mods, ':', mods_len));

	memset(&m, 0, sizeof(m));
	if (plain && (is_generic(s, base_len) || is_raw(s, base_len) ||
		      (load_pmus(p) == 0 && is_alias(p, s, base_len)))) {
		if (colon && (r = parse_modifiers(p, mods, mods_len, &m)) < 0)
			return r;
		if ((r = try_generic(p, s, len, base_len, &m)) != 0 ||
		    (r = try_raw(p, s, len, base_len, &m)) != 0 ||
		    (r = try_alias(p, s, len, base_len, &m)) != 0)
			return r < 0 ? r : 0;
	}
	if (colon && !double_colon && (r = try_tracepoint(p, s, len)) != 0)
		return r < 0 ? r : 0;
	/* Vendor names: "EVENT:UMASK", "pmu::EVENT:UMASK", "EVENT.UMASK". */
	memset(&pfm_err, 0, sizeof(pfm_err));
	if ((r = try_pfm(p, s, len, len, &m, &pfm_err)) != 0)
		return r < 0 ? r : 0;
	if (!plain && !double_colon && (is_generic(s, base_len) || is_raw(s, base_len) ||
					(load_pmus(p) == 0 && is_alias(p, s, base_len)))) {
		/* "cycles:u:k": one ':' takes all the modifiers. */
		const char *second = memchr(mods, ':', mods_len);
		return fail(p, PEV_EPARSE, offset_of(p, second), 1,
			    "modifiers follow a single ':' (write '%.*s:%.*s%.*s')", (int)base_len,
			    s, (int)(second - mods), mods, (int)(s + len - second - 1), second + 1);
	}
	if (colon && !double_colon && !has_upper(s, base_len) &&
	    !(plain && only_modifiers(mods, mods_len))) {
		/*
		 * A lowercase "system:event" whose system tracefs does not have
		 * ("cpu-clok:u" is rather a misspelled name with modifiers).
		 */
		struct pev_error e;
		char system[128], name[160];
		const char *ev_end = memchr(mods, ':', mods_len);
		uint64_t id;
		if (find_tracefs(p) < 0)
			return fail_with(p, &p->tracefs_err, offset_of(p, s), base_len);
		snprintf(system, sizeof(system), "%.*s", (int)base_len, s);
		snprintf(name, sizeof(name), "%.*s", (int)((ev_end ? ev_end : s + len) - mods), mods);
		if (!tracepoint_word_ok(system) || !tracepoint_word_ok(name))
			return fail(p, PEV_ENOTFOUND, offset_of(p, s), len,
				    "'%.*s' is not an event: a tracepoint is 'system:name', each a "
				    "word without '/'",
				    (int)len, s);
		if (pev_tracepoint_id(p->tracefs, system, name, &id, &e) < 0)
			return fail_with(p, &e, offset_of(p, s), base_len);
	}
	/* A misspelled generic name (L1-dcache-lod-misses) is not a vendor name. */
	if (pfm_err.code == PEV_ENOTFOUND && has_upper(s, len) && !near_known_name(p, s, len))
		return fail_with(p, &pfm_err, offset_of(p, s), len);
	if (plain && base_len > 17 && s[0] == 'r') {
		/* "r" and more hex digits than 64 bits hold. */
		size_t skip = s[1] == '0' && (s[2] == 'x' || s[2] == 'X') ? 3 : 1, i = skip;
		while (i < base_len && isxdigit((unsigned char)s[i]))
			i++;
		if (i == base_len && base_len - skip > 16)
			return fail(p, PEV_EINVAL, offset_of(p, s), base_len,
				    "raw event code '%.*s' is wider than 64 bits (at most 16 hex "
				    "digits after 'r')",
				    (int)base_len, s);
	}
	return unknown_event(p, s, plain ? base_len : len, &pfm_err);
}

/*
 * Finds where the event starting at s ends: at a top-level ',' or '}', or
 * the end. Commas inside "pmu/terms/" belong to the terms.
 */
static const char *event_end(const char *s)
{
	const char *c = s;

	if (strncmp(s, "mem:", 4) != 0 && strncmp(s, "uprobe:", 7) != 0 &&
	    strncmp(s, "uretprobe:", 10) != 0 && strncmp(s, "kprobe:", 7) != 0 &&
	    strncmp(s, "kretprobe:", 10) != 0) {
		while (*c && *c != ',' && *c != '}' && *c != '{' && *c != ':' && *c != '/')
			c++;
		if (*c == '/') {
			const char *close = strchr(c + 1, '/');
			if (close)
				c = close + 1;
		}
	}
	while (*c && *c != ',' && *c != '}' && *c != '{')
		c++;
	return c;
}

static const char *skip_spaces(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* Trims trailing blanks of [s, end). */
static const char *trim_end(const char *s, const char *end)
{
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	return end;
}

/*
 * The core PMU an event counts on, or NULL: that of a generic event expanded
 * for it, or the spec's PMU (cpu_core/event=0x3c/), or the PMU whose type the
 * event has (r3c, libpfm4 names: cpu_core's type 4), when it is a core PMU.
 */
static const char *core_pmu_of(const struct parser *p, const struct pev_event_spec *spec)
{
	const struct pev_pmu *pmu;

	if (spec->ev.type == PEV_TYPE_HARDWARE || spec->ev.type == PEV_TYPE_HW_CACHE)
		return spec->pmu;
	if (!p->pmus)
		return NULL;
	pmu = spec->pmu ? pev_pmus_find(p->pmus, spec->pmu) : NULL;
	if (!pmu)
		pmu = pev_pmus_find_type(p->pmus, spec->ev.type);
	return pmu && pmu->core ? pmu->name : NULL;
}

/*
 * A group may hold events of one core PMU only. On hybrid CPUs a group of
 * generic events expands to events of several core PMUs: keep their order
 * but make one group per core PMU, each led by its first event; events of
 * a core PMU given otherwise (cpu_core/.../, raw codes) join its group.
 * Events of other PMUs (software, tracepoints) stay with the first group.
 */
static int split_group_by_pmu(struct parser *p, int first)
{
	int n = p->list->n - first;
	struct pev_event_spec *specs = p->list->specs + first;
	const char *seen[64];
	int nseen = 0;

	for (int i = 0; i < n; i++) {
		const char *pmu = core_pmu_of(p, &specs[i]);
		int k = 0;
		if (pmu) {
			while (k < nseen && strcmp(seen[k], pmu) != 0)
				k++;
			if (k == nseen && nseen < 64)
				seen[nseen++] = pmu;
		}
		/* Groups are numbered in the order their PMU first appears. */
		specs[i].group = p->group + k;
	}
	if (nseen > 1) {
		/* Stable order: group by group. */
		struct pev_event_spec *sorted = malloc(sizeof(*sorted) * (size_t)n);
		int at = 0;
		if (!sorted)
			return out_of_memory(p);
		for (int g = 0; g < (nseen ? nseen : 1); g++)
			for (int i = 0; i < n; i++)
				if (specs[i].group == p->group + g)
					sorted[at++] = specs[i];
		memcpy(specs, sorted, sizeof(*sorted) * (size_t)n);
		free(sorted);
		p->groups += nseen - 1;
	}
	for (int i = 0; i < n; i++)
		specs[i].group_leader = i == 0 || specs[i].group != specs[i - 1].group;
	return 0;
}

static int parse_group(struct parser *p, const char **pos)
{
	const char *open = *pos, *s = open + 1;
	int first = p->list->n, r;

	p->group = p->groups++;
	for (;;) {
		s = skip_spaces(s);
		if (*s == '{')
			return fail(p, PEV_EPARSE, offset_of(p, s), 1, "groups cannot be nested");
		if (*s == '}') {
			if (p->list->n == first)
				return fail(p, PEV_EPARSE, offset_of(p, open), (size_t)(s - open + 1),
					    "empty group: a group needs at least one event");
			return fail(p, PEV_EPARSE, offset_of(p, s), 1, "missing event before '}'");
		}
		if (!*s)
			return fail(p, PEV_EPARSE, offset_of(p, open), 1,
				    "unbalanced '{': the group is not closed with '}'");
		const char *end = event_end(s);
		if ((r = parse_event(p, s, (size_t)(trim_end(s, end) - s))) < 0)
			return r;
		s = skip_spaces(end);
		if (*s == ',') {
			s++;
			continue;
		}
		if (*s == '}')
			break;
		if (!*s)
			return fail(p, PEV_EPARSE, offset_of(p, open), 1,
				    "unbalanced '{': the group is not closed with '}'");
		return fail(p, PEV_EPARSE, offset_of(p, s), 1, "unexpected '%c' in a group", *s);
	}
	s++; /* the '}' */
	if ((r = split_group_by_pmu(p, first)) < 0)
		return r;
	if (*s == ':') {
		const char *mods = s + 1, *end = mods;
		struct modifiers m;
		while (*end && *end != ',' && *end != '{' && *end != '}')
			end++;
		size_t mods_len = (size_t)(trim_end(mods, end) - mods);
		if ((r = parse_modifiers(p, mods, mods_len, &m)) < 0 ||
		    (r = apply_modifiers_from(p, first, &m, mods, mods_len)) < 0)
			return r;
		s = end;
	}
	p->group = -1;
	*pos = s;
	return 0;
}

static int parse_list(struct parser *p)
{
	const char *s = skip_spaces(p->input);
	int r;

	if (!*s)
		return fail(p, PEV_EPARSE, 0, 1, "no event given");
	for (;;) {
		s = skip_spaces(s);
		if (*s == '{') {
			if ((r = parse_group(p, &s)) < 0)
				return r;
		} else if (*s == '}') {
			return fail(p, PEV_EPARSE, offset_of(p, s), 1, "unbalanced '}': no group to close");
		} else if (*s == ',' || !*s) {
			return fail(p, PEV_EPARSE, offset_of(p, s), 1,
				    *s ? "missing event before ','" : "missing event after ','");
		} else {
			const char *end = event_end(s);
			if (*end == '{')
				return fail(p, PEV_EPARSE, offset_of(p, end), 1,
					    "a group starts after a ',': a,{b,c}");
			if ((r = parse_event(p, s, (size_t)(trim_end(s, end) - s))) < 0)
				return r;
			s = end;
		}
		s = skip_spaces(s);
		if (!*s)
			return 0;
		if (*s == '}')
			return fail(p, PEV_EPARSE, offset_of(p, s), 1, "unbalanced '}': no group to close");
		if (*s != ',')
			return fail(p, PEV_EPARSE, offset_of(p, s), 1, "expected ',' between events");
		s++;
	}
}

PEV_API int pev_event_parse(const char *text, const struct pev_parse_opts *opts,
			    struct pev_event_list **out, struct pev_error *err)
{
	static const char func[] = "pev_event_parse";
	struct parser p;
	int r;

	pev__error_clear(err);
	if (!out)
		return pev__bad_arg(err, func, "out", "must not be NULL");
	*out = NULL;
	if (!text)
		return pev__bad_arg(err, func, "text", "must not be NULL");
	memset(&p, 0, sizeof(p));
	if ((r = pev__opts_copy_sized(&p.opts, sizeof(p.opts), opts, func, "PEV_PARSE_OPTS_INIT",
				      err)))
		return r;
	p.input = text;
	p.err = err;
	p.group = -1;
	p.pmus = p.opts.pmus;
	if (strlen(text) > 65536)
		return fail(&p, PEV_EPARSE, 65536, 1, "event string longer than 64 KiB");
	p.list = calloc(1, sizeof(*p.list));
	if (!p.list)
		return out_of_memory(&p);
	r = parse_list(&p);
	pev_pmus_free(p.own_pmus);
	if (r < 0) {
		pev_event_list_free(p.list);
		return r;
	}
	*out = p.list;
	return 0;
}
