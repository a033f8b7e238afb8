/* SPDX-License-Identifier: MIT */
/*
 * perfev/text.h - names read from files made safe to show: comms, DSO paths,
 * symbols and JIT names may hold any bytes. One set of rules for every
 * output: a terminal or a text line gets control bytes and bytes that are
 * not UTF-8 as \xHH escapes, JSON and other UTF-8-only formats get each
 * byte that is not UTF-8 as U+FFFD. Valid UTF-8 (C++ or Unicode names) is
 * kept as it is. share/doc/perfev/REPORT.md ("Names with control bytes")
 * describes the rules.
 */
#ifndef PERFEV_TEXT_H
#define PERFEV_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "perfev/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** pev_text_escape() flag: escape every byte outside printable ASCII, UTF-8 too. */
#define PEV_TEXT_ASCII 0x1u

/**
 * The length in bytes (1 to 4) of the valid UTF-8 character s starts with,
 * or 0 when s[0] is NUL or starts no valid character (a stray continuation
 * byte, a truncated sequence, an overlong form, a surrogate, a code point
 * above U+10FFFF). Reads no byte past a NUL.
 */
PEV_API int pev_text_utf8_char(const char *s);

/**
 * Whether s is safe to print as it is: valid UTF-8 with no control
 * character (C0, DEL or C1). NULL is clean.
 */
PEV_API bool pev_text_is_clean(const char *s);

/**
 * Writes src into dst (size bytes; always terminated when size > 0) as it
 * can be shown on a terminal or one line of text: each control byte
 * (0x00-0x1f, 0x7f), each C1 control (U+0080-U+009F, two bytes) and each
 * byte that is not part of valid UTF-8 as \xHH (lower-case hex); with
 * PEV_TEXT_ASCII every byte outside 0x20-0x7e. Other bytes, backslashes
 * included, are copied. Returns the length of the whole escaped text, as
 * snprintf does (a result >= size means dst was cut short). NULL src is "".
 */
PEV_API size_t pev_text_escape(char *dst, size_t size, const char *src, unsigned flags);

/**
 * Writes s to out escaped as pev_text_escape() does with flags 0. Returns
 * a non-negative number, or EOF when a write fails (as fputs) or out is
 * NULL. NULL s writes nothing.
 */
PEV_API int pev_text_fputs(const char *s, FILE *out);

/**
 * Writes src into dst (size bytes; always terminated when size > 0) as
 * valid UTF-8: each byte that is not part of a valid UTF-8 character
 * becomes U+FFFD (3 bytes); everything else, control characters included,
 * is copied (a JSON writer escapes those). Returns the length of the whole
 * result, as snprintf does. NULL src is "".
 */
PEV_API size_t pev_text_utf8(char *dst, size_t size, const char *src);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_TEXT_H */
