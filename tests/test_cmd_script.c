/* SPDX-License-Identifier: MIT */
/*
 * test_cmd_script.c - `perfev script` against `perf script` on files perf
 * records: every sample of a small file with the same command, process,
 * thread, time, address and symbol; sched_switch payloads formatted as
 * perf formats them; call chains one frame per line; perf 6.1's layout
 * column for column (default fields per event kind, padding, -G, --ns,
 * -F +field/-field/KIND:fields) on files perf and perfev record; a ':S'
 * group's samples, a line per member byte for byte (xz); -F checked
 * (unknown fields, fields the samples lack) and bad files refused with a
 * message.
 * Tests that need perf skip when it is missing.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"

static const char *dir; /* removed when the test's process exits */

static void make_dir(void)
{
	th_leak_init();
	dir = th_temp_dir("scr");
}

static void remove_dir(void)
{
	th_leak_fini();
}

static const char *perf_record(const char *name, const char *args, const char *workload)
{
	static char file[PATH_MAX];
	char cmd[16384];

	snprintf(file, sizeof(file), "%s/%s", dir, name);
	snprintf(cmd, sizeof(cmd), "perf record -q %s -o '%s' %s 2>&1", args, file, workload);
	free(th_sh_ok(cmd));
	return file;
}

/* Both tools' output with the same options (opts as the shell splits them);
 * a module's name is made the kernel's in both (th_modules_as_kernel). */
static void both_opts(const char *file, const char *opts, char **ours, char **perfs)
{
	char cmd[16384];

	snprintf(cmd, sizeof(cmd), "'%s' script -i '%s' %s", th_perfev_bin(), file, opts);
	*ours = th_modules_as_kernel(th_sh_ok(cmd));
	snprintf(cmd, sizeof(cmd), "perf script -i '%s' %s 2>/dev/null", file, opts);
	*perfs = th_modules_as_kernel(th_sh_ok(cmd));
}

/* Both tools' output with -F fields, or their default fields when fields is NULL. */
static void both(const char *file, const char *fields, char **ours, char **perfs)
{
	char opts[4096];

	snprintf(opts, sizeof(opts), "%s%s", fields ? "-F " : "", fields ? fields : "");
	both_opts(file, opts, ours, perfs);
}

/*
 * Collapses runs of blanks, so that column widths do not matter, and drops
 * the parameter lists of C++ names ("f(char const*)" is perf's "f"; the
 * sanitizers' runtime brings such names into the workload).
 */
static void squeeze(char *s)
{
	char *w = s;
	bool blank = false;

	for (char *r = s; *r; r++) {
		if (*r == '(' && r > s && r[-1] != ' ' && r[-1] != '\t' && r[-1] != '\n') {
			int depth = 0;
			for (; *r && *r != '\n'; r++) {
				depth += (*r == '(') - (*r == ')');
				if (depth == 0)
					break;
			}
			if (*r != ')')
				r--;
			continue;
		}
		if (*r == ' ' || *r == '\t') {
			blank = true;
			continue;
		}
		if (blank && w != s && w[-1] != '\n' && *r != '\n')
			*w++ = ' ';
		blank = false;
		*w++ = *r;
	}
	*w = '\0';
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Lines that start a sample (the others are call chain frames and blank lines). */
static int count_samples(const char *s)
{
	int n = 0;

	for (const char *l = s; *l; l = strchr(l, '\n'), l = l ? l + 1 : "")
		n += *l != '\t' && *l != '\n';
	return n;
}

/* Expects the two outputs to be the same line for line (blanks squeezed). */
static void expect_same_lines(char *a, char *b)
{
	squeeze(a);
	squeeze(b);
	cr_assert_gt(count_lines(b), 5, "perf printed little:\n%s", b);
	cr_expect_eq(count_lines(a), count_lines(b), "%d lines, perf %d", count_lines(a),
		     count_lines(b));
	for (char *x = a, *y = b; *x && *y;) {
		size_t lx = strcspn(x, "\n"), ly = strcspn(y, "\n");
		if ((lx != ly || memcmp(x, y, lx) != 0) && !th_plt_named_init(x, lx, y, ly)) {
			cr_expect_fail("perfev: %.*s\nperf:   %.*s", (int)lx, x, (int)ly, y);
			return;
		}
		x += lx + (x[lx] != '\0');
		y += ly + (y[ly] != '\0');
	}
}

TestSuite(cmd_script, .init = make_dir, .fini = remove_dir);

Test(cmd_script, every_sample_like_perf)
{
	char work[PATH_MAX + 8], *a, *b;

	th_need_perf();
	snprintf(work, sizeof(work), "%s 100", th_test_program("report_work"));
	const char *f = perf_record("flat.data", "-e cpu-clock", work);
	both(f, "comm,pid,tid,time,ip,sym", &a, &b);
	expect_same_lines(a, b);
	free(a);
	free(b);
	/* The default fields too (period, event, symbol offsets, DSOs). */
	both(f, NULL, &a, &b);
	expect_same_lines(a, b);
	free(a);
	free(b);
}

Test(cmd_script, call_chains_one_frame_per_line)
{
	char work[PATH_MAX + 8], *a, *b;

	th_need_perf();
	snprintf(work, sizeof(work), "%s 100", th_test_program("report_work"));
	const char *f = perf_record("g.data", "-g -e cpu-clock", work);
	both(f, "comm,pid,tid,time,sym", &a, &b);
	/* perf prints nothing for sym without ip; compare the sample lines. */
	cr_expect(strstr(a, "report_work_a") != NULL, "%s", a);
	free(a);
	free(b);
	/* With ip, each sample's chain follows it, a frame a line, as perf prints it. */
	both(f, "comm,tid,time,ip,sym,dso", &a, &b);
	char *p = strstr(a, " report_work_a (");
	cr_assert_not_null(p, "no report_work_a frame: %.400s", a);
	cr_expect(p[-17] == '\t', "not a call chain line: %.100s", p - 17);
	cr_expect(strncmp(strchr(p, '\n') + 1, "\t", 1) == 0 && strstr(p, " main ("),
		  "main does not follow: %.400s", p);
	cr_expect_eq(count_samples(a), count_samples(b), "%d samples, perf %d", count_samples(a),
		     count_samples(b));
	free(a);
	free(b);
}

Test(cmd_script, sched_switch_payloads_like_perf)
{
	char work[PATH_MAX + 64], *a, *b;

	th_need_perf();
	if (!th_tracefs())
		th_skip("tracefs cannot be mounted: no tracepoints");
	snprintf(work, sizeof(work), "sh -c '%s 50 & sleep 0.1; wait'", th_test_program("report_work"));
	const char *f = perf_record("sw.data", "-a -e sched:sched_switch", work);
	both(f, "comm,pid,tid,cpu,time,event,trace", &a, &b);
	expect_has(a, "prev_comm=");
	expect_has(a, "==> next_comm=");
	expect_same_lines(a, b);
	free(a);
	free(b);
}

/* ---- perf 6.1's layout, column for column ---- */

static const char *perfev_record(const char *name, const char *args, const char *workload)
{
	static char file[PATH_MAX];
	char cmd[16384];

	snprintf(file, sizeof(file), "%s/%s", dir, name);
	snprintf(cmd, sizeof(cmd), "'%s' record -q %s -o '%s' -- %s 2>&1", th_perfev_bin(), args,
		 file, workload);
	free(th_sh_ok(cmd));
	return file;
}


/*
 * Removes what docs/PERF_DIFFERENCES.md lists, and nothing else: the
 * "0 [unknown] ([unknown])" frame perf prints where a frame-pointer walk
 * read a zero (perf's output only) and C++ parameter lists and their
 * "const" (issue 13 item 7). Blanks stay as they are: the columns are compared.
 */
static void drop_listed_differences(char *s)
{
	char *w = s;

	for (char *r = s; *r;) {
		size_t len = strcspn(r, "\n");
		size_t blanks = strspn(r + 1, " ");
		bool zero_frame = r[0] == '\t' && blanks + 1 < len &&
				  strncmp(r + 1 + blanks, "0 [unknown]", 11) == 0;
		if (!zero_frame) {
			for (size_t i = 0; i < len; i++) {
				char *c = r + i;
				if (*c == '(' && i > 0 && c[-1] != ' ' && c[-1] != '\t') {
					int depth = 0;
					size_t j = i;
					for (; j < len; j++) {
						depth += (r[j] == '(') - (r[j] == ')');
						if (depth == 0)
							break;
					}
					if (j < len) {
						i = j;
						if (len - j > 6 && strncmp(r + j + 1, " const", 6) == 0)
							i += 6;
						continue;
					}
				}
				*w++ = *c;
			}
			if (r[len])
				*w++ = '\n';
		}
		r += len + (r[len] != '\0');
	}
	*w = '\0';
}

/* Drops perf's comment lines ('#') and blank lines from a report. */
static void drop_comments(char *s)
{
	char *w = s;

	for (char *l = s; *l;) {
		size_t n = strcspn(l, "\n");
		bool keep = l[0] != '#' && n > 0;

		n += l[n] == '\n';
		if (keep) {
			memmove(w, l, n);
			w += n;
		}
		l += n;
	}
	*w = '\0';
}

/*
 * The symbol of a line that holds "sym+0xOFF": the text before " (dso)";
 * on a call chain line ("\t   ADDR SYMBOL (DSO)") all of it after the
 * address, blanks included ("virtual thunk to std::basic_ostream<char,
 * ...>::~basic_ostream+0x0"), elsewhere the last token.
 */
static bool symbol_token(const char *l, size_t n, size_t *start, size_t *end)
{
	const char *dso = NULL;
	size_t at = 0;

	for (const char *p = l; p + 1 < l + n; p++)
		if (p[0] == ' ' && p[1] == '(')
			dso = p;
	*end = dso ? (size_t)(dso - l) : n; /* without dso: the last token */
	if (l[0] == '\t') {
		at = 1 + strspn(l + 1, " ");
		at += strspn(l + at, "0123456789abcdef");
		if (at < *end && l[at] == ' ') {
			*start = at + 1;
			return true;
		}
	}
	for (*start = *end; *start > 0 && l[*start - 1] != ' ' && l[*start - 1] != '\t';)
		(*start)--;
	return true;
}

/*
 * Whether perfev's line x and perf's y differ only in the symbol named at
 * one address, where docs/PERF_DIFFERENCES.md lists it: a return address on
 * the first byte past its function (perfev names the caller; perf the next
 * function, "+0x0", or nothing, "[unknown]", where no symbol follows: seen
 * in arm64's vDSO).
 */
static bool only_listed_symbol_differs(const char *x, size_t lx, const char *y, size_t ly)
{
	size_t xs, xe, ys, ye;

	if (!symbol_token(x, lx, &xs, &xe) || !symbol_token(y, ly, &ys, &ye) || xs != ys ||
	    memcmp(x, y, xs) != 0 || lx - xe != ly - ye || memcmp(x + xe, y + ye, lx - xe) != 0)
		return false;
	if (ye - ys == 9 && memcmp(y + ys, "[unknown]", 9) == 0)
		return memmem(x + xs, xe - xs, "+0x", 3) != NULL;
	return ye - ys > 4 && memcmp(y + ye - 4, "+0x0", 4) == 0;
}

/*
 * Whether perf's frame line y is a return address signed by pointer
 * authentication (arm64: th_perf_signed_frame), as perf 6.1 takes a -g
 * leaf's caller from x30 without stripping it, where perfev's x names the
 * bare address (docs/PERF_DIFFERENCES.md).
 */
static bool perf_kept_signed_address(const char *x, size_t lx, const char *y, size_t ly)
{
	char line[256];

	if (ly >= sizeof(line) || lx == 0 || x[0] != '\t' || memmem(x, lx, "[unknown]", 9))
		return false;
	memcpy(line, y, ly);
	line[ly] = '\0';
	return th_perf_signed_frame(line);
}

/*
 * How many samples of file perf prints without their call chain because
 * the chain holds a context marker no kernel writes (a frame-pointer walk
 * through code without frame pointers read garbage): perf says so for each
 * with -v ("invalid callchain context").
 */
static int chains_perf_drops(const char *file)
{
	char cmd[PATH_MAX + 128], *out;
	int n;

	snprintf(cmd, sizeof(cmd),
		 "perf script -v -i '%s' 2>&1 >/dev/null | grep -c 'invalid callchain context'; :",
		 file);
	out = th_sh_ok(cmd);
	n = atoi(out);
	free(out);
	return n;
}

/* The length of the sample block at s: its lines up to a blank line or the end. */
static size_t block_len(const char *s)
{
	const char *end = strstr(s, "\n\n");

	return end ? (size_t)(end - s) + 1 : strlen(s);
}

/*
 * Where perf printed a sample without its call chain and perfev printed
 * the same sample line with frames, drops perfev's frames, at most
 * `allowed` times: the samples perf dropped the chain of (listed in
 * docs/PERF_DIFFERENCES.md: perfev keeps the frames before the garbage).
 */
static void drop_chains_perf_dropped(char *ours, const char *perfs, int allowed, const char *what)
{
	int dropped = 0;
	char *w = ours;

	for (const char *x = ours, *y = perfs; *x;) {
		size_t lx = block_len(x), ly = *y ? block_len(y) : 0;
		size_t head = strcspn(x, "\n") + 1;

		if (ly == head && head < lx && memcmp(x, y, head) == 0 && x[head] == '\t') {
			memmove(w, x, head);
			w += head;
			dropped++;
		} else {
			memmove(w, x, lx);
			w += lx;
		}
		x += lx;
		y += ly;
		for (; *x == '\n'; x++)
			*w++ = '\n';
		for (; *y == '\n'; y++)
			;
	}
	*w = '\0';
	cr_expect_leq(dropped, allowed,
		      "%s: %d samples with frames where perf printed none, perf dropped %d chains",
		      what, dropped, allowed);
}

/*
 * Expects the two outputs to be the same, byte for byte, but for the listed
 * differences; chains_dropped: how many chains perf dropped (chains_perf_drops).
 */
static void expect_same_layout(char *ours, char *perfs, const char *what, int chains_dropped)
{
	int bad = 0;

	drop_listed_differences(ours);
	drop_listed_differences(perfs);
	if (chains_dropped)
		drop_chains_perf_dropped(ours, perfs, chains_dropped, what);
	cr_assert_gt(count_lines(perfs), 1, "%s: perf printed little:\n%s", what, perfs);
	cr_expect_eq(count_lines(ours), count_lines(perfs), "%s: %d lines, perf %d", what,
		     count_lines(ours), count_lines(perfs));
	for (char *x = ours, *y = perfs; *x && *y;) {
		size_t lx = strcspn(x, "\n"), ly = strcspn(y, "\n");
		if ((lx != ly || memcmp(x, y, lx) != 0) && !only_listed_symbol_differs(x, lx, y, ly) &&
		    !th_plt_named_init(x, lx, y, ly) && !perf_kept_signed_address(x, lx, y, ly)) {
			cr_expect_fail("%s:\nperfev: '%.*s'\nperf:   '%.*s'", what, (int)lx, x,
				       (int)ly, y);
			if (++bad == 3)
				return;
		}
		x += lx + (x[lx] != '\0');
		y += ly + (y[ly] != '\0');
	}
}

/* perfev script and perf script of file with each set of options, compared. */
static void compare_each(const char *file, const char *const *opts, size_t n)
{
	int chains_dropped = chains_perf_drops(file);

	for (size_t i = 0; i < n; i++) {
		char *a, *b, what[512];
		snprintf(what, sizeof(what), "script -i %s %s", strrchr(file, '/') + 1, opts[i]);
		both_opts(file, opts[i], &a, &b);
		expect_same_layout(a, b, what, chains_dropped);
		free(a);
		free(b);
	}
}

static const char *const chain_opts[] = {"", "-G", "--ns", "-F +pid", "-F -period,-dso",
					 "-F sw:comm,tid,time,ip,sym,symoff", "--hide-call-graph -F +pid"};

Test(cmd_script, layout_cpu_clock_g_by_perf)
{
	char work[PATH_MAX + 8];

	th_need_perf();
	snprintf(work, sizeof(work), "%s 60", th_test_program("report_work"));
	compare_each(perf_record("lg.data", "-g -e cpu-clock", work), chain_opts,
		     sizeof(chain_opts) / sizeof(chain_opts[0]));
}

Test(cmd_script, layout_cpu_clock_g_by_perfev)
{
	char work[PATH_MAX + 8];

	th_need_perf();
	snprintf(work, sizeof(work), "%s 60", th_test_program("report_work"));
	compare_each(perfev_record("vg.data", "-g -e cpu-clock", work), chain_opts,
		     sizeof(chain_opts) / sizeof(chain_opts[0]));
}

/*
 * arm64: report_work_a .. _d are leaf functions that never save the link
 * register, so the kernel's frame-pointer walk goes from each straight to
 * main. perfev record keeps LR with each sample (as perf does there), and
 * script puts report_work_step back from it: every sample in a leaf shows
 * its caller next.
 */
Test(cmd_script, arm64_leaf_callers_from_the_link_register)
{
#if !defined(__aarch64__)
	th_skip("arm64 only: the link register holds a leaf's caller there");
#else
	char work[PATH_MAX + 8], cmd[PATH_MAX + 256], *out;
	int leaves = 0, with_caller = 0;

	snprintf(work, sizeof(work), "%s 300", th_test_program("report_work"));
	const char *f = perfev_record("lr.data", "-g -e cpu-clock", work);
	snprintf(cmd, sizeof(cmd), "'%s' script -i '%s' -F ip,sym", th_perfev_bin(), f);
	out = th_sh_ok(cmd);
	/* Samples are blank-line separated blocks of "ADDR SYM" frame lines. */
	for (char *b = out; *b;) {
		size_t len = block_len(b);
		char first[128] = "", second[128] = "";
		sscanf(b, " %*s %127s %*s %127s", first, second);
		if (strncmp(first, "report_work_", 12) == 0 && strcmp(first, "report_work_step") != 0) {
			leaves++;
			with_caller += strcmp(second, "report_work_step") == 0;
		}
		b += len;
		while (*b == '\n')
			b++;
	}
	cr_expect_gt(leaves, 20, "only %d samples in the leaves:\n%.3000s", leaves, out);
	cr_expect_eq(with_caller, leaves, "%d of %d leaf samples show report_work_step:\n%.3000s",
		     with_caller, leaves, out);
	free(out);
#endif
}

/*
 * arm64: signal_leaf's handler is a leaf whose caller, in LR only, is the
 * vDSO's signal return trampoline. LR there is no return address after a
 * call: the frame is named at LR itself (__kernel_rt_sigreturn+0x0), as
 * perf 6.1 names it, not one byte before (the trampoline's leading nop).
 */
Test(cmd_script, arm64_signal_handler_returns_to_the_trampoline)
{
#if !defined(__aarch64__)
	th_skip("arm64 only: the link register holds a leaf's caller there");
#else
	char work[PATH_MAX + 8], cmd[PATH_MAX + 256], *out;
	int in_handler = 0, to_trampoline = 0;

	snprintf(work, sizeof(work), "%s 300", th_test_program("signal_leaf"));
	const char *f = perfev_record("sig.data", "-g -e cpu-clock", work);
	snprintf(cmd, sizeof(cmd), "'%s' script -i '%s' -F ip,sym,symoff", th_perfev_bin(), f);
	out = th_sh_ok(cmd);
	for (char *b = out; *b;) {
		size_t len = block_len(b);
		char first[128] = "", second[128] = "";
		sscanf(b, " %*s %127s %*s %127s", first, second);
		if (strncmp(first, "signal_spin+", 12) == 0) {
			in_handler++;
			to_trampoline += strcmp(second, "__kernel_rt_sigreturn+0x0") == 0;
		}
		b += len;
		while (*b == '\n')
			b++;
	}
	cr_expect_gt(in_handler, 20, "only %d samples in the handler:\n%.3000s", in_handler, out);
	cr_expect_eq(to_trampoline, in_handler,
		     "%d of %d handler samples return to __kernel_rt_sigreturn+0x0:\n%.3000s",
		     to_trampoline, in_handler, out);
	free(out);
#endif
}

static const char *const flat_opts[] = {"", "--ns", "-F +pid", "-F -dso,-period",
					"-F comm,pid,tid,time,event,ip,sym,symoff",
					"-F sw:-ip,-sym,-symoff,-dso"};

/*
 * 16,400 page faults in a second, in fresh anonymous pages kept from huge
 * pages (a kernel whose transparent huge pages are "always", Debian's arm64
 * one in the PMU lab, took 102 faults for dd's 64 MiB buffer): a sample
 * every 1,000, none in the program's start, whose faults in its libraries'
 * data perf names from data mappings (docs/PERF_DIFFERENCES.md).
 */
static const char *faults(void)
{
	static char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "'%s' 16400 1", th_test_program("fault_pacer"));
	return cmd;
}

Test(cmd_script, layout_page_faults_by_perf)
{
	th_need_perf();
	compare_each(perf_record("lpf.data", "-c 1000 -e page-faults", faults()), flat_opts,
		     sizeof(flat_opts) / sizeof(flat_opts[0]));
}

Test(cmd_script, layout_page_faults_by_perfev)
{
	th_need_perf();
	compare_each(perfev_record("vpf.data", "-c 1000 -e page-faults", faults()), flat_opts,
		     sizeof(flat_opts) / sizeof(flat_opts[0]));
}

/*
 * A page fault's address (-d) is followed by its symbol, as perf prints it.
 * Its DSO is left out: perf finds data addresses in the file's data
 * mappings, perfev does not read those yet (docs/PERF_DIFFERENCES.md).
 */
Test(cmd_script, layout_page_fault_addresses)
{
	static const char *const opts[] = {"-F +addr,-dso", "-F comm,tid,addr,ip,sym,symoff"};

	th_need_perf();
	compare_each(perf_record("ld.data", "-d -c 1000 -e page-faults", faults()), opts,
		     sizeof(opts) / sizeof(opts[0]));
}

/* Two events: the event column is as wide as the longer name. */
Test(cmd_script, layout_two_events)
{
	static const char *const opts[] = {"", "-F sw:comm,tid,event,period", "-F -time"};
	char work[PATH_MAX + 8];

	th_need_perf();
	snprintf(work, sizeof(work), "%s 30", th_test_program("report_work"));
	compare_each(perf_record("l2.data", "-e cpu-clock -e page-faults", work), opts,
		     sizeof(opts) / sizeof(opts[0]));
	compare_each(perfev_record("v2.data", "-e cpu-clock -e page-faults", work), opts,
		     sizeof(opts) / sizeof(opts[0]));
}

/* Tracepoint lines end with the payload: no address or symbol unless asked. */
/*
 * Every process of the machine is in a system-wide file, another test's
 * too (test_hostile_names gives a thread a name with control bytes, which
 * perfev escapes and perf prints raw): the comparisons keep the workload's
 * commands (-c, perf's filter).
 */
Test(cmd_script, layout_tracepoint_system_wide)
{
#define ONLY_WORK " -c sh,sleep,report_work"
	static const char *const opts[] = {ONLY_WORK, "--ns" ONLY_WORK, "-F +period" ONLY_WORK,
					   "-F trace:-cpu" ONLY_WORK,
					   "-F trace:comm,tid,event,ip,sym" ONLY_WORK};
	char work[PATH_MAX + 64], *a, *b;

	th_need_perf();
	if (!th_tracefs())
		th_skip("tracefs cannot be mounted: no tracepoints");
	snprintf(work, sizeof(work), "sh -c '%s 20 & sleep 0.1; wait'",
		 th_test_program("report_work"));
	const char *f = perf_record("ltp.data", "-a -e sched:sched_switch", work);
	both_opts(f, "", &a, &b);
	cr_expect(strstr(a, "sched:sched_switch: prev_comm=") && !strstr(a, "[kernel.kallsyms]"),
		  "%.300s", a);
	free(a);
	free(b);
	compare_each(f, opts, sizeof(opts) / sizeof(opts[0]));
	compare_each(perfev_record("vtp.data", "-a -e sched:sched_switch", work), opts,
		     sizeof(opts) / sizeof(opts[0]));
	/*
	 * With call chains the chain follows the payload (one line, the command
	 * not padded), and -G hides it. With every process of the machine in
	 * the file, some chains cross an exec: the old program's frames are
	 * named from its mappings, which stay until the new program's replace
	 * them, as in perf.
	 */
	f = perf_record("ltpg.data", "-a -g -e sched:sched_switch", work);
	both_opts(f, "", &a, &b);
	/* A kernel address: ffffffff8... on x86-64, ffff8... (or KASLR's ffffa5...) on arm64. */
	cr_expect(strstr(a, " next_prio=") && strstr(a, "\n\tffff"), "%.300s", a);
	free(a);
	free(b);
	static const char *const chain[] = {"-G" ONLY_WORK, ONLY_WORK};
	compare_each(f, chain, 2);
#undef ONLY_WORK
}

/* The pid, tid and comm of the first sample of a script's `-F pid,tid,comm` output whose comm is comm. */
static bool first_of(const char *out, const char *comm, long *pid, long *tid)
{
	for (const char *l = out; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n')) {
		char name[64];
		if (sscanf(l, " %63s %ld/%ld", name, pid, tid) == 3 && strcmp(name, comm) == 0)
			return true;
	}
	return false;
}

/* How many lines of text hold needle. */
static int lines_holding(const char *text, const char *needle)
{
	int n = 0;

	for (const char *l = text; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n'))
		n += memmem(l, strcspn(l, "\n"), needle, strlen(needle)) != NULL;
	return n;
}

/*
 * -c, --pid and --tid keep the samples of those commands, processes and
 * threads, as perf's: a shell that runs a threaded program and a second
 * program, the two tools' output compared line for line.
 */
Test(cmd_script, comm_pid_and_tid_filters_as_perf)
{
	char work[2 * PATH_MAX + 64], opt[128], *a, *b;
	long pid, tid, pid2, tid2;

	th_need_perf();
	snprintf(work, sizeof(work), "sh -c '%s 20; %s threads 50'", th_test_program("report_work"),
		 th_test_program("parity_work"));
	const char *f = perfev_record("filters.data", "-e page-faults -c 1", work);
	both_opts(f, "-F comm,pid,tid", &a, &b);
	cr_assert(first_of(a, "report_work", &pid, &tid), "no report_work sample:\n%.2000s", a);
	cr_assert(first_of(a, "parity_work", &pid2, &tid2), "no parity_work sample:\n%.2000s", a);
	free(a);
	free(b);

	both_opts(f, "-G", &a, &b);
	int all = count_lines(a);
	free(a);
	free(b);

	both_opts(f, "-G -c report_work", &a, &b);
	int n = count_lines(a), holding = lines_holding(a, "report_work");
	cr_expect(n > 0 && n == holding && n < all, "-c report_work: %d lines, %d of it, of %d",
		  n, holding, all);
	expect_same_layout(a, b, "-c report_work", 0);
	free(a);
	free(b);

	snprintf(opt, sizeof(opt), "-G -F comm,pid,tid,event --pid %ld,%ld", pid, pid2);
	both_opts(f, opt, &a, &b);
	n = count_lines(a);
	cr_expect(n > 0 && n < all, "%s: %d lines of %d", opt, n, all);
	expect_same_layout(a, b, opt, 0);
	free(a);
	free(b);

	snprintf(opt, sizeof(opt), "-G -F comm,tid,event --tid %ld", tid2);
	both_opts(f, opt, &a, &b);
	char needle[32];
	snprintf(needle, sizeof(needle), " %ld ", tid2);
	n = count_lines(a);
	holding = lines_holding(a, needle);
	cr_expect(n > 0 && n == holding, "%s: %d lines, %d of that thread", opt, n, holding);
	expect_same_layout(a, b, opt, 0);
	free(a);
	free(b);

	struct th_output r = th_perfev("script", "-i", f, "--tid", "12,x");
	cr_expect_eq(r.status, 129);
	expect_has(r.err, "option '--tid' needs comma-separated ids (e.g. 1234,1240), got '12,x'");
	th_output_free(&r);
}

Test(cmd_script, fields_option_errors)
{
	struct th_output r = th_perfev("script", "-F", "comm,+tid");

	cr_expect_eq(r.status, 129);
	expect_has(r.err, "'-F comm,+tid' mixes fields with +field or -field");
	th_output_free(&r);
	r = th_perfev("script", "-F", "disk:comm");
	cr_expect_eq(r.status, 129);
	expect_has(r.err, "unknown event kind 'disk' in '-F disk:comm'");
	th_output_free(&r);
	r = th_perfev("script", "-F", "sw:trace");
	cr_expect_eq(r.status, 129);
	expect_has(r.err, "is for tracepoints only");
	th_output_free(&r);
	r = th_perfev("script", "-F", "+colour");
	cr_expect_eq(r.status, 129);
	expect_has(r.err, "unknown field 'colour' in '-F +colour'");
	th_output_free(&r);
}

/*
 * A library whose hot loop calls sin() through its PLT: samples in the stub
 * are "sin@plt", in script and report, as perf names them. User samples only
 * (:u), so that kernel symbols play no part.
 */
/* Writes text to DIR/name; returns the path (static). */
static const char *write_source(const char *name, const char *text)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	th_write_file(path, text);
	return path;
}

Test(cmd_script, plt_stubs_named_like_perf)
{
	char lib[PATH_MAX], exe[PATH_MAX], cmd[4 * PATH_MAX + 256], *a, *b;

	th_need_perf();
	if (!th_have_program("cc"))
		th_skip("no C compiler (cc) to build the workload's library");
	snprintf(lib, sizeof(lib), "%s/libpltwork.so", dir);
	snprintf(exe, sizeof(exe), "%s/pltwork", dir);
	snprintf(cmd, sizeof(cmd), "cc -O1 -fPIC -shared -o '%s' '%s' -lm 2>&1", lib,
		 write_source("plt_lib.c", "#include <math.h>\n"
					   "double plt_work(long n)\n"
					   "{\n"
					   "\tvolatile double acc = 0;\n"
					   "\tfor (long i = 0; i < n; i++)\n"
					   "\t\tacc += sin((double)i);\n"
					   "\treturn acc;\n"
					   "}\n"));
	free(th_sh_ok(cmd));
	snprintf(cmd, sizeof(cmd), "cc -O1 -o '%s' '%s' '%s' -Wl,-rpath,'%s' 2>&1", exe,
		 write_source("plt_main.c", "double plt_work(long n);\n"
					    "int main(void)\n"
					    "{\n"
					    "\treturn plt_work(8000000) > 1e300;\n"
					    "}\n"),
		 lib, dir);
	free(th_sh_ok(cmd));
	/*
	 * The stub is a few bytes of a hot loop: sample every 20 us, and record
	 * again (3 times at most) when no sample happened to land in it.
	 */
	const char *file = NULL;
	for (int tries = 0; tries < 3; tries++) {
		file = perf_record("plt.data", "-e cpu-clock:u -c 20000", exe);
		both(file, NULL, &a, &b);
		if (strstr(b, " sin@plt+0x"))
			break;
		free(a);
		free(b);
		a = b = NULL;
	}
	cr_assert(b, "perf named no sample sin@plt in 3 recordings");
	expect_same_lines(a, b);
	free(a);
	free(b);

	snprintf(cmd, sizeof(cmd), "'%s' report -i '%s' --stdio --sort sym", th_perfev_bin(), file);
	a = th_sh_ok(cmd);
	snprintf(cmd, sizeof(cmd), "perf report -i '%s' --stdio --sort sym 2>/dev/null", file);
	b = th_sh_ok(cmd);
	drop_comments(a);
	drop_comments(b);
	expect_has(a, "[.] sin@plt");
	cr_expect_str_eq(a, b);
	free(a);
	free(b);
}

/* A DSO path that is now a FIFO: script finishes and names nothing in it. */
Test(cmd_script, dso_now_a_fifo)
{
	char cmd[16384], prog[PATH_MAX], file[PATH_MAX], *out = NULL, *err = NULL;

	snprintf(prog, sizeof(prog), "%s/prog", dir);
	snprintf(file, sizeof(file), "%s/fifo.data", dir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", th_test_program("report_work"), prog);
	free(th_sh_ok(cmd));
	/* -N: no cached copy to name it by. */
	snprintf(cmd, sizeof(cmd), "'%s' record -N -e cpu-clock -o '%s' -- '%s' 100 2>&1",
		 th_perfev_bin(), file, prog);
	cr_assert_eq(th_sh(cmd, &out, &err), 0, "%s: %s%s", cmd, out, err);
	free(out);
	free(err);
	cr_assert_eq(unlink(prog), 0);
	cr_assert_eq(mkfifo(prog, 0644), 0);
	/* No build-id cache either (the tests' own holds report_work). */
	snprintf(cmd, sizeof(cmd), "env -u PERF_BUILDID_DIR HOME='%s' timeout 20 '%s' script -i '%s'",
		 dir, th_perfev_bin(), file);
	int rc = th_sh(cmd, &out, &err);
	cr_expect_eq(rc, 0, "%s: %d (124: it hung) %s", cmd, rc, err);
	cr_expect(strstr(out, prog), "samples in the program still name it: %s", out);
	cr_expect(!strstr(out, "report_work_a"), "%s", out);
	free(out);
	free(err);
}

Test(cmd_script, bad_fields_and_files)
{
	char work[PATH_MAX + 8];
	struct th_output r = th_perfev("script", "-F", "comm,colour");

	cr_expect_eq(r.status, 129);
	expect_has(r.err, "unknown field 'colour' in '-F comm,colour'");
	th_output_free(&r);

	r = th_perfev("script", "-i", "/nonexistent/perf.data");
	cr_expect_eq(r.status, 1);
	expect_has(r.err, "perfev: error: ");
	expect_has(r.err, "/nonexistent/perf.data");
	th_output_free(&r);

	th_need_perf();
	snprintf(work, sizeof(work), "%s 30", th_test_program("report_work"));
	const char *f = perf_record("nocpu.data", "-e cpu-clock", work);
	r = th_perfev("script", "-i", f, "-F", "comm,cpu");
	cr_expect_eq(r.status, 1);
	expect_has(r.err, "field 'cpu' needs samples that record it");
	expect_has(r.err, "record with -a or --sample-cpu");
	th_output_free(&r);
}

/* ---- damaged tracing data (tests/fixtures/tracing/sched.data, perf 6.1) ---- */

/* The fixture's bytes, malloc'ed, in *size. */
static unsigned char *read_fixture(size_t *size)
{
	char *path = th_path_join(th_fixtures(), "tracing/sched.data");
	FILE *f = fopen(path, "rb");
	unsigned char *buf = malloc(1 << 20);

	cr_assert(f && buf, "cannot read %s", path);
	*size = fread(buf, 1, 1 << 20, f);
	fclose(f);
	free(path);
	return buf;
}

static const char *write_copy(const char *name, const unsigned char *buf, size_t size)
{
	static char file[PATH_MAX];
	FILE *f;

	snprintf(file, sizeof(file), "%s/%s", dir, name);
	f = fopen(file, "wb");
	cr_assert(f && fwrite(buf, 1, size, f) == size, "cannot write %s", file);
	fclose(f);
	return file;
}

static unsigned char *find_bytes(unsigned char *buf, size_t size, const char *s)
{
	unsigned char *p = memmem(buf, size, s, strlen(s));

	cr_assert_not_null(p, "the fixture has no '%s'", s);
	return p;
}

/*
 * One byte of the sched_switch format changed (1 of about 600 byte-flips of
 * such a file does this): __print_flags(REC->prev_statx ...) names a field
 * the format does not have, and libtraceevent's parser dereferenced NULL for
 * it (process_entry()); perf 6.1 crashes on it too. The format is dropped
 * with a warning, and the other events print as before.
 */
Test(cmd_script, print_fmt_naming_an_unknown_field)
{
	size_t size;
	unsigned char *buf = read_fixture(&size);

	find_bytes(buf, size, "__print_flags(REC->prev_state")[28] = 'x';
	const char *f = write_copy("unknown-field.data", buf, size);
	struct th_output r = th_perfev("script", "-i", f, "-F", "event,trace");

	cr_expect_eq(r.status, 0, "status %d: %s", r.status, r.err);
	expect_has(r.err, "1 event format of its tracing data is malformed and was dropped");
	expect_has(r.out, "sched:sched_process_exec: filename=/usr/bin/sh");
	th_output_free(&r);
	free(buf);
}

/*
 * A dynamic string (sched_process_exec's __data_loc filename) without its
 * NUL: libtraceevent would print it up to whatever NUL follows, past the
 * payload. The payload shows as bytes instead.
 */
Test(cmd_script, dynamic_string_without_nul)
{
	size_t size;
	unsigned char *buf = read_fixture(&size);
	unsigned char *name = find_bytes(buf, size, "/usr/bin/sh");

	/* The payload's end: the string, its NUL, padding up to the record's next 8 bytes. */
	for (unsigned char *p = name + 11; p < name + 12 || (p - buf) % 8 != 0; p++)
		*p = 'X';
	const char *f = write_copy("no-nul.data", buf, size);
	struct th_output r = th_perfev("script", "-i", f, "-F", "event,trace");

	cr_expect_eq(r.status, 0, "status %d: %s", r.status, r.err);
	cr_expect(strstr(r.out, "filename=/usr/bin/shX") == NULL, "%s", r.out);
	expect_has(r.out, "sched:sched_process_exec: [");
	expect_has(r.out, "bytes of payload, no format fits it]");
	th_output_free(&r);
	free(buf);
}

/*
 * A damaged ?: in sched_process_exit's print fmt (found by fuzz_tracing):
 * "REC->group_dead ? gned:0;" passes the checks, every field it names is
 * declared, but libtraceevent's process_op() dereferences NULL on it. The
 * format is parsed in a child first and dropped when the child dies.
 */
Test(cmd_script, print_fmt_crashing_the_parser)
{
	static const char good[] = "REC->group_dead ? \"true\" : \"false\"";
	size_t size;
	unsigned char *buf = read_fixture(&size);
	unsigned char *at = find_bytes(buf, size, good);

	memset(at, ' ', strlen(good));
	memcpy(at, "REC->group_dead ? gned:0;", 25);
	const char *f = write_copy("parser-crash.data", buf, size);
	struct th_output r = th_perfev("script", "-i", f, "-F", "event,trace");

	cr_expect_eq(r.status, 0, "status %d: %s", r.status, r.err);
	expect_has(r.err, "1 event format of its tracing data is malformed and was dropped");
	expect_has(r.out, "sched:sched_switch: prev_comm=");
	th_output_free(&r);
	free(buf);
}

/* ---- a thread with an empty name ---- */

/* Appends v (n bytes) at *at in rec. */
static void put_bytes(unsigned char *rec, size_t *at, const void *v, size_t n)
{
	memcpy(rec + *at, v, n);
	*at += n;
}

/*
 * Writes a file of one cpu-clock event (IP, TID, TIME, PERIOD, CALLCHAIN,
 * sample_id_all) whose thread 4190002 is named "" by its COMM record (as
 * prctl(PR_SET_NAME, "") names a thread), then samples it 3 times.
 */
static void write_empty_comm(const char *path)
{
	const int32_t id = 4190002; /* above any pid this machine hands out soon */
	struct pev_perfdata_writer *w;
	struct pev_error err;
	struct pev_attr a;
	unsigned char rec[128];
	size_t at;
	int32_t pidtid[2] = {id, id};
	uint64_t time = 1000000000, period = 250000, nr = 3;
	uint64_t chain[3] = {PEV_CONTEXT_USER, 0x7f0000001005, 0x7f0000002010};

	memset(&a, 0, sizeof(a));
	a.type = PEV_TYPE_SOFTWARE;
	a.size = PEV_ATTR_SIZE_LATEST;
	a.config = PEV_SW_CPU_CLOCK;
	a.sample_period = period;
	a.sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_TID | PEV_SAMPLE_TIME | PEV_SAMPLE_PERIOD |
			PEV_SAMPLE_CALLCHAIN;
	a.flags = PEV_ATTR_SAMPLE_ID_ALL;
	cr_assert_eq(pev_perfdata_writer_open(path, PEV_PERFDATA_WRITER_NO_MACHINE, &w, &err), 0,
		     "%s", err.message);
	cr_assert_geq(pev_perfdata_writer_add_event(w, &a, "cpu-clock", NULL, 0, &err), 0, "%s",
		      err.message);
	/* COMM: pid, tid, "" padded to 8, then the trailer (pid, tid, time). */
	memset(rec, 0, sizeof(rec));
	at = 8;
	put_bytes(rec, &at, pidtid, 8);
	at += 8;
	put_bytes(rec, &at, pidtid, 8);
	put_bytes(rec, &at, &time, 8);
	memcpy(rec, &(struct pev_event_header){.type = PEV_RECORD_COMM, .size = (uint16_t)at}, 8);
	cr_assert_eq(pev_perfdata_writer_write(w, rec, at, &err), 0, "%s", err.message);
	for (int i = 0; i < 3; i++) {
		memset(rec, 0, sizeof(rec));
		at = 8;
		time += 250000;
		put_bytes(rec, &at, &chain[1], 8);
		put_bytes(rec, &at, pidtid, 8);
		put_bytes(rec, &at, &time, 8);
		put_bytes(rec, &at, &period, 8);
		put_bytes(rec, &at, &nr, 8);
		put_bytes(rec, &at, chain, sizeof(chain));
		memcpy(rec, &(struct pev_event_header){.type = PEV_RECORD_SAMPLE,
						       .misc = PEV_RECORD_MISC_USER,
						       .size = (uint16_t)at},
		       8);
		cr_assert_eq(pev_perfdata_writer_write(w, rec, at, &err), 0, "%s", err.message);
	}
	cr_assert_eq(pev_perfdata_writer_finish(w, &err), 0, "%s", err.message);
	pev_perfdata_writer_close(w);
}

/*
 * A thread named "" (the first text of the output, a call chain's line:
 * copied with no padding, zero bytes into a buffer not yet allocated, which
 * UndefinedBehaviorSanitizer reports) prints as perf prints it, with and
 * without its call chain; the ASan+UBSan build runs this too (.ci/run).
 */
Test(cmd_script, empty_thread_name_like_perf)
{
	char f[PATH_MAX];

	snprintf(f, sizeof(f), "%s/empty-comm.data", dir);
	write_empty_comm(f);
	for (int g = 0; g < 2; g++) {
		struct th_output r = th_perfev("script", "-i", f, g ? "-G" : "--ns");

		cr_expect_eq(r.status, 0, "status %d: %s", r.status, r.err);
		cr_expect(!strstr(r.err, "runtime error"), "%s", r.err);
		cr_expect_eq(count_samples(r.out), 3, "%s", r.out);
		if (th_have_program("perf")) {
			char cmd[PATH_MAX + 64];
			snprintf(cmd, sizeof(cmd), "perf script -i '%s' %s 2>/dev/null", f,
				 g ? "-G" : "--ns");
			char *perfs = th_sh_ok(cmd);
			cr_expect_str_eq(r.out, perfs, "perfev:\n%s\nperf:\n%s", r.out, perfs);
			free(perfs);
		}
		th_output_free(&r);
	}
}

/*
 * A ':S' group's leader reads every member's count in its samples
 * (PERF_SAMPLE_READ with PERF_FORMAT_GROUP): perf script prints one line
 * per member whose count grew, named after it, with the growth since its
 * read before as the period (the whole count at the first read), and the
 * sample's address and symbol on each; a member that did not grow prints
 * nothing. perfev script prints the same lines, byte for byte, with the
 * default fields and with -F lists (xz compressing perfev's own binary).
 */
Test(cmd_script, group_reads_one_line_per_member_like_perf)
{
	static const char *const fields[] = {NULL, "comm,tid,time,period,event,ip,sym",
					     "period,event", "event,period,ip,sym,dso"};
	char work[PATH_MAX + 64];

	th_need_perf();
	if (!th_have_program("xz"))
		th_skip("xz is not installed (Debian: apt-get install xz-utils)");
	/* xz itself, not a shell: perf 6.1 reads a ':S' group of the process it starts only. */
	snprintf(work, sizeof(work), "-- xz -9 -k -c '%s' >/dev/null", th_perfev_bin());
	const char *f = perf_record("group.data", "-e '{cpu-clock,page-faults}:S'", work);
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		char *a, *b;
		both(f, fields[i], &a, &b);
		cr_assert_gt(count_lines(b), 1000, "perf printed little:\n%.2000s", b);
		cr_expect(strstr(b, "page-faults"), "perf printed no member's line:\n%.2000s", b);
		cr_expect(strcmp(a, b) == 0, "-F %s: perfev's lines are not perf's",
			  fields[i] ? fields[i] : "(default)");
		expect_same_lines(a, b);
		free(a);
		free(b);
	}
}
