/* SPDX-License-Identifier: MIT */
/*
 * perfev/perfdata.h - reading and writing the perf.data format.
 *
 * A perf.data file is what `perf record` writes and `perf report` reads: a
 * header, the attribute blocks of the events with their sample ids, a data
 * section of records (the kernel's ring-buffer records plus perf's own
 * record types, numbered from 64), and header features (host name, command
 * line, build ids of the binaries that were hit, ...). In pipe mode
 * (`perf record -o -`) the header is 16 bytes and everything else arrives
 * as records.
 *
 * The reader (struct pev_perfdata) opens a file, a descriptor (file or pipe)
 * or a buffer, checks the header and every section against the file's size,
 * parses the features and hands out the records one at a time, each with
 * the event that wrote it. Anything malformed gives a negative PEV_E* code
 * and a message naming what is wrong and where; no input makes it read
 * outside what it was given.
 *
 * The writer (struct pev_perfdata_writer) writes a file-mode perf.data that
 * perf 6.x reads without warnings: the events first, then raw records as
 * the caller hands them over (it never decodes them), then on finish the
 * features and the final header. In pipe mode (PEV_PERFDATA_WRITER_PIPE)
 * it writes the same in order, the events and features as records first.
 *
 * share/doc/perfev/PERFDATA.md describes the format, the checks and the compatibility
 * with perf versions.
 */
#ifndef PERFEV_PERFDATA_H
#define PERFEV_PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfev/abi.h"
#include "perfev/common.h"
#include "perfev/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the format ------------------------------------------------------------ */

/** The magic of a perf.data file, "PERFILE2", read as a native-endian 64-bit word. */
#define PEV_PERFDATA_MAGIC UINT64_C(0x32454c4946524550)
/** Bytes of the file-mode header (struct perf_file_header). */
#define PEV_PERFDATA_HEADER_SIZE 104
/** Bytes of the pipe-mode header: the magic and its own size. */
#define PEV_PERFDATA_PIPE_HEADER_SIZE 16

/**
 * Header feature bits (perf's HEADER_* numbers): bit N set in the header's
 * feature bitmap means a section for feature N follows the data section.
 */
enum pev_perfdata_feature {
	PEV_HEADER_RESERVED = 0, /**< never set */
	PEV_HEADER_TRACING_DATA = 1,   /**< tracepoint formats (tracefs event files) */
	PEV_HEADER_BUILD_ID = 2,       /**< build ids of the binaries samples hit */
	PEV_HEADER_HOSTNAME = 3,       /**< uname -n */
	PEV_HEADER_OSRELEASE = 4,      /**< uname -r */
	PEV_HEADER_VERSION = 5,        /**< version of the tool that wrote the file */
	PEV_HEADER_ARCH = 6,           /**< uname -m */
	PEV_HEADER_NRCPUS = 7,         /**< CPUs available and online */
	PEV_HEADER_CPUDESC = 8,        /**< CPU model name */
	PEV_HEADER_CPUID = 9,          /**< CPU identification ("GenuineIntel,6,85,7") */
	PEV_HEADER_TOTAL_MEM = 10,     /**< memory in kB */
	PEV_HEADER_CMDLINE = 11,       /**< the command line that recorded */
	PEV_HEADER_EVENT_DESC = 12,    /**< each event's attributes, name and ids */
	PEV_HEADER_CPU_TOPOLOGY = 13,  /**< sockets, dies, cores, threads */
	PEV_HEADER_NUMA_TOPOLOGY = 14,
	PEV_HEADER_BRANCH_STACK = 15,  /**< a flag: samples carry branch stacks */
	PEV_HEADER_PMU_MAPPINGS = 16,  /**< PMU type numbers and names */
	PEV_HEADER_GROUP_DESC = 17,    /**< event groups */
	PEV_HEADER_AUXTRACE = 18,      /**< index of AUX area data */
	PEV_HEADER_STAT = 19,          /**< a flag: written by perf stat record */
	PEV_HEADER_CACHE = 20,         /**< CPU cache hierarchy */
	PEV_HEADER_SAMPLE_TIME = 21,   /**< times of the first and last sample */
	PEV_HEADER_MEM_TOPOLOGY = 22,
	PEV_HEADER_CLOCKID = 23,       /**< resolution of the clock of attr.clockid */
	PEV_HEADER_DIR_FORMAT = 24,    /**< a directory of data files (perf record --threads) */
	PEV_HEADER_BPF_PROG_INFO = 25,
	PEV_HEADER_BPF_BTF = 26,
	PEV_HEADER_COMPRESSED = 27,    /**< data compressed with zstd (perf record -z) */
	PEV_HEADER_CPU_PMU_CAPS = 28,
	PEV_HEADER_CLOCK_DATA = 29,    /**< reference times of attr.clockid and of the wall clock */
	PEV_HEADER_HYBRID_TOPOLOGY = 30,
	PEV_HEADER_PMU_CAPS = 31,
	PEV_HEADER_CPU_DOMAIN_INFO = 32,
	PEV_HEADER_LAST_FEATURE = 33,  /**< first bit perfev does not know */
	PEV_HEADER_FEAT_BITS = 256,    /**< bits in the header's feature bitmap */
};

/**
 * Record types perf itself writes into the data section (perf's
 * PERF_RECORD_* above the kernel's; the kernel's are enum pev_record_type).
 */
enum pev_perfdata_record_type {
	PEV_RECORD_USER_TYPE_START = 64,     /**< first type that is not the kernel's */
	PEV_RECORD_HEADER_ATTR = 64,         /**< pipe mode: an event's attributes and ids */
	PEV_RECORD_HEADER_EVENT_TYPE = 65,   /**< obsolete */
	PEV_RECORD_HEADER_TRACING_DATA = 66, /**< pipe mode: tracepoint formats follow the record */
	PEV_RECORD_HEADER_BUILD_ID = 67,     /**< pipe mode: one build id */
	PEV_RECORD_FINISHED_ROUND = 68,      /**< nothing before it sorts after what came before the previous one */
	PEV_RECORD_ID_INDEX = 69,            /**< sample id -> event index, CPU, thread */
	PEV_RECORD_AUXTRACE_INFO = 70,
	PEV_RECORD_AUXTRACE = 71,            /**< AUX area data follows the record */
	PEV_RECORD_AUXTRACE_ERROR = 72,
	PEV_RECORD_THREAD_MAP = 73,          /**< threads perf recorded (pid and comm) */
	PEV_RECORD_CPU_MAP = 74,             /**< CPUs perf recorded */
	PEV_RECORD_STAT_CONFIG = 75,
	PEV_RECORD_STAT = 76,
	PEV_RECORD_STAT_ROUND = 77,
	PEV_RECORD_EVENT_UPDATE = 78,        /**< an event's name, unit, scale or CPUs */
	PEV_RECORD_TIME_CONV = 79,           /**< TSC to perf time conversion */
	PEV_RECORD_HEADER_FEATURE = 80,      /**< pipe mode: one header feature */
	PEV_RECORD_COMPRESSED = 81,          /**< zstd-compressed records */
	PEV_RECORD_FINISHED_INIT = 82,       /**< end of the records synthesized at start */
	PEV_RECORD_COMPRESSED2 = 83,         /**< zstd-compressed records, 8-aligned */
	PEV_RECORD_BPF_METADATA = 84,
	PEV_RECORD_SCHEDSTAT_CPU = 85,
	PEV_RECORD_SCHEDSTAT_DOMAIN = 86,
	PEV_RECORD_HEADER_MAX = 87,          /**< first type perfev does not know */
};

/** Bytes of a build id area (the longest build id, a SHA-1). */
#define PEV_PERFDATA_BUILD_ID_MAX 20

/**
 * The name of a feature bit without its prefix ("HOSTNAME", "BUILD_ID"), or
 * "UNKNOWN". Never NULL; static.
 */
PEV_API const char *pev_perfdata_feature_name(unsigned feature);

/**
 * The name of a record type: perf's own types ("FINISHED_ROUND",
 * "HEADER_ATTR") and the kernel's ("SAMPLE", as pev_record_type_name), or
 * "UNKNOWN". Never NULL; static.
 */
PEV_API const char *pev_perfdata_record_type_name(uint32_t type);

/* ---- what a file holds ------------------------------------------------------- */

/**
 * One event of a file: its attribute block and everything the file says
 * about it. Owned by the reader; valid until pev_perfdata_close().
 */
struct pev_perfdata_event {
	int index;            /**< position among the file's events (attr section or HEADER_ATTR order) */
	/**
	 * The attribute block, zero-extended to PEV_ATTR_SIZE_LATEST bytes;
	 * attr.size is the size the file gives (0 in the oldest files means 64).
	 */
	struct pev_attr attr;
	uint32_t file_attr_size; /**< bytes of the block in the file (a larger one's tail is ignored) */
	const char *name;        /**< from EVENT_DESC or an EVENT_UPDATE, or NULL */
	size_t nr_ids;           /**< sample ids of the event (one per descriptor perf opened) */
	const uint64_t *ids;     /**< nr_ids ids; NULL when nr_ids is 0 */
	const char *unit;        /**< EVENT_UPDATE unit, or NULL */
	double scale;            /**< EVENT_UPDATE scale, or 0 when not given */
	size_t nr_cpus;          /**< EVENT_UPDATE CPUs: entries of cpus */
	const int *cpus;         /**< the event's CPUs (-1: any CPU), or NULL */
	int leader;              /**< index of its group leader (GROUP_DESC); its own index when not grouped */
	const char *group_name;  /**< the group's name (leaders of named groups), or NULL */
};

/** A build id a file records for a binary (BUILD_ID feature or HEADER_BUILD_ID record). */
struct pev_perfdata_build_id {
	int32_t pid;        /**< the machine: -1 for the host (perf's HOST_KERNEL_ID), a guest's pid */
	uint16_t cpumode;   /**< PEV_RECORD_MISC_KERNEL, _USER, _GUEST_KERNEL or _GUEST_USER */
	uint8_t size;       /**< bytes of build_id that are the id (20 for SHA-1) */
	uint8_t build_id[PEV_PERFDATA_BUILD_ID_MAX]; /**< the id, in its first size bytes */
	const char *filename; /**< the binary's path ("[kernel.kallsyms]" for the kernel) */
};

/** One CPU of the CPU_TOPOLOGY feature. */
struct pev_perfdata_cpu_topo {
	uint32_t core_id;   /**< the CPU's core number */
	uint32_t socket_id; /**< the CPU's socket (physical package) number */
	uint32_t die_id;    /**< 0 when the file has no die information */
};

/** One PMU of the PMU_MAPPINGS feature. */
struct pev_perfdata_pmu {
	uint32_t type;    /**< the value of attr.type for its events */
	const char *name; /**< its sysfs name ("cpu", "software", "tracepoint") */
};

/**
 * The capabilities of one PMU (its sysfs caps/ directory), from CPU_PMU_CAPS
 * (the PMU named "cpu") or PMU_CAPS (every other PMU that has some). Owned by
 * the reader.
 */
struct pev_perfdata_pmu_caps {
	const char *pmu;           /**< the PMU's name: "cpu", "armv8_pmuv3", "cpu_core" */
	uint32_t nr_caps;          /**< entries of names and values */
	const char *const *names;  /**< "max_precise", "slots" */
	const char *const *values; /**< "3", "0x00000000" (as sysfs gives them) */
};

/** One group of the GROUP_DESC feature. */
struct pev_perfdata_group {
	const char *name;    /**< the group's name, "{anon_group}" for unnamed ones */
	uint32_t leader;     /**< index of the leader among the events */
	uint32_t nr_members; /**< events in the group, the leader included */
};

/** The raw bytes of one feature section, whatever the feature. */
struct pev_perfdata_section {
	uint32_t feature; /**< the feature bit */
	uint64_t offset;  /**< where the section starts in the file (0 in pipe mode) */
	uint64_t size;    /**< its bytes */
	const void *data; /**< size bytes, owned by the reader */
};

/**
 * The header features of a file, parsed. A feature the file lacks leaves its
 * fields zero (NULL strings, 0 counts); test the bit in `bits` to tell an
 * absent feature from a zero value. Every feature section, known or not, is
 * also kept whole in `sections`. Owned by the reader. In pipe mode features
 * arrive as records: the ones before the first kernel record are read by
 * the open call, later ones (HEADER_FEATURE, HEADER_BUILD_ID,
 * HEADER_TRACING_DATA) by pev_perfdata_next(), which may move the arrays:
 * take the pointer again after it.
 */
struct pev_perfdata_features {
	uint64_t bits[PEV_HEADER_FEAT_BITS / 64]; /**< bit N of bits[N / 64]: feature N present */

	const char *hostname;  /**< HOSTNAME */
	const char *osrelease; /**< OSRELEASE */
	const char *version;   /**< VERSION: "6.1.187", "perfev 0.1.0" */
	const char *arch;      /**< ARCH */
	const char *cpudesc;   /**< CPUDESC */
	const char *cpuid;     /**< CPUID */
	uint32_t nr_cpus_avail;  /**< NRCPUS: CPUs present (perf: the highest present CPU + 1) */
	uint32_t nr_cpus_online; /**< NRCPUS: CPUs online */
	uint64_t total_mem_kb;   /**< TOTAL_MEM, in kB */
	uint32_t nr_cmdline;     /**< CMDLINE: words */
	const char *const *cmdline; /**< CMDLINE: the words; perf's first is its own path */

	size_t nr_build_ids;                           /**< BUILD_ID entries */
	const struct pev_perfdata_build_id *build_ids; /**< BUILD_ID entries, in file order */

	/* CPU_TOPOLOGY */
	uint32_t nr_package_cpus;          /**< CPU lists of the sockets */
	const char *const *package_cpus;   /**< e.g. "0-3" */
	uint32_t nr_core_cpus;             /**< CPU lists of the cores (SMT siblings) */
	const char *const *core_cpus;      /**< e.g. "0,2" */
	uint32_t nr_die_cpus;              /**< CPU lists of the dies (0 when the file has none) */
	const char *const *die_cpus;       /**< e.g. "0-7" */
	uint32_t nr_topology_cpus;         /**< entries of cpu_topology (nr_cpus_avail, or 0) */
	const struct pev_perfdata_cpu_topo *cpu_topology; /**< per CPU number */

	uint64_t clockid_res_ns;     /**< CLOCKID: resolution of the event clock, in ns */
	uint64_t sample_time_first;  /**< SAMPLE_TIME: time of the first sample */
	uint64_t sample_time_last;   /**< SAMPLE_TIME: time of the last sample */
	uint32_t clock_data_version; /**< CLOCK_DATA: format version (1) */
	uint32_t clock_data_clockid; /**< CLOCK_DATA: the clock of the timestamps */
	uint64_t clock_data_tod_ns;  /**< CLOCK_DATA: wall-clock time at the reference point, ns */
	uint64_t clock_data_clock_ns; /**< CLOCK_DATA: event-clock time at the reference point, ns */

	uint32_t nr_pmus;                      /**< PMU_MAPPINGS entries */
	const struct pev_perfdata_pmu *pmus;   /**< PMU_MAPPINGS */
	uint32_t nr_groups;                    /**< GROUP_DESC entries */
	const struct pev_perfdata_group *groups; /**< GROUP_DESC */

	uint32_t compressed_version; /**< COMPRESSED: format version */
	uint32_t compressed_type;    /**< COMPRESSED: 1 = zstd */
	uint32_t compressed_level;   /**< COMPRESSED: compression level */
	uint32_t compressed_ratio;   /**< COMPRESSED: the ratio perf reached */
	uint32_t compressed_mmap_len; /**< COMPRESSED: bytes of perf's buffers */

	size_t nr_sections;                          /**< feature sections */
	const struct pev_perfdata_section *sections; /**< every section, in bit order (file mode) or arrival order (pipe mode) */
};

/** True when feature `feature` is present in f. */
static inline bool pev_perfdata_has_feature(const struct pev_perfdata_features *f, unsigned feature)
{
	return f && feature < PEV_HEADER_FEAT_BITS && ((f->bits[feature / 64] >> (feature % 64)) & 1);
}

/** Where the file's parts are (file mode; zero in pipe mode but for header_size and file_size). */
struct pev_perfdata_layout {
	uint64_t header_size;  /**< header.size: 104, 72 for the oldest files, 16 in pipe mode */
	uint64_t attr_size;    /**< header.attr_size: bytes of one attr entry (block + ids section) */
	uint64_t attrs_offset, attrs_size; /**< offset and bytes of the attrs section */
	uint64_t data_offset, data_size;   /**< offset and bytes of the data section (records) */
	uint64_t feat_offset;  /**< the feature section table (data_offset + data_size) */
	uint64_t file_size;    /**< bytes of the file, UINT64_MAX when unknown (a pipe) */
};

/** One entry of an ID_INDEX record: where a sample id came from. */
struct pev_perfdata_id_entry {
	uint64_t id;  /**< the sample id (PEV_SAMPLE_ID, PEV_FORMAT_ID) */
	uint64_t idx; /**< perf's index of the descriptor's mmap */
	uint64_t cpu; /**< the CPU, or UINT64_MAX for any */
	uint64_t tid; /**< the thread, or UINT64_MAX for any */
};

/** One thread of a THREAD_MAP record. */
struct pev_perfdata_thread {
	uint64_t pid;  /**< the thread id */
	char comm[17]; /**< its name, NUL-terminated */
};

/** A TIME_CONV record: how TSC values convert to perf time. */
struct pev_perfdata_time_conv {
	uint64_t time_shift, time_mult, time_zero; /**< TSC to perf time, as in pev_mmap_page */
	uint64_t time_cycles, time_mask;  /**< 0 in records from before Linux 5.12's perf */
	bool cap_user_time_zero;          /**< time_zero is valid */
	bool cap_user_time_short;         /**< time_cycles and time_mask are valid */
};

/* ---- reading ------------------------------------------------------------------ */

/** A perf.data file open for reading. Opaque. */
struct pev_perfdata;

/**
 * pev_perfdata_open flag: a malformed feature section or a malformed perf
 * record body (THREAD_MAP, EVENT_UPDATE, ...) is dropped with a note
 * instead of failing. The header, the sections' bounds and the framing of
 * the records are checked either way.
 */
#define PEV_PERFDATA_LENIENT 0x1U

/**
 * Opens the perf.data file at path ("-" reads standard input) and reads
 * its header, events and features (in pipe mode: the records up to the
 * first kernel record). flags: PEV_PERFDATA_*.
 * Returns 0 and stores the reader in *out, or a negative code with *out
 * NULL and err (optional) filled: the open(2) errno (PEV_ENOENT, PEV_EACCES,
 * ...), PEV_EFORMAT for a malformed or foreign file, PEV_EUNSUPPORTED for a
 * big-endian file or the pre-2010 "PERFFILE" format, PEV_ENOMEM.
 */
PEV_API int pev_perfdata_open(const char *path, unsigned flags, struct pev_perfdata **out,
			      struct pev_error *err);

/**
 * Same as pev_perfdata_open() on an open descriptor: a regular file is read
 * with pread(2) from offset 0 whatever its position; anything else (a pipe,
 * a socket) is read once, from where it stands. The descriptor stays the
 * caller's: pev_perfdata_close() does not close it.
 */
PEV_API int pev_perfdata_open_fd(int fd, unsigned flags, struct pev_perfdata **out,
				 struct pev_error *err);

/**
 * Same as pev_perfdata_open() on size bytes at data, which stay the
 * caller's and must outlive the reader.
 */
PEV_API int pev_perfdata_open_memory(const void *data, size_t size, unsigned flags,
				     struct pev_perfdata **out, struct pev_error *err);

/** Closes the file (a descriptor it opened) and frees everything. NULL is ignored. */
PEV_API void pev_perfdata_close(struct pev_perfdata *pd);

/** True for a pipe-mode file (16-byte header, events and features as records). */
PEV_API bool pev_perfdata_pipe_mode(const struct pev_perfdata *pd);

/** Where the file's parts are. Never NULL for a non-NULL pd. */
PEV_API const struct pev_perfdata_layout *pev_perfdata_layout(const struct pev_perfdata *pd);

/** The number of events known so far (in pipe mode more may come as records), or PEV_EBADARG. */
PEV_API int pev_perfdata_nr_events(const struct pev_perfdata *pd);

/** Event i (0 .. nr_events - 1), or NULL when out of range. Valid until close. */
PEV_API const struct pev_perfdata_event *pev_perfdata_event(const struct pev_perfdata *pd, int i);

/** The event a sample id belongs to, or NULL when no event has it. */
PEV_API const struct pev_perfdata_event *pev_perfdata_event_by_id(const struct pev_perfdata *pd,
								  uint64_t id);

/** The features (see struct pev_perfdata_features). Never NULL for a non-NULL pd. */
PEV_API const struct pev_perfdata_features *pev_perfdata_features(const struct pev_perfdata *pd);

/**
 * The PMU capabilities of the features CPU_PMU_CAPS and PMU_CAPS: the "cpu"
 * PMU's first, then the others in file order. Sets *nr to their count (0
 * when the file has neither feature) and returns the array, owned by pd
 * (NULL when there is none). In pipe mode the array may move when
 * pev_perfdata_next() reads a later HEADER_FEATURE record: take it again.
 */
PEV_API const struct pev_perfdata_pmu_caps *pev_perfdata_pmu_caps(const struct pev_perfdata *pd,
								  uint32_t *nr);

/**
 * Finds the ID_INDEX entry of a sample id read so far. Returns 0 and fills
 * *out, PEV_ENOTFOUND when no ID_INDEX record named the id, PEV_EBADARG.
 */
PEV_API int pev_perfdata_id_index(const struct pev_perfdata *pd, uint64_t id,
				  struct pev_perfdata_id_entry *out);

/** The threads of the last THREAD_MAP record read (*nr of them), or NULL with *nr 0. */
PEV_API const struct pev_perfdata_thread *pev_perfdata_threads(const struct pev_perfdata *pd,
							       size_t *nr);

/** The CPUs of the last CPU_MAP record read (*nr of them; -1 is "any"), or NULL with *nr 0. */
PEV_API const int *pev_perfdata_cpus(const struct pev_perfdata *pd, size_t *nr);

/** The last TIME_CONV record read, or NULL when none was. */
PEV_API const struct pev_perfdata_time_conv *pev_perfdata_time_conv(const struct pev_perfdata *pd);

/**
 * Whether the file was never finished: its recorder died (killed, the disk
 * full) before it rewrote the header with the data size and wrote the
 * features. The header says the data section is empty, and either no
 * feature bits are set or the feature table is no table. The reader then
 * ignores the features, reads the records up to the end of the file and
 * stops quietly at one cut short (a note says so). In pipe mode, known once
 * the stream's end is read (pev_perfdata_next() returned 0): true when it
 * ends inside a record, or has FINISHED_ROUNDs (or records after
 * FINISHED_INIT) but another record last;
 * the records before are read and a note says where it stopped.
 */
PEV_API bool pev_perfdata_unfinished(const struct pev_perfdata *pd);

/**
 * Things the reader accepted but a user may want to know: a newer format
 * (unknown features, record types, a larger header or attribute block), a
 * file that was not finalized, dropped sections (PEV_PERFDATA_LENIENT).
 * Each note is one line; they also go to the log callback at PEV_LOG_INFO.
 */
PEV_API size_t pev_perfdata_nr_notes(const struct pev_perfdata *pd);

/** Note i, or NULL when out of range. Valid until close. */
PEV_API const char *pev_perfdata_note(const struct pev_perfdata *pd, size_t i);

/**
 * One record of the data section (or, in pipe mode, of the stream), with
 * what the reader found out about it. The bytes stay valid until the next
 * call of pev_perfdata_next() or pev_perfdata_close().
 */
struct pev_perfdata_record {
	const struct pev_event_header *header; /**< the record, 8-aligned, size bytes readable */
	size_t size;     /**< header->size: bytes of the record, header included (at least 8) */
	uint32_t type;   /**< header->type: enum pev_record_type or enum pev_perfdata_record_type */
	uint64_t offset; /**< where the record starts in the file or stream */
	/**
	 * The event that wrote the record, as perf attributes it: the only
	 * event of a one-event file; else the event of the record's sample id
	 * (PEV_SAMPLE_IDENTIFIER, PEV_SAMPLE_ID or the sample_id_all trailer);
	 * the first event for a record with id 0 (synthesized ones) or for a
	 * non-sample record when the events lack sample_id_all. NULL for perf's
	 * own record types and for records whose id matches no event.
	 */
	const struct pev_perfdata_event *event;
	bool has_id;     /**< id was found in the record */
	uint64_t id;     /**< the record's sample id */
	bool has_time;   /**< time was found in the record (TIME in a sample or the trailer) */
	uint64_t time;   /**< its timestamp */
	/**
	 * AUXTRACE records: bytes of AUX data that follow the record in the
	 * file (skipped by the reader; payload_offset says where they are).
	 * HEADER_TRACING_DATA records (pipe mode): bytes of tracing data that
	 * follow (kept as the TRACING_DATA feature). 0 for other records.
	 */
	uint64_t payload_size;
	uint64_t payload_offset; /**< where the payload starts in the file or stream */
};

/**
 * Reads the next record into *rec. Returns 1, 0 at the end of the data,
 * or a negative code with err (optional) filled: PEV_EFORMAT for a
 * malformed record or section (the reader then stays at that record: every
 * later call fails the same way), PEV_EUNSUPPORTED for compressed data,
 * PEV_EIO for a read error, PEV_EBADARG. perf's own records are handled
 * before they are returned: HEADER_ATTR adds an event, HEADER_FEATURE and
 * HEADER_BUILD_ID add features, EVENT_UPDATE names an event, ID_INDEX,
 * THREAD_MAP, CPU_MAP and TIME_CONV are kept (see the accessors).
 */
PEV_API int pev_perfdata_next(struct pev_perfdata *pd, struct pev_perfdata_record *rec,
			      struct pev_error *err);

/* ---- writing ------------------------------------------------------------------ */

/** A perf.data file being written. Opaque. */
struct pev_perfdata_writer;

/**
 * pev_perfdata_writer_open flag: write only the features the caller gives
 * (events, build ids, command line, sample time, raw sections), none read
 * from this machine (host name, OS release, CPUs, memory, topology, PMUs).
 */
#define PEV_PERFDATA_WRITER_NO_MACHINE 0x1U

/**
 * pev_perfdata_writer_open flag: write pipe mode (`perf record -o -`), in
 * order and never seeking, so that the output may be a pipe, a socket or a
 * terminal: the 16-byte header at open; before the first record, each
 * event as a HEADER_ATTR record with its ids, the features known then as
 * HEADER_FEATURE records (not SAMPLE_TIME unless set, not BRANCH_STACK),
 * perf's end-of-features marker, an EVENT_UPDATE with each event's name,
 * and the TRACING_DATA feature, if set, as
 * a HEADER_TRACING_DATA record; on finish the build ids as HEADER_BUILD_ID
 * records. Features set after the first record are not written.
 */
#define PEV_PERFDATA_WRITER_PIPE 0x2U

/**
 * Creates (or truncates) the file at path, mode 0600, close-on-exec, and
 * starts a file-mode perf.data in it. flags: PEV_PERFDATA_WRITER_*.
 *
 * The order of calls: add the events (pev_perfdata_writer_add_event) and
 * groups, then write records (pev_perfdata_writer_write, _round), adding
 * build ids, a command line and raw features at any time, and end with
 * pev_perfdata_writer_finish(), then pev_perfdata_writer_close().
 *
 * A program that records until Ctrl-C sets a volatile sig_atomic_t flag in
 * its signal handler and, back in its loop, drains its rings, writes and
 * calls finish: the writer does nothing in signal context and retries
 * writes that a signal interrupts (EINTR, short writes). A process that
 * dies before finish leaves a file readable up to the last
 * pev_perfdata_writer_flush() (see share/doc/perfev/PERFDATA.md).
 *
 * Returns 0 and stores the writer in *out, or a negative code with *out
 * NULL and err (optional) filled (open(2)'s errno, PEV_ENOMEM).
 */
PEV_API int pev_perfdata_writer_open(const char *path, unsigned flags,
				     struct pev_perfdata_writer **out, struct pev_error *err);

/**
 * Same as pev_perfdata_writer_open() on a descriptor open for writing and
 * seekable (a regular file; it is written from offset 0 with pwrite(2) and
 * truncated to what the writer writes), or with PEV_PERFDATA_WRITER_PIPE
 * any descriptor open for writing (written from where it stands with
 * write(2)). The descriptor stays the caller's.
 */
PEV_API int pev_perfdata_writer_open_fd(int fd, unsigned flags, struct pev_perfdata_writer **out,
					struct pev_error *err);

/**
 * Adds an event: its attribute block (as opened; the file stores the
 * smallest ABI size that holds its non-zero bytes, at least as large as
 * any other event's, and attr.size says so), its name for EVENT_DESC (NULL
 * for none) and its sample ids (one per descriptor, from
 * pev_counter_id(); nr_ids 0 for none). Several events need
 * PEV_SAMPLE_IDENTIFIER or PEV_SAMPLE_ID in their sample_type for readers
 * to tell their records apart. Only before the first record is written.
 * Returns the event's index (>= 0) or a negative code: PEV_EBADARG (NULL
 * attr, ids NULL with nr_ids > 0, records already written, after finish),
 * PEV_EFORMAT (attr->size below 64), PEV_ENOMEM.
 */
PEV_API int pev_perfdata_writer_add_event(struct pev_perfdata_writer *w,
					  const struct pev_attr *attr, const char *name,
					  const uint64_t *ids, size_t nr_ids, struct pev_error *err);

/**
 * Describes a group for GROUP_DESC: events leader .. leader + nr_members - 1
 * (the leader first), named name (NULL: "{anon_group}"). Returns 0,
 * PEV_EBADARG (fewer than 2 members, events that were not added, after
 * finish) or PEV_ENOMEM.
 */
PEV_API int pev_perfdata_writer_add_group(struct pev_perfdata_writer *w, const char *name,
					  uint32_t leader, uint32_t nr_members);

/**
 * Adds a BUILD_ID entry: the build id (size bytes, 1..20) of the binary at
 * filename as the machine pid sees it (-1: the host) in cpumode
 * (PEV_RECORD_MISC_USER for programs and libraries, PEV_RECORD_MISC_KERNEL
 * for the kernel "[kernel.kallsyms]" and its modules). The writer pads and
 * sizes the entry. Returns 0, PEV_EBADARG, or PEV_ENOMEM.
 */
PEV_API int pev_perfdata_writer_add_build_id(struct pev_perfdata_writer *w, int32_t pid,
					     uint16_t cpumode, const void *build_id, size_t size,
					     const char *filename);

/**
 * Sets the CMDLINE feature to argc words (copied). Without this call the
 * writer stores this process's command line, its first word replaced by the
 * executable's path as perf does. Returns 0, PEV_EBADARG or PEV_ENOMEM.
 */
PEV_API int pev_perfdata_writer_set_cmdline(struct pev_perfdata_writer *w, int argc,
					    const char *const *argv);

/**
 * Sets SAMPLE_TIME. Without this call the writer takes the smallest and
 * largest time of the SAMPLE records written, when their events have
 * PEV_SAMPLE_TIME (and it can tell the events apart); with no such time
 * the feature is left out. Returns 0 or PEV_EBADARG.
 */
PEV_API int pev_perfdata_writer_set_sample_time(struct pev_perfdata_writer *w, uint64_t first,
						uint64_t last);

/**
 * Stores feature `feature` (1..255) as the given bytes instead of what the
 * writer would write (or in addition: TRACING_DATA, CPU_TOPOLOGY, any
 * feature it does not write itself), e.g. to copy a section read from
 * another file. The bytes are copied. Returns 0, PEV_EBADARG (bit 0 or
 * above 255, data NULL with size > 0, after finish) or PEV_ENOMEM.
 */
PEV_API int pev_perfdata_writer_set_feature(struct pev_perfdata_writer *w, unsigned feature,
					    const void *data, size_t size);

/**
 * Leaves feature `feature` out of the file, whether the writer would write
 * it itself or it was set. Returns 0 or PEV_EBADARG.
 */
PEV_API int pev_perfdata_writer_drop_feature(struct pev_perfdata_writer *w, unsigned feature);

/**
 * Appends records to the data section: len bytes holding whole records
 * back to back, each a struct pev_event_header and its body, as a ring
 * buffer hands them out or as synthesized. Each header's size must be at
 * least 8, a multiple of 8, and within len; nothing else is looked at
 * (SAMPLE times are read for SAMPLE_TIME when the layout allows). The
 * first call writes the events. Writes are buffered; a failed write makes
 * this and every later call fail. Returns 0 or a negative code:
 * PEV_EBADARG (NULL, after finish), PEV_EFORMAT (a bad size: nothing of
 * the buffer is written), the write(2) errno (PEV_ENOSPC, PEV_EIO, ...).
 */
PEV_API int pev_perfdata_writer_write(struct pev_perfdata_writer *w, const void *records,
				      size_t len, struct pev_error *err);

/**
 * Ends a round: writes a FINISHED_ROUND record when records were written
 * since the previous one. A recorder calls it after each pass that drained
 * every ring: perf then sorts records one round at a time instead of
 * holding all of them in memory (see share/doc/perfev/PERFDATA.md). Returns 0 or a
 * negative code as pev_perfdata_writer_write().
 */
PEV_API int pev_perfdata_writer_round(struct pev_perfdata_writer *w, struct pev_error *err);

/**
 * Writes out the buffered records and rewrites the header with the data
 * written so far (no features): if the process dies after this, the file
 * is a valid perf.data ending here. Returns 0 or a negative code.
 */
PEV_API int pev_perfdata_writer_flush(struct pev_perfdata_writer *w, struct pev_error *err);

/** Bytes of records written to the data section so far (buffered ones included). */
PEV_API uint64_t pev_perfdata_writer_data_size(const struct pev_perfdata_writer *w);

/**
 * Completes the file: writes out the buffered records, the features after
 * the data section and the final header. After it, only close is
 * accepted. Returns 0 or a negative code (the file is then as of the last
 * successful flush).
 */
PEV_API int pev_perfdata_writer_finish(struct pev_perfdata_writer *w, struct pev_error *err);

/**
 * Frees the writer and closes the file it opened. A writer that was not
 * finished is flushed first (best effort; the file has no features). NULL
 * is ignored.
 */
PEV_API void pev_perfdata_writer_close(struct pev_perfdata_writer *w);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_PERFDATA_H */
