/* SPDX-License-Identifier: MIT */
/*
 * test_hostile_sysfs.c - `perfev list` and `perfev check` when sysfs and
 * tracefs hold hostile names (issue 22): a broken or malicious driver, or
 * a tracefs mounted at a strange path, may put control bytes, quotes,
 * backslashes and bytes that are not UTF-8 in PMU, event, format and
 * tracepoint names.
 *
 * No test-only switch in perfev: the kernel's own mechanisms build the
 * machine. In a private mount namespace a tmpfs covers
 * /sys/bus/event_source/devices and holds one PMU whose name, event
 * alias and format field carry ESC [ 3 1 m, a newline, a quote, a
 * backslash and the bytes 0xff 0xc3; tracefs is mounted at a directory
 * whose name carries them too, with a tmpfs over its events/ holding one
 * tracepoint so named. perfev runs there, and the outputs are checked:
 * --json must load in Python's strict json module and give each name back
 * with its control characters and U+FFFD for each byte that is not UTF-8
 * (docs/EVENTS.md, "Names from sysfs and tracefs"); the text output must
 * hold no raw control byte, only the \xHH form.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

/* The hostile part of every name: ESC [31m, newline, quote, backslash, 0xff, 0xc3. */
#define HOSTILE "\x1b[31m\n\"\\\xff\xc3"
/* As the text output shows it (pev_text_escape: the backslash and quote stay). */
#define SHOWN "\\x1b[31m\\x0a\"\\\\xff\\xc3"
/* As Python reads it back from the JSON: the control characters, then U+FFFD twice. */
#define PY_HOSTILE "\"\\x1b[31m\\n\\\"\\\\\\ufffd\\ufffd\""

#define DEVICES "/sys/bus/event_source/devices"

static void make_dir(void)
{
	th_suite_dir("hostile-sysfs");
}

TestSuite(hostile_sysfs, .init = make_dir, .timeout = 120);

/* Exit codes of the namespace child below 100 are perfev's; these are setup steps. */
enum {
	SETUP_NAMESPACE = 100,
	SETUP_SYSFS = 101,
	SETUP_TRACEFS = 102, /* tracefs could not be mounted: this kernel lacks it */
	SETUP_FILES = 103,
	SETUP_EXEC = 104,
};

static bool write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	bool ok = fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text);

	if (fd >= 0)
		close(fd);
	return ok;
}

/* The hostile PMU: a type no kernel has, one event alias and one format field. */
static bool make_pmu(void)
{
	char pmu[256], path[512];

	snprintf(pmu, sizeof(pmu), "%s/pm" HOSTILE, DEVICES);
	if (mkdir(pmu, 0755) < 0)
		return false;
	snprintf(path, sizeof(path), "%s/events", pmu);
	if (mkdir(path, 0755) < 0)
		return false;
	snprintf(path, sizeof(path), "%s/format", pmu);
	if (mkdir(path, 0755) < 0)
		return false;
	snprintf(path, sizeof(path), "%s/type", pmu);
	if (!write_file(path, "4242\n"))
		return false;
	snprintf(path, sizeof(path), "%s/events/al" HOSTILE, pmu);
	if (!write_file(path, "event=0x3c\n"))
		return false;
	snprintf(path, sizeof(path), "%s/format/fo" HOSTILE, pmu);
	if (!write_file(path, "config:0-7\n"))
		return false;
	/* The software PMU as sysfs has it, so the machine is not empty of PMUs. */
	return mkdir(DEVICES "/software", 0755) == 0 && write_file(DEVICES "/software/type", "1\n");
}

/* tracefs at dir/tr<HOSTILE>, its events/ a tmpfs with tracepoint sy<HOSTILE>:tp<HOSTILE>. */
static int make_tracefs(const char *dir)
{
	char at[PATH_MAX + 32], path[PATH_MAX + 128];

	snprintf(at, sizeof(at), "%s/tr" HOSTILE, dir);
	if (!th_unmount_tracefs())
		return SETUP_NAMESPACE;
	if (mount("nodev", at, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		return SETUP_TRACEFS;
	snprintf(path, sizeof(path), "%s/events", at);
	if (mount("none", path, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k") < 0)
		return SETUP_FILES;
	snprintf(path, sizeof(path), "%s/events/sy" HOSTILE, at);
	if (mkdir(path, 0755) < 0)
		return SETUP_FILES;
	snprintf(path, sizeof(path), "%s/events/sy" HOSTILE "/tp" HOSTILE, at);
	if (mkdir(path, 0755) < 0)
		return SETUP_FILES;
	snprintf(path, sizeof(path), "%s/events/sy" HOSTILE "/tp" HOSTILE "/id", at);
	return write_file(path, "4243\n") ? 0 : SETUP_FILES;
}

/* In a new mount namespace: builds the hostile machine, then runs argv with stdout on out_fd. */
static void namespace_child(const char *dir, char *const argv[], int out_fd)
{
	int null = open("/dev/null", O_RDWR), status, step;

	if (null < 0 || dup2(null, 0) < 0 || dup2(null, 2) < 0)
		_exit(SETUP_NAMESPACE);
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		_exit(SETUP_NAMESPACE);
	if (mount("none", DEVICES, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k") < 0)
		_exit(SETUP_SYSFS);
	if (!make_pmu())
		_exit(SETUP_FILES);
	if ((step = make_tracefs(dir)) != 0)
		_exit(step);
	pid_t pid = fork();
	if (pid < 0)
		_exit(SETUP_EXEC);
	if (pid == 0) {
		if (dup2(out_fd, 1) < 0)
			_exit(SETUP_EXEC);
		execv(argv[0], argv);
		_exit(SETUP_EXEC);
	}
	close(out_fd);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : SETUP_EXEC);
}

/*
 * Runs `perfev ARGS` (NULL-terminated) on the hostile machine; returns its
 * stdout (malloc'ed). The test fails unless perfev exits 0, and skips
 * where this kernel cannot mount tracefs.
 */
static char *run_hostile(const char *first, ...)
{
	const char *bin = th_perfev_bin(); /* before the fork: it may fail the test */
	char dir[PATH_MAX], tr[PATH_MAX + 16], *argv[8];
	int pipefd[2], status, n = 0;
	va_list ap;

	th_require_root();
	snprintf(dir, sizeof(dir), "%s", th_path_in("root"));
	cr_assert_eq(mkdir(dir, 0755), 0);
	snprintf(tr, sizeof(tr), "%s/tr" HOSTILE, dir);
	cr_assert_eq(mkdir(tr, 0755), 0);
	argv[n++] = (char *)bin;
	va_start(ap, first);
	for (const char *a = first; a && n < 7; a = va_arg(ap, const char *))
		argv[n++] = (char *)a;
	va_end(ap);
	argv[n] = NULL;

	cr_assert_eq(pipe2(pipefd, O_CLOEXEC), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(pipefd[0]);
		namespace_child(dir, argv, pipefd[1]);
	}
	close(pipefd[1]);
	size_t len;
	char *buf = th_read_fd_all(pipefd[0], &len);
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	rmdir(tr); /* its mounts lived in the child's namespace only */
	rmdir(dir);
	cr_assert(WIFEXITED(status), "the namespace child was killed");
	if (WEXITSTATUS(status) == SETUP_TRACEFS)
		th_skip("tracefs cannot be mounted here (a kernel without CONFIG_TRACING)");
	cr_assert_lt(WEXITSTATUS(status), 100, "the namespace child failed at setup step %d",
		     WEXITSTATUS(status));
	cr_assert_eq(WEXITSTATUS(status), 0, "perfev %s exited %d:\n%s", first,
		     WEXITSTATUS(status), buf);
	cr_assert_eq(strlen(buf), len, "a NUL byte in the output of perfev %s", first);
	return buf;
}

/* A whole line of text that starts with prefix, or NULL. */
static const char *line_starting(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (strncmp(l, prefix, n) == 0)
			return l;
	return NULL;
}

/*
 * Runs python3 over the JSON document text: json.load must accept it and
 * the Python statements `checks` (on the document d and the name part H)
 * must hold.
 */
static void python_checks(const char *name, const char *text, const char *checks)
{
	char json[PATH_MAX], script[PATH_MAX], cmd[2 * PATH_MAX + 64];
	char *out = NULL, *err = NULL;
	FILE *f;

	if (!th_have_program("python3"))
		th_skip("python3 is not installed");
	snprintf(json, sizeof(json), "%s.json", th_path_in(name));
	snprintf(script, sizeof(script), "%s.py", th_path_in(name));
	cr_assert_not_null(f = fopen(json, "we"));
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
	cr_assert_not_null(f = fopen(script, "we"));
	fprintf(f,
		"import json, sys\n"
		"d = json.load(open(sys.argv[1], encoding='utf-8', errors='strict'))\n"
		"H = %s\n"
		"%s",
		PY_HOSTILE, checks);
	cr_assert_eq(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), "python3 '%s' '%s'", script, json);
	int st = th_sh(cmd, &out, &err);
	cr_expect_eq(st, 0, "perfev %s's JSON does not load in python3, or a name is wrong: %s",
		     name, err);
	free(out);
	free(err);
}

Test(hostile_sysfs, list_json_loads_and_keeps_the_names)
{
	char *out = run_hostile("list", "--json", NULL);

	python_checks("list", out,
		      "secs = {s['name']: s for s in d['sections']}\n"
		      "p = secs['pmu:pm' + H]\n"
		      "assert p['pmu'] == 'pm' + H, p['pmu']\n"
		      "assert p['title'].startswith('pm' + H + ' PMU'), p['title']\n"
		      "names = [e['name'] for e in p['events']]\n"
		      "assert 'pm' + H + '/al' + H + '/' in names, names\n"
		      "assert 'pm' + H + '/fo' + H + '=N/' in names, names\n"
		      "assert any(('fo' + H + '=config:0-7') in e.get('description', '')\n"
		      "           for e in p['events']), p['events']\n"
		      "t = secs['tracepoint']\n"
		      "assert t['title'].endswith('/tr' + H + ')'), t['title']\n"
		      "assert [e['name'] for e in t['events']] == ['sy' + H + ':tp' + H], t\n"
		      "assert t['events'][0]['id'] == 4243\n");
	free(out);
}

Test(hostile_sysfs, list_text_escapes_the_names)
{
	char *out = run_hostile("list", NULL);

	th_expect_clean_text("perfev list", out);
	cr_expect_not_null(line_starting(out, "pm" SHOWN " PMU (type 4242)"), "%s", out);
	cr_expect_not_null(line_starting(out, "  pm" SHOWN "/al" SHOWN "/ "), "%s", out);
	cr_expect_not_null(line_starting(out, "  pm" SHOWN "/fo" SHOWN "=N/ "), "%s", out);
	cr_expect_not_null(line_starting(out, "  sy" SHOWN ":tp" SHOWN), "%s", out);
	const char *title = line_starting(out, "tracepoints (tracefs at ");
	cr_assert_not_null(title, "%s", out);
	cr_expect(strncmp(strchr(title, '\n') - strlen("/tr" SHOWN ")"), "/tr" SHOWN ")",
			  strlen("/tr" SHOWN ")")) == 0,
		  "%.*s", (int)(strchr(title, '\n') - title), title);
	free(out);
}

Test(hostile_sysfs, check_json_loads_and_keeps_the_names)
{
	char *out = run_hostile("check", "--json", NULL);

	python_checks("check", out,
		      "m = d['machine']\n"
		      "assert {'name': 'pm' + H, 'type': 4242} in m['pmus'], m['pmus']\n"
		      "assert m['tracefs_mounted'] and m['tracefs_path'].endswith('/tr' + H), "
		      "m['tracefs_path']\n"
		      "assert all(isinstance(c['detail'], str) for c in d['checks'])\n");
	free(out);
}

Test(hostile_sysfs, check_text_escapes_the_names)
{
	char *out = run_hostile("check", NULL);

	th_expect_clean_text("perfev check", out);
	const char *pmus = line_starting(out, "  PMUs ");
	cr_assert_not_null(pmus, "%s", out);
	cr_expect_not_null(strstr(pmus, " pm" SHOWN "(4242) "), "%s", out);
	const char *tracefs = line_starting(out, "  tracefs ");
	cr_assert_not_null(tracefs, "%s", out);
	cr_expect(strncmp(strchr(tracefs, '\n') - strlen("/tr" SHOWN), "/tr" SHOWN,
			  strlen("/tr" SHOWN)) == 0,
		  "%.*s", (int)(strchr(tracefs, '\n') - tracefs), tracefs);
	free(out);
}
