/* SPDX-License-Identifier: MIT */
/*
 * record_golden.c - the golden records (see record_golden.h).
 *
 * Each record is a word array written by hand from the uapi layout comments
 * (little-endian: a u32 pair packs as lo | hi << 32, bytes of a string as
 * byte 0 in the lowest bits). Every value is distinct and recognisable, so a
 * field read from the wrong place shows up as a wrong value.
 */
#include "record_golden.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The header word: type, misc, size in bytes (from a count of words). */
#define HDR(type, misc, nwords)                                                                    \
	((uint64_t)(type) | (uint64_t)(misc) << 32 | (uint64_t)((nwords) * 8) << 48)
/* Two u32s in one word: lo at the lower address. */
#define U32X2(lo, hi) ((uint64_t)(uint32_t)(lo) | (uint64_t)(uint32_t)(hi) << 32)
/* Eight bytes in one word: a at the lowest address. */
#define B8(a, b, c, d, e, f, g, h)                                                                 \
	((uint64_t)(uint8_t)(a) | (uint64_t)(uint8_t)(b) << 8 | (uint64_t)(uint8_t)(c) << 16 |     \
	 (uint64_t)(uint8_t)(d) << 24 | (uint64_t)(uint8_t)(e) << 32 |                             \
	 (uint64_t)(uint8_t)(f) << 40 | (uint64_t)(uint8_t)(g) << 48 | (uint64_t)(uint8_t)(h) << 56)

#define CONFIG(...) {.sz = sizeof(struct pev_record_config), __VA_ARGS__}

/* ---- identity values -------------------------------------------------------- */

#define PID 4242u
#define TID 4243u
#define TIME UINT64_C(0x0000123456789abc)
#define EID UINT64_C(0xd1)      /* PERF_SAMPLE_ID */
#define STREAM UINT64_C(0x5d2)  /* PERF_SAMPLE_STREAM_ID */
#define CPU 3u
#define IDENT UINT64_C(0x1d1)   /* PERF_SAMPLE_IDENTIFIER (the kernel writes the id twice; */
				/* distinct here so that mixing them up shows) */

#define ID_ALL                                                                                     \
	(PEV_SAMPLE_TID | PEV_SAMPLE_TIME | PEV_SAMPLE_ID | PEV_SAMPLE_STREAM_ID | PEV_SAMPLE_CPU | \
	 PEV_SAMPLE_IDENTIFIER)

/* Non-sample records: a sample_type with every identity field, and a sampling part. */
#define NS_ST (ID_ALL | PEV_SAMPLE_IP | PEV_SAMPLE_PERIOD | PEV_SAMPLE_CALLCHAIN)
#define NS_CONFIG(...) CONFIG(.sample_type = NS_ST, .sample_id_all = true, __VA_ARGS__)

/* The trailer of NS_ST: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER (6 words). */
#define TRAILER U32X2(PID, TID), TIME, EID, STREAM, U32X2(CPU, 0), IDENT
#define WANT_ID                                                                                    \
	.id_fields = ID_ALL, .sample_id = {.pid = PID,                                             \
					   .tid = TID,                                             \
					   .time = TIME,                                           \
					   .id = EID,                                              \
					   .stream_id = STREAM,                                    \
					   .cpu = CPU,                                             \
					   .identifier = IDENT }

/* ---- records other than SAMPLE --------------------------------------------------- */

static const uint64_t w_mmap[] = {
	HDR(PEV_RECORD_MMAP, PEV_RECORD_MISC_USER, 13),
	U32X2(PID, TID),
	0x400000, /* addr */
	0x1000,   /* len */
	0,        /* pgoff */
	B8('/', 'b', 'i', 'n', '/', 't', 'r', 'u'),
	B8('e', 0, 0, 0, 0, 0, 0, 0),
	TRAILER,
};

static const uint64_t w_mmap_data[] = {
	HDR(PEV_RECORD_MMAP, PEV_RECORD_MISC_USER | PEV_RECORD_MISC_MMAP_DATA, 6),
	U32X2(PID, TID),
	UINT64_C(0x7f0000000000),
	0x21000,
	0x1000,
	B8('/', 't', 'm', 'p', '/', 'd', 'a', 0),
};

static const uint64_t w_lost[] = {
	HDR(PEV_RECORD_LOST, 0, 9), EID, 17, TRAILER,
};

static const uint64_t w_comm[] = {
	HDR(PEV_RECORD_COMM, PEV_RECORD_MISC_USER, 9),
	U32X2(PID, TID),
	B8('p', 'e', 'r', 'f', 'e', 'v', 0, 0),
	TRAILER,
};

static const uint64_t w_comm_exec[] = {
	HDR(PEV_RECORD_COMM, PEV_RECORD_MISC_USER | PEV_RECORD_MISC_COMM_EXEC, 4),
	U32X2(PID, PID),
	B8('f', 'i', 'f', 't', 'e', 'e', 'n', '-'),
	B8('c', 'h', 'a', 'r', 's', '-', 'x', 0),
};

static const uint64_t w_exit[] = {
	HDR(PEV_RECORD_EXIT, 0, 10), U32X2(PID, 1), U32X2(TID, 1), TIME - 5, TRAILER,
};

static const uint64_t w_fork[] = {
	HDR(PEV_RECORD_FORK, 0, 10), U32X2(PID + 10, PID), U32X2(TID + 10, TID), TIME - 9, TRAILER,
};

static const uint64_t w_throttle[] = {
	HDR(PEV_RECORD_THROTTLE, 0, 10), TIME - 100, EID, STREAM, TRAILER,
};

static const uint64_t w_unthrottle[] = {
	HDR(PEV_RECORD_UNTHROTTLE, 0, 10), TIME - 50, EID, STREAM, TRAILER,
};

/* read_format TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING | ID | LOST. */
static const uint64_t w_read[] = {
	HDR(PEV_RECORD_READ, 0, 13),
	U32X2(PID, TID),
	0x1111, /* value */
	0xe0e0, /* time_enabled */
	0x7070, /* time_running */
	EID,    /* id */
	3,      /* lost */
	TRAILER,
};

/* read_format GROUP | TOTAL_TIME_ENABLED | ID, a group of 2. */
static const uint64_t w_read_group[] = {
	HDR(PEV_RECORD_READ, 0, 14),
	U32X2(PID, TID),
	2,      /* nr */
	0xe0e0, /* time_enabled */
	0x1111, EID,     /* leader */
	0x2222, EID + 1, /* member */
	TRAILER,
};

static const uint64_t w_mmap2[] = {
	HDR(PEV_RECORD_MMAP2, PEV_RECORD_MISC_USER, 18),
	U32X2(PID, TID),
	UINT64_C(0x7f1234560000),
	0x195000,
	0x28000,
	U32X2(8, 1), /* maj, min */
	1234567,     /* ino */
	42,          /* ino_generation */
	U32X2(5, 2), /* prot PROT_READ|PROT_EXEC, flags MAP_PRIVATE */
	B8('/', 'u', 's', 'r', '/', 'l', 'i', 'b'),
	B8('/', 'l', 'i', 'b', 'c', '.', 's', 'o'),
	B8('.', '6', 0, 0, 0, 0, 0, 0),
	TRAILER,
};

static const uint8_t build_id[20] = {0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19,
				     0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x21, 0x22, 0x23};

static const uint64_t w_mmap2_build_id[] = {
	HDR(PEV_RECORD_MMAP2, PEV_RECORD_MISC_USER | PEV_RECORD_MISC_MMAP_BUILD_ID, 17),
	U32X2(PID, TID),
	0x400000,
	0x1000,
	0,
	B8(20, 0, 0, 0, 0x10, 0x11, 0x12, 0x13), /* build_id_size, reserved, id[0..3] */
	B8(0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b),
	B8(0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x21, 0x22, 0x23),
	U32X2(5, 2),
	B8('/', 'b', 'i', 'n', '/', 't', 'r', 'u'),
	B8('e', 0, 0, 0, 0, 0, 0, 0),
	TRAILER,
};

static const uint64_t w_aux[] = {
	HDR(PEV_RECORD_AUX, 0, 10), 0x1000, 0x2000,
	PEV_AUX_FLAG_TRUNCATED | PEV_AUX_FLAG_PARTIAL, TRAILER,
};

static const uint64_t w_itrace_start[] = {
	HDR(PEV_RECORD_ITRACE_START, 0, 8), U32X2(PID, TID), TRAILER,
};

static const uint64_t w_lost_samples[] = {
	HDR(PEV_RECORD_LOST_SAMPLES, 0, 8), 99, TRAILER,
};

static const uint64_t w_switch_in[] = {
	HDR(PEV_RECORD_SWITCH, PEV_RECORD_MISC_USER, 7), TRAILER,
};

static const uint64_t w_switch_out_preempt[] = {
	HDR(PEV_RECORD_SWITCH,
	    PEV_RECORD_MISC_USER | PEV_RECORD_MISC_SWITCH_OUT | PEV_RECORD_MISC_SWITCH_OUT_PREEMPT, 7),
	TRAILER,
};

static const uint64_t w_switch_cpu_wide_out[] = {
	HDR(PEV_RECORD_SWITCH_CPU_WIDE, PEV_RECORD_MISC_KERNEL | PEV_RECORD_MISC_SWITCH_OUT, 8),
	U32X2(777, 778), TRAILER,
};

/* No trailer: the event has no sample_id_all. */
static const uint64_t w_switch_cpu_wide_in[] = {
	HDR(PEV_RECORD_SWITCH_CPU_WIDE, PEV_RECORD_MISC_KERNEL, 2), U32X2(555, 556),
};

static const uint64_t w_namespaces[] = {
	HDR(PEV_RECORD_NAMESPACES, 0, 23),
	U32X2(PID, TID),
	7,
	4, 0xf0000001, /* net: dev, inode */
	4, 0xf0000002, /* uts */
	4, 0xf0000003, /* ipc */
	4, 0xf0000004, /* pid */
	4, 0xf0000005, /* user */
	4, 0xf0000006, /* mnt */
	4, 0xf0000007, /* cgroup */
	TRAILER,
};

static const uint64_t w_ksymbol[] = {
	HDR(PEV_RECORD_KSYMBOL, PEV_RECORD_MISC_KERNEL, 11),
	UINT64_C(0xffffffffc0001000),
	0x200 | (uint64_t)PEV_KSYMBOL_TYPE_BPF << 32 | (uint64_t)0 << 48, /* len, ksym_type, flags */
	B8('b', 'p', 'f', '_', 'p', 'r', 'o', 'g'),
	B8('_', 'a', 'b', 'c', 0, 0, 0, 0),
	TRAILER,
};

/* No trailer; unregistering out-of-line code. */
static const uint64_t w_ksymbol_unreg[] = {
	HDR(PEV_RECORD_KSYMBOL, PEV_RECORD_MISC_KERNEL, 4),
	UINT64_C(0xffffffffa0002000),
	0x40 | (uint64_t)PEV_KSYMBOL_TYPE_OOL << 32 | (uint64_t)PEV_KSYMBOL_FLAGS_UNREGISTER << 48,
	B8('k', 'p', 'r', 'o', 'b', 'e', 0, 0),
};

static const uint64_t w_bpf_event[] = {
	HDR(PEV_RECORD_BPF_EVENT, 0, 9),
	PEV_BPF_EVENT_PROG_LOAD | (uint64_t)0 << 16 | (uint64_t)42 << 32, /* type, flags, id */
	B8(0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8),              /* tag */
	TRAILER,
};

static const uint64_t w_cgroup[] = {
	HDR(PEV_RECORD_CGROUP, 0, 10),
	0x1234,
	B8('/', 'u', 's', 'e', 'r', '.', 's', 'l'),
	B8('i', 'c', 'e', 0, 0, 0, 0, 0),
	TRAILER,
};

/* old: e8 01 02 03 04 (a call), new: 0f 1f 44 00 00 (a 5-byte nop), 2 bytes of padding. */
static const uint64_t w_text_poke[] = {
	HDR(PEV_RECORD_TEXT_POKE, PEV_RECORD_MISC_KERNEL, 10),
	UINT64_C(0xffffffff81234560),
	B8(5, 0, 5, 0, 0xe8, 0x01, 0x02, 0x03), /* old_len, new_len, old[0..3] */
	B8(0x04, 0x0f, 0x1f, 0x44, 0x00, 0x00, 0, 0),
	TRAILER,
};

static const uint64_t w_aux_output_hw_id[] = {
	HDR(PEV_RECORD_AUX_OUTPUT_HW_ID, 0, 8), 0x77, TRAILER,
};

/* Type 22 (CALLCHAIN_DEFERRED in Linux 6.19, not in 6.18): passed through. */
static const uint64_t w_unknown_22[] = {
	HDR(22, PEV_RECORD_MISC_USER, 4), 0xc00c1e, 1, 0x401000,
};

/* A perf.data-only type (FINISHED_ROUND, 68): a bare header. */
static const uint64_t w_unknown_68[] = {
	HDR(68, 0, 1),
};

/* ---- SAMPLE, one sample_type bit at a time -------------------------------------- */

#define IP UINT64_C(0x0000555555554abc)
#define ADDR UINT64_C(0x00007ffd12345678)
#define PERIOD UINT64_C(100003)
#define DATA_SRC UINT64_C(0x11a229100142)
#define TXN UINT64_C(0xab00000016) /* TRANSACTION|SYNC|RETRY, abort code 0xab */
#define WSTRUCT UINT64_C(0x0033002200010000)

/* op LOAD, lvl HIT|L1, snoop NONE, lock NA, dtlb HIT|L1, lvl_num L1, remote, snoopx PEER, blk NA, hops 1. */
#define WANT_MEM                                                                                   \
	{.op = 0x02,                                                                               \
	 .lvl = 0x0a,                                                                              \
	 .snoop = 0x02,                                                                            \
	 .lock = 0x01,                                                                             \
	 .dtlb = 0x0a,                                                                             \
	 .lvl_num = 0x01,                                                                          \
	 .remote = 1,                                                                              \
	 .snoopx = 0x02,                                                                           \
	 .blk = 0x01,                                                                              \
	 .hops = 0x02}

/* Branch entries: flags words with known fields (see the comments). */
/* mispred, in_tx, cycles 0x1234, type CALL, spec CORRECT_PATH, priv USER */
#define BR_FLAGS0 UINT64_C(0x43412345)
/* predicted, abort, cycles 7, type EXTEND_ABI, spec WRONG_PATH, new_type FAULT_INST, priv KERNEL */
#define BR_FLAGS1 UINT64_C(0x89f0007a)

static const uint64_t w_s_ip[] = {
	HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER | PEV_RECORD_MISC_EXACT_IP, 2), IP,
};
static const uint64_t w_s_tid[] = {HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2), U32X2(PID, TID)};
static const uint64_t w_s_time[] = {HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2), TIME};
static const uint64_t w_s_addr[] = {HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2), ADDR};
/* read_format TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING | ID | LOST. */
static const uint64_t w_s_read[] = {
	HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 6), 0x1111, 0xe0e0, 0x7070, EID, 3,
};
static const uint64_t w_s_callchain[] = {
	HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_KERNEL, 8),
	6,
	PEV_CONTEXT_KERNEL,
	UINT64_C(0xffffffff81000010),
	UINT64_C(0xffffffff81000020),
	PEV_CONTEXT_USER,
	0x401010,
	0x401020,
};
static const uint64_t w_s_id[] = {HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2), EID};
static const uint64_t w_s_cpu[] = {HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2), U32X2(CPU, 0)};
static const uint64_t w_s_period[] = {HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2), PERIOD};
static const uint64_t w_s_stream_id[] = {HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2), STREAM};
/* 12 bytes a0..ab after the u32 size: size word + data fill 2 words exactly. */
static const uint64_t w_s_raw[] = {
	HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_KERNEL, 3),
	B8(12, 0, 0, 0, 0xa0, 0xa1, 0xa2, 0xa3),
	B8(0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab),
};
static const uint64_t w_s_branch[] = {
	HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 8),
	2,
	0x401100, 0x402200, BR_FLAGS0,
	0x403300, 0x404400, BR_FLAGS1,
};
/* mask 0x5: two registers. */
static const uint64_t w_s_regs_user[] = {
	HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 4), PEV_SAMPLE_REGS_ABI_64, 0xaaa0, 0xaaa2,
};
static const uint64_t w_s_stack_user[] = {
	HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 5),
	16,
	B8(0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58),
	B8(0x59, 0x5a, 0x5b, 0x5c, 0, 0, 0, 0),
	12, /* dyn_size */
};
static const uint64_t w_s_weight[] = {HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2), 0x1234};
static const uint64_t w_s_data_src[] = {HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2), DATA_SRC};
static const uint64_t w_s_identifier[] = {HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2), IDENT};
static const uint64_t w_s_transaction[] = {HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2), TXN};
/* mask 0xf0: four registers. */
static const uint64_t w_s_regs_intr[] = {
	HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_KERNEL, 6), PEV_SAMPLE_REGS_ABI_64,
	0xbbb4, 0xbbb5, 0xbbb6, 0xbbb7,
};
static const uint64_t w_s_phys_addr[] = {
	HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2), UINT64_C(0x12345000),
};
static const uint64_t w_s_aux[] = {
	HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 4),
	16,
	B8(0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7),
	B8(0xc8, 0xc9, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf),
};
static const uint64_t w_s_cgroup[] = {HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2), 0x2345};
static const uint64_t w_s_data_page_size[] = {HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2), 4096};
static const uint64_t w_s_code_page_size[] = {
	HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2), 2 * 1024 * 1024,
};
static const uint64_t w_s_weight_struct[] = {HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2), WSTRUCT};

/* ---- SAMPLE variants ------------------------------------------------------------- */

/* REGS_USER of a kernel thread: ABI NONE, no registers follow. */
static const uint64_t w_s_regs_none[] = {
	HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_KERNEL, 2), PEV_SAMPLE_REGS_ABI_NONE,
};
/* STACK_USER of a kernel thread: size 0 and no dyn_size. */
static const uint64_t w_s_stack_none[] = {HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_KERNEL, 2), 0};
/* branch_sample_type HW_INDEX: hw_idx after nr. */
static const uint64_t w_s_branch_hw_idx[] = {
	HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 6), 1, 5, 0x401100, 0x402200, BR_FLAGS0,
};
/* branch_sample_type COUNTERS: a counters word per entry after the entries. */
static const uint64_t w_s_branch_counters[] = {
	HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 10),
	2,
	0x401100, 0x402200, BR_FLAGS0,
	0x403300, 0x404400, BR_FLAGS1,
	0x0201, 0x0103,
};
/* HW_INDEX and COUNTERS with no entries: hw_idx still there (all ones: no index). */
static const uint64_t w_s_branch_empty[] = {
	HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 3), 0, UINT64_MAX,
};
/* Every context marker the kernel defines. */
static const uint64_t w_s_callchain_contexts[] = {
	HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_GUEST_USER, 13),
	11,
	PEV_CONTEXT_HV, 0xfff0,
	PEV_CONTEXT_KERNEL, UINT64_C(0xffffffff81000010),
	PEV_CONTEXT_USER, 0x401010,
	PEV_CONTEXT_GUEST,
	PEV_CONTEXT_GUEST_KERNEL, UINT64_C(0xffffffff82000010),
	PEV_CONTEXT_GUEST_USER, 0x501010,
};
/* RAW of 4 bytes: the size word and the data fill one word. */
static const uint64_t w_s_raw_small[] = {
	HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_KERNEL, 2), B8(4, 0, 0, 0, 0xef, 0xbe, 0xad, 0xde),
};
/* AUX with nothing to sample. */
static const uint64_t w_s_aux_empty[] = {HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2), 0};
/* read_format GROUP only, a group of 3. */
static const uint64_t w_s_read_group[] = {
	HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 5), 3, 0x1111, 0x2222, 0x3333,
};
/* What a profiler asks for: IP, TID, TIME, CPU, PERIOD, CALLCHAIN. */
static const uint64_t w_s_profile[] = {
	HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 10),
	IP,
	U32X2(PID, TID),
	TIME,
	U32X2(CPU, 0),
	PERIOD,
	3,
	PEV_CONTEXT_USER,
	IP,
	0x401234,
};

/*
 * Every field at once (WEIGHT_STRUCT as the weight): read_format
 * GROUP|TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING|ID|LOST with 2 entries,
 * branch_sample_type HW_INDEX|COUNTERS, regs masks 0x3 (user) and 0x1 (intr).
 */
#define S_ALL (PEV_SAMPLE_ALL & ~PEV_SAMPLE_WEIGHT)
#define RF_ALL PEV_FORMAT_ALL
static const uint64_t w_s_all[] = {
	HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER | PEV_RECORD_MISC_EXACT_IP, 48),
	IDENT,           /* IDENTIFIER */
	IP,              /* IP */
	U32X2(PID, TID), /* TID */
	TIME,            /* TIME */
	ADDR,            /* ADDR */
	EID,             /* ID */
	STREAM,          /* STREAM_ID */
	U32X2(CPU, 0),   /* CPU */
	PERIOD,          /* PERIOD */
	2, 0xe0e0, 0x7070, 0x1111, EID, 1, 0x2222, EID + 1, 2, /* READ */
	4, PEV_CONTEXT_KERNEL, UINT64_C(0xffffffff81000010), PEV_CONTEXT_USER, IP, /* CALLCHAIN */
	B8(4, 0, 0, 0, 0xef, 0xbe, 0xad, 0xde),                /* RAW */
	1, 9, 0x401100, 0x402200, BR_FLAGS0, 0x0301,            /* BRANCH_STACK */
	PEV_SAMPLE_REGS_ABI_64, 0xaaa0, 0xaaa1,                  /* REGS_USER */
	8, B8(0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58), 8, /* STACK_USER */
	WSTRUCT,                                                /* WEIGHT_STRUCT */
	DATA_SRC,                                               /* DATA_SRC */
	TXN,                                                    /* TRANSACTION */
	PEV_SAMPLE_REGS_ABI_32, 0xbbb0,                         /* REGS_INTR */
	UINT64_C(0x12345000),                                   /* PHYS_ADDR */
	0x2345,                                                 /* CGROUP */
	4096,                                                   /* DATA_PAGE_SIZE */
	2 * 1024 * 1024,                                        /* CODE_PAGE_SIZE */
	8, B8(0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7),  /* AUX */
};

/* ---- expected contents behind pointers --------------------------------------------- */

static const struct pev_branch_entry want_br2[] = {
	{0x401100, 0x402200, BR_FLAGS0},
	{0x403300, 0x404400, BR_FLAGS1},
};
static const uint8_t raw12[] = {0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5,
				0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab};
static const uint8_t raw4[] = {0xef, 0xbe, 0xad, 0xde};
static const uint8_t stack16[] = {0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58,
				  0x59, 0x5a, 0x5b, 0x5c, 0, 0, 0, 0};
static const uint8_t aux16[] = {0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7,
				0xc8, 0xc9, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf};
static const uint64_t cc6[] = {PEV_CONTEXT_KERNEL, UINT64_C(0xffffffff81000010),
			       UINT64_C(0xffffffff81000020), PEV_CONTEXT_USER, 0x401010, 0x401020};

/* Read blocks as the words they are. */
static const uint64_t rd_single[] = {0x1111, 0xe0e0, 0x7070, EID, 3};
static const uint64_t rd_group2[] = {2, 0xe0e0, 0x1111, EID, 0x2222, EID + 1};
static const uint64_t rd_group3[] = {3, 0x1111, 0x2222, 0x3333};
static const uint64_t rd_all[] = {2, 0xe0e0, 0x7070, 0x1111, EID, 1, 0x2222, EID + 1, 2};

#define RF_SINGLE                                                                                  \
	(PEV_FORMAT_TOTAL_TIME_ENABLED | PEV_FORMAT_TOTAL_TIME_RUNNING | PEV_FORMAT_ID |          \
	 PEV_FORMAT_LOST)
#define RF_GROUP2 (PEV_FORMAT_GROUP | PEV_FORMAT_TOTAL_TIME_ENABLED | PEV_FORMAT_ID)

/* Header part of a want. */
#define WANT_HDR(t, m, w) .type = (t), .misc = (m), .size = (w) * 8
/* A SAMPLE want of sample_type st: id_fields, and the body's fields. */
#define WANT_SAMPLE(st) .id_fields = (st) & ID_ALL, .sample.fields = (st)

/* ---- the table ---------------------------------------------------------------------- */

#define ENTRY(nm, w, cfg, ...) {.name = (nm), .config = cfg, .words = (w), .nwords = ARRAY_SIZE(w), .want = {__VA_ARGS__}}

/* A one-bit sample: sample_type `bit` alone. */
#define SAMPLE_CONFIG(st, ...) CONFIG(.sample_type = (st), __VA_ARGS__)

const struct rg_golden rg_golden[] = {
	/* records other than SAMPLE */
	ENTRY("MMAP", w_mmap, NS_CONFIG(),
	      WANT_HDR(PEV_RECORD_MMAP, PEV_RECORD_MISC_USER, 13), WANT_ID,
	      .mmap = {.pid = PID, .tid = TID, .addr = 0x400000, .len = 0x1000, .pgoff = 0,
		       .filename = "/bin/true", .filename_len = 9}),
	ENTRY("MMAP data, no sample_id_all", w_mmap_data, CONFIG(.sample_type = NS_ST),
	      WANT_HDR(PEV_RECORD_MMAP, PEV_RECORD_MISC_USER | PEV_RECORD_MISC_MMAP_DATA, 6),
	      .mmap = {.pid = PID, .tid = TID, .addr = UINT64_C(0x7f0000000000), .len = 0x21000,
		       .pgoff = 0x1000, .filename = "/tmp/da", .filename_len = 7}),
	ENTRY("LOST", w_lost, NS_CONFIG(), WANT_HDR(PEV_RECORD_LOST, 0, 9), WANT_ID,
	      .lost = {.id = EID, .lost = 17}),
	ENTRY("COMM", w_comm, NS_CONFIG(), WANT_HDR(PEV_RECORD_COMM, PEV_RECORD_MISC_USER, 9),
	      WANT_ID, .comm = {.pid = PID, .tid = TID, .comm = "perfev", .comm_len = 6}),
	ENTRY("COMM exec, no sample_id_all", w_comm_exec, CONFIG(.sample_type = NS_ST),
	      WANT_HDR(PEV_RECORD_COMM, PEV_RECORD_MISC_USER | PEV_RECORD_MISC_COMM_EXEC, 4),
	      .comm = {.pid = PID, .tid = PID, .comm = "fifteen-chars-x", .comm_len = 15}),
	ENTRY("EXIT", w_exit, NS_CONFIG(), WANT_HDR(PEV_RECORD_EXIT, 0, 10), WANT_ID,
	      .task = {.pid = PID, .ppid = 1, .tid = TID, .ptid = 1, .time = TIME - 5}),
	ENTRY("THROTTLE", w_throttle, NS_CONFIG(), WANT_HDR(PEV_RECORD_THROTTLE, 0, 10), WANT_ID,
	      .throttle = {.time = TIME - 100, .id = EID, .stream_id = STREAM}),
	ENTRY("UNTHROTTLE", w_unthrottle, NS_CONFIG(), WANT_HDR(PEV_RECORD_UNTHROTTLE, 0, 10),
	      WANT_ID, .throttle = {.time = TIME - 50, .id = EID, .stream_id = STREAM}),
	ENTRY("FORK", w_fork, NS_CONFIG(), WANT_HDR(PEV_RECORD_FORK, 0, 10), WANT_ID,
	      .task = {.pid = PID + 10, .ppid = PID, .tid = TID + 10, .ptid = TID,
		       .time = TIME - 9}),
	ENTRY("READ", w_read, NS_CONFIG(.read_format = RF_SINGLE), WANT_HDR(PEV_RECORD_READ, 0, 13),
	      WANT_ID,
	      .read = {.pid = PID, .tid = TID,
		       .values = {.read_format = RF_SINGLE, .nr = 1, .time_enabled = 0xe0e0,
				  .time_running = 0x7070, .words = rd_single, .nr_words = 5}}),
	ENTRY("READ group", w_read_group, NS_CONFIG(.read_format = RF_GROUP2, .group_size = 2),
	      WANT_HDR(PEV_RECORD_READ, 0, 14), WANT_ID,
	      .read = {.pid = PID, .tid = TID,
		       .values = {.read_format = RF_GROUP2, .nr = 2, .time_enabled = 0xe0e0,
				  .words = rd_group2, .nr_words = 6}}),
	ENTRY("MMAP2", w_mmap2, NS_CONFIG(), WANT_HDR(PEV_RECORD_MMAP2, PEV_RECORD_MISC_USER, 18),
	      WANT_ID,
	      .mmap2 = {.pid = PID, .tid = TID, .addr = UINT64_C(0x7f1234560000), .len = 0x195000,
			.pgoff = 0x28000, .maj = 8, .min = 1, .ino = 1234567, .ino_generation = 42,
			.prot = 5, .flags = 2, .filename = "/usr/lib/libc.so.6",
			.filename_len = 18}),
	ENTRY("MMAP2 build id", w_mmap2_build_id, NS_CONFIG(),
	      WANT_HDR(PEV_RECORD_MMAP2, PEV_RECORD_MISC_USER | PEV_RECORD_MISC_MMAP_BUILD_ID, 17),
	      WANT_ID,
	      .mmap2 = {.pid = PID, .tid = TID, .addr = 0x400000, .len = 0x1000, .pgoff = 0,
			.has_build_id = true, .build_id_size = 20, .build_id = build_id,
			.prot = 5, .flags = 2, .filename = "/bin/true", .filename_len = 9}),
	ENTRY("AUX", w_aux, NS_CONFIG(), WANT_HDR(PEV_RECORD_AUX, 0, 10), WANT_ID,
	      .aux = {.aux_offset = 0x1000, .aux_size = 0x2000,
		      .flags = PEV_AUX_FLAG_TRUNCATED | PEV_AUX_FLAG_PARTIAL}),
	ENTRY("ITRACE_START", w_itrace_start, NS_CONFIG(),
	      WANT_HDR(PEV_RECORD_ITRACE_START, 0, 8), WANT_ID,
	      .itrace_start = {.pid = PID, .tid = TID}),
	ENTRY("LOST_SAMPLES", w_lost_samples, NS_CONFIG(),
	      WANT_HDR(PEV_RECORD_LOST_SAMPLES, 0, 8), WANT_ID, .lost_samples = {.lost = 99}),
	ENTRY("SWITCH in", w_switch_in, NS_CONFIG(),
	      WANT_HDR(PEV_RECORD_SWITCH, PEV_RECORD_MISC_USER, 7), WANT_ID),
	ENTRY("SWITCH out, preempted", w_switch_out_preempt, NS_CONFIG(),
	      WANT_HDR(PEV_RECORD_SWITCH,
		       PEV_RECORD_MISC_USER | PEV_RECORD_MISC_SWITCH_OUT |
			       PEV_RECORD_MISC_SWITCH_OUT_PREEMPT,
		       7),
	      WANT_ID),
	ENTRY("SWITCH_CPU_WIDE out", w_switch_cpu_wide_out, NS_CONFIG(),
	      WANT_HDR(PEV_RECORD_SWITCH_CPU_WIDE,
		       PEV_RECORD_MISC_KERNEL | PEV_RECORD_MISC_SWITCH_OUT, 8),
	      WANT_ID, .sw = {.next_prev_pid = 777, .next_prev_tid = 778}),
	ENTRY("SWITCH_CPU_WIDE in, no sample_id_all", w_switch_cpu_wide_in,
	      CONFIG(.sample_type = NS_ST),
	      WANT_HDR(PEV_RECORD_SWITCH_CPU_WIDE, PEV_RECORD_MISC_KERNEL, 2),
	      .sw = {.next_prev_pid = 555, .next_prev_tid = 556}),
	ENTRY("NAMESPACES", w_namespaces, NS_CONFIG(), WANT_HDR(PEV_RECORD_NAMESPACES, 0, 23),
	      WANT_ID,
	      .namespaces = {.pid = PID, .tid = TID, .nr = 7,
			     .link = (const struct pev_ns_link_info[]){{4, 0xf0000001},
								       {4, 0xf0000002},
								       {4, 0xf0000003},
								       {4, 0xf0000004},
								       {4, 0xf0000005},
								       {4, 0xf0000006},
								       {4, 0xf0000007}}}),
	ENTRY("KSYMBOL", w_ksymbol, NS_CONFIG(),
	      WANT_HDR(PEV_RECORD_KSYMBOL, PEV_RECORD_MISC_KERNEL, 11), WANT_ID,
	      .ksymbol = {.addr = UINT64_C(0xffffffffc0001000), .len = 0x200,
			  .ksym_type = PEV_KSYMBOL_TYPE_BPF, .flags = 0, .name = "bpf_prog_abc",
			  .name_len = 12}),
	ENTRY("KSYMBOL unregister, no sample_id_all", w_ksymbol_unreg, CONFIG(.sample_type = NS_ST),
	      WANT_HDR(PEV_RECORD_KSYMBOL, PEV_RECORD_MISC_KERNEL, 4),
	      .ksymbol = {.addr = UINT64_C(0xffffffffa0002000), .len = 0x40,
			  .ksym_type = PEV_KSYMBOL_TYPE_OOL, .flags = PEV_KSYMBOL_FLAGS_UNREGISTER,
			  .name = "kprobe", .name_len = 6}),
	ENTRY("BPF_EVENT", w_bpf_event, NS_CONFIG(), WANT_HDR(PEV_RECORD_BPF_EVENT, 0, 9), WANT_ID,
	      .bpf_event = {.type = PEV_BPF_EVENT_PROG_LOAD, .flags = 0, .id = 42,
			    .tag = (const uint8_t[]){0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
						     0xa8}}),
	ENTRY("CGROUP", w_cgroup, NS_CONFIG(), WANT_HDR(PEV_RECORD_CGROUP, 0, 10), WANT_ID,
	      .cgroup = {.id = 0x1234, .path = "/user.slice", .path_len = 11}),
	ENTRY("TEXT_POKE", w_text_poke, NS_CONFIG(),
	      WANT_HDR(PEV_RECORD_TEXT_POKE, PEV_RECORD_MISC_KERNEL, 10), WANT_ID,
	      .text_poke = {.addr = UINT64_C(0xffffffff81234560), .old_len = 5, .new_len = 5,
			    .old_bytes = (const uint8_t[]){0xe8, 0x01, 0x02, 0x03, 0x04},
			    .new_bytes = (const uint8_t[]){0x0f, 0x1f, 0x44, 0x00, 0x00}}),
	ENTRY("AUX_OUTPUT_HW_ID", w_aux_output_hw_id, NS_CONFIG(),
	      WANT_HDR(PEV_RECORD_AUX_OUTPUT_HW_ID, 0, 8), WANT_ID,
	      .aux_output_hw_id = {.hw_id = 0x77}),
	ENTRY("unknown type 22", w_unknown_22, NS_CONFIG(),
	      WANT_HDR(22, PEV_RECORD_MISC_USER, 4),
	      .unknown = {.data = (const uint64_t[]){0xc00c1e, 1, 0x401000}, .size = 24}),
	ENTRY("unknown type 68, header only", w_unknown_68, NS_CONFIG(), WANT_HDR(68, 0, 1),
	      .unknown = {.data = NULL, .size = 0}),

	/* SAMPLE: each sample_type bit alone */
	ENTRY("SAMPLE IP", w_s_ip, SAMPLE_CONFIG(PEV_SAMPLE_IP),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER | PEV_RECORD_MISC_EXACT_IP, 2),
	      WANT_SAMPLE(PEV_SAMPLE_IP), .sample.ip = IP),
	ENTRY("SAMPLE TID", w_s_tid, SAMPLE_CONFIG(PEV_SAMPLE_TID),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2), WANT_SAMPLE(PEV_SAMPLE_TID),
	      .sample_id = {.pid = PID, .tid = TID}),
	ENTRY("SAMPLE TIME", w_s_time, SAMPLE_CONFIG(PEV_SAMPLE_TIME),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2), WANT_SAMPLE(PEV_SAMPLE_TIME),
	      .sample_id = {.time = TIME}),
	ENTRY("SAMPLE ADDR", w_s_addr, SAMPLE_CONFIG(PEV_SAMPLE_ADDR),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2), WANT_SAMPLE(PEV_SAMPLE_ADDR),
	      .sample.addr = ADDR),
	ENTRY("SAMPLE READ", w_s_read, SAMPLE_CONFIG(PEV_SAMPLE_READ, .read_format = RF_SINGLE),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 6), WANT_SAMPLE(PEV_SAMPLE_READ),
	      .sample.read = {.read_format = RF_SINGLE, .nr = 1, .time_enabled = 0xe0e0,
			      .time_running = 0x7070, .words = rd_single, .nr_words = 5}),
	ENTRY("SAMPLE CALLCHAIN", w_s_callchain, SAMPLE_CONFIG(PEV_SAMPLE_CALLCHAIN),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_KERNEL, 8),
	      WANT_SAMPLE(PEV_SAMPLE_CALLCHAIN), .sample.callchain_nr = 6,
	      .sample.callchain = cc6),
	ENTRY("SAMPLE ID", w_s_id, SAMPLE_CONFIG(PEV_SAMPLE_ID),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2), WANT_SAMPLE(PEV_SAMPLE_ID),
	      .sample_id = {.id = EID}),
	ENTRY("SAMPLE CPU", w_s_cpu, SAMPLE_CONFIG(PEV_SAMPLE_CPU),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2), WANT_SAMPLE(PEV_SAMPLE_CPU),
	      .sample_id = {.cpu = CPU}),
	ENTRY("SAMPLE PERIOD", w_s_period, SAMPLE_CONFIG(PEV_SAMPLE_PERIOD),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2), WANT_SAMPLE(PEV_SAMPLE_PERIOD),
	      .sample.period = PERIOD),
	ENTRY("SAMPLE STREAM_ID", w_s_stream_id, SAMPLE_CONFIG(PEV_SAMPLE_STREAM_ID),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2),
	      WANT_SAMPLE(PEV_SAMPLE_STREAM_ID), .sample_id = {.stream_id = STREAM}),
	ENTRY("SAMPLE RAW", w_s_raw, SAMPLE_CONFIG(PEV_SAMPLE_RAW),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_KERNEL, 3), WANT_SAMPLE(PEV_SAMPLE_RAW),
	      .sample.raw_size = 12, .sample.raw = raw12),
	ENTRY("SAMPLE BRANCH_STACK", w_s_branch,
	      SAMPLE_CONFIG(PEV_SAMPLE_BRANCH_STACK,
			    .branch_sample_type = PEV_BRANCH_ANY | PEV_BRANCH_USER),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 8),
	      WANT_SAMPLE(PEV_SAMPLE_BRANCH_STACK), .sample.branch = {.nr = 2, .entries = want_br2}),
	ENTRY("SAMPLE REGS_USER", w_s_regs_user,
	      SAMPLE_CONFIG(PEV_SAMPLE_REGS_USER, .sample_regs_user = 0x5),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 4),
	      WANT_SAMPLE(PEV_SAMPLE_REGS_USER),
	      .sample.regs_user = {.abi = PEV_SAMPLE_REGS_ABI_64, .mask = 0x5, .nr = 2,
				   .regs = (const uint64_t[]){0xaaa0, 0xaaa2}}),
	ENTRY("SAMPLE STACK_USER", w_s_stack_user, SAMPLE_CONFIG(PEV_SAMPLE_STACK_USER),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 5),
	      WANT_SAMPLE(PEV_SAMPLE_STACK_USER),
	      .sample.stack_user = {.size = 16, .data = stack16, .dyn_size = 12}),
	ENTRY("SAMPLE WEIGHT", w_s_weight, SAMPLE_CONFIG(PEV_SAMPLE_WEIGHT),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2), WANT_SAMPLE(PEV_SAMPLE_WEIGHT),
	      .sample.weight = 0x1234),
	ENTRY("SAMPLE DATA_SRC", w_s_data_src, SAMPLE_CONFIG(PEV_SAMPLE_DATA_SRC),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2),
	      WANT_SAMPLE(PEV_SAMPLE_DATA_SRC), .sample.data_src = DATA_SRC,
	      .sample.mem = WANT_MEM),
	ENTRY("SAMPLE IDENTIFIER", w_s_identifier, SAMPLE_CONFIG(PEV_SAMPLE_IDENTIFIER),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2),
	      WANT_SAMPLE(PEV_SAMPLE_IDENTIFIER), .sample_id = {.identifier = IDENT}),
	ENTRY("SAMPLE TRANSACTION", w_s_transaction, SAMPLE_CONFIG(PEV_SAMPLE_TRANSACTION),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2),
	      WANT_SAMPLE(PEV_SAMPLE_TRANSACTION), .sample.transaction = TXN),
	ENTRY("SAMPLE REGS_INTR", w_s_regs_intr,
	      SAMPLE_CONFIG(PEV_SAMPLE_REGS_INTR, .sample_regs_intr = 0xf0),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_KERNEL, 6),
	      WANT_SAMPLE(PEV_SAMPLE_REGS_INTR),
	      .sample.regs_intr = {.abi = PEV_SAMPLE_REGS_ABI_64, .mask = 0xf0, .nr = 4,
				   .regs = (const uint64_t[]){0xbbb4, 0xbbb5, 0xbbb6, 0xbbb7}}),
	ENTRY("SAMPLE PHYS_ADDR", w_s_phys_addr, SAMPLE_CONFIG(PEV_SAMPLE_PHYS_ADDR),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2),
	      WANT_SAMPLE(PEV_SAMPLE_PHYS_ADDR), .sample.phys_addr = 0x12345000),
	ENTRY("SAMPLE AUX", w_s_aux, SAMPLE_CONFIG(PEV_SAMPLE_AUX),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 4), WANT_SAMPLE(PEV_SAMPLE_AUX),
	      .sample.aux_size = 16, .sample.aux = aux16),
	ENTRY("SAMPLE CGROUP", w_s_cgroup, SAMPLE_CONFIG(PEV_SAMPLE_CGROUP),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2), WANT_SAMPLE(PEV_SAMPLE_CGROUP),
	      .sample.cgroup = 0x2345),
	ENTRY("SAMPLE DATA_PAGE_SIZE", w_s_data_page_size, SAMPLE_CONFIG(PEV_SAMPLE_DATA_PAGE_SIZE),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2),
	      WANT_SAMPLE(PEV_SAMPLE_DATA_PAGE_SIZE), .sample.data_page_size = 4096),
	ENTRY("SAMPLE CODE_PAGE_SIZE", w_s_code_page_size, SAMPLE_CONFIG(PEV_SAMPLE_CODE_PAGE_SIZE),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2),
	      WANT_SAMPLE(PEV_SAMPLE_CODE_PAGE_SIZE), .sample.code_page_size = 2 * 1024 * 1024),
	ENTRY("SAMPLE WEIGHT_STRUCT", w_s_weight_struct, SAMPLE_CONFIG(PEV_SAMPLE_WEIGHT_STRUCT),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2),
	      WANT_SAMPLE(PEV_SAMPLE_WEIGHT_STRUCT), .sample.weight = WSTRUCT,
	      .sample.weight_var1_dw = 0x10000, .sample.weight_var2_w = 0x22,
	      .sample.weight_var3_w = 0x33),

	/* SAMPLE: variants */
	ENTRY("SAMPLE REGS_USER, ABI NONE", w_s_regs_none,
	      SAMPLE_CONFIG(PEV_SAMPLE_REGS_USER, .sample_regs_user = 0x7),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_KERNEL, 2),
	      WANT_SAMPLE(PEV_SAMPLE_REGS_USER),
	      .sample.regs_user = {.abi = PEV_SAMPLE_REGS_ABI_NONE, .mask = 0x7}),
	ENTRY("SAMPLE STACK_USER, size 0", w_s_stack_none, SAMPLE_CONFIG(PEV_SAMPLE_STACK_USER),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_KERNEL, 2),
	      WANT_SAMPLE(PEV_SAMPLE_STACK_USER)),
	ENTRY("SAMPLE BRANCH_STACK, HW_INDEX", w_s_branch_hw_idx,
	      SAMPLE_CONFIG(PEV_SAMPLE_BRANCH_STACK,
			    .branch_sample_type = PEV_BRANCH_ANY | PEV_BRANCH_HW_INDEX),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 6),
	      WANT_SAMPLE(PEV_SAMPLE_BRANCH_STACK),
	      .sample.branch = {.nr = 1, .hw_idx = 5, .entries = want_br2}),
	ENTRY("SAMPLE BRANCH_STACK, COUNTERS", w_s_branch_counters,
	      SAMPLE_CONFIG(PEV_SAMPLE_BRANCH_STACK,
			    .branch_sample_type = PEV_BRANCH_ANY | PEV_BRANCH_COUNTERS),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 10),
	      WANT_SAMPLE(PEV_SAMPLE_BRANCH_STACK),
	      .sample.branch = {.nr = 2, .entries = want_br2,
				.counters = (const uint64_t[]){0x0201, 0x0103}}),
	ENTRY("SAMPLE BRANCH_STACK, HW_INDEX and COUNTERS, no entries", w_s_branch_empty,
	      SAMPLE_CONFIG(PEV_SAMPLE_BRANCH_STACK,
			    .branch_sample_type = PEV_BRANCH_HW_INDEX | PEV_BRANCH_COUNTERS),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 3),
	      WANT_SAMPLE(PEV_SAMPLE_BRANCH_STACK), .sample.branch = {.nr = 0, .hw_idx = UINT64_MAX}),
	ENTRY("SAMPLE CALLCHAIN, every context", w_s_callchain_contexts,
	      SAMPLE_CONFIG(PEV_SAMPLE_CALLCHAIN),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_GUEST_USER, 13),
	      WANT_SAMPLE(PEV_SAMPLE_CALLCHAIN), .sample.callchain_nr = 11,
	      .sample.callchain = (const uint64_t[]){PEV_CONTEXT_HV, 0xfff0, PEV_CONTEXT_KERNEL,
						     UINT64_C(0xffffffff81000010),
						     PEV_CONTEXT_USER, 0x401010, PEV_CONTEXT_GUEST,
						     PEV_CONTEXT_GUEST_KERNEL,
						     UINT64_C(0xffffffff82000010),
						     PEV_CONTEXT_GUEST_USER, 0x501010}),
	ENTRY("SAMPLE RAW, 4 bytes", w_s_raw_small, SAMPLE_CONFIG(PEV_SAMPLE_RAW),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_KERNEL, 2), WANT_SAMPLE(PEV_SAMPLE_RAW),
	      .sample.raw_size = 4, .sample.raw = raw4),
	ENTRY("SAMPLE AUX, empty", w_s_aux_empty, SAMPLE_CONFIG(PEV_SAMPLE_AUX),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 2), WANT_SAMPLE(PEV_SAMPLE_AUX)),
	ENTRY("SAMPLE READ, group of 3", w_s_read_group,
	      SAMPLE_CONFIG(PEV_SAMPLE_READ, .read_format = PEV_FORMAT_GROUP, .group_size = 3),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 5), WANT_SAMPLE(PEV_SAMPLE_READ),
	      .sample.read = {.read_format = PEV_FORMAT_GROUP, .nr = 3, .words = rd_group3,
			      .nr_words = 4}),
	ENTRY("SAMPLE profile: IP TID TIME CPU PERIOD CALLCHAIN", w_s_profile,
	      SAMPLE_CONFIG(PEV_SAMPLE_IP | PEV_SAMPLE_TID | PEV_SAMPLE_TIME | PEV_SAMPLE_CPU |
			    PEV_SAMPLE_PERIOD | PEV_SAMPLE_CALLCHAIN),
	      WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 10),
	      WANT_SAMPLE(PEV_SAMPLE_IP | PEV_SAMPLE_TID | PEV_SAMPLE_TIME | PEV_SAMPLE_CPU |
			  PEV_SAMPLE_PERIOD | PEV_SAMPLE_CALLCHAIN),
	      .sample_id = {.pid = PID, .tid = TID, .time = TIME, .cpu = CPU},
	      .sample.ip = IP, .sample.period = PERIOD, .sample.callchain_nr = 3,
	      .sample.callchain = (const uint64_t[]){PEV_CONTEXT_USER, IP, 0x401234}),

	/* SAMPLE: everything at once, with each form of the weight */
#define WANT_S_ALL(st, ...)                                                                        \
	WANT_HDR(PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER | PEV_RECORD_MISC_EXACT_IP, 48),          \
		.id_fields = (st) & ID_ALL,                                                        \
		.sample_id = {.pid = PID,                                                          \
			      .tid = TID,                                                          \
			      .time = TIME,                                                        \
			      .id = EID,                                                           \
			      .stream_id = STREAM,                                                 \
			      .cpu = CPU,                                                          \
			      .identifier = IDENT},                                                \
		.sample = {.fields = (st),                                                         \
			   .ip = IP,                                                               \
			   .addr = ADDR,                                                           \
			   .period = PERIOD,                                                       \
			   .read = {.read_format = RF_ALL,                                         \
				    .nr = 2,                                                       \
				    .time_enabled = 0xe0e0,                                        \
				    .time_running = 0x7070,                                        \
				    .words = rd_all,                                               \
				    .nr_words = 9},                                                \
			   .callchain_nr = 4,                                                      \
			   .callchain = (const uint64_t[]){PEV_CONTEXT_KERNEL,                     \
							   UINT64_C(0xffffffff81000010),           \
							   PEV_CONTEXT_USER, IP},                  \
			   .raw_size = 4,                                                          \
			   .raw = raw4,                                                            \
			   .branch = {.nr = 1,                                                     \
				      .hw_idx = 9,                                                 \
				      .entries = want_br2,                                         \
				      .counters = (const uint64_t[]){0x0301}},                     \
			   .regs_user = {.abi = PEV_SAMPLE_REGS_ABI_64,                            \
					 .mask = 0x3,                                              \
					 .nr = 2,                                                  \
					 .regs = (const uint64_t[]){0xaaa0, 0xaaa1}},              \
			   .stack_user = {.size = 8, .data = stack16, .dyn_size = 8},              \
			   .weight = WSTRUCT,                                                      \
			   .data_src = DATA_SRC,                                                   \
			   .mem = WANT_MEM,                                                        \
			   .transaction = TXN,                                                     \
			   .regs_intr = {.abi = PEV_SAMPLE_REGS_ABI_32,                            \
					 .mask = 0x1,                                              \
					 .nr = 1,                                                  \
					 .regs = (const uint64_t[]){0xbbb0}},                      \
			   .phys_addr = 0x12345000,                                                \
			   .cgroup = 0x2345,                                                       \
			   .data_page_size = 4096,                                                 \
			   .code_page_size = 2 * 1024 * 1024,                                      \
			   .aux_size = 8,                                                          \
			   .aux = aux16,                                                           \
			   __VA_ARGS__}
#define ALL_CONFIG(st)                                                                             \
	SAMPLE_CONFIG(st, .read_format = RF_ALL, .group_size = 2,                                  \
		      .branch_sample_type = PEV_BRANCH_ANY | PEV_BRANCH_HW_INDEX |                 \
					    PEV_BRANCH_COUNTERS,                                   \
		      .sample_regs_user = 0x3, .sample_regs_intr = 0x1)
	ENTRY("SAMPLE every field", w_s_all, ALL_CONFIG(S_ALL),
	      WANT_S_ALL(S_ALL, .weight_var1_dw = 0x10000, .weight_var2_w = 0x22,
			 .weight_var3_w = 0x33)),
	ENTRY("SAMPLE every field, WEIGHT", w_s_all,
	      ALL_CONFIG(PEV_SAMPLE_ALL & ~PEV_SAMPLE_WEIGHT_STRUCT),
	      WANT_S_ALL(PEV_SAMPLE_ALL & ~PEV_SAMPLE_WEIGHT_STRUCT, .weight_var1_dw = 0)),
};

const size_t rg_golden_count = ARRAY_SIZE(rg_golden);

int rg_format(const struct rg_golden *g, struct pev_record_format *fmt)
{
	return pev_record_format_init(fmt, &g->config);
}

/* ---- comparing ---------------------------------------------------------------------- */

struct cmp {
	const struct pev_record *got;
	char *why;
	size_t size;
	bool ok;
};

static void differ(struct cmp *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void differ(struct cmp *c, const char *fmt, ...)
{
	va_list ap;

	if (!c->ok)
		return; /* keep the first difference */
	c->ok = false;
	va_start(ap, fmt);
	vsnprintf(c->why, c->size, fmt, ap);
	va_end(ap);
}

static void same_u(struct cmp *c, const char *field, uint64_t want, uint64_t got)
{
	if (want != got)
		differ(c, "%s: want 0x%" PRIx64 ", got 0x%" PRIx64, field, want, got);
}

/* got points at n bytes inside the decoded record. */
static bool inside(struct cmp *c, const char *field, const void *got, size_t n)
{
	const unsigned char *lo = c->got->bytes, *hi = lo + c->got->size, *p = got;

	if (p < lo || p > hi || (size_t)(hi - p) < n) {
		differ(c, "%s: %zu bytes at %p are not inside the record [%p, %p)", field, n, got,
		       (const void *)lo, (const void *)hi);
		return false;
	}
	return true;
}

/* n bytes behind two pointers: both NULL, or equal contents with got inside the record. */
static void same_mem(struct cmp *c, const char *field, const void *want, const void *got, size_t n)
{
	if (!want || !got) {
		if (want != got)
			differ(c, "%s: want %s, got %s", field, want ? "data" : "NULL",
			       got ? "data" : "NULL");
		return;
	}
	if (inside(c, field, got, n) && memcmp(want, got, n) != 0)
		differ(c, "%s: the %zu bytes differ", field, n);
}

static void same_str(struct cmp *c, const char *field, const char *want, const char *got,
		     uint16_t got_len)
{
	if (!want || !got) {
		if (want != got)
			differ(c, "%s: want %s, got %s", field, want ? want : "NULL",
			       got ? "a string" : "NULL");
		return;
	}
	if (!inside(c, field, got, (size_t)got_len + 1))
		return;
	if (strcmp(want, got) != 0 || got[got_len] != '\0' || strlen(got) != got_len)
		differ(c, "%s: want \"%s\", got \"%.*s\" (length %u)", field, want, (int)got_len, got,
		       got_len);
}

#define U(field) same_u(c, #field, w->field, g->field)
#define MEM(field, n) same_mem(c, #field, w->field, g->field, (n))
#define STR(field) same_str(c, #field, w->field, g->field, g->field##_len)

static void same_read(struct cmp *c, const struct pev_read_data *w, const struct pev_read_data *g)
{
	U(read_format);
	U(nr);
	U(time_enabled);
	U(time_running);
	U(nr_words);
	MEM(words, (size_t)w->nr_words * 8);
}

static void same_regs(struct cmp *c, const struct pev_sample_regs *w,
		      const struct pev_sample_regs *g)
{
	U(abi);
	U(mask);
	U(nr);
	MEM(regs, (size_t)w->nr * 8);
}

/* A SAMPLE: the members always set, and those the format has (the others are unspecified). */
static void same_sample(struct cmp *c, const struct pev_sample *w, const struct pev_sample *g)
{
	uint64_t st = w->fields;

	U(fields);
	U(ip);
	U(addr);
	U(period);
	U(callchain_nr);
	MEM(callchain, (size_t)w->callchain_nr * 8);
	if (st & PEV_SAMPLE_READ)
		same_read(c, &w->read, &g->read);
	if (st & PEV_SAMPLE_RAW) {
		U(raw_size);
		MEM(raw, w->raw_size);
	}
	if (st & PEV_SAMPLE_BRANCH_STACK) {
		U(branch.nr);
		U(branch.hw_idx);
		MEM(branch.entries, (size_t)w->branch.nr * sizeof(struct pev_branch_entry));
		MEM(branch.counters, (size_t)w->branch.nr * 8);
	}
	if (st & PEV_SAMPLE_REGS_USER)
		same_regs(c, &w->regs_user, &g->regs_user);
	if (st & PEV_SAMPLE_STACK_USER) {
		U(stack_user.size);
		MEM(stack_user.data, w->stack_user.size);
		U(stack_user.dyn_size);
	}
	if (st & PEV_SAMPLE_WEIGHT_TYPE) {
		U(weight);
		U(weight_var1_dw);
		U(weight_var2_w);
		U(weight_var3_w);
	}
	if (st & PEV_SAMPLE_DATA_SRC) {
		U(data_src);
		U(mem.op);
		U(mem.lvl);
		U(mem.snoop);
		U(mem.lock);
		U(mem.dtlb);
		U(mem.lvl_num);
		U(mem.remote);
		U(mem.snoopx);
		U(mem.blk);
		U(mem.hops);
	}
	if (st & PEV_SAMPLE_TRANSACTION)
		U(transaction);
	if (st & PEV_SAMPLE_REGS_INTR)
		same_regs(c, &w->regs_intr, &g->regs_intr);
	if (st & PEV_SAMPLE_PHYS_ADDR)
		U(phys_addr);
	if (st & PEV_SAMPLE_CGROUP)
		U(cgroup);
	if (st & PEV_SAMPLE_DATA_PAGE_SIZE)
		U(data_page_size);
	if (st & PEV_SAMPLE_CODE_PAGE_SIZE)
		U(code_page_size);
	if (st & PEV_SAMPLE_AUX) {
		U(aux_size);
		MEM(aux, w->aux_size);
	}
}

static void same_body(struct cmp *c, const struct pev_record *w, const struct pev_record *g)
{
	switch (w->type) {
	case PEV_RECORD_SAMPLE:
		same_sample(c, &w->sample, &g->sample);
		break;
	case PEV_RECORD_MMAP:
		U(mmap.pid), U(mmap.tid), U(mmap.addr), U(mmap.len), U(mmap.pgoff);
		STR(mmap.filename);
		break;
	case PEV_RECORD_MMAP2:
		U(mmap2.pid), U(mmap2.tid), U(mmap2.addr), U(mmap2.len), U(mmap2.pgoff);
		U(mmap2.has_build_id), U(mmap2.maj), U(mmap2.min), U(mmap2.ino);
		U(mmap2.ino_generation), U(mmap2.build_id_size), U(mmap2.prot), U(mmap2.flags);
		MEM(mmap2.build_id, w->mmap2.build_id_size);
		STR(mmap2.filename);
		break;
	case PEV_RECORD_LOST:
		U(lost.id), U(lost.lost);
		break;
	case PEV_RECORD_COMM:
		U(comm.pid), U(comm.tid);
		STR(comm.comm);
		break;
	case PEV_RECORD_EXIT:
	case PEV_RECORD_FORK:
		U(task.pid), U(task.ppid), U(task.tid), U(task.ptid), U(task.time);
		break;
	case PEV_RECORD_THROTTLE:
	case PEV_RECORD_UNTHROTTLE:
		U(throttle.time), U(throttle.id), U(throttle.stream_id);
		break;
	case PEV_RECORD_READ:
		U(read.pid), U(read.tid);
		same_read(c, &w->read.values, &g->read.values);
		break;
	case PEV_RECORD_AUX:
		U(aux.aux_offset), U(aux.aux_size), U(aux.flags);
		break;
	case PEV_RECORD_ITRACE_START:
		U(itrace_start.pid), U(itrace_start.tid);
		break;
	case PEV_RECORD_LOST_SAMPLES:
		U(lost_samples.lost);
		break;
	case PEV_RECORD_SWITCH:
	case PEV_RECORD_SWITCH_CPU_WIDE:
		U(sw.next_prev_pid), U(sw.next_prev_tid);
		break;
	case PEV_RECORD_NAMESPACES:
		U(namespaces.pid), U(namespaces.tid), U(namespaces.nr);
		MEM(namespaces.link, (size_t)w->namespaces.nr * sizeof(struct pev_ns_link_info));
		break;
	case PEV_RECORD_KSYMBOL:
		U(ksymbol.addr), U(ksymbol.len), U(ksymbol.ksym_type), U(ksymbol.flags);
		STR(ksymbol.name);
		break;
	case PEV_RECORD_BPF_EVENT:
		U(bpf_event.type), U(bpf_event.flags), U(bpf_event.id);
		MEM(bpf_event.tag, PEV_BPF_TAG_SIZE);
		break;
	case PEV_RECORD_CGROUP:
		U(cgroup.id);
		STR(cgroup.path);
		break;
	case PEV_RECORD_TEXT_POKE:
		U(text_poke.addr), U(text_poke.old_len), U(text_poke.new_len);
		MEM(text_poke.old_bytes, w->text_poke.old_len);
		MEM(text_poke.new_bytes, w->text_poke.new_len);
		break;
	case PEV_RECORD_AUX_OUTPUT_HW_ID:
		U(aux_output_hw_id.hw_id);
		break;
	default:
		U(unknown.size);
		/* A bare header's payload pointer is the record's end: compare content only. */
		if (w->unknown.size)
			MEM(unknown.data, w->unknown.size);
		else
			inside(c, "unknown.data", g->unknown.data, 0);
		break;
	}
}

bool rg_record_same(const struct pev_record *w, const struct pev_record *g, char *why,
		    size_t size)
{
	struct cmp cmp = {.got = g, .why = why, .size = size, .ok = true}, *c = &cmp;

	if (size)
		why[0] = '\0';
	U(type);
	U(misc);
	U(size);
	U(id_fields);
	U(sample_id.pid);
	U(sample_id.tid);
	U(sample_id.time);
	U(sample_id.id);
	U(sample_id.stream_id);
	U(sample_id.cpu);
	U(sample_id.cpu_res);
	U(sample_id.identifier);
	if (c->ok)
		same_body(c, w, g);
	return c->ok;
}
