/* SPDX-License-Identifier: MIT */
/*
 * fault_pacer: causes page faults at a steady rate, paced by the clock, so
 * that a rate measured from the outside has a known answer.
 *   fault_pacer RATE SECONDS
 * Every 10 ms it maps RATE / 100 fresh pages, writes one byte to each (one
 * minor fault a page), and unmaps them; ticks are absolute times, so a late
 * tick does not shift the ones after it. Exits 0, or 2 on bad arguments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: fault_pacer RATE SECONDS\n");
		return 2;
	}
	long rate = atol(argv[1]), seconds = atol(argv[2]);
	long per_tick = rate / 100, page = sysconf(_SC_PAGESIZE);
	if (per_tick < 1 || seconds < 1) {
		fprintf(stderr, "fault_pacer: RATE must be at least 100 and SECONDS at least 1\n");
		return 2;
	}
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (long tick = 0; tick < seconds * 100; tick++) {
		size_t len = (size_t)(per_tick * page);
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			perror("fault_pacer: mmap");
			return 1;
		}
		/* No huge pages: one fault per base page. */
		madvise(p, len, MADV_NOHUGEPAGE);
		for (long i = 0; i < per_tick; i++)
			p[i * page] = 1;
		munmap(p, len);
		next.tv_nsec += 10 * 1000 * 1000;
		if (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	return 0;
}
