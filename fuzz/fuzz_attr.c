/* SPDX-License-Identifier: MIT */
/*
 * fuzz_attr.c - libFuzzer harness for the attribute block codec and the
 * code that explains attribute blocks in words.
 *
 * For arbitrary bytes:
 *   1. pev_attr_decode() must not crash, whatever the bytes say (a size
 *      field larger than the input, reserved bits, ...).
 *   2. When it succeeds, pev_attr_encode() of the result must succeed, and
 *      decoding that block again must give the same event and options:
 *      decode o encode o decode == decode. Anything else abort()s.
 *   3. pev_attr_check() and pev_diagnose_open() run on both the raw block and
 *      the re-encoded one with a zeroed machine (root "": nothing known), the
 *      errno taken from the first input byte, so the message code meets
 *      hostile values. Their messages must stay NUL-terminated in bounds.
 *
 * Build: meson setup build-fuzz -Dfuzz=true (clang), then
 *   ./build-fuzz/fuzz/fuzz_attr -max_total_time=30 fuzz/corpus/attr
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfev.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_attr: %s\n", what);
	abort();
}

/* ---- comparing two decodes --------------------------------------------- */

#define SAME(a, b, field)                                                                          \
	do {                                                                                       \
		if ((a)->field != (b)->field) {                                                    \
			fprintf(stderr, "fuzz_attr: round trip changed '%s': %llu -> %llu\n",      \
				#field, (unsigned long long)(a)->field,                            \
				(unsigned long long)(b)->field);                                   \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

static void same_event(const struct pev_event *a, const struct pev_event *b)
{
	SAME(a, b, type);
	SAME(a, b, bp_type);
	SAME(a, b, config);
	SAME(a, b, config1);
	SAME(a, b, config2);
	SAME(a, b, config3);
	if (a->name || b->name || a->pmu || b->pmu)
		fail("decode left ev->name or ev->pmu set");
}

static void same_opts(const struct pev_opts *a, const struct pev_opts *b)
{
	SAME(a, b, sz);
	SAME(a, b, exclude_user);
	SAME(a, b, exclude_kernel);
	SAME(a, b, exclude_hv);
	SAME(a, b, exclude_idle);
	SAME(a, b, exclude_host);
	SAME(a, b, exclude_guest);
	SAME(a, b, disabled);
	SAME(a, b, enable_on_exec);
	SAME(a, b, remove_on_exec);
	SAME(a, b, inherit);
	SAME(a, b, inherit_stat);
	SAME(a, b, pinned);
	SAME(a, b, exclusive);
	SAME(a, b, sample_period);
	SAME(a, b, sample_freq);
	SAME(a, b, skid);
	SAME(a, b, sample_type);
	SAME(a, b, callchain_max_stack);
	SAME(a, b, exclude_callchain_kernel);
	SAME(a, b, exclude_callchain_user);
	SAME(a, b, sample_regs_user);
	SAME(a, b, sample_stack_user);
	SAME(a, b, sample_regs_intr);
	SAME(a, b, branch_sample_type);
	SAME(a, b, aux_sample_size);
	SAME(a, b, read_format);
	SAME(a, b, mmap);
	SAME(a, b, mmap2);
	SAME(a, b, mmap_data);
	SAME(a, b, build_id);
	SAME(a, b, comm);
	SAME(a, b, comm_exec);
	SAME(a, b, task);
	SAME(a, b, context_switch);
	SAME(a, b, namespaces);
	SAME(a, b, ksymbol);
	SAME(a, b, bpf_event);
	SAME(a, b, cgroup);
	SAME(a, b, text_poke);
	SAME(a, b, sample_id_all);
	SAME(a, b, wakeup_events);
	SAME(a, b, wakeup_bytes);
	SAME(a, b, aux_watermark);
	SAME(a, b, use_clockid);
	SAME(a, b, clockid);
	SAME(a, b, sigtrap);
	SAME(a, b, sig_data);
	SAME(a, b, write_backward);
	SAME(a, b, aux_output);
	SAME(a, b, aux_start_paused);
	SAME(a, b, aux_pause);
	SAME(a, b, aux_resume);
	SAME(a, b, open_flags);
	/*
	 * Backstop for fields added to struct pev_opts after this list was
	 * written: both structs were zeroed by pev_attr_decode before it set
	 * any field, so their bytes compare equal when the fields do.
	 */
	if (memcmp(a, b, sizeof(*a)) != 0)
		fail("the decoded options differ in bytes the field list does not cover: "
		     "add the new pev_opts fields to same_opts()");
}

/* ---- the message code on hostile input --------------------------------- */

static void check_error(const struct pev_error *err)
{
	char buf[2 * PEV_ERROR_MESSAGE_MAX + 64];

	if (!memchr(err->message, '\0', sizeof(err->message)) ||
	    !memchr(err->hint, '\0', sizeof(err->hint)) ||
	    !memchr(err->event, '\0', sizeof(err->event)) ||
	    !memchr(err->field, '\0', sizeof(err->field)) ||
	    !memchr(err->syscall, '\0', sizeof(err->syscall)))
		fail("an error string is not NUL-terminated");
	pev_error_format(err, buf, sizeof(buf));
	if (!memchr(buf, '\0', sizeof(buf)))
		fail("pev_error_format overran its buffer");
	(void)pev_error_name(err->code);
	(void)pev_strerror(err->code);
}

/* Targets picked by input bytes: the usual ones and a few the rules must refuse. */
static const int pids[] = {0, -1, 1, 0x7ffffff0};
static const int cpus[] = {-1, 0, 1, 4095, -2, 1 << 30};
static const int group_fds[] = {-1, 0, 2, 1 << 20};

static void explain(const struct pev_attr *attr, const uint8_t *data, size_t size)
{
	static struct pev_machine machine; /* zeroed: root "", every fact unknown or false */
	uint8_t b0 = size > 0 ? data[0] : 0, b1 = size > 1 ? data[1] : 0;
	uint8_t b2 = size > 2 ? data[2] : 0, b3 = size > 3 ? data[3] : 0;
	struct pev_open_request req = {
		.attr = attr,
		.pid = pids[b1 % (sizeof(pids) / sizeof(pids[0]))],
		.cpu = cpus[(b1 >> 2) % (sizeof(cpus) / sizeof(cpus[0]))],
		.group_fd = group_fds[(b1 >> 5) % (sizeof(group_fds) / sizeof(group_fds[0]))],
		.flags = b2 & 0x1f, /* every open flag, and one the kernel does not know */
		.event = (b2 & 0x20) ? "fuzzed event" : NULL,
		.cgroup = (b2 & 0x40) ? "/sys/fs/cgroup/fuzz" : NULL,
		.fds_needed = 1 + b3,
	};
	struct pev_error err;

	memset(&err, 0xa5, sizeof(err)); /* no reliance on a zeroed error */
	int r = pev_attr_check(&machine, &req, &err);
	if (r > 0)
		fail("pev_attr_check returned a positive value");
	if (r < 0) {
		if (err.code != r)
			fail("pev_attr_check's err.code differs from its return value");
		check_error(&err);
	}

	/* The first byte is the errno the kernel "returned"; the fourth, E2BIG's size. */
	memset(&err, 0x5a, sizeof(err));
	r = pev_diagnose_open(&machine, &req, b0, (uint32_t)b3 * 8, &err);
	if (r >= 0 || err.code != r)
		fail("pev_diagnose_open must return err.code, a negative code");
	check_error(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pev_event ev1, ev2;
	struct pev_opts o1 = PEV_OPTS_INIT, o2 = PEV_OPTS_INIT;
	struct pev_attr *raw, *encoded;
	struct pev_error err;

	if (pev_attr_decode(data, size, &ev1, &o1) == 0) {
		/* Exactly one struct each, so the sanitizer sees reads past the end. */
		encoded = malloc(sizeof(*encoded));
		if (!encoded)
			return 0;
		if (pev_attr_encode(encoded, &ev1, &o1, &err) != 0) {
			fprintf(stderr, "fuzz_attr: a decoded block does not encode: %s\n",
				err.message);
			abort();
		}
		if (pev_attr_decode(encoded, sizeof(*encoded), &ev2, &o2) != 0)
			fail("an encoded block does not decode");
		same_event(&ev1, &ev2);
		/*
		 * The one rewrite the encoder makes: mmap2 sets attr.mmap too, since
		 * the kernel reports no mapping otherwise (docs/OPTIONS.md).
		 */
		if (o1.mmap2)
			o1.mmap = true;
		same_opts(&o1, &o2);
		if (encoded->size != pev_attr_min_size(encoded))
			fail("pev_attr_encode did not choose the smallest size");
		explain(encoded, data, size);
		free(encoded);
	}

	/* The raw bytes as an attribute block, whatever they hold. */
	raw = calloc(1, sizeof(*raw));
	if (!raw)
		return 0;
	memcpy(raw, data, size < sizeof(*raw) ? size : sizeof(*raw));
	explain(raw, data, size);
	free(raw);
	return 0;
}
