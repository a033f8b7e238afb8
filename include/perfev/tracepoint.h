/* SPDX-License-Identifier: MIT */
/*
 * perfev/tracepoint.h - tracepoints by name, through tracefs.
 *
 * A tracepoint event's config is the id tracefs publishes in
 * <tracefs>/events/<system>/<name>/id. tracefs is often not mounted on a
 * fresh machine; pev_tracefs_path() finds it and, when allowed, mounts it.
 */
#ifndef PERFEV_TRACEPOINT_H
#define PERFEV_TRACEPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfev/common.h"
#include "perfev/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Writes the tracefs mount point into buf (at most size bytes): where
 * /proc/self/mounts says tracefs is mounted (/sys/kernel/tracing when it is
 * mounted in several places), else the tracing/ directory of a mounted
 * debugfs. When neither is mounted and may_mount is true, mounts tracefs at
 * /sys/kernel/tracing (nosuid, nodev, noexec; needs CAP_SYS_ADMIN); with
 * may_mount false it never mounts anything. Finding the mount point does not
 * check that its events/ directory is readable: tracefs is root-only by
 * default, and pev_tracepoint_id() explains that when it meets it.
 * Returns 0; PEV_ENOENT when tracefs is not mounted and was not mounted (err
 * says why mounting failed, EPERM meaning the process lacks CAP_SYS_ADMIN,
 * and how to mount it); PEV_EBADARG when buf is NULL or size is too small
 * for the path.
 */
PEV_API int pev_tracefs_path(bool may_mount, char *buf, size_t size, struct pev_error *err);

/** One tracepoint, as tracefs lists it. */
struct pev_tracepoint {
	const char *system; /**< "sched" */
	const char *name;   /**< "sched_switch" */
	uint64_t id;        /**< the tracepoint event's config */
};

/** Called for each tracepoint; a non-zero return stops the walk and is returned. */
typedef int (*pev_tracepoint_fn)(const struct pev_tracepoint *tp, void *ctx);

/**
 * Calls fn for every tracepoint under <tracefs>/events whose system and name
 * match the shell globs (fnmatch(3): '*', '?', '[...]'; NULL matches
 * everything), systems in strcmp order and names in strcmp order within each
 * system. A tracepoint is a directory <system>/<name> holding an id file;
 * other entries (events/enable, header_page, a system's filter, ftrace
 * entries without an id) are skipped. tracefs is a path (from
 * pev_tracefs_path(), or any directory tree shaped like tracefs); it is never
 * looked up or mounted here. The strings in *tp live until fn returns.
 * Returns the number of tracepoints passed to fn (0 when nothing matches),
 * fn's first non-zero return (the walk stops there), or a negative code:
 * PEV_ENOENT when <tracefs>/events does not exist, PEV_EACCES when it cannot
 * be read (err carries the fix), PEV_ENOMEM, or PEV_EBADARG (tracefs or fn
 * NULL).
 */
PEV_API int pev_tracepoints_foreach(const char *tracefs, const char *system_glob,
				    const char *name_glob, pev_tracepoint_fn fn, void *ctx,
				    struct pev_error *err);

/**
 * Reads the id of tracepoint system:name from <tracefs>/events/<system>/
 * <name>/id into *id. Returns 0, or:
 * PEV_ENOTFOUND when there is no such tracepoint (err's message names the
 * tracefs path; its hint suggests the closest event names of the system, or
 * the closest system names when the system does not exist);
 * PEV_ENOENT when <tracefs>/events does not exist (tracefs not mounted there);
 * PEV_EACCES when tracefs is not readable (root-only by default; err says how
 * to open it up);
 * PEV_EFORMAT when the id file does not hold a number;
 * PEV_EBADARG for a NULL argument, or a system or name that is empty, ".",
 * ".." or contains '/'.
 */
PEV_API int pev_tracepoint_id(const char *tracefs, const char *system, const char *name,
			      uint64_t *id, struct pev_error *err);

/* ---- formats: a tracepoint's fields, and reading them from a sample ---------------------- */

/** How a field's bytes are laid out in a tracepoint's raw payload. */
enum pev_tp_field_kind {
	PEV_TP_FIELD_INTEGER,  /**< a 1, 2, 4 or 8-byte integer */
	PEV_TP_FIELD_POINTER,  /**< an address ("void *", "const char *"): its value, not what it points to */
	PEV_TP_FIELD_ARRAY,    /**< a fixed array ("char comm[16]", "unsigned long args[6]") */
	PEV_TP_FIELD_DATA_LOC, /**< __data_loc: a u32 of offset (low 16 bits, from the payload's start) and length */
	PEV_TP_FIELD_REL_LOC,  /**< __rel_loc: the same, the offset counted from the end of the field */
};

/** One field of a tracepoint's format, as tracefs declares it. */
struct pev_tp_field {
	const char *name;          /**< "prev_comm" */
	const char *type;          /**< the declared type without the name: "char[16]", "pid_t", "char[]" */
	uint32_t offset;           /**< bytes from the start of the raw payload */
	uint32_t size;             /**< bytes the field takes there (4 for __data_loc and __rel_loc) */
	bool is_signed;            /**< the integer (or element) is signed */
	bool is_common;            /**< a common_* field every tracepoint has */
	bool is_string;            /**< chars: a fixed char array, or a __data_loc / __rel_loc char[] */
	enum pev_tp_field_kind kind; /**< how its bytes are laid out in the payload */
	uint32_t elem_size;        /**< arrays: one element's size (from the type); others: size */
	uint32_t nr_elems;         /**< fixed arrays: elements; dynamic ones: 0; others: 1 */
};

/** A parsed format (opaque): pev_tp_format_parse() or _load(), freed with _free(). */
struct pev_tp_format;

/**
 * Parses a tracepoint's format (the text of tracefs's events/SYS/NAME/format,
 * or of a perf.data file's tracing data: untrusted, len bytes, no NUL needed).
 * Refuses text that is not plain, more than 256 fields, a field outside a
 * 64 KiB record, or a line it cannot read (PEV_EFORMAT, err says which line
 * and why). On success *out owns everything the format's accessors return.
 * Returns 0, PEV_EFORMAT, PEV_ENOMEM or PEV_EBADARG.
 */
PEV_API int pev_tp_format_parse(const char *text, size_t len, struct pev_tp_format **out,
				struct pev_error *err);

/**
 * Reads and parses the format of tracepoint system:name under tracefs (a
 * path from pev_tracefs_path(); NULL: find it, never mounting). Fails as
 * pev_tracepoint_id() does for a tracepoint that does not exist or a tracefs
 * that cannot be read, else as pev_tp_format_parse().
 */
PEV_API int pev_tp_format_load(const char *tracefs, const char *system, const char *name,
			       struct pev_tp_format **out, struct pev_error *err);

/** Frees a format (NULL: nothing); every pointer its accessors returned dies with it. */
PEV_API void pev_tp_format_free(struct pev_tp_format *f);

/** The tracepoint's name ("sched_switch"), or NULL for a NULL format. */
PEV_API const char *pev_tp_format_name(const struct pev_tp_format *f);

/** The tracepoint's id (its event's config); 0 for a NULL format or one without an ID line. */
PEV_API uint64_t pev_tp_format_id(const struct pev_tp_format *f);

/** The "print fmt:" line's text, "" when there is none; NULL for a NULL format. */
PEV_API const char *pev_tp_format_print_fmt(const struct pev_tp_format *f);

/** The number of fields, common ones included (0 for NULL). */
PEV_API int pev_tp_format_nr_fields(const struct pev_tp_format *f);

/** Field i (0 .. nr_fields - 1) in the order the format lists them, or NULL. */
PEV_API const struct pev_tp_field *pev_tp_format_field_at(const struct pev_tp_format *f, int i);

/** The field called name, or NULL when the format has none (or an argument is NULL). */
PEV_API const struct pev_tp_field *pev_tp_format_field(const struct pev_tp_format *f,
						       const char *name);

/**
 * Reads an integer or pointer field (or a fixed array's element 0) from a
 * sample's raw payload (raw, size bytes: pev_sample.raw), sign-extended when
 * the field is signed. Returns 0; PEV_EFORMAT when the field lies outside
 * the payload; PEV_EBADARG for NULL, or a field of another kind.
 */
PEV_API int pev_tp_field_int(const struct pev_tp_field *field, const void *raw, size_t size,
			     int64_t *out);

/** pev_tp_field_int's bytes as an unsigned value (no sign extension). */
PEV_API int pev_tp_field_uint(const struct pev_tp_field *field, const void *raw, size_t size,
			      uint64_t *out);

/**
 * Points *data at the bytes of a field in the payload and sets *len: a fixed
 * array's whole size, a __data_loc or __rel_loc field's data (checked to lie
 * within the payload), an integer's own bytes. For a string field (is_string)
 * *len stops before the first NUL. Nothing is copied: *data lives as long as
 * raw. Returns 0, PEV_EFORMAT (outside the payload) or PEV_EBADARG.
 */
PEV_API int pev_tp_field_bytes(const struct pev_tp_field *field, const void *raw, size_t size,
			       const void **data, size_t *len);

/**
 * Writes the payload's fields (common_* ones left out) as "name=value" pairs
 * separated by spaces into buf (size bytes, always terminated): integers in
 * decimal, pointers in hex, strings as text (non-printing bytes as \xHH),
 * other arrays as {a,b,...} of their elements. This is what perf script
 * prints for a tracepoint without its print fmt; struct pev_tp_printer
 * prints the print fmt as perf script does. Returns the length it would have
 * written (snprintf's rule), PEV_EFORMAT when a field lies outside the
 * payload, or PEV_EBADARG.
 */
PEV_API int pev_tp_format_print(const struct pev_tp_format *f, const void *raw, size_t size,
				char *buf, size_t bufsize);

/* ---- printing as perf script does ---------------------------------------- */

/**
 * Prints tracepoint payloads through their formats' "print fmt", as perf
 * script does ("prev_comm=sh prev_pid=12 prev_prio=120 prev_state=S ==>
 * next_comm=swapper/1 ..."), with libtraceevent, which perfev loads with
 * dlopen (libtraceevent.so.1) on the first pev_tp_printer_new(). Formats
 * from a perf.data file are untrusted and libtraceevent trusts what it
 * parses: each is checked first (printable text, an id, at most 256 fields
 * within 64 KiB, every field its print fmt names declared), then parsed once
 * in a forked child, and dropped when either fails; each payload is checked
 * against its format (every field, and every __data_loc string with its NUL,
 * inside it) before it is printed. Opaque; one thread at a time.
 */
struct pev_tp_printer;

/**
 * Makes a printer with no formats in *out. Returns 0; PEV_EUNSUPPORTED when
 * libtraceevent cannot be loaded (err says why and how to install it;
 * pev_tp_format_print() needs no library); PEV_ENOMEM; PEV_EBADARG.
 */
PEV_API int pev_tp_printer_new(struct pev_tp_printer **out, struct pev_error *err);

/**
 * Adds one event's format: text (len bytes, a tracefs events/SYSTEM/NAME/
 * format file) of tracepoint system `system`. Returns 0; PEV_EFORMAT when
 * the text fails the checks or libtraceevent cannot parse it (err says
 * which); PEV_ENOMEM; PEV_EBADARG.
 */
PEV_API int pev_tp_printer_add_format(struct pev_tp_printer *p, const char *system,
				      const char *text, size_t len, struct pev_error *err);

/**
 * Adds the format of tracepoint system:name from <tracefs>/events/system/
 * name/format (tracefs NULL: where pev_tracefs_path() finds it, never
 * mounting). Returns 0, or as pev_tp_format_load() and
 * pev_tp_printer_add_format() fail.
 */
PEV_API int pev_tp_printer_load(struct pev_tp_printer *p, const char *tracefs, const char *system,
				const char *name, struct pev_error *err);

/**
 * Adds the formats of a perf.data file's TRACING_DATA feature section
 * (size bytes at data, as perf writes it: the tracefs header page, the
 * ftrace and event formats per system, the printk formats and the saved
 * command lines; little-endian files only). A format that fails the checks
 * is dropped and the others are kept. Returns how many formats were added
 * (>= 0); PEV_EFORMAT when the section itself is malformed or big-endian
 * (err says where), with nothing added; PEV_EBADARG.
 */
PEV_API int pev_tp_printer_add_tracing_data(struct pev_tp_printer *p, const void *data,
					    size_t size, struct pev_error *err);

/** How many formats p holds; PEV_EBADARG for NULL. */
PEV_API int pev_tp_printer_nr_formats(const struct pev_tp_printer *p);

/** How many formats p refused (the checks or libtraceevent's parser); PEV_EBADARG for NULL. */
PEV_API int pev_tp_printer_nr_dropped(const struct pev_tp_printer *p);

/**
 * Writes the payload raw (size bytes: a sample's PEV_SAMPLE_RAW data) of
 * the tracepoint whose id is `id` as perf script prints it, into buf
 * (bufsize bytes, always terminated). cpu and time are the sample's (some
 * print fmts show them). Strings come out as the payload holds them:
 * escape them before showing them on a terminal (pev_text_escape()).
 * Returns the length it would have written (snprintf's rule);
 * PEV_ENOTFOUND when p has no format of that id; PEV_EFORMAT when the
 * payload does not fit its format; PEV_EBADARG.
 */
PEV_API int pev_tp_printer_print(struct pev_tp_printer *p, uint64_t id, const void *raw,
				 size_t size, int cpu, uint64_t time, char *buf, size_t bufsize);

/** Frees p and its formats. NULL is ignored. */
PEV_API void pev_tp_printer_free(struct pev_tp_printer *p);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_TRACEPOINT_H */
