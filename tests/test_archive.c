/* SPDX-License-Identifier: MIT */
/*
 * test_archive.c - `perfev archive`: a recording read on "another
 * machine", compared with perf on the same file.
 *
 *   - a program recorded by perfev record, archived, unpacked into an
 *     empty cache (by `perfev archive --unpack` and by plain `tar xzf`),
 *     the program deleted: perfev report names its functions as before,
 *     and as perf report does with the unpacked cache;
 *   - a real program (Debian's sort, a copy deleted after recording) with
 *     libc's debug file in the archive: libc's local functions named from
 *     the unpacked cache alone, as perf names them;
 *   - the .tar.bz2 perf's own `perf archive` makes, unpacked by perfev;
 *   - names longer than ustar's fields (pax headers) read by GNU tar;
 *   - hostile archives (".." names, absolute names, links leading out of
 *     the cache, entries below a link, devices, hard links out, a truncated
 *     gzip, a link planted in the cache) refused with a message that says
 *     why, and nothing written anywhere, the cache included.
 *
 * Every command names its cache: PERF_BUILDID_DIR for perfev, HOME for
 * perf (perf 6.1 reads buildid.dir from its configuration, else
 * $HOME/.debug, never PERF_BUILDID_DIR), all inside the test's directory.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"

static const char *dir;

static void setup(void);
TestSuite(archive, .init = setup, .fini = th_leak_fini, .timeout = 240);


/* Runs the formatted shell command; returns its status, its output and errors in *out, *err. */
__attribute__((format(printf, 3, 4))) static int sh_status(char **out, char **err, const char *fmt,
                                                           ...)
{
	char cmd[16384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return th_sh(cmd, out, err);
}

static void setup(void)
{
	th_leak_init();
	dir = th_temp_dir("archive");
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

/* The environment of a perfev command with its cache in dir/cache (PERFEV_DEBUG_DIR: none). */
static const char *ours(const char *cache)
{
	static char buf[4][2 * PATH_MAX];
	static int next;
	char *b = buf[next++ % 4];

	snprintf(b, sizeof(buf[0]),
	         "env -u DEBUGINFOD_URLS PERF_BUILDID_DIR='%s/%s' HOME='%s/nohome' "
	         "PERFEV_DEBUG_DIR=/nonexistent '%s'",
	         dir, cache, dir, th_perfev_bin());
	return b;
}

/* The environment of a perf command with its cache in dir/HOME/.debug. */
static const char *perf(const char *home)
{
	static char buf[4][PATH_MAX + 128];
	static int next;
	char *b = buf[next++ % 4];

	snprintf(b, sizeof(buf[0]), "env -u PERF_BUILDID_DIR -u DEBUGINFOD_URLS HOME='%s/%s' perf",
	         dir, home);
	return b;
}

/* The user-space rows of `report --sort dso,sym` (tool: ours() or perf()), squeezed and sorted. */
static char *rows(const char *tool, const char *file)
{
	return th_sh_okf("%s report --stdio -i '%s' -g none --no-children --sort dso,sym 2>/dev/null | "
	          "grep -F '[.]' | tr -s ' ' | sort",
	          tool, file);
}

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Rows (rows()'s text) with a PLT stub's name, perfev's "NAME@plt" or
 * perf's "_init", written "<plt>" (th_plt_as_one_text) and sorted again.
 * Returns a malloc'ed text.
 */
static char *plt_as_one(const char *text)
{
	char *t = th_plt_as_one_text(strdup(text)), *out = malloc(strlen(text) + 2), **v;
	size_t n = 0, w = 0;

	v = calloc(strlen(t) + 1, sizeof(*v));
	cr_assert(out && v);
	for (char *save, *l = strtok_r(t, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		v[n++] = l;
	qsort(v, n, sizeof(*v), compare_strings);
	out[0] = '\0';
	for (size_t i = 0; i < n; i++)
		w += (size_t)sprintf(out + w, "%s\n", v[i]);
	free(v);
	free(t);
	return out;
}

/*
 * perf's rows (p) are perfev's (ours), but where perf names a sample in a
 * PLT stub "_init" and perfev "NAME@plt" (th_plt_named_init; seen in the
 * arm64 guest: perf's `prog [.] _init` for perfev's
 * `prog [.] __libc_start_main@plt`).
 */
static void expect_perf_rows(const char *p, const char *ours, const char *what)
{
	char *a = plt_as_one(p), *b = plt_as_one(ours);

	cr_expect_str_eq(a, b, "perf:\n%s\nperfev %s:\n%s", p, what, ours);
	free(a);
	free(b);
}

/* How many entries (files, links, directories) are under dir/name; 0 when it does not exist. */
static int entries(const char *name)
{
	char *t = th_sh_okf("find '%s/%s' -mindepth 1 2>/dev/null | wc -l", dir, name);
	int n = atoi(t);

	free(t);
	return n;
}

/*
 * Records cmd (a command line) with perfev into dir/p.data, its cache
 * dir/c1, debug files from /usr/lib/debug (cached beside their files).
 */
static void record(const char *cmd)
{
	free(th_sh_okf("env -u DEBUGINFOD_URLS -u PERFEV_DEBUG_DIR PERF_BUILDID_DIR='%s' '%s' record -q "
	        "-e cpu-clock -F 2000 -o '%s' -- %s > /dev/null 2>&1",
	        at("c1"), th_perfev_bin(), at("p.data"), cmd));
}

/*
 * Archives dir/p.data from cache c1, unpacks it into c2 (perfev) and
 * h3/.debug (tar xzf); checks the hint and the archive's listing.
 */
static void archive_and_unpack(void)
{
	char *out = th_sh_okf("%s archive '%s' 2>&1", ours("c1"), at("p.data"));
	expect_has(out, "Now please run:");
	expect_has(out, "tar xvf ");
	expect_has(out, "p.data.tar.gz -C ~/.debug");
	free(out);
	/* GNU tar reads it: the .build-id links as links, the entries' files. */
	out = th_sh_okf("tar tvzf '%s'", at("p.data.tar.gz"));
	expect_has(out, " .build-id/");
	if (!strstr(out, "/elf")) {
		/* Say what the recording names and what its cache holds. */
		char *ids = th_sh_okf("perf buildid-list -i '%s' 2>&1; find '%s'", at("p.data"), at("c1"));
		cr_expect_fail("no elf file in the archive:\n%s\nthe recording and its cache:\n%s",
		               out, ids);
		free(ids);
	}
	cr_expect(strstr(out, "\nl") || out[0] == 'l', "no symbolic link in: %s", out);
	free(out);
	out = th_sh_okf("%s archive --unpack '%s'", ours("c2"), at("p.data.tar.gz"));
	expect_has(out, "unpacked into");
	free(out);
	free(th_sh_okf("mkdir -p '%s' && tar xzf '%s' -C '%s'", at("h3/.debug"), at("p.data.tar.gz"),
	        at("h3/.debug")));
	/* Both ways make the same tree. */
	free(th_sh_okf("diff -r --no-dereference '%s' '%s'", at("c2"), at("h3/.debug")));
}

/* The acceptance: a recording reads right elsewhere, in perfev and in perf. */
Test(archive, program_reads_right_after_unpacking_like_perf)
{
	th_need_perf();
	free(th_sh_okf("cp '%s' '%s'", th_test_program("perfdata_spin"), at("prog")));
	record(at("prog"));
	char *before = rows(ours("c1"), at("p.data"));
	expect_has(before, "perfdata_spin_hot");
	archive_and_unpack();
	/* --exclude-buildids takes perf buildid-list's lines, as perf archive's option does. */
	free(th_sh_okf("cd '%s' && perf buildid-list -i p.data | grep -F /prog > ids && "
	        "%s archive -o x.tar.gz --exclude-buildids ids p.data > /dev/null",
	        dir, ours("c1")));
	char *list = th_sh_okf("tar tzf '%s'", at("x.tar.gz"));
	expect_lacks(list, "/prog/");
	expect_has(list, ".build-id/");
	free(list);

	/* "Another machine": the program and the cache it was recorded with are gone. */
	free(th_sh_okf("rm -r '%s' '%s'", at("prog"), at("c1")));
	char *bare = rows(ours("empty"), at("p.data"));
	expect_lacks(bare, "perfdata_spin_hot");
	char *a = rows(ours("c2"), at("p.data")), *b = rows(ours("h3/.debug"), at("p.data"));
	char *p = rows(perf("h3"), at("p.data"));
	cr_expect_str_eq(a, before, "after --unpack:\n%s\nbefore:\n%s", a, before);
	cr_expect_str_eq(b, before, "after tar xzf:\n%s\nbefore:\n%s", b, before);
	expect_perf_rows(p, before, "before");
	free(a);
	free(b);
	free(p);
	free(bare);
	free(before);

	/* Unpacked again: every entry is there already and is kept. */
	char *out = th_sh_okf("%s archive --unpack '%s'", ours("c2"), at("p.data.tar.gz"));
	expect_has(out, "0 files and links unpacked");
	free(out);
}

/*
 * A real program: a copy of Debian's sort, which spends its time in libc
 * (whose debug file, from libc6-dbg, travels in the archive), deleted after
 * the recording. perfev reads no debug directory (PERFEV_DEBUG_DIR is
 * /nonexistent): libc's local functions come from the unpacked cache.
 */
Test(archive, real_program_reads_right_after_unpacking_like_perf)
{
	th_need_perf();
	free(th_sh_okf("cp /usr/bin/sort '%s' && head -c 3000000 /dev/urandom | base64 > '%s'", at("sort"),
	        at("input")));
	char cmd[3 * PATH_MAX];
	snprintf(cmd, sizeof(cmd), "env LC_ALL=C.UTF-8 '%s' -r '%s'", at("sort"), at("input"));
	record(cmd);
	char *before = rows(ours("c1"), at("p.data"));
	expect_has(before, "libc.so.6");
	expect_has(before, "sort");
	archive_and_unpack();

	char *libc = th_sh_okf("ldd /usr/bin/sort | awk '/libc.so.6/ {print $3}' | xargs readlink -f");
	libc[strcspn(libc, "\n")] = '\0';
	char *bid = th_sh_okf("readelf -n '%s' | awk '/Build ID/ {print $3}'", libc);
	bid[strcspn(bid, "\n")] = '\0';
	char debug[PATH_MAX];
	snprintf(debug, sizeof(debug), "/usr/lib/debug/.build-id/%.2s/%s.debug", bid, bid + 2);
	if (access(debug, R_OK) == 0)
		free(th_sh_okf("cmp '%s/.build-id/%.2s/%s/debug' '%s'", at("c2"), bid, bid + 2, debug));

	free(th_sh_okf("rm -r '%s' '%s'", at("sort"), at("c1")));
	char *a = rows(ours("c2"), at("p.data")), *p = rows(perf("h3"), at("p.data"));
	cr_expect_str_eq(a, before, "after --unpack:\n%s\nbefore:\n%s", a, before);
	expect_perf_rows(p, a, "after --unpack");
	free(a);
	free(p);
	free(before);
	free(bid);
	free(libc);
}

/* The .tar.bz2 of perf's own `perf archive`, unpacked by perfev (through bzip2). */
Test(archive, perf_archive_unpacked_by_perfev)
{
	th_need_perf();
	if (!th_have_program("bzip2"))
		th_skip("bzip2 is not installed: perf archive cannot write its .tar.bz2");
	free(th_sh_okf("cp '%s' '%s' && mkdir -p '%s'", th_test_program("perfdata_spin"), at("prog"),
	        at("hp")));
	free(th_sh_okf("%s record -q -e cpu-clock -F 2000 -o '%s' '%s' 200 2>&1", perf("hp"),
	        at("perf.data"), at("prog")));
	char *theirs = rows(perf("hp"), at("perf.data"));
	expect_has(theirs, "perfdata_spin_hot");
	free(th_sh_okf("cd '%s' && %s archive perf.data > /dev/null", dir, perf("hp")));
	/* Found by itself in the current directory, as perf 7's --unpack finds it. */
	char *out = th_sh_okf("cd '%s' && %s archive --unpack", dir, ours("c4"));
	expect_has(out, "Found the archive to unpack: perf.data.tar.bz2");
	free(out);
	free(th_sh_okf("rm '%s'", at("prog")));
	char *a = rows(ours("c4"), at("perf.data"));
	expect_perf_rows(theirs, a, "from perf's unpacked archive");
	free(a);
	free(theirs);
}

/* Names longer than ustar's 100 + 155 bytes go in pax headers, which GNU tar reads. */
Test(archive, long_names)
{
	char deep[PATH_MAX];

	snprintf(deep, sizeof(deep), "%s/%s", dir,
	         "a-directory-name-of-sixty-characters-to-make-paths-long-0001/"
	         "a-directory-name-of-sixty-characters-to-make-paths-long-0002/"
	         "a-directory-name-of-sixty-characters-to-make-paths-long-0003/"
	         "a-directory-name-of-sixty-characters-to-make-paths-long-0004/"
	         "a-program-whose-name-alone-is-longer-than-a-hundred-bytes-so-that-ustar-"
	         "cannot-hold-it-in-its-name-field");
	free(th_sh_okf("mkdir -p \"$(dirname '%s')\" && cp '%s' '%s'", deep,
	        th_test_program("perfdata_spin"), deep));
	record(deep);
	char *before = rows(ours("c1"), at("p.data"));
	expect_has(before, "perfdata_spin_hot");
	archive_and_unpack();
	char *list = th_sh_okf("tar tzf '%s'", at("p.data.tar.gz"));
	expect_has(list, "cannot-hold-it-in-its-name-field/");
	free(list);
	/* GNU tar's own long names ('L', 'K' entries) and its pax archives unpack the same. */
	free(th_sh_okf("cd '%s' && tar czf gnu.tar.gz --format=gnu -C c2 . && "
	        "tar czf pax.tar.gz --format=posix -C c2 .",
	        dir));
	free(th_sh_okf("%s archive --unpack '%s' > /dev/null", ours("c5"), at("gnu.tar.gz")));
	free(th_sh_okf("%s archive --unpack '%s' > /dev/null", ours("c6"), at("pax.tar.gz")));
	free(th_sh_okf("diff -r --no-dereference '%s' '%s' && diff -r --no-dereference '%s' '%s'",
	        at("c2"), at("c5"), at("c2"), at("c6")));
	free(th_sh_okf("rm '%s' && rm -r '%s'", deep, at("c1")));
	char *a = rows(ours("c2"), at("p.data"));
	cr_expect_str_eq(a, before);
	free(a);
	free(before);
}

/*
 * A hostile archive (dir/kind.tar.gz, or dir/kind when it has a dot) must
 * be refused with a message holding reason, and leave dir/c (the cache) and
 * dir/out untouched.
 */
static void expect_refused(const char *kind, const char *reason)
{
	char *out = NULL, *err = NULL;
	int status = sh_status(&out, &err, "%s archive --unpack '%s/%s%s'", ours("c"), dir, kind,
	                       strchr(kind, '.') ? "" : ".tar.gz");

	cr_expect_eq(status, 1, "%s: status %d\n%s%s", kind, status, out, err);
	expect_has(err, reason);
	expect_has(err, "nothing was written");
	cr_expect_eq(entries("out"), 0, "%s: something was written outside the cache", kind);
	cr_expect_eq(entries("c"), 0, "%s: something was written into the cache", kind);
	free(out);
	free(err);
}

Test(archive, hostile_archives_refused)
{
	if (!th_have_program("python3"))
		th_skip("python3 is not installed: no hostile archive can be made");
	FILE *f = fopen(at("make.py"), "w");
	cr_assert_not_null(f);
	/* Each archive starts with a harmless entry: refusing must write nothing at all. */
	fputs("import io, sys, tarfile\n"
	      "kind, out = sys.argv[1], sys.argv[2]\n"
	      "t = tarfile.open(out + '/' + kind + '.tar.gz', 'w:gz', format=tarfile.PAX_FORMAT)\n"
	      "def add(name, type=tarfile.REGTYPE, link='', data=b'x'):\n"
	      "    i = tarfile.TarInfo(name); i.type = type; i.linkname = link\n"
	      "    i.size = len(data) if type == tarfile.REGTYPE else 0\n"
	      "    t.addfile(i, io.BytesIO(data) if type == tarfile.REGTYPE else None)\n"
	      "add('usr/bin/ok/0011/elf')\n"
	      "if kind == 'dotdot': add('usr/../../out/evil')\n"
	      "if kind == 'absolute': add(out + '/out/evil')\n"
	      "if kind == 'escape':\n"
	      "    add('.build-id/aa/bb', tarfile.SYMTYPE, '../../../out')\n"
	      "    add('.build-id/aa/bb/evil')\n"
	      "if kind == 'abslink': add('usr/lib', tarfile.SYMTYPE, out + '/out')\n"
	      "if kind == 'midlink': add('x/y', tarfile.SYMTYPE, 'z/../../..')\n"
	      "if kind == 'below':\n"
	      "    add('lnk', tarfile.SYMTYPE, 'usr')\n"
	      "    add('lnk/evil')\n"
	      "if kind == 'device': add('dev', tarfile.CHRTYPE)\n"
	      "if kind == 'hardlink': add('h', tarfile.LNKTYPE, '../out/x')\n"
	      "if kind == 'hardlinkabs': add('h', tarfile.LNKTYPE, out + '/out/x')\n"
	      "t.close()\n",
	      f);
	cr_assert_eq(fclose(f), 0);
	free(th_sh_okf("mkdir '%s' && cd '%s' && for k in dotdot absolute escape abslink midlink below "
	        "device hardlink hardlinkabs; do python3 make.py $k '%s'; done",
	        at("out"), dir, dir));

	expect_refused("dotdot", "a name with '..' in it");
	expect_refused("absolute", "an absolute name");
	expect_refused("escape", "outside the cache");
	expect_refused("abslink", "outside the cache");
	expect_refused("midlink", "outside the cache");
	expect_refused("below", "below a symbolic link");
	expect_refused("device", "not a file, directory or link");
	expect_refused("hardlink", "a hard link to no file stored before it");
	expect_refused("hardlinkabs", "a hard link to no file stored before it");

	/* A truncated gzip: refused before anything is written. */
	free(
	    th_sh_okf("head -c 1000000 /dev/urandom > '%s/big' && tar czf '%s/good.tar.gz' -C '%s' big && "
	       "head -c 500000 '%s/good.tar.gz' > '%s/cut.tar.gz' && rm '%s/big'",
	       dir, dir, dir, dir, dir, dir));
	expect_refused("cut", "truncated");
	/* perf's kind of archive, .tar.bz2, goes through the same checks. */
	if (th_have_program("bzip2")) {
		free(th_sh_okf("cd '%s' && gzip -dc escape.tar.gz | bzip2 > escape.tar.bz2 && "
		        "gzip -dc good.tar.gz | bzip2 > good.tar.bz2 && "
		        "head -c 300000 good.tar.bz2 > cut.tar.bz2",
		        dir));
		expect_refused("escape.tar.bz2", "outside the cache");
		expect_refused("cut.tar.bz2", "truncated");
	}
	/* Not an archive at all. */
	free(th_sh_okf("head -c 4096 /dev/urandom > '%s/junk.tar.gz'", dir));
	expect_refused("junk", "not a tar archive");

	/* A link planted in the cache is never written through. */
	free(th_sh_okf("mkdir '%s' && ln -s '%s' '%s/usr'", at("c"), at("out"), at("c")));
	char *out = NULL, *err = NULL;
	int status =
	    sh_status(&out, &err, "%s archive --unpack '%s'", ours("c"), at("good.tar.gz"));
	cr_expect_eq(status, 0, "a harmless archive: %s", err);
	free(out);
	free(err);
	status = sh_status(&out, &err, "%s archive --unpack '%s/dotdot.tar.gz'", ours("c"), dir);
	cr_expect_eq(status, 1);
	free(out);
	free(err);
	status = sh_status(&out, &err, "%s archive --unpack '%s/device.tar.gz'", ours("c"), dir);
	cr_expect_eq(status, 1);
	expect_has(err, "usr/bin/ok/0011/elf: usr in the cache is a symbolic link");
	cr_expect_eq(entries("out"), 0, "written through the planted link");
	free(out);
	free(err);
}

/* Usage: no archive found, bad options, --help. */
Test(archive, usage)
{
	char *out = NULL, *err = NULL;
	int status = sh_status(&out, &err, "cd '%s' && %s archive --unpack", dir, ours("c"));

	cr_expect_eq(status, 1);
	expect_has(err, "no archive (perf*.tar.gz, perf*.tar.bz2) in the current directory");
	free(out);
	free(err);
	struct th_output r = th_perfev("archive", "--unpack", "-o", "x");
	cr_expect_eq(r.status, 129);
	th_output_free(&r);
	r = th_perfev("archive", "-h");
	cr_expect_eq(r.status, 0);
	expect_has(r.out, "--unpack");
	th_output_free(&r);
	r = th_perfev("archive", at("missing.data"));
	cr_expect_eq(r.status, 1);
	expect_has(r.err, "cannot read");
	th_output_free(&r);
}
