/* SPDX-License-Identifier: MIT */
/*
 * tp_check.c - checks on tracing data before libtraceevent sees it.
 *
 * The TRACING_DATA feature of a perf.data file is untrusted input, and
 * libtraceevent trusts what it parses: a print fmt that names, in
 * __print_flags(REC->NAME, ...), a field the format does not declare makes
 * its parser dereference NULL (process_entry() sets a flag on the field it
 * did not find), a __get_cpumask() of an unknown field does the same when
 * printing, the first argument of __print_hex() is read as a field whatever
 * it is, and a dynamic string is printed up to its NUL, wherever that is.
 * So each format is checked here first, strictly (real formats are plain
 * C-like text, and a format that fails is dropped: its events' payloads
 * show as bytes), and each payload before it is printed.
 */
#include <ctype.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "events/tp_check.h"

#define MAX_NAME 64

/* The declared fields of one format. */
struct names {
	char name[PEV__TP_CHECK_MAX_FIELDS][MAX_NAME];
	int nr;
};

static bool is_ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static bool fail(char *why, size_t size, const char *what)
{
	if (why && size)
		snprintf(why, size, "%s", what);
	return false;
}

/* Text a tracefs file could hold: printable ASCII, tabs and newlines. */
static bool plain_text(const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c == '\0' && i + 1 == len)
			break; /* a terminating NUL, as some writers leave */
		if (c >= 0x7f || (c < 0x20 && c != '\t' && c != '\n' && c != '\r'))
			return false;
	}
	return true;
}

/* Parses the decimal number after `key` in line[0, len); -1 when there is none. */
static long number_after(const char *line, size_t len, const char *key)
{
	size_t klen = strlen(key);
	long v = 0;

	for (size_t i = 0; i + klen <= len; i++) {
		if (memcmp(line + i, key, klen) != 0)
			continue;
		i += klen;
		while (i < len && line[i] == ' ')
			i++;
		if (i >= len || !isdigit((unsigned char)line[i]))
			return -1;
		for (int digits = 0; i < len && isdigit((unsigned char)line[i]); i++) {
			if (++digits > 7)
				return -1;
			v = v * 10 + (line[i] - '0');
		}
		return v;
	}
	return -1;
}

/*
 * One field line: "field:TYPE NAME[N];\toffset:O;\tsize:S;\tsigned:G;".
 * The declaration may hold only identifiers, spaces, '*' and '[...]' of
 * digits or identifiers, so that its last identifier outside brackets is the
 * name libtraceevent takes. Adds the name to n when n is not NULL.
 */
static bool field_line(const char *line, size_t len, struct names *n, long *common_type_at)
{
	const char *colon = memchr(line, ':', len);
	const char *decl, *semi, *name = NULL;
	size_t name_len = 0;
	long offset, size;
	int depth = 0;

	if (!colon)
		return false;
	decl = colon + 1;
	semi = memchr(decl, ';', len - (size_t)(decl - line));
	if (!semi)
		return false;
	for (const char *p = decl; p < semi; p++) {
		if (*p == '[') {
			if (depth++)
				return false;
		} else if (*p == ']') {
			if (!depth--)
				return false;
		} else if (is_ident(*p)) {
			const char *s = p;
			while (p + 1 < semi && is_ident(p[1]))
				p++;
			if (!depth) {
				name = s;
				name_len = (size_t)(p - s) + 1;
			}
		} else if (*p != ' ' && *p != '\t' && *p != '*') {
			return false;
		}
	}
	if (depth || !name || name_len >= MAX_NAME)
		return false;
	offset = number_after(semi, len - (size_t)(semi - line), "offset:");
	size = number_after(semi, len - (size_t)(semi - line), "size:");
	if (offset < 0 || size < 0 || offset + size > PEV__TP_CHECK_MAX_RECORD)
		return false;
	if (name_len == 11 && memcmp(name, "common_type", 11) == 0) {
		if (offset != 0 || size != 2)
			return false; /* libtraceevent reads every record's type there */
		*common_type_at = 0;
	}
	if (n) {
		if (n->nr >= PEV__TP_CHECK_MAX_FIELDS)
			return false;
		memcpy(n->name[n->nr], name, name_len);
		n->name[n->nr++][name_len] = '\0';
	}
	return true;
}

static bool known(const struct names *n, const char *s, size_t len)
{
	for (int i = 0; i < n->nr; i++)
		if (strlen(n->name[i]) == len && memcmp(n->name[i], s, len) == 0)
			return true;
	return false;
}

static const char *skip_space(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* The identifier at p (maybe empty); its length in *len. */
static const char *ident_at(const char *p, const char *end, size_t *len)
{
	const char *s = p;

	while (p < end && is_ident(*p))
		p++;
	*len = (size_t)(p - s);
	return s;
}

/*
 * The first argument of __print_hex(), __print_hex_str() or __print_array()
 * at p: REC->NAME or __get_dynamic_array(NAME) (or its rel_ form), then ','.
 */
static bool array_arg(const char *p, const char *end, const struct names *n)
{
	size_t len;
	const char *id;

	p = skip_space(p, end);
	id = ident_at(p, end, &len);
	p = skip_space(id + len, end);
	if (len == 3 && memcmp(id, "REC", 3) == 0) {
		if (end - p < 2 || memcmp(p, "->", 2) != 0)
			return false;
		id = ident_at(skip_space(p + 2, end), end, &len);
		if (!known(n, id, len))
			return false;
		p = skip_space(id + len, end);
	} else if ((len == 19 && memcmp(id, "__get_dynamic_array", 19) == 0) ||
		   (len == 23 && memcmp(id, "__get_rel_dynamic_array", 23) == 0)) {
		if (p >= end || *p != '(')
			return false;
		id = ident_at(skip_space(p + 1, end), end, &len);
		if (!known(n, id, len))
			return false;
		p = skip_space(id + len, end);
		if (p >= end || *p != ')')
			return false;
		p = skip_space(p + 1, end);
	} else {
		return false;
	}
	return p < end && *p == ',';
}

/*
 * The print fmt's references to fields, all of them (inside string literals
 * too: a false alarm there costs a format, a miss a crash): every REC is
 * followed by "->" (or ")->") and a declared field, every __get_*( by a
 * declared field, and every __print_hex/__print_array starts with a field
 * or a dynamic array.
 */
static bool print_fmt_refs(const char *p, const char *end, const struct names *n)
{
	for (const char *q = p; q < end; q++) {
		size_t len;
		const char *id;

		if (!is_ident(*q) || (q > p && is_ident(q[-1])))
			continue;
		id = ident_at(q, end, &len);
		if (len == 3 && memcmp(id, "REC", 3) == 0) {
			const char *r = skip_space(id + 3, end);
			if (r < end && *r == ')')
				r = skip_space(r + 1, end);
			if (end - r < 2 || memcmp(r, "->", 2) != 0)
				return false;
			id = ident_at(skip_space(r + 2, end), end, &len);
			if (!known(n, id, len))
				return false;
		} else if (len > 6 && memcmp(id, "__get_", 6) == 0) {
			const char *r = skip_space(id + len, end);
			if (r >= end || *r != '(')
				return false;
			id = ident_at(skip_space(r + 1, end), end, &len);
			if (!known(n, id, len))
				return false;
		} else if ((len == 11 && memcmp(id, "__print_hex", 11) == 0) ||
			   (len == 15 && memcmp(id, "__print_hex_str", 15) == 0) ||
			   (len == 13 && memcmp(id, "__print_array", 13) == 0)) {
			const char *r = skip_space(id + len, end);
			if (r >= end || *r != '(' || !array_arg(r + 1, end, n))
				return false;
		}
		q = id + len - 1;
	}
	return true;
}

static bool starts(const char *line, size_t len, const char *word)
{
	size_t w = strlen(word);
	return len >= w && memcmp(line, word, w) == 0;
}

bool pev__tp_check_format(const char *text, size_t len, char *why, size_t why_size)
{
	struct names *n;
	const char *end = text + len, *line, *print = NULL;
	long id = -1, common_type_at = -1;
	bool named = false, format = false, ok;

	if (len && !text[len - 1])
		end--;
	if (!len || len > 1024 * 1024)
		return fail(why, why_size, "it is empty or over 1 MiB");
	if (!plain_text(text, len) || memchr(text, '\0', (size_t)(end - text)))
		return fail(why, why_size, "it holds bytes that are not text");
	n = calloc(1, sizeof(*n));
	if (!n)
		return fail(why, why_size, "out of memory");
	for (line = text; line < end && !print;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *s = skip_space(line, nl ? nl : end);
		size_t l = (size_t)((nl ? nl : end) - s);

		if (starts(s, l, "name:")) {
			named = true;
		} else if (starts(s, l, "ID:")) {
			id = number_after(s, l, "ID:");
			if (id < 0 || id > 65535)
				break;
		} else if (starts(s, l, "format:")) {
			format = true;
		} else if (starts(s, l, "field")) {
			if (!format || !field_line(s, l, n, &common_type_at)) {
				free(n);
				return fail(why, why_size, "a field line is malformed, or its offset "
					    "and size are out of bounds");
			}
		} else if (starts(s, l, "print fmt:")) {
			print = s + 10;
		} else if (l) {
			break;
		}
		line = nl ? nl + 1 : end;
	}
	if (!named || id < 0 || !format || !print || common_type_at != 0) {
		free(n);
		return fail(why, why_size, "it lacks its name, ID, fields, common_type at offset "
			    "0 or print fmt, or has a line that is none of them");
	}
	print = skip_space(print, end);
	ok = print < end && *print == '"' && print_fmt_refs(print, end, n);
	free(n);
	return ok || fail(why, why_size, "its print fmt names a field the format does not "
			  "declare");
}

bool pev__tp_check_header_page(const char *text, size_t len)
{
	const char *end = text + len;
	long unused = -1;

	if (!plain_text(text, len))
		return false;
	for (const char *line = text; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *s = skip_space(line, nl ? nl : end);
		size_t l = (size_t)((nl ? nl : end) - s);

		if (l && s[0] != '\0' && (!starts(s, l, "field") || !field_line(s, l, NULL, &unused)))
			return false;
		line = nl ? nl + 1 : end;
	}
	return true;
}

size_t pev__tp_check_printk(char *text, size_t len)
{
	size_t out = 0;

	for (size_t at = 0; at < len;) {
		char *nl = memchr(text + at, '\n', len - at);
		size_t l = (nl ? (size_t)(nl - text) : len) - at;
		char *colon = memchr(text + at, ':', l);
		/* "ADDRESS : " then 3 characters at least, 4 with a leading quote */
		bool ok = l && text[at] != ':' && colon &&
			  (size_t)(colon - (text + at)) + 6 <= l && !memchr(text + at, '\0', l);

		if (ok) {
			memmove(text + out, text + at, l);
			out += l;
			if (nl)
				text[out++] = '\n';
		}
		at += l + 1;
	}
	if (out < len)
		text[out] = '\0';
	return out;
}

/* A little-endian number of size bytes at p. */
static uint32_t read_le(const unsigned char *p, int size)
{
	uint32_t v = 0;

	for (int i = size - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static bool field_fits(const struct tep_format_field *f, const unsigned char *raw, uint32_t size)
{
	uint32_t loc, offset, len;

	if (f->offset < 0 || f->size < 0 || (uint64_t)f->offset + (uint64_t)f->size > size)
		return false;
	if (!(f->flags & TEP_FIELD_IS_DYNAMIC))
		return true;
	if (f->size != 2 && f->size != 4)
		return false;
	loc = read_le(raw + f->offset, f->size);
	offset = loc & 0xffff;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		offset += (uint32_t)(f->offset + f->size);
	if (offset > size)
		return false;
	len = f->size == 2 ? size - offset : loc >> 16;
	if (len > size - offset)
		return false;
	if ((f->flags & TEP_FIELD_IS_STRING) && len && !memchr(raw + offset, '\0', len))
		return false;
	return true;
}

bool pev__tp_check_payload(const struct tep_event *ev, const void *raw, uint32_t size)
{
	const unsigned char *p = raw;

	if (!ev || !raw || size < 2 || size > PEV__TP_CHECK_MAX_RECORD ||
	    read_le(p, 2) != (uint32_t)ev->id)
		return false;
	for (const struct tep_format_field *f = ev->format.common_fields; f; f = f->next)
		if (!field_fits(f, p, size))
			return false;
	for (const struct tep_format_field *f = ev->format.fields; f; f = f->next)
		if (!field_fits(f, p, size))
			return false;
	return true;
}
