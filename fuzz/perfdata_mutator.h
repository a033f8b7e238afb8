/* SPDX-License-Identifier: MIT */
/*
 * perfdata_mutator.h - a structure-aware mutator of perf.data files.
 *
 * It walks a perf.data file (file mode: header, attribute section with each
 * attribute's ids, data section, feature sections; pipe mode: the records,
 * HEADER_ATTR included), lays every SAMPLE out by its event's sample_type,
 * read_format, branch_sample_type and register masks, and changes one thing
 * the readers interpret: a field of a sample (ip, pid/tid, time, period, a
 * read value of a group, a callchain's length or an entry, a branch entry,
 * a register, a word of the DWARF user stack, its size or dyn_size, the raw
 * size...), the length of a variable part with the record resized to match,
 * a field of another record, the order of records, an attribute (sample
 * type bits, read format, register masks, ids), the header's sections, a
 * feature section. Mutation I of seed S is the same on every machine: the
 * only randomness is a generator seeded by (seed, index).
 *
 * Shared by the libFuzzer harnesses (LLVMFuzzerCustomMutator) and the
 * standalone generator fuzz/perfdata_mutate.c (scripts/mutate_structured.sh).
 * Written from the layouts of <linux/perf_event.h> and perf's description of
 * the file format.
 */
#ifndef PERFEV_FUZZ_PERFDATA_MUTATOR_H
#define PERFEV_FUZZ_PERFDATA_MUTATOR_H

#include <stddef.h>
#include <stdint.h>

/**
 * Mutates the perf.data file in buf[0..size) in place; buf has room for cap
 * bytes. The mutation is chosen by seed alone. A description of what was
 * done goes to what (what_size bytes, NUL-terminated) when what is not NULL.
 * Returns the new size (at most cap), or 0 when buf is not a perf.data file
 * the mutator can walk (buf is then unchanged).
 */
size_t pdm_mutate(uint8_t *buf, size_t size, size_t cap, uint64_t seed, char *what,
		  size_t what_size);

/**
 * Writes to out (cap bytes) file a with a run of records of file b spliced
 * into its data section in place of a run of its own. Returns the size
 * written, or 0 when either input cannot be walked or the result would not
 * fit.
 */
size_t pdm_crossover(const uint8_t *a, size_t a_size, const uint8_t *b, size_t b_size,
		     uint8_t *out, size_t cap, uint64_t seed);

/**
 * Sets field `name` (as mutation descriptions name them: "period",
 * "read.value", "callchain.nr", "stack_user.dyn_size", ...) to value in the
 * first `limit` SAMPLE records that have it (every one when limit is 0), for
 * crafting regression files. Returns how many fields were set, or -1 when
 * buf is not a perf.data file the mutator can walk or name is unknown.
 */
long pdm_set_field(uint8_t *buf, size_t size, const char *name, uint64_t value, unsigned long limit);

/** The fields of an event that shape its samples, for pdm_mutate_records(). */
struct pdm_format {
	uint64_t sample_type;        /**< PERF_SAMPLE_* bits */
	uint64_t read_format;        /**< PERF_FORMAT_* bits */
	uint64_t branch_sample_type; /**< PERF_SAMPLE_BRANCH_* bits (HW_INDEX, COUNTERS count) */
	uint64_t sample_regs_user;   /**< register mask of REGS_USER */
	uint64_t sample_regs_intr;   /**< register mask of REGS_INTR */
};

/**
 * Like pdm_mutate(), on a bare stream of records (no file header) whose
 * samples all have format fmt: a sample's field, a variable part resized, a
 * DWARF stack word or register, a record's header, records reordered. For
 * harnesses whose input is records (fuzz_record). Returns the new size, or
 * 0 when no mutation applied.
 */
size_t pdm_mutate_records(uint8_t *buf, size_t size, size_t cap, const struct pdm_format *fmt,
			  uint64_t seed);

/** A seed for pdm_mutate() from a run seed and a mutant index (a fixed hash of both). */
uint64_t pdm_seed(uint64_t run_seed, uint64_t index);

#endif
