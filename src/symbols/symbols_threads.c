/* SPDX-License-Identifier: MIT */
/*
 * symbols_threads.c - how long a process's address space lives: the
 * threads known to run in each process. The address space belongs to the
 * process, not to its first thread: a main thread that calls pthread_exit
 * leaves its workers running in it. It goes when the first thread has
 * exited and no other known thread runs.
 *
 * An exec (or a new process under a reused pid) starts a new generation of
 * the pid: threads counted before it are forgotten, without looking for
 * them, because a thread's entry remembers the generation it was counted in.
 */
#include <stdlib.h>

#include "symbols/symbols_internal.h"
#include "core/error_internal.h"

/* The threads of one generation of a process. */
struct sym_live {
	uint32_t threads; /* known to run */
	bool leader_gone; /* the thread whose tid is the pid exited */
	uintptr_t gen;    /* this generation: never 0, unique in the symbolizer */
};

static uint64_t thread_key(int32_t pid, int32_t tid)
{
	return (uint64_t)(uint32_t)pid << 32 | (uint32_t)tid;
}

/* The generation of pid, created when absent; NULL when out of memory. */
static struct sym_live *live_get(struct pev_symbols *s, int32_t pid)
{
	struct sym_live *l = pev__u64map_get(&s->live, (uint32_t)pid);

	if (l)
		return l;
	if (!(l = calloc(1, sizeof(*l))))
		return NULL;
	l->gen = ++s->live_gen;
	if (pev__u64map_put(&s->live, (uint32_t)pid, l) < 0) {
		free(l);
		return NULL;
	}
	return l;
}

void pev__threads_new_generation(struct pev_symbols *s, int32_t pid)
{
	free(pev__u64map_del(&s->live, (uint32_t)pid));
}

static void free_live(void *val, void *ctx)
{
	(void)ctx;
	free(val);
}

void pev__threads_free(struct pev_symbols *s)
{
	pev__u64map_each(&s->live, free_live, NULL);
	pev__u64map_free(&s->live);
	pev__u64map_free(&s->threads);
}

PEV_API int pev_symbols_thread(struct pev_symbols *s, int32_t pid, int32_t tid)
{
	struct sym_live *l;
	uint64_t key;

	if (!s || pid < 0 || tid < 0)
		return pev__bad_arg(NULL, "pev_symbols_thread", s ? "pid" : "s",
				    s ? "pid %d, tid %d: not ids" : "NULL", (int)pid, (int)tid);
	if (!(l = live_get(s, pid)))
		return PEV_ENOMEM;
	key = thread_key(pid, tid);
	if ((uintptr_t)pev__u64map_get(&s->threads, key) == l->gen)
		return 0;
	if (pev__u64map_put(&s->threads, key, (void *)l->gen) < 0)
		return PEV_ENOMEM;
	l->threads++;
	return 0;
}

PEV_API int pev_symbols_exit_thread(struct pev_symbols *s, int32_t pid, int32_t tid)
{
	struct sym_live *l;
	uintptr_t gen;

	if (!s || pid < 0 || tid < 0)
		return pev__bad_arg(NULL, "pev_symbols_exit_thread", s ? "pid" : "s",
				    s ? "pid %d, tid %d: not ids" : "NULL", (int)pid, (int)tid);
	l = pev__u64map_get(&s->live, (uint32_t)pid);
	gen = (uintptr_t)pev__u64map_del(&s->threads, thread_key(pid, tid));
	if (l && gen == l->gen && l->threads)
		l->threads--;
	if (l && tid == pid)
		l->leader_gone = true;
	/* Nothing known of the process: its first thread's exit ends it, as it would a
	 * single-threaded one. */
	if (l ? !l->leader_gone || l->threads : tid != pid)
		return 0;
	pev_symbols_exit(s, pid);
	return 1;
}
