/* SPDX-License-Identifier: MIT */
/*
 * ring.c - mapping and unmapping an event's ring buffer: sizes, the
 * locked-memory budget checked before mmap, the diagnosis when mmap fails,
 * and rings over caller memory for tests and fuzzing.
 */
#include "perfev/ring.h"

#include <linux/capability.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/error_internal.h"
#include "perfev/machine.h"
#include "sample/ring_internal.h"
#include "core/sys.h"
#include "core/util.h"

/* ---- pages this process locked through perfev ---------------------------- */

/*
 * One word: the owner's pid in the high half and the pages in the low half,
 * so that a forked child (whose copy names its parent) starts from zero: the
 * kernel does not copy perf mappings into a child (VM_DONTCOPY).
 */
static uint64_t locked_word;

static uint64_t locked_pack(pid_t pid, uint64_t pages)
{
	return (uint64_t)(uint32_t)pid << 32 | (pages & 0xffffffffU);
}

void pev__ring_locked_add(long delta)
{
	uint32_t me = (uint32_t)getpid();
	uint64_t old = __atomic_load_n(&locked_word, __ATOMIC_RELAXED), new;

	do {
		uint64_t pages = (uint32_t)(old >> 32) == me ? old & 0xffffffffU : 0;
		pages = delta < 0 && (uint64_t)-delta > pages ? 0 : pages + (uint64_t)delta;
		new = locked_pack((pid_t)me, pages);
	} while (!__atomic_compare_exchange_n(&locked_word, &old, new, false, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
}

size_t pev__ring_locked_pages(void)
{
	uint64_t w = __atomic_load_n(&locked_word, __ATOMIC_RELAXED);

	return (uint32_t)(w >> 32) == (uint32_t)getpid() ? (size_t)(w & 0xffffffffU) : 0;
}

/* ---- the budget, before mmap ---------------------------------------------- */

/*
 * The kernel's rule (perf_mmap, measured on Linux 6.18): a data ring of
 * 1 + n pages charges n + 1 pages, an AUX area of n pages charges n. Up to
 * perf_event_mlock_kb x online CPUs they go to the user's locked_vm; the rest
 * to the process's pinned_vm, which may not pass RLIMIT_MEMLOCK unless the
 * process has CAP_IPC_LOCK or perf_event_paranoid is -1. Whatever other
 * processes of the user lock is unknown here (taken as 0), so the check
 * refuses only what the kernel surely refuses: this process's perfev rings
 * plus the new pages above both budgets together.
 */
struct budget {
	uint64_t limit_pages; /* perf_event_mlock_kb x CPUs, in pages */
	uint64_t rlimit_pages;
};

static bool cap_ipc_lock(void)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d) < 0)
		return true; /* unknown: do not refuse */
	return d[CAP_IPC_LOCK / 32].effective >> (CAP_IPC_LOCK % 32) & 1;
}

/* Fills b and returns true when the budget applies to this process and is known. */
static bool budget_read(struct budget *b, size_t page)
{
	long long paranoid, mlock_kb;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct rlimit rl;

	if (pev__read_long("/proc/sys/kernel/perf_event_paranoid", &paranoid) < 0 ||
	    paranoid <= -1)
		return false;
	if (pev__read_long("/proc/sys/kernel/perf_event_mlock_kb", &mlock_kb) < 0 ||
	    mlock_kb < 0 || cpus <= 0)
		return false;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return false;
	if (cap_ipc_lock())
		return false;
	b->limit_pages = (uint64_t)mlock_kb / (page / 1024) * (uint64_t)cpus;
	b->rlimit_pages = (uint64_t)rl.rlim_cur / page;
	return true;
}

/* True when locking `pages` more surely fails. */
static bool budget_exceeded(size_t page, size_t pages, struct budget *b)
{
	return budget_read(b, page) &&
	       (uint64_t)pev__ring_locked_pages() + pages > b->limit_pages + b->rlimit_pages;
}

/* Reads the machine facts a diagnosis needs; NULL without an error to fill (or memory). */
static struct pev_machine *facts_for(struct pev_error *err)
{
	struct pev_machine *m = err ? calloc(1, sizeof(*m)) : NULL;

	if (m)
		pev_machine_read(m, NULL);
	return m;
}

/* ---- diagnosing a refused mmap --------------------------------------------- */

static int data_map_error(const struct pev_counter *c, int fd_index, size_t data_pages, int e,
			  bool before, struct pev_error *err)
{
	const struct pev_attr *a = pev_counter_attr(c);
	const char *name = pev_counter_name(c);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int code = pev_error_from_errno(e);

	if (e == EINVAL && a && (a->flags & PEV_ATTR_INHERIT) && pev_counter_cpu(c, fd_index) < 0) {
		pev__error_start(err, code, e, "mmap", name, before);
		pev__error_field(err, "inherit");
		pev__error_msg(err, "cannot map the ring buffer of '%s': the event follows a task with "
				    "inherit, and the kernel maps no ring for a per-task inherited event "
				    "(every child would write into it) (EINVAL).", name);
		pev__error_hint(err, "open the event per CPU (target.cpu = PEV_CPU_ALL) to keep "
				     "inherit, one ring per CPU");
		pev__error_hint(err, "or open it without inherit");
		return code;
	}
	struct pev_machine *m = facts_for(err);
	if (!m)
		return code;
	code = pev_diagnose_mmap(m, name, data_pages,
				 (uint64_t)pev__ring_locked_pages() * (page / 1024), e, err);
	free(m);
	if (before && err) {
		err->before_syscall = true;
		pev__error_msg(err, " perfev refused before calling mmap: the ring needs %zu pages and "
				    "the rings this process mapped through perfev hold %zu (pass "
				    "PEV_RING_NO_BUDGET_CHECK to let the kernel decide).",
			       data_pages + 1, pev__ring_locked_pages());
	}
	return code;
}

static int aux_map_error(const struct pev_counter *c, const struct pev_ring *r, size_t aux_pages,
			 int e, bool before, struct pev_error *err)
{
	const char *name = pev_counter_name(c);
	const struct pev_attr *a = pev_counter_attr(c);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int code = pev_error_from_errno(e);

	pev__error_start(err, code, e, "mmap", name, before);
	pev__error_field(err, "aux_pages");
	pev__error_msg(err, "cannot map the AUX area of '%s' (%zu pages, %zu KiB): ", name, aux_pages,
		       aux_pages * page / 1024);
	if (e == EOPNOTSUPP) {
		const char *kind = !a                          ? "its PMU"
				   : a->type == PEV_TYPE_SOFTWARE   ? "a software event"
				   : a->type == PEV_TYPE_TRACEPOINT ? "a tracepoint"
				   : a->type == PEV_TYPE_BREAKPOINT ? "a breakpoint"
				   : a->type == PEV_TYPE_HARDWARE || a->type == PEV_TYPE_HW_CACHE ||
						   a->type == PEV_TYPE_RAW
					   ? "a core PMU counter"
					   : "its PMU";
		pev__error_msg(err, "'%s' is %s, and only PMUs that trace into an AUX area (intel_pt, "
				    "intel_bts, arm_spe, cs_etm, hisi_ptt, ...) can fill one (EOPNOTSUPP).",
			       name, kind);
		pev__error_hint(err, "open the ring without aux_pages; AUX data needs a tracing PMU "
				     "(see /sys/bus/event_source/devices)");
		return code;
	}
	if (e == EPERM || e == ENOMEM) {
		struct budget b;
		if (budget_read(&b, page))
			pev__error_msg(err, "the locked-memory budget is exhausted (%s): "
					    "perf_event_mlock_kb x online CPUs allows %llu pages and "
					    "RLIMIT_MEMLOCK %llu more, and this process's perfev rings "
					    "(this one's data area included) hold %zu.",
				       e == EPERM ? "EPERM" : "ENOMEM",
				       (unsigned long long)b.limit_pages,
				       (unsigned long long)b.rlimit_pages, pev__ring_locked_pages());
		else
			pev__error_msg(err, "the kernel could not lock the pages (%s).",
				       e == EPERM ? "EPERM" : "ENOMEM");
		if (before)
			pev__error_msg(err, " perfev refused before calling mmap (pass "
					    "PEV_RING_NO_BUDGET_CHECK to let the kernel decide).");
		pev__error_hint(err, "map a smaller AUX area");
		pev__error_hint(err, "or raise kernel.perf_event_mlock_kb or RLIMIT_MEMLOCK (ulimit -l), "
				     "or grant CAP_IPC_LOCK");
		return code;
	}
	if (e == EINVAL) {
		pev__error_msg(err, "the kernel refused the AUX area's placement or size (EINVAL): it "
				    "wants a power of two pages at aux_offset %llu, after the data area, "
				    "mapped once.",
			       (unsigned long long)(r ? r->map_size : 0));
		return code;
	}
	pev__error_msg(err, "%s (errno %d).", strerror(e), e);
	return code;
}

/* ---- allocation and synthetic rings ----------------------------------------- */

struct pev_ring *pev__ring_alloc(size_t data_size)
{
	struct pev_ring *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->scratch_size = data_size < PEV__RING_SCRATCH_MAX ? data_size : PEV__RING_SCRATCH_MAX;
	if (!(r->scratch = malloc(r->scratch_size))) {
		free(r);
		return NULL;
	}
	r->fd = -1;
	r->cpu = -1;
	r->tid = -1;
	r->data_size = data_size;
	r->mask = data_size - 1;
	r->stats.sz = sizeof(r->stats);
	return r;
}

void pev__ring_reset_reader(struct pev_ring *r)
{
	r->in_batch = false;
	r->paused = false;
	r->pos = 0;
	r->tail = r->overwrite ? 0 : pev__ring_load(&r->page->data_tail);
	r->prev = r->overwrite ? pev__ring_load(&r->page->data_head) : 0;
}

int pev__ring_new(struct pev_mmap_page *page, void *data, size_t data_size, bool overwrite,
		  struct pev_ring **out)
{
	if (!out)
		return PEV_EBADARG;
	*out = NULL;
	if (!page || !data || ((uintptr_t)data & 7) || data_size < 8 ||
	    data_size > PEV__RING_AREA_MAX || !pev__is_pow2(data_size))
		return PEV_EBADARG;
	struct pev_ring *r = pev__ring_alloc(data_size);
	if (!r)
		return PEV_ENOMEM;
	r->page = page;
	r->data = data;
	r->overwrite = overwrite;
	pev__strlcpy(r->name, "synthetic", sizeof(r->name));
	pev__ring_reset_reader(r);
	*out = r;
	return 0;
}

int pev__ring_set_aux(struct pev_ring *r, void *aux, size_t aux_size, bool snapshot)
{
	if (!r || !aux || r->map_size || r->aux_size || aux_size > PEV__RING_AREA_MAX ||
	    !pev__is_pow2(aux_size))
		return PEV_EBADARG;
	r->aux = aux;
	r->aux_size = aux_size;
	r->aux_mask = aux_size - 1;
	r->aux_snapshot = snapshot;
	r->aux_tail = snapshot ? pev__ring_load(&r->page->aux_head) : pev__ring_load(&r->page->aux_tail);
	return 0;
}

/* ---- opening and closing ----------------------------------------------------- */

static bool pages_ok(size_t pages, size_t page)
{
	return pev__is_pow2(pages) && pages <= PEV__RING_AREA_MAX / page;
}

/* Maps the AUX area of a freshly mapped ring. Returns 0 or a code (err filled). */
static int map_aux(struct pev_ring *r, const struct pev_counter *c, size_t aux_pages, bool snapshot,
		   unsigned flags, size_t page, struct pev_error *err)
{
	size_t size = aux_pages * page;
	struct budget b;
	int e;

	if (!(flags & PEV_RING_NO_BUDGET_CHECK) && budget_exceeded(page, aux_pages, &b))
		return aux_map_error(c, r, aux_pages, EPERM, true, err);
	r->page->aux_offset = r->map_size;
	r->page->aux_size = size;
	void *p = pev__sys_mmap(size, snapshot ? PROT_READ : PROT_READ | PROT_WRITE, MAP_SHARED, r->fd,
				(off_t)r->map_size, &e);
	if (!p) {
		r->page->aux_offset = 0;
		r->page->aux_size = 0;
		return aux_map_error(c, r, aux_pages, e, false, err);
	}
	r->aux = p;
	r->aux_size = size;
	r->aux_mask = size - 1;
	r->aux_mapped = true;
	r->aux_snapshot = snapshot;
	r->aux_tail = snapshot ? pev__ring_load(&r->page->aux_head) : pev__ring_load(&r->page->aux_tail);
	r->locked_pages += aux_pages;
	pev__ring_locked_add((long)aux_pages);
	return 0;
}

static int ring_open(const struct pev_counter *c, int fd_index, const struct pev_ring_opts *user_opts,
		     struct pev_ring **out, const char *func, struct pev_error *err)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct pev_ring_opts o;
	struct budget b;
	int fd, e;

	if (!out)
		return pev__bad_arg(err, func, "out", "must not be NULL");
	*out = NULL;
	if (!c)
		return pev__bad_arg(err, func, "c", "must not be NULL");
	if ((fd = pev_counter_fd(c, fd_index)) < 0)
		return pev__bad_arg(err, func, "fd_index", "%d is not a descriptor of the counter",
				    fd_index);
	if (!user_opts)
		return pev__bad_arg(err, func, "opts", "must not be NULL: data_pages has no default");
	if ((e = pev__opts_copy_sized(&o, sizeof(o), user_opts, func, "PEV_RING_OPTS_INIT", err)))
		return e;
	if (!pages_ok(o.data_pages, page))
		return pev__bad_arg(err, func, "data_pages",
				    "%zu; the data area must be a power of two pages (1, 2, 4, ...) "
				    "below 1 GiB",
				    o.data_pages);
	if (o.aux_pages && !pages_ok(o.aux_pages, page))
		return pev__bad_arg(err, func, "aux_pages",
				    "%zu; the AUX area must be 0 (none) or a power of two pages "
				    "below 1 GiB",
				    o.aux_pages);
	if (!o.aux_pages && o.aux_snapshot)
		return pev__bad_arg(err, func, "aux_snapshot", "is set without aux_pages");
	if (o.flags & ~PEV_RING_NO_BUDGET_CHECK)
		return pev__bad_arg(err, func, "flags", "0x%x has bits perfev does not know",
				    o.flags & ~PEV_RING_NO_BUDGET_CHECK);

	const struct pev_attr *attr = pev_counter_attr(c);
	bool overwrite = attr && (attr->flags & PEV_ATTR_WRITE_BACKWARD);
	if (overwrite && o.aux_pages)
		return pev__bad_arg(err, func, "aux_pages",
				    "'%s' writes backward: its ring is mapped read-only, and the AUX "
				    "area needs a writable control page; map the AUX area on a "
				    "forward ring",
				    pev_counter_name(c));

	if (!(o.flags & PEV_RING_NO_BUDGET_CHECK) && budget_exceeded(page, o.data_pages + 1, &b))
		return data_map_error(c, fd_index, o.data_pages, EPERM, true, err);

	struct pev_ring *r = pev__ring_alloc(o.data_pages * page);
	if (!r)
		return pev__error_start(err, PEV_ENOMEM, ENOMEM, NULL, pev_counter_name(c), true);
	r->fd = fd;
	r->overwrite = overwrite;
	r->map_size = (o.data_pages + 1) * page;
	r->page = pev__sys_mmap(r->map_size, overwrite ? PROT_READ : PROT_READ | PROT_WRITE,
				MAP_SHARED, fd, 0, &e);
	if (!r->page) {
		free(r->scratch);
		free(r);
		return data_map_error(c, fd_index, o.data_pages, e, false, err);
	}
	r->data = (unsigned char *)r->page + page;
	r->locked_pages = o.data_pages + 1;
	pev__ring_locked_add((long)r->locked_pages);
	pev__strlcpy(r->name, pev_counter_name(c) ? pev_counter_name(c) : "?", sizeof(r->name));
	r->cpu = pev_counter_cpu(c, fd_index);
	r->tid = pev_counter_tid(c, fd_index);
	r->attr_flags = attr ? attr->flags : 0;
	r->clockid = attr && (attr->flags & PEV_ATTR_USE_CLOCKID) ? attr->clockid : -1;
	pev__ring_reset_reader(r);

	if (o.aux_pages) {
		int rc = map_aux(r, c, o.aux_pages, o.aux_snapshot, o.flags, page, err);
		if (rc < 0) {
			pev_ring_close(r);
			return rc;
		}
	}
	*out = r;
	return 0;
}

PEV_API int pev_ring_open_opts(const struct pev_counter *c, int fd_index,
			       const struct pev_ring_opts *opts, struct pev_ring **out,
			       struct pev_error *err)
{
	pev__error_clear(err);
	return ring_open(c, fd_index, opts, out, "pev_ring_open_opts", err);
}

PEV_API int pev_ring_open(const struct pev_counter *c, int fd_index, size_t data_pages,
			  struct pev_ring **out, struct pev_error *err)
{
	struct pev_ring_opts o = PEV_RING_OPTS_INIT;

	pev__error_clear(err);
	o.data_pages = data_pages;
	return ring_open(c, fd_index, &o, out, "pev_ring_open", err);
}

PEV_API void pev_ring_close(struct pev_ring *r)
{
	if (!r)
		return;
	if (r->paused)
		pev__sys_ioctl(r->fd, PEV_IOC_PAUSE_OUTPUT, 0);
	if (r->aux_mapped)
		pev__sys_munmap(r->aux, r->aux_size);
	if (r->map_size)
		pev__sys_munmap(r->page, r->map_size);
	if (r->locked_pages)
		pev__ring_locked_add(-(long)r->locked_pages);
	free(r->scratch);
	free(r);
}

/* ---- accessors ----------------------------------------------------------------- */

PEV_API const struct pev_mmap_page *pev_ring_page(const struct pev_ring *r)
{
	return r ? r->page : NULL;
}

PEV_API size_t pev_ring_data_size(const struct pev_ring *r)
{
	return r ? r->data_size : 0;
}

PEV_API int pev_ring_fd(const struct pev_ring *r)
{
	return r && r->fd >= 0 ? r->fd
				: pev__bad_arg(NULL, "pev_ring_fd", "r", r ? "a synthetic ring has no descriptor" : "NULL");
}

PEV_API bool pev_ring_overwrite(const struct pev_ring *r)
{
	return r && r->overwrite;
}
