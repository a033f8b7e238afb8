/* SPDX-License-Identifier: MIT */
/*
 * report_filter.c - which samples and entries the table and JSON count
 * under perf's filters: --comms, --pid, --tid (of a sample) and --dsos,
 * --symbols (of the function an entry stands for). Each filter is a
 * comma-separated list (or, with PEV_REPORT_FILTER_SHOWN, one name as the
 * table shows it); what it leaves out still counts in the event's total,
 * so percentages stay shares of the whole event.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"

bool pev__list_has(const char *list, const char *s)
{
	size_t n = strlen(s);

	for (const char *l = list; *l;) {
		size_t len = strcspn(l, ",");

		if (len == n && strncmp(l, s, n) == 0)
			return true;
		l += len + (l[len] == ',');
	}
	return false;
}

bool pev__list_single(const char *list)
{
	return list && *list && !strchr(list, ',');
}

bool pev__list_names(const char *list, bool shown, const char *name)
{
	size_t len;
	char *esc;
	bool same;

	if (!shown)
		return pev__list_has(list, name);
	/* Only a name whose escaped form is as long as the filter is escaped. */
	len = pev_text_escape(NULL, 0, name, 0);
	if (len != strlen(list))
		return false;
	if (pev_text_is_clean(name))
		return strcmp(list, name) == 0;
	esc = malloc(len + 1);
	if (!esc)
		return false;
	pev_text_escape(esc, len + 1, name, 0);
	same = strcmp(esc, list) == 0;
	free(esc);
	return same;
}

static bool number_listed(const char *list, int32_t v)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%" PRId32, v);
	return pev__list_has(list, buf);
}

const char *pev__dso_base(const char *path, char *buf, size_t size)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash && path[0] != '[' ? slash + 1 : path;
	size_t digits = strncmp(base, "perf-", 5) == 0 ? strspn(base + 5, "0123456789") : 0;

	/* A JIT map (perf-PID.map) is perf's "[JIT] tid PID". */
	if (slash && digits && digits < 12 && strcmp(base + 5 + digits, ".map") == 0 && buf &&
	    size) {
		snprintf(buf, size, "[JIT] tid %.*s", (int)digits, base + 5);
		return buf;
	}
	return base;
}

/* Whether symbol y passes the DSO and symbol lists. */
static bool sym_passes(const struct pev_profile *p, const struct pev_report_opts *o,
		       const struct pev__sym *y)
{
	bool shown = o->flags & PEV_REPORT_FILTER_SHOWN;

	if (o->dsos) {
		const char *dso = y->dso ? pev__strtab_get(&p->str, y->dso) : "[unknown]";
		char buf[32];
		if (!pev__list_names(o->dsos, shown, dso) &&
		    !pev__list_names(o->dsos, shown, pev__dso_base(dso, buf, sizeof(buf))))
			return false;
	}
	return !o->symbols ||
	       (y->name && pev__list_names(o->symbols, shown, pev__strtab_get(&p->str, y->name)));
}

int pev__filter_init(struct pev__filter *f, const struct pev_profile *p,
		     const struct pev_report_opts *o)
{
	memset(f, 0, sizeof(*f));
	if (!o)
		return 0;
	f->comms = o->comms;
	f->pids = o->pids;
	f->tids = o->tids;
	f->shown = o->flags & PEV_REPORT_FILTER_SHOWN;
	if (!o->dsos && !o->symbols)
		return 0;
	f->sym_ok = malloc(p->nr_syms ? p->nr_syms : 1);
	if (!f->sym_ok)
		return -1;
	for (uint32_t i = 0; i < p->nr_syms; i++)
		f->sym_ok[i] = sym_passes(p, o, &p->syms[i]);
	return 0;
}

bool pev__filter_sample(const struct pev__filter *f, const struct pev_profile *p,
			const struct pev__sample *s)
{
	const char *comm = pev__strtab_get(&p->str, s->comm);

	if (f->comms && !pev__list_names(f->comms, f->shown, comm ? comm : ""))
		return false;
	if (f->pids && !number_listed(f->pids, s->pid))
		return false;
	return !f->tids || number_listed(f->tids, s->tid);
}

void pev__filter_free(struct pev__filter *f)
{
	free(f->sym_ok);
	memset(f, 0, sizeof(*f));
}

bool pev__path_program_like(const char *path)
{
	const char *so;

	if (path[0] != '/' || path[1] == '/' || strncmp(path, "/memfd:", 7) == 0)
		return false;
	for (so = strstr(strrchr(path, '/'), ".so"); so; so = strstr(so + 3, ".so"))
		if (so[3] == '\0' || so[3] == '.')
			return false;
	return true;
}
