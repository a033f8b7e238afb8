/* SPDX-License-Identifier: MIT */
/*
 * parity_work.c - the C workloads test_parity records with perf and with
 * perfev:
 *   parity_work libs MS      calls into libm and libc (through the PLT) for MS ms
 *   parity_work threads MS   three threads, each in its own function, for MS ms
 *   parity_work touch MB     touches MB fresh MiB of memory, a page at a time
 *   parity_work orphan MS    the main thread calls pthread_exit; a worker
 *                            spins in worker_spin for MS ms after it is gone
 * Built with frame pointers, so `-g` call chains reach main.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int compare_ints(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Time in libm: sin and exp called through the PLT. */
__attribute__((noinline)) static void parity_math(void)
{
	double s = 0;

	for (int i = 0; i < 20000; i++)
		s += sin(i * 0.001) + exp(-i * 0.0001);
	sink = s;
}

/* Time in libc: qsort of a small array, strlen of a long string. */
__attribute__((noinline)) static void parity_sort(void)
{
	static int v[2048];
	static char text[4096];

	for (int i = 0; i < 2048; i++)
		v[i] = (i * 7919) % 2048;
	qsort(v, 2048, sizeof(v[0]), compare_ints);
	memset(text, 'x', sizeof(text) - 1);
	sink = v[17] + (double)strlen(text);
}

static void run_libs(double ms)
{
	for (double end = now_ms() + ms; now_ms() < end;) {
		parity_math();
		parity_sort();
	}
}

struct spin {
	double ms;
};

__attribute__((noinline)) static void *parity_thread_one(void *arg)
{
	const struct spin *s = arg;
	double x = 0;

	for (double end = now_ms() + s->ms; now_ms() < end;)
		for (int i = 0; i < 10000; i++)
			x += i * 0.5;
	sink = x;
	return NULL;
}

__attribute__((noinline)) static void *parity_thread_two(void *arg)
{
	const struct spin *s = arg;
	double x = 1;

	for (double end = now_ms() + s->ms; now_ms() < end;)
		for (int i = 1; i < 10000; i++)
			x += 1.0 / i;
	sink = x;
	return NULL;
}

__attribute__((noinline)) static void *parity_thread_three(void *arg)
{
	const struct spin *s = arg;
	uint64_t h = 1469598103934665603ull;

	for (double end = now_ms() + s->ms; now_ms() < end;)
		for (int i = 0; i < 10000; i++)
			h = (h ^ (uint64_t)i) * 1099511628211ull;
	sink = (double)h;
	return NULL;
}

static int run_threads(double ms)
{
	void *(*fns[3])(void *) = { parity_thread_one, parity_thread_two, parity_thread_three };
	struct spin s = { ms };
	pthread_t t[3];

	for (int i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, fns[i], &s) != 0) {
			fprintf(stderr, "parity_work: cannot start a thread\n");
			return 1;
		}
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	return 0;
}

/* Whether the main thread has exited: the process's leader is a zombie. */
static int main_thread_gone(void)
{
	char buf[512], *close;
	FILE *f = fopen("/proc/self/stat", "r");
	size_t n;

	if (!f)
		return 1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	close = strrchr(buf, ')');
	return !close || close[1] != ' ' || close[2] == 'Z';
}

/* Spins until the main thread is gone, then for s->ms ms more. */
__attribute__((noinline)) static void *worker_spin(void *arg)
{
	const struct spin *s = arg;
	double x = 0;

	while (!main_thread_gone())
		for (int i = 0; i < 1000; i++)
			x += i * 0.25;
	for (double end = now_ms() + s->ms; now_ms() < end;)
		for (int i = 0; i < 10000; i++)
			x += i * 0.5;
	sink = x;
	return NULL;
}

/* The main thread leaves first (pthread_exit): the process lives on in its worker. */
static int run_orphan(double ms)
{
	static struct spin s;
	pthread_t t;

	s.ms = ms;
	if (pthread_create(&t, NULL, worker_spin, &s) != 0) {
		fprintf(stderr, "parity_work: cannot start a thread\n");
		return 1;
	}
	pthread_exit(NULL);
}

/* Touches each page of fresh anonymous memory once: one page fault per page. */
__attribute__((noinline)) static int parity_touch(size_t mib)
{
	size_t len = mib << 20;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("parity_work: mmap");
		return 1;
	}
	/* A fault per page: not one per 2 MB where transparent huge pages are always on. */
	madvise(p, len, MADV_NOHUGEPAGE);
	for (size_t at = 0, page = (size_t)sysconf(_SC_PAGESIZE); at < len; at += page)
		p[at] = 1;
	munmap(p, len);
	return 0;
}

int main(int argc, char **argv)
{
	double n = argc > 2 ? atof(argv[2]) : 0;

	if (argc == 3 && strcmp(argv[1], "libs") == 0) {
		run_libs(n);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "threads") == 0)
		return run_threads(n);
	if (argc == 3 && strcmp(argv[1], "touch") == 0)
		return parity_touch((size_t)n);
	if (argc == 3 && strcmp(argv[1], "orphan") == 0)
		return run_orphan(n);
	fprintf(stderr, "usage: parity_work libs|threads|orphan MS | touch MB\n");
	return 2;
}
