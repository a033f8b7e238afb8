/* SPDX-License-Identifier: MIT */
/*
 * pprof_shim.h - routes the protobuf-c calls of the code protoc-c
 * generates from src/report/pprof.proto to perfev's loader (report_dl.c), which
 * finds libprotobuf-c with dlopen on first use. libperfev thus does not
 * need libprotobuf-c to load; without it only pprof output is missing.
 *
 * src/meson.build force-includes this header into the generated
 * pprof.pb-c.c; every file that includes pprof.pb-c.h includes it first.
 */
#ifndef PERFEV_PPROF_SHIM_H
#define PERFEV_PPROF_SHIM_H

#define protobuf_c_message_get_packed_size pev__pb_get_packed_size
#define protobuf_c_message_pack pev__pb_pack
#define protobuf_c_message_pack_to_buffer pev__pb_pack_to_buffer
#define protobuf_c_message_unpack pev__pb_unpack
#define protobuf_c_message_free_unpacked pev__pb_free_unpacked
#define protobuf_c_empty_string pev__pb_empty_string

#endif /* PERFEV_PPROF_SHIM_H */
