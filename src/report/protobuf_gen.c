/* SPDX-License-Identifier: MIT */
/*
 * protobuf_gen.c - compiles the protobuf-c code that protoc-c generates at
 * build time from perfev's messages: pprof (src/report/pprof.proto) and the
 * OpenTelemetry profiles signal (src/report/otlp_*.proto), with their library
 * calls routed to the loader in report_dl.c (pprof_shim.h). The generated
 * code is not ours to change, so the warnings it would raise under -Wextra
 * are off here only.
 */
#include "report/pprof_shim.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include "report/pprof.pb-c.c"
#include "report/otlp_common.pb-c.c"
#include "report/otlp_resource.pb-c.c"
#include "report/otlp_profiles.pb-c.c"
#include "report/otlp_service.pb-c.c"
#pragma GCC diagnostic pop
