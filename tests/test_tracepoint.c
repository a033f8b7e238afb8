/* SPDX-License-Identifier: MIT */
/*
 * test_tracepoint.c - tracepoints by name: walking and looking up a fake
 * tracefs (tests/fixtures/tracefs), finding and mounting the real one
 * (in private mount namespaces where it must be unmounted), and the live
 * kernel's tracepoints.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"

#define LIVE_TRACEFS "/sys/kernel/tracing"

static const char *fixture(void)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/tracefs", th_fixtures());
	return path;
}

/* ---- collecting what the walk hands out ---------------------------------- */

#define SEEN_MAX 32

struct seen {
	int calls;
	int stop_at; /* return `stop_with` from this call (1-based); 0: never stop */
	int stop_with;
	char names[SEEN_MAX][96];
	uint64_t ids[SEEN_MAX];
};

static int collect(const struct pev_tracepoint *tp, void *ctx)
{
	struct seen *s = ctx;

	if (s->calls < SEEN_MAX) {
		snprintf(s->names[s->calls], sizeof(s->names[0]), "%s:%s", tp->system, tp->name);
		s->ids[s->calls] = tp->id;
	}
	s->calls++;
	return s->stop_at && s->calls == s->stop_at ? s->stop_with : 0;
}

static int never_called(const struct pev_tracepoint *tp, void *ctx)
{
	(void)tp;
	(*(int *)ctx)++;
	return 0;
}

/* Walks the fixture and expects exactly the names in `want` (NULL-terminated), in order. */
static void expect_walk(const char *sys_glob, const char *name_glob, const char *const *want)
{
	struct seen s = {0};
	struct pev_error err;
	int n = 0;

	while (want[n])
		n++;
	int r = pev_tracepoints_foreach(fixture(), sys_glob, name_glob, collect, &s, &err);
	cr_assert_eq(r, n, "%s:%s gives %d tracepoints, expected %d (%s)", sys_glob ? sys_glob : "NULL",
		     name_glob ? name_glob : "NULL", r, n, r < 0 ? err.message : "");
	cr_assert_eq(s.calls, n);
	for (int i = 0; i < n; i++)
		cr_expect_str_eq(s.names[i], want[i], "%s:%s, entry %d", sys_glob, name_glob, i);
}

/* ---- the fake tracefs ------------------------------------------------------ */

static const char *const all_nine[] = {
	"ftrace:function",	   "raw_syscalls:sys_enter", "sched:sched_process_exec",
	"sched:sched_switch",	   "sched:sched_wakeup",     "syscalls:sys_enter_openat",
	"syscalls:sys_enter_read", "syscalls:sys_enter_write", "syscalls:sys_exit_read",
	NULL};

Test(tracepoint, walk_a_system, .init = th_leak_init, .fini = th_leak_fini)
{
	static const char *const want[] = {"sched:sched_process_exec", "sched:sched_switch",
					   "sched:sched_wakeup", NULL};
	expect_walk("sched", "*", want);

	struct seen s = {0};
	cr_assert_eq(pev_tracepoints_foreach(fixture(), "sched", "*", collect, &s, NULL), 3);
	cr_expect_eq(s.ids[0], 365);
	cr_expect_eq(s.ids[1], 372);
	cr_expect_eq(s.ids[2], 374);
}

Test(tracepoint, walk_a_name_glob, .init = th_leak_init, .fini = th_leak_fini)
{
	static const char *const want[] = {"syscalls:sys_enter_openat", "syscalls:sys_enter_read",
					   "syscalls:sys_enter_write", NULL};
	expect_walk("syscalls", "sys_enter_*", want);
}

Test(tracepoint, walk_every_system, .init = th_leak_init, .fini = th_leak_fini)
{
	static const char *const want[] = {"raw_syscalls:sys_enter", "syscalls:sys_enter_openat",
					   "syscalls:sys_enter_read", "syscalls:sys_enter_write",
					   NULL};
	expect_walk("*", "sys_enter*", want);
}

Test(tracepoint, walk_a_bracket_glob, .init = th_leak_init, .fini = th_leak_fini)
{
	static const char *const want[] = {
		"raw_syscalls:sys_enter",   "sched:sched_process_exec", "sched:sched_switch",
		"sched:sched_wakeup",	    "syscalls:sys_enter_openat", "syscalls:sys_enter_read",
		"syscalls:sys_enter_write", "syscalls:sys_exit_read",	NULL};
	expect_walk("[sr]*", "*", want);
	static const char *const question[] = {"sched:sched_switch", "sched:sched_wakeup", NULL};
	expect_walk("sche?", "sched_[sw]*", question);
}

/* Files at the events/ and system level, and directories without an id, are not tracepoints. */
Test(tracepoint, walk_everything_skips_what_is_not_a_tracepoint, .init = th_leak_init,
     .fini = th_leak_fini)
{
	expect_walk("*", "*", all_nine);
	expect_walk(NULL, NULL, all_nine);
	static const char *const ftrace[] = {"ftrace:function", NULL};
	expect_walk("ftrace", NULL, ftrace);
	static const char *const none[] = {NULL};
	expect_walk("enable", "*", none);
	expect_walk("header_page", NULL, none);
	expect_walk("sched", "enable", none);
	expect_walk("sched", "filter", none);
	expect_walk("ftrace", "print_noid", none);
}

Test(tracepoint, walk_without_a_match_calls_nothing, .init = th_leak_init, .fini = th_leak_fini)
{
	int calls = 0;

	cr_expect_eq(pev_tracepoints_foreach(fixture(), "nosuch*", "*", never_called, &calls, NULL),
		     0);
	cr_expect_eq(pev_tracepoints_foreach(fixture(), "sched", "nosuch", never_called, &calls,
					     NULL),
		     0);
	cr_expect_eq(pev_tracepoints_foreach(fixture(), "", "", never_called, &calls, NULL), 0);
	cr_expect_eq(calls, 0);
}

Test(tracepoint, walk_stops_where_fn_says, .init = th_leak_init, .fini = th_leak_fini)
{
	struct seen s = {.stop_at = 2, .stop_with = 42};

	cr_expect_eq(pev_tracepoints_foreach(fixture(), "*", "*", collect, &s, NULL), 42);
	cr_expect_eq(s.calls, 2);
	cr_expect_str_eq(s.names[1], "raw_syscalls:sys_enter");

	/* A negative return stops it too, and comes back unchanged. */
	s = (struct seen){.stop_at = 5, .stop_with = -7};
	cr_expect_eq(pev_tracepoints_foreach(fixture(), NULL, NULL, collect, &s, NULL), -7);
	cr_expect_eq(s.calls, 5);

	/* Stopping at the first one, in the middle of a system. */
	s = (struct seen){.stop_at = 1, .stop_with = 1};
	cr_expect_eq(pev_tracepoints_foreach(fixture(), "sched", "*", collect, &s, NULL), 1);
	cr_expect_eq(s.calls, 1);
}

/* A tree whose directory order is not sorted (tmpfs lists newest first). */
struct tmp_tree {
	char root[64];
};

static void tmp_mkdir(const struct tmp_tree *t, const char *rel)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", t->root, rel);
	cr_assert_eq(mkdir(path, 0755), 0, "mkdir %s: %s", path, strerror(errno));
}

static void tmp_write(const struct tmp_tree *t, const char *rel, const char *text)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", t->root, rel);
	FILE *f = fopen(path, "we");
	cr_assert(f, "fopen %s: %s", path, strerror(errno));
	fputs(text, f);
	fclose(f);
}

static void tmp_tree_new(struct tmp_tree *t)
{
	snprintf(t->root, sizeof(t->root), "/tmp/perfev-tracefs-XXXXXX");
	cr_assert(mkdtemp(t->root), "mkdtemp: %s", strerror(errno));
	tmp_mkdir(t, "events");
}

static void tmp_tree_free(struct tmp_tree *t)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->root);
	cr_expect_eq(system(cmd), 0);
}

Test(tracepoint, walk_sorts_what_readdir_does_not, .init = th_leak_init, .fini = th_leak_fini)
{
	static const char *const systems[] = {"alpha", "mid", "zeta"};
	static const char *const names[] = {"a_1", "b_2", "c_3", "c_4"};
	struct tmp_tree t;
	char rel[128];

	tmp_tree_new(&t);
	/* Created in reverse order, so an unsorted walk shows. */
	for (int s = 2; s >= 0; s--) {
		snprintf(rel, sizeof(rel), "events/%s", systems[s]);
		tmp_mkdir(&t, rel);
		for (int n = 3; n >= 0; n--) {
			snprintf(rel, sizeof(rel), "events/%s/%s", systems[s], names[n]);
			tmp_mkdir(&t, rel);
			snprintf(rel, sizeof(rel), "events/%s/%s/id", systems[s], names[n]);
			char id[16];
			snprintf(id, sizeof(id), "%d\n", 100 * s + n);
			tmp_write(&t, rel, id);
		}
	}
	struct seen s = {0};
	int r = pev_tracepoints_foreach(t.root, NULL, NULL, collect, &s, NULL);
	cr_expect_eq(r, 12);
	for (int i = 0; i < 12 && i < s.calls; i++) {
		char want[64];
		snprintf(want, sizeof(want), "%s:%s", systems[i / 4], names[i % 4]);
		cr_expect_str_eq(s.names[i], want);
		cr_expect_eq(s.ids[i], (uint64_t)(100 * (i / 4) + i % 4));
	}
	tmp_tree_free(&t);
}

Test(tracepoint, ids_of_the_fixture, .init = th_leak_init, .fini = th_leak_fini)
{
	static const struct {
		const char *system, *name;
		uint64_t id;
	} want[] = {
		{"ftrace", "function", 1},
		{"raw_syscalls", "sys_enter", 443},
		{"sched", "sched_process_exec", 365},
		{"sched", "sched_switch", 372},
		{"sched", "sched_wakeup", 374},
		{"syscalls", "sys_enter_openat", 782},
		{"syscalls", "sys_enter_read", 842},
		{"syscalls", "sys_enter_write", 840},
		{"syscalls", "sys_exit_read", 841},
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct pev_error err;
		uint64_t id = 0;
		int r = pev_tracepoint_id(fixture(), want[i].system, want[i].name, &id, &err);
		cr_expect_eq(r, 0, "%s:%s: %s", want[i].system, want[i].name, r ? err.message : "");
		cr_expect_eq(id, want[i].id, "%s:%s", want[i].system, want[i].name);
		/* Without an error struct too. */
		id = 0;
		cr_expect_eq(pev_tracepoint_id(fixture(), want[i].system, want[i].name, &id, NULL), 0);
		cr_expect_eq(id, want[i].id);
	}

	/* The walk hands out the same ids. */
	struct seen s = {0};
	cr_assert_eq(pev_tracepoints_foreach(fixture(), NULL, NULL, collect, &s, NULL), 9);
	for (int i = 0; i < 9; i++) {
		char sys[32], name[64];
		uint64_t id;
		cr_assert_eq(sscanf(s.names[i], "%31[^:]:%63s", sys, name), 2);
		cr_assert_eq(pev_tracepoint_id(fixture(), sys, name, &id, NULL), 0);
		cr_expect_eq(s.ids[i], id, "%s", s.names[i]);
	}
}

Test(tracepoint, a_typo_in_the_event_suggests_close_names, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_error err;
	uint64_t id = 77;

	cr_assert_eq(pev_tracepoint_id(fixture(), "sched", "sched_swich", &id, &err), PEV_ENOTFOUND);
	cr_expect_eq(id, 77, "*id is left alone");
	cr_expect_eq(err.code, PEV_ENOTFOUND);
	cr_expect_str_eq(err.event, "sched:sched_swich");
	expect_has(err.message, "no tracepoint 'sched:sched_swich'");
	expect_has(err.message, fixture());
	cr_expect(strncmp(err.hint, "did you mean 'sched:sched_switch'?", 34) == 0, "hint: %s",
		  err.hint);
	expect_lacks(err.hint, "sched_process_exec");

	/* Several close names: nearest first. */
	cr_assert_eq(pev_tracepoint_id(fixture(), "syscalls", "sys_enter_reed", &id, &err),
		     PEV_ENOTFOUND);
	cr_expect(strncmp(err.hint, "did you mean 'syscalls:sys_enter_read'?", 39) == 0,
		  "hint: %s", err.hint);
	expect_has(err.hint, "or 'syscalls:sys_enter_write'?");
	expect_lacks(err.hint, "enable");
	expect_lacks(err.hint, "filter");

	/* Nothing close: still points at where to look. */
	cr_assert_eq(pev_tracepoint_id(fixture(), "sched", "zzzzzzzzzzzz", &id, &err),
		     PEV_ENOTFOUND);
	expect_lacks(err.hint, "did you mean");
	expect_has(err.hint, "events/sched");

	/* Case does not count against a suggestion. */
	cr_assert_eq(pev_tracepoint_id(fixture(), "sched", "SCHED_SWITCH", &id, &err),
		     PEV_ENOTFOUND);
	expect_has(err.hint, "'sched:sched_switch'");

	/* Without an error struct, just the code. */
	cr_expect_eq(pev_tracepoint_id(fixture(), "sched", "sched_swich", &id, NULL),
		     PEV_ENOTFOUND);
}

Test(tracepoint, a_typo_in_the_system_suggests_close_systems, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct pev_error err;
	uint64_t id;

	cr_assert_eq(pev_tracepoint_id(fixture(), "shed", "sched_switch", &id, &err),
		     PEV_ENOTFOUND);
	expect_has(err.message, "no tracepoint 'shed:sched_switch'");
	expect_has(err.message, "no tracepoint system 'shed'");
	expect_has(err.message, fixture());
	cr_expect(strncmp(err.hint, "did you mean 'sched:sched_switch'?", 34) == 0, "hint: %s",
		  err.hint);

	cr_assert_eq(pev_tracepoint_id(fixture(), "syscall", "sys_enter_read", &id, &err),
		     PEV_ENOTFOUND);
	expect_has(err.hint, "did you mean 'syscalls:sys_enter_read'?");

	/* The system is close but lacks the event: the system alone is suggested. */
	cr_assert_eq(pev_tracepoint_id(fixture(), "schedd", "nosuch", &id, &err), PEV_ENOTFOUND);
	expect_has(err.hint, "did you mean system 'sched'?");

	cr_assert_eq(pev_tracepoint_id(fixture(), "qqqqqqqq", "sched_switch", &id, &err),
		     PEV_ENOTFOUND);
	expect_lacks(err.hint, "did you mean");
	expect_has(err.hint, "/events");
	/* The files at the events/ level are not systems to suggest. */
	cr_assert_eq(pev_tracepoint_id(fixture(), "enabl", "x", &id, &err), PEV_ENOTFOUND);
	expect_lacks(err.hint, "'enable'");
}

Test(tracepoint, entries_that_are_not_tracepoints_are_not_found, .init = th_leak_init,
     .fini = th_leak_fini)
{
	uint64_t id;

	cr_expect_eq(pev_tracepoint_id(fixture(), "sched", "enable", &id, NULL), PEV_ENOTFOUND);
	cr_expect_eq(pev_tracepoint_id(fixture(), "sched", "filter", &id, NULL), PEV_ENOTFOUND);
	cr_expect_eq(pev_tracepoint_id(fixture(), "ftrace", "print_noid", &id, NULL),
		     PEV_ENOTFOUND);
	cr_expect_eq(pev_tracepoint_id(fixture(), "enable", "x", &id, NULL), PEV_ENOTFOUND);
	cr_expect_eq(pev_tracepoint_id(fixture(), "header_page", "x", &id, NULL), PEV_ENOTFOUND);
}

Test(tracepoint, a_malformed_id_is_reported_and_skipped, .init = th_leak_init,
     .fini = th_leak_fini)
{
	struct tmp_tree t;
	struct pev_error err;
	uint64_t id;

	tmp_tree_new(&t);
	tmp_mkdir(&t, "events/sys");
	tmp_mkdir(&t, "events/sys/good");
	tmp_write(&t, "events/sys/good/id", "12\n");
	tmp_mkdir(&t, "events/sys/bad");
	tmp_write(&t, "events/sys/bad/id", "twelve\n");
	tmp_mkdir(&t, "events/sys/empty");
	tmp_write(&t, "events/sys/empty/id", "");

	cr_expect_eq(pev_tracepoint_id(t.root, "sys", "bad", &id, &err), PEV_EFORMAT);
	expect_has(err.message, "twelve");
	cr_expect_eq(pev_tracepoint_id(t.root, "sys", "empty", &id, &err), PEV_EFORMAT);
	struct seen s = {0};
	cr_expect_eq(pev_tracepoints_foreach(t.root, NULL, NULL, collect, &s, NULL), 1);
	cr_expect_str_eq(s.names[0], "sys:good");
	cr_expect_eq(s.ids[0], 12);
	tmp_tree_free(&t);
}

Test(tracepoint, a_path_without_events_is_enoent, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_error err;
	uint64_t id;
	int calls = 0;

	cr_expect_eq(pev_tracepoints_foreach("/nonexistent/tracefs", NULL, NULL, never_called,
					     &calls, &err),
		     PEV_ENOENT);
	expect_has(err.message, "/nonexistent/tracefs/events");
	expect_has(err.hint, "mount -t tracefs nodev /sys/kernel/tracing");
	cr_expect_eq(calls, 0);

	cr_expect_eq(pev_tracepoint_id("/nonexistent/tracefs", "sched", "sched_switch", &id, &err),
		     PEV_ENOENT);
	expect_has(err.message, "/nonexistent/tracefs");
	expect_has(err.hint, "mount -t tracefs");
	/* A directory that is not tracefs at all. */
	cr_expect_eq(pev_tracepoint_id("/proc/self", "sched", "sched_switch", &id, NULL),
		     PEV_ENOENT);
	cr_expect_eq(pev_tracepoints_foreach("/etc/hostname", NULL, NULL, never_called, &calls,
					     NULL),
		     PEV_ENOENT);
}

Test(tracepoint, bad_arguments, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_error err;
	uint64_t id;
	char buf[8];
	int calls = 0;

	cr_expect_eq(pev_tracepoints_foreach(NULL, "*", "*", never_called, &calls, &err),
		     PEV_EBADARG);
	cr_expect_str_eq(err.field, "tracefs");
	expect_has(err.message, "pev_tracepoints_foreach");
	cr_expect_eq(pev_tracepoints_foreach("", "*", "*", never_called, &calls, NULL), PEV_EBADARG);
	cr_expect_eq(pev_tracepoints_foreach(fixture(), "*", "*", NULL, NULL, &err), PEV_EBADARG);
	cr_expect_str_eq(err.field, "fn");
	cr_expect_eq(calls, 0);

	cr_expect_eq(pev_tracepoint_id(NULL, "sched", "sched_switch", &id, &err), PEV_EBADARG);
	cr_expect_str_eq(err.field, "tracefs");
	expect_has(err.message, "pev_tracepoint_id");
	cr_expect_eq(pev_tracepoint_id(fixture(), NULL, "sched_switch", &id, &err), PEV_EBADARG);
	cr_expect_str_eq(err.field, "system");
	cr_expect_eq(pev_tracepoint_id(fixture(), "sched", NULL, &id, &err), PEV_EBADARG);
	cr_expect_str_eq(err.field, "name");
	cr_expect_eq(pev_tracepoint_id(fixture(), "sched", "sched_switch", NULL, &err),
		     PEV_EBADARG);
	cr_expect_str_eq(err.field, "id");
	/* Names are one path component: no way out of events/. */
	static const char *const bad[] = {"", ".", "..", "../sched", "sched/sched_switch"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_expect_eq(pev_tracepoint_id(fixture(), bad[i], "sched_switch", &id, NULL),
			     PEV_EBADARG, "system '%s'", bad[i]);
		cr_expect_eq(pev_tracepoint_id(fixture(), "sched", bad[i], &id, NULL), PEV_EBADARG,
			     "name '%s'", bad[i]);
	}
	cr_expect_eq(pev_tracepoint_id(fixture(), "..", "tracefs/events/sched/sched_switch", &id,
				       NULL),
		     PEV_EBADARG);

	cr_expect_eq(pev_tracefs_path(false, NULL, 64, &err), PEV_EBADARG);
	cr_expect_str_eq(err.field, "buf");
	expect_has(err.message, "pev_tracefs_path");
	cr_expect_eq(pev_tracefs_path(false, buf, 0, &err), PEV_EBADARG);
	cr_expect_str_eq(err.field, "size");
}

/* ---- the real tracefs -------------------------------------------------------- */

/* Unmounts every tracefs and debugfs this (private) mount namespace sees. Returns 0 or a stage. */
static int umount_tracing(void)
{
	for (int round = 0; round < 16; round++) {
		FILE *f = fopen("/proc/self/mounts", "re");
		char dev[256], dir[512], type[64];
		bool any = false;
		if (!f)
			return 3;
		while (fscanf(f, "%255s %511s %63s %*[^\n]", dev, dir, type) == 3)
			if (strcmp(type, "tracefs") == 0 || strcmp(type, "debugfs") == 0) {
				any = true;
				if (umount2(dir, MNT_DETACH) < 0) {
					fclose(f);
					return 4;
				}
			}
		fclose(f);
		if (!any)
			return 0;
	}
	return 5;
}

static int private_mounts_without_tracefs(void)
{
	if (unshare(CLONE_NEWNS) < 0)
		return 1;
	/* The type is ignored here; "none" keeps valgrind from flagging a NULL. */
	if (mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0)
		return 2;
	return umount_tracing();
}

static bool tracefs_in_mount_table(void)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char dev[256], dir[512], type[64];
	bool found = false;

	if (!f)
		return false;
	while (fscanf(f, "%255s %511s %63s %*[^\n]", dev, dir, type) == 3)
		found |= strcmp(type, "tracefs") == 0;
	fclose(f);
	return found;
}

/* What a child in a private mount namespace saw; written there, checked here. */
struct ns_result {
	int stage; /* 0: ran to the end; else where it stopped */
	int r_nomount, r_mount;
	bool mounted_before, mounted_after, events_after;
	char path[256];
	struct pev_error err_nomount, err_mount;
};

static void unmounted_as_root(void *ctx)
{
	struct ns_result *res = ctx;
	struct stat st;

	if ((res->stage = private_mounts_without_tracefs()) != 0)
		return;
	res->mounted_before = tracefs_in_mount_table();
	res->r_nomount = pev_tracefs_path(false, res->path, sizeof(res->path), &res->err_nomount);
	res->r_mount = pev_tracefs_path(true, res->path, sizeof(res->path), &res->err_mount);
	res->mounted_after = tracefs_in_mount_table();
	res->events_after = stat(LIVE_TRACEFS "/events/sched/sched_switch/id", &st) == 0;
}

Test(tracefs, mounts_it_when_allowed_and_only_then, .init = th_leak_init, .fini = th_leak_fini)
{
	struct ns_result res = {.stage = -1};

	th_require_root();
	cr_assert(th_in_child(unmounted_as_root, &res, sizeof(res)), "the child crashed");
	cr_assert_eq(res.stage, 0, "setting up the private mount namespace failed at stage %d",
		     res.stage);
	cr_expect_not(res.mounted_before);

	cr_expect_eq(res.r_nomount, PEV_ENOENT);
	cr_expect_eq(res.err_nomount.code, PEV_ENOENT);
	expect_has(res.err_nomount.message, "tracefs is not mounted");
	expect_has(res.err_nomount.hint, "mount -t tracefs nodev /sys/kernel/tracing");

	cr_expect_eq(res.r_mount, 0, "%s", res.err_mount.message);
	cr_expect_str_eq(res.path, LIVE_TRACEFS);
	cr_expect(res.mounted_after);
	cr_expect(res.events_after);
}

/* Only debugfs mounted: its tracing/ directory (an automount of tracefs) is the answer. */
struct debugfs_result {
	int stage, r_path, r_id;
	uint64_t id;
	char path[256];
	struct pev_error err;
};

static void only_debugfs(void *ctx)
{
	struct debugfs_result *res = ctx;

	if ((res->stage = private_mounts_without_tracefs()) != 0)
		return;
	if (mount("nodev", "/sys/kernel/debug", "debugfs", 0, NULL) < 0) {
		res->stage = 20;
		return;
	}
	res->r_path = pev_tracefs_path(false, res->path, sizeof(res->path), &res->err);
	if (res->r_path == 0)
		res->r_id = pev_tracepoint_id(res->path, "sched", "sched_switch", &res->id, &res->err);
}

Test(tracefs, finds_it_under_debugfs, .init = th_leak_init, .fini = th_leak_fini)
{
	struct debugfs_result res = {.stage = -1};

	th_require_root();
	uint64_t want = th_tracepoint_id("sched", "sched_switch");
	cr_assert(th_in_child(only_debugfs, &res, sizeof(res)), "the child crashed");
	cr_assert_eq(res.stage, 0, "the child stopped at stage %d", res.stage);
	cr_assert_eq(res.r_path, 0, "%s", res.err.message);
	cr_expect_str_eq(res.path, "/sys/kernel/debug/tracing");
	cr_expect_eq(res.r_id, 0, "%s", res.err.message);
	cr_expect_eq(res.id, want);
}

static void unmounted_as_nobody(void *ctx)
{
	struct ns_result *res = ctx;

	/* Only root may unshare; drop to nobody inside the new namespace. */
	if ((res->stage = private_mounts_without_tracefs()) != 0)
		return;
	if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
	    setresuid(65534, 65534, 65534) < 0) {
		res->stage = 10;
		return;
	}
	res->r_nomount = pev_tracefs_path(false, res->path, sizeof(res->path), &res->err_nomount);
	res->r_mount = pev_tracefs_path(true, res->path, sizeof(res->path), &res->err_mount);
	res->mounted_after = tracefs_in_mount_table();
}

Test(tracefs, nobody_cannot_mount_it, .init = th_leak_init, .fini = th_leak_fini)
{
	struct ns_result res = {.stage = -1};

	th_require_root();
	cr_assert(th_in_child(unmounted_as_nobody, &res, sizeof(res)), "the child crashed");
	cr_assert_eq(res.stage, 0, "the child stopped at stage %d", res.stage);

	cr_expect_eq(res.r_nomount, PEV_ENOENT);
	cr_expect_eq(res.r_mount, PEV_ENOENT);
	cr_expect_not(res.mounted_after);
	const struct pev_error *e = &res.err_mount;
	cr_expect_eq(e->code, PEV_ENOENT);
	cr_expect_eq(e->sys_errno, EPERM);
	cr_expect_str_eq(e->syscall, "mount");
	expect_has(e->message, "tracefs is not mounted");
	expect_has(e->message, "CAP_SYS_ADMIN");
	expect_has(e->hint, "mount -t tracefs nodev /sys/kernel/tracing");
}

Test(tracefs, finds_the_mounted_one, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_error err;
	char path[256], tiny[4];
	struct stat st;

	th_require_root();
	/* As root, may_mount makes sure it is there (it stays mounted: other tests want it). */
	cr_assert_eq(pev_tracefs_path(true, path, sizeof(path), &err), 0, "%s", err.message);
	cr_expect_str_eq(path, LIVE_TRACEFS);
	cr_expect_eq(stat(LIVE_TRACEFS "/events", &st), 0);
	/* Once mounted, finding it needs no permission to mount. */
	cr_assert_eq(pev_tracefs_path(false, path, sizeof(path), &err), 0, "%s", err.message);
	cr_expect_str_eq(path, LIVE_TRACEFS);
	/* A buffer too small for the path. */
	cr_expect_eq(pev_tracefs_path(false, tiny, sizeof(tiny), &err), PEV_EBADARG);
	cr_expect_str_eq(err.field, "size");
	cr_expect_str_eq(tiny, "");
}

struct nobody_result {
	int r_path, r_id, r_walk, calls;
	char path[256];
	struct pev_error err_id, err_walk;
};

static void read_as_nobody(void *ctx)
{
	struct nobody_result *res = ctx;
	uint64_t id;

	res->r_path = pev_tracefs_path(false, res->path, sizeof(res->path), NULL);
	res->r_id = pev_tracepoint_id(LIVE_TRACEFS, "sched", "sched_switch", &id, &res->err_id);
	res->r_walk = pev_tracepoints_foreach(LIVE_TRACEFS, "sched", "*", never_called, &res->calls,
					      &res->err_walk);
}

Test(tracefs, nobody_cannot_read_it, .init = th_leak_init, .fini = th_leak_fini)
{
	struct nobody_result res = {0};

	th_require_root();
	cr_assert(th_tracefs(), "cannot mount tracefs");
	struct stat st;
	cr_assert_eq(stat(LIVE_TRACEFS, &st), 0);
	if (st.st_mode & S_IXOTH)
		th_skip("tracefs is readable by everyone here (mode %o)", st.st_mode & 07777);
	cr_assert(th_as_nobody(read_as_nobody, &res, sizeof(res)));
	cr_expect_eq(res.r_path, 0, "nobody finds where it is mounted");
	cr_expect_str_eq(res.path, LIVE_TRACEFS);

	cr_expect_eq(res.r_id, PEV_EACCES);
	cr_expect_eq(res.err_id.sys_errno, EACCES);
	cr_expect_str_eq(res.err_id.event, "sched:sched_switch");
	expect_has(res.err_id.message, LIVE_TRACEFS);
	expect_has(res.err_id.message, "root");
	expect_has(res.err_id.hint, "gid=GROUP");

	cr_expect_eq(res.r_walk, PEV_EACCES);
	expect_has(res.err_walk.hint, "gid=GROUP");
	cr_expect_eq(res.calls, 0);
}

Test(tracefs, live_ids_match_tracefs, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_error err;
	uint64_t id = 0;

	th_require_root();
	const char *fs = th_tracefs();
	cr_assert(fs, "cannot mount tracefs");
	uint64_t want = th_tracepoint_id("sched", "sched_switch");
	cr_assert_neq(want, 0);
	cr_assert_eq(pev_tracepoint_id(fs, "sched", "sched_switch", &id, &err), 0, "%s",
		     err.message);
	cr_expect_eq(id, want);

	cr_assert_eq(pev_tracepoint_id(fs, "sched", "sched_swich", &id, &err), PEV_ENOTFOUND);
	cr_expect(strncmp(err.hint, "did you mean 'sched:sched_switch'?", 34) == 0, "hint: %s",
		  err.hint);
	expect_has(err.message, fs);
	cr_assert_eq(pev_tracepoint_id(fs, "syscall", "sys_enter_read", &id, &err), PEV_ENOTFOUND);
	expect_has(err.hint, "'syscalls:sys_enter_read'");
}

/* Checks the live walk: ids match, names match the glob, order is sorted. */
struct live_walk {
	int calls, bad_order, bad_id, bad_name;
	char prev_system[64], prev_name[96];
	const char *fs;
};

static int check_live(const struct pev_tracepoint *tp, void *ctx)
{
	struct live_walk *w = ctx;
	int c = strcmp(w->prev_system, tp->system);

	if (w->calls > 0 && (c > 0 || (c == 0 && strcmp(w->prev_name, tp->name) >= 0)))
		w->bad_order++;
	snprintf(w->prev_system, sizeof(w->prev_system), "%s", tp->system);
	snprintf(w->prev_name, sizeof(w->prev_name), "%s", tp->name);
	if (tp->id == 0)
		w->bad_id++;
	w->calls++;
	return 0;
}

static int check_live_syscalls(const struct pev_tracepoint *tp, void *ctx)
{
	struct live_walk *w = ctx;
	uint64_t id = 0;

	if (strcmp(tp->system, "syscalls") != 0 || strncmp(tp->name, "sys_enter_", 10) != 0)
		w->bad_name++;
	if (pev_tracepoint_id(w->fs, tp->system, tp->name, &id, NULL) != 0 || id != tp->id)
		w->bad_id++;
	return check_live(tp, ctx);
}

Test(tracefs, live_walk_of_syscalls, .init = th_leak_init, .fini = th_leak_fini)
{
	struct live_walk w = {0};
	struct pev_error err;

	th_require_root();
	w.fs = th_tracefs();
	cr_assert(w.fs, "cannot mount tracefs");
	int r = pev_tracepoints_foreach(w.fs, "syscalls", "sys_enter_*", check_live_syscalls, &w,
					&err);
	cr_assert_gt(r, 100, "syscalls:sys_enter_* gave %d (%s)", r, r < 0 ? err.message : "");
	cr_expect_eq(r, w.calls);
	cr_expect_eq(w.bad_name, 0);
	cr_expect_eq(w.bad_id, 0);
	cr_expect_eq(w.bad_order, 0);
}

Test(tracefs, live_walk_of_everything_is_quick, .init = th_leak_init, .fini = th_leak_fini)
{
	struct live_walk w = {0};
	struct timespec t0, t1;

	th_require_root();
	const char *fs = th_tracefs();
	cr_assert(fs, "cannot mount tracefs");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int r = pev_tracepoints_foreach(fs, "*", "*", check_live, &w, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	cr_assert_gt(r, 500, "only %d tracepoints", r);
	cr_expect_eq(w.bad_order, 0);
	cr_expect_eq(w.bad_id, 0);
	/*
	 * ~2300 tracepoints here take a few milliseconds: the bound is against
	 * a walk that reads far more than it needs, not a timing (loaded
	 * machines are slow).
	 */
	cr_expect_lt(s, 30.0, "walking %d tracepoints took %.3f s", r, s);
	cr_log_info("walked %d tracepoints in %.3f s", r, s);
}
