/* SPDX-License-Identifier: MIT */
/*
 * test_cgroup.c - cgroups: the library's pieces (container ids in paths,
 * the id -> path table, hierarchies and names, ids), then the CLI on real
 * cgroups: two cgroups, each running a Debian program (xz, gzip), frozen
 * but for a window perfev counts or records, so that each cgroup's own
 * cpu.stat says exactly how much CPU time it had. `perfev stat -G` and
 * `--for-each-cgroup` count each within 2% of it, `record --all-cgroups`
 * splits the samples the same way, and perf reads perfev's file with the
 * same split. The suite runs alone, one test at a time (tests/meson.build):
 * with this suite's recording and reports running beside the counting
 * window, a cgroup's cpu-clock count came out 2 to 6% above its cpu.stat in
 * 4 runs of 10 (not multiplexing: 100% running; not steal time; another
 * `perf record -a -g -F 4000` beside it alone does not do it).
 */
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "perfev.h"

#define HEX64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void suite_init(void)
{
	th_suite_dir("cgroup");
}

TestSuite(cgroup, .init = suite_init, .fini = th_cg_work_end_all, .timeout = 240);

/* ---- container ids ------------------------------------------------------------- */

static void expect_container(const char *path, const char *id)
{
	char buf[65];
	int r = pev_cgroup_container_id(path, buf, sizeof(buf));

	if (id) {
		cr_expect_eq(r, 1, "%s: no container found", path);
		cr_expect_str_eq(buf, id, "%s", path);
	} else {
		cr_expect_eq(r, 0, "%s: found '%s'", path, buf);
		cr_expect_str_eq(buf, "");
	}
}

Test(cgroup, container_ids_of_the_usual_runtimes)
{
	expect_container("/docker/" HEX64, HEX64);
	expect_container("/system.slice/docker-" HEX64 ".scope", HEX64);
	expect_container("/kubepods/besteffort/pod0f1c2d3e-aaaa-bbbb-cccc-0123456789ab/" HEX64,
			 HEX64);
	expect_container("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0f1c_2d3e."
			 "slice/cri-containerd-" HEX64 ".scope",
			 HEX64);
	expect_container("/kubepods.slice/x.slice/crio-" HEX64 ".scope", HEX64);
	expect_container("/machine.slice/libpod-" HEX64 ".scope", HEX64);
	expect_container("/sys/fs/cgroup/system.slice/docker-" HEX64 ".scope", HEX64);
	/* A container's own cgroups below its scope: still that container. */
	expect_container("/system.slice/docker-" HEX64 ".scope/init.scope", HEX64);
	/* conmon's scope is Podman's monitor, not the container; a slice, a service: none. */
	expect_container("/machine.slice/libpod-conmon-" HEX64 ".scope", NULL);
	expect_container("/system.slice/nginx.service", NULL);
	expect_container("/", NULL);
	expect_container("", NULL);
	/* 63 or 65 digits, capitals, a prefix no runtime writes: not an id. */
	expect_container("/docker/" HEX64 "0", NULL);
	expect_container("/docker/0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef",
			 NULL);
	expect_container("/system.slice/foo-" HEX64 ".scope", NULL);
	char small[64];
	cr_expect_eq(pev_cgroup_container_id("/docker/" HEX64, small, sizeof(small)), PEV_EBADARG);
}

/* ---- the id -> path table -------------------------------------------------------- */

Test(cgroup, names_table_keeps_each_id_once_in_the_order_added)
{
	struct pev_cgroup_names *t;
	const char *path;
	uint64_t id;
	char name[64];

	cr_assert_eq(pev_cgroup_names_new(&t), 0);
	cr_expect_null(pev_cgroup_names_find(t, 1));
	cr_expect_eq(pev_cgroup_names_add(t, 1, "/"), 0);
	cr_expect_eq(pev_cgroup_names_add(t, UINT64_MAX, "/big"), 0);
	cr_expect_eq(pev_cgroup_names_add(t, 0, "/zero"), 0);
	cr_expect_str_eq(pev_cgroup_names_find(t, 1), "/");
	cr_expect_str_eq(pev_cgroup_names_find(t, UINT64_MAX), "/big");
	cr_expect_str_eq(pev_cgroup_names_find(t, 0), "/zero");
	/* An id named again (a reused id): the new path, the old place. */
	cr_expect_eq(pev_cgroup_names_add(t, UINT64_MAX, "/bigger"), 0);
	cr_expect_eq(pev_cgroup_names_count(t), 3);
	cr_expect_eq(pev_cgroup_names_at(t, 1, &id, &path), 0);
	cr_expect_eq(id, UINT64_MAX);
	cr_expect_str_eq(path, "/bigger");
	cr_expect_eq(pev_cgroup_names_at(t, 3, NULL, NULL), PEV_EBADARG);
	cr_expect_eq(pev_cgroup_names_add(t, 5, NULL), PEV_EBADARG);
	/* Many: the table grows, every id still found. */
	for (uint64_t i = 100; i < 20100; i++) {
		snprintf(name, sizeof(name), "/c%" PRIu64, i);
		cr_assert_eq(pev_cgroup_names_add(t, i * 7919, name), 0);
	}
	cr_expect_eq(pev_cgroup_names_count(t), 20003);
	for (uint64_t i = 100; i < 20100; i += 997) {
		snprintf(name, sizeof(name), "/c%" PRIu64, i);
		cr_expect_str_eq(pev_cgroup_names_find(t, i * 7919), name);
	}
	cr_expect_null(pev_cgroup_names_find(t, 7919 * 99));
	pev_cgroup_names_free(t);
}

/* ---- hierarchies, names, ids ------------------------------------------------------- */

Test(cgroup, names_resolve_under_the_hierarchy_and_ids_match_the_scan)
{
	struct th_cg_work w;
	char root[4096], dir[4096], other[4096];
	struct pev_error err;
	uint64_t id, root_id;
	struct stat st;

	th_cg_work_start(&w, "names", "exec sleep 60");
	cr_assert_eq(pev_cgroup_v2_root(root, sizeof(root)), 0);
	cr_assert_eq(pev_cgroup_events_root(dir, sizeof(dir)), 0);
	cr_expect_str_eq(dir, root);
	/* As perf's -G: a path under the hierarchy, with or without its '/', or the directory. */
	cr_assert_eq(pev_cgroup_dir(w.name, dir, sizeof(dir), &err), 0, "%s", err.message);
	cr_expect_str_eq(dir, w.dir);
	cr_assert_eq(pev_cgroup_dir(w.name + 1, other, sizeof(other), &err), 0, "%s", err.message);
	cr_expect_str_eq(other, w.dir);
	cr_assert_eq(pev_cgroup_dir(w.dir, other, sizeof(other), &err), 0, "%s", err.message);
	cr_expect_str_eq(other, w.dir);
	cr_assert_eq(pev_cgroup_dir("/", other, sizeof(other), &err), 0, "%s", err.message);
	cr_expect_str_eq(other, root);
	cr_expect_eq(pev_cgroup_dir("/perfev-no-such-cgroup", other, sizeof(other), &err),
		     PEV_ENOTFOUND);
	cr_expect(strstr(err.message, "no cgroup '/perfev-no-such-cgroup'") &&
			  strstr(err.message, root),
		  "%s", err.message);
	cr_expect(strstr(err.hint, "/proc/PID/cgroup"), "%s", err.hint);
	cr_expect_eq(pev_cgroup_dir(w.name, other, 8, &err), PEV_EBADARG);

	/* The kernel's id: the directory's inode on the cgroup file system, and what the scan finds. */
	cr_assert_eq(pev_cgroup_id(w.dir, &id), 0);
	cr_assert_eq(stat(w.dir, &st), 0);
	cr_expect_eq(id, (uint64_t)st.st_ino);
	cr_expect_lt(pev_cgroup_id("/perfev-no-such-dir", &id), 0);
	cr_expect_eq(pev_cgroup_id("/proc", &id), -EOPNOTSUPP, "procfs has no 8-byte handles");
	struct pev_cgroup_names *t;
	cr_assert_eq(pev_cgroup_names_new(&t), 0);
	cr_assert_gt(pev_cgroup_names_scan(t, NULL), 1);
	cr_assert_eq(pev_cgroup_id(w.dir, &id), 0);
	cr_assert_eq(pev_cgroup_id(root, &root_id), 0);
	cr_expect_str_eq(pev_cgroup_names_find(t, id), w.name);
	cr_expect_str_eq(pev_cgroup_names_find(t, root_id), "/");
	pev_cgroup_names_free(t);
	th_cg_work_end(&w);
}

/* ---- two cgroups, two programs ------------------------------------------------------ */

/* The two workloads: xz and gzip, compressing the same random bytes over and over. */
struct pair {
	struct th_cg_work a, b;
	char *input;
};

static void pair_start(struct pair *p)
{
	char cmd[1024];

	if (!th_have_program("xz") || !th_have_program("gzip"))
		th_skip("xz or gzip is not installed (scripts/install-deps.sh installs them)");
	p->input = strdup(th_path_in("random.bin"));
	free(th_sh_okf("head -c 3000000 /dev/urandom > '%s'", p->input));
	snprintf(cmd, sizeof(cmd), "while :; do xz -9 -T1 -c '%s' > /dev/null; done", p->input);
	th_cg_work_start(&p->a, "xz", cmd);
	snprintf(cmd, sizeof(cmd), "while :; do gzip -9 -c '%s' > /dev/null; done", p->input);
	th_cg_work_start(&p->b, "gzip", cmd);
}

static void pair_end(struct pair *p)
{
	th_cg_work_end(&p->a);
	th_cg_work_end(&p->b);
	unlink(p->input);
	free(p->input);
}

/*
 * A shell command for perfev to run while it counts: thaw both cgroups,
 * let them run for ms, freeze both and wait until they are frozen.
 */
static char *window_cmd(const struct pair *p, int ms)
{
	char ta[8192], tb[8192], fa[8192], fb[8192];
	char *cmd = malloc(40000);

	cr_assert_not_null(cmd);
	th_cg_work_freeze_cmd(&p->a, false, ta, sizeof(ta));
	th_cg_work_freeze_cmd(&p->b, false, tb, sizeof(tb));
	th_cg_work_freeze_cmd(&p->a, true, fa, sizeof(fa));
	th_cg_work_freeze_cmd(&p->b, true, fb, sizeof(fb));
	snprintf(cmd, 40000, "%s; %s; sleep %d.%03d; %s; %s", ta, tb, ms / 1000, ms % 1000, fa, fb);
	return cmd;
}

/* Expects ns of counted time within 2% of the cgroup's CPU time, us microseconds. */
static void expect_within_2pct(const char *what, const char *cgroup, double ns, uint64_t us)
{
	double want = (double)us * 1000.0;

	cr_expect_gt(us, 20000, "%s: %s ran for %" PRIu64 " us only: nothing to compare", what,
		     cgroup, us);
	fprintf(stderr, "%s: %s: %.0f ns counted, cpu.stat %.0f ns (%+.3f%%)\n", what, cgroup, ns, want,
		    100.0 * (ns - want) / want);
	cr_expect(ns >= want * 0.98 && ns <= want * 1.02,
		  "%s: %s counted %.0f ns, its cpu.stat says %.0f ns (%.2f%%)", what, cgroup, ns,
		  want, 100.0 * (ns - want) / want);
}

/* The value of the CSV row of perfev stat -x, for cgroup name (its 4th field). */
static double csv_value(const char *csv, const char *cgroup)
{
	char *copy = strdup(csv);
	double v = -1;

	for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n")) {
		char value[64], unit[32], event[64], cg[512];
		if (sscanf(line, "%63[^,],%31[^,],%63[^,],%511[^,],", value, unit, event, cg) == 4 &&
		    !strcmp(cg, cgroup))
			v = atof(value) * 1e6; /* msec */
	}
	free(copy);
	cr_expect_geq(v, 0, "no row for %s in:\n%s", cgroup, csv);
	return v;
}

Test(cgroup, stat_G_counts_each_cgroup_as_its_cpu_stat_says)
{
	struct pair p;
	char *out, *err;

	pair_start(&p);
	char *cmd = window_cmd(&p, 1500);
	uint64_t a0 = th_cg_work_usage_us(&p.a), b0 = th_cg_work_usage_us(&p.b);
	const char *argv[] = {th_perfev_bin(), "stat", "-a", "-x,", "-e", "cpu-clock,cpu-clock",
			      "-G", NULL, "--", "sh", "-c", cmd, NULL};
	char groups[600];
	snprintf(groups, sizeof(groups), "%s,%s", p.a.name, p.b.name);
	argv[7] = groups;
	cr_assert_eq(th_run((char *const *)argv, false, &out, &err), 0, "%s", err);
	uint64_t a1 = th_cg_work_usage_us(&p.a), b1 = th_cg_work_usage_us(&p.b);
	expect_within_2pct("stat -G", p.a.name, csv_value(err, p.a.name), a1 - a0);
	expect_within_2pct("stat -G", p.b.name, csv_value(err, p.b.name), b1 - b0);
	free(out);
	free(err);

	/* --for-each-cgroup, text: each event once per cgroup, the cgroup after its name. */
	a0 = a1;
	b0 = b1;
	const char *argv2[] = {th_perfev_bin(), "stat", "-a", "-x,", "-e", "cpu-clock",
			       "--for-each-cgroup", groups, "--", "sh", "-c", cmd, NULL};
	cr_assert_eq(th_run((char *const *)argv2, false, &out, &err), 0, "%s", err);
	a1 = th_cg_work_usage_us(&p.a);
	b1 = th_cg_work_usage_us(&p.b);
	expect_within_2pct("--for-each-cgroup", p.a.name, csv_value(err, p.a.name), a1 - a0);
	expect_within_2pct("--for-each-cgroup", p.b.name, csv_value(err, p.b.name), b1 - b0);
	free(out);
	free(err);
	free(cmd);
	pair_end(&p);
}

/* The period perfev report's JSON gives cgroup name (--sort cgroup), or -1. */
static double json_period(struct json_object *doc, const char *cgroup)
{
	struct json_object *events = th_json_get(doc, "events");
	struct json_object *rows = th_json_get(json_object_array_get_idx(events, 0), "rows");

	for (size_t i = 0; i < json_object_array_length(rows); i++) {
		struct json_object *row = json_object_array_get_idx(rows, i);
		if (!strcmp(th_json_get_str(row, "cgroup"), cgroup))
			return json_object_get_double(th_json_get(row, "period"));
	}
	return -1;
}

/* The rows of a --sort cgroup table: its lines without the '#' ones and blank ones. */
static char *table_rows(const char *text)
{
	char *rows = calloc(1, strlen(text) + 1);

	for (const char *l = text; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != '\0')) {
		size_t n = strcspn(l, "\n");
		if (n && l[0] != '#')
			strncat(rows, l, n + 1);
	}
	return rows;
}

Test(cgroup, record_all_cgroups_splits_samples_as_cpu_stat_and_perf_reads_it)
{
	struct pair p;
	char *out, *err;

	pair_start(&p);
	const char *data = th_path_in("cgroups.data");
	char *cmd = window_cmd(&p, 1500);
	uint64_t a0 = th_cg_work_usage_us(&p.a), b0 = th_cg_work_usage_us(&p.b);
	const char *argv[] = {th_perfev_bin(), "record", "-q", "-a", "--all-cgroups", "-e",
			      "cpu-clock", "-o", data, "--", "sh", "-c", cmd, NULL};
	cr_assert_eq(th_run((char *const *)argv, false, &out, &err), 0, "%s", err);
	uint64_t a1 = th_cg_work_usage_us(&p.a), b1 = th_cg_work_usage_us(&p.b);
	free(out);
	free(err);

	char *json = th_sh_okf("'%s' report -i '%s' --format json --sort cgroup", th_perfev_bin(),
			       data);
	struct json_object *doc = th_json_parse(json);
	expect_within_2pct("record --all-cgroups", p.a.name, json_period(doc, p.a.name), a1 - a0);
	expect_within_2pct("record --all-cgroups", p.b.name, json_period(doc, p.b.name), b1 - b0);

	/* perf reads the cgroups from perfev's file: the same rows, line for line. */
	th_need_perf();
	char *ours = th_sh_okf("'%s' report -i '%s' --stdio --sort cgroup 2>&1", th_perfev_bin(),
			       data);
	char *perfs = th_sh_okf("perf report -i '%s' --stdio --sort cgroup 2>&1", data);
	char *ours_rows = table_rows(ours), *perf_rows = table_rows(perfs);
	cr_expect_str_eq(ours_rows, perf_rows, "perfev:\n%s\nperf:\n%s", ours, perfs);
	cr_expect(strstr(ours_rows, p.a.name) && strstr(ours_rows, p.b.name), "%s", ours);
	free(ours);
	free(perfs);
	free(ours_rows);
	free(perf_rows);

	/* Folded stacks sorted by cgroup start at it; a cgroup made while recording is named. */
	char *folded = th_sh_okf("'%s' report -i '%s' --format folded --sort cgroup", th_perfev_bin(),
				 data);
	char prefix[300];
	snprintf(prefix, sizeof(prefix), "%s;", p.a.name);
	cr_expect(strstr(folded, prefix), "no stack starts at %s:\n%.2000s", p.a.name, folded);
	free(folded);

	/* Gecko names the thread's cgroup with its process; speedscope with its profile. */
	char want[400];
	snprintf(want, sizeof(want), " [%s]\"", p.b.name);
	char *gecko = th_sh_okf("'%s' report -i '%s' --format gecko -o -", th_perfev_bin(), data);
	cr_expect(strstr(gecko, want), "no process named with %s", want);
	free(gecko);
	char *speedscope = th_sh_okf("'%s' report -i '%s' --format speedscope -o -",
				     th_perfev_bin(), data);
	cr_expect(strstr(speedscope, want), "no profile named with %s", want);
	free(speedscope);

	/*
	 * OpenTelemetry: each sample's process.linux.cgroup attribute, checked
	 * by the protobuf decoder of scripts/otlp_check.py; the values of each
	 * cgroup's samples add up to its period in the table.
	 */
	if (th_sh("/usr/bin/python3 -c 'import google.protobuf' && command -v protoc", NULL, NULL) ==
	    0) {
		const char *otlp = th_path_in("cgroups.otlp.pb");
		free(th_sh_okf("'%s' report -i '%s' --format otlp -o '%s'", th_perfev_bin(), data,
			       otlp));
		char *sums = th_sh_okf(
		    "/usr/bin/python3 '%s/scripts/otlp_check.py' --samples '%s' | /usr/bin/python3 -c "
		    "'import json, sys, collections\n"
		    "c = collections.Counter()\n"
		    "for x in json.load(sys.stdin)[\"profiles\"][0][\"sample_list\"]:\n"
		    "    c[x[\"attributes\"].get(\"process.linux.cgroup\")] += sum(x[\"values\"])\n"
		    "print(json.dumps(c))'",
		    getenv("PERFEV_SOURCE_ROOT"), otlp);
		struct json_object *by = th_json_parse(sums);
		struct json_object *a = th_json_get(by, p.a.name), *b = th_json_get(by, p.b.name);
		cr_expect_eq(json_object_get_int64(a), (int64_t)json_period(doc, p.a.name));
		cr_expect_eq(json_object_get_int64(b), (int64_t)json_period(doc, p.b.name));
		json_object_put(by);
		free(sums);
	}

	/* pprof: a cgroup label on the samples, which Google's pprof tool reads. */
	const char *pprof = getenv("PERFEV_PPROF");
	if (pprof && access(pprof, X_OK) == 0) {
		const char *pb = th_path_in("cgroups.pb.gz");
		free(th_sh_okf("'%s' report -i '%s' --format pprof -o '%s'", th_perfev_bin(), data,
			       pb));
		char *tags = th_sh_okf("'%s' -tags '%s' 2>&1", pprof, pb);
		cr_expect(strstr(tags, " cgroup: Total") && strstr(tags, p.a.name) &&
				  strstr(tags, p.b.name),
			  "%s", tags);
		free(tags);
	}
	json_object_put(doc);
	free(json);
	free(cmd);
	pair_end(&p);
}

Test(cgroup, record_names_a_cgroup_made_while_it_records)
{
	struct th_cg_work w;
	char *out, *err, cmd[30000];

	/* A cgroup exists only to find the hierarchy; the recorded command makes its own. */
	th_cg_work_start(&w, "parent", "exec sleep 60");
	const char *data = th_path_in("new-cgroup.data");
	/* A frozen parent would freeze the command too: thawed first. */
	char thaw[8192];
	th_cg_work_freeze_cmd(&w, false, thaw, sizeof(thaw));
	snprintf(cmd, sizeof(cmd),
		 "%s; mkdir '%s/new' && echo $$ > '%s/new/cgroup.procs' && "
		 "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; "
		 "echo $$ > '%s/cgroup.procs'; rmdir '%s/new'",
		 thaw, w.dir, w.dir, w.dir, w.dir);
	const char *argv[] = {th_perfev_bin(), "record", "-q", "-a", "--all-cgroups", "-e",
			      "cpu-clock", "-o", data, "--", "sh", "-c", cmd, NULL};
	cr_assert_eq(th_run((char *const *)argv, false, &out, &err), 0, "%s", err);
	free(out);
	free(err);
	char *table = th_sh_okf("'%s' report -i '%s' --stdio --sort cgroup", th_perfev_bin(), data);
	char want[512];
	snprintf(want, sizeof(want), "  %s/new\n", w.name);
	/* (Other rows may read "unknown": a cgroup another program made between perfev's scan
	 * and the command's exec, when the events were not enabled yet, has no record.) */
	cr_expect(strstr(table, want), "the CGROUP record the kernel wrote names no row:\n%s",
		  table);
	free(table);
	th_cg_work_end(&w);
}

Test(cgroup, cli_refusals_name_the_fix)
{
	char *out, *err;
	const char *no_cpus[] = {th_perfev_bin(), "stat", "-e", "cpu-clock", "-G", "/", "true",
				 NULL};

	cr_expect_eq(th_run((char *const *)no_cpus, false, &out, &err), 129);
	cr_expect(strstr(err, "option '-G' counts a cgroup's tasks on every CPU: add -a"), "%s", err);
	free(out);
	free(err);
	const char *too_many[] = {th_perfev_bin(), "stat", "-a", "-e", "cpu-clock", "-G", "/,/",
				  "true", NULL};
	cr_expect_eq(th_run((char *const *)too_many, false, &out, &err), 129);
	cr_expect(strstr(err, "more cgroups than events"), "%s", err);
	free(out);
	free(err);
	const char *both[] = {th_perfev_bin(), "stat", "-a", "-G", "/", "--for-each-cgroup", "/",
			      "true", NULL};
	cr_expect_eq(th_run((char *const *)both, false, &out, &err), 129);
	cr_expect(strstr(err, "'-G' and '--for-each-cgroup' cannot be used together"), "%s", err);
	free(out);
	free(err);
	const char *missing[] = {th_perfev_bin(), "record", "-q", "-a", "-G", "perfev-nothing-here",
				 "-o", "/dev/null", "true", NULL};
	cr_expect_eq(th_run((char *const *)missing, false, &out, &err), 1);
	cr_expect(strstr(err, "no cgroup '/perfev-nothing-here'"), "%s", err);
	free(out);
	free(err);
	const char *no_key[] = {th_perfev_bin(), "report", "-i", th_path_in("none.data"), "--sort",
				"cgroups", NULL};
	cr_expect_eq(th_run((char *const *)no_key, false, &out, &err), 129);
	cr_expect(strstr(err, "use comm, pid, process, tid, cpu, dso, sym, srcline, trace or cgroup"),
		  "%s", err);
	free(out);
	free(err);
}
