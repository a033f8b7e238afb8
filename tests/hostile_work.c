/* SPDX-License-Identifier: MIT */
/*
 * hostile_work.c - a workload whose names are hostile, for
 * test_hostile_names.c: its comm (PR_SET_NAME) holds ESC, a newline and a
 * byte that is not UTF-8; it runs code in an anonymous executable page
 * that /tmp/perf-PID.map names with control bytes, an escape sequence,
 * C1 controls and broken UTF-8; the test runs it from a path with a
 * newline and an escape sequence in it, so its DSO name is hostile too.
 *
 *   hostile_work MS    spins about MS ms of CPU in its own code and as
 *                      long in the mapped page (x86-64 only; elsewhere
 *                      its own code only). Prints "pid N" first; the
 *                      map file stays for the report: the test removes it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

/* The comm: ESC [ 2 J clears a terminal, the newline splits a row. */
#define HOSTILE_COMM "ev\x1b[2J\nil\xff"

/* The JIT symbol: every kind of bad byte a line of the map can hold. */
#define HOSTILE_JIT_SYMBOL "jit\x1b[2J\r\x07\xc2\x9b" "31m\xff\xe2\x82_end"

static double cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Spins in this program's own code: the hostile DSO's function. */
__attribute__((noinline)) static unsigned long hostile_dso_spin(double ms)
{
	double start = cpu_ms();
	volatile unsigned long sum = 0;

	while (cpu_ms() - start < ms)
		for (int i = 0; i < 100000; i++)
			sum += (unsigned long)i;
	return sum;
}

#if defined(__x86_64__)
/* mov ecx, 0x1000000; 1: dec ecx; jnz 1b; ret */
static const unsigned char loop_code[] = {0xb9, 0x00, 0x00, 0x00, 0x01, 0xff, 0xc9,
					  0x75, 0xfc, 0xc3};

/* Spins in an anonymous page named by /tmp/perf-PID.map. */
static void jit_spin(double ms)
{
	char map[64];
	unsigned char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				   -1, 0);
	FILE *f;
	double start;

	if (page == MAP_FAILED || (memcpy(page, loop_code, sizeof(loop_code)),
				   mprotect(page, 4096, PROT_READ | PROT_EXEC)) != 0) {
		perror("hostile_work: mmap");
		exit(1);
	}
	snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)getpid());
	if (!(f = fopen(map, "w"))) {
		perror(map);
		exit(1);
	}
	fprintf(f, "%lx %zx %s\n", (unsigned long)page, sizeof(loop_code), HOSTILE_JIT_SYMBOL);
	fclose(f);
	start = cpu_ms();
	while (cpu_ms() - start < ms)
		((void (*)(void))page)();
	munmap(page, 4096);
}
#endif

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 300;

	printf("pid %d\n", (int)getpid());
	fflush(stdout);
	prctl(PR_SET_NAME, HOSTILE_COMM, 0, 0, 0);
	/*
	 * A switch-out under the new name, whatever the load: sched_switch's
	 * payload names it (a spin may run its time out unswitched, and the
	 * switch at exit comes after the task's events are gone).
	 */
	struct timespec nap = {0, 1000000};
	nanosleep(&nap, NULL);
	hostile_dso_spin(ms);
#if defined(__x86_64__)
	jit_spin(ms);
#endif
	return 0;
}
