/* SPDX-License-Identifier: MIT */
/*
 * otlp_pb.c - compiles the protobuf-c code that protoc-c generates from
 * perfev's OpenTelemetry profiles messages (src/report/otlp_*.proto) at
 * build time, with its library calls routed to the loader in report_dl.c
 * (pprof_shim.h), as pprof_pb.c does for pprof.proto.
 */
#include "report/pprof_shim.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include "report/otlp_common.pb-c.c"
#include "report/otlp_resource.pb-c.c"
#include "report/otlp_profiles.pb-c.c"
#include "report/otlp_service.pb-c.c"
#pragma GCC diagnostic pop
