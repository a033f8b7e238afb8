/* SPDX-License-Identifier: MIT */
/*
 * tp_format.c - a tracepoint's format (tracefs's events/SYS/NAME/format):
 * its fields parsed from the untrusted text, and their values read from a
 * sample's raw payload with every offset checked against the payload.
 *
 * The text is line based:
 *   name: sched_switch
 *   ID: 372
 *   format:
 *   <TAB>field:char prev_comm[16];<TAB>offset:8;<TAB>size:16;<TAB>signed:0;
 *   ...
 *   print fmt: "prev_comm=%s ...", REC->prev_comm, ...
 * A field's declaration is "TYPE NAME", "TYPE NAME[N]" for a fixed array, or
 * "__data_loc TYPE[] NAME" / "__rel_loc TYPE[] NAME" for data stored after
 * the fixed fields, found through a u32 whose low 16 bits are the offset and
 * high 16 bits the length.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfev/tracepoint.h"
#include "core/error_internal.h"
#include "core/util.h"
#include "events/tp_format_internal.h"

/* The most fields a format may declare, the largest record, the longest name. */
#define TP_MAX_FIELDS 256
#define TP_MAX_RECORD 65536
#define TP_MAX_NAME   128
/* The largest format file read from tracefs. */
#define TP_MAX_TEXT (256 * 1024)

struct pev_tp_format {
	char *name;
	char *print_fmt;
	uint64_t id;
	int nr;
	struct pev_tp_field fields[TP_MAX_FIELDS];
};

/* ---- parsing ---------------------------------------------------------------------- */

/* Says why line `line` (1-based) of the format fails; returns PEV_EFORMAT. */
static int PEV_PRINTF(3, 4) bad_line(struct pev_error *err, int line, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	pev__error_start(err, PEV_EFORMAT, 0, NULL, NULL, true);
	pev__error_msg(err, "tracepoint format, line %d: %s", line, why);
	return PEV_EFORMAT;
}

/* Copies s[0, n) without its leading and trailing blanks into a new string; NULL without memory. */
static char *dup_trimmed(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	char *d = malloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/* Reads "KEY:<digits>;" at *p (blanks allowed before KEY); advances *p past the ';'. */
static bool read_number_field(const char **p, const char *end, const char *key, uint64_t *out)
{
	const char *s = *p;
	size_t klen = strlen(key);
	uint64_t v = 0;
	int digits = 0;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if ((size_t)(end - s) < klen || memcmp(s, key, klen) != 0)
		return false;
	for (s += klen; s < end && isdigit((unsigned char)*s); s++) {
		if (++digits > 9)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (!digits || s >= end || *s != ';')
		return false;
	*p = s + 1;
	*out = v;
	return true;
}

static bool is_ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Whether type (without array brackets) is one of the char types strings are made of. */
static bool is_char_type(const char *type, size_t n)
{
	static const char *const chars[] = {"char", "const char", "signed char", "unsigned char"};

	for (size_t i = 0; i < sizeof(chars) / sizeof(chars[0]); i++)
		if (strlen(chars[i]) == n && memcmp(type, chars[i], n) == 0)
			return true;
	return false;
}

/*
 * Splits a declaration decl[0, n) into the field's name and type, and sets
 * its kind, element count and string flag. Returns false when it is not one.
 */
static bool parse_decl(const char *decl, size_t n, struct pev_tp_field *f, char **name,
		       char **type)
{
	static const char data_loc[] = "__data_loc ", rel_loc[] = "__rel_loc ";
	const char *end = decl + n, *name_end, *name_start, *bracket = NULL;
	long long count = -1;

	f->kind = PEV_TP_FIELD_INTEGER;
	if (n > sizeof(data_loc) - 1 && memcmp(decl, data_loc, sizeof(data_loc) - 1) == 0) {
		f->kind = PEV_TP_FIELD_DATA_LOC;
		decl += sizeof(data_loc) - 1;
	} else if (n > sizeof(rel_loc) - 1 && memcmp(decl, rel_loc, sizeof(rel_loc) - 1) == 0) {
		f->kind = PEV_TP_FIELD_REL_LOC;
		decl += sizeof(rel_loc) - 1;
	}
	while (end > decl && isspace((unsigned char)end[-1]))
		end--;
	/* A fixed array's "[N]" after the name. */
	if (end > decl && end[-1] == ']') {
		bracket = memchr(decl, '[', (size_t)(end - decl));
		while (bracket && memchr(bracket + 1, '[', (size_t)(end - bracket - 1)))
			bracket = memchr(bracket + 1, '[', (size_t)(end - bracket - 1));
		if (!bracket)
			return false;
		count = 0;
		for (const char *d = bracket + 1; d < end - 1; d++) {
			if (!isdigit((unsigned char)*d) || count > TP_MAX_RECORD) {
				count = -2; /* not a plain number: a byte array */
				break;
			}
			count = count * 10 + (*d - '0');
		}
		name_end = bracket;
	} else {
		name_end = end;
	}
	name_start = name_end;
	while (name_start > decl && is_ident_char(name_start[-1]))
		name_start--;
	if (name_start == name_end || name_end - name_start >= TP_MAX_NAME ||
	    isdigit((unsigned char)*name_start))
		return false;
	/* The type: what comes before the name, then the brackets, if any. */
	const char *type_end = name_start;
	while (type_end > decl && isspace((unsigned char)type_end[-1]))
		type_end--;
	if (type_end == decl)
		return false;
	size_t tlen = (size_t)(type_end - decl), blen = bracket ? (size_t)(end - bracket) : 0;
	*type = malloc(tlen + blen + 1);
	*name = malloc((size_t)(name_end - name_start) + 1);
	if (!*type || !*name)
		return true; /* the caller sees the NULL */
	memcpy(*type, decl, tlen);
	memcpy(*type + tlen, bracket ? bracket : "", blen);
	(*type)[tlen + blen] = '\0';
	memcpy(*name, name_start, (size_t)(name_end - name_start));
	(*name)[name_end - name_start] = '\0';

	/* A dynamic field's type ends in "[]": its elements are what comes before. */
	size_t base = tlen;
	if (f->kind != PEV_TP_FIELD_INTEGER && base > 2 && memcmp(decl + base - 2, "[]", 2) == 0)
		base -= 2;
	while (base && isspace((unsigned char)decl[base - 1]))
		base--;
	f->is_string = is_char_type(decl, base);
	if (f->kind == PEV_TP_FIELD_DATA_LOC || f->kind == PEV_TP_FIELD_REL_LOC) {
		f->nr_elems = 0;
	} else if (bracket) {
		f->kind = PEV_TP_FIELD_ARRAY;
		f->nr_elems = count >= 0 ? (uint32_t)count : 0;
	} else {
		if (memchr(decl, '*', tlen))
			f->kind = PEV_TP_FIELD_POINTER;
		f->nr_elems = 1;
	}
	return true;
}

/* Parses one "field:..." line (s[0, n)) into f; returns 0 or a code. */
static int parse_field(const char *s, size_t n, int line, struct pev_tp_field *f,
		       struct pev_error *err)
{
	const char *end = s + n, *semi;
	uint64_t offset, size, sign = 0;
	char *name = NULL, *type = NULL;

	memset(f, 0, sizeof(*f));
	s += strlen("field:");
	if (!(semi = memchr(s, ';', (size_t)(end - s))))
		return bad_line(err, line, "a field without ';' after its declaration");
	if (!parse_decl(s, (size_t)(semi - s), f, &name, &type))
		return bad_line(err, line, "cannot read the declaration '%.*s'", (int)(semi - s), s);
	if (!name || !type) {
		free(name);
		free(type);
		return pev__error_start(err, PEV_ENOMEM, ENOMEM, NULL, NULL, true);
	}
	f->name = name;
	f->type = type;
	s = semi + 1;
	if (!read_number_field(&s, end, "offset:", &offset) ||
	    !read_number_field(&s, end, "size:", &size))
		return bad_line(err, line, "field '%s' has no offset:N; size:N;", name);
	if (!read_number_field(&s, end, "signed:", &sign))
		sign = 0; /* kernels before 2.6.33 did not say */
	if (size == 0 || offset + size > TP_MAX_RECORD)
		return bad_line(err, line, "field '%s' takes bytes %" PRIu64 " to %" PRIu64
				", outside a %d-byte record", name, offset, offset + size,
				TP_MAX_RECORD);
	f->offset = (uint32_t)offset;
	f->size = (uint32_t)size;
	f->is_signed = sign != 0;
	f->is_common = strncmp(name, "common_", 7) == 0;
	switch (f->kind) {
	case PEV_TP_FIELD_DATA_LOC:
	case PEV_TP_FIELD_REL_LOC:
		if (size != 4)
			return bad_line(err, line, "dynamic field '%s' is %" PRIu64 " bytes, not 4",
					name, size);
		f->elem_size = 1;
		break;
	case PEV_TP_FIELD_ARRAY:
		if (!f->nr_elems || size % f->nr_elems)
			f->nr_elems = (uint32_t)size; /* a size the text does not give: bytes */
		f->elem_size = (uint32_t)size / f->nr_elems;
		break;
	default:
		if (size != 1 && size != 2 && size != 4 && size != 8) {
			/* An odd-sized scalar: read it as bytes. */
			f->kind = PEV_TP_FIELD_ARRAY;
			f->nr_elems = (uint32_t)size;
			f->elem_size = 1;
		} else {
			f->elem_size = (uint32_t)size;
		}
		break;
	}
	return 0;
}

/* Text a tracefs file could hold: printable ASCII, tabs and newlines (a last NUL allowed). */
static bool plain_text(const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c == '\0' && i + 1 == len)
			break;
		if (c >= 0x7f || (c < 0x20 && c != '\t' && c != '\n' && c != '\r'))
			return false;
	}
	return true;
}

PEV_API int pev_tp_format_parse(const char *text, size_t len, struct pev_tp_format **out,
				struct pev_error *err)
{
	static const char fn[] = "pev_tp_format_parse";
	struct pev_tp_format *f;
	const char *p, *end;
	int line = 0, r = 0;

	pev__error_clear(err);
	if (!out)
		return pev__bad_arg(err, fn, "out", "NULL");
	*out = NULL;
	if (!text)
		return pev__bad_arg(err, fn, "text", "NULL");
	if (len && text[len - 1] == '\0')
		len--;
	if (!plain_text(text, len))
		return bad_line(err, 0, "not plain text (a byte outside printable ASCII)");
	if (!(f = calloc(1, sizeof(*f))))
		return pev__error_start(err, PEV_ENOMEM, ENOMEM, NULL, NULL, true);
	for (p = text, end = text + len; p < end && r == 0;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end;
		const char *s = p;
		size_t n;

		line++;
		p = nl ? nl + 1 : end;
		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		n = (size_t)(e - s);
		if (n && s[n - 1] == '\r')
			n--;
		if (n >= 5 && memcmp(s, "name:", 5) == 0 && !f->name) {
			if (!(f->name = dup_trimmed(s + 5, n - 5)))
				r = PEV_ENOMEM;
		} else if (n >= 3 && memcmp(s, "ID:", 3) == 0) {
			char num[24];
			size_t k = n - 3 < sizeof(num) - 1 ? n - 3 : sizeof(num) - 1;
			memcpy(num, s + 3, k);
			num[k] = '\0';
			char *stop;
			errno = 0;
			unsigned long long id = strtoull(num, &stop, 10);
			while (*stop == ' ')
				stop++;
			if (errno || *stop || stop == num)
				r = bad_line(err, line, "ID is not a number");
			f->id = id;
		} else if (n >= 6 && memcmp(s, "field:", 6) == 0) {
			if (f->nr == TP_MAX_FIELDS)
				r = bad_line(err, line, "more than %d fields", TP_MAX_FIELDS);
			else if ((r = parse_field(s, n, line, &f->fields[f->nr], err)) == 0 ||
				 f->fields[f->nr].name || f->fields[f->nr].type)
				f->nr++; /* kept to be freed, even when it failed */
		} else if (n >= 10 && memcmp(s, "print fmt:", 10) == 0 && !f->print_fmt) {
			if (!(f->print_fmt = dup_trimmed(s + 10, n - 10)))
				r = PEV_ENOMEM;
		}
		/* Other lines ("format:", blank ones, newer additions) say nothing perfev reads. */
	}
	if (r == 0 && !f->nr)
		r = bad_line(err, line, "no field: not a tracepoint format");
	if (r == 0 && (!f->name && !(f->name = dup_trimmed("", 0))))
		r = PEV_ENOMEM;
	if (r == 0 && (!f->print_fmt && !(f->print_fmt = dup_trimmed("", 0))))
		r = PEV_ENOMEM;
	if (r < 0) {
		if (r == PEV_ENOMEM)
			pev__error_start(err, PEV_ENOMEM, ENOMEM, NULL, NULL, true);
		pev_tp_format_free(f);
		return r;
	}
	*out = f;
	return 0;
}

int pev__tp_format_read(const char *tracefs, const char *system, const char *name,
			const char *fn, char **text, size_t *len, uint64_t *id_out,
			struct pev_error *err)
{
	char found[PATH_MAX], path[PATH_MAX];
	uint64_t id;
	int r, fd, n;

	*text = NULL;
	if (!tracefs) {
		if ((r = pev_tracefs_path(false, found, sizeof(found), err)) < 0)
			return r;
		tracefs = found;
	}
	/* The id first: it explains a tracepoint that is not there, or a tracefs that is not. */
	if ((r = pev_tracepoint_id(tracefs, system, name, &id, err)) < 0)
		return r;
	if ((size_t)snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs, system,
			     name) >= sizeof(path))
		return pev__bad_arg(err, fn, "tracefs", "path too long");
	char *buf = malloc(TP_MAX_TEXT);
	if (!buf)
		return pev__error_start(err, PEV_ENOMEM, ENOMEM, NULL, NULL, true);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		r = pev__error_start(err, pev_error_from_errno(errno), errno, "open", name, true);
		pev__error_msg(err, "cannot read %s: %s", path, strerror(errno));
		free(buf);
		return r;
	}
	n = pev__read_fd(fd, buf, TP_MAX_TEXT);
	close(fd);
	if (n < 0) {
		r = pev__error_start(err, pev_error_from_errno(-n), -n, "read", name, true);
		pev__error_msg(err, "cannot read %s: %s", path, strerror(-n));
	} else if (n >= TP_MAX_TEXT - 1) {
		r = pev__error_start(err, PEV_EFORMAT, 0, NULL, name, true);
		pev__error_msg(err, "%s is larger than %d KiB: not a tracepoint format", path,
			       TP_MAX_TEXT / 1024);
	} else {
		*text = buf;
		*len = (size_t)n;
		*id_out = id;
		return 0;
	}
	free(buf);
	return r;
}

PEV_API int pev_tp_format_load(const char *tracefs, const char *system, const char *name,
			       struct pev_tp_format **out, struct pev_error *err)
{
	static const char fn[] = "pev_tp_format_load";
	uint64_t id;
	size_t len;
	char *text;
	int r;

	pev__error_clear(err);
	if (!out)
		return pev__bad_arg(err, fn, "out", "NULL");
	*out = NULL;
	if ((r = pev__tp_format_read(tracefs, system, name, fn, &text, &len, &id, err)) < 0)
		return r;
	r = pev_tp_format_parse(text, len, out, err);
	if (r == 0 && !(*out)->id)
		(*out)->id = id;
	free(text);
	return r;
}

PEV_API void pev_tp_format_free(struct pev_tp_format *f)
{
	if (!f)
		return;
	for (int i = 0; i < f->nr; i++) {
		free((char *)f->fields[i].name);
		free((char *)f->fields[i].type);
	}
	free(f->name);
	free(f->print_fmt);
	free(f);
}

/* ---- accessors ---------------------------------------------------------------------- */

PEV_API const char *pev_tp_format_name(const struct pev_tp_format *f)
{
	return f ? f->name : NULL;
}

PEV_API uint64_t pev_tp_format_id(const struct pev_tp_format *f)
{
	return f ? f->id : 0;
}

PEV_API const char *pev_tp_format_print_fmt(const struct pev_tp_format *f)
{
	return f ? f->print_fmt : NULL;
}

PEV_API int pev_tp_format_nr_fields(const struct pev_tp_format *f)
{
	return f ? f->nr : 0;
}

PEV_API const struct pev_tp_field *pev_tp_format_field_at(const struct pev_tp_format *f, int i)
{
	return f && i >= 0 && i < f->nr ? &f->fields[i] : NULL;
}

PEV_API const struct pev_tp_field *pev_tp_format_field(const struct pev_tp_format *f,
						       const char *name)
{
	if (!f || !name)
		return NULL;
	for (int i = 0; i < f->nr; i++)
		if (strcmp(f->fields[i].name, name) == 0)
			return &f->fields[i];
	return NULL;
}

/* ---- reading a payload ------------------------------------------------------------- */

/* Says the field lies outside the payload; returns PEV_EFORMAT. */
static int outside(const struct pev_tp_field *field, uint64_t from, uint64_t to, size_t size)
{
	pev__error_start(NULL, PEV_EFORMAT, 0, NULL, NULL, true);
	pev__error_msg(NULL, "field '%s' takes bytes %" PRIu64 " to %" PRIu64 " of a %zu-byte "
		       "payload", field->name, from, to, size);
	return PEV_EFORMAT;
}

/* The first element's bytes as an unsigned value; 0 or a code. */
static int read_first(const char *fn, const struct pev_tp_field *field, const void *raw,
		      size_t size, uint64_t *out, bool *is_signed)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;
	unsigned w;

	if (!field || !raw || !out)
		return pev__bad_arg(NULL, fn, !field ? "field" : !raw ? "raw" : "out", "NULL");
	if (field->kind == PEV_TP_FIELD_DATA_LOC || field->kind == PEV_TP_FIELD_REL_LOC ||
	    (field->kind == PEV_TP_FIELD_ARRAY && !field->nr_elems))
		return pev__bad_arg(NULL, fn, "field", "'%s' is a dynamic array: read it with "
				    "pev_tp_field_bytes()", field->name);
	w = field->elem_size;
	if (w != 1 && w != 2 && w != 4 && w != 8)
		return pev__bad_arg(NULL, fn, "field", "'%s' has %u-byte elements, not an integer's",
				    field->name, w);
	if ((uint64_t)field->offset + w > size)
		return outside(field, field->offset, (uint64_t)field->offset + w, size);
	const unsigned char *p = (const unsigned char *)raw + field->offset;
	switch (w) {
	case 1:
		memcpy(&u8, p, 1);
		*out = u8;
		break;
	case 2:
		memcpy(&u16, p, 2);
		*out = u16;
		break;
	case 4:
		memcpy(&u32, p, 4);
		*out = u32;
		break;
	default:
		memcpy(&u64, p, 8);
		*out = u64;
		break;
	}
	if (is_signed && field->is_signed && w < 8 && (*out >> (w * 8 - 1)) & 1)
		*out |= ~UINT64_C(0) << (w * 8);
	return 0;
}

PEV_API int pev_tp_field_int(const struct pev_tp_field *field, const void *raw, size_t size,
			     int64_t *out)
{
	uint64_t v;
	bool sign = true;
	int r = read_first("pev_tp_field_int", field, raw, size, out ? &v : NULL, &sign);

	if (r == 0)
		memcpy(out, &v, sizeof(v));
	return r;
}

PEV_API int pev_tp_field_uint(const struct pev_tp_field *field, const void *raw, size_t size,
			      uint64_t *out)
{
	return read_first("pev_tp_field_uint", field, raw, size, out, NULL);
}

PEV_API int pev_tp_field_bytes(const struct pev_tp_field *field, const void *raw, size_t size,
			       const void **data, size_t *len)
{
	static const char fn[] = "pev_tp_field_bytes";
	uint64_t from, n;

	if (!field || !raw || !data || !len)
		return pev__bad_arg(NULL, fn, !field ? "field" : !raw ? "raw" : !data ? "data" : "len",
				    "NULL");
	if ((uint64_t)field->offset + field->size > size)
		return outside(field, field->offset, (uint64_t)field->offset + field->size, size);
	if (field->kind == PEV_TP_FIELD_DATA_LOC || field->kind == PEV_TP_FIELD_REL_LOC) {
		uint32_t loc;
		memcpy(&loc, (const unsigned char *)raw + field->offset, sizeof(loc));
		from = loc & 0xffff;
		n = loc >> 16;
		if (field->kind == PEV_TP_FIELD_REL_LOC)
			from += (uint64_t)field->offset + field->size;
		if (from + n > size)
			return outside(field, from, from + n, size);
	} else {
		from = field->offset;
		n = field->size;
	}
	*data = (const unsigned char *)raw + from;
	*len = field->is_string ? strnlen(*data, (size_t)n) : (size_t)n;
	return 0;
}

/* ---- printing ----------------------------------------------------------------------- */

/* Appends to buf as snprintf would, keeping the length it would have reached in *at. */
static void PEV_PRINTF(4, 5) put(char *buf, size_t size, size_t *at, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(*at < size ? buf + *at : NULL, *at < size ? size - *at : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*at += (size_t)n;
}

/* One element of an array (or an integer field) at p, w bytes wide. */
static void put_element(char *buf, size_t size, size_t *at, const unsigned char *p, unsigned w,
			bool is_signed, bool hex)
{
	struct pev_tp_field one = {.name = "", .kind = PEV_TP_FIELD_INTEGER, .elem_size = w,
				   .size = w, .nr_elems = 1, .is_signed = is_signed};
	uint64_t v = 0;

	if (read_first("pev_tp_format_print", &one, p, w, &v, &one.is_signed) < 0) {
		put(buf, size, at, "?");
		return;
	}
	if (hex)
		put(buf, size, at, "0x%" PRIx64, v);
	else if (is_signed)
		put(buf, size, at, "%" PRId64, (int64_t)v);
	else
		put(buf, size, at, "%" PRIu64, v);
}

PEV_API int pev_tp_format_print(const struct pev_tp_format *f, const void *raw, size_t size,
				char *buf, size_t bufsize)
{
	static const char fn[] = "pev_tp_format_print";
	size_t at = 0;
	bool first = true;

	if (!f || !raw || (!buf && bufsize))
		return pev__bad_arg(NULL, fn, !f ? "f" : !raw ? "raw" : "buf", "NULL");
	if (bufsize)
		buf[0] = '\0';
	for (int i = 0; i < f->nr; i++) {
		const struct pev_tp_field *fd = &f->fields[i];
		const unsigned char *data;
		size_t len;
		int r;

		if (fd->is_common)
			continue;
		if ((r = pev_tp_field_bytes(fd, raw, size, (const void **)&data, &len)) < 0)
			return r;
		put(buf, bufsize, &at, "%s%s=", first ? "" : " ", fd->name);
		first = false;
		if (fd->is_string) {
			for (size_t k = 0; k < len; k++)
				if (isprint(data[k]) && data[k] != '\\')
					put(buf, bufsize, &at, "%c", data[k]);
				else
					put(buf, bufsize, &at, "\\x%02x", data[k]);
		} else if (fd->kind == PEV_TP_FIELD_INTEGER || fd->kind == PEV_TP_FIELD_POINTER) {
			put_element(buf, bufsize, &at, data, fd->elem_size, fd->is_signed,
				    fd->kind == PEV_TP_FIELD_POINTER);
		} else {
			unsigned w = fd->elem_size ? fd->elem_size : 1;
			put(buf, bufsize, &at, "{");
			for (size_t k = 0; k + w <= len; k += w) {
				put(buf, bufsize, &at, "%s", k ? "," : "");
				put_element(buf, bufsize, &at, data + k, w, fd->is_signed, false);
			}
			put(buf, bufsize, &at, "}");
		}
	}
	return at > INT_MAX ? INT_MAX : (int)at;
}
