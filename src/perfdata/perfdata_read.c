/* SPDX-License-Identifier: MIT */
/*
 * perfdata_read.c - opening a perf.data file: the header and its checks,
 * the attr section with the events' id arrays, the feature sections'
 * bounds, the id -> event map; notes, errors and the reader's accessors.
 */
#include "perfdata/perfdata_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error_internal.h"
#include "core/log_internal.h"

/* ---- errors, notes, memory ------------------------------------------------ */

int pev__pd_fail(const struct pev_perfdata *pd, struct pev_error *err, int code, const char *field,
		 const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	pev__error_start(err, code, 0, NULL, NULL, false);
	pev__error_field(err, field);
	pev__error_msg(err, "%s: ", pd && pd->name[0] ? pd->name : "perf.data");
	va_start(ap, fmt);
	pev__vappendf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return code;
}

void pev__pd_note(struct pev_perfdata *pd, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	pev__log(PEV_LOG_INFO, "%s: %s", pd->name, line);
	if (pd->nr_notes == pd->cap_notes) {
		size_t cap = pd->cap_notes ? 2 * pd->cap_notes : 8;
		char **n = realloc(pd->notes, cap * sizeof(*n));
		if (!n)
			return;
		pd->notes = n;
		pd->cap_notes = cap;
	}
	char *copy = strdup(line);
	if (copy)
		pd->notes[pd->nr_notes++] = copy;
}

void *pev__pd_alloc(struct pev_perfdata *pd, size_t size)
{
	size = (size + 15) & ~(size_t)15;
	if (size == 0)
		size = 16;
	struct pd_block *b = pd->arena;
	if (!b || b->size - b->used < size) {
		size_t block = size > 16384 ? size : 16384;
		if (block > SIZE_MAX - sizeof(*b))
			return NULL;
		b = malloc(sizeof(*b) + block);
		if (!b)
			return NULL;
		b->size = block;
		b->used = 0;
		/* A large block goes behind the current one, which keeps its free space. */
		if (pd->arena && size > 16384) {
			b->next = pd->arena->next;
			pd->arena->next = b;
		} else {
			b->next = pd->arena;
			pd->arena = b;
		}
	}
	void *p = b->data + b->used;
	b->used += size;
	memset(p, 0, size);
	return p;
}

/* ---- events and ids ---------------------------------------------------------- */

static size_t id_hash(uint64_t id, size_t cap)
{
	id ^= id >> 33;
	id *= UINT64_C(0xff51afd7ed558ccd);
	id ^= id >> 33;
	return (size_t)id & (cap - 1);
}

static bool id_map_grow(struct pev_perfdata *pd)
{
	size_t cap = pd->id_cap ? 2 * pd->id_cap : 64;
	uint64_t *keys = calloc(cap, sizeof(*keys));
	int *vals = calloc(cap, sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return false;
	}
	for (size_t i = 0; i < pd->id_cap; i++) {
		if (!pd->id_vals[i])
			continue;
		size_t h = id_hash(pd->id_keys[i], cap);
		while (vals[h])
			h = (h + 1) & (cap - 1);
		keys[h] = pd->id_keys[i];
		vals[h] = pd->id_vals[i];
	}
	free(pd->id_keys);
	free(pd->id_vals);
	pd->id_keys = keys;
	pd->id_vals = vals;
	pd->id_cap = cap;
	return true;
}

struct pd_event *pev__pd_event_find(const struct pev_perfdata *pd, uint64_t id)
{
	if (!pd->id_cap)
		return NULL;
	for (size_t h = id_hash(id, pd->id_cap);; h = (h + 1) & (pd->id_cap - 1)) {
		if (!pd->id_vals[h])
			return NULL;
		if (pd->id_keys[h] == id)
			return pd->events[pd->id_vals[h] - 1];
	}
}

/* Maps id to event ev; an id some event has already stays with it. */
static bool id_map_add(struct pev_perfdata *pd, uint64_t id, int ev)
{
	struct pd_event *other = pev__pd_event_find(pd, id);

	if (other) {
		if (other->pub.index != ev)
			pev__pd_note(pd,
				     "sample id %" PRIu64
				     " belongs to events #%d and #%d: its records "
				     "are attributed to #%d",
				     id, other->pub.index, ev, other->pub.index);
		return true;
	}
	if ((pd->id_count + 1) * 2 > pd->id_cap && !id_map_grow(pd))
		return false;
	size_t h = id_hash(id, pd->id_cap);
	while (pd->id_vals[h])
		h = (h + 1) & (pd->id_cap - 1);
	pd->id_keys[h] = id;
	pd->id_vals[h] = ev + 1;
	pd->id_count++;
	return true;
}

struct pd_event *pev__pd_event_add(struct pev_perfdata *pd, const void *attr, size_t block_size,
				   const void *ids, size_t nr_ids, struct pev_error *err)
{
	struct pd_event *ev;

	if (pd->nr_events == pd->cap_events) {
		int cap = pd->cap_events ? 2 * pd->cap_events : 4;
		struct pd_event **e = realloc(pd->events, (size_t)cap * sizeof(*e));
		if (!e)
			goto nomem;
		pd->events = e;
		pd->cap_events = cap;
	}
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		goto nomem;
	if (nr_ids) {
		ev->ids = malloc(nr_ids * sizeof(uint64_t));
		if (!ev->ids) {
			free(ev);
			goto nomem;
		}
		memcpy(ev->ids, ids, nr_ids * sizeof(uint64_t));
	}
	memcpy(&ev->pub.attr, attr,
	       block_size < sizeof(ev->pub.attr) ? block_size : sizeof(ev->pub.attr));
	ev->pub.index = pd->nr_events;
	ev->pub.file_attr_size = (uint32_t)block_size;
	ev->pub.ids = ev->ids;
	ev->pub.nr_ids = nr_ids;
	ev->pub.leader = ev->pub.index;
	pev__pd_layout_from_attr(&ev->pub.attr, &ev->layout);
	pev__pd_layout_common(&pd->common, &ev->layout, pd->nr_events == 0);
	pd->events[pd->nr_events++] = ev;
	for (size_t i = 0; i < nr_ids; i++)
		if (!id_map_add(pd, ev->ids[i], ev->pub.index))
			goto nomem;
	if (block_size > PEV_ATTR_SIZE_LATEST && !pd->noted_attr_size) {
		pd->noted_attr_size = true;
		pev__pd_note(
		    pd,
		    "event #%d has a %zu-byte attribute block, larger than the %d bytes perfev "
		    "knows (a newer perf?): the extra bytes are ignored",
		    ev->pub.index, block_size, PEV_ATTR_SIZE_LATEST);
	}
	return ev;
nomem:
	pev__pd_fail(pd, err, PEV_ENOMEM, "attrs", "out of memory for the events");
	return NULL;
}

/* ---- the header ------------------------------------------------------------------- */

static bool overlap(uint64_t a_off, uint64_t a_size, uint64_t b_off, uint64_t b_size)
{
	return a_size && b_size && a_off < b_off + b_size && b_off < a_off + a_size;
}

static int check_section(struct pev_perfdata *pd, struct pev_error *err, const char *field,
			 const char *what, uint64_t off, uint64_t size)
{
	uint64_t end;

	if (!pd_add_ok(off, size, &end) || end > pd->size)
		return pev__pd_fail(pd, err, PEV_EFORMAT, field,
				    "%s at offset 0x%" PRIx64 " size 0x%" PRIx64
				    " runs past the end of the file (size 0x%" PRIx64 ")",
				    what, off, size, pd->size);
	return 0;
}

/* Says what the first bytes of a foreign file look like. */
static int not_perf_data(struct pev_perfdata *pd, const unsigned char *b, size_t n,
			 struct pev_error *err)
{
	char hex[64] = "";

	if (n >= 4 && memcmp(b, "\177ELF", 4) == 0)
		return pev__pd_fail(
		    pd, err, PEV_EFORMAT, "header.magic",
		    "not a perf.data file: it is an ELF file (a program or library)");
	for (size_t i = 0; i < n && i < 8; i++)
		pev__appendf(hex, sizeof(hex), "%s%02x", i ? " " : "", b[i]);
	return pev__pd_fail(pd, err, PEV_EFORMAT, "header.magic",
			    "not a perf.data file: it starts with the bytes %s, not \"PERFILE2\"",
			    hex);
}

static int read_magic(struct pev_perfdata *pd, uint64_t *hsize, struct pev_error *err)
{
	const unsigned char *b;
	int64_t n = pev__pd_window(pd, 0, PEV_PERFDATA_PIPE_HEADER_SIZE, &b, err);

	if (n < 0)
		return (int)n;
	if (n == 0)
		return pev__pd_fail(pd, err, PEV_EFORMAT, "header",
				    "the file is empty (0 bytes): not a perf.data file");
	if (memcmp(b, PD_MAGIC_V1, n < 8 ? (size_t)n : 8) != 0 &&
	    memcmp(b, "PERFILE2", n < 8 ? (size_t)n : 8) != 0 &&
	    (n < 8 || pd_u64(b) != PD_MAGIC_SWAPPED))
		return not_perf_data(pd, b, (size_t)n, err);
	if (n < PEV_PERFDATA_PIPE_HEADER_SIZE)
		return pev__pd_fail(pd, err, PEV_EFORMAT, "header",
				    "truncated: the file is %" PRId64
				    " bytes, and a perf.data header "
				    "needs at least %d",
				    n, PEV_PERFDATA_PIPE_HEADER_SIZE);
	uint64_t magic = pd_u64(b);
	if (magic == PD_MAGIC_SWAPPED)
		return pev__pd_fail(
		    pd, err, PEV_EUNSUPPORTED, "header.magic",
		    "the file was written on a machine of the other byte order (its "
		    "magic reads \"2ELIFREP\"): perfev reads only files in this "
		    "machine's byte order");
	if (magic != PEV_PERFDATA_MAGIC)
		return pev__pd_fail(
		    pd, err, PEV_EUNSUPPORTED, "header.magic",
		    "the file is in perf's first format (\"PERFFILE\"), which perfev "
		    "does not read; 'perf inject -i OLD -o NEW' rewrites it in the "
		    "current one");
	*hsize = pd_u64(b + PD_HDR_SIZE);
	return 0;
}

/* The attr section: one event per entry, with its id array. */
static int read_attrs(struct pev_perfdata *pd, struct pev_error *err)
{
	const struct pev_perfdata_layout *l = &pd->layout;
	uint64_t block = l->attr_size - PD_SECTION_SIZE, ids_total = 0;
	unsigned char *buf;
	int rc = 0;

	if (l->attrs_size == 0)
		return 0;
	if (l->attrs_size > PD_SECTION_MAX)
		return pev__pd_fail(pd, err, PEV_EFORMAT, "attrs",
				    "attr section at offset 0x%" PRIx64 " is 0x%" PRIx64
				    " bytes, more than perfev reads (0x%" PRIx64 ")",
				    l->attrs_offset, l->attrs_size, PD_SECTION_MAX);
	buf = malloc(l->attrs_size);
	if (!buf)
		return pev__pd_fail(pd, err, PEV_ENOMEM, "attrs",
				    "out of memory for the attr section");
	rc = pev__pd_read_at(pd, l->attrs_offset, buf, l->attrs_size, "attr section", err);
	for (uint64_t i = 0; rc == 0 && i < l->attrs_size / l->attr_size; i++) {
		const unsigned char *e = buf + i * l->attr_size;
		uint64_t at = l->attrs_offset + i * l->attr_size;
		uint32_t asz = pd_u32(e + 4);
		uint64_t ids_off = pd_u64(e + block), ids_size = pd_u64(e + block + 8);
		char what[64];

		if ((asz ? asz : PEV_ATTR_SIZE_VER0) != block) {
			rc = pev__pd_fail(
			    pd, err, PEV_EFORMAT, "attr.size",
			    "attr #%" PRIu64 " at offset 0x%" PRIx64
			    ": its size field says %u bytes, but the file's entries hold "
			    "%" PRIu64 " (header.attr_size %" PRIu64 " - 16)",
			    i, at, asz, block, l->attr_size);
			break;
		}
		snprintf(what, sizeof(what), "id array of attr #%" PRIu64, i);
		rc = check_section(pd, err, "attr.ids", what, ids_off, ids_size);
		if (rc)
			break;
		if (ids_size % 8) {
			rc = pev__pd_fail(pd, err, PEV_EFORMAT, "attr.ids",
					  "%s at offset 0x%" PRIx64 " has size 0x%" PRIx64
					  ", not a multiple of 8",
					  what, ids_off, ids_size);
			break;
		}
		if (overlap(ids_off, ids_size, 0, l->header_size) ||
		    overlap(ids_off, ids_size, l->data_offset, l->data_size)) {
			rc = pev__pd_fail(pd, err, PEV_EFORMAT, "attr.ids",
					  "%s [0x%" PRIx64 ", 0x%" PRIx64 ") overlaps the %s", what,
					  ids_off, ids_off + ids_size,
					  overlap(ids_off, ids_size, 0, l->header_size)
					      ? "header"
					      : "data section");
			break;
		}
		ids_total += ids_size;
		if (ids_total > PD_SECTION_MAX) {
			rc = pev__pd_fail(pd, err, PEV_EFORMAT, "attr.ids",
					  "the id arrays total more than 0x%" PRIx64
					  " bytes at attr #%" PRIu64,
					  PD_SECTION_MAX, i);
			break;
		}
		uint64_t *ids = NULL;
		if (ids_size) {
			ids = malloc(ids_size);
			if (!ids) {
				rc = pev__pd_fail(pd, err, PEV_ENOMEM, "attr.ids",
						  "out of memory for the %s", what);
				break;
			}
			rc = pev__pd_read_at(pd, ids_off, ids, ids_size, what, err);
		}
		if (rc == 0 && !pev__pd_event_add(pd, e, block, ids, ids_size / 8, err))
			rc = PEV_ENOMEM;
		free(ids);
	}
	free(buf);
	return rc;
}

static int popcount_bits(const uint64_t *bits)
{
	int n = 0;

	for (int i = 0; i < PEV_HEADER_FEAT_BITS / 64; i++)
		n += __builtin_popcountll(bits[i]);
	return n;
}

/* The feature sections: the table after the data, each section checked and parsed. */
static int read_features(struct pev_perfdata *pd, const uint64_t *bits, struct pev_error *err)
{
	const struct pev_perfdata_layout *l = &pd->layout;
	int n = popcount_bits(bits), k = 0, rc = 0;
	unsigned char *table;
	struct {
		uint64_t off, size;
		unsigned bit;
	} *secs;

	if (n == 0)
		return 0;
	uint64_t table_size = (uint64_t)n * PD_SECTION_SIZE, table_end;
	if (!pd_add_ok(l->feat_offset, table_size, &table_end) || table_end > pd->size)
		return pev__pd_fail(
		    pd, err, PEV_EFORMAT, "features",
		    "the feature section table at offset 0x%" PRIx64
		    " (%d entries for the %d feature bits set) runs past the end of "
		    "the file (size 0x%" PRIx64 ")",
		    l->feat_offset, n, n, pd->size);
	table = malloc(table_size);
	secs = calloc((size_t)n, sizeof(*secs));
	if (!table || !secs) {
		free(table);
		free(secs);
		return pev__pd_fail(pd, err, PEV_ENOMEM, "features",
				    "out of memory for the features");
	}
	rc = pev__pd_read_at(pd, l->feat_offset, table, table_size, "feature section table", err);
	for (unsigned bit = 1; rc == 0 && bit < PEV_HEADER_FEAT_BITS; bit++) {
		if (!((bits[bit / 64] >> (bit % 64)) & 1))
			continue;
		uint64_t off = pd_u64(table + k * PD_SECTION_SIZE);
		uint64_t size = pd_u64(table + k * PD_SECTION_SIZE + 8);
		const char *name = pev_perfdata_feature_name(bit);
		char what[64];

		snprintf(what, sizeof(what), "feature %s (bit %u) section", name, bit);
		rc = check_section(pd, err, "features", what, off, size);
		if (rc)
			break;
		if (size > PD_SECTION_MAX) {
			rc = pev__pd_fail(pd, err, PEV_EFORMAT, "features",
					  "%s at offset 0x%" PRIx64 " is 0x%" PRIx64
					  " bytes, more than perfev reads (0x%" PRIx64 ")",
					  what, off, size, PD_SECTION_MAX);
			break;
		}
		const char *hit = overlap(off, size, 0, l->header_size)	  ? "header"
				  : overlap(off, size, l->attrs_offset, l->attrs_size) ? "attr section"
				  : overlap(off, size, l->data_offset, l->data_size)   ? "data section"
				  : overlap(off, size, l->feat_offset, table_size)
					  ? "feature section table"
					  : NULL;
		for (int j = 0; !hit && j < k; j++)
			if (overlap(off, size, secs[j].off, secs[j].size))
				hit = pev_perfdata_feature_name(secs[j].bit);
		if (hit) {
			rc = pev__pd_fail(
			    pd, err, PEV_EFORMAT, "features",
			    "%s [0x%" PRIx64 ", 0x%" PRIx64 ") overlaps the %s%s", what, off,
			    off + size, hit,
			    strcmp(hit, "header") && !strstr(hit, "section") ? " section" : "");
			break;
		}
		secs[k].off = off;
		secs[k].size = size;
		secs[k].bit = bit;
		k++;
	}
	free(table);
	for (int j = 0; rc == 0 && j < k; j++) {
		unsigned char *data = pev__pd_alloc(pd, secs[j].size);
		if (!data) {
			rc = pev__pd_fail(pd, err, PEV_ENOMEM, "features",
					  "out of memory for feature %s",
					  pev_perfdata_feature_name(secs[j].bit));
			break;
		}
		rc = pev__pd_read_at(pd, secs[j].off, data, secs[j].size, "feature section", err);
		if (rc == 0)
			rc = pev__pd_feature_parse(pd, secs[j].bit, data, secs[j].size, secs[j].off,
						   0, err);
	}
	free(secs);
	if (rc == 0)
		pev__pd_features_apply(pd);
	return rc;
}

/*
 * Whether the feature section table of a header with a data size of 0 is a
 * table: it fits in the file, and every section lies after it and within
 * the file. The records of a file perf never finished are not.
 */
static bool feature_table_plausible(struct pev_perfdata *pd, const uint64_t *bits)
{
	const struct pev_perfdata_layout *l = &pd->layout;
	uint64_t n = (uint64_t)popcount_bits(bits), table_end, end;
	unsigned char entry[PD_SECTION_SIZE];
	struct pev_error local;

	if (!pd_add_ok(l->feat_offset, n * PD_SECTION_SIZE, &table_end) || table_end > pd->size)
		return false;
	for (uint64_t k = 0; k < n; k++) {
		if (pev__pd_read_at(pd, l->feat_offset + k * PD_SECTION_SIZE, entry, sizeof(entry),
				    "feature section table", &local))
			return false;
		uint64_t off = pd_u64(entry), size = pd_u64(entry + 8);
		if (off < table_end || !pd_add_ok(off, size, &end) || end > pd->size)
			return false;
	}
	return true;
}

static int read_file_header(struct pev_perfdata *pd, struct pev_error *err)
{
	struct pev_perfdata_layout *l = &pd->layout;
	unsigned char h[PEV_PERFDATA_HEADER_SIZE] = {0};
	uint64_t bits[PEV_HEADER_FEAT_BITS / 64] = {0};
	int rc;

	if (pd->kind == PD_SRC_STREAM)
		return pev__pd_fail(
		    pd, err, PEV_EUNSUPPORTED, "header",
		    "a file-mode perf.data (header of %" PRIu64
		    " bytes) cannot be read from a pipe: its features are at its end; "
		    "give the file itself, or record in pipe mode (-o -)",
		    l->header_size);
	if (pd->size < l->header_size)
		return pev__pd_fail(pd, err, PEV_EFORMAT, "header",
				    "truncated: the file is 0x%" PRIx64
				    " bytes, shorter than its 0x%" PRIx64 "-byte header",
				    pd->size, l->header_size);
	rc = pev__pd_read_at(pd, 0, h,
			     l->header_size < sizeof(h) ? (size_t)l->header_size : sizeof(h),
			     "header", err);
	if (rc)
		return rc;
	l->attr_size = pd_u64(h + PD_HDR_ATTR_SIZE);
	l->attrs_offset = pd_u64(h + PD_HDR_ATTRS);
	l->attrs_size = pd_u64(h + PD_HDR_ATTRS + 8);
	l->data_offset = pd_u64(h + PD_HDR_DATA);
	l->data_size = pd_u64(h + PD_HDR_DATA + 8);
	if (l->header_size >= PEV_PERFDATA_HEADER_SIZE)
		memcpy(bits, h + PD_HDR_FEATURES, sizeof(bits));
	if (l->header_size > PEV_PERFDATA_HEADER_SIZE)
		pev__pd_note(pd,
			     "the header is %" PRIu64
			     " bytes, larger than the %d perfev knows (a newer "
			     "perf?): the extra bytes are ignored",
			     l->header_size, PEV_PERFDATA_HEADER_SIZE);

	if (l->attr_size == 0)
		return pev__pd_fail(
		    pd, err, PEV_EFORMAT, "header.attr_size",
		    "header.attr_size is 0: the header was never completed (was the "
		    "recording interrupted before it wrote its events?)");
	if (l->attr_size < PEV_ATTR_SIZE_VER0 + PD_SECTION_SIZE || l->attr_size % 8 ||
	    l->attr_size > PD_ATTR_MAX + PD_SECTION_SIZE)
		return pev__pd_fail(pd, err, PEV_EFORMAT, "header.attr_size",
				    "header.attr_size is %" PRIu64
				    ": an attr entry is an attribute block of 64 to %d bytes and a "
				    "16-byte id section, a multiple of 8",
				    l->attr_size, PD_ATTR_MAX);
	rc = check_section(pd, err, "header.attrs", "attr section", l->attrs_offset,
			   l->attrs_size);
	if (rc)
		return rc;
	if (l->attrs_size % l->attr_size)
		return pev__pd_fail(pd, err, PEV_EFORMAT, "header.attrs",
				    "attr section size 0x%" PRIx64
				    " is not a multiple of header.attr_size 0x%" PRIx64,
				    l->attrs_size, l->attr_size);
	rc = check_section(pd, err, "header.data", "data section", l->data_offset, l->data_size);
	if (rc)
		return rc;
	if (l->attrs_size && l->attrs_offset < l->header_size)
		return pev__pd_fail(pd, err, PEV_EFORMAT, "header.attrs",
				    "attr section at offset 0x%" PRIx64 " overlaps the 0x%" PRIx64
				    "-byte header",
				    l->attrs_offset, l->header_size);
	if (l->data_offset < l->header_size)
		return pev__pd_fail(pd, err, PEV_EFORMAT, "header.data",
				    "data section at offset 0x%" PRIx64 " overlaps the 0x%" PRIx64
				    "-byte header",
				    l->data_offset, l->header_size);
	if (overlap(l->attrs_offset, l->attrs_size, l->data_offset, l->data_size))
		return pev__pd_fail(pd, err, PEV_EFORMAT, "header.data",
				    "attr section [0x%" PRIx64 ", 0x%" PRIx64
				    ") and data section [0x%" PRIx64 ", 0x%" PRIx64 ") overlap",
				    l->attrs_offset, l->attrs_offset + l->attrs_size,
				    l->data_offset, l->data_offset + l->data_size);
	l->feat_offset = l->data_offset + l->data_size;

	rc = read_attrs(pd, err);
	if (rc)
		return rc;
	/*
	 * A recorder writes the header first with a data size of 0, and rewrites
	 * it with the size and the feature bits only when it finishes; perf's
	 * first header already has the bits of the features it means to write.
	 * A file whose header says "no data" and that has no features, or whose
	 * feature table is no table (records follow the attrs), was never
	 * finished: the recorder was killed, or the disk filled.
	 */
	if (l->data_size == 0 && (popcount_bits(bits) == 0 || !feature_table_plausible(pd, bits))) {
		pd->unfinished = true;
		memset(bits, 0, sizeof(bits));
	}
	rc = read_features(pd, bits, err);
	if (rc)
		return rc;

	pd->pos = l->data_offset;
	pd->end = l->data_offset + l->data_size;
	if (pd->unfinished && pd->size > l->data_offset) {
		pd->recover = true;
		pd->end = pd->size;
		pev__pd_note(
		    pd,
		    "the header says the data section is empty and no features follow, but "
		    "0x%" PRIx64 " bytes do: the recording was not finalized (interrupted?); "
		    "reading the records up to the end of the file",
		    pd->size - l->data_offset);
	} else if (pd->unfinished) {
		pev__pd_note(pd,
			     "the header says the data section is empty and no features follow: "
			     "the recording was not finalized (interrupted?)");
	}
	return 0;
}

/* ---- opening and closing -------------------------------------------------------- */

static int pd_new(const char *name, unsigned flags, struct pev_perfdata **out,
		  struct pev_error *err)
{
	struct pev_perfdata *pd = calloc(1, sizeof(*pd));

	*out = NULL;
	if (!pd) {
		pev__pd_fail(NULL, err, PEV_ENOMEM, NULL, "out of memory for the reader");
		return PEV_ENOMEM;
	}
	/* For messages only: a file name may hold control bytes (perfev/text.h). */
	pev_text_escape(pd->name, sizeof(pd->name), name, 0);
	pd->flags = flags;
	pd->fd = -1;
	*out = pd;
	return 0;
}

static int pd_start(struct pev_perfdata *pd, struct pev_error *err)
{
	uint64_t hsize = 0;
	int rc = read_magic(pd, &hsize, err);

	if (rc)
		return rc;
	pd->layout.header_size = hsize;
	pd->layout.file_size = pd->size;
	if (hsize == PEV_PERFDATA_PIPE_HEADER_SIZE) {
		pd->pipe = true;
		pd->pos = PEV_PERFDATA_PIPE_HEADER_SIZE;
		pd->end = pd->size;
		return pev__pd_pipe_preamble(pd, err);
	}
	if (hsize != PEV_PERFDATA_HEADER_SIZE && hsize != PD_HDR_SIZE_NO_FEATURES &&
	    (hsize < PEV_PERFDATA_HEADER_SIZE || hsize % 8 || hsize > PD_SECTION_MAX))
		return pev__pd_fail(pd, err, PEV_EFORMAT, "header.size",
				    "header.size is %" PRIu64
				    ": a file-mode header is %d bytes (%d in "
				    "the oldest files) and a pipe-mode one %d",
				    hsize, PEV_PERFDATA_HEADER_SIZE, PD_HDR_SIZE_NO_FEATURES,
				    PEV_PERFDATA_PIPE_HEADER_SIZE);
	return read_file_header(pd, err);
}

static int pd_finish_open(struct pev_perfdata *pd, struct pev_perfdata **out,
			  struct pev_error *err)
{
	int rc = pd_start(pd, err);

	if (rc) {
		pev_perfdata_close(pd);
		return rc;
	}
	*out = pd;
	return 0;
}

static int bad_out(struct pev_perfdata **out, const char *func, struct pev_error *err)
{
	if (out)
		*out = NULL;
	return pev__bad_arg(err, func, "out", "must not be NULL");
}

/* Opens a descriptor (fstat'ed as st) under a name, owning it or not. */
static int open_fd(int fd, const struct stat *st, bool own, const char *name, unsigned flags,
		   struct pev_perfdata **out, struct pev_error *err)
{
	struct pev_perfdata *pd;
	int rc = pd_new(name, flags, &pd, err);

	if (rc) {
		if (own)
			close(fd);
		return rc;
	}
	pd->fd = fd;
	pd->own_fd = own;
	if (S_ISREG(st->st_mode)) {
		pd->kind = PD_SRC_FILE;
		pd->size = (uint64_t)st->st_size;
	} else {
		pd->kind = PD_SRC_STREAM;
		pd->size = UINT64_MAX;
	}
	return pd_finish_open(pd, out, err);
}

static int check_flags(unsigned flags, const char *func, struct pev_error *err)
{
	if (flags & ~PEV_PERFDATA_LENIENT)
		return pev__bad_arg(err, func, "flags", "unknown flags 0x%x",
				    flags & ~PEV_PERFDATA_LENIENT);
	return 0;
}

PEV_API int pev_perfdata_open_fd(int fd, unsigned flags, struct pev_perfdata **out,
				 struct pev_error *err)
{
	static const char func[] = "pev_perfdata_open_fd";
	struct stat st;
	char name[48];

	pev__error_clear(err);
	if (!out)
		return bad_out(out, func, err);
	*out = NULL;
	int rc = check_flags(flags, func, err);
	if (rc)
		return rc;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		pev__error_start(err, pev_error_from_errno(e), e, "fstat", NULL, false);
		pev__error_msg(err, "perf.data: descriptor %d: %s", fd, strerror(e));
		return pev_error_from_errno(e);
	}
	if (fd == STDIN_FILENO)
		snprintf(name, sizeof(name), "standard input");
	else
		snprintf(name, sizeof(name), "perf.data (descriptor %d)", fd);
	return open_fd(fd, &st, false, name, flags, out, err);
}

PEV_API int pev_perfdata_open(const char *path, unsigned flags, struct pev_perfdata **out,
			      struct pev_error *err)
{
	static const char func[] = "pev_perfdata_open";
	struct stat st;
	char shown[512];
	int fd, rc;

	pev__error_clear(err);
	if (!out)
		return bad_out(out, func, err);
	*out = NULL;
	if (!path)
		return pev__bad_arg(err, func, "path", "must not be NULL");
	rc = check_flags(flags, func, err);
	if (rc)
		return rc;
	if (strcmp(path, "-") == 0)
		return pev_perfdata_open_fd(STDIN_FILENO, flags, out, err);
	pev_text_escape(shown, sizeof(shown), path, 0); /* as messages name it */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		rc = pev_error_from_errno(e);
		pev__error_start(err, rc, e, "open", NULL, false);
		pev__error_field(err, "path");
		pev__error_msg(err, "%s: cannot open: %s", shown, strerror(e));
		if (e == ENOENT)
			pev__error_hint(err, "check the path; perf record and perfev record write "
					     "./perf.data unless given -o FILE");
		return rc;
	}
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		rc = pev_error_from_errno(e);
		pev__error_start(err, rc, e, "fstat", NULL, false);
		pev__error_msg(err, "%s: %s", shown, strerror(e));
		return rc;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		pev__error_start(err, PEV_EUNSUPPORTED, EISDIR, NULL, NULL, false);
		pev__error_field(err, "path");
		pev__error_msg(err, "%s: is a directory (perf record --threads writes a directory "
				    "of data files), which perfev does not read",
			       shown);
		return PEV_EUNSUPPORTED;
	}
	return open_fd(fd, &st, true, path, flags, out, err);
}

PEV_API int pev_perfdata_open_memory(const void *data, size_t size, unsigned flags,
				     struct pev_perfdata **out, struct pev_error *err)
{
	struct pev_perfdata *pd;

	pev__error_clear(err);
	if (!out)
		return bad_out(out, "pev_perfdata_open_memory", err);
	*out = NULL;
	if (!data && size)
		return pev__bad_arg(err, "pev_perfdata_open_memory", "data",
				    "must not be NULL when size is not 0");
	int rc = check_flags(flags, "pev_perfdata_open_memory", err);
	if (rc)
		return rc;
	rc = pd_new("perf.data (memory)", flags, &pd, err);
	if (rc)
		return rc;
	pd->kind = PD_SRC_MEMORY;
	pd->mem = data;
	pd->size = size;
	return pd_finish_open(pd, out, err);
}

PEV_API void pev_perfdata_close(struct pev_perfdata *pd)
{
	if (!pd)
		return;
	if (pd->own_fd)
		close(pd->fd);
	for (int i = 0; i < pd->nr_events; i++) {
		struct pd_event *ev = pd->events[i];
		free(ev->ids);
		free(ev->name);
		free(ev->unit);
		free(ev->group_name);
		free(ev->cpus);
		free(ev);
	}
	free(pd->events);
	free(pd->id_keys);
	free(pd->id_vals);
	free(pd->build_ids);
	free(pd->sections);
	free(pd->id_index);
	free(pd->threads);
	free(pd->cpus);
	for (size_t i = 0; i < pd->nr_notes; i++)
		free(pd->notes[i]);
	free(pd->notes);
	free(pd->win);
	free(pd->scratch);
	free(pd->replay);
	while (pd->arena) {
		struct pd_block *next = pd->arena->next;
		free(pd->arena);
		pd->arena = next;
	}
	free(pd);
}

/* ---- accessors ---------------------------------------------------------------------- */

PEV_API bool pev_perfdata_pipe_mode(const struct pev_perfdata *pd)
{
	return pd && pd->pipe;
}

PEV_API const struct pev_perfdata_layout *pev_perfdata_layout(const struct pev_perfdata *pd)
{
	return pd ? &pd->layout : NULL;
}

PEV_API int pev_perfdata_nr_events(const struct pev_perfdata *pd)
{
	return pd ? pd->nr_events : pev__bad_arg(NULL, "pev_perfdata_nr_events", "pd", "NULL");
}

PEV_API const struct pev_perfdata_event *pev_perfdata_event(const struct pev_perfdata *pd, int i)
{
	if (!pd || i < 0 || i >= pd->nr_events)
		return NULL;
	return &pd->events[i]->pub;
}

PEV_API const struct pev_perfdata_event *pev_perfdata_event_by_id(const struct pev_perfdata *pd,
								  uint64_t id)
{
	struct pd_event *ev = pd ? pev__pd_event_find(pd, id) : NULL;

	return ev ? &ev->pub : NULL;
}

PEV_API const struct pev_perfdata_features *pev_perfdata_features(const struct pev_perfdata *pd)
{
	return pd ? &pd->feat : NULL;
}

PEV_API const struct pev_perfdata_pmu_caps *pev_perfdata_pmu_caps(const struct pev_perfdata *pd,
								  uint32_t *nr)
{
	if (nr)
		*nr = pd ? pd->nr_pmu_caps : 0;
	return pd && pd->nr_pmu_caps ? pd->pmu_caps : NULL;
}

PEV_API int pev_perfdata_id_index(const struct pev_perfdata *pd, uint64_t id,
				  struct pev_perfdata_id_entry *out)
{
	size_t lo = 0, hi;

	if (!pd || !out)
		return pev__bad_arg(NULL, "pev_perfdata_id_index", pd ? "out" : "pd", "NULL");
	hi = pd->nr_id_index;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pd->id_index[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < pd->nr_id_index && pd->id_index[lo].id == id) {
		*out = pd->id_index[lo];
		return 0;
	}
	return PEV_ENOTFOUND;
}

PEV_API const struct pev_perfdata_thread *pev_perfdata_threads(const struct pev_perfdata *pd,
							       size_t *nr)
{
	if (nr)
		*nr = pd ? pd->nr_threads : 0;
	return pd && pd->nr_threads ? pd->threads : NULL;
}

PEV_API const int *pev_perfdata_cpus(const struct pev_perfdata *pd, size_t *nr)
{
	if (nr)
		*nr = pd ? pd->nr_cpus : 0;
	return pd && pd->nr_cpus ? pd->cpus : NULL;
}

PEV_API const struct pev_perfdata_time_conv *pev_perfdata_time_conv(const struct pev_perfdata *pd)
{
	return pd && pd->has_time_conv ? &pd->time_conv : NULL;
}

PEV_API bool pev_perfdata_unfinished(const struct pev_perfdata *pd)
{
	return pd && pd->unfinished;
}

PEV_API size_t pev_perfdata_nr_notes(const struct pev_perfdata *pd)
{
	return pd ? pd->nr_notes : 0;
}

PEV_API const char *pev_perfdata_note(const struct pev_perfdata *pd, size_t i)
{
	return pd && i < pd->nr_notes ? pd->notes[i] : NULL;
}
