/* SPDX-License-Identifier: MIT */
/*
 * fuzz_tracing.c - libFuzzer harness for struct pev_tp_printer, which
 * `perfev script` uses on a file's tracing data: its checks and
 * libtraceevent's parsing of a TRACING_DATA feature, then printing one
 * tracepoint payload with the formats that survived.
 *
 * Input:
 *
 *   bytes 0-3   n, little-endian: the size of the TRACING_DATA blob
 *   bytes 4-    the blob (n bytes, as perf writes the feature), then the
 *               raw payload of one sample (PERF_SAMPLE_RAW), whose first two
 *               bytes, common_type, name its event
 *
 * The blob and the payload are copied into heap buffers of exactly their
 * length, so the sanitizer sees a read past them. libtraceevent is the
 * system's, loaded with dlopen as perfev loads it: it is not instrumented,
 * but a crash in it is a crash here, and an out-of-bounds read of the
 * harness's buffers is caught when it lands in a redzone. (A format that
 * crashes libtraceevent's parser is caught by the printer's child parse:
 * the harness forks once per format.)
 *
 * Seeds (fuzz/corpus/tracing/): fuzz/make_tracing_corpus.py from a
 * `perf record -e sched:...` recording.
 *   ./build-fuzz/fuzz/fuzz_tracing -max_total_time=60 fuzz/corpus/tracing
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfev/tracepoint.h"

/* libtraceevent 1.7 leaks on some parse errors; only its own leaks are not ours. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char text[4096];
	struct pev_tp_printer *t = NULL;
	uint32_t n;

	if (size < 4)
		return 0;
	memcpy(&n, data, 4);
	if (n > size - 4)
		return 0;

	unsigned char *blob = malloc(n ? n : 1);
	size_t raw_size = size - 4 - n;
	unsigned char *raw = malloc(raw_size ? raw_size : 1);
	if (!blob || !raw)
		abort();
	memcpy(blob, data + 4, n);
	memcpy(raw, data + 4 + n, raw_size);

	if (pev_tp_printer_new(&t, NULL) < 0)
		abort(); /* libtraceevent is needed to fuzz it */
	pev_tp_printer_add_tracing_data(t, blob, n, NULL);
	if (raw_size >= 2) {
		uint16_t type;
		memcpy(&type, raw, 2);
		pev_tp_printer_print(t, type, raw, raw_size, 0, 1000, text, sizeof(text));
	}
	pev_tp_printer_free(t);
	free(raw);
	free(blob);
	return 0;
}
