/* SPDX-License-Identifier: MIT */
/*
 * error.c - the error table (names, texts) and helpers that fill struct pev_error.
 */
#include "core/error_internal.h"

#include <stdio.h>
#include <string.h>

struct error_entry {
	int code;
	const char *name;
	const char *text;
};

static const struct error_entry error_table[] = {
#define PEV_ERROR_ROW_(code, value, name, text) {code, name, text},
	PEV_ERROR_TABLE(PEV_ERROR_ROW_)
#undef PEV_ERROR_ROW_
};

static const struct error_entry *find_entry(int code)
{
	for (size_t i = 0; i < PEV_ARRAY_SIZE(error_table); i++)
		if (error_table[i].code == code)
			return &error_table[i];
	return NULL;
}

/*
 * The diagnosis of this thread's last failed call that was given no struct
 * pev_error: every helper below writes here when its err is NULL.
 */
static __thread struct pev_error last_error;

/* The error to fill: the caller's, or this thread's last one. */
static struct pev_error *target(struct pev_error *err)
{
	return err ? err : &last_error;
}

struct pev_error *pev__error_of(struct pev_error *err)
{
	return target(err);
}

PEV_API const struct pev_error *pev_last_error(void)
{
	return &last_error;
}

PEV_API const char *pev_strerror(int code)
{
	const struct error_entry *e = find_entry(code);

	if (code == 0)
		return "success";
	return e ? e->text : "unexpected error";
}

PEV_API const char *pev_error_name(int code)
{
	const struct error_entry *e = find_entry(code);

	if (code == 0)
		return "Success";
	return e ? e->name : "Unexpected";
}

PEV_API int pev_error_from_errno(int errnum)
{
	if (errnum <= 0)
		return PEV_EUNEXPECTED;
	if (errnum == EWOULDBLOCK)
		return PEV_EAGAIN;
	if (errnum == ENOTSUP)
		return PEV_EOPNOTSUPP;
	return -errnum;
}

PEV_API char *pev_error_format(const struct pev_error *err, char *buf, size_t size)
{
	if (!buf || size == 0)
		return buf;
	buf[0] = '\0';
	if (!err)
		return buf;
	pev__appendf(buf, size, "%s\n", err->message[0] ? err->message : pev_strerror(err->code));
	const char *line = err->hint;
	while (*line) {
		const char *nl = strchr(line, '\n');
		int len = nl ? (int)(nl - line) : (int)strlen(line);
		pev__appendf(buf, size, "hint: %.*s\n", len, line);
		line += len + (nl ? 1 : 0);
	}
	return buf;
}

int pev__error_start(struct pev_error *err, int code, int sys_errno, const char *syscall,
		     const char *event, bool before_syscall)
{
	err = target(err);
	memset(err, 0, sizeof(*err));
	err->code = code;
	err->sys_errno = sys_errno;
	err->position = -1;
	err->before_syscall = before_syscall;
	if (syscall)
		pev__strlcpy(err->syscall, syscall, sizeof(err->syscall));
	if (event)
		pev__strlcpy(err->event, event, sizeof(err->event));
	return code;
}

void pev__error_field(struct pev_error *err, const char *field)
{
	err = target(err);
	if (field)
		pev__strlcpy(err->field, field, sizeof(err->field));
}

void pev__error_msg(struct pev_error *err, const char *fmt, ...)
{
	va_list ap;

	err = target(err);
	va_start(ap, fmt);
	pev__vappendf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
}

void pev__error_hint(struct pev_error *err, const char *fmt, ...)
{
	char line[PEV_ERROR_MESSAGE_MAX];
	const char *text = line;
	va_list ap;

	err = target(err);
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* Hints are alternatives written "or ...": the first one drops its "or". */
	if (!err->hint[0] && strncmp(line, "or ", 3) == 0)
		text += 3;
	pev__appendf(err->hint, sizeof(err->hint), "%s%s", err->hint[0] ? "\n" : "", text);
}

int pev__bad_index(const char *func, const void *obj, const char *obj_name, int i, int n)
{
	if (!obj)
		return pev__bad_arg(NULL, func, obj_name, "NULL");
	if (n < 1)
		return pev__bad_arg(NULL, func, "i", "%d: '%s' has none", i, obj_name);
	return pev__bad_arg(NULL, func, "i", "%d: '%s' has 0 to %d", i, obj_name, n - 1);
}

int pev__opts_copy_sized(void *dst, size_t dst_size, const void *src, const char *func,
			 const char *init, struct pev_error *err)
{
	size_t sz;

	memset(dst, 0, dst_size);
	memcpy(dst, &dst_size, sizeof(dst_size));
	if (!src)
		return 0;
	memcpy(&sz, src, sizeof(sz));
	if (sz < sizeof(sz))
		return pev__bad_arg(err, func, "opts", "opts.sz is %zu; initialize options with %s",
				    sz, init);
	for (size_t i = dst_size; i < sz; i++)
		if (((const unsigned char *)src)[i])
			return pev__bad_arg(err, func, "opts",
					    "the caller sets an option this libperfev does not know "
					    "(opts.sz %zu, known %zu): upgrade libperfev",
					    sz, dst_size);
	memcpy(dst, src, sz < dst_size ? sz : dst_size);
	memcpy(dst, &dst_size, sizeof(dst_size));
	return 0;
}

int pev__reserved_check(const uint64_t *reserved, size_t n, const char *func, const char *arg,
			struct pev_error *err)
{
	for (size_t i = 0; i < n; i++)
		if (reserved[i])
			return pev__bad_arg(err, func, arg,
					    "%s.reserved[%zu] is set: a field of a newer libperfev "
					    "this one does not know; upgrade libperfev",
					    arg, i);
	return 0;
}

void pev__error_clear(struct pev_error *err)
{
	/* Field by field: per-record functions take an error too, and the buffers are large. */
	if (!err)
		return;
	err->code = 0;
	err->sys_errno = 0;
	err->before_syscall = false;
	err->syscall[0] = '\0';
	err->event[0] = '\0';
	err->field[0] = '\0';
	err->position = -1;
	err->length = 0;
	err->message[0] = '\0';
	err->hint[0] = '\0';
	memset(err->reserved, 0, sizeof(err->reserved));
}

int pev__bad_arg(struct pev_error *err, const char *func, const char *arg, const char *fmt, ...)
{
	va_list ap;

	pev__error_start(err, PEV_EBADARG, 0, NULL, NULL, true);
	pev__error_field(err, arg);
	pev__error_msg(err, "%s: bad argument '%s': ", func ? func : "perfev", arg ? arg : "?");
	err = target(err);
	va_start(ap, fmt);
	pev__vappendf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return PEV_EBADARG;
}
