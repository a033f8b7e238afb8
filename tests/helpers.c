/* SPDX-License-Identifier: MIT */
/*
 * helpers.c - shared test helpers (see helpers.h).
 */
#include "helpers.h"
#include <criterion/hooks.h>
#include <criterion/internal/ordered-set.h>
#include "workloads.h"
#include <inttypes.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <grp.h>
#include <json-c/json.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "core/sys.h"

/* ---- leaks ------------------------------------------------------------- */

/* Descriptors of process pid (0: this one) whose link holds match (NULL: all). */
static int count_fd_links_of(pid_t pid, const char *match)
{
	char fds[64];
	DIR *d;
	struct dirent *e;
	int n = 0, dfd;

	if (pid)
		snprintf(fds, sizeof(fds), "/proc/%d/fd", (int)pid);
	else
		snprintf(fds, sizeof(fds), "/proc/self/fd");
	d = opendir(fds);
	dfd = d && !pid ? dirfd(d) : -1;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[64 + sizeof(e->d_name)], target[256];
		if (e->d_name[0] == '.' || atoi(e->d_name) == dfd)
			continue;
		if (!match) {
			n++;
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", fds, e->d_name);
		ssize_t len = readlink(path, target, sizeof(target) - 1);
		if (len > 0) {
			target[len] = '\0';
			if (strstr(target, match))
				n++;
		}
	}
	closedir(d);
	return n;
}

static int count_fd_links(const char *match)
{
	return count_fd_links_of(0, match);
}

/* Parent of process pid and its comm and state, from /proc/PID/stat; -1 if gone. */
static pid_t parent_of(pid_t pid, char *comm, size_t size, char *state)
{
	char path[64], buf[512];
	int ppid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "re")))
		return -1;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *open = strchr(buf, '('), *close = strrchr(buf, ')');
	if (!open || !close || close < open || sscanf(close + 1, " %c %d", state, &ppid) != 2)
		return -1;
	snprintf(comm, size, "%.*s", (int)(close - open - 1), open + 1);
	return ppid;
}

/* Whether process pid has a child process that runs a program named comm. */
static bool has_child_named(pid_t pid, const char *comm)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	bool found = false;

	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		char name[64], state;
		pid_t child = atoi(e->d_name);
		found = child > 0 && parent_of(child, name, sizeof(name), &state) == pid &&
			strcmp(name, comm) == 0;
	}
	closedir(d);
	return found;
}

bool th_wait_perfev_ready(pid_t pid, const char *child_comm)
{
	for (int waited = 0; waited < 30000; waited += 10) {
		if (count_fd_links_of(pid, "[perf_event]") > 0 &&
		    (!child_comm || has_child_named(pid, child_comm)))
			return true;
		if (kill(pid, 0) != 0)
			return false;
		usleep(10 * 1000);
	}
	return false;
}

int th_count_fds(void)
{
	return count_fd_links(NULL);
}

int th_count_perf_fds(void)
{
	return count_fd_links("[perf_event]");
}

int th_count_perf_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "perf_event"))
			n++;
	fclose(f);
	return n;
}

static int leak_fds, leak_perf_fds, leak_maps;

void th_leak_init(void)
{
	leak_fds = th_count_fds();
	leak_perf_fds = th_count_perf_fds();
	leak_maps = th_count_perf_maps();
}

void th_leak_fini(void)
{
	int fds = th_count_fds(), perf_fds = th_count_perf_fds(), maps = th_count_perf_maps();

	th_inject_reset();
	/*
	 * Criterion reports assertions made in .fini but does not fail the test
	 * for them; a crash during teardown does fail it, so a leak aborts.
	 */
	if (fds != leak_fds || perf_fds != leak_perf_fds || maps != leak_maps) {
		fprintf(stderr,
			"leak: descriptors %d -> %d, perf descriptors %d -> %d, perf mappings "
			"%d -> %d\n",
			leak_fds, fds, leak_perf_fds, perf_fds, leak_maps, maps);
		abort();
	}
}

/* ---- skips -------------------------------------------------------------- */

/* Appends line (with its newline) to the file named by $env, if set. */
static void append_line(const char *env, const char *line)
{
	const char *path = getenv(env);
	size_t n = strlen(line);
	int fd;

	if (!path || !*path)
		return;
	/* One write with O_APPEND: lines of tests running in parallel do not mix. */
	if ((fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644)) >= 0) {
		if (write(fd, line, n) != (ssize_t)n)
			fprintf(stderr, "cannot log to %s\n", path);
		close(fd);
	}
}

void th_skip_log(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	n = snprintf(line, sizeof(line), "%s::%s: ",
		     criterion_current_suite ? criterion_current_suite->name : "?",
		     criterion_current_test ? criterion_current_test->name : "?");
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	strcat(line, "\n");
	append_line("PERFEV_SKIP_LOG", line);
}

/* ---- children left behind ------------------------------------------------- */

/*
 * SIGKILL every process descended from this one, naming those that were
 * still running. A test that fails an assertion before it stops its
 * children (a workload, a perfev it attached) would otherwise leave them to
 * spin on a shared CI machine.
 */
static void kill_left_behind(void)
{
	enum { MAX = 4096 };
	static pid_t pids[MAX], ppids[MAX];
	pid_t tree[256];
	int n = 0, ntree = 1;
	DIR *d = opendir("/proc");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) && n < MAX) {
		char comm[64], state;
		pid_t pid = atoi(e->d_name);
		if (pid > 0 && (ppids[n] = parent_of(pid, comm, sizeof(comm), &state)) > 0)
			pids[n++] = pid;
	}
	closedir(d);
	tree[0] = getpid();
	/* Breadth first: tree[] grows as each member's children are found. */
	for (int t = 0; t < ntree; t++)
		for (int i = 0; i < n && ntree < (int)(sizeof(tree) / sizeof(tree[0])); i++)
			if (ppids[i] == tree[t])
				tree[ntree++] = pids[i];
	/* Criterion's current test is gone by now: the log names the program. */
	char exe[PATH_MAX] = "", line[PATH_MAX + 96];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[len > 0 ? len : 0] = '\0';
	const char *program = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : "?";

	for (int t = 1; t < ntree; t++) {
		char comm[64] = "?", state = '?';
		parent_of(tree[t], comm, sizeof(comm), &state);
		if (state == 'Z' || kill(tree[t], SIGKILL) != 0)
			continue;
		fprintf(stderr, "test left process %d (%s) behind: killed\n", (int)tree[t], comm);
		snprintf(line, sizeof(line), "%s: process %d (%s)\n", program, (int)tree[t], comm);
		append_line("PERFEV_LEFT_LOG", line);
	}
}

/*
 * In each test's own process (Criterion's worker: BoxFort names its map
 * after the worker's pid), kill at exit what the test left behind. Not in
 * Criterion's runner, nor in a program a test starts that links these helpers.
 */
__attribute__((constructor)) static void watch_children(void)
{
	const char *map = getenv("BXFI_MAP");
	char mine[32];

	snprintf(mine, sizeof(mine), "/bxfi_%d", (int)getpid());
	if (map && strcmp(map, mine) == 0)
		atexit(kill_left_behind);
}

/* ---- processes -------------------------------------------------------------- */

long th_rss_kib(pid_t pid)
{
	char path[64], line[256];
	long kib = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

void th_no_quarantine(void)
{
#if defined(__SANITIZE_ADDRESS__)
	const bool asan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
	const bool asan = true;
#else
	const bool asan = false;
#endif
#else
	const bool asan = false;
#endif
	char opts[1024];
	const char *old = getenv("ASAN_OPTIONS");

	if (!asan)
		return;
	snprintf(opts, sizeof(opts), "%s%squarantine_size_mb=0:thread_local_quarantine_size_kb=0",
		 old ? old : "", old && *old ? ":" : "");
	setenv("ASAN_OPTIONS", opts, 1);
}

char th_task_state(pid_t id)
{
	char path[64], buf[512];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)id);
	if (!(f = fopen(path, "re")))
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' ? paren[2] : 0;
}

bool th_cpu_ticks(pid_t pid, char comm[32], unsigned long *utime, unsigned long *stime)
{
	char path[64], buf[512];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "re")))
		return false;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *paren = strrchr(buf, ')');
	comm[0] = '\0';
	sscanf(buf, "%*d (%31[^)]", comm);
	return paren && sscanf(paren + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
			       utime, stime) == 2;
}

pid_t th_first_child(pid_t parent)
{
	char path[96];
	int child = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)parent, (int)parent);
	if (!(f = fopen(path, "re")))
		return 0;
	if (fscanf(f, "%d", &child) != 1)
		child = 0;
	fclose(f);
	return child;
}

/* ---- outputs and links ---------------------------------------------------- */

const char *th_link_to_keep(const char *dir, const char *name, char *other, size_t size)
{
	static char link[PATH_MAX];
	FILE *f;

	snprintf(other, size, "%s/elsewhere", dir);
	snprintf(link, sizeof(link), "%s/%s", dir, name);
	cr_assert_not_null(f = fopen(other, "we"));
	fputs("keep\n", f);
	fclose(f);
	cr_assert_eq(symlink(other, link), 0, "symlink: %s", strerror(errno));
	return link;
}

void th_expect_kept(const char *path)
{
	char buf[64] = "";
	FILE *f = fopen(path, "re");

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	cr_expect_str_eq(buf, "keep\n", "the file a link at the output points to was written");
}

/* ---- what this machine can do ------------------------------------------- */

const struct pev_capability *th_capability(enum pev_cap cap)
{
	static struct pev_capability results[PEV_CAP_COUNT];
	static bool done[PEV_CAP_COUNT];

	cr_assert_lt((unsigned)cap, PEV_CAP_COUNT);
	if (!done[cap]) {
		results[cap] = (struct pev_capability)PEV_CAPABILITY_INIT;
		cr_assert_eq(pev_capability_probe(cap, NULL, &results[cap]), 0);
		done[cap] = true;
	}
	return &results[cap];
}

bool th_cap_works(enum pev_cap cap)
{
	const struct pev_capability *c = th_capability(cap);

	if (cap == PEV_CAP_BREAKPOINT && c->verdict != PEV_CAP_UNAVAILABLE)
		cr_assert_eq(c->verdict == PEV_CAP_WORKS, th_breakpoints_fire(),
			     "perfev's breakpoint probe says '%s' (%s) but a raw watchpoint %s",
			     pev_capability_verdict_name(c->verdict), c->detail,
			     th_breakpoints_fire() ? "fires" : "never fires");
	return c->verdict == PEV_CAP_WORKS;
}

bool th_cap_reason(const struct pev_capability *c, char *buf, size_t size)
{
	if (c->verdict == PEV_CAP_WORKS)
		return true;
	snprintf(buf, size, "%s %s here: %s", pev_capability_name(c->cap),
		 pev_capability_verdict_name(c->verdict), c->detail);
	return false;
}

void th_require_cap(enum pev_cap cap)
{
	char reason[sizeof(((struct pev_capability *)0)->detail) + 64];

	if (!th_cap_works(cap) && !th_cap_reason(th_capability(cap), reason, sizeof(reason)))
		th_skip("%s", reason);
}

/* What the raw watchpoint of th_breakpoints_fire watches. */
static volatile uint64_t raw_watched;

bool th_breakpoints_fire(void)
{
	static int cached = -1;
	struct perf_event_attr a;
	uint64_t n = 0;
	int fd;

	if (cached >= 0)
		return cached;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_BREAKPOINT;
	a.size = sizeof(a);
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (uint64_t)(uintptr_t)&raw_watched;
	a.bp_len = HW_BREAKPOINT_LEN_8;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.disabled = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		cached = 0;
		return false;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (int i = 0; i < 100; i++)
		raw_watched = (uint64_t)i;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	cr_assert_eq(read(fd, &n, sizeof(n)), (ssize_t)sizeof(n));
	close(fd);
	cr_assert(n == 0 || n == 100, "a raw write watchpoint counted %" PRIu64 " of 100 writes",
		  n);
	cached = n == 100;
	return cached;
}

/* ---- privileges -------------------------------------------------------- */

void th_require_root(void)
{
	if (geteuid() != 0)
		th_skip("needs root (to drop to nobody or mount tracefs); running as uid %d",
			     (int)geteuid());
}

/* Runs fn(ctx copy) in a child, as uid (and gid) `as` unless it is -1; copies ctx back. */
static bool run_child(void (*fn)(void *ctx), void *ctx, size_t ctx_size, long as)
{
	size_t size = ctx_size ? ctx_size : 1;
	void *shared = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int status;

	cr_assert_neq(shared, MAP_FAILED, "mmap: %s", strerror(errno));
	if (ctx_size)
		memcpy(shared, ctx, ctx_size);
	pid_t pid = fork();
	cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		if (as >= 0) {
			if (setgroups(0, NULL) < 0 || setresgid((gid_t)as, (gid_t)as, (gid_t)as) < 0 ||
			    setresuid((uid_t)as, (uid_t)as, (uid_t)as) < 0)
				_exit(90);
			if (prctl(PR_SET_DUMPABLE, 1) < 0)
				_exit(91);
		}
		fn(shared);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (ctx_size)
		memcpy(ctx, shared, ctx_size);
	munmap(shared, size);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

bool th_as_nobody(void (*fn)(void *ctx), void *ctx, size_t ctx_size)
{
	th_require_root();
	return run_child(fn, ctx, ctx_size, 65534);
}

bool th_as_uid(uid_t uid, void (*fn)(void *ctx), void *ctx, size_t ctx_size)
{
	th_require_root();
	return run_child(fn, ctx, ctx_size, (long)uid);
}

bool th_in_child(void (*fn)(void *ctx), void *ctx, size_t ctx_size)
{
	return run_child(fn, ctx, ctx_size, -1);
}

/* ---- tracefs ----------------------------------------------------------- */

const char *th_tracefs(void)
{
	static const char path[] = "/sys/kernel/tracing";
	struct stat st;
	char events[64];

	snprintf(events, sizeof(events), "%s/events", path);
	if (stat(events, &st) == 0)
		return path;
	if (geteuid() != 0)
		return NULL;
	if (mount("nodev", path, "tracefs", 0, NULL) < 0 && errno != EBUSY)
		return NULL;
	return stat(events, &st) == 0 ? path : NULL;
}

uint64_t th_tracepoint_id(const char *subsys, const char *name)
{
	const char *fs = th_tracefs();
	char path[256];
	long long id;
	FILE *f;

	if (!fs)
		return 0;
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", fs, subsys, name);
	if (!(f = fopen(path, "re")))
		return 0;
	if (fscanf(f, "%lld", &id) != 1)
		id = 0;
	fclose(f);
	return id > 0 ? (uint64_t)id : 0;
}

/* ---- error injection --------------------------------------------------- */

static struct pev_sys injected;
static int inject_errno, inject_skip, inject_count, open_calls;
static uint64_t refuse_flags, refuse_sample, refuse_read;
static int refuse_errno = EINVAL;

static int open_with_errno(struct pev_attr *attr, pid_t pid, int cpu, int group_fd,
			   unsigned long flags)
{
	open_calls++;
	if (inject_skip > 0) {
		inject_skip--;
		return pev__sys_real.perf_event_open(attr, pid, cpu, group_fd, flags);
	}
	if (inject_count != 0) {
		if (inject_count > 0)
			inject_count--;
		return -inject_errno;
	}
	return pev__sys_real.perf_event_open(attr, pid, cpu, group_fd, flags);
}

void th_inject_open_errno(int err, int skip, int count)
{
	injected = pev__sys_real;
	injected.perf_event_open = open_with_errno;
	inject_errno = err;
	inject_skip = skip;
	inject_count = count;
	open_calls = 0;
	pev__sys_set(&injected);
}

static int call_errno;
static int failing_ioctl(int fd, unsigned long request, unsigned long arg)
{
	(void)fd, (void)request, (void)arg;
	return -call_errno;
}
static ssize_t failing_read(int fd, void *buf, size_t count)
{
	(void)fd, (void)buf, (void)count;
	return -call_errno;
}
static void *failing_mmap(size_t length, int prot, int flags, int fd, off_t offset, int *err)
{
	(void)length, (void)prot, (void)flags, (void)fd, (void)offset;
	*err = call_errno;
	return NULL;
}

static int failing_close(int fd)
{
	/* The descriptor is still released, as Linux does when close reports an error. */
	pev__sys_real.close(fd);
	return -call_errno;
}

void th_inject_call_errno(const char *call, int err)
{
	injected = pev__sys_real;
	call_errno = err;
	if (strcmp(call, "ioctl") == 0)
		injected.ioctl = failing_ioctl;
	else if (strcmp(call, "read") == 0)
		injected.read = failing_read;
	else if (strcmp(call, "mmap") == 0)
		injected.mmap = failing_mmap;
	else if (strcmp(call, "close") == 0)
		injected.close = failing_close;
	else
		cr_assert_fail("cannot inject into '%s'", call);
	pev__sys_set(&injected);
}

static int open_refusing_bits(struct pev_attr *attr, pid_t pid, int cpu, int group_fd,
			      unsigned long flags)
{
	struct pev_attr dummy = {
		.type = PEV_TYPE_SOFTWARE,
		.size = PEV_ATTR_SIZE_VER0,
		.config = PEV_SW_DUMMY,
		.flags = PEV_ATTR_DISABLED | PEV_ATTR_EXCLUDE_KERNEL | PEV_ATTR_EXCLUDE_HV,
	};

	open_calls++;
	if ((attr->flags & refuse_flags) || (attr->sample_type & refuse_sample) ||
	    (attr->read_format & refuse_read))
		return -refuse_errno;
	(void)pid, (void)cpu, (void)group_fd;
	return pev__sys_real.perf_event_open(&dummy, 0, -1, -1, flags & PEV_FLAG_FD_CLOEXEC);
}

void th_inject_refuse_bits(uint64_t flags_mask, uint64_t sample_mask, uint64_t read_mask)
{
	th_inject_refuse_bits_errno(EINVAL, flags_mask, sample_mask, read_mask);
}

void th_inject_refuse_bits_errno(int err, uint64_t flags_mask, uint64_t sample_mask,
				 uint64_t read_mask)
{
	refuse_errno = err;
	injected = pev__sys_real;
	injected.perf_event_open = open_refusing_bits;
	refuse_flags = flags_mask;
	refuse_sample = sample_mask;
	refuse_read = read_mask;
	open_calls = 0;
	pev__sys_set(&injected);
}

int th_open_calls(void)
{
	return open_calls;
}

void th_inject_reset(void)
{
	pev__sys_set(NULL);
}

void th_expect_last_error(int code, const char *field, ...)
{
	const struct pev_error *e = pev_last_error();
	const char *text;
	va_list ap;

	cr_assert_not_null(e);
	cr_expect_eq(e->code, code, "%s: %s", pev_error_name(e->code), e->message);
	cr_expect_str_eq(e->field, field, "%s", e->message);
	va_start(ap, field);
	while ((text = va_arg(ap, const char *)))
		cr_expect(strstr(e->message, text) || strstr(e->hint, text),
			  "`%s` in: %s / hint: %s", text, e->message, e->hint);
	va_end(ap);
}

/* ---- opening counters --------------------------------------------------- */

struct pev_opts th_opts(void)
{
	struct pev_opts o = PEV_OPTS_INIT;
	return o;
}

struct pev_counter *th_open_ok(struct pev_event ev, const struct pev_opts *o,
			       const struct pev_target *t, struct pev_counter *group)
{
	struct pev_counter *c = NULL;
	struct pev_error err;
	int r = pev_counter_open(&ev, o, t, group, &c, &err);

	cr_assert_eq(r, 0, "open failed (%s): %s\n%s", pev_error_name(r), err.message, err.hint);
	cr_assert_not_null(c);
	return c;
}

uint64_t th_value(const struct pev_counter *c)
{
	struct pev_count v;

	cr_assert_eq(pev_counter_read(c, &v), 0);
	return v.value;
}

void th_open_fails(struct pev_event ev, const struct pev_opts *o, const struct pev_target *t,
		   struct pev_counter *group, int code, struct pev_error *err)
{
	struct pev_counter *c = (struct pev_counter *)1;

	memset(err, 0x5a, sizeof(*err));
	int r = pev_counter_open(&ev, o, t, group, &c, err);
	if (r == 0)
		pev_counter_close(c);
	cr_assert_eq(r, code, "expected %s, got %s (%d): %s", pev_error_name(code),
		     pev_error_name(r), r, r ? err->message : "opened");
	cr_expect_null(c, "*out is NULL after a failure");
	cr_expect_eq(err->code, code);
	cr_expect_str_eq(err->syscall, "perf_event_open");
}

/* ---- misc -------------------------------------------------------------- */

long th_sysctl(const char *name)
{
	char path[128];
	long v = -1;

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	FILE *f = fopen(path, "re");
	cr_assert(f, "cannot read %s", path);
	cr_assert_eq(fscanf(f, "%ld", &v), 1, "%s is not a number", path);
	fclose(f);
	return v;
}

long th_sample_freq(long want)
{
	long limit = th_sysctl("perf_event_max_sample_rate");

	return limit > 0 && limit < want ? limit : want;
}

const char *th_perfev_bin(void)
{
	const char *p = getenv("PERFEV_BIN");
	cr_assert(p && *p, "PERFEV_BIN is not set (run the tests through meson test)");
	return p;
}

const char *th_fixtures(void)
{
	const char *p = getenv("PERFEV_FIXTURES");
	cr_assert(p && *p, "PERFEV_FIXTURES is not set (run the tests through meson test)");
	return p;
}

/* Whether uid nobody may run path (every directory on its way open to others). */
static bool nobody_can_run(const char *path)
{
	int status;
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
		    setresuid(65534, 65534, 65534) < 0)
			_exit(2);
		_exit(access(path, X_OK) == 0 ? 0 : 1);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int th_run(char *const argv[], bool as_nobody, char **out, char **err)
{
	int po[2], pe[2], status;

	if (as_nobody) {
		th_require_root();
		if (!nobody_can_run(argv[0]))
			th_skip("nobody may not run %s: a directory on its path is closed to other "
				"users (a clone under /root); clone the repository where others may "
				"enter to run the tests that drop privileges",
				argv[0]);
	}
	cr_assert(pipe2(po, O_CLOEXEC) == 0 && pipe2(pe, O_CLOEXEC) == 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		dup2(null, 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		if (as_nobody && (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
				  setresuid(65534, 65534, 65534) < 0))
			_exit(90);
		execv(argv[0], argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	/* Drain both pipes together so neither can fill up and block the child. */
	struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
	char *bufs[2] = {NULL, NULL};
	size_t lens[2] = {0, 0}, caps[2] = {0, 0};
	int open_pipes = 2;
	while (open_pipes > 0) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP)))
				continue;
			if (lens[i] + 4096 + 1 > caps[i]) {
				caps[i] = caps[i] ? caps[i] * 2 : 8192;
				bufs[i] = realloc(bufs[i], caps[i]);
				cr_assert(bufs[i]);
			}
			ssize_t n = read(fds[i].fd, bufs[i] + lens[i], 4096);
			if (n > 0) {
				lens[i] += (size_t)n;
			} else {
				close(fds[i].fd);
				fds[i].fd = -1;
				open_pipes--;
			}
		}
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	for (int i = 0; i < 2; i++) {
		if (!bufs[i])
			bufs[i] = malloc(1);
		bufs[i][lens[i]] = '\0';
	}
	if (out)
		*out = bufs[0];
	else
		free(bufs[0]);
	if (err)
		*err = bufs[1];
	else
		free(bufs[1]);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

pid_t th_reaped_pid(void)
{
	pid_t pid = fork();
	int status;

	cr_assert_geq(pid, 0);
	if (pid == 0)
		_exit(0);
	waitpid(pid, &status, 0);
	return pid;
}

/* ---- running perfev ---------------------------------------------------- */

struct th_output th_perfev_as(bool as_nobody, const char *first, ...)
{
	const char *argv[64];
	struct th_output r;
	va_list ap;
	int n = 0;

	argv[n++] = th_perfev_bin();
	va_start(ap, first);
	for (const char *a = first; a; a = va_arg(ap, const char *)) {
		cr_assert_lt(n, 63, "too many arguments for perfev");
		argv[n++] = a;
	}
	va_end(ap);
	argv[n] = NULL;
	r.status = th_run((char *const *)argv, as_nobody, &r.out, &r.err);
	return r;
}

void th_output_free(struct th_output *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

char *th_which(const char *name)
{
	const char *path = getenv("PATH");
	char *copy = strdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin");
	char *save = NULL, *found = NULL;

	for (char *dir = strtok_r(copy, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		char full[4096];
		snprintf(full, sizeof(full), "%s/%s", dir, name);
		if (access(full, X_OK) == 0)
			found = strdup(full);
	}
	free(copy);
	return found;
}

int th_time_scale(void)
{
	const char *v = getenv("PERFEV_TIMEOUT_MULTIPLIER");
	int n = v ? atoi(v) : 1;

	return n >= 1 && n <= 100 ? n : 1;
}

/*
 * Criterion's own time limits (a suite's or a test's .timeout) times
 * th_time_scale(), as meson's are: an emulated machine runs each test
 * several times slower. Run by Criterion's runner before it starts any test.
 */
ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
	int scale = th_time_scale();

	if (scale == 1)
		return;
	for (struct criterion_ordered_set_node *sn = set->suites->first; sn; sn = sn->next) {
		struct criterion_suite_set *suite = (void *)(sn + 1);

		if (suite->suite.data)
			suite->suite.data->timeout *= scale;
		if (!suite->tests)
			continue;
		for (struct criterion_ordered_set_node *tn = suite->tests->first; tn; tn = tn->next) {
			struct criterion_test *test = (void *)(tn + 1);

			if (test->data)
				test->data->timeout *= scale;
		}
	}
}

void th_need_perf(void)
{
	if (!th_have_program("perf"))
		th_skip("perf is not installed (Debian: apt-get install linux-perf)");
}

const char *th_perf_latest(void)
{
	static char path[PATH_MAX];
	const char *root = getenv("PERFEV_SOURCE_ROOT");

	snprintf(path, sizeof(path), "%s/../shared/tools/perf-latest", root ? root : ".");
	return access(path, X_OK) == 0 ? path : NULL;
}

const char *th_test_program(const char *name)
{
	static struct {
		char name[64];
		char path[PATH_MAX];
	} known[8];
	size_t i;

	for (i = 0; i < 8 && known[i].name[0]; i++)
		if (strcmp(known[i].name, name) == 0)
			return known[i].path;
	cr_assert_lt(i, 8, "more than 8 test programs");
	cr_assert_lt(strlen(name), sizeof(known[i].name));
	ssize_t n = readlink("/proc/self/exe", known[i].path, sizeof(known[i].path) - 1);
	cr_assert_gt(n, 0);
	known[i].path[n] = '\0';
	char *slash = strrchr(known[i].path, '/');
	cr_assert_not_null(slash);
	cr_assert_lt((size_t)(slash + 1 - known[i].path) + strlen(name), sizeof(known[i].path));
	strcpy(slash + 1, name);
	cr_assert_eq(access(known[i].path, X_OK), 0, "no test program at %s", known[i].path);
	strcpy(known[i].name, name);
	return known[i].path;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int th_remove_tree(const char *dir)
{
	return nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static struct {
	pid_t owner;
	int n;
	char dirs[8][PATH_MAX];
} temp_dirs;

static void remove_temp_dirs(void)
{
	bool keep = getenv("PERFEV_TEST_KEEP") != NULL;

	if (getpid() != temp_dirs.owner)
		return;
	for (int i = 0; i < temp_dirs.n; i++) {
		if (keep)
			fprintf(stderr, "PERFEV_TEST_KEEP: kept %s\n", temp_dirs.dirs[i]);
		else
			th_remove_tree(temp_dirs.dirs[i]);
	}
	temp_dirs.n = 0;
}

const char *th_temp_dir(const char *name)
{
	if (temp_dirs.owner != getpid()) {
		if (!temp_dirs.owner)
			atexit(remove_temp_dirs);
		temp_dirs.owner = getpid();
		temp_dirs.n = 0;
	}
	cr_assert_lt(temp_dirs.n, 8, "more than 8 temporary directories in one test");
	char *dir = temp_dirs.dirs[temp_dirs.n];
	snprintf(dir, PATH_MAX, "/tmp/perfev-%s.XXXXXX", name);
	cr_assert_not_null(mkdtemp(dir), "mkdtemp %s: %s", dir, strerror(errno));
	temp_dirs.n++;
	return dir;
}

static const char *suite_dir;

const char *th_suite_dir(const char *name)
{
	suite_dir = th_temp_dir(name);
	return suite_dir;
}

const char *th_path_in(const char *name)
{
	static char p[4][PATH_MAX];
	static int at;
	char *r = p[at++ % 4];

	cr_assert_not_null(suite_dir, "th_path_in(\"%s\") before th_suite_dir()", name);
	snprintf(r, PATH_MAX, "%s/%s", suite_dir, name);
	return r;
}

char *th_path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);

	cr_assert_not_null(p);
	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

int th_sh(const char *cmd, char **out, char **err)
{
	char *argv[] = {"/bin/sh", "-c", (char *)cmd, NULL};
	struct timespec t0, t1;
	int st;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	st = th_run(argv, false, out, err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* Where a slow machine's time goes: each command's wall time, on request and in the lab. */
	if (getenv("PERFEV_TEST_TRACE") || getenv("PERFEV_LAB"))
		fprintf(stderr, "PERFEV_TEST_TRACE: %.1f s: %.300s\n",
			(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, cmd);
	return st;
}

char *th_sh_ok(const char *cmd)
{
	char *out = NULL, *err = NULL;
	int st = th_sh(cmd, &out, &err);

	cr_assert_eq(st, 0, "%s: exit status %d: %s", cmd, st, err);
	free(err);
	return out;
}

char *th_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rbe");
	char *buf = NULL, chunk[65536];
	size_t have = 0, n;

	cr_assert_not_null(f, "cannot read %s: %s", path, strerror(errno));
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		buf = realloc(buf, have + n + 1);
		cr_assert_not_null(buf);
		memcpy(buf + have, chunk, n);
		have += n;
	}
	cr_assert(!ferror(f), "cannot read %s", path);
	fclose(f);
	if (!buf)
		cr_assert_not_null(buf = malloc(1));
	buf[have] = '\0';
	if (len)
		*len = have;
	return buf;
}

void th_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	cr_assert_not_null(f, "cannot write %s: %s", path, strerror(errno));
	cr_assert_geq(fputs(text, f), 0, "cannot write %s", path);
	cr_assert_eq(fclose(f), 0, "cannot write %s: %s", path, strerror(errno));
}

char *th_sh_okf(const char *fmt, ...)
{
	char cmd[16384];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	cr_assert(n >= 0 && (size_t)n < sizeof(cmd), "a command of %d bytes: %.80s...", n, cmd);
	return th_sh_ok(cmd);
}

unsigned char *th_gunzip(const void *gz, size_t len, size_t *out_len)
{
	size_t cap = 1 << 20, n = 0;
	unsigned char *raw = malloc(cap);
	z_stream z;
	int r;

	cr_assert_not_null(raw);
	memset(&z, 0, sizeof(z));
	cr_assert_eq(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (Bytef *)gz;
	z.avail_in = (uInt)len;
	do {
		if (n == cap) {
			raw = realloc(raw, cap *= 2);
			cr_assert_not_null(raw);
		}
		z.next_out = raw + n;
		z.avail_out = (uInt)(cap - n);
		r = inflate(&z, Z_NO_FLUSH);
		n = cap - z.avail_out;
	} while (r == Z_OK);
	inflateEnd(&z);
	cr_assert_eq(r, Z_STREAM_END, "not a whole gzip stream: %d", r);
	*out_len = n;
	return raw;
}

bool th_have_program(const char *name)
{
	char *path = th_which(name);
	bool found = path != NULL;

	free(path);
	return found;
}

/* Whether task-clock opens for cgroup dir; its message in why (size bytes) when it does not. */
static int cgroup_counts(const char *dir, char *why, size_t size)
{
	struct pev_event ev = pev_event_software(PEV_SW_TASK_CLOCK);
	struct pev_target t = pev_target_cgroup(dir);
	struct pev_counter *c = NULL;
	struct pev_error err;
	int r = pev_counter_open(&ev, NULL, &t, NULL, &c, &err);

	if (r == 0)
		pev_counter_close(c);
	else
		snprintf(why, size, "%s", err.message);
	return r;
}

void th_cgroup_make(struct th_cgroup *cg, const char *tag)
{
	char mnt[256];

	memset(cg, 0, sizeof(*cg));
	if (!th_cgroup2_mount(mnt, sizeof(mnt)))
		th_skip("cgroup v2 is not mounted on this machine (no cgroup2 in /proc/self/mounts)");
	th_require_root();
	snprintf(cg->dir, sizeof(cg->dir), "%s/perfev-%s-%d", mnt, tag, (int)getpid());
	if (mkdir(cg->dir, 0755) < 0)
		th_skip("cannot create a cgroup under %s: %s", mnt, strerror(errno));
	if (cgroup_counts(cg->dir, cg->refusal, sizeof(cg->refusal)) != PEV_ENOENT)
		return; /* it counts, or the test meets the failure itself */
	rmdir(cg->dir);
	snprintf(cg->v1, sizeof(cg->v1), "%s", th_temp_dir("cgroup-v1"));
	if (mount("none", cg->v1, "cgroup", 0, "perf_event") < 0)
		th_skip("this kernel counts in no cgroup v2 cgroup (%s), and no cgroup v1 perf_event "
			"hierarchy can be mounted: %s",
			cg->refusal, strerror(errno));
	snprintf(cg->dir, sizeof(cg->dir), "%s/perfev-%s-%d", cg->v1, tag, (int)getpid());
	if (mkdir(cg->dir, 0755) < 0) {
		int e = errno;
		umount(cg->v1);
		cr_assert_fail("mkdir %s: %s", cg->dir, strerror(e));
	}
}

void th_cgroup_remove(struct th_cgroup *cg)
{
	cr_expect_eq(rmdir(cg->dir), 0, "rmdir %s: %s", cg->dir, strerror(errno));
	if (cg->v1[0])
		cr_expect_eq(umount(cg->v1), 0, "umount %s: %s", cg->v1, strerror(errno));
}

/* Writes text into the cgroup file dir/name; 0 or an errno. */
static int cg_write(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX + 64];
	int fd, e = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return errno;
	if (write(fd, text, strlen(text)) < 0)
		e = errno;
	close(fd);
	return e;
}

/* The workloads started and not ended yet (th_cg_work_end_all). */
static struct th_cg_work *cg_works[8];

void th_cg_work_end_all(void)
{
	for (size_t i = 0; i < sizeof(cg_works) / sizeof(cg_works[0]); i++)
		if (cg_works[i])
			th_cg_work_end(cg_works[i]);
}

void th_cg_work_start(struct th_cg_work *w, const char *tag, const char *command)
{
	char root[PATH_MAX / 2], events[PATH_MAX], why[2048], freeze[PATH_MAX + 32];

	memset(w, 0, sizeof(*w));
	th_require_root();
	if (pev_cgroup_v2_root(root, sizeof(root)) < 0)
		th_skip("cgroup v2 is not mounted on this machine (no cgroup2 in mountinfo)");
	if (pev_cgroup_events_root(events, sizeof(events)) == 0 && strcmp(events, root) != 0)
		th_skip("a cgroup v1 perf_event hierarchy is mounted at %s: -G names cgroups there, "
			"while samples' cgroup ids are of the v2 hierarchy at %s",
			events, root);
	snprintf(w->name, sizeof(w->name), "/perfev-%d-%s", (int)getpid(), tag);
	snprintf(w->dir, sizeof(w->dir), "%s%s", root, w->name);
	for (size_t i = 0; i < sizeof(cg_works) / sizeof(cg_works[0]); i++)
		if (!cg_works[i]) {
			cg_works[i] = w;
			break;
		}
	/* Each level of a nested tag: a cgroup. */
	for (char *slash = strchr(w->dir + strlen(root) + 1, '/');; slash = strchr(slash + 1, '/')) {
		if (slash)
			*slash = '\0';
		int r = mkdir(w->dir, 0755);
		int e = errno;
		if (slash)
			*slash = '/';
		if (r < 0 && e != EEXIST)
			th_skip("cannot create a cgroup under %s: %s", root, strerror(e));
		if (!slash)
			break;
	}
	snprintf(freeze, sizeof(freeze), "%s/cgroup.freeze", w->dir);
	if (access(freeze, F_OK) != 0) {
		th_cg_work_end(w);
		th_skip("this kernel's cgroups cannot be frozen (no cgroup.freeze: Linux before 5.2)");
	}
	if (cgroup_counts(w->dir, why, sizeof(why)) == PEV_ENOENT) {
		th_cg_work_end(w);
		th_skip("this kernel counts in no cgroup v2 cgroup: %s", why);
	}
	cr_assert_eq(cg_write(w->dir, "cgroup.freeze", "1"), 0);
	w->pid = fork();
	cr_assert_geq(w->pid, 0);
	if (w->pid == 0) {
		char me[32];
		snprintf(me, sizeof(me), "%d", (int)getpid());
		if (cg_write(w->dir, "cgroup.procs", me) != 0)
			_exit(127);
		execl("/bin/sh", "sh", "-c", command, (char *)NULL);
		_exit(127);
	}
}

void th_cg_work_freeze_cmd(const struct th_cg_work *w, bool frozen, char *buf, size_t size)
{
	snprintf(buf, size,
		 "echo %d > '%s/cgroup.freeze'; until grep -qx 'frozen %d' '%s/cgroup.events'; "
		 "do sleep 0.01; done",
		 frozen, w->dir, frozen, w->dir);
}

uint64_t th_cg_work_usage_us(const struct th_cg_work *w)
{
	char path[PATH_MAX + 16];
	char *text, *at;
	unsigned long long us = 0;

	snprintf(path, sizeof(path), "%s/cpu.stat", w->dir);
	text = th_slurp(path, NULL);
	at = strstr(text, "usage_usec ");
	cr_assert(at && sscanf(at, "usage_usec %llu", &us) == 1, "%s: %s", path, text);
	free(text);
	return us;
}

void th_cg_work_end(struct th_cg_work *w)
{
	for (size_t i = 0; i < sizeof(cg_works) / sizeof(cg_works[0]); i++)
		if (cg_works[i] == w)
			cg_works[i] = NULL;
	if (w->pid > 0) {
		/* A frozen task takes SIGKILL; cgroup.kill (Linux 5.14) takes its children too. */
		cg_write(w->dir, "cgroup.kill", "1");
		kill(w->pid, SIGKILL);
		waitpid(w->pid, NULL, 0);
		cg_write(w->dir, "cgroup.freeze", "0");
		w->pid = 0;
	}
	if (!w->dir[0])
		return;
	char root[PATH_MAX];
	if (pev_cgroup_v2_root(root, sizeof(root)) < 0)
		return;
	/* The cgroup, then each parent a nested tag made; a killed task leaves it soon after. */
	for (size_t n = strlen(w->dir); n > strlen(root); n = strlen(w->dir)) {
		bool gone = false;
		for (int i = 0; i < 500 && !gone; i++) {
			gone = rmdir(w->dir) == 0 || errno == ENOENT;
			if (!gone)
				usleep(10 * 1000);
		}
		cr_expect(gone, "rmdir %s: %s", w->dir, strerror(errno));
		*strrchr(w->dir, '/') = '\0';
	}
	w->dir[0] = '\0';
}

bool th_perf_lost_frame(const char *line)
{
	unsigned long long addr;

	if (strstr(line, " ([stack])"))
		return true;
	/* Above the user half; kernel frames name their image. */
	return strstr(line, "[unknown] ([unknown])") && sscanf(line, " %llx", &addr) == 1 &&
	       addr >= 0x800000000000ULL;
}

bool th_perf_signed_frame(const char *line)
{
#if defined(__aarch64__)
	unsigned long long addr;

	return strstr(line, " [unknown]") && sscanf(line, " %llx", &addr) == 1 && addr >> 48 &&
	       !(addr >> 55);
#else
	(void)line;
	return false;
#endif
}

/* Whether modules (/proc/modules' text) lists a module of the name at name, len bytes long. */
static bool module_listed(const char *modules, const char *name, size_t len)
{
	for (const char *l = modules; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != '\0'))
		if (strcspn(l, " \n") == len && memcmp(l, name, len) == 0)
			return true;
	return false;
}

char *th_modules_as_kernel(char *text)
{
	static const char kernel[] = "[kernel.kallsyms]";
	size_t size = strlen(text) + 1, n = 0;
	/* A kernel built without modules has no list. */
	char *modules = access("/proc/modules", R_OK) == 0 ? th_slurp("/proc/modules", NULL) : NULL;
	char *out = malloc(size);

	cr_assert_not_null(out);
	for (const char *r = text; *r;) {
		size_t len = r[0] == '[' ? strcspn(r + 1, "]\n ") : 0;
		/* A module's file, as perf names it where it did not read kcore: "(/lib/modules/...ko)". */
		size_t path = strncmp(r, "(/lib/modules/", 14) == 0 ? strcspn(r + 1, ")\n ") : 0;
		if (path && r[1 + path] == ')' && memmem(r + 1, path, ".ko", 3)) {
			out[n++] = *r++; /* the file's (...) becomes "([kernel.kallsyms])" */
			len = path - 2;  /* r + len + 2 is then the ')' */
		} else if (!(len && r[1 + len] == ']' && modules &&
			     module_listed(modules, r + 1, len))) {
			len = 0;
		}
		if (len) {
			size += sizeof(kernel);
			out = realloc(out, size);
			cr_assert_not_null(out);
			memcpy(out + n, kernel, sizeof(kernel) - 1);
			n += sizeof(kernel) - 1;
			r += len + 2;
			continue;
		}
		out[n++] = *r++;
	}
	out[n] = '\0';
	free(modules);
	free(text);
	return out;
}

/* ---- JSON (json-c) ------------------------------------------------------- */

json_object *th_json_parse(const char *text)
{
	enum json_tokener_error jerr;
	json_object *root = json_tokener_parse_verbose(text, &jerr);

	cr_assert_not_null(root, "not JSON (%s): %.2000s", json_tokener_error_desc(jerr), text);
	cr_assert(json_object_is_type(root, json_type_object), "not a JSON object: %.2000s", text);
	return root;
}

json_object *th_json_get(json_object *o, const char *key)
{
	json_object *v = NULL;

	cr_assert(json_object_object_get_ex(o, key, &v), "no key '%s' in %.2000s", key,
		  json_object_to_json_string(o));
	return v;
}

const char *th_json_get_str(json_object *o, const char *key)
{
	json_object *v = th_json_get(o, key);

	cr_assert(json_object_is_type(v, json_type_string), "'%s' is not a string", key);
	return json_object_get_string(v);
}

/* ---- the machine --------------------------------------------------------- */

bool th_sysfs_pmu(const char *name)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s", name);
	return stat(path, &st) == 0;
}

bool th_have_core_pmu(void)
{
	struct pev_machine m;

	/* As the library decides it: a PMU of type PERF_TYPE_RAW, named cpu, or
	 * with a cpus file (hybrid x86's cpu_core/cpu_atom, arm64's armv8_pmuv3_0). */
	return pev_machine_read(&m, NULL) == 0 && m.has_core_pmu;
}

void th_need_pfm_x86(void)
{
#if !defined(__x86_64__) && !defined(__i386__)
	th_skip("libpfm4 holds its x86 event tables (skl, icl, zen3) in its x86 builds only");
#endif
}

bool th_unmount_tracefs(void)
{
	for (int round = 0; round < 16; round++) {
		FILE *f = fopen("/proc/self/mounts", "re");
		char dev[256], dir[1024], type[64];
		bool any = false;
		if (!f)
			return false;
		while (fscanf(f, "%255s %1023s %63s %*[^\n]", dev, dir, type) == 3)
			if (strcmp(type, "tracefs") == 0) {
				any = true;
				if (umount2(dir, MNT_DETACH) < 0) {
					fclose(f);
					return false;
				}
			}
		fclose(f);
		if (!any)
			return true;
	}
	return false;
}

void th_expect_clean_text(const char *what, const char *text)
{
	const unsigned char *u = (const unsigned char *)text;
	size_t line = 1;

	for (size_t i = 0; u[i]; i++) {
		unsigned c = u[i];
		int more = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2
					: (c & 0xf8) == 0xf0 ? 3 : -1;
		if (c == '\n')
			line++;
		cr_expect(more >= 0, "%s, line %zu: byte %#x is not UTF-8", what, line, c);
		cr_expect(!(c < 0x20 && c != '\n' && c != '\t') && c != 0x7f,
			  "%s, line %zu: raw control byte %#x", what, line, c);
		cr_expect(!(c == 0xc2 && u[i + 1] >= 0x80 && u[i + 1] < 0xa0),
			  "%s, line %zu: raw C1 control", what, line);
		for (int k = 0; k < more; k++) {
			cr_expect((u[i + 1] & 0xc0) == 0x80, "%s, line %zu: truncated UTF-8", what,
				  line);
			if ((u[i + 1] & 0xc0) != 0x80)
				break;
			i++;
		}
		if (more < 0 || (c < 0x20 && c != '\n' && c != '\t'))
			return; /* one failure says it */
	}
}

char *th_read_fd_all(int fd, size_t *len_out)
{
	size_t len = 0, cap = 8192;
	char *buf = malloc(cap);

	cr_assert(buf);
	for (;;) {
		if (len + 4096 + 1 > cap) {
			buf = realloc(buf, cap *= 2);
			cr_assert(buf);
		}
		ssize_t got = read(fd, buf + len, 4096);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		len += (size_t)got;
	}
	buf[len] = '\0';
	if (len_out)
		*len_out = len;
	return buf;
}

/*
 * Line (n bytes) into out with a symbol that is a PLT stub's name
 * ("NAME@plt", "NAME@plt+0x..") or perf's "_init" stretched over the PLT
 * ("_init", "_init+0x..") written "<plt>". Returns out.
 */
static char *plt_as_one(const char *line, size_t n, char *out, size_t size)
{
	size_t w = 0;

	for (size_t i = 0; i < n && w + 6 < size;) {
		size_t t = strcspn(line + i, " \n");
		const char *tok = line + i;

		if (t > n - i)
			t = n - i;
		if ((t >= 5 && memmem(tok, t, "@plt", 4)) ||
		    (t >= 5 && strncmp(tok, "_init", 5) == 0 && (t == 5 || tok[5] == '+'))) {
			memcpy(out + w, "<plt>", 5);
			w += 5;
		} else {
			t = t < size - 1 - w ? t : size - 1 - w;
			memcpy(out + w, tok, t);
			w += t;
		}
		i += t;
		if (i < n && w + 1 < size)
			out[w++] = line[i++];
	}
	out[w] = '\0';
	return out;
}

/* See helpers.h. */
double th_script_share(const char *script, const char *name)
{
	size_t samples = 0, with = 0, n = strlen(name);
	bool inlined = n > 10 && strcmp(name + n - 10, " (inlined)") == 0, in_sample = false,
	     seen = false, any = n > 6 && strcmp(name + n - 6, " (any)") == 0;

	if (inlined)
		n -= 10;
	if (any)
		n -= 6;
	for (const char *l = script; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n')) {
		size_t len = strcspn(l, "\n");
		if (!len) {
			with += in_sample && seen;
			in_sample = seen = false;
			continue;
		}
		if (l[0] != '\t') {
			samples += !in_sample;
			in_sample = true;
			continue;
		}
		const char *sym = l + strspn(l, "\t ");
		sym += strspn(sym, "0123456789abcdef");
		sym += strspn(sym, " ");
		const char *end = l + len;
		if ((size_t)(end - sym) > n + 3 && memcmp(sym, name, n) == 0 &&
		    memcmp(sym + n, "+0x", 3) == 0 &&
		    (any ||
		     (strstr(sym, " (inlined)") != NULL && strstr(sym, " (inlined)") < end) == inlined))
			seen = true;
	}
	with += in_sample && seen;
	return samples ? 100.0 * (double)with / (double)samples : 0;
}

/* See helpers.h. */
size_t th_script_samples(const char *script)
{
	size_t samples = 0;
	bool in_sample = false;

	for (const char *l = script; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n')) {
		if (*l == '\n')
			in_sample = false;
		else if (*l != '\t' && !in_sample)
			samples++, in_sample = true;
	}
	return samples;
}

/* See helpers.h. */
char *th_plt_as_one_text(char *text)
{
	size_t len = strlen(text), w = 0;
	char *out = malloc(len + 8);

	cr_assert_not_null(out);
	for (const char *l = text; *l;) {
		size_t n = strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n');
		/* "<plt>" is no longer than the name it stands for: the line fits
		 * (plt_as_one wants a few bytes of room past it). */
		plt_as_one(l, n, out + w, n + 8);
		w += strlen(out + w);
		l += n;
	}
	out[w] = '\0';
	free(text);
	return out;
}

/* See helpers.h. */
bool th_plt_named_init(const char *x, size_t lx, const char *y, size_t ly)
{
	char a[4096], b[4096];

	if (!(memmem(x, lx, "@plt", 4) && memmem(y, ly, "_init", 5)) &&
	    !(memmem(y, ly, "@plt", 4) && memmem(x, lx, "_init", 5)))
		return false;
	return strcmp(plt_as_one(x, lx, a, sizeof(a)), plt_as_one(y, ly, b, sizeof(b))) == 0;
}
