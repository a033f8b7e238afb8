/* SPDX-License-Identifier: MIT */
/*
 * bench_stat.c - two or three commands side by side: wall time, peak memory
 * and CPU time of each, as medians of RUNS runs, and their ratios.
 *
 *   usage: bench_stat [-o DIR] [-b SECONDS] [-s SEP] RUNS[,RUNS_B[,RUNS_C]]
 *                     -- COMMAND_A [ARGS] -- COMMAND_B [ARGS] [-- COMMAND_C [ARGS]]
 *
 * Made for `perfev stat -e task-clock true` against `perf stat -e task-clock
 * true` (bench/bench_stat.sh runs it that way), and for perfev against two
 * perfs at once (bench/bench_real.sh). Each run forks, execs the command
 * with stdin, stdout and stderr on /dev/null, and waits with wait4(2): the
 * wall time is CLOCK_MONOTONIC from before fork to after wait4, the peak
 * memory is the ru_maxrss wait4 reports (KiB: the largest peak resident set
 * of the child and the descendants it waited for, which for these commands
 * is the tool itself, not the tiny `true` it runs), the CPU time is
 * ru_utime + ru_stime (the child and its waited-for descendants). The
 * commands take turns run by run, and which goes first rotates too, so
 * drift hits them alike. A first, untimed run of each warms the page cache.
 * The ratios are A / B and A / C, of the medians. A command that exits with
 * a status other than 0, or is killed, ends bench_stat with status 1: a
 * benchmark that times an error is worthless.
 *
 * RUNS may differ per command: "5,5,1" runs C once (a much slower tool).
 *
 * -o DIR: the first run of each command writes its standard output to
 * DIR/A.out (B.out, C.out) and its standard error to DIR/A.err, so that the
 * caller can check and compare what each printed; a command that printed
 * nothing there ends bench_stat with status 1. DIR/summary receives one
 * line per command: "A WALL_MS PEAK_KIB CPU_MS RUNS" (medians).
 *
 * -s SEP: the commands are separated by SEP instead of "--" (for commands
 * that take "--" themselves, as `record ... -- sleep 10`).
 *
 * -b SECONDS: a time budget per command. A command whose first run shows
 * that its RUNS runs would take longer than SECONDS is run fewer times (as
 * many as fit, at least one), and its first run, which otherwise only warms
 * up, counts as one of them (its page cache is warm from the others' runs,
 * and the time it takes to write its output to DIR is small next to its own).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"

#define MAX_RUNS 1000
#define MAX_CMDS 3

struct sample {
	double wall_ms;
	long maxrss_kb;
	double cpu_ms;
};

static double tv_ms(struct timeval tv)
{
	return (double)tv.tv_sec * 1e3 + (double)tv.tv_usec / 1e3;
}

/* Opens path for writing on fd (dup2), or /dev/null when path is NULL. */
static void redirect(int fd, const char *path)
{
	int f = path ? open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : open("/dev/null", O_RDWR);
	if (f < 0)
		_exit(126);
	dup2(f, fd);
	if (f != fd)
		close(f);
}

/*
 * Runs argv once, its standard output and error into out and err (NULL:
 * /dev/null); returns its wall time, peak memory and CPU time, exits on
 * failure.
 */
static struct sample run_once(char **argv, const char *out, const char *err)
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
		redirect(0, NULL);
		redirect(1, out);
		redirect(2, err);
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
	s.cpu_ms = tv_ms(ru.ru_utime) + tv_ms(ru.ru_stime);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "bench_stat: '%s' failed (status 0x%x)%s%s\n", argv[0], status,
		        err ? ": see " : "", err ? err : "");
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

static void usage(void)
{
	fprintf(stderr,
	        "usage: bench_stat [-o DIR] [-b SECONDS] [-s SEP] RUNS[,RUNS_B[,RUNS_C]]"
	        " -- COMMAND_A [ARGS] -- COMMAND_B [ARGS] [-- COMMAND_C [ARGS]]\n"
	        "       (RUNS from 1 to %d)\n",
	        MAX_RUNS);
	exit(2);
}

/* Parses "N" or "N,N" or "N,N,N" into runs[0..2] (a missing one repeats the last). */
static void parse_runs(const char *text, long runs[MAX_CMDS])
{
	const char *p = text;
	int n = 0;

	for (;;) {
		char *end;
		errno = 0;
		long v = strtol(p, &end, 10);
		if (n == MAX_CMDS || errno || end == p || v < 1 || v > MAX_RUNS ||
		    (*end && *end != ','))
			usage();
		runs[n++] = v;
		if (!*end)
			break;
		p = end + 1;
	}
	for (; n < MAX_CMDS; n++)
		runs[n] = runs[n - 1];
}

int main(int argc, char **argv)
{
	static double wall[MAX_CMDS][MAX_RUNS], rss[MAX_CMDS][MAX_RUNS], cpu[MAX_CMDS][MAX_RUNS];
	static const char *const label[MAX_CMDS] = {"A", "B", "C"};
	const char *dir = NULL, *sep = "--";
	double budget_ms = 0;
	long runs[MAX_CMDS];
	int done[MAX_CMDS] = {0};
	char **cmd[MAX_CMDS];
	int ncmd = 0, i = 1;

	for (; i < argc && argv[i][0] == '-' && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
			dir = argv[++i];
		} else if (strcmp(argv[i], "-s") == 0 && i + 1 < argc) {
			sep = argv[++i];
		} else if (strcmp(argv[i], "-b") == 0 && i + 1 < argc) {
			char *end;
			budget_ms = strtod(argv[++i], &end) * 1e3;
			if (*end || !(budget_ms > 0))
				usage();
		} else {
			usage();
		}
	}
	if (i >= argc)
		usage();
	parse_runs(argv[i++], runs);
	/* Every command starts after a SEP and runs to the next one. */
	if (i >= argc || strcmp(argv[i], sep) != 0)
		usage();
	for (; i < argc; i++) {
		if (strcmp(argv[i], sep) != 0)
			continue;
		if (ncmd == MAX_CMDS || i + 1 >= argc || strcmp(argv[i + 1], sep) == 0)
			usage();
		argv[i] = NULL; /* ends the command before it */
		cmd[ncmd++] = argv + i + 1;
	}
	if (ncmd < 2)
		usage();

	char out[MAX_CMDS][4096], err[MAX_CMDS][4096];
	for (int k = 0; k < ncmd; k++) {
		if (dir) {
			snprintf(out[k], sizeof(out[k]), "%s/%s.out", dir, label[k]);
			snprintf(err[k], sizeof(err[k]), "%s/%s.err", dir, label[k]);
		}
		struct sample s = run_once(cmd[k], dir ? out[k] : NULL, dir ? err[k] : NULL);
		struct stat st;
		if (dir && (stat(out[k], &st) != 0 || st.st_size == 0)) {
			fprintf(stderr, "bench_stat: '%s' printed nothing (see %s)\n", cmd[k][0],
			        err[k]);
			return 1;
		}
		if (budget_ms > 0 && s.wall_ms * (double)runs[k] > budget_ms) {
			long fit = (long)(budget_ms / s.wall_ms);
			runs[k] = fit < 1 ? 1 : fit < runs[k] ? fit : runs[k];
			wall[k][0] = s.wall_ms;
			rss[k][0] = (double)s.maxrss_kb;
			cpu[k][0] = s.cpu_ms;
			done[k] = 1;
		}
	}
	for (int round = 0;; round++) {
		int ran = 0;
		for (int j = 0; j < ncmd; j++) {
			int k = (round + j) % ncmd;
			if (done[k] >= runs[k])
				continue;
			struct sample s = run_once(cmd[k], NULL, NULL);
			wall[k][done[k]] = s.wall_ms;
			rss[k][done[k]] = (double)s.maxrss_kb;
			cpu[k][done[k]] = s.cpu_ms;
			done[k]++;
			ran = 1;
		}
		if (!ran)
			break;
	}
	struct bench_stats w[MAX_CMDS], m[MAX_CMDS], c[MAX_CMDS];
	int same = 1;
	for (int k = 0; k < ncmd; k++) {
		w[k] = bench_summarize(wall[k], (int)runs[k]);
		m[k] = bench_summarize(rss[k], (int)runs[k]);
		c[k] = bench_summarize(cpu[k], (int)runs[k]);
		same &= runs[k] == runs[0];
	}
	if (same) {
		printf("bench_stat: %ld runs of each, alternating; medians\n", runs[0]);
	} else {
		printf("bench_stat: runs");
		for (int k = 0; k < ncmd; k++)
			printf("%s %s %ld", k ? "," : "", label[k], runs[k]);
		printf("; alternating; medians\n");
	}
	for (int k = 0; k < ncmd; k++)
		print_command(label[k], cmd[k]);
	printf("%-10s", "");
	for (int k = 0; k < ncmd; k++)
		printf(" %12s", label[k]);
	for (int k = 1; k < ncmd; k++)
		printf(" %10s", k == 1 ? "A / B" : "A / C");
	printf("\n%-10s", "wall");
	for (int k = 0; k < ncmd; k++)
		printf(" %9.3f ms", w[k].median);
	for (int k = 1; k < ncmd; k++)
		printf(" %9.3fx", w[0].median / w[k].median);
	printf("\n%-10s", "peak RSS");
	for (int k = 0; k < ncmd; k++)
		printf(" %*.0f KiB", k ? 8 : 9, m[k].median);
	for (int k = 1; k < ncmd; k++)
		printf(" %9.3fx", m[0].median / m[k].median);
	printf("\n%-10s", "cpu");
	for (int k = 0; k < ncmd; k++)
		printf(" %9.3f ms", c[k].median);
	for (int k = 1; k < ncmd; k++)
		printf(" %9.3fx", c[k].median > 0 ? c[0].median / c[k].median : 0.0);
	printf("\n(wall");
	for (int k = 0; k < ncmd; k++)
		printf("%s %s: %.3f .. %.3f ms", k ? ";" : "", label[k], w[k].min, w[k].max);
	printf(")\n");
	if (dir) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/summary", dir);
		FILE *f = fopen(path, "w");
		if (!f) {
			perror(path);
			return 1;
		}
		for (int k = 0; k < ncmd; k++)
			fprintf(f, "%s %.3f %.0f %.3f %ld\n", label[k], w[k].median, m[k].median,
			        c[k].median, runs[k]);
		fclose(f);
	}
	return 0;
}
