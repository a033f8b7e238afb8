/* SPDX-License-Identifier: MIT */
/*
 * bench_stat.c - two commands side by side: wall time and peak memory of
 * each, as medians of RUNS runs, and their ratios.
 *
 *   usage: bench_stat RUNS -- COMMAND_A [ARGS] -- COMMAND_B [ARGS]
 *
 * Made for `perfev stat -e task-clock true` against `perf stat -e task-clock
 * true` (bench/bench_stat.sh runs it that way). Each run forks, execs the
 * command with stdin, stdout and stderr on /dev/null, and waits with wait4(2):
 * the wall time is CLOCK_MONOTONIC from before fork to after wait4, the peak
 * memory is the ru_maxrss wait4 reports (KiB: the largest peak resident set
 * of the child and the descendants it waited for, which for these commands
 * is the tool itself, not the tiny `true` it runs). The two
 * commands alternate run by run, and which goes first alternates too, so
 * drift hits both alike. A first, untimed run of each warms the page cache.
 * The ratio is A / B, of the medians.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"

#define MAX_RUNS 1000

struct sample {
	double wall_ms;
	long maxrss_kb;
};

/* Runs argv once; returns its wall time and peak memory, exits on failure. */
static struct sample run_once(char **argv)
{
	struct sample s;
	struct rusage ru;
	int status;
	uint64_t t0 = bench_now_ns();
	pid_t pid = fork();

	if (pid < 0) {
		perror("bench_stat: fork");
		exit(1);
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		if (null < 0)
			_exit(126);
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			perror("bench_stat: wait4");
			exit(1);
		}
	}
	s.wall_ms = (double)(bench_now_ns() - t0) / 1e6;
	s.maxrss_kb = ru.ru_maxrss;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "bench_stat: '%s' failed (status 0x%x)\n", argv[0], status);
		exit(1);
	}
	return s;
}

static void print_command(const char *label, char **argv)
{
	printf("%s:", label);
	for (int i = 0; argv[i]; i++)
		printf(" %s", argv[i]);
	printf("\n");
}

int main(int argc, char **argv)
{
	static double wall[2][MAX_RUNS], rss[2][MAX_RUNS];
	char *end;
	long runs = argc > 1 ? strtol(argv[1], &end, 10) : 0;
	int sep1 = 0, sep2 = 0;

	if (argc < 2 || *end || runs < 1 || runs > MAX_RUNS) {
		fprintf(stderr,
		        "usage: bench_stat RUNS(1-%d) -- COMMAND_A [ARGS] -- COMMAND_B [ARGS]\n",
		        MAX_RUNS);
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--") != 0)
			continue;
		if (!sep1)
			sep1 = i;
		else if (!sep2)
			sep2 = i;
	}
	if (sep1 != 2 || !sep2 || sep2 == sep1 + 1 || sep2 == argc - 1) {
		fprintf(stderr, "usage: bench_stat RUNS -- COMMAND_A [ARGS] -- COMMAND_B [ARGS]\n");
		return 2;
	}
	argv[sep2] = NULL;
	char **cmd[2] = {argv + sep1 + 1, argv + sep2 + 1};

	run_once(cmd[0]);
	run_once(cmd[1]);
	for (int i = 0; i < runs; i++) {
		for (int k = 0; k < 2; k++) {
			int which = (i + k) % 2;
			struct sample s = run_once(cmd[which]);
			wall[which][i] = s.wall_ms;
			rss[which][i] = (double)s.maxrss_kb;
		}
	}
	struct bench_stats w[2], m[2];
	for (int k = 0; k < 2; k++) {
		w[k] = bench_summarize(wall[k], (int)runs);
		m[k] = bench_summarize(rss[k], (int)runs);
	}
	printf("bench_stat: %ld runs of each, alternating; medians\n", runs);
	print_command("A", cmd[0]);
	print_command("B", cmd[1]);
	printf("%-10s %12s %12s %10s\n", "", "A", "B", "A / B");
	printf("%-10s %9.3f ms %9.3f ms %9.3fx\n", "wall", w[0].median, w[1].median,
	       w[0].median / w[1].median);
	printf("%-10s %9.0f KiB %8.0f KiB %9.3fx\n", "peak RSS", m[0].median, m[1].median,
	       m[0].median / m[1].median);
	printf("(wall A: %.3f .. %.3f ms; B: %.3f .. %.3f ms)\n", w[0].min, w[0].max, w[1].min,
	       w[1].max);
	return 0;
}
