/* SPDX-License-Identifier: MIT */
/*
 * report.h - what `perfev report` (cmd_report.c) uses of report_header.c:
 * the file's header block as perf prints it.
 */
#ifndef PERFEV_CLI_REPORT_H
#define PERFEV_CLI_REPORT_H

#include <stdio.h>

#include "cli.h"

/*
 * Writes the "# ========" block of `perf report --header`: where the file's
 * parts are, each feature it holds (hostname, os release, perf version,
 * arch, CPUs, memory, command line, events, PMUs, sample times...) and the
 * features it lacks, as perf 6.1 prints them. path is the file's name (its
 * modification time is "captured on").
 */
void report_print_header(FILE *out, struct pev_perfdata *pd, const char *path);

#endif /* PERFEV_CLI_REPORT_H */
