/* SPDX-License-Identifier: MIT */
/*
 * uprobe_work.c - the command the CLI's uprobe tests probe: calls
 * uprobe_work_target (a real function, never inlined) exactly N times.
 *
 *   uprobe_work [N]   (default 500)
 */
#include <stdlib.h>

static volatile long sink;

__attribute__((noinline)) void uprobe_work_target(long i);
__attribute__((noinline)) void uprobe_work_target(long i)
{
	sink += i;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 500;

	for (long i = 0; i < n; i++)
		uprobe_work_target(i);
	return 0;
}
