/* SPDX-License-Identifier: MIT */
/*
 * test_event.c - an event's identity: perf's generic names and aliases
 * (pev_event_lookup), descriptions (pev_event_describe, pev_hw_name,
 * pev_sw_name), and PMU types and probes read from sysfs (pev_pmu_type,
 * pev_event_uprobe, pev_event_kprobe) under the fake sysfs roots in
 * tests/fixtures/sysfs-probes/.
 *
 * Expected types and configs are literal numbers from the kernel's
 * documentation (type 0 hardware, 1 software, 3 cache with config
 * id | op << 8 | result << 16), not perfev's constants.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

/* ---- generic hardware and software names ------------------------------- */

static void check_lookup(const char *name, uint32_t type, uint64_t config)
{
	struct pev_event ev;
	int r;

	memset(&ev, 0x5a, sizeof(ev));
	r = pev_event_lookup(name, &ev);
	cr_assert_eq(r, 0, "'%s': pev_event_lookup returned %d (%s)", name, r, pev_error_name(r));
	cr_assert_eq(ev.type, type, "'%s': type %u, expected %u", name, ev.type, type);
	cr_assert_eq(ev.config, config, "'%s': config %#llx, expected %#llx", name,
		     (unsigned long long)ev.config, (unsigned long long)config);
	cr_assert_eq(ev.config1, 0, "'%s': config1 set", name);
	cr_assert_eq(ev.config2, 0, "'%s': config2 set", name);
	cr_assert_eq(ev.config3, 0, "'%s': config3 set", name);
	cr_assert_eq(ev.bp_type, 0, "'%s': bp_type set", name);
	cr_assert_null(ev.pmu, "'%s': pmu set", name);
}

/* A generic hardware or software name: the event's name is the spelling looked up. */
#define LOOKUP_TEST(ident, spelling, type, config)                                                 \
	Test(event_lookup, ident)                                                                  \
	{                                                                                          \
		struct pev_event ev;                                                               \
		check_lookup(spelling, type, config);                                              \
		cr_assert_eq(pev_event_lookup(spelling, &ev), 0);                                  \
		cr_assert_not_null(ev.name);                                                       \
		cr_assert_str_eq(ev.name, spelling);                                               \
	}

/* Hardware: type 0. */
LOOKUP_TEST(cpu_cycles, "cpu-cycles", 0, 0)
LOOKUP_TEST(cycles, "cycles", 0, 0)
LOOKUP_TEST(instructions, "instructions", 0, 1)
LOOKUP_TEST(cache_references, "cache-references", 0, 2)
LOOKUP_TEST(cache_misses, "cache-misses", 0, 3)
LOOKUP_TEST(branch_instructions, "branch-instructions", 0, 4)
LOOKUP_TEST(branches, "branches", 0, 4)
LOOKUP_TEST(branch_misses, "branch-misses", 0, 5)
LOOKUP_TEST(bus_cycles, "bus-cycles", 0, 6)
LOOKUP_TEST(stalled_cycles_frontend, "stalled-cycles-frontend", 0, 7)
LOOKUP_TEST(idle_cycles_frontend, "idle-cycles-frontend", 0, 7)
LOOKUP_TEST(stalled_cycles_backend, "stalled-cycles-backend", 0, 8)
LOOKUP_TEST(idle_cycles_backend, "idle-cycles-backend", 0, 8)
LOOKUP_TEST(ref_cycles, "ref-cycles", 0, 9)

/* Software: type 1. */
LOOKUP_TEST(cpu_clock, "cpu-clock", 1, 0)
LOOKUP_TEST(task_clock, "task-clock", 1, 1)
LOOKUP_TEST(page_faults, "page-faults", 1, 2)
LOOKUP_TEST(faults, "faults", 1, 2)
LOOKUP_TEST(context_switches, "context-switches", 1, 3)
LOOKUP_TEST(cs, "cs", 1, 3)
LOOKUP_TEST(cpu_migrations, "cpu-migrations", 1, 4)
LOOKUP_TEST(migrations, "migrations", 1, 4)
LOOKUP_TEST(minor_faults, "minor-faults", 1, 5)
LOOKUP_TEST(major_faults, "major-faults", 1, 6)
LOOKUP_TEST(alignment_faults, "alignment-faults", 1, 7)
LOOKUP_TEST(emulation_faults, "emulation-faults", 1, 8)
LOOKUP_TEST(dummy, "dummy", 1, 9)
LOOKUP_TEST(bpf_output, "bpf-output", 1, 10)
LOOKUP_TEST(cgroup_switches, "cgroup-switches", 1, 11)
#undef LOOKUP_TEST

/* ---- cache events: every valid level x op x result by perf's name ------- */

#define CACHE_TEST(ident, name, config)                                                            \
	Test(event_lookup_cache, ident)                                                            \
	{                                                                                          \
		check_lookup(name, 3, config);                                                     \
	}

/* L1-dcache (id 0): read, write, prefetch. */
CACHE_TEST(L1_dcache_loads, "L1-dcache-loads", 0x00000)
CACHE_TEST(L1_dcache_load_misses, "L1-dcache-load-misses", 0x10000)
CACHE_TEST(L1_dcache_stores, "L1-dcache-stores", 0x00100)
CACHE_TEST(L1_dcache_store_misses, "L1-dcache-store-misses", 0x10100)
CACHE_TEST(L1_dcache_prefetches, "L1-dcache-prefetches", 0x00200)
CACHE_TEST(L1_dcache_prefetch_misses, "L1-dcache-prefetch-misses", 0x10200)
/* L1-icache (id 1): read, prefetch. */
CACHE_TEST(L1_icache_loads, "L1-icache-loads", 0x00001)
CACHE_TEST(L1_icache_load_misses, "L1-icache-load-misses", 0x10001)
CACHE_TEST(L1_icache_prefetches, "L1-icache-prefetches", 0x00201)
CACHE_TEST(L1_icache_prefetch_misses, "L1-icache-prefetch-misses", 0x10201)
/* LLC (id 2): read, write, prefetch. */
CACHE_TEST(LLC_loads, "LLC-loads", 0x00002)
CACHE_TEST(LLC_load_misses, "LLC-load-misses", 0x10002)
CACHE_TEST(LLC_stores, "LLC-stores", 0x00102)
CACHE_TEST(LLC_store_misses, "LLC-store-misses", 0x10102)
CACHE_TEST(LLC_prefetches, "LLC-prefetches", 0x00202)
CACHE_TEST(LLC_prefetch_misses, "LLC-prefetch-misses", 0x10202)
/* dTLB (id 3): read, write, prefetch. */
CACHE_TEST(dTLB_loads, "dTLB-loads", 0x00003)
CACHE_TEST(dTLB_load_misses, "dTLB-load-misses", 0x10003)
CACHE_TEST(dTLB_stores, "dTLB-stores", 0x00103)
CACHE_TEST(dTLB_store_misses, "dTLB-store-misses", 0x10103)
CACHE_TEST(dTLB_prefetches, "dTLB-prefetches", 0x00203)
CACHE_TEST(dTLB_prefetch_misses, "dTLB-prefetch-misses", 0x10203)
/* iTLB (id 4): read only. */
CACHE_TEST(iTLB_loads, "iTLB-loads", 0x00004)
CACHE_TEST(iTLB_load_misses, "iTLB-load-misses", 0x10004)
/* branch (id 5): read only. */
CACHE_TEST(branch_loads, "branch-loads", 0x00005)
CACHE_TEST(branch_load_misses, "branch-load-misses", 0x10005)
/* node (id 6): read, write, prefetch. */
CACHE_TEST(node_loads, "node-loads", 0x00006)
CACHE_TEST(node_load_misses, "node-load-misses", 0x10006)
CACHE_TEST(node_stores, "node-stores", 0x00106)
CACHE_TEST(node_store_misses, "node-store-misses", 0x10106)
CACHE_TEST(node_prefetches, "node-prefetches", 0x00206)
CACHE_TEST(node_prefetch_misses, "node-prefetch-misses", 0x10206)
#undef CACHE_TEST

/* ---- cache events: perf's other spellings ------------------------------ */

#define CACHE_ALIAS_TEST(ident, name, config)                                                      \
	Test(event_lookup_cache_alias, ident)                                                      \
	{                                                                                          \
		check_lookup(name, 3, config);                                                     \
	}

CACHE_ALIAS_TEST(l1d_loads, "l1d-loads", 0x00000)
CACHE_ALIAS_TEST(l1_d_load_misses, "l1-d-load-misses", 0x10000)
CACHE_ALIAS_TEST(L1_data_stores, "L1-data-stores", 0x00100)
CACHE_ALIAS_TEST(l1i_loads, "l1i-loads", 0x00001)
CACHE_ALIAS_TEST(L1_instruction_load_misses, "L1-instruction-load-misses", 0x10001)
CACHE_ALIAS_TEST(l1_i_speculative_read, "l1-i-speculative-read", 0x00201)
CACHE_ALIAS_TEST(LLC_load_miss, "LLC-load-miss", 0x10002)
CACHE_ALIAS_TEST(L2_loads, "L2-loads", 0x00002)
CACHE_ALIAS_TEST(LLC_load_refs, "LLC-load-refs", 0x00002)
CACHE_ALIAS_TEST(LLC_read_access, "LLC-read-access", 0x00002)
CACHE_ALIAS_TEST(LLC_write_ops, "LLC-write-ops", 0x00102)
CACHE_ALIAS_TEST(dTLB_read_misses, "dTLB-read-misses", 0x10003)
CACHE_ALIAS_TEST(d_tlb_write_misses, "d-tlb-write-misses", 0x10103)
CACHE_ALIAS_TEST(Data_TLB_speculative_load, "Data-TLB-speculative-load", 0x00203)
CACHE_ALIAS_TEST(i_tlb_load_misses, "i-tlb-load-misses", 0x10004)
CACHE_ALIAS_TEST(Instruction_TLB_loads, "Instruction-TLB-loads", 0x00004)
CACHE_ALIAS_TEST(bpu_loads, "bpu-loads", 0x00005)
CACHE_ALIAS_TEST(btb_load_misses, "btb-load-misses", 0x10005)
CACHE_ALIAS_TEST(bpc_read, "bpc-read", 0x00005)
CACHE_ALIAS_TEST(branches_loads, "branches-loads", 0x00005)
CACHE_ALIAS_TEST(node_speculative_read_misses, "node-speculative-read-misses", 0x10206)
CACHE_ALIAS_TEST(L1_dcache_load_without_result, "L1-dcache-load", 0x00000)
CACHE_ALIAS_TEST(L1_dcache_stores_plural_op, "L1-dcache-stores", 0x00100)
#undef CACHE_ALIAS_TEST

/* "<level>-<result>" reads with the default operation, read. */
Test(event_lookup_cache_alias, level_and_result_means_the_read_operation)
{
	check_lookup("LLC-misses", 3, 0x10002);
	check_lookup("L1-dcache-misses", 3, 0x10000);
	check_lookup("LLC-refs", 3, 0x00002);
}

Test(event_lookup_cache_alias, hardware_names_win_over_cache_spellings)
{
	/* "branch-misses" and "branches" are hardware events, not the BPU cache. */
	check_lookup("branch-misses", 0, 5);
	check_lookup("branches", 0, 4);
}

Test(event_lookup_cache_alias, cache_events_have_no_pmu)
{
	struct pev_event ev;

	cr_assert_eq(pev_event_lookup("LLC-load-misses", &ev), 0);
	cr_assert_null(ev.pmu);
}

/* ---- names that are not generic events -------------------------------- */

static void check_not_found(const char *name)
{
	struct pev_event ev;
	int r = pev_event_lookup(name, &ev);

	cr_assert_eq(r, PEV_ENOTFOUND, "'%s': expected PEV_ENOTFOUND, got %d (%s)", name, r,
		     pev_error_name(r));
}

#define NOT_FOUND_TEST(ident, name)                                                                \
	Test(event_lookup_invalid, ident)                                                          \
	{                                                                                          \
		check_not_found(name);                                                             \
	}

/* Operations perf does not offer for that level. */
NOT_FOUND_TEST(iTLB_stores, "iTLB-stores")
NOT_FOUND_TEST(iTLB_store_misses, "iTLB-store-misses")
NOT_FOUND_TEST(iTLB_prefetches, "iTLB-prefetches")
NOT_FOUND_TEST(L1_icache_stores, "L1-icache-stores")
NOT_FOUND_TEST(L1_icache_store_misses, "L1-icache-store-misses")
NOT_FOUND_TEST(branch_prefetches, "branch-prefetches")
NOT_FOUND_TEST(branch_stores, "branch-stores")
/* Malformed cache names. */
NOT_FOUND_TEST(LLC_bogus, "LLC-bogus")
NOT_FOUND_TEST(level_alone, "L1-dcache")
NOT_FOUND_TEST(level_and_dash, "L1-dcache-")
NOT_FOUND_TEST(result_before_op, "LLC-misses-loads")
NOT_FOUND_TEST(trailing_junk, "L1-dcache-load-misses-x")
NOT_FOUND_TEST(level_glued_to_op, "LLCloads")
NOT_FOUND_TEST(unknown_level, "L3-loads")
NOT_FOUND_TEST(double_result, "dTLB-load-misses-misses")
/* Not generic events at all. */
NOT_FOUND_TEST(empty_string, "")
NOT_FOUND_TEST(with_modifier, "cycles:u")
NOT_FOUND_TEST(underscore_spelling, "cpu_cycles")
NOT_FOUND_TEST(tracepoint_name, "sched:sched_switch")
NOT_FOUND_TEST(unknown_word, "bogus")
#undef NOT_FOUND_TEST

Test(event_lookup_invalid, null_arguments_are_bad)
{
	struct pev_event ev;

	cr_assert_eq(pev_event_lookup(NULL, &ev), PEV_EBADARG);
	cr_assert_eq(pev_event_lookup("cycles", NULL), PEV_EBADARG);
}

/* ---- pev_hw_name, pev_sw_name ----------------------------------------- */

Test(event_names, every_hardware_id_has_a_name_that_looks_up_to_it)
{
	for (uint64_t id = 0; id < 10; id++) {
		const char *n = pev_hw_name(id);
		struct pev_event ev;

		cr_assert_not_null(n, "no name for hardware id %llu", (unsigned long long)id);
		cr_assert_eq(pev_event_lookup(n, &ev), 0, "'%s' does not look up", n);
		cr_assert_eq(ev.type, 0);
		cr_assert_eq(ev.config, id, "'%s' is config %llu, not %llu", n,
			     (unsigned long long)ev.config, (unsigned long long)id);
	}
}

Test(event_names, hardware_names_are_perfs)
{
	cr_assert_str_eq(pev_hw_name(1), "instructions");
	cr_assert_str_eq(pev_hw_name(2), "cache-references");
	cr_assert_str_eq(pev_hw_name(3), "cache-misses");
	cr_assert_str_eq(pev_hw_name(5), "branch-misses");
	cr_assert_str_eq(pev_hw_name(6), "bus-cycles");
	cr_assert_str_eq(pev_hw_name(7), "stalled-cycles-frontend");
	cr_assert_str_eq(pev_hw_name(8), "stalled-cycles-backend");
	cr_assert_str_eq(pev_hw_name(9), "ref-cycles");
}

Test(event_names, software_names_are_perfs)
{
	static const char *const expected[] = {
		"cpu-clock",      "task-clock",       "page-faults",      "context-switches",
		"cpu-migrations", "minor-faults",     "major-faults",     "alignment-faults",
		"emulation-faults", "dummy",          "bpf-output",       "cgroup-switches",
	};

	for (uint64_t id = 0; id < sizeof(expected) / sizeof(expected[0]); id++) {
		const char *n = pev_sw_name(id);
		cr_assert_not_null(n, "no name for software id %llu", (unsigned long long)id);
		cr_assert_str_eq(n, expected[id]);
	}
}

Test(event_names, hardware_id_out_of_range_has_no_name)
{
	cr_assert_null(pev_hw_name(10));
	cr_assert_null(pev_hw_name(11));
	cr_assert_null(pev_hw_name(UINT64_MAX));
	cr_assert_null(pev_hw_name(UINT64_C(1) << 32));
}

Test(event_names, software_id_out_of_range_has_no_name)
{
	cr_assert_null(pev_sw_name(12));
	cr_assert_null(pev_sw_name(1000));
	cr_assert_null(pev_sw_name(UINT64_MAX));
}

/* ---- pev_event_describe ------------------------------------------------ */

static void check_describe(const struct pev_event *ev, const char *expected)
{
	char buf[128];

	memset(buf, 'x', sizeof(buf));
	cr_assert_eq(pev_event_describe(ev, buf, sizeof(buf)), buf);
	cr_assert_str_eq(buf, expected);
}

Test(event_describe, own_name_comes_first)
{
	struct pev_event ev = pev_event_software(1);

	ev.name = "my-clock";
	check_describe(&ev, "my-clock");
}

Test(event_describe, hardware_by_perfs_name)
{
	struct pev_event ev = {.type = 0, .config = 1};

	check_describe(&ev, "instructions");
}

Test(event_describe, hardware_on_a_hybrid_pmu_names_the_pmu_type)
{
	struct pev_event ev = {.type = 0, .config = (UINT64_C(8) << 32) | 1};

	check_describe(&ev, "instructions (PMU type 8)");
}

Test(event_describe, hardware_unknown_id_by_number)
{
	struct pev_event ev = {.type = 0, .config = 42};

	check_describe(&ev, "hardware event 42");
}

Test(event_describe, software_by_perfs_name)
{
	struct pev_event ev = {.type = 1, .config = 3};

	check_describe(&ev, "context-switches");
}

Test(event_describe, software_unknown_id_by_number)
{
	struct pev_event ev = {.type = 1, .config = 99};

	check_describe(&ev, "software event 99");
}

Test(event_describe, cache_miss_by_canonical_name)
{
	struct pev_event ev = {.type = 3, .config = 0x10002};

	check_describe(&ev, "LLC-load-misses");
}

Test(event_describe, cache_access_by_canonical_name)
{
	struct pev_event ev = {.type = 3, .config = 0x203};

	check_describe(&ev, "dTLB-prefetches");
}

Test(event_describe, cache_out_of_range_by_number)
{
	struct pev_event ev = {.type = 3, .config = 0x7};

	check_describe(&ev, "cache event 0x7");
	ev.config = 0x1000002;
	check_describe(&ev, "cache event 0x1000002");
}

Test(event_describe, every_valid_cache_event_describes_to_a_name_that_looks_up_to_it)
{
	/* Operations perf offers per level: bit 0 read, bit 1 write, bit 2 prefetch. */
	static const unsigned ops[7] = {7, 5, 7, 7, 1, 1, 7};
	int n = 0;

	for (unsigned level = 0; level < 7; level++)
		for (unsigned op = 0; op < 3; op++)
			for (unsigned result = 0; result < 2; result++) {
				if (!(ops[level] & (1U << op)))
					continue;
				uint64_t config = level | op << 8 | result << 16;
				struct pev_event ev = {.type = 3, .config = config}, back;
				char buf[64];
				pev_event_describe(&ev, buf, sizeof(buf));
				cr_assert_eq(pev_event_lookup(buf, &back), 0,
					     "config %#llx describes as '%s', which does not look up",
					     (unsigned long long)config, buf);
				cr_assert_eq(back.type, 3);
				cr_assert_eq(back.config, config, "'%s'", buf);
				n++;
			}
	cr_assert_eq(n, 32);
}

Test(event_describe, raw_as_perfs_r_syntax)
{
	struct pev_event ev = {.type = 4, .config = 0x5300c0};

	check_describe(&ev, "r5300c0");
}

Test(event_describe, tracepoint_by_id)
{
	struct pev_event ev = {.type = 2, .config = 312};

	check_describe(&ev, "tracepoint 312");
}

Test(event_describe, breakpoint_as_perfs_mem_syntax)
{
	struct pev_event ev = {.type = 5, .bp_type = 2, .config1 = 0x601040, .config2 = 8};

	check_describe(&ev, "mem:0x601040/8:w");
	ev.bp_type = 3;
	check_describe(&ev, "mem:0x601040/8:rw");
	ev.bp_type = 4;
	check_describe(&ev, "mem:0x601040/8:x");
}

Test(event_describe, dynamic_pmu_by_its_name)
{
	struct pev_event ev = {.type = 10, .config = 1, .pmu = "msr"};

	check_describe(&ev, "msr/config=0x1/");
}

Test(event_describe, uprobe_by_path_and_offset)
{
	struct pev_event ev = {.type = 8, .config1 = (uint64_t)(uintptr_t)"/bin/true",
			       .config2 = 0x1040, .pmu = "uprobe"};

	check_describe(&ev, "uprobe:/bin/true+0x1040");
	ev.config = 1;
	check_describe(&ev, "uprobe (ret):/bin/true+0x1040");
}

Test(event_describe, uprobe_with_an_unreadable_path_pointer)
{
	struct pev_event ev = {.type = 8, .config1 = 1, .config2 = 0, .pmu = "uprobe"};

	check_describe(&ev, "uprobe:?+0x0");
}

Test(event_describe, dynamic_type_without_pmu_by_numbers)
{
	struct pev_event ev = {.type = 42, .config = 0x10};

	check_describe(&ev, "type 42 config 0x10");
}

Test(event_describe, truncates_to_the_buffer)
{
	struct pev_event ev = {.type = 1, .config = 1};
	char buf[5];

	pev_event_describe(&ev, buf, sizeof(buf));
	cr_assert_str_eq(buf, "task");
}

Test(event_describe, null_event_gives_an_empty_string)
{
	char buf[8] = "junk";

	cr_assert_eq(pev_event_describe(NULL, buf, sizeof(buf)), buf);
	cr_assert_str_eq(buf, "");
}

Test(event_describe, zero_size_buffer_is_left_alone)
{
	struct pev_event ev = {.type = 1, .config = 1};
	char buf[4] = "abc";

	cr_assert_eq(pev_event_describe(&ev, buf, 0), buf);
	cr_assert_str_eq(buf, "abc");
	cr_assert_null(pev_event_describe(&ev, NULL, 16));
}

/* ---- PMU types from a fake sysfs --------------------------------------- */

/* The fake sysfs root `which` (standard, retprobe-bit3, none) in the fixtures. */
static const char *sysfs_root(const char *which)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%s/sysfs-probes/%s", th_fixtures(), which);
	cr_assert_eq(access(path, F_OK), 0, "fixture %s is missing", path);
	return path;
}

Test(event_pmu_type, reads_the_type_file)
{
	const char *root = sysfs_root("standard");

	cr_assert_eq(pev_pmu_type("uprobe", root), 8);
	cr_assert_eq(pev_pmu_type("kprobe", root), 7);
	cr_assert_eq(pev_pmu_type("software", root), 1);
}

Test(event_pmu_type, missing_pmu_is_enoent)
{
	cr_assert_eq(pev_pmu_type("nosuch", sysfs_root("standard")), PEV_ENOENT);
	cr_assert_eq(pev_pmu_type("uprobe", sysfs_root("none")), PEV_ENOENT);
}

Test(event_pmu_type, missing_sysfs_root_is_enoent)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/sysfs-probes/does-not-exist", th_fixtures());
	cr_assert_eq(pev_pmu_type("software", path), PEV_ENOENT);
}

Test(event_pmu_type, malformed_type_file_is_enoent)
{
	cr_assert_eq(pev_pmu_type("broken", sysfs_root("standard")), PEV_ENOENT);
}

Test(event_pmu_type, negative_type_is_enoent)
{
	cr_assert_eq(pev_pmu_type("negative", sysfs_root("standard")), PEV_ENOENT);
}

Test(event_pmu_type, type_too_large_for_the_return_value_is_enoent)
{
	/* 3000000000 fits attr.type (u32) but not the int this function returns. */
	cr_assert_eq(pev_pmu_type("huge", sysfs_root("standard")), PEV_ENOENT);
}

Test(event_pmu_type, bad_names_are_bad_arguments)
{
	const char *root = sysfs_root("standard");

	cr_assert_eq(pev_pmu_type(NULL, root), PEV_EBADARG);
	cr_assert_eq(pev_pmu_type("", root), PEV_EBADARG);
	cr_assert_eq(pev_pmu_type("../devices/uprobe", root), PEV_EBADARG);
	cr_assert_eq(pev_pmu_type("uprobe/", root), PEV_EBADARG);
}

Test(event_pmu_type, null_root_reads_the_real_sys)
{
	if (access("/sys/bus/event_source/devices/software/type", R_OK) != 0)
		th_skip("no /sys/bus/event_source/devices/software on this machine");
	cr_assert_eq(pev_pmu_type("software", NULL), 1);
}

/* ---- uprobes and kprobes ----------------------------------------------- */

static const char probe_path[] = "/usr/bin/true";
static const char probe_func[] = "do_sys_openat2";

Test(event_probe, uprobe_takes_its_type_from_sysfs)
{
	struct pev_event ev;
	struct pev_error err;

	memset(&ev, 0x5a, sizeof(ev));
	cr_assert_eq(pev_event_uprobe(&ev, probe_path, 0x1234, false, sysfs_root("standard"), &err),
		     0, "%s", err.message);
	cr_assert_eq(ev.type, 8);
	cr_assert_eq(ev.config, 0);
	cr_assert_eq(ev.config1, (uint64_t)(uintptr_t)probe_path);
	cr_assert_eq(ev.config2, 0x1234);
	cr_assert_eq(ev.config3, 0);
	cr_assert_eq(ev.bp_type, 0);
	cr_assert_str_eq(ev.pmu, "uprobe");
}

Test(event_probe, uretprobe_sets_config_bit_0)
{
	struct pev_event ev;

	cr_assert_eq(pev_event_uprobe(&ev, probe_path, 0x1234, true, sysfs_root("standard"), NULL),
		     0);
	cr_assert_eq(ev.type, 8);
	cr_assert_eq(ev.config, 0x1);
	cr_assert_eq(ev.config1, (uint64_t)(uintptr_t)probe_path);
	cr_assert_eq(ev.config2, 0x1234);
}

Test(event_probe, uretprobe_bit_is_read_from_the_format_file)
{
	struct pev_event ev;

	cr_assert_eq(pev_event_uprobe(&ev, probe_path, 0, true, sysfs_root("retprobe-bit3"), NULL),
		     0);
	cr_assert_eq(ev.type, 9);
	cr_assert_eq(ev.config, 0x8, "config:3 in format/retprobe: config %#llx",
		     (unsigned long long)ev.config);
}

Test(event_probe, uprobe_without_retprobe_ignores_the_format_file)
{
	struct pev_event ev;

	cr_assert_eq(pev_event_uprobe(&ev, probe_path, 0, false, sysfs_root("retprobe-bit3"), NULL),
		     0);
	cr_assert_eq(ev.config, 0);
}

Test(event_probe, kprobe_takes_its_type_from_sysfs)
{
	struct pev_event ev;
	struct pev_error err;

	memset(&ev, 0x5a, sizeof(ev));
	cr_assert_eq(pev_event_kprobe(&ev, probe_func, 0x10, false, sysfs_root("standard"), &err),
		     0, "%s", err.message);
	cr_assert_eq(ev.type, 7);
	cr_assert_eq(ev.config, 0);
	cr_assert_eq(ev.config1, (uint64_t)(uintptr_t)probe_func);
	cr_assert_eq(ev.config2, 0x10);
	cr_assert_eq(ev.config3, 0);
	cr_assert_str_eq(ev.pmu, "kprobe");
}

Test(event_probe, kretprobe_sets_config_bit_0)
{
	struct pev_event ev;

	cr_assert_eq(pev_event_kprobe(&ev, probe_func, 0, true, sysfs_root("standard"), NULL), 0);
	cr_assert_eq(ev.type, 7);
	cr_assert_eq(ev.config, 0x1);
}

Test(event_probe, kretprobe_without_a_format_file_uses_bit_0)
{
	struct pev_event ev;

	cr_assert_eq(pev_event_kprobe(&ev, probe_func, 0, true, sysfs_root("retprobe-bit3"), NULL),
		     0);
	cr_assert_eq(ev.type, 10);
	cr_assert_eq(ev.config, 0x1);
}

Test(event_probe, uprobe_pmu_missing_is_enoent_naming_the_pmu)
{
	struct pev_event ev;
	struct pev_error err;

	memset(&err, 0, sizeof(err));
	cr_assert_eq(pev_event_uprobe(&ev, probe_path, 0, false, sysfs_root("none"), &err),
		     PEV_ENOENT);
	cr_assert_eq(err.code, PEV_ENOENT);
	cr_assert_eq(err.sys_errno, ENOENT);
	cr_assert(err.before_syscall);
	cr_assert_not_null(strstr(err.message, "uprobe"), "message: %s", err.message);
	cr_assert_str_neq(err.hint, "");
	cr_assert_str_eq(err.event, probe_path);
}

Test(event_probe, kprobe_pmu_missing_is_enoent_naming_the_pmu)
{
	struct pev_event ev;
	struct pev_error err;

	memset(&err, 0, sizeof(err));
	cr_assert_eq(pev_event_kprobe(&ev, probe_func, 0, false, sysfs_root("none"), &err),
		     PEV_ENOENT);
	cr_assert_eq(err.code, PEV_ENOENT);
	cr_assert_not_null(strstr(err.message, "kprobe"), "message: %s", err.message);
	cr_assert_null(strstr(err.message, "uprobe"), "message: %s", err.message);
	cr_assert_str_neq(err.hint, "");
	cr_assert_str_eq(err.event, probe_func);
}

Test(event_probe, missing_pmu_without_an_error_struct)
{
	struct pev_event ev;

	cr_assert_eq(pev_event_uprobe(&ev, probe_path, 0, false, sysfs_root("none"), NULL),
		     PEV_ENOENT);
	cr_assert_eq(pev_event_kprobe(&ev, probe_func, 0, false, sysfs_root("none"), NULL),
		     PEV_ENOENT);
}

Test(event_probe, uprobe_null_or_empty_arguments_are_bad)
{
	struct pev_event ev;
	struct pev_error err;
	const char *root = sysfs_root("standard");

	cr_assert_eq(pev_event_uprobe(NULL, probe_path, 0, false, root, &err), PEV_EBADARG);
	cr_assert_str_eq(err.field, "ev");
	cr_assert_eq(pev_event_uprobe(&ev, NULL, 0, false, root, &err), PEV_EBADARG);
	cr_assert_str_eq(err.field, "path");
	cr_assert_eq(pev_event_uprobe(&ev, "", 0, false, root, &err), PEV_EBADARG);
	cr_assert_str_eq(err.field, "path");
	cr_assert_eq(pev_event_uprobe(&ev, NULL, 0, false, root, NULL), PEV_EBADARG);
}

Test(event_probe, kprobe_null_or_empty_arguments_are_bad)
{
	struct pev_event ev;
	struct pev_error err;
	const char *root = sysfs_root("standard");

	cr_assert_eq(pev_event_kprobe(NULL, probe_func, 0, false, root, &err), PEV_EBADARG);
	cr_assert_str_eq(err.field, "ev");
	cr_assert_eq(pev_event_kprobe(&ev, NULL, 0, false, root, &err), PEV_EBADARG);
	cr_assert_str_eq(err.field, "func");
	cr_assert_eq(pev_event_kprobe(&ev, "", 0, false, root, &err), PEV_EBADARG);
	cr_assert_str_eq(err.field, "func");
	cr_assert_eq(pev_event_kprobe(&ev, NULL, 0, false, root, NULL), PEV_EBADARG);
}

Test(event_probe, probe_encodes_to_the_documented_attr_fields)
{
	struct pev_event ev;
	struct pev_attr attr;

	cr_assert_eq(pev_event_uprobe(&ev, probe_path, 0x4d0, true, sysfs_root("standard"), NULL),
		     0);
	cr_assert_eq(pev_attr_encode(&attr, &ev, NULL, NULL), 0);
	cr_assert_eq(attr.type, 8);
	cr_assert_eq(attr.config, 1);
	cr_assert_eq(attr.uprobe_path, (uint64_t)(uintptr_t)probe_path);
	cr_assert_eq(attr.probe_offset, 0x4d0);
	cr_assert_eq(attr.size, 72);
}

/* ---- pev_event_foreach_name -------------------------------------------- */

struct name_tally {
	int hw, sw, cache;
	bool cycles_alias, cs_alias;
};

static int tally_name(const char *name, const char *canonical, uint32_t kind,
		      const struct pev_event *ev, void *ctx)
{
	struct name_tally *t = ctx;
	struct pev_event looked;

	cr_assert_eq(pev_event_lookup(name, &looked), 0, "%s does not look up", name);
	cr_assert_eq(looked.type, ev->type, "%s", name);
	cr_assert_eq(looked.config, ev->config, "%s", name);
	cr_assert_eq(ev->type, kind, "%s", name);
	if (kind == PEV_TYPE_HARDWARE)
		t->hw++;
	else if (kind == PEV_TYPE_SOFTWARE)
		t->sw++;
	else
		t->cache++;
	if (strcmp(name, "cpu-cycles") == 0)
		t->cycles_alias = strcmp(canonical, "cycles") == 0;
	if (strcmp(name, "cs") == 0)
		t->cs_alias = strcmp(canonical, "context-switches") == 0;
	return 0;
}

Test(event_names, foreach_name_walks_every_generic_spelling)
{
	struct name_tally t = {0};

	cr_assert_eq(pev_event_foreach_name(tally_name, &t), 14 + 15 + 32);
	cr_expect_eq(t.hw, 14, "hardware spellings, aliases included");
	cr_expect_eq(t.sw, 15, "software spellings, aliases included");
	cr_expect_eq(t.cache, 32, "canonical cache names");
	cr_expect(t.cycles_alias, "cpu-cycles is an alias of cycles");
	cr_expect(t.cs_alias, "cs is an alias of context-switches");
}

static int stop_at_third(const char *name, const char *canonical, uint32_t kind,
			 const struct pev_event *ev, void *ctx)
{
	(void)name, (void)canonical, (void)kind, (void)ev;
	return ++*(int *)ctx == 3 ? 42 : 0;
}

Test(event_names, foreach_name_stops_when_asked)
{
	int seen = 0;

	cr_assert_eq(pev_event_foreach_name(stop_at_third, &seen), 42);
	cr_assert_eq(seen, 3);
	cr_assert_eq(pev_event_foreach_name(NULL, NULL), PEV_EBADARG);
}
