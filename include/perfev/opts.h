/* SPDX-License-Identifier: MIT */
/*
 * perfev/opts.h - how to open an event: the typed options struct, and its
 * translation to and from the kernel's attribute block.
 *
 * Zero means "the kernel's default" for every field, so a zeroed struct with
 * only .sz set opens a plain counter that counts every privilege level the
 * caller may count (see PEV_OPEN_EXACT_LEVELS). Set .sz to
 * sizeof(struct pev_opts) (PEV_OPTS_INIT does): fields added in later perfev
 * versions go at the end, and a library newer than the caller treats them as
 * zero; a library older than the caller refuses non-zero fields it does not
 * know instead of silently ignoring them.
 */
#ifndef PERFEV_OPTS_H
#define PERFEV_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfev/abi.h"
#include "perfev/common.h"
#include "perfev/error.h"
#include "perfev/event.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How much the sampled IP may lag the instruction that caused the event (attr.precise_ip). */
enum pev_skid {
	PEV_SKID_ARBITRARY = 0,    /**< any skid (the default) */
	PEV_SKID_CONSTANT = 1,     /**< constant skid */
	PEV_SKID_REQUEST_ZERO = 2, /**< ask for zero skid */
	PEV_SKID_ZERO = 3,         /**< require zero skid */
};

/** Which new tasks inherit the event. */
enum pev_inherit {
	PEV_INHERIT_NONE = 0,    /**< only the target task */
	PEV_INHERIT_ALL = 1,     /**< children and threads created after open (attr.inherit) */
	PEV_INHERIT_THREADS = 2, /**< only threads (CLONE_THREAD) (inherit + inherit_thread) */
};

/* Flags for pev_opts.open_flags and pev_counter_open_attr(). */
/** Do not check the attributes before the syscall; let the kernel decide. */
#define PEV_OPEN_NO_VALIDATE 0x1U
/** On EINVAL/EOPNOTSUPP, do not retry with fields cleared to name the refused one. */
#define PEV_OPEN_NO_PROBE 0x2U
/**
 * Send read_format exactly as given. Without it, pev_counter_open() adds
 * PEV_FORMAT_TOTAL_TIME_ENABLED and PEV_FORMAT_TOTAL_TIME_RUNNING, so that
 * every read is scaled for multiplexing and tells a counter that never ran.
 */
#define PEV_OPEN_EXACT_READ_FORMAT 0x4U
/**
 * Count exactly the privilege levels opts names (PERFEV_0.2). Without it,
 * an event whose opts exclude no level (exclude_user, exclude_kernel and
 * exclude_hv all false) counts every level where the caller may count the
 * kernel, and user space only where the kernel refuses that (EACCES or EPERM:
 * perf_event_paranoid 2 or more without CAP_PERFMON) -- the rule of every
 * perfev entry point, share/doc/perfev/API.md "Privilege levels". With it,
 * such an event counts every level or fails.
 */
#define PEV_OPEN_EXACT_LEVELS 0x8U

/**
 * Options for opening an event. Every field maps to one perf_event_attr
 * field or bit; share/doc/perfev/OPTIONS.md has the full table.
 */
struct pev_opts {
	size_t sz; /**< sizeof(struct pev_opts), for compatibility */

	/* Privilege levels: each true excludes that level from counting. */
	bool exclude_user;   /**< do not count user space */
	bool exclude_kernel; /**< do not count the kernel (what ":u" means) */
	bool exclude_hv;     /**< do not count the hypervisor */
	bool exclude_idle;   /**< do not count while the CPU idles */
	bool exclude_host;   /**< do not count in the host (KVM) */
	bool exclude_guest;  /**< do not count in guests (KVM) */

	/* Life cycle. */
	bool disabled;           /**< open disabled; start with pev_counter_enable() */
	bool enable_on_exec;     /**< enable at the target's next execve (implies disabled) */
	bool remove_on_exec;     /**< remove the event from the task at execve */
	enum pev_inherit inherit; /**< which new tasks inherit the event */
	bool inherit_stat;       /**< save per-task counts of inherited tasks (and emit READ records) */
	bool pinned;             /**< must always be on the PMU (group leaders only) */
	bool exclusive;          /**< only group on the PMU while scheduled (group leaders only) */

	/* Sampling: set at most one of sample_period and sample_freq. */
	uint64_t sample_period; /**< sample every N events; 0 with sample_freq 0 = counting */
	uint64_t sample_freq;   /**< or aim for N samples per second */
	enum pev_skid skid;     /**< precise_ip */
	uint64_t sample_type;   /**< PEV_SAMPLE_* fields in each sample */

	/* Companions of sample_type bits. */
	uint16_t callchain_max_stack;  /**< CALLCHAIN: frame limit (0 = perf_event_max_stack) */
	bool exclude_callchain_kernel; /**< CALLCHAIN: no kernel frames */
	bool exclude_callchain_user;   /**< CALLCHAIN: no user frames */
	uint64_t sample_regs_user;     /**< REGS_USER: arch register mask */
	uint32_t sample_stack_user;    /**< STACK_USER: bytes of user stack (multiple of 8) */
	uint64_t sample_regs_intr;     /**< REGS_INTR: arch register mask */
	uint64_t branch_sample_type;   /**< BRANCH_STACK: PEV_BRANCH_* filters */
	uint32_t aux_sample_size;      /**< AUX: bytes of AUX data per sample */

	uint64_t read_format; /**< PEV_FORMAT_* layout of read(2); pev_counter_open adds both times (see PEV_OPEN_EXACT_READ_FORMAT) */

	/* Extra records in the ring buffer. */
	bool mmap;           /**< MMAP records for executable mappings */
	bool mmap2;          /**< MMAP2 records (inode, protection) instead of MMAP; sets attr.mmap too */
	bool mmap_data;      /**< also for data mappings */
	bool build_id;       /**< MMAP2 records carry a build id instead of an inode */
	bool comm;           /**< COMM records (task renames, exec) */
	bool comm_exec;      /**< flag COMM records that come from exec */
	bool task;           /**< FORK and EXIT records */
	bool context_switch; /**< SWITCH records */
	bool namespaces;     /**< NAMESPACES records */
	bool ksymbol;        /**< KSYMBOL records */
	bool bpf_event;      /**< BPF_EVENT records */
	bool cgroup;         /**< CGROUP records */
	bool text_poke;      /**< TEXT_POKE records */
	bool sample_id_all;  /**< every record carries the sample_id trailer */

	/* Wake-up of poll(2) on the ring: set at most one of the first two. With
	 * both 0 the kernel wakes readers when half the ring's data area is
	 * unread, not on every record; 1 wakes them on every sample. */
	uint32_t wakeup_events; /**< every N samples (other records do not count; 0 = at half the ring) */
	uint32_t wakeup_bytes;  /**< or every N bytes (attr.watermark) */
	uint32_t aux_watermark; /**< AUX area: wake up every N bytes */

	/* Timestamps. */
	bool use_clockid; /**< take time from clockid instead of perf's clock */
	int32_t clockid;  /**< CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW, ... */

	/* Signals. */
	bool sigtrap;      /**< send a synchronous SIGTRAP on overflow (needs remove_on_exec) */
	uint64_t sig_data; /**< passed to the handler in si_perf_data */

	/* Ring buffer direction and AUX area control. */
	bool write_backward;   /**< the kernel writes the ring end to start (overwrite mode) */
	bool aux_output;       /**< output to the group leader's AUX area */
	bool aux_start_paused; /**< start AUX tracing paused */
	bool aux_pause;        /**< on overflow, pause AUX tracing */
	bool aux_resume;       /**< on overflow, resume AUX tracing */

	unsigned open_flags; /**< PEV_OPEN_* */
};

/** Initializer for struct pev_opts: everything zero, the size set. */
#define PEV_OPTS_INIT PEV_SIZED_INIT(struct pev_opts)

/**
 * Builds the attribute block for ev with opts (NULL opts means defaults).
 * attr->size is the smallest ABI size that holds every non-zero field, so
 * kernels older than perfev accept it when they can. Does not consult the
 * machine: see pev_attr_check() for that.
 * Returns 0, PEV_EBADARG for contradicting options (both sample_period and
 * sample_freq, ...) or PEV_EINVAL for values the kernel cannot take
 * (skid above 3), with err filled when given.
 */
PEV_API int pev_attr_encode(struct pev_attr *attr, const struct pev_event *ev,
			    const struct pev_opts *opts, struct pev_error *err);

/**
 * The reverse of pev_attr_encode: reads an attribute block of `len` bytes
 * (as found in a perf.data file) into ev and opts. Bytes beyond
 * min(len, attr->size) count as zero. The caller sets opts->sz (PEV_OPTS_INIT):
 * the call fills at most that many bytes, zeroes any tail it does not know,
 * and sets opts->sz to the bytes it filled. ev->name and ev->pmu become NULL.
 * clockid and sig_data are kept only with use_clockid and sigtrap (the
 * kernel ignores them otherwise), so a decoded block re-encodes identically.
 * Returns 0; PEV_EBADARG for NULL arguments or opts->sz unset; PEV_EFORMAT
 * when the block is shorter than PEV_ATTR_SIZE_VER0, its size field is
 * between 1 and 63, or it sets inherit_thread without inherit; PEV_EVERSION
 * when it sets fields or bits this perfev does not know.
 */
PEV_API int pev_attr_decode(const void *bytes, size_t len, struct pev_event *ev,
			    struct pev_opts *opts);

/**
 * Returns the smallest ABI size (a PEV_ATTR_SIZE_VER* value) that holds
 * every non-zero byte of attr. NULL reads as an all-zero block:
 * PEV_ATTR_SIZE_VER0 (a size, so there is no code to return).
 */
PEV_API uint32_t pev_attr_min_size(const struct pev_attr *attr);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_OPTS_H */
