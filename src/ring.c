/* SPDX-License-Identifier: MIT */
/*
 * ring.c - mapping and unmapping an event's ring buffer.
 */
#include "perfev/ring.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "error_internal.h"
#include "perfev/machine.h"
#include "sys.h"

struct pev_ring {
	struct pev_mmap_page *page;
	size_t map_size;
	size_t data_size;
};

PEV_API int pev_ring_open(const struct pev_counter *c, int fd_index, size_t data_pages,
			  struct pev_ring **out, struct pev_error *err)
{
	static const char func[] = "pev_ring_open";
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int fd, e;

	if (!out)
		return pev__bad_arg(err, func, "out", "must not be NULL");
	*out = NULL;
	if (!c)
		return pev__bad_arg(err, func, "c", "must not be NULL");
	if ((fd = pev_counter_fd(c, fd_index)) < 0)
		return pev__bad_arg(err, func, "fd_index", "%d is not a descriptor of the counter",
				    fd_index);
	if (data_pages == 0 || (data_pages & (data_pages - 1)) || data_pages > (1UL << 30) / page)
		return pev__bad_arg(err, func, "data_pages",
				    "%zu; the data area must be a power of two pages (1, 2, 4, ...) "
				    "below 1 GiB",
				    data_pages);
	struct pev_ring *r = calloc(1, sizeof(*r));
	if (!r)
		return pev__error_start(err, PEV_ENOMEM, ENOMEM, NULL, pev_counter_name(c), true);
	r->map_size = (data_pages + 1) * page;
	r->data_size = data_pages * page;
	r->page = pev__sys_mmap(r->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0, &e);
	if (!r->page) {
		/* Without an error to fill, reading the facts would be wasted work. */
		struct pev_machine *m = err ? calloc(1, sizeof(*m)) : NULL;
		int code = pev_error_from_errno(e);
		if (m) {
			pev_machine_read(m, NULL);
			code = pev_diagnose_mmap(m, pev_counter_name(c), data_pages, 0, e, err);
			free(m);
		}
		free(r);
		return code;
	}
	*out = r;
	return 0;
}

PEV_API void pev_ring_close(struct pev_ring *r)
{
	if (!r)
		return;
	pev__sys_munmap(r->page, r->map_size);
	free(r);
}

PEV_API const struct pev_mmap_page *pev_ring_page(const struct pev_ring *r)
{
	return r ? r->page : NULL;
}

PEV_API size_t pev_ring_data_size(const struct pev_ring *r)
{
	return r ? r->data_size : 0;
}
