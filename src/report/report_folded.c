/* SPDX-License-Identifier: MIT */
/*
 * report_folded.c - folded stacks: one line per distinct stack,
 * "comm;outer;...;leaf COUNT", the input of flamegraph.pl, inferno and
 * speedscope; and for a diff "comm;outer;...;leaf COUNT_A COUNT_B", the
 * output of difffolded.pl. Lines come depth first, siblings in name order,
 * so a stack comes before the longer stacks that extend it.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "core/error_internal.h"
#include "report/report_internal.h"

/*
 * Writes a line per node a stack ends in: with both, the baseline's count
 * and then the shown one. 0 or -ENOMEM.
 */
static int lines(FILE *out, const struct pev__stacks *s, bool both)
{
	/* Depth-first without recursion: path[d] is the node at depth d, next[d] its next child. */
	uint32_t *path = malloc((s->max_depth + 1) * sizeof(*path));
	uint32_t *next = malloc((s->max_depth + 1) * sizeof(*next));
	unsigned depth = 0;

	if (!path || !next) {
		free(path);
		free(next);
		return -1;
	}
	path[0] = 0;
	next[0] = 0;
	for (;;) {
		const struct pev__stack_node *n = &s->node[path[depth]];

		if (next[depth] < n->nr) {
			uint32_t c = s->kids[n->child + next[depth]++];
			const struct pev__stack_node *k = &s->node[c];

			path[++depth] = c;
			next[depth] = 0;
			if (k->self || (both && k->base_self)) {
				for (unsigned d = 1; d <= depth; d++) {
					if (d > 1)
						fputc(';', out);
					fputs(pev__stack_name(s, path[d]), out);
				}
				if (both)
					fprintf(out, " %" PRIu64, k->base_self);
				fprintf(out, " %" PRIu64 "\n", k->self);
			}
			continue;
		}
		if (depth == 0)
			break;
		depth--;
	}
	free(path);
	free(next);
	return 0;
}

int pev_profile_write_folded(const struct pev_profile *p, FILE *out,
			     const struct pev_report_opts *opts, struct pev_error *err)
{
	static const char func[] = "pev_profile_write_folded";
	struct pev_report_opts o;
	struct pev__stacks s;
	int event, r;

	pev__error_clear(err);
	if ((r = pev__report_begin(p, out, opts, &o, &event, func, err)) < 0)
		return r;
	if (p->nr_events == 0)
		return pev__report_end(out, 0, func, err);
	if (pev__stacks_build(p, event < 0 ? 0 : (unsigned)event, o.flags, &s))
		return pev__report_nomem(err, func);
	r = lines(out, &s, false);
	pev__stacks_free(&s);
	if (r)
		return pev__report_nomem(err, func);
	return pev__report_end(out, 0, func, err);
}

int pev_profile_write_diff_folded(const struct pev_profile *a, const struct pev_profile *b,
				  FILE *out, const struct pev_diff_opts *opts,
				  struct pev_error *err)
{
	static const char func[] = "pev_profile_write_diff_folded";
	struct pev_diff_opts d;
	struct pev_report_opts o;
	struct pev__stacks s;
	int ea, eb, r;

	pev__error_clear(err);
	if ((r = pev__diff_begin(a, b, out, opts, &d, &o, &ea, &eb, func, err)) < 0)
		return r;
	if (pev__diff_event(a, b, &ea, &eb))
		return pev__report_end(out, 0, func, err); /* no event in both: no stacks */
	if (pev__stacks_diff(&s, a, (unsigned)ea, b, (unsigned)eb, o.flags))
		return pev__report_nomem(err, func);
	r = lines(out, &s, true);
	pev__stacks_free(&s);
	if (r)
		return pev__report_nomem(err, func);
	return pev__report_end(out, 0, func, err);
}
