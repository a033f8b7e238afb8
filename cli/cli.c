/* SPDX-License-Identifier: MIT */
/*
 * cli.c - error reporting and formatting shared by the perfev commands.
 */
#include "cli.h"

#include <errno.h>
#include <json-c/json.h>
#include <langinfo.h>
#include <locale.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *cli_shown(const char *s)
{
	static char *buf[8];
	static size_t cap[8];
	static unsigned next;
	unsigned i = next++ % 8;
	size_t n;

	if (pev_text_is_clean(s))
		return s ? s : "";
	n = pev_text_escape(NULL, 0, s, 0) + 1;
	if (n > cap[i]) {
		char *p = realloc(buf[i], n);
		if (!p)
			return "[out of memory]";
		buf[i] = p;
		cap[i] = n;
	}
	pev_text_escape(buf[i], n, s, 0);
	return buf[i];
}

struct json_object *cli_json_string(const char *s)
{
	char small[512], *t = small;
	size_t n = pev_text_utf8(small, sizeof(small), s);
	struct json_object *o;

	if (!s || n == strlen(s))
		return json_object_new_string(s ? s : "");
	if (n >= sizeof(small) && !(t = malloc(n + 1)))
		return NULL;
	if (t != small)
		pev_text_utf8(t, n + 1, s);
	o = json_object_new_string(t);
	if (t != small)
		free(t);
	return o;
}

/*
 * Writes a multi-line message with the control bytes of each line escaped
 * (pev_text_escape): its own line breaks stay, nothing else moves the cursor.
 */
static void put_lines(const char *msg, FILE *out)
{
	for (const char *line = msg, *end; *line; line = end + 1) {
		char small[1024], *copy = small;
		size_t n;

		if (!(end = strchr(line, '\n')))
			end = line + strlen(line);
		n = (size_t)(end - line);
		if (n >= sizeof(small) && !(copy = malloc(n + 1)))
			return;
		memcpy(copy, line, n);
		copy[n] = '\0';
		pev_text_fputs(copy, out);
		if (copy != small)
			free(copy);
		if (!*end)
			break;
		fputc('\n', out);
	}
}

/*
 * Messages name files, events and programs that the user or a file gave:
 * their control bytes are escaped, newlines included (a message is one line).
 */
static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	char small[1024], *msg = small;
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n >= (int)sizeof(small) && (msg = malloc((size_t)n + 1)))
		vsnprintf(msg, (size_t)n + 1, fmt, again);
	va_end(again);
	flockfile(stderr); /* one line, whole, when threads (record --push's sender) report too */
	fprintf(stderr, "perfev: %s: ", prefix);
	pev_text_fputs(n < 0 || !msg ? "(message unavailable)" : msg, stderr);
	if (msg != small)
		free(msg);
	fputc('\n', stderr);
	funlockfile(stderr);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error", fmt, ap);
	va_end(ap);
}

int cli_finish_output(FILE *f, const char *name)
{
	bool failed;
	int err = 0;

	if (!f)
		return 0;
	/* ferror() keeps an earlier failed write; fflush() finds one still buffered. */
	failed = fflush(f) != 0;
	if (failed)
		err = errno;
	if (ferror(f))
		failed = true;
	if (f != stdout && f != stderr && fclose(f) != 0 && !failed) {
		failed = true;
		err = errno;
	}
	if (!failed)
		return 0;
	if (f != stderr)
		cli_error("cannot write %s: %s", name, err ? strerror(err) : "a write failed");
	return 1;
}

/* Reads the online CPU list into list; "0" when sysfs says nothing usable. */
static void online_cpus(char *list, size_t size)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");

	list[0] = '\0';
	if (f) {
		if (!fgets(list, (int)size, f))
			list[0] = '\0';
		fclose(f);
	}
	list[strcspn(list, "\n")] = '\0';
	if (pev_cpulist_parse(list, NULL, 0) <= 0)
		snprintf(list, size, "0");
}

/* The highest CPU number -C takes. */
#define MAX_CPU 65535

int cli_parse_cpus(const char *text, char **list, int **cpus, int *n)
{
	static unsigned char want[MAX_CPU / 8 + 1];
	char online[256];
	const char *in = text ? text : online;
	int count, *parsed, kept = 0;
	size_t used = 0;

	online_cpus(online, sizeof(online));
	if ((count = pev_cpulist_parse(in, NULL, 0)) <= 0) {
		cli_error("option '-C' needs a list of CPUs such as '0-3,7', got '%s'", in);
		return 129;
	}
	parsed = cli_xcalloc((size_t)count, sizeof(int));
	pev_cpulist_parse(in, parsed, count);
	memset(want, 0, sizeof(want));
	for (int i = 0; i < count; i++) {
		if (parsed[i] > MAX_CPU || !pev_cpulist_contains(online, parsed[i])) {
			cli_error("option '-C' needs online CPUs (%s here; CPU %d is not), got '%s'",
				  online, parsed[i], in);
			free(parsed);
			return 129;
		}
		want[parsed[i] / 8] |= (unsigned char)(1U << (parsed[i] % 8));
	}
	/* Ascending and each once: "3,0,0" is "0,3", as perf reads it. */
	*list = cli_xcalloc((size_t)count, 8);
	for (int c = 0; c <= MAX_CPU; c++) {
		if (!(want[c / 8] & (1U << (c % 8))))
			continue;
		used += (size_t)sprintf(*list + used, "%s%d", kept ? "," : "", c);
		parsed[kept++] = c;
	}
	if (cpus) {
		*cpus = parsed;
		*n = kept;
	} else {
		free(parsed);
	}
	return 0;
}

void cli_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning", fmt, ap);
	va_end(ap);
}

static void print_log_warning(enum pev_log_level level, const char *line, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "perfev: %s: %s\n", level == PEV_LOG_ERROR ? "error" : "warning",
		cli_shown(line));
}

void cli_log_warnings(void)
{
	pev_set_log(print_log_warning, NULL, PEV_LOG_WARN);
}

void cli_warn_unfinished(struct pev_perfdata *pd, const char *path)
{
	static bool warned; /* pipe mode asks again at the end */

	if (!pev_perfdata_unfinished(pd) || warned)
		return;
	warned = true;
	if (pev_perfdata_pipe_mode(pd))
		cli_warning("'%s' is unfinished: the stream ends without its last round "
			    "(FINISHED_ROUND), as when the recorder is killed; read up to there, "
			    "exiting with status %d",
			    path, CLI_STATUS_UNFINISHED);
	else
		cli_warning("'%s' is unfinished: its header has no data size and the features "
			    "(event names, build ids, the machine) are missing, as when the "
			    "recorder is killed or the disk fills; reading the records that are "
			    "there, and exiting with status %d",
			    path, CLI_STATUS_UNFINISHED);
}

const char *cli_hint(const struct pev_error *err)
{
	if (err->code == PEV_ESRCH)
		return "check the id with ps; to measure a command from its start, let perfev "
		       "start it: perfev stat -- COMMAND (or perfev record -- COMMAND)";
	return err->hint;
}

void cli_print_error(const struct pev_error *err)
{
	char buf[2 * PEV_ERROR_MESSAGE_MAX + 256];
	struct pev_error e = *err;

	snprintf(e.hint, sizeof(e.hint), "%s", cli_hint(err));
	pev_error_format(&e, buf, sizeof(buf));
	fputs("perfev: error: ", stderr);
	put_lines(buf, stderr);
}

void cli_name_user_only(char *name, size_t size, const struct pev_opts *levels,
			const struct pev_counter *c)
{
	const struct pev_attr *a = pev_counter_attr(c);

	if (levels->exclude_user || levels->exclude_kernel || levels->exclude_hv || !a ||
	    !(a->flags & PEV_ATTR_EXCLUDE_KERNEL) || strstr(name, ":u"))
		return;
	strncat(name, ":u", size - strlen(name) - 1);
}

int cli_check_ids(const char *opt, const char *list)
{
	const char *s = list;

	do {
		char *end;
		errno = 0;
		long v = strtol(s, &end, 10);
		if (errno || end == s || v < 0 || v > INT32_MAX || (*end && *end != ',')) {
			cli_error("option '%s' needs comma-separated ids (e.g. 1234,1240), got '%s'",
				  opt, list);
			return 129;
		}
		s = *end ? end + 1 : end;
	} while (*s);
	return 0;
}

bool cli_list_has(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *l = list; *l;) {
		size_t len = strcspn(l, ",");

		if (len == n && strncmp(l, name, n) == 0)
			return true;
		l += len + (l[len] == ',');
	}
	return false;
}

bool cli_list_has_id(const char *list, int64_t id)
{
	for (const char *l = list; *l;) {
		char *end;
		long long v = strtoll(l, &end, 10);

		if (end == l)
			return false; /* not a list cli_check_ids passed */
		if (v == id)
			return true;
		l = *end == ',' ? end + 1 : end;
	}
	return false;
}

int cli_usage(const char *usage)
{
	fprintf(stderr, "usage: %s\n", usage);
	return 129;
}

int cli_bad_option(int opt, char **argv, const char *usage)
{
	if (opt == ':')
		cli_error("option '%s' needs a value", argv[optind - 1]);
	else if (optopt)
		cli_error("unknown option '-%c'", optopt);
	else
		cli_error("unknown option '%s'", argv[optind - 1]);
	return cli_usage(usage);
}

char *cli_group_digits(const char *digits, const char *sep, char *buf, size_t size)
{
	size_t n = strlen(digits), sep_len = strlen(sep), out = 0;

	for (size_t i = 0; i < n && out + 1 < size; i++) {
		if (i > 0 && (n - i) % 3 == 0 && out + sep_len + 1 < size) {
			memcpy(buf + out, sep, sep_len);
			out += sep_len;
		}
		buf[out++] = digits[i];
	}
	buf[out] = '\0';
	return buf;
}

/* The locale's LC_NUMERIC item (THOUSEP, RADIXCHAR), read once into the caller's buffer. */
static const char *numeric_item(nl_item item, char *buf, size_t size, bool *read)
{
	if (!*read) {
		/* The locale is only asked, never set: the library's numbers keep C's format. */
		locale_t loc = newlocale(LC_NUMERIC_MASK, "", (locale_t)0);
		if (loc) {
			snprintf(buf, size, "%s", nl_langinfo_l(item, loc));
			freelocale(loc);
		}
		*read = true;
	}
	return buf;
}

const struct pev_parse_opts *cli_event_parse_opts(void)
{
	static struct pev_parse_opts opts = {.sz = sizeof(opts), .perf_guest = true};

	return &opts;
}

const char *cli_thousands_sep(void)
{
	static char sep[8];
	static bool read;

	return numeric_item(THOUSEP, sep, sizeof(sep), &read);
}

const char *cli_decimal_point(void)
{
	static char point[8] = ".";
	static bool read;

	numeric_item(RADIXCHAR, point, sizeof(point), &read);
	return point[0] ? point : ".";
}

bool cli_parse_double(const char *text, double min, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (errno || end == text || *end || !(v >= min && v <= max))
		return false;
	*out = v;
	return true;
}

pid_t cli_tgid_of(pid_t tid)
{
	char path[64], line[256];
	pid_t tgid = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

bool cli_parse_long(const char *text, const char *stops, long min, long max, long *out)
{
	char *end;

	if (*text < '0' || *text > '9')
		return false;
	errno = 0;
	long v = strtol(text, &end, 10);
	if (errno || (*end && !strchr(stops, *end)) || v < min || v > max)
		return false;
	*out = v;
	return true;
}

char *cli_first_sentence(const char *text, char *buf, size_t size)
{
	const char *end = strstr(text, ". ");
	size_t n = end ? (size_t)(end - text) + 1 : strlen(text);

	if (n >= size)
		n = size - 1;
	memcpy(buf, text, n);
	buf[n] = '\0';
	return buf;
}

void cli_print_wrapped(FILE *out, const char *text, int indent, int width)
{
	int col = indent;
	const char *p = text;

	while (*p) {
		size_t word = strcspn(p, " ");
		if (col > indent && col + 1 + (int)word > width) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', out);
			col++;
		}
		fprintf(out, "%.*s", (int)word, p);
		col += (int)word;
		p += word;
		while (*p == ' ')
			p++;
	}
	fputc('\n', out);
}

bool cli_code_location(const void *addr, char *file, size_t size, uint64_t *offset)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[1024];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off;
		char path[768] = "";
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %767s", &start, &end, &off, path) < 3)
			continue;
		if ((uintptr_t)addr >= start && (uintptr_t)addr < end && path[0] == '/') {
			snprintf(file, size, "%s", path);
			*offset = (uintptr_t)addr - start + off;
			found = true;
		}
	}
	fclose(f);
	return found;
}

void *cli_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p) {
		cli_error("out of memory");
		exit(1);
	}
	return p;
}

const char *cli_default_input(void)
{
	struct stat st;

	return fstat(STDIN_FILENO, &st) == 0 && S_ISFIFO(st.st_mode) ? "-" : "perf.data";
}

/*
 * Reads a task's name from its comm file into buf: the kernel writes the
 * name's bytes as they are (a newline of the name too) and one newline
 * after them; only that last one is dropped. False when it cannot be read.
 */
bool cli_read_comm(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	if (n == 0)
		return false;
	if (buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	return true;
}
