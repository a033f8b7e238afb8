/* SPDX-License-Identifier: MIT */
/*
 * record_internal.h - what the record decoder's files share: loads that
 * need no alignment, the identity bits of sample_type, the decoders of the
 * parts two record types have in common, and the reports of malformed
 * records.
 */
#ifndef PERFEV_RECORD_INTERNAL_H
#define PERFEV_RECORD_INTERNAL_H

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "perfev/record.h"
#include "core/util.h"

/* The sample_type bits a sample_id (trailer or SAMPLE body) can hold. */
#define PEV__ID_FIELDS                                                                             \
	(PEV_SAMPLE_TID | PEV_SAMPLE_TIME | PEV_SAMPLE_ID | PEV_SAMPLE_STREAM_ID | PEV_SAMPLE_CPU | \
	 PEV_SAMPLE_IDENTIFIER)

/* The fixed-size fields at the start of a SAMPLE, IDENTIFIER .. PERIOD. */
#define PEV__SAMPLE_PREFIX (PEV__ID_FIELDS | PEV_SAMPLE_IP | PEV_SAMPLE_ADDR | PEV_SAMPLE_PERIOD)

/* Loads from any address (memcpy compiles to one move). */
static inline uint64_t pev__ld64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t pev__ld32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint16_t pev__ld16(const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * fmt->priv.prefix_kind: for a format whose fixed-size SAMPLE fields are
 * among IDENTIFIER, IP, TID, TIME, CPU and PERIOD, which of them it has (bit
 * 0 IDENTIFIER .. bit 5 PERIOD); PEV__PREFIX_GENERAL when it has ADDR, ID or
 * STREAM_ID.
 */
#define PEV__PREFIX_GENERAL 0xff

/*
 * Why a record is malformed, said by the decoder's failure paths and by
 * nothing else (a record that decodes costs no formatting and no write to
 * thread-local storage). pev__record_bad() sets this thread's last error
 * (pev_last_error()) to PEV_EFORMAT with the message
 *
 *   pev_record_decode: <TYPE> record of <size> bytes: <reason>
 *
 * reading type and size from the header at rec, which the caller has
 * already checked (8 <= size <= the bytes given). field, when not NULL, is
 * the sample_type field at fault in lower case ("callchain"): it becomes the
 * error's field, and the reason is prefixed with the bit's name
 * ("PEV_SAMPLE_CALLCHAIN: "). Returns PEV_EFORMAT.
 */
int pev__record_bad(const unsigned char *rec, const char *field, const char *fmt, ...)
	__attribute__((cold)) PEV_PRINTF(3, 4);

/*
 * pev__record_bad() for `count` items of `per` bytes each (`what`:
 * "entries") that do not fit in the `left` bytes remaining: "900 entries
 * need 7200 bytes, 40 remain". Returns PEV_EFORMAT.
 */
int pev__record_no_room(const unsigned char *rec, const char *field, uint64_t count,
			const char *what, uint64_t per, size_t left) __attribute__((cold));

/*
 * Decodes the read_format block at p (at most avail bytes) into rd.
 * group_size, when non-zero, bounds a group's count. rec is the record that
 * holds the block (a SAMPLE or a READ record), for the report when the
 * block is malformed. Returns the block's size in bytes, or PEV_EFORMAT.
 */
int pev__read_block_decode(uint64_t read_format, uint32_t group_size, const unsigned char *rec,
			   const unsigned char *p, size_t avail, struct pev_read_data *rd);

/* The sample_type bits after CALLCHAIN, which few events ask for. */
#define PEV__SAMPLE_RARE                                                                           \
	(PEV_SAMPLE_RAW | PEV_SAMPLE_BRANCH_STACK | PEV_SAMPLE_REGS_USER | PEV_SAMPLE_STACK_USER |  \
	 PEV_SAMPLE_WEIGHT_TYPE | PEV_SAMPLE_DATA_SRC | PEV_SAMPLE_TRANSACTION |                    \
	 PEV_SAMPLE_REGS_INTR | PEV_SAMPLE_PHYS_ADDR | PEV_SAMPLE_CGROUP |                          \
	 PEV_SAMPLE_DATA_PAGE_SIZE | PEV_SAMPLE_CODE_PAGE_SIZE | PEV_SAMPLE_AUX)

/* pid and tid, cpu and its reserved word: each a pair of u32s, as in the bytes. */
_Static_assert(offsetof(struct pev_sample_id, tid) == offsetof(struct pev_sample_id, pid) + 4,
	       "pid, tid adjacent");
_Static_assert(offsetof(struct pev_sample_id, cpu_res) == offsetof(struct pev_sample_id, cpu) + 4,
	       "cpu, cpu_res adjacent");

/* One fixed-size word into dst when the format has `bit`, else 0. */
#define PEV__PREFIX_WORD(bit, dst)                                                                 \
	do {                                                                                       \
		if (st & (bit)) {                                                                  \
			memcpy((dst), p + at, 8);                                                  \
			at += 8;                                                                   \
		} else {                                                                           \
			memset((dst), 0, 8);                                                       \
		}                                                                                  \
	} while (0)

/*
 * Writes the fixed-size fields IDENTIFIER .. PERIOD of the SAMPLE at p into
 * r: those the format st has from the record (the caller checked that it
 * holds them), the others 0.
 */
static inline void pev__sample_prefix(uint64_t st, const unsigned char *p, struct pev_record *r)
{
	struct pev_sample *s = &r->sample;
	struct pev_sample_id *id = &r->sample_id;
	size_t at = 8;

	PEV__PREFIX_WORD(PEV_SAMPLE_IDENTIFIER, &id->identifier);
	PEV__PREFIX_WORD(PEV_SAMPLE_IP, &s->ip);
	PEV__PREFIX_WORD(PEV_SAMPLE_TID, &id->pid);
	PEV__PREFIX_WORD(PEV_SAMPLE_TIME, &id->time);
	PEV__PREFIX_WORD(PEV_SAMPLE_ADDR, &s->addr);
	PEV__PREFIX_WORD(PEV_SAMPLE_ID, &id->id);
	PEV__PREFIX_WORD(PEV_SAMPLE_STREAM_ID, &id->stream_id);
	PEV__PREFIX_WORD(PEV_SAMPLE_CPU, &id->cpu);
	PEV__PREFIX_WORD(PEV_SAMPLE_PERIOD, &s->period);
}

/*
 * The same for a prefix kind k (fmt->priv.prefix_kind below 64) known at
 * compile time: the compiler turns each call with a constant k into plain
 * loads and stores at fixed offsets, without a test.
 */
static inline __attribute__((always_inline)) void
pev__sample_prefix_kind(unsigned k, const unsigned char *p, struct pev_record *r)
{
	uint64_t st = (k & 1 ? PEV_SAMPLE_IDENTIFIER : 0) | (k & 2 ? PEV_SAMPLE_IP : 0) |
		      (k & 4 ? PEV_SAMPLE_TID : 0) | (k & 8 ? PEV_SAMPLE_TIME : 0) |
		      (k & 16 ? PEV_SAMPLE_CPU : 0) | (k & 32 ? PEV_SAMPLE_PERIOD : 0);

	pev__sample_prefix(st, p, r);
}

/*
 * Writes the fixed-size fields for format f: one jump to code made for f's
 * prefix kind, or the general copy. (Stores whose place comes from a table
 * instead make the caller's next read of the field wait for them: measured
 * twice as slow.)
 */
static inline void pev__sample_prefix_fast(const struct pev_record_format *f,
					   const unsigned char *p, struct pev_record *r)
{
#define PEV__K(k)                                                                                  \
	case k:                                                                                    \
		pev__sample_prefix_kind(k, p, r);                                                  \
		return;
#define PEV__K8(k) PEV__K(k) PEV__K(k + 1) PEV__K(k + 2) PEV__K(k + 3) PEV__K(k + 4) PEV__K(k + 5) \
	PEV__K(k + 6) PEV__K(k + 7)
	switch (f->priv.prefix_kind) {
		PEV__K8(0)
		PEV__K8(8)
		PEV__K8(16)
		PEV__K8(24)
		PEV__K8(32)
		PEV__K8(40)
		PEV__K8(48)
		PEV__K8(56)
	default:
		pev__sample_prefix(f->sample_type, p, r);
		return;
	}
#undef PEV__K8
#undef PEV__K
}

/*
 * Decodes READ, the callchain and the fields after it of the SAMPLE at p,
 * from offset at (after the fixed-size fields). Returns size, or
 * PEV_EFORMAT with the reason reported (pev__record_bad()).
 */
int pev__sample_decode_rest(const struct pev_record_format *fmt, const unsigned char *p,
			    size_t size, size_t at, struct pev_record *r) __attribute__((noinline));

/*
 * Decodes the SAMPLE of `size` bytes at p (header already checked: 8 <=
 * size, size % 8 == 0) into r->id_fields, r->sample_id and r->sample: the
 * always-set members (see struct pev_sample) whatever the format, the others
 * when the format has them, each written whole. Returns size, or PEV_EFORMAT
 * with the reason reported (pev__record_bad()).
 *
 * The common case is inline: the fixed-size fields, covered by one check of
 * the size (the format knows their length), then nothing or the callchain.
 * READ and the fields after CALLCHAIN go to pev__sample_decode_rest(). So
 * does a record the common case finds malformed after the fixed-size
 * fields: the general path meets the same fault and says what it is, which
 * keeps the reasons in one place and the inline code short.
 */
static inline int pev__sample_decode(const struct pev_record_format *f, const unsigned char *p,
				     size_t size, struct pev_record *r)
{
	uint64_t st = f->sample_type;

	r->id_fields = f->sample_id_fields;
	r->sample.fields = st;
	/* min_size: the fixed-size fields, and the callchain's nr when there is one. */
	if (__builtin_expect(size < f->min_size, 0))
		return pev__record_bad(p, NULL, "sample_type 0x%" PRIx64 " needs at least %u bytes",
				       st, (unsigned)f->min_size);
	pev__sample_prefix_fast(f, p, r);
	size_t at = f->prefix_size;
	if (__builtin_expect(st & (PEV_SAMPLE_READ | PEV__SAMPLE_RARE), 0))
		return pev__sample_decode_rest(f, p, size, at, r);
	if (!(st & PEV_SAMPLE_CALLCHAIN)) {
		r->sample.callchain_nr = 0;
		r->sample.callchain = NULL;
		return at == size ? (int)size : pev__sample_decode_rest(f, p, size, at, r);
	}
	/* The callchain is the last field: its nr must account for exactly the words left. */
	uint64_t nr = pev__ld64(p + at);
	r->sample.callchain_nr = nr;
	r->sample.callchain = nr ? (const uint64_t *)(const void *)(p + at + 8) : NULL;
	return nr == (size - at) / 8 - 1 ? (int)size : pev__sample_decode_rest(f, p, size, at, r);
}

#endif /* PERFEV_RECORD_INTERNAL_H */
