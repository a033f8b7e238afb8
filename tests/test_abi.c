/* SPDX-License-Identifier: MIT */
/*
 * test_abi.c - run-time checks of perfev's ABI definitions (perfev/abi.h)
 * against the system's <linux/perf_event.h>, for what src/core/abi_check.c cannot
 * reach with offsetof: the positions of bit-fields. Each test sets one
 * bit-field in the kernel's struct, reads the raw word back at perfev's
 * offset and compares it with perfev's constant or accessor.
 *
 * Fields newer than the system header (Debian 12 ships a 6.1 header) are
 * checked against the documented layout, written here as literal numbers.
 */
#include <inttypes.h>
#include <stddef.h>
#include <string.h>

#include <linux/perf_event.h>
#include <linux/version.h>

#include "helpers.h"
#include "core/names.h"

/* ---- attribute flags --------------------------------------------------- */

/* The 64-bit word at perfev's flags offset inside a kernel attribute block. */
static uint64_t attr_flags_word(const struct perf_event_attr *a)
{
	uint64_t w;

	memcpy(&w, (const unsigned char *)a + offsetof(struct pev_attr, flags), sizeof(w));
	return w;
}

/* True when every byte of a outside perfev's flags word is zero. */
static bool only_flags_word_used(const struct perf_event_attr *a)
{
	const unsigned char *b = (const unsigned char *)a;
	size_t lo = offsetof(struct pev_attr, flags), hi = lo + sizeof(uint64_t);

	for (size_t i = 0; i < sizeof(*a); i++)
		if ((i < lo || i >= hi) && b[i])
			return false;
	return true;
}

/* Number of the lowest set bit of a non-zero word. */
static int bit_number(uint64_t w)
{
	int n = 0;

	while (!(w & 1)) {
		w >>= 1;
		n++;
	}
	return n;
}

/* Every one-bit field of perf_event_attr's flags word, with perfev's constant. */
#define ATTR_ONE_BIT_FIELDS(X)                                                                     \
	X(disabled, PEV_ATTR_DISABLED)                                                             \
	X(inherit, PEV_ATTR_INHERIT)                                                               \
	X(pinned, PEV_ATTR_PINNED)                                                                 \
	X(exclusive, PEV_ATTR_EXCLUSIVE)                                                           \
	X(exclude_user, PEV_ATTR_EXCLUDE_USER)                                                     \
	X(exclude_kernel, PEV_ATTR_EXCLUDE_KERNEL)                                                 \
	X(exclude_hv, PEV_ATTR_EXCLUDE_HV)                                                         \
	X(exclude_idle, PEV_ATTR_EXCLUDE_IDLE)                                                     \
	X(mmap, PEV_ATTR_MMAP)                                                                     \
	X(comm, PEV_ATTR_COMM)                                                                     \
	X(freq, PEV_ATTR_FREQ)                                                                     \
	X(inherit_stat, PEV_ATTR_INHERIT_STAT)                                                     \
	X(enable_on_exec, PEV_ATTR_ENABLE_ON_EXEC)                                                 \
	X(task, PEV_ATTR_TASK)                                                                     \
	X(watermark, PEV_ATTR_WATERMARK)                                                           \
	X(mmap_data, PEV_ATTR_MMAP_DATA)                                                           \
	X(sample_id_all, PEV_ATTR_SAMPLE_ID_ALL)                                                   \
	X(exclude_host, PEV_ATTR_EXCLUDE_HOST)                                                     \
	X(exclude_guest, PEV_ATTR_EXCLUDE_GUEST)                                                   \
	X(exclude_callchain_kernel, PEV_ATTR_EXCLUDE_CALLCHAIN_KERNEL)                             \
	X(exclude_callchain_user, PEV_ATTR_EXCLUDE_CALLCHAIN_USER)                                 \
	X(mmap2, PEV_ATTR_MMAP2)                                                                   \
	X(comm_exec, PEV_ATTR_COMM_EXEC)                                                           \
	X(use_clockid, PEV_ATTR_USE_CLOCKID)                                                       \
	X(context_switch, PEV_ATTR_CONTEXT_SWITCH)                                                 \
	X(write_backward, PEV_ATTR_WRITE_BACKWARD)                                                 \
	X(namespaces, PEV_ATTR_NAMESPACES)                                                         \
	X(ksymbol, PEV_ATTR_KSYMBOL)                                                               \
	X(bpf_event, PEV_ATTR_BPF_EVENT)                                                           \
	X(aux_output, PEV_ATTR_AUX_OUTPUT)                                                         \
	X(cgroup, PEV_ATTR_CGROUP)                                                                 \
	X(text_poke, PEV_ATTR_TEXT_POKE)                                                           \
	X(build_id, PEV_ATTR_BUILD_ID)                                                             \
	X(inherit_thread, PEV_ATTR_INHERIT_THREAD)                                                 \
	X(remove_on_exec, PEV_ATTR_REMOVE_ON_EXEC)                                                 \
	X(sigtrap, PEV_ATTR_SIGTRAP)

/* One test per bit: the kernel's bit-field lands exactly on perfev's constant. */
#define ATTR_BIT_TEST(field, constant)                                                             \
	Test(abi_attr_flags, field##_is_##constant)                                                \
	{                                                                                          \
		struct perf_event_attr a;                                                          \
		memset(&a, 0, sizeof(a));                                                          \
		a.field = 1;                                                                       \
		cr_assert(only_flags_word_used(&a),                                                \
			  "bit-field " #field " lies outside the flags word at offset %zu",        \
			  offsetof(struct pev_attr, flags));                                       \
		cr_assert_eq(attr_flags_word(&a), (uint64_t)(constant),                            \
			     "kernel bit-field " #field " is 0x%016" PRIx64                        \
			     ", perfev's " #constant " is 0x%016" PRIx64,                          \
			     attr_flags_word(&a), (uint64_t)(constant));                           \
	}
ATTR_ONE_BIT_FIELDS(ATTR_BIT_TEST)
#undef ATTR_BIT_TEST

/* The name perfev prints for each bit is the kernel's field name. */
#define ATTR_BIT_NAME_TEST(field, constant)                                                        \
	Test(abi_attr_flag_names, field)                                                           \
	{                                                                                          \
		const char *n = pev__flag_bit_name(bit_number(constant));                          \
		cr_assert_not_null(n, "no name for bit %d", bit_number(constant));                 \
		cr_assert_str_eq(n, #field);                                                       \
	}
ATTR_ONE_BIT_FIELDS(ATTR_BIT_NAME_TEST)
#undef ATTR_BIT_NAME_TEST

static void check_precise_ip(unsigned v)
{
	struct perf_event_attr a;
	uint64_t w;

	memset(&a, 0, sizeof(a));
	a.precise_ip = v & 3;
	w = attr_flags_word(&a);
	cr_assert(only_flags_word_used(&a));
	/* precise_ip is the 2-bit field at bits 15-16 (after watermark, bit 14). */
	cr_assert_eq(w, (uint64_t)v << 15, "precise_ip %u is word 0x%" PRIx64, v, w);
	cr_assert_eq(w & ~PEV_ATTR_PRECISE_IP_MASK, 0, "precise_ip %u outside the mask", v);
	cr_assert_eq(PEV_ATTR_PRECISE_IP(w), v);
}

Test(abi_attr_flags, precise_ip_1_is_bit_15)
{
	check_precise_ip(1);
}

Test(abi_attr_flags, precise_ip_2_is_bit_16)
{
	check_precise_ip(2);
}

Test(abi_attr_flags, precise_ip_3_fills_the_mask)
{
	struct perf_event_attr a;

	check_precise_ip(3);
	memset(&a, 0, sizeof(a));
	a.precise_ip = 3;
	cr_assert_eq(attr_flags_word(&a), PEV_ATTR_PRECISE_IP_MASK);
	cr_assert_eq(PEV_ATTR_PRECISE_IP_SHIFT, 15);
}

Test(abi_attr_flags, precise_ip_accessor_ignores_other_bits)
{
	uint64_t w = ~PEV_ATTR_PRECISE_IP_MASK | (UINT64_C(2) << 15);

	cr_assert_eq(PEV_ATTR_PRECISE_IP(w), 2);
	cr_assert_eq(PEV_ATTR_PRECISE_IP(~PEV_ATTR_PRECISE_IP_MASK), 0);
}

Test(abi_attr_flags, flags_all_is_every_kernel_bit_field)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
#define SET_FIELD(field, constant) a.field = 1;
	ATTR_ONE_BIT_FIELDS(SET_FIELD)
#undef SET_FIELD
	a.precise_ip = 3;
	cr_assert_eq(attr_flags_word(&a), PEV_ATTR_FLAGS_ALL, "all fields set: 0x%016" PRIx64,
		     attr_flags_word(&a));
}

Test(abi_attr_flags, flags_all_is_the_or_of_the_constants)
{
	uint64_t all = PEV_ATTR_PRECISE_IP_MASK;

#define OR_CONSTANT(field, constant) all |= (constant);
	ATTR_ONE_BIT_FIELDS(OR_CONSTANT)
#undef OR_CONSTANT
	cr_assert_eq(all, PEV_ATTR_FLAGS_ALL);
	/* 36 one-bit fields and the 2-bit precise_ip: bits 0..37. */
	cr_assert_eq(PEV_ATTR_FLAGS_ALL, UINT64_C(0x3fffffffff));
}

Test(abi_attr_flags, constants_are_distinct_single_bits)
{
	uint64_t seen = PEV_ATTR_PRECISE_IP_MASK;

#define CHECK_SINGLE(field, constant)                                                              \
	cr_expect_eq((constant) & ((constant)-1), 0, #constant " is not a single bit");            \
	cr_expect_eq(seen & (constant), 0, #constant " overlaps another constant");                \
	seen |= (constant);
	ATTR_ONE_BIT_FIELDS(CHECK_SINGLE)
#undef CHECK_SINGLE
}

Test(abi_attr_flags, reserved_bits_are_outside_flags_all)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.__reserved_1 = (UINT64_C(1) << 26) - 1;
	cr_assert_eq(attr_flags_word(&a), ~PEV_ATTR_FLAGS_ALL, "reserved bits: 0x%016" PRIx64,
		     attr_flags_word(&a));
}

Test(abi_attr_layout, flags_word_is_at_offset_40)
{
	cr_assert_eq(offsetof(struct pev_attr, flags), 40);
	cr_assert_eq(offsetof(struct pev_attr, flags), offsetof(struct perf_event_attr, read_format) + 8);
}

/* ---- aux_action and the fields after it (newer than the 6.1 header) ---- */

Test(abi_attr_layout, aux_action_is_the_word_at_offset_116)
{
	struct pev_attr a;

	cr_assert_eq(offsetof(struct pev_attr, aux_action), 116);
	cr_assert_eq(sizeof(a.aux_action), 4);
	/* In the system header it is the slot after aux_sample_size (__reserved_3 before 6.13). */
	cr_assert_eq(offsetof(struct perf_event_attr, aux_sample_size) + 4, 116);
}

Test(abi_attr_layout, aux_action_bits_are_start_paused_pause_resume)
{
	/* Linux 6.13: aux_start_paused:1, aux_pause:1, aux_resume:1, __reserved_3:29. */
	cr_assert_eq(PEV_AUX_START_PAUSED, 1U << 0);
	cr_assert_eq(PEV_AUX_PAUSE, 1U << 1);
	cr_assert_eq(PEV_AUX_RESUME, 1U << 2);
	cr_assert_eq(PEV_AUX_ACTION_ALL, 0x7U);
}

Test(abi_attr_layout, aux_action_bit_lands_in_the_byte_at_116)
{
	struct pev_attr a;
	uint32_t w;

	memset(&a, 0, sizeof(a));
	a.aux_action = PEV_AUX_RESUME;
	memcpy(&w, (const unsigned char *)&a + 116, sizeof(w));
	cr_assert_eq(w, 4);
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define AUX_BIT_TEST(field, constant)                                                              \
	Test(abi_attr_aux_action, field##_is_##constant)                                           \
	{                                                                                          \
		struct perf_event_attr a;                                                          \
		uint32_t w;                                                                        \
		memset(&a, 0, sizeof(a));                                                          \
		a.field = 1;                                                                       \
		memcpy(&w, (const unsigned char *)&a + offsetof(struct pev_attr, aux_action),      \
		       sizeof(w));                                                                 \
		cr_assert_eq(w, (constant));                                                       \
	}
AUX_BIT_TEST(aux_start_paused, PEV_AUX_START_PAUSED)
AUX_BIT_TEST(aux_pause, PEV_AUX_PAUSE)
AUX_BIT_TEST(aux_resume, PEV_AUX_RESUME)
#undef AUX_BIT_TEST
#endif

Test(abi_attr_layout, aux_action_bit_names)
{
	cr_assert_str_eq(pev__aux_bit_name(0), "aux_start_paused");
	cr_assert_str_eq(pev__aux_bit_name(1), "aux_pause");
	cr_assert_str_eq(pev__aux_bit_name(2), "aux_resume");
	cr_assert_null(pev__aux_bit_name(3));
}

Test(abi_attr_layout, sig_data_is_at_offset_120)
{
	cr_assert_eq(offsetof(struct pev_attr, sig_data), 120);
#ifdef PERF_ATTR_SIZE_VER7
	cr_assert_eq(offsetof(struct perf_event_attr, sig_data), 120);
#endif
}

Test(abi_attr_layout, config3_is_at_offset_128_and_ends_the_block)
{
	cr_assert_eq(offsetof(struct pev_attr, config3), 128);
	cr_assert_eq(sizeof(struct pev_attr), 136);
}

Test(abi_attr_layout, latest_size_is_the_struct_size_136)
{
	cr_assert_eq(PEV_ATTR_SIZE_LATEST, 136);
	cr_assert_eq(sizeof(struct pev_attr), PEV_ATTR_SIZE_LATEST);
	cr_assert_geq(sizeof(struct pev_attr), sizeof(struct perf_event_attr),
		      "the system header knows a larger attribute than perfev");
}

Test(abi_attr_layout, version_sizes_are_the_documented_ones_and_increase)
{
	static const uint32_t ours[] = {PEV_ATTR_SIZE_VER0, PEV_ATTR_SIZE_VER1, PEV_ATTR_SIZE_VER2,
					PEV_ATTR_SIZE_VER3, PEV_ATTR_SIZE_VER4, PEV_ATTR_SIZE_VER5,
					PEV_ATTR_SIZE_VER6, PEV_ATTR_SIZE_VER7, PEV_ATTR_SIZE_VER8};
	static const uint32_t documented[] = {64, 72, 80, 96, 104, 112, 120, 128, 136};

	for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++) {
		cr_expect_eq(ours[i], documented[i], "VER%zu", i);
		cr_expect_eq(ours[i] % 8, 0, "VER%zu is not a multiple of 8", i);
		if (i > 0)
			cr_expect_gt(ours[i], ours[i - 1], "VER%zu <= VER%zu", i, i - 1);
	}
	cr_expect_eq(PEV_ATTR_SIZE_LATEST, ours[8]);
}

Test(abi_attr_layout, each_version_ends_after_the_field_it_added)
{
	cr_expect_eq(offsetof(struct pev_attr, config1) + 8, PEV_ATTR_SIZE_VER0);
	cr_expect_eq(offsetof(struct pev_attr, config2) + 8, PEV_ATTR_SIZE_VER1);
	cr_expect_eq(offsetof(struct pev_attr, branch_sample_type) + 8, PEV_ATTR_SIZE_VER2);
	cr_expect_eq(offsetof(struct pev_attr, clockid) + 4, PEV_ATTR_SIZE_VER3);
	cr_expect_eq(offsetof(struct pev_attr, sample_regs_intr) + 8, PEV_ATTR_SIZE_VER4);
	cr_expect_eq(offsetof(struct pev_attr, reserved_2) + 2, PEV_ATTR_SIZE_VER5);
	cr_expect_eq(offsetof(struct pev_attr, aux_action) + 4, PEV_ATTR_SIZE_VER6);
	cr_expect_eq(offsetof(struct pev_attr, sig_data) + 8, PEV_ATTR_SIZE_VER7);
	cr_expect_eq(offsetof(struct pev_attr, config3) + 8, PEV_ATTR_SIZE_VER8);
}

/* ---- perf_event_mmap_page capabilities --------------------------------- */

static uint64_t page_caps_word(const struct perf_event_mmap_page *p)
{
	uint64_t w;

	memcpy(&w, (const unsigned char *)p + offsetof(struct pev_mmap_page, capabilities),
	       sizeof(w));
	return w;
}

#define PEV_CAP_ALL                                                                                \
	(PEV_CAP_BIT0_IS_DEPRECATED | PEV_CAP_USER_RDPMC | PEV_CAP_USER_TIME |                     \
	 PEV_CAP_USER_TIME_ZERO | PEV_CAP_USER_TIME_SHORT)

#define CAP_BIT_TEST(field, constant)                                                              \
	Test(abi_mmap_page_caps, field##_is_##constant)                                            \
	{                                                                                          \
		static struct perf_event_mmap_page p;                                              \
		memset(&p, 0, sizeof(p));                                                          \
		p.field = 1;                                                                       \
		cr_assert_eq(page_caps_word(&p), (uint64_t)(constant),                             \
			     "kernel bit-field " #field " is 0x%" PRIx64 ", perfev's " #constant   \
			     " is 0x%" PRIx64,                                                     \
			     page_caps_word(&p), (uint64_t)(constant));                            \
	}
CAP_BIT_TEST(cap_bit0_is_deprecated, PEV_CAP_BIT0_IS_DEPRECATED)
CAP_BIT_TEST(cap_user_rdpmc, PEV_CAP_USER_RDPMC)
CAP_BIT_TEST(cap_user_time, PEV_CAP_USER_TIME)
CAP_BIT_TEST(cap_user_time_zero, PEV_CAP_USER_TIME_ZERO)
CAP_BIT_TEST(cap_user_time_short, PEV_CAP_USER_TIME_SHORT)
#undef CAP_BIT_TEST

Test(abi_mmap_page_caps, deprecated_bit0_has_no_perfev_constant)
{
	static struct perf_event_mmap_page p;

	memset(&p, 0, sizeof(p));
	p.cap_bit0 = 1;
	cr_assert_eq(page_caps_word(&p), 1);
	cr_assert_eq(page_caps_word(&p) & PEV_CAP_ALL, 0);
}

Test(abi_mmap_page_caps, reserved_bits_have_no_perfev_constant)
{
	static struct perf_event_mmap_page p;

	memset(&p, 0, sizeof(p));
	p.cap_____res = (UINT64_C(1) << 58) - 1;
	cr_assert_eq(page_caps_word(&p), ~UINT64_C(0x3f));
	cr_assert_eq(page_caps_word(&p) & PEV_CAP_ALL, 0);
}

/* ---- perf_branch_entry ------------------------------------------------- */

enum branch_field {
	BF_MISPRED,
	BF_PREDICTED,
	BF_IN_TX,
	BF_ABORT,
	BF_CYCLES,
	BF_TYPE,
	BF_SPEC,
	BF_NEW_TYPE,
	BF_PRIV,
	BF_COUNT
};

static const char *const branch_field_names[BF_COUNT] = {
	"mispred", "predicted", "in_tx", "abort", "cycles", "type", "spec", "new_type", "priv",
};

/* The third word of a kernel branch entry, where perfev's accessors read. */
static uint64_t branch_flags_word(const struct perf_branch_entry *e)
{
	uint64_t w;

	memcpy(&w, (const unsigned char *)e + offsetof(struct pev_branch_entry, flags), sizeof(w));
	return w;
}

static void branch_accessors(uint64_t w, unsigned out[BF_COUNT])
{
	out[BF_MISPRED] = PEV_BRANCH_ENTRY_MISPRED(w);
	out[BF_PREDICTED] = PEV_BRANCH_ENTRY_PREDICTED(w);
	out[BF_IN_TX] = PEV_BRANCH_ENTRY_IN_TX(w);
	out[BF_ABORT] = PEV_BRANCH_ENTRY_ABORT(w);
	out[BF_CYCLES] = PEV_BRANCH_ENTRY_CYCLES(w);
	out[BF_TYPE] = PEV_BRANCH_ENTRY_TYPE(w);
	out[BF_SPEC] = PEV_BRANCH_ENTRY_SPEC(w);
	out[BF_NEW_TYPE] = PEV_BRANCH_ENTRY_NEW_TYPE(w);
	out[BF_PRIV] = PEV_BRANCH_ENTRY_PRIV(w);
}

/* Asserts that the accessor of `which` reads `value` and every other reads 0. */
static void check_branch_word(uint64_t w, enum branch_field which, unsigned value)
{
	unsigned got[BF_COUNT];

	branch_accessors(w, got);
	for (int i = 0; i < BF_COUNT; i++)
		cr_assert_eq(got[i], i == (int)which ? value : 0U,
			     "kernel %s = %u: perfev's %s accessor reads %u (word 0x%" PRIx64 ")",
			     branch_field_names[which], value, branch_field_names[i], got[i], w);
}

/*
 * One test per field: a distinctive value and the all-ones value of the
 * kernel's width must each come back exactly, and no other accessor may see
 * a bit of them.
 */
#define BRANCH_FIELD_TEST(field, which, width, distinctive)                                        \
	Test(abi_branch_entry, field##_accessor_reads_the_kernel_bit_field)                        \
	{                                                                                          \
		struct perf_branch_entry e;                                                        \
		const unsigned all_ones = (1U << (width)) - 1;                                     \
		memset(&e, 0, sizeof(e));                                                          \
		e.field = (distinctive);                                                           \
		cr_assert_eq(e.field, (distinctive), "distinctive value does not fit");            \
		check_branch_word(branch_flags_word(&e), which, (distinctive));                    \
		memset(&e, 0, sizeof(e));                                                          \
		e.field = all_ones;                                                                \
		check_branch_word(branch_flags_word(&e), which, all_ones);                         \
	}
BRANCH_FIELD_TEST(mispred, BF_MISPRED, 1, 1U)
BRANCH_FIELD_TEST(predicted, BF_PREDICTED, 1, 1U)
BRANCH_FIELD_TEST(in_tx, BF_IN_TX, 1, 1U)
BRANCH_FIELD_TEST(abort, BF_ABORT, 1, 1U)
BRANCH_FIELD_TEST(cycles, BF_CYCLES, 16, 0xa5c3U)
BRANCH_FIELD_TEST(type, BF_TYPE, 4, 0xbU)
BRANCH_FIELD_TEST(spec, BF_SPEC, 2, 2U)
BRANCH_FIELD_TEST(new_type, BF_NEW_TYPE, 4, 0x9U)
BRANCH_FIELD_TEST(priv, BF_PRIV, 3, 5U)
#undef BRANCH_FIELD_TEST

Test(abi_branch_entry, all_fields_at_once_read_back_independently)
{
	struct perf_branch_entry e;
	unsigned got[BF_COUNT];

	memset(&e, 0, sizeof(e));
	e.from = 0x401000;
	e.to = 0x402000;
	e.mispred = 1;
	e.predicted = 0;
	e.in_tx = 1;
	e.abort = 0;
	e.cycles = 1234;
	e.type = PERF_BR_IND_CALL;
	e.spec = 3;
	e.new_type = 6;
	e.priv = PERF_BR_PRIV_KERNEL;
	branch_accessors(branch_flags_word(&e), got);
	cr_assert_eq(got[BF_MISPRED], 1);
	cr_assert_eq(got[BF_PREDICTED], 0);
	cr_assert_eq(got[BF_IN_TX], 1);
	cr_assert_eq(got[BF_ABORT], 0);
	cr_assert_eq(got[BF_CYCLES], 1234);
	cr_assert_eq(got[BF_TYPE], PEV_BR_IND_CALL);
	cr_assert_eq(got[BF_SPEC], PEV_BR_SPEC_CORRECT_PATH);
	cr_assert_eq(got[BF_NEW_TYPE], 6);
	cr_assert_eq(got[BF_PRIV], PEV_BR_PRIV_KERNEL);
}

Test(abi_branch_entry, reserved_bits_are_seen_by_no_accessor)
{
	struct perf_branch_entry e;
	unsigned got[BF_COUNT];

	memset(&e, 0, sizeof(e));
	e.reserved = (1U << 31) - 1;
	cr_assert_eq(branch_flags_word(&e), ~UINT64_C(0) << 33);
	branch_accessors(branch_flags_word(&e), got);
	for (int i = 0; i < BF_COUNT; i++)
		cr_expect_eq(got[i], 0, "%s reads reserved bits", branch_field_names[i]);
}

Test(abi_branch_entry, from_and_to_are_the_first_two_words)
{
	cr_assert_eq(offsetof(struct pev_branch_entry, from), offsetof(struct perf_branch_entry, from));
	cr_assert_eq(offsetof(struct pev_branch_entry, to), offsetof(struct perf_branch_entry, to));
	cr_assert_eq(offsetof(struct pev_branch_entry, flags), 16);
}

/* ---- perf_mem_data_src ------------------------------------------------- */

enum mem_field {
	MF_OP,
	MF_LVL,
	MF_SNOOP,
	MF_LOCK,
	MF_TLB,
	MF_LVLNUM,
	MF_REMOTE,
	MF_SNOOPX,
	MF_BLK,
	MF_HOPS,
	MF_COUNT
};

static const char *const mem_field_names[MF_COUNT] = {
	"OP", "LVL", "SNOOP", "LOCK", "TLB", "LVLNUM", "REMOTE", "SNOOPX", "BLK", "HOPS",
};

static void mem_fields(uint64_t v, unsigned out[MF_COUNT])
{
	out[MF_OP] = PEV_MEM_FIELD(v, OP);
	out[MF_LVL] = PEV_MEM_FIELD(v, LVL);
	out[MF_SNOOP] = PEV_MEM_FIELD(v, SNOOP);
	out[MF_LOCK] = PEV_MEM_FIELD(v, LOCK);
	out[MF_TLB] = PEV_MEM_FIELD(v, TLB);
	out[MF_LVLNUM] = PEV_MEM_FIELD(v, LVLNUM);
	out[MF_REMOTE] = PEV_MEM_FIELD(v, REMOTE);
	out[MF_SNOOPX] = PEV_MEM_FIELD(v, SNOOPX);
	out[MF_BLK] = PEV_MEM_FIELD(v, BLK);
	out[MF_HOPS] = PEV_MEM_FIELD(v, HOPS);
}

static void check_mem_value(uint64_t v, enum mem_field which, unsigned value)
{
	unsigned got[MF_COUNT];

	mem_fields(v, got);
	for (int i = 0; i < MF_COUNT; i++)
		cr_assert_eq(got[i], i == (int)which ? value : 0U,
			     "kernel field %s = %#x: PEV_MEM_FIELD(v, %s) reads %#x (v 0x%" PRIx64
			     ")",
			     mem_field_names[which], value, mem_field_names[i], got[i], v);
}

#define MEM_FIELD_TEST(field, NAME, width, distinctive)                                            \
	Test(abi_mem_data_src, field##_is_PEV_MEM_FIELD_##NAME)                                    \
	{                                                                                          \
		union perf_mem_data_src d;                                                         \
		const unsigned all_ones = (1U << (width)) - 1;                                     \
		cr_assert_eq(PEV_MEM_##NAME##_BITS, (width));                                      \
		d.val = 0;                                                                         \
		d.field = (distinctive);                                                           \
		cr_assert_eq(d.field, (distinctive), "distinctive value does not fit");            \
		check_mem_value(d.val, MF_##NAME, (distinctive));                                  \
		d.val = 0;                                                                         \
		d.field = all_ones;                                                                \
		check_mem_value(d.val, MF_##NAME, all_ones);                                       \
		cr_assert_eq(PEV_MEM_MAKE(NAME, all_ones), d.val,                                  \
			     "PEV_MEM_MAKE(" #NAME ") puts the field elsewhere");                  \
	}
MEM_FIELD_TEST(mem_op, OP, 5, PERF_MEM_OP_STORE)
MEM_FIELD_TEST(mem_lvl, LVL, 14, PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT)
MEM_FIELD_TEST(mem_snoop, SNOOP, 5, PERF_MEM_SNOOP_HITM)
MEM_FIELD_TEST(mem_lock, LOCK, 2, PERF_MEM_LOCK_LOCKED)
MEM_FIELD_TEST(mem_dtlb, TLB, 7, PERF_MEM_TLB_L2 | PERF_MEM_TLB_MISS)
MEM_FIELD_TEST(mem_lvl_num, LVLNUM, 4, PERF_MEM_LVLNUM_ANY_CACHE)
MEM_FIELD_TEST(mem_remote, REMOTE, 1, PERF_MEM_REMOTE_REMOTE)
MEM_FIELD_TEST(mem_snoopx, SNOOPX, 2, PERF_MEM_SNOOPX_FWD)
MEM_FIELD_TEST(mem_blk, BLK, 3, PERF_MEM_BLK_DATA | PERF_MEM_BLK_ADDR)
MEM_FIELD_TEST(mem_hops, HOPS, 3, PERF_MEM_HOPS_2)
#undef MEM_FIELD_TEST

Test(abi_mem_data_src, make_round_trips_through_the_kernel_union)
{
	union perf_mem_data_src d;
	uint64_t v = PEV_MEM_MAKE(OP, PEV_MEM_OP_LOAD) |
		     PEV_MEM_MAKE(LVL, PEV_MEM_LVL_L2 | PEV_MEM_LVL_MISS) |
		     PEV_MEM_MAKE(SNOOP, PEV_MEM_SNOOP_HIT) |
		     PEV_MEM_MAKE(LOCK, PEV_MEM_LOCK_NA) |
		     PEV_MEM_MAKE(TLB, PEV_MEM_TLB_L1 | PEV_MEM_TLB_HIT) |
		     PEV_MEM_MAKE(LVLNUM, PEV_MEM_LVLNUM_RAM) |
		     PEV_MEM_MAKE(REMOTE, PEV_MEM_REMOTE_REMOTE) |
		     PEV_MEM_MAKE(SNOOPX, PEV_MEM_SNOOPX_PEER) | PEV_MEM_MAKE(BLK, PEV_MEM_BLK_NA) |
		     PEV_MEM_MAKE(HOPS, PEV_MEM_HOPS_3);

	d.val = v;
	/* The kernel's bit-fields, against the documented values. */
	cr_assert_eq(d.mem_op, 0x02);
	cr_assert_eq(d.mem_lvl, 0x20 | 0x04);
	cr_assert_eq(d.mem_snoop, 0x04);
	cr_assert_eq(d.mem_lock, 0x01);
	cr_assert_eq(d.mem_dtlb, 0x08 | 0x02);
	cr_assert_eq(d.mem_lvl_num, 0x0d);
	cr_assert_eq(d.mem_remote, 1);
	cr_assert_eq(d.mem_snoopx, 0x02);
	cr_assert_eq(d.mem_blk, 0x01);
	cr_assert_eq(d.mem_hops, 0x04);
	cr_assert_eq(d.mem_rsvd, 0);
	/* And perfev's extractor gives back what PEV_MEM_MAKE put in. */
	cr_assert_eq(PEV_MEM_FIELD(v, OP), PEV_MEM_OP_LOAD);
	cr_assert_eq(PEV_MEM_FIELD(v, LVL), PEV_MEM_LVL_L2 | PEV_MEM_LVL_MISS);
	cr_assert_eq(PEV_MEM_FIELD(v, SNOOP), PEV_MEM_SNOOP_HIT);
	cr_assert_eq(PEV_MEM_FIELD(v, LOCK), PEV_MEM_LOCK_NA);
	cr_assert_eq(PEV_MEM_FIELD(v, TLB), PEV_MEM_TLB_L1 | PEV_MEM_TLB_HIT);
	cr_assert_eq(PEV_MEM_FIELD(v, LVLNUM), PEV_MEM_LVLNUM_RAM);
	cr_assert_eq(PEV_MEM_FIELD(v, REMOTE), PEV_MEM_REMOTE_REMOTE);
	cr_assert_eq(PEV_MEM_FIELD(v, SNOOPX), PEV_MEM_SNOOPX_PEER);
	cr_assert_eq(PEV_MEM_FIELD(v, BLK), PEV_MEM_BLK_NA);
	cr_assert_eq(PEV_MEM_FIELD(v, HOPS), PEV_MEM_HOPS_3);
}

Test(abi_mem_data_src, reserved_bits_are_seen_by_no_field)
{
	union perf_mem_data_src d;
	unsigned got[MF_COUNT];

	d.val = 0;
	d.mem_rsvd = (1U << 18) - 1;
	cr_assert_eq(d.val, ~UINT64_C(0) << 46);
	mem_fields(d.val, got);
	for (int i = 0; i < MF_COUNT; i++)
		cr_expect_eq(got[i], 0, "%s reads reserved bits", mem_field_names[i]);
}
