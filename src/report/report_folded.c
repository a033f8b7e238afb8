/* SPDX-License-Identifier: MIT */
/*
 * report_folded.c - folded stacks: one line per distinct stack,
 * "comm;outer;...;leaf COUNT", the input of flamegraph.pl, inferno and
 * speedscope. Lines come depth first, siblings in name order, so a stack
 * comes before the longer stacks that extend it.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "core/error_internal.h"
#include "report/report_internal.h"

int pev_profile_write_folded(const struct pev_profile *p, FILE *out,
			     const struct pev_report_opts *opts, struct pev_error *err)
{
	static const char func[] = "pev_profile_write_folded";
	struct pev_report_opts o;
	struct pev__stacks s;
	uint32_t *path, *next;
	int event, r;
	unsigned depth;

	pev__error_clear(err);
	if ((r = pev__report_begin(p, out, opts, &o, &event, func, err)) < 0)
		return r;
	if (p->nr_events == 0)
		return pev__report_end(out, 0, func, err);
	if (pev__stacks_build(p, event < 0 ? 0 : (unsigned)event, o.flags, &s))
		return pev__report_nomem(err, func);
	/* Depth-first without recursion: path[d] is the node at depth d, next[d] its next child. */
	path = malloc((s.max_depth + 1) * sizeof(*path));
	next = malloc((s.max_depth + 1) * sizeof(*next));
	if (!path || !next) {
		free(path);
		free(next);
		pev__stacks_free(&s);
		return pev__report_nomem(err, func);
	}
	path[0] = 0;
	next[0] = 0;
	depth = 0;
	for (;;) {
		const struct pev__stack_node *n = &s.node[path[depth]];

		if (next[depth] < n->nr) {
			uint32_t c = s.kids[n->child + next[depth]++];

			path[++depth] = c;
			next[depth] = 0;
			if (s.node[c].self) {
				for (unsigned d = 1; d <= depth; d++) {
					if (d > 1)
						fputc(';', out);
					fputs(pev__stack_name(&s, path[d]), out);
				}
				fprintf(out, " %" PRIu64 "\n", s.node[c].self);
			}
			continue;
		}
		if (depth == 0)
			break;
		depth--;
	}
	free(path);
	free(next);
	pev__stacks_free(&s);
	return pev__report_end(out, 0, func, err);
}
