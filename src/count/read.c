/* SPDX-License-Identifier: MIT */
/*
 * read.c - what read(2) returns on an event fd, decoded, summed and scaled.
 *
 * The layout depends on read_format: for one event
 *   value, [time_enabled], [time_running], [id], [lost]
 * and with PEV_FORMAT_GROUP
 *   nr, [time_enabled], [time_running], nr x { value, [id], [lost] }.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfev/machine.h"

#include "count/counter_internal.h"
#include "core/error_internal.h"
#include "core/sys.h"

/* Words of the per-value part of a read: value, id, lost. */
static size_t value_words(uint64_t rf)
{
	return 1 + !!(rf & PEV_FORMAT_ID) + !!(rf & PEV_FORMAT_LOST);
}

/* Words of the header: nr for groups, and the two times. */
static size_t header_words(uint64_t rf)
{
	return !!(rf & PEV_FORMAT_GROUP) + !!(rf & PEV_FORMAT_TOTAL_TIME_ENABLED) +
	       !!(rf & PEV_FORMAT_TOTAL_TIME_RUNNING);
}

static uint64_t load64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Says why pev_read_decode refused its bytes (this thread's last error); returns PEV_EFORMAT. */
static int PEV_PRINTF(1, 2) undecodable(const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	pev__error_start(NULL, PEV_EFORMAT, 0, NULL, NULL, true);
	pev__error_msg(NULL, "pev_read_decode: %s", why);
	return PEV_EFORMAT;
}

PEV_API int pev_read_decode(const void *buf, size_t len, uint64_t rf, uint64_t *time_enabled,
			    uint64_t *time_running, struct pev_read_value *values, size_t max)
{
	static const char fn[] = "pev_read_decode";
	const unsigned char *p = buf;
	size_t words = len / 8, per = value_words(rf), at = 0;
	uint64_t nr = 1, te = 0, tr = 0;

	if (!buf)
		return pev__bad_arg(NULL, fn, "buf", "NULL");
	if (max && !values)
		return undecodable("values is NULL with room for %zu", max);
	if (rf & ~PEV_FORMAT_ALL)
		return undecodable("read_format %#" PRIx64 " has bits perfev does not know",
				   rf & ~PEV_FORMAT_ALL);
	if (len % 8)
		return undecodable("%zu bytes are not whole 8-byte words", len);
	if (rf & PEV_FORMAT_GROUP) {
		if (words < 1)
			return undecodable("a group read of 0 bytes has no count of values");
		nr = load64(p);
		at = 1;
	}
	if (words < header_words(rf))
		return undecodable("%zu bytes are too few for read_format %#" PRIx64 "'s header",
				   len, rf);
	/* The values after the header must fill the rest exactly. */
	size_t rest = words - header_words(rf);
	if (!(rf & PEV_FORMAT_GROUP)) {
		if (rest != per)
			return undecodable("%zu bytes are not one value of read_format %#" PRIx64
					   " (%zu bytes)",
					   len, rf, 8 * (header_words(rf) + per));
	} else if (nr == 0 || nr > rest / per || nr * per != rest || nr > INT32_MAX) {
		return undecodable("a group read of %zu bytes says it holds %" PRIu64
				   " values of %zu bytes each",
				   len, nr, 8 * per);
	}
	if (!(rf & PEV_FORMAT_GROUP)) {
		/* value comes first, then the times. */
		if (max) {
			values[0].value = load64(p);
			values[0].id = values[0].lost = 0;
		}
		at = 1;
	}
	if (rf & PEV_FORMAT_TOTAL_TIME_ENABLED)
		te = load64(p + 8 * at++);
	if (rf & PEV_FORMAT_TOTAL_TIME_RUNNING)
		tr = load64(p + 8 * at++);
	for (uint64_t k = 0; k < nr; k++) {
		struct pev_read_value v = {0, 0, 0};
		if (rf & PEV_FORMAT_GROUP)
			v.value = load64(p + 8 * at++);
		else
			v.value = load64(p);
		if (rf & PEV_FORMAT_ID)
			v.id = load64(p + 8 * at++);
		if (rf & PEV_FORMAT_LOST)
			v.lost = load64(p + 8 * at++);
		if (k < max)
			values[k] = v;
	}
	if (time_enabled)
		*time_enabled = te;
	if (time_running)
		*time_running = tr;
	return (int)nr;
}

PEV_API void pev_count_scale(struct pev_count *c)
{
	if (!c)
		return;
	if (!c->time_running) {
		/* Never on the PMU (or never enabled): no count exists, which is not zero. */
		c->counted = false;
		c->running = 0.0;
		c->scaled = 0;
		return;
	}
	c->counted = true;
	if (c->time_running >= c->time_enabled) {
		c->running = 1.0;
		c->scaled = c->value;
		return;
	}
	c->running = (double)c->time_running / (double)c->time_enabled;
	unsigned __int128 s = (unsigned __int128)c->value * c->time_enabled / c->time_running;
	c->scaled = s > UINT64_MAX ? UINT64_MAX : (uint64_t)s;
}

/*
 * Scales a count read with read_format rf. Whether the counter ran needs the
 * running time: without it (PEV_OPEN_EXACT_READ_FORMAT, or a raw attribute
 * block) nothing tells, and the value is taken as complete. Scaling needs
 * both times: without the enabled time (read as 0) a counter that ran is
 * taken as having run all along.
 */
static void scale_as_read(uint64_t rf, struct pev_count *c)
{
	/* Multiplexed or never ran: the general rule. Ran all the time: the value as is. */
	if ((rf & PEV_FORMAT_TOTAL_TIME_RUNNING) &&
	    (c->time_running < c->time_enabled || !c->time_running)) {
		pev_count_scale(c);
		return;
	}
	c->counted = true;
	c->running = 1.0;
	c->scaled = c->value;
}

/* The largest group perfev reads on the stack; bigger ones use the heap. */
#define STACK_WORDS 96

/*
 * Reads one descriptor: the raw words into buf (room for `words`), checking
 * the length against the layout. Returns the number of bytes, or a code.
 */
static ssize_t read_words(int fd, uint64_t *buf, size_t words)
{
	ssize_t n = pev__sys_read(fd, buf, words * 8);

	if (n < 0)
		return pev_error_from_errno((int)-n);
	return n;
}

/* The words one read of a counter in a group of `nr` returns. */
static size_t read_size_words(uint64_t rf, size_t nr)
{
	return header_words(rf) + (rf & PEV_FORMAT_GROUP ? nr : 1) * value_words(rf);
}

/* Members plus the leader: the group one read of c's descriptors returns. */
static size_t group_size(const struct pev_counter *c)
{
	const struct pev_counter *l = c->leader ? c->leader : c;
	return 1 + (size_t)l->nr_members;
}

/* Position of c in its group as the kernel lists it: leader first, then members in join order. */
static int group_position(const struct pev_counter *c)
{
	const struct pev_counter *l = c->leader;

	if (!l || l == c)
		return 0;
	for (int i = 0; i < l->nr_members; i++)
		if (l->members[i] == c)
			return i + 1;
	return 0;
}

/* Says why reading descriptor i of c failed with code (this thread's last error); returns it. */
static int read_failed(const struct pev_counter *c, int i, int code)
{
	if (code == PEV_ENOMEM) {
		pev__error_start(NULL, code, ENOMEM, NULL, c->name, true);
		pev__error_msg(NULL, "no memory to read '%s'", c->name);
		return code;
	}
	pev_diagnose_call("read", c->name, -code, NULL);
	pev__error_msg(NULL, " (descriptor %d)", c->slots[i].fd);
	return code;
}

/* Says a read of c returned n bytes, not the want its read_format gives; returns PEV_EFORMAT. */
static int read_mismatch(const struct pev_counter *c, ssize_t n, size_t want)
{
	pev__error_start(NULL, PEV_EFORMAT, 0, "read", c->name, false);
	pev__error_msg(NULL, "reading '%s' gave %zd bytes; its read_format gives %zu", c->name,
		       n, want);
	return PEV_EFORMAT;
}

/* Adds descriptor i of c to out. */
static int add_fd(const struct pev_counter *c, int i, struct pev_count *out)
{
	uint64_t rf = c->attr.read_format, stack[STACK_WORDS], *buf = stack;
	size_t words = read_size_words(rf, group_size(c));
	struct pev_read_value one, *values = &one;
	uint64_t te, tr;
	int nr, r = 0;

	if (words > STACK_WORDS && !(buf = malloc(words * 8)))
		return read_failed(c, i, PEV_ENOMEM);
	ssize_t n = read_words(c->slots[i].fd, buf, words);
	if (n < 0) {
		r = read_failed(c, i, (int)n);
		goto out;
	}
	if (rf & PEV_FORMAT_GROUP) {
		values = calloc(group_size(c) + 1, sizeof(*values));
		if (!values) {
			r = read_failed(c, i, PEV_ENOMEM);
			goto out;
		}
	}
	nr = pev_read_decode(buf, (size_t)n, rf, &te, &tr, values,
			     rf & PEV_FORMAT_GROUP ? group_size(c) + 1 : 1);
	if (nr < 0) {
		r = read_mismatch(c, n, words * 8);
		goto out;
	}
	/* Our entry: by id when the kernel gives ids, else by position. */
	int k = rf & PEV_FORMAT_GROUP ? group_position(c) : 0;
	if ((rf & PEV_FORMAT_GROUP) && (rf & PEV_FORMAT_ID) && c->slots[i].id) {
		/* An id missing from the read: the entry at our position is another event's. */
		k = nr;
		for (int j = 0; j < nr && j < (int)group_size(c) + 1; j++)
			if (values[j].id == c->slots[i].id)
				k = j;
	}
	if (k >= nr) {
		r = pev__error_start(NULL, PEV_EFORMAT, 0, "read", c->name, false);
		pev__error_msg(NULL, "the group read of '%s' has no entry with its id", c->name);
		goto out;
	}
	out->value += values[k].value;
	out->lost += values[k].lost;
	out->time_enabled += te;
	out->time_running += tr;
	out->id = values[k].id; /* pev_counter_read clears it when it sums several */
out:
	if (values != &one)
		free(values);
	if (buf != stack)
		free(buf);
	return r;
}

void pev__single_read_init(struct pev_counter *c)
{
	uint64_t rf = c->attr.read_format;
	struct pev__single_read *s = &c->single;
	uint8_t at = 1;

	memset(s, 0, sizeof(*s));
	if (c->nr != 1 || (rf & PEV_FORMAT_GROUP))
		return;
	s->pos_enabled = (rf & PEV_FORMAT_TOTAL_TIME_ENABLED) ? at++ : SINGLE_READ_ZERO;
	s->pos_running = (rf & PEV_FORMAT_TOTAL_TIME_RUNNING) ? at++ : SINGLE_READ_ZERO;
	s->pos_id = (rf & PEV_FORMAT_ID) ? at++ : SINGLE_READ_ZERO;
	s->pos_lost = (rf & PEV_FORMAT_LOST) ? at++ : SINGLE_READ_ZERO;
	s->words = at;
	s->running = !!(rf & PEV_FORMAT_TOTAL_TIME_RUNNING);
}

PEV_API int pev_counter_read(const struct pev_counter *c, struct pev_count *out)
{
	if (!c || !out)
		return pev__bad_arg(NULL, "pev_counter_read", c ? "out" : "c", "NULL");
	if (c->single.words) {
		/*
		 * The common case: one descriptor, one event, the layout known
		 * since open. Kept free of decoding branches: this runs right
		 * after a system call, when the CPU predicts branches worst.
		 */
		const struct pev__single_read *s = &c->single;
		uint64_t buf[SINGLE_READ_ZERO + 1];
		ssize_t n = pev__sys_read(c->slots[0].fd, buf, s->words * 8u);
		if (n != s->words * 8) {
			memset(out, 0, sizeof(*out));
			return n < 0 ? read_failed(c, 0, pev_error_from_errno((int)-n))
				     : read_mismatch(c, n, s->words * 8u);
		}
		buf[SINGLE_READ_ZERO] = 0;
		out->value = buf[0];
		out->time_enabled = buf[s->pos_enabled];
		out->time_running = buf[s->pos_running];
		out->id = buf[s->pos_id];
		out->lost = buf[s->pos_lost];
		memset(out->reserved, 0, sizeof(out->reserved));
		if (s->running && (out->time_running < out->time_enabled || !out->time_running)) {
			pev_count_scale(out); /* multiplexed, or never ran */
		} else {
			out->scaled = out->value;
			out->running = 1.0;
			out->counted = true;
		}
		return 0;
	}
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < c->nr; i++) {
		int r = add_fd(c, i, out);
		if (r < 0)
			return r;
	}
	if (c->nr != 1)
		out->id = 0; /* a sum over descriptors has no single id */
	scale_as_read(c->attr.read_format, out);
	return 0;
}

PEV_API int pev_counter_read_fd(const struct pev_counter *c, int i, struct pev_count *out)
{
	static const char fn[] = "pev_counter_read_fd";

	if (!c || !out)
		return pev__bad_arg(NULL, fn, c ? "out" : "c", "NULL");
	if (i < 0 || i >= c->nr)
		return pev__bad_arg(NULL, fn, "i", "%d: '%s' has descriptors 0 to %d", i, c->name,
				    c->nr - 1);
	memset(out, 0, sizeof(*out));
	int r = add_fd(c, i, out);
	if (r < 0)
		return r;
	scale_as_read(c->attr.read_format, out);
	return 0;
}

/*
 * Where the value of c (position k in its group) is among the nr entries of
 * a group read of descriptor i (entries of `per` words each), or nr when it
 * is missing. With ids, the entry is matched by id: the kernel lists the
 * leader, then the members in the order they joined, so position k is tried
 * first, but ids are certain.
 */
static size_t group_entry(const struct pev_counter *c, int i, size_t k, uint64_t rf,
			  const uint64_t *entries, size_t per, size_t nr)
{
	uint64_t id = c->slots[i].id;

	if (!(rf & PEV_FORMAT_ID) || !id)
		return k < nr ? k : nr;
	if (k < nr && entries[k * per + 1] == id)
		return k;
	for (size_t j = 0; j < nr; j++)
		if (entries[j * per + 1] == id)
			return j;
	return nr;
}

/* The arguments of pev_counter_read_group, each refusal saying which and why. */
static int read_group_check(const struct pev_counter *leader, const struct pev_count *out,
			    int max)
{
	static const char fn[] = "pev_counter_read_group";

	if (!leader)
		return pev__bad_arg(NULL, fn, "leader", "NULL");
	if (!out)
		return pev__bad_arg(NULL, fn, "out", "NULL");
	if (max < 1)
		return pev__bad_arg(NULL, fn, "max", "%d: out needs room for the leader's count at "
				    "least", max);
	if (leader->leader && leader->leader != leader)
		return pev__bad_arg(NULL, fn, "leader",
				    "'%s' is a member of the group led by '%s': read the group "
				    "through its leader",
				    leader->name, leader->leader->name);
	if (!(leader->attr.read_format & PEV_FORMAT_GROUP))
		return pev__bad_arg(NULL, fn, "leader",
				    "'%s' was opened without PEV_FORMAT_GROUP in opts.read_format: "
				    "add it to read the group in one call, or read each counter "
				    "with pev_counter_read()",
				    leader->name);
	return 0;
}

/* A group read whose length or count is not the group's: PEV_EFORMAT, said why. */
static int group_read_mismatch(const struct pev_counter *leader, ssize_t n, size_t words,
			       uint64_t nr_read, size_t nr)
{
	pev__error_start(NULL, PEV_EFORMAT, 0, "read", leader->name, false);
	pev__error_msg(NULL,
		       "the group read of '%s' gave %zd bytes for %" PRIu64 " counters; "
		       "perfev expected %zu bytes for %zu (a member opened outside perfev?)",
		       leader->name, n, nr_read, words * 8, nr);
	return PEV_EFORMAT;
}

PEV_API int pev_counter_read_group(const struct pev_counter *leader, struct pev_count *out,
				   int max)
{
	uint64_t rf, stack_buf[STACK_WORDS], *buf = stack_buf;
	size_t nr, words, per, lost_at;
	int r = 0;

	if ((r = read_group_check(leader, out, max)) < 0)
		return r;
	rf = leader->attr.read_format;
	nr = 1 + (size_t)leader->nr_members;
	words = read_size_words(rf, nr);
	per = value_words(rf);
	lost_at = 1 + !!(rf & PEV_FORMAT_ID);
	if (words > STACK_WORDS && !(buf = malloc(words * 8)))
		return read_failed(leader, 0, PEV_ENOMEM);
	int filled = (int)nr < max ? (int)nr : max;
	/*
	 * Decoded in place: the layout is known (header, then nr entries), so
	 * a read is checked by its length and its nr word, then each member's
	 * entry is found and added. This is the hot path of group counting.
	 */
	for (int i = 0; i < leader->nr && r == 0; i++) {
		ssize_t n = read_words(leader->slots[i].fd, buf, words);
		if (n < 0) {
			r = read_failed(leader, i, (int)n);
			break;
		}
		if ((size_t)n != words * 8 || buf[0] != nr) {
			r = group_read_mismatch(leader, n, words, buf[0], nr);
			break;
		}
		size_t at = 1;
		uint64_t te = (rf & PEV_FORMAT_TOTAL_TIME_ENABLED) ? buf[at++] : 0;
		uint64_t tr = (rf & PEV_FORMAT_TOTAL_TIME_RUNNING) ? buf[at++] : 0;
		const uint64_t *entries = buf + at;
		for (int k = 0; k < filled; k++) {
			const struct pev_counter *c = k == 0 ? leader : leader->members[k - 1];
			size_t e = group_entry(c, i, (size_t)k, rf, entries, per, nr);
			if (e >= nr) {
				r = pev__error_start(NULL, PEV_EFORMAT, 0, "read", c->name, false);
				pev__error_msg(NULL,
					       "the group read of '%s' has no entry with the id of "
					       "its member '%s'",
					       leader->name, c->name);
				break;
			}
			const uint64_t *entry = entries + e * per;
			struct pev_count v = {
				.value = entry[0],
				.time_enabled = te,
				.time_running = tr,
				.lost = (rf & PEV_FORMAT_LOST) ? entry[lost_at] : 0,
				.id = leader->nr == 1 && (rf & PEV_FORMAT_ID) ? entry[1] : 0,
			};
			if (i == 0) {
				out[k] = v; /* whole: no read-modify-write of a fresh buffer */
			} else {
				out[k].value += v.value;
				out[k].lost += v.lost;
				out[k].time_enabled += te;
				out[k].time_running += tr;
			}
		}
	}
	if (buf != stack_buf)
		free(buf);
	if (r < 0) {
		memset(out, 0, sizeof(*out) * (size_t)filled);
		return r;
	}
	for (int k = 0; k < filled; k++)
		scale_as_read(rf, &out[k]);
	return filled;
}
