/* SPDX-License-Identifier: MIT */
/*
 * perfev/abi.h - perfev's own definitions of the perf_event_open(2) ABI.
 *
 * Everything here describes bytes the kernel reads or writes: the attribute
 * block, the mmap'd control page, record headers, and every numbered constant
 * (event types, ids, bit masks, ioctl requests) up to Linux 6.18. The layout is
 * written from the documented ABI and checked at build time against the
 * system's <linux/perf_event.h> for every field that header knows about
 * (see src/core/abi_check.c). Nothing in this file depends on that header, so
 * perfev builds with an older one and still speaks the newest ABI.
 */
#ifndef PERFEV_ABI_H
#define PERFEV_ABI_H

#include <stdint.h>
#include <sys/ioctl.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- attr.type --------------------------------------------------------- */

/** Fixed event types; PMUs found in sysfs have dynamic types above these. */
enum pev_type {
	PEV_TYPE_HARDWARE = 0,   /**< generic hardware event, config = enum pev_hw_id */
	PEV_TYPE_SOFTWARE = 1,   /**< kernel software event, config = enum pev_sw_id */
	PEV_TYPE_TRACEPOINT = 2, /**< tracepoint, config = tracefs event id */
	PEV_TYPE_HW_CACHE = 3,   /**< cache event, config = id | op << 8 | result << 16 */
	PEV_TYPE_RAW = 4,        /**< CPU-specific raw event code in config */
	PEV_TYPE_BREAKPOINT = 5, /**< hardware breakpoint, bp_type/bp_addr/bp_len */
	PEV_TYPE_FIXED_MAX = 6,  /**< first value not used by a fixed type */
};

/**
 * On hybrid CPUs the upper 32 bits of config for HARDWARE and HW_CACHE events
 * select the core PMU by its type (e.g. cpu_core, cpu_atom).
 */
#define PEV_PMU_TYPE_SHIFT 32
/** Mask of the event id part of config for extended HARDWARE/HW_CACHE events. */
#define PEV_HW_EVENT_MASK UINT64_C(0xffffffff)

/** Generic hardware events (attr.config for PEV_TYPE_HARDWARE). */
enum pev_hw_id {
	PEV_HW_CPU_CYCLES = 0,
	PEV_HW_INSTRUCTIONS = 1,
	PEV_HW_CACHE_REFERENCES = 2,
	PEV_HW_CACHE_MISSES = 3,
	PEV_HW_BRANCH_INSTRUCTIONS = 4,
	PEV_HW_BRANCH_MISSES = 5,
	PEV_HW_BUS_CYCLES = 6,
	PEV_HW_STALLED_CYCLES_FRONTEND = 7,
	PEV_HW_STALLED_CYCLES_BACKEND = 8,
	PEV_HW_REF_CPU_CYCLES = 9,
	PEV_HW_MAX = 10, /**< number of generic hardware ids */
};

/** Cache levels of a PEV_TYPE_HW_CACHE event (bits 0-7 of config). */
enum pev_hw_cache_id {
	PEV_HW_CACHE_L1D = 0,
	PEV_HW_CACHE_L1I = 1,
	PEV_HW_CACHE_LL = 2,
	PEV_HW_CACHE_DTLB = 3,
	PEV_HW_CACHE_ITLB = 4,
	PEV_HW_CACHE_BPU = 5,
	PEV_HW_CACHE_NODE = 6,
	PEV_HW_CACHE_MAX = 7,
};

/** Cache operations (bits 8-15 of config). */
enum pev_hw_cache_op {
	PEV_HW_CACHE_OP_READ = 0,
	PEV_HW_CACHE_OP_WRITE = 1,
	PEV_HW_CACHE_OP_PREFETCH = 2,
	PEV_HW_CACHE_OP_MAX = 3,
};

/** Cache operation results (bits 16-23 of config). */
enum pev_hw_cache_result {
	PEV_HW_CACHE_RESULT_ACCESS = 0,
	PEV_HW_CACHE_RESULT_MISS = 1,
	PEV_HW_CACHE_RESULT_MAX = 2,
};

/** Builds the config of a cache event from its three parts. */
#define PEV_HW_CACHE_CONFIG(id, op, result)                                                        \
	((uint64_t)(id) | ((uint64_t)(op) << 8) | ((uint64_t)(result) << 16))

/** Software events (attr.config for PEV_TYPE_SOFTWARE). */
enum pev_sw_id {
	PEV_SW_CPU_CLOCK = 0,
	PEV_SW_TASK_CLOCK = 1,
	PEV_SW_PAGE_FAULTS = 2,
	PEV_SW_CONTEXT_SWITCHES = 3,
	PEV_SW_CPU_MIGRATIONS = 4,
	PEV_SW_PAGE_FAULTS_MIN = 5,
	PEV_SW_PAGE_FAULTS_MAJ = 6,
	PEV_SW_ALIGNMENT_FAULTS = 7,
	PEV_SW_EMULATION_FAULTS = 8,
	PEV_SW_DUMMY = 9,
	PEV_SW_BPF_OUTPUT = 10,
	PEV_SW_CGROUP_SWITCHES = 11, /**< Linux 5.13 */
	PEV_SW_MAX = 12,
};

/* ---- breakpoints (bp_type, bp_len) ------------------------------------- */

/** Breakpoint access kinds for attr.bp_type (may be OR'ed: R|W). */
enum pev_bp_type {
	PEV_BP_EMPTY = 0,
	PEV_BP_R = 1,
	PEV_BP_W = 2,
	PEV_BP_RW = 3,
	PEV_BP_X = 4,
	PEV_BP_INVALID = 7, /**< R|W|X: never valid */
};

/** Breakpoint lengths in bytes for attr.bp_len. */
enum pev_bp_len {
	PEV_BP_LEN_1 = 1,
	PEV_BP_LEN_2 = 2,
	PEV_BP_LEN_3 = 3,
	PEV_BP_LEN_4 = 4,
	PEV_BP_LEN_5 = 5,
	PEV_BP_LEN_6 = 6,
	PEV_BP_LEN_7 = 7,
	PEV_BP_LEN_8 = 8,
};

/* ---- attr.sample_type -------------------------------------------------- */

/** Fields a PERF_RECORD_SAMPLE carries, in the order the kernel writes them. */
enum pev_sample_bit {
	PEV_SAMPLE_IP = UINT64_C(1) << 0,
	PEV_SAMPLE_TID = UINT64_C(1) << 1,
	PEV_SAMPLE_TIME = UINT64_C(1) << 2,
	PEV_SAMPLE_ADDR = UINT64_C(1) << 3,
	PEV_SAMPLE_READ = UINT64_C(1) << 4,
	PEV_SAMPLE_CALLCHAIN = UINT64_C(1) << 5,
	PEV_SAMPLE_ID = UINT64_C(1) << 6,
	PEV_SAMPLE_CPU = UINT64_C(1) << 7,
	PEV_SAMPLE_PERIOD = UINT64_C(1) << 8,
	PEV_SAMPLE_STREAM_ID = UINT64_C(1) << 9,
	PEV_SAMPLE_RAW = UINT64_C(1) << 10,
	PEV_SAMPLE_BRANCH_STACK = UINT64_C(1) << 11,
	PEV_SAMPLE_REGS_USER = UINT64_C(1) << 12,
	PEV_SAMPLE_STACK_USER = UINT64_C(1) << 13,
	PEV_SAMPLE_WEIGHT = UINT64_C(1) << 14,
	PEV_SAMPLE_DATA_SRC = UINT64_C(1) << 15,
	PEV_SAMPLE_IDENTIFIER = UINT64_C(1) << 16,
	PEV_SAMPLE_TRANSACTION = UINT64_C(1) << 17,
	PEV_SAMPLE_REGS_INTR = UINT64_C(1) << 18,
	PEV_SAMPLE_PHYS_ADDR = UINT64_C(1) << 19,
	PEV_SAMPLE_AUX = UINT64_C(1) << 20,
	PEV_SAMPLE_CGROUP = UINT64_C(1) << 21,
	PEV_SAMPLE_DATA_PAGE_SIZE = UINT64_C(1) << 22,
	PEV_SAMPLE_CODE_PAGE_SIZE = UINT64_C(1) << 23,
	PEV_SAMPLE_WEIGHT_STRUCT = UINT64_C(1) << 24,
};
/** Every sample_type bit Linux 6.18 defines. */
#define PEV_SAMPLE_ALL ((UINT64_C(1) << 25) - 1)
/** Either form of the weight field. */
#define PEV_SAMPLE_WEIGHT_TYPE (PEV_SAMPLE_WEIGHT | PEV_SAMPLE_WEIGHT_STRUCT)

/* ---- attr.read_format -------------------------------------------------- */

/** Layout of what read(2) returns on an event fd. */
enum pev_read_format_bit {
	PEV_FORMAT_TOTAL_TIME_ENABLED = UINT64_C(1) << 0,
	PEV_FORMAT_TOTAL_TIME_RUNNING = UINT64_C(1) << 1,
	PEV_FORMAT_ID = UINT64_C(1) << 2,
	PEV_FORMAT_GROUP = UINT64_C(1) << 3,
	PEV_FORMAT_LOST = UINT64_C(1) << 4, /**< Linux 6.0 */
};
/** Every read_format bit Linux 6.18 defines. */
#define PEV_FORMAT_ALL ((UINT64_C(1) << 5) - 1)

/* ---- attr.branch_sample_type ------------------------------------------- */

/** Branch stack filters and options for attr.branch_sample_type. */
enum pev_branch_sample_bit {
	PEV_BRANCH_USER = UINT64_C(1) << 0,
	PEV_BRANCH_KERNEL = UINT64_C(1) << 1,
	PEV_BRANCH_HV = UINT64_C(1) << 2,
	PEV_BRANCH_ANY = UINT64_C(1) << 3,
	PEV_BRANCH_ANY_CALL = UINT64_C(1) << 4,
	PEV_BRANCH_ANY_RETURN = UINT64_C(1) << 5,
	PEV_BRANCH_IND_CALL = UINT64_C(1) << 6,
	PEV_BRANCH_ABORT_TX = UINT64_C(1) << 7,
	PEV_BRANCH_IN_TX = UINT64_C(1) << 8,
	PEV_BRANCH_NO_TX = UINT64_C(1) << 9,
	PEV_BRANCH_COND = UINT64_C(1) << 10,
	PEV_BRANCH_CALL_STACK = UINT64_C(1) << 11,
	PEV_BRANCH_IND_JUMP = UINT64_C(1) << 12,
	PEV_BRANCH_CALL = UINT64_C(1) << 13,
	PEV_BRANCH_NO_FLAGS = UINT64_C(1) << 14,
	PEV_BRANCH_NO_CYCLES = UINT64_C(1) << 15,
	PEV_BRANCH_TYPE_SAVE = UINT64_C(1) << 16,
	PEV_BRANCH_HW_INDEX = UINT64_C(1) << 17,
	PEV_BRANCH_PRIV_SAVE = UINT64_C(1) << 18,
	PEV_BRANCH_COUNTERS = UINT64_C(1) << 19, /**< Linux 6.8 */
};
/** The three privilege filters of branch_sample_type. */
#define PEV_BRANCH_PLM_ALL (PEV_BRANCH_USER | PEV_BRANCH_KERNEL | PEV_BRANCH_HV)
/** Every branch_sample_type bit Linux 6.18 defines. */
#define PEV_BRANCH_ALL ((UINT64_C(1) << 20) - 1)

/** Branch types in a branch entry's type field. */
enum pev_branch_kind {
	PEV_BR_UNKNOWN = 0,
	PEV_BR_COND = 1,
	PEV_BR_UNCOND = 2,
	PEV_BR_IND = 3,
	PEV_BR_CALL = 4,
	PEV_BR_IND_CALL = 5,
	PEV_BR_RET = 6,
	PEV_BR_SYSCALL = 7,
	PEV_BR_SYSRET = 8,
	PEV_BR_COND_CALL = 9,
	PEV_BR_COND_RET = 10,
	PEV_BR_ERET = 11,
	PEV_BR_IRQ = 12,
	PEV_BR_SERROR = 13,
	PEV_BR_NO_TX = 14,
	PEV_BR_EXTEND_ABI = 15, /**< the real kind is in new_type */
};

/** Extended branch types in a branch entry's new_type field. */
enum pev_branch_new_kind {
	PEV_BR_NEW_FAULT_ALGN = 0,
	PEV_BR_NEW_FAULT_DATA = 1,
	PEV_BR_NEW_FAULT_INST = 2,
	PEV_BR_NEW_ARCH_1 = 3,
	PEV_BR_NEW_ARCH_2 = 4,
	PEV_BR_NEW_ARCH_3 = 5,
	PEV_BR_NEW_ARCH_4 = 6,
	PEV_BR_NEW_ARCH_5 = 7,
};

/** Speculation outcome in a branch entry's spec field. */
enum pev_branch_spec {
	PEV_BR_SPEC_NA = 0,
	PEV_BR_SPEC_WRONG_PATH = 1,
	PEV_BR_NON_SPEC_CORRECT_PATH = 2,
	PEV_BR_SPEC_CORRECT_PATH = 3,
};

/** Privilege level in a branch entry's priv field. */
enum pev_branch_priv {
	PEV_BR_PRIV_UNKNOWN = 0,
	PEV_BR_PRIV_USER = 1,
	PEV_BR_PRIV_KERNEL = 2,
	PEV_BR_PRIV_HV = 3,
};

/**
 * One taken branch of a PERF_SAMPLE_BRANCH_STACK. The third word packs
 * several fields; use the PEV_BRANCH_ENTRY_* accessors.
 */
struct pev_branch_entry {
	uint64_t from;  /**< source instruction */
	uint64_t to;    /**< branch target */
	uint64_t flags; /**< packed fields, see below */
};

/* Bit positions of the fields packed into pev_branch_entry.flags. */
#define PEV_BRANCH_ENTRY_MISPRED(f)   ((unsigned)((f) >> 0) & 0x1u)
#define PEV_BRANCH_ENTRY_PREDICTED(f) ((unsigned)((f) >> 1) & 0x1u)
#define PEV_BRANCH_ENTRY_IN_TX(f)     ((unsigned)((f) >> 2) & 0x1u)
#define PEV_BRANCH_ENTRY_ABORT(f)     ((unsigned)((f) >> 3) & 0x1u)
#define PEV_BRANCH_ENTRY_CYCLES(f)    ((unsigned)((f) >> 4) & 0xffffu)
#define PEV_BRANCH_ENTRY_TYPE(f)      ((unsigned)((f) >> 20) & 0xfu)
#define PEV_BRANCH_ENTRY_SPEC(f)      ((unsigned)((f) >> 24) & 0x3u)
#define PEV_BRANCH_ENTRY_NEW_TYPE(f)  ((unsigned)((f) >> 26) & 0xfu)
#define PEV_BRANCH_ENTRY_PRIV(f)      ((unsigned)((f) >> 30) & 0x7u)

/* ---- register dumps, transactions -------------------------------------- */

/** The ABI of a register dump (first word of REGS_USER / REGS_INTR). */
enum pev_sample_regs_abi {
	PEV_SAMPLE_REGS_ABI_NONE = 0,
	PEV_SAMPLE_REGS_ABI_32 = 1,
	PEV_SAMPLE_REGS_ABI_64 = 2,
};

/** Bits of a PERF_SAMPLE_TRANSACTION value (abort code in the upper half). */
enum pev_txn_bit {
	PEV_TXN_ELISION = UINT64_C(1) << 0,
	PEV_TXN_TRANSACTION = UINT64_C(1) << 1,
	PEV_TXN_SYNC = UINT64_C(1) << 2,
	PEV_TXN_ASYNC = UINT64_C(1) << 3,
	PEV_TXN_RETRY = UINT64_C(1) << 4,
	PEV_TXN_CONFLICT = UINT64_C(1) << 5,
	PEV_TXN_CAPACITY_WRITE = UINT64_C(1) << 6,
	PEV_TXN_CAPACITY_READ = UINT64_C(1) << 7,
};
#define PEV_TXN_ABORT_SHIFT 32
#define PEV_TXN_ABORT_MASK  (UINT64_C(0xffffffff) << PEV_TXN_ABORT_SHIFT)

/* ---- struct pev_attr: the attribute block ------------------------------ */

/** Attribute block sizes, one per ABI revision. attr.size must be one of these or larger. */
#define PEV_ATTR_SIZE_VER0 64  /**< first published layout */
#define PEV_ATTR_SIZE_VER1 72  /**< + config2 */
#define PEV_ATTR_SIZE_VER2 80  /**< + branch_sample_type */
#define PEV_ATTR_SIZE_VER3 96  /**< + sample_regs_user, sample_stack_user, clockid */
#define PEV_ATTR_SIZE_VER4 104 /**< + sample_regs_intr */
#define PEV_ATTR_SIZE_VER5 112 /**< + aux_watermark, sample_max_stack */
#define PEV_ATTR_SIZE_VER6 120 /**< + aux_sample_size, aux_action */
#define PEV_ATTR_SIZE_VER7 128 /**< + sig_data (Linux 5.13) */
#define PEV_ATTR_SIZE_VER8 136 /**< + config3 (Linux 6.3) */
/** The newest size perfev knows; Linux 6.18 expects exactly this. */
#define PEV_ATTR_SIZE_LATEST PEV_ATTR_SIZE_VER8

/*
 * Bits of pev_attr.flags (the bit-field word at offset 40 of the kernel's
 * perf_event_attr). One constant per bit, numbered as the kernel lays them
 * out on every architecture perfev supports (little-endian bit order).
 */
#define PEV_ATTR_DISABLED                 (UINT64_C(1) << 0)  /**< start disabled */
#define PEV_ATTR_INHERIT                  (UINT64_C(1) << 1)  /**< children inherit the event */
#define PEV_ATTR_PINNED                   (UINT64_C(1) << 2)  /**< must always be on the PMU */
#define PEV_ATTR_EXCLUSIVE                (UINT64_C(1) << 3)  /**< only group on the PMU */
#define PEV_ATTR_EXCLUDE_USER             (UINT64_C(1) << 4)  /**< do not count user space */
#define PEV_ATTR_EXCLUDE_KERNEL           (UINT64_C(1) << 5)  /**< do not count the kernel */
#define PEV_ATTR_EXCLUDE_HV               (UINT64_C(1) << 6)  /**< do not count the hypervisor */
#define PEV_ATTR_EXCLUDE_IDLE             (UINT64_C(1) << 7)  /**< do not count when idle */
#define PEV_ATTR_MMAP                     (UINT64_C(1) << 8)  /**< emit MMAP records */
#define PEV_ATTR_COMM                     (UINT64_C(1) << 9)  /**< emit COMM records */
#define PEV_ATTR_FREQ                     (UINT64_C(1) << 10) /**< sample_freq, not sample_period */
#define PEV_ATTR_INHERIT_STAT             (UINT64_C(1) << 11) /**< per-task counts on exit */
#define PEV_ATTR_ENABLE_ON_EXEC           (UINT64_C(1) << 12) /**< enable at the next exec */
#define PEV_ATTR_TASK                     (UINT64_C(1) << 13) /**< emit FORK/EXIT records */
#define PEV_ATTR_WATERMARK                (UINT64_C(1) << 14) /**< wake up by bytes, not events */
#define PEV_ATTR_PRECISE_IP_SHIFT         15           /**< 2-bit skid constraint */
#define PEV_ATTR_PRECISE_IP_MASK          (UINT64_C(3) << 15)
#define PEV_ATTR_MMAP_DATA                (UINT64_C(1) << 17) /**< MMAP records for data mappings */
#define PEV_ATTR_SAMPLE_ID_ALL            (UINT64_C(1) << 18) /**< sample_id trailer on all records */
#define PEV_ATTR_EXCLUDE_HOST             (UINT64_C(1) << 19) /**< do not count in the host */
#define PEV_ATTR_EXCLUDE_GUEST            (UINT64_C(1) << 20) /**< do not count in guests */
#define PEV_ATTR_EXCLUDE_CALLCHAIN_KERNEL (UINT64_C(1) << 21) /**< no kernel frames in callchains */
#define PEV_ATTR_EXCLUDE_CALLCHAIN_USER   (UINT64_C(1) << 22) /**< no user frames in callchains */
#define PEV_ATTR_MMAP2                    (UINT64_C(1) << 23) /**< MMAP records in the MMAP2 format (inode / build id); gives none without PEV_ATTR_MMAP or PEV_ATTR_MMAP_DATA */
#define PEV_ATTR_COMM_EXEC                (UINT64_C(1) << 24) /**< flag COMM records caused by exec */
#define PEV_ATTR_USE_CLOCKID              (UINT64_C(1) << 25) /**< timestamps from attr.clockid */
#define PEV_ATTR_CONTEXT_SWITCH           (UINT64_C(1) << 26) /**< emit SWITCH records */
#define PEV_ATTR_WRITE_BACKWARD           (UINT64_C(1) << 27) /**< ring written end to start */
#define PEV_ATTR_NAMESPACES               (UINT64_C(1) << 28) /**< emit NAMESPACES records */
#define PEV_ATTR_KSYMBOL                  (UINT64_C(1) << 29) /**< emit KSYMBOL records */
#define PEV_ATTR_BPF_EVENT                (UINT64_C(1) << 30) /**< emit BPF_EVENT records */
#define PEV_ATTR_AUX_OUTPUT               (UINT64_C(1) << 31) /**< output to the leader's AUX area */
#define PEV_ATTR_CGROUP                   (UINT64_C(1) << 32) /**< emit CGROUP records */
#define PEV_ATTR_TEXT_POKE                (UINT64_C(1) << 33) /**< emit TEXT_POKE records */
#define PEV_ATTR_BUILD_ID                 (UINT64_C(1) << 34) /**< MMAP2 carries a build id */
#define PEV_ATTR_INHERIT_THREAD           (UINT64_C(1) << 35) /**< inherit only to CLONE_THREAD */
#define PEV_ATTR_REMOVE_ON_EXEC           (UINT64_C(1) << 36) /**< remove the event at exec */
#define PEV_ATTR_SIGTRAP                  (UINT64_C(1) << 37) /**< synchronous SIGTRAP on overflow */
/** Every flags bit Linux 6.18 defines (bits 38..63 are reserved and must be 0). */
#define PEV_ATTR_FLAGS_ALL                ((UINT64_C(1) << 38) - 1)

/* Bits of pev_attr.aux_action (Linux 6.13). */
#define PEV_AUX_START_PAUSED (1U << 0) /**< start AUX tracing paused */
#define PEV_AUX_PAUSE        (1U << 1) /**< on overflow, pause AUX tracing */
#define PEV_AUX_RESUME       (1U << 2) /**< on overflow, resume AUX tracing */
/** Every aux_action bit Linux 6.18 defines. */
#define PEV_AUX_ACTION_ALL   ((1U << 3) - 1)

/**
 * The attribute block passed to perf_event_open(2), laid out byte for byte
 * as the kernel's struct perf_event_attr of size PEV_ATTR_SIZE_LATEST.
 * The kernel's bit-fields are one word here, pev_attr.flags (PEV_ATTR_*),
 * so the layout does not depend on the compiler's bit-field rules.
 */
struct pev_attr {
	uint32_t type; /**< enum pev_type or a dynamic PMU type */
	uint32_t size; /**< bytes the kernel should read (PEV_ATTR_SIZE_*) */
	uint64_t config; /**< which event, read according to type */
	union {
		uint64_t sample_period; /**< sample every N events */
		uint64_t sample_freq;   /**< samples per second, with PEV_ATTR_FREQ */
	};
	uint64_t sample_type; /**< PEV_SAMPLE_* */
	uint64_t read_format; /**< PEV_FORMAT_* */
	uint64_t flags;       /**< PEV_ATTR_* */
	union {
		uint32_t wakeup_events;    /**< wake up every N samples (0: at half the ring) */
		uint32_t wakeup_watermark; /**< or every N bytes, with PEV_ATTR_WATERMARK */
	};
	uint32_t bp_type; /**< enum pev_bp_type */
	union {
		uint64_t bp_addr;     /**< breakpoint: address watched */
		uint64_t kprobe_func; /**< kprobe PMU: pointer to a function name */
		uint64_t uprobe_path; /**< uprobe PMU: pointer to a file path */
		uint64_t config1;     /**< more event bits, beyond config */
	};
	union {
		uint64_t bp_len;       /**< breakpoint: bytes watched (enum pev_bp_len) */
		uint64_t kprobe_addr;  /**< kprobe PMU: address when kprobe_func is 0 */
		uint64_t probe_offset; /**< kprobe/uprobe PMU: offset */
		uint64_t config2;      /**< more event bits, beyond config1 */
	};
	uint64_t branch_sample_type; /**< PEV_BRANCH_* */
	uint64_t sample_regs_user;   /**< arch register mask */
	uint32_t sample_stack_user;  /**< bytes of user stack per sample */
	int32_t clockid;             /**< with PEV_ATTR_USE_CLOCKID */
	uint64_t sample_regs_intr;   /**< arch register mask */
	uint32_t aux_watermark;      /**< AUX area: wake up every N bytes */
	uint16_t sample_max_stack; /**< callchain depth limit */
	uint16_t reserved_2;       /**< must be zero */
	uint32_t aux_sample_size;  /**< bytes of AUX data wanted per sample */
	uint32_t aux_action; /**< PEV_AUX_* */
	uint64_t sig_data;   /**< si_perf_data of the SIGTRAP */
	uint64_t config3;    /**< more event bits, beyond config2 */
};

/** The precise_ip value (0..3) packed in attr flags. */
#define PEV_ATTR_PRECISE_IP(flags) ((unsigned)(((flags) & PEV_ATTR_PRECISE_IP_MASK) >> 15))

/* ---- open(2) flags and ioctls ------------------------------------------ */

/** Flags for the last argument of perf_event_open(2). */
#define PEV_FLAG_FD_NO_GROUP (1UL << 0) /**< ignored by the kernel today */
#define PEV_FLAG_FD_OUTPUT   (1UL << 1) /**< broken since 2.6.35; use PEV_IOC_SET_OUTPUT */
#define PEV_FLAG_PID_CGROUP  (1UL << 2) /**< pid is a cgroup directory fd */
#define PEV_FLAG_FD_CLOEXEC  (1UL << 3) /**< open close-on-exec */
/** Every open flag Linux 6.18 accepts. */
#define PEV_FLAG_ALL         ((1UL << 4) - 1)

/** Argument of PEV_IOC_QUERY_BPF: the caller sets ids_len, the kernel the rest. */
struct pev_query_bpf {
	uint32_t ids_len;  /**< capacity of ids[] */
	uint32_t prog_cnt; /**< programs attached (set by the kernel) */
#ifndef __cplusplus
	uint32_t ids[];    /**< program ids (set by the kernel) */
#endif
	/* C++ has no flexible array members: there the ids are at (uint32_t *)(q + 1). */
};

/* ioctl requests on an event fd ('$' is the perf ioctl magic). */
#define PEV_IOC_ENABLE            _IO('$', 0)
#define PEV_IOC_DISABLE           _IO('$', 1)
#define PEV_IOC_REFRESH           _IO('$', 2)
#define PEV_IOC_RESET             _IO('$', 3)
#define PEV_IOC_PERIOD            _IOW('$', 4, uint64_t)
#define PEV_IOC_SET_OUTPUT        _IO('$', 5)
#define PEV_IOC_SET_FILTER        _IOW('$', 6, char *)
#define PEV_IOC_ID                _IOR('$', 7, uint64_t *)
#define PEV_IOC_SET_BPF           _IOW('$', 8, uint32_t)
#define PEV_IOC_PAUSE_OUTPUT      _IOW('$', 9, uint32_t)
#define PEV_IOC_QUERY_BPF         _IOWR('$', 10, struct pev_query_bpf *)
#define PEV_IOC_MODIFY_ATTRIBUTES _IOW('$', 11, struct pev_attr *)

/** Argument of ENABLE/DISABLE/RESET/REFRESH: act on the whole group. */
#define PEV_IOC_FLAG_GROUP 1U

/* ---- the mmap'd control page ------------------------------------------- */

/* Bits of pev_mmap_page.capabilities. */
#define PEV_CAP_BIT0_IS_DEPRECATED (UINT64_C(1) << 1) /**< always 1: bit 0 means nothing */
#define PEV_CAP_USER_RDPMC         (UINT64_C(1) << 2) /**< counters readable with rdpmc */
#define PEV_CAP_USER_TIME          (UINT64_C(1) << 3) /**< time_shift/mult/offset valid */
#define PEV_CAP_USER_TIME_ZERO     (UINT64_C(1) << 4) /**< time_zero valid */
#define PEV_CAP_USER_TIME_SHORT    (UINT64_C(1) << 5) /**< time_cycles/time_mask valid */

/**
 * The first page of an event's mapping: self-monitoring fields (seqlock,
 * rdpmc index, time conversion) and the ring buffer's control words.
 */
struct pev_mmap_page {
	uint32_t version;        /**< structure version */
	uint32_t compat_version; /**< lowest version this is compatible with */
	uint32_t lock;           /**< seqlock: re-read when it changed */
	uint32_t index;          /**< rdpmc index + 1, 0 when not readable */
	int64_t offset;          /**< add to the rdpmc value */
	uint64_t time_enabled;   /**< ns the event was enabled */
	uint64_t time_running;   /**< ns the event was on the PMU */
	uint64_t capabilities; /**< PEV_CAP_* */
	uint16_t pmc_width;    /**< bits of the rdpmc value */
	uint16_t time_shift;   /**< cycles to ns: right shift after time_mult */
	uint32_t time_mult;    /**< cycles to ns: multiplier */
	uint64_t time_offset;  /**< ns to add to the converted cycles */
	uint64_t time_zero;    /**< perf clock at cycle 0, with PEV_CAP_USER_TIME_ZERO */
	uint32_t size; /**< bytes of this header up to reserved[] */
	uint32_t reserved_1;  /**< padding */
	uint64_t time_cycles; /**< base of a short cycle counter (PEV_CAP_USER_TIME_SHORT) */
	uint64_t time_mask;   /**< width mask of a short cycle counter */
	uint8_t reserved[116 * 8]; /**< padding up to the ring control words */
	/* Ring control at offset 1024. */
	uint64_t data_head;   /**< written by the kernel; read with acquire */
	uint64_t data_tail;   /**< written by the reader; store with release */
	uint64_t data_offset; /**< where the data area starts in the mapping */
	uint64_t data_size;   /**< bytes of the data area */
	uint64_t aux_head;   /**< AUX area: written by the kernel; read with acquire */
	uint64_t aux_tail;   /**< AUX area: written by the reader; store with release */
	uint64_t aux_offset; /**< set by the reader before mapping the AUX area */
	uint64_t aux_size;   /**< set by the reader: bytes of the AUX area */
};

/* ---- records ----------------------------------------------------------- */

/** Header of every record in the ring buffer. */
struct pev_event_header {
	uint32_t type; /**< enum pev_record_type */
	uint16_t misc; /**< PEV_RECORD_MISC_* */
	uint16_t size; /**< bytes of the whole record, header included */
};

/** Record types the kernel writes into the ring (Linux 6.18). */
enum pev_record_type {
	PEV_RECORD_MMAP = 1,
	PEV_RECORD_LOST = 2,
	PEV_RECORD_COMM = 3,
	PEV_RECORD_EXIT = 4,
	PEV_RECORD_THROTTLE = 5,
	PEV_RECORD_UNTHROTTLE = 6,
	PEV_RECORD_FORK = 7,
	PEV_RECORD_READ = 8,
	PEV_RECORD_SAMPLE = 9,
	PEV_RECORD_MMAP2 = 10,
	PEV_RECORD_AUX = 11,
	PEV_RECORD_ITRACE_START = 12,
	PEV_RECORD_LOST_SAMPLES = 13,
	PEV_RECORD_SWITCH = 14,
	PEV_RECORD_SWITCH_CPU_WIDE = 15,
	PEV_RECORD_NAMESPACES = 16,
	PEV_RECORD_KSYMBOL = 17,
	PEV_RECORD_BPF_EVENT = 18,
	PEV_RECORD_CGROUP = 19,
	PEV_RECORD_TEXT_POKE = 20,
	PEV_RECORD_AUX_OUTPUT_HW_ID = 21,
	PEV_RECORD_KERNEL_MAX = 22, /**< first type the kernel does not write */
};

/* Bits of pev_event_header.misc. */
#define PEV_RECORD_MISC_CPUMODE_MASK          (7U << 0)
#define PEV_RECORD_MISC_CPUMODE_UNKNOWN       (0U << 0)
#define PEV_RECORD_MISC_KERNEL                (1U << 0)
#define PEV_RECORD_MISC_USER                  (2U << 0)
#define PEV_RECORD_MISC_HYPERVISOR            (3U << 0)
#define PEV_RECORD_MISC_GUEST_KERNEL          (4U << 0)
#define PEV_RECORD_MISC_GUEST_USER            (5U << 0)
#define PEV_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT (1U << 12) /**< synthesized maps incomplete */
#define PEV_RECORD_MISC_MMAP_DATA             (1U << 13) /**< MMAP*: a data mapping */
#define PEV_RECORD_MISC_COMM_EXEC             (1U << 13) /**< COMM: caused by exec */
#define PEV_RECORD_MISC_FORK_EXEC             (1U << 13) /**< FORK (perf tools only) */
#define PEV_RECORD_MISC_SWITCH_OUT            (1U << 13) /**< SWITCH*: switching out */
#define PEV_RECORD_MISC_EXACT_IP              (1U << 14) /**< SAMPLE: ip is exact */
#define PEV_RECORD_MISC_SWITCH_OUT_PREEMPT    (1U << 14) /**< SWITCH*: preempted while running */
#define PEV_RECORD_MISC_MMAP_BUILD_ID         (1U << 14) /**< MMAP2: carries a build id */
#define PEV_RECORD_MISC_EXT_RESERVED          (1U << 15)

/** Namespace slots of a NAMESPACES record, in order. */
enum pev_ns_index {
	PEV_NS_NET = 0,
	PEV_NS_UTS = 1,
	PEV_NS_IPC = 2,
	PEV_NS_PID = 3,
	PEV_NS_USER = 4,
	PEV_NS_MNT = 5,
	PEV_NS_CGROUP = 6,
	PEV_NS_COUNT = 7,
};

/** One namespace of a NAMESPACES record: the device and inode of its nsfs file. */
struct pev_ns_link_info {
	uint64_t dev; /**< device number of the nsfs file */
	uint64_t ino; /**< inode number: the namespace's identity */
};

/** Bytes of the build id area of an MMAP2 record (PEV_RECORD_MISC_MMAP_BUILD_ID). */
#define PEV_MMAP2_BUILD_ID_MAX 20

/** KSYMBOL record ksym_type values. */
enum pev_ksymbol_type {
	PEV_KSYMBOL_TYPE_UNKNOWN = 0,
	PEV_KSYMBOL_TYPE_BPF = 1,
	PEV_KSYMBOL_TYPE_OOL = 2, /**< out-of-line code: kprobe insns, trampolines */
};
/** KSYMBOL record flag: the symbol goes away. */
#define PEV_KSYMBOL_FLAGS_UNREGISTER 1U

/** BPF_EVENT record type values. */
enum pev_bpf_event_type {
	PEV_BPF_EVENT_UNKNOWN = 0,
	PEV_BPF_EVENT_PROG_LOAD = 1,
	PEV_BPF_EVENT_PROG_UNLOAD = 2,
};
/** Bytes of a BPF program tag in a BPF_EVENT record. */
#define PEV_BPF_TAG_SIZE 8

/** Largest default callchain depth (perf_event_max_stack's default). */
#define PEV_MAX_STACK_DEPTH 127
/** Most context markers a callchain can hold. */
#define PEV_MAX_CONTEXTS_PER_STACK 8

/* Callchain context markers: entries >= PEV_CONTEXT_MAX are markers, not ips. */
#define PEV_CONTEXT_HV            ((uint64_t)-32)
#define PEV_CONTEXT_KERNEL        ((uint64_t)-128)
#define PEV_CONTEXT_USER          ((uint64_t)-512)
#define PEV_CONTEXT_GUEST         ((uint64_t)-2048)
#define PEV_CONTEXT_GUEST_KERNEL  ((uint64_t)-2176)
#define PEV_CONTEXT_GUEST_USER    ((uint64_t)-2560)
#define PEV_CONTEXT_MAX           ((uint64_t)-4095)

/* Bits of an AUX record's flags. */
#define PEV_AUX_FLAG_TRUNCATED            0x0001U /**< data truncated to fit */
#define PEV_AUX_FLAG_OVERWRITE            0x0002U /**< snapshot from overwrite mode */
#define PEV_AUX_FLAG_PARTIAL              0x0004U /**< data has gaps */
#define PEV_AUX_FLAG_COLLISION            0x0008U /**< sample collided with another */
#define PEV_AUX_FLAG_PMU_FORMAT_TYPE_MASK 0xff00U /**< PMU-specific format */
#define PEV_AUX_FLAG_CORESIGHT_FORMAT_CORESIGHT 0x0000U
#define PEV_AUX_FLAG_CORESIGHT_FORMAT_RAW       0x0100U

/* ---- PERF_SAMPLE_DATA_SRC ---------------------------------------------- */

/*
 * A data source value packs several fields; PEV_MEM_FIELD(v, NAME) extracts
 * one, e.g. PEV_MEM_FIELD(v, LVLNUM) == PEV_MEM_LVLNUM_L3.
 */
#define PEV_MEM_OP_SHIFT      0
#define PEV_MEM_OP_BITS       5
#define PEV_MEM_LVL_SHIFT     5
#define PEV_MEM_LVL_BITS      14
#define PEV_MEM_SNOOP_SHIFT   19
#define PEV_MEM_SNOOP_BITS    5
#define PEV_MEM_LOCK_SHIFT    24
#define PEV_MEM_LOCK_BITS     2
#define PEV_MEM_TLB_SHIFT     26
#define PEV_MEM_TLB_BITS      7
#define PEV_MEM_LVLNUM_SHIFT  33
#define PEV_MEM_LVLNUM_BITS   4
#define PEV_MEM_REMOTE_SHIFT  37
#define PEV_MEM_REMOTE_BITS   1
#define PEV_MEM_SNOOPX_SHIFT  38
#define PEV_MEM_SNOOPX_BITS   2
#define PEV_MEM_BLK_SHIFT     40
#define PEV_MEM_BLK_BITS      3
#define PEV_MEM_HOPS_SHIFT    43
#define PEV_MEM_HOPS_BITS     3
/** Extracts field NAME (OP, LVL, SNOOP, LOCK, TLB, LVLNUM, REMOTE, SNOOPX, BLK, HOPS). */
#define PEV_MEM_FIELD(v, NAME)                                                                     \
	((unsigned)(((uint64_t)(v) >> PEV_MEM_##NAME##_SHIFT) &                                    \
		    ((UINT64_C(1) << PEV_MEM_##NAME##_BITS) - 1)))
/** Builds a data source value with field NAME set to value x. */
#define PEV_MEM_MAKE(NAME, x) ((uint64_t)(x) << PEV_MEM_##NAME##_SHIFT)

/* Memory operation (OP field). */
#define PEV_MEM_OP_NA     0x01U
#define PEV_MEM_OP_LOAD   0x02U
#define PEV_MEM_OP_STORE  0x04U
#define PEV_MEM_OP_PFETCH 0x08U
#define PEV_MEM_OP_EXEC   0x10U

/* Memory level, older encoding (LVL field). */
#define PEV_MEM_LVL_NA       0x0001U
#define PEV_MEM_LVL_HIT      0x0002U
#define PEV_MEM_LVL_MISS     0x0004U
#define PEV_MEM_LVL_L1       0x0008U
#define PEV_MEM_LVL_LFB      0x0010U
#define PEV_MEM_LVL_L2       0x0020U
#define PEV_MEM_LVL_L3       0x0040U
#define PEV_MEM_LVL_LOC_RAM  0x0080U
#define PEV_MEM_LVL_REM_RAM1 0x0100U
#define PEV_MEM_LVL_REM_RAM2 0x0200U
#define PEV_MEM_LVL_REM_CCE1 0x0400U
#define PEV_MEM_LVL_REM_CCE2 0x0800U
#define PEV_MEM_LVL_IO       0x1000U
#define PEV_MEM_LVL_UNC      0x2000U

/* Remote access (REMOTE field). */
#define PEV_MEM_REMOTE_REMOTE 0x1U

/* Memory level number (LVLNUM field). */
#define PEV_MEM_LVLNUM_L1        0x01U
#define PEV_MEM_LVLNUM_L2        0x02U
#define PEV_MEM_LVLNUM_L3        0x03U
#define PEV_MEM_LVLNUM_L4        0x04U
#define PEV_MEM_LVLNUM_L2_MHB    0x05U /**< L2 miss handling buffer */
#define PEV_MEM_LVLNUM_MSC       0x06U /**< memory-side cache */
#define PEV_MEM_LVLNUM_UNC       0x08U /**< uncached */
#define PEV_MEM_LVLNUM_CXL       0x09U
#define PEV_MEM_LVLNUM_IO        0x0aU
#define PEV_MEM_LVLNUM_ANY_CACHE 0x0bU
#define PEV_MEM_LVLNUM_LFB       0x0cU /**< line fill / L1 miss handling buffer */
#define PEV_MEM_LVLNUM_RAM       0x0dU
#define PEV_MEM_LVLNUM_PMEM      0x0eU
#define PEV_MEM_LVLNUM_NA        0x0fU

/* Snoop (SNOOP and SNOOPX fields). */
#define PEV_MEM_SNOOP_NA    0x01U
#define PEV_MEM_SNOOP_NONE  0x02U
#define PEV_MEM_SNOOP_HIT   0x04U
#define PEV_MEM_SNOOP_MISS  0x08U
#define PEV_MEM_SNOOP_HITM  0x10U
#define PEV_MEM_SNOOPX_FWD  0x01U
#define PEV_MEM_SNOOPX_PEER 0x02U

/* Locked instruction (LOCK field). */
#define PEV_MEM_LOCK_NA     0x01U
#define PEV_MEM_LOCK_LOCKED 0x02U

/* TLB access (TLB field). */
#define PEV_MEM_TLB_NA   0x01U
#define PEV_MEM_TLB_HIT  0x02U
#define PEV_MEM_TLB_MISS 0x04U
#define PEV_MEM_TLB_L1   0x08U
#define PEV_MEM_TLB_L2   0x10U
#define PEV_MEM_TLB_WK   0x20U /**< hardware walker */
#define PEV_MEM_TLB_OS   0x40U /**< OS fault handler */

/* Blocked access (BLK field). */
#define PEV_MEM_BLK_NA   0x01U
#define PEV_MEM_BLK_DATA 0x02U
#define PEV_MEM_BLK_ADDR 0x04U

/* Hops (HOPS field). */
#define PEV_MEM_HOPS_0 0x01U /**< remote core, same node */
#define PEV_MEM_HOPS_1 0x02U /**< remote node, same socket */
#define PEV_MEM_HOPS_2 0x03U /**< remote socket, same board */
#define PEV_MEM_HOPS_3 0x04U /**< remote board */

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_ABI_H */
