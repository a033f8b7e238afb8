/* SPDX-License-Identifier: MIT */
/*
 * bench_record_work.c - the CPU-bound workload bench_record.sh profiles: a
 * fixed number of rounds of a loop that calls three small functions (so
 * samples carry short call chains), no system calls, no I/O, the same work
 * every run.
 *
 *   usage: bench_record_work [ROUNDS]     (default 1100: about 2 s of CPU here)
 */
#include <stdio.h>
#include <stdlib.h>

#define STEPS 1000000 /* iterations of each function per round */

__attribute__((noinline)) static unsigned long mix(unsigned long x)
{
	for (int i = 0; i < STEPS / 4; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

__attribute__((noinline)) static unsigned long fold(unsigned long x)
{
	for (int i = 0; i < STEPS / 4; i++)
		x ^= (x << 13) ^ (x >> 7) ^ (x << 17);
	return x;
}

__attribute__((noinline)) static unsigned long round_trip(unsigned long x)
{
	return fold(mix(x)) + mix(fold(x));
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? strtol(argv[1], NULL, 10) : 1100;
	volatile unsigned long sink = 1;

	for (long r = 0; r < rounds; r++)
		sink = round_trip(sink + (unsigned long)r);
	return sink == 42; /* never: keeps the work */
}
