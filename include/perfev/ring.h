/* SPDX-License-Identifier: MIT */
/*
 * perfev/ring.h - the mmap'd ring buffer of a sampling event.
 *
 * A ring is 1 + 2^n pages mapped from one descriptor of a counter: the
 * control page (struct pev_mmap_page) followed by the data area the kernel
 * writes records into.
 */
#ifndef PERFEV_RING_H
#define PERFEV_RING_H

#include <stddef.h>

#include "perfev/abi.h"
#include "perfev/common.h"
#include "perfev/counter.h"
#include "perfev/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A mapped ring buffer. Opaque. */
struct pev_ring;

/**
 * Maps 1 + data_pages pages of descriptor `fd_index` of counter c
 * (data_pages a power of two). The mapping is writable, so the kernel does
 * not overwrite records the reader has not consumed. When mmap fails, err
 * explains the locked-memory budget (perf_event_mlock_kb, RLIMIT_MEMLOCK).
 * Stores the ring in *out and returns 0, or returns a negative code.
 */
PEV_API int pev_ring_open(const struct pev_counter *c, int fd_index, size_t data_pages,
			  struct pev_ring **out, struct pev_error *err);

/** Unmaps the ring and frees it. NULL is ignored. The counter stays open. */
PEV_API void pev_ring_close(struct pev_ring *r);

/** Returns the ring's control page (owned by the ring). */
PEV_API const struct pev_mmap_page *pev_ring_page(const struct pev_ring *r);

/** Returns the bytes of the data area. */
PEV_API size_t pev_ring_data_size(const struct pev_ring *r);

#ifdef __cplusplus
}
#endif

#endif /* PERFEV_RING_H */
