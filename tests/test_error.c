/* SPDX-License-Identifier: MIT */
/*
 * test_error.c - the error table: codes, names, texts, formatting.
 */
#include <string.h>

#include "core/error_internal.h"
#include "helpers.h"

struct expected_code {
	int code;
	int errnum;
	const char *name;
};

/* Every errno the man page lists for perf_event_open, plus the mmap/ioctl/read ones. */
static const struct expected_code kernel_codes[] = {
	{PEV_E2BIG, E2BIG, "TooBig"},
	{PEV_EACCES, EACCES, "AccessDenied"},
	{PEV_EBADF, EBADF, "BadFileDescriptor"},
	{PEV_EBUSY, EBUSY, "DeviceBusy"},
	{PEV_EFAULT, EFAULT, "BadAddress"},
	{PEV_EINTR, EINTR, "Interrupted"},
	{PEV_EINVAL, EINVAL, "InvalidArgument"},
	{PEV_EMFILE, EMFILE, "ProcessResources"},
	{PEV_ENODEV, ENODEV, "EventRequiresUnsupportedCpuFeature"},
	{PEV_ENOENT, ENOENT, "EventNotFound"},
	{PEV_ENOSPC, ENOSPC, "TooManyBreakpoints"},
	{PEV_ENOSYS, ENOSYS, "SampleStackNotSupported"},
	{PEV_EOPNOTSUPP, EOPNOTSUPP, "EventNotSupported"},
	{PEV_EOVERFLOW, EOVERFLOW, "SampleMaxStackOverflow"},
	{PEV_EPERM, EPERM, "PermissionDenied"},
	{PEV_ESRCH, ESRCH, "ProcessNotFound"},
	{PEV_ENOMEM, ENOMEM, "OutOfMemory"},
	{PEV_EAGAIN, EAGAIN, "WouldBlock"},
	{PEV_ENOTTY, ENOTTY, "NotAPerfEvent"},
	{PEV_ENFILE, ENFILE, "SystemResources"},
};

Test(error, kernel_codes_are_negated_errnos)
{
	for (size_t i = 0; i < sizeof(kernel_codes) / sizeof(kernel_codes[0]); i++) {
		const struct expected_code *e = &kernel_codes[i];
		cr_expect_eq(e->code, -e->errnum, "%s", e->name);
		cr_expect_eq(pev_error_from_errno(e->errnum), e->code, "%s", e->name);
		cr_expect_str_eq(pev_error_name(e->code), e->name);
		cr_expect_neq(strcmp(pev_strerror(e->code), "unexpected error"), 0, "%s", e->name);
	}
}

Test(error, library_codes_sit_below_minus_4000)
{
	const int codes[] = {PEV_EBADARG, PEV_EPARSE, PEV_ENOTFOUND, PEV_EFORMAT,
			     PEV_EUNSUPPORTED, PEV_EVERSION, PEV_EUNEXPECTED};
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		cr_expect_lt(codes[i], -4000);
		cr_expect_str_neq(pev_error_name(codes[i]), "");
	}
	cr_expect_str_eq(pev_error_name(PEV_EBADARG), "BadArgument");
}

Test(error, names_are_unique)
{
	static const int all[] = {
#define ROW(code, value, name, text) code,
		PEV_ERROR_TABLE(ROW)
#undef ROW
	};
	size_t n = sizeof(all) / sizeof(all[0]);
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			cr_expect_neq(all[i], all[j]);
			cr_expect_str_neq(pev_error_name(all[i]), pev_error_name(all[j]));
		}
}

Test(error, unknown_codes_are_named_unexpected_and_keep_the_errno)
{
	cr_expect_str_eq(pev_error_name(-12345), "Unexpected");
	cr_expect_str_eq(pev_strerror(-12345), "unexpected error");
	cr_expect_eq(pev_error_from_errno(EXDEV), -EXDEV);
	cr_expect_eq(pev_error_from_errno(0), PEV_EUNEXPECTED);
	cr_expect_eq(pev_error_from_errno(-5), PEV_EUNEXPECTED);
}

Test(error, texts_start_lowercase)
{
	static const int all[] = {
#define ROW(code, value, name, text) code,
		PEV_ERROR_TABLE(ROW)
#undef ROW
	};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		const char *t = pev_strerror(all[i]);
		cr_expect(t[0] >= 'a' && t[0] <= 'z', "'%s' should start lowercase", t);
	}
}

Test(error, format_prints_message_and_each_hint_line)
{
	struct pev_error err;
	char buf[4096];

	pev__error_start(&err, PEV_EACCES, EACCES, "perf_event_open", "cycles", false);
	pev__error_msg(&err, "cannot open 'cycles': denied");
	pev__error_hint(&err, "first fix");
	pev__error_hint(&err, "second fix");
	pev_error_format(&err, buf, sizeof(buf));
	cr_expect_str_eq(buf, "cannot open 'cycles': denied\nhint: first fix\nhint: second fix\n");
	cr_expect_str_eq(err.syscall, "perf_event_open");
	cr_expect_str_eq(err.event, "cycles");
	cr_expect_eq(err.sys_errno, EACCES);
}

Test(error, format_without_message_uses_the_table_text)
{
	struct pev_error err;
	char buf[256];

	pev__error_start(&err, PEV_ESRCH, ESRCH, NULL, NULL, false);
	pev_error_format(&err, buf, sizeof(buf));
	cr_expect_str_eq(buf, "no such process\n");
	cr_expect_str_eq(pev_error_format(NULL, buf, sizeof(buf)), "");
}

Test(error, format_truncates_safely)
{
	struct pev_error err;
	char buf[8];

	pev__error_start(&err, PEV_EINVAL, EINVAL, NULL, NULL, false);
	pev__error_msg(&err, "a long message that does not fit");
	pev_error_format(&err, buf, sizeof(buf));
	cr_expect_eq(strlen(buf), 7);
}

Test(error, helpers_accept_a_null_error)
{
	cr_expect_eq(pev__error_start(NULL, PEV_EINVAL, EINVAL, NULL, NULL, true), PEV_EINVAL);
	pev__error_msg(NULL, "ignored %d", 1);
	pev__error_hint(NULL, "ignored");
	cr_expect_eq(pev__bad_arg(NULL, "f", "x", "y"), PEV_EBADARG);
}

Test(error, bad_arg_names_the_function_and_argument)
{
	struct pev_error err;

	cr_expect_eq(pev__bad_arg(&err, "pev_thing", "size", "is %d", 3), PEV_EBADARG);
	cr_expect_str_eq(err.message, "pev_thing: bad argument 'size': is 3");
	cr_expect_str_eq(err.field, "size");
	cr_expect(err.before_syscall);
}

Test(error, long_messages_are_cut_not_overflowed)
{
	struct pev_error err;
	char chunk[200];

	memset(chunk, 'x', sizeof(chunk) - 1);
	chunk[sizeof(chunk) - 1] = '\0';
	pev__error_start(&err, PEV_EINVAL, EINVAL, NULL, NULL, false);
	for (int i = 0; i < 50; i++) {
		pev__error_msg(&err, "%s", chunk);
		pev__error_hint(&err, "%s", chunk);
	}
	cr_expect_eq(strlen(err.message), sizeof(err.message) - 1);
	cr_expect_eq(strlen(err.hint), sizeof(err.hint) - 1);
}
