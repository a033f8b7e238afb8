/* SPDX-License-Identifier: MIT */
/*
 * names.c - names of attribute bits, indexed by bit number.
 */
#include "core/names.h"

#include "core/util.h"

static const char *const flag_names[] = {
	"disabled", "inherit", "pinned", "exclusive", "exclude_user", "exclude_kernel",
	"exclude_hv", "exclude_idle", "mmap", "comm", "freq", "inherit_stat", "enable_on_exec",
	"task", "watermark", "precise_ip", "precise_ip", "mmap_data", "sample_id_all",
	"exclude_host", "exclude_guest", "exclude_callchain_kernel", "exclude_callchain_user",
	"mmap2", "comm_exec", "use_clockid", "context_switch", "write_backward", "namespaces",
	"ksymbol", "bpf_event", "aux_output", "cgroup", "text_poke", "build_id", "inherit_thread",
	"remove_on_exec", "sigtrap",
};

static const char *const sample_names[] = {
	"IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU", "PERIOD", "STREAM_ID",
	"RAW", "BRANCH_STACK", "REGS_USER", "STACK_USER", "WEIGHT", "DATA_SRC", "IDENTIFIER",
	"TRANSACTION", "REGS_INTR", "PHYS_ADDR", "AUX", "CGROUP", "DATA_PAGE_SIZE",
	"CODE_PAGE_SIZE", "WEIGHT_STRUCT",
};

static const char *const read_format_names[] = {
	"TOTAL_TIME_ENABLED", "TOTAL_TIME_RUNNING", "ID", "GROUP", "LOST",
};

static const char *const aux_names[] = {"aux_start_paused", "aux_pause", "aux_resume"};

#define NAME_AT(table, bit)                                                                        \
	((bit) >= 0 && (unsigned)(bit) < PEV_ARRAY_SIZE(table) ? (table)[bit] : NULL)

const char *pev__flag_bit_name(int bit)
{
	return NAME_AT(flag_names, bit);
}

const char *pev__sample_bit_name(int bit)
{
	return NAME_AT(sample_names, bit);
}

const char *pev__read_format_bit_name(int bit)
{
	return NAME_AT(read_format_names, bit);
}

const char *pev__aux_bit_name(int bit)
{
	return NAME_AT(aux_names, bit);
}
