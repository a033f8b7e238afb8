/* SPDX-License-Identifier: MIT */
/*
 * fuzz_parse.c - libFuzzer harness for the event-string parser.
 *
 * The input, NUL-terminated (so the parser sees it up to its first NUL), is
 * parsed against the fixture machines of the test suite: the hybrid sysfs
 * tree tests/fixtures/sysfs-pmus (PMUs with split-range formats, aliases with
 * .scale and .unit, an intel_pt-like PMU, kprobe and uprobe) and the fake
 * tracefs tests/fixtures/tracefs. tracefs is never mounted (no_mount).
 *
 *   1. pev_event_parse() must not crash, leak or hang, whatever the string.
 *   2. On success, every spec must be complete (name, text and unit set,
 *      groups led by their first event) and pev_attr_encode() must accept
 *      it: the parser never hands out an event it cannot encode.
 *   3. On failure, the code must be negative and equal err.code, err.position
 *      must lie within the input (0..strlen) and err.length be non-negative,
 *      and the message and hint must be NUL-terminated inside their buffers.
 *   Anything else abort()s.
 *
 * The first byte picks how (deterministically, so a crash replays):
 *   - the PMU list is read once, at start-up, and handed in
 *     (pev_parse_opts.pmus), so that an input costs parsing, not sysfs
 *     reading; when the first byte is 0 modulo 16 the parser reads the sysfs
 *     tree itself instead;
 *   - libpfm4 names are on, for Skylake (LIBPFM_FORCE_PMU=skl, set before its
 *     one-time initialization), when the first byte is 1 modulo 4 ('A', 'E',
 *     'I', 'M', ...): libpfm4's "did you mean" search over every vendor name
 *     is slow, and would otherwise take most of the time of unknown names.
 *
 * Build: CC=clang meson setup build-fuzz -Dfuzz=true, then
 *   ./build-fuzz/fuzz/fuzz_parse -max_total_time=30 fuzz/corpus/parse
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfev.h"

#ifndef PEV_FIXTURES
#error "PEV_FIXTURES must name tests/fixtures (fuzz/meson.build defines it)"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char sysfs_root[] = PEV_FIXTURES "/sysfs-pmus";
static const char tracefs[] = PEV_FIXTURES "/tracefs";
static struct pev_pmus *pmus;

static void fail(const char *what, const char *input)
{
	fprintf(stderr, "fuzz_parse: %s (input: \"%s\")\n", what, input);
	abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct pev_error err;

	(void)argc;
	(void)argv;
	setenv("LIBPFM_FORCE_PMU", "skl", 1);
	if (pev_pmus_read(sysfs_root, &pmus, &err) < 0 || pev_pmus_count(pmus) < 10) {
		fprintf(stderr, "fuzz_parse: cannot read the fixture %s: %s\n", sysfs_root,
			err.message);
		abort();
	}
	return 0;
}

static bool terminated(const char *buf, size_t size)
{
	return memchr(buf, '\0', size) != NULL;
}

static void check_list(const struct pev_event_list *l, const char *input)
{
	int n = pev_event_list_count(l);
	int last_group = -1;

	if (n <= 0)
		fail("success with no events", input);
	if (pev_event_list_at(l, n) || pev_event_list_at(l, -1))
		fail("pev_event_list_at out of range gave an event", input);
	for (int i = 0; i < n; i++) {
		const struct pev_event_spec *s = pev_event_list_at(l, i);
		struct pev_attr attr;
		struct pev_error err;
		char buf[256];

		if (!s || !s->ev.name || !s->text || !s->unit)
			fail("a spec without name, text or unit", input);
		if (strlen(s->ev.name) > 100000 || strlen(s->text) > strlen(input))
			fail("a spec's name or text is not a string of the input's size", input);
		if (s->scale <= 0 || s->scale != s->scale)
			fail("a spec with a scale that is not positive", input);
		if (s->group < -1 || (s->group >= 0 && s->group != last_group && !s->group_leader) ||
		    (s->group_leader && s->group < 0))
			fail("group numbering: a group not led by its first event", input);
		if (s->group >= 0)
			last_group = s->group;
		if (pev_attr_encode(&attr, &s->ev, &s->opts, &err) < 0) {
			fprintf(stderr, "fuzz_parse: encode of '%s': %s\n", s->ev.name, err.message);
			fail("the parser made a spec pev_attr_encode refuses", input);
		}
		if (attr.type != s->ev.type || attr.config != s->ev.config)
			fail("encoding changed type or config", input);
		pev_event_describe(&s->ev, buf, sizeof(buf));
		if (!terminated(buf, sizeof(buf)))
			fail("pev_event_describe left its buffer unterminated", input);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *input = malloc(size + 1);
	struct pev_parse_opts o = PEV_PARSE_OPTS_INIT;
	struct pev_event_list *l = (struct pev_event_list *)&o; /* must be overwritten */
	struct pev_error err;

	if (!input)
		return 0;
	memcpy(input, data, size);
	input[size] = '\0';

	o.sysfs_root = sysfs_root;
	o.pmus = size && (data[0] & 15) == 0 ? NULL : pmus;
	o.tracefs = tracefs;
	o.no_mount = true;
	o.no_pfm = !(size && data[0] % 4 == 1);
	memset(&err, 0x5a, sizeof(err)); /* no NUL: the parser must terminate what it writes */

	int r = pev_event_parse(input, &o, &l, &err);
	if (r == 0) {
		if (!l)
			fail("success without a list", input);
		check_list(l, input);
		pev_event_list_free(l);
	} else {
		if (r > 0)
			fail("a positive return", input);
		if (l)
			fail("*out not NULL after a failure", input);
		if (err.code != r)
			fail("err.code differs from the return value", input);
		if (!terminated(err.message, sizeof(err.message)) ||
		    !terminated(err.hint, sizeof(err.hint)))
			fail("message or hint not NUL-terminated", input);
		if (r != PEV_ENOMEM && (err.position < 0 || (size_t)err.position > strlen(input) ||
					err.length < 0))
			fail("err.position/length outside the input", input);
		if (r != PEV_ENOMEM && err.message[0] == '\0')
			fail("an error without a message", input);
	}
	free(input);
	return 0;
}
