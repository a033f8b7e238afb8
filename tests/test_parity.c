/* SPDX-License-Identifier: MIT */
/*
 * test_parity.c - perfev against perf, line for line. Ten kinds of
 * workload (C calling shared libraries, C++ built -O2 without frame
 * pointers under --call-graph dwarf, threads, a worker thread that
 * outlives the main thread, a shell's pipeline (the pid column), a
 * tracepoint on every CPU,
 * Python, a short-lived command, page faults every 1000, an event group)
 * are each recorded twice, by `perf record` and by `perfev record`. For
 * each of the two files, `perfev report --stdio` (children, --no-children,
 * and the flat table of -g none) and `perfev script` must print what perf
 * prints, line for line; a view a known gap keeps from matching is named,
 * with the gap, in the run's skip summary. The only rewriting allowed is
 * the list in normalize_known(), each rule a row of
 * docs/PERF_DIFFERENCES.md; perfev runs with --symbol-at-return and
 * --zero-frames, which name callers and keep address-0 frames as perf
 * does. A mismatch prints a unified diff. The tests skip, saying why,
 * where perf, tracefs or Python is missing.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"

static const char *dir;

static void make_dir(void)
{
	th_leak_init();
	dir = th_temp_dir("parity");
}

static void remove_dir(void)
{
	th_leak_fini();
}

TestSuite(parity, .init = make_dir, .fini = remove_dir, .timeout = 240);

/* One workload: how both recorders are asked to record it. */
struct workload {
	const char *name;    /* file names */
	const char *options; /* record options, the same for perf and perfev */
	const char *command; /* the workload; "%s" is the tests' build folder */
	/*
	 * Views not compared, "RECORDER.VIEW" separated by spaces (perf.children,
	 * perfev.script, ...), and why: each a known gap of PERF_DIFFERENCES.md.
	 */
	const char *unchecked;
	const char *why;
	/* perf reads the file after `perf inject --jit` (jitdump code), perfev the file itself. */
	bool jit_inject;
};

/* ---- differences documented in docs/PERF_DIFFERENCES.md -------------------- */

/* The bytes of l's line, with its newline if it has one. */
static size_t line_size(const char *l)
{
	size_t n = strcspn(l, "\n");

	return n + (l[n] == '\n');
}

/*
 * The percentage "N.NN%" at l (after blanks on its line): its value in *v and
 * the text after the '%', or NULL. Not sscanf: glibc's measures the whole
 * rest of the string at every call, and these texts are megabytes of lines.
 */
static const char *percentage(const char *l, double *v)
{
	char *end;

	l += strspn(l, " ");
	if (!(*l >= '0' && *l <= '9'))
		return NULL;
	*v = strtod(l, &end);
	return *end == '%' ? end + 1 : NULL;
}

/* Whether line l (of a report) is an entry: "  12.34%  ..." (not a call-graph line). */
static bool entry_line(const char *l)
{
	size_t sp = strspn(l, " ");
	double pct;

	return sp > 0 && sp < 8 && percentage(l + sp, &pct) != NULL;
}

/*
 * The first percentage of an entry line (Children, or Overhead): perf
 * orders entries by it alone, its tree deciding among equal ones.
 */
static size_t percent_prefix(const char *l)
{
	return (size_t)(strchr(l, '%') - l) + 1;
}

struct block {
	const char *at;
	size_t len;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A level of a call graph being read: the column its names start at, and its label. */
struct level {
	size_t col;
	char label[192];
};

/*
 * Appends to out the call graph of one entry (text, len bytes: the lines
 * under the entry line) as the sorted list of its paths: each line naming
 * a frame gives the labels from the root down to it ("37.37%:a/main").
 * Siblings are then compared as sets, so that branches of equal weight
 * compare equal in whichever order each tool printed them
 * (PERF_DIFFERENCES: "order of equal-weight call-graph branches").
 */
static void canonical_graph(const char *text, size_t len, FILE *out)
{
	static struct level st[128];
	static char *paths[4096];
	size_t nst = 0, np = 0;

	for (const char *l = text; l < text + len;) {
		size_t n = strcspn(l, "\n");
		char line[1024];
		const char *pct;
		size_t col;

		snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) - 1 ? n : sizeof(line) - 1), l);
		l += n + (l[n] == '\n');
		if ((pct = strstr(line, "---")) && strspn(line, " |") == (size_t)(pct - line)) {
			nst = 0; /* the root chain: "---name" */
			col = (size_t)(pct - line) + 3;
		} else if ((pct = strstr(line, "--")) && (pct[2] >= '0' && pct[2] <= '9') &&
			   strstr(pct + 2, "%--")) {
			size_t parent = (size_t)(pct - line) - 1; /* "|--12.34%--name" */
			while (nst && st[nst - 1].col > parent)
				nst--;
			col = (size_t)(strstr(pct + 2, "%--") - line) + 3;
			if (nst < 128) {
				st[nst].col = col;
				snprintf(st[nst].label, sizeof(st[nst].label), "%.*s:%s",
					 (int)(strstr(pct + 2, "%--") - pct - 1), pct + 2, line + col);
				nst++;
			}
			goto emit;
		} else {
			col = strspn(line, " |");
			if (!line[col])
				continue; /* a connector line */
			while (nst && st[nst - 1].col > col)
				nst--;
		}
		if (nst < 128) {
			st[nst].col = col;
			snprintf(st[nst].label, sizeof(st[nst].label), "%s", line + col);
			nst++;
		}
emit:
		if (np < 4096) {
			size_t need = 1;
			for (size_t i = 0; i < nst; i++)
				need += strlen(st[i].label) + 1;
			paths[np] = malloc(need);
			cr_assert_not_null(paths[np]);
			paths[np][0] = '\0';
			for (size_t i = 0; i < nst; i++) {
				strcat(paths[np], st[i].label);
				strcat(paths[np], "/");
			}
			np++;
		}
	}
	qsort(paths, np, sizeof(paths[0]), cmp_str);
	for (size_t i = 0; i < np; i++) {
		fprintf(out, "    %s\n", paths[i]);
		free(paths[i]);
	}
}

/*
 * Orders two blocks as squeeze_padding will print them: a run of spaces
 * counts as one. A module's entry, its name written as the kernel's
 * (th_modules_as_kernel), is padded for the shorter name it had.
 */
static int cmp_block(const void *a, const void *b)
{
	const struct block *x = a, *y = b;
	size_t i = 0, j = 0;

	while (i < x->len && j < y->len) {
		unsigned char c = (unsigned char)x->at[i], d = (unsigned char)y->at[j];

		if (c != d)
			return c < d ? -1 : 1;
		i++;
		j++;
		if (c == ' ') {
			while (i < x->len && x->at[i] == ' ')
				i++;
			while (j < y->len && y->at[j] == ' ')
				j++;
		}
	}
	return (i < x->len) - (j < y->len);
}

/*
 * Returns text (which it frees) with the entries of a report whose first
 * percentages print the same, each with its call graph, in one order:
 * perf's order among equal entries depends on how its tree of entries was
 * built (PERF_DIFFERENCES: "order of entries whose percentages print the
 * same"). Each call graph becomes the sorted list of its paths
 * (canonical_graph).
 */
static char *sort_tied_entries(char *text)
{
	size_t len = strlen(text), size = 0;
	struct block *b = calloc(len / 2 + 2, sizeof(*b));
	size_t nb = 0;
	char *res = NULL;
	FILE *out = open_memstream(&res, &size);

	cr_assert(b && out);
	/*
	 * Blocks: an entry line and its call graph with the blank line after
	 * it. A '#' line, or a blank line after an entry line or a blank line
	 * (a section's end), is a block of its own that ends a run.
	 */
	const char *prev = "";
	for (char *l = text; *l;) {
		size_t n = line_size(l);
		bool blank = l[0] == '\n';

		if (entry_line(l) || l[0] == '#' || nb == 0 ||
		    (blank && (prev[0] == '\n' || entry_line(prev))))
			b[nb++] = (struct block){l, 0};
		b[nb - 1].len += n;
		prev = l;
		l += n;
	}
	for (size_t i = 0; i < nb;) {
		size_t j = i + 1, pi = entry_line(b[i].at) ? percent_prefix(b[i].at) : 0;

		while (pi && j < nb && entry_line(b[j].at) && percent_prefix(b[j].at) == pi &&
		       memcmp(b[i].at, b[j].at, pi) == 0)
			j++;
		qsort(b + i, j - i, sizeof(*b), cmp_block);
		i = j;
	}
	for (size_t i = 0; i < nb; i++) {
		size_t first = strcspn(b[i].at, "\n") + 1;

		if (!entry_line(b[i].at) || first >= b[i].len) {
			fwrite(b[i].at, 1, b[i].len, out);
			continue;
		}
		fwrite(b[i].at, 1, first, out);
		canonical_graph(b[i].at + first, b[i].len - first, out);
	}
	cr_assert_eq(fclose(out), 0);
	free(b);
	free(text);
	return res;
}

/*
 * Marks the entries of addresses in no mapping ("[unknown]  [k] 0x...")
 * as user code: perf gives such an entry of children mode the privilege
 * mark of the sample whose chain held it (PERF_DIFFERENCES: "the mark of
 * an address in no mapping").
 */
static void unmark_unmapped(char *text)
{
	for (char *l = text; (l = strstr(l, "[unknown]")) != NULL; l++) {
		char *m = l + 9 + strspn(l + 9, " ");

		if (strncmp(m, "[k] ", 4) == 0)
			m[1] = '.';
	}
}

/*
 * Drops perf's second entry of an unresolved address in a file: under
 * --children, perf gives such an address met in call chains an entry of
 * its own, by its run-time address, beside the sampled one's (by its
 * offset in the file); PERF_DIFFERENCES: "an unresolved address in a file,
 * met in call chains". Such an entry has no Self, a DSO and a symbol
 * "[.] 0x...".
 */
static void drop_chain_address_entries(char *text)
{
	char *w = text;
	bool dropping = false, after_entry = false;

	for (char *l = text; *l;) {
		size_t n = line_size(l);
		double children, self;
		const char *after;
		/*
		 * The blank line after its call graph; an entry printed with no
		 * call graph has none, and a blank line right after it ends the
		 * table (seen at the end of a report, where the table's own blank
		 * line was eaten).
		 */
		bool ends = dropping && l[0] == '\n' && !after_entry;

		if (entry_line(l) || l[0] == '#' || l[0] == '\n')
			dropping = entry_line(l) && (after = percentage(l, &children)) &&
				   percentage(after, &self) && self == 0 && !memmem(l, n, "[unknown]", 9) &&
				   memmem(l, n, "  [.] 0x", 8);
		after_entry = entry_line(l);
		if (!dropping && !ends) {
			memmove(w, l, n);
			w += n;
		}
		l += n;
	}
	*w = '\0';
}

/* Drops perf's random "# (Tip: ...)" at the end of a report, with the '#' lines around it. */
static void drop_tip(char *text)
{
	char *tip = strstr(text, "#\n# (Tip: ");

	if (tip) {
		char *end = strchr(tip + 2, '\n');
		if (end && strncmp(end + 1, "#\n", 2) == 0)
			memmove(tip, end + 3, strlen(end + 3) + 1);
	}
}

/*
 * Rewrites the output of perf or perfev where the two differ on purpose
 * (docs/PERF_DIFFERENCES.md), and nothing else. The return-address rule
 * and perf's frames of address 0 are not rewritten: perfev runs with
 * --symbol-at-return and --zero-frames, which show them as perf does.
 * Takes text and returns the result (the one to free).
 */
/*
 * Inline frames of glibc functions known by several names: perf names some
 * by their internal alias (`__GI_exit`, `__GI__exit`) where perfev takes
 * DWARF's name (`exit`, `_exit`), and which of them each tool marks
 * "(inlined)" differs (`__clock_gettime`; perf 6.1 marks a frame of libc's
 * `_exit` or `exit` "(inlined)" where its DWARF name is the alias, and
 * perfev names the frame's file): "__GI_" prefixes, the marks and a
 * script frame's "(.../libc.so.6)" are left out on both sides, so libc's
 * frames are compared by name and offset. In place.
 */
static void unalias_gi(char *text)
{
	char *w = text;

	for (const char *r = text; *r;) {
		size_t line, libc = strlen("/libc.so.6)");

		if (strncmp(r, " (inlined)", 10) == 0) {
			r += 10;
			continue;
		}
		/* The rest of the line measured only here: a script has millions of bytes. */
		if (strncmp(r, " (/", 3) == 0 && (line = strcspn(r, "\n")) >= libc &&
		    strncmp(r + line - libc, "/libc.so.6)", libc) == 0 &&
		    !memchr(r + 3, ' ', line - 3)) {
			r += line;
			continue;
		}
		if (strncmp(r, "__GI_", 5) == 0 && (r == text || r[-1] == ' ' || r[-1] == '-' ||
						     r[-1] == '/' || r[-1] == '\t')) {
			size_t n = strspn(r + 5, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
						 "0123456789_.");
			memmove(w, r + 5, n);
			w += n;
			r += 5 + n;
			continue;
		}
		*w++ = *r++;
	}
	*w = '\0';
}

/*
 * Column padding: perf sizes a column over entries it does not print (seen:
 * the Shared Object column as wide as "[kernel.kallsyms]" in a children
 * table with no kernel row), so padding is compared as one space and the
 * dotted rules under the headings are left out. In place.
 */
static void squeeze_padding(char *text)
{
	char *w = text;

	for (char *l = text; *l;) {
		size_t n = line_size(l);
		bool rule = strncmp(l, "# ..", 4) == 0;
		/* Leading blanks stay: they are the call graphs' indentation. */
		size_t lead = strspn(l, " ");
		for (size_t i = 0; !rule && i < n; i++) {
			if (l[i] == ' ' && i + 1 < n && l[i + 1] == ' ' && i >= lead)
				continue;
			*w++ = l[i];
		}
		l += n;
	}
	*w = '\0';
}

static char *normalize_known(char *text, bool report)
{
	text = th_modules_as_kernel(text);
	unalias_gi(text);
	if (!report)
		return text;
	drop_tip(text);
	unmark_unmapped(text);
	drop_chain_address_entries(text);
	text = sort_tied_entries(text);
	squeeze_padding(text);
	return text;
}

/* ---- running and comparing -------------------------------------------------- */

static char *path_in(const char *name)
{
	char *p = th_path_join(dir, name);

	return p;
}


/*
 * Whether l is an entry's line in a normalized table: entry_line's
 * percentage followed by a blank (canonical_graph's paths start with
 * "NN.NN%:").
 */
static bool entry_head(const char *l)
{
	return entry_line(l) && strchr(l, '%')[1] == ' ';
}

/* The end of the entry block (an entry line and its graph's lines) at l. */
static char *block_end(char *l)
{
	char *e = l + line_size(l);

	while (*e && !entry_head(e) && e[0] != '#')
		e += line_size(e);
	return e;
}

/*
 * At an entry's line l: sets *key to its text after its two percentages and
 * name to its function as th_script_share takes it ("NAME (any)"). Returns
 * false at any other line.
 */
static bool entry_parts(char *l, char **key, char *name, size_t size)
{
	char *fn;

	if (!entry_head(l) || !(*key = strchr(strchr(l, '%') + 1, '%')) || !(fn = strstr(l, "] ")) ||
	    fn > l + strcspn(l, "\n"))
		return false;
	snprintf(name, size, "%.*s (any)", (int)strcspn(fn + 2, "\n"), fn + 2);
	return true;
}

/*
 * Whether two shares in percent are within one sample's worth of each other
 * in a file of `samples` samples (0.6% at least: the emulated machine's
 * recordings have fewer).
 */
static bool near_share(double a, double b, size_t samples)
{
	double one = samples ? 100.0 / (double)samples + 0.005 : 0;

	if (one < 0.6)
		one = 0.6;
	return a - b <= one && b - a <= one;
}

/* Logs an entry left out: its function (name as entry_parts writes it) and why. */
static void log_dropped(const char *name, const char *why)
{
	th_skip_log("perf's --children entry of %.*s: %s: the entry is left out",
		    (int)(strlen(name) - strlen(" (any)")), name, why);
}

/* An entry of a normalized children table with its graph: [at, end), its key, whether dropped. */
struct entry_block {
	char *at, *end, *key;
	size_t klen;
	bool drop;
};

/* A table's entry blocks in order, and their indexes by key (then by position). */
struct entry_index {
	struct entry_block *e;
	size_t n, *by_key;
};

static const struct entry_index *sorting;

static int cmp_key(const char *a, size_t la, const char *b, size_t lb)
{
	int c = memcmp(a, b, la < lb ? la : lb);

	return c ? c : (la > lb) - (la < lb);
}

static int cmp_by_key(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	const struct entry_block *x = &sorting->e[a], *y = &sorting->e[b];
	int c = cmp_key(x->key, x->klen, y->key, y->klen);

	return c ? c : (a > b) - (a < b);
}

/* Indexes the entries of text (a normalized children table). */
static void index_entries(char *text, struct entry_index *ix)
{
	size_t cap = 0;

	memset(ix, 0, sizeof(*ix));
	for (char *l = text; *l;) {
		if (!entry_head(l)) {
			l += line_size(l);
			continue;
		}
		if (ix->n == cap) {
			cap = cap ? 2 * cap : 256;
			ix->e = realloc(ix->e, cap * sizeof(*ix->e));
			cr_assert_not_null(ix->e);
		}
		struct entry_block *b = &ix->e[ix->n++];
		b->at = l;
		b->end = block_end(l);
		b->key = strchr(strchr(l, '%') + 1, '%');
		b->klen = strcspn(b->key, "\n");
		b->drop = false;
		l = b->end;
	}
	ix->by_key = malloc((ix->n + 1) * sizeof(*ix->by_key));
	cr_assert_not_null(ix->by_key);
	for (size_t i = 0; i < ix->n; i++)
		ix->by_key[i] = i;
	sorting = ix;
	qsort(ix->by_key, ix->n, sizeof(*ix->by_key), cmp_by_key);
	sorting = NULL;
}

/* The first entry of ix not dropped whose key is key's (klen bytes), or NULL. */
static struct entry_block *find_entry(const struct entry_index *ix, const char *key, size_t klen)
{
	size_t lo = 0, hi = ix->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct entry_block *m = &ix->e[ix->by_key[mid]];

		if (cmp_key(m->key, m->klen, key, klen) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < ix->n; lo++) {
		struct entry_block *m = &ix->e[ix->by_key[lo]];

		if (cmp_key(m->key, m->klen, key, klen) != 0)
			return NULL;
		if (!m->drop)
			return m;
	}
	return NULL;
}

/* Leaves the dropped entries of ix out of its text, in place; frees the index. */
static void compact_entries(char *text, struct entry_index *ix)
{
	char *w = text, *r = text;

	for (size_t i = 0; i < ix->n; i++) {
		if (!ix->e[i].drop)
			continue;
		memmove(w, r, (size_t)(ix->e[i].at - r));
		w += ix->e[i].at - r;
		r = ix->e[i].end;
	}
	memmove(w, r, strlen(r) + 1);
	free(ix->e);
	free(ix->by_key);
}

/*
 * In the normalized children tables theirs (perf's) and ours, drops the
 * entries, with their graphs, where perf's report and its own script
 * disagree, logging each (script: `perf script` of the file):
 * - a function whose Children share perf prints otherwise than its script
 *   shows where perfev prints the script's: perf counts a function and one
 *   inlined into it so (docs/PERF_DIFFERENCES.md, "--children entries of a
 *   function and one inlined into it"; arm64 ld.so's `_dl_start`);
 * - perf's entry that perfev lacks, above its script's share: perf's report
 *   gives the samples of an inlined function to its holder, a GCC clone
 *   (ld.so's `open_verify.constprop.0`);
 * - perfev's entry that perf lacks, at perf's script share: that inlined
 *   function, which perf's report has no entry for.
 * In place. Returns whether it dropped any.
 */
static bool drop_entries_off_script(char *theirs, char *ours, const char *script)
{
	bool dropped = false;
	char name[512], why[256], *key;
	size_t samples = th_script_samples(script);
	struct entry_index ti, oi;

	/*
	 * Indexed, and each share read only where the tables differ: a
	 * children table of node has thousands of entries and its script
	 * millions of bytes (most of node's 16 minutes in the arm64 guest went to searching them).
	 */
	index_entries(theirs, &ti);
	index_entries(ours, &oi);
	for (size_t i = 0; i < ti.n; i++) {
		struct entry_block *t = &ti.e[i], *o = find_entry(&oi, t->key, t->klen);
		double pt, po;

		if ((o && strncmp(t->at, o->at, (size_t)(t->key - t->at)) == 0) ||
		    !entry_parts(t->at, &key, name, sizeof(name)) || !percentage(t->at, &pt))
			continue;
		double share = th_script_share(script, name);
		if (!o && pt > share && !near_share(pt, share, samples)) {
			snprintf(why, sizeof(why), "%.2f%% of the samples, its script's %.2f%%, "
				 "none in perfev's", pt, share);
		} else if (o && percentage(o->at, &po) && near_share(po, share, samples) &&
			   !near_share(pt, share, samples)) {
			snprintf(why, sizeof(why), "%.2f%% of the samples, its script's %.2f%%, "
				 "perfev's %.2f%%", pt, share, po);
			o->drop = true;
		} else {
			continue;
		}
		log_dropped(name, why);
		t->drop = dropped = true;
	}
	for (size_t i = 0; i < oi.n; i++) {
		struct entry_block *o = &oi.e[i];
		double po;

		if (o->drop || find_entry(&ti, o->key, o->klen) || !percentage(o->at, &po) ||
		    !entry_parts(o->at, &key, name, sizeof(name)))
			continue;
		double share = th_script_share(script, name);
		if (!near_share(po, share, samples))
			continue;
		snprintf(why, sizeof(why), "none, where its script and perfev's count %.2f%% and "
			 "%.2f%% of the samples", share, po);
		log_dropped(name, why);
		o->drop = dropped = true;
	}
	compact_entries(theirs, &ti);
	compact_entries(ours, &oi);
	return dropped;
}

/*
 * `perf script -i file`'s output, a copy the caller frees. perf 6.1's script
 * of a DWARF recording takes 30 to 60 s in the arm64 guest and several checks
 * read it, so each file's is kept for the process: by path, inode, size and
 * modification time, so that a file recorded again is read again.
 */
static char *perf_script(const char *file)
{
	static struct {
		char *path, *text;
		struct stat st;
	} kept[8];
	static size_t next;
	struct stat st;
	char *copy;
	char cmd[8192];

	cr_assert_eq(stat(file, &st), 0, "%s: %m", file);
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		if (kept[i].path && strcmp(kept[i].path, file) == 0 &&
		    kept[i].st.st_ino == st.st_ino && kept[i].st.st_size == st.st_size &&
		    kept[i].st.st_mtim.tv_sec == st.st_mtim.tv_sec &&
		    kept[i].st.st_mtim.tv_nsec == st.st_mtim.tv_nsec) {
			cr_assert_not_null(copy = strdup(kept[i].text));
			return copy;
		}
	}
	snprintf(cmd, sizeof(cmd), "perf script -i '%s' 2>/dev/null", file);
	char *text = th_sh_ok(cmd);
	size_t i = next++ % (sizeof(kept) / sizeof(kept[0]));
	free(kept[i].path);
	free(kept[i].text);
	kept[i].path = strdup(file);
	kept[i].text = strdup(text);
	cr_assert(kept[i].path && kept[i].text);
	kept[i].st = st;
	return text;
}

/*
 * Runs `perf VIEW` on perf_file and `perfev VIEW` on file (the same file, or
 * the one perf inject --jit made of it); on a difference, appends a unified
 * diff (at most 60 lines) to report and returns false.
 */
static bool same_output(const char *file, const char *perf_file, const char *view, const char *tag,
			char **report)
{
	char cmd[8192];
	char *theirs, *ours, *diff = NULL, *err = NULL;
	char *a = NULL, *b = NULL;
	bool same;

	snprintf(cmd, sizeof(cmd), "perf %s -i '%s' 2>/dev/null", view, perf_file);
	theirs = strcmp(view, "script") == 0 ? perf_script(perf_file) : th_sh_ok(cmd);
	snprintf(cmd, sizeof(cmd), "'%s' %s --symbol-at-return --zero-frames -i '%s'", th_perfev_bin(), view,
		 file);
	ours = th_sh_ok(cmd);
	bool report_view = strncmp(view, "report", 6) == 0;
	char *theirs_raw = strdup(theirs), *ours_raw = strdup(ours);
	cr_assert(theirs_raw && ours_raw);
	theirs = normalize_known(theirs, report_view);
	ours = normalize_known(ours, report_view);
	same = strcmp(theirs, ours) == 0;
	/* A PLT stub perf names "_init" (th_plt_named_init), in entries ordered again. */
	if (!same && strstr(theirs, "_init") && strstr(ours, "@plt")) {
		char *t = normalize_known(th_plt_as_one_text(theirs_raw), report_view);
		char *o = normalize_known(th_plt_as_one_text(ours_raw), report_view);
		theirs_raw = ours_raw = NULL;
		same = strcmp(t, o) == 0;
		free(t);
		free(o);
	}
	free(theirs_raw);
	free(ours_raw);
	if (!same && report_view && !strstr(view, "--no-children")) {
		char *script = perf_script(perf_file);
		unalias_gi(script);
		if (drop_entries_off_script(theirs, ours, script))
			same = strcmp(theirs, ours) == 0;
		free(script);
	}
	if (!same) {
		char name[300];

		snprintf(name, sizeof(name), "%s.perf", tag);
		a = path_in(name);
		snprintf(name, sizeof(name), "%s.perfev", tag);
		b = path_in(name);
		th_write_file(a, theirs);
		th_write_file(b, ours);
		snprintf(cmd, sizeof(cmd), "diff -u '%s' '%s' | head -60", a, b);
		th_sh(cmd, &diff, &err);
		size_t old = *report ? strlen(*report) : 0;
		size_t add = strlen(view) + strlen(file) + (diff ? strlen(diff) : 0) + 64;
		*report = realloc(*report, old + add);
		cr_assert_not_null(*report);
		snprintf(*report + old, add, "== %s -i %s\n%s\n", view, file, diff ? diff : "");
	}
	free(theirs);
	free(ours);
	free(diff);
	free(err);
	free(a);
	free(b);
	return same;
}

/*
 * Whether perf's `perf script` of file keeps a return address signed by
 * pointer authentication (arm64: th_perf_signed_frame), where perfev names
 * the stripped one: the views then differ by a listed difference
 * (docs/PERF_DIFFERENCES.md, "signed return address").
 */
static bool perf_kept_signed_frames(const char *file)
{
	bool kept = false;
	char *script = perf_script(file);
	for (char *l = strtok(script, "\n"); l && !kept; l = strtok(NULL, "\n"))
		kept = l[0] == '\t' && th_perf_signed_frame(l);
	free(script);
	return kept;
}

/* Whether perf's DWARF unwinder lost its way in a chain of `perf script` output. */
static bool perf_lost_a_chain(const char *script)
{
	for (const char *l = script; *l; l += line_size(l)) {
		size_t n = strcspn(l, "\n");
		char line[512];

		snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) - 1 ? n : sizeof(line) - 1), l);
		if (line[0] == '\t' && th_perf_lost_frame(line))
			return true;
	}
	return false;
}

/* A loaded module: where /proc/modules puts it, and its last symbol in /proc/kallsyms. */
struct kmod {
	char name[64];
	unsigned long long start, size, last;
};

/* The loaded modules (at most max) into m; returns how many. */
static size_t loaded_modules(struct kmod *m, size_t max)
{
	char line[512], mod[80];
	unsigned long long a;
	size_t n = 0;
	FILE *f = fopen("/proc/modules", "re");

	while (f && n < max && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %llu %*s %*s %*s %llx", m[n].name, &m[n].size, &m[n].start) ==
		    3)
			m[n++].last = 0;
	if (f)
		fclose(f);
	f = n ? fopen("/proc/kallsyms", "re") : NULL;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %*s %*s [%79[^]]]", &a, mod) == 2)
			for (size_t i = 0; i < n; i++)
				if (strcmp(m[i].name, mod) == 0 && a > m[i].last)
					m[i].last = a;
	if (f)
		fclose(f);
	return n;
}

/*
 * Whether perf's names of script's kernel addresses (`script -F ip`) depend
 * on their order: the first kernel address lies in a loaded module, and an
 * address lies past a module's last symbol (arm64's PLT veneers for calls
 * into the kernel). perf then reads that module's symbols from its file
 * before it reads the kernel's through kcore, and names the PLT [unknown],
 * where with kcore it names it by the module's last function, as perfev
 * does (docs/PERF_DIFFERENCES.md, "an address in a module's PLT").
 */
static bool module_names_by_order(const char *script)
{
	struct kmod m[256];
	size_t n = loaded_modules(m, 256);
	bool first = true, module_first = false, tail = false;

	for (const char *l = script; *l && n && !tail;
	     l += line_size(l)) {
		const char *hex = l + strspn(l, " \t");
		char *end;
		size_t i;
		if (!isxdigit((unsigned char)*hex))
			continue;
		/* strtoull, not sscanf: see percentage(). */
		unsigned long long ip = strtoull(hex, &end, 16);
		if (end == hex || !(ip >> 63))
			continue;
		for (i = 0; i < n && !(ip >= m[i].start && ip - m[i].start < m[i].size); i++)
			;
		if (first && i == n)
			return false;
		first = false;
		module_first = true;
		tail = i < n && m[i].last && ip > m[i].last;
	}
	return module_first && tail;
}

/*
 * Records w with recorder ("perf" or perfev's path) into a file; returns its
 * path. A DWARF recording in which perf's unwinder lost a chain is made
 * again, up to 8 times: Debian's perf 6.1 does so for a sample at the entry
 * of a library's _fini (no CFI), which a cpu-clock tick hits about one run
 * in a hundred; perf 7.2 and perfev follow the return address to exit and
 * _start. Where perf is wrong there is nothing to compare with;
 * test_cmd_dwarf checks perfev's chains there (docs/PERF_DIFFERENCES.md).
 * So is a recording whose kernel addresses perf names by their order
 * (module_names_by_order).
 */
static char *record(const struct workload *w, const char *recorder, const char *tag)
{
	char name[128], command[1024], cmd[8192];
	char *file, *build = strdup(th_test_program("parity_work"));
	bool dwarf = strstr(w->options, "dwarf") != NULL;

	*strrchr(build, '/') = '\0';
	snprintf(name, sizeof(name), "%s.%s.data", w->name, tag);
	file = path_in(name);
	snprintf(command, sizeof(command), w->command, build);
	for (int attempt = 1;; attempt++) {
		snprintf(cmd, sizeof(cmd), "'%s' record -q %s -o '%s' -- %s >/dev/null 2>&1",
			 recorder, w->options, file, command);
		free(th_sh_ok(cmd));
		if (attempt == 8)
			break;
		/* perfev's script: the same order, without perf's DWARF unwinding. */
		snprintf(cmd, sizeof(cmd), "'%s' script -F ip -i '%s' 2>/dev/null", th_perfev_bin(),
			 file);
		char *ips = th_sh_ok(cmd);
		bool by_order = module_names_by_order(ips);
		free(ips);
		if (by_order) {
			th_skip_log("%s: recorded by %s again: its first kernel address is a "
				    "module's, and it has addresses in a module's PLT (perf then "
				    "names them otherwise)",
				    w->name, tag);
			continue;
		}
		if (!dwarf)
			break;
		char *script = perf_script(file);
		bool lost = perf_lost_a_chain(script);
		free(script);
		if (!lost)
			break;
		th_skip_log("%s: recorded by %s again: perf lost a DWARF chain (perf 6.1's unwinder)",
			    w->name, tag);
	}
	free(build);
	return file;
}

/* Records w with perf and with perfev; every view of both files must match. */
static void expect_parity(const struct workload *w)
{
	static const char *const views[][2] = {
		{ "report --stdio", "children" },
		{ "report --stdio --no-children", "self" },
		{ "report --stdio --no-children -g none", "flat" },
		{ "script", "script" },
	};
	const char *recorders[][2] = { { "perf", "perf" }, { th_perfev_bin(), "perfev" } };
	char *report = NULL;
	int bad = 0, total = 0;

	th_need_perf();
	for (int r = 0; r < 2; r++) {
		char *file = record(w, recorders[r][0], recorders[r][1]);
		char *perf_file = strdup(file);

		cr_assert_not_null(perf_file);
		if (w->jit_inject) {
			char cmd[8192];

			perf_file = realloc(perf_file, strlen(file) + 8);
			cr_assert_not_null(perf_file);
			strcat(perf_file, ".jit");
			snprintf(cmd, sizeof(cmd), "perf inject --jit -i '%s' -o '%s' 2>&1", file,
				 perf_file);
			free(th_sh_ok(cmd));
		}

		for (size_t v = 0; v < sizeof(views) / sizeof(views[0]); v++) {
			char tag[256];

			snprintf(tag, sizeof(tag), "%s.%s", recorders[r][1], views[v][1]);
			if (w->unchecked && strstr(w->unchecked, tag)) {
				th_skip_log("%s: %s not compared: %s", w->name, tag, w->why);
				continue;
			}
			snprintf(tag, sizeof(tag), "%s.%s.%s", w->name, recorders[r][1], views[v][1]);
			total++;
			if (same_output(file, perf_file, views[v][0], tag, &report))
				continue;
			if (perf_kept_signed_frames(perf_file)) {
				th_skip_log("%s: %s not compared: perf 6.1 keeps signed return "
					    "addresses (arm64 pointer authentication)", w->name, tag);
				continue;
			}
			bad++;
		}
		free(perf_file);
		free(file);
	}
	cr_expect_eq(bad, 0, "%s: %d of %d views differ from perf's:\n%s", w->name, bad, total,
		     report ? report : "");
	free(report);
}

/* ---- the workloads ----------------------------------------------------------- */

Test(parity, c_with_shared_libraries)
{
	expect_parity(&(struct workload){ "libs", "-g -e cpu-clock -F 1000",
					  "%s/parity_work libs 300", NULL, NULL, false });
}

/*
 * Call chains with inline frames: libc's __libc_start_main_impl (inlined).
 * Where the machine is th_time_scale() times slower, the program runs that
 * many times longer at that many times fewer samples a second: ld.so's
 * start, which takes the same few milliseconds of an emulated CPU whatever
 * the program's length, keeps the small share it has natively (about 1%;
 * at full rate it was a third of the arm64 guest's samples, where perf
 * 6.1's merges of inlined functions' entries made most of the views differ
 * by one sample).
 */
Test(parity, cxx_dwarf_call_graph)
{
	int scale = th_time_scale();
	char options[128], command[64];

	snprintf(options, sizeof(options), "--call-graph dwarf -e cpu-clock -F %d", 500 / scale);
	snprintf(command, sizeof(command), "%%s/parity_cxx %d", 300 * scale);
	expect_parity(&(struct workload){ "cxx", options, command, NULL, NULL, false });
}

Test(parity, threads)
{
	expect_parity(&(struct workload){ "threads", "-g -e cpu-clock -F 1000",
					  "%s/parity_work threads 300", NULL, NULL, false });
}

/*
 * A process that outlives its main thread (issue 21): main calls
 * pthread_exit, the worker spins in worker_spin after the main thread's
 * EXIT. The address space is the process's: the worker's late samples keep
 * their symbols, as perf names them.
 */
Test(parity, thread_outlives_main)
{
	expect_parity(&(struct workload){ "orphan", "-g -e cpu-clock -F 1000",
					  "%s/parity_work orphan 300", NULL, NULL, false });
}

/*
 * A shell that starts a pipeline, recorded as `sh -c 'gzip -9 <FILE | cat'`
 * (issue 21): each child runs as "sh" from its fork to its exec. perf
 * shows a thread, in the pid column, by its last name ("PID:gzip" on the
 * rows of its samples as "sh" too), and a sample taken before its thread's
 * first name by that name. Every page fault is a sample: the children's
 * copy-on-write faults before their exec are always there.
 */
Test(parity, pid_column_names_thread_by_its_last_comm)
{
	static const char *const views[] = {
		"report --stdio --sort pid",
		"report --stdio --sort comm,pid",
		"report --stdio --sort pid,comm",
		"report --stdio --sort comm",
	};
	const char *recorders[][2] = { { "perf", "perf" }, { th_perfev_bin(), "perfev" } };
	char *input = path_in("gzip-input"), command[PATH_MAX + 128], cmd[2 * PATH_MAX];
	char *report = NULL;
	int bad = 0;

	th_need_perf();
	if (!th_have_program("gzip"))
		th_skip("gzip is not installed (Debian package gzip)");
	snprintf(cmd, sizeof(cmd), "head -c 1500000 /dev/urandom | base64 > '%s'", input);
	free(th_sh_ok(cmd));
	snprintf(command, sizeof(command), "sh -c \"gzip -9 <'%s' | cat >/dev/null\"", input);
	for (int r = 0; r < 2; r++) {
		struct workload w = { "gzip", "-e page-faults -c 1", command, NULL, NULL, false };
		char *file = record(&w, recorders[r][0], recorders[r][1]), *out;

		/* The case at hand is there: rows of "sh" samples of the gzip process. */
		snprintf(cmd, sizeof(cmd), "perf report --stdio --sort comm,pid -i '%s' 2>/dev/null",
			 file);
		out = th_sh_ok(cmd);
		cr_expect(strstr(out, "  sh ") && strstr(out, ":gzip"),
			  "%s: no samples of the children before their exec:\n%s", recorders[r][1],
			  out);
		free(out);
		for (size_t v = 0; v < sizeof(views) / sizeof(views[0]); v++) {
			char tag[256];

			snprintf(tag, sizeof(tag), "gzip.%s.view%zu", recorders[r][1], v);
			bad += !same_output(file, file, views[v], tag, &report);
		}
		free(file);
	}
	cr_expect_eq(bad, 0, "%d views differ from perf's:\n%s", bad, report ? report : "");
	free(report);
	free(input);
}

Test(parity, tracepoint_on_every_cpu)
{
	if (!th_tracefs())
		th_skip("tracefs is not mounted: no tracepoints to record");
	expect_parity(&(struct workload){ "tracepoint", "-a -e sched:sched_switch",
					  "sleep 0.2", NULL, NULL, false });
}

Test(parity, python)
{
	/* The interpreter itself: a wrapper script (pyenv's shim) would exec it. */
	if (access("/usr/bin/python3", X_OK) != 0)
		th_skip("/usr/bin/python3 is not installed (Debian package python3)");
	expect_parity(&(struct workload){
		"python", "-g -e cpu-clock -F 1000",
		"/usr/bin/python3 -c 's=0\nfor i in range(3000000): s+=i*i\nprint(s)'",
		"perf.children perfev.children",
		"an unresolved address in a file met in call chains (perf: a Children entry of its "
		"own)", false });
}

/*
 * Real programs from Debian packages, whose symbols are many: gcc's cc1 (a
 * stripped C++ program: .dynsym alone, some 29,000 symbols) and node (both
 * .symtab and .dynsym, over 100,000 symbols, aliases among them).
 */
Test(parity, compiler_dynsym_only)
{
	const char *root = getenv("PERFEV_SOURCE_ROOT");
	char command[2048];

	if (!th_have_program("gcc"))
		th_skip("gcc is not installed (Debian package gcc)");
	cr_assert_not_null(root, "PERFEV_SOURCE_ROOT is not set (meson test sets it)");
	snprintf(command, sizeof(command),
		 "gcc -O2 -c -I'%s/include' -I'%s/src' -o /dev/null '%s/src/events/parse.c'", root,
		 root, root);
	expect_parity(&(struct workload){ "cc1", "-e cpu-clock -F 4000", command, NULL, NULL, false });
}

Test(parity, node_symtab_and_dynsym)
{
	if (!th_have_program("node"))
		th_skip("node is not installed (Debian package nodejs)");
	char command[512];

	/* Less work where the machine is slower: as many samples to compare. */
	snprintf(command, sizeof(command),
		 "node --jitless -e 'let s = 0; for (let i = 0; i < %d; i++) s += "
		 "JSON.stringify({a: i, b: [i, String(i)]}).length; console.log(s)'",
		 200000 / th_time_scale());
	expect_parity(&(struct workload){ "node", "-g -e cpu-clock -F 1000", command, NULL, NULL,
					  false });
}

/*
 * JavaScript compiled by node's JIT (V8), named from its perf map
 * (--perf-basic-prof: /tmp/perf-PID.map, "[JIT] tid PID" in the Shared
 * Object column) and from its jitdump (--perf-prof: DIR/jit-PID.dump, read
 * by perfev directly, by perf after `perf inject --jit`). The hot function
 * is optimized, thrown away and optimized again, so that copies of it at
 * several addresses are rows of their own, as in perf.
 */
static const char node_js[] =
	"function hotLoop(n) {\n"
	"  let s = 0;\n"
	"  for (let i = 0; i < n; i++) s = (s + i * 7) % 1000003;\n"
	"  return s;\n"
	"}\n"
	"let t = 0;\n"
	"for (let round = 0; round < 3; round++) {\n"
	"  %PrepareFunctionForOptimization(hotLoop);\n"
	"  hotLoop(10); hotLoop(10);\n"
	"  %OptimizeFunctionOnNextCall(hotLoop);\n"
	"  for (let k = 0; k < HOT; k++) t += hotLoop(200000);\n"
	"  %DeoptimizeFunction(hotLoop);\n"
	"  const junk = [];\n"
	"  for (let k = 0; k < JUNK; k++) junk.push(new Function('x', 'return x + ' + (k + 1000 * round)));\n"
	"  junk.forEach(f => f(1));\n"
	"}\n"
	"console.log(t);\n";

/* Writes the workload into the tests' folder; returns its path. */
static char *node_script(void)
{
	char *js = path_in("hot.js"), *text;
	int scale = th_time_scale();

	/* Less work where the machine is slower (QEMU translates each piece of JIT code anew). */
	cr_assert_geq(asprintf(&text, "const HOT = %d, JUNK = %d;\n%s", 150 / scale + 1,
			       300 / scale + 1, node_js),
		      0);
	th_write_file(js, text);
	free(text);
	return js;
}

/*
 * Expects perfev's table of file (in the tests' folder) to name hotLoop's
 * optimized code ('*') in dso, tagged "JS:" by Node.js 20's V8 and
 * "LazyCompile:" by Debian 12's Node.js 18.
 */
static void expect_named(const char *file, const char *dso)
{
	char cmd[8192], *out, *f = path_in(file);

	snprintf(cmd, sizeof(cmd), "'%s' report --stdio --no-children -g none --sort dso,sym -i '%s'",
		 th_perfev_bin(), f);
	out = th_sh_ok(cmd);
	bool named = strstr(out, "JS:*hotLoop") || strstr(out, "LazyCompile:*hotLoop");
	cr_expect(strstr(out, dso) && named, "%s: hotLoop not in %s:\n%s", file, dso, out);
	free(out);
	free(f);
}

/* Removes the perf maps of the processes whose pids the file (one a line) holds. */
static void remove_perf_maps(const char *pid_file)
{
	FILE *f = fopen(pid_file, "r");
	char map[64];
	int pid;

	while (f && fscanf(f, "%d", &pid) == 1)
		if (pid > 0) {
			snprintf(map, sizeof(map), "/tmp/perf-%d.map", pid);
			unlink(map);
		}
	if (f)
		fclose(f);
}

Test(parity, node_perf_map)
{
	char command[4096];
	char *js, *pids;

	if (!th_have_program("node"))
		th_skip("node is not installed (Debian package nodejs)");
	js = node_script();
	pids = path_in("node.pids");
	/* The shell execs node: the pid it writes is the perf map's (removed after).
	 * node runs in the tests' folder: V8 writes its isolate-*-v8.log there. */
	snprintf(command, sizeof(command),
		 "sh -c 'echo $$ >> %s; cd %s && exec node --perf-basic-prof --allow-natives-syntax "
		 "%s'",
		 pids, dir, js);
	expect_parity(&(struct workload){"nodemap", "-g -e cpu-clock -F 1000", command, NULL, NULL, false});
	expect_named("nodemap.perf.data", "[JIT] tid ");
	expect_named("nodemap.perfev.data", "[JIT] tid ");
	remove_perf_maps(pids);
	free(pids);
	free(js);
}

/*
 * Samples of the user part of a script's output (perf's or perfev's): how
 * many begin, after their kernel frames, in a JIT map's code.
 */
static int jit_first_user_frames(const char *script, char *firsts, size_t size)
{
	int n = 0;
	bool first = true; /* the next frame line is the first user one */
	size_t used = 0;

	if (size)
		firsts[0] = '\0';
	for (const char *l = script; *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);

		if (len == 0) {
			first = true;
		} else if (l[0] == '\t' && first && !memmem(l, len, "[kernel.kallsyms]", 17)) {
			n += memmem(l, len, "/tmp/perf-", 10) != NULL;
			first = false;
			/* Each sample's first user frame, for a failure's message. */
			if (used + len + 2 < size)
				used += (size_t)snprintf(firsts + used, size - used, "%.*s\n", (int)len, l);
		}
		l += len + (nl != NULL);
	}
	return n;
}

/*
 * The sampling frequency of a JIT's --call-graph dwarf recording: hz, or
 * hz / th_time_scale() where the machine is slower. A JIT's startup runs
 * tens of times slower under QEMU than the rest, and every sample carries
 * 16 KB of stack that perf unwinds with DWARF: at full rate perf 6.1's
 * `perf script` of one such file took over 10 minutes in the arm64 guest.
 */
static int jit_dwarf_frequency(int hz)
{
	return hz / th_time_scale();
}

/*
 * Runs record_cmd (perf record --call-graph dwarf of a JIT's program, into
 * file) and expects perfev's flat table of the file to be perf's (tag
 * names the comparison), and as many samples whose user part starts in
 * JIT code as perf 6.1 shows.
 */
static void expect_jit_dwarf_like_perf(const char *record_cmd, const char *file, const char *tag)
{
	char cmd[8192], *theirs, *ours, *report = NULL;

	free(th_sh_ok(record_cmd));
	cr_expect(same_output(file, file, "report --stdio --no-children -g none", tag, &report),
		  "%s", report ? report : "");
	/*
	 * Without inlined functions, which name no JIT code: perf 6.1 asks
	 * addr2line for each address's, 35 s of its 35.7 s on node's file here
	 * and more than 10 minutes in the arm64 guest.
	 */
	snprintf(cmd, sizeof(cmd), "perf script --no-inline -i '%s' 2>/dev/null", file);
	theirs = th_sh_ok(cmd);
	snprintf(cmd, sizeof(cmd), "'%s' script --no-inline -i '%s'", th_perfev_bin(), file);
	ours = th_sh_ok(cmd);
	static char firsts[16384];
	int got = jit_first_user_frames(ours, NULL, 0);
	int want = jit_first_user_frames(theirs, firsts, sizeof(firsts));
	cr_expect_gt(want, 0, "%s: perf names no JIT code first; each sample's first user frame:\n%s",
		     tag, firsts);
	cr_expect_eq(got, want,
		     "%s: samples whose user part starts in JIT code: perfev %d, perf %d", tag, got,
		     want);
	free(theirs);
	free(ours);
	free(report);
}

/*
 * --call-graph dwarf: a sample the kernel took while JIT code ran carries
 * the user registers; the user part of its chain starts at their pc, named
 * from the perf map (no CFI unwinds further), as perf 6.1 shows it. The
 * script's summing loop is JIT code's share (a third of x86's samples; the
 * arrays' allocations alone, memset and page faults, left none of 150 in
 * the arm64 guest's README run).
 */
Test(parity, node_perf_map_dwarf)
{
	static const char alloc_js[] =
		"function fillArrays(n) {\n"
		"  let total = 0;\n"
		"  for (let k = 0; k < n; k++) {\n"
		"    const a = new Float64Array(1 << 16);\n"
		"    for (let i = 0; i < a.length; i += 512) a[i] = i;\n"
		"    total += a[a.length - 512];\n"
		"    for (let i = 0; i < a.length; i += 4) total += a[i] * 0.5;\n"
		"  }\n"
		"  return total;\n"
		"}\n"
		"let t = 0;\n"
		"for (let r = 0; r < ROUNDS; r++) t += fillArrays(50);\n"
		"console.log('total', t);\n";
	char cmd[8192], *js, *pids, *file, *out, *said, *text;

	th_need_perf();
	if (!th_have_program("node"))
		th_skip("node is not installed (Debian package nodejs)");
	js = path_in("alloc.js");
	cr_assert_geq(asprintf(&text, "const ROUNDS = %d;\n%s", 200 / th_time_scale() + 1, alloc_js),
		      0);
	th_write_file(js, text);
	free(text);
	pids = path_in("dwarf.pids");
	file = path_in("nodedwarf.data");
	out = path_in("nodedwarf.out");
	snprintf(cmd, sizeof(cmd),
		 "perf record -q --call-graph dwarf,16384 -e cpu-clock -F %d -o '%s' -- "
		 "sh -c 'echo $$ >> %s; cd %s && exec node --perf-basic-prof %s >%s 2>&1' "
		 ">/dev/null 2>&1",
		 jit_dwarf_frequency(1000), file, pids, dir, js, out);
	expect_jit_dwarf_like_perf(cmd, file, "nodedwarf.flat");
	/* The program ran to its end (a node that died early shows no JIT code). */
	said = th_slurp(out, NULL);
	cr_expect(said && strncmp(said, "total ", 6) == 0, "node's output: %s", said ? said : "none");
	free(said);
	remove_perf_maps(pids);
	free(out);
	free(file);
	free(pids);
	free(js);
}

/*
 * The JVM's JIT code, named from the perf map HotSpot writes at exit
 * (-XX:+DumpPerfMapAtExit, JDK 17), under --call-graph dwarf: the samples
 * whose user part starts in JIT code are as many as perf 6.1 shows, and
 * the flat table is perf's.
 */
Test(parity, java_perf_map_dwarf)
{
	static const char java_src[] =
		"public class Hot {\n"
		"  static long work(int n) {\n"
		"    long s = 0;\n"
		"    for (int i = 0; i < n; i++) s = (s * 31 + i) % 1000003;\n"
		"    return s;\n"
		"  }\n"
		"  static long alloc(int n) {\n"
		"    long t = 0;\n"
		"    for (int k = 0; k < n; k++) {\n"
		"      long[] a = new long[1 << 14];\n"
		"      for (int i = 0; i < a.length; i += 64) a[i] = i;\n"
		"      t += a[128];\n"
		"    }\n"
		"    return t;\n"
		"  }\n"
		"  public static void main(String[] args) {\n"
		"    long t = 0, rounds = Long.parseLong(args[0]);\n"
		"    for (int r = 0; r < rounds; r++) { t += work(100000); t += alloc(20); }\n"
		"    System.out.println(t);\n"
		"  }\n"
		"}\n";
	char cmd[8192], *src, *pids, *file;

	th_need_perf();
	if (!th_have_program("java") || !th_have_program("javac"))
		th_skip("java or javac is not installed (Debian package default-jdk-headless)");
	src = path_in("Hot.java");
	th_write_file(src, java_src);
	snprintf(cmd, sizeof(cmd), "cd '%s' && javac Hot.java 2>&1", dir);
	free(th_sh_ok(cmd));
	pids = path_in("java.pids");
	file = path_in("javadwarf.data");
	snprintf(cmd, sizeof(cmd),
		 "perf record -q --call-graph dwarf,16384 -e cpu-clock -F %d -o '%s' -- "
		 "sh -c 'echo $$ >> %s; cd %s && exec java -XX:+UnlockDiagnosticVMOptions "
		 "-XX:+DumpPerfMapAtExit Hot %d' >/dev/null 2>&1",
		 jit_dwarf_frequency(500), file, pids, dir, 3000 / th_time_scale() + 1);
	expect_jit_dwarf_like_perf(cmd, file, "javadwarf.flat");
	remove_perf_maps(pids);
	free(file);
	free(pids);
	free(src);
}

Test(parity, node_jitdump)
{
	char command[4096];
	char *js;

	if (!th_have_program("node"))
		th_skip("node is not installed (Debian package nodejs)");
	js = node_script();
	/* node writes jit-PID.dump (and its isolate-*-v8.log) in its working
	 * directory: the tests' folder (perf inject writes its jitted-PID-N.so
	 * files there too). -k monotonic:
	 * the dump's clock, which perf inject --jit requires. */
	snprintf(command, sizeof(command),
		 "sh -c 'cd %s && exec node --perf-prof --allow-natives-syntax %s'", dir, js);
	expect_parity(&(struct workload){"nodedump", "-k monotonic -g -e cpu-clock -F 1000", command,
					 NULL, NULL, true});
	expect_named("nodedump.perf.data", "jitted-");
	expect_named("nodedump.perfev.data", "jitted-");
	free(js);
}

Test(parity, short_lived_command)
{
	expect_parity(&(struct workload){ "short", "-e page-faults -c 1", "/bin/true", NULL, NULL, false });
}

Test(parity, page_faults_every_1000)
{
	expect_parity(&(struct workload){ "faults", "-g -e page-faults -c 1000",
					  "%s/parity_work touch 64", NULL, NULL, false });
}

Test(parity, group)
{
	expect_parity(&(struct workload){ "group", "-e '{cpu-clock,task-clock}'",
					  "%s/parity_work libs 200", NULL, NULL, false });
}
