/* SPDX-License-Identifier: MIT */
/*
 * sample_session.c - sample a workload with callchains and print the
 * functions it spends its time in (self and total), like a tiny `perf top`.
 *
 *     sample_session                  a built-in workload: hot_loop and warm_loop
 *     sample_session CMD [ARGS...]    run CMD and sample it
 *
 * The workload starts stopped, so that the session is open before it runs;
 * for CMD the events start at its exec (enable_on_exec). Without a command
 * the program checks its own result: hot_loop must lead, warm_loop follow,
 * and both must be seen below their caller, or it exits 1.
 *
 * Build: cc -fno-omit-frame-pointer sample_session.c $(pkg-config --cflags --libs perfev)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* kill, clock_gettime */
#endif
#include <perfev.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- the built-in workload ------------------------------------------------------ */

static double cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

__attribute__((noinline)) static void spin_until(double end)
{
	while (cpu_ms() < end)
		for (int i = 0; i < 100000; i++)
			__asm__ volatile("" ::: "memory"); /* keeps the loop */
}

__attribute__((noinline)) void hot_loop(double ms);
__attribute__((noinline)) void warm_loop(double ms);
__attribute__((noinline)) void workload(void);

__attribute__((noinline)) void hot_loop(double ms)
{
	double end = cpu_ms() + ms;

	while (cpu_ms() < end)
		for (int i = 0; i < 100000; i++)
			__asm__ volatile("" ::: "memory"); /* keeps the loop */
}

__attribute__((noinline)) void warm_loop(double ms)
{
	spin_until(cpu_ms() + ms);
	__asm__ volatile("" ::: "memory"); /* not a tail call: warm_loop stays in the chain */
}

__attribute__((noinline)) void workload(void)
{
	for (int i = 0; i < 10; i++) {
		hot_loop(12);
		warm_loop(5);
	}
}

/* Forks the workload (or CMD), stopped until a byte arrives on *go. Returns its pid. */
static pid_t start(char **argv, int *go)
{
	int p[2];
	char b;

	if (pipe(p) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		close(p[1]);
		if (read(p[0], &b, 1) != 1)
			_exit(2);
		close(p[0]);
		if (argv[0]) {
			execvp(argv[0], argv);
			fprintf(stderr, "sample_session: cannot run %s\n", argv[0]);
			_exit(127);
		}
		workload();
		_exit(0);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

/* ---- counting samples per function --------------------------------------------------- */

#define MAX_FUNCS 512

struct func {
	const char *name; /* owned by the symbolizer */
	unsigned long self, total;
};

struct profile {
	struct pev_symbols *sym;
	struct func funcs[MAX_FUNCS];
	int nr;
	unsigned long samples;
	unsigned long below_workload; /* hot/warm samples with workload() as a caller */
};

/* Whether a resolved name is function `want`: "want", or "want(...)" when
 * this file is built as C++ (the symbolizer demangles, parameters included). */
static bool is_func(const char *name, const char *want)
{
	size_t n = strlen(want);

	return name && strncmp(name, want, n) == 0 && (name[n] == '\0' || name[n] == '(');
}

static struct func *func_of(struct profile *p, const char *name)
{
	for (int i = 0; i < p->nr; i++)
		if (!strcmp(p->funcs[i].name, name))
			return &p->funcs[i];
	if (p->nr == MAX_FUNCS)
		return NULL;
	p->funcs[p->nr].name = name;
	return &p->funcs[p->nr++];
}

static void add_sample(struct profile *p, const struct pev_record *r)
{
	const char *seen[64];
	int nseen = 0;
	bool leaf = true, hot = false, under = false;
	struct pev_callchain_iter it;
	struct pev_callchain_frame f;

	p->samples++;
	pev_callchain_iter_init(&it, r->sample.callchain, r->sample.callchain_nr);
	while (pev_callchain_iter_next(&it, &f)) {
		struct pev_symbol s = PEV_SYMBOL_INIT;
		bool again = false;

		if (f.context != PEV_CONTEXT_USER)
			continue;
		pev_symbols_resolve(p->sym, (int32_t)r->sample_id.pid, f.ip, &s);
		struct func *fn = func_of(p, s.name);
		if (!fn)
			break;
		if (leaf)
			fn->self++;
		leaf = false;
		/* Recursion counts once in total. */
		for (int i = 0; i < nseen; i++)
			again |= seen[i] == fn->name;
		if (!again) {
			fn->total++;
			if (nseen < 64)
				seen[nseen++] = fn->name;
		}
		hot |= is_func(s.name, "hot_loop") || is_func(s.name, "warm_loop");
		under |= hot && is_func(s.name, "workload");
	}
	p->below_workload += under;
}

static int by_self(const void *a, const void *b)
{
	const struct func *x = (const struct func *)a, *y = (const struct func *)b;

	return x->self < y->self ? 1 : x->self > y->self ? -1 : strcmp(x->name, y->name);
}

/* Each record keeps the symbolizer's view of the processes in step (mmaps, execs, forks). */
static void handle(struct profile *p, const struct pev_session_record *r)
{
	pev_symbols_feed(p->sym, &r->rec);
	if (r->rec.type == PEV_RECORD_SAMPLE)
		add_sample(p, &r->rec);
}

int main(int argc, char **argv)
{
	static struct profile prof;
	struct pev_session_event ev = {pev_event_software(PEV_SW_CPU_CLOCK), PEV_OPTS_INIT};
	struct pev_session_opts o = PEV_SESSION_OPTS_INIT;
	struct pev_symbols_opts so = PEV_SYMBOLS_OPTS_INIT;
	struct pev_session_record rec;
	struct pev_session *s;
	struct pev_error err;
	char text[4096];
	int go, status;
	bool builtin = argc < 2;

	pid_t pid = start(argv + 1, &go);
	if (pid < 0) {
		perror("sample_session: fork");
		return 1;
	}

	/* cpu-clock every 0.25 ms of the workload's CPU time, user space, with callchains. */
	ev.opts.sample_period = 250000;
	ev.opts.sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_TID | PEV_SAMPLE_CALLCHAIN;
	ev.opts.exclude_kernel = true;
	ev.opts.exclude_callchain_kernel = true;
	ev.opts.enable_on_exec = !builtin;
	struct pev_target t = pev_target_thread(pid);
	o.events = &ev;
	o.nr_events = 1;
	o.target = &t;
	o.track = true; /* MMAP2, COMM and FORK records keep the symbols right across exec */
	if (pev_session_open(&o, &s, &err) < 0) {
		fprintf(stderr, "%s", pev_error_format(&err, text, sizeof(text)));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return 1;
	}
	so.flags = PEV_SYMBOLS_NO_SRCLINE | PEV_SYMBOLS_NO_KERNEL;
	if (pev_symbols_new(&so, &prof.sym, &err) < 0 ||
	    pev_symbols_read_process(prof.sym, pid, &err) < 0) {
		fprintf(stderr, "%s", pev_error_format(&err, text, sizeof(text)));
		return 1;
	}
	if (builtin)
		pev_session_enable(s);
	if (write(go, "g", 1) != 1)
		return 1;
	close(go);

	/* Read while it runs; its exit hangs the ring up, and the rest is drained. */
	while (!pev_session_finished(s)) {
		if (pev_session_poll(s, 100) < 0)
			break;
		while (pev_session_read(s, &rec) > 0)
			handle(&prof, &rec);
	}
	while (pev_session_read(s, &rec) > 0)
		handle(&prof, &rec);
	waitpid(pid, &status, 0);

	struct pev_session_stats st = PEV_SESSION_STATS_INIT;
	pev_session_stats(s, PEV_SESSION_TOTAL, 0, &st);
	printf("%lu samples, %llu records, %llu lost\n", prof.samples,
	       (unsigned long long)st.records, (unsigned long long)st.lost);
	qsort(prof.funcs, (size_t)prof.nr, sizeof(prof.funcs[0]), by_self);
	printf("%7s %7s  %s\n", "self%", "total%", "function");
	for (int i = 0; i < prof.nr && i < 10; i++) {
		const struct func *fn = &prof.funcs[i];
		printf("%6.1f%% %6.1f%%  %s\n", 100.0 * (double)fn->self / (double)prof.samples,
		       100.0 * (double)fn->total / (double)prof.samples, fn->name);
	}

	int rc = 0;
	if (builtin) {
		/* hot_loop spins 12 ms for warm_loop's 5: it must lead, warm_loop's spin next. */
		bool hot_first = prof.nr > 0 && is_func(prof.funcs[0].name, "hot_loop");
		bool warm_seen = false;
		for (int i = 1; i < prof.nr && i < 3; i++)
			warm_seen |= is_func(prof.funcs[i].name, "spin_until") ||
				     is_func(prof.funcs[i].name, "warm_loop");
		if (!hot_first || !warm_seen || prof.below_workload < prof.samples / 2 ||
		    st.lost) {
			fprintf(stderr, "sample_session: unexpected profile (hot_loop first: %d, "
					"warm_loop next: %d, %lu of %lu samples below workload, "
					"%llu lost)\n",
				hot_first, warm_seen, prof.below_workload, prof.samples,
				(unsigned long long)st.lost);
			rc = 1;
		}
	}
	pev_session_close(s);
	pev_symbols_free(prof.sym);
	return rc ? rc : WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
