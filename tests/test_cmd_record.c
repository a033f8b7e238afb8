/* SPDX-License-Identifier: MIT */
/*
 * test_cmd_record.c - `perfev record` end to end, with Debian's perf as the
 * oracle: a workload recorded with -g reads in perf script and perf report
 * without a warning and with its hot function on top, and perfev's reader
 * finds exactly the samples the summary announced, each decoding; an
 * existing process recorded with -p has its COMM and MMAP2 records
 * synthesized; -a records on several CPUs; SIGINT, SIGTERM and the command's
 * exit each leave a complete file; the header features perf shows; the
 * cycles -> cpu-clock fallback line; and bad input. Tests that need perf
 * skip with a reason when it is not installed.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"

/* ---- files and programs ------------------------------------------------------ */

/* Runs cmd and expects it to succeed without a word on stderr; returns its output. */
static char *sh_quiet_ok(const char *cmd)
{
	char *out, *err;
	int rc = th_sh(cmd, &out, &err);
	cr_assert_eq(rc, 0, "%s: exit %d: %s", cmd, rc, err);
	cr_expect_str_empty(err, "%s wrote on stderr: %s", cmd, err);
	free(err);
	return out;
}

/* The numbers of perfev record's summary line "(N samples, L lost)". */
static void summary(const char *err, unsigned long *samples, unsigned long *lost)
{
	const char *line = strstr(err, "[ perfev record: Captured and wrote ");
	cr_assert_not_null(line, "no summary in: %s", err);
	const char *paren = strchr(line, '(');
	cr_assert_not_null(paren);
	cr_assert_eq(sscanf(paren, "(%lu samples, %lu lost)", samples, lost), 2, "%s", line);
	expect_has(err, "[ perfev record: Woken up ");
}

/* ---- reading the file back ----------------------------------------------------- */

struct counts {
	unsigned long type[256];
	unsigned long samples, lost;
	unsigned long cpus_seen; /* bit per CPU of the samples (CPUs below 64) */
	bool comm_of[2];         /* a COMM of pid / an MMAP2 of spin for `watch_pid` */
	pid_t watch_pid;
	const char *watch_file;
};

/* Reads every record with perfev's reader; every sample must decode with its event's format. */
static void read_back(const char *path, struct counts *c)
{
	struct pev_perfdata *pd = NULL;
	struct pev_perfdata_record r;
	struct pev_error err;
	int rc;

	cr_assert_eq(pev_perfdata_open(path, 0, &pd, &err), 0, "%s: %s", path, err.message);
	cr_expect_eq(pev_perfdata_nr_notes(pd), 0, "note: %s", pev_perfdata_note(pd, 0));
	while ((rc = pev_perfdata_next(pd, &r, &err)) == 1) {
		c->type[r.type < 255 ? r.type : 255]++;
		if (r.type >= PEV_RECORD_USER_TYPE_START)
			continue;
		cr_assert_not_null(r.event, "a %s record of no event",
		                   pev_record_type_name(r.type));
		struct pev_record_format fmt;
		struct pev_record rec;
		cr_assert_eq(pev_record_format_from_attr(&r.event->attr, &fmt), 0);
		int n = pev_record_decode(&fmt, r.header, r.size, &rec);
		cr_assert_eq(n, (int)r.size, "record at 0x%" PRIx64 " (%s) does not decode: %d",
		             r.offset, pev_record_type_name(r.type), n);
		if (r.type == PEV_RECORD_SAMPLE) {
			c->samples++;
			if ((rec.id_fields & PEV_SAMPLE_CPU) && rec.sample_id.cpu < 64)
				c->cpus_seen |= 1UL << rec.sample_id.cpu;
		} else if (r.type == PEV_RECORD_LOST) {
			c->lost += rec.lost.lost;
		} else if (r.type == PEV_RECORD_COMM && c->watch_pid &&
		           rec.comm.pid == (uint32_t)c->watch_pid) {
			c->comm_of[0] = true;
		} else if (r.type == PEV_RECORD_MMAP2 && c->watch_pid &&
		           rec.mmap2.pid == (uint32_t)c->watch_pid &&
		           strcmp(rec.mmap2.filename, c->watch_file) == 0) {
			c->comm_of[1] = true;
		}
	}
	cr_assert_eq(rc, 0, "%s: %s", path, err.message);
	pev_perfdata_close(pd);
}

/* perf report's first non-comment line (the top row). */
static char *top_row(char *out)
{
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n"))
		if (line[0] != '#' && line[strspn(line, " ")] != '\0')
			return line;
	return NULL;
}

/* perf report and perf script read path quietly, and the workload's hot function leads. */
static void expect_perf_reads(const char *path, bool callchains)
{
	char cmd[PATH_MAX + 128];

	snprintf(cmd, sizeof(cmd), "perf report -i '%s' --stdio --no-children --sort sym", path);
	char *out = sh_quiet_ok(cmd);
	char *top = top_row(out);
	cr_assert_not_null(top, "perf report printed no samples");
	expect_has(top, "perfdata_spin_hot");
	free(out);
	snprintf(cmd, sizeof(cmd), "perf script -i '%s'", path);
	out = sh_quiet_ok(cmd);
	expect_has(out, "perfdata_spin_hot");
	if (callchains)
		expect_has(out, "main"); /* the caller, from the chain */
	free(out);
}

/* ---- a command ---------------------------------------------------------------- */

Test(cmd_record, command_with_callchains_round_trips, .init = th_leak_init, .fini = th_leak_fini)
{
	th_need_perf();
	const char *dir = th_temp_dir("rec"), *spin = th_test_program("perfdata_spin");
	char *path = th_path_join(dir, "g.data");

	struct th_output r = th_perfev("record", "-g", "-o", path, "--", spin, "300");
	cr_assert_eq(r.status, 0, "perfev record: %d: %s", r.status, r.err);
	unsigned long samples, lost;
	summary(r.err, &samples, &lost);
	cr_expect_gt(samples, 50, "only %lu samples", samples);
	/* Not a terminal: no status line. */
	expect_lacks(r.err, "\r");

	struct counts c = {0};
	read_back(path, &c);
	cr_expect_eq(c.samples, samples, "the file has %lu samples, the summary said %lu",
	             c.samples, samples);
	cr_expect_eq(c.lost, lost);
	cr_expect_gt(c.type[PEV_RECORD_FINISHED_ROUND], 0);
	cr_expect_gt(c.type[PEV_RECORD_COMM], 0);
	cr_expect_gt(c.type[PEV_RECORD_MMAP2], 0);
	expect_perf_reads(path, true);

	/* perf's own count of the samples agrees. */
	char cmd[PATH_MAX + 64];
	unsigned long perf_samples = 0;
	snprintf(cmd, sizeof(cmd), "perf report -D -i '%s' | grep -m1 ' SAMPLE events:'", path);
	char *out = sh_quiet_ok(cmd);
	cr_assert_eq(sscanf(out, " SAMPLE events: %lu", &perf_samples), 1, "%s", out);
	cr_expect_eq(perf_samples, samples);
	free(out);
	th_output_free(&r);
	free(path);
}

Test(cmd_record, header_features_and_fallback_line, .init = th_leak_init, .fini = th_leak_fini)
{
	th_need_perf();
	const char *dir = th_temp_dir("rec"), *spin = th_test_program("perfdata_spin");
	char *path = th_path_join(dir, "h.data"), cmd[PATH_MAX + 64], want[PATH_MAX + 128];

	struct th_output r = th_perfev("record", "-o", path, spin, "100");
	cr_assert_eq(r.status, 0, "perfev record: %d: %s", r.status, r.err);
	if (th_have_core_pmu()) {
		expect_lacks(r.err, "recording cpu-clock instead");
	} else {
		/* One line, and only one. */
		const char *line = strstr(r.err, "perfev: cycles is not supported here");
		cr_assert_not_null(line, "no fallback line in: %s", r.err);
		expect_has(line, "recording cpu-clock instead\n");
		cr_expect_null(strstr(line + 20, "is not supported here"));
	}

	struct utsname u;
	cr_assert_eq(uname(&u), 0);
	snprintf(cmd, sizeof(cmd), "perf report --header-only -i '%s'", path);
	char *out = sh_quiet_ok(cmd);
	snprintf(want, sizeof(want), "# hostname : %s\n", u.nodename);
	expect_has(out, want);
	snprintf(want, sizeof(want), "# os release : %s\n", u.release);
	expect_has(out, want);
	snprintf(want, sizeof(want), "# arch : %s\n", u.machine);
	expect_has(out, want);
	snprintf(want, sizeof(want), "# nrcpus online : %ld\n", sysconf(_SC_NPROCESSORS_ONLN));
	expect_has(out, want);
	snprintf(want, sizeof(want), "record -o %s %s 100", path, spin);
	expect_has(out, "# cmdline : ");
	expect_has(out, want);
	expect_has(out,
	           th_have_core_pmu() ? "# event : name = cycles" : "# event : name = cpu-clock");
	/* The CPU's identity: x86's vendor,family,model,stepping; arm64's MIDR_EL1. */
	expect_has(out, "# cpuid : ");
#if defined(__aarch64__)
	char *midr = th_slurp("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", NULL);
	snprintf(want, sizeof(want), "# cpuid : %.18s\n", midr);
	expect_has(out, want);
	free(midr);
#endif
	free(out);

	/* The build id of the workload, which the samples hit. */
	snprintf(cmd, sizeof(cmd), "perf buildid-list -i '%s'", path);
	out = sh_quiet_ok(cmd);
	snprintf(want, sizeof(want), " %s\n", spin);
	expect_has(out, want);
	free(out);
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' | grep -o 'Build ID: [0-9a-f]*'", spin);
	char *bid = sh_quiet_ok(cmd);
	bid[strcspn(bid, "\n")] = '\0';
	snprintf(cmd, sizeof(cmd), "perf buildid-list -i '%s' | grep '%s'", path,
	         bid + strlen("Build ID: "));
	out = sh_quiet_ok(cmd);
	expect_has(out, spin);
	free(out);
	free(bid);
	th_output_free(&r);
	free(path);
}

Test(cmd_record, exit_status_is_the_commands, .init = th_leak_init, .fini = th_leak_fini)
{
	const char *dir = th_temp_dir("rec");
	char *path = th_path_join(dir, "x.data");

	struct th_output r = th_perfev("record", "-q", "-o", path, "/bin/sh", "-c", "exit 3");
	cr_expect_eq(r.status, 3, "perfev record: %d: %s", r.status, r.err);
	expect_lacks(r.err, "[ perfev record:"); /* -q */
	struct counts c = {0};
	read_back(path, &c);
	cr_expect_gt(c.type[PEV_RECORD_COMM], 0, "the exec of sh is in the file");
	th_output_free(&r);
	free(path);
}

/* ---- existing tasks and CPUs --------------------------------------------------- */

/* Starts the workload for ms of CPU time and waits until it has exec'ed. */
/* User CPU time of process pid in clock ticks (-1 when it is gone). */
static long process_user_ticks(pid_t pid)
{
	char comm[32];
	unsigned long utime, stime;

	return th_cpu_ticks(pid, comm, &utime, &stime) ? (long)utime : -1;
}

/* perfev record -o path ARGS..., stderr to err_path; returns once its events are open. */
static pid_t start_perfev(const char *path, const char *err_path, char *const args[]);

/*
 * Whether the perf.data file perfev record is writing at path holds a
 * sample yet: its records, from the data offset the header gives (bytes
 * 40..47), walked by their sizes up to what has been written. A sample
 * means the events are enabled: perfev enables them after it has written
 * the records of the process it attached to.
 */
static bool file_has_a_sample(const char *path)
{
	size_t len;
	unsigned char *data = (unsigned char *)th_slurp(path, &len);
	uint64_t at = 0;
	bool found = false;

	if (len >= 48)
		memcpy(&at, data + 40, sizeof(at));
	while (at && at + 8 <= len && !found) {
		uint32_t type;
		uint16_t size;
		memcpy(&type, data + at, sizeof(type));
		memcpy(&size, data + at + 6, sizeof(size));
		if (size < 8)
			break;
		found = type == 9; /* PERF_RECORD_SAMPLE */
		at += size;
	}
	free(data);
	return found;
}

static pid_t start_spin(const char *ms)
{
	const char *spin = th_test_program("perfdata_spin");
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		execl(spin, spin, ms, (char *)NULL);
		_exit(127);
	}
	char path[64], comm[32] = "";
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	for (int i = 0; i < 30000 && strncmp(comm, "perfdata_spin", 13) != 0; i++) {
		FILE *f = fopen(path, "re");
		if (f) {
			if (!fgets(comm, sizeof(comm), f))
				comm[0] = '\0';
			fclose(f);
		}
		struct timespec ms1 = {0, 1000000};
		nanosleep(&ms1, NULL);
	}
	cr_assert_eq(strncmp(comm, "perfdata_spin", 13), 0, "the workload did not start");
	return pid;
}

Test(cmd_record, attaches_to_a_running_process, .init = th_leak_init, .fini = th_leak_fini)
{
	th_need_perf();
	const char *dir = th_temp_dir("rec");
	char *path = th_path_join(dir, "p.data"), pidtext[16];
	char *err_path = th_path_join(dir, "p.err");
	pid_t pid = start_spin("600000");

	snprintf(pidtext, sizeof(pidtext), "%d", (int)pid);
	char *args[] = {"-p", pidtext, NULL};
	pid_t perfev = start_perfev(path, err_path, args);
	cr_assert(th_wait_perfev_ready(perfev, NULL), "perfev record -p opened no events");
	/*
	 * 400 ms of the workload's CPU time once perfev has attached and
	 * recorded (however long its start took: seconds under emulation,
	 * where reading the process's mappings and the kernel's modules is
	 * slow), then the workload ends; perfev record stops when the process
	 * exits.
	 */
	for (int i = 0; i < 6000 && !file_has_a_sample(path); i++) {
		struct timespec ms10 = {0, 10000000};
		nanosleep(&ms10, NULL);
	}
	cr_assert(file_has_a_sample(path), "perfev record -p wrote no sample in 60 s");
	long hz = sysconf(_SC_CLK_TCK), t0 = process_user_ticks(pid);
	for (int i = 0; i < 6000 && process_user_ticks(pid) < t0 + 4 * hz / 10; i++) {
		struct timespec ms5 = {0, 5000000};
		nanosleep(&ms5, NULL);
	}
	kill(pid, SIGTERM);
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert_eq(waitpid(perfev, &status, 0), perfev);
	struct th_output r = {.out = strdup(""), .err = th_slurp(err_path, NULL)};
	r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	cr_assert_eq(r.status, 0, "perfev record -p: %d: %s", r.status, r.err);
	unsigned long samples, lost;
	summary(r.err, &samples, &lost);
	cr_expect_gt(samples, 10);

	struct counts c = {.watch_pid = pid, .watch_file = th_test_program("perfdata_spin")};
	read_back(path, &c);
	cr_expect_eq(c.samples, samples);
	cr_expect(c.comm_of[0], "no COMM record of process %d", (int)pid);
	cr_expect(c.comm_of[1], "no MMAP2 record of %s in process %d", th_test_program("perfdata_spin"), (int)pid);
	expect_perf_reads(path, false);
	th_output_free(&r);
	free(path);
	free(err_path);
}

/* The line of `perf buildid-list -i file` that names dso, or "" (malloc'ed). */
static char *buildid_line(const char *file, const char *dso)
{
	char cmd[2 * PATH_MAX];

	snprintf(cmd, sizeof(cmd), "perf buildid-list -i '%s' | grep -F ' %s' || true", file, dso);
	return sh_quiet_ok(cmd);
}

/* The vDSO's build id in the BUILD_ID feature, as perf writes it (the image is every process's). */
Test(cmd_record, vdso_build_id_like_perf, .init = th_leak_init, .fini = th_leak_fini)
{
	th_need_perf();
	const char *dir = th_temp_dir("rec"), *spin = th_test_program("perfdata_spin");
	char *ours = th_path_join(dir, "ours.data"), *perfs = th_path_join(dir, "perf.data");
	char cmd[4 * PATH_MAX];

	struct th_output r = th_perfev("record", "-e", "cpu-clock", "-o", ours, spin, "50");
	cr_assert_eq(r.status, 0, "perfev record: %d: %s", r.status, r.err);
	th_output_free(&r);
	/* -N: perf's build-id cache in $HOME is left alone. */
	snprintf(cmd, sizeof(cmd), "perf record -q -N -e cpu-clock -o '%s' '%s' 50 2>&1", perfs,
	         spin);
	free(th_sh_ok(cmd));
	char *a = buildid_line(ours, "[vdso]"), *b = buildid_line(perfs, "[vdso]");
	if (!b[0])
		th_skip("perf lists no [vdso] for its own recording (no vDSO here?)");
	cr_expect_str_eq(a, b);
	free(a);
	free(b);
	free(ours);
	free(perfs);
}

/*
 * The comms of tasks that ran before recording, cut to the kernel's 16 bytes
 * (15 characters) as perf cuts them: /proc shows a kernel worker's full
 * name ("kworker/R-kvfree_rcu_reclaim"). The rescuer workers ("kworker/R-")
 * keep their names, so the two recordings name them alike.
 */
Test(cmd_record, comms_at_kernel_length_like_perf, .init = th_leak_init, .fini = th_leak_fini)
{
	th_need_perf();
	th_require_root();
	const char *dir = th_temp_dir("rec");
	char *ours = th_path_join(dir, "ours.data"), *perfs = th_path_join(dir, "perf.data");
	char cmd[4 * PATH_MAX];
	static const char comms[] = "perf script -i '%s' --show-task-events -F comm,pid 2>/dev/null"
	                            " | grep -o 'PERF_RECORD_COMM: kworker/R-.*' | sort -u";

	struct th_output r = th_perfev("record", "-a", "-e", "cpu-clock", "-o", ours, "sleep", "0.1");
	cr_assert_eq(r.status, 0, "perfev record -a: %d: %s", r.status, r.err);
	th_output_free(&r);
	snprintf(cmd, sizeof(cmd), "perf record -q -N -a -e cpu-clock -o '%s' sleep 0.1 2>&1", perfs);
	free(th_sh_ok(cmd));

	snprintf(cmd, sizeof(cmd), comms, perfs);
	char *b = th_sh_ok(cmd);
	bool long_name = false;
	for (const char *l = b; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != '\0'))
		long_name |= strcspn(l + strlen("PERF_RECORD_COMM: "), ":") == 15;
	if (!long_name)
		th_skip("no kernel worker named with 15 characters or more (kworker/R-*) to compare");
	snprintf(cmd, sizeof(cmd), comms, ours);
	char *a = th_sh_ok(cmd);
	cr_expect_str_eq(a, b);
	free(a);
	free(b);

	/* No name in the file is longer than the kernel's. */
	snprintf(cmd, sizeof(cmd), "perf script -i '%s' -F comm 2>/dev/null | awk 'length($1) > 15'",
	         ours);
	a = th_sh_ok(cmd);
	cr_expect_str_empty(a, "comms longer than 15 characters:\n%s", a);
	free(a);
	free(ours);
	free(perfs);
}

Test(cmd_record, all_cpus_records_on_several_cpus, .init = th_leak_init, .fini = th_leak_fini)
{
	th_need_perf();
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpus < 2)
		th_skip("one CPU online: nothing to tell apart");
	const char *dir = th_temp_dir("rec"), *spin = th_test_program("perfdata_spin");
	char *path = th_path_join(dir, "a.data"), script[2 * PATH_MAX];

	/* Two spinners: at least two CPUs are busy. */
	snprintf(script, sizeof(script), "'%s' 200 & '%s' 200; wait", spin, spin);
	struct th_output r = th_perfev("record", "-a", "-o", path, "/bin/sh", "-c", script);
	cr_assert_eq(r.status, 0, "perfev record -a: %d: %s", r.status, r.err);
	struct counts c = {0};
	read_back(path, &c);
	cr_expect_gt(c.samples, 10);
	cr_expect_gt(__builtin_popcountl(c.cpus_seen), 1, "samples from CPUs 0x%lx only",
	             c.cpus_seen);
	/* One id per CPU. */
	struct pev_perfdata *pd = NULL;
	struct pev_error err;
	cr_assert_eq(pev_perfdata_open(path, 0, &pd, &err), 0, "%s", err.message);
	cr_expect_eq(pev_perfdata_event(pd, 0)->nr_ids, (size_t)ncpus);
	cr_expect(pev_perfdata_event(pd, 0)->attr.sample_type & PEV_SAMPLE_CPU);
	pev_perfdata_close(pd);
	char cmd[PATH_MAX + 64];
	snprintf(cmd, sizeof(cmd), "perf report -i '%s' --stdio --sort cpu", path);
	free(sh_quiet_ok(cmd));
	th_output_free(&r);
	free(path);
}

/* ---- stopping ------------------------------------------------------------------- */

/* Starts perfev record with args (stderr to err_path) and waits until it writes path. */
static pid_t start_perfev(const char *path, const char *err_path, char *const args[])
{
	char *argv[16];
	int n = 0;

	argv[n++] = (char *)th_perfev_bin();
	argv[n++] = "record";
	argv[n++] = "-o";
	argv[n++] = (char *)path;
	for (int i = 0; args[i]; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 1);
		dup2(fd, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	/* The file exists once the events are open (the handlers are in place before). */
	for (int i = 0; i < 30000 && access(path, F_OK) != 0; i++) {
		struct timespec ms1 = {0, 1000000};
		nanosleep(&ms1, NULL);
	}
	cr_assert_eq(access(path, F_OK), 0, "perfev record did not start");
	return pid;
}

/* User CPU time of perfev's child (the command) in clock ticks, 0 until it leads; -1 while there is none. */
static long child_ticks(pid_t perfev)
{
	char comm[32];
	unsigned long utime, stime;
	pid_t child = th_first_child(perfev);

	if (!child || !th_cpu_ticks(child, comm, &utime, &stime) ||
	    strcmp(comm, "perfdata_spin") != 0)
		return -1;
	/*
	 * User time only, and only once it leads: loading the program (over 9p
	 * in the arm64 lab) can take more system time than 100 ms of spinning,
	 * and the samples of it would lead the profile.
	 */
	return utime >= stime ? (long)utime : 0;
}

/*
 * Waits until samples must exist: the command has run for 100 ms of user
 * time, no less than its system time (its events start at its exec), or
 * without a command half a second after its events are open.
 */
static void wait_for_samples(pid_t perfev, bool command)
{
	long hz = sysconf(_SC_CLK_TCK);
	struct timespec ms5 = {0, 5000000}, ms500 = {0, 500000000};

	if (!command) {
		cr_assert(th_wait_perfev_ready(perfev, NULL), "perfev record opened no events");
		nanosleep(&ms500, NULL);
		return;
	}
	for (int i = 0; i < 12000 && child_ticks(perfev) < hz / 10; i++)
		nanosleep(&ms5, NULL);
	cr_assert_geq(child_ticks(perfev), hz / 10, "the command did not run");
}

/* Stops a recording with sig; expects a complete file perf reads, and the exit status. */
static void stop_with(int sig, bool command)
{
	th_need_perf();
	const char *dir = th_temp_dir("rec");
	char *path = th_path_join(dir, "s.data"), *err_path = th_path_join(dir, "err");
	char *cmd_args[] = {"--", (char *)th_test_program("perfdata_spin"), "20000", NULL};
	char *cpu_args[] = {"-a", NULL};

	pid_t pid = start_perfev(path, err_path, command ? cmd_args : cpu_args);
	wait_for_samples(pid, command);
	cr_assert_eq(kill(pid, sig), 0);
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	char *err = th_slurp(err_path, NULL);
	/* With a command, its status (it got SIGTERM); without, 128 + the signal. */
	cr_assert(WIFEXITED(status), "perfev record died: %d: %s", status, err);
	cr_expect_eq(WEXITSTATUS(status), 128 + (command ? SIGTERM : sig), "%s", err);
	unsigned long samples, lost;
	summary(err, &samples, &lost);
	cr_expect_gt(samples, 0);
	struct counts c = {0};
	read_back(path, &c);
	cr_expect_eq(c.samples, samples);
	char cmd[PATH_MAX + 64];
	snprintf(cmd, sizeof(cmd), "perf report -i '%s' --stdio", path);
	free(sh_quiet_ok(cmd));
	if (command)
		expect_perf_reads(path, false);
	free(err);
	free(err_path);
	free(path);
}

Test(cmd_record, sigint_leaves_a_complete_file, .init = th_leak_init, .fini = th_leak_fini)
{
	stop_with(SIGINT, true);
}

Test(cmd_record, sigterm_leaves_a_complete_file, .init = th_leak_init, .fini = th_leak_fini)
{
	stop_with(SIGTERM, true);
}

/* A closed terminal (SIGHUP) ends a recording like SIGTERM: a whole file. */
Test(cmd_record, sighup_leaves_a_complete_file, .init = th_leak_init, .fini = th_leak_fini)
{
	stop_with(SIGHUP, true);
}

/* A recorder killed outright does not leave its workload running. */
Test(cmd_record, the_workload_ends_with_a_killed_recorder)
{
	const char *dir = th_temp_dir("rec_killed");
	char *path = th_path_join(dir, "k.data"), *err_path = th_path_join(dir, "err");
	char *pid_path = th_path_join(dir, "workload.pid"), script[PATH_MAX + 64];
	long wpid = 0;

	snprintf(script, sizeof(script), "echo $$ > '%s'; exec sleep 30", pid_path);
	char *args[] = {"-q", "--", "sh", "-c", script, NULL};
	pid_t pid = start_perfev(path, err_path, args);
	for (int i = 0; i < 30000 && wpid <= 0; i++) {
		FILE *f = fopen(pid_path, "re");
		if (f) {
			if (fscanf(f, "%ld", &wpid) != 1)
				wpid = 0;
			fclose(f);
		}
		if (wpid <= 0)
			usleep(1000);
	}
	cr_assert_gt(wpid, 0, "the workload did not start");
	cr_assert_eq(kill(pid, SIGKILL), 0);
	cr_assert_eq(waitpid(pid, NULL, 0), pid);
	bool gone = false;
	for (int i = 0; i < 30000 && !gone; i++) {
		char state = th_task_state((pid_t)wpid);
		/* Gone, or a zombie waiting for init to reap it. */
		gone = state == 0 || state == 'Z';
		if (!gone)
			usleep(1000);
	}
	if (!gone)
		kill((pid_t)wpid, SIGKILL);
	cr_expect(gone, "the workload (pid %ld) still runs 30 s after its recorder was killed", wpid);
	free(pid_path);
	free(err_path);
	free(path);
}

/* Without -o, an unwritable directory is the problem named, not an option never given. */
Test(cmd_record, unwritable_directory_without_o_names_no_option)
{
	char cmd[PATH_MAX + 256], *out = NULL, *err = NULL;

	th_require_root();
	snprintf(cmd, sizeof(cmd),
		 "cd / && setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all "
		 "'%s' record -e task-clock:u -- true",
		 th_perfev_bin());
	cr_expect_eq(th_sh(cmd, &out, &err), 1, "%s", err);
	cr_expect(strstr(err, "cannot create 'perf.data'"), "%s", err);
	cr_expect(strstr(err, "name the file with -o"), "%s", err);
	cr_expect_null(strstr(err, "option '-o'"), "%s", err);
	free(out);
	free(err);
}

/* A command that cannot start leaves the output and FILE.old as they were. */
Test(cmd_record, a_missing_command_touches_no_output)
{
	const char *dir = th_temp_dir("rec_missing");
	char *path = th_path_join(dir, "perf.data"), old[PATH_MAX + 8], buf[16] = "";
	FILE *f;

	cr_assert_not_null(f = fopen(path, "we"));
	fputs("previous\n", f);
	fclose(f);
	snprintf(old, sizeof(old), "%s.old", path);
	static const char *const commands[] = {"/nonexistent/program", "no-such-command-anywhere"};
	for (int i = 0; i < 2; i++) {
		struct th_output r = th_perfev("record", "-o", path, "--", commands[i]);
		cr_expect_eq(r.status, 127, "%s: %s", commands[i], r.err);
		cr_expect(strstr(r.err, "cannot run"), "%s", r.err);
		th_output_free(&r);
	}
	cr_assert_not_null(f = fopen(path, "re"));
	cr_expect_not_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	cr_expect_str_eq(buf, "previous\n", "the old output was replaced");
	cr_expect_neq(access(old, F_OK), 0, "the old output was moved to FILE.old");
	free(path);
}

Test(cmd_record, sigint_ends_a_system_wide_recording, .init = th_leak_init, .fini = th_leak_fini)
{
	stop_with(SIGINT, false);
}

/* ---- bad input ------------------------------------------------------------------- */

/* perfev record args... fails with status and says `needle`. */
static void expect_refused(int status, const char *needle, struct th_output r)
{
	cr_expect_eq(r.status, status, "exit %d: %s", r.status, r.err);
	expect_has(r.err, needle);
	th_output_free(&r);
}

Test(cmd_record, bad_input_is_named, .init = th_leak_init, .fini = th_leak_fini)
{
	char limit[64];

	expect_refused(129, "no command to run (and no -p, -t, -a or -C", th_perfev("record"));
	expect_refused(129, "option '-F' needs a number of samples a second",
	               th_perfev("record", "-F", "0", "true"));
	expect_refused(129, "option '-F' needs", th_perfev("record", "-F", "fast", "true"));
	snprintf(limit, sizeof(limit), "limit of %ld", th_sysctl("perf_event_max_sample_rate"));
	expect_refused(129, limit, th_perfev("record", "-F", "999999999", "true"));
	expect_refused(129, "option '-m' needs a power of two",
	               th_perfev("record", "-m", "3", "true"));
	expect_refused(129, "got '0'", th_perfev("record", "-m", "0", "true"));
	expect_refused(129, "options '-F' and '-c' cannot be used together",
	               th_perfev("record", "-F", "100", "-c", "1000", "true"));
	expect_refused(129, "option '--call-graph' needs",
	               th_perfev("record", "--call-graph", "lbr2", "true"));
	expect_refused(129, "option '--call-graph' needs",
	               th_perfev("record", "--call-graph", "dwarf,100000", "true"));
	expect_refused(129, "unknown event 'no_such_event'",
	               th_perfev("record", "-e", "no_such_event", "true"));
	char pid[32];
	snprintf(pid, sizeof(pid), "%d", (int)th_reaped_pid());
	expect_refused(129, "option '-p' needs existing processes", th_perfev("record", "-p", pid));
	expect_refused(
	    1, "option '-o': ", th_perfev("record", "-q", "-o", "/nonexistent-dir/x.data", "true"));
	expect_refused(
	    127, "cannot run 'no-such-command-here'",
	    th_perfev("record", "-q", "-o", "/tmp/perfev-rec-none.data", "no-such-command-here"));
	cr_expect_neq(access("/tmp/perfev-rec-none.data", F_OK), 0, "no file is left behind");
}

Test(cmd_record, dwarf_call_graph_sets_user_regs_and_stack, .init = th_leak_init,
     .fini = th_leak_fini)
{
	const char *dir = th_temp_dir("rec");
	char *path = th_path_join(dir, "d.data");

	struct th_output r =
	    th_perfev("record", "-q", "--call-graph", "dwarf,4000", "-o", path, th_test_program("perfdata_spin"), "50");
	cr_assert_eq(r.status, 0, "%s", r.err);
	struct pev_perfdata *pd = NULL;
	struct pev_error err;
	cr_assert_eq(pev_perfdata_open(path, 0, &pd, &err), 0, "%s", err.message);
	const struct pev_attr *a = &pev_perfdata_event(pd, 0)->attr;
	cr_expect(a->sample_type & PEV_SAMPLE_REGS_USER);
	cr_expect(a->sample_type & PEV_SAMPLE_STACK_USER);
	cr_expect(a->sample_type & PEV_SAMPLE_CALLCHAIN);
	cr_expect_eq(a->sample_stack_user, 4000); /* a multiple of 8 already */
	cr_expect_neq(a->sample_regs_user, 0);
	pev_perfdata_close(pd);
	struct counts c = {0};
	read_back(path, &c);
	cr_expect_gt(c.samples, 0);
	th_output_free(&r);
	free(path);
}

Test(cmd_record, tracepoints_carry_their_formats, .init = th_leak_init, .fini = th_leak_fini)
{
	th_need_perf();
	if (!th_tracefs())
		th_skip("tracefs is not mounted and cannot be");
	const char *dir = th_temp_dir("rec");
	char *path = th_path_join(dir, "tp.data"), cmd[PATH_MAX + 64];

	struct th_output r =
	    th_perfev("record", "-q", "-e", "sched:sched_switch", "-a", "-o", path, "sleep", "0.1");
	cr_assert_eq(r.status, 0, "%s", r.err);
	struct pev_perfdata *pd = NULL;
	struct pev_error err;
	cr_assert_eq(pev_perfdata_open(path, 0, &pd, &err), 0, "%s", err.message);
	const struct pev_perfdata_event *ev = pev_perfdata_event(pd, 0);
	cr_expect_eq(ev->attr.type, PEV_TYPE_TRACEPOINT);
	cr_expect(ev->attr.sample_type & PEV_SAMPLE_RAW);
	cr_expect_eq(ev->attr.sample_period, 1, "every hit, as perf");
	cr_expect(pev_perfdata_has_feature(pev_perfdata_features(pd), PEV_HEADER_TRACING_DATA));
	pev_perfdata_close(pd);
	/* perf decodes the fields with the formats the file carries. */
	snprintf(cmd, sizeof(cmd), "perf script -i '%s'", path);
	char *out = sh_quiet_ok(cmd);
	expect_has(out, "sched:sched_switch: prev_comm=");
	expect_has(out, "next_pid=");
	free(out);
	th_output_free(&r);
	free(path);
}

Test(cmd_record, unprivileged_user_space_and_mlock_diagnosis, .init = th_leak_init,
     .fini = th_leak_fini)
{
	th_require_root();
	if (th_sysctl("perf_event_paranoid") < 2)
		th_skip("perf_event_paranoid is below 2: nobody may sample the kernel here");
	const char *dir = th_temp_dir("rec"), *spin = th_test_program("perfdata_spin");
	cr_assert_eq(chmod(dir, 0777), 0);
	char *path = th_path_join(dir, "u.data");

	/* Sampling the kernel is not allowed: user space only, named so, as perf. */
	struct th_output r = th_perfev_nobody("record", "-q", "-o", path, spin, "50");
	cr_assert_eq(r.status, 0, "%s", r.err);
	struct pev_perfdata *pd = NULL;
	struct pev_error err;
	cr_assert_eq(pev_perfdata_open(path, 0, &pd, &err), 0, "%s", err.message);
	const struct pev_perfdata_event *ev = pev_perfdata_event(pd, 0);
	cr_expect(ev->attr.flags & PEV_ATTR_EXCLUDE_KERNEL);
	cr_expect_not_null(strstr(ev->name, ":u"), "event name %s", ev->name);
	pev_perfdata_close(pd);
	th_output_free(&r);

	/* Rings beyond the locked-memory budget: the limits named, and what fits. */
	r = th_perfev_nobody("record", "-q", "-m", "65536", "-o", path, spin, "50");
	cr_expect_eq(r.status, 1, "%s", r.err);
	expect_has(r.err, "cannot map the ring buffer");
	expect_has(r.err, "perf_event_mlock_kb");
	expect_has(r.err, "RLIMIT_MEMLOCK");
	expect_has(r.err, "hint: map fewer pages");
	th_output_free(&r);
	free(path);
}

Test(cmd_record, output_never_through_a_link)
{
	char other[PATH_MAX], old[PATH_MAX + 8], real[PATH_MAX + 8], missing[PATH_MAX + 16];
	char dangling[PATH_MAX + 16];
	const char *dir = th_temp_dir("rec_link");
	const char *link = th_link_to_keep(dir, "perf.data", other, sizeof(other));
	struct th_output r = th_perfev("record", "-e", "cpu-clock", "-o", link, "true");
	struct stat st;

	cr_expect_neq(r.status, 0);
	cr_expect(strstr(r.err, "is a symbolic link"), "%s", r.err);
	th_output_free(&r);
	th_expect_kept(other);
	cr_expect_eq(lstat(link, &st), 0);
	cr_expect(S_ISLNK(st.st_mode), "the link is left where it was");

	/* A dangling link: its target is not created. */
	snprintf(missing, sizeof(missing), "%s/created", dir);
	snprintf(dangling, sizeof(dangling), "%s/dangling", dir);
	cr_assert_eq(symlink(missing, dangling), 0);
	r = th_perfev("record", "-e", "cpu-clock", "-o", dangling, "true");
	cr_expect_neq(r.status, 0);
	th_output_free(&r);
	cr_expect_neq(access(missing, F_OK), 0, "a dangling link's target was created");

	/* FILE.old a link: the old output replaces the link, not its target. */
	snprintf(real, sizeof(real), "%s/real.data", dir);
	snprintf(old, sizeof(old), "%s/real.data.old", dir);
	cr_assert_eq(symlink(other, old), 0);
	for (int i = 0; i < 2; i++) {
		r = th_perfev("record", "-e", "cpu-clock", "-o", real, "true");
		cr_expect_eq(r.status, 0, "%s", r.err);
		th_output_free(&r);
	}
	th_expect_kept(other);
	cr_expect_eq(lstat(old, &st), 0);
	cr_expect(S_ISREG(st.st_mode), "real.data.old is the previous output now");
}

/* ---- lost samples ------------------------------------------------------------- */

/* The N of "# Total Lost Samples: N" in a report's output. */
static unsigned long total_lost(const char *report)
{
	const char *at = strstr(report, "# Total Lost Samples: ");
	unsigned long n = 0;

	cr_assert_not_null(at, "no lost line in: %.400s", report);
	cr_assert_eq(sscanf(at, "# Total Lost Samples: %lu", &n), 1);
	return n;
}

/*
 * A ring of one page, sampled fast with call chains, loses records. perf
 * report counts lost samples from LOST_SAMPLES records only: perfev record
 * writes them, so perf and perfev see the same losses as the summary line.
 */
Test(cmd_record, lost_samples_reach_perf_report, .init = th_leak_init, .fini = th_leak_fini)
{
	th_need_perf();
	const char *dir = th_temp_dir("rec"), *spin = th_test_program("perfdata_spin");
	char *path = th_path_join(dir, "lossy.data"), cmd[PATH_MAX + 128];
	/* The machine's limit where it is lower (the kernel refuses more). */
	static const long freqs[] = {20000, 20000, 40000, 80000};
	unsigned long samples = 0, lost = 0;
	char freq[24];

	for (size_t i = 0; i < sizeof(freqs) / sizeof(freqs[0]) && !lost; i++) {
		snprintf(freq, sizeof(freq), "%ld", th_sample_freq(freqs[i]));
		struct th_output r = th_perfev("record", "-m", "1", "-F", freq, "-g", "-o",
					       path, "--", spin, "400");
		cr_assert_eq(r.status, 0, "perfev record -F %s: %d: %s", freq, r.status, r.err);
		summary(r.err, &samples, &lost);
		th_output_free(&r);
	}
	if (!lost) {
		free(path);
		th_skip("a one-page ring at up to %s samples/s lost nothing here (%lu samples)",
			freq, samples);
	}
	snprintf(cmd, sizeof(cmd), "perf report -i '%s' --stdio --sort sym 2>/dev/null", path);
	char *perf = th_sh_ok(cmd);
	snprintf(cmd, sizeof(cmd), "'%s' report -i '%s' --stdio --sort sym", th_perfev_bin(), path);
	char *ours = th_sh_ok(cmd);
	cr_expect_eq(total_lost(perf), lost, "perf report counts %lu lost, the summary %lu",
		     total_lost(perf), lost);
	cr_expect_eq(total_lost(ours), lost, "perfev report counts %lu lost, the summary %lu",
		     total_lost(ours), lost);
	free(perf);
	free(ours);
	free(path);
}

/*
 * The recorded program's file becomes a FIFO before the recording ends:
 * reading build ids must not open it (a blocking open hung record). The
 * program runs 1.5 s of CPU, long enough to be seen mapped on a slow
 * machine; a program gone before that fails the test (exit 3), not hangs it.
 */
Test(cmd_record, mapped_file_now_a_fifo)
{
	char cmd[16384], *out = NULL, *err = NULL;
	const char *dir = th_temp_dir("rec_fifo");

	snprintf(cmd, sizeof(cmd),
		 "timeout 20 '%s' record -e cpu-clock -o '%s/r.data' -- sh -c \"cp '%s' '%s/x' && "
		 "{ '%s/x' 1500 & p=\\$!; until grep -q '%s/x' /proc/\\$p/maps 2>/dev/null; do "
		 "kill -0 \\$p 2>/dev/null || exit 3; sleep 0.01; "
		 "done; rm '%s/x'; mkfifo '%s/x'; wait; }\" 2>&1",
		 th_perfev_bin(), dir, th_test_program("report_work"), dir, dir, dir, dir, dir);
	int rc = th_sh(cmd, &out, &err);
	cr_expect_eq(rc, 0, "%s: %d (124: it hung) %s%s", cmd, rc, out, err);
	free(out);
	free(err);
}

/*
 * -c N samples every Nth event. A software event that asks for the period in
 * each sample is sampled by the kernel at every event, whatever its period,
 * so record must not ask for it with a fixed period: 64 MiB touched a page at
 * a time (16,384 faults) with -c 1000 gives about 16 samples, not 16,000.
 */
Test(cmd_record, fixed_period_samples_every_nth_event, .init = th_leak_init,
     .fini = th_leak_fini)
{
	const char *dir = th_temp_dir("rec");
	char path[PATH_MAX], cmd[PATH_MAX * 3];
	unsigned long samples, lost;
	char *out, *err;

	snprintf(path, sizeof(path), "%s/faults.data", dir);
	snprintf(cmd, sizeof(cmd), "'%s' record -e page-faults -c 1000 -o '%s' -- '%s' touch 64",
		 th_perfev_bin(), path, th_test_program("parity_work"));
	cr_assert_eq(th_sh(cmd, &out, &err), 0, "%s: %s", cmd, err);
	summary(err, &samples, &lost);
	/* Each CPU's counter keeps up to 999 faults short of its next sample. */
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long least = cpus > 0 && cpus < 16 ? (unsigned long)(16 - cpus) : 1;
	cr_expect(samples >= least && samples <= 200,
		  "-c 1000 over 16,384 page faults wrote %lu samples (%lu to about 20 expected)",
		  samples, least);
	free(out);
	free(err);

	snprintf(cmd, sizeof(cmd), "'%s' report -i '%s' --stdio --sort sym", th_perfev_bin(), path);
	out = th_sh_ok(cmd);
	unsigned long long events = 0;
	const char *at = strstr(out, "# Event count (approx.): ");
	cr_assert_not_null(at, "%s", out);
	sscanf(at, "# Event count (approx.): %llu", &events);
	cr_expect_eq(events, samples * 1000ULL, "%s", out);
	free(out);
}

/* -k: sample times from a clock (what jitdumps count in), as perf record -k. */
Test(cmd_record, clockid, .init = th_leak_init, .fini = th_leak_fini)
{
	const char *dir = th_temp_dir("rec_clock"), *spin = th_test_program("perfdata_spin");
	char *path = th_path_join(dir, "k.data");
	static const char *const names[][2] = {
		{"monotonic", "1"}, {"CLOCK_MONOTONIC_RAW", "4"}, {"boot", "7"}, {"11", "11"}};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct th_output r = th_perfev("record", "-q", "-e", "cpu-clock", "-k", names[i][0],
					       "-o", path, spin, "20");
		cr_assert_eq(r.status, 0, "-k %s: %s", names[i][0], r.err);
		struct pev_perfdata *pd = NULL;
		struct pev_error err;
		cr_assert_eq(pev_perfdata_open(path, 0, &pd, &err), 0, "%s", err.message);
		const struct pev_perfdata_event *ev = pev_perfdata_event(pd, 0);
		cr_expect(ev->attr.flags & PEV_ATTR_USE_CLOCKID, "-k %s", names[i][0]);
		cr_expect_eq(ev->attr.clockid, atoi(names[i][1]), "-k %s", names[i][0]);
		pev_perfdata_close(pd);
		th_output_free(&r);
	}
	struct th_output r = th_perfev("record", "-q", "-k", "sundial", "-o", path, spin, "20");
	cr_expect_eq(r.status, 129, "%s", r.err);
	cr_expect(strstr(r.err, "-k") && strstr(r.err, "monotonic"), "%s", r.err);
	th_output_free(&r);
	free(path);
}
