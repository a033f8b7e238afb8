/* SPDX-License-Identifier: MIT */
/*
 * tracepoint_fields.c - read a tracepoint's fields by name: this thread's
 * sched:sched_switch events, each printed as "prev_comm[prev_pid] ->
 * next_comm[next_pid]" from the sample's raw payload, through the format
 * tracefs publishes (perfev/tracepoint.h does the parsing and the bounds).
 *
 * tracefs is readable by root only by default: without it the program says
 * why and exits 77. It checks its own result: every switch must name this
 * thread as prev, or it exits 1.
 *
 * Build: cc tracepoint_fields.c $(pkg-config --cflags --libs perfev)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* gettid, usleep */
#endif
#include <perfev.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Prints one sched_switch payload; returns whether prev is this thread. */
static int print_switch(const struct pev_tp_format *f, const void *raw, size_t size)
{
	const void *prev, *next;
	size_t prev_len, next_len;
	int64_t prev_pid, next_pid;

	if (pev_tp_field_bytes(pev_tp_format_field(f, "prev_comm"), raw, size, &prev, &prev_len) ||
	    pev_tp_field_bytes(pev_tp_format_field(f, "next_comm"), raw, size, &next, &next_len) ||
	    pev_tp_field_int(pev_tp_format_field(f, "prev_pid"), raw, size, &prev_pid) ||
	    pev_tp_field_int(pev_tp_format_field(f, "next_pid"), raw, size, &next_pid)) {
		fprintf(stderr, "%s\n", pev_last_error()->message);
		return 0;
	}
	printf("%.*s[%lld] -> %.*s[%lld]\n", (int)prev_len, (const char *)prev, (long long)prev_pid,
	       (int)next_len, (const char *)next, (long long)next_pid);
	return prev_pid == gettid();
}

int main(void)
{
	struct pev_session_opts o = PEV_SESSION_OPTS_INIT;
	struct pev_session_record r;
	struct pev_tp_format *f;
	struct pev_session *s;
	struct pev_error err;
	char text[2 * PEV_ERROR_MESSAGE_MAX];
	int switches = 0, ours = 0;

	if (pev_tp_format_load(NULL, "sched", "sched_switch", &f, &err) < 0) {
		printf("%s", pev_error_format(&err, text, sizeof(text)));
		return err.code == PEV_EBADARG || err.code == PEV_EFORMAT ? 1 : 77;
	}
	o.event_text = "sched:sched_switch";
	o.sample_period = 1;
	o.sample_type = PEV_SAMPLE_RAW;
	if (pev_session_open(&o, &s, &err) < 0) {
		printf("%s", pev_error_format(&err, text, sizeof(text)));
		pev_tp_format_free(f);
		return 77;
	}
	pev_session_enable(s);
	for (int i = 0; i < 5; i++)
		usleep(1000); /* each sleep switches this thread out */
	pev_session_disable(s);
	pev_session_flush(s);
	while (pev_session_read(s, &r) == 1)
		if (r.rec.type == PEV_RECORD_SAMPLE) {
			switches++;
			ours += print_switch(f, r.rec.sample.raw, r.rec.sample.raw_size);
		}
	pev_session_close(s);
	pev_tp_format_free(f);
	printf("%d switches, %d of this thread\n", switches, ours);
	return switches >= 5 && ours == switches ? 0 : 1;
}
