/* SPDX-License-Identifier: MIT */
/*
 * pprof_pb.c - compiles the protobuf-c code that protoc-c generates from
 * src/report/pprof.proto at build time, with its library calls routed to the
 * loader in report_dl.c (pprof_shim.h). The generated code is not ours to
 * change, so the warnings it would raise under -Wextra are off here only.
 */
#include "report/pprof_shim.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include "report/pprof.pb-c.c"
#pragma GCC diagnostic pop
