/* SPDX-License-Identifier: MIT */
/*
 * stat_serve.c - `perfev stat --serve ADDR:PORT`: the counts as metrics a
 * Prometheus server scrapes over HTTP while counting goes on.
 *
 * The server lives inside stat's wait loop (stat_run.c): its descriptors
 * are polled with the others, and each scrape reads the counters once.
 * Connections are non-blocking; one request each, answered and closed.
 *
 * No client can hold the server up for others (docs/FLEET.md):
 *  - every connection has deadlines kept by the clock, whatever else
 *    happens: its whole request within the deadline of its accept (a
 *    client that drips a byte now and then gains nothing), its answer sent
 *    within the deadline of the request's end (a client that does not read
 *    it is reset then, the rest of its answer dropped), and a short
 *    lingering close after that. poll waits for the nearest deadline, no
 *    longer;
 *  - sockets never block: a slow reader's answer waits for POLLOUT while
 *    the others are served;
 *  - the slots are bounded (MAX_CLIENTS); when they are full, a new
 *    connection takes the slot of an answered one that lingers, else of
 *    the one that has waited longest without finishing a request (the
 *    idlest: its last byte, or its accept, is the oldest), else of the
 *    writer whose client has taken nothing of its answer for the longest
 *    (reset, as at its deadline), so neither idle connections nor clients
 *    that never read can lock a scraper out. A connection idle less than
 *    EVICT_MS keeps its slot (its request may be on its way, its client
 *    may be reading: 600 scrapers at once must not evict each other);
 *    with no slot to give, the newcomers wait in the listen queue. Each
 *    round accepts at most MAX_CLIENTS connections;
 *  - a request is at most HTTP_REQUEST_MAX bytes, parsed by
 *    http_request.c; a malformed one (a NUL byte included) is answered 400
 *    and closed as soon as its bytes show it.
 *
 * Memory is fixed after the first scrape: a response
 * buffer that grows to the largest page once, and one number per series
 * that keeps every exported counter from going backwards (a scaled count
 * is an estimate, and a new estimate may be lower than the last one).
 *
 * The text is Prometheus' exposition format 0.0.4, or OpenMetrics 1.0.0
 * when the scraper asks for it in its Accept header.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "http_request.h"
#include "stat.h"

#define MAX_CLIENTS 128
#define DEADLINE_MS 10000 /* default request and response deadlines */
#define LINGER_MS   1000  /* after the answer: the most time spent draining what the client sends */
#define EVICT_MS    250   /* a connection idle this long may lose its slot to a new one */
#define PAUSE_MS    100   /* out of descriptors: how long accepting pauses */
#define DEADLINE_ENV "PERFEV_SERVE_DEADLINE_MS"

/* Where a connection is. */
enum client_state {
	CLIENT_FREE,
	CLIENT_READING,   /* its request is not whole yet */
	CLIENT_WRITING,   /* its answer is being sent */
	CLIENT_LINGERING, /* answered and shut down for writing: reading until its end */
};

/* One connection: the request read so far, then the response being sent. */
struct client {
	int fd; /* -1: free */
	enum client_state state;
	double deadline_ns; /* when the current state's time is up (stat_now_ns's clock) */
	double active_ns;   /* accepted, its last byte read, its answer ready or its last byte
			     * sent: the idlest is evicted first */
	char req[HTTP_REQUEST_MAX];
	size_t req_len;
	char *resp; /* malloc'ed while writing */
	size_t resp_len, resp_sent;
};

/* A growing text buffer (kept between scrapes, so memory stays flat). */
struct text {
	char *buf;
	size_t len, cap;
};

struct stat_server {
	int fd; /* listening socket */
	char where[128]; /* "127.0.0.1:9100" as bound */
	struct client clients[MAX_CLIENTS];
	double deadline_ns; /* the request deadline, and the response deadline */
	double paused_until_ns; /* accept failed for want of descriptors or memory: not before then */
	struct text page;
	struct raw *raw;       /* one read of every counter */
	struct stat_cell *cells;
	double *last;          /* per cell and series: the highest value exported */
	pid_t *key_pids;       /* --per-thread: each key's process id (0: not known) */
	size_t ncells;
	unsigned long scrapes;
};

static void text_add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void text_add(struct text *t, const char *fmt, ...)
{
	va_list ap;

	for (;;) {
		size_t room = t->cap - t->len;
		va_start(ap, fmt);
		int n = vsnprintf(t->buf ? t->buf + t->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if ((size_t)n < room) {
			t->len += (size_t)n;
			return;
		}
		size_t cap = t->cap ? t->cap : 4096;
		while (cap <= t->len + (size_t)n)
			cap *= 2;
		char *b = realloc(t->buf, cap);
		if (!b)
			abort(); /* the CLI's policy on allocation failure, as cli_xcalloc */
		t->buf = b;
		t->cap = cap;
	}
}

/* ---- the address -------------------------------------------------------- */

/*
 * Splits "ADDR:PORT", "[V6ADDR]:PORT", ":PORT" or "PORT" into host and port.
 * The host defaults to the loopback address. Returns false when malformed.
 */
static bool split_address(const char *spec, char *host, size_t hsize, char *port, size_t psize)
{
	const char *colon;

	if (spec[0] == '[') {
		const char *end = strchr(spec, ']');
		if (!end || end[1] != ':')
			return false;
		snprintf(host, hsize, "%.*s", (int)(end - spec - 1), spec + 1);
		colon = end + 1;
	} else if ((colon = strrchr(spec, ':'))) {
		if (strchr(spec, ':') != colon)
			return false; /* a bare IPv6 address needs brackets */
		snprintf(host, hsize, "%.*s", (int)(colon - spec), spec);
	} else {
		host[0] = '\0';
		colon = spec - 1;
	}
	if (!host[0])
		snprintf(host, hsize, "127.0.0.1");
	long v;
	if (!cli_parse_long(colon + 1, "", 0, 65535, &v))
		return false;
	snprintf(port, psize, "%ld", v);
	return true;
}

/* The deadline of each request and answer: $PERFEV_SERVE_DEADLINE_MS, or 10 s. */
static long deadline_ms(void)
{
	const char *env = getenv(DEADLINE_ENV);
	long v;

	if (!env || !*env)
		return DEADLINE_MS;
	if (cli_parse_long(env, "", 1, 3600000, &v))
		return v;
	cli_warning("%s='%s' is not a number of milliseconds from 1 to 3600000; using %d",
		    DEADLINE_ENV, env, DEADLINE_MS);
	return DEADLINE_MS;
}

int stat_serve_open(const char *spec, struct stat_server **out)
{
	char host[256], port[16];
	struct addrinfo hints = {0}, *res = NULL;
	int fd = -1, e;

	*out = NULL;
	if (!split_address(spec, host, sizeof(host), port, sizeof(port))) {
		cli_error("option '--serve' needs [ADDRESS:]PORT (\"9100\", \"127.0.0.1:9100\", "
			  "\"[::1]:9100\"), got '%s'",
			  spec);
		return 129;
	}
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	if ((e = getaddrinfo(host, port, &hints, &res)) != 0) {
		cli_error("cannot serve metrics on '%s': %s", spec, gai_strerror(e));
		return 1;
	}
	e = 0;
	for (struct addrinfo *a = res; a; a = a->ai_next) {
		int one = 1;
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0) {
			e = errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, SOMAXCONN) == 0)
			break;
		e = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		cli_error("cannot serve metrics on %s:%s: %s", host, port, strerror(e));
		if (e == EADDRINUSE)
			fprintf(stderr, "hint: another program listens there; pick another port "
					"('--serve %s:0' takes a free one and says which)\n",
				host);
		else if (e == EACCES)
			fprintf(stderr, "hint: ports below 1024 need root or CAP_NET_BIND_SERVICE\n");
		return 1;
	}

	struct stat_server *sv = cli_xcalloc(1, sizeof(*sv));
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char addr[INET6_ADDRSTRLEN] = "?";
	int bound = 0;
	sv->fd = fd;
	sv->deadline_ns = deadline_ms() * 1e6;
	for (int i = 0; i < MAX_CLIENTS; i++)
		sv->clients[i].fd = -1;
	if (getsockname(fd, (struct sockaddr *)&ss, &len) == 0) {
		if (ss.ss_family == AF_INET6) {
			struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
			inet_ntop(AF_INET6, &s6->sin6_addr, addr, sizeof(addr));
			bound = ntohs(s6->sin6_port);
		} else {
			struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
			inet_ntop(AF_INET, &s4->sin_addr, addr, sizeof(addr));
			bound = ntohs(s4->sin_port);
		}
	}
	snprintf(sv->where, sizeof(sv->where), ss.ss_family == AF_INET6 ? "[%s]:%d" : "%s:%d",
		 addr, bound);
	fprintf(stderr, "perfev stat: serving metrics at http://%s/metrics\n", sv->where);
	fflush(stderr);
	*out = sv;
	return 0;
}

static void client_close(struct client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->resp);
	c->fd = -1;
	c->state = CLIENT_FREE;
	c->resp = NULL;
	c->req_len = c->resp_len = c->resp_sent = 0;
}

/*
 * Ends c at once, dropping what is left of its answer: a reset (SO_LINGER
 * 0), not an orderly close. A client that does not read its answer in time
 * would otherwise leave the kernel an orphaned socket that holds up to a
 * send buffer of the answer (megabytes on loopback) and probes the
 * client's closed window for minutes, for each such client; and the
 * client, reading later, would see a cut answer end like a whole one.
 */
static void client_abort(struct client *c)
{
	struct linger now = {.l_onoff = 1, .l_linger = 0};

	if (c->fd >= 0)
		setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &now, sizeof(now));
	client_close(c);
}

/*
 * Whether c may give its slot to a new connection at now: it is done
 * (lingering), or nothing moved on it for EVICT_MS: no byte of its request
 * came, or its client took no byte of its answer.
 */
static bool evictable(const struct client *c, double now)
{
	return c->state == CLIENT_LINGERING ||
	       (c->state != CLIENT_FREE && now - c->active_ns >= EVICT_MS * 1e6);
}

/* Which evictable connection goes first: lingering, then reading, then writing ones. */
static int eviction_rank(enum client_state state)
{
	return state == CLIENT_LINGERING ? 0 : state == CLIENT_READING ? 1 : 2;
}

/* The slot a new connection takes at now: a free one, else the idlest evictable one; or NULL. */
static struct client *slot_for_new(const struct stat_server *sv, double now)
{
	const struct client *best = NULL;

	for (int i = 0; i < MAX_CLIENTS; i++) {
		const struct client *c = &sv->clients[i];
		if (c->state == CLIENT_FREE)
			return (struct client *)c;
		if (!evictable(c, now))
			continue;
		int rank = eviction_rank(c->state), best_rank = best ? eviction_rank(best->state) : 3;
		if (rank < best_rank || (rank == best_rank && c->active_ns < best->active_ns))
			best = c;
	}
	return (struct client *)best;
}

void stat_serve_close(struct stat_server *sv)
{
	if (!sv)
		return;
	for (int i = 0; i < MAX_CLIENTS; i++)
		client_close(&sv->clients[i]);
	close(sv->fd);
	free(sv->page.buf);
	free(sv->raw);
	free(sv->cells);
	free(sv->last);
	free(sv->key_pids);
	free(sv);
}

int stat_serve_pollfds(const struct stat_server *sv, struct pollfd *fds)
{
	int n = 0;

	if (!sv)
		return 0;
	fds[n].fd = sv->fd;
	/* No slot to give: new connections wait in the listen queue (see stat_serve_timeout_ms). */
	double now = stat_now_ns();
	fds[n++].events = now >= sv->paused_until_ns && slot_for_new(sv, now) ? POLLIN : 0;
	for (int i = 0; i < MAX_CLIENTS; i++) {
		const struct client *c = &sv->clients[i];
		fds[n].fd = c->fd; /* negative: poll ignores it */
		fds[n++].events = c->state == CLIENT_WRITING ? POLLOUT : POLLIN;
	}
	return n;
}

int stat_serve_max_pollfds(void)
{
	return 1 + MAX_CLIENTS;
}

/* ---- metric names and values -------------------------------------------- */

/* Whether the event counts nanoseconds (exported as seconds). */
static bool counts_time(const struct stat_event *ev)
{
	return ev->tool != STAT_TOOL_NONE || ev->cls == STAT_CLASS_TASK_CLOCK ||
	       ev->cls == STAT_CLASS_CPU_CLOCK;
}

/*
 * The metric family of an event: "perfev_" and its name with every run of
 * characters a metric name cannot hold made one '_', then "_seconds" for
 * time. The name a counter's samples carry adds "_total".
 */
static void family_name(const struct stat_event *ev, char *out, size_t size)
{
	size_t n = (size_t)snprintf(out, size, "perfev_");
	bool under = true;

	for (const char *p = ev->name; *p && n + 1 < size; p++) {
		char ch = *p;
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			  (ch >= '0' && ch <= '9');
		if (ok) {
			out[n++] = ch;
			under = false;
		} else if (!under) {
			out[n++] = '_';
			under = true;
		}
	}
	while (n > 0 && out[n - 1] == '_')
		n--;
	out[n] = '\0';
	if (counts_time(ev))
		snprintf(out + n, size - n, "_seconds");
}

/*
 * A label value with '\', '"' and newlines escaped, as the format wants;
 * it wants UTF-8 too: a byte that is not becomes U+FFFD (a comm may hold any).
 */
static void add_label_value(struct text *t, const char *v)
{
	while (*v) {
		int len = pev_text_utf8_char(v);

		if (!len)
			text_add(t, "\xef\xbf\xbd");
		else if (*v == '\\' || *v == '"')
			text_add(t, "\\%c", *v);
		else if (*v == '\n')
			text_add(t, "\\n");
		else
			text_add(t, "%.*s", len, v);
		v += len ? len : 1;
	}
}

/*
 * An event's cgroup labels: cgroup="NAME" as given, and container_id where
 * the cgroup's path is a container runtime's (Docker, containerd, CRI-O,
 * Podman): what joins the counts to a fleet's other data on the container.
 */
static void add_cgroup_labels(struct text *t, const struct stat_event *ev)
{
	char id[65];

	if (!ev->cgroup)
		return;
	text_add(t, ",cgroup=\"");
	add_label_value(t, ev->cgroup);
	text_add(t, "\"");
	if (pev_cgroup_container_id(ev->cgroup_dir, id, sizeof(id)) == 1)
		text_add(t, ",container_id=\"%s\"", id);
}

/* The labels of event e at key k: {event="...",cpu="..."} and so on. */
static void add_labels(struct text *t, const struct stat_server *sv, const struct stat_state *s,
		       int e, int k)
{
	const struct stat_key *key = &s->keys[k];

	text_add(t, "{event=\"");
	add_label_value(t, s->events[e].name);
	text_add(t, "\"");
	add_cgroup_labels(t, &s->events[e]);
	if (key->cpu >= 0)
		text_add(t, ",cpu=\"%d\"", key->cpu);
	if (key->tid >= 0) {
		if (sv->key_pids[k] > 0)
			text_add(t, ",pid=\"%d\"", (int)sv->key_pids[k]);
		text_add(t, ",tid=\"%d\",comm=\"", (int)key->tid);
		add_label_value(t, key->comm);
		text_add(t, "\"");
	}
	text_add(t, "}");
}

/* A value as the format writes a float: integers without a fraction. */
static void add_value(struct text *t, double v)
{
	if (v == (double)(long long)v && v < 9e15)
		text_add(t, " %lld\n", (long long)v);
	else
		text_add(t, " %.9g\n", v);
}

/* What one series of an event shows. */
enum series {
	SERIES_COUNT,   /* the scaled count */
	SERIES_ENABLED, /* seconds enabled */
	SERIES_RUNNING, /* seconds running */
	SERIES_NR
};

/* The value series `which` exports for cell i: never lower than the last one. */
static double monotonic(struct stat_server *sv, size_t i, enum series which, double v)
{
	double *last = &sv->last[i * SERIES_NR + which];

	if (v < *last)
		v = *last;
	*last = v;
	return v;
}

/* One counter family: HELP, TYPE, and a sample per counted cell of each event in it. */
static void add_family(struct stat_server *sv, const struct stat_state *s, bool om,
		       const char *family, const char *help, enum series which, const bool *in)
{
	struct text *t = &sv->page;

	text_add(t, "# HELP %s%s %s\n", family, om ? "" : "_total", help);
	text_add(t, "# TYPE %s%s counter\n", family, om ? "" : "_total");
	for (int e = 0; e < s->nevents; e++) {
		if (!in[e])
			continue;
		for (int k = 0; k < s->nkeys; k++) {
			size_t i = (size_t)e * (size_t)s->nkeys + (size_t)k;
			const struct stat_cell *c = &sv->cells[i];
			double v;
			if (c->state != STAT_CELL_COUNTED)
				continue; /* <not counted> is no sample, never a 0 */
			if (which == SERIES_COUNT)
				v = counts_time(&s->events[e]) ? c->value / 1e9 : c->value;
			else
				v = (which == SERIES_ENABLED ? c->enabled : c->running) / 1e9;
			text_add(t, "%s_total", family);
			add_labels(t, sv, s, e, k);
			add_value(t, monotonic(sv, i, which, v));
		}
	}
}

/* Reads every counter and writes the page into sv->page. */
static void make_page(struct stat_server *sv, struct stat_state *s, bool om)
{
	size_t ncells = (size_t)s->nevents * (size_t)s->nkeys;
	struct text *t = &sv->page;
	char family[256], other[256], help[512];

	if (!sv->raw || sv->ncells != ncells) {
		free(sv->raw);
		free(sv->cells);
		free(sv->last);
		free(sv->key_pids);
		sv->raw = cli_xcalloc(ncells ? ncells : 1, sizeof(*sv->raw));
		sv->cells = cli_xcalloc(ncells ? ncells : 1, sizeof(*sv->cells));
		sv->last = cli_xcalloc((ncells ? ncells : 1) * SERIES_NR, sizeof(*sv->last));
		sv->key_pids = cli_xcalloc(s->nkeys ? (size_t)s->nkeys : 1, sizeof(pid_t));
		for (int k = 0; k < s->nkeys; k++)
			if (s->keys[k].tid >= 0)
				sv->key_pids[k] = cli_tgid_of(s->keys[k].tid);
		sv->ncells = ncells;
	}
	stat_read_all(s, sv->raw);
	stat_make_cells(s, sv->raw, NULL, sv->cells);

	bool *in = cli_xcalloc(s->nevents ? (size_t)s->nevents : 1, sizeof(bool));
	bool *done = cli_xcalloc(s->nevents ? (size_t)s->nevents : 1, sizeof(bool));
	t->len = 0;
	/* One family per event name; events whose names meet in one family share it. */
	for (int e = 0; e < s->nevents; e++) {
		if (done[e])
			continue;
		bool open = false;
		family_name(&s->events[e], family, sizeof(family));
		for (int f = 0; f < s->nevents; f++) {
			family_name(&s->events[f], other, sizeof(other));
			in[f] = !done[f] && strcmp(family, other) == 0;
			done[f] = done[f] || in[f];
			open = open || (in[f] && s->events[f].open == STAT_OPEN_OK);
		}
		if (!open)
			continue; /* perfev_event_counting says why it has no family */
		snprintf(help, sizeof(help), "%s counted by perf_event_open%s, scaled for multiplexing.",
			 s->events[e].name, counts_time(&s->events[e]) ? ", in seconds" : "");
		add_family(sv, s, om, family, help, SERIES_COUNT, in);
	}
	for (int e = 0; e < s->nevents; e++)
		in[e] = s->events[e].tool == STAT_TOOL_NONE;
	add_family(sv, s, om, "perfev_event_enabled_seconds",
		   "Time each event's counters were enabled.", SERIES_ENABLED, in);
	add_family(sv, s, om, "perfev_event_running_seconds",
		   "Time each event's counters ran on the PMU (less than enabled when multiplexed).",
		   SERIES_RUNNING, in);

	/* Whether each event is counting here, so a missing series has its reason. */
	text_add(t, "# HELP perfev_event_counting 1 while the event counts; 0 when it could not "
		    "be opened (see perfev's notes).\n");
	text_add(t, "# TYPE perfev_event_counting gauge\n");
	for (int e = 0; e < s->nevents; e++) {
		text_add(t, "perfev_event_counting{event=\"");
		add_label_value(t, s->events[e].name);
		text_add(t, "\"");
		add_cgroup_labels(t, &s->events[e]);
		text_add(t, "} %d\n", s->events[e].open == STAT_OPEN_OK);
	}
	text_add(t, "# HELP perfev_scrapes%s Scrapes answered, this one included.\n",
		 om ? "" : "_total");
	text_add(t, "# TYPE perfev_scrapes%s counter\n", om ? "" : "_total");
	text_add(t, "perfev_scrapes_total %lu\n", ++sv->scrapes);
	if (om)
		text_add(t, "# EOF\n");
	free(in);
	free(done);
}

/* ---- HTTP ------------------------------------------------------------------ */

/* Sets c's response: a status line, headers, and body (body_len bytes). */
static void respond(struct client *c, const char *status, const char *type, const char *body,
		    size_t body_len, bool head)
{
	struct text t = {0};

	text_add(&t,
		 "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
		 "Cache-Control: no-store\r\nConnection: close\r\n\r\n",
		 status, type, body_len);
	if (!head) {
		if (t.cap - t.len < body_len + 1) {
			char *b = realloc(t.buf, t.len + body_len + 1);
			if (!b)
				abort();
			t.buf = b;
			t.cap = t.len + body_len + 1;
		}
		memcpy(t.buf + t.len, body, body_len);
		t.len += body_len;
	}
	free(c->resp);
	c->resp = t.buf;
	c->resp_len = t.len;
	c->resp_sent = 0;
}

static void respond_text(struct client *c, const char *status, const char *body)
{
	respond(c, status, "text/plain; charset=utf-8", body, strlen(body), false);
}

/* The reason phrase of the statuses the parser refuses with. */
static const char *status_line(int status)
{
	switch (status) {
	case 414:
		return "414 URI Too Long";
	case 431:
		return "431 Request Header Fields Too Large";
	case 505:
		return "505 HTTP Version Not Supported";
	default:
		return "400 Bad Request";
	}
}

/* Answers c's whole request, req. */
static void answer(struct stat_server *sv, struct stat_state *s, struct client *c,
		   const struct http_request *req)
{
	bool head = strcmp(req->method, "HEAD") == 0;

	if (!head && strcmp(req->method, "GET") != 0)
		respond_text(c, "405 Method Not Allowed", "perfev: only GET and HEAD are served\n");
	else if (strcmp(req->path, "/") == 0)
		respond(c, "200 OK", "text/plain; charset=utf-8",
			"perfev stat: the counts are at /metrics\n",
			strlen("perfev stat: the counts are at /metrics\n"), head);
	else if (strcmp(req->path, "/metrics") != 0)
		respond_text(c, "404 Not Found", "perfev: no such page; the counts are at /metrics\n");
	else {
		make_page(sv, s, req->openmetrics);
		respond(c, "200 OK",
			req->openmetrics
			    ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
			    : "text/plain; version=0.0.4; charset=utf-8",
			sv->page.buf, sv->page.len, head);
	}
}

/*
 * c's answer is set: it has the response deadline to go out, counted from
 * now, when the answer is ready. Not from the start of the poll round:
 * building pages for the connections before c (a big page takes a while
 * each) would eat into c's time.
 */
static void start_writing(struct stat_server *sv, struct client *c)
{
	c->state = CLIENT_WRITING;
	c->active_ns = stat_now_ns();
	c->deadline_ns = c->active_ns + sv->deadline_ns;
}

/*
 * The answer is out: no more writes, and what the client still sends is
 * read and dropped for a moment (closing with unread bytes would reset
 * the connection, and the client could lose the answer).
 */
static void start_lingering(struct stat_server *sv, struct client *c)
{
	double now = stat_now_ns();

	free(c->resp);
	c->resp = NULL;
	shutdown(c->fd, SHUT_WR);
	c->state = CLIENT_LINGERING;
	c->deadline_ns = now + (sv->deadline_ns < LINGER_MS * 1e6 ? sv->deadline_ns : LINGER_MS * 1e6);
}

/* Sends what is left of c's response; lingers when all is sent. */
static void client_write(struct stat_server *sv, struct client *c)
{
	while (c->resp_sent < c->resp_len) {
		ssize_t n = send(c->fd, c->resp + c->resp_sent, c->resp_len - c->resp_sent,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			client_close(c);
			return;
		}
		c->resp_sent += (size_t)n;
		c->active_ns = stat_now_ns();
	}
	start_lingering(sv, c);
}

/*
 * Whether the n bytes just read may change what the parser says: a line
 * ended, or a byte no request may hold came.
 */
static bool worth_parsing(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)p[i];
		if (ch == '\n' || (ch < ' ' && ch != '\r' && ch != '\t') || ch == 0x7f)
			return true;
	}
	return false;
}

/* Reads what c sent; answers once the request is whole, or refused. */
static void client_read(struct stat_server *sv, struct stat_state *s, struct client *c, double now)
{
	ssize_t n = recv(c->fd, c->req + c->req_len, sizeof(c->req) - c->req_len, MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (n <= 0) {
		client_close(c); /* gone before its request was whole */
		return;
	}
	c->active_ns = now;
	c->req_len += (size_t)n;
	if (!worth_parsing(c->req + c->req_len - (size_t)n, (size_t)n) &&
	    c->req_len < sizeof(c->req))
		return;

	struct http_request req;
	http_request_parse(c->req, c->req_len, sizeof(c->req), &req);
	if (req.state == HTTP_INCOMPLETE)
		return;
	if (req.state == HTTP_BAD)
		respond_text(c, status_line(req.status), req.why);
	else
		answer(sv, s, c, &req);
	start_writing(sv, c);
	client_write(sv, c);
}

/* Reads and drops what a lingering client sends; closes at its end. */
static void client_drain(struct client *c)
{
	char sink[4096];

	for (int i = 0; i < 16; i++) {
		ssize_t n = recv(c->fd, sink, sizeof(sink), MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0)
			break;
	}
	client_close(c);
}

/* c's time in its state is up. */
static void client_expire(struct stat_server *sv, struct client *c)
{
	if (c->state == CLIENT_READING) {
		/* One try at saying why, never waiting for it. */
		respond_text(c, "408 Request Timeout",
			     "perfev: the request did not arrive whole in time\n");
		start_writing(sv, c);
		client_write(sv, c);
		if (c->state == CLIENT_LINGERING || c->state == CLIENT_FREE)
			return;
	}
	if (c->state == CLIENT_WRITING)
		client_abort(c); /* its answer did not go out in time: cut off, not queued */
	else
		client_close(c);
}

/* Accepts waiting connections, at most MAX_CLIENTS a round, evicting the idlest when full. */
static void accept_some(struct stat_server *sv, struct stat_state *s)
{
	for (int round = 0; round < MAX_CLIENTS; round++) {
		/* Each connection's clock starts at its own accept: answering the ones before takes time. */
		double now = stat_now_ns();
		struct client *c = slot_for_new(sv, now);
		if (!c)
			return; /* no slot to give: the rest wait in the listen queue */
		int fd = accept4(sv->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0) {
			/* The listen socket stays readable: polling it now would spin. */
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
				sv->paused_until_ns = now + PAUSE_MS * 1e6;
			return;
		}
		if (c->state == CLIENT_WRITING)
			client_abort(c); /* a client that took nothing of its answer for EVICT_MS */
		else if (c->state != CLIENT_FREE)
			client_close(c); /* done, or the idlest without a whole request */
		c->fd = fd;
		c->state = CLIENT_READING;
		c->active_ns = now;
		c->deadline_ns = now + sv->deadline_ns;
		c->req_len = 0;
		client_read(sv, s, c, now); /* a scraper's request is often there already */
	}
}

void stat_serve_handle(struct stat_server *sv, struct stat_state *s, const struct pollfd *fds)
{
	if (!sv)
		return;
	double now = stat_now_ns();
	for (int i = 0; fds && i < MAX_CLIENTS; i++) {
		struct client *c = &sv->clients[i];
		short rev = fds[1 + i].revents;
		if (c->fd < 0 || fds[1 + i].fd != c->fd || !rev)
			continue;
		if (c->state == CLIENT_WRITING)
			client_write(sv, c);
		else if (c->state == CLIENT_READING)
			client_read(sv, s, c, now);
		else if (c->state == CLIENT_LINGERING)
			client_drain(c);
	}
	now = stat_now_ns();
	for (int i = 0; i < MAX_CLIENTS; i++) {
		struct client *c = &sv->clients[i];
		if (c->state != CLIENT_FREE && now >= c->deadline_ns)
			client_expire(sv, c);
	}
	if (fds && (fds[0].revents & POLLIN))
		accept_some(sv, s);
}

int stat_serve_timeout_ms(const struct stat_server *sv)
{
	double nearest = -1, now = stat_now_ns();

	if (!sv)
		return -1;
	bool full = !slot_for_new(sv, now);
	if (now < sv->paused_until_ns)
		nearest = sv->paused_until_ns;
	for (int i = 0; i < MAX_CLIENTS; i++) {
		const struct client *c = &sv->clients[i];
		double when = c->deadline_ns;
		if (c->state == CLIENT_FREE)
			continue;
		/* Full, the listen socket is not polled: wake when a slot can be given. */
		if (full && c->state != CLIENT_LINGERING && c->active_ns + EVICT_MS * 1e6 < when)
			when = c->active_ns + EVICT_MS * 1e6;
		if (nearest < 0 || when < nearest)
			nearest = when;
	}
	if (nearest < 0)
		return -1;
	if (nearest <= now)
		return 0;
	return (int)((nearest - now) / 1e6) + 1; /* rounded up: never woken before it */
}
