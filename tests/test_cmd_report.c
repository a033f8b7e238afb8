/* SPDX-License-Identifier: MIT */
/*
 * test_cmd_report.c - `perfev report` on files `perf record` writes (and
 * `perfev record`, when the tree has it), with `perf report` as the
 * oracle: cpu-clock with call chains on a workload whose hot functions are
 * known, two events, a tracepoint on every CPU; the top five self-overhead
 * symbols agree with perf's within one percentage point. Folded stacks,
 * JSON, pprof and the SVG flame graph written with -o decode and hold the
 * workload's functions. Missing, empty, truncated and foreign files,
 * unknown sort keys, keys the samples lack and bad limits fail with a
 * message that says what to do. Tests that need perf skip when it is missing.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <zlib.h>

#include "helpers.h"

#include "report/pprof_shim.h"

#include "report/pprof.pb-c.h"
#include "report/report_dl.h"

/* ---- files, programs, perf --------------------------------------------------- */

static const char *dir; /* removed when the test's process exits */

static void make_dir(void)
{
	th_leak_init();
	dir = th_suite_dir("rep");
}

static void remove_dir(void)
{
	th_leak_fini();
}

/* perf record ARGS -o FILE WORKLOAD MS, quietly. */
static const char *perf_record(const char *name, const char *args, const char *workload)
{
	const char *file = th_path_in(name);
	char cmd[16384];

	snprintf(cmd, sizeof(cmd), "perf record -q %s -o '%s' %s 2>&1", args, file, workload);
	free(th_sh_ok(cmd));
	return file;
}

static bool tracefs_ok(void)
{
	return th_tracefs() != NULL;
}

/* ---- the table: ours and perf's --------------------------------------------------- */

struct row {
	double pct;
	char sym[128];
};

struct section {
	char event[128];
	struct row rows[64];
	int nr;
};

/*
 * Parses `--sort sym` tables: "# Samples: .. of event 'E'" starts a
 * section, "  39.55%  [.] name" is a row. Returns the number of sections.
 */
static int parse_table(const char *text, struct section *secs, int max)
{
	int n = -1;

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *ev = strstr(l, " of event '");
		double pct;
		char kind[8], sym[128];

		if (l[0] == '#' && ev && strncmp(l, "# Samples:", 10) == 0) {
			if (n + 1 >= max)
				break;
			n++;
			secs[n].nr = 0;
			snprintf(secs[n].event, sizeof(secs[n].event), "%.*s",
				 (int)strcspn(ev + 11, "'"), ev + 11);
			continue;
		}
		if (n >= 0 && l[0] != '#' && secs[n].nr < 64 &&
		    sscanf(l, " %lf%% %7s %127s", &pct, kind, sym) == 3 && kind[0] == '[') {
			/* Parameter lists aside (perfev -v keeps them, as perf -v). */
			sym[strcspn(sym, "(")] = '\0';
			secs[n].rows[secs[n].nr].pct = pct;
			snprintf(secs[n].rows[secs[n].nr].sym, 128, "%s", sym);
			secs[n].nr++;
		}
	}
	return n + 1;
}

static double pct_of(const struct section *s, const char *sym)
{
	for (int i = 0; i < s->nr; i++)
		if (strcmp(s->rows[i].sym, sym) == 0)
			return s->rows[i].pct;
	return 0;
}

/*
 * Compares perfev's and perf's self-overhead tables by symbol: same
 * events in the same order, and each of perf's top five symbols within one
 * percentage point in ours.
 */
static void expect_like_perf(const char *file, int want_sections)
{
	struct section *ours = calloc(8, sizeof(*ours)), *theirs = calloc(8, sizeof(*theirs));
	char cmd[16384];
	char *a, *b;
	int na, nb;

	snprintf(cmd, sizeof(cmd), "'%s' report -i '%s' --stdio --no-children --sort sym -g none",
		 th_perfev_bin(), file);
	a = th_sh_ok(cmd);
	snprintf(cmd, sizeof(cmd),
		 "perf report -i '%s' --stdio --no-children --sort sym -g none 2>/dev/null", file);
	b = th_sh_ok(cmd);
	na = parse_table(a, ours, 8);
	nb = parse_table(b, theirs, 8);
	cr_assert_eq(nb, want_sections, "perf's report has %d sections:\n%s", nb, b);
	cr_assert_eq(na, nb, "ours has %d sections, perf's %d:\n%s\n---\n%s", na, nb, a, b);
	for (int s = 0; s < nb; s++) {
		cr_expect_str_eq(ours[s].event, theirs[s].event);
		cr_assert_gt(theirs[s].nr, 0, "perf's section %d is empty:\n%s", s, b);
		for (int i = 0; i < theirs[s].nr && i < 5; i++) {
			double mine = pct_of(&ours[s], theirs[s].rows[i].sym);
			cr_expect(mine > theirs[s].rows[i].pct - 1.0 &&
					  mine < theirs[s].rows[i].pct + 1.0,
				  "event %s, %s: perf %.2f%%, perfev %.2f%%\n%s\n---\n%s",
				  theirs[s].event, theirs[s].rows[i].sym, theirs[s].rows[i].pct, mine,
				  a, b);
		}
	}
	free(a);
	free(b);
	free(ours);
	free(theirs);
}

/* ---- against perf report ------------------------------------------------------------ */

/*
 * One timeout for the whole suite: Criterion 2.4's runner leaks 48 bytes
 * (LeakSanitizer fails the run) when the tests of a file have different
 * timeouts of their own.
 */
TestSuite(cmd_report, .init = make_dir, .fini = remove_dir, .timeout = 240);

Test(cmd_report, cpu_clock_call_chains_like_perf)
{
	char work[PATH_MAX + 8];
	struct section *s = calloc(2, sizeof(*s));

	th_need_perf();
	snprintf(work, sizeof(work), "%s 300", th_test_program("report_work"));
	const char *f = perf_record("g.data", "-g -e cpu-clock", work);
	expect_like_perf(f, 1);

	/* The workload's shares: a > b > c > d, about 4:3:2:1 of its time. */
	char cmd[16384];
	snprintf(cmd, sizeof(cmd), "'%s' report -i '%s' --no-children --sort sym -g none",
		 th_perfev_bin(), f);
	char *out = th_sh_ok(cmd);
	cr_assert_eq(parse_table(out, s, 2), 1);
	/*
	 * a and b are close (4:3) and the machine may be loaded: either may
	 * lead the workload's functions (the kernel's loading of the program
	 * can lead the table: over 9p in the arm64 lab).
	 */
	int first = 0;
	while (first < s[0].nr - 1 && strncmp(s[0].rows[first].sym, "report_work_", 12) != 0)
		first++;
	cr_expect(strcmp(s[0].rows[first].sym, "report_work_a") == 0 ||
			  strcmp(s[0].rows[first].sym, "report_work_b") == 0,
		  "%s", out);
	cr_expect_gt(pct_of(&s[0], "report_work_a"), pct_of(&s[0], "report_work_d"));
	free(out);

	/* The default (as perf): Children column and the callers' graph. */
	snprintf(cmd, sizeof(cmd), "'%s' report -i '%s'", th_perfev_bin(), f);
	out = th_sh_ok(cmd);
	expect_has(out, "Children");
	expect_has(out, "report_work_a");
	expect_has(out, "---");
	free(out);
	free(s);
}

Test(cmd_report, two_events_like_perf)
{
	char work[PATH_MAX + 8];

	th_need_perf();
	snprintf(work, sizeof(work), "%s 300", th_test_program("report_work"));
	expect_like_perf(perf_record("two.data", "-g -e cpu-clock,task-clock", work), 2);
}

Test(cmd_report, tracepoint_on_every_cpu_like_perf)
{
	char work[PATH_MAX + 64];

	th_need_perf();
	if (!tracefs_ok())
		th_skip("tracefs cannot be mounted: no tracepoints");
	snprintf(work, sizeof(work), "sh -c '%s 100 & %s 100 & sleep 0.3; wait'", th_test_program("report_work"),
		 th_test_program("report_work"));
	expect_like_perf(perf_record("sw.data", "-a -g -e sched:sched_switch", work), 1);
}

/* The lines of a report that name kernel symbols ("[k] "), in order. */
static char *kernel_lines(const char *report)
{
	char *out = calloc(1, strlen(report) + 1), *w = out;

	cr_assert_not_null(out);
	for (const char *l = report; *l;) {
		size_t n = strcspn(l, "\n");

		if (memmem(l, n, "[k] ", 4)) {
			memcpy(w, l, n);
			w += n;
			*w++ = '\n';
		}
		l += n + (l[n] == '\n');
	}
	return out;
}

/*
 * Kernel functions named as perf names them in a syscall-heavy recording of
 * user and kernel, among them symbols that share an address
 * (__pi___x86_indirect_thunk_rax and __x86_indirect_thunk_rax: perf names
 * the last one listed). test_symbols checks the rule itself on a fixture.
 */
Test(cmd_report, kernel_aliases_like_perf)
{
	char cmd[2 * PATH_MAX + 128], *a, *b, *ka, *kb;

	th_need_perf();
	th_require_root(); /* kallsyms shows addresses to root alone */
	const char *file = perf_record("kern.data", "-e cpu-clock",
				       "dd if=/dev/zero of=/dev/null bs=1 count=100000");
	snprintf(cmd, sizeof(cmd), "'%s' report -i '%s' --stdio --sort sym", th_perfev_bin(), file);
	a = th_sh_ok(cmd);
	snprintf(cmd, sizeof(cmd), "perf report -i '%s' --stdio --sort sym 2>/dev/null", file);
	b = th_sh_ok(cmd);
	ka = kernel_lines(a);
	kb = kernel_lines(b);
	cr_expect(strstr(kb, "[k] ") != NULL, "perf names no kernel function:\n%s", b);
	cr_expect_str_eq(ka, kb);
	free(ka);
	free(kb);
	free(a);
	free(b);
}

/*
 * The kernel's list in the build-id cache of another boot: the same kernel
 * (build id) placed elsewhere (KASLR), every address moved; /proc/kallsyms
 * is of the recording's boot (its _text is where the recording's was) and
 * is read instead, modules and all. And a copy without `_text` (perf's
 * copies in the arm64 lab had none), which cannot be moved to the
 * recording's boot: /proc/kallsyms again. Both name the kernel functions as
 * a report without the cache does. (test_replay moves a list by its _text.)
 */
Test(cmd_report, kernel_list_of_another_boot_in_the_cache)
{
	char cmd[4 * PATH_MAX], *plain, *moved, *lacking, *k0, *k1, *k2, *bid;

	th_require_root(); /* kallsyms shows addresses to root alone */
	const char *file = th_path_in("boot.data"), *cache = th_path_in("bootcache");
	snprintf(cmd, sizeof(cmd), "'%s' record -q -e cpu-clock -o '%s' -- dd if=/dev/zero "
		 "of=/dev/null bs=1 count=100000 2>/dev/null", th_perfev_bin(), file);
	free(th_sh_ok(cmd));
	snprintf(cmd, sizeof(cmd), "PERF_BUILDID_DIR=/nonexistent '%s' report -i '%s' --stdio "
		 "--sort sym", th_perfev_bin(), file);
	plain = th_sh_ok(cmd);
	k0 = kernel_lines(plain);
	cr_assert(strstr(k0, "[k] ") != NULL, "no kernel function named:\n%s", plain);
	snprintf(cmd, sizeof(cmd), "'%s' report -i '%s' --header-only | "
		 "sed -n 's/.*\\[kernel.kallsyms\\] with build id \\([0-9a-f]*\\).*/\\1/p'",
		 th_perfev_bin(), file);
	bid = th_sh_ok(cmd);
	bid[strcspn(bid, "\n")] = '\0';
	if (!bid[0]) {
		snprintf(cmd, sizeof(cmd), "perf buildid-list -i '%s' 2>/dev/null | "
			 "awk '$2 == \"[kernel.kallsyms]\" { print $1 }'", file);
		free(bid);
		bid = th_sh_ok(cmd);
		bid[strcspn(bid, "\n")] = '\0';
	}
	if (!bid[0])
		th_skip("the recording names no kernel build id (no /sys/kernel/notes)");
	/* /proc/kallsyms moved by 16 MiB; then the same without _text. */
	snprintf(cmd, sizeof(cmd),
		 "d='%s/[kernel.kallsyms]/%s' && mkdir -p \"$d\" && python3 -c '"
		 "import sys\n"
		 "for l in open(\"/proc/kallsyms\"):\n"
		 "    a, rest = l.split(\" \", 1)\n"
		 "    sys.stdout.write(\"%%016x %%s\" %% ((int(a, 16) + (1 << 24)) %% (1 << 64), rest))"
		 "' >\"$d/kallsyms\"",
		 cache, bid);
	free(th_sh_ok(cmd));
	snprintf(cmd, sizeof(cmd), "PERF_BUILDID_DIR='%s' '%s' report -i '%s' --stdio --sort sym",
		 cache, th_perfev_bin(), file);
	moved = th_sh_ok(cmd);
	snprintf(cmd, sizeof(cmd), "d='%s/[kernel.kallsyms]/%s' && grep -v ' _text$' "
		 "\"$d/kallsyms\" >\"$d/k\" && mv \"$d/k\" \"$d/kallsyms\"", cache, bid);
	free(th_sh_ok(cmd));
	snprintf(cmd, sizeof(cmd), "PERF_BUILDID_DIR='%s' '%s' report -i '%s' --stdio --sort sym",
		 cache, th_perfev_bin(), file);
	lacking = th_sh_ok(cmd);
	k1 = kernel_lines(moved);
	k2 = kernel_lines(lacking);
	cr_expect_str_eq(k1, k0, "a list of another boot:\n%s", moved);
	cr_expect_str_eq(k2, k0, "a list without _text:\n%s", lacking);
	free(k0);
	free(k1);
	free(k2);
	free(plain);
	free(moved);
	free(lacking);
	free(bid);
}

Test(cmd_report, no_call_chains_and_percent_limit)
{
	char work[PATH_MAX + 8], cmd[16384];
	struct section *s = calloc(2, sizeof(*s));

	th_need_perf();
	snprintf(work, sizeof(work), "%s 200", th_test_program("report_work"));
	const char *f = perf_record("flat.data", "-e cpu-clock", work);
	expect_like_perf(f, 1);
	snprintf(cmd, sizeof(cmd), "'%s' report -i '%s' --sort sym --percent-limit 5",
		 th_perfev_bin(), f);
	char *out = th_sh_ok(cmd);
	cr_assert_eq(parse_table(out, s, 2), 1);
	for (int i = 0; i < s[0].nr; i++)
		cr_expect_geq(s[0].rows[i].pct, 5.0, "%s", out);
	cr_expect_geq(s[0].nr, 2, "%s", out);
	free(out);
	free(s);
}

/* ---- perfev record's files ------------------------------------------------------------ */

Test(cmd_report, reads_perfev_record_files)
{
	char cmd[16384], *out = NULL, *err = NULL;
	const char *f = th_path_in("ours.data");
	struct section *s = calloc(2, sizeof(*s));

	snprintf(cmd, sizeof(cmd), "'%s' record -h >/dev/null 2>&1", th_perfev_bin());
	if (th_sh(cmd, NULL, NULL) != 0) {
		free(s);
		th_skip("this perfev has no record command yet");
	}
	snprintf(cmd, sizeof(cmd), "'%s' record -g -o '%s' -- '%s' 300", th_perfev_bin(), f,
		 th_test_program("report_work"));
	cr_assert_eq(th_sh(cmd, &out, &err), 0, "%s: %s%s", cmd, out, err);
	free(out);
	free(err);
	snprintf(cmd, sizeof(cmd), "'%s' report -i '%s' --no-children --sort sym -g none",
		 th_perfev_bin(), f);
	out = th_sh_ok(cmd);
	cr_assert_eq(parse_table(out, s, 2), 1, "%s", out);
	cr_expect(strcmp(s[0].rows[0].sym, "report_work_a") == 0 ||
			  strcmp(s[0].rows[0].sym, "report_work_b") == 0,
		  "a or b (4:3 of the work) leads: %s", out);
	free(out);
	if ((out = th_which("perf"))) {
		free(out);
		expect_like_perf(f, 1);
	}
	free(s);
}

#if defined(__aarch64__)
/* The Children and Self shares of sym in a `--children --sort sym -g none` table (0: none). */
static void children_self(const char *table, const char *sym, double *children, double *self)
{
	*children = *self = 0;
	for (const char *l = table; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		double c, sf;
		char kind[8], name[128];
		if (l[0] != '#' && sscanf(l, " %lf%% %lf%% %7s %127s", &c, &sf, kind, name) == 4 &&
		    strcmp(name, sym) == 0) {
			*children = c;
			*self = sf;
			return;
		}
	}
}
#endif

/*
 * arm64: a sample in a leaf that is its chain's only user frame
 * (lone_leaf clears the frame pointer while it spins: the kernel's walk
 * ends at it) has its caller in LR. perf 6.1 adds that caller where it
 * resolves chains from the callers (--children, -G), not in script or
 * under --no-children; perfev does the same. Where perf is installed, its
 * Children share of the caller is compared with perfev's.
 */
Test(cmd_report, arm64_lone_leaf_has_its_caller_in_children)
{
#if !defined(__aarch64__)
	th_skip("arm64 only: the link register holds a leaf's caller there");
#else
	char cmd[16384], *out;
	const char *f = th_path_in("lone.data");
	double caller, caller_self, leaf_children, leaf;
	int lone = 0, samples = 0;

	snprintf(cmd, sizeof(cmd), "'%s' record -q -g -e cpu-clock -o '%s' -- '%s' 300 2>&1",
		 th_perfev_bin(), f, th_test_program("lone_leaf"));
	free(th_sh_ok(cmd));
	snprintf(cmd, sizeof(cmd), "'%s' report -i '%s' --children --sort sym -g none -q",
		 th_perfev_bin(), f);
	out = th_sh_ok(cmd);
	children_self(out, "lone_leaf", &leaf_children, &leaf);
	children_self(out, "lone_leaf_caller", &caller, &caller_self);
	cr_assert_gt(leaf, 50, "lone_leaf is not the hot function:\n%s", out);
	cr_expect_geq(caller, leaf - 1, "lone_leaf_caller %.2f%%, its callee lone_leaf %.2f%%:\n%s",
		      caller, leaf, out);
	free(out);
	if ((out = th_which("perf"))) {
		double perf_caller, perf_self;
		free(out);
		snprintf(cmd, sizeof(cmd),
			 "perf report -i '%s' --children --sort sym -g none -q 2>/dev/null", f);
		out = th_sh_ok(cmd);
		children_self(out, "lone_leaf_caller", &perf_caller, &perf_self);
		cr_expect(perf_caller > caller - 1 && perf_caller < caller + 1,
			  "lone_leaf_caller: perf %.2f%%, perfev %.2f%%:\n%s", perf_caller, caller, out);
		free(out);
	}
	/* Script, as perf's: the leaf alone (its caller comes with the chain's second frame). */
	snprintf(cmd, sizeof(cmd), "'%s' script -i '%s' -F ip,sym", th_perfev_bin(), f);
	out = th_sh_ok(cmd);
	for (char *b = out; *b;) {
		size_t len = strcspn(b, "\n");
		char first[128] = "", second[128] = "";
		while (b[len] == '\n' && b[len + 1] && b[len + 1] != '\n')
			len += 1 + strcspn(b + len + 1, "\n");
		sscanf(b, " %*s %127s %*s %127s", first, second);
		samples += strcmp(first, "lone_leaf") == 0;
		lone += strcmp(first, "lone_leaf") == 0 && strcmp(second, "lone_leaf_caller") != 0;
		b += len;
		while (*b == '\n')
			b++;
	}
	cr_expect_gt(samples, 20, "only %d samples in lone_leaf:\n%.3000s", samples, out);
	cr_expect_geq(lone, samples * 9 / 10, "%d of %d samples in lone_leaf show it alone:\n%.3000s",
		      lone, samples, out);
	free(out);
#endif
}

/*
 * Records a copy of report_work at DIR/prog, then puts a FIFO there, and a
 * link to /dev/zero: report must finish (a blocking open of the FIFO hung
 * it forever) and leave the program's addresses unnamed.
 */
Test(cmd_report, dso_now_a_fifo_or_device)
{
	char cmd[16384], *out = NULL, *err = NULL;
	const char *f = th_path_in("special.data"), *prog = th_path_in("prog");
	const char *kinds[2] = {"mkfifo '%s'", "ln -s /dev/zero '%s'"};

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", th_test_program("report_work"), prog);
	free(th_sh_ok(cmd));
	/* -N: no cached copy to name it by. */
	snprintf(cmd, sizeof(cmd), "'%s' record -N -e cpu-clock -o '%s' -- '%s' 100 2>&1",
		 th_perfev_bin(), f, prog);
	cr_assert_eq(th_sh(cmd, &out, &err), 0, "%s: %s%s", cmd, out, err);
	free(out);
	free(err);
	for (int k = 0; k < 2; k++) {
		char make[PATH_MAX + 32];

		cr_assert_eq(unlink(prog), 0);
		snprintf(make, sizeof(make), kinds[k], prog);
		free(th_sh_ok(make));
		/* No build-id cache either (the tests' own holds report_work). */
		snprintf(cmd, sizeof(cmd),
			 "env -u PERF_BUILDID_DIR HOME='%s' timeout 20 '%s' report -v -i '%s' "
			 "--sort dso,sym --no-children",
			 dir, th_perfev_bin(), f);
		int rc = th_sh(cmd, &out, &err);
		cr_expect_eq(rc, 0, "%s: %d (124: it hung) %s", cmd, rc, err);
		cr_expect(strstr(out, prog), "the program still shows as its DSO: %s", out);
		cr_expect(!strstr(out, "report_work_a"), "no symbol comes from %s: %s", make, out);
		free(out);
		free(err);
	}
}

Test(cmd_report, output_never_through_a_link)
{
	char cmd[16384], other[PATH_MAX], *out = NULL, *err = NULL;
	const char *f = th_path_in("linked.data");
	const char *link = th_link_to_keep(dir, "out.txt", other, sizeof(other));

	snprintf(cmd, sizeof(cmd), "'%s' record -e cpu-clock -o '%s' -- '%s' 30 2>&1",
		 th_perfev_bin(), f, th_test_program("report_work"));
	cr_assert_eq(th_sh(cmd, &out, &err), 0, "%s: %s%s", cmd, out, err);
	free(out);
	free(err);
	const char *formats[2] = {"table", "folded"};
	for (int i = 0; i < 2; i++) {
		struct th_output r =
			th_perfev("report", "-i", f, "--format", formats[i], "-o", link);
		cr_expect_neq(r.status, 0, "%s", formats[i]);
		cr_expect(strstr(r.err, "is a symbolic link"), "%s", r.err);
		th_output_free(&r);
		th_expect_kept(other);
	}
}

/* The N of "# Total Lost Samples: N" in a report's output, or -1 without the line. */
static long total_lost(const char *report)
{
	const char *at = strstr(report, "# Total Lost Samples: ");
	long n = -1;

	if (at && sscanf(at, "# Total Lost Samples: %ld", &n) != 1)
		n = -1;
	return n;
}

/* Sums the counts of the file's LOST and LOST_SAMPLES records. */
static void lost_sums(const char *file, uint64_t *lost, uint64_t *lost_samples)
{
	struct pev_perfdata *pd = NULL;
	struct pev_perfdata_record r;
	struct pev_error err;
	int rc;

	*lost = *lost_samples = 0;
	cr_assert_eq(pev_perfdata_open(file, 0, &pd, &err), 0, "%s", err.message);
	while ((rc = pev_perfdata_next(pd, &r, &err)) == 1) {
		struct pev_record_format fmt;
		struct pev_record rec;
		if ((r.type != PEV_RECORD_LOST && r.type != PEV_RECORD_LOST_SAMPLES) || !r.event ||
		    pev_record_format_from_attr(&r.event->attr, &fmt) ||
		    pev_record_decode(&fmt, r.header, r.size, &rec) < 0)
			continue;
		if (r.type == PEV_RECORD_LOST)
			*lost += rec.lost.lost;
		else
			*lost_samples += rec.lost_samples.lost;
	}
	cr_assert_eq(rc, 0, "%s", err.message);
	pev_perfdata_close(pd);
}

/*
 * perf record -m 1 -F 20000 -g loses samples, and the kernel counts them
 * twice: LOST records in the ring, and the events' lost counts that perf
 * record writes as LOST_SAMPLES records. perf report's total is the
 * LOST_SAMPLES sum alone; perfev report's must be the same, not both sums.
 */
Test(cmd_report, lost_samples_counted_once_like_perf)
{
	/* The machine's limit where it is lower (the kernel refuses more). */
	static const long freqs[] = {20000, 20000, 40000};
	uint64_t lost = 0, lost_samples = 0;
	const char *f = NULL;
	char cmd[8192], args[64], work[PATH_MAX + 16], *out = NULL;
	long freq = 0;

	th_need_perf();
	snprintf(work, sizeof(work), "'%s' 400", th_test_program("report_work"));
	for (size_t i = 0; i < sizeof(freqs) / sizeof(freqs[0]) && !lost_samples; i++) {
		freq = th_sample_freq(freqs[i]);
		snprintf(args, sizeof(args), "-m 1 -F %ld -g", freq);
		f = perf_record("lossy.data", args, work);
		lost_sums(f, &lost, &lost_samples);
	}
	if (!lost_samples)
		th_skip("perf record -m 1 -F %ld -g lost nothing here (LOST %" PRIu64
			"); perf before 6.0 writes no LOST_SAMPLES",
			freq, lost);
	snprintf(cmd, sizeof(cmd), "perf report -i '%s' --stdio --sort sym 2>/dev/null", f);
	out = th_sh_ok(cmd);
	long perf = total_lost(out);
	free(out);
	snprintf(cmd, sizeof(cmd), "'%s' report -i '%s' --sort sym", th_perfev_bin(), f);
	out = th_sh_ok(cmd);
	long ours = total_lost(out);
	free(out);
	cr_expect_eq(perf, (long)lost_samples, "perf's total %ld, LOST_SAMPLES %" PRIu64, perf,
		     lost_samples);
	cr_expect_eq(ours, perf, "perfev report says %ld lost, perf %ld (LOST records %" PRIu64
		     ", LOST_SAMPLES %" PRIu64 ")", ours, perf, lost, lost_samples);
}

/* Writes a perf.data with 3 user samples of cpu-clock at 0x7f0000001005 in process pid. */
static void write_jit_samples(const char *path, int32_t pid)
{
	struct pev_perfdata_writer *w;
	struct pev_error err;
	struct pev_attr a;
	unsigned char rec[32];
	uint16_t type = 9 /* SAMPLE */, misc = 2 /* USER */, size = sizeof(rec);
	uint64_t ip = UINT64_C(0x7f0000001005), period = 1000;
	int32_t pidtid[2] = {pid, pid};

	memset(&a, 0, sizeof(a));
	a.type = PEV_TYPE_SOFTWARE;
	a.size = PEV_ATTR_SIZE_LATEST;
	a.config = PEV_SW_CPU_CLOCK;
	a.sample_period = period;
	a.sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_TID | PEV_SAMPLE_PERIOD;
	cr_assert_eq(pev_perfdata_writer_open(path, PEV_PERFDATA_WRITER_NO_MACHINE, &w, &err), 0,
		     "%s", err.message);
	cr_assert_geq(pev_perfdata_writer_add_event(w, &a, "cpu-clock", NULL, 0, &err), 0, "%s",
		      err.message);
	memset(rec, 0, sizeof(rec));
	memcpy(rec, (uint32_t[]){type}, 4);
	memcpy(rec + 4, &misc, 2);
	memcpy(rec + 6, &size, 2);
	memcpy(rec + 8, &ip, 8);
	memcpy(rec + 16, pidtid, 8);
	memcpy(rec + 24, &period, 8);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(pev_perfdata_writer_write(w, rec, sizeof(rec), &err), 0, "%s",
			     err.message);
	cr_assert_eq(pev_perfdata_writer_finish(w, &err), 0, "%s", err.message);
	pev_perfdata_writer_close(w);
}

/*
 * /tmp/perf-PID.map owned by nobody names nothing in root's report, and the
 * report says it skipped it; root's own map is used.
 */
Test(cmd_report, jit_map_of_another_user_skipped)
{
	const int32_t pid = 4190001; /* above any pid this machine hands out soon */
	const char *f = th_path_in("jit.data");
	char map[64];
	FILE *m;

	th_require_root();
	write_jit_samples(f, pid);
	snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)pid);
	unlink(map);
	cr_assert_not_null(m = fopen(map, "wxe"), "%s: %s", map, strerror(errno));
	fputs("7f0000001000 100 jit_planted_function\n", m);
	fclose(m);
	cr_assert_eq(chmod(map, 0644), 0);

	cr_assert_eq(chown(map, 65534, 65534), 0, "chown: %s", strerror(errno));
	struct th_output r = th_perfev("report", "-i", f, "--sort", "sym");
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(!strstr(r.out, "jit_planted_function"), "nobody's map is used: %s", r.out);
	cr_expect(strstr(r.out, "0x00007f0000001005"), "the address stays unnamed: %s", r.out);
	cr_expect(strstr(r.err, "perfev: warning: JIT map /tmp/perf-") &&
			  strstr(r.err, "owned by another user"),
		  "the skip is said: %s", r.err);
	th_output_free(&r);

	cr_assert_eq(chown(map, 0, 0), 0);
	r = th_perfev("report", "-i", f, "--sort", "sym");
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "jit_planted_function"), "root's map is used: %s", r.out);
	cr_expect(!strstr(r.err, "JIT map"), "%s", r.err);
	th_output_free(&r);
	unlink(map);
}

/* ---- the other formats ---------------------------------------------------------------- */

static void report_to(const char *data, const char *format, const char *out)
{
	struct th_output r = th_perfev("report", "-i", data, "--format", format, "-o", out);

	cr_assert_eq(r.status, 0, "report --format %s: %s%s", format, r.out, r.err);
	th_output_free(&r);
}

static Pev__Pprof__Profile *inflate_pprof(const char *gz, size_t len)
{
	size_t n;
	unsigned char *raw = th_gunzip(gz, len, &n);
	Pev__Pprof__Profile *prof;

	cr_assert_eq(pev__report_dl_protobuf("test", NULL), 0);
	prof = pev__pprof__profile__unpack(NULL, n, raw);
	free(raw);
	cr_assert_not_null(prof, "protobuf-c cannot decode the profile");
	return prof;
}

Test(cmd_report, formats_decode)
{
	char work[PATH_MAX + 8];
	size_t len;
	char *text;

	th_need_perf();
	snprintf(work, sizeof(work), "%s 200", th_test_program("report_work"));
	char *f = strdup(perf_record("fmt.data", "-g -e cpu-clock", work));

	/* Folded: "comm;outer;...;leaf N", the workload's functions under main. */
	report_to(f, "folded", th_path_in("out.folded"));
	text = th_slurp(th_path_in("out.folded"), &len);
	unsigned long total = 0;
	bool found = false;
	for (char *l = text, *nl; *l; l = nl + 1) {
		nl = strchr(l, '\n');
		cr_assert_not_null(nl, "unterminated line");
		*nl = '\0';
		char *sp = strrchr(l, ' ');
		cr_assert_not_null(sp, "no count in: %s", l);
		total += strtoul(sp + 1, NULL, 10);
		*sp = '\0';
		size_t n = strlen(l);
		/* report_work_a the leaf, or holding the leaf inlined (mix, on arm64). */
		found |= strstr(l, ";main;") &&
			 ((n > 14 && strcmp(l + n - 14, ";report_work_a") == 0) ||
			  strstr(l, ";report_work_a;mix"));
		*sp = ' ';
		*nl = '\n';
	}
	cr_expect(found, "no stack from main to report_work_a in:\n%s", text);
	cr_expect_gt(total, 100);
	free(text);

	/* JSON: events with rows. */
	report_to(f, "json", th_path_in("out.json"));
	text = th_slurp(th_path_in("out.json"), &len);
	json_object *root = json_tokener_parse(text);
	cr_assert_not_null(root, "not JSON: %.200s", text);
	cr_expect(strstr(text, "report_work_a") != NULL);
	json_object_put(root);
	free(text);

	/* pprof: gzip'ed profile.proto with samples and the workload's functions. */
	report_to(f, "pprof", th_path_in("out.pb.gz"));
	text = th_slurp(th_path_in("out.pb.gz"), &len);
	Pev__Pprof__Profile *prof = inflate_pprof(text, len);
	/* Samples of one stack are one pprof sample; their count is value 0. */
	int64_t counted = 0;
	for (size_t i = 0; i < prof->n_sample; i++)
		if (prof->sample[i]->n_value)
			counted += prof->sample[i]->value[0];
	cr_expect_gt(counted, 100);
	found = false;
	for (size_t i = 0; i < prof->n_function; i++) {
		int64_t s = prof->function[i]->name;
		if (s >= 0 && (size_t)s < prof->n_string_table)
			found |= strcmp(prof->string_table[s], "report_work_a") == 0;
	}
	cr_expect(found, "no function report_work_a in the pprof profile");
	pev__pprof__profile__free_unpacked(prof, NULL);
	free(text);

	/* Flame graph: an SVG document with a frame for report_work_a. */
	report_to(f, "flamegraph", th_path_in("out.svg"));
	text = th_slurp(th_path_in("out.svg"), &len);
	xmlDocPtr doc = xmlReadMemory(text, (int)len, "out.svg", NULL, XML_PARSE_NONET);
	cr_assert_not_null(doc, "the flame graph is not XML");
	xmlNodePtr svg = xmlDocGetRootElement(doc);
	cr_expect_str_eq((const char *)svg->name, "svg");
	cr_expect(strstr(text, "report_work_a") != NULL);
	xmlFreeDoc(doc);
	free(text);
	free(f);
}

/* ---- bad inputs ----------------------------------------------------------------------- */

static void expect_fails(const char *data, const char *extra, const char *msg)
{
	struct th_output r = extra ? th_perfev("report", "-i", data, extra)
				   : th_perfev("report", "-i", data);

	cr_expect_neq(r.status, 0, "report -i %s succeeded: %s", data, r.out);
	expect_has(r.err, msg);
	cr_expect(strncmp(r.err, "perfev: error: ", 15) == 0, "%s", r.err);
	th_output_free(&r);
}

static void write_bytes(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f);
	if (len)
		cr_assert_eq(fwrite(data, 1, len, f), len);
	fclose(f);
}

Test(cmd_report, bad_files)
{
	expect_fails(th_path_in("missing.data"), NULL, "missing.data");
	write_bytes(th_path_in("empty.data"), "", 0);
	expect_fails(th_path_in("empty.data"), NULL, "empty.data");
	write_bytes(th_path_in("text.data"), "hello, this is not perf.data\n", 29);
	expect_fails(th_path_in("text.data"), NULL, "text.data");
}

Test(cmd_report, truncated_file)
{
	char work[PATH_MAX + 8];
	size_t len;

	th_need_perf();
	snprintf(work, sizeof(work), "%s 50", th_test_program("report_work"));
	const char *f = perf_record("full.data", "-e cpu-clock", work);
	char *bytes = th_slurp(f, &len);
	write_bytes(th_path_in("cut.data"), bytes, len / 2);
	free(bytes);
	expect_fails(th_path_in("cut.data"), NULL, "cut.data");
}

/*
 * A file its recorder never finished: the header still says "no data" and
 * the features are missing. Both commands say so on stderr, naming the
 * file, read the records that are there, and exit with status 2.
 */
static void expect_unfinished(const char *data, bool samples)
{
	const char *const cmds[] = {"report", "script"};

	for (size_t i = 0; i < 2; i++) {
		struct th_output r = th_perfev(cmds[i], "-i", data);
		char want[PATH_MAX + 32];

		snprintf(want, sizeof(want), "perfev: warning: '%s' is unfinished: ", data);
		cr_expect_eq(r.status, 2, "perfev %s -i %s: status %d: %s", cmds[i], data, r.status,
			     r.err);
		cr_expect(strstr(r.err, want) != NULL, "no '%s' in: %s", want, r.err);
		cr_expect(strstr(r.err, "the features") != NULL, "%s", r.err);
		/*
		 * The samples are read. Not their names: the ring of the CPU where the
		 * workload exec'd may not have been drained before the kill, so its
		 * COMM and MMAP records can be missing, depending on the scheduler.
		 */
		if (samples && i == 0)
			cr_expect(strstr(r.err, "has no samples") == NULL &&
					  strstr(r.out, "# Samples: ") != NULL,
				  "no samples read: %s%s", r.out, r.err);
		if (samples && i == 1)
			cr_expect(strstr(r.out, " cpu-clock:") != NULL, "no samples: %s", r.out);
		th_output_free(&r);
	}
}

/*
 * Runs `record -- report_work` and SIGKILLs the recorder once its file holds
 * more than 64 KiB (records reach the file as its buffer fills), then ends
 * the workload, by their process ids.
 */
static void record_then_kill(const char *record, const char *file)
{
	char cmd[6 * PATH_MAX];

	snprintf(cmd, sizeof(cmd),
		 "%s -- '%s' 30000 >/dev/null 2>&1 & rec=$!; n=0; "
		 "while [ $(stat -c %%s '%s' 2>/dev/null || echo 0) -le 65536 ] && [ $n -lt 300 ]; "
		 "do sleep 0.1; n=$((n+1)); done; "
		 "work=$(cat /proc/$rec/task/*/children 2>/dev/null); kill -KILL $rec; "
		 "wait $rec; [ -n \"$work\" ] && kill -KILL $work; true",
		 record, th_test_program("report_work"), file);
	th_sh(cmd, NULL, NULL);
}

Test(cmd_report, unfinished_files)
{
	char cmd[2 * PATH_MAX + 64];
	const char *f = th_path_in("killed.data");
	size_t len;

	th_require_cap(PEV_CAP_SAMPLING);
	/* Killed mid-run: the buffered records reach the file, the header is never rewritten. */
	snprintf(cmd, sizeof(cmd), "'%s' record -g -F 4000 -e cpu-clock -o '%s'",
		 th_perfev_bin(), f);
	record_then_kill(cmd, f);
	char *bytes = th_slurp(f, &len);
	cr_assert(len > 4096, "perfev record wrote only %zu bytes before SIGKILL", len);
	expect_unfinished(f, true);

	/* The same cut inside its last record (the disk filled). */
	write_bytes(th_path_in("killed-cut.data"), bytes, len - 5);
	expect_unfinished(th_path_in("killed-cut.data"), true);

	/* Only the header and the events, as a recorder killed at once leaves it. */
	uint64_t data_offset;
	memcpy(&data_offset, bytes + 40, 8);
	cr_assert(data_offset < len);
	write_bytes(th_path_in("header-only.data"), bytes, data_offset);
	expect_unfinished(th_path_in("header-only.data"), false);
	free(bytes);
}

/*
 * perf killed mid-run: its first header already has the feature bits it
 * meant to write, so records stand where the feature table should be. Read
 * as unfinished, not refused for a feature section past the end.
 */
Test(cmd_report, unfinished_perf_file)
{
	char cmd[2 * PATH_MAX + 64];
	const char *f = th_path_in("perf-killed.data");

	th_need_perf();
	snprintf(cmd, sizeof(cmd), "perf record -g -F 4000 -e cpu-clock -o '%s'", f);
	record_then_kill(cmd, f);
	expect_unfinished(f, true);
}

Test(cmd_report, bad_options)
{
	struct th_output r = th_perfev("report", "--sort", "sym,colour");
	cr_expect_eq(r.status, 129);
	expect_has(r.err, "unknown sort key 'colour'");
	expect_has(r.err, "use comm, pid, process, tid, cpu, dso, sym, srcline, trace or cgroup");
	th_output_free(&r);

	r = th_perfev("report", "--percent-limit", "lots");
	cr_expect_eq(r.status, 129);
	expect_has(r.err, "option '--percent-limit' needs a percentage from 0 to 100, got 'lots'");
	th_output_free(&r);

	r = th_perfev("report", "--percent-limit", "120");
	cr_expect_eq(r.status, 129);
	expect_has(r.err, "got '120'");
	th_output_free(&r);

	r = th_perfev("report", "--format", "html");
	cr_expect_eq(r.status, 129);
	expect_has(r.err, "option '--format' needs table, folded, json, pprof, flamegraph, gecko, "
			  "speedscope or otlp");
	th_output_free(&r);
}

Test(cmd_report, sort_key_the_samples_lack)
{
	char work[PATH_MAX + 8];

	th_need_perf();
	snprintf(work, sizeof(work), "%s 50", th_test_program("report_work"));
	const char *f = perf_record("nocpu.data", "-e cpu-clock", work);
	struct th_output r = th_perfev("report", "-i", f, "--sort", "cpu,sym");
	cr_expect_eq(r.status, 1);
	expect_has(r.err, "sort key 'cpu' needs samples that record it");
	expect_has(r.err, "record with -a or --sample-cpu");
	th_output_free(&r);
}

/* ---- call graphs line for line with perf ----------------------------------------- */

/* The lines of the entry `sym` in a --sort sym table: its line and its call graph. */
static char *entry_block(const char *text, const char *sym)
{
	char want[256];
	const char *at, *end;

	snprintf(want, sizeof(want), "[.] %s\n", sym);
	if (!(at = strstr(text, want)))
		return NULL;
	while (at > text && at[-1] != '\n')
		at--;
	/* to the next entry line, or the end of the section */
	for (end = strchr(at, '\n') + 1; *end && *end != '#'; end = strchr(end, '\n') + 1) {
		const char *c = end;
		while (*c == ' ')
			c++;
		if (*c >= '0' && *c <= '9' && strstr(c, "%  ") && strchr(c, '%') < strchr(c, '\n'))
			break;
	}
	return strndup(at, (size_t)(end - at));
}

static int cmp_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A graph's lines without their bars, sorted: the same branches in any order. */
static char *branches_of(const char *block)
{
	char *copy = strdup(block), *save = NULL, **lines = NULL, *out;
	size_t n = 0, len = 0;

	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		l += strspn(l, " |-");
		lines = realloc(lines, (n + 1) * sizeof(*lines));
		lines[n++] = l;
		len += strlen(l) + 1;
	}
	qsort(lines, n, sizeof(*lines), cmp_lines);
	out = calloc(1, len + 1);
	for (size_t i = 0; i < n; i++)
		strcat(strcat(out, lines[i]), "\n");
	free(lines);
	free(copy);
	return out;
}

/*
 * perf report and perfev report with args on file: the call graphs of the
 * workload's functions are the same line for line, but that branches of
 * equal weight may come in another order (docs/PERF_DIFFERENCES.md) and
 * that graphs holding unresolved frames are not compared. Returns how
 * many graphs were compared.
 */
static int expect_graphs_like_perf(const char *file, const char *args, const char *const *syms)
{
	char cmd[16384], *perf, *ours;
	int compared = 0;

	snprintf(cmd, sizeof(cmd), "perf report --stdio -i '%s' --sort sym %s 2>/dev/null", file,
		 args);
	perf = th_sh_ok(cmd);
	snprintf(cmd, sizeof(cmd), "'%s' report --stdio -i '%s' --sort sym %s", th_perfev_bin(),
		 file, args);
	ours = th_sh_ok(cmd);
	for (const char *const *s = syms; *s; s++) {
		char *a = entry_block(perf, *s), *b = entry_block(ours, *s);

		if (!a || !b || strstr(a, "[unknown]") || strstr(a, "0x") || strstr(b, "[unknown]") ||
		    strstr(a, "[...]")) {
			cr_expect(!a == !b, "%s: entry %s in one report only:\nperf:\n%s\nperfev:\n%s",
				  args, *s, perf, ours);
		} else if (strcmp(a, b) != 0) {
			char *x = branches_of(a), *y = branches_of(b);
			cr_expect_str_eq(x, y, "%s: the graphs of %s differ:\nperf:\n%s\nperfev:\n%s",
					 args, *s, a, b);
			free(x);
			free(y);
			compared++;
		} else {
			compared++;
		}
		free(a);
		free(b);
	}
	free(perf);
	free(ours);
	return compared;
}

Test(cmd_report, call_graphs_line_for_line_like_perf)
{
	static const char *const modes[] = {
		"", "--no-children", "--percent-limit 5", "--no-children --percent-limit 5",
		"-g graph,0.5,caller", "--no-children -g graph,0.5,caller", "-g fractal",
		"--no-children -g fractal", "-g flat", "--no-children -g flat", "-g folded",
		"--no-children -g folded", "-g caller", "--no-children -g callee", "--max-stack 2",
		"--no-children --max-stack 2", "-G", "--no-children -G", "-g graph,0.5,2",
		"--no-children -g graph,1,period", "--no-children -g fractal,0.5,callee,count",
		"-g graph,5 --percent-limit 1", "--max-stack 0",
	};
	static const char *const deep_syms[] = {"deep_leaf", "deep_other", "deep_mid",
						"deep_inner", "deep_top_x", "deep_top_y", "main",
						NULL};
	static const char *const work_syms[] = {"report_work_a", "report_work_b",
						"report_work_c", "report_work_d",
						"report_work_step", "main", NULL};
	char work[PATH_MAX + 8], deep[PATH_MAX + 8];
	int compared = 0;

	th_need_perf();
	snprintf(work, sizeof(work), "%s 300", th_test_program("report_work"));
	snprintf(deep, sizeof(deep), "%s 300", th_test_program("report_deep"));
	const char *wf = perf_record("cg_work.data", "-g -e cpu-clock", work);
	const char *df = perf_record("cg_deep.data", "-g -e cpu-clock", deep);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		compared += expect_graphs_like_perf(wf, modes[i], work_syms);
		compared += expect_graphs_like_perf(df, modes[i], deep_syms);
	}
	cr_expect_gt(compared, 100, "only %d graphs compared", compared);
}

Test(cmd_report, call_graph_option_errors)
{
	char cmd[PATH_MAX + 128], *err = NULL;

	snprintf(cmd, sizeof(cmd), "'%s' report -g graph,nope 2>&1 >/dev/null", th_perfev_bin());
	cr_expect_neq(th_sh(cmd, &err, NULL), 0);
	expect_has(err, "unknown call-graph word 'nope'");
	free(err);
	snprintf(cmd, sizeof(cmd), "'%s' report -g address 2>&1 >/dev/null", th_perfev_bin());
	cr_expect_neq(th_sh(cmd, &err, NULL), 0);
	expect_has(err, "merges call graphs by function");
	free(err);
	snprintf(cmd, sizeof(cmd), "'%s' report --max-stack x 2>&1 >/dev/null", th_perfev_bin());
	cr_expect_neq(th_sh(cmd, &err, NULL), 0);
	expect_has(err, "--max-stack");
	free(err);
}

/* ---- tracepoints only: the trace key, line for line ------------------------------- */

/*
 * A report as both tools print it, made comparable: perf's tip ("# (Tip:
 * ...)" or "# Tip: ...") left out, and the blank and "#" lines that end
 * either output.
 */
static char *report_text(const char *cmd)
{
	char *out = th_sh_ok(cmd), *w = out;
	size_t len;

	for (char *line = out; *line;) {
		size_t n = strcspn(line, "\n");
		bool tip = strncmp(line, "# (Tip", 6) == 0 || strncmp(line, "# Tip", 5) == 0;
		if (!tip) {
			memmove(w, line, n);
			w += n;
			*w++ = '\n';
		}
		line += n + (line[n] == '\n');
	}
	*w = '\0';
	len = (size_t)(w - out);
	for (;;) {
		while (len && out[len - 1] == '\n')
			len--;
		if (len && out[len - 1] == '#' && (len == 1 || out[len - 2] == '\n'))
			len--;
		else
			break;
	}
	out[len] = '\0';
	return out;
}

/* perfev report --stdio ARGS and perf report --stdio ARGS on file agree line for line. */
/* Line a (na bytes) without the spaces at its end: its length. */
static size_t trimmed(const char *a, size_t na)
{
	while (na && a[na - 1] == ' ')
		na--;
	return na;
}

/*
 * Whether line a of perfev's report stands for line b of perf's where perf
 * sized the Trace output column short (PERF_DIFFERENCES: "a trace sort
 * key after another"): perf computes an entry's trace text only when it
 * compares two entries by it, so an entry alone in its comm is left out
 * of the column's width, and cut to it when it is the widest. The heading
 * and its rule are then shorter, and such a row is a prefix of perfev's,
 * as long as perf's rule. Only with a trace key after another.
 */
static bool trace_column_cut(const char *args, const char *a, size_t na, const char *b,
			     size_t nb, size_t *perf_rule)
{
	const char *trace = strstr(args, "trace");

	if (!trace || !strstr(args, "--sort") || trace[-1] != ',')
		return false;
	na = trimmed(a, na);
	nb = trimmed(b, nb);
	if (nb > 3 && strncmp(b, "# ...", 5) == 0 && strspn(b + 2, ". ") == nb - 2) {
		*perf_rule = nb;
		return na > nb && strncmp(a, "# ...", 5) == 0 && strspn(a + 2, ". ") == na - 2;
	}
	if (strncmp(b, "# Overhead", 10) == 0)
		return na >= nb && memcmp(a, b, nb) == 0;
	return *perf_rule && nb == *perf_rule && na > nb && memcmp(a, b, nb) == 0;
}

static void expect_report_lines_like_perf(const char *file, const char *args, const char *want)
{
	char cmd[PATH_MAX + 512], *ours, *perfs, *a, *b;
	size_t perf_rule = 0;
	int line = 1;

	snprintf(cmd, sizeof(cmd), "'%s' report -i '%s' --stdio %s 2>/dev/null", th_perfev_bin(),
		 file, args);
	ours = report_text(cmd);
	snprintf(cmd, sizeof(cmd), "perf report -i '%s' --stdio %s 2>/dev/null", file, args);
	perfs = report_text(cmd);
	expect_has(perfs, want);
	for (a = ours, b = perfs; *a || *b; line++) {
		size_t na = strcspn(a, "\n"), nb = strcspn(b, "\n");
		if ((na != nb || memcmp(a, b, na) != 0) &&
		    !trace_column_cut(args, a, na, b, nb, &perf_rule)) {
			/* Both whole: an intermittent difference is seen once. */
			cr_expect_fail("%s, %s: line %d differs:\nours: %.*s\nperf: %.*s\n"
				       "== perfev's report:\n%s\n== perf's report:\n%s",
				       file, args, line, (int)na, a, (int)nb, b, ours, perfs);
			break;
		}
		a += na + (a[na] == '\n');
		b += nb + (b[nb] == '\n');
	}
	free(ours);
	free(perfs);
}

Test(cmd_report, tracepoints_only_sorted_by_trace_like_perf)
{
	char work[PATH_MAX + 128], cmd[2 * PATH_MAX + 256];
	const char *ours = th_path_in("tp_ours.data");

	th_need_perf();
	if (!tracefs_ok())
		th_skip("tracefs cannot be mounted: no tracepoints");
	snprintf(work, sizeof(work), "sh -c '%s 50 & %s 50 & sleep 0.2; wait'",
		 th_test_program("report_work"), th_test_program("report_work"));

	/* perfev record adds no dummy event: every event is a tracepoint. */
	snprintf(cmd, sizeof(cmd), "'%s' record -q -a -e sched:sched_switch -o '%s' -- %s 2>&1",
		 th_perfev_bin(), ours, work);
	free(th_sh_ok(cmd));
	expect_report_lines_like_perf(ours, "", "# Overhead  Trace output");
	expect_report_lines_like_perf(ours, "--sort trace", "# Overhead  Trace output");
	expect_report_lines_like_perf(ours, "--children", "# Overhead  Trace output");
	expect_report_lines_like_perf(ours, "--no-children", "# Overhead  Trace output");
	expect_report_lines_like_perf(ours, "--sort trace,comm", "Trace output");
	expect_report_lines_like_perf(ours, "--sort comm,trace", "Trace output");

	/* A pipe's format: perf chooses its keys before it knows the events. */
	snprintf(cmd, sizeof(cmd),
		 "'%s' record -q -a -e sched:sched_switch -o - -- %s > '%s' 2>/dev/null",
		 th_perfev_bin(), work, th_path_in("tp_pipe.data"));
	free(th_sh_ok(cmd));
	expect_report_lines_like_perf(th_path_in("tp_pipe.data"), "", "# Overhead  Command");
	expect_report_lines_like_perf(th_path_in("tp_pipe.data"), "--sort trace", "Trace output");

	/*
	 * With call chains: the entries and their order (perf breaks Children ties
	 * by call-chain depth, docs/PERF_DIFFERENCES.md, so without Children).
	 */
	snprintf(cmd, sizeof(cmd), "'%s' record -q -a -g -e sched:sched_switch -o '%s' -- %s 2>&1",
		 th_perfev_bin(), th_path_in("tp_g.data"), work);
	free(th_sh_ok(cmd));
	expect_report_lines_like_perf(th_path_in("tp_g.data"), "--no-children -g none",
				      "# Overhead  Trace output");

	/* Two tracepoints: a section each. */
	snprintf(cmd, sizeof(cmd),
		 "'%s' record -q -a -e sched:sched_switch -e sched:sched_wakeup -o '%s' -- %s 2>&1",
		 th_perfev_bin(), th_path_in("tp_two.data"), work);
	free(th_sh_ok(cmd));
	expect_report_lines_like_perf(th_path_in("tp_two.data"), "", "of event 'sched:sched_wakeup'");

	/* perf record -a adds a dummy event: perf sorts as for any file, or by trace when told. */
	const char *pa = perf_record("tp_perf_a.data", "-a -e sched:sched_switch", work);
	expect_report_lines_like_perf(pa, "", "# Overhead  Command");
	expect_report_lines_like_perf(pa, "--sort trace", "# Overhead  Trace output");

	/* Other events' samples: "N/A" under Trace output. */
	const char *pc = perf_record("tp_cpu.data", "-a -e cpu-clock -e sched:sched_switch", work);
	expect_report_lines_like_perf(pc, "--sort trace", "N/A");

	/* perf record of one command: no dummy event, so sorted by trace. */
	const char *pt = perf_record("tp_perf_task.data", "-e sched:sched_switch", work);
	expect_report_lines_like_perf(pt, "", "# Overhead  Trace output");
}
