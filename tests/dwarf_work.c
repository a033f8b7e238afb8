/* SPDX-License-Identifier: MIT */
/*
 * dwarf_work.c - the workload test_cmd_dwarf profiles with --call-graph
 * dwarf: main -> a -> b -> c, hot in c, built -O2 without frame pointers.
 */
#include <stdlib.h>

/* Each function stays one function of its own: no inlining, no clones. */
#if defined(__clang__)
#define KEEP __attribute__((noinline))
#else
#define KEEP __attribute__((noinline, noipa))
#endif

void a(unsigned long n);
void b(unsigned long n);
void c(unsigned long n);

volatile unsigned long sink;

KEEP void c(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}

KEEP void b(unsigned long n)
{
	c(n);
	sink++;
}

KEEP void a(unsigned long n)
{
	b(n);
	sink++;
}

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 300;

	for (unsigned long k = 0; k < rounds; k++)
		a(400000);
	return 0;
}
