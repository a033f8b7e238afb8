/* SPDX-License-Identifier: MIT */
/*
 * tp_printer.c - tracepoint payloads as perf script prints them, through
 * their formats' print fmt and libtraceevent, loaded with dlopen on the
 * first printer so that a machine without it loses only this.
 *
 * A perf.data file's TRACING_DATA feature holds the formats perf saw: a
 * magic ("\x17\x08\x44tracing"), a version string, the file's endianness,
 * long size and page size, tracefs's header_page and header_event, the
 * ftrace formats, the event formats per system, kallsyms, the printk
 * formats and (from version 0.6) the saved command lines.
 *
 * That data is untrusted input and libtraceevent trusts it: each part passes
 * tp_check.c's checks before libtraceevent parses it (a format that fails is
 * dropped), a format is parsed once in a child first (the checks cannot
 * foresee every expression that crashes its parser), and each payload is
 * checked before libtraceevent prints it.
 */
#include "perfev/tracepoint.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "core/error_internal.h"
#include "core/util.h"
#include "core/log_internal.h"
#include "events/tp_check.h"
#include "events/tp_format_internal.h"

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

struct pev_tp_printer {
	struct tep_handle *h;
	int nr_formats;
	int nr_dropped; /* formats refused: by the checks or by libtraceevent's parser */
};

/* Why libtraceevent could not be loaded ("" when it was), written once by load_once. */
static char load_error[256];
static pthread_once_t load_control = PTHREAD_ONCE_INIT;

static void load_once(void)
{
	void **slots = (void **)&tep;
	void *h = dlopen(TRACEEVENT_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		snprintf(load_error, sizeof(load_error), "%s", dlerror());
		return;
	}
	for (size_t i = 0; i < PEV_ARRAY_SIZE(tep_names); i++) {
		if (!(slots[i] = dlsym(h, tep_names[i]))) {
			snprintf(load_error, sizeof(load_error), "%s has no %s: too old a libtraceevent",
				 TRACEEVENT_SONAME, tep_names[i]);
			memset(&tep, 0, sizeof(tep));
			dlclose(h);
			return;
		}
	}
	/* The library never prints: libtraceevent's parse warnings are silenced (1.5 and later). */
	void (*set_loglevel)(enum tep_loglevel) = (void (*)(enum tep_loglevel))dlsym(h,
										     "tep_set_loglevel");
	if (set_loglevel)
		set_loglevel(TEP_LOG_NONE);
}

/* Loads libtraceevent, once per process; 0 or PEV_EUNSUPPORTED with err saying why. */
static int load(struct pev_error *err)
{
	pthread_once(&load_control, load_once);
	if (tep.alloc)
		return 0;
	pev__error_start(err, PEV_EUNSUPPORTED, 0, "dlopen", NULL, false);
	pev__error_msg(err, "cannot print tracepoints through their print fmt: %s", load_error);
	pev__error_hint(err, "install libtraceevent (Debian: apt install libtraceevent1); "
			     "pev_tp_format_print() prints name=value without it");
	return PEV_EUNSUPPORTED;
}

PEV_API int pev_tp_printer_new(struct pev_tp_printer **out, struct pev_error *err)
{
	struct pev_tp_printer *p;
	int r;

	pev__error_clear(err);
	if (!out)
		return pev__bad_arg(err, "pev_tp_printer_new", "out", "must not be NULL");
	*out = NULL;
	if ((r = load(err)) < 0)
		return r;
	if (!(p = calloc(1, sizeof(*p))) || !(p->h = tep.alloc())) {
		free(p);
		return pev__error_start(err, PEV_ENOMEM, ENOMEM, NULL, NULL, false);
	}
	tep.set_file_bigendian(p->h, TEP_LITTLE_ENDIAN);
	tep.set_local_bigendian(p->h, TEP_LITTLE_ENDIAN);
	tep.set_long_size(p->h, (int)sizeof(long));
	tep.set_page_size(p->h, (int)sysconf(_SC_PAGESIZE));
	*out = p;
	return 0;
}

PEV_API void pev_tp_printer_free(struct pev_tp_printer *p)
{
	if (!p)
		return;
	tep.free(p->h);
	free(p);
}

PEV_API int pev_tp_printer_nr_formats(const struct pev_tp_printer *p)
{
	return p ? p->nr_formats : pev__bad_arg(NULL, "pev_tp_printer_nr_formats", "p", "NULL");
}

PEV_API int pev_tp_printer_nr_dropped(const struct pev_tp_printer *p)
{
	return p ? p->nr_dropped : pev__bad_arg(NULL, "pev_tp_printer_nr_dropped", "p", "NULL");
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
 * a child: its parser trusts what it reads, and tp_check.c cannot foresee
 * every malformed expression that crashes it (process_op() on a damaged ?:
 * dereferences NULL). The child only parses and exits. When no child can be
 * made, the checks decide.
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

PEV_API int pev_tp_printer_add_format(struct pev_tp_printer *p, const char *system,
				      const char *text, size_t len, struct pev_error *err)
{
	static const char func[] = "pev_tp_printer_add_format";
	char why[256] = "";
	char *s;
	int ok;

	pev__error_clear(err);
	if (!p || !system || !text)
		return pev__bad_arg(err, func, !p ? "p" : !system ? "system" : "text",
				    "must not be NULL");
	if (!pev__tp_check_format(text, len, why, sizeof(why))) {
		p->nr_dropped++;
		pev__error_start(err, PEV_EFORMAT, 0, NULL, NULL, false);
		pev__error_msg(err, "%s: a %s format that libtraceevent must not see: %s", func,
			       system, why);
		return PEV_EFORMAT;
	}
	if (!(s = copy_text(text, len)))
		return pev__error_start(err, PEV_ENOMEM, ENOMEM, NULL, NULL, false);
	ok = parses_in_child(s, len, system) && tep.parse_event(p->h, s, len, system) == 0;
	free(s);
	if (!ok) {
		p->nr_dropped++;
		pev__error_start(err, PEV_EFORMAT, 0, NULL, NULL, false);
		pev__error_msg(err, "%s: libtraceevent cannot parse this %s format", func, system);
		return PEV_EFORMAT;
	}
	p->nr_formats++;
	return 0;
}

PEV_API int pev_tp_printer_load(struct pev_tp_printer *p, const char *tracefs, const char *system,
				const char *name, struct pev_error *err)
{
	static const char func[] = "pev_tp_printer_load";
	uint64_t id;
	size_t len;
	char *text;
	int r;

	pev__error_clear(err);
	if (!p || !system || !name)
		return pev__bad_arg(err, func, !p ? "p" : !system ? "system" : "name",
				    "must not be NULL");
	if ((r = pev__tp_format_read(tracefs, system, name, func, &text, &len, &id, err)) < 0)
		return r;
	r = pev_tp_printer_add_format(p, system, text, len, err);
	free(text);
	return r;
}

/* ---- a perf.data file's TRACING_DATA ---------------------------------------- */

/* A cursor over the bytes; every read checks what is left. */
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

/* Parses one format of the section; a format that fails is dropped. */
static void section_format(struct pev_tp_printer *p, struct cursor *c, const char *sys)
{
	uint64_t n = take_u(c, 8);
	const void *f = take(c, n);

	if (f && sys && pev_tp_printer_add_format(p, sys, f, n, NULL) < 0)
		pev__log(PEV_LOG_DEBUG, "tracing data: a %s format dropped: %s", sys,
			 pev_last_error()->message);
}

/* Refuses a malformed section, saying what is wrong. Returns PEV_EFORMAT. */
static int bad_section(struct pev_error *err, const char *what)
{
	pev__error_start(err, PEV_EFORMAT, 0, NULL, NULL, false);
	pev__error_msg(err, "pev_tp_printer_add_tracing_data: %s", what);
	return PEV_EFORMAT;
}

PEV_API int pev_tp_printer_add_tracing_data(struct pev_tp_printer *p, const void *data,
					    size_t size, struct pev_error *err)
{
	static const unsigned char magic[10] = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'};
	const char *version, *label;
	const unsigned char *m, *b;
	int before;
	uint64_t n;

	pev__error_clear(err);
	if (!p || !data)
		return pev__bad_arg(err, "pev_tp_printer_add_tracing_data", !p ? "p" : "data",
				    "must not be NULL");
	struct cursor c = {data, (const unsigned char *)data + size, false};
	before = p->nr_formats;
	m = take(&c, sizeof(magic));
	if (!m || memcmp(m, magic, sizeof(magic)) != 0)
		return bad_section(err, "no tracing data magic (\\x17\\x08\\x44tracing)");
	version = take_str(&c);
	b = take(&c, 2); /* big endian, long size */
	n = take_u(&c, 4);
	if (!version || !b)
		return bad_section(err, "the header is cut short");
	if (b[0])
		return bad_section(err, "a big-endian file's tracing data, which perfev does not read");
	if ((b[1] != 4 && b[1] != 8) || n < 1024 || n > (1u << 24) || (n & (n - 1)))
		return bad_section(err, "a long size or page size no machine has");
	tep.set_long_size(p->h, b[1]);
	tep.set_page_size(p->h, (int)n);

	label = take_str(&c); /* "header_page" */
	n = take_u(&c, 8);
	const void *hp = take(&c, n);
	if (!label || !hp)
		return bad_section(err, "the header page is cut short");
	char *hps = copy_text(hp, n);
	if (hps && pev__tp_check_header_page(hps, n))
		tep.parse_header_page(p->h, hps, n, b[1]);
	free(hps);
	label = take_str(&c); /* "header_event" */
	n = take_u(&c, 8);
	if (!label || !take(&c, n))
		return bad_section(err, "the header event is cut short");

	for (uint64_t i = 0, nr = take_u(&c, 4); i < nr && !c.bad; i++)
		section_format(p, &c, "ftrace");
	for (uint64_t s = 0, nsys = take_u(&c, 4); s < nsys && !c.bad; s++) {
		const char *sys = take_str(&c);
		for (uint64_t i = 0, nr = take_u(&c, 4); i < nr && !c.bad; i++)
			section_format(p, &c, sys);
	}
	n = take_u(&c, 4); /* kallsyms: not needed for the payloads */
	take(&c, n);
	n = take_u(&c, 4);
	const void *pf = take(&c, n);
	if (pf && n) {
		char *s = copy_text(pf, n);
		if (s && pev__tp_check_printk(s, n))
			tep.parse_printk_formats(p->h, s);
		free(s);
	}
	if (!c.bad && strcmp(version, "0.6") >= 0) {
		n = take_u(&c, 8);
		const void *cl = take(&c, n);
		if (cl && n) {
			char *s = copy_text(cl, n);
			if (s)
				tep.parse_saved_cmdlines(p->h, s);
			free(s);
		}
	}
	/* A section cut short after its formats still gives those formats. */
	if (c.bad && p->nr_formats == before)
		return bad_section(err, "the section is cut short before any format");
	return p->nr_formats - before;
}

/* ---- printing ---------------------------------------------------------------- */

PEV_API int pev_tp_printer_print(struct pev_tp_printer *p, uint64_t id, const void *raw,
				 size_t size, int cpu, uint64_t time, char *buf, size_t bufsize)
{
	static const char func[] = "pev_tp_printer_print";
	struct tep_event *ev;
	struct tep_record rec;
	struct trace_seq seq;
	int len;

	if (!p || !raw || (!buf && bufsize))
		return pev__bad_arg(NULL, func, !p ? "p" : !raw ? "raw" : "buf", "must not be NULL");
	if (id > 65535 || !(ev = tep.find_event(p->h, (int)id))) {
		pev__error_start(NULL, PEV_ENOTFOUND, 0, NULL, NULL, false);
		pev__error_msg(NULL, "%s: no format of tracepoint id %llu", func,
			       (unsigned long long)id);
		return PEV_ENOTFOUND;
	}
	if (size > PEV__TP_CHECK_MAX_RECORD || !pev__tp_check_payload(ev, raw, (uint32_t)size)) {
		pev__error_start(NULL, PEV_EFORMAT, 0, NULL, NULL, false);
		pev__error_msg(NULL, "%s: a %zu-byte payload that does not fit the %s format",
			       func, size, ev->name ? ev->name : "tracepoint's");
		return PEV_EFORMAT;
	}
	memset(&rec, 0, sizeof(rec));
	rec.ts = time;
	rec.cpu = cpu;
	rec.size = (int)size;
	rec.record_size = (int)size;
	rec.data = (void *)(uintptr_t)raw;
	tep.seq_init(&seq);
	tep.print_event(p->h, &seq, &rec, "%s", TEP_PRINT_INFO);
	tep.seq_terminate(&seq);
	len = snprintf(buf, bufsize, "%s", seq.buffer ? seq.buffer : "");
	tep.seq_destroy(&seq);
	return len;
}
