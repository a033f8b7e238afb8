/* SPDX-License-Identifier: MIT */
/*
 * perfdata_spin.c - the workload test_perfdata profiles: it spends its CPU
 * time in one function, perfdata_spin_hot, so that the top symbol of a
 * profile of it is known.
 *
 *   perfdata_spin [MS]   burns MS milliseconds of CPU time (default 300), and
 *                        the work that takes MS at its fastest
 */
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) unsigned long perfdata_spin_hot(unsigned long n);

__attribute__((noinline)) unsigned long perfdata_spin_hot(unsigned long n)
{
	volatile unsigned long x = 0;

	for (unsigned long i = 0; i < n; i++)
		x += i ^ (x >> 3);
	return x;
}

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 300;
	double start = cpu_ms(), last = start, now, best = 0;
	unsigned long sum = 0, calls = 0;

	/*
	 * MS of CPU time, and the calls that take MS at the fastest one seen: a
	 * CPU its host stops (QEMU on a loaded host) lets CPU time run on with
	 * no instruction run and no sample taken.
	 */
	do {
		sum += perfdata_spin_hot(200000);
		now = cpu_ms();
		calls++;
		if (now > last && (best == 0 || now - last < best))
			best = now - last;
		last = now;
	} while (now - start < ms || (double)calls * best < ms);
	return sum == 1;
}
