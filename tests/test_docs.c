/* SPDX-License-Identifier: MIT */
/*
 * test_docs.c - the documentation agrees with the code it describes.
 *
 * Mechanical checks, each naming every gap it finds: the options each
 * command's --help lists are those of its man page, and the command accepts
 * them; docs/ERRORS.md's rule table and validate.c's "rule N" checks return
 * the same code for the same field; every manual page renders without a
 * groff warning; every function libperfev.so exports is on a section 3
 * page, every public header has one, and their examples compile; meson
 * install puts the pages in place and the installed headers and pages name
 * only installed documents.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

/*
 * One timeout for the whole suite: Criterion 2.4's runner leaks 48 bytes
 * (LeakSanitizer fails the run) when the tests of a file have different
 * timeouts of their own.
 */
TestSuite(docs, .timeout = 120);

/* ---- small tools --------------------------------------------------------- */

/* A list of distinct strings. */
struct names {
	char **v;
	size_t n;
};

static bool names_has(const struct names *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], name) == 0)
			return true;
	return false;
}

static void names_add_len(struct names *s, const char *name, size_t len)
{
	char *copy = strndup(name, len);

	cr_assert_not_null(copy);
	if (names_has(s, copy)) {
		free(copy);
		return;
	}
	s->v = realloc(s->v, (s->n + 1) * sizeof(*s->v));
	cr_assert_not_null(s->v);
	s->v[s->n++] = copy;
}

static void names_add(struct names *s, const char *name)
{
	names_add_len(s, name, strlen(name));
}

static void names_free(struct names *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

/* The names of a that b lacks, as one line ("" when none). */
static char *missing(const struct names *a, const struct names *b)
{
	size_t size = 1;
	for (size_t i = 0; i < a->n; i++)
		size += strlen(a->v[i]) + 1;
	char *out = calloc(1, size);
	cr_assert_not_null(out);
	for (size_t i = 0; i < a->n; i++) {
		if (names_has(b, a->v[i]))
			continue;
		if (out[0])
			strcat(out, " ");
		strcat(out, a->v[i]);
	}
	return out;
}

static const char *env(const char *name)
{
	const char *v = getenv(name);

	cr_assert(v && *v, "%s is not set (run the tests through meson test)", name);
	return v;
}

static char *source_path(const char *rel)
{
	return th_path_join(env("PERFEV_SOURCE_ROOT"), rel);
}

/* The files of dir whose names end with suffix, sorted, as full paths. */
static void list_dir(const char *dir, const char *suffix, struct names *out)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort);

	cr_assert_geq(n, 0, "cannot list %s", dir);
	for (int i = 0; i < n; i++) {
		size_t len = strlen(ents[i]->d_name), sl = strlen(suffix);
		if (len > sl && strcmp(ents[i]->d_name + len - sl, suffix) == 0) {
			char *p = th_path_join(dir, ents[i]->d_name);
			names_add(out, p);
			free(p);
		}
		free(ents[i]);
	}
	free(ents);
}

/* Removes roff's font changes, \- and \& so that option names read plainly. */
static void unroff(char *s)
{
	char *w = s;

	for (char *r = s; *r;) {
		if (r[0] == '\\' && r[1] == 'f' && r[2]) {
			r += 3;
		} else if (r[0] == '\\' && (r[1] == '-' || r[1] == '&' || r[1] == '%')) {
			if (r[1] == '-')
				*w++ = '-';
			r += 2;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

/* Adds every option name of text: "--long-name", or "-x" (one character). */
static void scan_options(const char *text, struct names *out)
{
	for (const char *p = text; *p; p++) {
		if (*p != '-' || (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_' ||
					      p[-1] == '-')))
			continue;
		const char *q = p + 1;
		if (*q == '-')
			q++;
		if (!isalnum((unsigned char)*q))
			continue;
		const char *e = q;
		while (isalnum((unsigned char)*e) || *e == '-')
			e++;
		if (q - p == 2 || e - q == 1)
			names_add_len(out, p, (size_t)(e - p));
		p = e - 1;
	}
}

/* The options a man page names: in SYNOPSIS, and in the tag line of each
 * OPTIONS entry (the line after .TP or .TQ). */
static void man_options(const char *path, struct names *out)
{
	char *text = th_slurp(path, NULL), *save = NULL;
	char section[64] = "";
	bool tag = false;

	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, ".SH", 3) == 0) {
			snprintf(section, sizeof(section), "%s", line + 4);
			tag = false;
			continue;
		}
		if (strcmp(section, "SYNOPSIS") == 0 || (strcmp(section, "OPTIONS") == 0 && tag)) {
			unroff(line);
			scan_options(line, out);
		}
		tag = strncmp(line, ".TP", 3) == 0 || strncmp(line, ".TQ", 3) == 0;
	}
	free(text);
}

/* The command a man page describes: perfev-NAME.1 -> NAME; NULL for perfev.1. */
static char *command_of(const char *page)
{
	const char *base = strrchr(page, '/') ? strrchr(page, '/') + 1 : page;

	if (strncmp(base, "perfev-", 7) != 0)
		return NULL;
	return strndup(base + 7, strlen(base + 7) - 2);
}

/* ---- --help and the man pages --------------------------------------------- */

Test(docs, help_lists_every_option_of_the_man_page_and_no_other)
{
	char *dir = source_path("docs/man");
	struct names pages = {0};
	int commands = 0;

	list_dir(dir, ".1", &pages);
	for (size_t i = 0; i < pages.n; i++) {
		char *cmd = command_of(pages.v[i]);
		if (!cmd)
			continue;
		struct names man = {0}, help = {0};
		struct th_output r = th_perfev(cmd, "--help");
		cr_expect_eq(r.status, 0, "perfev %s --help: status %d", cmd, r.status);
		man_options(pages.v[i], &man);
		scan_options(r.out, &help);
		char *lacks = missing(&man, &help), *extra = missing(&help, &man);
		cr_expect_str_eq(lacks, "", "perfev %s --help lacks what its man page lists: %s", cmd,
				 lacks);
		cr_expect_str_eq(extra, "", "perfev-%s.1 lacks what --help lists: %s", cmd, extra);
		cr_expect_geq(man.n, 2, "perfev-%s.1: %zu options found", cmd, man.n);
		free(lacks);
		free(extra);
		names_free(&man);
		names_free(&help);
		th_output_free(&r);
		free(cmd);
		commands++;
	}
	cr_expect_geq(commands, 6, "man pages of %d commands", commands);
	names_free(&pages);
	free(dir);
}

/* The options cli/cmd_NAME.c passes to getopt_long: {"name", ...} entries and
 * the short-option string (a command's '-' is '_' in its file name). */
static void accepted_options(const char *cmd, struct names *out)
{
	char rel[64];
	snprintf(rel, sizeof(rel), "cli/cmd_%s.c", cmd);
	for (char *c = rel + 8; *c; c++)
		if (*c == '-')
			*c = '_';
	char *path = source_path(rel), *src = th_slurp(path, NULL);

	for (const char *p = src; (p = strstr(p, "{\"")); p += 2) {
		const char *q = p + 2, *e = strchr(q, '"');
		if (!e || e[1] != ',')
			continue;
		char name[64];
		snprintf(name, sizeof(name), "--%.*s", (int)(e - q), q);
		names_add(out, name);
	}
	const char *g = strstr(src, "getopt_long(");
	cr_assert_not_null(g, "%s: no getopt_long call", path);
	const char *q = strchr(g, '"');
	cr_assert_not_null(q);
	for (q++; *q && *q != '"'; q++) {
		if (isalnum((unsigned char)*q)) {
			char name[3] = {'-', *q, '\0'};
			names_add(out, name);
		}
	}
	free(src);
	free(path);
}

Test(docs, every_documented_option_is_accepted)
{
	char *dir = source_path("docs/man");
	struct names pages = {0};

	list_dir(dir, ".1", &pages);
	for (size_t i = 0; i < pages.n; i++) {
		char *cmd = command_of(pages.v[i]);
		if (!cmd)
			continue;
		struct names man = {0}, accepted = {0};
		man_options(pages.v[i], &man);
		accepted_options(cmd, &accepted);
		char *unknown = missing(&man, &accepted);
		cr_expect_str_eq(unknown, "", "perfev-%s.1 documents options cli/cmd_%s.c does not "
					      "accept: %s",
				 cmd, cmd, unknown);
		free(unknown);
		names_free(&man);
		names_free(&accepted);
		free(cmd);
	}
	names_free(&pages);
	free(dir);
}

Test(docs, perfev_1_names_every_command_page)
{
	char *dir = source_path("docs/man"), *main_page = source_path("docs/man/perfev.1");
	char *text = th_slurp(main_page, NULL);
	struct names pages = {0};
	const char *see_also = strstr(text, ".SH SEE ALSO");

	cr_assert_not_null(see_also, "perfev.1 has no SEE ALSO");
	list_dir(dir, ".1", &pages);
	for (size_t i = 0; i < pages.n; i++) {
		char *cmd = command_of(pages.v[i]), ref[96];
		size_t k;
		if (!cmd)
			continue;
		k = (size_t)snprintf(ref, sizeof(ref), ".BR perfev\\-");
		for (const char *c = cmd; *c && k + 3 < sizeof(ref); c++) { /* roff's \- for each - */
			if (*c == '-')
				ref[k++] = '\\';
			ref[k++] = *c;
		}
		snprintf(ref + k, sizeof(ref) - k, " (1)");
		cr_expect_not_null(strstr(see_also, ref), "perfev.1's SEE ALSO lacks %s", ref);
		free(cmd);
	}
	cr_expect_not_null(strstr(see_also, ".BR libperfev (3)"), "perfev.1 lacks libperfev(3)");
	names_free(&pages);
	free(text);
	free(main_page);
	free(dir);
}

/* ---- ERRORS.md's rule table and validate.c -------------------------------- */

/* What one rule returns and names, from either side. */
struct rule {
	int id;
	struct names codes;  /* PEV_E* */
	struct names fields; /* attribute or argument names */
};

static void add_codes(const char *text, size_t len, struct names *out)
{
	for (const char *p = text; (p = strstr(p, "PEV_E")) && p < text + len; p++) {
		const char *e = p + 5;
		while (isupper((unsigned char)*e) || isdigit((unsigned char)*e))
			e++;
		if (*e != '_' && e > p + 5)
			names_add_len(out, p, (size_t)(e - p));
	}
}

/* The rows "| N | when | returns | field |" of ERRORS.md's rule tables. */
static size_t table_rules(struct rule *rules, size_t max)
{
	char *path = source_path("docs/ERRORS.md"), *text = th_slurp(path, NULL), *save = NULL;
	bool in_rules = false;
	size_t n = 0;

	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "## ", 3) == 0)
			in_rules = strstr(line, "Rules checked before the syscall") != NULL;
		int id;
		if (!in_rules || sscanf(line, "| %d |", &id) != 1)
			continue;
		/* The last two cells: returns, field. */
		char *end = strrchr(line, '|');
		*end = '\0';
		char *field = strrchr(line, '|');
		*field++ = '\0';
		char *returns = strrchr(line, '|') + 1;
		cr_assert_lt(n, max);
		rules[n] = (struct rule){.id = id};
		add_codes(returns, strlen(returns), &rules[n].codes);
		for (char *p = field; (p = strchr(p, '`'));) {
			char *e = strchr(p + 1, '`');
			cr_assert_not_null(e, "rule %d: unbalanced ` in %s", id, field);
			names_add_len(&rules[n].fields, p + 1, (size_t)(e - p - 1));
			p = e + 1;
		}
		n++;
	}
	free(text);
	free(path);
	return n;
}

/* The checks of validate.c, each from its "rule N" comment to the end of its
 * bad_field() statement: the PEV_E* codes and the string literals there. */
static size_t code_rules(struct rule *rules, size_t max)
{
	char *path = source_path("src/core/validate.c"), *src = th_slurp(path, NULL);
	const char *marker = "/* rule ";
	size_t n = 0;

	for (const char *p = src; (p = strstr(p, marker)); p++) {
		const char *call = strstr(p, "bad_field(err");
		cr_assert_not_null(call);
		const char *end = strchr(call, ';');
		int id = atoi(p + strlen(marker));
		cr_assert_lt(n, max);
		rules[n] = (struct rule){.id = id};
		/* Skip the comments in the span, read codes and literals from the rest. */
		const char *q = strstr(p, "*/") + 2;
		while (q < end) {
			if (q[0] == '/' && q[1] == '*') {
				q = strstr(q, "*/") + 2;
			} else if (*q == '"') {
				const char *e = strchr(q + 1, '"');
				names_add_len(&rules[n].fields, q + 1, (size_t)(e - q - 1));
				q = e + 1;
			} else {
				const char *next = q + 1;
				if (strncmp(q, "PEV_E", 5) == 0) {
					add_codes(q, 1, &rules[n].codes);
					while (isalnum((unsigned char)*next) || *next == '_')
						next++;
				}
				q = next;
			}
		}
		n++;
	}
	free(src);
	free(path);
	return n;
}

static const struct rule *rule_by_id(const struct rule *rules, size_t n, int id)
{
	for (size_t i = 0; i < n; i++)
		if (rules[i].id == id)
			return &rules[i];
	return NULL;
}

Test(docs, the_rule_table_matches_validate_c)
{
	struct rule table[64], code[64];
	size_t nt = table_rules(table, 64), nc = code_rules(code, 64);

	cr_expect_geq(nt, 30, "%zu rows in ERRORS.md's rule tables", nt);
	cr_expect_eq(nt, nc, "ERRORS.md has %zu rules, validate.c %zu", nt, nc);
	for (size_t i = 0; i < nc; i++) {
		const struct rule *c = &code[i], *t = rule_by_id(table, nt, c->id);
		cr_expect_not_null(t, "validate.c's rule %d is not in ERRORS.md's table", c->id);
		cr_expect_null(rule_by_id(code, i, c->id), "validate.c marks rule %d twice", c->id);
		if (!t)
			continue;
		char *a = missing(&c->codes, &t->codes), *b = missing(&t->codes, &c->codes);
		char *f = missing(&c->fields, &t->fields), *g = missing(&t->fields, &c->fields);
		cr_expect(!a[0] && !b[0], "rule %d: validate.c returns %s, ERRORS.md says %s", c->id,
			  a[0] ? a : "as ERRORS.md", b[0] ? b : "as validate.c");
		cr_expect(!f[0] && !g[0], "rule %d: validate.c names field %s, ERRORS.md %s", c->id,
			  f[0] ? f : "as ERRORS.md", g[0] ? g : "as validate.c");
		free(a);
		free(b);
		free(f);
		free(g);
	}
	for (size_t i = 0; i < nt; i++)
		cr_expect_not_null(rule_by_id(code, nc, table[i].id),
				   "ERRORS.md's rule %d is not marked in validate.c", table[i].id);
	for (size_t i = 0; i < nt; i++) {
		names_free(&table[i].codes);
		names_free(&table[i].fields);
	}
	for (size_t i = 0; i < nc; i++) {
		names_free(&code[i].codes);
		names_free(&code[i].fields);
	}
}

/* ---- rendering -------------------------------------------------------------- */

static void expect_renders_cleanly(const char *page)
{
	char cmd[1024], *out = NULL, *err = NULL;

	snprintf(cmd, sizeof(cmd), "groff -ww -z -man -Tutf8 '%s'", page);
	int status = th_sh(cmd, &out, &err);
	cr_expect_eq(status, 0, "groff %s: status %d", page, status);
	cr_expect_str_eq(err, "", "%s renders with warnings:\n%s", page, err);
	free(out);
	free(err);
}

Test(docs, every_man_page_renders_without_warnings)
{
	char *dir = source_path("docs/man");
	struct names pages = {0};

	if (!th_have_program("groff"))
		th_skip("groff is not installed (scripts/install-deps.sh installs groff-base)");
	list_dir(dir, ".1", &pages);
	list_dir(env("PERFEV_MAN3_DIR"), ".3", &pages);
	cr_expect_geq(pages.n, 30, "%zu pages", pages.n);
	for (size_t i = 0; i < pages.n; i++)
		expect_renders_cleanly(pages.v[i]);
	names_free(&pages);
	free(dir);
}

/* ---- section 3 ------------------------------------------------------------- */

Test(docs, every_public_header_has_a_man3_page)
{
	char *dir = source_path("include/perfev");
	struct names headers = {0};

	list_dir(dir, ".h", &headers);
	cr_expect_geq(headers.n, 20);
	for (size_t i = 0; i < headers.n; i++) {
		const char *base = strrchr(headers.v[i], '/') + 1;
		char page[96], example[160];
		snprintf(page, sizeof(page), "%s/perfev_%.*s.3", env("PERFEV_MAN3_DIR"),
			 (int)strlen(base) - 2, base);
		snprintf(example, sizeof(example), "docs/man/examples/%.*s.c", (int)strlen(base) - 2,
			 base);
		char *ex = source_path(example);
		cr_expect_eq(access(page, R_OK), 0, "include/perfev/%s has no page %s: add it to "
						    "man3_headers in docs/meson.build",
			     base, page);
		cr_expect_eq(access(ex, R_OK), 0, "include/perfev/%s has no example %s", base, example);
		free(ex);
	}
	names_free(&headers);
	free(dir);
}

Test(docs, every_exported_function_is_on_a_man3_page)
{
	char cmd[1024];
	struct names pages = {0}, missing_fns = {0};
	size_t exported = 0;

	if (!th_have_program("nm"))
		th_skip("nm (binutils) is not installed");
	list_dir(env("PERFEV_MAN3_DIR"), ".3", &pages);
	char **texts = calloc(pages.n, sizeof(*texts));
	cr_assert_not_null(texts);
	for (size_t i = 0; i < pages.n; i++) {
		texts[i] = th_slurp(pages.v[i], NULL);
		unroff(texts[i]);
	}
	snprintf(cmd, sizeof(cmd), "nm -D --defined-only '%s'", env("PERFEV_SHARED_LIBRARY"));
	char *syms = th_sh_ok(cmd), *save = NULL;
	for (char *line = strtok_r(syms, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char type, name[256];
		if (sscanf(line, "%*s %c %255s", &type, name) != 2 || type != 'T')
			continue;
		name[strcspn(name, "@")] = '\0';
		exported++;
		bool found = false;
		size_t len = strlen(name);
		for (size_t i = 0; i < pages.n && !found; i++) {
			for (const char *p = texts[i]; (p = strstr(p, name)); p++) {
				bool left = p == texts[i] || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
				bool right = !(isalnum((unsigned char)p[len]) || p[len] == '_');
				if (left && right) {
					found = true;
					break;
				}
			}
		}
		if (!found)
			names_add(&missing_fns, name);
	}
	struct names none = {0};
	char *list = missing(&missing_fns, &none);
	cr_expect_gt(exported, 100, "%zu exported functions", exported);
	cr_expect_str_eq(list, "", "exported but on no man3 page (declare them with PEV_API in a "
				   "public header; scripts/gen_man3.py lists what headers declare): %s",
			 list);
	free(list);
	free(syms);
	for (size_t i = 0; i < pages.n; i++)
		free(texts[i]);
	free(texts);
	names_free(&missing_fns);
	names_free(&pages);
}

/* The TYPES sections give each struct member its meaning: scripts/gen_man3.py reads them. */
Test(docs, every_public_struct_member_has_a_doc_comment)
{
	char cmd[2048], *scripts = source_path("scripts"), *inc = source_path("include/perfev");

	if (!th_have_program("python3"))
		th_skip("python3 is not installed");
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import sys, glob; sys.path.insert(0, sys.argv[1]); import gen_man3\n"
		 "for h in sorted(glob.glob(sys.argv[2] + \"/*.h\")):\n"
		 "    for name, doc, fields in gen_man3.Header(h).types:\n"
		 "        bare = [d for d, n in fields if not n and not name.startswith(\"enum\")]\n"
		 "        if bare: print(h.rsplit(\"/\", 1)[1], name + \":\", \", \".join(bare))' "
		 "'%s' '%s'",
		 scripts, inc);
	char *out = th_sh_ok(cmd);
	cr_expect_str_eq(out, "", "members without a doc comment (/**< ... */ after, or /** */ "
				  "before; their man page's TYPES says \"(undocumented)\"):\n%s",
			 out);
	free(out);
	free(inc);
	free(scripts);
}

Test(docs, every_man3_example_compiles)
{
	char *dir = source_path("docs/man/examples"), *inc = source_path("include");
	struct names examples = {0};
	const char *cc = getenv("CC") && *getenv("CC") ? getenv("CC") : "cc";

	if (!th_have_program(cc))
		th_skip("no C compiler '%s'", cc);
	list_dir(dir, ".c", &examples);
	cr_expect_geq(examples.n, 20);
	for (size_t i = 0; i < examples.n; i++) {
		char cmd[2048], *out = NULL, *err = NULL;
		snprintf(cmd, sizeof(cmd),
			 "%s -std=gnu11 -Wall -Wextra -Werror -I'%s' -c -o /dev/null '%s'", cc, inc,
			 examples.v[i]);
		int status = th_sh(cmd, &out, &err);
		cr_expect_eq(status, 0, "%s does not compile:\n%s", examples.v[i], err);
		free(out);
		free(err);
	}
	names_free(&examples);
	free(inc);
	free(dir);
}

/* ---- meson install ------------------------------------------------------------ */

/* The installed file whose path ends with suffix, from find's list, or NULL. */
static const char *installed(const struct names *files, const char *suffix)
{
	size_t sl = strlen(suffix);

	for (size_t i = 0; i < files->n; i++) {
		size_t len = strlen(files->v[i]);
		if (len >= sl && strcmp(files->v[i] + len - sl, suffix) == 0)
			return files->v[i];
	}
	return NULL;
}

/* Every "X.md" text names must be installed as .../doc/perfev/X.md, and no
 * path into the source tree (docs/X.md) may be named. */
static void expect_installed_references(const char *path, const struct names *files)
{
	char *text = th_slurp(path, NULL);

	/* roff comment lines (the generator's note on its sources) are not shown. */
	for (char *c = text; (c = strstr(c, ".\\\"")) != NULL;) {
		if (c == text || c[-1] == '\n') {
			char *e = strchr(c, '\n');
			memset(c, ' ', e ? (size_t)(e - c) : strlen(c));
		}
		c += 3;
	}
	unroff(text);
	cr_expect_null(strstr(text, "docs/"), "%s names a source-tree path: %s", path,
		       strstr(text, "docs/"));
	for (const char *p = text; (p = strstr(p, ".md")); p += 3) {
		const char *b = p;
		while (b > text && (isalnum((unsigned char)b[-1]) || b[-1] == '_'))
			b--;
		if (b == p)
			continue;
		char suffix[96];
		snprintf(suffix, sizeof(suffix), "/doc/perfev/%.*s.md", (int)(p - b), b);
		cr_expect_not_null(installed(files, suffix), "%s names %.*s.md, which is not installed",
				   path, (int)(p - b) + 3, b);
	}
	free(text);
}

Test(docs, meson_install_puts_the_pages_and_documents_in_place)
{
	char cmd[2048], *dir = source_path("docs/man");
	const char *dest = th_temp_dir("install");
	struct names files = {0}, pages = {0};

	if (!th_have_program("meson"))
		th_skip("meson is not installed");
	snprintf(cmd, sizeof(cmd),
		 "meson install -C '%s' --no-rebuild --quiet --destdir '%s' --tags man,doc,devel "
		 ">/dev/null && find '%s' -type f",
		 env("PERFEV_BUILD_ROOT"), dest, dest);
	char *list = th_sh_ok(cmd), *save = NULL;
	for (char *l = strtok_r(list, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		names_add(&files, l);
	free(list);

	list_dir(dir, ".1", &pages);
	list_dir(env("PERFEV_MAN3_DIR"), ".3", &pages);
	for (size_t i = 0; i < pages.n; i++) {
		const char *base = strrchr(pages.v[i], '/');
		char suffix[128];
		snprintf(suffix, sizeof(suffix), "/share/man/man%c%s", base[strlen(base) - 1], base);
		const char *at = installed(&files, suffix);
		cr_expect_not_null(at, "meson install did not put %s in place (*%s)", base + 1, suffix);
		if (at)
			expect_installed_references(at, &files);
	}
	cr_expect_not_null(installed(&files, "/share/man/man3/libperfev.3"));
	size_t headers = 0;
	for (size_t i = 0; i < files.n; i++) {
		size_t len = strlen(files.v[i]);
		if (len > 2 && strcmp(files.v[i] + len - 2, ".h") == 0 &&
		    strstr(files.v[i], "/include/")) {
			expect_installed_references(files.v[i], &files);
			headers++;
		}
	}
	cr_expect_geq(headers, 20, "%zu headers installed", headers);
	names_free(&pages);
	names_free(&files);
	free(dir);
}
