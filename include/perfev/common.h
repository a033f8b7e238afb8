/* SPDX-License-Identifier: MIT */
/*
 * perfev/common.h - definitions shared by every public perfev header.
 */
#ifndef PERFEV_COMMON_H
#define PERFEV_COMMON_H

/** Marks a function exported from libperfev (everything else is hidden). */
#if defined(__GNUC__) || defined(__clang__)
#define PEV_API __attribute__((visibility("default")))
#else
#define PEV_API
#endif

/** Major, minor and patch version of the perfev headers. */
#define PEV_VERSION_MAJOR 0
#define PEV_VERSION_MINOR 1
#define PEV_VERSION_PATCH 0

#endif /* PERFEV_COMMON_H */
