/* SPDX-License-Identifier: MIT */
/*
 * record_tracing.c - the TRACING_DATA header feature of a recording with
 * tracepoints: without it perf cannot decode their samples and refuses the
 * whole file. It is what perf's readers parse, copied from tracefs:
 *
 *   "\027\010\104tracing" "0.6\0", endianness (1 byte), sizeof(long) (1),
 *   the page size (4), "header_page\0" and "header_event\0" each followed
 *   by a 64-bit size and the file, the ftrace formats (a 32-bit count: none),
 *   the systems of the recorded tracepoints (a 32-bit count; per system
 *   its name, a 32-bit count and each event's format with a 64-bit size),
 *   kallsyms and printk formats (32-bit sizes: left empty) and the saved
 *   command lines (a 64-bit size and the file).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"

/* A growing byte buffer. */
struct tbuf {
	unsigned char *p;
	size_t len, cap;
};

static void put(struct tbuf *b, const void *data, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = 2 * (b->len + n) + 4096;
		b->p = realloc(b->p, b->cap);
		if (!b->p) {
			cli_error("out of memory");
			exit(1);
		}
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

/* A file's bytes after its size (width 4 or 8 bytes); an unreadable file is empty. */
static void put_file(struct tbuf *b, const char *path, int width)
{
	struct tbuf content = {0};
	char chunk[8192];
	size_t n;
	FILE *f = fopen(path, "re");

	while (f && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		put(&content, chunk, n);
	if (f)
		fclose(f);
	if (width == 4) {
		uint32_t size = (uint32_t)content.len;
		put(b, &size, 4);
	} else {
		uint64_t size = content.len;
		put(b, &size, 8);
	}
	if (content.len)
		put(b, content.p, content.len);
	free(content.p);
}

static void put_u32(struct tbuf *b, uint32_t v)
{
	put(b, &v, 4);
}

/* Whether event e is a tracepoint; its "system:name" in *name. */
static bool tracepoint_of(const struct rec_state *s, int e, const char **name)
{
	const struct pev_attr *a = pev_counter_attr(s->events[e].counters[0]);

	*name = s->events[e].tracepoint;
	return a->type == PEV_TYPE_TRACEPOINT && (*name)[0] && strchr(*name, ':');
}

/* Every format of system `sys` the recorded tracepoints use. */
static void put_system(struct tbuf *b, const struct rec_state *s, const char *tracefs,
                       const char *sys, size_t sys_len)
{
	char path[4096];
	uint32_t n = 0;
	const char *name;

	snprintf(path, sizeof(path), "%.*s", (int)sys_len, sys);
	put(b, path, strlen(path) + 1);
	for (int e = 0; e < s->nevents; e++)
		if (tracepoint_of(s, e, &name) && strncmp(name, sys, sys_len) == 0 &&
		    name[sys_len] == ':')
			n++;
	put_u32(b, n);
	for (int e = 0; e < s->nevents; e++)
		if (tracepoint_of(s, e, &name) && strncmp(name, sys, sys_len) == 0 &&
		    name[sys_len] == ':') {
			/* "sys:event:k": the modifiers are not part of the event's name */
			const char *event = name + sys_len + 1;
			if (snprintf(path, sizeof(path), "%s/events/%.*s/%.*s/format", tracefs,
			             (int)sys_len, sys, (int)strcspn(event, ":"), event) >=
			    (int)sizeof(path))
				path[0] = '\0'; /* cannot be: an empty format */
			put_file(b, path, 8);
		}
}

int rec_tracing_data(struct rec_state *s)
{
	static const char magic[] = "\027\010\104tracing";
	struct tbuf b = {0};
	struct pev_error err;
	char tracefs[4096], path[4200];
	const char *name, *other;
	uint32_t nsys = 0;
	int r = 0;

	bool any = false;
	for (int e = 0; e < s->nevents; e++)
		any |= tracepoint_of(s, e, &name);
	if (!any)
		return 0;
	if (pev_tracefs_path(true, tracefs, sizeof(tracefs), &err) != 0) {
		cli_warning("no tracing data in '%s' (perf cannot read its tracepoints): %s",
		            s->cfg.output, err.message);
		return 0;
	}
	put(&b, magic, 10);
	put(&b, "0.6", 4);
	unsigned char endian = 0, long_size = (unsigned char)sizeof(long);
	put(&b, &endian, 1);
	put(&b, &long_size, 1);
	put_u32(&b, (uint32_t)sysconf(_SC_PAGESIZE));
	put(&b, "header_page", 12);
	snprintf(path, sizeof(path), "%s/events/header_page", tracefs);
	put_file(&b, path, 8);
	put(&b, "header_event", 13);
	snprintf(path, sizeof(path), "%s/events/header_event", tracefs);
	put_file(&b, path, 8);
	put_u32(&b, 0); /* ftrace's own formats: none recorded */

	/* Each system once, in the order its first event comes. */
	for (int e = 0; e < s->nevents; e++) {
		if (!tracepoint_of(s, e, &name))
			continue;
		bool seen = false;
		for (int o = 0; o < e && !seen; o++)
			seen = tracepoint_of(s, o, &other) &&
			       strcspn(other, ":") == strcspn(name, ":") &&
			       strncmp(other, name, strcspn(name, ":")) == 0;
		nsys += !seen;
	}
	put_u32(&b, nsys);
	for (int e = 0; e < s->nevents; e++) {
		if (!tracepoint_of(s, e, &name))
			continue;
		bool seen = false;
		for (int o = 0; o < e && !seen; o++)
			seen = tracepoint_of(s, o, &other) &&
			       strcspn(other, ":") == strcspn(name, ":") &&
			       strncmp(other, name, strcspn(name, ":")) == 0;
		if (!seen)
			put_system(&b, s, tracefs, name, strcspn(name, ":"));
	}
	put_u32(&b, 0); /* kallsyms: perf reads them from the machine */
	put_u32(&b, 0); /* printk formats */
	snprintf(path, sizeof(path), "%s/saved_cmdlines", tracefs);
	put_file(&b, path, 8);

	if (pev_perfdata_writer_set_feature(s->writer, PEV_HEADER_TRACING_DATA, b.p, b.len) != 0) {
		cli_error("cannot add the tracing data to '%s': out of memory", s->cfg.output);
		r = -1;
	}
	free(b.p);
	return r;
}
