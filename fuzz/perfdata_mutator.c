/* SPDX-License-Identifier: MIT */
/*
 * perfdata_mutator.c - a structure-aware mutator of perf.data files
 * (perfdata_mutator.h says what it changes).
 *
 * A mutation parses the file into a small model (where the attributes, their
 * ids, the records and the feature sections are), picks one operation by the
 * seeded generator, and applies it. Operations that change a length move the
 * bytes after it and fix every file offset the header, the attribute
 * section and the feature table hold, so the file stays walkable and the
 * reader gets past its framing checks to the code that interprets values.
 * Operations that only change a value leave the lengths alone, lengths
 * included: a length that lies is one of the values.
 *
 * Everything here is bounds-checked against the buffer: the mutator must
 * walk its own output (libFuzzer feeds mutants back in).
 */
#include "perfdata_mutator.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* -- the generator ------------------------------------------------------- */

struct rng {
	uint64_t s;
};

/* splitmix64: small, fast, the same everywhere. */
static uint64_t rnd(struct rng *r)
{
	uint64_t z = (r->s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* A number in [0, n); 0 when n is 0. */
static uint64_t below(struct rng *r, uint64_t n)
{
	return n ? rnd(r) % n : 0;
}

uint64_t pdm_seed(uint64_t run_seed, uint64_t index)
{
	struct rng r = { run_seed * UINT64_C(0x100000001b3) ^ index };

	rnd(&r);
	return rnd(&r) ^ index;
}

/* -- little-endian access ------------------------------------------------ */

static uint64_t ld(const uint8_t *p, unsigned width)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < width; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void st(uint8_t *p, unsigned width, uint64_t v)
{
	for (unsigned i = 0; i < width; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* -- the file model ------------------------------------------------------ */

#define MAX_ATTRS 256
#define MAX_FEATS 256
#define MAX_RECS 65536
#define MAX_FIELDS 2048

/* Layout facts from <linux/perf_event.h>. */
#define HDR_SIZE 104
#define PIPE_HDR_SIZE 16
#define ATTR_VER0 64
#define REC_HEADER_ATTR 64
#define REC_SAMPLE 9

/* perf_event_attr offsets. */
#define A_SIZE 4
#define A_SAMPLE_TYPE 24
#define A_READ_FORMAT 32
#define A_FLAGS 40
#define A_BRANCH_TYPE 72
#define A_REGS_USER 80
#define A_STACK_USER 88
#define A_REGS_INTR 96

/* sample_type bits. */
enum {
	S_IP = 1 << 0, S_TID = 1 << 1, S_TIME = 1 << 2, S_ADDR = 1 << 3, S_READ = 1 << 4,
	S_CALLCHAIN = 1 << 5, S_ID = 1 << 6, S_CPU = 1 << 7, S_PERIOD = 1 << 8,
	S_STREAM_ID = 1 << 9, S_RAW = 1 << 10, S_BRANCH = 1 << 11, S_REGS_USER = 1 << 12,
	S_STACK_USER = 1 << 13, S_WEIGHT = 1 << 14, S_DATA_SRC = 1 << 15,
	S_IDENTIFIER = 1 << 16, S_TRANSACTION = 1 << 17, S_REGS_INTR = 1 << 18,
	S_PHYS_ADDR = 1 << 19, S_AUX = 1 << 20, S_CGROUP = 1 << 21, S_DATA_PAGE = 1 << 22,
	S_CODE_PAGE = 1 << 23, S_WEIGHT_STRUCT = 1 << 24,
};
/* read_format bits. */
enum { R_ENABLED = 1, R_RUNNING = 2, R_ID = 4, R_GROUP = 8, R_LOST = 16 };
/* branch_sample_type bits that change the layout. */
#define B_HW_INDEX (UINT64_C(1) << 17)
#define B_COUNTERS (UINT64_C(1) << 19)

struct attr {
	size_t off;       /* of the perf_event_attr */
	size_t len;       /* its bytes in the file */
	size_t ids_entry; /* file mode: the ids section's (offset, size) entry; 0 in pipe mode */
	size_t ids_off;   /* the ids (file bytes), nr_ids of them */
	size_t nr_ids;
	uint64_t st, rf, bst, ru, ri;
	int id_all;
};

struct feat {
	size_t entry; /* of its (offset, size) in the feature table */
	uint64_t off, size;
	int bit;
};

struct file {
	uint8_t *d;
	size_t size, cap;
	int pipe;
	size_t nattr;
	struct attr attrs[MAX_ATTRS];
	size_t data_off, data_end;
	size_t nfeat;
	struct feat feat[MAX_FEATS];
	size_t nrec;
	size_t *recs;
	char *what;
	size_t what_size;
};

static void say(struct file *f, const char *fmt, ...)
{
	size_t used;
	va_list ap;

	if (!f->what || !f->what_size)
		return;
	used = strlen(f->what);
	if (used + 1 >= f->what_size)
		return;
	va_start(ap, fmt);
	vsnprintf(f->what + used, f->what_size - used, fmt, ap);
	va_end(ap);
}

static uint64_t attr_word(const struct file *f, const struct attr *a, size_t at, unsigned width)
{
	return at + width <= a->len ? ld(f->d + a->off + at, width) : 0;
}

static void attr_fill(const struct file *f, struct attr *a)
{
	a->st = attr_word(f, a, A_SAMPLE_TYPE, 8);
	a->rf = attr_word(f, a, A_READ_FORMAT, 8);
	a->bst = attr_word(f, a, A_BRANCH_TYPE, 8);
	a->ru = attr_word(f, a, A_REGS_USER, 8);
	a->ri = attr_word(f, a, A_REGS_INTR, 8);
	a->id_all = (int)(attr_word(f, a, A_FLAGS, 8) >> 18 & 1);
}

static unsigned rec_size(const struct file *f, size_t rec)
{
	return (unsigned)ld(f->d + rec + 6, 2);
}

static unsigned rec_type(const struct file *f, size_t rec)
{
	return (unsigned)ld(f->d + rec, 4);
}

static int walk_records(struct file *f)
{
	f->recs = malloc(MAX_RECS * sizeof(*f->recs));
	if (!f->recs)
		return -1;
	for (size_t at = f->data_off; at + 8 <= f->data_end && f->nrec < MAX_RECS;) {
		unsigned sz = rec_size(f, at);
		if (sz < 8 || sz > f->data_end - at)
			break;
		f->recs[f->nrec++] = at;
		at += sz;
	}
	return 0;
}

static int parse_pipe(struct file *f)
{
	f->pipe = 1;
	f->data_off = PIPE_HDR_SIZE;
	f->data_end = f->size;
	if (walk_records(f))
		return -1;
	for (size_t i = 0; i < f->nrec && f->nattr < MAX_ATTRS; i++) {
		size_t rec = f->recs[i];
		unsigned sz = rec_size(f, rec);
		if (rec_type(f, rec) != REC_HEADER_ATTR || sz < 8 + ATTR_VER0)
			continue;
		struct attr *a = &f->attrs[f->nattr++];
		size_t alen = (size_t)ld(f->d + rec + 8 + A_SIZE, 4);
		if (alen == 0)
			alen = ATTR_VER0;
		if (alen > sz - 8)
			alen = sz - 8;
		a->off = rec + 8;
		a->len = alen;
		a->ids_entry = 0;
		a->ids_off = a->off + alen;
		a->nr_ids = (sz - 8 - alen) / 8;
		attr_fill(f, a);
	}
	return 0;
}

static int parse_file(struct file *f)
{
	const uint8_t *d = f->d;
	uint64_t attr_size = ld(d + 16, 8), a_off = ld(d + 24, 8), a_size = ld(d + 32, 8);
	uint64_t d_off = ld(d + 40, 8), d_size = ld(d + 48, 8);

	if (attr_size >= 16 + ATTR_VER0 && attr_size < 4096 && a_off <= f->size &&
	    a_size <= f->size - a_off) {
		for (uint64_t i = 0; i < a_size / attr_size && f->nattr < MAX_ATTRS; i++) {
			struct attr *a = &f->attrs[f->nattr++];
			a->off = (size_t)(a_off + i * attr_size);
			a->len = (size_t)attr_size - 16;
			a->ids_entry = a->off + a->len;
			uint64_t io = ld(d + a->ids_entry, 8), is = ld(d + a->ids_entry + 8, 8);
			if (io <= f->size && is <= f->size - io) {
				a->ids_off = (size_t)io;
				a->nr_ids = (size_t)(is / 8);
			} else {
				a->ids_off = 0;
				a->nr_ids = 0;
			}
			attr_fill(f, a);
		}
	}
	if (d_off > f->size)
		d_off = f->size;
	if (d_size > f->size - d_off)
		d_size = f->size - d_off;
	f->data_off = (size_t)d_off;
	f->data_end = (size_t)(d_off + d_size);
	/* The feature table follows the data section: one entry per bit set, in bit order. */
	size_t table = f->data_end;
	for (int bit = 0; bit < 256 && f->nfeat < MAX_FEATS; bit++) {
		if (!(d[72 + bit / 8] >> (bit % 8) & 1))
			continue;
		if (table + 16 > f->size)
			break;
		struct feat *ft = &f->feat[f->nfeat++];
		ft->entry = table;
		ft->off = ld(d + table, 8);
		ft->size = ld(d + table + 8, 8);
		ft->bit = bit;
		table += 16;
	}
	return walk_records(f);
}

static int parse(struct file *f, uint8_t *buf, size_t size, size_t cap)
{
	memset(f, 0, sizeof(*f));
	f->d = buf;
	f->size = size;
	f->cap = cap;
	if (size < PIPE_HDR_SIZE || memcmp(buf, "PERFILE2", 8) != 0)
		return -1;
	uint64_t hs = ld(buf + 8, 8);
	if (hs == PIPE_HDR_SIZE)
		return parse_pipe(f);
	if (hs < HDR_SIZE || size < HDR_SIZE)
		return -1;
	return parse_file(f);
}

static void release(struct file *f)
{
	free(f->recs);
	f->recs = NULL;
}

/* -- moving bytes, keeping the offsets right ----------------------------- */

/*
 * A section (offset, size) stored at entry, after [at, at + del) became ins
 * bytes: the data section (grow set) takes a change inside it in its size;
 * a section after the change moves.
 */
static void fix_section(struct file *f, size_t entry, size_t at, size_t del, size_t ins, int grow)
{
	uint64_t o = ld(f->d + entry, 8), s = ld(f->d + entry + 8, 8);

	if (entry + 16 > f->size)
		return;
	if (grow && o <= at && s <= UINT64_MAX - o && at + del <= o + s)
		s = s - del + ins;
	else if (o >= at + del)
		o = o - del + ins;
	st(f->d + entry, 8, o);
	st(f->d + entry + 8, 8, s);
}

/* Where a byte at old position p is after the splice (p outside the replaced bytes). */
static size_t moved(size_t p, size_t at, size_t del, size_t ins)
{
	return p >= at + del ? p - del + ins : p;
}

/*
 * Replaces f->d[at, at + del) (inside the data section) with ins bytes from
 * src (NULL: zeros), fixes the offsets of file mode and the model's
 * positions of the tables; the record list is stale afterwards. Returns -1
 * when the result would not fit.
 */
static int splice(struct file *f, size_t at, size_t del, const uint8_t *src, size_t ins)
{
	if (at > f->size || del > f->size - at || f->size - del + ins > f->cap)
		return -1;
	memmove(f->d + at + ins, f->d + at + del, f->size - at - del);
	if (src)
		memmove(f->d + at, src, ins);
	else
		memset(f->d + at, 0, ins);
	f->size = f->size - del + ins;
	f->data_end = moved(f->data_end, at, del, ins);
	if (f->pipe)
		return 0;
	fix_section(f, 24, at, del, ins, 0);
	fix_section(f, 40, at, del, ins, 1);
	fix_section(f, 56, at, del, ins, 0);
	for (size_t i = 0; i < f->nattr; i++) {
		struct attr *a = &f->attrs[i];
		a->off = moved(a->off, at, del, ins);
		a->ids_entry = moved(a->ids_entry, at, del, ins);
		a->ids_off = moved(a->ids_off, at, del, ins);
		fix_section(f, a->ids_entry, at, del, ins, 0);
	}
	for (size_t i = 0; i < f->nfeat; i++) {
		f->feat[i].entry = moved(f->feat[i].entry, at, del, ins);
		fix_section(f, f->feat[i].entry, at, del, ins, 0);
	}
	return 0;
}

/* -- values -------------------------------------------------------------- */

static const uint64_t magic_values[] = {
	0, 1, 2, 7, 8, 0x7f, 0x80, 0xff, 0x100, 0xfff, 0x1000, 0x7fff, 0x8000, 0xffff,
	0x10000, 0x7fffffff, 0x80000000, 0xffffffff, UINT64_C(0x100000000),
	UINT64_C(0x7fffffffffffffff), UINT64_C(0x8000000000000000), UINT64_MAX,
	UINT64_MAX - 1, UINT64_C(0xffffffff80000000), UINT64_C(0x00007fffffffffff),
	UINT64_C(0xffff800000000000),
	/* callchain context markers */
	(uint64_t)-32, (uint64_t)-128, (uint64_t)-512, (uint64_t)-2048, (uint64_t)-2176,
	(uint64_t)-2560, (uint64_t)-4095,
};

/* A new value for a field that holds old. */
static uint64_t new_value(struct rng *r, uint64_t old, unsigned width)
{
	uint64_t v;

	switch (below(r, 11)) {
	case 0:
		v = magic_values[below(r, sizeof(magic_values) / sizeof(magic_values[0]))];
		break;
	case 1:
		v = old + 1 + below(r, 16);
		break;
	case 2:
		v = old - 1 - below(r, 16);
		break;
	case 3:
		v = old ^ (UINT64_C(1) << below(r, width * 8));
		break;
	case 4:
		v = rnd(r);
		break;
	case 5: /* backwards by a part of itself */
		v = old - old / (2 + below(r, 8));
		break;
	case 6: /* forwards by a part of itself */
		v = old + old / (1 + below(r, 8));
		break;
	case 7:
		v = old * (2 + below(r, 1000));
		break;
	case 8:
		v = below(r, 9);
		break;
	case 9:
		v = -old;
		break;
	default:
		v = old + 8 * (below(r, 64) - 32);
		break;
	}
	if (width < 8)
		v &= (UINT64_C(1) << (width * 8)) - 1;
	return v;
}

/* -- the sample layout --------------------------------------------------- */

enum fkind {
	F_IDENT, F_IP, F_PID, F_TID, F_TIME, F_ADDR, F_ID, F_STREAM, F_CPU, F_RES, F_PERIOD,
	F_READ_NR, F_READ_ENABLED, F_READ_RUNNING, F_READ_VALUE, F_READ_ID, F_READ_LOST,
	F_CC_NR, F_CC_IP, F_RAW_SIZE, F_RAW_WORD, F_BR_NR, F_BR_HW_IDX, F_BR_FROM, F_BR_TO,
	F_BR_FLAGS, F_BR_COUNTER, F_RU_ABI, F_RU_REG, F_STACK_SIZE, F_STACK_WORD, F_STACK_DYN,
	F_WEIGHT, F_DATA_SRC, F_TXN, F_RI_ABI, F_RI_REG, F_PHYS, F_CGROUP, F_DATA_PAGE,
	F_CODE_PAGE, F_AUX_SIZE, F_AUX_WORD, F_KINDS
};

static const char *const fnames[F_KINDS] = {
	"identifier", "ip", "pid", "tid", "time", "addr", "id", "stream_id", "cpu", "cpu.res",
	"period", "read.nr", "read.time_enabled", "read.time_running", "read.value", "read.id",
	"read.lost", "callchain.nr", "callchain.ip", "raw.size", "raw.data", "branch.nr",
	"branch.hw_idx", "branch.from", "branch.to", "branch.flags", "branch.counter",
	"regs_user.abi", "regs_user.reg", "stack_user.size", "stack_user.data",
	"stack_user.dyn_size", "weight", "data_src", "transaction", "regs_intr.abi",
	"regs_intr.reg", "phys_addr", "cgroup", "data_page_size", "code_page_size", "aux.size",
	"aux.data",
};

struct field {
	uint8_t kind, width;
	uint32_t idx;
	size_t off;
};

/* A variable part that can be resized: count at count_off (bytes or entries). */
struct part {
	enum fkind kind; /* its count's kind */
	size_t count_off;
	unsigned count_width;
	size_t data_off;   /* first element */
	size_t elem;       /* bytes per element */
	uint64_t n;        /* elements */
	int count_bytes;   /* the count is in bytes (raw, stack, aux), not elements */
};

struct layout {
	const struct attr *attr;
	size_t rec, end;
	size_t nf;
	struct field f[MAX_FIELDS];
	size_t np;
	struct part p[8];
	size_t stack_word0, stack_words; /* the stack's data, for the DWARF operations */
	size_t ru_reg0, ru_regs;
};

static void add(struct layout *l, enum fkind k, unsigned width, uint32_t idx, size_t off)
{
	if (l->nf < MAX_FIELDS)
		l->f[l->nf++] = (struct field){ (uint8_t)k, (uint8_t)width, idx, off };
}

static unsigned popcount64(uint64_t v)
{
	unsigned n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

/* The event of the SAMPLE at rec: by its id when the events differ, else the first. */
static const struct attr *sample_attr(const struct file *f, size_t rec)
{
	if (f->nattr == 0)
		return NULL;
	if (f->nattr == 1)
		return &f->attrs[0];
	uint64_t st0 = f->attrs[0].st;
	size_t at = rec + 8, end = rec + rec_size(f, rec);
	if (!(st0 & S_IDENTIFIER)) {
		if (!(st0 & S_ID))
			return &f->attrs[0];
		at += 8 * (!!(st0 & S_IP) + !!(st0 & S_TID) + !!(st0 & S_TIME) + !!(st0 & S_ADDR));
	}
	if (at + 8 > end)
		return &f->attrs[0];
	uint64_t id = ld(f->d + at, 8);
	for (size_t i = 0; i < f->nattr; i++) {
		const struct attr *a = &f->attrs[i];
		for (size_t k = 0; k < a->nr_ids && a->ids_off + 8 * k + 8 <= f->size; k++)
			if (ld(f->d + a->ids_off + 8 * k, 8) == id)
				return a;
	}
	return &f->attrs[0];
}

/* Lays the SAMPLE at rec out into l. Stops at the first field that does not fit. */
static void walk_sample(const struct file *f, size_t rec, struct layout *l)
{
	const struct attr *a = sample_attr(f, rec);
	size_t at = rec + 8, end = rec + rec_size(f, rec);

	l->nf = 0;
	l->np = 0;
	l->stack_word0 = l->stack_words = 0;
	l->ru_reg0 = l->ru_regs = 0;
	l->rec = rec;
	l->end = end;
	l->attr = a;
	if (!a)
		return;
	uint64_t s = a->st;
#define NEED(n) do { if (end - at < (size_t)(n)) return; } while (0)
#define WORD(k) do { NEED(8); add(l, k, 8, 0, at); at += 8; } while (0)
	if (s & S_IDENTIFIER)
		WORD(F_IDENT);
	if (s & S_IP)
		WORD(F_IP);
	if (s & S_TID) {
		NEED(8);
		add(l, F_PID, 4, 0, at);
		add(l, F_TID, 4, 0, at + 4);
		at += 8;
	}
	if (s & S_TIME)
		WORD(F_TIME);
	if (s & S_ADDR)
		WORD(F_ADDR);
	if (s & S_ID)
		WORD(F_ID);
	if (s & S_STREAM_ID)
		WORD(F_STREAM);
	if (s & S_CPU) {
		NEED(8);
		add(l, F_CPU, 4, 0, at);
		add(l, F_RES, 4, 0, at + 4);
		at += 8;
	}
	if (s & S_PERIOD)
		WORD(F_PERIOD);
	if (s & S_READ) {
		uint64_t rf = a->rf, nr = 1;
		size_t per = 8 * (1 + !!(rf & R_ID) + !!(rf & R_LOST));
		if (rf & R_GROUP) {
			NEED(8);
			nr = ld(f->d + at, 8);
			add(l, F_READ_NR, 8, 0, at);
			at += 8;
		}
		if (rf & R_ENABLED)
			WORD(F_READ_ENABLED);
		if (rf & R_RUNNING)
			WORD(F_READ_RUNNING);
		if (nr > (end - at) / per)
			return;
		if (rf & R_GROUP)
			l->p[l->np++] = (struct part){ F_READ_NR, at - 8 - 8 * (!!(rf & R_ENABLED) + !!(rf & R_RUNNING)),
						       8, at, per, nr, 0 };
		for (uint64_t i = 0; i < nr; i++) {
			add(l, F_READ_VALUE, 8, (uint32_t)i, at);
			at += 8;
			if (rf & R_ID) {
				add(l, F_READ_ID, 8, (uint32_t)i, at);
				at += 8;
			}
			if (rf & R_LOST) {
				add(l, F_READ_LOST, 8, (uint32_t)i, at);
				at += 8;
			}
		}
	}
	if (s & S_CALLCHAIN) {
		NEED(8);
		uint64_t nr = ld(f->d + at, 8);
		add(l, F_CC_NR, 8, 0, at);
		at += 8;
		if (nr > (end - at) / 8)
			return;
		l->p[l->np++] = (struct part){ F_CC_NR, at - 8, 8, at, 8, nr, 0 };
		for (uint64_t i = 0; i < nr; i++, at += 8)
			add(l, F_CC_IP, 8, (uint32_t)i, at);
	}
	if (s & S_RAW) {
		NEED(4);
		uint64_t n = ld(f->d + at, 4);
		add(l, F_RAW_SIZE, 4, 0, at);
		at += 4;
		if (n > end - at)
			return;
		l->p[l->np++] = (struct part){ F_RAW_SIZE, at - 4, 4, at, 8, n / 8, 1 };
		for (uint64_t i = 0; i + 8 <= n; i += 8)
			add(l, F_RAW_WORD, 8, (uint32_t)(i / 8), at + i);
		at += n;
	}
	if (s & S_BRANCH) {
		NEED(8);
		uint64_t nr = ld(f->d + at, 8);
		size_t count_at = at;
		add(l, F_BR_NR, 8, 0, at);
		at += 8;
		if (a->bst & B_HW_INDEX)
			WORD(F_BR_HW_IDX);
		size_t per = 24 + ((a->bst & B_COUNTERS) ? 8 : 0);
		if (nr > (end - at) / per)
			return;
		/* Resized as whole entries only when there are no counters after them. */
		if (!(a->bst & B_COUNTERS))
			l->p[l->np++] = (struct part){ F_BR_NR, count_at, 8, at, 24, nr, 0 };
		for (uint64_t i = 0; i < nr; i++) {
			add(l, F_BR_FROM, 8, (uint32_t)i, at);
			add(l, F_BR_TO, 8, (uint32_t)i, at + 8);
			add(l, F_BR_FLAGS, 8, (uint32_t)i, at + 16);
			at += 24;
		}
		if (a->bst & B_COUNTERS)
			for (uint64_t i = 0; i < nr; i++, at += 8)
				add(l, F_BR_COUNTER, 8, (uint32_t)i, at);
	}
	if (s & S_REGS_USER) {
		NEED(8);
		uint64_t abi = ld(f->d + at, 8);
		add(l, F_RU_ABI, 8, 0, at);
		at += 8;
		if (abi) {
			unsigned n = popcount64(a->ru);
			NEED(8 * (size_t)n);
			l->ru_reg0 = at;
			l->ru_regs = n;
			for (unsigned i = 0; i < n; i++, at += 8)
				add(l, F_RU_REG, 8, i, at);
		}
	}
	if (s & S_STACK_USER) {
		NEED(8);
		uint64_t n = ld(f->d + at, 8);
		add(l, F_STACK_SIZE, 8, 0, at);
		at += 8;
		if (n) {
			if (n > end - at || n % 8)
				return;
			l->p[l->np++] = (struct part){ F_STACK_SIZE, at - 8, 8, at, 8, n / 8, 1 };
			l->stack_word0 = at;
			l->stack_words = (size_t)(n / 8);
			for (uint64_t i = 0; i < n; i += 8)
				add(l, F_STACK_WORD, 8, (uint32_t)(i / 8), at + i);
			at += n;
			WORD(F_STACK_DYN);
		}
	}
	if (s & (S_WEIGHT | S_WEIGHT_STRUCT))
		WORD(F_WEIGHT);
	if (s & S_DATA_SRC)
		WORD(F_DATA_SRC);
	if (s & S_TRANSACTION)
		WORD(F_TXN);
	if (s & S_REGS_INTR) {
		NEED(8);
		uint64_t abi = ld(f->d + at, 8);
		add(l, F_RI_ABI, 8, 0, at);
		at += 8;
		if (abi) {
			unsigned n = popcount64(a->ri);
			NEED(8 * (size_t)n);
			for (unsigned i = 0; i < n; i++, at += 8)
				add(l, F_RI_REG, 8, i, at);
		}
	}
	if (s & S_PHYS_ADDR)
		WORD(F_PHYS);
	if (s & S_CGROUP)
		WORD(F_CGROUP);
	if (s & S_DATA_PAGE)
		WORD(F_DATA_PAGE);
	if (s & S_CODE_PAGE)
		WORD(F_CODE_PAGE);
	if (s & S_AUX) {
		NEED(8);
		uint64_t n = ld(f->d + at, 8);
		add(l, F_AUX_SIZE, 8, 0, at);
		at += 8;
		if (n > end - at)
			return;
		l->p[l->np++] = (struct part){ F_AUX_SIZE, at - 8, 8, at, 8, n / 8, 1 };
		for (uint64_t i = 0; i + 8 <= n; i += 8)
			add(l, F_AUX_WORD, 8, (uint32_t)(i / 8), at + i);
	}
#undef WORD
#undef NEED
}

/* A random SAMPLE record (by a bounded number of tries), or SIZE_MAX. */
static size_t pick_sample(const struct file *f, struct rng *r)
{
	if (!f->nrec)
		return SIZE_MAX;
	for (int tries = 0; tries < 64; tries++) {
		size_t rec = f->recs[below(r, f->nrec)];
		if (rec_type(f, rec) == REC_SAMPLE)
			return rec;
	}
	for (size_t i = 0; i < f->nrec; i++)
		if (rec_type(f, f->recs[i]) == REC_SAMPLE)
			return f->recs[i];
	return SIZE_MAX;
}

/* -- the operations ------------------------------------------------------ */

static void set_field(struct file *f, const struct field *fl, uint64_t v, const char *how)
{
	uint64_t old = ld(f->d + fl->off, fl->width);

	st(f->d + fl->off, fl->width, v);
	say(f, "sample@%#zx %s[%u]: %#llx -> %#llx (%s)", fl->off, fnames[fl->kind], fl->idx,
	    (unsigned long long)old, (unsigned long long)v, how);
}

/* One field of one sample gets a new value. */
static int op_sample_field(struct file *f, struct rng *r, struct layout *l)
{
	size_t rec = pick_sample(f, r);

	if (rec == SIZE_MAX)
		return -1;
	walk_sample(f, rec, l);
	if (!l->nf)
		return -1;
	/* Half the time a field of a kind picked first, so rare kinds get their turn. */
	const struct field *fl = &l->f[below(r, l->nf)];
	if (below(r, 2)) {
		enum fkind k = (enum fkind)l->f[below(r, l->nf)].kind;
		size_t n = 0, pick;
		for (size_t i = 0; i < l->nf; i++)
			n += l->f[i].kind == k;
		pick = below(r, n);
		for (size_t i = 0; i < l->nf; i++)
			if (l->f[i].kind == k && pick-- == 0)
				fl = &l->f[i];
	}
	set_field(f, fl, new_value(r, ld(f->d + fl->off, fl->width), fl->width), "value");
	return 0;
}

/* A field of one sample takes the value of the same field in another sample. */
static int op_sample_copy(struct file *f, struct rng *r, struct layout *l)
{
	static struct layout other;
	size_t a = pick_sample(f, r), b = pick_sample(f, r);

	if (a == SIZE_MAX || b == SIZE_MAX)
		return -1;
	walk_sample(f, a, l);
	walk_sample(f, b, &other);
	if (!l->nf || !other.nf)
		return -1;
	const struct field *to = &l->f[below(r, l->nf)];
	for (size_t i = 0; i < other.nf; i++) {
		const struct field *from = &other.f[(i + below(r, other.nf)) % other.nf];
		if (from->kind == to->kind && from->width == to->width) {
			set_field(f, to, ld(f->d + from->off, from->width), "copied from another sample");
			return 0;
		}
	}
	return -1;
}

/*
 * Grows or shrinks a variable part of a sample (callchain, read group, raw,
 * branch stack, user stack, AUX) with its count and the record's size
 * kept in step.
 */
static int op_sample_resize(struct file *f, struct rng *r, struct layout *l)
{
	size_t rec = pick_sample(f, r);

	if (rec == SIZE_MAX)
		return -1;
	walk_sample(f, rec, l);
	if (!l->np)
		return -1;
	struct part p = l->p[below(r, l->np)];
	unsigned sz = rec_size(f, rec);
	uint64_t grow = below(r, 2) || p.n == 0;
	uint64_t k = 1 + below(r, grow ? 8 : p.n);
	if (!grow && k > p.n)
		k = p.n;
	size_t bytes = (size_t)k * p.elem;
	if (grow && sz + bytes > 0xffff)
		return -1;
	uint64_t old_count = ld(f->d + p.count_off, p.count_width);
	uint64_t step = p.count_bytes ? bytes : k;
	uint64_t count = grow ? old_count + step : old_count - step;
	/* Where the elements go in or come out: any element boundary that leaves room. */
	size_t at = p.data_off + (size_t)below(r, grow ? p.n + 1 : p.n - k + 1) * p.elem;
	if (grow) {
		uint8_t buf[64 * 8];
		if (bytes > sizeof(buf))
			return -1;
		/* New elements: copies of existing ones, or values from the magic list. */
		for (size_t i = 0; i < bytes; i += 8) {
			uint64_t v = p.n && below(r, 2) ?
				ld(f->d + p.data_off + 8 * below(r, p.n * p.elem / 8), 8) :
				magic_values[below(r, sizeof(magic_values) / sizeof(magic_values[0]))];
			st(buf + i, 8, v);
		}
		if (splice(f, at, 0, buf, bytes))
			return -1;
	} else if (splice(f, at, bytes, NULL, 0)) {
		return -1;
	}
	st(f->d + p.count_off, p.count_width, count);
	st(f->d + rec + 6, 2, grow ? sz + bytes : sz - bytes);
	/* A smaller user stack keeps dyn_size within it. */
	if (p.kind == F_STACK_SIZE && count) {
		size_t dyn = p.data_off + (size_t)count;
		if (dyn + 8 <= f->size && ld(f->d + dyn, 8) > count)
			st(f->d + dyn, 8, count);
	}
	say(f, "sample@%#zx %s: %llu -> %llu, record resized", rec, fnames[p.kind],
	    (unsigned long long)old_count, (unsigned long long)count);
	return 0;
}

/* DWARF unwinding's inputs: a user register or a word of the user stack, or dyn_size. */
static int op_dwarf(struct file *f, struct rng *r, struct layout *l)
{
	size_t rec = SIZE_MAX;

	for (int tries = 0; tries < 32; tries++) {
		rec = pick_sample(f, r);
		if (rec == SIZE_MAX)
			return -1;
		walk_sample(f, rec, l);
		if (l->stack_words || l->ru_regs)
			break;
		rec = SIZE_MAX;
	}
	if (rec == SIZE_MAX)
		return -1;
	uint64_t sp = 0;
	if (l->ru_regs)
		sp = ld(f->d + l->ru_reg0 + 8 * below(r, l->ru_regs), 8);
	/* A value an unwinder may believe: a stack word, a register, an address in the stack. */
	uint64_t v;
	switch (below(r, 5)) {
	case 0:
		v = l->stack_words ? ld(f->d + l->stack_word0 + 8 * below(r, l->stack_words), 8) : 0;
		break;
	case 1:
		v = sp;
		break;
	case 2:
		v = sp + 8 * (below(r, 2 * l->stack_words + 2)) - 8 * l->stack_words / 2;
		break;
	case 3:
		v = magic_values[below(r, sizeof(magic_values) / sizeof(magic_values[0]))];
		break;
	default:
		v = new_value(r, sp, 8);
		break;
	}
	struct field fl;
	switch (below(r, 6)) {
	case 0:
	case 1:
	case 2:
		if (!l->stack_words)
			return -1;
		fl = (struct field){ F_STACK_WORD, 8, (uint32_t)below(r, l->stack_words), 0 };
		fl.off = l->stack_word0 + 8 * fl.idx;
		break;
	case 3:
	case 4:
		if (!l->ru_regs)
			return -1;
		fl = (struct field){ F_RU_REG, 8, (uint32_t)below(r, l->ru_regs), 0 };
		fl.off = l->ru_reg0 + 8 * fl.idx;
		break;
	default:
		if (!l->stack_words)
			return -1;
		fl = (struct field){ F_STACK_DYN, 8, 0, l->stack_word0 + 8 * l->stack_words };
		if (fl.off + 8 > l->end)
			return -1;
		v = below(r, 2) ? 8 * below(r, l->stack_words + 2) : new_value(r, ld(f->d + fl.off, 8), 8);
		break;
	}
	set_field(f, &fl, v, "dwarf");
	return 0;
}

/* A word (or a byte of a name) of a record other than a SAMPLE. */
static int op_record_field(struct file *f, struct rng *r)
{
	if (!f->nrec)
		return -1;
	size_t rec = 0;
	for (int tries = 0; tries < 64; tries++) {
		rec = f->recs[below(r, f->nrec)];
		if (rec_type(f, rec) != REC_SAMPLE)
			break;
	}
	unsigned sz = rec_size(f, rec);
	if (sz <= 8)
		return -1;
	if (below(r, 4) == 0) {
		/* A byte: names lose their NUL, gain control bytes or a bad UTF-8 byte. */
		static const uint8_t bytes[] = { 0, '\n', 0x1b, 0xff, 0xc3, '/', '%', ' ', 'A' };
		size_t at = rec + 8 + below(r, sz - 8);
		uint8_t old = f->d[at];
		f->d[at] = below(r, 2) ? bytes[below(r, sizeof(bytes))] : (uint8_t)rnd(r);
		say(f, "record@%#zx type %u byte +%zu: %#x -> %#x", rec, rec_type(f, rec), at - rec,
		    old, f->d[at]);
		return 0;
	}
	unsigned width = below(r, 2) ? 8 : 4;
	if (sz - 8 < width)
		return -1;
	size_t at = rec + 8 + width * below(r, (sz - 8) / width);
	uint64_t old = ld(f->d + at, width), v = new_value(r, old, width);
	st(f->d + at, width, v);
	say(f, "record@%#zx type %u u%u +%zu: %#llx -> %#llx", rec, rec_type(f, rec), width * 8,
	    at - rec, (unsigned long long)old, (unsigned long long)v);
	return 0;
}

/* A record's header: its type, misc or size. */
static int op_record_header(struct file *f, struct rng *r)
{
	static const unsigned types[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
					  17, 18, 19, 20, 21, 64, 65, 66, 67, 68, 69, 70, 71, 72,
					  73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 0, 100, 0xffff };
	if (!f->nrec)
		return -1;
	size_t rec = f->recs[below(r, f->nrec)];
	switch (below(r, 3)) {
	case 0: {
		unsigned t = types[below(r, sizeof(types) / sizeof(types[0]))];
		say(f, "record@%#zx type %u -> %u", rec, rec_type(f, rec), t);
		st(f->d + rec, 4, t);
		break;
	}
	case 1: {
		uint64_t v = new_value(r, ld(f->d + rec + 4, 2), 2);
		say(f, "record@%#zx misc %#llx -> %#llx", rec, (unsigned long long)ld(f->d + rec + 4, 2),
		    (unsigned long long)v);
		st(f->d + rec + 4, 2, v);
		break;
	}
	default: {
		unsigned sz = rec_size(f, rec);
		uint64_t v = below(r, 2) ? sz + 8 * (below(r, 8) - 4) : new_value(r, sz, 2);
		say(f, "record@%#zx size %u -> %llu", rec, sz, (unsigned long long)(v & 0xffff));
		st(f->d + rec + 6, 2, v);
		break;
	}
	}
	return 0;
}

/* Records dropped, duplicated, swapped or moved (times go out of order, ids repeat). */
static int op_records(struct file *f, struct rng *r)
{
	if (f->nrec < 2)
		return -1;
	size_t i = below(r, f->nrec), j = below(r, f->nrec);
	size_t ri = f->recs[i];
	unsigned si = rec_size(f, ri);
	static uint8_t copy[0x10000];

	memcpy(copy, f->d + ri, si);
	switch (below(r, 4)) {
	case 0:
		say(f, "record@%#zx (type %u) dropped", ri, rec_type(f, ri));
		return splice(f, ri, si, NULL, 0);
	case 1:
		say(f, "record@%#zx (type %u) repeated at record %zu", ri, rec_type(f, ri), j);
		return splice(f, f->recs[j], 0, copy, si);
	case 2:
		if (i + 1 >= f->nrec)
			return -1;
		{
			size_t rn = f->recs[i + 1];
			unsigned sn = rec_size(f, rn);
			static uint8_t both[0x20000];
			memcpy(both, f->d + rn, sn);
			memcpy(both + sn, copy, si);
			say(f, "records@%#zx and @%#zx swapped", ri, rn);
			return splice(f, ri, si + sn, both, si + sn);
		}
	default:
		if (j == i)
			return -1;
		say(f, "record@%#zx (type %u) moved to record %zu", ri, rec_type(f, ri), j);
		{
			size_t to = f->recs[j];
			if (splice(f, ri, si, NULL, 0))
				return -1;
			if (to > ri)
				to -= si;
			return splice(f, to, 0, copy, si);
		}
	}
}

/* An attribute: the bits that shape a sample, the masks, the size, ids. */
static int op_attr(struct file *f, struct rng *r)
{
	static const struct {
		size_t off;
		unsigned width;
		const char *name;
	} at[] = {
		{ 0, 4, "type" }, { A_SIZE, 4, "size" }, { 8, 8, "config" },
		{ 16, 8, "sample_period" }, { A_SAMPLE_TYPE, 8, "sample_type" },
		{ A_READ_FORMAT, 8, "read_format" }, { A_FLAGS, 8, "flags" },
		{ A_BRANCH_TYPE, 8, "branch_sample_type" }, { A_REGS_USER, 8, "sample_regs_user" },
		{ A_STACK_USER, 4, "sample_stack_user" }, { A_REGS_INTR, 8, "sample_regs_intr" },
	};
	if (!f->nattr)
		return -1;
	struct attr *a = &f->attrs[below(r, f->nattr)];
	size_t k = below(r, sizeof(at) / sizeof(at[0]));
	/* The fields that change a sample's layout come up more often. */
	if (below(r, 2))
		k = 4 + below(r, 2);
	if (at[k].off + at[k].width > a->len)
		return -1;
	uint8_t *p = f->d + a->off + at[k].off;
	uint64_t old = ld(p, at[k].width), v;
	if (at[k].off == A_SAMPLE_TYPE || at[k].off == A_READ_FORMAT || at[k].off == A_FLAGS ||
	    at[k].off == A_BRANCH_TYPE)
		v = old ^ (UINT64_C(1) << below(r, at[k].off == A_SAMPLE_TYPE ? 26 :
						    at[k].off == A_READ_FORMAT ? 5 :
						    at[k].off == A_FLAGS ? 40 : 20));
	else
		v = new_value(r, old, at[k].width);
	st(p, at[k].width, v);
	say(f, "attr@%#zx %s: %#llx -> %#llx", a->off, at[k].name, (unsigned long long)old,
	    (unsigned long long)v);
	return 0;
}

/* An event's ids: a value, or (file mode) the section that holds them. */
static int op_ids(struct file *f, struct rng *r)
{
	if (!f->nattr)
		return -1;
	struct attr *a = &f->attrs[below(r, f->nattr)];
	if (a->nr_ids && below(r, 3)) {
		size_t at = a->ids_off + 8 * below(r, a->nr_ids);
		if (at + 8 > f->size)
			return -1;
		uint64_t old = ld(f->d + at, 8), v;
		const struct attr *b = &f->attrs[below(r, f->nattr)];
		if (b->nr_ids && below(r, 2) && b->ids_off + 8 <= f->size)
			v = ld(f->d + b->ids_off + 8 * below(r, b->nr_ids), 8);
		else
			v = new_value(r, old, 8);
		st(f->d + at, 8, v);
		say(f, "attr@%#zx id: %#llx -> %#llx", a->off, (unsigned long long)old,
		    (unsigned long long)v);
		return 0;
	}
	if (!a->ids_entry)
		return -1;
	size_t e = a->ids_entry + 8 * below(r, 2);
	uint64_t old = ld(f->d + e, 8), v = below(r, 2) ? old + 8 * (below(r, 5) - 2) : new_value(r, old, 8);
	st(f->d + e, 8, v);
	say(f, "attr@%#zx ids section %s: %#llx -> %#llx", a->off, e == a->ids_entry ? "offset" : "size",
	    (unsigned long long)old, (unsigned long long)v);
	return 0;
}

/* The file header: a section's offset or size, attr_size, a feature bit. */
static int op_header(struct file *f, struct rng *r)
{
	if (f->pipe)
		return -1;
	if (below(r, 3) == 0) {
		unsigned bit = (unsigned)below(r, 32);
		f->d[72 + bit / 8] ^= (uint8_t)(1u << (bit % 8));
		say(f, "header feature bit %u flipped", bit);
		return 0;
	}
	static const char *const names[] = { "size", "attr_size", "attrs.offset", "attrs.size",
					     "data.offset", "data.size" };
	size_t k = below(r, 6);
	size_t at = 8 + 8 * k;
	uint64_t old = ld(f->d + at, 8);
	uint64_t v = below(r, 2) ? old + 8 * (below(r, 9) - 4) : new_value(r, old, 8);
	st(f->d + at, 8, v);
	say(f, "header %s: %#llx -> %#llx", names[k], (unsigned long long)old, (unsigned long long)v);
	return 0;
}

/* A feature section: its table entry, a count or string length inside it, or its end cut. */
static int op_feature(struct file *f, struct rng *r)
{
	if (!f->nfeat)
		return -1;
	struct feat *ft = &f->feat[below(r, f->nfeat)];
	if (below(r, 4) == 0) {
		size_t e = ft->entry + 8 * below(r, 2);
		uint64_t old = ld(f->d + e, 8);
		uint64_t v = below(r, 2) ? old - below(r, old < 16 ? old + 1 : 16) : new_value(r, old, 8);
		st(f->d + e, 8, v);
		say(f, "feature %d %s: %#llx -> %#llx", ft->bit, e == ft->entry ? "offset" : "size",
		    (unsigned long long)old, (unsigned long long)v);
		return 0;
	}
	if (ft->off > f->size || ft->size > f->size - ft->off || ft->size < 4)
		return -1;
	/* Counts and string lengths are u32 (some u64) at 4-byte boundaries. */
	size_t at = (size_t)ft->off + 4 * below(r, ft->size / 4);
	if (below(r, 3) == 0)
		at = (size_t)ft->off; /* the first word is a count or a length in most features */
	unsigned width = (at + 8 <= ft->off + ft->size && below(r, 3) == 0) ? 8 : 4;
	uint64_t old = ld(f->d + at, width), v = new_value(r, old, width);
	st(f->d + at, width, v);
	say(f, "feature %d u%u +%zu: %#llx -> %#llx", ft->bit, width * 8, at - (size_t)ft->off,
	    (unsigned long long)old, (unsigned long long)v);
	return 0;
}

/* The file cut short: at a record boundary or anywhere. */
static int op_truncate(struct file *f, struct rng *r)
{
	size_t to = below(r, 2) && f->nrec ? f->recs[below(r, f->nrec)] + below(r, 2) * 4 :
					      (size_t)below(r, f->size);
	if (to >= f->size)
		return -1;
	say(f, "cut to %zu of %zu bytes", to, f->size);
	f->size = to;
	return 0;
}

static int apply(struct file *f, struct rng *r, struct layout *l)
{
	/* op: weight */
	static const unsigned weights[] = { 34, 8, 10, 12, 9, 4, 6, 6, 3, 3, 4, 1 };
	unsigned total = 0;

	for (size_t i = 0; i < sizeof(weights) / sizeof(weights[0]); i++)
		total += weights[i];
	uint64_t pick = below(r, total);
	size_t op = 0;
	while (pick >= weights[op])
		pick -= weights[op++];
	switch (op) {
	case 0:
		return op_sample_field(f, r, l);
	case 1:
		return op_sample_copy(f, r, l);
	case 2:
		return op_sample_resize(f, r, l);
	case 3:
		return op_dwarf(f, r, l);
	case 4:
		return op_record_field(f, r);
	case 5:
		return op_record_header(f, r);
	case 6:
		return op_records(f, r);
	case 7:
		return op_attr(f, r);
	case 8:
		return op_ids(f, r);
	case 9:
		return op_header(f, r);
	case 10:
		return op_feature(f, r);
	default:
		return op_truncate(f, r);
	}
}

size_t pdm_mutate(uint8_t *buf, size_t size, size_t cap, uint64_t seed, char *what,
		  size_t what_size)
{
	static struct layout l;
	struct file f;
	struct rng r = { seed };

	if (what && what_size)
		what[0] = '\0';
	if (parse(&f, buf, size, cap)) {
		release(&f);
		return 0;
	}
	f.what = what;
	f.what_size = what_size;
	int rc = -1;
	for (int tries = 0; tries < 16 && rc; tries++) {
		if (what && what_size)
			what[0] = '\0';
		rc = apply(&f, &r, &l);
	}
	if (rc) {
		/* Nothing applied (a file with no records, no attributes): a header word then. */
		size_t at = 8 * (1 + below(&r, (size < 104 ? size : 104) / 8 - 1));
		st(f.d + at, 8, new_value(&r, ld(f.d + at, 8), 8));
		say(&f, "header word +%zu changed", at);
	}
	size = f.size;
	release(&f);
	return size;
}

size_t pdm_crossover(const uint8_t *a, size_t a_size, const uint8_t *b, size_t b_size,
		     uint8_t *out, size_t cap, uint64_t seed)
{
	struct file fa, fb;
	struct rng r = { seed };
	size_t result = 0;

	memset(&fa, 0, sizeof(fa));
	memset(&fb, 0, sizeof(fb));
	if (a_size > cap)
		return 0;
	memcpy(out, a, a_size);
	/* b is only read: its model points at a copy that is never written. */
	uint8_t *bcopy = malloc(b_size ? b_size : 1);
	if (!bcopy)
		return 0;
	memcpy(bcopy, b, b_size);
	if (parse(&fa, out, a_size, cap) == 0 && parse(&fb, bcopy, b_size, b_size) == 0 &&
	    fb.nrec) {
		size_t i = below(&r, fb.nrec), n = 1 + below(&r, 16);
		if (i + n > fb.nrec)
			n = fb.nrec - i;
		size_t from = fb.recs[i];
		size_t to = i + n < fb.nrec ? fb.recs[i + n] : fb.data_end;
		/* In place of 0 to 3 records of a, from its j-th. */
		size_t j = below(&r, fa.nrec + 1), k = below(&r, 4), del = 0;
		size_t at = j < fa.nrec ? fa.recs[j] : fa.data_end;
		for (; j < fa.nrec && k; j++, k--)
			del += rec_size(&fa, fa.recs[j]);
		if (splice(&fa, at, del, bcopy + from, to - from) == 0)
			result = fa.size;
	}
	release(&fa);
	release(&fb);
	free(bcopy);
	return result;
}

long pdm_set_field(uint8_t *buf, size_t size, const char *name, uint64_t value, unsigned long limit)
{
	static struct layout l;
	struct file f;
	int kind = -1;
	long n = 0;

	for (int k = 0; k < F_KINDS; k++)
		if (strcmp(fnames[k], name) == 0)
			kind = k;
	if (kind < 0 || parse(&f, buf, size, size)) {
		release(&f);
		return -1;
	}
	for (size_t i = 0; i < f.nrec && (!limit || (unsigned long)n < limit); i++) {
		if (rec_type(&f, f.recs[i]) != REC_SAMPLE)
			continue;
		walk_sample(&f, f.recs[i], &l);
		for (size_t k = 0; k < l.nf; k++)
			if (l.f[k].kind == kind) {
				st(f.d + l.f[k].off, l.f[k].width, value);
				n++;
				break;
			}
	}
	release(&f);
	return n;
}

size_t pdm_mutate_records(uint8_t *buf, size_t size, size_t cap, const struct pdm_format *fmt,
			  uint64_t seed)
{
	static struct layout l;
	struct file f;
	struct rng r = { seed };
	int rc = -1;

	memset(&f, 0, sizeof(f));
	f.d = buf;
	f.size = size;
	f.cap = cap;
	f.pipe = 1; /* no file offsets to keep */
	f.data_end = size;
	f.nattr = 1;
	f.attrs[0].st = fmt->sample_type;
	f.attrs[0].rf = fmt->read_format;
	f.attrs[0].bst = fmt->branch_sample_type;
	f.attrs[0].ru = fmt->sample_regs_user;
	f.attrs[0].ri = fmt->sample_regs_intr;
	if (walk_records(&f))
		return 0;
	for (int tries = 0; tries < 16 && rc; tries++) {
		switch (below(&r, 8)) {
		case 0:
		case 1:
		case 2:
			rc = op_sample_field(&f, &r, &l);
			break;
		case 3:
			rc = op_sample_copy(&f, &r, &l);
			break;
		case 4:
			rc = op_sample_resize(&f, &r, &l);
			break;
		case 5:
			rc = op_dwarf(&f, &r, &l);
			break;
		case 6:
			rc = op_record_header(&f, &r);
			break;
		default:
			rc = op_records(&f, &r);
			break;
		}
	}
	size = rc ? 0 : f.size;
	release(&f);
	return size;
}
