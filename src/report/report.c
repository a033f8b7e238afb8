/* SPDX-License-Identifier: MIT */
/*
 * report.c - what every report writer does first and last: check its
 * arguments, read the caller's options, find the event it names, and turn
 * a failed write into PEV_EIO. Also the symbol and frame helpers they share,
 * and the padding of their cells.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/error_internal.h"
#include "report/report_internal.h"

int pev__report_opts_copy(struct pev_report_opts *dst, const struct pev_report_opts *src,
			  const char *func, struct pev_error *err)
{
	return pev__opts_copy_sized(dst, sizeof(*dst), src, func, "PEV_REPORT_OPTS_INIT", err);
}

int pev__report_begin(const struct pev_profile *p, FILE *out, const struct pev_report_opts *opts,
		      struct pev_report_opts *o, int *event, const char *func,
		      struct pev_error *err)
{
	*event = -1;
	if (!p)
		return pev__bad_arg(err, func, "p", "the profile is NULL");
	if (!out)
		return pev__bad_arg(err, func, "out", "the output stream is NULL");
	return pev__report_check(p, opts, o, event, func, err);
}

int pev__report_check(const struct pev_profile *p, const struct pev_report_opts *opts,
		      struct pev_report_opts *o, int *event, const char *func,
		      struct pev_error *err)
{
	int r;

	*event = -1;
	if (!p)
		return pev__bad_arg(err, func, "p", "the profile is NULL");
	if ((r = pev__report_opts_copy(o, opts, func, err)) < 0)
		return r;
	if (o->percent_limit < 0 || o->percent_limit != o->percent_limit)
		return pev__bad_arg(err, func, "opts.percent_limit",
				    "a percentage limit must be 0 or more");
	if (o->min_width < 0 || o->min_width != o->min_width)
		return pev__bad_arg(err, func, "opts.min_width", "a width must be 0 or more");
	if ((unsigned)o->callgraph > PEV_REPORT_CALLGRAPH_CALLER)
		return pev__bad_arg(err, func, "opts.callgraph", "unknown call graph mode %u",
				    (unsigned)o->callgraph);
	if ((unsigned)o->callgraph_print > PEV_REPORT_CG_FOLDED)
		return pev__bad_arg(err, func, "opts.callgraph_print", "unknown call graph print type %u",
				    (unsigned)o->callgraph_print);
	if ((unsigned)o->callgraph_value > PEV_REPORT_CG_COUNT)
		return pev__bad_arg(err, func, "opts.callgraph_value", "unknown call graph value %u",
				    (unsigned)o->callgraph_value);
	if (o->width > 1000000 || o->frame_height > 1000)
		return pev__bad_arg(err, func, "opts.width",
				    "the flame graph is limited to 1000000 pixels across and "
				    "frames 1000 pixels high");
	if (o->event) {
		for (unsigned i = 0; i < p->nr_events; i++)
			if (strcmp(pev__event_name(p, i), o->event) == 0) {
				*event = (int)i;
				return 0;
			}
		pev__error_start(err, PEV_ENOTFOUND, 0, NULL, o->event, true);
		pev__error_field(err, "opts.event");
		pev__error_msg(err, "%s: the profile has no event '%s'", func, o->event);
		for (unsigned i = 0; i < p->nr_events; i++)
			pev__error_hint(err, "it has '%s'", pev__event_name(p, i));
		if (!p->nr_events)
			pev__error_hint(err, "it has no events at all");
		return PEV_ENOTFOUND;
	}
	return 0;
}

int pev__profile_main_dso(const struct pev_profile *p, uint32_t *best)
{
	uint64_t *in;
	uint32_t *stamp;
	int rc = 0;

	*best = 0;
	for (uint32_t i = 0; i < p->nr_maps; i++)
		if (p->maps[i].flags & PEV_PROFILE_MAPPING_MAIN) {
			*best = p->maps[i].dso;
			return 0;
		}
	in = calloc(p->str.n ? p->str.n : 1, sizeof(*in));
	stamp = calloc(p->str.n ? p->str.n : 1, sizeof(*stamp));
	if (!in || !stamp) {
		rc = -ENOMEM;
		goto out;
	}
	for (uint32_t si = 0; si < p->nr_samples; si++) {
		const struct pev__sample *s = &p->samples[si];
		const uint32_t *st = pev__sample_stack(p, s);
		for (unsigned k = 0; k < s->nr; k++) {
			const struct pev__frame *f = &p->frames[st[k]];
			uint32_t dso = p->syms[f->sym].dso;
			if (!dso || (f->flags & PEV_FRAME_KERNEL) || stamp[dso] == si + 1 ||
			    !pev__path_program_like(pev__strtab_get(&p->str, dso)))
				continue;
			stamp[dso] = si + 1;
			in[dso] += s->count;
			if (!*best || in[dso] > in[*best])
				*best = dso;
		}
	}
out:
	free(in);
	free(stamp);
	return rc;
}

FILE *pev__report_stream(FILE *out, unsigned flags)
{
	return (flags & PEV_REPORT_GZIP) ? pev__gzip_open(out) : out;
}

int pev__report_finish(FILE *s, FILE *out, int rc, const char *func, struct pev_error *err)
{
	if (s != out && fclose(s) != 0 && rc == 0) {
		int e = errno;
		pev__error_start(err, PEV_EIO, e, "write", NULL, false);
		pev__error_msg(err, "%s: writing the compressed report failed: %s", func,
			       e ? strerror(e) : "stream error");
		return PEV_EIO;
	}
	return pev__report_end(out, rc, func, err);
}

int pev__report_end(FILE *out, int rc, const char *func, struct pev_error *err)
{
	if (fflush(out) != 0 || ferror(out)) {
		int e = errno;
		if (rc < 0)
			return rc;
		pev__error_start(err, PEV_EIO, e, "write", NULL, false);
		pev__error_msg(err, "%s: writing the report failed: %s", func,
			       e ? strerror(e) : "stream error");
		return PEV_EIO;
	}
	return rc;
}

int pev__report_nomem(struct pev_error *err, const char *func)
{
	pev__error_start(err, PEV_ENOMEM, ENOMEM, NULL, NULL, true);
	pev__error_msg(err, "%s: out of memory while building the report", func);
	return PEV_ENOMEM;
}

void pev__pad(FILE *out, char c, size_t width, size_t used)
{
	for (size_t i = used; i < width; i++)
		fputc(c, out);
}

unsigned pev__sample_self(const struct pev_profile *p, const struct pev__sample *s)
{
	const uint32_t *st = pev__sample_stack(p, s);

	for (unsigned i = 0; i < s->nr; i++)
		if (!(p->frames[st[i]].flags & PEV_FRAME_INLINED))
			return i;
	return s->nr ? s->nr - 1u : 0u;
}

const char *pev__sym_label(const struct pev_profile *p, uint32_t sym, bool address, char *buf,
			   size_t size)
{
	const struct pev__sym *y = &p->syms[sym];

	if (y->name)
		return pev__strtab_get(&p->str, y->name);
	if (address)
		snprintf(buf, size, "%#" PRIx64, y->address); /* as perf: "0" for zero */
	else
		pev__strlcpy(buf, "[unknown]", size);
	return buf;
}

unsigned pev__report_labels(const struct pev_profile *p, unsigned labels)
{
	if (labels & PEV_REPORT_LABEL_NONE)
		return 0;
	if (labels)
		return labels & (PEV_REPORT_LABEL_COMM | PEV_REPORT_LABEL_PID | PEV_REPORT_LABEL_TID |
				 PEV_REPORT_LABEL_CPU | PEV_REPORT_LABEL_CGROUP);
	return PEV_REPORT_LABEL_COMM | PEV_REPORT_LABEL_PID | PEV_REPORT_LABEL_TID |
	       PEV_REPORT_LABEL_CPU | (p->has_cgroup ? PEV_REPORT_LABEL_CGROUP : 0);
}

bool pev__next_location(const struct pev_profile *p, const struct pev__sample *s,
			bool no_inline, unsigned *at, unsigned *first, unsigned *last)
{
	const uint32_t *st = pev__sample_stack(p, s);
	unsigned i = *at;

	if (no_inline)
		while (i < s->nr && (p->frames[st[i]].flags & PEV_FRAME_INLINED))
			i++;
	if (i >= s->nr)
		return false;
	unsigned j = i;
	while (j + 1 < s->nr && (p->frames[st[j]].flags & PEV_FRAME_INLINED))
		j++;
	*first = no_inline ? j : i;
	*last = j;
	*at = j + 1;
	return true;
}

void pev__mapping_range(const struct pev__mapinfo *info, uint64_t lo, uint64_t hi, bool offsets,
			uint64_t *start, uint64_t *limit, uint64_t *file_offset)
{
	uint64_t end = lo <= hi ? hi + 1 : 0;

	if (info && info->limit) {
		lo = info->start < lo ? info->start : lo;
		end = info->limit > end ? info->limit : end;
	}
	*start = lo <= end ? lo : 0;
	*limit = end;
	if (offsets || (info && info->limit && info->start == info->file_offset))
		*file_offset = *start;
	else if (info && info->limit && info->start == *start)
		*file_offset = info->file_offset;
}
