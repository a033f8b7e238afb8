/* SPDX-License-Identifier: MIT */
/*
 * test_api_null.c - every exported function, called with NULL wherever it
 * takes a pointer (and 0 elsewhere), as docs/API.md promises: functions that
 * return a code return PEV_EBADARG, functions that return a pointer return
 * NULL, a bool false, a size or count 0, and void functions (close/free)
 * ignore it. A last test reads the shared library's dynamic symbols and
 * checks that every one of them is called here, so a new export is audited
 * when it is added. Also: a success clears a struct pev_error a failure
 * filled before, and the error table names 0 as a success.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfev.h"
#include "helpers.h"
#include "core/error_internal.h"

/*
 * A refusal names the function and the argument, in the caller's struct
 * pev_error or, given none, in pev_last_error(): a call made with a bad
 * argument is refused saying so, whichever argument it was.
 */
#define EXPECT_BADARG(fn, args)                                                                    \
	do {                                                                                       \
		long r_ = (long)fn args;                                                           \
		const struct pev_error *e_ = pev_last_error();                                     \
		cr_expect_eq(r_, PEV_EBADARG, #fn ": %ld (%s), not PEV_EBADARG", r_,               \
		             pev_strerror((int)r_));                                               \
		cr_expect(e_->code == PEV_EBADARG && strstr(e_->message, #fn ": bad argument '"),  \
		          #fn " did not say why in pev_last_error(): %s", e_->message);           \
		pev__error_start(NULL, 0, 0, NULL, NULL, false);                                   \
	} while (0)
#define EXPECT_NULL(fn, args)  cr_expect_null((const void *)fn args, #fn ": not NULL")
#define EXPECT_FALSE(fn, args) cr_expect(!fn args, #fn ": true")
#define EXPECT_ZERO(fn, args)  cr_expect_eq(fn args, 0, #fn ": not 0")
#define EXPECT_VOID(fn, args)  fn args
/* A function without pointer arguments: listed so that the export check knows it. */
#define NO_POINTER(fn) (void)fn
/* A function whose NULL arguments have a documented meaning other than a refusal. */
#define EXPECT_VALUE(fn, args, value) cr_expect_eq(fn args, value, #fn)

Test(null_args, capability)
{
	EXPECT_BADARG(pev_capability_probe, (0, NULL, NULL));
	NO_POINTER(pev_capability_name);
	NO_POINTER(pev_capability_verdict_name);
}

Test(null_args, cgroup)
{
	EXPECT_BADARG(pev_cgroup_v2_root, (NULL, 0));
	EXPECT_BADARG(pev_cgroup_events_root, (NULL, 0));
	EXPECT_BADARG(pev_cgroup_dir, (NULL, NULL, 0, NULL));
	EXPECT_BADARG(pev_cgroup_id, (NULL, NULL));
	EXPECT_BADARG(pev_cgroup_container_id, (NULL, NULL, 0));
	EXPECT_BADARG(pev_cgroup_names_new, (NULL));
	EXPECT_VOID(pev_cgroup_names_free, (NULL));
	EXPECT_BADARG(pev_cgroup_names_add, (NULL, 0, NULL));
	EXPECT_BADARG(pev_cgroup_names_scan, (NULL, NULL));
	EXPECT_NULL(pev_cgroup_names_find, (NULL, 0));
	EXPECT_ZERO(pev_cgroup_names_count, (NULL));
	EXPECT_BADARG(pev_cgroup_names_at, (NULL, 0, NULL, NULL));
}

Test(null_args, counter)
{
	EXPECT_BADARG(pev_counter_open, (NULL, NULL, NULL, NULL, NULL, NULL));
	EXPECT_BADARG(pev_counter_open_attr, (NULL, 0, NULL, NULL, 0, NULL, NULL));
	EXPECT_VOID(pev_counter_close, (NULL));
	EXPECT_BADARG(pev_counter_nr_fds, (NULL));
	EXPECT_BADARG(pev_counter_fd, (NULL, 0));
	EXPECT_BADARG(pev_counter_cpu, (NULL, 0));
	EXPECT_BADARG(pev_counter_tid, (NULL, 0));
	EXPECT_NULL(pev_counter_attr, (NULL));
	EXPECT_NULL(pev_counter_name, (NULL));
	EXPECT_NULL(pev_counter_leader, (NULL));
	EXPECT_BADARG(pev_counter_id, (NULL, 0, NULL));
	EXPECT_BADARG(pev_counter_enable, (NULL));
	EXPECT_BADARG(pev_counter_disable, (NULL));
	EXPECT_BADARG(pev_counter_reset, (NULL));
	EXPECT_BADARG(pev_counter_enable_group, (NULL));
	EXPECT_BADARG(pev_counter_disable_group, (NULL));
	EXPECT_BADARG(pev_counter_reset_group, (NULL));
	EXPECT_BADARG(pev_counter_refresh, (NULL, 0));
	EXPECT_BADARG(pev_counter_set_period, (NULL, 0));
	EXPECT_BADARG(pev_counter_set_filter, (NULL, NULL));
	EXPECT_BADARG(pev_counter_set_bpf, (NULL, 0));
	EXPECT_BADARG(pev_counter_query_bpf, (NULL, NULL, 0, NULL));
	EXPECT_BADARG(pev_counter_pause_output, (NULL, 0));
	EXPECT_BADARG(pev_counter_modify, (NULL, NULL));
	NO_POINTER(pev_process_counters_enable);
	NO_POINTER(pev_process_counters_disable);
	EXPECT_VOID(pev_count_scale, (NULL));
	EXPECT_BADARG(pev_counter_read, (NULL, NULL));
	EXPECT_BADARG(pev_counter_read_fd, (NULL, 0, NULL));
	EXPECT_BADARG(pev_counter_read_group, (NULL, NULL, 0));
	EXPECT_BADARG(pev_read_decode, (NULL, 0, 0, NULL, NULL, NULL, 0));
}

Test(null_args, counter_list)
{
	struct pev_counter_list *l = (struct pev_counter_list *)&l;

	EXPECT_BADARG(pev_counter_list_open, (NULL, NULL, NULL, NULL, NULL));
	EXPECT_BADARG(pev_counter_list_open, (NULL, NULL, NULL, &l, NULL));
	cr_expect_null(l, "pev_counter_list_open: *out not NULL after a refusal");
	EXPECT_VOID(pev_counter_list_close, (NULL));
	EXPECT_BADARG(pev_counter_list_count, (NULL));
	EXPECT_NULL(pev_counter_list_at, (NULL, 0));
	EXPECT_BADARG(pev_counter_list_enable, (NULL));
	EXPECT_BADARG(pev_counter_list_disable, (NULL));
	EXPECT_BADARG(pev_counter_list_reset, (NULL));
	EXPECT_BADARG(pev_counter_list_read, (NULL, NULL, 0));
}

Test(null_args, cpulist)
{
	EXPECT_BADARG(pev_cpulist_parse, (NULL, NULL, 0));
	EXPECT_FALSE(pev_cpulist_contains, (NULL, 0));
}

Test(null_args, text)
{
	EXPECT_ZERO(pev_text_utf8_char, (NULL));
	EXPECT_VALUE(pev_text_is_clean, (NULL), true); /* nothing to escape */
	EXPECT_ZERO(pev_text_escape, (NULL, 0, NULL, 0));
	EXPECT_VALUE(pev_text_fputs, (NULL, NULL), EOF);
	EXPECT_ZERO(pev_text_utf8, (NULL, 0, NULL));
}

Test(null_args, diff)
{
	EXPECT_BADARG(pev_profile_write_diff, (NULL, NULL, NULL, NULL, NULL));
	EXPECT_BADARG(pev_profile_write_diff_folded, (NULL, NULL, NULL, NULL, NULL));
	EXPECT_BADARG(pev_profile_write_diff_flamegraph, (NULL, NULL, NULL, NULL, NULL));
}

/* The diff writers refuse each of their three pointers alone, as perfev/diff.h says. */
Test(null_args, diff_each_argument)
{
	int (*const writers[])(const struct pev_profile *, const struct pev_profile *, FILE *,
			       const struct pev_diff_opts *, struct pev_error *) = {
		pev_profile_write_diff, pev_profile_write_diff_folded,
		pev_profile_write_diff_flamegraph};
	struct pev_profile *p;
	struct pev_error err;

	cr_assert_eq(pev_profile_new(&p), 0);
	for (size_t i = 0; i < sizeof(writers) / sizeof(writers[0]); i++) {
		cr_expect_eq(writers[i](NULL, p, stdout, NULL, &err), PEV_EBADARG, "writer %zu", i);
		cr_expect_eq(writers[i](p, NULL, stdout, NULL, &err), PEV_EBADARG, "writer %zu", i);
		cr_expect_eq(writers[i](p, p, NULL, NULL, &err), PEV_EBADARG, "writer %zu", i);
		cr_expect_eq(err.code, PEV_EBADARG, "writer %zu: err.code %d", i, err.code);
	}
	pev_profile_free(p);
}

Test(null_args, error)
{
	NO_POINTER(pev_strerror);
	NO_POINTER(pev_error_name);
	NO_POINTER(pev_error_from_errno);
	EXPECT_NULL(pev_error_format, (NULL, NULL, 0));
}

Test(null_args, event)
{
	EXPECT_BADARG(pev_event_uprobe, (NULL, NULL, 0, 0, NULL, NULL));
	EXPECT_BADARG(pev_event_kprobe, (NULL, NULL, 0, 0, NULL, NULL));
	EXPECT_BADARG(pev_uprobe_resolve, (NULL, NULL, NULL, NULL));
	EXPECT_BADARG(pev_pmu_type, (NULL, NULL));
	EXPECT_BADARG(pev_event_lookup, (NULL, NULL));
	EXPECT_NULL(pev_event_describe, (NULL, NULL, 0));
	EXPECT_BADARG(pev_event_foreach_name, (NULL, NULL));
	NO_POINTER(pev_hw_name);
	NO_POINTER(pev_sw_name);
}

Test(null_args, log)
{
	EXPECT_VOID(pev_set_log, (NULL, NULL, 0));
}

Test(null_args, machine)
{
	EXPECT_BADARG(pev_machine_read, (NULL, NULL));
	EXPECT_BADARG(pev_machine_probe_attr_size, (NULL));
	EXPECT_FALSE(pev_machine_cpu_online, (NULL, 0));
	EXPECT_FALSE(pev_machine_cpu_possible, (NULL, 0));
	EXPECT_NULL(pev_machine_pmu_name, (NULL, 0));
	NO_POINTER(pev_paranoid_meaning);
	EXPECT_BADARG(pev_attr_check, (NULL, NULL, NULL));
	EXPECT_BADARG(pev_diagnose_open, (NULL, NULL, 0, 0, NULL));
	EXPECT_BADARG(pev_diagnose_mmap, (NULL, NULL, 0, 0, 0, NULL));
	EXPECT_BADARG(pev_diagnose_call, (NULL, NULL, 0, NULL));
}

Test(null_args, opts)
{
	EXPECT_BADARG(pev_attr_encode, (NULL, NULL, NULL, NULL));
	EXPECT_BADARG(pev_attr_decode, (NULL, 0, NULL, NULL));
	EXPECT_VALUE(pev_attr_min_size, (NULL),
	             PEV_ATTR_SIZE_VER0); /* documented: a size, not a code */
}

Test(null_args, parse)
{
	EXPECT_BADARG(pev_event_parse, (NULL, NULL, NULL, NULL));
	EXPECT_BADARG(pev_event_list_count, (NULL));
	EXPECT_NULL(pev_event_list_at, (NULL, 0));
	EXPECT_VOID(pev_event_list_free, (NULL));
}

Test(null_args, perfdata)
{
	NO_POINTER(pev_perfdata_feature_name);
	NO_POINTER(pev_perfdata_record_type_name);
	EXPECT_BADARG(pev_perfdata_open, (NULL, 0, NULL, NULL));
	EXPECT_BADARG(pev_perfdata_open_fd, (0, 0, NULL, NULL));
	EXPECT_BADARG(pev_perfdata_open_memory, (NULL, 0, 0, NULL, NULL));
	EXPECT_VOID(pev_perfdata_close, (NULL));
	EXPECT_FALSE(pev_perfdata_pipe_mode, (NULL));
	EXPECT_NULL(pev_perfdata_layout, (NULL));
	EXPECT_BADARG(pev_perfdata_nr_events, (NULL));
	EXPECT_NULL(pev_perfdata_event, (NULL, 0));
	EXPECT_NULL(pev_perfdata_event_by_id, (NULL, 0));
	EXPECT_NULL(pev_perfdata_features, (NULL));
	EXPECT_NULL(pev_perfdata_pmu_caps, (NULL, NULL));
	EXPECT_BADARG(pev_perfdata_id_index, (NULL, 0, NULL));
	EXPECT_NULL(pev_perfdata_threads, (NULL, NULL));
	EXPECT_NULL(pev_perfdata_cpus, (NULL, NULL));
	EXPECT_NULL(pev_perfdata_time_conv, (NULL));
	EXPECT_FALSE(pev_perfdata_unfinished, (NULL));
	EXPECT_ZERO(pev_perfdata_nr_notes, (NULL));
	EXPECT_NULL(pev_perfdata_note, (NULL, 0));
	EXPECT_BADARG(pev_perfdata_next, (NULL, NULL, NULL));
	EXPECT_BADARG(pev_perfdata_writer_open, (NULL, 0, NULL, NULL));
	EXPECT_BADARG(pev_perfdata_writer_open_fd, (0, 0, NULL, NULL));
	EXPECT_BADARG(pev_perfdata_writer_add_event, (NULL, NULL, NULL, NULL, 0, NULL));
	EXPECT_BADARG(pev_perfdata_writer_add_group, (NULL, NULL, 0, 0));
	EXPECT_BADARG(pev_perfdata_writer_add_build_id, (NULL, 0, 0, NULL, 0, NULL));
	EXPECT_BADARG(pev_perfdata_writer_set_cmdline, (NULL, 0, NULL));
	EXPECT_BADARG(pev_perfdata_writer_set_sample_time, (NULL, 0, 0));
	EXPECT_BADARG(pev_perfdata_writer_set_feature, (NULL, 0, NULL, 0));
	EXPECT_BADARG(pev_perfdata_writer_drop_feature, (NULL, 0));
	EXPECT_BADARG(pev_perfdata_writer_write, (NULL, NULL, 0, NULL));
	EXPECT_BADARG(pev_perfdata_writer_round, (NULL, NULL));
	EXPECT_BADARG(pev_perfdata_writer_flush, (NULL, NULL));
	EXPECT_ZERO(pev_perfdata_writer_data_size, (NULL));
	EXPECT_BADARG(pev_perfdata_writer_finish, (NULL, NULL));
	EXPECT_VOID(pev_perfdata_writer_close, (NULL));
}

Test(null_args, pfm)
{
	NO_POINTER(pev_pfm_available);
	EXPECT_BADARG(pev_pfm_encode, (NULL, NULL, NULL));
	EXPECT_BADARG(pev_pfm_foreach, (NULL, NULL));
}

Test(null_args, pmu)
{
	EXPECT_BADARG(pev_pmus_read, (NULL, NULL, NULL));
	EXPECT_VOID(pev_pmus_free, (NULL));
	EXPECT_BADARG(pev_pmus_count, (NULL));
	EXPECT_NULL(pev_pmus_at, (NULL, 0));
	EXPECT_NULL(pev_pmus_find, (NULL, NULL));
	EXPECT_NULL(pev_pmus_find_type, (NULL, 0));
	EXPECT_BADARG(pev_pmus_core_count, (NULL));
	EXPECT_NULL(pev_pmu_format, (NULL, NULL));
	EXPECT_NULL(pev_pmu_alias, (NULL, NULL));
	EXPECT_BADARG(pev_pmu_format_apply, (NULL, 0, 0));
	EXPECT_BADARG(pev_pmu_format_parse, (NULL, NULL));
}

Test(null_args, record)
{
	EXPECT_BADARG(pev_record_format_init, (NULL, NULL));
	EXPECT_BADARG(pev_record_format_from_attr, (NULL, NULL));
	EXPECT_BADARG(pev_read_data_value, (NULL, 0, NULL));
	EXPECT_VOID(pev_branch_flags_decode, (0, NULL));
	EXPECT_VOID(pev_data_src_decode, (0, NULL));
	EXPECT_BADARG(pev_record_decode, (NULL, NULL, 0, NULL));
	EXPECT_BADARG(pev_record_time, (NULL, NULL, 0, NULL));
	EXPECT_BADARG(pev_record_id, (NULL, NULL, 0, NULL));
	NO_POINTER(pev_record_type_name);
	EXPECT_NULL(pev_record_describe, (NULL, NULL, 0));
	EXPECT_ZERO(pev_record_cpumode, (NULL));
	NO_POINTER(pev_cpumode_name);
	EXPECT_FALSE(pev_record_exact_ip, (NULL));
	EXPECT_FALSE(pev_record_mmap_data, (NULL));
	EXPECT_FALSE(pev_record_mmap_build_id, (NULL));
	EXPECT_FALSE(pev_record_comm_exec, (NULL));
	EXPECT_FALSE(pev_record_switch_out, (NULL));
	EXPECT_FALSE(pev_record_switch_preempt, (NULL));
	EXPECT_VOID(pev_callchain_iter_init, (NULL, NULL, 0));
	EXPECT_FALSE(pev_callchain_iter_next, (NULL, NULL));
	NO_POINTER(pev_callchain_is_context);
	NO_POINTER(pev_callchain_context_name);
}

Test(null_args, replay)
{
	EXPECT_NULL(pev_replay_cgroup_path, (NULL, 0));
	EXPECT_NULL(pev_replay_sample_cgroup, (NULL, NULL));
	EXPECT_BADARG(pev_replay_open, (NULL, NULL, NULL, NULL));
	EXPECT_BADARG(pev_replay_next, (NULL, NULL, NULL));
	EXPECT_ZERO(pev_replay_lost, (NULL));
	EXPECT_NULL(pev_replay_symbols, (NULL));
	EXPECT_VOID(pev_replay_close, (NULL));
	EXPECT_ZERO(pev_replay_event_unit, (NULL));
	EXPECT_NULL(pev_replay_event_name, (NULL, NULL, 0));
	EXPECT_BADARG(pev_profile_load, (NULL, NULL, NULL, NULL));
	EXPECT_BADARG(pev_read_periods_new, (NULL, NULL));
	EXPECT_VOID(pev_read_periods_free, (NULL));
	EXPECT_BADARG(pev_read_periods_take, (NULL, NULL, 0, NULL));
	EXPECT_ZERO(pev_read_periods_backwards, (NULL, NULL));
}

Test(null_args, report)
{
	EXPECT_BADARG(pev_profile_new, (NULL));
	EXPECT_VOID(pev_profile_free, (NULL));
	EXPECT_BADARG(pev_profile_add_event, (NULL, NULL));
	EXPECT_BADARG(pev_profile_add_sample, (NULL, NULL));
	EXPECT_BADARG(pev_profile_set_group, (NULL, 0, 0, NULL));
	EXPECT_BADARG(pev_profile_set_lost, (NULL, 0));
	EXPECT_BADARG(pev_profile_set_time, (NULL, 0, 0));
	EXPECT_BADARG(pev_profile_add_wall_clock, (NULL, NULL));
	EXPECT_BADARG(pev_profile_event_flags, (NULL, 0, NULL));
	EXPECT_BADARG(pev_profile_add_mapping, (NULL, NULL));
	EXPECT_BADARG(pev_profile_time, (NULL, NULL, NULL));
	EXPECT_ZERO(pev_profile_nr_events, (NULL));
	EXPECT_BADARG(pev_profile_totals, (NULL, 0, NULL, NULL));
	EXPECT_BADARG(pev_profile_write_table, (NULL, NULL, NULL, NULL));
	EXPECT_BADARG(pev_profile_write_folded, (NULL, NULL, NULL, NULL));
	EXPECT_BADARG(pev_profile_write_flamegraph, (NULL, NULL, NULL, NULL));
	EXPECT_BADARG(pev_profile_write_pprof, (NULL, NULL, NULL, NULL));
	EXPECT_BADARG(pev_profile_write_json, (NULL, NULL, NULL, NULL));
	EXPECT_BADARG(pev_profile_write_gecko, (NULL, NULL, NULL, NULL));
	EXPECT_BADARG(pev_profile_write_otlp, (NULL, NULL, NULL, NULL));
	EXPECT_BADARG(pev_profile_write_speedscope, (NULL, NULL, NULL, NULL));
	EXPECT_BADARG(pev_profile_keep_timeline, (NULL));
	EXPECT_BADARG(pev_profile_add_marker, (NULL, NULL));
}

Test(null_args, ring)
{
	EXPECT_BADARG(pev_ring_open, (NULL, 0, 0, NULL, NULL));
	EXPECT_BADARG(pev_ring_open_opts, (NULL, 0, NULL, NULL, NULL));
	EXPECT_VOID(pev_ring_close, (NULL));
	EXPECT_NULL(pev_ring_page, (NULL));
	EXPECT_ZERO(pev_ring_data_size, (NULL));
	EXPECT_BADARG(pev_ring_fd, (NULL));
	EXPECT_FALSE(pev_ring_overwrite, (NULL));
	EXPECT_BADARG(pev_ring_begin, (NULL));
	EXPECT_BADARG(pev_ring_next, (NULL, NULL));
	EXPECT_BADARG(pev_ring_consume, (NULL));
	EXPECT_BADARG(pev_ring_end, (NULL));
	EXPECT_BADARG(pev_ring_skip, (NULL));
	EXPECT_BADARG(pev_ring_pending, (NULL));
	EXPECT_BADARG(pev_ring_stats, (NULL, NULL));
	EXPECT_ZERO(pev_ring_aux_size, (NULL));
	EXPECT_BADARG(pev_ring_aux_begin, (NULL, NULL));
	EXPECT_BADARG(pev_ring_aux_end, (NULL, 0));
	EXPECT_BADARG(pev_ring_redirect, (NULL, NULL, 0, NULL));
	EXPECT_BADARG(pev_ring_poll, (NULL, 1, 0, NULL));
	EXPECT_VALUE(pev_ring_poll, (NULL, 0, 0, NULL),
	             0); /* documented: no rings, nothing ready */
}

Test(null_args, selfmon)
{
	EXPECT_BADARG(pev_mmap_read, (NULL, NULL));
	EXPECT_BADARG(pev_selfmon_open, (NULL, NULL, NULL));
	EXPECT_VOID(pev_selfmon_close, (NULL));
	EXPECT_BADARG(pev_selfmon_count, (NULL));
	EXPECT_NULL(pev_selfmon_name, (NULL, 0));
	EXPECT_FALSE(pev_selfmon_uses_rdpmc, (NULL, 0));
	EXPECT_BADARG(pev_selfmon_rdpmc_error, (NULL, 0, NULL));
	EXPECT_BADARG(pev_selfmon_start, (NULL));
	EXPECT_BADARG(pev_selfmon_stop, (NULL));
	EXPECT_BADARG(pev_selfmon_read, (NULL, NULL, 0));
}

Test(null_args, session)
{
	EXPECT_BADARG(pev_session_open, (NULL, NULL, NULL));
	EXPECT_VOID(pev_session_close, (NULL));
	EXPECT_BADARG(pev_session_enable, (NULL));
	EXPECT_BADARG(pev_session_disable, (NULL));
	EXPECT_BADARG(pev_session_nr_events, (NULL));
	EXPECT_NULL(pev_session_counter, (NULL, 0));
	EXPECT_BADARG(pev_session_nr_rings, (NULL));
	EXPECT_BADARG(pev_session_ring_fd, (NULL, 0));
	EXPECT_BADARG(pev_session_ring_cpu, (NULL, 0));
	EXPECT_BADARG(pev_session_ring_tid, (NULL, 0));
	EXPECT_BADARG(pev_session_poll, (NULL, 0));
	EXPECT_FALSE(pev_session_finished, (NULL));
	EXPECT_BADARG(pev_session_read, (NULL, NULL));
	EXPECT_BADARG(pev_session_flush, (NULL));
	EXPECT_BADARG(pev_session_stats, (NULL, 0, 0, NULL));
}

Test(null_args, signal)
{
	EXPECT_BADARG(pev_counter_notify, (NULL, NULL, NULL));
	EXPECT_BADARG(pev_counter_notify_stop, (NULL));
	EXPECT_BADARG(pev_counter_lookup_fd, (NULL, 0));
	EXPECT_BADARG(pev_siginfo_decode, (NULL, NULL));
}

Test(null_args, symbols)
{
	EXPECT_BADARG(pev_symbols_new, (NULL, NULL, NULL));
	EXPECT_VOID(pev_symbols_free, (NULL));
	EXPECT_BADARG(pev_symbols_add_mapping, (NULL, 0, 0, 0, 0, NULL, NULL, 0));
	EXPECT_BADARG(pev_symbols_read_process, (NULL, 0, NULL));
	EXPECT_ZERO(pev_maps_name_lookup, (NULL, 0, NULL, NULL, 0)); /* "" */
	EXPECT_BADARG(pev_symbols_fork, (NULL, 0, 0));
	EXPECT_BADARG(pev_symbols_exec, (NULL, 0));
	EXPECT_BADARG(pev_symbols_exit, (NULL, 0));
	EXPECT_BADARG(pev_symbols_thread, (NULL, 0, 0));
	EXPECT_BADARG(pev_symbols_exit_thread, (NULL, 0, 0));
	EXPECT_BADARG(pev_symbols_feed, (NULL, NULL));
	EXPECT_BADARG(pev_symbols_resolve, (NULL, 0, 0, NULL));
	EXPECT_BADARG(pev_symbols_read_kernel, (NULL, NULL));
	EXPECT_NULL(pev_symbols_kernel_message, (NULL));
	EXPECT_BADARG(pev_symbols_stats, (NULL, NULL));
	NO_POINTER(pev_symbol_status_str);
	EXPECT_BADARG(pev_symbol_format, (NULL, NULL, 0));
}

Test(null_args, tracepoint)
{
	EXPECT_BADARG(pev_tracefs_path, (0, NULL, 0, NULL));
	EXPECT_BADARG(pev_tracepoints_foreach, (NULL, NULL, NULL, NULL, NULL, NULL));
	EXPECT_BADARG(pev_tracepoint_id, (NULL, NULL, NULL, NULL, NULL));
	EXPECT_BADARG(pev_tp_format_parse, (NULL, 0, NULL, NULL));
	EXPECT_BADARG(pev_tp_format_load, (NULL, NULL, NULL, NULL, NULL));
	EXPECT_VOID(pev_tp_format_free, (NULL));
	EXPECT_NULL(pev_tp_format_name, (NULL));
	EXPECT_ZERO(pev_tp_format_id, (NULL));
	EXPECT_NULL(pev_tp_format_print_fmt, (NULL));
	EXPECT_ZERO(pev_tp_format_nr_fields, (NULL));
	EXPECT_NULL(pev_tp_format_field_at, (NULL, 0));
	EXPECT_NULL(pev_tp_format_field, (NULL, NULL));
	EXPECT_BADARG(pev_tp_field_int, (NULL, NULL, 0, NULL));
	EXPECT_BADARG(pev_tp_field_uint, (NULL, NULL, 0, NULL));
	EXPECT_BADARG(pev_tp_field_bytes, (NULL, NULL, 0, NULL, NULL));
	EXPECT_BADARG(pev_tp_format_print, (NULL, NULL, 0, NULL, 0));
	EXPECT_BADARG(pev_tp_printer_new, (NULL, NULL));
	EXPECT_BADARG(pev_tp_printer_add_format, (NULL, NULL, NULL, 0, NULL));
	EXPECT_BADARG(pev_tp_printer_load, (NULL, NULL, NULL, NULL, NULL));
	EXPECT_BADARG(pev_tp_printer_add_tracing_data, (NULL, NULL, 0, NULL));
	EXPECT_BADARG(pev_tp_printer_nr_formats, (NULL));
	EXPECT_BADARG(pev_tp_printer_nr_dropped, (NULL));
	EXPECT_BADARG(pev_tp_printer_print, (NULL, 0, NULL, 0, 0, 0, NULL, 0));
	EXPECT_VOID(pev_tp_printer_free, (NULL));
}
Test(null_args, version)
{
	NO_POINTER(pev_version);
	NO_POINTER(pev_version_number);
}

Test(null_args, last_error)
{
	NO_POINTER(pev_last_error);
	cr_expect_not_null(pev_last_error());
}

/* ---- every export is called above -------------------------------------------------- */

Test(null_args, every_exported_function_is_called_above)
{
	const char *lib = getenv("PERFEV_SHARED_LIBRARY");
	const char *root = getenv("PERFEV_SOURCE_ROOT");
	char cmd[1024], *self, *nm;
	int exports = 0;

	cr_assert(lib && root,
	          "run through meson test (PERFEV_SHARED_LIBRARY, PERFEV_SOURCE_ROOT)");
	snprintf(cmd, sizeof(cmd), "cat '%s/tests/test_api_null.c'", root);
	self = th_sh_ok(cmd);
	snprintf(cmd, sizeof(cmd), "nm -D --defined-only '%s'", lib);
	nm = th_sh_ok(cmd);
	for (char *line = strtok(nm, "\n"); line; line = strtok(NULL, "\n")) {
		char type, name[256], pattern[300];
		if (sscanf(line, "%*s %c %255[^@ ]", &type, name) != 2 || type != 'T')
			continue;
		exports++;
		snprintf(pattern, sizeof(pattern), "(%s,", name);
		bool called = strstr(self, pattern);
		snprintf(pattern, sizeof(pattern), "(%s)", name);
		called = called || strstr(self, pattern);
		cr_expect(called, "%s is exported but not called by this test", name);
	}
	cr_expect_gt(exports, 100, "nm listed %d functions", exports);
	free(self);
	free(nm);
}

/* ---- errors: 0 is a success, and a success leaves no old message ------------------------- */

Test(null_args, code_zero_is_success)
{
	char buf[64];
	struct pev_error err;

	cr_expect_str_eq(pev_strerror(0), "success");
	cr_expect_str_eq(pev_error_name(0), "Success");
	memset(&err, 0, sizeof(err));
	size_t size = sizeof(buf);
	cr_expect_str_eq(pev_error_format(&err, buf, size), "success\n");
}

/* Fails a call to fill err, then checks that a successful call leaves it empty. */
static void expect_clean(const struct pev_error *err, const char *what)
{
	cr_expect_eq(err->code, 0, "%s: code %d left after a success", what, err->code);
	cr_expect_str_eq(err->message, "", "%s left '%s'", what, err->message);
	cr_expect_str_eq(err->hint, "", "%s left a hint", what);
	cr_expect_str_eq(err->field, "", "%s left a field", what);
	cr_expect_eq(err->position, -1, "%s", what);
}

static void dirty(struct pev_error *err)
{
	struct pev_event_list *l = NULL;

	cr_assert_lt(pev_event_parse("no-such-event-xyz//", NULL, &l, err), 0);
	cr_assert_neq(err->message[0], '\0');
}

Test(null_args, a_success_clears_an_error_a_failure_filled, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_error err;
	struct pev_attr attr;
	struct pev_event_list *l = NULL;
	struct pev_counter *c = NULL;
	struct pev_session *s = NULL;
	struct pev_ring *ring = NULL;
	struct pev_pmus *pmus = NULL;

	dirty(&err);
	cr_assert_eq(pev_attr_encode(&attr, &ev, &o, &err), 0);
	expect_clean(&err, "pev_attr_encode");

	dirty(&err);
	cr_assert_eq(pev_event_parse("task-clock,page-faults:u", NULL, &l, &err), 0);
	expect_clean(&err, "pev_event_parse");
	pev_event_list_free(l);

	dirty(&err);
	cr_assert_eq(pev_pmus_read(NULL, &pmus, &err), 0);
	expect_clean(&err, "pev_pmus_read");
	pev_pmus_free(pmus);

	dirty(&err);
	o.sample_period = 100000;
	cr_assert_eq(pev_counter_open(&ev, &o, NULL, NULL, &c, &err), 0, "%s", err.message);
	expect_clean(&err, "pev_counter_open");

	dirty(&err);
	cr_assert_eq(pev_ring_open(c, 0, 1, &ring, &err), 0, "%s", err.message);
	expect_clean(&err, "pev_ring_open");
	pev_ring_close(ring);
	pev_counter_close(c);

	struct pev_session_opts so = PEV_SESSION_OPTS_INIT;
	so.event_text = "task-clock";
	dirty(&err);
	cr_assert_eq(pev_session_open(&so, &s, &err), 0, "%s", err.message);
	expect_clean(&err, "pev_session_open");
	pev_session_close(s);
}

/* ---- docs/API.md classifies every public struct ------------------------------------------ */

Test(null_args, api_md_names_every_public_struct)
{
	const char *root = getenv("PERFEV_SOURCE_ROOT");
	char cmd[1024], *doc, *names;
	int structs = 0;

	cr_assert(root, "run through meson test (PERFEV_SOURCE_ROOT)");
	snprintf(cmd, sizeof(cmd), "sed -n '/^## ABI and compatibility/,$p' '%s/docs/API.md'",
	         root);
	doc = th_sh_ok(cmd);
	snprintf(cmd, sizeof(cmd),
	         "sed -n 's/^struct \\(pev_[a-z0-9_]*\\) {$/\\1/p' '%s'/include/perfev/*.h", root);
	names = th_sh_ok(cmd);
	for (char *name = strtok(names, "\n"); name; name = strtok(NULL, "\n")) {
		char quoted[160];
		structs++;
		snprintf(quoted, sizeof(quoted), "`%s`", name);
		bool named = strstr(doc, quoted);
		snprintf(quoted, sizeof(quoted), "`struct %s`", name);
		named = named || strstr(doc, quoted);
		cr_expect(named, "docs/API.md does not say how struct %s grows", name);
	}
	cr_expect_gt(structs, 50, "%d structs found", structs);
	free(doc);
	free(names);
}
