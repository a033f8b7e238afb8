/* SPDX-License-Identifier: MIT */
/*
 * fuzz_record.c - libFuzzer harness for the record decoder.
 *
 * Input: a 16-byte prefix that chooses the event's format, then a stream of
 * records:
 *
 *   bytes 0-7   sample_type (masked to the bits Linux 6.18 defines)
 *   byte  8     read_format (masked likewise)
 *   byte  9     bit 0 sample_id_all, bit 1 PEV_BRANCH_HW_INDEX,
 *               bit 2 PEV_BRANCH_COUNTERS, bit 3: sample_regs_intr all 64
 *   byte  10    sample_regs_user (a mask of up to 8 registers)
 *   byte  11    sample_regs_intr (unless bit 3 of byte 9)
 *   byte  12    group_size (0: unknown)
 *   bytes 13-15 unused
 *
 * The records are copied into a heap buffer of exactly their length, so the
 * sanitizer sees any read past them. Each record is decoded; on success the
 * harness checks what the decoder promises and abort()s otherwise:
 *   - the return value is header.size;
 *   - every pointer lies inside the record with everything it counts
 *     (callchain, raw, branch entries and counters, registers, stack, AUX,
 *     read block, namespaces, build id, strings with their NUL, text bytes);
 *   - a SAMPLE's always-set members (identity, ip, addr, period, callchain)
 *     are zero when the format lacks them, although one struct is reused
 *     for the whole stream; the other members are looked at only when
 *     their field is present (record.h: the decoder does not clear them);
 *   - pev_record_time() and pev_record_id() agree with the decoded sample_id;
 *   - the helpers (callchain walk, read values, branch flags, describe) run
 *     on the result without crashing.
 * A malformed record is skipped by header.size when that is possible, as a
 * ring reader would; the stream ends otherwise.
 *
 * Mutations: LLVMFuzzerCustomMutator hands most inputs to the
 * structure-aware mutator (fuzz/perfdata_mutator.c, pdm_mutate_records):
 * a field of a sample laid out by the prefix's format (read values,
 * callchains, branch entries, registers, stack words, sizes), a variable
 * part resized with its record, a record's header, records reordered; the
 * rest (the prefix included) to libFuzzer's own byte mutations.
 *
 * Build: CC=clang meson setup build-fuzz -Dfuzz=true, then
 *   ./build-fuzz/fuzz/fuzz_record -max_total_time=60 fuzz/corpus/record
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfdata_mutator.h"
#include "perfev.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

#define PREFIX 16

/* The identity bits of sample_type. */
#define ID_BITS                                                                                    \
	(PEV_SAMPLE_TID | PEV_SAMPLE_TIME | PEV_SAMPLE_ID | PEV_SAMPLE_STREAM_ID | PEV_SAMPLE_CPU | \
	 PEV_SAMPLE_IDENTIFIER)

static void fail(const struct pev_record *r, const char *what)
{
	fprintf(stderr, "fuzz_record: %s record (type %u, size %u): %s\n",
		pev_record_type_name(r->type), r->type, r->size, what);
	abort();
}

/* p .. p+n lies inside the record r. */
static void inside(const struct pev_record *r, const void *p, uint64_t n, const char *what)
{
	const unsigned char *lo = r->bytes, *hi = lo + r->size, *q = p;

	if (!p) {
		if (n)
			fail(r, what);
		return;
	}
	if (q < lo || q > hi || n > (uint64_t)(hi - q))
		fail(r, what);
}

static void string_inside(const struct pev_record *r, const char *s, uint16_t len,
			  const char *what)
{
	if (!s)
		fail(r, what);
	inside(r, s, (uint64_t)len + 1, what);
	if (s[len] != '\0' || strlen(s) != len)
		fail(r, what);
}

static uint64_t sink;

static void check_read(const struct pev_record *r, const struct pev_read_data *rd)
{
	struct pev_read_value v;

	inside(r, rd->words, (uint64_t)rd->nr_words * 8, "read block");
	if (!rd->words)
		return;
	if (rd->nr == 0)
		fail(r, "a read block without values");
	for (uint64_t i = 0; i < rd->nr; i++) {
		if (pev_read_data_value(rd, i, &v) != 0)
			fail(r, "a value of the read block cannot be read");
		sink += v.value + v.id + v.lost;
	}
}

static void check_regs(const struct pev_record *r, const struct pev_sample_regs *g,
		       uint64_t mask)
{
	if (g->mask != mask)
		fail(r, "register mask");
	if (g->nr && g->nr != (uint32_t)__builtin_popcountll(mask))
		fail(r, "register count");
	inside(r, g->regs, (uint64_t)g->nr * 8, "registers");
}

/*
 * A field whose sample_type bit the format lacks is zero, for the members
 * the decoder always sets (record.h): the identity fields, ip, addr, period
 * and the callchain. The other members of an absent field keep what the
 * struct held before (the decoder does not clear them), so they are not
 * checked.
 */
#define ABSENT(bit, cond)                                                                          \
	do {                                                                                       \
		if (!(f->sample_type & (bit)) && !(cond))                                          \
			fail(r, "a field absent from the format is not zero: " #cond);             \
	} while (0)

static void check_absent(const struct pev_record_format *f, const struct pev_record *r)
{
	const struct pev_sample *s = &r->sample;
	const struct pev_sample_id *id = &r->sample_id;

	ABSENT(PEV_SAMPLE_IDENTIFIER, id->identifier == 0);
	ABSENT(PEV_SAMPLE_IP, s->ip == 0);
	ABSENT(PEV_SAMPLE_TID, id->pid == 0 && id->tid == 0);
	ABSENT(PEV_SAMPLE_TIME, id->time == 0);
	ABSENT(PEV_SAMPLE_ADDR, s->addr == 0);
	ABSENT(PEV_SAMPLE_ID, id->id == 0);
	ABSENT(PEV_SAMPLE_STREAM_ID, id->stream_id == 0);
	ABSENT(PEV_SAMPLE_CPU, id->cpu == 0 && id->cpu_res == 0);
	ABSENT(PEV_SAMPLE_PERIOD, s->period == 0);
	ABSENT(PEV_SAMPLE_CALLCHAIN, s->callchain == NULL && s->callchain_nr == 0);
}

static void check_sample(const struct pev_record_format *f, const struct pev_record *r)
{
	const struct pev_sample *s = &r->sample;
	struct pev_callchain_iter it;
	struct pev_callchain_frame fr;
	struct pev_branch_flags bf;
	struct pev_data_src ds;

	if (s->fields != f->sample_type || r->id_fields != (f->sample_type & ID_BITS))
		fail(r, "fields");
	check_absent(f, r);
	if (f->sample_type & PEV_SAMPLE_READ)
		check_read(r, &s->read);
	inside(r, s->callchain, s->callchain_nr * 8, "callchain");
	pev_callchain_iter_init(&it, s->callchain, s->callchain_nr);
	while (pev_callchain_iter_next(&it, &fr)) {
		if (pev_callchain_is_context(fr.ip))
			fail(r, "a marker given as a frame");
		sink += fr.ip ^ fr.context;
	}
	if (f->sample_type & PEV_SAMPLE_RAW)
		inside(r, s->raw, s->raw_size, "raw");
	if (f->sample_type & PEV_SAMPLE_BRANCH_STACK) {
		inside(r, s->branch.entries, s->branch.nr * sizeof(struct pev_branch_entry),
		       "branches");
		inside(r, s->branch.counters, s->branch.counters ? s->branch.nr * 8 : 0,
		       "counters");
		for (uint64_t i = 0; s->branch.entries && i < s->branch.nr; i++) {
			pev_branch_flags_decode(s->branch.entries[i].flags, &bf);
			sink += bf.cycles + bf.type;
		}
	}
	if (f->sample_type & PEV_SAMPLE_REGS_USER)
		check_regs(r, &s->regs_user, f->sample_regs_user);
	if (f->sample_type & PEV_SAMPLE_REGS_INTR)
		check_regs(r, &s->regs_intr, f->sample_regs_intr);
	if (f->sample_type & PEV_SAMPLE_STACK_USER) {
		inside(r, s->stack_user.data, s->stack_user.size, "user stack");
		if (s->stack_user.dyn_size > s->stack_user.size)
			fail(r, "dyn_size above size");
	}
	if (f->sample_type & PEV_SAMPLE_AUX)
		inside(r, s->aux, s->aux_size, "aux");
	if (f->sample_type & PEV_SAMPLE_DATA_SRC) {
		pev_data_src_decode(s->data_src, &ds);
		if (ds.op != s->mem.op || ds.hops != s->mem.hops)
			fail(r, "data source fields");
	}
}

static void check_body(const struct pev_record_format *f, const struct pev_record *r)
{
	switch (r->type) {
	case PEV_RECORD_SAMPLE:
		check_sample(f, r);
		break;
	case PEV_RECORD_MMAP:
		string_inside(r, r->mmap.filename, r->mmap.filename_len, "mmap filename");
		break;
	case PEV_RECORD_MMAP2:
		string_inside(r, r->mmap2.filename, r->mmap2.filename_len, "mmap2 filename");
		if (r->mmap2.has_build_id)
			inside(r, r->mmap2.build_id, PEV_MMAP2_BUILD_ID_MAX, "build id");
		if (r->mmap2.build_id_size > PEV_MMAP2_BUILD_ID_MAX)
			fail(r, "build id size");
		break;
	case PEV_RECORD_COMM:
		string_inside(r, r->comm.comm, r->comm.comm_len, "comm");
		break;
	case PEV_RECORD_KSYMBOL:
		string_inside(r, r->ksymbol.name, r->ksymbol.name_len, "ksymbol name");
		break;
	case PEV_RECORD_CGROUP:
		string_inside(r, r->cgroup.path, r->cgroup.path_len, "cgroup path");
		break;
	case PEV_RECORD_READ:
		check_read(r, &r->read.values);
		break;
	case PEV_RECORD_NAMESPACES:
		inside(r, r->namespaces.link, r->namespaces.nr * sizeof(struct pev_ns_link_info),
		       "namespaces");
		break;
	case PEV_RECORD_BPF_EVENT:
		inside(r, r->bpf_event.tag, PEV_BPF_TAG_SIZE, "bpf tag");
		break;
	case PEV_RECORD_TEXT_POKE:
		inside(r, r->text_poke.old_bytes, r->text_poke.old_len, "old text");
		inside(r, r->text_poke.new_bytes, r->text_poke.new_len, "new text");
		break;
	default:
		if (r->type < PEV_RECORD_MMAP || r->type >= PEV_RECORD_KERNEL_MAX)
			inside(r, r->unknown.data, r->unknown.size, "unknown payload");
		break;
	}
}

/* The fast reads agree with the full decode. */
static void check_peeks(const struct pev_record_format *f, const struct pev_record *r)
{
	uint64_t v = 0;
	int t = pev_record_time(f, r->bytes, r->size, &v);

	if (t != !!(r->id_fields & PEV_SAMPLE_TIME) || (t == 1 && v != r->sample_id.time))
		fail(r, "pev_record_time disagrees with the decode");
	int i = pev_record_id(f, r->bytes, r->size, &v);
	uint64_t want = r->id_fields & PEV_SAMPLE_IDENTIFIER ? r->sample_id.identifier
							     : r->sample_id.id;
	if (i != !!(r->id_fields & (PEV_SAMPLE_ID | PEV_SAMPLE_IDENTIFIER)) ||
	    (i == 1 && v != want))
		fail(r, "pev_record_id disagrees with the decode");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pev_record_config c = PEV_RECORD_CONFIG_INIT;
	struct pev_record_format f;
	struct pev_record r;
	char line[256];
	uint64_t st;

	if (size < PREFIX)
		return 0;
	memcpy(&st, data, sizeof(st));
	c.sample_type = st & PEV_SAMPLE_ALL;
	c.read_format = data[8] & PEV_FORMAT_ALL;
	c.sample_id_all = data[9] & 1;
	c.branch_sample_type = PEV_BRANCH_ANY | (data[9] & 2 ? PEV_BRANCH_HW_INDEX : 0) |
			       (data[9] & 4 ? PEV_BRANCH_COUNTERS : 0);
	c.sample_regs_user = data[10];
	c.sample_regs_intr = data[9] & 8 ? UINT64_MAX : data[11];
	c.group_size = data[12];
	if (pev_record_format_init(&f, &c) != 0)
		abort();

	size_t n = size - PREFIX;
	unsigned char *buf = malloc(n ? n : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + PREFIX, n);

	size_t off = 0;
	while (off < n) {
		int got = pev_record_decode(&f, buf + off, n - off, &r);

		if (got > 0) {
			if ((size_t)got != r.size || got % 8 || (size_t)got > n - off)
				fail(&r, "consumed bytes differ from header.size");
			check_body(&f, &r);
			check_peeks(&f, &r);
			pev_record_describe(&r, line, sizeof(line));
			if (!memchr(line, '\0', sizeof(line)))
				fail(&r, "describe overran its buffer");
			off += (size_t)got;
			continue;
		}
		if (got != PEV_EFORMAT && got != PEV_EBADARG)
			fail(&r, "an error other than EFORMAT");
		/* Skip a malformed record when its header allows, as a ring reader would. */
		if (got == PEV_EFORMAT && r.size >= 8 && r.size <= n - off && r.size % 8 == 0) {
			off += r.size;
			continue;
		}
		break;
	}
	/* The fast reads on any bytes, aligned or not, never read outside. */
	if (n) {
		uint64_t v;
		(void)pev_record_time(&f, buf + 1, n - 1, &v);
		(void)pev_record_id(&f, buf, n, &v);
		if (pev_record_decode(&f, buf + 1, n - 1, &r) != PEV_EBADARG && ((uintptr_t)buf & 7) == 0)
			abort();
	}
	free(buf);
	return 0;
}

/* Mostly structure-aware on the records after the prefix; one time in five libFuzzer's bytes. */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	if (seed % 5 != 0 && size > PREFIX && max_size > PREFIX) {
		struct pdm_format f;
		uint64_t st;

		memcpy(&st, data, sizeof(st));
		/* The prefix read as LLVMFuzzerTestOneInput reads it. */
		f.sample_type = st & PEV_SAMPLE_ALL;
		f.read_format = data[8] & PEV_FORMAT_ALL;
		f.branch_sample_type = (data[9] & 2 ? PEV_BRANCH_HW_INDEX : 0) |
				       (data[9] & 4 ? PEV_BRANCH_COUNTERS : 0);
		f.sample_regs_user = data[10];
		f.sample_regs_intr = data[9] & 8 ? UINT64_MAX : data[11];
		size_t n = pdm_mutate_records(data + PREFIX, size - PREFIX, max_size - PREFIX, &f,
					      pdm_seed(seed, size));
		if (n)
			return PREFIX + n;
	}
	return LLVMFuzzerMutate(data, size, max_size);
}
