/* SPDX-License-Identifier: MIT */
/*
 * version.c - the version of the library a program runs with. The numbers
 * are the headers' (include/perfev/common.h), which meson.build checks
 * against the project's version when the build is configured.
 */
#include "perfev/common.h"

PEV_API const char *pev_version(void)
{
	return PEV_VERSION_STRING;
}

PEV_API unsigned pev_version_number(void)
{
	return PEV_VERSION_NUMBER;
}
