/* SPDX-License-Identifier: MIT */
/*
 * test_attr.c - options -> attribute block (pev_attr_encode), and back
 * (pev_attr_decode).
 *
 * The golden tests write the expected 136 bytes of the attribute block by
 * hand: byte offsets, bit numbers and ids are literal numbers taken from the
 * kernel's documentation of struct perf_event_attr (include/uapi/linux/
 * perf_event.h, perf_event_open(2)), never perfev's constants, so a wrong
 * constant in perfev shows up here as a wrong byte. Each combination is two
 * tests: attr_encode/<case> (the exact bytes and the size) and
 * attr_round_trip/<case> (decode then encode gives the same bytes).
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <linux/perf_event.h>

#include "helpers.h"

/* Offsets of struct perf_event_attr's fields, from the kernel's documentation. */
#define AT_TYPE               0
#define AT_SIZE               4
#define AT_CONFIG             8
#define AT_SAMPLE             16 /* sample_period or sample_freq */
#define AT_SAMPLE_TYPE        24
#define AT_READ_FORMAT        32
#define AT_FLAGS              40 /* the bit-field word */
#define AT_WAKEUP             48 /* wakeup_events or wakeup_watermark */
#define AT_BP_TYPE            52
#define AT_CONFIG1            56 /* bp_addr, kprobe_func, uprobe_path */
#define AT_CONFIG2            64 /* bp_len, kprobe_addr, probe_offset */
#define AT_BRANCH_SAMPLE_TYPE 72
#define AT_REGS_USER          80
#define AT_STACK_USER         88
#define AT_CLOCKID            92
#define AT_REGS_INTR          96
#define AT_AUX_WATERMARK      104
#define AT_MAX_STACK          108
#define AT_RESERVED_2         110
#define AT_AUX_SAMPLE_SIZE    112
#define AT_AUX_ACTION         116
#define AT_SIG_DATA           120
#define AT_CONFIG3            128
#define ATTR_BYTES            136

#define BIT(n) (UINT64_C(1) << (n))

/* The expected bytes of an attribute block. */
struct golden {
	unsigned char b[ATTR_BYTES];
};

static void put16(struct golden *g, size_t off, uint16_t v)
{
	memcpy(g->b + off, &v, sizeof(v));
}

static void put32(struct golden *g, size_t off, uint32_t v)
{
	memcpy(g->b + off, &v, sizeof(v));
}

static void put64(struct golden *g, size_t off, uint64_t v)
{
	memcpy(g->b + off, &v, sizeof(v));
}

static uint32_t get32(const void *bytes, size_t off)
{
	uint32_t v;

	memcpy(&v, (const unsigned char *)bytes + off, sizeof(v));
	return v;
}

/* Asserts that got holds exactly the bytes of want, naming the first byte that differs. */
static void assert_same_bytes(const void *got, const void *want, const char *what)
{
	const unsigned char *g = got, *w = want;

	for (size_t i = 0; i < ATTR_BYTES; i++) {
		if (g[i] == w[i])
			continue;
		size_t word = i & ~(size_t)7;
		uint64_t gw, ww;
		memcpy(&gw, g + word, 8);
		memcpy(&ww, w + word, 8);
		cr_assert_fail("%s: byte %zu is 0x%02x, expected 0x%02x (word at %zu: 0x%016" PRIx64
			       ", expected 0x%016" PRIx64 ")",
			       what, i, g[i], w[i], word, gw, ww);
	}
}

typedef void golden_case(struct pev_event *ev, struct pev_opts *o, struct golden *want);

/* Encodes the case into an attr full of garbage; the whole block must be the golden bytes. */
static void check_encode(golden_case *fill)
{
	struct pev_event ev;
	struct pev_opts o = PEV_OPTS_INIT;
	struct golden want;
	struct pev_attr attr;
	struct pev_error err;
	int r;

	memset(&ev, 0, sizeof(ev));
	memset(&want, 0, sizeof(want));
	fill(&ev, &o, &want);
	cr_assert_eq(sizeof(attr), ATTR_BYTES);
	memset(&attr, 0xa5, sizeof(attr));
	r = pev_attr_encode(&attr, &ev, &o, &err);
	cr_assert_eq(r, 0, "pev_attr_encode returned %d: %s", r, err.message);
	cr_assert_eq(attr.size, get32(&want, AT_SIZE), "attr.size is %u, expected %u", attr.size,
		     get32(&want, AT_SIZE));
	assert_same_bytes(&attr, &want, "encoded attr");
	cr_assert_eq(pev_attr_min_size(&attr), attr.size);
}

/* decode(encode(x)) encodes again to the same bytes. */
static void check_round_trip(golden_case *fill)
{
	struct pev_event ev, ev2;
	struct pev_opts o = PEV_OPTS_INIT, o2 = PEV_OPTS_INIT;
	struct golden want;
	struct pev_attr first, second;
	struct pev_error err;
	int r;

	memset(&ev, 0, sizeof(ev));
	memset(&want, 0, sizeof(want));
	fill(&ev, &o, &want);
	cr_assert_eq(pev_attr_encode(&first, &ev, &o, NULL), 0);

	memset(&ev2, 0x5a, sizeof(ev2));
	memset(&o2, 0x5a, sizeof(o2));
	o2.sz = sizeof(o2);
	r = pev_attr_decode(&first, first.size, &ev2, &o2);
	cr_assert_eq(r, 0, "pev_attr_decode of a %u-byte block returned %d (%s)", first.size, r,
		     pev_error_name(r));
	cr_assert_eq(o2.sz, sizeof(struct pev_opts));
	cr_assert_null(ev2.name);
	cr_assert_null(ev2.pmu);

	memset(&second, 0xa5, sizeof(second));
	r = pev_attr_encode(&second, &ev2, &o2, &err);
	cr_assert_eq(r, 0, "re-encoding the decoded options returned %d: %s", r, err.message);
	assert_same_bytes(&second, &first, "re-encoded attr");
}

/*
 * GOLDEN(name) { ... } defines a case: the body fills the event and options
 * (ev zeroed, o = PEV_OPTS_INIT) and writes the expected bytes into want.
 */
#define GOLDEN(name)                                                                               \
	static void fill_##name(struct pev_event *ev, struct pev_opts *o, struct golden *want);    \
	Test(attr_encode, name)                                                                    \
	{                                                                                          \
		check_encode(fill_##name);                                                         \
	}                                                                                          \
	Test(attr_round_trip, name)                                                                \
	{                                                                                          \
		check_round_trip(fill_##name);                                                     \
	}                                                                                          \
	static void fill_##name(struct pev_event *ev __attribute__((unused)),                      \
				struct pev_opts *o __attribute__((unused)),                        \
				struct golden *want __attribute__((unused)))

/* ---- plain counting of each fixed type --------------------------------- */

GOLDEN(hardware_cycles)
{
	*ev = pev_event_hardware(PEV_HW_CPU_CYCLES);
	put32(want, AT_TYPE, 0);
	put32(want, AT_SIZE, 64);
	put64(want, AT_CONFIG, 0);
}

GOLDEN(hardware_instructions)
{
	*ev = pev_event_hardware(PEV_HW_INSTRUCTIONS);
	put32(want, AT_SIZE, 64);
	put64(want, AT_CONFIG, 1);
}

GOLDEN(hardware_ref_cycles)
{
	*ev = pev_event_hardware(PEV_HW_REF_CPU_CYCLES);
	put32(want, AT_SIZE, 64);
	put64(want, AT_CONFIG, 9);
}

GOLDEN(hardware_cycles_on_hybrid_core_pmu_type_8)
{
	*ev = pev_event_hardware(PEV_HW_CPU_CYCLES);
	ev->config |= (uint64_t)8 << PEV_PMU_TYPE_SHIFT;
	put32(want, AT_SIZE, 64);
	put64(want, AT_CONFIG, UINT64_C(0x800000000));
}

GOLDEN(software_cpu_clock)
{
	*ev = pev_event_software(PEV_SW_CPU_CLOCK);
	put32(want, AT_TYPE, 1);
	put32(want, AT_SIZE, 64);
	put64(want, AT_CONFIG, 0);
}

GOLDEN(software_task_clock)
{
	*ev = pev_event_software(PEV_SW_TASK_CLOCK);
	put32(want, AT_TYPE, 1);
	put32(want, AT_SIZE, 64);
	put64(want, AT_CONFIG, 1);
}

GOLDEN(software_cgroup_switches)
{
	*ev = pev_event_software(PEV_SW_CGROUP_SWITCHES);
	put32(want, AT_TYPE, 1);
	put32(want, AT_SIZE, 64);
	put64(want, AT_CONFIG, 11);
}

GOLDEN(tracepoint_by_id)
{
	*ev = pev_event_tracepoint(316);
	put32(want, AT_TYPE, 2);
	put32(want, AT_SIZE, 64);
	put64(want, AT_CONFIG, 316);
}

GOLDEN(raw_event_code)
{
	*ev = pev_event_raw(0x5300c0);
	put32(want, AT_TYPE, 4);
	put32(want, AT_SIZE, 64);
	put64(want, AT_CONFIG, 0x5300c0);
}

GOLDEN(dynamic_pmu_type)
{
	ev->type = 23;
	ev->config = 0x2d;
	put32(want, AT_TYPE, 23);
	put32(want, AT_SIZE, 64);
	put64(want, AT_CONFIG, 0x2d);
}

/* ---- cache events: config = id | op << 8 | result << 16 ---------------- */

GOLDEN(cache_llc_load_misses)
{
	*ev = pev_event_cache(PEV_HW_CACHE_LL, PEV_HW_CACHE_OP_READ, PEV_HW_CACHE_RESULT_MISS);
	put32(want, AT_TYPE, 3);
	put32(want, AT_SIZE, 64);
	put64(want, AT_CONFIG, 0x10002);
}

GOLDEN(cache_l1d_store_accesses)
{
	*ev = pev_event_cache(PEV_HW_CACHE_L1D, PEV_HW_CACHE_OP_WRITE, PEV_HW_CACHE_RESULT_ACCESS);
	put32(want, AT_TYPE, 3);
	put32(want, AT_SIZE, 64);
	put64(want, AT_CONFIG, 0x100);
}

GOLDEN(cache_l1i_prefetch_misses)
{
	*ev = pev_event_cache(PEV_HW_CACHE_L1I, PEV_HW_CACHE_OP_PREFETCH, PEV_HW_CACHE_RESULT_MISS);
	put32(want, AT_TYPE, 3);
	put32(want, AT_SIZE, 64);
	put64(want, AT_CONFIG, 0x10201);
}

GOLDEN(cache_node_prefetch_accesses)
{
	*ev = pev_event_cache(PEV_HW_CACHE_NODE, PEV_HW_CACHE_OP_PREFETCH,
			      PEV_HW_CACHE_RESULT_ACCESS);
	put32(want, AT_TYPE, 3);
	put32(want, AT_SIZE, 64);
	put64(want, AT_CONFIG, 0x206);
}

/* ---- breakpoints: bp_type at 52, bp_addr in config1, bp_len in config2 -- */

GOLDEN(breakpoint_write_8_bytes)
{
	*ev = pev_event_breakpoint(0x601040, PEV_BP_LEN_8, PEV_BP_W);
	put32(want, AT_TYPE, 5);
	put32(want, AT_SIZE, 72);
	put32(want, AT_BP_TYPE, 2);
	put64(want, AT_CONFIG1, 0x601040);
	put64(want, AT_CONFIG2, 8);
}

GOLDEN(breakpoint_execute)
{
	*ev = pev_event_breakpoint(0x401136, PEV_BP_LEN_8, PEV_BP_X);
	put32(want, AT_TYPE, 5);
	put32(want, AT_SIZE, 72);
	put32(want, AT_BP_TYPE, 4);
	put64(want, AT_CONFIG1, 0x401136);
	put64(want, AT_CONFIG2, 8);
}

GOLDEN(breakpoint_read_write_1_byte)
{
	*ev = pev_event_breakpoint(0x7ffc0001, PEV_BP_LEN_1, PEV_BP_RW);
	put32(want, AT_TYPE, 5);
	put32(want, AT_SIZE, 72);
	put32(want, AT_BP_TYPE, 3);
	put64(want, AT_CONFIG1, 0x7ffc0001);
	put64(want, AT_CONFIG2, 1);
}

/* ---- probes: config1 = pointer to the path or symbol, config2 = offset -- */

static const char uprobe_path[] = "/usr/lib/x86_64-linux-gnu/libc.so.6";
static const char kprobe_func[] = "do_sys_openat2";

GOLDEN(uprobe_path_pointer_and_offset)
{
	ev->type = 8;
	ev->config1 = (uint64_t)(uintptr_t)uprobe_path;
	ev->config2 = 0x29dc0;
	put32(want, AT_TYPE, 8);
	put32(want, AT_SIZE, 72);
	put64(want, AT_CONFIG1, (uint64_t)(uintptr_t)uprobe_path);
	put64(want, AT_CONFIG2, 0x29dc0);
}

GOLDEN(uretprobe_sets_the_retprobe_config_bit)
{
	ev->type = 8;
	ev->config = 1;
	ev->config1 = (uint64_t)(uintptr_t)uprobe_path;
	ev->config2 = 0x29dc0;
	put32(want, AT_TYPE, 8);
	put32(want, AT_SIZE, 72);
	put64(want, AT_CONFIG, 1);
	put64(want, AT_CONFIG1, (uint64_t)(uintptr_t)uprobe_path);
	put64(want, AT_CONFIG2, 0x29dc0);
}

GOLDEN(kprobe_at_offset_zero_fits_ver0)
{
	ev->type = 7;
	ev->config1 = (uint64_t)(uintptr_t)kprobe_func;
	put32(want, AT_TYPE, 7);
	put32(want, AT_SIZE, 64);
	put64(want, AT_CONFIG1, (uint64_t)(uintptr_t)kprobe_func);
}

/* ---- sampling ---------------------------------------------------------- */

GOLDEN(sample_by_period)
{
	*ev = pev_event_software(PEV_SW_TASK_CLOCK);
	o->sample_period = 100003;
	o->sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_TID | PEV_SAMPLE_TIME | PEV_SAMPLE_PERIOD;
	put32(want, AT_TYPE, 1);
	put32(want, AT_SIZE, 64);
	put64(want, AT_CONFIG, 1);
	put64(want, AT_SAMPLE, 100003);
	put64(want, AT_SAMPLE_TYPE, 0x107);
}

GOLDEN(sample_by_frequency_sets_freq_bit_10)
{
	*ev = pev_event_software(PEV_SW_CPU_CLOCK);
	o->sample_freq = 4000;
	o->sample_type = PEV_SAMPLE_IP;
	put32(want, AT_TYPE, 1);
	put32(want, AT_SIZE, 64);
	put64(want, AT_SAMPLE, 4000);
	put64(want, AT_SAMPLE_TYPE, 0x1);
	put64(want, AT_FLAGS, BIT(10));
}

GOLDEN(sample_every_sample_type_bit)
{
	*ev = pev_event_software(PEV_SW_CPU_CLOCK);
	o->sample_period = 1;
	o->sample_type = PEV_SAMPLE_ALL;
	put32(want, AT_TYPE, 1);
	put32(want, AT_SIZE, 64);
	put64(want, AT_SAMPLE, 1);
	/* IP .. WEIGHT_STRUCT: bits 0..24. */
	put64(want, AT_SAMPLE_TYPE, 0x1ffffff);
}

GOLDEN(skid_arbitrary_leaves_precise_ip_zero)
{
	*ev = pev_event_hardware(PEV_HW_INSTRUCTIONS);
	o->sample_period = 1000;
	o->skid = PEV_SKID_ARBITRARY;
	put32(want, AT_SIZE, 64);
	put64(want, AT_CONFIG, 1);
	put64(want, AT_SAMPLE, 1000);
}

GOLDEN(skid_constant_is_precise_ip_1)
{
	*ev = pev_event_hardware(PEV_HW_INSTRUCTIONS);
	o->sample_period = 1000;
	o->skid = PEV_SKID_CONSTANT;
	put32(want, AT_SIZE, 64);
	put64(want, AT_CONFIG, 1);
	put64(want, AT_SAMPLE, 1000);
	put64(want, AT_FLAGS, UINT64_C(1) << 15);
}

GOLDEN(skid_request_zero_is_precise_ip_2)
{
	*ev = pev_event_hardware(PEV_HW_INSTRUCTIONS);
	o->sample_period = 1000;
	o->skid = PEV_SKID_REQUEST_ZERO;
	put32(want, AT_SIZE, 64);
	put64(want, AT_CONFIG, 1);
	put64(want, AT_SAMPLE, 1000);
	put64(want, AT_FLAGS, UINT64_C(2) << 15);
}

GOLDEN(skid_zero_is_precise_ip_3)
{
	*ev = pev_event_hardware(PEV_HW_INSTRUCTIONS);
	o->sample_period = 1000;
	o->skid = PEV_SKID_ZERO;
	put32(want, AT_SIZE, 64);
	put64(want, AT_CONFIG, 1);
	put64(want, AT_SAMPLE, 1000);
	put64(want, AT_FLAGS, UINT64_C(3) << 15);
}

/* ---- life cycle -------------------------------------------------------- */

GOLDEN(inherit_all_sets_inherit_bit_1)
{
	*ev = pev_event_software(PEV_SW_TASK_CLOCK);
	o->inherit = PEV_INHERIT_ALL;
	put32(want, AT_TYPE, 1);
	put32(want, AT_SIZE, 64);
	put64(want, AT_CONFIG, 1);
	put64(want, AT_FLAGS, BIT(1));
}

GOLDEN(inherit_threads_sets_inherit_and_inherit_thread_bit_35)
{
	*ev = pev_event_software(PEV_SW_TASK_CLOCK);
	o->inherit = PEV_INHERIT_THREADS;
	put32(want, AT_TYPE, 1);
	put32(want, AT_SIZE, 64);
	put64(want, AT_CONFIG, 1);
	put64(want, AT_FLAGS, BIT(1) | BIT(35));
}

GOLDEN(inherit_all_with_inherit_stat)
{
	*ev = pev_event_software(PEV_SW_TASK_CLOCK);
	o->inherit = PEV_INHERIT_ALL;
	o->inherit_stat = true;
	put32(want, AT_TYPE, 1);
	put32(want, AT_SIZE, 64);
	put64(want, AT_CONFIG, 1);
	put64(want, AT_FLAGS, BIT(1) | BIT(11));
}

GOLDEN(enable_on_exec_implies_disabled)
{
	*ev = pev_event_software(PEV_SW_TASK_CLOCK);
	o->enable_on_exec = true;
	put32(want, AT_TYPE, 1);
	put32(want, AT_SIZE, 64);
	put64(want, AT_CONFIG, 1);
	put64(want, AT_FLAGS, BIT(0) | BIT(12));
}

GOLDEN(sigtrap_with_remove_on_exec_and_sig_data_needs_128_bytes)
{
	*ev = pev_event_breakpoint(0x601040, PEV_BP_LEN_4, PEV_BP_W);
	o->sample_period = 1;
	o->sigtrap = true;
	o->remove_on_exec = true;
	o->sig_data = UINT64_C(0xfeedface12345678);
	put32(want, AT_TYPE, 5);
	put32(want, AT_SIZE, 128);
	put64(want, AT_SAMPLE, 1);
	put64(want, AT_FLAGS, BIT(36) | BIT(37));
	put32(want, AT_BP_TYPE, 2);
	put64(want, AT_CONFIG1, 0x601040);
	put64(want, AT_CONFIG2, 4);
	put64(want, AT_SIG_DATA, UINT64_C(0xfeedface12345678));
}

GOLDEN(sigtrap_without_sig_data_fits_ver0)
{
	*ev = pev_event_software(PEV_SW_TASK_CLOCK);
	o->sample_period = 1000000;
	o->sigtrap = true;
	o->remove_on_exec = true;
	put32(want, AT_TYPE, 1);
	put32(want, AT_SIZE, 64);
	put64(want, AT_CONFIG, 1);
	put64(want, AT_SAMPLE, 1000000);
	put64(want, AT_FLAGS, BIT(36) | BIT(37));
}

/* ---- wake-up ----------------------------------------------------------- */

GOLDEN(wakeup_every_16_events)
{
	*ev = pev_event_software(PEV_SW_CPU_CLOCK);
	o->sample_period = 10000;
	o->wakeup_events = 16;
	put32(want, AT_TYPE, 1);
	put32(want, AT_SIZE, 64);
	put64(want, AT_SAMPLE, 10000);
	put32(want, AT_WAKEUP, 16);
}

GOLDEN(wakeup_every_4096_bytes_sets_watermark_bit_14)
{
	*ev = pev_event_software(PEV_SW_CPU_CLOCK);
	o->sample_period = 10000;
	o->wakeup_bytes = 4096;
	put32(want, AT_TYPE, 1);
	put32(want, AT_SIZE, 64);
	put64(want, AT_SAMPLE, 10000);
	put64(want, AT_FLAGS, BIT(14));
	put32(want, AT_WAKEUP, 4096);
}

/* ---- clocks ------------------------------------------------------------ */

GOLDEN(clockid_monotonic_raw_needs_96_bytes)
{
	*ev = pev_event_software(PEV_SW_CPU_CLOCK);
	o->use_clockid = true;
	o->clockid = 4; /* CLOCK_MONOTONIC_RAW */
	put32(want, AT_TYPE, 1);
	put32(want, AT_SIZE, 96);
	put64(want, AT_FLAGS, BIT(25));
	put32(want, AT_CLOCKID, 4);
}

GOLDEN(clockid_realtime_is_zero_and_fits_ver0)
{
	*ev = pev_event_software(PEV_SW_CPU_CLOCK);
	o->use_clockid = true;
	o->clockid = 0; /* CLOCK_REALTIME */
	put32(want, AT_TYPE, 1);
	put32(want, AT_SIZE, 64);
	put64(want, AT_FLAGS, BIT(25));
}

GOLDEN(clockid_tai_needs_96_bytes)
{
	*ev = pev_event_software(PEV_SW_CPU_CLOCK);
	o->use_clockid = true;
	o->clockid = 11; /* CLOCK_TAI */
	put32(want, AT_TYPE, 1);
	put32(want, AT_SIZE, 96);
	put64(want, AT_FLAGS, BIT(25));
	put32(want, AT_CLOCKID, 11);
}

/* ---- config3, AUX ------------------------------------------------------ */

GOLDEN(config3_needs_136_bytes)
{
	ev->type = 12;
	ev->config = 0x1;
	ev->config3 = 0x30;
	put32(want, AT_TYPE, 12);
	put32(want, AT_SIZE, 136);
	put64(want, AT_CONFIG, 0x1);
	put64(want, AT_CONFIG3, 0x30);
}

GOLDEN(aux_start_paused_is_aux_action_bit_0)
{
	ev->type = 10;
	o->aux_start_paused = true;
	put32(want, AT_TYPE, 10);
	put32(want, AT_SIZE, 120);
	put32(want, AT_AUX_ACTION, 0x1);
}

GOLDEN(aux_pause_is_aux_action_bit_1)
{
	*ev = pev_event_hardware(PEV_HW_INSTRUCTIONS);
	o->sample_period = 100000;
	o->aux_pause = true;
	put32(want, AT_SIZE, 120);
	put64(want, AT_CONFIG, 1);
	put64(want, AT_SAMPLE, 100000);
	put32(want, AT_AUX_ACTION, 0x2);
}

GOLDEN(aux_resume_is_aux_action_bit_2)
{
	*ev = pev_event_hardware(PEV_HW_INSTRUCTIONS);
	o->sample_period = 100000;
	o->aux_resume = true;
	put32(want, AT_SIZE, 120);
	put64(want, AT_CONFIG, 1);
	put64(want, AT_SAMPLE, 100000);
	put32(want, AT_AUX_ACTION, 0x4);
}

GOLDEN(aux_sample_size_needs_120_bytes)
{
	*ev = pev_event_hardware(PEV_HW_CPU_CYCLES);
	o->sample_period = 100000;
	o->sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_AUX;
	o->aux_sample_size = 4096;
	put32(want, AT_SIZE, 120);
	put64(want, AT_SAMPLE, 100000);
	put64(want, AT_SAMPLE_TYPE, BIT(0) | BIT(20));
	put32(want, AT_AUX_SAMPLE_SIZE, 4096);
}

GOLDEN(aux_watermark_and_aux_output_need_112_bytes)
{
	ev->type = 10;
	o->aux_watermark = 65536;
	o->aux_output = true;
	put32(want, AT_TYPE, 10);
	put32(want, AT_SIZE, 112);
	put64(want, AT_FLAGS, BIT(31));
	put32(want, AT_AUX_WATERMARK, 65536);
}

/* ---- callchains, registers, user stack, branch stack ------------------- */

GOLDEN(callchain_with_max_stack_needs_112_bytes)
{
	*ev = pev_event_software(PEV_SW_CPU_CLOCK);
	o->sample_freq = 99;
	o->sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_CALLCHAIN;
	o->callchain_max_stack = 32;
	put32(want, AT_TYPE, 1);
	put32(want, AT_SIZE, 112);
	put64(want, AT_SAMPLE, 99);
	put64(want, AT_SAMPLE_TYPE, BIT(0) | BIT(5));
	put64(want, AT_FLAGS, BIT(10));
	put16(want, AT_MAX_STACK, 32);
}

GOLDEN(callchain_without_kernel_or_user_frames)
{
	*ev = pev_event_software(PEV_SW_CPU_CLOCK);
	o->sample_period = 10000;
	o->sample_type = PEV_SAMPLE_CALLCHAIN;
	o->exclude_callchain_kernel = true;
	o->exclude_callchain_user = true;
	put32(want, AT_TYPE, 1);
	put32(want, AT_SIZE, 64);
	put64(want, AT_SAMPLE, 10000);
	put64(want, AT_SAMPLE_TYPE, BIT(5));
	put64(want, AT_FLAGS, BIT(21) | BIT(22));
}

GOLDEN(regs_user_needs_96_bytes)
{
	*ev = pev_event_software(PEV_SW_CPU_CLOCK);
	o->sample_period = 10000;
	o->sample_type = PEV_SAMPLE_REGS_USER;
	o->sample_regs_user = 0xff0fff;
	put32(want, AT_TYPE, 1);
	put32(want, AT_SIZE, 96);
	put64(want, AT_SAMPLE, 10000);
	put64(want, AT_SAMPLE_TYPE, BIT(12));
	put64(want, AT_REGS_USER, 0xff0fff);
}

GOLDEN(stack_user_needs_96_bytes)
{
	*ev = pev_event_software(PEV_SW_CPU_CLOCK);
	o->sample_period = 10000;
	o->sample_type = PEV_SAMPLE_STACK_USER;
	o->sample_stack_user = 8192;
	put32(want, AT_TYPE, 1);
	put32(want, AT_SIZE, 96);
	put64(want, AT_SAMPLE, 10000);
	put64(want, AT_SAMPLE_TYPE, BIT(13));
	put32(want, AT_STACK_USER, 8192);
}

GOLDEN(regs_intr_needs_104_bytes)
{
	*ev = pev_event_hardware(PEV_HW_CPU_CYCLES);
	o->sample_period = 10000;
	o->sample_type = PEV_SAMPLE_REGS_INTR;
	o->sample_regs_intr = 0x1ff;
	o->skid = PEV_SKID_REQUEST_ZERO;
	put32(want, AT_SIZE, 104);
	put64(want, AT_SAMPLE, 10000);
	put64(want, AT_SAMPLE_TYPE, BIT(18));
	put64(want, AT_FLAGS, UINT64_C(2) << 15);
	put64(want, AT_REGS_INTR, 0x1ff);
}

GOLDEN(branch_stack_any_user_needs_80_bytes)
{
	*ev = pev_event_hardware(PEV_HW_CPU_CYCLES);
	o->sample_period = 4000;
	o->sample_type = PEV_SAMPLE_BRANCH_STACK;
	o->branch_sample_type = PEV_BRANCH_ANY | PEV_BRANCH_USER;
	put32(want, AT_SIZE, 80);
	put64(want, AT_SAMPLE, 4000);
	put64(want, AT_SAMPLE_TYPE, BIT(11));
	put64(want, AT_BRANCH_SAMPLE_TYPE, BIT(3) | BIT(0));
}

GOLDEN(branch_stack_call_stack_with_privilege)
{
	*ev = pev_event_hardware(PEV_HW_CPU_CYCLES);
	o->sample_period = 4000;
	o->sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_BRANCH_STACK;
	o->branch_sample_type = PEV_BRANCH_CALL_STACK | PEV_BRANCH_USER | PEV_BRANCH_KERNEL |
				PEV_BRANCH_PRIV_SAVE | PEV_BRANCH_NO_CYCLES;
	put32(want, AT_SIZE, 80);
	put64(want, AT_SAMPLE, 4000);
	put64(want, AT_SAMPLE_TYPE, BIT(0) | BIT(11));
	put64(want, AT_BRANCH_SAMPLE_TYPE, BIT(11) | BIT(0) | BIT(1) | BIT(18) | BIT(15));
}

/* ---- read_format ------------------------------------------------------- */

GOLDEN(read_format_times_and_id)
{
	*ev = pev_event_software(PEV_SW_TASK_CLOCK);
	o->read_format = PEV_FORMAT_TOTAL_TIME_ENABLED | PEV_FORMAT_TOTAL_TIME_RUNNING |
			 PEV_FORMAT_ID;
	put32(want, AT_TYPE, 1);
	put32(want, AT_SIZE, 64);
	put64(want, AT_CONFIG, 1);
	put64(want, AT_READ_FORMAT, 0x7);
}

GOLDEN(read_format_group_and_lost)
{
	*ev = pev_event_software(PEV_SW_TASK_CLOCK);
	o->read_format = PEV_FORMAT_GROUP | PEV_FORMAT_LOST;
	put32(want, AT_TYPE, 1);
	put32(want, AT_SIZE, 64);
	put64(want, AT_CONFIG, 1);
	put64(want, AT_READ_FORMAT, BIT(3) | BIT(4));
}

GOLDEN(read_format_every_bit)
{
	*ev = pev_event_software(PEV_SW_TASK_CLOCK);
	o->read_format = PEV_FORMAT_ALL;
	put32(want, AT_TYPE, 1);
	put32(want, AT_SIZE, 64);
	put64(want, AT_CONFIG, 1);
	put64(want, AT_READ_FORMAT, 0x1f);
}

/* ---- every boolean option, one flag bit each ---------------------------- */

#define GOLDEN_BOOL(field, bitno)                                                                  \
	GOLDEN(bool_##field##_is_flag_bit_##bitno)                                                 \
	{                                                                                          \
		*ev = pev_event_software(PEV_SW_DUMMY);                                            \
		o->field = true;                                                                   \
		put32(want, AT_TYPE, 1);                                                           \
		put32(want, AT_SIZE, 64);                                                          \
		put64(want, AT_CONFIG, 9);                                                         \
		put64(want, AT_FLAGS, BIT(bitno));                                                 \
	}

GOLDEN_BOOL(disabled, 0)
GOLDEN_BOOL(pinned, 2)
GOLDEN_BOOL(exclusive, 3)
GOLDEN_BOOL(exclude_user, 4)
GOLDEN_BOOL(exclude_kernel, 5)
GOLDEN_BOOL(exclude_hv, 6)
GOLDEN_BOOL(exclude_idle, 7)
GOLDEN_BOOL(mmap, 8)
GOLDEN_BOOL(comm, 9)
GOLDEN_BOOL(inherit_stat, 11)
GOLDEN_BOOL(task, 13)
GOLDEN_BOOL(mmap_data, 17)
GOLDEN_BOOL(sample_id_all, 18)
GOLDEN_BOOL(exclude_host, 19)
GOLDEN_BOOL(exclude_guest, 20)
GOLDEN_BOOL(exclude_callchain_kernel, 21)
GOLDEN_BOOL(exclude_callchain_user, 22)
GOLDEN_BOOL(comm_exec, 24)
GOLDEN_BOOL(use_clockid, 25)
GOLDEN_BOOL(context_switch, 26)
GOLDEN_BOOL(write_backward, 27)
GOLDEN_BOOL(namespaces, 28)
GOLDEN_BOOL(ksymbol, 29)
GOLDEN_BOOL(bpf_event, 30)
GOLDEN_BOOL(aux_output, 31)
GOLDEN_BOOL(cgroup, 32)
GOLDEN_BOOL(text_poke, 33)
GOLDEN_BOOL(build_id, 34)
GOLDEN_BOOL(remove_on_exec, 36)
GOLDEN_BOOL(sigtrap, 37)

/* mmap2 alone gives no records (the kernel reports mappings only while an
 * event has mmap or mmap_data): it sets bit 8 mmap with bit 23. */
GOLDEN(bool_mmap2_is_flag_bits_23_and_8)
{
	*ev = pev_event_software(PEV_SW_DUMMY);
	o->mmap2 = true;
	put32(want, AT_TYPE, 1);
	put32(want, AT_SIZE, 64);
	put64(want, AT_CONFIG, 9);
	put64(want, AT_FLAGS, BIT(23) | BIT(8));
}

/* ---- realistic combinations -------------------------------------------- */

GOLDEN(every_extra_record_at_once)
{
	*ev = pev_event_software(PEV_SW_DUMMY);
	o->mmap = o->mmap2 = o->mmap_data = o->build_id = true;
	o->comm = o->comm_exec = o->task = o->context_switch = true;
	o->namespaces = o->ksymbol = o->bpf_event = o->cgroup = o->text_poke = true;
	o->sample_id_all = true;
	put32(want, AT_TYPE, 1);
	put32(want, AT_SIZE, 64);
	put64(want, AT_CONFIG, 9);
	put64(want, AT_FLAGS,
	      BIT(8) | BIT(23) | BIT(17) | BIT(34) | BIT(9) | BIT(24) | BIT(13) | BIT(26) |
		      BIT(28) | BIT(29) | BIT(30) | BIT(32) | BIT(33) | BIT(18));
}

GOLDEN(user_only_cycles_like_perf_record)
{
	*ev = pev_event_hardware(PEV_HW_CPU_CYCLES);
	o->exclude_kernel = o->exclude_hv = true;
	o->enable_on_exec = true;
	o->sample_freq = 4000;
	o->sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_TID | PEV_SAMPLE_TIME | PEV_SAMPLE_PERIOD;
	o->read_format = PEV_FORMAT_ID;
	o->mmap = o->comm = o->task = o->mmap2 = o->comm_exec = o->sample_id_all = true;
	put32(want, AT_SIZE, 64);
	put64(want, AT_SAMPLE, 4000);
	put64(want, AT_SAMPLE_TYPE, 0x107);
	put64(want, AT_READ_FORMAT, 0x4);
	put64(want, AT_FLAGS,
	      BIT(0) | BIT(5) | BIT(6) | BIT(8) | BIT(9) | BIT(10) | BIT(12) | BIT(13) | BIT(18) |
		      BIT(23) | BIT(24));
}

GOLDEN(every_field_at_once_fills_136_bytes)
{
	ev->type = 11;
	ev->bp_type = 0;
	ev->config = 0x1111;
	ev->config1 = 0x2222;
	ev->config2 = 0x3333;
	ev->config3 = 0x4444;
	o->exclude_guest = true;
	o->inherit = PEV_INHERIT_THREADS;
	o->sample_period = 777;
	o->skid = PEV_SKID_CONSTANT;
	o->sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_CALLCHAIN | PEV_SAMPLE_REGS_USER |
			 PEV_SAMPLE_STACK_USER | PEV_SAMPLE_REGS_INTR | PEV_SAMPLE_BRANCH_STACK |
			 PEV_SAMPLE_AUX;
	o->callchain_max_stack = 100;
	o->sample_regs_user = 0xff;
	o->sample_stack_user = 4096;
	o->sample_regs_intr = 0xf0;
	o->branch_sample_type = PEV_BRANCH_ANY_CALL;
	o->aux_sample_size = 512;
	o->read_format = PEV_FORMAT_ID;
	o->wakeup_bytes = 1024;
	o->aux_watermark = 2048;
	o->use_clockid = true;
	o->clockid = 1; /* CLOCK_MONOTONIC */
	o->sigtrap = o->remove_on_exec = true;
	o->sig_data = 42;
	o->aux_pause = true;
	put32(want, AT_TYPE, 11);
	put32(want, AT_SIZE, 136);
	put64(want, AT_CONFIG, 0x1111);
	put64(want, AT_SAMPLE, 777);
	put64(want, AT_SAMPLE_TYPE, BIT(0) | BIT(5) | BIT(12) | BIT(13) | BIT(18) | BIT(11) | BIT(20));
	put64(want, AT_READ_FORMAT, BIT(2));
	put64(want, AT_FLAGS,
	      BIT(20) | BIT(1) | BIT(35) | (UINT64_C(1) << 15) | BIT(14) | BIT(25) | BIT(36) |
		      BIT(37));
	put32(want, AT_WAKEUP, 1024);
	put64(want, AT_CONFIG1, 0x2222);
	put64(want, AT_CONFIG2, 0x3333);
	put64(want, AT_BRANCH_SAMPLE_TYPE, BIT(4));
	put64(want, AT_REGS_USER, 0xff);
	put32(want, AT_STACK_USER, 4096);
	put32(want, AT_CLOCKID, 1);
	put64(want, AT_REGS_INTR, 0xf0);
	put32(want, AT_AUX_WATERMARK, 2048);
	put16(want, AT_MAX_STACK, 100);
	put32(want, AT_AUX_SAMPLE_SIZE, 512);
	put32(want, AT_AUX_ACTION, 0x2);
	put64(want, AT_SIG_DATA, 42);
	put64(want, AT_CONFIG3, 0x4444);
}

/* ---- encode: what is refused ------------------------------------------- */

/* Encodes task-clock with o; expects PEV_EBADARG on "opts" with a message containing each of needles. */
static void expect_bad_opts(const struct pev_opts *o, const char *needle1, const char *needle2)
{
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_attr attr;
	struct pev_error err;

	memset(&err, 0, sizeof(err));
	cr_assert_eq(pev_attr_encode(&attr, &ev, o, &err), PEV_EBADARG);
	cr_assert_eq(err.code, PEV_EBADARG);
	cr_assert(err.before_syscall);
	cr_assert_str_eq(err.field, "opts");
	cr_assert_not_null(strstr(err.message, "pev_attr_encode"), "message: %s", err.message);
	cr_assert_not_null(strstr(err.message, needle1), "no '%s' in: %s", needle1, err.message);
	if (needle2)
		cr_assert_not_null(strstr(err.message, needle2), "no '%s' in: %s", needle2,
				   err.message);
	/* The same refusal without an error struct. */
	cr_assert_eq(pev_attr_encode(&attr, &ev, o, NULL), PEV_EBADARG);
}

Test(attr_refuse, sample_period_and_sample_freq_together)
{
	struct pev_opts o = PEV_OPTS_INIT;

	o.sample_period = 1000;
	o.sample_freq = 99;
	expect_bad_opts(&o, "sample_period", "sample_freq");
}

Test(attr_refuse, wakeup_events_and_wakeup_bytes_together)
{
	struct pev_opts o = PEV_OPTS_INIT;

	o.wakeup_events = 4;
	o.wakeup_bytes = 4096;
	expect_bad_opts(&o, "wakeup_events", "wakeup_bytes");
}

Test(attr_refuse, clockid_without_use_clockid)
{
	struct pev_opts o = PEV_OPTS_INIT;

	o.clockid = 1;
	expect_bad_opts(&o, "clockid", "use_clockid");
}

Test(attr_refuse, sig_data_without_sigtrap)
{
	struct pev_opts o = PEV_OPTS_INIT;

	o.sig_data = 7;
	expect_bad_opts(&o, "sig_data", "sigtrap");
}

Test(attr_refuse, inherit_mode_7)
{
	struct pev_opts o = PEV_OPTS_INIT;

	o.inherit = (enum pev_inherit)7;
	expect_bad_opts(&o, "inherit", "7");
}

Test(attr_refuse, message_names_the_event)
{
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_attr attr;
	struct pev_error err;

	ev.name = "my-counter";
	o.sample_period = 1;
	o.sample_freq = 1;
	cr_assert_eq(pev_attr_encode(&attr, &ev, &o, &err), PEV_EBADARG);
	cr_assert_not_null(strstr(err.message, "my-counter"), "message: %s", err.message);
}

Test(attr_refuse, skid_4_is_invalid_precise_ip)
{
	struct pev_event ev = pev_event_hardware(PEV_HW_CPU_CYCLES);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_attr attr;
	struct pev_error err;

	o.sample_period = 1000;
	o.skid = (enum pev_skid)4;
	cr_assert_eq(pev_attr_encode(&attr, &ev, &o, &err), PEV_EINVAL);
	cr_assert_eq(err.code, PEV_EINVAL);
	cr_assert_eq(err.sys_errno, EINVAL);
	cr_assert(err.before_syscall);
	cr_assert_str_eq(err.field, "precise_ip");
	cr_assert_not_null(strstr(err.message, "4"), "message: %s", err.message);
	cr_assert_str_neq(err.hint, "");
	cr_assert_eq(pev_attr_encode(&attr, &ev, &o, NULL), PEV_EINVAL);
}

Test(attr_refuse, null_attr)
{
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_error err;

	cr_assert_eq(pev_attr_encode(NULL, &ev, NULL, &err), PEV_EBADARG);
	cr_assert_str_eq(err.field, "attr");
	cr_assert_eq(pev_attr_encode(NULL, &ev, NULL, NULL), PEV_EBADARG);
}

Test(attr_refuse, null_event)
{
	struct pev_attr attr;
	struct pev_error err;

	cr_assert_eq(pev_attr_encode(&attr, NULL, NULL, &err), PEV_EBADARG);
	cr_assert_str_eq(err.field, "ev");
	cr_assert_eq(pev_attr_encode(&attr, NULL, NULL, NULL), PEV_EBADARG);
}

/* ---- encode: option struct compatibility (opts.sz) --------------------- */

Test(attr_opts, null_opts_means_defaults)
{
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_attr attr;
	struct golden want;

	memset(&want, 0, sizeof(want));
	put32(&want, AT_TYPE, 1);
	put32(&want, AT_SIZE, 64);
	put64(&want, AT_CONFIG, 1);
	memset(&attr, 0xa5, sizeof(attr));
	cr_assert_eq(pev_attr_encode(&attr, &ev, NULL, NULL), 0);
	assert_same_bytes(&attr, &want, "defaults");
}

Test(attr_opts, older_caller_fields_past_sz_are_ignored)
{
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_attr attr;
	struct golden want;

	/* An older caller whose struct ends before sample_period. */
	o.sz = offsetof(struct pev_opts, sample_period);
	o.exclude_kernel = true;
	/* Past its end: garbage it never wrote, and a contradiction if it were read. */
	o.sample_period = 1000;
	o.sample_freq = 99;
	o.sig_data = 5;
	memset(&want, 0, sizeof(want));
	put32(&want, AT_TYPE, 1);
	put32(&want, AT_SIZE, 64);
	put64(&want, AT_CONFIG, 1);
	put64(&want, AT_FLAGS, BIT(5));
	cr_assert_eq(pev_attr_encode(&attr, &ev, &o, NULL), 0);
	assert_same_bytes(&attr, &want, "older caller");
}

Test(attr_opts, caller_with_only_sz_gets_defaults)
{
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_attr attr;
	struct golden want;

	o.sz = sizeof(o.sz);
	o.exclude_kernel = true;
	o.disabled = true;
	memset(&want, 0, sizeof(want));
	put32(&want, AT_TYPE, 1);
	put32(&want, AT_SIZE, 64);
	put64(&want, AT_CONFIG, 1);
	cr_assert_eq(pev_attr_encode(&attr, &ev, &o, NULL), 0);
	assert_same_bytes(&attr, &want, "sz only");
}

/* A newer caller's options: ours followed by fields this library does not know. */
struct newer_opts {
	struct pev_opts o;
	uint64_t later[4];
};

Test(attr_opts, newer_caller_with_zero_tail_is_accepted)
{
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct newer_opts n;
	struct pev_attr attr;
	struct golden want;

	memset(&n, 0, sizeof(n));
	n.o.sz = sizeof(n);
	n.o.exclude_kernel = true;
	memset(&want, 0, sizeof(want));
	put32(&want, AT_TYPE, 1);
	put32(&want, AT_SIZE, 64);
	put64(&want, AT_CONFIG, 1);
	put64(&want, AT_FLAGS, BIT(5));
	cr_assert_eq(pev_attr_encode(&attr, &ev, &n.o, NULL), 0);
	assert_same_bytes(&attr, &want, "newer caller, zero tail");
}

Test(attr_opts, newer_caller_with_nonzero_tail_is_refused)
{
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct newer_opts n;
	struct pev_attr attr;
	struct pev_error err;

	memset(&n, 0, sizeof(n));
	n.o.sz = sizeof(n);
	n.later[2] = 1;
	cr_assert_eq(pev_attr_encode(&attr, &ev, &n.o, &err), PEV_EBADARG);
	cr_assert_eq(err.code, PEV_EBADARG);
	cr_assert_str_eq(err.field, "opts");
	cr_assert_not_null(strstr(err.message, "opts.sz"), "message: %s", err.message);
	cr_assert_not_null(strstr(err.message, "upgrade"), "message: %s", err.message);
}

Test(attr_opts, sz_zero_is_refused)
{
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_attr attr;
	struct pev_error err;

	o.sz = 0;
	cr_assert_eq(pev_attr_encode(&attr, &ev, &o, &err), PEV_EBADARG);
	cr_assert_str_eq(err.field, "opts");
	cr_assert_not_null(strstr(err.message, "PEV_OPTS_INIT"), "message: %s", err.message);
}

Test(attr_opts, sz_smaller_than_the_sz_field_is_refused)
{
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_opts o = PEV_OPTS_INIT;
	struct pev_attr attr;

	o.sz = sizeof(o.sz) - 1;
	cr_assert_eq(pev_attr_encode(&attr, &ev, &o, NULL), PEV_EBADARG);
}

/* ---- pev_attr_min_size ------------------------------------------------- */

Test(attr_min_size, all_zero_is_ver0)
{
	struct pev_attr a;

	memset(&a, 0, sizeof(a));
	cr_assert_eq(pev_attr_min_size(&a), 64);
}

Test(attr_min_size, null_is_ver0)
{
	cr_assert_eq(pev_attr_min_size(NULL), 64);
}

Test(attr_min_size, the_size_field_itself_does_not_count)
{
	struct pev_attr a;

	memset(&a, 0, sizeof(a));
	a.size = 136;
	cr_assert_eq(pev_attr_min_size(&a), 64);
}

Test(attr_min_size, each_byte_needs_the_smallest_version_covering_it)
{
	static const uint32_t versions[] = {64, 72, 80, 96, 104, 112, 120, 128, 136};

	for (size_t i = 0; i < ATTR_BYTES; i++) {
		unsigned char bytes[ATTR_BYTES];
		struct pev_attr a;
		uint32_t expect = 0;

		for (size_t v = 0; v < sizeof(versions) / sizeof(versions[0]) && !expect; v++)
			if (i < versions[v])
				expect = versions[v];
		memset(bytes, 0, sizeof(bytes));
		bytes[i] = 0x80;
		memcpy(&a, bytes, sizeof(a));
		cr_expect_eq(pev_attr_min_size(&a), expect, "non-zero byte %zu: got %u, expected %u",
			     i, pev_attr_min_size(&a), expect);
	}
}

Test(attr_min_size, the_last_non_zero_byte_decides)
{
	struct pev_attr a;

	memset(&a, 0, sizeof(a));
	a.config2 = 1;           /* 64..71 */
	a.sample_regs_intr = 1;  /* 96..103 */
	cr_assert_eq(pev_attr_min_size(&a), 104);
}

/* ---- pev_attr_decode --------------------------------------------------- */

/* A block of `n` bytes (up to 160) with type, size and config set. */
struct block {
	unsigned char b[160];
};

static void block_init(struct block *blk, uint32_t type, uint32_t size, uint64_t config)
{
	memset(blk, 0, sizeof(*blk));
	memcpy(blk->b + AT_TYPE, &type, 4);
	memcpy(blk->b + AT_SIZE, &size, 4);
	memcpy(blk->b + AT_CONFIG, &config, 8);
}

static void block_put(struct block *blk, size_t off, const void *v, size_t n)
{
	memcpy(blk->b + off, v, n);
}

static void block_put64(struct block *blk, size_t off, uint64_t v)
{
	block_put(blk, off, &v, 8);
}

static void block_put32(struct block *blk, size_t off, uint32_t v)
{
	block_put(blk, off, &v, 4);
}

static int decode(const struct block *blk, size_t len, struct pev_event *ev, struct pev_opts *o)
{
	memset(ev, 0x5a, sizeof(*ev));
	memset(o, 0x5a, sizeof(*o));
	o->sz = sizeof(*o);
	return pev_attr_decode(blk->b, len, ev, o);
}

Test(attr_decode, size_zero_means_ver0)
{
	struct block blk;
	struct pev_event ev;
	struct pev_opts o;

	block_init(&blk, 1, 0, 3);
	block_put64(&blk, AT_FLAGS, BIT(5));
	cr_assert_eq(decode(&blk, 64, &ev, &o), 0);
	cr_assert_eq(ev.type, 1);
	cr_assert_eq(ev.config, 3);
	cr_assert(o.exclude_kernel);
}

Test(attr_decode, size_zero_reads_no_byte_past_64)
{
	struct block blk;
	struct pev_event ev;
	struct pev_opts o;

	block_init(&blk, 1, 0, 3);
	block_put64(&blk, AT_CONFIG2, 99);
	block_put64(&blk, AT_BRANCH_SAMPLE_TYPE, 1);
	cr_assert_eq(decode(&blk, ATTR_BYTES, &ev, &o), 0);
	cr_assert_eq(ev.config2, 0);
	cr_assert_eq(o.branch_sample_type, 0);
}

Test(attr_decode, block_shorter_than_64_bytes_is_malformed)
{
	struct block blk;
	struct pev_event ev;
	struct pev_opts o;

	block_init(&blk, 1, 64, 0);
	cr_assert_eq(decode(&blk, 63, &ev, &o), PEV_EFORMAT);
	cr_assert_eq(decode(&blk, 8, &ev, &o), PEV_EFORMAT);
	cr_assert_eq(decode(&blk, 0, &ev, &o), PEV_EFORMAT);
}

Test(attr_decode, size_field_below_64_is_malformed)
{
	struct block blk;
	struct pev_event ev;
	struct pev_opts o;

	block_init(&blk, 1, 32, 0);
	cr_assert_eq(decode(&blk, ATTR_BYTES, &ev, &o), PEV_EFORMAT);
	block_init(&blk, 1, 63, 0);
	cr_assert_eq(decode(&blk, ATTR_BYTES, &ev, &o), PEV_EFORMAT);
}

Test(attr_decode, bytes_past_len_count_as_zero)
{
	struct block blk;
	struct pev_event ev;
	struct pev_opts o;

	/* The block claims 136 bytes but only 72 are there. */
	block_init(&blk, 5, 136, 0);
	block_put64(&blk, AT_CONFIG2, 8);
	block_put64(&blk, AT_BRANCH_SAMPLE_TYPE, 9);
	block_put32(&blk, AT_CLOCKID, 4);
	cr_assert_eq(decode(&blk, 72, &ev, &o), 0);
	cr_assert_eq(ev.config2, 8);
	cr_assert_eq(o.branch_sample_type, 0);
	cr_assert_eq(o.clockid, 0);
}

Test(attr_decode, bytes_past_size_are_not_read)
{
	struct block blk;
	struct pev_event ev;
	struct pev_opts o;

	block_init(&blk, 5, 72, 0);
	block_put64(&blk, AT_CONFIG2, 8);
	block_put64(&blk, AT_BRANCH_SAMPLE_TYPE, 9);
	cr_assert_eq(decode(&blk, ATTR_BYTES, &ev, &o), 0);
	cr_assert_eq(ev.config2, 8);
	cr_assert_eq(o.branch_sample_type, 0);
}

Test(attr_decode, unknown_flag_bit_is_a_newer_version)
{
	struct block blk;
	struct pev_event ev;
	struct pev_opts o;

	block_init(&blk, 1, 64, 0);
	block_put64(&blk, AT_FLAGS, BIT(38));
	cr_assert_eq(decode(&blk, 64, &ev, &o), PEV_EVERSION);
	block_put64(&blk, AT_FLAGS, BIT(63));
	cr_assert_eq(decode(&blk, 64, &ev, &o), PEV_EVERSION);
}

Test(attr_decode, unknown_aux_action_bit_is_a_newer_version)
{
	struct block blk;
	struct pev_event ev;
	struct pev_opts o;

	block_init(&blk, 1, 120, 0);
	block_put32(&blk, AT_AUX_ACTION, 0x8);
	cr_assert_eq(decode(&blk, 120, &ev, &o), PEV_EVERSION);
}

Test(attr_decode, non_zero_reserved_2_is_a_newer_version)
{
	struct block blk;
	struct pev_event ev;
	struct pev_opts o;
	uint16_t one = 1;

	block_init(&blk, 1, 112, 0);
	block_put(&blk, AT_RESERVED_2, &one, 2);
	cr_assert_eq(decode(&blk, 112, &ev, &o), PEV_EVERSION);
}

Test(attr_decode, unknown_sample_type_bit_is_a_newer_version)
{
	struct block blk;
	struct pev_event ev;
	struct pev_opts o;

	block_init(&blk, 1, 64, 0);
	block_put64(&blk, AT_SAMPLE_TYPE, BIT(25));
	cr_assert_eq(decode(&blk, 64, &ev, &o), PEV_EVERSION);
}

Test(attr_decode, unknown_read_format_bit_is_a_newer_version)
{
	struct block blk;
	struct pev_event ev;
	struct pev_opts o;

	block_init(&blk, 1, 64, 0);
	block_put64(&blk, AT_READ_FORMAT, BIT(5));
	cr_assert_eq(decode(&blk, 64, &ev, &o), PEV_EVERSION);
}

Test(attr_decode, unknown_branch_sample_type_bit_is_a_newer_version)
{
	struct block blk;
	struct pev_event ev;
	struct pev_opts o;

	block_init(&blk, 0, 80, 0);
	block_put64(&blk, AT_BRANCH_SAMPLE_TYPE, BIT(20));
	cr_assert_eq(decode(&blk, 80, &ev, &o), PEV_EVERSION);
}

Test(attr_decode, non_zero_bytes_past_136_are_a_newer_version)
{
	struct block blk;
	struct pev_event ev;
	struct pev_opts o;

	block_init(&blk, 1, 144, 0);
	blk.b[140] = 1;
	cr_assert_eq(decode(&blk, 144, &ev, &o), PEV_EVERSION);
}

Test(attr_decode, zero_bytes_past_136_are_accepted)
{
	struct block blk;
	struct pev_event ev;
	struct pev_opts o;

	block_init(&blk, 1, 144, 5);
	block_put64(&blk, AT_CONFIG3, 6);
	cr_assert_eq(decode(&blk, 144, &ev, &o), 0);
	cr_assert_eq(ev.config, 5);
	cr_assert_eq(ev.config3, 6);
}

Test(attr_decode, inherit_thread_without_inherit_is_malformed)
{
	struct block blk;
	struct pev_event ev;
	struct pev_opts o;

	block_init(&blk, 1, 64, 0);
	block_put64(&blk, AT_FLAGS, BIT(35));
	cr_assert_eq(decode(&blk, 64, &ev, &o), PEV_EFORMAT);
}

Test(attr_decode, null_arguments_are_bad)
{
	struct block blk;
	struct pev_event ev;
	struct pev_opts o;

	block_init(&blk, 1, 64, 0);
	cr_assert_eq(pev_attr_decode(NULL, 64, &ev, &o), PEV_EBADARG);
	cr_assert_eq(pev_attr_decode(blk.b, 64, NULL, &o), PEV_EBADARG);
	cr_assert_eq(pev_attr_decode(blk.b, 64, &ev, NULL), PEV_EBADARG);
}

Test(attr_decode, sets_sz_and_clears_name_and_pmu)
{
	struct block blk;
	struct pev_event ev;
	struct pev_opts o;

	block_init(&blk, 1, 64, 2);
	cr_assert_eq(decode(&blk, 64, &ev, &o), 0);
	cr_assert_eq(o.sz, sizeof(struct pev_opts));
	cr_assert_null(ev.name);
	cr_assert_null(ev.pmu);
	cr_assert_eq(o.open_flags, 0);
}

Test(attr_decode, freq_bit_reads_sample_freq)
{
	struct block blk;
	struct pev_event ev;
	struct pev_opts o;

	block_init(&blk, 1, 64, 0);
	block_put64(&blk, AT_SAMPLE, 4000);
	block_put64(&blk, AT_FLAGS, BIT(10));
	cr_assert_eq(decode(&blk, 64, &ev, &o), 0);
	cr_assert_eq(o.sample_freq, 4000);
	cr_assert_eq(o.sample_period, 0);
}

Test(attr_decode, no_freq_bit_reads_sample_period)
{
	struct block blk;
	struct pev_event ev;
	struct pev_opts o;

	block_init(&blk, 1, 64, 0);
	block_put64(&blk, AT_SAMPLE, 100003);
	cr_assert_eq(decode(&blk, 64, &ev, &o), 0);
	cr_assert_eq(o.sample_period, 100003);
	cr_assert_eq(o.sample_freq, 0);
}

Test(attr_decode, watermark_bit_reads_wakeup_bytes)
{
	struct block blk;
	struct pev_event ev;
	struct pev_opts o;

	block_init(&blk, 1, 64, 0);
	block_put32(&blk, AT_WAKEUP, 8192);
	block_put64(&blk, AT_FLAGS, BIT(14));
	cr_assert_eq(decode(&blk, 64, &ev, &o), 0);
	cr_assert_eq(o.wakeup_bytes, 8192);
	cr_assert_eq(o.wakeup_events, 0);
}

Test(attr_decode, inherit_bits_read_as_inherit_modes)
{
	struct block blk;
	struct pev_event ev;
	struct pev_opts o;

	block_init(&blk, 1, 64, 0);
	cr_assert_eq(decode(&blk, 64, &ev, &o), 0);
	cr_assert_eq(o.inherit, PEV_INHERIT_NONE);
	block_put64(&blk, AT_FLAGS, BIT(1));
	cr_assert_eq(decode(&blk, 64, &ev, &o), 0);
	cr_assert_eq(o.inherit, PEV_INHERIT_ALL);
	block_put64(&blk, AT_FLAGS, BIT(1) | BIT(35));
	cr_assert_eq(decode(&blk, 64, &ev, &o), 0);
	cr_assert_eq(o.inherit, PEV_INHERIT_THREADS);
}

Test(attr_decode, precise_ip_reads_as_skid)
{
	struct block blk;
	struct pev_event ev;
	struct pev_opts o;

	block_init(&blk, 0, 64, 0);
	block_put64(&blk, AT_FLAGS, UINT64_C(2) << 15);
	cr_assert_eq(decode(&blk, 64, &ev, &o), 0);
	cr_assert_eq(o.skid, PEV_SKID_REQUEST_ZERO);
}

Test(attr_decode, clockid_without_use_clockid_is_dropped)
{
	struct block blk;
	struct pev_event ev;
	struct pev_opts o;
	struct pev_attr attr;

	block_init(&blk, 1, 96, 0);
	block_put32(&blk, AT_CLOCKID, 4);
	cr_assert_eq(decode(&blk, 96, &ev, &o), 0);
	cr_assert_eq(o.clockid, 0);
	cr_assert(!o.use_clockid);
	cr_assert_eq(pev_attr_encode(&attr, &ev, &o, NULL), 0);
}

Test(attr_decode, sig_data_without_sigtrap_is_dropped)
{
	struct block blk;
	struct pev_event ev;
	struct pev_opts o;
	struct pev_attr attr;

	block_init(&blk, 1, 128, 0);
	block_put64(&blk, AT_SIG_DATA, 77);
	cr_assert_eq(decode(&blk, 128, &ev, &o), 0);
	cr_assert_eq(o.sig_data, 0);
	cr_assert_eq(pev_attr_encode(&attr, &ev, &o, NULL), 0);
}

Test(attr_decode, reads_a_block_built_with_the_system_header)
{
	struct perf_event_attr k;
	struct pev_event ev;
	struct pev_opts o;

	memset(&k, 0, sizeof(k));
	k.type = PERF_TYPE_BREAKPOINT;
	k.size = sizeof(k);
	k.bp_type = 2;
	k.bp_addr = 0x601040;
	k.bp_len = 4;
	k.sample_period = 1;
	k.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR;
	k.exclude_kernel = 1;
	k.exclude_hv = 1;
	k.precise_ip = 1;
	k.sigtrap = 1;
	k.remove_on_exec = 1;
	k.inherit = 1;
	k.inherit_thread = 1;
	k.sig_data = 0xabc;
	k.sample_max_stack = 20;
	o.sz = sizeof(o);
	cr_assert_eq(pev_attr_decode(&k, sizeof(k), &ev, &o), 0);
	cr_assert_eq(ev.type, PEV_TYPE_BREAKPOINT);
	cr_assert_eq(ev.bp_type, PEV_BP_W);
	cr_assert_eq(ev.config1, 0x601040);
	cr_assert_eq(ev.config2, 4);
	cr_assert_eq(o.sample_period, 1);
	cr_assert_eq(o.sample_type, PEV_SAMPLE_IP | PEV_SAMPLE_ADDR);
	cr_assert(o.exclude_kernel);
	cr_assert(o.exclude_hv);
	cr_assert(!o.exclude_user);
	cr_assert_eq(o.skid, PEV_SKID_CONSTANT);
	cr_assert(o.sigtrap);
	cr_assert(o.remove_on_exec);
	cr_assert_eq(o.inherit, PEV_INHERIT_THREADS);
	cr_assert_eq(o.sig_data, 0xabc);
	cr_assert_eq(o.callchain_max_stack, 20);
}

/* ---- pev_attr_decode honours the caller's opts.sz ------------------------ */

Test(attr_decode_sz, zero_sz_is_a_bad_argument)
{
	struct pev_attr a;
	struct pev_event ev;
	struct pev_opts o = {.sz = 0};

	cr_assert_eq(pev_attr_encode(&a, &(struct pev_event){.type = 1}, NULL, NULL), 0);
	cr_assert_eq(pev_attr_decode(&a, sizeof(a), &ev, &o), PEV_EBADARG);
}

Test(attr_decode_sz, an_older_smaller_struct_is_filled_only_up_to_its_size)
{
	struct pev_opts in = PEV_OPTS_INIT, out;
	struct pev_attr a;
	struct pev_event ev = {.type = PEV_TYPE_SOFTWARE};
	size_t old_sz = offsetof(struct pev_opts, disabled);

	in.exclude_kernel = true;
	in.disabled = true;
	cr_assert_eq(pev_attr_encode(&a, &ev, &in, NULL), 0);
	memset(&out, 0x77, sizeof(out));
	out.sz = old_sz;
	cr_assert_eq(pev_attr_decode(&a, sizeof(a), &ev, &out), 0);
	cr_assert_eq(out.sz, old_sz);
	cr_assert(out.exclude_kernel);
	/* Bytes past the caller's struct are not the library's to write. */
	cr_assert_eq(((unsigned char *)&out)[old_sz], 0x77);
}

Test(attr_decode_sz, a_newer_larger_struct_gets_its_unknown_tail_zeroed)
{
	struct {
		struct pev_opts opts;
		unsigned char newer[16];
	} out;
	struct pev_attr a;
	struct pev_event ev = {.type = PEV_TYPE_SOFTWARE};

	cr_assert_eq(pev_attr_encode(&a, &ev, NULL, NULL), 0);
	memset(&out, 0x77, sizeof(out));
	out.opts.sz = sizeof(out);
	cr_assert_eq(pev_attr_decode(&a, sizeof(a), &ev, &out.opts), 0);
	cr_assert_eq(out.opts.sz, sizeof(struct pev_opts));
	for (size_t i = 0; i < sizeof(out.newer); i++)
		cr_assert_eq(out.newer[i], 0);
}
