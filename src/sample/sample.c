/* SPDX-License-Identifier: MIT */
/*
 * sample.c - PERF_RECORD_SAMPLE decoded: every sample_type field in the order
 * the kernel writes them (perf_output_sample in kernel/events/core.c):
 *
 *   IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD   fixed size
 *   READ, CALLCHAIN, RAW, BRANCH_STACK, REGS_USER, STACK_USER     variable
 *   WEIGHT | WEIGHT_STRUCT, DATA_SRC, TRANSACTION, REGS_INTR,
 *   PHYS_ADDR, CGROUP, DATA_PAGE_SIZE, CODE_PAGE_SIZE, AUX
 *
 * The fixed-size part is checked once against the record's size (the format
 * knows its length); each later field is checked before it is read. A
 * sample must be consumed exactly: bytes left over mean the record does not
 * match the format. Each check that fails says why (pev__record_bad(), with
 * the sample_type field at fault). The common path is inline in
 * record_internal.h; here are the rest, read_format blocks (shared with READ records), callchain
 * walking and branch flags.
 */
#include <inttypes.h>

#include "sample/record_internal.h"
#include "core/error_internal.h"

/* ---- read_format blocks ---------------------------------------------------- */

/* Words per group entry: value, [id], [lost]. */
static size_t entry_words(uint64_t rf)
{
	return 1 + !!(rf & PEV_FORMAT_ID) + !!(rf & PEV_FORMAT_LOST);
}

/* Words of the two times. */
static size_t time_words(uint64_t rf)
{
	return !!(rf & PEV_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PEV_FORMAT_TOTAL_TIME_RUNNING);
}

/* The field a malformed read_format block is reported under: READ in a SAMPLE, none in a READ. */
static const char *read_field(const unsigned char *rec)
{
	return pev__ld32(rec) == PEV_RECORD_SAMPLE ? "read" : NULL;
}

/* Says why the read_format block in the record at rec is malformed. */
#define READ_BAD(...) pev__record_bad(rec, read_field(rec), __VA_ARGS__)

/*
 * Layouts (include/uapi/linux/perf_event.h, struct read_format):
 *   single: value, [time_enabled], [time_running], [id], [lost]
 *   group:  nr, [time_enabled], [time_running], nr x { value, [id], [lost] }
 */
int pev__read_block_decode(uint64_t rf, uint32_t group_size, const unsigned char *rec,
			   const unsigned char *p, size_t avail, struct pev_read_data *rd)
{
	size_t per = entry_words(rf), times = time_words(rf), words, at;
	uint64_t nr = 1;

	if (rf & PEV_FORMAT_GROUP) {
		if (avail < 8)
			return READ_BAD("its group count needs 8 bytes, %zu remain", avail);
		nr = pev__ld64(p);
		/* The leader is always there; the count cannot exceed the room left. */
		if (nr == 0)
			return READ_BAD("group count 0, but a group read holds its leader");
		if (group_size && nr > group_size)
			return READ_BAD("group count %" PRIu64 " is above the group's %" PRIu32
					" events",
					nr, group_size);
		if (avail / 8 < 1 + times)
			return READ_BAD("its group count and times need %zu bytes, %zu remain",
					8 * (1 + times), avail);
		if (nr > (avail / 8 - 1 - times) / per)
			return pev__record_no_room(rec, read_field(rec), nr, "group entries",
						   8 * per, avail - 8 * (1 + times));
		words = 1 + times + (size_t)nr * per;
	} else {
		words = per + times;
		if (avail / 8 < words)
			return READ_BAD("read_format 0x%" PRIx64 " needs %zu bytes, %zu remain", rf,
					8 * words, avail);
	}
	/* Word 0 is nr (group) or the value (single); the times follow it. */
	at = 1;
	rd->read_format = rf;
	rd->nr = nr;
	rd->time_enabled = rf & PEV_FORMAT_TOTAL_TIME_ENABLED ? pev__ld64(p + 8 * at++) : 0;
	rd->time_running = rf & PEV_FORMAT_TOTAL_TIME_RUNNING ? pev__ld64(p + 8 * at++) : 0;
	rd->words = (const uint64_t *)(const void *)p;
	rd->nr_words = (uint32_t)words;
	return (int)(words * 8);
}

#undef READ_BAD

PEV_API int pev_read_data_value(const struct pev_read_data *rd, uint64_t i,
				struct pev_read_value *out)
{
	size_t per, value_at, rest_at;
	uint64_t rf;

	static const char fn[] = "pev_read_data_value";

	if (!rd || !out)
		return pev__bad_arg(NULL, fn, rd ? "out" : "rd", "NULL");
	if (!rd->words)
		return pev__bad_arg(NULL, fn, "rd", "holds no words");
	if (i >= rd->nr || i >= rd->nr_words)
		return pev__bad_arg(NULL, fn, "i", "%" PRIu64 ": the read holds %" PRIu64 " values",
				    i, (uint64_t)rd->nr);
	rf = rd->read_format;
	per = entry_words(rf);
	if (rf & PEV_FORMAT_GROUP) {
		value_at = 1 + time_words(rf) + (size_t)i * per;
		rest_at = value_at + 1;
	} else {
		/* The value comes first; the times sit between it and id/lost. */
		value_at = 0;
		rest_at = 1 + time_words(rf);
	}
	/* Never past the block, even for a hand-made rd. */
	if (rest_at + per - 1 > rd->nr_words)
		return pev__bad_arg(NULL, fn, "rd", "value %" PRIu64 " ends past its %" PRIu64
				    " words", i, (uint64_t)rd->nr_words);
	out->value = rd->words[value_at];
	out->id = rf & PEV_FORMAT_ID ? rd->words[rest_at++] : 0;
	out->lost = rf & PEV_FORMAT_LOST ? rd->words[rest_at] : 0;
	return 0;
}

/* ---- SAMPLE ----------------------------------------------------------------- */
/*
 * The common part (the fixed-size fields and the callchain) is inline in
 * record_internal.h, so that the record loop stays short; this file has the
 * rest: the first decode of a layout, READ and the fields after CALLCHAIN.
 */

/* A register dump (`field`): abi, then one word per mask bit unless abi is NONE. */
static int take_regs(const unsigned char *p, size_t size, size_t *at, const char *field,
		     uint64_t mask, uint32_t n, struct pev_sample_regs *out)
{
	if (size - *at < 8)
		return pev__record_bad(p, field, "its abi needs 8 bytes, %zu remain", size - *at);
	out->abi = pev__ld64(p + *at);
	out->mask = mask;
	out->nr = 0;
	out->regs = NULL;
	*at += 8;
	if (out->abi == PEV_SAMPLE_REGS_ABI_NONE || n == 0)
		return 0;
	if ((size - *at) / 8 < n)
		return pev__record_no_room(p, field, n, "registers", 8, size - *at);
	out->nr = n;
	out->regs = (const uint64_t *)(const void *)(p + *at);
	*at += (size_t)n * 8;
	return 0;
}

/* One word, `what` of sample_type field `field` (for the report); *at advances. */
static int take_word(const unsigned char *p, size_t size, size_t *at, const char *field,
		     const char *what, uint64_t *out)
{
	if (size - *at < 8)
		return pev__record_bad(p, field, "%s needs 8 bytes, %zu remain", what, size - *at);
	*out = pev__ld64(p + *at);
	*at += 8;
	return 0;
}

/*
 * The fields after CALLCHAIN that few events ask for. Kept out of the common
 * path so that a sample of ip/tid/time/cpu/period/callchain stays short.
 */
static int decode_rare(const struct pev_record_format *f, uint64_t st, const unsigned char *p,
		       size_t size, size_t *at, struct pev_sample *s)
{
	uint64_t v = 0;

	if (st & PEV_SAMPLE_RAW) {
		if (size - *at < 4)
			return pev__record_bad(p, "raw", "its size needs 4 bytes, %zu remain",
					       size - *at);
		uint32_t n = pev__ld32(p + *at);
		*at += 4;
		/*
		 * The kernel pads the payload so that size word + data fill whole
		 * words. (Exact consumption of a whole-word record implies it too;
		 * checked here so that later fields are never read off a word.)
		 */
		if (n > size - *at)
			return pev__record_bad(p, "raw",
					       "size %" PRIu32 " is above the %zu bytes that "
					       "remain",
					       n, size - *at);
		if ((n + 4) % 8)
			return pev__record_bad(p, "raw",
					       "size %" PRIu32 ": the size word and data do "
					       "not fill whole words",
					       n);
		s->raw_size = n;
		s->raw = n ? p + *at : NULL;
		*at += n;
	}
	if (st & PEV_SAMPLE_BRANCH_STACK) {
		struct pev_branch_stack *b = &s->branch;
		size_t per = sizeof(struct pev_branch_entry);

		b->hw_idx = 0;
		b->entries = NULL;
		b->counters = NULL;
		if (take_word(p, size, at, "branch_stack", "its count", &b->nr))
			return PEV_EFORMAT;
		if ((f->branch_sample_type & PEV_BRANCH_HW_INDEX) &&
		    take_word(p, size, at, "branch_stack", "its hw_idx", &b->hw_idx))
			return PEV_EFORMAT;
		if (f->branch_sample_type & PEV_BRANCH_COUNTERS)
			per += 8;
		if (b->nr > (size - *at) / per)
			return pev__record_no_room(p, "branch_stack", b->nr, "entries", per,
						   size - *at);
		if (b->nr) {
			b->entries = (const struct pev_branch_entry *)(const void *)(p + *at);
			*at += (size_t)b->nr * sizeof(struct pev_branch_entry);
			if (f->branch_sample_type & PEV_BRANCH_COUNTERS) {
				b->counters = (const uint64_t *)(const void *)(p + *at);
				*at += (size_t)b->nr * 8;
			}
		}
	}
	if ((st & PEV_SAMPLE_REGS_USER) &&
	    take_regs(p, size, at, "regs_user", f->sample_regs_user, f->nr_regs_user,
		      &s->regs_user))
		return PEV_EFORMAT;
	if (st & PEV_SAMPLE_STACK_USER) {
		struct pev_sample_stack *k = &s->stack_user;

		k->data = NULL;
		k->dyn_size = 0;
		if (take_word(p, size, at, "stack_user", "its size", &k->size))
			return PEV_EFORMAT;
		/* Size 0 (no user registers: a kernel thread) has no data and no dyn_size. */
		if (k->size) {
			if (k->size % 8)
				return pev__record_bad(p, "stack_user",
						       "size %" PRIu64 " is not a multiple of 8",
						       k->size);
			if (k->size > size - *at)
				return pev__record_bad(p, "stack_user",
						       "size %" PRIu64
						       " is above the %zu bytes that remain",
						       k->size, size - *at);
			k->data = p + *at;
			*at += (size_t)k->size;
			if (take_word(p, size, at, "stack_user", "its dyn_size", &k->dyn_size))
				return PEV_EFORMAT;
			if (k->dyn_size > k->size)
				return pev__record_bad(p, "stack_user",
						       "dyn_size %" PRIu64
						       " is above size %" PRIu64,
						       k->dyn_size, k->size);
		}
	}
	if (st & PEV_SAMPLE_WEIGHT_TYPE) {
		const char *weight = st & PEV_SAMPLE_WEIGHT_STRUCT ? "weight_struct" : "weight";

		if (take_word(p, size, at, weight, "its value", &v))
			return PEV_EFORMAT;
		s->weight = v;
		/* The word's parts mean something only in the struct form. */
		if (!(st & PEV_SAMPLE_WEIGHT_STRUCT))
			v = 0;
		s->weight_var1_dw = (uint32_t)v;
		s->weight_var2_w = (uint16_t)(v >> 32);
		s->weight_var3_w = (uint16_t)(v >> 48);
	}
	if (st & PEV_SAMPLE_DATA_SRC) {
		if (take_word(p, size, at, "data_src", "its value", &s->data_src))
			return PEV_EFORMAT;
		pev_data_src_decode(s->data_src, &s->mem);
	}
	if ((st & PEV_SAMPLE_TRANSACTION) &&
	    take_word(p, size, at, "transaction", "its value", &s->transaction))
		return PEV_EFORMAT;
	if ((st & PEV_SAMPLE_REGS_INTR) &&
	    take_regs(p, size, at, "regs_intr", f->sample_regs_intr, f->nr_regs_intr,
		      &s->regs_intr))
		return PEV_EFORMAT;
	if ((st & PEV_SAMPLE_PHYS_ADDR) &&
	    take_word(p, size, at, "phys_addr", "its value", &s->phys_addr))
		return PEV_EFORMAT;
	if ((st & PEV_SAMPLE_CGROUP) && take_word(p, size, at, "cgroup", "its value", &s->cgroup))
		return PEV_EFORMAT;
	if ((st & PEV_SAMPLE_DATA_PAGE_SIZE) &&
	    take_word(p, size, at, "data_page_size", "its value", &s->data_page_size))
		return PEV_EFORMAT;
	if ((st & PEV_SAMPLE_CODE_PAGE_SIZE) &&
	    take_word(p, size, at, "code_page_size", "its value", &s->code_page_size))
		return PEV_EFORMAT;
	if (st & PEV_SAMPLE_AUX) {
		if (take_word(p, size, at, "aux", "its size", &s->aux_size))
			return PEV_EFORMAT;
		/* The kernel writes the size rounded up to whole words, padding included. */
		if (s->aux_size % 8)
			return pev__record_bad(p, "aux", "size %" PRIu64 " is not a multiple of 8",
					       s->aux_size);
		if (s->aux_size > size - *at)
			return pev__record_bad(p, "aux",
					       "size %" PRIu64 " is above the %zu bytes that "
					       "remain",
					       s->aux_size, size - *at);
		s->aux = s->aux_size ? p + *at : NULL;
		*at += (size_t)s->aux_size;
	}
	return 0;
}

/* The callchain at *at: nr, then nr entries. Returns 0 or PEV_EFORMAT. */
static int take_callchain(const unsigned char *p, size_t size, size_t *at, struct pev_sample *s)
{
	uint64_t nr;

	if (size - *at < 8)
		return pev__record_bad(p, "callchain", "its count needs 8 bytes, %zu remain",
				       size - *at);
	nr = pev__ld64(p + *at);
	*at += 8;
	if (nr > (size - *at) / 8)
		return pev__record_no_room(p, "callchain", nr, "entries", 8, size - *at);
	s->callchain_nr = nr;
	s->callchain = nr ? (const uint64_t *)(const void *)(p + *at) : NULL;
	*at += (size_t)nr * 8;
	return 0;
}

int pev__sample_decode_rest(const struct pev_record_format *f, const unsigned char *p, size_t size,
			    size_t at, struct pev_record *r)
{
	uint64_t st = f->sample_type;
	struct pev_sample *s = &r->sample;
	int e;

	if (st & PEV_SAMPLE_READ) {
		int n = pev__read_block_decode(f->read_format, f->group_size, p, p + at, size - at,
					       &s->read);
		if (n < 0)
			return n;
		at += (size_t)n;
	}
	s->callchain_nr = 0;
	s->callchain = NULL;
	if ((st & PEV_SAMPLE_CALLCHAIN) && (e = take_callchain(p, size, &at, s)) != 0)
		return e;
	if ((st & PEV__SAMPLE_RARE) && (e = decode_rare(f, st, p, size, &at, s)) != 0)
		return e;
	if (at != size)
		return pev__record_bad(p, NULL,
				       "%zu bytes are left over after the fields of sample_type "
				       "0x%" PRIx64,
				       size - at, st);
	return (int)size;
}

/* ---- callchains -------------------------------------------------------------- */

PEV_API bool pev_callchain_is_context(uint64_t entry)
{
	return entry >= PEV_CONTEXT_MAX;
}

PEV_API void pev_callchain_iter_init(struct pev_callchain_iter *it, const uint64_t *ips,
				     uint64_t nr)
{
	if (!it)
		return;
	it->ips = ips;
	it->nr = ips ? nr : 0;
	it->at = 0;
	it->context = 0;
}

PEV_API bool pev_callchain_iter_next(struct pev_callchain_iter *it,
				     struct pev_callchain_frame *frame)
{
	if (!it || !frame)
		return false;
	while (it->at < it->nr) {
		uint64_t e = it->ips[it->at++];

		if (e >= PEV_CONTEXT_MAX) {
			it->context = e;
			continue;
		}
		frame->ip = e;
		frame->context = it->context;
		return true;
	}
	return false;
}

PEV_API const char *pev_callchain_context_name(uint64_t context)
{
	switch (context) {
	case PEV_CONTEXT_HV:
		return "hv";
	case PEV_CONTEXT_KERNEL:
		return "kernel";
	case PEV_CONTEXT_USER:
		return "user";
	case PEV_CONTEXT_GUEST:
		return "guest";
	case PEV_CONTEXT_GUEST_KERNEL:
		return "guest-kernel";
	case PEV_CONTEXT_GUEST_USER:
		return "guest-user";
	default:
		return "unknown";
	}
}

/* ---- branch entries ---------------------------------------------------------- */

PEV_API void pev_branch_flags_decode(uint64_t flags, struct pev_branch_flags *out)
{
	if (!out)
		return;
	out->mispred = PEV_BRANCH_ENTRY_MISPRED(flags);
	out->predicted = PEV_BRANCH_ENTRY_PREDICTED(flags);
	out->in_tx = PEV_BRANCH_ENTRY_IN_TX(flags);
	out->abort = PEV_BRANCH_ENTRY_ABORT(flags);
	out->cycles = (uint16_t)PEV_BRANCH_ENTRY_CYCLES(flags);
	out->type = (uint8_t)PEV_BRANCH_ENTRY_TYPE(flags);
	out->spec = (uint8_t)PEV_BRANCH_ENTRY_SPEC(flags);
	out->new_type = (uint8_t)PEV_BRANCH_ENTRY_NEW_TYPE(flags);
	out->priv = (uint8_t)PEV_BRANCH_ENTRY_PRIV(flags);
}
