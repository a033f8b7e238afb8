/* SPDX-License-Identifier: MIT */
/*
 * test_stat_parity.c - `perfev stat` beside perf 6.1 on the same command:
 * terms on generic names (cpu-clock/period=5000/), the tool events
 * duration_time, user_time and system_time, perf's JSON lines (-j, with
 * -I and -r), and thousands separators from the locale (-B, --no-big-num).
 * Counts differ from run to run; units, names, columns and keys do not.
 */
#include <json-c/json.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

TestSuite(stat_parity, .init = th_leak_init, .fini = th_leak_fini);

/* ---- running both ------------------------------------------------------- */

/* Runs `TOOL stat ARGS` (args NULL-terminated, at most 30); returns its stderr (malloc'ed). */
static char *run_stat(const char *tool, const char *const *args)
{
	const char *argv[32] = {tool, "stat"};
	char *out, *err;
	int n = 2;

	for (int i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	int status = th_run((char *const *)argv, false, &out, &err);
	cr_assert_eq(status, 0, "%s stat exited %d:\n%s", tool, status, err);
	free(out);
	return err;
}

/* perf's path, or a skip when Debian's perf is missing. */
static char *need_perf(void)
{
	char *perf = th_which("perf");
	if (!perf)
		th_skip("Debian's perf (package linux-perf) is not installed: nothing to compare with");
	return perf;
}

/* Copies line number nth (0-based) of text that contains needle into buf. */
static bool line_with(const char *text, const char *needle, int nth, char *buf, size_t size)
{
	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		if (len < size) {
			memcpy(buf, line, len);
			buf[len] = '\0';
			if (strstr(buf, needle) && nth-- == 0)
				return true;
		}
		line = end ? end + 1 : NULL;
	}
	return false;
}

/* The unit and event fields of every CSV row ("msec task-clock;ns duration_time;"). */
static void csv_units_and_events(const char *text, char *buf, size_t size)
{
	char line[512];

	buf[0] = '\0';
	for (int i = 0; line_with(text, ",", i, line, sizeof(line)); i++) {
		char *unit = strchr(line, ','), *event, *end;
		if (!unit || !(event = strchr(unit + 1, ',')) || !(end = strchr(event + 1, ',')))
			continue;
		*event = *end = '\0';
		snprintf(buf + strlen(buf), size - strlen(buf), "%s %s;", unit + 1, event + 1);
	}
}

/*
 * The text rows' layout: for each row of events, where the event's name
 * starts and the unit before it ("29:ns duration_time|").
 */
static void text_layout(const char *text, const char *const *events, char *buf, size_t size)
{
	buf[0] = '\0';
	for (int i = 0; events[i]; i++) {
		char line[512], want[128], unit[16] = "";
		snprintf(want, sizeof(want), " %s ", events[i]);
		if (!line_with(text, want, 0, line, sizeof(line)) &&
		    !(snprintf(want, sizeof(want), " %s", events[i]) > 0 &&
		      line_with(text, want, 0, line, sizeof(line)))) {
			snprintf(buf + strlen(buf), size - strlen(buf), "no row of %s|", events[i]);
			continue;
		}
		const char *at = strstr(line, want) + 1;
		/* The unit is the word before the name, when it is not the count. */
		const char *end = at, *start;
		while (end > line && end[-1] == ' ')
			end--;
		for (start = end; start > line && start[-1] != ' ';)
			start--;
		size_t n = (size_t)(end - start);
		if (n < sizeof(unit) && strspn(start, "abcdefghijklmnopqrstuvwxyz") >= n)
			snprintf(unit, sizeof(unit), "%.*s", (int)n, start);
		snprintf(buf + strlen(buf), size - strlen(buf), "%d:%s %s|", (int)(at - line), unit,
		         events[i]);
	}
}

/* ---- terms on generic names ---------------------------------------------- */

Test(stat_parity, terms_on_generic_names_name_rows_as_perf)
{
	char *perf = need_perf();
	const char *args[] = {"-x", ",", "-e",
	                      "cpu-clock/period=5000/,task-clock/name=mine/,page-faults/period=1/u",
	                      "--", "true", NULL};
	char *ours = run_stat(th_perfev_bin(), args), *theirs = run_stat(perf, args);
	char a[1024], b[1024];

	csv_units_and_events(ours, a, sizeof(a));
	csv_units_and_events(theirs, b, sizeof(b));
	cr_expect_str_eq(a, "msec cpu-clock/period=5000/;msec mine; page-faults/period=1/u;");
	cr_expect_str_eq(a, b, "perfev:\n%s\nperf:\n%s", ours, theirs);
	free(ours);
	free(theirs);
	free(perf);
}

/* ---- tool events ------------------------------------------------------------ */

static const char *const tool_events[] = {"duration_time", "user_time", "system_time",
                                          "task-clock", NULL};

Test(stat_parity, tool_events_have_perfs_units_and_columns)
{
	char *perf = need_perf();
	const char *csv[] = {"-x", ",", "-e", "duration_time,user_time,system_time,task-clock",
	                     "--", "sleep", "0.05", NULL};
	const char *text[] = {"-e", "duration_time,user_time,system_time,task-clock",
	                      "--", "sleep", "0.05", NULL};
	char *ours = run_stat(th_perfev_bin(), csv), *theirs = run_stat(perf, csv);
	char a[2048], b[2048];

	csv_units_and_events(ours, a, sizeof(a));
	csv_units_and_events(theirs, b, sizeof(b));
	cr_expect_str_eq(a, b, "perfev:\n%s\nperf:\n%s", ours, theirs);
	free(ours);
	free(theirs);

	ours = run_stat(th_perfev_bin(), text);
	theirs = run_stat(perf, text);
	text_layout(ours, tool_events, a, sizeof(a));
	text_layout(theirs, tool_events, b, sizeof(b));
	cr_expect_str_eq(a, b, "perfev:\n%s\nperf:\n%s", ours, theirs);
	free(ours);
	free(theirs);
	free(perf);
}

Test(stat_parity, duration_time_is_the_elapsed_time)
{
	const char *args[] = {"--no-big-num", "-e", "duration_time,system_time,user_time",
	                      "--", "sleep", "0.1", NULL};
	char *err = run_stat(th_perfev_bin(), args);
	char line[512];
	unsigned long long ns = 0;
	double seconds = 0;

	cr_assert(line_with(err, " duration_time", 0, line, sizeof(line)), "%s", err);
	cr_assert_eq(sscanf(line, "%llu ns", &ns), 1, "%s", line);
	cr_assert(line_with(err, "seconds time elapsed", 0, line, sizeof(line)), "%s", err);
	cr_assert_eq(sscanf(line, "%lf", &seconds), 1, "%s", line);
	cr_expect_eq(ns, (unsigned long long)(seconds * 1e9 + 0.5), "%s", err);
	cr_expect_geq(ns, 100000000ULL, "sleep 0.1 lasts 0.1 s at least: %s", err);
	/* user_time and system_time are rows whether the command used the CPU or not. */
	cr_expect(line_with(err, " user_time", 0, line, sizeof(line)), "%s", err);
	cr_expect(line_with(err, " system_time", 0, line, sizeof(line)), "%s", err);
	free(err);
}

Test(stat_parity, tool_events_inside_a_list_keep_their_place)
{
	const char *args[] = {"-x", ",", "-e", "page-faults,duration_time,{task-clock,cpu-clock}",
	                      "--", "true", NULL};
	char *err = run_stat(th_perfev_bin(), args), names[1024];

	csv_units_and_events(err, names, sizeof(names));
	cr_expect_str_eq(names, " page-faults;ns duration_time;msec task-clock;msec cpu-clock;",
	                 "%s", err);
	free(err);
}

/* ---- -j: perf's JSON lines ------------------------------------------------ */

/* The keys of each JSON line, in order ("counter-value unit event ...|"), and each line checked. */
static void json_keys(const char *text, char *buf, size_t size)
{
	buf[0] = '\0';
	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char *one = strndup(line, len);
		cr_assert_not_null(one);
		if (one[0] == '{') {
			json_object *o = json_tokener_parse(one);
			cr_assert_not_null(o, "not JSON: %s", one);
			json_object_object_foreach(o, key, value)
			{
				snprintf(buf + strlen(buf), size - strlen(buf), "%s ", key);
				if (strcmp(key, "counter-value") == 0 || strcmp(key, "unit") == 0 ||
				    strcmp(key, "event") == 0 || strcmp(key, "cpu") == 0)
					cr_expect(json_object_is_type(value, json_type_string),
					          "%s is a string in perf's schema: %s", key, one);
			}
			snprintf(buf + strlen(buf), size - strlen(buf), "|");
			json_object_put(o);
		} else if (len > 0) {
			cr_expect_fail("a line that is not a JSON object: %s", one);
		}
		free(one);
		line = end ? end + 1 : NULL;
	}
}

/* Compares the keys of perfev's and perf's -j lines for the same arguments. */
static void expect_same_keys(const char *const *args, const char *first_key)
{
	char *perf = need_perf();
	char *ours = run_stat(th_perfev_bin(), args), *theirs = run_stat(perf, args);
	char a[8192], b[8192];

	json_keys(ours, a, sizeof(a));
	json_keys(theirs, b, sizeof(b));
	cr_expect(strncmp(a, first_key, strlen(first_key)) == 0, "first key: %s", a);
	/* Intervals may number one more or less: compare the first line's keys. */
	cr_expect(strncmp(a, b, strcspn(b, "|")) == 0, "perfev:\n%s\nperf:\n%s", ours, theirs);
	free(ours);
	free(theirs);
	free(perf);
}

Test(stat_parity, json_lines_have_perfs_keys)
{
	const char *args[] = {"-j", "-e", "task-clock,page-faults,duration_time", "--", "true", NULL};
	char *perf = need_perf();
	char *ours = run_stat(th_perfev_bin(), args), *theirs = run_stat(perf, args);
	char a[4096], b[4096];

	json_keys(ours, a, sizeof(a));
	json_keys(theirs, b, sizeof(b));
	cr_expect_str_eq(a, b, "perfev:\n%s\nperf:\n%s", ours, theirs);
	free(ours);
	free(theirs);
	free(perf);
}

Test(stat_parity, json_lines_with_repeat_add_the_variance)
{
	const char *args[] = {"-j", "-r", "2", "-e", "task-clock", "--", "true", NULL};
	expect_same_keys(args, "counter-value unit event variance ");
}

Test(stat_parity, json_lines_stream_each_interval)
{
	const char *args[] = {"-j", "-I", "100", "-e", "task-clock", "--", "sleep", "0.25", NULL};
	expect_same_keys(args, "interval counter-value ");
}

Test(stat_parity, json_lines_per_cpu)
{
	const char *args[] = {"-j", "-a", "-A", "-e", "cpu-clock", "--", "true", NULL};
	expect_same_keys(args, "cpu counter-value ");
}

Test(stat_parity, json_lines_values_are_perfs_strings)
{
	const char *args[] = {"-j", "-e", "task-clock,cycles", "--", "true", NULL};
	char *err = run_stat(th_perfev_bin(), args), line[1024];

	cr_assert(line_with(err, "\"event\" : \"task-clock\"", 0, line, sizeof(line)), "%s", err);
	json_object *o = json_tokener_parse(line);
	cr_assert_not_null(o, "%s", line);
	const char *v = th_json_get_str(o, "counter-value");
	cr_expect(v && strtod(v, NULL) > 0 && strchr(v, '.'), "\"4.783681\" as perf: %s", line);
	cr_expect_str_eq(th_json_get_str(o, "metric-unit"), "CPUs utilized");
	json_object_put(o);
	cr_assert(line_with(err, "\"event\" : \"cycles\"", 0, line, sizeof(line)), "%s", err);
	o = json_tokener_parse(line);
	cr_assert_not_null(o, "%s", line);
	v = th_json_get_str(o, "counter-value");
	cr_expect(v && (strcmp(v, "<not supported>") == 0 || strtod(v, NULL) > 0), "%s", line);
	json_object_put(o);
	free(err);
}

/* ---- thousands separators --------------------------------------------------- */

/* The count of duration_time in text output, as printed ("33,165,460"). */
static void duration_text(const char *err, char *buf, size_t size)
{
	char line[512];

	buf[0] = '\0';
	if (line_with(err, " duration_time", 0, line, sizeof(line)))
		sscanf(line, "%63s", buf);
	(void)size;
}

static bool locale_exists(const char *name)
{
	locale_t loc = newlocale(LC_NUMERIC_MASK, name, (locale_t)0);
	if (loc)
		freelocale(loc);
	return loc != (locale_t)0;
}

Test(stat_parity, no_thousands_separators_in_the_c_locale)
{
	const char *args[] = {"-e", "duration_time", "--", "true", NULL};
	char num[64];

	setenv("LC_ALL", "C", 1);
	char *err = run_stat(th_perfev_bin(), args);
	duration_text(err, num, sizeof(num));
	cr_expect(num[0] && !strchr(num, ','), "'%s' in:\n%s", num, err);
	free(err);
}

Test(stat_parity, thousands_separators_from_en_us_as_perf)
{
	if (!locale_exists("en_US.UTF-8"))
		th_skip("the locale en_US.UTF-8 is not installed (locale-gen en_US.UTF-8)");
	const char *args[] = {"-e", "duration_time", "--", "true", NULL};
	const char *plain[] = {"--no-big-num", "-e", "duration_time", "--", "true", NULL};
	const char *csv[] = {"-x", ";", "-e", "duration_time", "--", "true", NULL};
	char ours[64], theirs[64];

	setenv("LC_ALL", "en_US.UTF-8", 1);
	char *err = run_stat(th_perfev_bin(), args);
	duration_text(err, ours, sizeof(ours));
	cr_expect(strchr(ours, ','), "'%s' in:\n%s", ours, err);
	free(err);
	err = run_stat(th_perfev_bin(), plain);
	duration_text(err, ours, sizeof(ours));
	cr_expect(ours[0] && !strchr(ours, ','), "--no-big-num: '%s' in:\n%s", ours, err);
	free(err);
	err = run_stat(th_perfev_bin(), csv);
	cr_expect(!strchr(err, ','), "CSV never groups:\n%s", err);
	free(err);

	char *perf = th_which("perf");
	if (perf) {
		err = run_stat(perf, args);
		duration_text(err, theirs, sizeof(theirs));
		cr_expect(strchr(theirs, ','), "perf groups too: '%s' in:\n%s", theirs, err);
		free(err);
		err = run_stat(perf, plain);
		duration_text(err, theirs, sizeof(theirs));
		cr_expect(theirs[0] && !strchr(theirs, ','), "perf --no-big-num: '%s'", theirs);
		free(err);
		free(perf);
	}
}

/*
 * Runs `stat ARGS` with perfev and with perf, and expects what extract
 * makes of both outputs to be the same, and perfev's to start with prefix
 * (NULL: anything).
 */
static void expect_extract_like_perf(const char *const *args,
				     void (*extract)(const char *, char *, size_t),
				     const char *prefix)
{
	char *perf = need_perf();
	char *ours = run_stat(th_perfev_bin(), args), *theirs = run_stat(perf, args);
	char a[4096], b[4096];

	extract(ours, a, sizeof(a));
	extract(theirs, b, sizeof(b));
	cr_expect_str_eq(a, b, "perfev:\n%s\nperf:\n%s", ours, theirs);
	if (prefix)
		cr_expect(strncmp(a, prefix, strlen(prefix)) == 0, "%s", a);
	free(ours);
	free(theirs);
	free(perf);
}

/* The CPU and event fields of each -A CSV row ("CPU0 duration_time;"). */
static void csv_cpus_and_events(const char *text, char *buf, size_t size)
{
	char line[512];

	buf[0] = '\0';
	for (int i = 0; line_with(text, ",", i, line, sizeof(line)); i++) {
		char *f[8];
		int n = 0;
		f[n++] = line;
		for (char *p = strchr(line, ','); p && n < 8; p = strchr(p + 1, ',')) {
			*p = '\0';
			f[n++] = p + 1;
		}
		if (n >= 4)
			snprintf(buf + strlen(buf), size - strlen(buf), "%s %s;", f[0], f[3]);
	}
}

Test(stat_parity, tool_events_per_cpu_have_one_row_as_perf)
{
	const char *args[] = {"-x", ",", "-a", "-A", "-e", "duration_time,cpu-clock", "--", "true",
	                      NULL};

	expect_extract_like_perf(args, csv_cpus_and_events, "CPU0 duration_time;");
}

/*
 * The text output with each number as "9", each run of blanks as one and
 * a rate's K, M or G left out (counts and their widths differ from run to
 * run); trailing blanks dropped, blank lines kept.
 */
static void text_shape(const char *text, char *buf, size_t size)
{
	size_t n = 0;

	for (const char *p = text; *p && n + 2 < size; p++) {
		if ((*p >= '0' && *p <= '9') || ((*p == '.' || *p == ',') && n && buf[n - 1] == '9' &&
		                                 p[1] >= '0' && p[1] <= '9')) {
			if (!n || buf[n - 1] != '9')
				buf[n++] = '9';
		} else if (*p == ' ') {
			if (n && buf[n - 1] != ' ' && buf[n - 1] != '\n')
				buf[n++] = ' ';
		} else if ((*p == 'K' || *p == 'M' || *p == 'G') && strncmp(p + 1, "/sec", 4) == 0) {
			/* the rate's prefix follows its size: "13.825 K/sec", "7.597 G/sec" */
		} else {
			if (*p == '\n' && n && buf[n - 1] == ' ')
				n--;
			buf[n++] = *p;
		}
	}
	buf[n] = '\0';
}

Test(stat_parity, the_table_has_perfs_lines)
{
	const char *args[] = {"-e",
	                      "cpu-clock/period=5000/,task-clock/name=mine/,page-faults/period=1/,"
	                      "duration_time",
	                      "--", "true", NULL};

	expect_extract_like_perf(args, text_shape, NULL);
}

/*
 * Each line's length, but for the elapsed time's (its precision follows
 * the noise) and, under -I (interval), an interval's "<not counted>" row
 * (whether one has the task off the CPU throughout follows the machine's
 * pace): the table keeps perf's padding, so that its columns, trailing
 * blanks included, are perf's ("91 91 84 |").
 */
static void line_lengths(const char *text, bool interval, char *buf, size_t size)
{
	buf[0] = '\0';
	for (const char *line = text; *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		if (!memmem(line, len, "elapsed", 7) && !memmem(line, len, " note: ", 7) &&
		    !memmem(line, len, " hint: ", 7) &&
		    !(interval && memmem(line, len, "<not counted>", 13)))
			snprintf(buf + strlen(buf), size - strlen(buf), "%zu ", len);
		if (!end)
			break;
		line = end + 1;
	}
}

static int cmp_words(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Rewrites a list of space-ended words as its distinct words, sorted, in place. */
static void distinct_words(char *list)
{
	char copy[1024], *words[256], *save = NULL;
	size_t n = 0;

	snprintf(copy, sizeof(copy), "%s", list);
	for (char *w = strtok_r(copy, " ", &save); w && n < 256; w = strtok_r(NULL, " ", &save))
		words[n++] = w;
	qsort(words, n, sizeof(words[0]), cmp_words);
	list[0] = '\0';
	for (size_t i = 0; i < n; i++)
		if (i == 0 || strcmp(words[i], words[i - 1]) != 0)
			strcat(strcat(list, words[i]), " ");
}

Test(stat_parity, rows_keep_perfs_padding)
{
	char *perf = need_perf();
	const char *const cases[][12] = {
	    {"-e", "task-clock,minor-faults,duration_time,cycles", "--", "true", NULL},
	    {"-a", "-A", "-e", "cpu-clock,minor-faults", "--", "true", NULL},
	    {"-I", "100", "-e", "task-clock", "--", "sleep", "0.15", NULL},
	    {"-e", "syscalls:sys_enter_close", "--", "true", NULL},
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		if (c == 3 && !th_tracefs())
			continue;
		char *ours = run_stat(th_perfev_bin(), cases[c]), *theirs = run_stat(perf, cases[c]);
		char a[1024], b[1024];
		bool interval = strcmp(cases[c][0], "-I") == 0;
		line_lengths(ours, interval, a, sizeof(a));
		line_lengths(theirs, interval, b, sizeof(b));
		/*
		 * How many intervals a 0.15 s command spans follows the machine's
		 * pace (an emulated one counts 5 or 6): -I compares the lengths a
		 * row can have, each once.
		 */
		if (interval) {
			distinct_words(a);
			distinct_words(b);
		}
		cr_expect_str_eq(a, b, "%s: line lengths differ\nperfev:\n%s\nperf:\n%s", cases[c][1],
		                 ours, theirs);
		free(ours);
		free(theirs);
	}
	free(perf);
}

/* The event names of the text rows, in order ("cpu-clock context-switches ..."). */
static void row_events(const char *text, char *buf, size_t size)
{
	char line[512];

	buf[0] = '\0';
	for (int i = 0; line_with(text, "      ", i, line, sizeof(line)); i++) {
		char *hash = strstr(line, " # "), *end, *start;
		if (strstr(line, "seconds"))
			continue;
		if (hash)
			*hash = '\0';
		/* the last word before the metric: "  12.3 msec cpu-clock", "<not supported>  cycles" */
		for (end = line + strlen(line); end > line && end[-1] == ' ';)
			end--;
		for (start = end; start > line && start[-1] != ' ';)
			start--;
		snprintf(buf + strlen(buf), size - strlen(buf), "%.*s ", (int)(end - start), start);
	}
}

Test(stat_parity, cpu_wide_counting_defaults_to_cpu_clock)
{
	const char *const args[] = {"-a", "--", "true", NULL};

	expect_extract_like_perf(args, row_events, "cpu-clock ");
}

/* The exclude_* flags of every event in a file's header ("exclude_user = 1|...;"). */
static void header_excludes(const char *file, char *buf, size_t size)
{
	struct th_output r = th_perfev("report", "--header-only", "-i", file);
	char line[2048];

	buf[0] = '\0';
	for (int i = 0; line_with(r.out, "# event : ", i, line, sizeof(line)); i++) {
		for (char *at = strstr(line, "exclude_"); at; at = strstr(at + 1, "exclude_")) {
			size_t n = strcspn(at, ",");
			snprintf(buf + strlen(buf), size - strlen(buf), "%.*s|", (int)n, at);
		}
		snprintf(buf + strlen(buf), size - strlen(buf), ";");
	}
	th_output_free(&r);
}

/*
 * Which levels an event string leaves out, guest and host included, are
 * perf 6.1's: every event excludes the guest until its own modifiers say
 * otherwise (":k" counts the guest too), and a group's modifiers add to
 * each event's.
 */
Test(stat_parity, event_strings_exclude_what_perf_excludes)
{
	char *perf = need_perf();
	const char *dir = th_temp_dir("excludes");
	char *ours = th_path_join(dir, "ours.data"), *theirs = th_path_join(dir, "theirs.data");
	const char *events[] = {
	    "task-clock", "cpu-clock:u", "cpu-clock:k", "cpu-clock:h", "cpu-clock:G",
	    "cpu-clock:H", "cpu-clock:GH", "cpu-clock:I", "cpu-clock:S", "cpu-clock:D",
	    "cpu-clock:uk", "cpu-clock:Gu", "page-faults", "cpu-clock/period=1000/",
	    "cpu-clock/period=1000/k", "software/config=0/", "software/config=0/u",
	    "{cpu-clock,task-clock}:k", "{cpu-clock:k,task-clock}:u", "{cpu-clock:G,task-clock}:u",
	    "{cpu-clock:GH,task-clock}:u", "{cpu-clock:G,task-clock}:H", "mem:0x1000:k",
	    "mem:0x1000/8:w", "syscalls:sys_enter_close:k",
	};

	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		if (strchr(events[i], ':') && strncmp(events[i], "syscalls", 8) == 0 && !th_tracefs())
			continue;
		const char *argv[] = {perf, "record", "-q", "-e", events[i], "-o", theirs, "true", NULL};
		char *out, *err;
		int status = th_run((char *const *)argv, false, &out, &err);
		/*
		 * A kernel before 6.12 cannot read an inherited event in its samples,
		 * and perf says so for ":S" (seen in the arm64 lab's Linux 6.1): no
		 * oracle for that event there.
		 */
		if (status != 0 && strstr(err, "in per-thread mode, enable system wide")) {
			th_skip_log("stat_parity: -e %s not compared: perf refuses it on this kernel "
				    "(%.*s)", events[i], (int)strcspn(err, "\n"), err);
			free(out);
			free(err);
			continue;
		}
		cr_assert_eq(status, 0, "perf record -e %s: %s", events[i], err);
		free(out);
		free(err);
		struct th_output r = th_perfev("record", "-q", "-e", events[i], "-o", ours, "true");
		cr_assert_eq(r.status, 0, "perfev record -e %s: %s", events[i], r.err);
		th_output_free(&r);

		char a[1024], b[1024];
		header_excludes(ours, a, sizeof(a));
		header_excludes(theirs, b, sizeof(b));
		cr_expect_str_eq(a, b, "-e '%s': perfev [%s], perf [%s]", events[i], a, b);
	}
	free(ours);
	free(theirs);
	free(perf);
}

Test(stat_parity, an_empty_event_beside_a_tool_event_is_refused)
{
	struct th_output r = th_perfev("stat", "-e", "duration_time,", "--", "true");

	cr_expect_eq(r.status, 129, "%s", r.err);
	cr_expect(strstr(r.err, "option '-e' has an empty event in 'duration_time,'"), "%s", r.err);
	th_output_free(&r);
	/* Without a tool event the parser sees the whole list, and points into it. */
	r = th_perfev("stat", "-e", "cycles,,page-faults", "--", "true");
	cr_expect_eq(r.status, 129, "%s", r.err);
	cr_expect(strstr(r.err, "cycles,,page-faults"), "%s", r.err);
	th_output_free(&r);
}

/* Removes the "  (12.34%)" a multiplexed row ends with, in place. */
static void drop_running_percentages(char *text)
{
	char *w = text;

	for (char *r = text; *r;) {
		double pct;
		int n = 0;
		if (r[0] == ' ' && r[1] == ' ' && r[2] == '(' && sscanf(r + 3, "%lf%%)%n", &pct, &n) == 1 &&
		    n > 0) {
			r += 3 + n;
			continue;
		}
		*w++ = *r++;
	}
	*w = '\0';
}

/*
 * Counting cgroups (-G, --for-each-cgroup; the root cgroup "/", which every
 * host with cgroups has): the table's lines, their padding, the CSV fields
 * and the JSON lines' keys are perf's, the cgroup after the event.
 */
Test(stat_parity, cgroup_rows_as_perf)
{
	char root[4096], *perf = need_perf();

	th_require_root();
	if (pev_cgroup_events_root(root, sizeof(root)) < 0)
		th_skip("no cgroup hierarchy is mounted here");
	/* Some kernels count in no v2 cgroup (Debian 12's arm64: ENOENT): ask first. */
	struct pev_event ev = pev_event_software(PEV_SW_CPU_CLOCK);
	struct pev_target t = pev_target_cgroup(root);
	struct pev_counter *probe = NULL;
	struct pev_error err;
	if (pev_counter_open(&ev, NULL, &t, NULL, &probe, &err) < 0)
		th_skip("cpu-clock does not open on the cgroup %s here: %s", root, err.message);
	pev_counter_close(probe);
	const char *text[] = {"-a", "-e", "cpu-clock,task-clock", "-G", "/,", "--", "true", NULL};
	const char *each[] = {"-a", "-e", "cpu-clock", "--for-each-cgroup", "/", "--", "true",
			      NULL};
	const char *csv[] = {"-x", ",", "-a", "-e", "cpu-clock,task-clock", "-G", "/,", "--",
			     "true", NULL};
	const char *const *cases[] = {text, each, csv};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char *ours = run_stat(th_perfev_bin(), cases[c]), *theirs = run_stat(perf, cases[c]);
		/*
		 * The kernel's enabled and running times of a cgroup event are erratic
		 * over a short run (perf 6.1 printed a run time of 122 ms for a count of
		 * 1.9 ms; perfev once read 10% running): the running percentage a row
		 * may then carry is not the format's, and is left out of both.
		 */
		drop_running_percentages(ours);
		drop_running_percentages(theirs);
		char a[4096], b[4096];
		text_shape(ours, a, sizeof(a));
		text_shape(theirs, b, sizeof(b));
		cr_expect_str_eq(a, b, "perfev:\n%s\nperf:\n%s", ours, theirs);
		cr_expect(strstr(ours, c == 2 ? "cpu-clock,/," : "cpu-clock                        / #"),
			  "%s", ours);
		if (c != 1) /* the event counted everywhere: an empty cgroup column, as perf */
			cr_expect(strstr(ours, c == 2 ? "task-clock,," : "task-clock                        #"),
				  "%s", ours);
		if (c < 2) {
			line_lengths(ours, false, a, sizeof(a));
			line_lengths(theirs, false, b, sizeof(b));
			cr_expect_str_eq(a, b, "line lengths differ\nperfev:\n%s\nperf:\n%s", ours,
					 theirs);
		}
		free(ours);
		free(theirs);
	}
	free(perf);
	const char *json[] = {"-j", "-a", "-e", "cpu-clock", "-G", "/", "--", "true", NULL};
	expect_same_keys(json, "counter-value unit event cgroup ");
}
