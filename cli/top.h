/* SPDX-License-Identifier: MIT */
/*
 * top.h - what the parts of `perfev top` share.
 *
 * cmd_top.c reads the options and runs the loop: a session's rings drained
 * every 250 ms, a table every -d seconds. top_model.c keeps the samples
 * seen: one entry per distinct stack of functions (and command, process or
 * thread where the view needs them) with its weight, the side-band records (and those
 * record_synth.c makes from /proc) fed to the symbolizer; each refresh
 * turns the entries into a struct pev_profile that the report writer
 * draws, then decays them. top_screen.c is the terminal: raw mode, the
 * table with a selected line, keys, and restoring the terminal.
 */
#ifndef PERFEV_CLI_TOP_H
#define PERFEV_CLI_TOP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "record.h"

/* ---- top_model.c ---------------------------------------------------------- */

struct top_model;

/* A new model with nevents events named names[] (copied). NULL on failure, after saying why. */
struct top_model *top_model_new(const char *const *names, int nevents);

void top_model_free(struct top_model *m);

/* Feeds the synthesized records of rec_synth_tasks (a rec_synth_sink; ctx: the model). */
int top_model_synth_sink(void *ctx, const void *bytes, size_t len);

/* Feeds one session record: side-band records always, samples unless drop. */
void top_model_feed(struct top_model *m, const struct pev_session_record *r, bool drop);

/*
 * The entries as a profile (weights as periods), or NULL when out of
 * memory; the caller frees it. samples_out gets the samples fed since the
 * previous call.
 */
struct pev_profile *top_model_profile(struct top_model *m, uint64_t *samples_out);

/* What tells entries apart besides the event and the functions of their stacks. */
#define TOP_KEY_COMM (1u << 0)
#define TOP_KEY_PID  (1u << 1)
#define TOP_KEY_TID  (1u << 2)

/*
 * Sets what tells entries apart (TOP_KEY_*): what the view sorts or zooms
 * by. A change drops the entries (they cannot be split after the fact).
 */
void top_model_key(struct top_model *m, unsigned key);

/* Ages the entries: zero drops them all (per-interval counts), else each keeps 7/8. */
void top_model_decay(struct top_model *m, bool zero);

/* Records the kernel dropped (LOST) so far. */
uint64_t top_model_lost(const struct top_model *m);

/* ---- top_screen.c --------------------------------------------------------- */

/* What the screen shows and how. */
struct top_view {
	struct pev_profile *profile; /* the last refresh's (owned by the caller) */
	const char *event;           /* the event shown */
	char sort[64];               /* the sort keys */
	double percent_limit;
	bool callgraph;       /* -g: the selected entry's call graph under it */
	bool zero;            /* per-interval counts rather than decay */
	bool paused;
	/* The zooms hold names as the table shows them (escaped: the report
	 * writer's PEV_REPORT_FILTER_SHOWN matches them), whatever bytes the names hold. */
	char zoom_dso[1100];  /* "" or the DSO zoomed into (d) */
	char zoom_comm[80];   /* "" or the command zoomed into (t without a pid column) */
	char zoom_pid[16];    /* "" or the process zoomed into (t) */
	char zoom_tid[16];    /* "" or the thread zoomed into (t with a tid column) */
	int selected;         /* the selected row */
	uint64_t samples;     /* samples of the last interval */
	double interval;      /* its length in seconds */
	uint64_t lost;
	char message[160];    /* a one-line note for the user ("" none) */
};

/* Fills report options from the view (the strings point into it). */
void top_view_report_opts(const struct top_view *v, struct pev_report_opts *o);

/*
 * Enters raw mode and the alternate screen on the terminal at fd 1 (keys
 * read from fd 0). Returns 0, or -1 when the terminal cannot be set up.
 */
int top_screen_enter(void);

/* Puts the terminal back as it was (also run at exit and on SIGINT/TERM/HUP). */
void top_screen_leave(void);

/* True once after a SIGWINCH: the size changed. */
bool top_screen_resized(void);

/* Draws the view. */
void top_screen_draw(struct top_view *v);

/* What a key asks the loop to do. */
enum top_action { TOP_NONE, TOP_REDRAW, TOP_QUIT };

/* Reads the keys waiting on fd 0 and applies them to the view. */
enum top_action top_screen_keys(struct top_view *v);

#endif /* PERFEV_CLI_TOP_H */
