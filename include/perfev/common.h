/* SPDX-License-Identifier: MIT */
/*
 * perfev/common.h - definitions shared by every public perfev header: the
 * export marker, the version, and the initializer the *_INIT macros use.
 */
#ifndef PERFEV_COMMON_H
#define PERFEV_COMMON_H

/** Marks a function exported from libperfev (everything else is hidden). */
#if defined(__GNUC__) || defined(__clang__)
#define PEV_API __attribute__((visibility("default")))
#else
#define PEV_API
#endif

/*
 * The version of the perfev headers a program is compiled with (meson
 * checks at configure time that they match the project's version).
 */
/** Major version: changes when the ABI breaks. */
#define PEV_VERSION_MAJOR 0
/** Minor version: grows when functions or struct fields are added. */
#define PEV_VERSION_MINOR 2
/** Patch version: fixes only. */
#define PEV_VERSION_PATCH 0
/** The headers' version as text, "MAJOR.MINOR.PATCH". */
#define PEV_VERSION_STRING "0.2.0"
/** The headers' version as one number, MAJOR * 10000 + MINOR * 100 + PATCH (200 is 0.2.0). */
#define PEV_VERSION_NUMBER                                                                         \
	(PEV_VERSION_MAJOR * 10000 + PEV_VERSION_MINOR * 100 + PEV_VERSION_PATCH)

/*
 * PEV_SIZED_INIT(type): the value of every *_INIT macro (PEV_OPTS_INIT...):
 * a struct whose first field `sz` holds sizeof(type), every other field
 * zero. C gets a designated initializer, usable for static objects too; C++
 * (no designated initializers before C++20, and -Wextra warns about the
 * fields a C++20 one leaves out) a value-initialized object, from
 * pev_sized_init below.
 */
#ifdef __cplusplus
extern "C++" {
/** C++: a value-initialized T (every field zero) with T::sz set to sizeof(T). */
template <typename T> inline T pev_sized_init()
{
	T v = T();
	v.sz = sizeof(T);
	return v;
}
}
#define PEV_SIZED_INIT(type) (pev_sized_init<type>())
#else
#define PEV_SIZED_INIT(type) {.sz = sizeof(type)}
#endif

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The version of the libperfev the program runs with, as "MAJOR.MINOR.PATCH"
 * (a static string). It may be newer than PEV_VERSION_STRING, the version of
 * the headers the program was compiled with. `perfev --version` prints it.
 */
PEV_API const char *pev_version(void);

/**
 * The version of the libperfev the program runs with, as
 * MAJOR * 10000 + MINOR * 100 + PATCH: compare it with PEV_VERSION_NUMBER
 * (pev_version_number() >= PEV_VERSION_NUMBER: the library has everything the
 * headers declare).
 */
PEV_API unsigned pev_version_number(void);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_COMMON_H */
