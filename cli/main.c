/* SPDX-License-Identifier: MIT */
/*
 * main.c - `perfev <command> [args]`: finds the command in the table and runs it.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct cli_command commands[] = {
	{"check", cmd_check, "what perf_event_open can do on this machine, and fixes"},
	{"list", cmd_list, "every event this machine offers, and why one cannot open"},
	{"stat", cmd_stat, "run a command and count events"},
	{"report", cmd_report, "read perf.data and write its profile (table, flame graph, pprof)"},
	{"script", cmd_script, "read perf.data and print its samples one per line"},
	{"record", cmd_record, "sample a command, processes or CPUs into perf.data"},
	{"diff", cmd_diff, "compare two perf.data files: what grew, what shrank"},
	{"top", cmd_top, "a live table of the hottest functions, refreshed every second"},
	{"buildid-cache", cmd_buildid_cache, "add files to perf's build-id cache, list or prune it"},
	{"archive", cmd_archive, "pack the cached files a perf.data names, to read it elsewhere"},
};

static void print_help(FILE *out)
{
	fprintf(out, "usage: perfev [--version] [--help] <command> [<args>]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "   %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'perfev <command> --help' describes a command; 'man perfev-<command>' "
		     "has the details.\n");
}

/*
 * A command's exit status, made 1 when what it printed did not all get
 * written (standard output or error to a full disk or a closed pipe): a
 * command whose report was lost has not succeeded. A non-zero status of its
 * own (a failure, the exit status of a measured command) is kept.
 */
static int finish(int status)
{
	int lost = cli_finish_output(stdout, "standard output");

	lost |= cli_finish_output(stderr, "standard error");
	return status == 0 && lost ? 1 : status;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		print_help(stderr);
		return 129;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		print_help(stdout);
		return finish(0);
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("perfev %s\n", pev_version());
		return finish(0);
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return finish(commands[i].fn(argc - 1, argv + 1));
	cli_error("'%s' is not a perfev command; see 'perfev --help'", argv[1]);
	return 129;
}
