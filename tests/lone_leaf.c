/* SPDX-License-Identifier: MIT */
/*
 * lone_leaf.c - the workload of test_cmd_report's arm64 check of a leaf
 * that is its call chain's only user frame: it spins in lone_leaf, a leaf
 * that never saves the link register and clears the frame pointer while
 * it runs, so the kernel's frame-pointer walk of a sample there ends at
 * the leaf. Its caller, lone_leaf_caller, is then in LR only.
 *
 *   lone_leaf [MS]   spins MS milliseconds of CPU time (default 300)
 *
 * Elsewhere than on arm64, lone_leaf is plain C (nothing checks it there).
 */
#include <stdlib.h>
#include <time.h>

void lone_leaf(unsigned long n);
void lone_leaf_caller(unsigned long n);

#if defined(__aarch64__)
/* x29 is kept in x9 (a scratch register) and given back before the return. */
__asm__(".text\n"
	".globl lone_leaf\n"
	".type lone_leaf, %function\n"
	"lone_leaf:\n"
	".cfi_startproc\n"
	"	mov x9, x29\n"
	"	mov x29, #0\n"
	"1:	subs x0, x0, #1\n"
	"	b.ne 1b\n"
	"	mov x29, x9\n"
	"	ret\n"
	".cfi_endproc\n"
	".size lone_leaf, .-lone_leaf\n");
#else
static volatile unsigned long sink;

__attribute__((noinline)) void lone_leaf(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}
#endif

__attribute__((noinline)) void lone_leaf_caller(unsigned long n)
{
	lone_leaf(n);
	__asm__ volatile("" ::: "memory"); /* not a tail call: LR returns here */
}

static double cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 300, start = cpu_ms();

	while (cpu_ms() - start < ms)
		lone_leaf_caller(100000);
	return 0;
}
