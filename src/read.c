/* SPDX-License-Identifier: MIT */
/*
 * read.c - what read(2) returns on an event fd, decoded, summed and scaled.
 *
 * The layout depends on read_format: for one event
 *   value, [time_enabled], [time_running], [id], [lost]
 * and with PEV_FORMAT_GROUP
 *   nr, [time_enabled], [time_running], nr x { value, [id], [lost] }.
 */
#include <stdlib.h>
#include <string.h>

#include "counter_internal.h"
#include "error_internal.h"
#include "sys.h"

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

PEV_API int pev_read_decode(const void *buf, size_t len, uint64_t rf, uint64_t *time_enabled,
			    uint64_t *time_running, struct pev_read_value *values, size_t max)
{
	const unsigned char *p = buf;
	size_t words = len / 8, per = value_words(rf), at = 0;
	uint64_t nr = 1, te = 0, tr = 0;

	if (!buf || len % 8 || (rf & ~PEV_FORMAT_ALL) || (max && !values))
		return PEV_EFORMAT;
	if (rf & PEV_FORMAT_GROUP) {
		if (words < 1)
			return PEV_EFORMAT;
		nr = load64(p);
		at = 1;
	}
	if (words < header_words(rf))
		return PEV_EFORMAT;
	/* The values after the header must fill the rest exactly. */
	size_t rest = words - header_words(rf);
	if (!(rf & PEV_FORMAT_GROUP)) {
		if (rest != per)
			return PEV_EFORMAT;
	} else if (nr == 0 || nr > rest / per || nr * per != rest || nr > INT32_MAX) {
		return PEV_EFORMAT;
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
	if (!c->time_enabled && !c->time_running) {
		/* Times not read: the value is all there is. */
		c->counted = true;
		c->running = 1.0;
		c->scaled = c->value;
		return;
	}
	if (!c->time_running) {
		/* Enabled but never on the PMU: no count exists, which is not zero. */
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
 * Scales a count read with read_format rf. Scaling needs both times: with
 * only one of them (TOTAL_TIME_ENABLED without RUNNING, say) a running time
 * of 0 means "not read", not "never ran", and the value is taken as complete.
 */
static void scale_as_read(uint64_t rf, struct pev_count *c)
{
	const uint64_t both = PEV_FORMAT_TOTAL_TIME_ENABLED | PEV_FORMAT_TOTAL_TIME_RUNNING;

	if ((rf & both) == both) {
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

/* Adds descriptor i of c to out. */
static int add_fd(const struct pev_counter *c, int i, struct pev_count *out)
{
	uint64_t rf = c->attr.read_format, stack[STACK_WORDS], *buf = stack;
	size_t words = read_size_words(rf, group_size(c));
	struct pev_read_value one, *values = &one;
	uint64_t te, tr;
	int nr, r = 0;

	if (words > STACK_WORDS && !(buf = malloc(words * 8)))
		return PEV_ENOMEM;
	ssize_t n = read_words(c->slots[i].fd, buf, words);
	if (n < 0) {
		r = (int)n;
		goto out;
	}
	if (rf & PEV_FORMAT_GROUP) {
		values = calloc(group_size(c) + 1, sizeof(*values));
		if (!values) {
			r = PEV_ENOMEM;
			goto out;
		}
	}
	nr = pev_read_decode(buf, (size_t)n, rf, &te, &tr, values,
			     rf & PEV_FORMAT_GROUP ? group_size(c) + 1 : 1);
	if (nr < 0) {
		r = nr;
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
		r = PEV_EFORMAT;
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

PEV_API int pev_counter_read(const struct pev_counter *c, struct pev_count *out)
{
	uint64_t buf[5];

	if (!c || !out)
		return PEV_EBADARG;
	memset(out, 0, sizeof(*out));
	if (c->nr == 1 && !(c->attr.read_format & PEV_FORMAT_GROUP)) {
		/* The common case, kept short: one descriptor, one event. */
		uint64_t rf = c->attr.read_format;
		size_t words = 1 + header_words(rf) + !!(rf & PEV_FORMAT_ID) + !!(rf & PEV_FORMAT_LOST);
		ssize_t n = pev__sys_read(c->slots[0].fd, buf, words * 8);
		size_t at = 1;
		if (n < 0)
			return pev_error_from_errno((int)-n);
		if ((size_t)n != words * 8)
			return PEV_EFORMAT;
		out->value = buf[0];
		if (rf & PEV_FORMAT_TOTAL_TIME_ENABLED)
			out->time_enabled = buf[at++];
		if (rf & PEV_FORMAT_TOTAL_TIME_RUNNING)
			out->time_running = buf[at++];
		if (rf & PEV_FORMAT_ID)
			out->id = buf[at++];
		if (rf & PEV_FORMAT_LOST)
			out->lost = buf[at];
		scale_as_read(rf, out);
		return 0;
	}
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
	if (!c || !out || i < 0 || i >= c->nr)
		return PEV_EBADARG;
	memset(out, 0, sizeof(*out));
	int r = add_fd(c, i, out);
	if (r < 0)
		return r;
	scale_as_read(c->attr.read_format, out);
	return 0;
}

PEV_API int pev_counter_read_group(const struct pev_counter *leader, struct pev_count *out,
				   int max)
{
	uint64_t rf;
	size_t nr, words;
	uint64_t *buf;
	struct pev_read_value *values;
	int r = 0;

	if (!leader || !out || max < 1 || (leader->leader && leader->leader != leader))
		return PEV_EBADARG;
	rf = leader->attr.read_format;
	if (!(rf & PEV_FORMAT_GROUP))
		return PEV_EBADARG;
	nr = 1 + (size_t)leader->nr_members;
	words = read_size_words(rf, nr);
	buf = malloc(words * 8);
	values = calloc(nr, sizeof(*values));
	if (!buf || !values) {
		free(buf);
		free(values);
		return PEV_ENOMEM;
	}
	int filled = (int)nr < max ? (int)nr : max;
	memset(out, 0, sizeof(*out) * (size_t)filled);
	for (int i = 0; i < leader->nr && r == 0; i++) {
		uint64_t te, tr;
		ssize_t n = read_words(leader->slots[i].fd, buf, words);
		int got = n < 0 ? (int)n : pev_read_decode(buf, (size_t)n, rf, &te, &tr, values, nr);
		if (got < 0) {
			r = got;
			break;
		}
		for (int k = 0; k < filled; k++) {
			const struct pev_counter *c = k == 0 ? leader : leader->members[k - 1];
			int at = k;
			/*
			 * Match by id when there are ids: the kernel's order is the same, but
			 * ids are certain. A member whose id is missing has no value here.
			 */
			if ((rf & PEV_FORMAT_ID) && c->slots[i].id) {
				at = got;
				for (int j = 0; j < got && j < (int)nr; j++)
					if (values[j].id == c->slots[i].id)
						at = j;
			}
			if (at >= got) {
				r = PEV_EFORMAT;
				break;
			}
			out[k].value += values[at].value;
			out[k].lost += values[at].lost;
			out[k].time_enabled += te;
			out[k].time_running += tr;
			out[k].id = leader->nr == 1 ? values[at].id : 0;
		}
	}
	free(buf);
	free(values);
	if (r < 0)
		return r;
	for (int k = 0; k < filled; k++)
		scale_as_read(rf, &out[k]);
	return filled;
}
