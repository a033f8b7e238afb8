/* SPDX-License-Identifier: MIT */
/*
 * http_client.c - one HTTP/1.1 POST over TCP under a deadline (see
 * http_client.h). The socket is non-blocking and every wait is a poll()
 * bounded by what is left of the deadline; only name resolution
 * (getaddrinfo) runs under the resolver's own timeouts, and an address
 * written as numbers needs none.
 */
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "http_client.h"

#define HEAD_MAX  16384             /* the most bytes of status line and headers read */
#define BODY_READ (1024 * 1024)     /* the most bytes of an answer's body read (the rest unread) */

static bool set_why(char *why, size_t size, const char *text)
{
	snprintf(why, size, "%s", text);
	return false;
}

bool http_url_parse(const char *text, struct http_url *url, char *why, size_t size)
{
	const char *p, *host_end;
	size_t n;

	memset(url, 0, sizeof(*url));
	if (strncasecmp(text, "https://", 8) == 0)
		return set_why(why, size,
			       "https:// is not supported: perfev speaks plain HTTP only; send to an "
			       "http:// URL (a local agent or a TLS-terminating proxy such as "
			       "stunnel or nginx forwards it)");
	if (strncasecmp(text, "http://", 7) != 0)
		return set_why(why, size,
			       "it is not an http:// URL (http://HOST[:PORT][/PATH], e.g. "
			       "http://localhost:4040)");
	p = text + 7;
	if (*p == '[') { /* [IPv6] */
		host_end = strchr(p, ']');
		if (!host_end)
			return set_why(why, size, "its IPv6 address lacks the closing ']'");
		n = (size_t)(host_end - p - 1);
		if (n == 0 || n >= sizeof(url->host))
			return set_why(why, size, "its IPv6 address is empty or too long");
		memcpy(url->host, p + 1, n);
		url->ipv6_literal = true;
		p = host_end + 1;
		if (*p && *p != ':' && *p != '/')
			return set_why(why, size, "something follows its IPv6 address's ']'");
	} else {
		n = strcspn(p, ":/?#");
		if (n == 0)
			return set_why(why, size, "it names no host (http://HOST[:PORT][/PATH])");
		if (n >= sizeof(url->host))
			return set_why(why, size, "its host name is too long");
		memcpy(url->host, p, n);
		for (size_t i = 0; i < n; i++)
			if (url->host[i] == '@')
				return set_why(why, size,
					       "user names and passwords in the URL are not "
					       "supported");
			else if (!isalnum((unsigned char)url->host[i]) && !strchr("-._~%",
										 url->host[i]))
				return set_why(why, size, "its host name holds a character a host "
							  "name cannot have");
		p += n;
	}
	if (*p == ':') {
		p++;
		n = strspn(p, "0123456789");
		long v = n ? strtol(p, NULL, 10) : 0;
		if (n == 0 || n > 5 || v < 1 || v > 65535 || (p[n] && p[n] != '/'))
			return set_why(why, size, "its port is not a number from 1 to 65535");
		memcpy(url->port, p, n);
		p += n;
	} else {
		strcpy(url->port, "80");
	}
	if (*p && *p != '/')
		return set_why(why, size, "its path must start with '/'");
	if (strchr(p, '#'))
		return set_why(why, size, "a fragment ('#') has no place in a URL perfev sends to");
	for (const char *c = p; *c; c++)
		if ((unsigned char)*c <= ' ' || (unsigned char)*c >= 0x7f)
			return set_why(why, size, "its path holds a space or a character that must "
						  "be percent-encoded");
	if (strlen(p) >= sizeof(url->path))
		return set_why(why, size, "its path is too long");
	strcpy(url->path, *p ? p : "/");
	return true;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Milliseconds left until deadline (0 when passed). */
static int left_ms(double deadline)
{
	double left = deadline - now_ms();

	return left <= 0 ? 0 : (int)left + 1;
}

/* Waits until fd is ready for events; 1 ready, 0 deadline passed, -1 error. */
static int wait_fd(int fd, short events, double deadline)
{
	for (;;) {
		struct pollfd p = {.fd = fd, .events = events};
		int ms = left_ms(deadline);
		if (ms == 0)
			return 0;
		int n = poll(&p, 1, ms);
		if (n > 0)
			return 1;
		if (n == 0)
			return 0;
		if (errno != EINTR)
			return -1;
	}
}

/*
 * Connects to one of host's addresses before deadline. Returns the
 * socket, or -1 with reply's outcome and why set.
 */
static int connect_to(const struct http_url *url, double deadline, struct http_reply *reply)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_NUMERICSERV};
	struct addrinfo *list = NULL;
	int e = getaddrinfo(url->host, url->port, &hints, &list), last = 0;
	bool timed_out = false;

	if (e != 0) {
		reply->outcome = HTTP_UNREACHABLE;
		snprintf(reply->why, sizeof(reply->why), "cannot resolve the host '%.200s': %s",
			 url->host, e == EAI_SYSTEM ? strerror(errno) : gai_strerror(e));
		return -1;
	}
	for (struct addrinfo *a = list; a; a = a->ai_next) {
		int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
				a->ai_protocol);
		if (fd < 0) {
			last = errno;
			continue;
		}
		if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
			freeaddrinfo(list);
			return fd;
		}
		if (errno == EINPROGRESS) {
			int w = wait_fd(fd, POLLOUT, deadline), soerr = 0;
			socklen_t len = sizeof(soerr);
			if (w == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == 0 &&
			    soerr == 0) {
				freeaddrinfo(list);
				return fd;
			}
			if (w == 0)
				timed_out = true;
			last = w == 1 ? soerr : errno;
		} else {
			last = errno;
		}
		close(fd);
		if (timed_out)
			break;
	}
	freeaddrinfo(list);
	reply->outcome = timed_out ? HTTP_TIMED_OUT : HTTP_UNREACHABLE;
	if (timed_out)
		snprintf(reply->why, sizeof(reply->why), "no connection to %.200s port %s in time",
			 url->host, url->port);
	else
		snprintf(reply->why, sizeof(reply->why), "cannot connect to %.200s port %s: %s",
			 url->host, url->port, strerror(last ? last : ECONNREFUSED));
	return -1;
}

/* Sends len bytes before deadline. Returns 1, 0 (deadline passed) or -1 (errno). */
static int send_all(int fd, const void *buf, size_t len, double deadline)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			int w = wait_fd(fd, POLLOUT, deadline);
			if (w <= 0)
				return w;
			continue;
		}
		return -1;
	}
	return 1;
}

/* The value of header name in head (len bytes, NUL-terminated), or NULL. */
static const char *header_value(const char *head, const char *name)
{
	size_t n = strlen(name);

	for (const char *line = strstr(head, "\r\n"); line && line[2]; line = strstr(line + 2, "\r\n")) {
		const char *h = line + 2;
		if (strncasecmp(h, name, n) == 0 && h[n] == ':') {
			h += n + 1;
			while (*h == ' ' || *h == '\t')
				h++;
			return h;
		}
	}
	return NULL;
}

/* Keeps up to the excerpt's room of len bytes of body. */
static void keep_excerpt(struct http_reply *reply, size_t *kept, const char *p, size_t len)
{
	size_t room = HTTP_EXCERPT_MAX - *kept;

	if (len > room)
		len = room;
	memcpy(reply->excerpt + *kept, p, len);
	*kept += len;
	reply->excerpt[*kept] = '\0';
}

/*
 * Reads the answer: the status line and headers, then its body up to its
 * Content-Length, the end of a chunked body, or the connection's end.
 */
static void read_answer(int fd, double deadline, struct http_reply *reply)
{
	char *buf = malloc(HEAD_MAX + 1);
	size_t have = 0, kept = 0, body_seen = 0;
	long long length = -1;
	bool chunked = false, head_done = false;

	if (!buf) {
		reply->outcome = HTTP_FAILED;
		snprintf(reply->why, sizeof(reply->why), "out of memory");
		return;
	}
	for (;;) {
		if (head_done && ((length >= 0 && (long long)body_seen >= length) ||
				  body_seen >= BODY_READ ||
				  (chunked && strstr(reply->excerpt, "\r\n0\r\n\r\n"))))
			break;
		char chunk[4096];
		char *into = head_done ? chunk : buf + have;
		size_t room = head_done ? sizeof(chunk) : HEAD_MAX - have;
		ssize_t n = recv(fd, into, room, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			int w = wait_fd(fd, POLLIN, deadline);
			if (w == 1)
				continue;
			if (head_done) /* the status is known: what is missing is a body's end */
				break;
			reply->outcome = w == 0 ? HTTP_TIMED_OUT : HTTP_FAILED;
			snprintf(reply->why, sizeof(reply->why), "%s",
				 w == 0 ? "no answer in time" : strerror(errno));
			free(buf);
			return;
		}
		if (n <= 0) { /* the server closed (or reset) the connection */
			if (head_done)
				break;
			reply->outcome = HTTP_FAILED;
			snprintf(reply->why, sizeof(reply->why), "%s",
				 n == 0 ? (have ? "the connection closed in the middle of the answer"
						: "the connection closed without an answer")
					: strerror(errno));
			free(buf);
			return;
		}
		if (head_done) {
			keep_excerpt(reply, &kept, chunk, (size_t)n);
			body_seen += (size_t)n;
			continue;
		}
		have += (size_t)n;
		buf[have] = '\0';
		char *end = strstr(buf, "\r\n\r\n");
		if (!end && have == HEAD_MAX) {
			reply->outcome = HTTP_FAILED;
			snprintf(reply->why, sizeof(reply->why), "the answer's headers are too long");
			free(buf);
			return;
		}
		if (!end)
			continue;
		int major, minor, status;
		if (sscanf(buf, "HTTP/%d.%d %3d", &major, &minor, &status) != 3 || status < 100 ||
		    status > 599) {
			reply->outcome = HTTP_FAILED;
			snprintf(reply->why, sizeof(reply->why), "the answer is not HTTP");
			free(buf);
			return;
		}
		head_done = true;
		reply->status = status;
		end[2] = '\0'; /* the headers, each line ending in CRLF */
		const char *v = header_value(buf, "Content-Length");
		if (v)
			length = strtoll(v, NULL, 10);
		v = header_value(buf, "Transfer-Encoding");
		chunked = v && strncasecmp(v, "chunked", 7) == 0;
		if (chunked) /* so that the end marker is found at the body's start too */
			keep_excerpt(reply, &kept, "\r\n", 2);
		size_t rest = have - (size_t)(end + 4 - buf);
		keep_excerpt(reply, &kept, end + 4, rest);
		body_seen = rest;
		if (status == 204 || status == 304 || (status >= 100 && status < 200))
			length = 0;
	}
	if (!chunked && length >= 0 && (long long)kept > length)
		reply->excerpt[length] = '\0'; /* what came after the body is not its */
	if (chunked) { /* the first chunk's data, without sizes */
		char *p = reply->excerpt + 2, *eol = strstr(p, "\r\n");
		if (eol) {
			memmove(reply->excerpt, eol + 2, strlen(eol + 2) + 1);
			char *next = strstr(reply->excerpt, "\r\n");
			if (next)
				*next = '\0';
		}
	}
	reply->outcome = HTTP_ANSWERED;
	free(buf);
}

enum http_outcome http_post(const struct http_post *req, struct http_reply *reply)
{
	const struct http_url *url = req->url;
	double deadline = now_ms() + req->timeout_ms;
	char head[HTTP_PATH_MAX * 4 + 1024];
	int fd, r;

	memset(reply, 0, sizeof(*reply));
	int n = snprintf(head, sizeof(head),
			 "POST %s HTTP/1.1\r\n"
			 "Host: %s%s%s%s%s\r\n"
			 "User-Agent: perfev\r\n"
			 "Content-Type: %s\r\n"
			 "Content-Length: %zu\r\n"
			 "%s%s"
			 "Connection: close\r\n"
			 "\r\n",
			 req->target ? req->target : url->path, url->ipv6_literal ? "[" : "",
			 url->host, url->ipv6_literal ? "]" : "",
			 strcmp(url->port, "80") ? ":" : "", strcmp(url->port, "80") ? url->port : "",
			 req->content_type, req->len, req->extra_header ? req->extra_header : "",
			 req->extra_header ? "\r\n" : "");
	if (n < 0 || (size_t)n >= sizeof(head)) {
		reply->outcome = HTTP_FAILED;
		snprintf(reply->why, sizeof(reply->why), "the request's target is too long");
		return reply->outcome;
	}
	if ((fd = connect_to(url, deadline, reply)) < 0)
		return reply->outcome;
	r = send_all(fd, head, (size_t)n, deadline);
	if (r == 1)
		r = send_all(fd, req->body, req->len, deadline);
	if (r == 0) {
		reply->outcome = HTTP_TIMED_OUT;
		snprintf(reply->why, sizeof(reply->why), "the request could not be sent in time");
	} else {
		/* Sent, or cut short by a server that answered early: read its answer either way. */
		int send_errno = r < 0 ? errno : 0;
		read_answer(fd, deadline, reply);
		if (reply->outcome != HTTP_ANSWERED && send_errno)
			snprintf(reply->why, sizeof(reply->why), "sending: %s", strerror(send_errno));
	}
	close(fd);
	return reply->outcome;
}
