/* SPDX-License-Identifier: MIT */
/*
 * test_buildid_cache.c - symbols and debuginfo where perf and gdb find
 * them, compared with perf on the same perf.data:
 *
 *   - a stripped program whose unstripped build sits in perf's build-id
 *     cache ($HOME/.debug/.build-id/xx/rest -> ../../PATH/BUILD-ID/elf):
 *     report and script name its functions as perf does;
 *   - a stripped program whose debug file (objcopy --only-keep-debug) sits
 *     in a debug directory by build id (DIR/.build-id/xx/rest.debug): perf
 *     reads it through --symfs, perfev through PERFEV_DEBUG_DIR; functions
 *     and source lines as perf names them;
 *   - a MiniDebugInfo program (.gnu_debugdata, an xz-compressed ELF with a
 *     .symtab, made as Fedora makes them): named as the newest perf names it
 *     (perf 6.1 does not read .gnu_debugdata);
 *   - `perfev record` fills the cache as `perf record` does (perf lists
 *     perfev's entries; -N leaves it alone), so a recording reads right
 *     after the program changed, in perf and in perfev;
 *   - a real program (sort): libc's debug file travels in the cache;
 *   - `perfev buildid-cache`: -a, -l, -r, -M and -i against perf's
 *     buildid-cache on the same cache;
 *   - libdebuginfod is never loaded without DEBUGINFOD_URLS.
 *
 * The workload is perfdata_spin (its time in perfdata_spin_hot), copied
 * into the test's directory. Every command runs with HOME in that
 * directory and without PERF_BUILDID_DIR (perf reads its cache from HOME
 * alone), so no cache outside the test is read or written.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"

static const char *dir;

static void setup(void);
TestSuite(buildid_cache, .init = setup, .fini = th_leak_fini, .timeout = 240);


static void setup(void)
{
	th_leak_init();
	dir = th_temp_dir("bidc");
	/* perf writes no cache into a HOME that does not exist. */
	free(th_sh_okf("cd '%s' && mkdir home h ours perfs empty none", dir));
}

/* The environment prefix of every command: HOME=dir/NAME, no PERF_BUILDID_DIR. */
static const char *home(const char *name)
{
	static char buf[4][PATH_MAX + 64];
	static int next;
	char *b = buf[next++ % 4];

	snprintf(b, sizeof(buf[0]), "env -u PERF_BUILDID_DIR -u DEBUGINFOD_URLS HOME='%s/%s'", dir,
		 name);
	return b;
}

/* dir/name, in one of 4 static buffers. */
static const char *at(const char *name)
{
	static char buf[4][PATH_MAX];
	static int next;
	char *b = buf[next++ % 4];

	snprintf(b, sizeof(buf[0]), "%s/%s", dir, name);
	return b;
}

/* The build id of file in hex (malloc'ed). */
static char *build_id(const char *file)
{
	char *s = th_sh_okf("readelf -n '%s' | awk '/Build ID/ {print $3}'", file);

	s[strcspn(s, "\n")] = '\0';
	cr_assert_eq(strlen(s), 40, "no build id in %s", file);
	return s;
}

/* dir/prog: a copy of the workload, unstripped (-g). */
static const char *program(void)
{
	free(th_sh_okf("cp '%s' '%s'", th_test_program("perfdata_spin"), at("prog")));
	return at("prog");
}

/* Replaces file with a stripped copy (a new inode: a hard link to the old one keeps it). */
static void strip_in_place(const char *file)
{
	free(th_sh_okf("strip --strip-all -o '%s.s' '%s' && mv '%s.s' '%s'", file, file, file, file));
	char *t = th_sh_okf("readelf -S '%s' | grep -c '\\.symtab' || true", file);
	cr_assert_eq(atoi(t), 0, "%s still has a .symtab", file);
	free(t);
}

/* perf record (-N: its cache is left alone) of prog into dir/name; HOME=dir/h. */
static const char *perf_record(const char *name, const char *h)
{
	free(th_sh_okf("%s perf record -q -N -e cpu-clock -F 2000 -o '%s' '%s' 200 2>&1", home(h), at(name),
		at("prog")));
	return at(name);
}

/*
 * The rows of `TOOL report --sort KEYS` on file that name the program's
 * DSO "prog" (a word: the kernel's __bpf_prog_enter_recur is not it) or
 * its functions, whitespace squeezed; HOME=dir/h, extra arguments after.
 * NULL where TOOL ran past 120 s (scaled): perf 6.1's srcline sort talks
 * to addr2line through two pipes and deadlocks with it now and then (seen
 * in the arm64 lab: perf and addr2line each waiting to read the other).
 */
static char *rows(const char *tool, const char *h, const char *file, const char *keys,
		  const char *extra)
{
	char raw[PATH_MAX];
	snprintf(raw, sizeof(raw), "%s/rows.out", dir); /* not at(): file may be one of its buffers */
	char *out = th_sh_okf("timeout %d %s %s report --stdio -i '%s' --sort %s %s > '%s' "
			      "2>/dev/null; if [ $? = 124 ]; then echo '<timeout>'; else "
			      "grep -v '^#' '%s' | grep -E '[[:space:]]prog[[:space:]]|perfdata_spin' | "
			      "tr -s ' ' | sort; fi",
			      120 * th_time_scale(), home(h), tool, file, keys, extra, raw, raw);

	if (strcmp(out, "<timeout>\n") != 0)
		return out;
	free(out);
	cr_assert(strstr(keys, "srcline"), "%s report --sort %s ran past its time", tool, keys);
	return NULL;
}

/* `TOOL script -F comm,ip,sym,dso` lines of the program, squeezed; HOME=dir/h. */
static char *script_lines(const char *tool, const char *h, const char *file, const char *extra)
{
	return th_sh_okf("%s %s script -i '%s' -F comm,ip,sym,dso %s 2>/dev/null | grep -F '(%s)' | "
		  "tr -s ' '",
		  home(h), tool, file, extra, at("prog"));
}

/* Removes the lines of text that end in suffix, in place. */
static void drop_lines_ending(char *text, const char *suffix)
{
	size_t sl = strlen(suffix);
	char *out = text;

	for (char *line = text; *line;) {
		char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line + 1) : strlen(line);
		size_t body = len - (end != NULL);
		if (!(body >= sl && memcmp(line + body - sl, suffix, sl) == 0)) {
			memmove(out, line, len);
			out += len;
		}
		line += len;
	}
	*out = '\0';
}

/* Removes the lines of text that name a C++ function ("::"), in place. */
static void drop_cxx_rows(char *text)
{
	char *out = text;

	for (char *line = text; *line;) {
		char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line + 1) : strlen(line);
		bool cxx = false;

		for (size_t i = 0; i + 1 < len; i++)
			cxx |= line[i] == ':' && line[i + 1] == ':';
		if (!cxx) {
			memmove(out, line, len);
			out += len;
		}
		line += len;
	}
	*out = '\0';
}

/* Expects perf's and perfev's reports and scripts of file alike, naming perfdata_spin_hot. */
static void expect_named_like_perf(const char *perf, const char *h, const char *file,
				   const char *perf_extra, const char *our_env)
{
	char ours_tool[PATH_MAX + 256];

	snprintf(ours_tool, sizeof(ours_tool), "%s '%s'", our_env, th_perfev_bin());
	char *a = rows(perf, h, file, "dso,sym", perf_extra), *b = rows(ours_tool, h, file, "dso,sym", "");
	expect_has(a, "perfdata_spin_hot");
	cr_expect_str_eq(b, a, "perfev report:\n%s\nperf report:\n%s", b, a);
	free(a);
	free(b);
	a = script_lines(perf, h, file, perf_extra);
	b = script_lines(ours_tool, h, file, "");
	expect_has(a, "perfdata_spin_hot");
	cr_expect_str_eq(b, a, "perfev script and perf script differ");
	free(a);
	free(b);
}

/* The acceptance of issue 21, item 3: the stripped binary, its unstripped build in ~/.debug. */
Test(buildid_cache, stripped_binary_named_from_the_cache_like_perf)
{
	th_need_perf();
	const char *prog = program();
	struct th_output r;

	/* Cached before it was stripped, as `perf buildid-cache -a` would. */
	free(th_sh_okf("%s '%s' buildid-cache -a '%s'", home("home"), th_perfev_bin(), prog));
	strip_in_place(prog);
	const char *data = perf_record("p.data", "home");

	expect_named_like_perf("perf", "home", data, "", "");
	/* Without the cache there is nothing to name it by: the test tests the cache. */
	char *bare = rows(th_perfev_bin(), "empty", data, "dso,sym", "");
	expect_lacks(bare, "perfdata_spin_hot");
	free(bare);
	r = th_perfev("buildid-cache", "-h");
	cr_expect_eq(r.status, 0);
	th_output_free(&r);
}

/* perf's own cache entry (written by perf buildid-cache) is read the same way. */
Test(buildid_cache, entry_perf_wrote_is_read)
{
	th_need_perf();
	const char *prog = program();

	free(th_sh_okf("%s perf buildid-cache -a '%s'", home("home"), prog));
	strip_in_place(prog);
	expect_named_like_perf("perf", "home", perf_record("p.data", "home"), "", "");
}

/* A debug file by build id under a debug directory: perf --symfs, perfev PERFEV_DEBUG_DIR. */
Test(buildid_cache, debug_file_by_build_id_like_perf)
{
	th_need_perf();
	const char *prog = program();
	char *bid = build_id(prog), sub[PATH_MAX], opt[PATH_MAX + 16], env[PATH_MAX + 32];

	snprintf(sub, sizeof(sub), "%s/symfs/usr/lib/debug/.build-id/%.2s", dir, bid);
	free(th_sh_okf("mkdir -p '%s' '%s/symfs%s' && objcopy --only-keep-debug '%s' '%s/%s.debug'", sub, dir,
		dir, prog, sub, bid + 2));
	strip_in_place(prog);
	/* perf --symfs reads the program from the same tree. */
	free(th_sh_okf("cp '%s' '%s/symfs%s/prog'", prog, dir, dir));
	const char *data = perf_record("p.data", "empty");
	snprintf(opt, sizeof(opt), "--symfs='%s/symfs'", dir);
	snprintf(env, sizeof(env), "PERFEV_DEBUG_DIR='%s/symfs/usr/lib/debug'", dir);

	expect_named_like_perf("perf", "empty", data, opt, env);
	/*
	 * Source lines come from the debug file too. The program's samples
	 * alone (--dsos): perf 6.1 runs addr2line for every address it sorts
	 * by srcline, the kernel's included, which took over 40 minutes in
	 * the arm64 lab.
	 */
	char ours_tool[PATH_MAX + 256], perf_opt[PATH_MAX + 64];
	snprintf(ours_tool, sizeof(ours_tool), "%s '%s'", env, th_perfev_bin());
	snprintf(perf_opt, sizeof(perf_opt), "%s --dsos prog", opt);
	char *a = rows("perf", "empty", data, "sym,srcline", perf_opt);
	if (!a) {
		th_skip_log("perf report --sort srcline ran past its time (perf 6.1 and addr2line "
			    "deadlock now and then): source lines not compared");
		free(bid);
		return;
	}
	char *b = rows(ours_tool, "empty", data, "sym,srcline", "--dsos prog");
	cr_assert_not_null(b, "perfev report --sort sym,srcline ran past its time");
	expect_has(a, "perfdata_spin.c:");
	/* An address of main with no line row (a sample now and then): perf says
	 * "perfdata_spin.c:0" from its CU, perfev "main+OFF" (docs/PERF_DIFFERENCES.md). */
	drop_lines_ending(a, ".c:0");
	cr_expect_str_eq(b, a, "perfev:\n%s\nperf:\n%s", b, a);
	free(a);
	free(b);
	free(bid);
}

/* Fedora's MiniDebugInfo: the functions' symbols in an xz-compressed ELF in .gnu_debugdata. */
Test(buildid_cache, minidebuginfo_like_newest_perf)
{
	if (!th_have_program("xz") || !th_have_program("objcopy"))
		th_skip("xz or objcopy is not installed: no MiniDebugInfo file can be made");
	const char *prog = program();

	/* Fedora's recipe (find-debuginfo): the function symbols .dynsym lacks. */
	free(th_sh_okf("cd '%s' && nm -D prog --format=posix --defined-only | awk '{print $1}' | sort > dyn"
		" && nm prog --format=posix --defined-only | awk '$2 ~ /^[TtD]$/ {print $1}' | sort"
		" > funcs && comm -13 dyn funcs > keep"
		" && objcopy --only-keep-debug prog mini.dbg"
		" && objcopy -S --remove-section .gdb_index --remove-section .comment"
		" --keep-symbols=keep mini.dbg mini"
		" && strip --strip-all -R .comment prog && xz -f mini"
		" && objcopy --add-section .gnu_debugdata=mini.xz prog",
		dir));
	char *t = th_sh_okf("readelf -S '%s' | grep -c 'gnu_debugdata\\|symtab' || true", prog);
	cr_assert_eq(atoi(t), 1, "prog has .gnu_debugdata and no .symtab");
	free(t);
	free(th_sh_okf("%s '%s' record -q -N -e cpu-clock -F 2000 -o '%s' '%s' 200 2>&1", home("empty"),
		th_perfev_bin(), at("p.data"), prog));
	char *ours = rows(th_perfev_bin(), "empty", at("p.data"), "dso,sym", "");
	expect_has(ours, "[.] perfdata_spin_hot");
	/* The newest perf (../shared/tools/perf-latest beside the tree) reads .gnu_debugdata. */
	const char *latest = th_perf_latest();
	if (latest) {
		/* The C functions' rows: perf 7 shows C++ names (a sanitizer's, in a
		 * sanitized build) with their parameters, perf 6.1 and perfev without. */
		char *theirs = rows(latest, "empty", at("p.data"), "dso,sym", "");
		drop_cxx_rows(ours);
		drop_cxx_rows(theirs);
		cr_expect_str_eq(ours, theirs, "perfev:\n%s\nperf 7:\n%s", ours, theirs);
		free(theirs);
	}
	free(ours);
}

/* perfev record fills the cache as perf record does; -N does not; the file then reads right. */
Test(buildid_cache, record_fills_the_cache_like_perf)
{
	th_need_perf();
	const char *prog = program();
	char *bid = build_id(prog);

	free(th_sh_okf("%s '%s' record -q -e cpu-clock -F 2000 -o '%s' '%s' 200 2>&1", home("ours"),
		th_perfev_bin(), at("ours.data"), prog));
	free(th_sh_okf("%s perf record -q -e cpu-clock -F 2000 -o '%s' '%s' 200 2>&1", home("perfs"),
		at("perf.data"), prog));
	/* perf lists perfev's entry as its own, and perfev lists both alike. */
	char *perf_ours = th_sh_okf("%s perf buildid-cache -l | grep -F '%s' | sort", home("ours"), prog);
	char *perf_perfs = th_sh_okf("%s perf buildid-cache -l | grep -F '%s' | sort", home("perfs"), prog);
	char *ours_ours = th_sh_okf("%s '%s' buildid-cache -l | grep -F '%s' | sort", home("ours"),
			     th_perfev_bin(), prog);
	char want[PATH_MAX + 64];
	snprintf(want, sizeof(want), "%s %s\n", bid, prog);
	cr_expect_str_eq(perf_ours, want);
	cr_expect_str_eq(perf_perfs, want);
	cr_expect_str_eq(ours_ours, want);
	free(perf_ours);
	free(perf_perfs);
	free(ours_ours);
	free(th_sh_okf("cmp '%s/ours/.debug/.build-id/%.2s/%s/elf' '%s'", dir, bid, bid + 2, prog));

	/* The program changes (another build at its path): the cache still names it. */
	/* Replaced as a linker or a package manager does: a new file, not a write into the old one
	 * (which the cache's hard link shares, as perf's does). */
	free(th_sh_okf("rm '%s' && cp '%s' '%s' && strip '%s'", prog, th_test_program("report_work"), prog,
		prog));
	expect_named_like_perf("perf", "ours", at("ours.data"), "", "");
	char *bare = rows(th_perfev_bin(), "empty", at("ours.data"), "dso,sym", "");
	expect_lacks(bare, "perfdata_spin_hot");
	free(bare);

	/* -N leaves the cache alone. */
	free(th_sh_okf("%s '%s' record -q -N -e cpu-clock -o '%s' '%s' 50 2>&1", home("none"),
		th_perfev_bin(), at("n.data"), th_test_program("perfdata_spin")));
	struct stat st;
	cr_expect_neq(stat(at("none/.debug"), &st), 0, "-N wrote %s", at("none/.debug"));
	free(bid);
}

/*
 * A real program (Debian's sort, which spends its time comparing lines in
 * libc, and its libc with libc6-dbg's debug file): perfev
 * record caches libc with its debug file; with the debuginfo tree gone (as
 * on a machine without libc6-dbg), perfev report still names libc's local
 * functions from the cache, as perf names them with the tree.
 */
Test(buildid_cache, real_program_debuginfo_travels_in_the_cache)
{
	th_need_perf();
	char *libc = th_sh_okf("ldd /usr/bin/sort | awk '/libc.so.6/ {print $3}'");
	libc[strcspn(libc, "\n")] = '\0';
	char *bid = build_id(libc), debug[PATH_MAX];

	snprintf(debug, sizeof(debug), "/usr/lib/debug/.build-id/%.2s/%s.debug", bid, bid + 2);
	if (access(debug, R_OK) != 0)
		th_skip("no debug file for %s (libc6-dbg is not installed)", libc);
	free(th_sh_okf("head -c 3000000 /dev/urandom | base64 > '%s'", at("input")));
	free(th_sh_okf("%s '%s' record -q -e cpu-clock -F 4000 -o '%s' -- env LC_ALL=C.UTF-8 sort -r '%s'"
		" > /dev/null",
		home("h"), th_perfev_bin(), at("p.data"), at("input")));
	free(th_sh_okf("cmp '%s/h/.debug/.build-id/%.2s/%s/debug' '%s'", dir, bid, bid + 2, debug));
	char *a = th_sh_okf("%s perf report --stdio -i '%s' -g none --no-children --sort dso,sym 2>/dev/null"
		     " | grep -F '[.]'",
		     home("h"), at("p.data"));
	char *b = th_sh_okf("%s PERFEV_DEBUG_DIR=/nonexistent '%s' report --stdio -i '%s' -g none "
		     "--no-children --sort dso,sym 2>/dev/null | grep -F '[.]'",
		     home("h"), th_perfev_bin(), at("p.data"));
	expect_has(a, "libc.so.6");
	cr_expect_str_eq(b, a, "perfev (cache only):\n%s\nperf:\n%s", b, a);
	free(a);
	free(b);
	free(bid);
	free(libc);
}

/* PERF_BUILDID_DIR, which perf sets for its scripts, names the cache for perfev. */
Test(buildid_cache, perf_buildid_dir_names_the_cache)
{
	const char *prog = program();
	char *out;

	free(th_sh_okf("env PERF_BUILDID_DIR='%s/c' HOME='%s/h' '%s' record -q -e cpu-clock -F 2000 -o '%s'"
		" '%s' 200 2>&1",
		dir, dir, th_perfev_bin(), at("p.data"), prog));
	struct stat st;
	cr_expect_eq(stat(at("c/.build-id"), &st), 0, "no cache in $PERF_BUILDID_DIR");
	cr_expect_neq(stat(at("h/.debug"), &st), 0, "$HOME/.debug written");
	strip_in_place(prog);
	out = th_sh_okf("env PERF_BUILDID_DIR='%s/c' HOME='%s/h' '%s' report --stdio -i '%s' --sort sym",
		 dir, dir, th_perfev_bin(), at("p.data"));
	expect_has(out, "perfdata_spin_hot");
	free(out);
}

/* -a, -l, -r, -M and -i against perf buildid-cache on the same cache. */
Test(buildid_cache, command_like_perf)
{
	th_need_perf();
	const char *prog = program();
	const char *data = perf_record("p.data", "h");
	char *a, *b;

	/* -M: what the recording names that the cache lacks, as perf lists it. */
	a = th_sh_okf("%s perf buildid-cache -M '%s'", home("h"), data);
	b = th_sh_okf("%s '%s' buildid-cache -M '%s'", home("h"), th_perfev_bin(), data);
	expect_has(a, prog);
	cr_expect_str_eq(b, a);
	free(a);
	free(b);
	/* -i: fills the cache from the recording; perf then misses the program no more. */
	free(th_sh_okf("%s '%s' buildid-cache -i '%s'", home("h"), th_perfev_bin(), data));
	a = th_sh_okf("%s perf buildid-cache -M '%s'", home("h"), data);
	b = th_sh_okf("%s '%s' buildid-cache -M '%s'", home("h"), th_perfev_bin(), data);
	expect_lacks(a, prog);
	cr_expect_str_eq(b, a);
	free(a);
	free(b);
	a = th_sh_okf("%s perf buildid-cache -l | sort", home("h"));
	b = th_sh_okf("%s '%s' buildid-cache -l", home("h"), th_perfev_bin());
	expect_has(a, prog);
	cr_expect_str_eq(b, a);
	free(a);
	free(b);
	/* -r: the entry goes, for perf too. */
	b = th_sh_okf("%s '%s' buildid-cache -v -r '%s'", home("h"), th_perfev_bin(), prog);
	expect_has(b, "Removing ");
	free(b);
	a = th_sh_okf("%s perf buildid-cache -l", home("h"));
	expect_lacks(a, prog);
	free(a);
	/* -a of something that is not ELF: an error that says so. */
	struct th_output r = th_perfev("buildid-cache", "-a", at("p.data"));
	cr_expect_eq(r.status, 1);
	expect_has(r.err, "not an ELF file with a build id");
	th_output_free(&r);
	r = th_perfev("buildid-cache");
	cr_expect_eq(r.status, 129);
	th_output_free(&r);
}

/* libdebuginfod (and its network libraries) stay unloaded unless DEBUGINFOD_URLS is set. */
Test(buildid_cache, no_debuginfod_unless_asked)
{
	const char *prog = program();

	strip_in_place(prog);
	free(th_sh_okf("%s '%s' record -q -N -e cpu-clock -o '%s' '%s' 50 2>&1", home("h"),
		th_perfev_bin(), at("p.data"), prog));
	/* Nothing on disk to find: the search ends where debuginfod would be asked. */
	char *libs = th_sh_okf("%s LD_DEBUG=libs '%s' report --stdio -i '%s' --sort sym 2>&1 >/dev/null | "
			"grep -c 'calling init:.*libdebuginfod' || true",
			home("h"), th_perfev_bin(), at("p.data"));
	cr_expect_eq(atoi(libs), 0, "libdebuginfod was loaded");
	free(libs);
}
