/* SPDX-License-Identifier: MIT */
/*
 * signal_leaf.c - the workload of test_cmd_script's arm64 check of a
 * signal handler's return: it raises SIGUSR1 again and again, and the
 * handler, signal_spin, is a leaf without CFI that never saves the link
 * register. A sample there has its caller in LR only, and that caller is
 * the vDSO's signal return trampoline (__kernel_rt_sigreturn), not a call.
 *
 *   signal_leaf [MS]   spins MS milliseconds of CPU time (default 300)
 *
 * Elsewhere than on arm64, signal_spin is plain C (nothing checks it there).
 */
#include <signal.h>
#include <stdlib.h>
#include <time.h>

void signal_spin(int sig);

#if defined(__aarch64__)
__asm__(".text\n"
	".globl signal_spin\n"
	".type signal_spin, %function\n"
	"signal_spin:\n"
	"	mov x1, #20000\n"
	"1:	subs x1, x1, #1\n"
	"	b.ne 1b\n"
	"	ret\n"
	".size signal_spin, .-signal_spin\n");
#else
static volatile unsigned long sink;

void signal_spin(int sig)
{
	for (unsigned long i = 0; i < 20000; i++)
		sink += i + (unsigned long)sig;
}
#endif

static double cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 300, start = cpu_ms();
	struct sigaction sa = {.sa_handler = signal_spin};

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) != 0)
		return 1;
	while (cpu_ms() - start < ms)
		raise(SIGUSR1);
	return 0;
}
