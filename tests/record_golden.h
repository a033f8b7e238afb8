/* SPDX-License-Identifier: MIT */
/*
 * record_golden.h - golden records: bytes written by hand from the layouts
 * in the kernel's uapi header (include/uapi/linux/perf_event.h, Linux 6.18),
 * the configuration of the event that wrote them, and what decoding them
 * must give. One entry per record type and form, per sample_type bit alone
 * and all together, and the branch stack, callchain and register variants.
 *
 * Reusable outside test_record.c (the ring tests lay each record across the
 * ring's end and decode it from the scratch copy): rg_record_same() compares
 * by content, never by address, and checks that every pointer the decoder
 * set lies inside the record it decoded.
 */
#ifndef PERFEV_TEST_RECORD_GOLDEN_H
#define PERFEV_TEST_RECORD_GOLDEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfev.h"

/** One golden record. */
struct rg_golden {
	const char *name;               /**< what it is, for messages */
	struct pev_record_config config; /**< the event that wrote it (.sz set) */
	const uint64_t *words;          /**< the record, header first */
	size_t nwords;                  /**< its length in words (header.size / 8) */
	/**
	 * What pev_record_decode() must give: header fields, id_fields,
	 * sample_id and the body. Pointer fields point at the expected
	 * contents (compared byte by byte); `bytes` is not compared.
	 */
	struct pev_record want;
};

/** The table, and how many entries it has. */
extern const struct rg_golden rg_golden[];
extern const size_t rg_golden_count;

/** Builds the format of g's event. Returns what pev_record_format_init() returns. */
int rg_format(const struct rg_golden *g, struct pev_record_format *fmt);

/**
 * Compares a decoded record with the expected one: every field of the
 * header, the sample_id and the body (contents behind pointers, not
 * addresses; of a SAMPLE, the members always set and those its format has),
 * and checks that got's pointers lie within [got->bytes, got->bytes +
 * got->size). Returns true when all hold; otherwise false with
 * the first difference written into why (size bytes).
 */
bool rg_record_same(const struct pev_record *want, const struct pev_record *got, char *why,
		    size_t size);

#endif /* PERFEV_TEST_RECORD_GOLDEN_H */
