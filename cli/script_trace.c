/* SPDX-License-Identifier: MIT */
/*
 * script_trace.c - tracepoint payloads as text for `perfev script`, through
 * libtraceevent, loaded with dlopen on first use so that a machine without
 * it loses only this (the payload shows as bytes and a warning says why).
 *
 * The formats come from the file's TRACING_DATA feature, which perf writes
 * as: a magic ("\x17\x08\x44tracing"), a version string, the file's
 * endianness, long size and page size, tracefs's header_page and
 * header_event, the ftrace formats, the event formats per system, kallsyms,
 * the printk formats and (from version 0.6) the saved command lines. A file
 * without the feature (perfev record writes none) takes the formats from
 * this machine's tracefs, by the events' names.
 *
 * The tracing data is untrusted input and libtraceevent trusts it: each
 * part passes script_trace_check.c's checks before libtraceevent parses it
 * (a format that fails is dropped, its events' payloads show as bytes), and
 * each payload before libtraceevent prints it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "script.h"
#include "script_trace_check.h"

#define TRACEEVENT_SONAME "libtraceevent.so.1"

static struct {
	__typeof__(tep_alloc) *alloc;
	__typeof__(tep_free) *free;
	__typeof__(tep_set_long_size) *set_long_size;
	__typeof__(tep_set_page_size) *set_page_size;
	__typeof__(tep_set_file_bigendian) *set_file_bigendian;
	__typeof__(tep_set_local_bigendian) *set_local_bigendian;
	__typeof__(tep_parse_header_page) *parse_header_page;
	__typeof__(tep_parse_event) *parse_event;
	__typeof__(tep_parse_printk_formats) *parse_printk_formats;
	__typeof__(tep_parse_saved_cmdlines) *parse_saved_cmdlines;
	__typeof__(tep_find_event) *find_event;
	__typeof__(tep_print_event) *print_event;
	__typeof__(trace_seq_init) *seq_init;
	__typeof__(trace_seq_destroy) *seq_destroy;
	__typeof__(trace_seq_terminate) *seq_terminate;
} tep;

static const char *const tep_names[] = {
	"tep_alloc", "tep_free", "tep_set_long_size", "tep_set_page_size",
	"tep_set_file_bigendian", "tep_set_local_bigendian", "tep_parse_header_page",
	"tep_parse_event", "tep_parse_printk_formats", "tep_parse_saved_cmdlines",
	"tep_find_event", "tep_print_event", "trace_seq_init", "trace_seq_destroy",
	"trace_seq_terminate",
};

struct script_trace {
	struct tep_handle *h;
	int nr_formats;
	int nr_dropped; /* formats that failed the checks or libtraceevent's parser */
};

/* Loads libtraceevent; false with why filled when it cannot. */
static bool load(char *why, size_t size)
{
	void **slots = (void **)&tep;
	void *h = dlopen(TRACEEVENT_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		snprintf(why, size, "%s", dlerror());
		return false;
	}
	for (size_t i = 0; i < sizeof(tep_names) / sizeof(tep_names[0]); i++) {
		slots[i] = dlsym(h, tep_names[i]);
		if (!slots[i]) {
			snprintf(why, size, "%s has no %s", TRACEEVENT_SONAME, tep_names[i]);
			dlclose(h);
			return false;
		}
	}
	return true;
}

/* A cursor over the TRACING_DATA bytes; every read checks what is left. */
struct cursor {
	const unsigned char *p, *end;
	bool bad;
};

static const void *take(struct cursor *c, uint64_t n)
{
	const void *at = c->p;

	if (c->bad || n > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		return NULL;
	}
	c->p += n;
	return at;
}

static uint64_t take_u(struct cursor *c, size_t bytes)
{
	const void *at = take(c, bytes);
	uint64_t v = 0;
	uint32_t v32 = 0;

	if (!at)
		return 0;
	if (bytes == 4) {
		memcpy(&v32, at, 4);
		return v32;
	}
	memcpy(&v, at, 8);
	return v;
}

static const char *take_str(struct cursor *c)
{
	const unsigned char *nul;

	if (c->bad)
		return NULL;
	nul = memchr(c->p, '\0', (size_t)(c->end - c->p));
	if (!nul) {
		c->bad = true;
		return NULL;
	}
	return take(c, (uint64_t)(nul - c->p) + 1);
}

/* A copy of n bytes with a NUL after them (libtraceevent wants text it may scan to a NUL). */
static char *copy_text(const void *data, uint64_t n)
{
	char *s = malloc(n + 1);

	if (s) {
		memcpy(s, data, n);
		s[n] = '\0';
	}
	return s;
}

/*
 * Whether libtraceevent parses the format s without crashing, tried first in
 * a child: its parser trusts what it reads, and the checks of
 * script_trace_check.c cannot foresee every malformed expression that
 * crashes it (process_op() on a damaged ?: dereferences NULL). A format that
 * kills the child is dropped. When no child can be made, the checks decide.
 */
static bool parses_in_child(const char *s, uint64_t n, const char *sys)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return true;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
		struct tep_handle *h;
		if (null >= 0)
			dup2(null, STDERR_FILENO); /* its warnings come again from the real parse */
		h = tep.alloc();
		_exit(h && tep.parse_event(h, s, n, sys) == 0 ? 0 : 1);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return false;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void parse_format(struct script_trace *t, const void *data, uint64_t n, const char *sys)
{
	char *s;

	if (!trace_check_format(data, n, NULL, 0)) {
		t->nr_dropped++;
		return;
	}
	s = copy_text(data, n);
	if (s && parses_in_child(s, n, sys) && tep.parse_event(t->h, s, n, sys) == 0)
		t->nr_formats++;
	else
		t->nr_dropped++;
	free(s);
}

/* Parses perf's tracing data; false when it is malformed. */
static bool parse_tracing_data(struct script_trace *t, const void *data, uint64_t size)
{
	static const unsigned char magic[10] = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'};
	struct cursor c = {data, (const unsigned char *)data + size, false};
	const unsigned char *m = take(&c, sizeof(magic));
	const char *version, *label;
	const unsigned char *b;
	uint64_t n;

	if (!m || memcmp(m, magic, sizeof(magic)) != 0)
		return false;
	version = take_str(&c);
	b = take(&c, 2); /* big endian, long size */
	n = take_u(&c, 4);
	if (!version || !b || b[0])
		return false; /* a big-endian file: not read */
	if ((b[1] != 4 && b[1] != 8) || n < 1024 || n > (1u << 24) || (n & (n - 1)))
		return false; /* no machine has such a long or page */
	tep.set_file_bigendian(t->h, TEP_LITTLE_ENDIAN);
	tep.set_local_bigendian(t->h, TEP_LITTLE_ENDIAN);
	tep.set_long_size(t->h, b[1]);
	tep.set_page_size(t->h, (int)n);

	label = take_str(&c); /* "header_page" */
	n = take_u(&c, 8);
	const void *hp = take(&c, n);
	if (!label || !hp)
		return false;
	char *hps = copy_text(hp, n);
	if (hps && trace_check_header_page(hps, n))
		tep.parse_header_page(t->h, hps, n, b[1]);
	free(hps);
	label = take_str(&c); /* "header_event" */
	n = take_u(&c, 8);
	if (!label || !take(&c, n))
		return false;

	for (uint64_t i = 0, nr = take_u(&c, 4); i < nr && !c.bad; i++) {
		n = take_u(&c, 8);
		const void *f = take(&c, n);
		if (f)
			parse_format(t, f, n, "ftrace");
	}
	for (uint64_t s = 0, nsys = take_u(&c, 4); s < nsys && !c.bad; s++) {
		const char *sys = take_str(&c);
		for (uint64_t i = 0, nr = take_u(&c, 4); i < nr && !c.bad; i++) {
			n = take_u(&c, 8);
			const void *f = take(&c, n);
			if (f && sys)
				parse_format(t, f, n, sys);
		}
	}
	n = take_u(&c, 4); /* kallsyms: not needed for the payloads */
	take(&c, n);
	n = take_u(&c, 4);
	const void *pf = take(&c, n);
	if (pf && n) {
		char *s = copy_text(pf, n);
		if (s && trace_check_printk(s, n))
			tep.parse_printk_formats(t->h, s);
		free(s);
	}
	if (!c.bad && strcmp(version, "0.6") >= 0) {
		n = take_u(&c, 8);
		const void *cl = take(&c, n);
		if (cl && n) {
			char *s = copy_text(cl, n);
			if (s)
				tep.parse_saved_cmdlines(t->h, s);
			free(s);
		}
	}
	return !c.bad || t->nr_formats > 0;
}

/* Reads a whole file of tracefs; NULL when it cannot. */
static char *read_text(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap = cap * 2 + 8192);
			if (!nb)
				break;
			buf = nb;
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		if (!got)
			break;
		n += got;
	}
	fclose(f);
	if (buf)
		buf[n] = '\0';
	*len = n;
	return buf;
}

/* Formats of the file's tracepoint events from this machine's tracefs. */
static void formats_from_tracefs(struct script_trace *t, struct pev_perfdata *pd)
{
	static const char *const roots[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};

	tep.set_long_size(t->h, (int)sizeof(long));
	tep.set_page_size(t->h, 4096);
	for (int i = 0; i < pev_perfdata_nr_events(pd); i++) {
		const struct pev_perfdata_event *ev = pev_perfdata_event(pd, i);
		char sys[128], path[512];
		const char *colon;

		if (ev->attr.type != PEV_TYPE_TRACEPOINT || !ev->name)
			continue;
		colon = strchr(ev->name, ':');
		if (!colon || (size_t)(colon - ev->name) >= sizeof(sys))
			continue;
		snprintf(sys, sizeof(sys), "%.*s", (int)(colon - ev->name), ev->name);
		for (size_t r = 0; r < 2; r++) {
			size_t len = 0;
			snprintf(path, sizeof(path), "%s/events/%s/%.*s/format", roots[r], sys,
				 (int)strcspn(colon + 1, ":/"), colon + 1);
			char *text = read_text(path, &len);
			if (text) {
				parse_format(t, text, len, sys);
				free(text);
				break;
			}
		}
	}
}

/* A handle with no formats yet; NULL with why filled when libtraceevent cannot be loaded. */
static struct script_trace *trace_alloc(char *why, size_t why_size)
{
	struct script_trace *t;

	if (!tep.alloc && !load(why, why_size))
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t || !(t->h = tep.alloc())) {
		free(t);
		snprintf(why, why_size, "out of memory");
		return NULL;
	}
	return t;
}

/* Parses one TRACING_DATA blob into t, filling why when it is malformed or formats were dropped. */
static void add_tracing_data(struct script_trace *t, const void *data, uint64_t size, char *why,
			     size_t why_size)
{
	int dropped = t->nr_dropped;

	if (!parse_tracing_data(t, data, size))
		snprintf(why, why_size, "its tracing data is malformed");
	else if (t->nr_dropped > dropped)
		snprintf(why, why_size,
			 "%d event format%s of its tracing data %s malformed and %s dropped",
			 t->nr_dropped - dropped, t->nr_dropped - dropped == 1 ? "" : "s",
			 t->nr_dropped - dropped == 1 ? "is" : "are",
			 t->nr_dropped - dropped == 1 ? "was" : "were");
}

struct script_trace *script_trace_from_data(const void *data, uint64_t size, char *why,
					    size_t why_size)
{
	struct script_trace *t = trace_alloc(why, why_size);

	if (t)
		add_tracing_data(t, data, size, why, why_size);
	return t;
}

struct script_trace *script_trace_new(struct pev_perfdata *pd, char *why, size_t why_size)
{
	const struct pev_perfdata_features *f = pev_perfdata_features(pd);
	struct script_trace *t = trace_alloc(why, why_size);

	if (!t)
		return NULL;
	for (size_t i = 0; i < f->nr_sections; i++)
		if (f->sections[i].feature == PEV_HEADER_TRACING_DATA)
			add_tracing_data(t, f->sections[i].data, f->sections[i].size, why, why_size);
	if (!t->nr_formats)
		formats_from_tracefs(t, pd);
	return t;
}

bool script_trace_print_raw(struct script_trace *t, FILE *out, uint64_t type, const void *raw,
			    uint32_t size, int cpu, uint64_t time)
{
	struct tep_event *ev;
	struct tep_record rec;
	struct trace_seq seq;

	if (!t || !raw || type > 65535 || !(ev = tep.find_event(t->h, (int)type)) ||
	    !trace_check_payload(ev, raw, size))
		return false;
	memset(&rec, 0, sizeof(rec));
	rec.ts = time;
	rec.cpu = cpu;
	rec.size = (int)size;
	rec.record_size = (int)size;
	rec.data = (void *)raw;
	tep.seq_init(&seq);
	tep.print_event(t->h, &seq, &rec, "%s", TEP_PRINT_INFO);
	tep.seq_terminate(&seq);
	/* Strings in the payload (comms, file names) are the traced programs': escaped. */
	pev_text_fputs(seq.buffer, out);
	tep.seq_destroy(&seq);
	return true;
}

bool script_trace_print(struct script_trace *t, FILE *out, const struct pev_replay_sample *s)
{
	const struct pev_sample *smp = &s->record->sample;

	if (!(smp->fields & PEV_SAMPLE_RAW))
		return false;
	return script_trace_print_raw(t, out, s->event->attr.config, smp->raw, smp->raw_size,
				      s->cpu, s->time);
}

void script_trace_free(struct script_trace *t)
{
	if (!t)
		return;
	tep.free(t->h);
	free(t);
}
