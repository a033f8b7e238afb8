/* SPDX-License-Identifier: MIT */
/*
 * http_client.h - the smallest HTTP/1.1 client `perfev record --push`
 * needs: one POST of a body held in memory to an http:// URL over TCP
 * (IPv4 or IPv6), the whole exchange under one deadline, the answer's
 * status and the first bytes of its body. No TLS (https:// is refused
 * with a message saying so), no redirects, no proxies, no keep-alive:
 * a connection per request, closed after the answer.
 *
 * Thread-safe: nothing is shared between calls (the sender thread of
 * record_push.c calls it while the recorder runs).
 */
#ifndef PERFEV_CLI_HTTP_CLIENT_H
#define PERFEV_CLI_HTTP_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

/* The longest host, port and path an URL may have. */
#define HTTP_HOST_MAX 256
#define HTTP_PATH_MAX 1024

/* An http:// URL, split. */
struct http_url {
	char host[HTTP_HOST_MAX]; /* a name, an IPv4 address or an IPv6 one (without brackets) */
	char port[8];             /* "80" when the URL gives none */
	char path[HTTP_PATH_MAX]; /* "/..." with the query if any; "/" when the URL gives none */
	bool ipv6_literal;        /* the host was written [v6] (the Host header keeps the brackets) */
};

/*
 * Splits text, "http://HOST[:PORT][/PATH]", into *url. Returns true, or
 * false with a sentence saying what is wrong (and, for https://, that
 * only plain HTTP is spoken) in why (size bytes).
 */
bool http_url_parse(const char *text, struct http_url *url, char *why, size_t size);

/* How a request ended. */
enum http_outcome {
	HTTP_ANSWERED,    /* the server sent a status line (any status) */
	HTTP_UNREACHABLE, /* no connection: name not resolved, refused, no route */
	HTTP_TIMED_OUT,   /* the deadline passed before the answer was whole */
	HTTP_FAILED,      /* the connection broke, or the answer is not HTTP */
};

/* The most bytes of an answer's body kept (for messages). */
#define HTTP_EXCERPT_MAX 512

/* What came back. */
struct http_reply {
	enum http_outcome outcome;
	int status;                        /* HTTP_ANSWERED: 100..599 */
	char excerpt[HTTP_EXCERPT_MAX + 1]; /* the body's first bytes as received, NUL-terminated */
	char why[512];                     /* not answered: what went wrong, a sentence */
};

/* One request: a POST of body (len bytes) to url's host at target ("/path?query"). */
struct http_post {
	const struct http_url *url;
	const char *target;       /* request target; NULL: url->path */
	const char *content_type; /* Content-Type of the body */
	const char *extra_header; /* one more "Name: value" line without CRLF, or NULL */
	const void *body;
	size_t len;
	int timeout_ms; /* for the whole exchange: resolving, connecting, sending, the answer */
};

/*
 * Sends the request and reads the answer until the connection closes, its
 * Content-Length is reached, or the deadline passes; fills *reply. Never
 * raises SIGPIPE. Returns reply->outcome.
 */
enum http_outcome http_post(const struct http_post *req, struct http_reply *reply);

#endif /* PERFEV_CLI_HTTP_CLIENT_H */
