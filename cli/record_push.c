/* SPDX-License-Identifier: MIT */
/*
 * record_push.c - `perfev record --rotate SECS -o DIR/ --push URL`: a
 * sender thread sends the finished windows of DIR, oldest first, to a
 * profile store (see record_push.h; docs/FLEET.md).
 *
 * The directory is the queue (push_queue.c) and the sender is its only
 * consumer: the recorder renames a finished window into DIR and wakes the
 * sender (rec_push_notify), which scans DIR, drops the oldest windows past
 * --push-queue, and sends the oldest. A window is deleted once the store
 * answered 2xx. A failure that may pass (no connection, a timeout, 408,
 * 429, 5xx) keeps it at the head of the queue and is retried after 1 s,
 * then 2, 4 ... up to 60 s, each wait drawn between half and all of that
 * (jitter, so that a fleet does not come back at once); any other answer
 * (a 4xx, a redirect) refuses that window for good: it is renamed
 * NAME.rejected and the next one goes. The recorder never waits for the
 * sender: it only takes a mutex to set a flag.
 *
 * Request, Pyroscope (the default): POST BASE/ingest?name=APP{k=v,...}
 * &from=S&until=S&format=pprof|folded&spyName=perfev (folded adds
 * units=samples, aggregationType=sum and sampleRate=-F); OTLP: POST URL
 * (path .../v1development/profiles). Every request carries the window's
 * file name in the header X-Perfev-Window.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "http_client.h"
#include "push_format.h"
#include "push_queue.h"
#include "record.h"

#define BACKOFF_FIRST_S 1.0  /* the first retry's wait */
#define BACKOFF_MAX_S   60.0 /* the longest wait between retries */
#define MAX_QUEUE       100000
#define MAX_TIMEOUT_S   3600.0
#define NAME_PARAM_MAX  4096 /* APP{labels} */

/* What the sender thread and the recorder share (under lock) and what the sender owns. */
struct rec_push {
	/* Set before the thread starts, read-only after. */
	char dir[PATH_MAX];
	struct http_url url;
	const struct push_format *format;
	char name[NAME_PARAM_MAX]; /* APP{k=v,...}, not encoded */
	char base[HTTP_PATH_MAX];  /* Pyroscope: the URL's path without a trailing '/' nor /ingest */
	uint64_t freq;             /* -F: the folded format's sampleRate (0: -c) */
	size_t queue_max;
	int timeout_ms;
	bool quiet;
	int dir_fd; /* DIR, flock'ed: one sender per directory */
	bool sync_ready; /* lock and cond initialized */

	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t cond; /* on CLOCK_MONOTONIC */
	/* Under lock. */
	bool wake;       /* a window was completed since the sender last looked */
	bool finishing;  /* the recording ended: send what is left until deadline */
	bool stop;       /* stop now */
	bool exited;     /* the sender's loop has ended */
	double deadline; /* finishing: CLOCK_MONOTONIC ms */
	double next_try; /* a retry's time (ms), or 0 */

	/* The sender's figures (read by the recorder once the thread is joined). */
	unsigned long sent, retries, dropped, rejected;

	bool failing;         /* the last attempt failed (said once per run of failures) */
	bool broken;          /* the format cannot be made here: nothing more is sent */
	unsigned int seed;    /* jitter */
	double backoff_s;     /* the last wait (0: none) */
};

/* ---- options --------------------------------------------------------------------------- */

static int bad_push_value(const char *opt, const char *needs, const char *got)
{
	cli_error("option '%s' needs %s, got '%s'", opt, needs, got);
	return 129;
}

/* Pyroscope's characters of a label name (and, with '-' and '/', of an application name). */
static bool label_name_char(char c, bool app)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || (app && (c == '-' || c == '/'));
}

/* Checks an application name; NULL when fine, else what is wrong. */
static const char *app_name_problem(const char *name)
{
	if (!*name)
		return "an empty name";
	for (const char *p = name; *p; p++)
		if (!label_name_char(*p, true))
			return "a character other than letters, digits and _ . - /";
	return NULL;
}

/* Checks KEY=VALUE; NULL when fine, else what is wrong. */
static const char *label_problem(const char *kv)
{
	const char *eq = strchr(kv, '=');

	if (!eq || eq == kv)
		return "no KEY= (KEY=VALUE)";
	for (const char *p = kv; p < eq; p++)
		if (!label_name_char(*p, false))
			return "a KEY with a character other than letters, digits, _ and .";
	if (eq - kv == 8 && strncmp(kv, "__name__", 8) == 0)
		return "the KEY __name__, which Pyroscope keeps for the application name "
		       "(--push-name)";
	const char *v = eq + 1;
	if (!*v)
		return "an empty VALUE (Pyroscope drops a label without one)";
	if (*v == ' ' || v[strlen(v) - 1] == ' ')
		return "a VALUE that starts or ends with a space (Pyroscope trims them)";
	for (const char *p = v; *p; p++) {
		if (*p == ',' || *p == '{' || *p == '}')
			return "a VALUE with ',', '{' or '}' (Pyroscope's name syntax has no escape "
			       "for them)";
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return "a VALUE with a control character";
	}
	return NULL;
}

int rec_push_option(struct rec_push_opts *o, int opt, const char *arg)
{
	const char *why;
	long v;

	switch (opt) {
	case REC_OPT_PUSH:
		o->url = arg;
		return 0;
	case REC_OPT_PUSH_FORMAT:
		if (!push_format_find(arg))
			return bad_push_value("--push-format", push_format_names(), arg);
		o->format = arg;
		return 0;
	case REC_OPT_PUSH_NAME:
		if ((why = app_name_problem(arg))) {
			cli_error("option '--push-name' needs a Pyroscope application name (letters, "
				  "digits and _ . - /), got '%s': %s",
				  cli_shown(arg), why);
			return 129;
		}
		o->name = arg;
		return 0;
	case REC_OPT_PUSH_LABEL:
		if ((why = label_problem(arg))) {
			cli_error("option '--push-label' needs KEY=VALUE (KEY: letters, digits, _ and "
				  ".), got '%s': %s",
				  cli_shown(arg), why);
			return 129;
		}
		if (o->nlabels == REC_PUSH_MAX_LABELS) {
			cli_error("too many --push-label options (at most %d)", REC_PUSH_MAX_LABELS);
			return 129;
		}
		o->labels[o->nlabels++] = arg;
		return 0;
	case REC_OPT_PUSH_QUEUE:
		if (!cli_parse_long(arg, "", 1, MAX_QUEUE, &v))
			return bad_push_value("--push-queue", "a number of windows from 1 to 100000",
					      arg);
		o->queue = v;
		return 0;
	case REC_OPT_PUSH_TIMEOUT:
		if (!cli_parse_double(arg, 0.1, MAX_TIMEOUT_S, &o->timeout_s))
			return bad_push_value("--push-timeout", "a number of seconds from 0.1 to 3600",
					      arg);
		return 0;
	}
	return 129;
}

/* The format o asks for, or the URL's default. */
static const struct push_format *chosen_format(const struct rec_push_opts *o,
					       const struct http_url *url)
{
	if (o->format)
		return push_format_find(o->format);
	return push_format_find(push_path_is_otlp(url->path) ? "otlp" : "pprof");
}

int rec_push_check(const struct rec_config *cfg)
{
	const struct rec_push_opts *o = &cfg->push;
	struct http_url url;
	char why[256];

	if (!o->url) {
		if (o->format || o->name || o->nlabels || o->queue || o->timeout_s) {
			cli_error("options '--push-format', '--push-name', '--push-label', "
				  "'--push-queue' and '--push-timeout' set how --push sends; give "
				  "--push URL too");
			return 129;
		}
		return 0;
	}
	if (!cfg->rotate_s) {
		cli_error("option '--push' sends the windows of --rotate: give --rotate SECONDS -o "
			  "DIR/ too (e.g. --rotate 10 -o /var/lib/perfev/windows/ --push %s)",
			  cli_shown(o->url));
		return 129;
	}
	if (!http_url_parse(o->url, &url, why, sizeof(why))) {
		cli_error("option '--push': '%s': %s", cli_shown(o->url), why);
		return 129;
	}
	const struct push_format *f = chosen_format(o, &url);
	if (!f->write) {
		cli_error("option '--push%s': this perfev was built without the %s writer; send to "
			  "Pyroscope (http://HOST:4040) in pprof or folded instead",
			  o->format ? "-format" : "", f->name);
		return 129;
	}
	if (f->pyroscope && strchr(url.path, '?')) {
		cli_error("option '--push': '%s': a Pyroscope URL names the server "
			  "(http://HOST:4040[/PREFIX]); perfev adds /ingest and its query itself",
			  cli_shown(o->url));
		return 129;
	}
	if (!f->pyroscope && (o->name || o->nlabels)) {
		cli_error("options '--push-name' and '--push-label' name a Pyroscope application; "
			  "the %s format carries neither",
			  f->name);
		return 129;
	}
	if (cfg->rotate_pprof && strcmp(f->name, "pprof") != 0) {
		cli_error("options '--format pprof' and '--push-format %s' cannot be used together: "
			  "a pprof window is sent as it is; keep the windows in perf.data "
			  "(--format perf) to send %s",
			  f->name, f->name);
		return 129;
	}
	return 0;
}

/* ---- requests ---------------------------------------------------------------------------- */

/* Appends s percent-encoded (all but RFC 3986's unreserved characters) at *p, up to end. */
static void put_encoded(char **p, char *end, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s && *p + 4 < end; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '.' || c == '_' || c == '~') {
			*(*p)++ = (char)c;
		} else {
			*(*p)++ = '%';
			*(*p)++ = hex[c >> 4];
			*(*p)++ = hex[c & 15];
		}
	}
	**p = '\0';
}

/* The request target for window w into buf (size bytes). */
static void request_target(const struct rec_push *ps, const struct push_window *w, char *buf,
			   size_t size)
{
	if (!ps->format->pyroscope) {
		snprintf(buf, size, "%s", ps->url.path);
		return;
	}
	uint64_t from = w->start_ns / 1000000000u;
	uint64_t until = (w->end_ns + 999999999u) / 1000000000u;
	if (until <= from)
		until = from + 1;
	char *p = buf, *end = buf + size;
	p += snprintf(p, size, "%s/ingest?name=", ps->base);
	put_encoded(&p, end, ps->name);
	p += snprintf(p, (size_t)(end - p), "&from=%" PRIu64 "&until=%" PRIu64
			  "&format=%s&spyName=perfev",
		      from, until, ps->format->pyroscope);
	if (strcmp(ps->format->name, "folded") == 0) {
		p += snprintf(p, (size_t)(end - p), "&units=samples&aggregationType=sum");
		if (ps->freq)
			snprintf(p, (size_t)(end - p), "&sampleRate=%" PRIu64, ps->freq);
	}
}

/* text as one line of printable ASCII (other bytes as '?'), at most max bytes, into out. */
static void excerpt_line(const char *text, char *out, size_t max)
{
	size_t n = 0;

	for (; *text && n + 4 < max; text++)
		out[n++] = (*text >= 0x20 && *text < 0x7f) ? *text : (*text == '\n' ? ' ' : '?');
	if (*text)
		out[n++] = '.', out[n++] = '.', out[n++] = '.';
	while (n && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
}

/* What sending one window came to. */
enum sent_result { SENT, RETRY, REJECTED, BROKEN };

/* Sends window w; why (size bytes) says what happened when it is not SENT. */
static enum sent_result send_window(struct rec_push *ps, const struct push_window *w,
				    int timeout_ms, char *why, size_t size)
{
	char path[PATH_MAX + NAME_MAX + 2], target[HTTP_PATH_MAX * 4 + NAME_PARAM_MAX * 3];
	char header[NAME_MAX + 64], reason[256];
	struct http_reply reply;
	char *body;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", ps->dir, w->name);
	switch (push_encode(ps->format, path, w->pprof, w->start_ns, w->end_ns, &body, &len, reason,
			    sizeof(reason))) {
	case PUSH_ENCODED:
		break;
	case PUSH_UNREADABLE:
		snprintf(why, size, "%s", reason);
		return REJECTED;
	case PUSH_UNSUPPORTED:
		snprintf(why, size, "%s", reason);
		return BROKEN;
	}
	request_target(ps, w, target, sizeof(target));
	snprintf(header, sizeof(header), "X-Perfev-Window: %s", w->name);
	struct http_post req = {
	    .url = &ps->url,
	    .target = target,
	    .content_type = ps->format->content_type,
	    .extra_header = header,
	    .body = body,
	    .len = len,
	    .timeout_ms = timeout_ms,
	};
	http_post(&req, &reply);
	free(body);
	if (reply.outcome != HTTP_ANSWERED) {
		snprintf(why, size, "%s", reply.why);
		return RETRY;
	}
	if (reply.status >= 200 && reply.status < 300)
		return SENT;
	char text[200];
	excerpt_line(reply.excerpt, text, sizeof(text));
	snprintf(why, size, "the store answered %d%s%s%s", reply.status, text[0] ? " (\"" : "", text,
		 text[0] ? "\")" : "");
	if (reply.status == 408 || reply.status == 429 || reply.status >= 500)
		return RETRY;
	if (reply.status >= 300 && reply.status < 400)
		snprintf(why + strlen(why), size - strlen(why),
			 "; perfev does not follow redirects: give --push the URL it points to");
	return REJECTED;
}

/* ---- the sender ---------------------------------------------------------------------------- */

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Waits (lock held) for a wake-up, a stop, or until the CLOCK_MONOTONIC time until_ms (0: none). */
static void wait_until(struct rec_push *ps, double until_ms)
{
	if (until_ms <= 0) {
		pthread_cond_wait(&ps->cond, &ps->lock);
		return;
	}
	struct timespec ts = {.tv_sec = (time_t)(until_ms / 1e3)};
	ts.tv_nsec = (long)((until_ms - (double)ts.tv_sec * 1e3) * 1e6);
	if (ts.tv_nsec >= 1000000000L)
		ts.tv_sec++, ts.tv_nsec -= 1000000000L;
	pthread_cond_timedwait(&ps->cond, &ps->lock, &ts);
}

/* Drops the oldest windows past the bound (the sender's lock not held). */
static void enforce_bound(struct rec_push *ps, struct push_window *list, size_t *n, size_t *first)
{
	while (*n - *first > ps->queue_max) {
		const char *name = list[*first].name;
		if (unlinkat(ps->dir_fd, name, 0) == 0 || errno == ENOENT) {
			ps->dropped++;
			cli_warning("--push: more than %zu windows wait in '%s' (the store cannot be "
				    "reached): dropped the oldest, %s, unsent (%lu dropped so far; "
				    "--push-queue sets the bound)",
				    ps->queue_max, ps->dir, name, ps->dropped);
		} else {
			cli_warning("--push: cannot remove '%s/%s' to keep the queue's bound: %s",
				    ps->dir, name, strerror(errno));
		}
		(*first)++;
	}
}

/* Sets window w aside as NAME.rejected, saying why. */
static void reject(struct rec_push *ps, const struct push_window *w, const char *why)
{
	char aside[NAME_MAX + 16];

	snprintf(aside, sizeof(aside), "%s.rejected", w->name);
	ps->rejected++;
	if (renameat(ps->dir_fd, w->name, ps->dir_fd, aside) == 0) {
		cli_warning("--push: the window %s/%s was not accepted: %s; kept as %s, not sent "
			    "again",
			    ps->dir, w->name, why, aside);
		return;
	}
	cli_warning("--push: the window %s/%s was not accepted: %s; it cannot be renamed (%s): "
		    "removed",
		    ps->dir, w->name, why, strerror(errno));
	unlinkat(ps->dir_fd, w->name, 0);
}

/* Sets the next retry's time after a failure: 1 s, doubling to 60 s, with jitter. */
static void schedule_retry(struct rec_push *ps)
{
	ps->backoff_s = ps->backoff_s ? ps->backoff_s * 2 : BACKOFF_FIRST_S;
	if (ps->backoff_s > BACKOFF_MAX_S)
		ps->backoff_s = BACKOFF_MAX_S;
	double share = 0.5 + 0.5 * ((double)rand_r(&ps->seed) / RAND_MAX);
	ps->next_try = mono_ms() + ps->backoff_s * share * 1e3;
}

/* Sends the oldest window of DIR, and the next, until stopped. */
static void *sender(void *arg)
{
	struct rec_push *ps = arg;
	char why[1024];

	pthread_mutex_lock(&ps->lock);
	while (!ps->stop && !ps->broken) {
		ps->wake = false; /* what is completed from now on, the scan may miss: look again */
		pthread_mutex_unlock(&ps->lock);
		struct push_window *list;
		size_t n, first = 0;
		if (push_queue_scan(ps->dir, &list, &n) != 0) {
			cli_warning("--push: cannot read the directory '%s': %s; nothing more is sent",
				    ps->dir, strerror(errno));
			pthread_mutex_lock(&ps->lock);
			break;
		}
		enforce_bound(ps, list, &n, &first);
		pthread_mutex_lock(&ps->lock);
		double now = mono_ms();
		bool out_of_time = ps->finishing && now >= ps->deadline;
		if (ps->stop || out_of_time || (first == n && ps->finishing)) {
			free(list);
			break;
		}
		if (first == n || now < ps->next_try) {
			/* Nothing to send, or a retry's time not come: wait for a window or that time. */
			double until = first == n ? 0 : ps->next_try;
			if (ps->finishing && (until <= 0 || until > ps->deadline))
				until = ps->deadline;
			if (!ps->wake && !ps->stop)
				wait_until(ps, until);
			free(list);
			continue;
		}
		int timeout = ps->timeout_ms;
		if (ps->finishing && ps->deadline - now < timeout)
			timeout = (int)(ps->deadline - now) + 1;
		pthread_mutex_unlock(&ps->lock);

		const struct push_window *w = &list[first];
		enum sent_result r = send_window(ps, w, timeout, why, sizeof(why));
		switch (r) {
		case SENT:
			if (unlinkat(ps->dir_fd, w->name, 0) != 0 && errno != ENOENT)
				cli_warning("--push: sent %s/%s but cannot remove it (%s): it will be "
					    "sent again",
					    ps->dir, w->name, strerror(errno));
			ps->sent++;
			if (ps->failing)
				cli_warning("--push: the store at %s takes windows again", ps->url.host);
			ps->failing = false;
			break;
		case RETRY:
			ps->retries++;
			if (!ps->failing)
				cli_warning("--push: cannot send %s/%s: %s; the windows wait in '%s' "
					    "and are retried (1 s, then longer, up to 60 s)",
					    ps->dir, w->name, why, ps->dir);
			ps->failing = true;
			break;
		case REJECTED:
			reject(ps, w, why);
			break;
		case BROKEN:
			cli_warning("--push: cannot make the %s of %s/%s: %s; nothing more is sent "
				    "(the windows stay in '%s')",
				    ps->format->name, ps->dir, w->name, why, ps->dir);
			break;
		}
		free(list);
		pthread_mutex_lock(&ps->lock);
		if (r == RETRY) {
			schedule_retry(ps);
		} else {
			ps->next_try = 0;
			ps->backoff_s = 0;
		}
		if (r == BROKEN)
			ps->broken = true;
	}
	ps->exited = true;
	pthread_mutex_unlock(&ps->lock);
	return NULL;
}

/* ---- the recorder's side ------------------------------------------------------------------ */

/* The command's file name made an application name (other characters as '_'), or "perfev". */
static void default_app_name(const struct rec_config *cfg, char *out, size_t size)
{
	const char *base = cfg->argv ? strrchr(cfg->argv[0], '/') : NULL;
	size_t n = 0;

	base = cfg->argv ? (base ? base + 1 : cfg->argv[0]) : "";
	for (; *base && n + 1 < size; base++)
		out[n++] = label_name_char(*base, false) || *base == '-' ? *base : '_';
	out[n] = '\0';
	if (!n)
		snprintf(out, size, "perfev");
}

int rec_push_begin(struct rec_state *s)
{
	const struct rec_config *cfg = &s->cfg;
	const struct rec_push_opts *o = &cfg->push;
	struct rec_push *ps;
	char why[256];

	if (!o->url)
		return 0;
	ps = cli_xcalloc(1, sizeof(*ps));
	ps->dir_fd = -1;
	s->push = ps;
	snprintf(ps->dir, sizeof(ps->dir), "%s", cfg->rotate_dir);
	size_t dn = strlen(ps->dir);
	while (dn > 1 && ps->dir[dn - 1] == '/')
		ps->dir[--dn] = '\0';
	if (!http_url_parse(o->url, &ps->url, why, sizeof(why))) { /* checked before: cannot fail */
		cli_error("option '--push': %s", why);
		return 1;
	}
	ps->format = chosen_format(o, &ps->url);
	snprintf(ps->base, sizeof(ps->base), "%s", ps->url.path);
	size_t bn = strlen(ps->base);
	while (bn && ps->base[bn - 1] == '/')
		ps->base[--bn] = '\0';
	if (bn >= 7 && strcmp(ps->base + bn - 7, "/ingest") == 0)
		ps->base[bn - 7] = '\0';
	if (o->name)
		snprintf(ps->name, sizeof(ps->name), "%s", o->name);
	else
		default_app_name(cfg, ps->name, sizeof(ps->name));
	if (o->nlabels) {
		size_t n = strlen(ps->name);
		for (int i = 0; i < o->nlabels && n < sizeof(ps->name); i++)
			n += (size_t)snprintf(ps->name + n, sizeof(ps->name) - n, "%c%s",
					      i ? ',' : '{', o->labels[i]);
		if (n + 2 > sizeof(ps->name)) {
			cli_error("option '--push-label': the labels are too long together (at most "
				  "%d bytes)",
				  NAME_PARAM_MAX - 2);
			return 1;
		}
		strcat(ps->name, "}");
	}
	ps->freq = cfg->freq;
	ps->queue_max = o->queue ? (size_t)o->queue : REC_PUSH_DEFAULT_QUEUE;
	ps->timeout_ms = (int)((o->timeout_s ? o->timeout_s : REC_PUSH_DEFAULT_TIMEOUT) * 1e3);
	ps->quiet = cfg->quiet;
	ps->seed = (unsigned)time(NULL) ^ (unsigned)getpid();

	ps->dir_fd = open(ps->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (ps->dir_fd < 0) {
		cli_error("option '--push': cannot open the directory '%s': %s", ps->dir,
			  strerror(errno));
		return 1;
	}
	if (flock(ps->dir_fd, LOCK_EX | LOCK_NB) != 0) {
		cli_error("option '--push': another perfev record --push is sending the windows of "
			  "'%s'; give each recorder a directory of its own",
			  ps->dir);
		return 1;
	}
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&ps->cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&ps->lock, NULL);
	ps->sync_ready = true;
	/* Before the first window of this recording is finished: what is there is older. */
	struct push_window *list;
	size_t n;
	if (push_queue_scan(ps->dir, &list, &n) == 0) {
		if (n && !ps->quiet)
			fprintf(stderr,
				"perfev: --push: %zu window%s an earlier recording left in '%s' go "
				"first\n",
				n, n == 1 ? "" : "s", ps->dir);
		free(list);
	}
	return 0;
}

int rec_push_start(struct rec_state *s)
{
	struct rec_push *ps = s->push;
	sigset_t all, old;
	int e;

	if (!ps)
		return 0;
	/* The sender takes no signal: they go to the recorder's thread, whose handlers wake it. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(&ps->thread, NULL, sender, ps);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0) {
		cli_error("option '--push': cannot start the sender thread: %s", strerror(e));
		return 1;
	}
	ps->started = true;
	return 0;
}

void rec_push_notify(struct rec_state *s)
{
	struct rec_push *ps = s->push;

	if (!ps || !ps->started)
		return;
	pthread_mutex_lock(&ps->lock);
	ps->wake = true;
	pthread_cond_signal(&ps->cond);
	pthread_mutex_unlock(&ps->lock);
}

/* Stops the thread: at once (now), or once what is left is sent or the deadline passed. */
static void stop_sender(struct rec_push *ps, bool now)
{
	if (!ps->started)
		return;
	pthread_mutex_lock(&ps->lock);
	if (now) {
		ps->stop = true;
	} else {
		ps->finishing = true;
		ps->deadline = mono_ms() + 2.0 * ps->timeout_ms;
		ps->next_try = 0; /* one more try at once, the store may be back */
		ps->backoff_s = 0;
	}
	pthread_cond_signal(&ps->cond);
	pthread_mutex_unlock(&ps->lock);
	/* A signal while what is left is sent (a second Ctrl-C) stops it at once. */
	cli_wake_drain();
	for (bool done = now; !done;) {
		struct pollfd p = {.fd = cli_wake_fd(), .events = POLLIN};
		if (poll(&p, 1, 100) > 0 && (p.revents & POLLIN)) {
			cli_wake_drain();
			pthread_mutex_lock(&ps->lock);
			if (!ps->exited)
				cli_warning("--push: stopped sending at a signal");
			ps->stop = true;
			pthread_cond_signal(&ps->cond);
			pthread_mutex_unlock(&ps->lock);
			break;
		}
		pthread_mutex_lock(&ps->lock);
		done = ps->exited;
		pthread_mutex_unlock(&ps->lock);
	}
	pthread_join(ps->thread, NULL);
	ps->started = false;
}

unsigned long rec_push_finish(struct rec_state *s, bool quiet)
{
	struct rec_push *ps = s->push;
	struct push_window *list;
	size_t left = 0;

	if (!ps)
		return 0;
	stop_sender(ps, false);
	if (push_queue_scan(ps->dir, &list, &left) == 0)
		free(list);
	if (!quiet)
		fprintf(stderr,
			"[ perfev record: pushed %lu window%s to %s:%s (%lu retr%s, %lu dropped, "
			"%lu rejected), %zu left in %s ]\n",
			ps->sent, ps->sent == 1 ? "" : "s", ps->url.host, ps->url.port, ps->retries,
			ps->retries == 1 ? "y" : "ies", ps->dropped, ps->rejected, left, ps->dir);
	if (left)
		cli_warning("--push: %zu window%s not sent stay%s in '%s': the next `perfev record "
			    "--rotate ... -o %s/ --push ...` sends %s first",
			    left, left == 1 ? "" : "s", left == 1 ? "s" : "", ps->dir, ps->dir,
			    left == 1 ? "it" : "them");
	return left;
}

void rec_push_free(struct rec_state *s)
{
	struct rec_push *ps = s->push;

	if (!ps)
		return;
	if (ps->started)
		stop_sender(ps, true);
	if (ps->sync_ready) {
		pthread_mutex_destroy(&ps->lock);
		pthread_cond_destroy(&ps->cond);
	}
	if (ps->dir_fd >= 0)
		close(ps->dir_fd);
	free(ps);
	s->push = NULL;
}
