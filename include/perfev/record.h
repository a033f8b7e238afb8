/* SPDX-License-Identifier: MIT */
/*
 * perfev/record.h - the records the kernel writes into a ring buffer, decoded.
 *
 * pev_record_decode() is a pure function of (event configuration, bytes): it
 * reads one record of any type Linux 6.18 writes and fills a typed struct
 * pev_record, without system calls and without allocating. Variable-length
 * parts (strings, callchains, raw payloads, branch entries, register and
 * stack dumps, read values, build ids) are not copied: the struct points into
 * the caller's bytes, so they stay valid exactly as long as those bytes do.
 * A ring reader that releases a record (advances data_tail) or reuses its
 * scratch buffer invalidates every pointer decoded from it.
 *
 * Every field is checked against the record's own size: a malformed or
 * truncated record gives PEV_EFORMAT and is never read outside
 * [bytes, bytes + min(len, header.size)). share/doc/perfev/RECORDS.md has the details.
 */
#ifndef PERFEV_RECORD_H
#define PERFEV_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfev/abi.h"
#include "perfev/common.h"
#include "perfev/counter.h"
#include "perfev/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the event configuration the decoder needs ---------------------------- */

/**
 * The parts of an event's attributes that shape its records, as options
 * (initialize with PEV_RECORD_CONFIG_INIT, which sets .sz). Fields added in
 * later perfev versions go at the end and count as zero when the caller's
 * .sz does not reach them.
 */
struct pev_record_config {
	size_t sz;                   /**< sizeof(struct pev_record_config), for compatibility */
	uint64_t sample_type;        /**< PEV_SAMPLE_* of the event */
	uint64_t read_format;        /**< PEV_FORMAT_* of the event */
	bool sample_id_all;          /**< attr flag: non-sample records carry the sample_id trailer */
	uint64_t branch_sample_type; /**< PEV_BRANCH_*; HW_INDEX and COUNTERS change the layout */
	uint64_t sample_regs_user;   /**< register mask of PEV_SAMPLE_REGS_USER */
	uint64_t sample_regs_intr;   /**< register mask of PEV_SAMPLE_REGS_INTR */
	uint32_t group_size;         /**< events in the group, leader included; 0 = unknown */
};

/** Initializer for struct pev_record_config: everything zero, the size set. */
#define PEV_RECORD_CONFIG_INIT PEV_SIZED_INIT(struct pev_record_config)

/**
 * Everything pev_record_decode() needs to know about the event that wrote a
 * record, with the layout facts derived from it. Filled only by
 * pev_record_format_init() or pev_record_format_from_attr(); read it, but do
 * not change it (the derived fields would no longer match).
 */
struct pev_record_format {
	uint64_t sample_type;        /**< PEV_SAMPLE_* */
	uint64_t read_format;        /**< PEV_FORMAT_* */
	uint64_t branch_sample_type; /**< PEV_BRANCH_* */
	uint64_t sample_regs_user;   /**< REGS_USER register mask */
	uint64_t sample_regs_intr;   /**< REGS_INTR register mask */
	uint32_t nr_regs_user;       /**< registers in a REGS_USER dump: popcount of the mask */
	uint32_t nr_regs_intr;       /**< registers in a REGS_INTR dump: popcount of the mask */
	/**
	 * Events in the group (leader included) when known, else 0. The decoder
	 * takes the count of a group read from the record's bytes; a count above
	 * group_size is refused as malformed.
	 */
	uint32_t group_size;
	bool sample_id_all; /**< non-sample records end with the sample_id trailer */

	/* Derived layout (bytes); 0 means "not in this format". */
	uint16_t id_size;      /**< bytes of the sample_id trailer of non-sample records */
	uint64_t id_fields;    /**< PEV_SAMPLE_* bits the trailer holds (0 without sample_id_all) */
	uint64_t sample_id_fields;  /**< PEV_SAMPLE_* identity bits a SAMPLE holds */
	uint16_t prefix_size;       /**< header + the fixed-size SAMPLE fields IDENTIFIER .. PERIOD */
	uint16_t min_size;          /**< prefix_size, + 8 for the callchain's nr */
	uint16_t sample_time_at;    /**< offset of TIME in a SAMPLE */
	uint16_t sample_id_at;      /**< offset of the event id (IDENTIFIER, else ID) in a SAMPLE */
	uint16_t trailer_time_back; /**< TIME sits this many bytes before a non-sample record's end */
	uint16_t trailer_id_back;   /**< the event id sits this many bytes before the end */
	/** Private to the decoder: do not read or write. */
	struct {
		uint8_t prefix_kind; /* which fast copy of the fixed-size fields applies */
	} priv;
};

/**
 * Builds the format from cfg (the caller sets cfg->sz; see
 * PEV_RECORD_CONFIG_INIT). Register counts are the popcounts of the masks.
 * Returns 0; PEV_EBADARG for NULL arguments, cfg->sz unset, or a cfg longer
 * than this perfev's that sets a field it does not know; PEV_EVERSION when
 * sample_type, read_format or branch_sample_type have bits Linux 6.18 does
 * not define.
 */
PEV_API int pev_record_format_init(struct pev_record_format *fmt,
				   const struct pev_record_config *cfg);

/**
 * Builds the format from an attribute block (the one the event was opened
 * with, or read back from a perf.data file). group_size becomes 0; set it
 * with pev_record_format_init() when the group is known. Returns 0,
 * PEV_EBADARG for NULL arguments, or PEV_EVERSION as pev_record_format_init().
 */
PEV_API int pev_record_format_from_attr(const struct pev_attr *attr,
					struct pev_record_format *fmt);

/* ---- the decoded record ------------------------------------------------- */

/**
 * The identity fields every record can carry: a SAMPLE in its body, the
 * others in the sample_id trailer when the event has sample_id_all. Which
 * fields are there is pev_record.id_fields (PEV_SAMPLE_TID, _TIME, _ID,
 * _STREAM_ID, _CPU, _IDENTIFIER); absent fields are 0.
 */
struct pev_sample_id {
	uint32_t pid;        /**< PEV_SAMPLE_TID: process id */
	uint32_t tid;        /**< PEV_SAMPLE_TID: thread id */
	uint64_t time;       /**< PEV_SAMPLE_TIME: timestamp (perf clock or attr.clockid) */
	uint64_t id;         /**< PEV_SAMPLE_ID: the opened event's id (an inherited copy's parent's) */
	uint64_t stream_id;  /**< PEV_SAMPLE_STREAM_ID: the writing event's id (an inherited copy's own) */
	uint32_t cpu;        /**< PEV_SAMPLE_CPU: the CPU */
	uint32_t cpu_res;    /**< PEV_SAMPLE_CPU: the reserved word after it (0 from the kernel) */
	uint64_t identifier; /**< PEV_SAMPLE_IDENTIFIER: the event id at a fixed position */
};

/**
 * A read_format block inside a READ record or a SAMPLE with PEV_SAMPLE_READ.
 * Use pev_read_data_value() for entry i (the leader first in a group).
 */
struct pev_read_data {
	uint64_t read_format;  /**< the layout (PEV_FORMAT_*) */
	uint64_t nr;           /**< entries: 1 without PEV_FORMAT_GROUP, else the group's count */
	uint64_t time_enabled; /**< with PEV_FORMAT_TOTAL_TIME_ENABLED, else 0 */
	uint64_t time_running; /**< with PEV_FORMAT_TOTAL_TIME_RUNNING, else 0 */
	const uint64_t *words; /**< the block in the record's bytes; NULL when absent */
	uint32_t nr_words;     /**< words in the block */
};

/**
 * Entry i (0 .. rd->nr - 1) of a read block: value, and id and lost when
 * the format has them (else 0). Returns 0, or PEV_EBADARG when an argument
 * is NULL or i is out of range.
 */
PEV_API int pev_read_data_value(const struct pev_read_data *rd, uint64_t i,
				struct pev_read_value *out);

/** The branch stack of a SAMPLE (PEV_SAMPLE_BRANCH_STACK). */
struct pev_branch_stack {
	uint64_t nr;                            /**< entries, newest first */
	uint64_t hw_idx;                        /**< with PEV_BRANCH_HW_INDEX: the LBR index, else 0 */
	const struct pev_branch_entry *entries; /**< nr entries in the bytes; NULL when nr is 0 */
	/**
	 * With PEV_BRANCH_COUNTERS: nr words, one per entry, each packing the
	 * occurrences of the group's events (widths in the PMU's
	 * caps/branch_counter_nr and caps/branch_counter_width); else NULL.
	 */
	const uint64_t *counters;
};

/** The fields packed into pev_branch_entry.flags, unpacked. */
struct pev_branch_flags {
	bool mispred;     /**< the target was mispredicted */
	bool predicted;   /**< the target was predicted */
	bool in_tx;       /**< in a hardware transaction */
	bool abort;       /**< a transaction abort */
	uint16_t cycles;  /**< cycles since the previous branch (0 when unsupported) */
	uint8_t type;     /**< enum pev_branch_kind */
	uint8_t spec;     /**< enum pev_branch_spec */
	uint8_t new_type; /**< enum pev_branch_new_kind, when type is PEV_BR_EXTEND_ABI */
	uint8_t priv;     /**< enum pev_branch_priv */
};

/** Unpacks a branch entry's flags word. NULL out is ignored. */
PEV_API void pev_branch_flags_decode(uint64_t flags, struct pev_branch_flags *out);

/** A register dump (PEV_SAMPLE_REGS_USER or PEV_SAMPLE_REGS_INTR). */
struct pev_sample_regs {
	uint64_t abi;         /**< enum pev_sample_regs_abi; NONE: no registers (kernel thread) */
	uint64_t mask;        /**< the event's register mask: regs[k] is its k-th set bit */
	uint32_t nr;          /**< registers that follow (0 with ABI NONE) */
	const uint64_t *regs; /**< nr values in the bytes; NULL when nr is 0 */
};

/** The user stack dump of a SAMPLE (PEV_SAMPLE_STACK_USER). */
struct pev_sample_stack {
	uint64_t size;      /**< bytes dumped (0: nothing, and no dyn_size word follows) */
	const void *data;   /**< size bytes in the record; NULL when size is 0 */
	uint64_t dyn_size;  /**< bytes of data that are valid stack (<= size) */
};

/** A PERF_SAMPLE_DATA_SRC value split into its fields (see PEV_MEM_* in abi.h). */
struct pev_data_src {
	uint8_t op;      /**< PEV_MEM_OP_* bits */
	uint16_t lvl;    /**< PEV_MEM_LVL_* bits (older encoding) */
	uint8_t snoop;   /**< PEV_MEM_SNOOP_* bits */
	uint8_t lock;    /**< PEV_MEM_LOCK_* bits */
	uint8_t dtlb;    /**< PEV_MEM_TLB_* bits */
	uint8_t lvl_num; /**< PEV_MEM_LVLNUM_* value */
	uint8_t remote;  /**< PEV_MEM_REMOTE_REMOTE or 0 */
	uint8_t snoopx;  /**< PEV_MEM_SNOOPX_* bits */
	uint8_t blk;     /**< PEV_MEM_BLK_* bits */
	uint8_t hops;    /**< PEV_MEM_HOPS_* value */
};

/** Splits a data source value into its fields. NULL out is ignored. */
PEV_API void pev_data_src_decode(uint64_t data_src, struct pev_data_src *out);

/**
 * A PERF_RECORD_SAMPLE. `fields` is the format's sample_type. The identity
 * fields (IDENTIFIER, TID, TIME, ID, STREAM_ID, CPU) are in
 * pev_record.sample_id.
 *
 * Always set: fields, ip, addr, period, callchain_nr and callchain (0 or
 * NULL when the format lacks them), as is pev_record.sample_id. Every other
 * member is set only when its PEV_SAMPLE_* bit is in `fields`; otherwise it
 * keeps whatever the struct held before (the decoder does not spend time
 * clearing some 300 bytes per sample). Check `fields` before reading read,
 * raw, branch, the register and stack dumps, weight, data source,
 * transaction, phys_addr, cgroup, the page sizes and aux.
 */
struct pev_sample {
	uint64_t fields;                /**< the PEV_SAMPLE_* bits this sample has: which members are set */
	uint64_t ip;                    /**< PEV_SAMPLE_IP */
	uint64_t addr;                  /**< PEV_SAMPLE_ADDR */
	uint64_t period;                /**< PEV_SAMPLE_PERIOD */
	struct pev_read_data read;      /**< PEV_SAMPLE_READ */
	uint64_t callchain_nr;          /**< PEV_SAMPLE_CALLCHAIN: entries, markers included */
	/**
	 * PEV_SAMPLE_CALLCHAIN: callchain_nr entries, innermost first; entries
	 * >= PEV_CONTEXT_MAX are context markers (see pev_callchain_iter).
	 */
	const uint64_t *callchain;
	uint32_t raw_size;              /**< PEV_SAMPLE_RAW: bytes of raw (padding included) */
	const void *raw;                /**< PEV_SAMPLE_RAW: the payload; NULL when raw_size is 0 */
	struct pev_branch_stack branch; /**< PEV_SAMPLE_BRANCH_STACK */
	struct pev_sample_regs regs_user;   /**< PEV_SAMPLE_REGS_USER */
	struct pev_sample_stack stack_user; /**< PEV_SAMPLE_STACK_USER */
	uint64_t weight;                /**< PEV_SAMPLE_WEIGHT or _WEIGHT_STRUCT: the whole word */
	uint32_t weight_var1_dw;        /**< PEV_SAMPLE_WEIGHT_STRUCT: bits 0-31 */
	uint16_t weight_var2_w;         /**< PEV_SAMPLE_WEIGHT_STRUCT: bits 32-47 */
	uint16_t weight_var3_w;         /**< PEV_SAMPLE_WEIGHT_STRUCT: bits 48-63 */
	uint64_t data_src;              /**< PEV_SAMPLE_DATA_SRC: the raw value */
	struct pev_data_src mem;        /**< PEV_SAMPLE_DATA_SRC: data_src split into fields */
	uint64_t transaction;           /**< PEV_SAMPLE_TRANSACTION: PEV_TXN_* bits, abort code above */
	struct pev_sample_regs regs_intr; /**< PEV_SAMPLE_REGS_INTR */
	uint64_t phys_addr;             /**< PEV_SAMPLE_PHYS_ADDR */
	uint64_t cgroup;                /**< PEV_SAMPLE_CGROUP: cgroup id */
	uint64_t data_page_size;        /**< PEV_SAMPLE_DATA_PAGE_SIZE */
	uint64_t code_page_size;        /**< PEV_SAMPLE_CODE_PAGE_SIZE */
	uint64_t aux_size;              /**< PEV_SAMPLE_AUX: bytes of AUX data */
	const void *aux;                /**< PEV_SAMPLE_AUX: the data; NULL when aux_size is 0 */
};

/** PERF_RECORD_MMAP: an executable (or, with MISC_MMAP_DATA, data) mapping. */
struct pev_record_mmap {
	uint32_t pid, tid;     /**< the process and thread that mapped it */
	uint64_t addr;         /**< start of the mapping */
	uint64_t len;          /**< its length */
	uint64_t pgoff;        /**< file offset */
	const char *filename;  /**< NUL-terminated, in the bytes */
	uint16_t filename_len; /**< strlen(filename) */
};

/** PERF_RECORD_MMAP2: MMAP with the file's identity (inode or build id) and protection. */
struct pev_record_mmap2 {
	uint32_t pid, tid;       /**< the process and thread that mapped it */
	uint64_t addr, len, pgoff; /**< start, length and file offset of the mapping */
	bool has_build_id;       /**< PEV_RECORD_MISC_MMAP_BUILD_ID: build id instead of inode */
	uint32_t maj, min;       /**< device (inode form; 0 in the build-id form) */
	uint64_t ino;            /**< inode (inode form) */
	uint64_t ino_generation; /**< inode generation (inode form) */
	uint8_t build_id_size;   /**< bytes of build_id (build-id form, <= PEV_MMAP2_BUILD_ID_MAX) */
	const uint8_t *build_id; /**< build-id form: the id in the bytes; else NULL */
	uint32_t prot;           /**< PROT_* of the mapping */
	uint32_t flags;          /**< MAP_* of the mapping */
	const char *filename;    /**< NUL-terminated, in the bytes */
	uint16_t filename_len;   /**< strlen(filename) */
};

/** PERF_RECORD_LOST: records the kernel dropped because the ring was full. */
struct pev_record_lost {
	uint64_t id;   /**< the event whose records were lost */
	uint64_t lost; /**< how many */
};

/** PERF_RECORD_COMM: a task's name changed (exec, prctl). */
struct pev_record_comm {
	uint32_t pid, tid; /**< the task renamed: process and thread */
	const char *comm;  /**< NUL-terminated, in the bytes */
	uint16_t comm_len; /**< strlen(comm) */
};

/** PERF_RECORD_FORK and PERF_RECORD_EXIT: a task started or ended. */
struct pev_record_task {
	uint32_t pid, ppid; /**< the task's process, and its parent's */
	uint32_t tid, ptid; /**< the task's thread, and its parent's */
	uint64_t time;      /**< when, in the event's clock */
};

/** PERF_RECORD_THROTTLE and PERF_RECORD_UNTHROTTLE: sampling throttled or resumed. */
struct pev_record_throttle {
	uint64_t time;      /**< when, in the event's clock */
	uint64_t id;        /**< the event, as PEV_SAMPLE_ID identifies it */
	uint64_t stream_id; /**< the event, as PEV_SAMPLE_STREAM_ID identifies it */
};

/** PERF_RECORD_READ: the counts of an inherited event at a task's exit (inherit_stat). */
struct pev_record_read {
	uint32_t pid, tid;           /**< the task that exited: process and thread */
	struct pev_read_data values; /**< laid out by the event's read_format */
};

/** PERF_RECORD_AUX: new data in the AUX area. */
struct pev_record_aux {
	uint64_t aux_offset; /**< where in the AUX area */
	uint64_t aux_size;   /**< how many bytes */
	uint64_t flags;      /**< PEV_AUX_FLAG_* */
};

/** PERF_RECORD_ITRACE_START: instruction tracing started for a task. */
struct pev_record_itrace_start {
	uint32_t pid, tid; /**< the task traced: process and thread */
};

/** PERF_RECORD_LOST_SAMPLES: samples the PMU or the kernel dropped. */
struct pev_record_lost_samples {
	uint64_t lost; /**< how many samples may be missing */
};

/**
 * PERF_RECORD_SWITCH and PERF_RECORD_SWITCH_CPU_WIDE: a context switch, out
 * of the task with PEV_RECORD_MISC_SWITCH_OUT, else into it. Only the CPU-wide
 * form names the other task; both fields are 0 in the plain form.
 */
struct pev_record_switch {
	uint32_t next_prev_pid; /**< switching out: the next task; in: the previous one */
	uint32_t next_prev_tid; /**< the thread of that task */
};

/** PERF_RECORD_NAMESPACES: the namespaces of a new task. */
struct pev_record_namespaces {
	uint32_t pid, tid;                    /**< the new task: process and thread */
	uint64_t nr;                          /**< entries of link (PEV_NS_COUNT from Linux 4.17 on) */
	const struct pev_ns_link_info *link;  /**< indexed by enum pev_ns_index; NULL when nr is 0 */
};

/** PERF_RECORD_KSYMBOL: a kernel symbol (a BPF program, a trampoline) came or went. */
struct pev_record_ksymbol {
	uint64_t addr;       /**< where the symbol starts */
	uint32_t len;        /**< its bytes */
	uint16_t ksym_type;  /**< enum pev_ksymbol_type */
	uint16_t flags;      /**< PEV_KSYMBOL_FLAGS_UNREGISTER */
	const char *name;    /**< NUL-terminated, in the bytes */
	uint16_t name_len;   /**< strlen(name) */
};

/** PERF_RECORD_BPF_EVENT: a BPF program was loaded or unloaded. */
struct pev_record_bpf_event {
	uint16_t type;       /**< enum pev_bpf_event_type */
	uint16_t flags;      /**< none defined: 0 */
	uint32_t id;         /**< the program id */
	const uint8_t *tag;  /**< PEV_BPF_TAG_SIZE bytes, in the record */
};

/** PERF_RECORD_CGROUP: a cgroup was created. */
struct pev_record_cgroup {
	uint64_t id;        /**< the cgroup id (as PEV_SAMPLE_CGROUP reports it) */
	const char *path;   /**< NUL-terminated, in the bytes */
	uint16_t path_len;  /**< strlen(path) */
};

/** PERF_RECORD_TEXT_POKE: the kernel changed its own text. */
struct pev_record_text_poke {
	uint64_t addr;              /**< where the text changed */
	uint16_t old_len, new_len;  /**< bytes of old_bytes and new_bytes */
	const uint8_t *old_bytes;   /**< the text before, in the record (NULL when old_len is 0) */
	const uint8_t *new_bytes;   /**< the text after, in the record (NULL when new_len is 0) */
};

/** PERF_RECORD_AUX_OUTPUT_HW_ID: the hardware id of an aux_output event. */
struct pev_record_aux_output_hw_id {
	uint64_t hw_id; /**< the id the hardware gives this event's output in the AUX data */
};

/** A record of a type this perfev does not decode: its bytes after the header. */
struct pev_record_unknown {
	const void *data; /**< header.size - 8 bytes, in the record */
	size_t size;      /**< bytes of data */
};

/**
 * One decoded record. type, misc, size and bytes come from the header; the
 * member of the union that matches type holds the body (FORK and EXIT share
 * `task`, THROTTLE and UNTHROTTLE `throttle`, SWITCH and SWITCH_CPU_WIDE
 * `sw`; SWITCH has no body). Types Linux 6.18 does not define are `unknown`.
 * Pointers inside point into the decoded bytes.
 */
struct pev_record {
	uint32_t type;     /**< enum pev_record_type, or a type perfev does not know */
	uint16_t misc;     /**< PEV_RECORD_MISC_* */
	uint16_t size;     /**< bytes of the record, header included */
	const void *bytes; /**< the record's first byte */
	/**
	 * The PEV_SAMPLE_* bits of sample_id that are present: for a SAMPLE the
	 * identity bits of sample_type, for other records those of the trailer
	 * (0 without sample_id_all, and for unknown types).
	 */
	uint64_t id_fields;
	struct pev_sample_id sample_id; /**< identity fields; absent ones are 0 */
	union {
		struct pev_sample sample;
		struct pev_record_mmap mmap;
		struct pev_record_mmap2 mmap2;
		struct pev_record_lost lost;
		struct pev_record_comm comm;
		struct pev_record_task task;
		struct pev_record_throttle throttle;
		struct pev_record_read read;
		struct pev_record_aux aux;
		struct pev_record_itrace_start itrace_start;
		struct pev_record_lost_samples lost_samples;
		struct pev_record_switch sw;
		struct pev_record_namespaces namespaces;
		struct pev_record_ksymbol ksymbol;
		struct pev_record_bpf_event bpf_event;
		struct pev_record_cgroup cgroup;
		struct pev_record_text_poke text_poke;
		struct pev_record_aux_output_hw_id aux_output_hw_id;
		struct pev_record_unknown unknown;
	};
};

/* ---- decoding ------------------------------------------------------------- */

/**
 * Decodes the record at bytes (len bytes readable; a buffer of many records
 * is fine, only the first is read) written by an event of format fmt.
 * bytes must be 8-byte aligned, as records in a ring or a perf.data file are.
 *
 * Returns the bytes consumed (header.size) on success. On failure returns
 * PEV_EBADARG (NULL argument, unaligned bytes) or PEV_EFORMAT (malformed or
 * truncated record, or one that does not match fmt), pev_last_error()
 * saying which record and why ("MMAP2 record of 32 bytes: its body is 24
 * bytes, at least 64 expected"; its field names the sample_type bit at
 * fault); a success writes no error. fmt must come from
 * pev_record_format_init() or pev_record_format_from_attr(). Whenever the header could be read (len >= 8), out->type, misc,
 * size and bytes are set even on failure: a record with 8 <= size <= len can
 * be skipped by size bytes, one with size < 8 or size > len cannot (the
 * stream is lost from there). Nothing outside [bytes, bytes + min(len,
 * size)) is read.
 */
PEV_API int pev_record_decode(const struct pev_record_format *fmt, const void *bytes, size_t len,
			      struct pev_record *out);

/**
 * Reads the timestamp of the record at bytes without decoding it: from a
 * SAMPLE's TIME field, or from the trailer of any other record type Linux
 * 6.18 defines (with sample_id_all). bytes need no alignment. Returns 1 and
 * sets *time when the record has one, 0 when it does not (the format lacks
 * PEV_SAMPLE_TIME or sample_id_all, or the type is unknown), PEV_EBADARG for
 * NULL arguments, PEV_EFORMAT when the header's size is below 8, above len,
 * or too small for the field.
 */
PEV_API int pev_record_time(const struct pev_record_format *fmt, const void *bytes, size_t len,
			    uint64_t *time);

/**
 * Reads the id of the event that wrote the record at bytes, without decoding
 * it: PEV_SAMPLE_IDENTIFIER when the format has it (first word of a SAMPLE,
 * last word of the trailer: the same place whatever the rest of the
 * sample_type, so events with different formats sharing one ring are told
 * apart), else PEV_SAMPLE_ID. Returns 1 and sets *id, 0 when the record has
 * no id, or an error as pev_record_time().
 */
PEV_API int pev_record_id(const struct pev_record_format *fmt, const void *bytes, size_t len,
			  uint64_t *id);

/**
 * The kernel's name of a record type without its prefix ("SAMPLE",
 * "MMAP2", "SWITCH_CPU_WIDE"), or "UNKNOWN". Never NULL; static.
 */
PEV_API const char *pev_record_type_name(uint32_t type);

/**
 * Writes one line (no newline) describing r into buf (size bytes, always
 * terminated when size > 0): the type, cpu mode and flags, identity fields
 * and the body's main fields. Returns buf.
 */
PEV_API char *pev_record_describe(const struct pev_record *r, char *buf, size_t size);

/* ---- misc flags ------------------------------------------------------------ */

/** The cpu mode of a record: misc & PEV_RECORD_MISC_CPUMODE_MASK (PEV_RECORD_MISC_KERNEL, ...). */
PEV_API unsigned pev_record_cpumode(const struct pev_record *r);

/** A name for a cpu mode: "kernel", "user", "hypervisor", "guest-kernel", "guest-user", "unknown". */
PEV_API const char *pev_cpumode_name(unsigned cpumode);

/** True for a SAMPLE whose ip is exactly the instruction that caused it (MISC_EXACT_IP). */
PEV_API bool pev_record_exact_ip(const struct pev_record *r);

/** True for an MMAP or MMAP2 of a non-executable mapping (MISC_MMAP_DATA). */
PEV_API bool pev_record_mmap_data(const struct pev_record *r);

/** True for an MMAP2 that carries a build id instead of the inode (MISC_MMAP_BUILD_ID). */
PEV_API bool pev_record_mmap_build_id(const struct pev_record *r);

/** True for a COMM written because the task called exec (MISC_COMM_EXEC). */
PEV_API bool pev_record_comm_exec(const struct pev_record *r);

/** True for a SWITCH or SWITCH_CPU_WIDE out of the task (MISC_SWITCH_OUT); false: into it. */
PEV_API bool pev_record_switch_out(const struct pev_record *r);

/** True for a switch out of a task that was still runnable: preempted (MISC_SWITCH_OUT_PREEMPT). */
PEV_API bool pev_record_switch_preempt(const struct pev_record *r);

/* ---- callchains ------------------------------------------------------------ */

/** A frame of a callchain: an address and the context it was taken in. */
struct pev_callchain_frame {
	uint64_t ip;      /**< the address */
	uint64_t context; /**< PEV_CONTEXT_* of the last marker before it, 0 when none came yet */
};

/** Walks a callchain frame by frame, consuming the context markers. */
struct pev_callchain_iter {
	const uint64_t *ips; /**< the entries */
	uint64_t nr;         /**< how many */
	uint64_t at;         /**< the next entry to look at */
	uint64_t context;    /**< the context in force */
};

/** Starts a walk over nr entries at ips (a sample's callchain and callchain_nr). */
PEV_API void pev_callchain_iter_init(struct pev_callchain_iter *it, const uint64_t *ips,
				     uint64_t nr);

/**
 * Moves to the next frame that is an address (markers only change the
 * context). Returns true and fills *frame, or false at the end.
 */
PEV_API bool pev_callchain_iter_next(struct pev_callchain_iter *it,
				     struct pev_callchain_frame *frame);

/** True when a callchain entry is a context marker rather than an address. */
PEV_API bool pev_callchain_is_context(uint64_t entry);

/** A name for a context marker: "kernel", "user", "hv", "guest", "guest-kernel", "guest-user", or "unknown". */
PEV_API const char *pev_callchain_context_name(uint64_t context);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_RECORD_H */
