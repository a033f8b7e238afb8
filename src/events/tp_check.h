/* SPDX-License-Identifier: MIT */
/*
 * tp_check.h - what tp_printer.c asks of tp_check.c: the checks that
 * tracing data (untrusted, from a perf.data file) passes before libtraceevent
 * sees it, and that a sample's payload passes before libtraceevent prints it.
 */
#ifndef PERFEV_TP_CHECK_H
#define PERFEV_TP_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tep_event;

/* The most fields a format may declare, and the largest record it may describe. */
#define PEV__TP_CHECK_MAX_FIELDS 256
#define PEV__TP_CHECK_MAX_RECORD 65536

/*
 * Checks an event format (tracefs's events/SYS/NAME/format, len bytes of
 * text): printable text, a name, an ID that fits common_type, at most
 * PEV__TP_CHECK_MAX_FIELDS field lines whose offset and size lie within
 * PEV__TP_CHECK_MAX_RECORD, a print fmt, and every field the print fmt names
 * (REC->NAME, __get_str(NAME), ...) declared. libtraceevent trusts the
 * text: a REC->NAME inside __print_flags() that no field declares is a NULL
 * dereference in its parser. False with why filled when the format fails.
 */
bool pev__tp_check_format(const char *text, size_t len, char *why, size_t why_size);

/*
 * Checks tracefs's header_page the same way (printable text; each field line
 * with its offset and size within a page). False when it fails.
 */
bool pev__tp_check_header_page(const char *text, size_t len);

/*
 * Keeps the lines of the printk formats ("ADDRESS : FORMAT") that
 * libtraceevent can parse, in place; returns the new length. A line with
 * no ':' or a format of fewer than 3 characters makes it read outside its
 * buffer.
 */
size_t pev__tp_check_printk(char *text, size_t len);

/*
 * Checks a sample's payload (size bytes at raw) against ev's parsed format
 * before it is printed: the record's type is ev's, every fixed field lies
 * within the payload, every dynamic field's data (__data_loc, __rel_loc)
 * lies within it, and a dynamic string ends with a NUL inside it.
 * libtraceevent reads a dynamic string up to its NUL, wherever that is.
 */
bool pev__tp_check_payload(const struct tep_event *ev, const void *raw, uint32_t size);

#endif /* PERFEV_TP_CHECK_H */
