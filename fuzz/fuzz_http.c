/* SPDX-License-Identifier: MIT */
/*
 * fuzz_http.c - libFuzzer harness for `perfev stat --serve`'s request
 * parser (cli/http_request.c).
 *
 * The input is what a client sent so far, as the server holds it. Besides
 * the sanitizers' checks, the parser must keep its promises: a whole
 * request has a method, a path starting with '/' that fits, and ends at
 * its blank line (the bytes up to it parse the same, one byte less is
 * still incomplete); a refusal has a status and a reason; an incomplete
 * request is below the size limit. Each input is also parsed with a small
 * limit, as a server with less room would.
 *
 * Seeds: fuzz/corpus/http/ (Debian's prometheus' scrapes captured on
 * loopback by fuzz/make_http_corpus.py, curl's, and malformed requests).
 * Build: CC=clang meson setup build-fuzz -Dfuzz=true, then
 *   ./build-fuzz/fuzz/fuzz_http -max_total_time=60 fuzz/corpus/http
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../cli/http_request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Parses the first n bytes with limit max and checks the promises; returns the state. */
static enum http_state check(const char *buf, size_t n, size_t max)
{
	struct http_request r;

	http_request_parse(buf, n, max, &r);
	switch (r.state) {
	case HTTP_COMPLETE:
		if (!r.method[0] || r.path[0] != '/' || strlen(r.path) >= HTTP_TARGET_MAX ||
		    r.head_len == 0 || r.head_len > n || buf[r.head_len - 1] != '\n')
			abort();
		break;
	case HTTP_BAD:
		if (!r.why || (r.status != 400 && r.status != 414 && r.status != 431 &&
			       r.status != 505))
			abort();
		break;
	case HTTP_INCOMPLETE:
		if (n >= max)
			abort(); /* at the limit, an unfinished request is refused */
		break;
	default:
		abort();
	}
	return r.state;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct http_request r;

	if (check(buf, size, HTTP_REQUEST_MAX) == HTTP_COMPLETE) {
		http_request_parse(buf, size, HTTP_REQUEST_MAX, &r);
		size_t head = r.head_len;
		struct http_request again;
		http_request_parse(buf, head, HTTP_REQUEST_MAX, &again);
		if (again.state != HTTP_COMPLETE || again.head_len != head ||
		    strcmp(again.path, r.path) != 0 || strcmp(again.method, r.method) != 0 ||
		    again.openmetrics != r.openmetrics)
			abort(); /* what follows the blank line changed the request */
		if (check(buf, head - 1, HTTP_REQUEST_MAX) != HTTP_INCOMPLETE)
			abort(); /* one byte short of whole, it was refused or whole already */
	}
	check(buf, size, 64);
	return 0;
}
