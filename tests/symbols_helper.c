/* SPDX-License-Identifier: MIT */
/*
 * symbols_helper.c - a small program whose functions test_symbols resolves,
 * built twice: as a PIE (symbols_helper_pie) and as a non-PIE executable
 * (symbols_helper_nopie), both with -O2 -g.
 *
 * It prints "NAME VALUE" lines (addresses in hex, lines in decimal), then
 * "ready", and waits until its standard input is closed, so the test can
 * read its /proc/PID/maps while it runs and resolve its addresses after it
 * exited.
 *
 *   alpha      entry of helper_alpha (noinline)
 *   alpha_ra   a return address inside helper_alpha
 *   alpha_line the source line of the call that return address follows
 *   outer      entry of helper_outer (noinline)
 *   inner_ra   a return address inside helper_inner, inlined into helper_outer
 *   inner_line the line of the call inside helper_inner
 *   outer_line the line in helper_outer where helper_inner is called
 */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

static uintptr_t alpha_ra, inner_ra;
static int alpha_line, inner_line, outer_line;

/* Records its caller's return address and the caller's line. */
__attribute__((noinline)) static void mark(uintptr_t *ra, int *line_out, int line)
{
	*ra = (uintptr_t)__builtin_return_address(0);
	*line_out = line;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) int helper_alpha(int x);
__attribute__((noinline)) int helper_outer(int x);

__attribute__((noinline)) int helper_alpha(int x)
{
	mark(&alpha_ra, &alpha_line, __LINE__);
	__asm__ volatile("" : "+r"(x));
	return x * 3 + 1;
}

static inline __attribute__((always_inline)) int helper_inner(int x)
{
	mark(&inner_ra, &inner_line, __LINE__);
	__asm__ volatile("" : "+r"(x));
	return x * 5 + 2;
}

__attribute__((noinline)) int helper_outer(int x)
{
	outer_line = __LINE__; int y = helper_inner(x);
	__asm__ volatile("" : "+r"(y));
	return y + 7;
}

static int (*volatile call_alpha)(int) = helper_alpha;
static int (*volatile call_outer)(int) = helper_outer;

int main(void)
{
	char c;
	int sum = call_alpha(1) + call_outer(2);

	printf("alpha %lx\n", (unsigned long)(uintptr_t)&helper_alpha);
	printf("alpha_ra %lx\n", (unsigned long)alpha_ra);
	printf("alpha_line %d\n", alpha_line);
	printf("outer %lx\n", (unsigned long)(uintptr_t)&helper_outer);
	printf("inner_ra %lx\n", (unsigned long)inner_ra);
	printf("inner_line %d\n", inner_line);
	printf("outer_line %d\n", outer_line);
	printf("sum %d\nready\n", sum);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
