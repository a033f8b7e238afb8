/* SPDX-License-Identifier: MIT */
/*
 * top_screen.c - `perfev top`'s terminal: raw mode (termios) and the
 * alternate screen, the table the report writer draws with one selected
 * row, the selected entry's call graph under it (-g), the keys, and the
 * terminal restored at exit, on SIGINT/SIGTERM/SIGHUP (through the loop)
 * and on a fatal signal. Plain ANSI escapes: no curses.
 *
 * Rows are read back from the writer's text: the "# ....." line under the
 * column titles gives each column's extent, and the column order is the
 * sort keys' (less those a one-name filter leaves out, as the writer does).
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "top.h"

#define MAX_ROWS 512
#define MAX_COLS 8

static struct termios saved;
static bool entered;
static volatile sig_atomic_t resized;

/* The last table drawn: its rows, and each column's start. */
static char *rows[MAX_ROWS];
static int nrows;
static int col_start[MAX_COLS + 1], ncols;

static void put(const char *s)
{
	size_t len = strlen(s);

	while (len) {
		ssize_t w = write(STDOUT_FILENO, s, len);
		if (w <= 0)
			return;
		s += w;
		len -= (size_t)w;
	}
}

/* The terminal as it was (async-signal-safe: write and tcsetattr only). */
static void restore(void)
{
	if (!entered)
		return;
	entered = false;
	/* Attributes off, cursor shown, the normal screen back. */
	put("\033[0m\033[?25h\033[?1049l");
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
}

void top_screen_leave(void)
{
	for (int i = 0; i < nrows; i++)
		free(rows[i]);
	nrows = 0;
	restore();
}

/* A fatal signal: the terminal back, then the signal's default. */
static void on_fatal(int sig)
{
	restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_winch(int sig)
{
	(void)sig;
	resized = 1;
}

int top_screen_enter(void)
{
	struct termios raw;
	struct sigaction sa;
	static const int fatal[] = {SIGQUIT, SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGILL};

	if (tcgetattr(STDIN_FILENO, &saved) != 0)
		return -1;
	raw = saved;
	/* Keys one by one, no echo; ^C and ^Z come as keys (q and ^C quit). */
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO | ISIG | IEXTEN);
	raw.c_iflag &= ~(tcflag_t)(IXON | ICRNL);
	raw.c_cc[VMIN] = 0;
	raw.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) != 0)
		return -1;
	entered = true;
	atexit(restore);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_winch; /* no SA_RESTART: the loop's poll wakes up */
	sigaction(SIGWINCH, &sa, NULL);
	sa.sa_handler = on_fatal;
	sa.sa_flags = SA_RESETHAND;
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaction(fatal[i], &sa, NULL);
	put("\033[?1049h\033[?25l\033[H\033[2J");
	return 0;
}

bool top_screen_resized(void)
{
	bool r = resized;

	resized = 0;
	return r;
}

static void term_size(int *lines, int *width)
{
	struct winsize ws;

	*lines = 24;
	*width = 80;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col) {
		*lines = ws.ws_row;
		*width = ws.ws_col;
	}
}

void top_view_report_opts(const struct top_view *v, struct pev_report_opts *o)
{
	*o = (struct pev_report_opts)PEV_REPORT_OPTS_INIT;
	o->sort = v->sort;
	o->event = v->event;
	o->percent_limit = v->percent_limit;
	/* The zooms are cells of the table: names as shown, matched as shown. */
	o->flags |= PEV_REPORT_FILTER_SHOWN;
	o->dsos = v->zoom_dso[0] ? v->zoom_dso : NULL;
	o->comms = v->zoom_comm[0] ? v->zoom_comm : NULL;
	o->pids = v->zoom_pid[0] ? v->zoom_pid : NULL;
	o->tids = v->zoom_tid[0] ? v->zoom_tid : NULL;
}

/* The table as text (malloc'ed), or NULL. */
static char *table_text(const struct pev_profile *p, const struct pev_report_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	int r = pev_profile_write_table(p, f, o, NULL);
	fclose(f);
	if (r != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Takes the column extents from the "# ....  ....." line. */
static void read_columns(const char *line)
{
	ncols = 0;
	for (int i = 1; line[i] && line[i] != '\n' && ncols < MAX_COLS; i++)
		if (line[i] == '.' && line[i - 1] == ' ')
			col_start[ncols++] = i;
}

/* Keeps the entry rows of a table (not its '#' lines, not call graphs). */
static void read_rows(char *text, char *title, size_t title_size)
{
	for (int i = 0; i < nrows; i++)
		free(rows[i]);
	nrows = 0;
	title[0] = '\0';
	for (char *line = text; line && *line;) {
		char *end = strchr(line, '\n');
		if (end)
			*end = '\0';
		if (strncmp(line, "# Overhead", 10) == 0)
			snprintf(title, title_size, " %s", line + 1);
		else if (strncmp(line, "# ..", 4) == 0)
			read_columns(line);
		else if (line[0] == ' ' && strchr(line, '%') && nrows < MAX_ROWS &&
		         line[strspn(line, " ")] >= '0' && line[strspn(line, " ")] <= '9')
			rows[nrows++] = strdup(line);
		line = end ? end + 1 : NULL;
	}
}

/* Copies column c of row r (trimmed) into buf; false when there is no such column. */
static bool row_column(int r, int c, char *buf, size_t size)
{
	if (r < 0 || r >= nrows || c < 0 || c + 1 >= ncols + 1 || c >= ncols)
		return false;
	const char *row = rows[r];
	size_t len = strlen(row), from = (size_t)col_start[c];
	size_t to = c + 1 < ncols ? (size_t)col_start[c + 1] : len;
	if (from >= len)
		return false;
	if (to > len)
		to = len;
	while (from < to && row[from] == ' ')
		from++;
	while (to > from && row[to - 1] == ' ')
		to--;
	snprintf(buf, size, "%.*s", (int)(to - from), row + from);
	return true;
}

/*
 * The column of sort key `key` in the table drawn ("sym" also matches
 * "symbol"): the Overhead column is 0, then the sort keys in order, less
 * comm and dso when a one-name filter hides them. -1 when not shown.
 */
static int key_column(const struct top_view *v, const char *key)
{
	char keys[64];
	int col = 1;

	snprintf(keys, sizeof(keys), "%s", v->sort);
	for (char *save, *k = strtok_r(keys, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		if ((strcmp(k, "dso") == 0 && v->zoom_dso[0]) ||
		    (strcmp(k, "comm") == 0 && v->zoom_comm[0]))
			continue;
		if (strcmp(k, key) == 0 || (strcmp(key, "sym") == 0 && strcmp(k, "symbol") == 0))
			return col;
		col++;
	}
	return -1;
}

/* Draws the selected entry's call graph (its lines under the entry in a -g table). */
static int draw_callgraph(const struct top_view *v, int width, int room)
{
	struct pev_report_opts o;
	char sym[2048], dso[sizeof(v->zoom_dso)], comm[sizeof(v->zoom_comm)], *text;
	int c = key_column(v, "sym"), shown = 0;
	bool seen = false;

	if (!row_column(v->selected, c, sym, sizeof(sym)))
		return 0;
	top_view_report_opts(v, &o);
	if (!o.dsos && row_column(v->selected, key_column(v, "dso"), dso, sizeof(dso)))
		o.dsos = dso;
	if (!o.comms && row_column(v->selected, key_column(v, "comm"), comm, sizeof(comm)))
		o.comms = comm;
	o.callgraph = PEV_REPORT_CALLGRAPH_CALLEE;
	o.flags |= PEV_REPORT_NO_HEADER;
	/* "[.] name": the writer's filter takes the name. */
	o.symbols = strncmp(sym, "[", 1) == 0 && strlen(sym) > 4 ? sym + 4 : sym;
	text = table_text(v->profile, &o);
	if (!text)
		return 0;
	/* The filters leave the selected entry first: its graph is what follows it. */
	for (char *line = text, *end; line && *line && shown < room; line = end ? end + 1 : NULL) {
		bool entry;
		end = strchr(line, '\n');
		if (end)
			*end = '\0';
		entry = line[0] == ' ' && line[strspn(line, " ")] >= '0' &&
		        line[strspn(line, " ")] <= '9' && strchr(line, '%');
		if (entry && seen)
			break;
		if (entry) {
			seen = true;
		} else if (seen && line[0] == ' ' && line[strspn(line, " ")]) {
			char out[1024];
			snprintf(out, sizeof(out), "\033[2m%.*s\033[0m\033[K\r\n", width, line);
			put(out);
			shown++;
		}
	}
	free(text);
	return shown;
}

void top_screen_draw(struct top_view *v)
{
	struct pev_report_opts o;
	char title[512], line[1600], zoom[sizeof(v->zoom_dso) + 200] = "";
	int lines, width, y = 0;
	uint64_t rate = v->interval > 0 ? (uint64_t)((double)v->samples / v->interval) : 0;

	term_size(&lines, &width);
	if (width > 1000)
		width = 1000;
	top_view_report_opts(v, &o);
	char *text = v->profile ? table_text(v->profile, &o) : NULL;
	if (text)
		read_rows(text, title, sizeof(title));
	else
		title[0] = '\0';
	free(text);
	if (v->selected >= nrows)
		v->selected = nrows ? nrows - 1 : 0;
	if (v->zoom_dso[0])
		snprintf(zoom + strlen(zoom), sizeof(zoom) - strlen(zoom), "  DSO: %s", v->zoom_dso);
	if (v->zoom_pid[0] || v->zoom_tid[0] || v->zoom_comm[0])
		snprintf(zoom + strlen(zoom), sizeof(zoom) - strlen(zoom), "  %s: %s",
		         v->zoom_pid[0] ? "process" : v->zoom_tid[0] ? "thread" : "command",
		         v->zoom_pid[0] ? v->zoom_pid : v->zoom_tid[0] ? v->zoom_tid : v->zoom_comm);
	put("\033[H");
	snprintf(line, sizeof(line),
	         "\033[1m perfev top: %llu samples/s of event '%s', lost %llu, %s, sort %s%s%s\033[0m",
	         (unsigned long long)rate, v->event ? v->event : "?", (unsigned long long)v->lost,
	         v->zero ? "per interval" : "decaying", v->sort, zoom,
	         v->paused ? "  [paused]" : "");
	put(line);
	put("\033[K\r\n");
	snprintf(line, sizeof(line), "\033[4m%-*.*s\033[0m\033[K\r\n", width, width, title);
	put(line);
	y = 2;
	for (int r = 0; r < nrows && y < lines - 1; r++, y++) {
		bool sel = r == v->selected;
		snprintf(line, sizeof(line), "%s%-*.*s\033[0m\033[K\r\n", sel ? "\033[7m" : "",
		         sel ? width : 0, width, rows[r]);
		put(line);
		if (sel && v->callgraph)
			y += draw_callgraph(v, width, lines - 2 - y);
	}
	put("\033[J");
	snprintf(line, sizeof(line), "\033[%d;1H\033[7m%-*.*s\033[0m", lines, width, width,
	         v->message[0] ? v->message
	                       : " q quit  p pause  s sort  d DSO  t process  z zero/decay  "
	                         "up/down select  h help");
	put(line);
}

/* Toggles a zoom: into value when none is set, out of it when one is. */
static void toggle(char *zoom, size_t size, const char *value)
{
	size_t len = strlen(value);

	if (zoom[0]) {
		zoom[0] = '\0';
		return;
	}
	if (len >= size)
		len = size - 1;
	memcpy(zoom, value, len);
	zoom[len] = '\0';
}

/* d: zoom into (or out of) the selected entry's DSO. */
static void zoom_dso(struct top_view *v)
{
	char dso[sizeof(v->zoom_dso)];

	if (v->zoom_dso[0]) {
		v->zoom_dso[0] = '\0';
		return;
	}
	if (!row_column(v->selected, key_column(v, "dso"), dso, sizeof(dso))) {
		snprintf(v->message, sizeof(v->message),
		         " d: the table has no Shared Object column; press s for a sort with dso");
		return;
	}
	toggle(v->zoom_dso, sizeof(v->zoom_dso), dso);
}

/* t: zoom into (or out of) the selected entry's process (thread, command). */
static void zoom_task(struct top_view *v)
{
	char val[128];

	if (v->zoom_pid[0] || v->zoom_tid[0] || v->zoom_comm[0]) {
		v->zoom_pid[0] = v->zoom_tid[0] = v->zoom_comm[0] = '\0';
		return;
	}
	if (row_column(v->selected, key_column(v, "pid"), val, sizeof(val))) {
		val[strspn(val, "0123456789")] = '\0'; /* "1234:comm" */
		toggle(v->zoom_pid, sizeof(v->zoom_pid), val);
	} else if (row_column(v->selected, key_column(v, "tid"), val, sizeof(val))) {
		val[strspn(val, "0123456789")] = '\0';
		toggle(v->zoom_tid, sizeof(v->zoom_tid), val);
	} else if (row_column(v->selected, key_column(v, "comm"), val, sizeof(val))) {
		toggle(v->zoom_comm, sizeof(v->zoom_comm), val);
	} else {
		snprintf(v->message, sizeof(v->message),
		         " t: the table has no pid, tid or comm column; press s for a sort with one");
	}
}

/* The sort orders s goes through, after the one given with --sort. */
static const char *const sorts[] = {"dso,sym", "sym", "comm,dso,sym", "pid,sym", "tid,sym",
                                    "dso", "comm"};
#define NSORTS (int)(sizeof(sorts) / sizeof(sorts[0]))

static void next_sort(struct top_view *v)
{
	int i;

	for (i = 0; i < NSORTS && strcmp(sorts[i], v->sort) != 0; i++)
		;
	snprintf(v->sort, sizeof(v->sort), "%s", sorts[i < NSORTS ? (i + 1) % NSORTS : 0]);
	v->selected = 0;
}

enum top_action top_screen_keys(struct top_view *v)
{
	unsigned char keys[64];
	ssize_t n = read(STDIN_FILENO, keys, sizeof(keys));
	enum top_action act = TOP_NONE;

	for (ssize_t i = 0; i < n; i++) {
		v->message[0] = '\0';
		act = TOP_REDRAW;
		switch (keys[i]) {
		case 'q':
		case 'Q':
		case 3: /* ^C */
			return TOP_QUIT;
		case 'p':
		case ' ':
			v->paused = !v->paused;
			break;
		case 's':
			next_sort(v);
			break;
		case 'd':
			zoom_dso(v);
			break;
		case 't':
			zoom_task(v);
			break;
		case 'z':
			v->zero = !v->zero;
			break;
		case 'g':
			v->callgraph = !v->callgraph;
			break;
		case 'j':
			v->selected++;
			break;
		case 'k':
			if (v->selected > 0)
				v->selected--;
			break;
		case '\033': /* arrows: ESC [ A / ESC [ B */
			if (i + 2 < n && keys[i + 1] == '[') {
				if (keys[i + 2] == 'A' && v->selected > 0)
					v->selected--;
				else if (keys[i + 2] == 'B')
					v->selected++;
				i += 2;
			}
			break;
		case 'h':
		case '?':
			snprintf(v->message, sizeof(v->message),
			         " p/space pause  s next sort  d/t zoom DSO/process (again: out)  "
			         "g call graph  z per-interval/decay  j/k select  q quit");
			break;
		default:
			act = TOP_NONE;
			break;
		}
	}
	return act;
}
