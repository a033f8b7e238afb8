/* SPDX-License-Identifier: MIT */
/*
 * symbols_feed.c - a live session's records routed to the symbolizer: the
 * sideband records that change an address space (MMAP, MMAP2, COMM with
 * the exec flag, FORK, EXIT) become the pev_symbols_* calls that keep each
 * process's map as the kernel did.
 */
#include "perfev/record.h"
#include "perfev/symbols.h"
#include "core/error_internal.h"

PEV_API int pev_symbols_feed(struct pev_symbols *s, const struct pev_record *rec)
{
	static const char fn[] = "pev_symbols_feed";
	int r = 0;

	if (!s || !rec)
		return pev__bad_arg(NULL, fn, s ? "rec" : "s", "NULL");
	switch (rec->type) {
	case PEV_RECORD_COMM:
		if (pev_record_comm_exec(rec))
			r = pev_symbols_exec(s, (int32_t)rec->comm.pid);
		return r ? r : pev_symbols_thread(s, (int32_t)rec->comm.pid, (int32_t)rec->comm.tid);
	case PEV_RECORD_FORK:
		/* A new process starts with its parent's map; a new thread shares it. */
		if (rec->task.pid != rec->task.ppid)
			r = pev_symbols_fork(s, (int32_t)rec->task.ppid, (int32_t)rec->task.pid);
		return r ? r : pev_symbols_thread(s, (int32_t)rec->task.pid, (int32_t)rec->task.tid);
	case PEV_RECORD_EXIT:
		r = pev_symbols_exit_thread(s, (int32_t)rec->task.pid, (int32_t)rec->task.tid);
		return r < 0 ? r : 0;
	case PEV_RECORD_MMAP:
		if (pev_record_mmap_data(rec))
			return 0;
		return pev_symbols_add_mapping(s, (int32_t)rec->mmap.pid, rec->mmap.addr,
					       rec->mmap.len, rec->mmap.pgoff, rec->mmap.filename,
					       NULL, 0);
	case PEV_RECORD_MMAP2:
		if (pev_record_mmap_data(rec))
			return 0;
		return pev_symbols_add_mapping(s, (int32_t)rec->mmap2.pid, rec->mmap2.addr,
					       rec->mmap2.len, rec->mmap2.pgoff, rec->mmap2.filename,
					       rec->mmap2.has_build_id ? rec->mmap2.build_id : NULL,
					       rec->mmap2.has_build_id ? rec->mmap2.build_id_size
								       : 0);
	default:
		return 0; /* samples and every other record change no address space */
	}
}
