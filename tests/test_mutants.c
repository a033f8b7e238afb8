/* SPDX-License-Identifier: MIT */
/*
 * test_mutants.c - perf.data mutants that once made perfev fail
 * (scripts/mutate_structured.sh, issue 22), in tests/fixtures/mutants/
 * (tests/fixtures/mutants/make.sh writes them from the seeds in
 * tests/fixtures/mutate/ with the structure-aware mutator). Each goes
 * through `perfev report`, `perfev script` and `perfev diff SEED MUTANT`:
 * each must end by itself with one of perfev's own statuses (0, 1, 2), write
 * a bounded output, and print no percentage above 100.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

/* Output past this is a runaway: the shell's head cuts it and the status line with it. */
#define MAX_OUTPUT 4000000

/*
 * Runs perfev with args (a shell fragment) under a 60 s timeout; returns its
 * output and stderr (the caller frees) and sets *status, or fails the test
 * when it did not end by itself or wrote more than MAX_OUTPUT bytes.
 */
static char *run_perfev(const char *args, int *status)
{
	char cmd[2 * PATH_MAX + 256], *out = NULL, *err = NULL;

	snprintf(cmd, sizeof(cmd),
		 "{ timeout -s KILL 60 '%s' %s 2>&1; echo \"status=$?\"; } | head -c %d",
		 th_perfev_bin(), args, MAX_OUTPUT);
	th_sh(cmd, &out, &err);
	free(err);
	cr_assert_not_null(out);
	const char *at = strstr(out, "status=");
	for (const char *next; at && (next = strstr(at + 1, "status="));)
		at = next;
	cr_assert_not_null(at, "perfev %s wrote more than %d bytes (endless output?)", args,
			   MAX_OUTPUT);
	*status = atoi(at + strlen("status="));
	return out;
}

/* The first percentage above 100 in text, or 0. */
static double above_100(const char *text)
{
	for (const char *p = strchr(text, '%'); p; p = strchr(p + 1, '%')) {
		const char *start = p;
		while (start > text && (strchr("0123456789.", start[-1])))
			start--;
		if (start == p)
			continue;
		double v = strtod(start, NULL);
		if (v > 100.0)
			return v;
	}
	return 0;
}

/* report, script and diff of tests/fixtures/mutants/NAME against seed SEED: clean ends. */
static void check_mutant(const char *name, const char *seed, char **report_out)
{
	char args[2 * PATH_MAX + 64];
	char *out;
	int status;

	snprintf(args, sizeof(args), "report --stdio -i '%s/mutants/%s'", th_fixtures(), name);
	out = run_perfev(args, &status);
	cr_expect(status >= 0 && status <= 2, "report of %s exited %d:\n%s", name, status, out);
	cr_expect_eq(above_100(out), 0, "report of %s printed %g%%:\n%.2000s", name,
		     above_100(out), out);
	*report_out = out;

	snprintf(args, sizeof(args), "script -i '%s/mutants/%s' >/dev/null", th_fixtures(), name);
	free(run_perfev(args, &status));
	cr_expect(status >= 0 && status <= 2, "script of %s exited %d", name, status);

	snprintf(args, sizeof(args), "diff '%s/mutate/%s' '%s/mutants/%s'", th_fixtures(), seed,
		 th_fixtures(), name);
	out = run_perfev(args, &status);
	cr_expect(status >= 0 && status <= 2, "diff of %s exited %d:\n%s", name, status, out);
	cr_expect_eq(above_100(out), 0, "diff of %s printed %g%%:\n%.2000s", name, above_100(out),
		     out);
	free(out);
}

TestSuite(mutants, .timeout = 240);

/*
 * A SAMPLE whose period is 2^64 - 1 (no kernel writes a period with bit 63
 * set): skipped with a warning, the rest counted; it once made a total
 * wrap and the table print without end.
 */
Test(mutants, a_period_with_bit_63_is_skipped)
{
	char *out;

	check_mutant("period-bit63.data", "perfev-tp.data", &out);
	cr_expect(strstr(out, "skipping samples whose period has bit 63 set"), "no warning:\n%s",
		  out);
	cr_expect(strstr(out, "# Samples: 5  of event 'sched:sched_switch'"),
		  "the other 5 sched_switch samples are not all counted:\n%.2000s", out);
	free(out);
}

/*
 * Periods below 2^63 whose sum passes 2^64: the total is held at its
 * largest value instead of wrapping, so no row is above 100% (300% before).
 */
Test(mutants, periods_that_add_past_2_64_stay_within_100_percent)
{
	char *out;

	check_mutant("period-sum-wraps.data", "perfev-tp.data", &out);
	free(out);
}
