/* SPDX-License-Identifier: MIT */
/*
 * test_layers.c - the library's layers point only down.
 *
 * src/LAYERS names the folders of src/, bottom up, one per line; it is the
 * only place the order is written (src/meson.build reads it too). Each
 * folder may use itself and the folders before it. Two checks:
 * - the #include lines of src/: a file of folder F includes only public
 *   headers ("perfev.h", "perfev/...") and "G/..." for a folder G at or
 *   below F;
 * - the objects of the built library: a symbol an object of folder F uses
 *   is defined by an object of F or of a folder below it (what the includes
 *   cannot show: a call through a public header).
 * The checkers also run on a small tree made here with a known violation,
 * so the test fails when a checker stops finding them.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers.h"

#define MAX_LAYERS  16
#define MAX_SYMBOLS 8192

struct layers {
	int n;
	char name[MAX_LAYERS][32];
};

/* Violations found, one message per line. */
struct findings {
	int n;
	char text[16384];
};

/* Copies src into dst (size bytes), cut short when it does not fit. */
static void copy_str(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void found(struct findings *f, const char *fmt, ...)
{
	size_t used = strlen(f->text);
	va_list ap;

	f->n++;
	if (used + 2 >= sizeof(f->text))
		return;
	va_start(ap, fmt);
	vsnprintf(f->text + used, sizeof(f->text) - used - 1, fmt, ap);
	va_end(ap);
	strcat(f->text, "\n");
}

/* Reads SRC/LAYERS. Returns the number of layers, 0 when unreadable. */
static int read_layers(const char *src, struct layers *l)
{
	char path[4096], line[128];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/LAYERS", src);
	l->n = 0;
	if (!(fp = fopen(path, "r")))
		return 0;
	while (fgets(line, sizeof(line), fp) && l->n < MAX_LAYERS) {
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0])
			copy_str(l->name[l->n++], sizeof(l->name[0]), line);
	}
	fclose(fp);
	return l->n;
}

/* The rank of layer `name` (its first `len` bytes), or -1 when it is none. */
static int rank_of(const struct layers *l, const char *name, size_t len)
{
	for (int i = 0; i < l->n; i++)
		if (strlen(l->name[i]) == len && strncmp(l->name[i], name, len) == 0)
			return i;
	return -1;
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Checks the quoted includes of one file of layer `rank`. */
static void check_file_includes(const struct layers *l, int rank, const char *path,
                                const char *shown, struct findings *f)
{
	char line[1024];
	int lineno = 0;
	FILE *fp = fopen(path, "r");

	if (!fp) {
		found(f, "%s: cannot read: %s", shown, strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), fp)) {
		const char *p = line, *q, *slash;
		int target;

		lineno++;
		while (isspace((unsigned char)*p))
			p++;
		if (*p++ != '#')
			continue;
		while (isspace((unsigned char)*p))
			p++;
		if (strncmp(p, "include", 7) != 0)
			continue;
		p += 7;
		while (isspace((unsigned char)*p))
			p++;
		if (*p++ != '"' || !(q = strchr(p, '"')))
			continue; /* <system> headers */
		if ((size_t)(q - p) == strlen("perfev.h") && strncmp(p, "perfev.h", 8) == 0)
			continue;
		if (strncmp(p, "perfev/", 7) == 0)
			continue;
		slash = memchr(p, '/', (size_t)(q - p));
		if (!slash) {
			found(f, "%s:%d: includes \"%.*s\" without its folder (write \"%s/%.*s\")",
			      shown, lineno, (int)(q - p), p, l->name[rank], (int)(q - p), p);
			continue;
		}
		target = rank_of(l, p, (size_t)(slash - p));
		if (target < 0)
			found(f, "%s:%d: includes \"%.*s\": '%.*s' is not a folder of src/LAYERS",
			      shown, lineno, (int)(q - p), p, (int)(slash - p), p);
		else if (target > rank)
			found(f, "%s:%d: %s includes \"%.*s\" from %s, a layer above it", shown,
			      lineno, l->name[rank], (int)(q - p), p, l->name[target]);
	}
	fclose(fp);
}

/*
 * Checks every folder and file of SRC: each folder is a layer, no C file
 * lies loose in SRC, and each file's includes point down. Returns the
 * number of findings.
 */
static int check_tree(const char *src, struct findings *f)
{
	struct layers l;
	struct dirent *de;
	char path[4096], shown[512];
	DIR *d;

	if (read_layers(src, &l) == 0) {
		found(f, "%s/LAYERS: missing or empty", src);
		return f->n;
	}
	if (!(d = opendir(src))) {
		found(f, "%s: cannot open: %s", src, strerror(errno));
		return f->n;
	}
	while ((de = readdir(d))) {
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", src, de->d_name);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			if (rank_of(&l, de->d_name, strlen(de->d_name)) < 0)
				found(f, "src/%s/: a folder that src/LAYERS does not list",
				      de->d_name);
		} else if (has_suffix(de->d_name, ".c") || has_suffix(de->d_name, ".h")) {
			found(f, "src/%s: a source file outside the layer folders", de->d_name);
		}
	}
	closedir(d);

	for (int r = 0; r < l.n; r++) {
		snprintf(path, sizeof(path), "%s/%s", src, l.name[r]);
		if (!(d = opendir(path))) {
			found(f, "src/%s/: listed in src/LAYERS but missing", l.name[r]);
			continue;
		}
		while ((de = readdir(d))) {
			if (!has_suffix(de->d_name, ".c") && !has_suffix(de->d_name, ".h"))
				continue;
			snprintf(path, sizeof(path), "%s/%s/%s", src, l.name[r], de->d_name);
			snprintf(shown, sizeof(shown), "src/%s/%s", l.name[r], de->d_name);
			check_file_includes(&l, r, path, shown, f);
		}
		closedir(d);
	}
	return f->n;
}

struct symbol {
	char name[128];
	int rank;
};

struct symbols {
	int n;
	struct symbol s[MAX_SYMBOLS];
};

/*
 * The layer of an archive member: meson names the object of src/L/x.c
 * "L_x.c.o". Returns -1 when the name starts with no layer.
 */
static int member_rank(const struct layers *l, const char *member)
{
	const char *u = strchr(member, '_');
	return u ? rank_of(l, member, (size_t)(u - member)) : -1;
}

/*
 * Reads `nm -A ARCHIVE` and checks that every symbol an object uses from
 * another object of the archive is defined in its own layer or below.
 * Returns the number of findings.
 */
static int check_archive(const struct layers *l, const char *archive, struct findings *f)
{
	static struct symbols defs;
	char cmd[4200], member[256], type, name[512];
	struct {
		char member[96];
		char name[128];
		int rank;
	} *uses = calloc(MAX_SYMBOLS * 4, sizeof(*uses));
	int nuses = 0, members = 0;
	char *out, *line, *save = NULL;

	cr_assert_not_null(uses);
	defs.n = 0;
	snprintf(cmd, sizeof(cmd), "nm -A '%s'", archive);
	out = th_sh_ok(cmd);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/*
		 * "ARCHIVE:MEMBER: U name" or "ARCHIVE:MEMBER:0000000000000000 T name";
		 * a thin archive's MEMBER is a path.
		 */
		size_t alen = strlen(archive);
		char *m, *colon, *rest, *base;
		int rank;

		if (strncmp(line, archive, alen) != 0 || line[alen] != ':')
			continue;
		m = line + alen + 1;
		if (!(colon = strchr(m, ':')))
			continue;
		*colon = '\0';
		base = strrchr(m, '/') ? strrchr(m, '/') + 1 : m;
		copy_str(member, sizeof(member), base);
		rest = colon + 1;
		if (sscanf(rest, " U %511s", name) == 1)
			type = 'U';
		else if (sscanf(rest, " %*x %c %511s", &type, name) != 2)
			continue;
		rank = member_rank(l, member);
		if (rank < 0) {
			found(f, "%s: an object whose name starts with no layer", member);
			continue;
		}
		members++;
		if (type == 'U') {
			if (nuses < MAX_SYMBOLS * 4) {
				copy_str(uses[nuses].member, sizeof(uses[0].member), member);
				copy_str(uses[nuses].name, sizeof(uses[0].name), name);
				uses[nuses++].rank = rank;
			}
		} else if (isupper((unsigned char)type) && defs.n < MAX_SYMBOLS) {
			copy_str(defs.s[defs.n].name, sizeof(defs.s[0].name), name);
			defs.s[defs.n++].rank = rank;
		}
	}
	free(out);
	cr_assert_gt(members, 0, "nm found no objects in %s", archive);
	for (int i = 0; i < nuses; i++)
		for (int j = 0; j < defs.n; j++)
			if (strcmp(uses[i].name, defs.s[j].name) == 0 &&
			    defs.s[j].rank > uses[i].rank)
				found(f, "%s (%s) uses %s, defined in %s, a layer above it",
				      uses[i].member, l->name[uses[i].rank], uses[i].name,
				      l->name[defs.s[j].rank]);
	free(uses);
	return f->n;
}

static const char *need_env(const char *name)
{
	const char *v = getenv(name);
	cr_assert(v && *v, "%s is not set (meson test sets it)", name);
	return v;
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	cr_assert_not_null(fp = fopen(path, "w"), "%s: %s", path, strerror(errno));
	fputs(text, fp);
	fclose(fp);
}

Test(layers, src_includes_point_down)
{
	char src[4096];
	struct findings f = {0};

	snprintf(src, sizeof(src), "%s/src", need_env("PERFEV_SOURCE_ROOT"));
	check_tree(src, &f);
	cr_expect_eq(f.n, 0, "%d layering violation(s) in src/:\n%s", f.n, f.text);
}

Test(layers, library_objects_use_only_lower_layers)
{
	char src[4096];
	struct layers l;
	struct findings f = {0};

	snprintf(src, sizeof(src), "%s/src", need_env("PERFEV_SOURCE_ROOT"));
	cr_assert_gt(read_layers(src, &l), 0);
	check_archive(&l, need_env("PERFEV_OBJECTS_ARCHIVE"), &f);
	cr_expect_eq(f.n, 0, "%d object(s) use a layer above their own:\n%s", f.n, f.text);
}

/* The include checker on a made-up tree: each kind of violation is found. */
Test(layers, include_checker_finds_violations)
{
	const char *root = th_temp_dir("layers");
	char src[4096], dir[4200];
	struct findings f = {0};

	snprintf(src, sizeof(src), "%s/src", root);
	cr_assert_eq(mkdir(src, 0755), 0);
	write_file(src, "LAYERS", "low\nhigh\n");
	snprintf(dir, sizeof(dir), "%s/low", src);
	cr_assert_eq(mkdir(dir, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/high", src);
	cr_assert_eq(mkdir(dir, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/low", src);
	write_file(dir, "ok.c",
	           "#include <stdio.h>\n#include \"perfev/event.h\"\n"
	           "#include \"low/ok.h\"\n");
	write_file(dir, "up.c", "#include \"low/ok.h\"\n  #  include \"high/api.h\"\n");
	write_file(dir, "bare.h", "#include \"ok.h\"\n");
	snprintf(dir, sizeof(dir), "%s/high", src);
	write_file(dir, "api.h", "#include \"low/ok.h\"\n#include \"nowhere/x.h\"\n");

	check_tree(src, &f);
	cr_assert_eq(f.n, 3, "expected 3 findings, got %d:\n%s", f.n, f.text);
	cr_expect(strstr(f.text, "src/low/up.c:2: low includes \"high/api.h\" from high"), "%s",
	          f.text);
	cr_expect(strstr(f.text, "src/low/bare.h:1: includes \"ok.h\" without its folder"), "%s",
	          f.text);
	cr_expect(strstr(f.text, "'nowhere' is not a folder of src/LAYERS"), "%s", f.text);

	/* A loose source file and an unlisted folder are findings too. */
	memset(&f, 0, sizeof(f));
	write_file(src, "loose.c", "int x;\n");
	snprintf(dir, sizeof(dir), "%s/extra", src);
	cr_assert_eq(mkdir(dir, 0755), 0);
	check_tree(src, &f);
	cr_expect(strstr(f.text, "src/loose.c: a source file outside the layer folders"), "%s",
	          f.text);
	cr_expect(strstr(f.text, "src/extra/: a folder that src/LAYERS does not list"), "%s",
	          f.text);
}

/* The object checker on a made-up archive: a low object calling up is found. */
Test(layers, object_checker_finds_violations)
{
	if (!th_have_program("cc") || !th_have_program("ar"))
		th_skip("no C compiler or ar to build the objects to check (Debian packages gcc, "
			"binutils)");
	const char *root = th_temp_dir("layers_objs");
	char cmd[8192], archive[4200];
	struct layers l = {.n = 2, .name = {"low", "high"}};
	struct findings f = {0};

	write_file(root, "low_a.c", "int high_fn(void);\nint low_fn(void) { return high_fn(); }\n");
	write_file(root, "high_b.c",
	           "int low_fn(void);\nint high_fn(void) { return 1; }\n"
	           "int high_other(void) { return low_fn(); }\n");
	snprintf(archive, sizeof(archive), "%s/lib.a", root);
	snprintf(cmd, sizeof(cmd),
	         "cd '%s' && cc -c -o low_a.c.o low_a.c && cc -c -o high_b.c.o high_b.c && "
	         "ar rc lib.a low_a.c.o high_b.c.o",
	         root);
	free(th_sh_ok(cmd));

	check_archive(&l, archive, &f);
	cr_assert_eq(f.n, 1, "expected 1 finding, got %d:\n%s", f.n, f.text);
	cr_expect(strstr(f.text, "low_a.c.o (low) uses high_fn, defined in high"), "%s", f.text);
}
