/* SPDX-License-Identifier: MIT */
/*
 * test_tp_format.c - tracepoint formats (perfev/tracepoint.h): fields parsed
 * from tracefs's format text (the fixture tracefs's, a __data_loc and a
 * __rel_loc one written here, hostile ones), values read from hand-made
 * payloads with every bound checked, the name=value print, and a live
 * sched:sched_switch sample whose prev_comm and next_comm are read by name.
 */
#include <sched.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "workloads.h"

/* This thread's name, as sched_switch's prev_comm carries it. */
static int prctl_get_comm(char comm[16])
{
	return prctl(PR_GET_NAME, comm, 0, 0, 0);
}

static const char *fixture_tracefs(void)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%s/tracefs", th_fixtures());
	return path;
}

/* The fixture's sched_switch: common fields, two char[16] strings, ints and a long. */
static struct pev_tp_format *sched_switch(void)
{
	struct pev_tp_format *f;
	struct pev_error err;

	cr_assert_eq(pev_tp_format_load(fixture_tracefs(), "sched", "sched_switch", &f, &err), 0,
		     "%s", err.message);
	return f;
}

Test(tp_format, the_fields_of_sched_switch)
{
	struct pev_tp_format *f = sched_switch();
	const struct pev_tp_field *prev = pev_tp_format_field(f, "prev_comm");
	const struct pev_tp_field *pid = pev_tp_format_field(f, "next_pid");
	const struct pev_tp_field *state = pev_tp_format_field(f, "prev_state");

	cr_expect_str_eq(pev_tp_format_name(f), "sched_switch");
	cr_expect_eq(pev_tp_format_id(f), 372);
	cr_expect_eq(pev_tp_format_nr_fields(f), 11);
	cr_expect(strncmp(pev_tp_format_print_fmt(f), "\"prev_comm=%s", 13) == 0);
	cr_assert_not_null(prev);
	cr_expect_str_eq(prev->type, "char[16]");
	cr_expect_eq(prev->kind, PEV_TP_FIELD_ARRAY);
	cr_expect(prev->is_string);
	cr_expect_eq(prev->offset, 8);
	cr_expect_eq(prev->size, 16);
	cr_expect_eq(prev->nr_elems, 16);
	cr_expect_eq(prev->elem_size, 1);
	cr_assert_not_null(pid);
	cr_expect_str_eq(pid->type, "pid_t");
	cr_expect_eq(pid->kind, PEV_TP_FIELD_INTEGER);
	cr_expect(pid->is_signed);
	cr_expect_not(pid->is_common);
	cr_expect_eq(state->size, 8);
	const struct pev_tp_field *type = pev_tp_format_field_at(f, 0);
	cr_expect_str_eq(type->name, "common_type");
	cr_expect(type->is_common);
	cr_expect_not(type->is_signed);
	cr_expect_null(pev_tp_format_field(f, "no_such_field"));
	cr_expect_null(pev_tp_format_field_at(f, 11));
	pev_tp_format_free(f);
}

/* A payload laid out as sched_switch's format says. */
static void sched_switch_payload(unsigned char *p, size_t size)
{
	int32_t prev_pid = 7, next_pid = -3;
	int64_t state = 1;

	memset(p, 0, size);
	memcpy(p + 8, "perfev", 6);
	memcpy(p + 24, &prev_pid, 4);
	memcpy(p + 32, &state, 8);
	memcpy(p + 40, "swapper/1\x01zz", 12);
	memcpy(p + 56, &next_pid, 4);
}

Test(tp_format, values_read_by_name_from_a_payload)
{
	struct pev_tp_format *f = sched_switch();
	unsigned char p[64];
	const void *data;
	size_t len;
	int64_t v;
	uint64_t u;

	sched_switch_payload(p, sizeof(p));
	cr_assert_eq(pev_tp_field_bytes(pev_tp_format_field(f, "prev_comm"), p, sizeof(p), &data,
					&len), 0);
	cr_expect_eq(len, 6);
	cr_expect(memcmp(data, "perfev", 6) == 0);
	cr_assert_eq(pev_tp_field_int(pev_tp_format_field(f, "next_pid"), p, sizeof(p), &v), 0);
	cr_expect_eq(v, -3, "signed fields are sign-extended");
	cr_assert_eq(pev_tp_field_uint(pev_tp_format_field(f, "next_pid"), p, sizeof(p), &u), 0);
	cr_expect_eq(u, 0xfffffffdu, "unsigned reads are not");
	cr_assert_eq(pev_tp_field_int(pev_tp_format_field(f, "prev_pid"), p, sizeof(p), &v), 0);
	cr_expect_eq(v, 7);

	/* A payload too short for the field: refused, never read past. */
	cr_expect_eq(pev_tp_field_int(pev_tp_format_field(f, "next_pid"), p, 58, &v),
		     PEV_EFORMAT);
	th_expect_last_error(PEV_EFORMAT, "", "field 'next_pid' takes bytes 56 to 60 of a 58-byte",
			     NULL);
	cr_expect_eq(pev_tp_field_bytes(pev_tp_format_field(f, "next_comm"), p, 50, &data, &len),
		     PEV_EFORMAT);
	/* A string field is not an integer. */
	cr_expect_eq(pev_tp_field_int(pev_tp_format_field(f, "prev_comm"), p, sizeof(p), &v), 0,
		     "a fixed array's element 0");
	cr_expect_eq(v, 'p');
	pev_tp_format_free(f);
}

Test(tp_format, printed_as_name_value_pairs)
{
	struct pev_tp_format *f = sched_switch();
	unsigned char p[64];
	char buf[512];

	sched_switch_payload(p, sizeof(p));
	int n = pev_tp_format_print(f, p, sizeof(p), buf, sizeof(buf));
	cr_expect_str_eq(buf, "prev_comm=perfev prev_pid=7 prev_prio=0 prev_state=1 "
			      "next_comm=swapper/1\\x01zz next_pid=-3 next_prio=0");
	cr_expect_eq(n, (int)strlen(buf));
	/* snprintf's rule: the length it needed, the text cut and terminated. */
	char small[10];
	cr_expect_eq(pev_tp_format_print(f, p, sizeof(p), small, sizeof(small)), n);
	cr_expect_str_eq(small, "prev_comm");
	cr_expect_eq(pev_tp_format_print(f, p, 30, buf, sizeof(buf)), PEV_EFORMAT);
	pev_tp_format_free(f);
}

/* A format with a __data_loc string, a __rel_loc array, a pointer and an array of longs. */
static const char dynamic_format[] =
    "name: dyn\n"
    "ID: 9\n"
    "format:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
    "\n"
    "\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
    "\tfield:__rel_loc u8[] blob;\toffset:12;\tsize:4;\tsigned:0;\n"
    "\tfield:const void * ptr;\toffset:16;\tsize:8;\tsigned:0;\n"
    "\tfield:unsigned long args[2];\toffset:24;\tsize:16;\tsigned:0;\n"
    "\n"
    "print fmt: \"%s\", __get_str(filename)\n";

Test(tp_format, dynamic_fields_pointers_and_arrays)
{
	struct pev_tp_format *f;
	struct pev_error err;
	unsigned char p[64] = {0};
	uint32_t loc;
	uint64_t a[2] = {5, 6}, ptr = 0xffff888012345678;
	const void *data;
	size_t len;
	char buf[256];

	cr_assert_eq(pev_tp_format_parse(dynamic_format, sizeof(dynamic_format) - 1, &f, &err), 0,
		     "%s", err.message);
	const struct pev_tp_field *fname = pev_tp_format_field(f, "filename");
	const struct pev_tp_field *blob = pev_tp_format_field(f, "blob");
	cr_expect_eq(fname->kind, PEV_TP_FIELD_DATA_LOC);
	cr_expect(fname->is_string);
	cr_expect_str_eq(fname->type, "char[]");
	cr_expect_eq(blob->kind, PEV_TP_FIELD_REL_LOC);
	cr_expect_not(blob->is_string);
	cr_expect_eq(pev_tp_format_field(f, "ptr")->kind, PEV_TP_FIELD_POINTER);
	cr_expect_eq(pev_tp_format_field(f, "args")->elem_size, 8);
	cr_expect_eq(pev_tp_format_field(f, "args")->nr_elems, 2);

	/* filename at 40, 8 bytes with its NUL; blob 3 bytes at 16 + 4 + 34 = 54. */
	loc = 40 | (8u << 16);
	memcpy(p + 8, &loc, 4);
	memcpy(p + 40, "/etc/hi", 8);
	loc = 38 | (3u << 16);
	memcpy(p + 12, &loc, 4);
	memcpy(p + 54, "\x01\x02\x03", 3);
	memcpy(p + 16, &ptr, 8);
	memcpy(p + 24, a, 16);
	cr_assert_eq(pev_tp_field_bytes(fname, p, sizeof(p), &data, &len), 0);
	cr_expect_eq(len, 7, "a string stops before its NUL");
	cr_expect(memcmp(data, "/etc/hi", 7) == 0);
	cr_assert_eq(pev_tp_field_bytes(blob, p, sizeof(p), &data, &len), 0);
	cr_expect_eq(len, 3);
	cr_expect_eq((const unsigned char *)data - p, 54, "__rel_loc counts from the field's end");
	cr_expect_eq(pev_tp_field_uint(blob, p, sizeof(p), &ptr), PEV_EBADARG,
		     "a dynamic array is no integer");
	th_expect_last_error(PEV_EBADARG, "field", "pev_tp_field_bytes()", NULL);
	pev_tp_format_print(f, p, sizeof(p), buf, sizeof(buf));
	cr_expect_str_eq(buf, "filename=/etc/hi blob={1,2,3} ptr=0xffff888012345678 args={5,6}");

	/* A location past the payload's end is refused. */
	loc = 60 | (8u << 16);
	memcpy(p + 8, &loc, 4);
	cr_expect_eq(pev_tp_field_bytes(fname, p, sizeof(p), &data, &len), PEV_EFORMAT);
	cr_expect_eq(pev_tp_format_print(f, p, sizeof(p), buf, sizeof(buf)), PEV_EFORMAT);
	pev_tp_format_free(f);
}

/* Formats that are not: each refused with the line and the reason. */
Test(tp_format, hostile_formats_are_refused_saying_why)
{
	static const struct {
		const char *text, *why;
	} bad[] = {
	    {"name: x\nformat:\n", "no field"},
	    {"name: x\n\tfield:int a;\toffset:0;\n", "line 2: field 'a' has no offset:N; size:N;"},
	    {"name: x\n\tfield:int a;\toffset:65535;\tsize:4;\tsigned:1;\n", "outside a 65536"},
	    {"name: x\n\tfield:int a;\toffset:0;\tsize:0;\tsigned:1;\n", "outside"},
	    {"name: x\n\tfield:int;\toffset:0;\tsize:4;\n", "cannot read the declaration"},
	    {"name: x\n\tfield:int a\toffset:0;size:4;\n", "line 2"},
	    {"name: x\n\tfield:__data_loc char[] s;\toffset:0;\tsize:8;\tsigned:0;\n", "not 4"},
	    {"name: x\nID: 12z\n\tfield:int a;\toffset:0;\tsize:4;\n", "ID is not a number"},
	    {"name: x\n\tfield:int a;\toffset:99999999999;\tsize:4;\n", "no offset"},
	    {"name: \x80\n", "not plain text"},
	};
	struct pev_tp_format *f = (void *)1;
	struct pev_error err;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_expect_eq(pev_tp_format_parse(bad[i].text, strlen(bad[i].text), &f, &err),
			     PEV_EFORMAT, "case %zu", i);
		cr_expect_null(f);
		cr_expect(strstr(err.message, bad[i].why), "case %zu: `%s` in: %s", i, bad[i].why,
			  err.message);
	}
	/* 257 fields. */
	size_t cap = 300 * 64, at = 0;
	char *many = malloc(cap);
	cr_assert_not_null(many);
	for (int i = 0; i < 257; i++)
		at += (size_t)snprintf(many + at, cap - at, "\tfield:int f%d;\toffset:%d;\tsize:4;\n",
				       i, 4 * i);
	cr_expect_eq(pev_tp_format_parse(many, at, &f, &err), PEV_EFORMAT);
	expect_has(err.message, "more than 256 fields");
	free(many);
	cr_expect_eq(pev_tp_format_parse(NULL, 0, &f, &err), PEV_EBADARG);
	cr_expect_eq(pev_tp_format_parse("", 0, NULL, &err), PEV_EBADARG);
}

Test(tp_format, a_missing_tracepoint_is_explained_as_by_pev_tracepoint_id)
{
	struct pev_tp_format *f;
	struct pev_error err;

	cr_expect_eq(pev_tp_format_load(fixture_tracefs(), "sched", "sched_swich", &f, &err),
		     PEV_ENOTFOUND);
	expect_has(err.hint, "sched_switch");
	cr_expect_null(f);
	cr_expect_eq(pev_tp_format_load(fixture_tracefs(), "../sched", "x", &f, &err),
		     PEV_EBADARG);
}

/* A live sched:sched_switch sample of this thread: prev_comm is ours, by name. */
Test(tp_format, a_live_sched_switch_read_by_name, .init = th_leak_init, .fini = th_leak_fini)
{
	char tracefs[4096];
	struct pev_tp_format *f;
	struct pev_error err;
	uint64_t id;

	if (!th_tracefs())
		th_skip("tracefs cannot be mounted: no sched:sched_switch to sample");
	cr_assert_eq(pev_tracefs_path(false, tracefs, sizeof(tracefs), &err), 0, "%s",
		     err.message);
	if (pev_tracepoint_id(tracefs, "sched", "sched_switch", &id, &err) < 0)
		th_skip("no sched:sched_switch here: %s", err.message);
	cr_assert_eq(pev_tp_format_load(NULL, "sched", "sched_switch", &f, &err), 0, "%s",
		     err.message);
	cr_expect_eq(pev_tp_format_id(f), id);

	struct pev_event ev = pev_event_tracepoint(id);
	struct pev_opts o = th_opts();
	o.sample_period = 1;
	o.sample_type = PEV_SAMPLE_RAW | PEV_SAMPLE_TID;
	o.disabled = true;
	struct pev_counter *c = th_open_ok(ev, &o, NULL, NULL);
	struct pev_ring *ring;
	cr_assert_eq(pev_ring_open(c, 0, 4, &ring, &err), 0, "%s", err.message);
	char comm[16] = "";
	cr_assert_eq(prctl_get_comm(comm), 0);
	cr_assert_eq(pev_counter_enable(c), 0);
	for (int i = 0; i < 5; i++)
		usleep(1000); /* each sleep switches this thread out */
	cr_assert_eq(pev_counter_disable(c), 0);

	struct pev_record_format fmt;
	struct pev_ring_record rec;
	struct pev_record r;
	int samples = 0, ours = 0;
	cr_assert_eq(pev_record_format_from_attr(pev_counter_attr(c), &fmt), 0);
	cr_assert_geq(pev_ring_begin(ring), 0);
	while (pev_ring_next(ring, &rec) == 1) {
		const void *data;
		size_t len;
		if (pev_record_decode(&fmt, rec.header, rec.size, &r) < 0 ||
		    r.type != PEV_RECORD_SAMPLE)
			continue;
		samples++;
		const struct pev_tp_field *prev = pev_tp_format_field(f, "prev_comm");
		cr_assert_not_null(prev);
		cr_assert_eq(pev_tp_field_bytes(prev, r.sample.raw, r.sample.raw_size, &data, &len),
			     0);
		int64_t pid;
		cr_assert_eq(pev_tp_field_int(pev_tp_format_field(f, "prev_pid"), r.sample.raw,
					      r.sample.raw_size, &pid),
			     0);
		if (pid == gettid() && len == strlen(comm) && memcmp(data, comm, len) == 0)
			ours++;
	}
	pev_ring_end(ring);
	cr_expect_geq(samples, 5, "5 sleeps, 5 switches out at least");
	cr_expect_geq(ours, 5, "prev_comm '%s' and prev_pid %d in %d of %d samples", comm,
		      (int)gettid(), ours, samples);
	pev_ring_close(ring);
	pev_counter_close(c);
	pev_tp_format_free(f);
}

/* ---- printing through the print fmt (struct pev_tp_printer) ------------------ */

/* A printer, or a skip where libtraceevent cannot be loaded (saying why). */
static struct pev_tp_printer *printer(void)
{
	struct pev_tp_printer *p;
	struct pev_error err;

	if (pev_tp_printer_new(&p, &err) == PEV_EUNSUPPORTED)
		th_skip("no libtraceevent here: %s", err.message);
	cr_assert_not_null(p, "%s", err.message);
	return p;
}

Test(tp_format, printed_through_the_print_fmt_as_perf_script_does, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_tp_printer *p = printer();
	struct pev_error err;
	unsigned char payload[64];
	uint16_t type = 372;
	char buf[512];

	cr_assert_eq(pev_tp_printer_load(p, fixture_tracefs(), "sched", "sched_switch", &err), 0,
		     "%s", err.message);
	cr_expect_eq(pev_tp_printer_nr_formats(p), 1);
	sched_switch_payload(payload, sizeof(payload));
	memcpy(payload, &type, 2); /* common_type: the format's id */
	int n = pev_tp_printer_print(p, 372, payload, sizeof(payload), 1, 1000, buf, sizeof(buf));
	/* prev_state 1 is "S" through __print_flags; "==>" is the print fmt's own text. */
	cr_expect_str_eq(buf, "prev_comm=perfev prev_pid=7 prev_prio=0 prev_state=S ==> "
			      "next_comm=swapper/1\x01zz next_pid=-3 next_prio=0");
	cr_expect_eq(n, (int)strlen(buf));
	char small[10];
	cr_expect_eq(pev_tp_printer_print(p, 372, payload, sizeof(payload), 1, 1000, small,
					  sizeof(small)),
		     n, "snprintf's rule");
	cr_expect_str_eq(small, "prev_comm");

	cr_expect_eq(pev_tp_printer_print(p, 371, payload, sizeof(payload), 1, 0, buf, sizeof(buf)),
		     PEV_ENOTFOUND);
	th_expect_last_error(PEV_ENOTFOUND, "", "no format of tracepoint id 371", NULL);
	cr_expect_eq(pev_tp_printer_print(p, 372, payload, 30, 1, 0, buf, sizeof(buf)), PEV_EFORMAT,
		     "a payload too short for next_comm is never read past");
	pev_tp_printer_free(p);
}

Test(tp_format, the_printer_drops_formats_libtraceevent_must_not_see, .init = th_leak_init,
     .fini = th_leak_fini)
{
	/* __print_flags of a field the format does not declare: libtraceevent's parser crashes. */
	static const char bad[] = "name: bad\nID: 5\nformat:\n"
				  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
				  "\tfield:long state;\toffset:8;\tsize:8;\tsigned:1;\n\n"
				  "print fmt: \"%s\", __print_flags(REC->statx, \"|\", { 1, \"S\" })\n";
	struct pev_tp_printer *p = printer();
	struct pev_error err;

	cr_expect_eq(pev_tp_printer_add_format(p, "test", bad, sizeof(bad) - 1, &err), PEV_EFORMAT);
	cr_expect(strstr(err.message, "names a field the format does not"), "%s", err.message);
	cr_expect_eq(pev_tp_printer_nr_dropped(p), 1);
	cr_expect_eq(pev_tp_printer_nr_formats(p), 0);
	cr_expect_eq(pev_tp_printer_add_tracing_data(p, "not tracing data", 16, &err), PEV_EFORMAT);
	cr_expect(strstr(err.message, "magic"), "%s", err.message);
	pev_tp_printer_free(p);
}

/* perf's own recording: its TRACING_DATA gives every format perf saw. */
Test(tp_format, the_printer_reads_a_perf_data_files_tracing_data, .init = th_leak_init,
     .fini = th_leak_fini)
{
	char *path = th_path_join(th_fixtures(), "tracing/sched.data");
	struct pev_perfdata *pd;
	struct pev_error err;
	int added = -1;

	cr_assert_eq(pev_perfdata_open(path, 0, &pd, &err), 0, "%s", err.message);
	struct pev_tp_printer *p = printer();
	const struct pev_perfdata_features *f = pev_perfdata_features(pd);
	for (size_t i = 0; i < f->nr_sections; i++)
		if (f->sections[i].feature == PEV_HEADER_TRACING_DATA)
			added = pev_tp_printer_add_tracing_data(p, f->sections[i].data,
								f->sections[i].size, &err);
	cr_expect_gt(added, 0, "formats of perf's file: %d (%s)", added, err.message);
	cr_expect_eq(pev_tp_printer_nr_formats(p), added);
	cr_expect_eq(pev_tp_printer_nr_dropped(p), 0);
	pev_tp_printer_free(p);
	pev_perfdata_close(pd);
	free(path);
}
