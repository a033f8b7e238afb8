/* SPDX-License-Identifier: MIT */
/*
 * perfdata_format.h - the perf.data format as the reader and the writer
 * share it: the sizes and offsets of the on-disk structures, unaligned
 * little helpers to load and store them, and where an event's records keep
 * their sample id and time.
 *
 * File mode:
 *
 *   offset 0     header (104 bytes)
 *                  u64 magic "PERFILE2", u64 size (104), u64 attr_size,
 *                  section attrs, section data, section event_types
 *                  (each {u64 offset, u64 size}), u64 features[4]
 *   ...          the events' id arrays (u64 each)
 *   attrs        one entry per event: the attribute block (attr_size - 16
 *                bytes) then a section {offset, size} of its id array
 *   data         records
 *   feat_offset  = data.offset + data.size: one section per feature bit
 *                set, in bit order, then the sections' bytes
 *
 * Pipe mode: u64 magic, u64 size (16), then records only. perf 6.1 writes,
 * in order: a HEADER_ATTR per event (header, the attribute block, its ids),
 * a HEADER_FEATURE per feature (header, u64 feature number, the bytes of
 * the file-mode section, size not padded to 8), a HEADER_FEATURE with
 * number 32 and no bytes (the end of the features), an EVENT_UPDATE with
 * the name of each event (perf names a stream's events from these),
 * HEADER_TRACING_DATA
 * (header, u32 size padded to 8, u32 0) followed by that many bytes of
 * tracing data when tracepoints are recorded, the synthesized records,
 * FINISHED_INIT, then the kernel's records with FINISHED_ROUNDs.
 */
#ifndef PERFEV_PERFDATA_FORMAT_H
#define PERFEV_PERFDATA_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "perfev/perfdata.h"

/* The byte-swapped magic: a file written on a machine of the other byte order. */
#define PD_MAGIC_SWAPPED UINT64_C(0x50455246494c4532)
/* The magic of the first, version 1 format: "PERFFILE". */
#define PD_MAGIC_V1 "PERFFILE"

/* Offsets in the file-mode header. */
#define PD_HDR_MAGIC 0
#define PD_HDR_SIZE 8
#define PD_HDR_ATTR_SIZE 16
#define PD_HDR_ATTRS 24
#define PD_HDR_DATA 40
#define PD_HDR_EVENT_TYPES 56
#define PD_HDR_FEATURES 72
/* The header of files from before the feature bitmap (72 bytes). */
#define PD_HDR_SIZE_NO_FEATURES 72

/* A section: {u64 offset, u64 size}. */
#define PD_SECTION_SIZE 16

/* perf's strings in features: u32 length (NUL and padding included), bytes padded to 64. */
#define PD_NAME_ALIGN 64

/* A BUILD_ID entry: header, s32 pid, 20 bytes of id, u8 size, 3 reserved, then the name. */
#define PD_BUILD_ID_FIXED 36
/* header.misc bit of a BUILD_ID entry: the size byte is valid (else the id is 20 bytes). */
#define PD_BUILD_ID_MISC_SIZE 0x8000U

/* EVENT_UPDATE record types. */
#define PD_EVENT_UPDATE_UNIT 0
#define PD_EVENT_UPDATE_SCALE 1
#define PD_EVENT_UPDATE_NAME 2
#define PD_EVENT_UPDATE_CPUS 3

/* CPU_MAP encodings. */
#define PD_CPU_MAP_CPUS 0
#define PD_CPU_MAP_MASK 1
#define PD_CPU_MAP_RANGE 2

/* Pipe mode: the feature number perf 6.1 ends its HEADER_FEATURE records with. */
#define PD_PIPE_FEATURES_END 32
/* Pipe mode: the smallest attribute block in a HEADER_ATTR (perf 6.1 copies this many bytes). */
#define PD_PIPE_ATTR_SIZE PEV_ATTR_SIZE_VER7
/* Pipe mode: the fixed part of HEADER_FEATURE (header, u64 feature) and HEADER_TRACING_DATA. */
#define PD_PIPE_FEATURE_FIXED 16
#define PD_PIPE_TRACING_FIXED 16

/* The largest feature section or tracing data the reader loads (bigger: malformed). */
#define PD_SECTION_MAX ((uint64_t)256 << 20)
/* The largest attribute block accepted (a page: far beyond any ABI revision). */
#define PD_ATTR_MAX 4096

static inline uint16_t pd_u16(const void *p)
{
	uint16_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t pd_u32(const void *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t pd_u64(const void *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void pd_put_u32(void *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

static inline void pd_put_u64(void *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* a + b, or false when it overflows. */
static inline bool pd_add_ok(uint64_t a, uint64_t b, uint64_t *sum)
{
	return !__builtin_add_overflow(a, b, sum);
}

/*
 * Where records of one event keep their sample id and time: byte offsets
 * from the start of a SAMPLE, and bytes before the end of any other record
 * (the sample_id_all trailer). -1 (sample) or 0 (trailer) when absent.
 */
struct pd_layout {
	int sample_id_at;
	int sample_time_at;
	int trailer_id_back;
	int trailer_time_back;
};

/* Computes the layout of an event's records from its sample_type and flags. */
void pev__pd_layout_from_attr(const struct pev_attr *attr, struct pd_layout *out);

/*
 * Reads the id (or the time) of a record of size bytes at rec written by an
 * event of layout l. Returns true and sets *v when the record carries it.
 */
bool pev__pd_layout_id(const struct pd_layout *l, const void *rec, size_t size, uint64_t *v);
bool pev__pd_layout_time(const struct pd_layout *l, const void *rec, size_t size, uint64_t *v);

/*
 * The layout shared by a set of events: where the id is for every one of
 * them (perf's rule: a file's events must agree on it to be told apart).
 * Fields the events disagree on are -1 / 0.
 */
void pev__pd_layout_common(struct pd_layout *common, const struct pd_layout *l, bool first);

/* Bytes a perf string of text takes in a feature: 4 + its length rounded up to 64. */
size_t pev__pd_string_size(const char *text);

#endif /* PERFEV_PERFDATA_FORMAT_H */
