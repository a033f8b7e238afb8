/* SPDX-License-Identifier: MIT */
/*
 * report_flamegraph.c - a self-contained interactive SVG flame graph.
 *
 * The merged stacks (report_stacks.c) are laid out root at the bottom,
 * each frame as wide as its share of the root and its children side by
 * side in name order. Every frame is one <g class="f"> holding a <title>
 * ("name (N samples, P%)": the tooltip), a <rect> and a <text> cut to fit.
 * The script and style sheet (src/report/flamegraph.js, src/report/flamegraph.css) are
 * embedded, so the file needs nothing else to zoom, search and explain.
 * Colours come from a hash of the name, in a palette per kind of frame
 * (user: warm, kernel: blue, inlined: green, unknown: grey, command:
 * violet, off-CPU: deep blue), so the same function has the same colour
 * in every graph.
 *
 * A differential graph (pev_profile_write_diff_flamegraph) is the same
 * drawing of the newer profile, each frame coloured instead by how its
 * share changed from the baseline (red: grew, blue: shrank, white: the
 * same), as the differential flame graphs of flamegraph.pl.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/flamegraph_assets.h"
#include "core/error_internal.h"
#include "report/report_internal.h"

#define PAD 10.0      /* left and right margin */
#define TOP 44.0      /* title and buttons */
#define BOTTOM 28.0   /* the details line */
#define CHAR_W 7.2    /* width of a character of the 12px monospace font */

/*
 * Writes text with XML's special characters escaped; invalid UTF-8 bytes
 * become U+FFFD (as everywhere, perfev/text.h) and control characters
 * spaces, so the file stays well-formed whatever the names hold. At most max_chars characters are written (-1:
 * all); returns how many were.
 */
static long xml_text(FILE *out, const char *s, long max_chars)
{
	const unsigned char *u = (const unsigned char *)s;
	long chars = 0;

	while (*u && (max_chars < 0 || chars < max_chars)) {
		unsigned c = *u;
		int len = pev_text_utf8_char((const char *)u);
		/* U+FFFE and U+FFFF are UTF-8 but not XML characters. */
		bool ok = len > 0 && !(len == 3 && c == 0xef && u[1] == 0xbf && u[2] >= 0xbe);

		chars++;
		if (!ok) {
			fputs("\xef\xbf\xbd", out);
			u++;
			continue;
		}
		if (len > 1) {
			fwrite(u, 1, (size_t)len, out);
			u += len;
			continue;
		}
		switch (c) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			fputc(c < 0x20 || c == 0x7f ? ' ' : (int)c, out);
			break;
		}
		u++;
	}
	return chars;
}

/* Characters (not bytes) of a UTF-8 string, counting each invalid byte as one. */
static long utf8_chars(const char *s)
{
	long n = 0;

	for (const unsigned char *u = (const unsigned char *)s; *u; u++)
		if ((*u & 0xc0) != 0x80)
			n++;
	return n;
}

static void colour(const char *name, unsigned kind, int rgb[3])
{
	uint64_t h = pev__hash_bytes(PEV__HASH_SEED, name, strlen(name));
	double a = (double)(h & 0xff) / 255.0, b = (double)((h >> 8) & 0xff) / 255.0;

	switch (kind) {
	case PEV__STACK_KERNEL:
		rgb[0] = 80 + (int)(60 * a);
		rgb[1] = 140 + (int)(60 * b);
		rgb[2] = 215 + (int)(40 * a);
		break;
	case PEV__STACK_INLINED:
		rgb[0] = 70 + (int)(50 * b);
		rgb[1] = 195 + (int)(45 * a);
		rgb[2] = 150 + (int)(50 * b);
		break;
	case PEV__STACK_UNKNOWN:
		rgb[0] = rgb[1] = rgb[2] = 165 + (int)(35 * a);
		break;
	case PEV__STACK_COMM:
		rgb[0] = 170 + (int)(40 * a);
		rgb[1] = 125 + (int)(40 * b);
		rgb[2] = 215 + (int)(35 * a);
		break;
	case PEV__STACK_ROOT:
		rgb[0] = rgb[1] = rgb[2] = 205;
		break;
	case PEV__STACK_OFFCPU: /* waiting: cold, darker and more saturated than kernel frames */
		rgb[0] = 30 + (int)(50 * a);
		rgb[1] = 90 + (int)(80 * b);
		rgb[2] = 200 + (int)(55 * a);
		break;
	default: /* user code: red to orange to yellow */
		rgb[0] = 215 + (int)(40 * b);
		rgb[1] = 70 + (int)(160 * a);
		rgb[2] = (int)(55 * b);
		break;
	}
}

struct layout {
	FILE *out;
	const struct pev__stacks *s;
	double scale; /* pixels per unit of weight */
	double min_width, frame_h, root_y;
	const char *unit;
	bool diff;        /* a differential graph: colours by change from the baseline */
	double max_change; /* the largest change of a frame's share (diff), in percent */
};

/* How a frame's share changed from the baseline to the shown profile, in percent. */
static double change(const struct pev__stacks *s, const struct pev__stack_node *n)
{
	return pev__percent(n->total, s->node[0].total) -
	       pev__percent(n->base_total, s->node[0].base_total);
}

/*
 * A differential frame's colour: red where its share grew, blue where it
 * shrank, deeper the closer the change is to the graph's largest; white
 * where it did not change.
 */
static void diff_colour(double delta, double max, int rgb[3])
{
	int fade = 255 - (int)(205.0 * (max > 0 ? fabs(delta) / max : 0) + 0.5);

	rgb[0] = delta < 0 ? fade : 255;
	rgb[1] = fade;
	rgb[2] = delta > 0 ? fade : 255;
}

static void frame(const struct layout *l, uint32_t i, double x, double w)
{
	const struct pev__stack_node *n = &l->s->node[i];
	const char *name = pev__stack_name(l->s, i);
	double y = l->root_y - n->depth * l->frame_h;
	/* Truncation toward zero is floor here: a negative count is below 3 either way. */
	long fits = (long)((w - 6) / CHAR_W), len = utf8_chars(name);
	int rgb[3];

	fputs("<g class=\"f\"><title>", l->out);
	xml_text(l->out, name, -1);
	fprintf(l->out, " (%" PRIu64 " %s, %.2f%%", n->total, l->unit,
		pev__percent(n->total, l->s->node[0].total));
	if (l->diff) {
		diff_colour(change(l->s, n), l->max_change, rgb);
		fprintf(l->out, "; baseline %" PRIu64 " %s, %.2f%%; change %+.2f%%", n->base_total,
			l->unit, pev__percent(n->base_total, l->s->node[0].base_total),
			change(l->s, n));
	} else {
		/* A frame (not the root or a command) whose weight is mostly off-CPU is off-CPU. */
		colour(name,
		       n->kind < PEV__STACK_COMM && n->offcpu > n->total / 2 ? PEV__STACK_OFFCPU
									     : n->kind,
		       rgb);
	}
	fputs(")</title>", l->out);
	fprintf(l->out,
		"<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"rgb(%d,%d,%d)\" "
		"rx=\"2\" ry=\"2\"/><text x=\"%.2f\" y=\"%.1f\">",
		x, y, w, l->frame_h - 1, rgb[0], rgb[1], rgb[2], x + 3, y + l->frame_h * 0.5 + 4);
	if (fits >= 3) {
		if (len <= fits) {
			xml_text(l->out, name, -1);
		} else {
			xml_text(l->out, name, fits - 2);
			fputs("..", l->out);
		}
	}
	fputs("</text></g>\n", l->out);
}

/* Draws every frame wide enough, depth first without recursion. */
static int frames(const struct layout *l)
{
	const struct pev__stacks *s = l->s;
	uint32_t *path = malloc((s->max_depth + 1) * sizeof(*path));
	uint32_t *next = malloc((s->max_depth + 1) * sizeof(*next));
	double *x = malloc((s->max_depth + 1) * sizeof(*x));
	unsigned d = 0;

	if (!path || !next || !x) {
		free(path);
		free(next);
		free(x);
		return -1;
	}
	path[0] = 0;
	next[0] = 0;
	x[0] = PAD;
	frame(l, 0, PAD, (double)s->node[0].total * l->scale);
	for (;;) {
		const struct pev__stack_node *n = &s->node[path[d]];

		if (next[d] < n->nr) {
			uint32_t c = s->kids[n->child + next[d]++];
			double w = (double)s->node[c].total * l->scale;
			double cx = x[d];

			/* The child's left edge: the parent's plus the siblings before it. */
			x[d] += w;
			if (w < l->min_width)
				continue;
			frame(l, c, cx, w);
			path[++d] = c;
			next[d] = 0;
			x[d] = cx;
			continue;
		}
		if (d == 0)
			break;
		d--;
	}
	free(path);
	free(next);
	free(x);
	return 0;
}

/*
 * Writes the SVG of stacks s: the title, the subtitle (the event's name
 * and the sample counts), the buttons and every frame. With diff, frames
 * are coloured by change (pev__stacks_diff). 0 or -1 without memory.
 */
static int svg(FILE *out, const struct pev_report_opts *o, const struct pev__stacks *s,
	       const char *ev_name, bool diff)
{
	struct layout l = {.out = out, .s = s, .diff = diff};
	double width = o->width ? o->width : 1200, height;
	const char *by = (o->flags & PEV_REPORT_PERIOD) ? ", widths by period" : "";
	int r;

	l.frame_h = o->frame_height ? o->frame_height : 16;
	l.min_width = o->min_width > 0 ? o->min_width : 0.1;
	l.scale = s->node[0].total ? (width - 2 * PAD) / (double)s->node[0].total : 0;
	l.unit = (o->flags & PEV_REPORT_PERIOD) ? "period" : "samples";
	for (uint32_t i = 0; diff && i < s->n; i++)
		if (fabs(change(s, &s->node[i])) > l.max_change)
			l.max_change = fabs(change(s, &s->node[i]));
	height = TOP + (s->max_depth + 1) * l.frame_h + BOTTOM;
	l.root_y = height - BOTTOM - l.frame_h;

	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n", out);
	fprintf(out,
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" data-pad=\"%.0f\">\n",
		width, height, width, height, PAD);
	fprintf(out, "<style type=\"text/css\"><![CDATA[\n%s]]></style>\n", pev__flame_css);
	fprintf(out, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n", pev__flame_js);
	fprintf(out, "<rect class=\"bg\" x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\"/>\n", width,
		height);
	fprintf(out, "<text id=\"title\" x=\"%.1f\" y=\"20\" text-anchor=\"middle\">", width / 2);
	xml_text(out, o->title ? o->title : diff ? "Differential Flame Graph" : "Flame Graph", -1);
	fprintf(out, "</text>\n<text id=\"subtitle\" x=\"%.1f\" y=\"37\" text-anchor=\"middle\">",
		width / 2);
	xml_text(out, ev_name, -1);
	if (diff)
		fprintf(out,
			": %" PRIu64 " samples, baseline %" PRIu64 "%s; red: grew, blue: shrank"
			"</text>\n",
			s->samples, s->base_samples, by);
	else
		fprintf(out, ": %" PRIu64 " samples%s</text>\n", s->samples, by);
	fprintf(out, "<text id=\"reset\" class=\"btn hidden\" x=\"%.0f\" y=\"20\">Reset Zoom</text>\n",
		PAD);
	fprintf(out,
		"<text id=\"search\" class=\"btn\" x=\"%.0f\" y=\"20\" text-anchor=\"end\">Search</text>\n",
		width - PAD);
	fprintf(out,
		"<text id=\"clear\" class=\"btn hidden\" x=\"%.0f\" y=\"37\" text-anchor=\"end\">Clear"
		"</text>\n",
		width - PAD);
	fprintf(out, "<text id=\"details\" x=\"%.0f\" y=\"%.0f\"> </text>\n", PAD, height - 9);
	fprintf(out, "<text id=\"matched\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\"></text>\n",
		width - PAD, height - 9);
	fputs("<g id=\"frames\">\n", out);
	r = frames(&l);
	fputs("</g>\n</svg>\n", out);
	return r;
}

int pev_profile_write_flamegraph(const struct pev_profile *p, FILE *out,
				 const struct pev_report_opts *opts, struct pev_error *err)
{
	static const char func[] = "pev_profile_write_flamegraph";
	struct pev_report_opts o;
	struct pev__stacks s;
	unsigned event_i;
	int event, r;

	pev__error_clear(err);
	if ((r = pev__report_begin(p, out, opts, &o, &event, func, err)) < 0)
		return r;
	event_i = event < 0 ? 0 : (unsigned)event;
	if (p->nr_events ? pev__stacks_build(p, event_i, o.flags, &s)
			 : pev__stacks_init(&s) || pev__stacks_finish(&s)) {
		pev__stacks_free(&s);
		return pev__report_nomem(err, func);
	}
	r = svg(out, &o, &s, p->nr_events ? pev__event_name(p, event_i) : "no event", false);
	pev__stacks_free(&s);
	if (r)
		return pev__report_nomem(err, func);
	return pev__report_end(out, 0, func, err);
}

int pev_profile_write_diff_flamegraph(const struct pev_profile *a, const struct pev_profile *b,
				      FILE *out, const struct pev_diff_opts *opts,
				      struct pev_error *err)
{
	static const char func[] = "pev_profile_write_diff_flamegraph";
	struct pev_diff_opts d;
	struct pev_report_opts o;
	struct pev__stacks s;
	int ea, eb, r;
	bool both;

	pev__error_clear(err);
	if ((r = pev__diff_begin(a, b, out, opts, &d, &o, &ea, &eb, func, err)) < 0)
		return r;
	both = pev__diff_event(a, b, &ea, &eb) == 0;
	if (both ? pev__stacks_diff(&s, a, (unsigned)ea, b, (unsigned)eb, o.flags)
		 : pev__stacks_init(&s) || pev__stacks_finish(&s)) {
		pev__stacks_free(&s);
		return pev__report_nomem(err, func);
	}
	r = svg(out, &o, &s, both ? pev__event_name(b, (unsigned)eb) : "no event in both", true);
	pev__stacks_free(&s);
	if (r)
		return pev__report_nomem(err, func);
	return pev__report_end(out, 0, func, err);
}
