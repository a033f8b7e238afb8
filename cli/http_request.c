/* SPDX-License-Identifier: MIT */
/*
 * http_request.c - the request parser of `perfev stat --serve` (RFC 9112's
 * request line and header fields, as much of them as a metrics endpoint
 * needs). Each call reads the whole buffer again: the server calls it only
 * when a line has ended, and the buffer is at most HTTP_REQUEST_MAX bytes.
 */
#include <string.h>
#include <strings.h>

#include "http_request.h"

/* Whether ch may be in a token (a method or a header name): RFC 9110's tchar. */
static bool is_tchar(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       (ch && strchr("!#$%&'*+-.^_`|~", ch));
}

static void refuse(struct http_request *req, int status, const char *why)
{
	req->state = HTTP_BAD;
	req->status = status;
	req->why = why;
}

/* Whether the n bytes at s start like "HTTP/1.x" (all of it when whole). */
static bool version_ok(const char *s, size_t n, bool whole, struct http_request *req)
{
	static const char want[] = "HTTP/1.";

	if (n > 8 || (whole && n != 8)) {
		refuse(req, 400, "perfev: the request line must end in HTTP/1.0 or HTTP/1.1\n");
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		bool ok = i < 7 ? s[i] == want[i] : (s[i] == '0' || s[i] == '1');
		if (!ok) {
			if (i >= 5 && s[i] >= '0' && s[i] <= '9')
				refuse(req, 505, "perfev: only HTTP/1.0 and HTTP/1.1 are served\n");
			else
				refuse(req, 400,
				       "perfev: the request line must end in HTTP/1.0 or HTTP/1.1\n");
			return false;
		}
	}
	return true;
}

/*
 * Checks the request line l (n bytes, no line end; whole: its end was seen)
 * and, when whole, keeps its method and path. Returns false once refused.
 */
static bool request_line(const char *l, size_t n, bool whole, struct http_request *req)
{
	size_t m = 0, t, v;

	while (m < n && is_tchar((unsigned char)l[m]))
		m++;
	if (m >= sizeof(req->method) || (m < n && (l[m] != ' ' || m == 0)) || (whole && m == n)) {
		refuse(req, 400, "perfev: a request line of METHOD /PATH HTTP/1.x was expected\n");
		return false;
	}
	if (m == n)
		return true; /* the method so far */
	t = m + 1;
	v = t;
	while (v < n && l[v] != ' ')
		v++;
	if (v - t >= HTTP_TARGET_MAX) {
		refuse(req, 414, "perfev: the request's target is too long\n");
		return false;
	}
	for (size_t i = t; i < v; i++) {
		unsigned char ch = (unsigned char)l[i];
		if (ch <= ' ' || ch >= 0x7f || (i == t && ch != '/')) {
			refuse(req, 400, "perfev: the request's target must be a path starting "
					 "with '/', in printable ASCII\n");
			return false;
		}
	}
	if (v == n) {
		if (whole) {
			refuse(req, 400,
			       "perfev: a request line of METHOD /PATH HTTP/1.x was expected\n");
			return false;
		}
		return true; /* the target so far */
	}
	if (v == t) {
		refuse(req, 400, "perfev: a request line of METHOD /PATH HTTP/1.x was expected\n");
		return false;
	}
	if (!version_ok(l + v + 1, n - v - 1, whole, req))
		return false;
	if (whole) {
		memcpy(req->method, l, m);
		req->method[m] = '\0';
		size_t p = t; /* the bytes are not NUL-terminated: no str* function here */
		while (p < v && l[p] != '?' && l[p] != '#')
			p++;
		memcpy(req->path, l + t, p - t);
		req->path[p - t] = '\0';
	}
	return true;
}

/* Whether the value (n bytes) holds word. */
static bool value_has(const char *value, size_t n, const char *word)
{
	size_t w = strlen(word);

	for (size_t i = 0; i + w <= n; i++)
		if (memcmp(value + i, word, w) == 0)
			return true;
	return false;
}

/* Checks header line l (n bytes, no line end; whole: its end was seen). */
static bool header_line(const char *l, size_t n, bool whole, struct http_request *req)
{
	size_t c = 0;

	while (c < n && is_tchar((unsigned char)l[c]))
		c++;
	if (c < n && (l[c] != ':' || c == 0)) {
		refuse(req, 400, c == 0 && (l[0] == ' ' || l[0] == '\t')
				     ? "perfev: folded header lines are not accepted\n"
				     : "perfev: a header line of Name: value was expected\n");
		return false;
	}
	if (whole && c == n) {
		refuse(req, 400, "perfev: a header line of Name: value was expected\n");
		return false;
	}
	if (whole && c == 6 && strncasecmp(l, "Accept", 6) == 0 &&
	    value_has(l + 7, n - 7, "application/openmetrics-text"))
		req->openmetrics = true;
	return true;
}

void http_request_parse(const char *buf, size_t len, size_t max, struct http_request *req)
{
	size_t pos = 0;
	bool first = true;

	memset(req, 0, sizeof(*req));
	req->state = HTTP_INCOMPLETE;
	if (len > max)
		len = max; /* the server never holds more */
	while (pos < len) {
		size_t end = pos;
		while (end < len && buf[end] != '\n') {
			unsigned char ch = (unsigned char)buf[end];
			bool cr_ok = ch == '\r' && (end + 1 == len || buf[end + 1] == '\n');
			if ((ch < ' ' && ch != '\t' && !cr_ok) || ch == 0x7f) {
				refuse(req, 400, ch == 0 ? "perfev: the request holds a NUL byte\n"
							 : "perfev: the request holds a control byte\n");
				return;
			}
			end++;
		}
		bool whole = end < len;
		size_t n = end - pos;
		if (n > 0 && buf[pos + n - 1] == '\r')
			n--;
		if (!whole) {
			/* What has come of the line so far may already be wrong. */
			if (first ? !request_line(buf + pos, n, false, req)
				  : !header_line(buf + pos, n, false, req))
				return;
			break;
		}
		if (first && n == 0) {
			pos = end + 1; /* blank lines before the request line are ignored */
			continue;
		}
		if (!first && n == 0) {
			req->state = HTTP_COMPLETE;
			req->head_len = end + 1;
			return;
		}
		if (first ? !request_line(buf + pos, n, true, req)
			  : !header_line(buf + pos, n, true, req))
			return;
		first = false;
		pos = end + 1;
	}
	if (len >= max) {
		memset(req, 0, sizeof(*req));
		refuse(req, 431, "perfev: the request's headers are too large\n");
	}
}
