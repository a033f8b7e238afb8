/* SPDX-License-Identifier: MIT */
/*
 * test_version.c - pev_version() and pev_version_number() say the version
 * of the headers' PEV_VERSION_* macros, in both spellings.
 */
#include <stdio.h>

#include "helpers.h"

Test(version, the_string_is_the_headers_version)
{
	unsigned major, minor, patch;
	char extra;

	cr_assert_not_null(pev_version());
	cr_expect_str_eq(pev_version(), PEV_VERSION_STRING);
	cr_assert_eq(sscanf(pev_version(), "%u.%u.%u%c", &major, &minor, &patch, &extra), 3,
		     "\"%s\" is not MAJOR.MINOR.PATCH", pev_version());
	cr_expect_eq(major, PEV_VERSION_MAJOR);
	cr_expect_eq(minor, PEV_VERSION_MINOR);
	cr_expect_eq(patch, PEV_VERSION_PATCH);
}

Test(version, the_number_is_major_minor_patch)
{
	cr_expect_eq(pev_version_number(), (unsigned)PEV_VERSION_NUMBER);
	cr_expect_eq(pev_version_number(),
		     PEV_VERSION_MAJOR * 10000u + PEV_VERSION_MINOR * 100u + PEV_VERSION_PATCH);
	/* The numbers stay below 100, so that the encoding orders versions. */
	cr_expect_lt(PEV_VERSION_MINOR, 100);
	cr_expect_lt(PEV_VERSION_PATCH, 100);
}
