/* SPDX-License-Identifier: MIT */
/*
 * offcpu_work.c - the workload of test_offcpu: offcpu_sleep sleeps 300 ms
 * in one nanosleep, then offcpu_spin spins for as long, both in wall-clock
 * time, so that a wall-clock profile gives each half of the time. On a
 * busy machine both overshoot (a wake-up that waits for a CPU, a spin
 * preempted just before its end): the function that is behind then runs
 * again for the difference, until the halves agree within 2 ms. An
 * argument changes the milliseconds of the first sleep.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

uint64_t offcpu_sleep(uint64_t ns);
uint64_t offcpu_spin(uint64_t ns);

#define EVEN_NS 2000000u /* the halves agree within this */

static volatile uint64_t sink; /* what the spin computes, kept */

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Sleeps ns nanoseconds; returns the wall-clock time it took, or 0 when the sleep failed. */
__attribute__((noinline)) uint64_t offcpu_sleep(uint64_t ns)
{
	struct timespec t = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
	uint64_t start = now_ns();

	if (nanosleep(&t, NULL) != 0)
		return 0;
	return now_ns() - start;
}

/* Spins for ns nanoseconds of wall-clock time; returns the time it took. */
__attribute__((noinline)) uint64_t offcpu_spin(uint64_t ns)
{
	uint64_t start = now_ns(), t;

	while ((t = now_ns()) - start < ns)
		for (int i = 0; i < 1000; i++)
			sink += (uint64_t)i;
	return t - start;
}

int main(int argc, char **argv)
{
	uint64_t slept = offcpu_sleep((uint64_t)(argc > 1 ? atol(argv[1]) : 300) * 1000000u);
	uint64_t spun;

	if (!slept)
		return 1;
	spun = offcpu_spin(slept);
	for (int i = 0; i < 20 && (slept > spun + EVEN_NS || spun > slept + EVEN_NS); i++) {
		if (spun < slept) {
			spun += offcpu_spin(slept - spun);
		} else {
			uint64_t more = offcpu_sleep(spun - slept);
			if (!more)
				return 1;
			slept += more;
		}
	}
	return 0;
}
