/* SPDX-License-Identifier: MIT */
/*
 * offcpu_work.c - the workload of test_offcpu: offcpu_sleep sleeps 300 ms
 * in one nanosleep, then offcpu_spin spins for 300 ms of wall-clock time.
 * A wall-clock profile gives each half of the time. An argument changes
 * the milliseconds of each.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int offcpu_sleep(long ms);
uint64_t offcpu_spin(long ms);

__attribute__((noinline)) int offcpu_sleep(long ms)
{
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};

	return nanosleep(&t, NULL);
}

__attribute__((noinline)) uint64_t offcpu_spin(long ms)
{
	volatile uint64_t x = 0;
	uint64_t end = now_ns() + (uint64_t)ms * 1000000u;

	while (now_ns() < end)
		for (int i = 0; i < 10000; i++)
			x += (uint64_t)i;
	return x;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 300;

	if (offcpu_sleep(ms) != 0)
		return 1;
	return offcpu_spin(ms) == 0;
}
