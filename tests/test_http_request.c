/* SPDX-License-Identifier: MIT */
/*
 * test_http_request.c - the request parser of `perfev stat --serve`
 * (cli/http_request.c): what Prometheus and curl send, every prefix of it
 * incomplete and never refused, and each malformed request refused as soon
 * as its bytes show it.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_request.h"

/* What Debian's prometheus 2.42 sends (captured on loopback; fuzz/corpus/http/). */
static const char prometheus[] =
    "GET /metrics HTTP/1.1\r\n"
    "Host: 127.0.0.1:39157\r\n"
    "User-Agent: Prometheus/2.42.0+ds\r\n"
    "Accept: application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
    "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\n"
    "Accept-Encoding: gzip\r\n"
    "X-Prometheus-Scrape-Timeout-Seconds: 1\r\n"
    "\r\n";

static struct http_request parse(const char *buf, size_t len)
{
	struct http_request r;
	http_request_parse(buf, len, HTTP_REQUEST_MAX, &r);
	return r;
}

static struct http_request parse_str(const char *s)
{
	return parse(s, strlen(s));
}

Test(http_request, prometheus_scrape)
{
	struct http_request r = parse_str(prometheus);

	cr_assert_eq(r.state, HTTP_COMPLETE);
	cr_expect_str_eq(r.method, "GET");
	cr_expect_str_eq(r.path, "/metrics");
	cr_expect(r.openmetrics);
	cr_expect_eq(r.head_len, strlen(prometheus));
}

Test(http_request, every_prefix_is_incomplete)
{
	for (size_t n = 0; n < strlen(prometheus); n++) {
		struct http_request r = parse(prometheus, n);
		cr_assert_eq(r.state, HTTP_INCOMPLETE, "prefix of %zu bytes: state %d (%s)", n,
			     r.state, r.why ? r.why : "");
	}
}

Test(http_request, curl_and_bare_line_ends)
{
	struct http_request r =
	    parse_str("GET /metrics?x=1#top HTTP/1.0\nHost: h\nAccept: */*\n\nbody bytes");

	cr_assert_eq(r.state, HTTP_COMPLETE);
	cr_expect_str_eq(r.path, "/metrics");
	cr_expect(!r.openmetrics);
	cr_expect_eq(r.head_len, strlen("GET /metrics?x=1#top HTTP/1.0\nHost: h\nAccept: */*\n\n"));

	r = parse_str("\r\nHEAD / HTTP/1.1\r\naccept: application/openmetrics-text\r\n\r\n");
	cr_assert_eq(r.state, HTTP_COMPLETE, "a blank line before the request line is ignored");
	cr_expect_str_eq(r.method, "HEAD");
	cr_expect_str_eq(r.path, "/");
	cr_expect(r.openmetrics, "header names are case-blind");

	r = parse_str("POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n");
	cr_assert_eq(r.state, HTTP_COMPLETE, "the method is the server's to refuse");
	cr_expect_str_eq(r.method, "POST");
}

/* The request (len bytes) is refused with status, whatever follows it. */
static void expect_refused(const char *buf, size_t len, int status)
{
	char msg[160];
	struct http_request r = parse(buf, len);

	snprintf(msg, sizeof(msg), "%.*s", (int)(len < 60 ? len : 60), buf);
	for (char *p = msg; *p; p++)
		if ((unsigned char)*p < ' ')
			*p = '.';
	cr_expect_eq(r.state, HTTP_BAD, "not refused: %s", msg);
	cr_expect_eq(r.status, status, "%s: status %d", msg, r.status);
	cr_expect(r.why && strncmp(r.why, "perfev: ", 8) == 0, "%s", msg);
}

Test(http_request, nul_and_control_bytes)
{
	static const char nul[] = "GET /\0metrics HTTP/1.1\r\n";

	/* Refused as soon as the NUL is there, the request still unfinished. */
	expect_refused(nul, 6, 400);
	expect_refused(nul, sizeof(nul) - 1, 400);
	cr_expect_str_eq(parse(nul, 6).why, "perfev: the request holds a NUL byte\n");
	expect_refused("GET / HTTP/1.1\r\nHost: a\0b\r\n\r\n", 28, 400);
	expect_refused("GET / HTTP/1.1\r\nHost: a\x1b[2J\r\n\r\n", 30, 400);
	expect_refused("GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n", 28, 400);
	expect_refused("GET / HTTP/1.1\r\nHost: a\x7f\r\n", 25, 400);
	/* A tab in a value is fine. */
	cr_expect_eq(parse_str("GET / HTTP/1.1\r\nHost:\ta\r\n\r\n").state, HTTP_COMPLETE);
}

Test(http_request, malformed_request_lines)
{
	const char *bad[] = {
	    "hello\r\n\r\n",
	    "GET\r\n\r\n",
	    "GET /\r\n\r\n",                  /* HTTP/0.9 */
	    "GET  / HTTP/1.1\r\n\r\n",        /* two spaces */
	    "GET metrics HTTP/1.1\r\n\r\n",   /* no leading '/' */
	    "GET / HTTP/1.1 x\r\n\r\n",
	    "GET / FTP/1.1\r\n\r\n",
	    "G(T / HTTP/1.1\r\n\r\n",
	    "GET /caf\xc3\xa9 HTTP/1.1\r\n\r\n", /* not ASCII */
	    "GETGETGETGETGETGET / HTTP/1.1\r\n\r\n",
	    "hel lo", /* unfinished, but the target is already wrong */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_refused(bad[i], strlen(bad[i]), 400);
	expect_refused("GET / HTTP/2.0\r\n\r\n", 18, 505);
	expect_refused("GET / HTTP/1.2\r\n\r\n", 18, 505);
}

Test(http_request, malformed_headers)
{
	expect_refused("GET / HTTP/1.1\r\nHost a\r\n\r\n", 26, 400);
	expect_refused("GET / HTTP/1.1\r\nHost : a\r\n\r\n", 28, 400);
	expect_refused("GET / HTTP/1.1\r\n: a\r\n\r\n", 23, 400);
	expect_refused("GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", 36, 400);
	cr_expect_str_eq(parse_str("GET / HTTP/1.1\r\nA: a\r\n  b").why,
			 "perfev: folded header lines are not accepted\n");
}

Test(http_request, sizes)
{
	static char big[HTTP_REQUEST_MAX + 64];

	/* A target too long: 414 as soon as it is. */
	size_t n = (size_t)snprintf(big, sizeof(big), "GET /");
	memset(big + n, 'a', HTTP_TARGET_MAX);
	expect_refused(big, n + HTTP_TARGET_MAX, 414);
	/* The longest target kept. */
	n = (size_t)snprintf(big, sizeof(big), "GET /%0*d HTTP/1.1\r\n\r\n", HTTP_TARGET_MAX - 2, 7);
	struct http_request r = parse(big, n);
	cr_assert_eq(r.state, HTTP_COMPLETE);
	cr_expect_eq(strlen(r.path), HTTP_TARGET_MAX - 1);

	/* Headers that do not end within the limit: 431 at the limit, not before. */
	n = (size_t)snprintf(big, sizeof(big), "GET / HTTP/1.1\r\nX-Pad: ");
	memset(big + n, 'p', sizeof(big) - n);
	cr_expect_eq(parse(big, HTTP_REQUEST_MAX - 1).state, HTTP_INCOMPLETE);
	expect_refused(big, HTTP_REQUEST_MAX, 431);
	/* Whole within the limit, whatever follows. */
	n = (size_t)snprintf(big, sizeof(big), "GET / HTTP/1.1\r\n\r\n");
	memset(big + n, 0, sizeof(big) - n);
	cr_expect_eq(parse(big, sizeof(big)).state, HTTP_COMPLETE, "the body is not looked at");
}

/* The bytes are the client's, with no NUL after them: nothing is read past len (ASan). */
Test(http_request, reads_only_len_bytes)
{
	const char *reqs[] = {prometheus, "GET /metrics?q HTTP/1.1\r\n\r\n", "GET /a#b HTTP/1.0\n\n",
			      "hello"};
	for (size_t k = 0; k < sizeof(reqs) / sizeof(reqs[0]); k++) {
		size_t len = strlen(reqs[k]);
		for (size_t n = 1; n <= len; n++) {
			char *copy = malloc(n);
			memcpy(copy, reqs[k], n);
			struct http_request r = parse(copy, n);
			cr_expect(r.state != HTTP_COMPLETE || r.head_len <= n);
			free(copy);
		}
	}
	struct http_request r = parse("GET /metrics?q HTTP/1.1\r\n\r\n", 27);
	cr_expect_str_eq(r.path, "/metrics");
}
