/* SPDX-License-Identifier: MIT */
/*
 * report_dl.h - libprotobuf-c and libjson-c, loaded when a report format
 * first needs them (report_dl.c).
 */
#ifndef PERFEV_REPORT_DL_H
#define PERFEV_REPORT_DL_H

#include <stdbool.h>

#include <json-c/json.h>

#include "perfev/error.h"

/* The json-c functions the JSON writer uses. */
struct pev__jsonc {
	__typeof__(json_object_new_object) *new_object;
	__typeof__(json_object_new_array) *new_array;
	__typeof__(json_object_new_string) *new_string;
	__typeof__(json_object_new_int64) *new_int64;
	__typeof__(json_object_new_double_s) *new_double_s;
	__typeof__(json_object_new_boolean) *new_boolean;
	__typeof__(json_object_object_add) *object_add;
	__typeof__(json_object_array_add) *array_add;
	__typeof__(json_object_to_json_string_length) *to_string;
	__typeof__(json_object_put) *put;
};

/*
 * Loads libprotobuf-c once. Returns 0, or PEV_EUNSUPPORTED with err saying
 * what is missing and how to install it (func: the writer called).
 */
int pev__report_dl_protobuf(const char *func, struct pev_error *err);
/* The same for the output format what ("OTLP"), which the message names. */
int pev__report_dl_protobuf_for(const char *func, const char *what, struct pev_error *err);

/* Loads libjson-c once; *fn gets its functions. Returns as pev__report_dl_protobuf. */
int pev__report_dl_jsonc(const char *func, struct pev_error *err, const struct pev__jsonc **fn);

/*
 * Test seam: load these sonames instead (NULL: the real ones) and forget
 * what was loaded, so the next use tries again.
 */
void pev__report_dl_names(const char *protobuf_c, const char *json_c);

#endif /* PERFEV_REPORT_DL_H */
