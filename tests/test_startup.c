/* SPDX-License-Identifier: MIT */
/*
 * test_startup.c - what `perfev stat` loads and opens to count a command,
 * which is most of what it costs (docs/BENCHMARKS.md, "perfev stat's own
 * start-up"). No timing: the libraries and files are the figures.
 *
 * perfev calls elfutils, json-c and zlib through stubs that load each
 * library on its first call (cli/lazy_libs.c). `perfev stat -e task-clock
 * true` needs none of them: it must load no library and open no file that
 * `perfev --version` does not, but its output, and `perfev --version` must
 * load none of perfev's heavy dependencies. A library that is missing costs
 * only the features that need it, with a message naming it.
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers.h"

static const char *dir; /* removed when the test's process exits */

static void setup(void)
{
	dir = th_suite_dir("startup");
}

TestSuite(startup, .init = setup);

/* The libraries perfev calls but loads only when a command needs them. */
static const char *const heavy[] = {
	"libelf.so",   "libdw.so",         "libjson-c.so", "libz.so",   "libtraceevent.so",
	"libtracefs.so", "libprotobuf-c.so", "libpfm.so",    "liblzma.so", "libbz2.so",
	"libzstd.so",
};

/* A set of names, one per line, each once: "\nname\n" is a member. */
struct names {
	char text[8192];
};

static void names_add(struct names *s, const char *name, size_t len)
{
	char key[PATH_MAX + 2];

	snprintf(key, sizeof(key), "\n%.*s\n", (int)len, name);
	if (strstr(s->text, key))
		return;
	if (!s->text[0])
		strcpy(s->text, "\n");
	cr_assert_lt(strlen(s->text) + len + 2, sizeof(s->text), "too many names");
	strncat(s->text, name, len);
	strcat(s->text, "\n");
}

/* Prints each name of a that b lacks into out ("" when none). */
static void names_missing(const struct names *a, const struct names *b, char *out, size_t size)
{
	const char *p = a->text;

	out[0] = '\0';
	while (p && *p) {
		const char *end = strchr(p + 1, '\n');
		char key[PATH_MAX + 2];

		if (!end)
			break;
		snprintf(key, sizeof(key), "%.*s", (int)(end - p + 1), p);
		if (end > p + 1 && !strstr(b->text, key))
			snprintf(out + strlen(out), size - strlen(out), "%.*s ", (int)(end - p - 1),
			         p + 1);
		p = end;
	}
}

/*
 * Runs `perfev ARGS` (a shell word list) with LD_DEBUG=files and adds to
 * libs every library the dynamic loader loaded, at start or by dlopen, in
 * any process of the run (the command perfev starts included).
 */
static void loaded_libraries(const char *tag, const char *args, struct names *libs)
{
	char prefix[PATH_MAX], cmd[3 * PATH_MAX];
	DIR *d;
	struct dirent *de;

	snprintf(prefix, sizeof(prefix), "%s/%s", dir, tag);
	cr_assert_eq(mkdir(prefix, 0700), 0);
	snprintf(cmd, sizeof(cmd), "LD_DEBUG=files LD_DEBUG_OUTPUT='%s/ld' '%s' %s", prefix,
	         th_perfev_bin(), args);
	free(th_sh_ok(cmd));
	memset(libs, 0, sizeof(*libs));
	cr_assert_not_null(d = opendir(prefix));
	while ((de = readdir(d))) {
		char path[2 * PATH_MAX], line[1024];
		FILE *f;

		if (strncmp(de->d_name, "ld.", 3) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", prefix, de->d_name);
		cr_assert_not_null(f = fopen(path, "re"));
		/* "  1234:\tfile=libc.so.6 [0];  needed by /usr/bin/true [0]" */
		while (fgets(line, sizeof(line), f)) {
			const char *name = strstr(line, "file=");
			if (name && (strstr(line, "needed by") || strstr(line, "dynamically loaded")))
				names_add(libs, name + 5, strcspn(name + 5, " ["));
		}
		fclose(f);
	}
	closedir(d);
	cr_assert(strstr(libs->text, "\nlibc.so.6\n"), "LD_DEBUG=files showed no libc: %s",
	          libs->text);
}

Test(startup, stat_loads_no_library_a_bare_start_does_not)
{
	struct names bare, stat;
	char extra[2048];

	loaded_libraries("version", "--version", &bare);
	for (size_t i = 0; i < sizeof(heavy) / sizeof(heavy[0]); i++)
		cr_expect(!strstr(bare.text, heavy[i]),
		          "perfev loads %s at start-up: a function of it missing from "
		          "cli/lazy_libs.c? (readelf -d perfev | grep NEEDED) loaded:%s",
		          heavy[i], bare.text);
	loaded_libraries("stat", "stat -e task-clock -x, -o /dev/null true", &stat);
	names_missing(&stat, &bare, extra, sizeof(extra));
	cr_expect_str_empty(extra, "perfev stat -e task-clock true loaded %s", extra);
}

/* Adds to files every path `perfev ARGS` opened or looked for (strace). */
static void opened_files(const char *tag, const char *args, struct names *files)
{
	char trace[PATH_MAX], cmd[3 * PATH_MAX], line[2048];
	FILE *f;

	snprintf(trace, sizeof(trace), "%s/%s.strace", dir, tag);
	/* LeakSanitizer (in sanitized builds) cannot work under ptrace. */
	snprintf(cmd, sizeof(cmd),
	         "ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\" "
	         "strace -qq -e trace=open,openat,openat2,stat,lstat,newfstatat,statx,access,"
	         "readlink,execve -e signal=none -o '%s' '%s' %s",
	         trace, th_perfev_bin(), args);
	free(th_sh_ok(cmd));
	memset(files, 0, sizeof(*files));
	cr_assert_not_null(f = fopen(trace, "re"));
	while (fgets(line, sizeof(line), f)) {
		const char *q = strchr(line, '"');
		if (q && q[1] != '"')
			names_add(files, q + 1, strcspn(q + 1, "\""));
	}
	fclose(f);
}

Test(startup, stat_opens_nothing_but_its_output_and_command)
{
	struct names bare, stat;
	char extra[4096], *bin;

	if (!th_have_program("strace") || th_sh("strace -qq -o /dev/null true", NULL, NULL) != 0)
		th_skip("strace cannot run here");
	opened_files("version", "--version", &bare);
	/* The paths `true` is looked for at, and runs from, are not perfev's choice. */
	names_add(&bare, "true", 4);
	cr_assert_not_null(bin = th_which("true"));
	names_add(&bare, bin, strlen(bin));
	free(bin);
	for (const char *p = getenv("PATH"); p && *p;) {
		size_t len = strcspn(p, ":");
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%.*s/true", (int)len, p);
		names_add(&bare, path, strlen(path));
		p += len + (p[len] == ':');
	}
	opened_files("stat", "stat -e task-clock -x, -o /dev/null true", &stat);
	names_add(&bare, "/dev/null", 9);
	names_missing(&stat, &bare, extra, sizeof(extra));
	cr_expect_str_empty(extra, "perfev stat -e task-clock -o /dev/null true opened %s", extra);
}

/* A directory of files named as the lazy libraries that are no libraries. */
static const char *broken_libraries(void)
{
	static const char *const sonames[] = {"libelf.so.1", "libdw.so.1", "libjson-c.so.5",
	                                       "libz.so.1"};
	const char *broken = th_path_in("broken");

	cr_assert_eq(mkdir(broken, 0700), 0);
	for (size_t i = 0; i < sizeof(sonames) / sizeof(sonames[0]); i++) {
		char path[PATH_MAX];
		FILE *f;
		snprintf(path, sizeof(path), "%s/%s", broken, sonames[i]);
		cr_assert_not_null(f = fopen(path, "we"));
		fputs("not a shared object: stands in for a library that is missing\n", f);
		fclose(f);
	}
	return broken;
}

Test(startup, stat_counts_without_the_lazy_libraries)
{
	char cmd[2 * PATH_MAX], *out = NULL, *err = NULL;
	const char *broken = broken_libraries();

	snprintf(cmd, sizeof(cmd), "LD_LIBRARY_PATH='%s' '%s' stat -e task-clock -x, true",
	         broken, th_perfev_bin());
	cr_assert_eq(th_sh(cmd, &out, &err), 0, "%s: %s", cmd, err);
	expect_has(err, ",task-clock,");
	expect_lacks(err, "warning");
	free(out);
	free(err);
}

Test(startup, json_without_libjson_c_says_what_to_install)
{
	static const char *const commands[] = {"stat --json -e task-clock true", "check --json",
	                                       "list --json"};
	const char *broken = broken_libraries();

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		char cmd[2 * PATH_MAX], *out = NULL, *err = NULL;

		snprintf(cmd, sizeof(cmd), "LD_LIBRARY_PATH='%s' '%s' %s", broken, th_perfev_bin(),
		         commands[i]);
		cr_expect_eq(th_sh(cmd, &out, &err), 1, "%s", commands[i]);
		expect_has(err, "--json needs libjson-c.so.5, which cannot be loaded");
		expect_has(err, "apt-get install libjson-c5");
		cr_expect_str_empty(out, "%s printed: %s", commands[i], out);
		free(out);
		free(err);
	}
}

Test(startup, report_without_libdw_warns_and_shows_addresses)
{
	char cmd[4 * PATH_MAX], *out = NULL, *err = NULL;
	const char *data = th_path_in("perf.data"), *broken;

	th_require_cap(PEV_CAP_SAMPLING);
	snprintf(cmd, sizeof(cmd), "'%s' record -q -e cpu-clock -o '%s' '%s' 200 2>&1",
	         th_perfev_bin(), data, th_test_program("report_work"));
	free(th_sh_ok(cmd));
	broken = broken_libraries();
	snprintf(cmd, sizeof(cmd), "LD_LIBRARY_PATH='%s' '%s' report --stdio -i '%s'", broken,
	         th_perfev_bin(), data);
	cr_assert_eq(th_sh(cmd, &out, &err), 0, "%s: %s", cmd, err);
	/* libdw, or libelf first: either names the library and its package. */
	expect_has(err, "perfev: warning: cannot load lib");
	expect_has(err, "(Debian: apt-get install lib");
	expect_has(out, "report_work  "); /* its rows, with addresses for names */
	expect_lacks(out, "report_work_a");
	free(out);
	free(err);
}
