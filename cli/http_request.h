/* SPDX-License-Identifier: MIT */
/*
 * http_request.h - the request parser of `perfev stat --serve`: a pure
 * function from the bytes a client sent so far to what they ask for, or to
 * why they are refused. No I/O, no allocation: unit-tested and fuzzed
 * (tests/test_http_request.c, fuzz/fuzz_http.c).
 */
#ifndef PERFEV_CLI_HTTP_REQUEST_H
#define PERFEV_CLI_HTTP_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

/* The most bytes of request line and headers the server reads. */
#define HTTP_REQUEST_MAX 8192

/* The longest request target (path and query) the parser keeps. */
#define HTTP_TARGET_MAX 512

/* Where a request stands after the bytes seen so far. */
enum http_state {
	HTTP_INCOMPLETE, /* no error yet, the blank line ending the headers not yet seen */
	HTTP_COMPLETE,   /* a whole, well-formed request line and headers */
	HTTP_BAD,        /* refused: answer `status` with `why` and close */
};

/* What http_request_parse found. */
struct http_request {
	enum http_state state;
	int status;             /* HTTP_BAD: 400, 414, 431 or 505 */
	const char *why;        /* HTTP_BAD: a sentence for the response body (static) */
	char method[16];        /* HTTP_COMPLETE: "GET", "HEAD", ... */
	char path[HTTP_TARGET_MAX]; /* HTTP_COMPLETE: the target without query or fragment */
	bool openmetrics;       /* HTTP_COMPLETE: the Accept header names OpenMetrics */
	size_t head_len;        /* HTTP_COMPLETE: bytes up to and with the blank line */
};

/*
 * Parses the first len bytes of buf (not NUL-terminated; it may hold NUL
 * bytes), which a client sent so far, into *req. A request is an HTTP/1.0
 * or 1.1 request line (METHOD SP TARGET SP HTTP/1.x, the target starting
 * with '/') and header lines ("Name: value"), each ending in CRLF or LF, and
 * a blank line. Refused (HTTP_BAD) as soon as the bytes seen show it: a NUL
 * or other control byte (tab excepted), a malformed request line or header
 * line, a folded header, a target longer than HTTP_TARGET_MAX (414), a
 * version other than 1.x (505), or, still incomplete, max bytes or more
 * (431). Bytes after the blank line (a body), and after the first max, are
 * not looked at.
 */
void http_request_parse(const char *buf, size_t len, size_t max, struct http_request *req);

#endif
