/* SPDX-License-Identifier: MIT */
/*
 * helpers.h - what perfev's Criterion tests share: leak checks, running a
 * function as an unprivileged user, tracefs, error injection at the
 * syscall seam, opening counters, running the perfev binary, and small
 * utilities. Deterministic workloads are in workloads.h.
 */
#ifndef PERFEV_TEST_HELPERS_H
#define PERFEV_TEST_HELPERS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include <criterion/criterion.h>

#include "perfev.h"

/* ---- skips ------------------------------------------------------------- */

/*
 * Appends "suite::test: reason" to the file $PERFEV_SKIP_LOG names (nothing
 * when it is unset); scripts/test.sh prints the list at the end of a run.
 */
void th_skip_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Skips the running test, printing the reason and logging it for the run's summary. */
#define th_skip(...)                                                                               \
	do {                                                                                       \
		th_skip_log(__VA_ARGS__);                                                          \
		cr_skip_test(__VA_ARGS__);                                                         \
	} while (0)

/* ---- what this machine can do ----------------------------------------- */

/*
 * The library's probe of class cap (perfev/capability.h), run once per test
 * process. The probe closes what it opens.
 */
const struct pev_capability *th_capability(enum pev_cap cap);

/*
 * Whether class cap works here (PEV_CAP_WORKS). For breakpoints the verdict
 * is checked against th_breakpoints_fire(), and a disagreement fails the
 * test (a wrong probe must not turn into a skip).
 */
bool th_cap_works(enum pev_cap cap);

/*
 * Returns true when result c works; otherwise writes the reason a test
 * needing it skips with ("breakpoint opens_never_fires here: ...") into buf
 * and returns false.
 */
bool th_cap_reason(const struct pev_capability *c, char *buf, size_t size);

/*
 * Skips the test, with the probe's verdict and figures as the reason, unless
 * class cap works here (PEV_CAP_WORKS). Call it before the test opens
 * anything: a skip ends the test on the spot. Checked as th_cap_works().
 */
void th_require_cap(enum pev_cap cap);

/*
 * Whether hardware breakpoints fire here, asked without perfev: a write
 * watchpoint opened with the raw syscall on a variable written 100 times.
 * True for 100 hits, false for 0 (they open but never fire, as under some
 * hypervisors); any other count fails the test. Cached per process.
 */
bool th_breakpoints_fire(void);

/* ---- processes ----------------------------------------------------------- */

/* The state letter of task id in /proc/ID/stat ('R', 'S', 'Z', ...), or 0 when it is gone. */
char th_task_state(pid_t id);

/*
 * Process pid's command name (comm, 32 bytes) and user and system CPU time
 * in clock ticks, from /proc/PID/stat; false when it is gone.
 */
bool th_cpu_ticks(pid_t pid, char comm[32], unsigned long *utime, unsigned long *stime);

/* The first child of process parent's main thread (/proc/PID/task/PID/children), or 0. */
pid_t th_first_child(pid_t parent);

/* The resident memory of process pid in KiB (VmRSS), or -1 when it is gone. */
long th_rss_kib(pid_t pid);

/*
 * For tests that watch a child's memory: under AddressSanitizer, freed
 * memory waits in a quarantine (RSS grows with every free), so the children
 * started from now on get none (ASAN_OPTIONS quarantine_size_mb=0). Does
 * nothing in a build without it.
 */
void th_no_quarantine(void);

/*
 * Expects text shown to people to be clean: valid UTF-8 (no stray or cut
 * continuation bytes), no C0 control but newline and tab, no DEL, no C1
 * control. what names the text in the failure; one failure says it.
 */
void th_expect_clean_text(const char *what, const char *text);

/* ---- outputs and links --------------------------------------------------- */

/*
 * Makes DIR/elsewhere holding "keep\n" and a symbolic link DIR/NAME to it;
 * writes elsewhere's path into other (size bytes) and returns the link's
 * path (static storage, valid until the next call).
 */
const char *th_link_to_keep(const char *dir, const char *name, char *other, size_t size);

/* Expects path to hold exactly "keep\n": no output went through a link to it. */
void th_expect_kept(const char *path);

/* ---- leaks ------------------------------------------------------------- */

/* Descriptors open in this process. */
int th_count_fds(void);
/* Descriptors open in this process that are perf events. */
int th_count_perf_fds(void);
/*
 * Waits until perfev, running as process pid, has opened its events (a
 * perf_event descriptor is open in it) and, when child_comm is not NULL,
 * has started its command (a child of it runs child_comm): then its signal
 * handlers are in place. Polls for 30 s at most; false when that time
 * passed or the process is gone. For tests that signal perfev: a fixed
 * sleep before the signal is scheduling luck on a loaded machine.
 */
bool th_wait_perfev_ready(pid_t pid, const char *child_comm);
/* Mappings of perf event descriptors in this process. */
int th_count_perf_maps(void);

/*
 * Criterion .init/.fini pair: the fini asserts that the test left exactly as
 * many descriptors, perf descriptors and perf mappings as there were at init.
 * Use as Test(suite, name, .init = th_leak_init, .fini = th_leak_fini).
 * Processes need no fini: every test's process kills at exit whatever it
 * left running below it, and names each on stderr ("test left process ...").
 */
void th_leak_init(void);
void th_leak_fini(void);

/* ---- privileges -------------------------------------------------------- */

/*
 * Runs fn(ctx) in a child process that has dropped to uid/gid 65534
 * (nobody) with no capabilities. ctx (ctx_size bytes) is shared with the
 * child, so fn's writes to it are visible afterwards. Returns true when the
 * child ran fn and exited normally. Skips the test when not root.
 */
bool th_as_nobody(void (*fn)(void *ctx), void *ctx, size_t ctx_size);

/*
 * th_as_nobody as another unprivileged uid (and the same gid), for tests
 * that measure a per-user budget (perf_event_mlock_kb) other tests running
 * as nobody at the same time would share.
 */
bool th_as_uid(uid_t uid, void (*fn)(void *ctx), void *ctx, size_t ctx_size);

/* Same, without dropping privileges: for code that changes process state (rlimits, seccomp). */
bool th_in_child(void (*fn)(void *ctx), void *ctx, size_t ctx_size);

/* Skips the test (with the reason printed) unless running as root. */
void th_require_root(void);

/* ---- tracefs ----------------------------------------------------------- */

/* Returns the tracefs mount point, mounting it at /sys/kernel/tracing if needed (root). NULL if impossible. */
const char *th_tracefs(void);

/*
 * Unmounts every tracefs this mount namespace sees (stacked mounts too);
 * for tests in a private mount namespace. False when one cannot be.
 */
bool th_unmount_tracefs(void);

/* Reads the id of tracepoint subsys:name from tracefs; returns 0 when unavailable. */
uint64_t th_tracepoint_id(const char *subsys, const char *name);

/* ---- error injection --------------------------------------------------- */

/*
 * Makes the next perf_event_open calls fail: the first `skip` calls go to
 * the kernel, the following `count` calls fail with errno `err` (count < 0:
 * every following call). th_inject_reset() restores the real kernel.
 */
void th_inject_open_errno(int err, int skip, int count);

/*
 * Makes every call to `call` ("ioctl", "read", "mmap", "close") fail with
 * errno err; an injected close still releases the descriptor, as Linux does.
 */
void th_inject_call_errno(const char *call, int err);

/* Installs a fake perf_event_open that refuses (EINVAL) any attr with a bit of `flags_mask`,
 * `sample_mask` or `read_mask` set, and accepts everything else (returning real fds of a
 * software dummy event). */
void th_inject_refuse_bits(uint64_t flags_mask, uint64_t sample_mask, uint64_t read_mask);

/* th_inject_refuse_bits, refusing with errno err instead of EINVAL. */
void th_inject_refuse_bits_errno(int err, uint64_t flags_mask, uint64_t sample_mask,
				 uint64_t read_mask);

/* How many perf_event_open calls reached the seam since the last injection. */
int th_open_calls(void);

/* Restores the real kernel behind the seam. */
void th_inject_reset(void);

/*
 * Expects pev_last_error() to hold code, with field (or "") at fault, and
 * each of the NULL-ended texts in its message or hint.
 */
void th_expect_last_error(int code, const char *field, ...);

/* ---- opening counters --------------------------------------------------- */

/* PEV_OPTS_INIT as a value, for where the initializer cannot go (assignments, members). */
struct pev_opts th_opts(void);

/*
 * Opens ev (pev_counter_open with o, t and group, each may be NULL) and
 * returns the counter; the test fails, with perfev's message and hint, when
 * it cannot.
 */
struct pev_counter *th_open_ok(struct pev_event ev, const struct pev_opts *o,
			       const struct pev_target *t, struct pev_counter *group);

/* Reads c's count (the test fails when the read does). */
uint64_t th_value(const struct pev_counter *c);

/*
 * Opens ev expecting the failure `code` from the perf_event_open step, and
 * leaves the diagnosis in *err (filled with 0x5a first, so nothing stale
 * passes). Checks what every such failure has: *out set to NULL, err->code
 * and err->syscall; the caller checks the errno and the rest.
 */
void th_open_fails(struct pev_event ev, const struct pev_opts *o, const struct pev_target *t,
		   struct pev_counter *group, int code, struct pev_error *err);

/* ---- running perfev ---------------------------------------------------- */

/* How a run of the perfev binary ended: its status and all it printed. */
struct th_output {
	int status; /* the exit status, or -1 (as th_run) */
	char *out;  /* stdout, malloc'ed */
	char *err;  /* stderr, malloc'ed */
};

/*
 * Runs the built perfev (th_perfev_bin) with the NULL-terminated arguments
 * first, ... (at most 62), optionally as nobody, through th_run: stdin from
 * /dev/null, stdout and stderr collected. Free the result with
 * th_output_free. Most tests call it through th_perfev or th_perfev_nobody,
 * which add the NULL: th_perfev("stat", "-e", "task-clock", "true").
 */
struct th_output th_perfev_as(bool as_nobody, const char *first, ...);
#define th_perfev(...) th_perfev_as(false, __VA_ARGS__, (const char *)NULL)
#define th_perfev_nobody(...) th_perfev_as(true, __VA_ARGS__, (const char *)NULL)

/* Frees what r holds (r itself is the caller's) and leaves it empty. */
void th_output_free(struct th_output *r);

/* Finds an executable in $PATH (a default one when unset); returns a malloc'ed path or NULL. */
char *th_which(const char *name);

/* Whether an executable of that name is in $PATH (th_which without the path). */
bool th_have_program(const char *name);

/* A cgroup made for a test (th_cgroup_make), where perf_event counts. */
struct th_cgroup {
	char dir[PATH_MAX];      /* the cgroup's directory */
	char v1[PATH_MAX / 2];   /* the cgroup v1 perf_event hierarchy mounted for it, or "" */
	char refusal[2048];      /* why a v2 cgroup would not do (the open's message), or "" */
};

/*
 * Makes a cgroup perf_event counts in, named after tag and this process: a
 * directory under the cgroup v2 mount or, where the kernel counts in no v2
 * cgroup (ENOENT for task-clock: seen on Debian 12's arm64 kernel in the
 * PMU lab), under a cgroup v1 perf_event hierarchy mounted on a temporary
 * directory (cg->refusal then says why). Needs root; skips, saying why,
 * when neither can be had. Undo with th_cgroup_remove.
 */
void th_cgroup_make(struct th_cgroup *cg, const char *tag);

/* Removes the cgroup (it must be empty) and unmounts the v1 hierarchy made for it. */
void th_cgroup_remove(struct th_cgroup *cg);

/*
 * A workload in a cgroup of its own, in the unified (v2) hierarchy, which
 * also holds perf events' cgroup targets here: frozen from the start, so
 * that a test decides when it runs (thaw, freeze) and reads exactly its CPU
 * time from the cgroup's cpu.stat.
 */
struct th_cg_work {
	char dir[PATH_MAX]; /* the cgroup's directory */
	char name[256];     /* its path under the hierarchy ("/perfev-PID-TAG"), as -G takes it */
	pid_t pid;          /* the workload (a shell running the command), or 0 */
};

/*
 * Makes the cgroup "perfev-PID-TAG" (a "/"-separated tag makes nested
 * ones, each a cgroup), frozen, and starts `sh -c command` in it. Skips,
 * saying why, without root, without a cgroup2 mount or cgroup.freeze (Linux
 * before 5.2), where a cgroup v1 perf_event hierarchy is mounted (-G would
 * name cgroups there, samples' ids are the v2 ones), or where the kernel
 * counts in no v2 cgroup. Undo with th_cg_work_end.
 */
void th_cg_work_start(struct th_cg_work *w, const char *tag, const char *command);

/* Kills the workload, waits for it, and removes its cgroup(s). */
void th_cg_work_end(struct th_cg_work *w);

/* th_cg_work_end of every workload started and not ended: a suite's .fini, after a failure too. */
void th_cg_work_end_all(void);

/* The shell commands that thaw (frozen false) or freeze w's cgroup and wait until it is so. */
void th_cg_work_freeze_cmd(const struct th_cg_work *w, bool frozen, char *buf, size_t size);

/* The cgroup's CPU time so far in microseconds (cpu.stat's usage_usec). */
uint64_t th_cg_work_usage_us(const struct th_cg_work *w);

/*
 * How many times slower than the host this machine runs the tests:
 * PERFEV_TIMEOUT_MULTIPLIER (the PMU lab's emulated machine sets 10), else 1.
 * For the limits a test sets itself (a child's timeout), as meson scales
 * the suites' own.
 */
int th_time_scale(void);

/* Skips the test, saying so, when perf is not installed. */
void th_need_perf(void);

/*
 * The newest perf (Debian sid's, through ../shared/tools/perf-latest beside
 * the source tree, PERFEV_SOURCE_ROOT), or NULL when there is none. The
 * string is kept for the life of the process.
 */
const char *th_perf_latest(void);

/*
 * Whether a frame line of `perf script` output is one where perf's DWARF
 * unwinder lost its way: a frame taken from a stack word ("([stack])"), or
 * at an address no user or kernel mapping can have ("4072bfffffffffff
 * [unknown] ([unknown])", "ffffffffffffffff [unknown] ([unknown])"). Debian's
 * perf 6.1 does so in libc's exit path (docs/PERF_DIFFERENCES.md).
 */
bool th_perf_lost_frame(const char *line);

/*
 * Whether a frame line of `perf script` is an arm64 return address signed
 * by pointer authentication (a user address with a code in bits 48..54:
 * "76ffff900b6b8b [unknown] ([unknown])"): perf 6.1 cannot unwind past one,
 * perfev strips the code and goes on (docs/PERF_DIFFERENCES.md). Never on
 * other machines.
 */
bool th_perf_signed_frame(const char *line);

/*
 * text with every "[NAME]" that names a loaded kernel module (/proc/modules),
 * and every module file "(/lib/modules/...ko)", written "[kernel.kallsyms]":
 * perf 6.1, as root on the recording's boot, reads /proc/kcore and names
 * module code as the kernel's (or, where the first kernel address it
 * resolved was a module's, names the module's file), where perfev names
 * the module (docs/PERF_DIFFERENCES.md). Applied to both tools' output, the
 * comparison ignores that difference only. Takes text (malloc'ed) and
 * returns the new text (malloc'ed).
 */
char *th_modules_as_kernel(char *text);

/*
 * Whether perfev's line x (lx bytes) and perf's y (ly bytes) differ only
 * where one names a PLT stub "_init+0x.." and the other "NAME@plt"
 * (docs/PERF_DIFFERENCES.md: "a sample in the PLT of a file whose symbol
 * table has _init"; which of the two perf meets first depends on its
 * symbol tree, so a run now and then differs; on arm64 it went the other
 * way too).
 */
bool th_plt_named_init(const char *x, size_t lx, const char *y, size_t ly);

/*
 * The share (%) of the samples of `perf script` output script that have a
 * frame of function name ("name+0x..."; for "name (inlined)", an inlined
 * frame of it; for "name (any)", any frame of it).
 */
double th_script_share(const char *script, const char *name);

/* How many samples `perf script` output script shows. */
size_t th_script_samples(const char *script);

/*
 * Text with every PLT stub's name and perf's "_init" stretched over the PLT
 * written "<plt>" (the difference th_plt_named_init allows, in a whole
 * output). Takes text (freed) and returns the new text (malloc'ed).
 */
char *th_plt_as_one_text(char *text);

/*
 * The path of a program built next to the running test (tests/NAME in the
 * build directory); fails the test when it is not there. The string is
 * kept for the life of the process.
 */
const char *th_test_program(const char *name);

/*
 * A fresh directory /tmp/perfev-NAME.XXXXXX for the running test's files.
 * It is removed, with everything in it, when the test's process exits
 * (after a failed assertion too; not in forked children). Returns its path,
 * kept until then; at most 8 per test. With PERFEV_TEST_KEEP set in the
 * environment the directories stay, named on stderr: the files of a test
 * that fails now and then can be looked at.
 */
const char *th_temp_dir(const char *name);

/*
 * The suite's directory: th_temp_dir(name), remembered for th_path_in().
 * Call it from the suite's .init (each test runs in its own process, so
 * each test gets a fresh one, removed when its process exits). Returns it.
 */
const char *th_suite_dir(const char *name);

/*
 * th_suite_dir()'s directory + "/" + name, in one of 4 static buffers used
 * in turn: the result stays valid until 4 more calls.
 */
const char *th_path_in(const char *name);

/* Removes dir and everything under it (no shell); returns 0 or -1. */
int th_remove_tree(const char *dir);

/* dir + "/" + name, malloc'ed (the caller frees). */
char *th_path_join(const char *dir, const char *name);

/*
 * Runs a shell command line; returns its exit status, output and errors
 * (caller frees both). With PERFEV_TEST_TRACE set, or in the emulated
 * machine (PERFEV_LAB), logs its wall time.
 */
int th_sh(const char *cmd, char **out, char **err);

/* Runs cmd, which must exit 0; returns its output (the caller frees). */
char *th_sh_ok(const char *cmd);
/*
 * The whole of the file at path, malloc'ed and NUL-terminated, its size in
 * *len unless len is NULL; the test fails when it cannot be read.
 */
char *th_slurp(const char *path, size_t *len);
/* Writes text to the file at path (created or truncated); the test fails when it cannot. */
void th_write_file(const char *path, const char *text);
/*
 * Reads fd to its end (EINTR retried). Returns the bytes NUL-terminated,
 * malloc'ed; *len (when not NULL) gets their number.
 */
char *th_read_fd_all(int fd, size_t *len);

/* th_sh_ok of the command that fmt and its arguments make (16 KiB at most). */
char *th_sh_okf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The bytes that the gzip stream gz (len bytes) holds, malloc'ed, their
 * count in *out_len; the test fails unless the stream is whole.
 */
unsigned char *th_gunzip(const void *gz, size_t len, size_t *out_len);

/* ---- JSON (json-c) ------------------------------------------------------- */

struct json_object;

/* Parses text, which must be one JSON object (the test fails otherwise); json_object_put it. */
struct json_object *th_json_parse(const char *text);

/* Returns member `key` of object o; the test fails when there is none. */
struct json_object *th_json_get(struct json_object *o, const char *key);

/* Returns string member `key` of object o; the test fails when it is missing or not a string. */
const char *th_json_get_str(struct json_object *o, const char *key);

/* ---- the machine --------------------------------------------------------- */

/* Whether the kernel has PMU `name` (/sys/bus/event_source/devices/NAME). */
bool th_sysfs_pmu(const char *name);

/* Whether this machine has a core PMU for hardware events (x86's cpu, hybrid parts, arm64's). */
bool th_have_core_pmu(void);

/*
 * Skips a test that forces one of libpfm4's x86 tables (skl, icl, zen3):
 * libpfm4 holds them only where it is built for x86 (Debian's arm64 build
 * has the Arm tables alone).
 */
void th_need_pfm_x86(void);

/* ---- misc -------------------------------------------------------------- */

/* Expects string hay to contain (or not to contain) needle, quoting both on failure. */
#define expect_has(hay, needle)                                                                    \
	cr_expect(strstr((hay), (needle)) != NULL, "expected \"%s\" in: %s", (needle), (hay))
#define expect_lacks(hay, needle)                                                                  \
	cr_expect(strstr((hay), (needle)) == NULL, "did not expect \"%s\" in: %s", (needle), (hay))

/* Reads /proc/sys/kernel/<name> as a number (the test fails when it cannot). */
long th_sysctl(const char *name);

/*
 * want, or the machine's limit (kernel.perf_event_max_sample_rate) when that
 * is lower: the kernel refuses a frequency above it, and lowers it by itself
 * on a slow or busy machine.
 */
long th_sample_freq(long want);

/* Returns the path of the built perfev binary (from $PERFEV_BIN). */
const char *th_perfev_bin(void);

/* Returns the path of the fixture directory (from $PERFEV_FIXTURES). */
const char *th_fixtures(void);

/*
 * Runs argv (argv[0] a path), with stdin from /dev/null, optionally as nobody;
 * collects stdout and stderr into malloc'ed strings (caller frees) and
 * returns the exit status (or -1).
 */
int th_run(char *const argv[], bool as_nobody, char **out, char **err);

/* Returns a pid that existed and has been reaped: nothing has it now. */
pid_t th_reaped_pid(void);

#endif /* PERFEV_TEST_HELPERS_H */
