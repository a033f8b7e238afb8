/* SPDX-License-Identifier: MIT */
/*
 * workloads.c - deterministic work for the tests to count (see workloads.h).
 */
#include "workloads.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>

/* ---- work ---------------------------------------------------------------- */

/*
 * The CPU time of the fastest round of th_spin_ms's loop this process has
 * timed, in ns (0: none yet). A machine whose host stops a spinning CPU
 * (QEMU on a loaded host, a hypervisor) lets the thread's CPU time run on
 * while no instruction runs and no timer interrupt, and so no cpu-clock
 * sample, comes: time alone spins too little work there.
 */
static long fastest_round_ns;

static long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

void th_spin_ms(long ms)
{
	long best = __atomic_load_n(&fastest_round_ns, __ATOMIC_RELAXED);
	long start = cpu_ns(), last = start, now, rounds = 0;

	/* Until ms of CPU time have passed and the rounds done would take ms at the fastest. */
	do {
		for (volatile int i = 0; i < 10000; i++)
			;
		now = cpu_ns();
		rounds++;
		if (now > last && (best == 0 || now - last < best))
			best = now - last;
		last = now;
	} while (now - start < ms * 1000000L || rounds * best < ms * 1000000L);
	if (best)
		__atomic_store_n(&fastest_round_ns, best, __ATOMIC_RELAXED);
}

void th_sleep_briefly(int n)
{
	for (int i = 0; i < n; i++) {
		struct timespec ts = {0, 100000};
		nanosleep(&ts, NULL);
	}
}

char *th_fresh_pages(size_t pages)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *mem = mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);

	if (mem == MAP_FAILED)
		return NULL;
	madvise(mem, pages * page, MADV_NOHUGEPAGE);
	return mem;
}

/* Not instrumented: under AddressSanitizer each store would also fault in shadow pages. */
__attribute__((no_sanitize_address)) void th_touch(char *mem, size_t pages)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	for (size_t i = 0; i < pages; i++)
		((volatile char *)mem)[i * page] = 1;
}

void th_touch_pages(size_t pages)
{
	char *mem = th_fresh_pages(pages);

	cr_assert_not_null(mem, "mmap of %zu pages: %s", pages, strerror(errno));
	th_touch(mem, pages);
	munmap(mem, pages * (size_t)sysconf(_SC_PAGESIZE));
}

/* ---- a child process with 4 threads -------------------------------------- */

static int child_go_fd;

static void *child_thread(void *arg)
{
	char b;

	(void)arg;
	if (read(child_go_fd, &b, 1) != 1)
		_exit(5);
	th_spin_ms(20);
	return NULL;
}

void th_threaded_child_start(struct th_threaded_child *tc)
{
	int go[2], ready[2];
	char b;

	cr_assert_eq(pipe2(go, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(ready, O_CLOEXEC), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		pthread_t th[3];
		close(go[1]);
		close(ready[0]);
		child_go_fd = go[0];
		for (int i = 0; i < 3; i++)
			if (pthread_create(&th[i], NULL, child_thread, NULL) != 0)
				_exit(3);
		if (write(ready[1], "r", 1) != 1)
			_exit(4);
		child_thread(NULL);
		for (int i = 0; i < 3; i++)
			pthread_join(th[i], NULL);
		_exit(0);
	}
	close(go[0]);
	close(ready[1]);
	cr_assert_eq(read(ready[0], &b, 1), 1, "the child did not start its threads");
	close(ready[0]);
	tc->pid = pid;
	tc->go = go[1];
}

int th_threaded_child_finish(struct th_threaded_child *tc)
{
	int status = -1;

	if (write(tc->go, "gggg", 4) != 4)
		kill(tc->pid, SIGKILL);
	close(tc->go);
	while (waitpid(tc->pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

/* ---- the machine ---------------------------------------------------------- */

int th_online_cpus(int *cpus, int max, char *text, size_t size)
{
	char own[256];
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	int n = 0;

	if (!text) {
		text = own;
		size = sizeof(own);
	}
	cr_assert(f, "cannot read /sys/devices/system/cpu/online");
	cr_assert(fgets(text, (int)size, f));
	fclose(f);
	text[strcspn(text, "\n")] = '\0';
	for (char *p = text; *p;) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		for (long c = lo; c <= hi; c++) {
			if (n < max)
				cpus[n] = (int)c;
			n++;
		}
		p = *end == ',' ? end + 1 : end;
	}
	return n;
}

bool th_cgroup2_mount(char *path, size_t size)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char dev[256], dir[256], type[64];
	bool found = false;

	if (!f)
		return false;
	while (!found && fscanf(f, "%255s %255s %63s %*[^\n]", dev, dir, type) == 3)
		if (strcmp(type, "cgroup2") == 0) {
			snprintf(path, size, "%s", dir);
			found = true;
		}
	fclose(f);
	return found;
}
