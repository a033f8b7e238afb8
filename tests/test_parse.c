/* SPDX-License-Identifier: MIT */
/*
 * test_parse.c - the event-string parser against fixture machines.
 *
 * Two tables. Valid strings: each row is its own test and names every event
 * the string must give (type, config..config3, breakpoint type, the
 * attribute's flags word after pev_attr_encode, sampling fields, display
 * name, PMU, group, scale and unit). Malformed strings: each row is its own
 * test and names the error code, the part of the input the error points at,
 * a piece of the message and of the hint, and checks the caret line under
 * the quoted input.
 *
 * Expected numbers are literals worked out by hand from the fixture files
 * (tests/fixtures/, see their READMEs), the kernel's ABI and Intel's event
 * tables, checked against `perf stat -vv -e EVENT` where perf 6.1 knows the
 * syntax; never computed by perfev itself.
 *
 * Roots: the `container` machine is a plain (non-hybrid) x86 box with a core
 * `cpu` PMU (type 4), kprobe 6, uprobe 7, msr 8 and no format/ or events/
 * files; `sysfs-pmus` is the hybrid machine rich in PMUs (cpu_core 4,
 * cpu_atom 10, intel_pt 9, power 11, msr 12, uncore_imc_0/1 13/14, amd_df
 * 15, arm_spe_0 16, intel_cqm 17, kprobe 6, uprobe 8); `retprobe-bit3` has
 * only kprobe 10 (no format/) and uprobe 9 (retprobe = config:3).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

/* ---- fixtures ------------------------------------------------------------ */

enum root {
	CONTAINER, /* machines/container/sys: non-hybrid, core PMU `cpu` */
	HYBRID,    /* sysfs-pmus: cpu_core + cpu_atom and many other PMUs */
	PROBES3,   /* sysfs-probes/retprobe-bit3 */
	NOPMU,     /* machines/vm-nopmu/sys: no core PMU, no kprobe */
	NOPROBES,  /* sysfs-probes/none: no PMU at all */
};

static const char *root_path(enum root r)
{
	static char buf[5][512];
	static const char *const rel[] = {
		[CONTAINER] = "machines/container/sys",
		[HYBRID] = "sysfs-pmus",
		[PROBES3] = "sysfs-probes/retprobe-bit3",
		[NOPMU] = "machines/vm-nopmu/sys",
		[NOPROBES] = "sysfs-probes/none",
	};
	snprintf(buf[r], sizeof(buf[r]), "%s/%s", th_fixtures(), rel[r]);
	return buf[r];
}

static const char *tracefs_path(void)
{
	static char buf[512];
	snprintf(buf, sizeof(buf), "%s/tracefs", th_fixtures());
	return buf;
}

/* libpfm4 reads LIBPFM_FORCE_PMU once, on its first use in the process. */
static void force_skylake(void)
{
	th_need_pfm_x86();
	setenv("LIBPFM_FORCE_PMU", "skl", 1);
}

/* With perf_guest (perf 6.1's exclude_guest default, as the commands parse) or without. */
static int parse_as(enum root r, bool pfm, bool perf_guest, const char *text,
		    struct pev_event_list **out, struct pev_error *err)
{
	struct pev_parse_opts o = PEV_PARSE_OPTS_INIT;

	o.perf_guest = perf_guest;
	o.sysfs_root = root_path(r);
	o.tracefs = tracefs_path();
	o.no_mount = true;
	o.no_pfm = !pfm;
	if (pfm)
		force_skylake();
	memset(err, 0, sizeof(*err));
	return pev_event_parse(text, &o, out, err);
}

static int parse_on(enum root r, bool pfm, const char *text, struct pev_event_list **out,
		    struct pev_error *err)
{
	return parse_as(r, pfm, false, text, out, err);
}

/* ---- ABI shorthands -------------------------------------------------------- */

#define EU    PEV_ATTR_EXCLUDE_USER
#define EK    PEV_ATTR_EXCLUDE_KERNEL
#define EH    PEV_ATTR_EXCLUDE_HV
#define EI    PEV_ATTR_EXCLUDE_IDLE
#define EHOST PEV_ATTR_EXCLUDE_HOST
#define EGST  PEV_ATTR_EXCLUDE_GUEST
#define PIN   PEV_ATTR_PINNED
#define EXCL  PEV_ATTR_EXCLUSIVE
#define INH   PEV_ATTR_INHERIT
#define FREQ  PEV_ATTR_FREQ
#define AUXO  PEV_ATTR_AUX_OUTPUT
#define P1    (UINT64_C(1) << 15) /* precise_ip 1 */
#define P2    (UINT64_C(2) << 15)
#define P3    (UINT64_C(3) << 15)

/* Hybrid generic events: the core PMU's type in config's upper half. */
#define ATOM(id) ((UINT64_C(10) << 32) | (id))
#define CORE(id) ((UINT64_C(4) << 32) | (id))

/* Scales of the fixture's aliases. */
#define RAPL_SCALE 2.3283064365386962890625e-10 /* 2^-32 */
#define IMC_SCALE  6.103515625e-5               /* 2^-14 */
#define CQM_SCALE  9.5367431640625e-07          /* 2^-20 */

/* ---- valid strings ---------------------------------------------------------- */

/* One expected event. Zero fields mean zero, except where noted. */
struct xev {
	uint32_t type;
	uint64_t config, config1, config2, config3;
	const char *c1str; /* probes: config1 points to this string (config1 is then not compared as a number) */
	uint32_t bp_type;
	uint64_t flags;       /* pev_attr.flags after pev_attr_encode, but for EGST: */
	bool guest;           /* perf_guest leaves the guest counted (without it, only G/H set EGST) */
	uint64_t period;      /* pev_attr.sample_period (or sample_freq with FREQ) */
	uint64_t sample_type; /* pev_attr.sample_type */
	uint16_t max_stack;   /* pev_attr.sample_max_stack */
	uint32_t aux_size;    /* pev_attr.aux_sample_size */
	const char *name;     /* display name (spec->ev.name) */
	const char *pmu;      /* spec->pmu; NULL means NULL */
	int grp1;             /* group number + 1; 0 outside braces */
	bool leader, ls, weak, maxp;
	enum pev_callgraph cg;
	uint32_t stack;
	double scale;     /* 0 means 1.0 */
	const char *unit; /* NULL means "" */
};

struct vrow {
	enum root root;
	const char *text;
	bool pfm; /* libpfm4 on (LIBPFM_FORCE_PMU=skl) */
	int n;
	struct xev ev[4];
};

static void check_event(const struct vrow *row, int i, const struct pev_event_spec *s,
			bool perf_guest)
{
	const struct xev *x = &row->ev[i];
	const char *t = row->text;
	struct pev_attr a;
	struct pev_error err;

	cr_assert_not_null(s, "'%s': event %d missing", t, i);
	cr_expect_eq(s->ev.type, x->type, "'%s' [%d]: type %u, expected %u", t, i, s->ev.type,
		     x->type);
	cr_expect_eq(s->ev.config, x->config,
		     "'%s' [%d]: config 0x%" PRIx64 ", expected 0x%" PRIx64, t, i, s->ev.config,
		     x->config);
	if (x->c1str)
		cr_expect(s->ev.config1 && strcmp((const char *)(uintptr_t)s->ev.config1, x->c1str) == 0,
			  "'%s' [%d]: config1 should point to \"%s\"", t, i, x->c1str);
	else
		cr_expect_eq(s->ev.config1, x->config1,
			     "'%s' [%d]: config1 0x%" PRIx64 ", expected 0x%" PRIx64, t, i,
			     s->ev.config1, x->config1);
	cr_expect_eq(s->ev.config2, x->config2,
		     "'%s' [%d]: config2 0x%" PRIx64 ", expected 0x%" PRIx64, t, i, s->ev.config2,
		     x->config2);
	cr_expect_eq(s->ev.config3, x->config3,
		     "'%s' [%d]: config3 0x%" PRIx64 ", expected 0x%" PRIx64, t, i, s->ev.config3,
		     x->config3);
	cr_expect_eq(s->ev.bp_type, x->bp_type, "'%s' [%d]: bp_type %u, expected %u", t, i,
		     s->ev.bp_type, x->bp_type);

	cr_assert_eq(pev_attr_encode(&a, &s->ev, &s->opts, &err), 0, "'%s' [%d]: encode: %s", t,
		     i, err.message);
	cr_expect_eq(a.type, x->type, "'%s' [%d]: attr.type", t, i);
	uint64_t want = !perf_guest || x->guest ? x->flags : x->flags | EGST;
	cr_expect_eq(a.flags, want,
		     "'%s' [%d]%s: flags 0x%" PRIx64 ", expected 0x%" PRIx64, t, i,
		     perf_guest ? " (perf_guest)" : "", a.flags, want);
	cr_expect_eq(a.sample_period, x->period,
		     "'%s' [%d]: sample_period/freq %" PRIu64 ", expected %" PRIu64, t, i,
		     a.sample_period, x->period);
	cr_expect_eq(a.sample_type, x->sample_type,
		     "'%s' [%d]: sample_type 0x%" PRIx64 ", expected 0x%" PRIx64, t, i,
		     a.sample_type, x->sample_type);
	cr_expect_eq(a.sample_max_stack, x->max_stack, "'%s' [%d]: sample_max_stack %u", t, i,
		     a.sample_max_stack);
	cr_expect_eq(a.aux_sample_size, x->aux_size, "'%s' [%d]: aux_sample_size %u", t, i,
		     a.aux_sample_size);

	cr_expect(s->ev.name && strcmp(s->ev.name, x->name) == 0,
		  "'%s' [%d]: name \"%s\", expected \"%s\"", t, i, s->ev.name ? s->ev.name : "(null)",
		  x->name);
	if (x->pmu)
		cr_expect(s->pmu && strcmp(s->pmu, x->pmu) == 0, "'%s' [%d]: pmu \"%s\", expected \"%s\"",
			  t, i, s->pmu ? s->pmu : "(null)", x->pmu);
	else
		cr_expect_null(s->pmu, "'%s' [%d]: pmu \"%s\", expected none", t, i,
			       s->pmu ? s->pmu : "");
	cr_expect_eq(s->group, x->grp1 - 1, "'%s' [%d]: group %d, expected %d", t, i, s->group,
		     x->grp1 - 1);
	cr_expect_eq(s->group_leader, x->leader, "'%s' [%d]: group_leader %d", t, i,
		     s->group_leader);
	cr_expect_eq(s->leader_sampling, x->ls, "'%s' [%d]: leader_sampling %d", t, i,
		     s->leader_sampling);
	cr_expect_eq(s->weak_group, x->weak, "'%s' [%d]: weak_group %d", t, i, s->weak_group);
	cr_expect_eq(s->max_precise, x->maxp, "'%s' [%d]: max_precise %d", t, i, s->max_precise);
	cr_expect_eq(s->callgraph, x->cg, "'%s' [%d]: callgraph %d, expected %d", t, i,
		     (int)s->callgraph, (int)x->cg);
	cr_expect_eq(s->stack_size, x->stack, "'%s' [%d]: stack_size %u", t, i, s->stack_size);
	cr_expect(s->scale == (x->scale != 0 ? x->scale : 1.0), "'%s' [%d]: scale %.17g", t, i,
		  s->scale);
	cr_expect(s->unit && strcmp(s->unit, x->unit ? x->unit : "") == 0,
		  "'%s' [%d]: unit \"%s\", expected \"%s\"", t, i, s->unit ? s->unit : "(null)",
		  x->unit ? x->unit : "");
	cr_expect_not_null(s->text, "'%s' [%d]: no text", t, i);
}

static void check_valid(const struct vrow *row)
{
	struct pev_event_list *l = NULL;
	struct pev_error err;

	if (row->pfm && !pev_pfm_available())
		th_skip("perfev was built without libpfm4");
	for (int perf_guest = 0; perf_guest < 2; perf_guest++) {
		int r = parse_as(row->root, row->pfm, perf_guest, row->text, &l, &err);
		cr_assert_eq(r, 0, "'%s' should parse; got %s: %s\n%s", row->text,
			     pev_error_name(r), err.message, err.hint);
		cr_assert_not_null(l);
		cr_expect_eq(pev_event_list_count(l), row->n, "'%s': %d events, expected %d",
			     row->text, pev_event_list_count(l), row->n);
		for (int i = 0; i < row->n && i < pev_event_list_count(l); i++)
			check_event(row, i, pev_event_list_at(l, i), perf_guest);
		cr_expect_null(pev_event_list_at(l, pev_event_list_count(l)));
		pev_event_list_free(l);
	}
}

#define CAT_(a, b) a##b
#define CAT(a, b)  CAT_(a, b)

/* One row of the valid table, and its own test (named after its line). */
#define VALID(root_, text_, n_, ...) VALID_AT(__LINE__, root_, false, text_, n_, __VA_ARGS__)
/* The same with libpfm4 on, for Skylake. */
#define VALID_PFM(text_, n_, ...) VALID_AT(__LINE__, CONTAINER, true, text_, n_, __VA_ARGS__)
#define VALID_AT(line, root_, pfm_, text_, n_, ...)                                                \
	static const struct vrow CAT(vrow_, line) = {                                              \
		.root = root_, .text = text_, .pfm = pfm_, .n = n_, .ev = {__VA_ARGS__}};            \
	Test(parse_valid, CAT(line_, line), .init = th_leak_init, .fini = th_leak_fini,            \
	     .description = text_)                                                                 \
	{                                                                                          \
		check_valid(&CAT(vrow_, line));                                                    \
	}

/* Shorthands for the common event kinds. */
#define HW(id, nm, ...)  {.type = 0, .config = (id), .name = (nm), __VA_ARGS__}
#define SW(id, nm, ...)  {.type = 1, .config = (id), .name = (nm), __VA_ARGS__}
#define HC(cfg, nm, ...) {.type = 3, .config = (cfg), .name = (nm), __VA_ARGS__}
#define RAW(cfg, nm, ...) {.type = 4, .config = (cfg), .name = (nm), __VA_ARGS__}
#define TP(id, nm, ...)  {.type = 2, .config = (id), .name = (nm), .pmu = "tracepoint", __VA_ARGS__}
#define BP(addr, len, kind, nm, ...)                                                               \
	{.type = 5, .config1 = (addr), .config2 = (len), .bp_type = (kind), .name = (nm), __VA_ARGS__}
#define PMU(pmu_, type_, cfg, nm, ...)                                                             \
	{.type = (type_), .config = (cfg), .name = (nm), .pmu = (pmu_), __VA_ARGS__}
/* Group membership: group number g, leader or not. */
#define LEAD(g) .grp1 = (g) + 1, .leader = true
#define MEMB(g) .grp1 = (g) + 1, .leader = false

/* Hybrid generic events: cpu_atom first (PMUs sorted by name). */
#define HYB(id, base, mods, ...)                                                                   \
	{.type = 0, .config = ATOM(id), .name = "cpu_atom/" base "/" mods, .pmu = "cpu_atom",     \
	 __VA_ARGS__},                                                                             \
	{                                                                                          \
		.type = 0, .config = CORE(id), .name = "cpu_core/" base "/" mods, .pmu = "cpu_core", \
		__VA_ARGS__                                                                        \
	}
#define HYBC(cfg, base, mods, ...)                                                                 \
	{.type = 3, .config = ATOM(cfg), .name = "cpu_atom/" base "/" mods, .pmu = "cpu_atom",    \
	 __VA_ARGS__},                                                                             \
	{                                                                                          \
		.type = 3, .config = CORE(cfg), .name = "cpu_core/" base "/" mods, .pmu = "cpu_core", \
		__VA_ARGS__                                                                        \
	}

/* -- generic hardware names, non-hybrid: one event each (type 0) -- */
VALID(CONTAINER, "cycles", 1, HW(0, "cycles"))
VALID(CONTAINER, "cpu-cycles", 1, HW(0, "cpu-cycles"))
VALID(CONTAINER, "instructions", 1, HW(1, "instructions"))
VALID(CONTAINER, "cache-references", 1, HW(2, "cache-references"))
VALID(CONTAINER, "cache-misses", 1, HW(3, "cache-misses"))
VALID(CONTAINER, "branches", 1, HW(4, "branches"))
VALID(CONTAINER, "branch-instructions", 1, HW(4, "branch-instructions"))
VALID(CONTAINER, "branch-misses", 1, HW(5, "branch-misses"))
VALID(CONTAINER, "bus-cycles", 1, HW(6, "bus-cycles"))
VALID(CONTAINER, "stalled-cycles-frontend", 1, HW(7, "stalled-cycles-frontend"))
VALID(CONTAINER, "idle-cycles-frontend", 1, HW(7, "idle-cycles-frontend"))
VALID(CONTAINER, "stalled-cycles-backend", 1, HW(8, "stalled-cycles-backend"))
VALID(CONTAINER, "idle-cycles-backend", 1, HW(8, "idle-cycles-backend"))
VALID(CONTAINER, "ref-cycles", 1, HW(9, "ref-cycles"))

/* -- software names and aliases (type 1) -- */
VALID(CONTAINER, "cpu-clock", 1, SW(0, "cpu-clock"))
VALID(CONTAINER, "task-clock", 1, SW(1, "task-clock"))
VALID(CONTAINER, "page-faults", 1, SW(2, "page-faults"))
VALID(CONTAINER, "faults", 1, SW(2, "faults"))
VALID(CONTAINER, "context-switches", 1, SW(3, "context-switches"))
VALID(CONTAINER, "cs", 1, SW(3, "cs"))
VALID(CONTAINER, "cpu-migrations", 1, SW(4, "cpu-migrations"))
VALID(CONTAINER, "migrations", 1, SW(4, "migrations"))
VALID(CONTAINER, "minor-faults", 1, SW(5, "minor-faults"))
VALID(CONTAINER, "major-faults", 1, SW(6, "major-faults"))
VALID(CONTAINER, "alignment-faults", 1, SW(7, "alignment-faults"))
VALID(CONTAINER, "emulation-faults", 1, SW(8, "emulation-faults"))
VALID(CONTAINER, "dummy", 1, SW(9, "dummy"))
VALID(CONTAINER, "bpf-output", 1, SW(10, "bpf-output"))
VALID(CONTAINER, "cgroup-switches", 1, SW(11, "cgroup-switches"))
/* Software events are no core PMU's: one event on the hybrid machine too. */
VALID(HYBRID, "task-clock", 1, SW(1, "task-clock"))
VALID(HYBRID, "cs:u", 1, SW(3, "cs:u", .flags = EK | EH))
/* Generic names take perf's generic terms ("cpu-clock/period=5000/"), named as written. */
VALID(CONTAINER, "cpu-clock/period=5000/", 1, SW(0, "cpu-clock/period=5000/", .period = 5000))
VALID(CONTAINER, "task-clock/name=mine/", 1, SW(1, "mine"))
VALID(CONTAINER, "page-faults/period=1/u", 1,
      SW(2, "page-faults/period=1/u", .period = 1, .flags = EK | EH))
VALID(CONTAINER, "cpu-clock/config=1/", 1, SW(1, "cpu-clock/config=1/"))
VALID(CONTAINER, "cpu-clock/freq=99,call-graph=fp/", 1,
      SW(0, "cpu-clock/freq=99,call-graph=fp/", .period = 99, .flags = FREQ,
	 .cg = PEV_CALLGRAPH_FP))
VALID(CONTAINER, "{cycles/period=1000/,page-faults/name=pf/}", 2,
      HW(0, "cycles/period=1000/", LEAD(0), .period = 1000), SW(2, "pf", MEMB(0)))
VALID(HYBRID, "cycles/period=1000/k", 2, HYB(0, "cycles", "k", .period = 1000, .flags = EU | EH, .guest = true))

/* -- cache names: level | op << 8 | result << 16 (type 3); perf's spellings -- */
VALID(CONTAINER, "L1-dcache-loads", 1, HC(0x0, "L1-dcache-loads"))
VALID(CONTAINER, "L1-dcache-load-misses", 1, HC(0x10000, "L1-dcache-load-misses"))
VALID(CONTAINER, "L1-dcache-stores", 1, HC(0x100, "L1-dcache-stores"))
VALID(CONTAINER, "L1-dcache-store-misses", 1, HC(0x10100, "L1-dcache-store-misses"))
VALID(CONTAINER, "L1-dcache-prefetches", 1, HC(0x200, "L1-dcache-prefetches"))
VALID(CONTAINER, "L1-icache-load-misses", 1, HC(0x10001, "L1-icache-load-misses"))
VALID(CONTAINER, "LLC-loads", 1, HC(0x2, "LLC-loads"))
VALID(CONTAINER, "LLC-load-misses", 1, HC(0x10002, "LLC-load-misses"))
VALID(CONTAINER, "LLC-stores", 1, HC(0x102, "LLC-stores"))
VALID(CONTAINER, "LLC-prefetch-misses", 1, HC(0x10202, "LLC-prefetch-misses"))
VALID(CONTAINER, "dTLB-load-misses", 1, HC(0x10003, "dTLB-load-misses"))
VALID(CONTAINER, "dTLB-stores", 1, HC(0x103, "dTLB-stores"))
VALID(CONTAINER, "iTLB-loads", 1, HC(0x4, "iTLB-loads"))
VALID(CONTAINER, "iTLB-load-misses", 1, HC(0x10004, "iTLB-load-misses"))
VALID(CONTAINER, "branch-loads", 1, HC(0x5, "branch-loads"))
VALID(CONTAINER, "branch-load-misses", 1, HC(0x10005, "branch-load-misses"))
VALID(CONTAINER, "node-loads", 1, HC(0x6, "node-loads"))
VALID(CONTAINER, "node-store-misses", 1, HC(0x10106, "node-store-misses"))
VALID(CONTAINER, "node-prefetches", 1, HC(0x206, "node-prefetches"))
VALID(CONTAINER, "l1d-loads", 1, HC(0x0, "l1d-loads"))
VALID(CONTAINER, "l1-d-read-miss", 1, HC(0x10000, "l1-d-read-miss"))
VALID(CONTAINER, "L1-data-load-misses", 1, HC(0x10000, "L1-data-load-misses"))
VALID(CONTAINER, "l1i-loads", 1, HC(0x1, "l1i-loads"))
VALID(CONTAINER, "L1-instruction-load-misses", 1, HC(0x10001, "L1-instruction-load-misses"))
VALID(CONTAINER, "L2-loads", 1, HC(0x2, "L2-loads"))
VALID(CONTAINER, "LLC-misses", 1, HC(0x10002, "LLC-misses"))
VALID(CONTAINER, "LLC-load-access", 1, HC(0x2, "LLC-load-access"))
VALID(CONTAINER, "d-tlb-misses", 1, HC(0x10003, "d-tlb-misses"))
VALID(CONTAINER, "Data-TLB-store-misses", 1, HC(0x10103, "Data-TLB-store-misses"))
VALID(CONTAINER, "dTLB-Reference", 1, HC(0x3, "dTLB-Reference"))
VALID(CONTAINER, "i-tlb-loads", 1, HC(0x4, "i-tlb-loads"))
VALID(CONTAINER, "Instruction-TLB-load-misses", 1, HC(0x10004, "Instruction-TLB-load-misses"))
VALID(CONTAINER, "bpu-loads", 1, HC(0x5, "bpu-loads"))
VALID(CONTAINER, "btb-load-misses", 1, HC(0x10005, "btb-load-misses"))
VALID(CONTAINER, "bpc-loads", 1, HC(0x5, "bpc-loads"))
VALID(CONTAINER, "L1-dcache-speculative-read-miss", 1, HC(0x10200, "L1-dcache-speculative-read-miss"))
VALID(CONTAINER, "L1-dcache-loads-misses", 1, HC(0x10000, "L1-dcache-loads-misses"))
VALID(CONTAINER, "LLC-load-misses:u", 1, HC(0x10002, "LLC-load-misses:u", .flags = EK | EH))

/* -- modifiers, as perf applies them (any of u/k/h excludes the others) -- */
VALID(CONTAINER, "cycles:u", 1, HW(0, "cycles:u", .flags = EK | EH))
VALID(CONTAINER, "cycles:k", 1, HW(0, "cycles:k", .flags = EU | EH, .guest = true))
VALID(CONTAINER, "cycles:h", 1, HW(0, "cycles:h", .flags = EU | EK, .guest = true))
VALID(CONTAINER, "cycles:uk", 1, HW(0, "cycles:uk", .flags = EH))
VALID(CONTAINER, "cycles:ku", 1, HW(0, "cycles:ku", .flags = EH))
VALID(CONTAINER, "cycles:kh", 1, HW(0, "cycles:kh", .flags = EU, .guest = true))
VALID(CONTAINER, "cycles:uh", 1, HW(0, "cycles:uh", .flags = EK))
VALID(CONTAINER, "cycles:ukh", 1, HW(0, "cycles:ukh", .flags = 0))
VALID(CONTAINER, "cycles:G", 1, HW(0, "cycles:G", .flags = EHOST, .guest = true))
VALID(CONTAINER, "cycles:H", 1, HW(0, "cycles:H", .flags = EGST))
VALID(CONTAINER, "cycles:GH", 1, HW(0, "cycles:GH", .flags = 0, .guest = true))
VALID(CONTAINER, "cycles:HG", 1, HW(0, "cycles:HG", .flags = 0, .guest = true))
VALID(CONTAINER, "cycles:uG", 1, HW(0, "cycles:uG", .flags = EK | EH | EHOST, .guest = true))
VALID(CONTAINER, "cycles:Gu", 1, HW(0, "cycles:Gu", .flags = EK | EH | EHOST, .guest = true))
VALID(CONTAINER, "cycles:I", 1, HW(0, "cycles:I", .flags = EI, .guest = true))
VALID(CONTAINER, "cycles:kI", 1, HW(0, "cycles:kI", .flags = EU | EH | EI, .guest = true))
VALID(CONTAINER, "cycles:p", 1, HW(0, "cycles:p", .flags = P1))
VALID(CONTAINER, "cycles:pp", 1, HW(0, "cycles:pp", .flags = P2))
VALID(CONTAINER, "cycles:ppp", 1, HW(0, "cycles:ppp", .flags = P3))
VALID(CONTAINER, "cycles:upp", 1, HW(0, "cycles:upp", .flags = EK | EH | P2))
VALID(CONTAINER, "cycles:P", 1, HW(0, "cycles:P", .maxp = true, .guest = true))
VALID(CONTAINER, "cycles:uP", 1, HW(0, "cycles:uP", .flags = EK | EH, .maxp = true))
/* S on a lone event: samples read the counter (PERF_SAMPLE_READ). */
VALID(CONTAINER, "cycles:S", 1, HW(0, "cycles:S", .sample_type = PEV_SAMPLE_READ, .guest = true))
VALID(CONTAINER, "cycles:D", 1, HW(0, "cycles:D", .flags = PIN, .guest = true))
VALID(CONTAINER, "cycles:W", 1, HW(0, "cycles:W", .weak = true, .guest = true))
VALID(CONTAINER, "cycles:e", 1, HW(0, "cycles:e", .flags = EXCL, .guest = true))
VALID(CONTAINER, "cycles:De", 1, HW(0, "cycles:De", .flags = PIN | EXCL, .guest = true))
VALID(CONTAINER, "cpu-clock:k", 1, SW(0, "cpu-clock:k", .flags = EU | EH, .guest = true))
VALID(CONTAINER, "instructions:uI", 1, HW(1, "instructions:uI", .flags = EK | EH | EI))

/* -- generic names on the hybrid machine: one event per core PMU -- */
VALID(HYBRID, "cycles", 2, HYB(0, "cycles", ""))
VALID(HYBRID, "cpu-cycles", 2, HYB(0, "cpu-cycles", ""))
VALID(HYBRID, "instructions", 2, HYB(1, "instructions", ""))
VALID(HYBRID, "cache-references", 2, HYB(2, "cache-references", ""))
VALID(HYBRID, "cache-misses", 2, HYB(3, "cache-misses", ""))
VALID(HYBRID, "branches", 2, HYB(4, "branches", ""))
VALID(HYBRID, "branch-misses", 2, HYB(5, "branch-misses", ""))
VALID(HYBRID, "bus-cycles", 2, HYB(6, "bus-cycles", ""))
VALID(HYBRID, "stalled-cycles-frontend", 2, HYB(7, "stalled-cycles-frontend", ""))
VALID(HYBRID, "stalled-cycles-backend", 2, HYB(8, "stalled-cycles-backend", ""))
VALID(HYBRID, "ref-cycles", 2, HYB(9, "ref-cycles", ""))
VALID(HYBRID, "cycles:u", 2, HYB(0, "cycles", "u", .flags = EK | EH))
VALID(HYBRID, "instructions:kpp", 2, HYB(1, "instructions", "kpp", .flags = EU | EH | P2))
VALID(HYBRID, "L1-dcache-load-misses", 2, HYBC(0x10000, "L1-dcache-load-misses", ""))
VALID(HYBRID, "LLC-loads:u", 2, HYBC(0x2, "LLC-loads", "u", .flags = EK | EH))
VALID(HYBRID, "dTLB-store-misses", 2, HYBC(0x10103, "dTLB-store-misses", ""))

/* -- raw codes (type 4, config = the hex) -- */
VALID(CONTAINER, "r3c", 1, RAW(0x3c, "r3c"))
VALID(CONTAINER, "r0x1c3", 1, RAW(0x1c3, "r0x1c3"))
VALID(CONTAINER, "rC0", 1, RAW(0xc0, "rC0"))
VALID(CONTAINER, "r0", 1, RAW(0x0, "r0"))
VALID(CONTAINER, "rffffffffffffffff", 1, RAW(UINT64_MAX, "rffffffffffffffff"))
VALID(CONTAINER, "r1a3:u", 1, RAW(0x1a3, "r1a3:u", .flags = EK | EH))
VALID(CONTAINER, "r3c:ppp", 1, RAW(0x3c, "r3c:ppp", .flags = P3))
/* A raw code is not expanded on hybrid machines: type 4 is cpu_core's. */
VALID(HYBRID, "r3c", 1, RAW(0x3c, "r3c"))

/* -- PMU terms: formats place values into config words -- */
VALID(HYBRID, "cpu_core/event=0x3c/", 1, PMU("cpu_core", 4, 0x3c, "cpu_core/event=0x3c/"))
VALID(HYBRID, "cpu_core/event=0x3c/u", 1,
      PMU("cpu_core", 4, 0x3c, "cpu_core/event=0x3c/u", .flags = EK | EH))
VALID(HYBRID, "cpu_core/event=0x3c/:u", 1,
      PMU("cpu_core", 4, 0x3c, "cpu_core/event=0x3c/:u", .flags = EK | EH))
VALID(HYBRID, "cpu_core/event=0x3c/uk", 1,
      PMU("cpu_core", 4, 0x3c, "cpu_core/event=0x3c/uk", .flags = EH))
VALID(HYBRID, "cpu_core/event=0x3c/ppp", 1,
      PMU("cpu_core", 4, 0x3c, "cpu_core/event=0x3c/ppp", .flags = P3))
VALID(HYBRID, "cpu_core/event=60/", 1, PMU("cpu_core", 4, 0x3c, "cpu_core/event=60/"))
/* Flags without a value set their bit: edge 18, pc 19, inv 23; cmask 24-31. */
VALID(HYBRID, "cpu_core/event=0x3c,umask=0x00,cmask=1,edge,inv,pc/", 1,
      PMU("cpu_core", 4, 0x18c003c, "cpu_core/event=0x3c,umask=0x00,cmask=1,edge,inv,pc/"))
VALID(HYBRID, "cpu_atom/event=0xc0,umask=0x01/", 1,
      PMU("cpu_atom", 10, 0x1c0, "cpu_atom/event=0xc0,umask=0x01/"))
VALID(HYBRID, "cpu_core/event=0xb7,umask=0x1,offcore_rsp=0x10003c0001/", 1,
      PMU("cpu_core", 4, 0x1b7, "cpu_core/event=0xb7,umask=0x1,offcore_rsp=0x10003c0001/",
	  .config1 = 0x10003c0001))
VALID(HYBRID, "cpu_core/event=0xc6,frontend=0x11/", 1,
      PMU("cpu_core", 4, 0xc6, "cpu_core/event=0xc6,frontend=0x11/", .config1 = 0x11))
VALID(HYBRID, "cpu_core/config=0x1234,config1=5,config2=6,config3=7/", 1,
      PMU("cpu_core", 4, 0x1234, "cpu_core/config=0x1234,config1=5,config2=6,config3=7/",
	  .config1 = 5, .config2 = 6, .config3 = 7))
/* A later term overrides the bits an earlier one set. */
VALID(HYBRID, "cpu_core/config=0xffff,umask=0x12/", 1,
      PMU("cpu_core", 4, 0x12ff, "cpu_core/config=0xffff,umask=0x12/"))
/* Aliases expand to their terms (events/<name>); ldlat goes into config1. */
VALID(HYBRID, "cpu_core/cycles/", 1, PMU("cpu_core", 4, 0x3c, "cpu_core/cycles/"))
VALID(HYBRID, "cpu_core/mem-loads/", 1,
      PMU("cpu_core", 4, 0x1cd, "cpu_core/mem-loads/", .config1 = 3))
VALID(HYBRID, "cpu_atom/mem-loads/", 1,
      PMU("cpu_atom", 10, 0x5d0, "cpu_atom/mem-loads/", .config1 = 3))
VALID(HYBRID, "cpu_core/mem-loads,ldlat=64/", 1,
      PMU("cpu_core", 4, 0x1cd, "cpu_core/mem-loads,ldlat=64/", .config1 = 64))
VALID(HYBRID, "cpu_core/cycles,umask=2/", 1, PMU("cpu_core", 4, 0x23c, "cpu_core/cycles,umask=2/"))
VALID(HYBRID, "cpu_core/topdown-retiring/", 1,
      PMU("cpu_core", 4, 0x8000, "cpu_core/topdown-retiring/"))
VALID(HYBRID, "cpu_atom/topdown-retiring/", 1,
      PMU("cpu_atom", 10, 0xc2, "cpu_atom/topdown-retiring/"))
/* Terms that are options, not format fields. */
VALID(HYBRID, "cpu_core/event=0x3c,name=mycycles/", 1, PMU("cpu_core", 4, 0x3c, "mycycles"))
VALID(HYBRID, "cpu_core/event=0x3c,period=100000/", 1,
      PMU("cpu_core", 4, 0x3c, "cpu_core/event=0x3c,period=100000/", .period = 100000))
VALID(HYBRID, "cpu_core/event=0x3c,freq=4000/", 1,
      PMU("cpu_core", 4, 0x3c, "cpu_core/event=0x3c,freq=4000/", .flags = FREQ, .period = 4000))
VALID(HYBRID, "cpu_core/event=0x3c,period=1000,freq=10/", 1,
      PMU("cpu_core", 4, 0x3c, "cpu_core/event=0x3c,period=1000,freq=10/", .flags = FREQ,
	  .period = 10))
VALID(HYBRID, "cpu_core/event=0x3c,call-graph=fp/", 1,
      PMU("cpu_core", 4, 0x3c, "cpu_core/event=0x3c,call-graph=fp/", .cg = PEV_CALLGRAPH_FP))
VALID(HYBRID, "cpu_core/event=0x3c,call-graph=dwarf,stack-size=8192/", 1,
      PMU("cpu_core", 4, 0x3c, "cpu_core/event=0x3c,call-graph=dwarf,stack-size=8192/",
	  .cg = PEV_CALLGRAPH_DWARF, .stack = 8192))
VALID(HYBRID, "cpu_core/event=0x3c,call-graph=lbr/", 1,
      PMU("cpu_core", 4, 0x3c, "cpu_core/event=0x3c,call-graph=lbr/", .cg = PEV_CALLGRAPH_LBR))
VALID(HYBRID, "cpu_core/event=0x3c,call-graph=no/", 1,
      PMU("cpu_core", 4, 0x3c, "cpu_core/event=0x3c,call-graph=no/", .cg = PEV_CALLGRAPH_NONE))
VALID(HYBRID, "cpu_core/event=0x3c,max-stack=20/", 1,
      PMU("cpu_core", 4, 0x3c, "cpu_core/event=0x3c,max-stack=20/", .max_stack = 20))
VALID(HYBRID, "cpu_core/event=0x3c,inherit=1/", 1,
      PMU("cpu_core", 4, 0x3c, "cpu_core/event=0x3c,inherit=1/", .flags = INH))
VALID(HYBRID, "cpu_core/event=0x3c,inherit=0/", 1,
      PMU("cpu_core", 4, 0x3c, "cpu_core/event=0x3c,inherit=0/"))
VALID(HYBRID, "cpu_core/event=0x3c,inherit=1,no-inherit/", 1,
      PMU("cpu_core", 4, 0x3c, "cpu_core/event=0x3c,inherit=1,no-inherit/"))
VALID(HYBRID, "cpu_core/event=0x3c,aux-output/", 1,
      PMU("cpu_core", 4, 0x3c, "cpu_core/event=0x3c,aux-output/", .flags = AUXO))
VALID(HYBRID, "cpu_core/event=0x3c,aux-sample-size=4096/", 1,
      PMU("cpu_core", 4, 0x3c, "cpu_core/event=0x3c,aux-sample-size=4096/", .aux_size = 4096,
	  .sample_type = PEV_SAMPLE_AUX))
VALID(HYBRID, "cpu_core/event=0xc0,name=insts,period=2000003,call-graph=fp,max-stack=8/upp", 1,
      PMU("cpu_core", 4, 0xc0, "insts", .period = 2000003, .cg = PEV_CALLGRAPH_FP,
	  .max_stack = 8, .flags = EK | EH | P2))
/* intel_pt: single-bit flags and small fields in config. */
VALID(HYBRID, "intel_pt//", 1, PMU("intel_pt", 9, 0x0, "intel_pt//"))
VALID(HYBRID, "intel_pt/pt,cyc,mtc_period=3,psb_period=0xf,notnt/", 1,
      PMU("intel_pt", 9, 0x8000000f00c003, "intel_pt/pt,cyc,mtc_period=3,psb_period=0xf,notnt/"))
VALID(HYBRID, "intel_pt/cyc,cyc_thresh=2,tsc,noretcomp/", 1,
      PMU("intel_pt", 9, 0x100c02, "intel_pt/cyc,cyc_thresh=2,tsc,noretcomp/"))
VALID(HYBRID, "intel_pt/event,ptw,fup_on_ptw,pwr_evt,mtc,mtc_period=15/", 1,
      PMU("intel_pt", 9, 0x8003d230, "intel_pt/event,ptw,fup_on_ptw,pwr_evt,mtc,mtc_period=15/"))
VALID(HYBRID, "intel_pt/branch=0,pt=1/u", 1,
      PMU("intel_pt", 9, 0x1, "intel_pt/branch=0,pt=1/u", .flags = EK | EH))
/* arm_spe_0: fields in config, config1, config2 and config3. */
VALID(HYBRID,
      "arm_spe_0/ts_enable=1,pa_enable=1,pct_enable=1,jitter=1,branch_filter=1,load_filter=1,"
      "store_filter=1/",
      1,
      PMU("arm_spe_0", 16, 0x700010007,
	  "arm_spe_0/ts_enable=1,pa_enable=1,pct_enable=1,jitter=1,branch_filter=1,"
	  "load_filter=1,store_filter=1/"))
VALID(HYBRID, "arm_spe_0/event_filter=0xffffffffffffffff/", 1,
      PMU("arm_spe_0", 16, 0x0, "arm_spe_0/event_filter=0xffffffffffffffff/",
	  .config1 = UINT64_MAX))
VALID(HYBRID, "arm_spe_0/min_latency=4095/", 1,
      PMU("arm_spe_0", 16, 0x0, "arm_spe_0/min_latency=4095/", .config2 = 0xfff))
VALID(HYBRID, "arm_spe_0/inv_event_filter=0x8000000000000000,load_filter/", 1,
      PMU("arm_spe_0", 16, 0x200000000, "arm_spe_0/inv_event_filter=0x8000000000000000,load_filter/",
	  .config3 = 0x8000000000000000))
VALID(HYBRID, "arm_spe_0/ts_enable,event_filter=0x12,min_latency=0x20,inv_event_filter=0x4/", 1,
      PMU("arm_spe_0", 16, 0x1,
	  "arm_spe_0/ts_enable,event_filter=0x12,min_latency=0x20,inv_event_filter=0x4/",
	  .config1 = 0x12, .config2 = 0x20, .config3 = 0x4))
/* amd_df: event = config:0-7,32-35,59-60 (value bits 0-7, 8-11, 12-13). */
VALID(HYBRID, "amd_df/event=0x3fff/", 1,
      PMU("amd_df", 15, 0x1800000f000000ff, "amd_df/event=0x3fff/"))
VALID(HYBRID, "amd_df/event=0x1234,umask=0xff/", 1,
      PMU("amd_df", 15, 0x080000020000ff34, "amd_df/event=0x1234,umask=0xff/"))
VALID(HYBRID, "amd_df/event=0x100/", 1, PMU("amd_df", 15, 0x100000000, "amd_df/event=0x100/"))
VALID(HYBRID, "amd_df/event=0x1000/", 1,
      PMU("amd_df", 15, 0x0800000000000000, "amd_df/event=0x1000/"))
/* msr: a 64-bit event field; aliases found ignoring case. */
VALID(HYBRID, "msr/tsc/", 1, PMU("msr", 12, 0x0, "msr/tsc/"))
VALID(HYBRID, "msr/smi/", 1, PMU("msr", 12, 0x4, "msr/smi/"))
VALID(HYBRID, "msr/TSC/", 1, PMU("msr", 12, 0x0, "msr/TSC/"))
VALID(HYBRID, "msr/event=0xffffffffffffffff/", 1,
      PMU("msr", 12, UINT64_MAX, "msr/event=0xffffffffffffffff/"))
VALID(HYBRID, "msr/cpu_thermal_margin/", 1,
      PMU("msr", 12, 0x7, "msr/cpu_thermal_margin/", .unit = "C"))
/* .scale and .unit of an alias come with it. */
VALID(HYBRID, "power/energy-pkg/", 1,
      PMU("power", 11, 0x2, "power/energy-pkg/", .scale = RAPL_SCALE, .unit = "Joules"))
VALID(HYBRID, "power/energy-ram/", 1,
      PMU("power", 11, 0x3, "power/energy-ram/", .scale = RAPL_SCALE, .unit = "Joules"))
VALID(HYBRID, "power/event=0x02/", 1, PMU("power", 11, 0x2, "power/event=0x02/"))
VALID(HYBRID, "intel_cqm/llc_occupancy/", 1,
      PMU("intel_cqm", 17, 0x1, "intel_cqm/llc_occupancy/", .unit = "Bytes"))
VALID(HYBRID, "uncore_imc_1/cas_count_write/", 1,
      PMU("uncore_imc_1", 14, 0x3004, "uncore_imc_1/cas_count_write/", .scale = IMC_SCALE,
	  .unit = "MiB"))
/* A PMU name without its _N suffix means every instance. */
VALID(HYBRID, "uncore_imc/cas_count_read/", 2,
      PMU("uncore_imc_0", 13, 0xf04, "uncore_imc_0/cas_count_read/", .scale = IMC_SCALE,
	  .unit = "MiB"),
      PMU("uncore_imc_1", 14, 0xf04, "uncore_imc_1/cas_count_read/", .scale = IMC_SCALE,
	  .unit = "MiB"))
VALID(HYBRID, "uncore_imc/event=0xff,umask=0xff,edge,inv,thresh=0xff/", 2,
      PMU("uncore_imc_0", 13, 0xff84ffff, "uncore_imc_0/event=0xff,umask=0xff,edge,inv,thresh=0xff/"),
      PMU("uncore_imc_1", 14, 0xff84ffff, "uncore_imc_1/event=0xff,umask=0xff,edge,inv,thresh=0xff/"))
VALID(HYBRID, "uncore_imc/clockticks,name=ticks/", 2,
      PMU("uncore_imc_0", 13, 0x0, "ticks"), PMU("uncore_imc_1", 14, 0x0, "ticks"))
/* Alias names alone: every PMU that has one. */
VALID(HYBRID, "energy-pkg", 1,
      PMU("power", 11, 0x2, "power/energy-pkg/", .scale = RAPL_SCALE, .unit = "Joules"))
VALID(HYBRID, "tsc", 1, PMU("msr", 12, 0x0, "msr/tsc/"))
VALID(HYBRID, "aperf:u", 1, PMU("msr", 12, 0x1, "msr/aperf/u", .flags = EK | EH))
VALID(HYBRID, "total_bytes", 1,
      PMU("intel_cqm", 17, 0x2, "intel_cqm/total_bytes/", .scale = CQM_SCALE, .unit = "MB"))
VALID(HYBRID, "cas_count_read", 2,
      PMU("uncore_imc_0", 13, 0xf04, "uncore_imc_0/cas_count_read/", .scale = IMC_SCALE,
	  .unit = "MiB"),
      PMU("uncore_imc_1", 14, 0xf04, "uncore_imc_1/cas_count_read/", .scale = IMC_SCALE,
	  .unit = "MiB"))
VALID(HYBRID, "mem-loads", 2,
      PMU("cpu_atom", 10, 0x5d0, "cpu_atom/mem-loads/", .config1 = 3),
      PMU("cpu_core", 4, 0x1cd, "cpu_core/mem-loads/", .config1 = 3))
VALID(HYBRID, "slots", 1, PMU("cpu_core", 4, 0x400, "cpu_core/slots/"))

/* -- tracepoints (the fixture tracefs's ids), globs in strcmp order -- */
VALID(CONTAINER, "sched:sched_switch", 1, TP(372, "sched:sched_switch"))
VALID(CONTAINER, "sched:sched_wakeup", 1, TP(374, "sched:sched_wakeup"))
VALID(CONTAINER, "raw_syscalls:sys_enter", 1, TP(443, "raw_syscalls:sys_enter"))
VALID(CONTAINER, "ftrace:function", 1, TP(1, "ftrace:function"))
VALID(CONTAINER, "sched:sched_switch:u", 1, TP(372, "sched:sched_switch:u", .flags = EK | EH))
VALID(CONTAINER, "sched:*", 3, TP(365, "sched:sched_process_exec"), TP(372, "sched:sched_switch"),
      TP(374, "sched:sched_wakeup"))
VALID(CONTAINER, "syscalls:sys_enter_*", 3, TP(782, "syscalls:sys_enter_openat"),
      TP(842, "syscalls:sys_enter_read"), TP(840, "syscalls:sys_enter_write"))
VALID(CONTAINER, "*:sys_enter*", 4, TP(443, "raw_syscalls:sys_enter"),
      TP(782, "syscalls:sys_enter_openat"), TP(842, "syscalls:sys_enter_read"),
      TP(840, "syscalls:sys_enter_write"))
VALID(CONTAINER, "syscalls:sys_*_read", 2, TP(842, "syscalls:sys_enter_read"),
      TP(841, "syscalls:sys_exit_read"))
VALID(CONTAINER, "sched:sched_s[wp]*", 1, TP(372, "sched:sched_switch"))
VALID(CONTAINER, "sched:sched_?akeup:k", 1, TP(374, "sched:sched_wakeup:k", .flags = EU | EH, .guest = true))
VALID(CONTAINER, "ftrace:*", 1, TP(1, "ftrace:function"))
VALID(CONTAINER, "sys*:sys_exit_read", 1, TP(841, "syscalls:sys_exit_read"))

/* -- breakpoints: rw and 4 bytes by default, 8 (sizeof(long)) for x -- */
VALID(CONTAINER, "mem:0x1000", 1, BP(0x1000, 4, 3, "mem:0x1000"))
VALID(CONTAINER, "mem:0x1000:x", 1, BP(0x1000, 8, 4, "mem:0x1000:x"))
VALID(CONTAINER, "mem:0x1000:r", 1, BP(0x1000, 4, 1, "mem:0x1000:r"))
VALID(CONTAINER, "mem:0x1000:w", 1, BP(0x1000, 4, 2, "mem:0x1000:w"))
VALID(CONTAINER, "mem:0x1000:rw", 1, BP(0x1000, 4, 3, "mem:0x1000:rw"))
VALID(CONTAINER, "mem:4096/8:w", 1, BP(0x1000, 8, 2, "mem:4096/8:w"))
VALID(CONTAINER, "mem:0x1000/1:r", 1, BP(0x1000, 1, 1, "mem:0x1000/1:r"))
VALID(CONTAINER, "mem:0x1000/2:wr", 1, BP(0x1000, 2, 3, "mem:0x1000/2:wr"))
VALID(CONTAINER, "mem:0x1000/8", 1, BP(0x1000, 8, 3, "mem:0x1000/8"))
VALID(CONTAINER, "mem:0x1000:rw:u", 1, BP(0x1000, 4, 3, "mem:0x1000:rw:u", .flags = EK | EH))
VALID(CONTAINER, "mem:0x7ffd0000/4:w:k", 1,
      BP(0x7ffd0000, 4, 2, "mem:0x7ffd0000/4:w:k", .flags = EU | EH, .guest = true))

/* -- probes: config1 points to the function or file, config2 is the offset -- */
VALID(CONTAINER, "kprobe:vfs_read", 1,
      {.type = 6, .c1str = "vfs_read", .name = "kprobe:vfs_read", .pmu = "kprobe"})
VALID(CONTAINER, "kprobe:vfs_read+8", 1,
      {.type = 6, .c1str = "vfs_read", .config2 = 8, .name = "kprobe:vfs_read+8", .pmu = "kprobe"})
VALID(CONTAINER, "kprobe:vfs_read:u", 1,
      {.type = 6, .c1str = "vfs_read", .name = "kprobe:vfs_read:u", .pmu = "kprobe",
       .flags = EK | EH})
/* At an address: config1 (the name) is 0, config2 the address. */
VALID(CONTAINER, "kprobe:0xffffffff81000000", 1,
      {.type = 6, .config2 = 0xffffffff81000000, .name = "kprobe:0xffffffff81000000",
       .pmu = "kprobe"})
/* No format/retprobe file: bit 0, the kernel's. */
VALID(CONTAINER, "kretprobe:vfs_read", 1,
      {.type = 6, .config = 1, .c1str = "vfs_read", .name = "kretprobe:vfs_read", .pmu = "kprobe"})
VALID(HYBRID, "kretprobe:do_exit", 1,
      {.type = 6, .config = 1, .c1str = "do_exit", .name = "kretprobe:do_exit", .pmu = "kprobe"})
VALID(PROBES3, "kprobe:do_exit", 1,
      {.type = 10, .c1str = "do_exit", .name = "kprobe:do_exit", .pmu = "kprobe"})
VALID(PROBES3, "kretprobe:do_exit", 1,
      {.type = 10, .config = 1, .c1str = "do_exit", .name = "kretprobe:do_exit", .pmu = "kprobe"})
VALID(CONTAINER, "uprobe:/proc/self/exe+0x100", 1,
      {.type = 7, .c1str = "/proc/self/exe", .config2 = 0x100,
       .name = "uprobe:/proc/self/exe+0x100", .pmu = "uprobe"})
VALID(CONTAINER, "uprobe:/proc/self/exe+0x100:u", 1,
      {.type = 7, .c1str = "/proc/self/exe", .config2 = 0x100,
       .name = "uprobe:/proc/self/exe+0x100:u", .pmu = "uprobe", .flags = EK | EH})
VALID(CONTAINER, "uprobe:/proc/self/exe:0x100", 1,
      {.type = 7, .c1str = "/proc/self/exe", .config2 = 0x100,
       .name = "uprobe:/proc/self/exe:0x100", .pmu = "uprobe"})
VALID(HYBRID, "uretprobe:/proc/self/exe+0x200", 1,
      {.type = 8, .config = 1, .c1str = "/proc/self/exe", .config2 = 0x200,
       .name = "uretprobe:/proc/self/exe+0x200", .pmu = "uprobe"})
/* format/retprobe says config:3 here. */
VALID(PROBES3, "uretprobe:/proc/self/exe+0x200", 1,
      {.type = 9, .config = 8, .c1str = "/proc/self/exe", .config2 = 0x200,
       .name = "uretprobe:/proc/self/exe+0x200", .pmu = "uprobe"})

/* -- groups: leaders, group modifiers, leader sampling -- */
VALID(CONTAINER, "{cycles,instructions}", 2, HW(0, "cycles", LEAD(0)),
      HW(1, "instructions", MEMB(0)))
VALID(CONTAINER, "{ cycles , instructions }", 2, HW(0, "cycles", LEAD(0)),
      HW(1, "instructions", MEMB(0)))
VALID(CONTAINER, "{cycles, cycles}", 2, HW(0, "cycles", LEAD(0)), HW(0, "cycles", MEMB(0)))
VALID(CONTAINER, "{cycles}", 1, HW(0, "cycles", LEAD(0)))
VALID(CONTAINER, "{cycles,instructions}:S", 2, HW(0, "cycles", LEAD(0), .ls = true),
      HW(1, "instructions", MEMB(0), .ls = true))
VALID(CONTAINER, "{cycles,instructions}:u", 2, HW(0, "cycles", LEAD(0), .flags = EK | EH),
      HW(1, "instructions", MEMB(0), .flags = EK | EH))
VALID(CONTAINER, "{cycles,instructions}:W", 2, HW(0, "cycles", LEAD(0), .weak = true),
      HW(1, "instructions", MEMB(0), .weak = true))
/* Pinned and exclusive belong to the group: only its leader carries them. */
VALID(CONTAINER, "{cpu-clock,task-clock}:D", 2, SW(0, "cpu-clock", LEAD(0), .flags = PIN),
      SW(1, "task-clock", MEMB(0)))
VALID(CONTAINER, "{cpu-clock,task-clock}:e", 2, SW(0, "cpu-clock", LEAD(0), .flags = EXCL),
      SW(1, "task-clock", MEMB(0)))
/* A group's modifiers combine with the event's own, as in perf. */
VALID(CONTAINER, "{cycles:k,instructions}:u", 2, HW(0, "cycles:k", LEAD(0), .flags = EH),
      HW(1, "instructions", MEMB(0), .flags = EK | EH))
VALID(CONTAINER, "{cpu-clock:G,task-clock}:H", 2, SW(0, "cpu-clock:G", LEAD(0), .flags = 0, .guest = true),
      SW(1, "task-clock", MEMB(0), .flags = EGST))
VALID(CONTAINER, "{cpu-clock:p,task-clock}:Ip", 2,
      SW(0, "cpu-clock:p", LEAD(0), .flags = EI | P2), SW(1, "task-clock", MEMB(0), .flags = EI | P1))
VALID(CONTAINER, "{cycles},{instructions}", 2, HW(0, "cycles", LEAD(0)),
      HW(1, "instructions", LEAD(1)))
VALID(CONTAINER, "{cycles,instructions},cpu-clock", 3, HW(0, "cycles", LEAD(0)),
      HW(1, "instructions", MEMB(0)), SW(0, "cpu-clock"))
VALID(CONTAINER, "cpu-clock,{cycles,instructions}:S", 3, SW(0, "cpu-clock"),
      HW(0, "cycles", LEAD(0), .ls = true), HW(1, "instructions", MEMB(0), .ls = true))
VALID(CONTAINER, "{sched:sched_switch,mem:0x1000:w,cpu-clock}", 3,
      TP(372, "sched:sched_switch", LEAD(0)), BP(0x1000, 4, 2, "mem:0x1000:w", MEMB(0)),
      SW(0, "cpu-clock", MEMB(0)))
VALID(HYBRID, "{cpu_core/event=0x3c/,cpu_core/event=0xc0/}:S", 2,
      PMU("cpu_core", 4, 0x3c, "cpu_core/event=0x3c/", LEAD(0), .ls = true),
      PMU("cpu_core", 4, 0xc0, "cpu_core/event=0xc0/", MEMB(0), .ls = true))
/* Hybrid: a group of generic events splits into one group per core PMU. */
VALID(HYBRID, "{cycles,instructions}", 4,
      {.type = 0, .config = ATOM(0), .name = "cpu_atom/cycles/", .pmu = "cpu_atom", LEAD(0)},
      {.type = 0, .config = ATOM(1), .name = "cpu_atom/instructions/", .pmu = "cpu_atom", MEMB(0)},
      {.type = 0, .config = CORE(0), .name = "cpu_core/cycles/", .pmu = "cpu_core", LEAD(1)},
      {.type = 0, .config = CORE(1), .name = "cpu_core/instructions/", .pmu = "cpu_core", MEMB(1)})
/* Events of a core PMU given otherwise (terms, raw codes) join that PMU's group. */
VALID(HYBRID, "{cycles,cpu_core/event=0xc0/,r3c}", 4,
      {.type = 0, .config = ATOM(0), .name = "cpu_atom/cycles/", .pmu = "cpu_atom", LEAD(0)},
      {.type = 0, .config = CORE(0), .name = "cpu_core/cycles/", .pmu = "cpu_core", LEAD(1)},
      PMU("cpu_core", 4, 0xc0, "cpu_core/event=0xc0/", MEMB(1)), RAW(0x3c, "r3c", MEMB(1)))
VALID(HYBRID, "{cpu_atom/event=0xc0/,instructions:u}", 3,
      PMU("cpu_atom", 10, 0xc0, "cpu_atom/event=0xc0/", LEAD(0)),
      {.type = 0, .config = ATOM(1), .name = "cpu_atom/instructions/u", .pmu = "cpu_atom", MEMB(0),
       .flags = EK | EH},
      {.type = 0, .config = CORE(1), .name = "cpu_core/instructions/u", .pmu = "cpu_core", LEAD(1),
       .flags = EK | EH})
VALID(HYBRID, "{cycles,instructions}:S", 4,
      {.type = 0, .config = ATOM(0), .name = "cpu_atom/cycles/", .pmu = "cpu_atom", LEAD(0), .ls = true},
      {.type = 0, .config = ATOM(1), .name = "cpu_atom/instructions/", .pmu = "cpu_atom", MEMB(0),
       .ls = true},
      {.type = 0, .config = CORE(0), .name = "cpu_core/cycles/", .pmu = "cpu_core", LEAD(1), .ls = true},
      {.type = 0, .config = CORE(1), .name = "cpu_core/instructions/", .pmu = "cpu_core", MEMB(1),
       .ls = true})
VALID(HYBRID, "{cycles,instructions}:D", 4,
      {.type = 0, .config = ATOM(0), .name = "cpu_atom/cycles/", .pmu = "cpu_atom", LEAD(0), .flags = PIN},
      {.type = 0, .config = ATOM(1), .name = "cpu_atom/instructions/", .pmu = "cpu_atom", MEMB(0)},
      {.type = 0, .config = CORE(0), .name = "cpu_core/cycles/", .pmu = "cpu_core", LEAD(1), .flags = PIN},
      {.type = 0, .config = CORE(1), .name = "cpu_core/instructions/", .pmu = "cpu_core", MEMB(1)})
/* Events of no core PMU stay with the first group. */
VALID(HYBRID, "{cycles,task-clock}", 3,
      {.type = 0, .config = ATOM(0), .name = "cpu_atom/cycles/", .pmu = "cpu_atom", LEAD(0)},
      SW(1, "task-clock", MEMB(0)),
      {.type = 0, .config = CORE(0), .name = "cpu_core/cycles/", .pmu = "cpu_core", LEAD(1)})
/* Group numbers after a split group continue after its groups. */
VALID(HYBRID, "{cycles},{cpu-clock}", 3,
      {.type = 0, .config = ATOM(0), .name = "cpu_atom/cycles/", .pmu = "cpu_atom", LEAD(0)},
      {.type = 0, .config = CORE(0), .name = "cpu_core/cycles/", .pmu = "cpu_core", LEAD(1)},
      SW(0, "cpu-clock", LEAD(2)))

/* -- lists: blanks may surround the commas -- */
VALID(CONTAINER, "cycles,instructions", 2, HW(0, "cycles"), HW(1, "instructions"))
VALID(CONTAINER, "cycles, instructions", 2, HW(0, "cycles"), HW(1, "instructions"))
VALID(CONTAINER, "  cycles ,\tinstructions  ", 2, HW(0, "cycles"), HW(1, "instructions"))
VALID(CONTAINER, "cycles:u, cpu-clock:k, r3c", 3, HW(0, "cycles:u", .flags = EK | EH),
      SW(0, "cpu-clock:k", .flags = EU | EH, .guest = true), RAW(0x3c, "r3c"))
VALID(CONTAINER, "task-clock,page-faults:u,sched:sched_switch,mem:0x2000/8:w", 4,
      SW(1, "task-clock"), SW(2, "page-faults:u", .flags = EK | EH),
      TP(372, "sched:sched_switch"), BP(0x2000, 8, 2, "mem:0x2000/8:w"))
/* Each hybrid event's name carries its own modifiers only. */
VALID(HYBRID, "cycles:u,instructions:k", 4, HYB(0, "cycles", "u", .flags = EK | EH),
      HYB(1, "instructions", "k", .flags = EU | EH, .guest = true))
VALID(HYBRID, "cpu_core/event=0x3c,umask=1/, power/energy-pkg/, tsc", 3,
      PMU("cpu_core", 4, 0x13c, "cpu_core/event=0x3c,umask=1/"),
      PMU("power", 11, 0x2, "power/energy-pkg/", .scale = RAPL_SCALE, .unit = "Joules"),
      PMU("msr", 12, 0x0, "msr/tsc/"))

/* -- CPU vendor names through libpfm4, for Skylake (LIBPFM_FORCE_PMU=skl) -- */
/* INST_RETIRED.ANY_P is event 0xc0, unit mask 0x00 (Intel SDM). */
VALID_PFM("INST_RETIRED:ANY_P", 1, RAW(0xc0, "INST_RETIRED:ANY_P"))
VALID_PFM("INST_RETIRED.ANY_P", 1, RAW(0xc0, "INST_RETIRED.ANY_P"))
VALID_PFM("skl::INST_RETIRED:ANY_P", 1, RAW(0xc0, "skl::INST_RETIRED:ANY_P"))
/* libpfm4's u/k name the levels to count, as perf's modifiers do. */
VALID_PFM("INST_RETIRED:ANY_P:u", 1, RAW(0xc0, "INST_RETIRED:ANY_P:u", .flags = EK | EH))
VALID_PFM("INST_RETIRED:ANY_P:k", 1, RAW(0xc0, "INST_RETIRED:ANY_P:k", .flags = EU | EH))
VALID_PFM("INST_RETIRED:ANY_P:u:k", 1, RAW(0xc0, "INST_RETIRED:ANY_P:u:k", .flags = EH))
/* cmask 1 (bits 24-31) and inv (bit 23). */
VALID_PFM("INST_RETIRED:ANY_P:c=1:i", 1, RAW(0x18000c0, "INST_RETIRED:ANY_P:c=1:i"))
/* MEM_LOAD_RETIRED.L1_HIT: event 0xd1, unit mask 0x01. */
VALID_PFM("MEM_LOAD_RETIRED.L1_HIT", 1, RAW(0x1d1, "MEM_LOAD_RETIRED.L1_HIT"))
VALID_PFM("BR_MISP_RETIRED:ALL_BRANCHES", 1, RAW(0xc5, "BR_MISP_RETIRED:ALL_BRANCHES"))
VALID_PFM("{INST_RETIRED:ANY_P,cycles}", 2, RAW(0xc0, "INST_RETIRED:ANY_P", LEAD(0)),
	  HW(0, "cycles", MEMB(0)))
/* On the hybrid machine a core event of type 4 belongs with cpu_core's group. */
VALID_AT(__LINE__, HYBRID, true, "{INST_RETIRED:ANY_P,cycles}:u", 3,
	 RAW(0xc0, "INST_RETIRED:ANY_P", LEAD(0), .flags = EK | EH),
	 {.type = 0, .config = CORE(0), .name = "cpu_core/cycles/", .pmu = "cpu_core", MEMB(0),
	  .flags = EK | EH},
	 {.type = 0, .config = ATOM(0), .name = "cpu_atom/cycles/", .pmu = "cpu_atom", LEAD(1),
	  .flags = EK | EH})

/* ---- uprobes on a function of this test ---------------------------------- */

/* A function for uprobes to resolve; its symbol is in this binary's .symtab. */
__attribute__((noinline, used)) int parse_test_target(int x);
__attribute__((noinline, used)) int parse_test_target(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 3 + 1;
}

/*
 * The file offset of code at `addr` in this executable, from /proc/self/maps
 * (the mapping's start and file offset): what a uprobe's config2 holds,
 * found without perfev's ELF reader.
 */
static uint64_t self_file_offset(const void *addr)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[1024], exe[512];
	uint64_t off = UINT64_MAX;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	cr_assert(f && n > 0);
	exe[n] = '\0';
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff;
		char path[600] = "";
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %599s", &start, &end, &pgoff, path) < 3)
			continue;
		if ((uintptr_t)addr >= start && (uintptr_t)addr < end && strcmp(path, exe) == 0) {
			off = (uintptr_t)addr - start + pgoff;
			break;
		}
	}
	fclose(f);
	cr_assert_neq(off, UINT64_MAX, "no mapping of %s holds %p", exe, addr);
	return off;
}

Test(parse, uprobe_on_a_function_of_this_binary, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_event_list *l;
	struct pev_error err;
	uint64_t off = self_file_offset((const void *)parse_test_target);

	cr_assert_eq(parse_on(CONTAINER, false, "uprobe:/proc/self/exe:parse_test_target", &l, &err),
		     0, "%s", err.message);
	cr_assert_eq(pev_event_list_count(l), 1);
	const struct pev_event_spec *s = pev_event_list_at(l, 0);
	cr_expect_eq(s->ev.type, 7);
	cr_expect_eq(s->ev.config, 0);
	cr_expect_str_eq((const char *)(uintptr_t)s->ev.config1, "/proc/self/exe");
	cr_expect_eq(s->ev.config2, off, "offset 0x%" PRIx64 ", /proc/self/maps says 0x%" PRIx64,
		     s->ev.config2, off);
	cr_expect_str_eq(s->ev.name, "uprobe:/proc/self/exe:parse_test_target");
	cr_expect_str_eq(s->pmu, "uprobe");
	pev_event_list_free(l);

	/* +OFFSET adds to the function's offset; modifiers apply. */
	cr_assert_eq(parse_on(PROBES3, false, "uretprobe:/proc/self/exe:parse_test_target+4:u", &l,
			      &err),
		     0, "%s", err.message);
	s = pev_event_list_at(l, 0);
	cr_expect_eq(s->ev.type, 9);
	cr_expect_eq(s->ev.config, 8, "retprobe is config:3 on this root");
	cr_expect_eq(s->ev.config2, off + 4);
	cr_expect(s->opts.exclude_kernel && s->opts.exclude_hv && !s->opts.exclude_user);
	pev_event_list_free(l);
}

/* ---- the list API ------------------------------------------------------------ */

Test(parse, list_api_and_arguments, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_event_list *l = (void *)1;
	struct pev_error err;
	struct pev_parse_opts o = PEV_PARSE_OPTS_INIT;

	cr_expect_eq(pev_event_list_count(NULL), PEV_EBADARG);
	cr_expect_null(pev_event_list_at(NULL, 0));
	pev_event_list_free(NULL);
	cr_expect_eq(pev_event_parse("cycles", &o, NULL, &err), PEV_EBADARG);
	cr_expect_eq(pev_event_parse(NULL, &o, &l, &err), PEV_EBADARG);
	cr_expect_null(l, "*out is cleared on failure");
	o.sz = 0;
	cr_expect_eq(pev_event_parse("cycles", &o, &l, &err), PEV_EBADARG);

	cr_assert_eq(parse_on(CONTAINER, false, "cycles,instructions", &l, &err), 0);
	cr_expect_null(pev_event_list_at(l, -1));
	cr_expect_null(pev_event_list_at(l, 2));
	cr_expect_str_eq(pev_event_list_at(l, 1)->text, "instructions");
	pev_event_list_free(l);

	/* The spec's text is the part of the input the event came from. */
	cr_assert_eq(parse_on(HYBRID, false, "{cycles:u, cpu_core/event=1/k}", &l, &err), 0);
	cr_expect_str_eq(pev_event_list_at(l, 0)->text, "cycles:u");
	cr_expect_str_eq(pev_event_list_at(l, 2)->text, "cpu_core/event=1/k");
	pev_event_list_free(l);
}

Test(parse, no_error_struct_is_fine, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_event_list *l = NULL;
	struct pev_parse_opts o = PEV_PARSE_OPTS_INIT;

	o.sysfs_root = root_path(HYBRID);
	o.tracefs = tracefs_path();
	o.no_mount = o.no_pfm = true;
	cr_expect_eq(pev_event_parse("cyles", &o, &l, NULL), PEV_ENOTFOUND);
	cr_expect_eq(pev_event_parse("cpu_core/evnt=1/", &o, &l, NULL), PEV_ENOTFOUND);
	cr_expect_eq(pev_event_parse("{cycles", &o, &l, NULL), PEV_EPARSE);
	cr_expect_null(l);
	cr_expect_eq(pev_event_parse("cycles,tsc", &o, &l, NULL), 0);
	cr_expect_eq(pev_event_list_count(l), 3);
	pev_event_list_free(l);
}

/* A PMU list handed in is used instead of reading sysfs_root. */
Test(parse, pmus_from_the_caller, .init = th_leak_init, .fini = th_leak_fini)
{
	struct pev_pmus *pmus;
	struct pev_event_list *l;
	struct pev_error err;
	struct pev_parse_opts o = PEV_PARSE_OPTS_INIT;

	cr_assert_eq(pev_pmus_read(root_path(HYBRID), &pmus, &err), 0);
	o.pmus = pmus;
	o.sysfs_root = root_path(CONTAINER); /* not read: pmus wins */
	o.tracefs = tracefs_path();
	o.no_mount = o.no_pfm = true;
	cr_assert_eq(pev_event_parse("cycles,energy-pkg", &o, &l, &err), 0, "%s", err.message);
	cr_expect_eq(pev_event_list_count(l), 3);
	cr_expect_str_eq(pev_event_list_at(l, 2)->pmu, "power");
	pev_event_list_free(l);
	pev_pmus_free(pmus);
}

/* ---- malformed strings ------------------------------------------------------- */

struct brow {
	enum root root;
	const char *text;
	bool pfm;
	int code;
	int pos, len;    /* err.position, err.length */
	const char *msg;  /* a piece of err.message */
	const char *hint; /* a piece of err.hint, or NULL */
	const char *hint2; /* another piece of err.hint, or NULL */
};

/* The message quotes the input, indented, with a caret line under the bad part. */
static void expect_caret(const struct brow *row, const struct pev_error *err)
{
	size_t n = strlen(row->text), pos = (size_t)row->pos, len = (size_t)row->len;
	char want[300];
	size_t at = 0;

	int column = 0, width = 0;

	if (n > 200)
		return;
	if (pos > n)
		pos = n;
	if (len == 0)
		len = 1;
	/* Bytes other than printable ASCII are shown as \xHH, four columns wide. */
	at += (size_t)snprintf(want + at, sizeof(want) - at, "\n    ");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)row->text[i];
		bool plain = c >= 0x20 && c < 0x7f;
		at += (size_t)(plain ? snprintf(want + at, sizeof(want) - at, "%c", c)
				     : snprintf(want + at, sizeof(want) - at, "\\x%02x", c));
		if (i < pos)
			column += plain ? 1 : 4;
		else if (i < pos + len)
			width += plain ? 1 : 4;
	}
	at += (size_t)snprintf(want + at, sizeof(want) - at, "\n    %*s^", column, "");
	for (int i = 1; i < width && at + 1 < sizeof(want); i++)
		want[at++] = '~';
	want[at] = '\0';
	cr_expect(strstr(err->message, want) != NULL, "'%s': the message should end in a caret line:"
						      "%s\n--- message:\n%s",
		  row->text, want, err->message);
	/* The caret line is the message's last line. */
	const char *tail = strstr(err->message, want);
	cr_expect(tail && tail[strlen(want)] == '\0', "'%s': text after the caret line: %s", row->text,
		  err->message);
}

static void check_bad(const struct brow *row)
{
	struct pev_event_list *l = (void *)1;
	struct pev_error err;

	if (row->pfm && !pev_pfm_available())
		th_skip("perfev was built without libpfm4");
	int r = parse_on(row->root, row->pfm, row->text, &l, &err);
	cr_assert_eq(r, row->code, "'%s': got %s (%d), expected %s\n%s\n%s", row->text,
		     pev_error_name(r), r, pev_error_name(row->code), err.message, err.hint);
	cr_expect_null(l, "'%s': *out must be NULL on failure", row->text);
	cr_expect_eq(err.code, row->code, "'%s': err.code", row->text);
	cr_expect_eq(err.position, row->pos, "'%s': position %d, expected %d\n%s", row->text,
		     err.position, row->pos, err.message);
	cr_expect_eq(err.length, row->len, "'%s': length %d, expected %d\n%s", row->text, err.length,
		     row->len, err.message);
	cr_expect(strstr(err.message, row->msg) != NULL, "'%s': expected \"%s\" in the message:\n%s",
		  row->text, row->msg, err.message);
	if (row->hint)
		cr_expect(strstr(err.hint, row->hint) != NULL, "'%s': expected \"%s\" in the hint:\n%s",
			  row->text, row->hint, err.hint);
	if (row->hint2)
		cr_expect(strstr(err.hint, row->hint2) != NULL,
			  "'%s': expected \"%s\" in the hint:\n%s", row->text, row->hint2, err.hint);
	expect_caret(row, &err);
}

#define BAD(root_, text_, code_, pos_, len_, msg_, ...) BAD_AT(__LINE__, root_, false, text_, code_, pos_, len_, msg_, __VA_ARGS__)
#define BAD_PFM(text_, code_, pos_, len_, msg_, ...)                                               \
	BAD_AT(__LINE__, CONTAINER, true, text_, code_, pos_, len_, msg_, __VA_ARGS__)
#define BAD_AT(line, root_, pfm_, text_, code_, pos_, len_, msg_, ...)                             \
	static const struct brow CAT(brow_, line) = {root_, text_, pfm_, code_, pos_, len_, msg_,  \
						     __VA_ARGS__};                                \
	Test(parse_bad, CAT(line_, line), .init = th_leak_init, .fini = th_leak_fini,              \
	     .description = text_)                                                                 \
	{                                                                                          \
		check_bad(&CAT(brow_, line));                                                      \
	}
#define NOHINT NULL, NULL

/* -- bytes a terminal would act on are shown escaped, never echoed -- */
BAD(CONTAINER, "x\x1b[31m", PEV_EPARSE, 1, 1, "unexpected character '\\x1b'", NOHINT)
BAD(CONTAINER, "cycles,\xc3\xa9-x", PEV_EPARSE, 7, 1, "unexpected character '\\xc3'", NOHINT)

/* -- tracepoint names that cannot be: the parser's words, not the library's -- */
BAD(CONTAINER, "sched:..", PEV_ENOTFOUND, 6, 2, "'..' is not a tracepoint name", NOHINT)
BAD(CONTAINER, "sched:/x", PEV_ENOTFOUND, 0, 8, "'sched:/x' is not an event", NOHINT)

/* -- unknown names: the closest known names -- */
BAD(HYBRID, "cpu-clok", PEV_ENOTFOUND, 0, 8, "unknown event 'cpu-clok'", "'cpu-clock'", NULL)
BAD(HYBRID, "cyles", PEV_ENOTFOUND, 0, 5, "unknown event 'cyles'", "'cycles'", NULL)
BAD(HYBRID, "instrutions", PEV_ENOTFOUND, 0, 11, "unknown event", "'instructions'", NULL)
BAD(CONTAINER, "L1-dcache-lod-misses", PEV_ENOTFOUND, 0, 20, "unknown event",
    "'L1-dcache-load-misses'", NULL)
BAD(CONTAINER, "cycles,taks-clock:u", PEV_ENOTFOUND, 7, 10, "unknown event 'taks-clock'",
    "'task-clock'", NULL)
BAD(CONTAINER, "L1-icache-stores", PEV_ENOTFOUND, 0, 16, "unknown event 'L1-icache-stores'",
    "perfev list", NULL)
BAD(HYBRID, "energy-pkgg", PEV_ENOTFOUND, 0, 11, "unknown event", "'energy-pkg'", NULL)
/* The container's msr PMU has no events/ directory. */
BAD(CONTAINER, "tsc", PEV_ENOTFOUND, 0, 3, "unknown event 'tsc'", "perfev list", NULL)
BAD(CONTAINER, "a", PEV_ENOTFOUND, 0, 1, "unknown event 'a'", NOHINT)
/* A misspelled name with modifiers is not taken for a tracepoint. */
BAD(CONTAINER, "cpu-clok:u", PEV_ENOTFOUND, 0, 8, "unknown event 'cpu-clok'", "'cpu-clock'", NULL)

/* -- PMUs and their terms -- */
BAD(HYBRID, "cpu_cor/event=1/", PEV_ENOTFOUND, 0, 7, "no PMU called 'cpu_cor'", "'cpu_core'",
    "bus/event_source/devices")
BAD(HYBRID, "nosuchpmu/foo/", PEV_ENOTFOUND, 0, 9, "no PMU called 'nosuchpmu'", NOHINT)
BAD(CONTAINER, "page-faults/bogus=1/", PEV_ENOTFOUND, 12, 5,
    "unknown term 'bogus' for event 'page-faults'", "terms of page-faults: config, config1", NULL)
BAD(HYBRID, "cpu_core/evnt=1/", PEV_ENOTFOUND, 9, 4, "unknown term 'evnt' for PMU 'cpu_core'",
    "did you mean 'event'",
    "terms of cpu_core: cmask, edge, event, frontend, inv, ldlat, offcore_rsp, pc, umask, config, "
    "config1, config2, config3, name, period, freq, call-graph")
BAD(HYBRID, "cpu_core/config4=1/", PEV_ENOTFOUND, 9, 7, "unknown term 'config4'", "'config1'",
    "terms of cpu_core")
BAD(HYBRID, "power/energy-pkgg/", PEV_ENOTFOUND, 6, 11, "unknown term 'energy-pkgg'",
    "'energy-pkg'", "or one of its 5 events")
BAD(HYBRID, "cpu_core/umask=0x100/", PEV_EINVAL, 15, 5, "value 0x100 does not fit in umask's 8 bits",
    "the largest value of umask is 0xff", NULL)
BAD(HYBRID, "intel_pt/mtc_period=16/", PEV_EINVAL, 20, 2, "does not fit in mtc_period's 4 bits",
    "0xf", NULL)
BAD(HYBRID, "amd_df/event=0x4000/", PEV_EINVAL, 13, 6, "does not fit in event's 14 bits",
    "the largest value of event is 0x3fff", NULL)
BAD(HYBRID, "arm_spe_0/min_latency=4096/", PEV_EINVAL, 22, 4, "min_latency's 12 bits", "0xfff",
    NULL)
BAD(HYBRID, "cpu_core/event=1", PEV_EPARSE, 8, 8, "end with '/'", NOHINT)
BAD(HYBRID, "cpu_core/event=1,,umask=1/", PEV_EPARSE, 17, 1, "empty term", NOHINT)
BAD(HYBRID, "cpu_core/event=1,/", PEV_EPARSE, 16, 1, "empty term after ','", NOHINT)
BAD(HYBRID, "cpu_core/event=zz/", PEV_EPARSE, 15, 2, "'zz' is not a number", NOHINT)
BAD(HYBRID, "cpu_core/event=/", PEV_EPARSE, 15, 1, "is not a number", NOHINT)
BAD(HYBRID, "cpu_core/event=1,call-graph=bogus/", PEV_EPARSE, 28, 5,
    "call-graph must be fp, dwarf, lbr or no", NOHINT)
BAD(HYBRID, "cpu_core/event=1,name=/", PEV_EPARSE, 17, 5, "name= needs a value", NOHINT)
BAD(HYBRID, "cpu_core/event=1,max-stack=70000/", PEV_EINVAL, 17, 15, "above 65535", NOHINT)
BAD(HYBRID, "cpu_core/event=1/x", PEV_EPARSE, 17, 1, "unknown modifier 'x'", "u (user)", NULL)
BAD(HYBRID, "cpu_core/event=0x3c/pppp", PEV_EINVAL, 23, 1, "too many 'p'", NOHINT)
BAD(HYBRID, "/event=1/", PEV_EPARSE, 0, 1, "starts with the PMU's name", NOHINT)

/* -- groups and lists -- */
BAD(CONTAINER, "{}", PEV_EPARSE, 0, 2, "empty group", NOHINT)
BAD(CONTAINER, "{ }", PEV_EPARSE, 0, 3, "empty group", NOHINT)
BAD(CONTAINER, "}", PEV_EPARSE, 0, 1, "unbalanced '}'", NOHINT)
BAD(CONTAINER, "cycles}", PEV_EPARSE, 6, 1, "unbalanced '}'", NOHINT)
BAD(CONTAINER, "{cycles", PEV_EPARSE, 0, 1, "unbalanced '{'", NOHINT)
BAD(CONTAINER, "cycles,{cycles,instructions", PEV_EPARSE, 7, 1, "unbalanced '{'", NOHINT)
BAD(CONTAINER, "{cycles,{instructions}}", PEV_EPARSE, 8, 1, "groups cannot be nested", NOHINT)
/* Left to right: the unknown name comes before the nested group. */
BAD(CONTAINER, "{a,{b}}", PEV_ENOTFOUND, 1, 1, "unknown event 'a'", NOHINT)
BAD(CONTAINER, "{cycles,}", PEV_EPARSE, 8, 1, "missing event before '}'", NOHINT)
BAD(CONTAINER, "{cycles}{instructions}", PEV_EPARSE, 8, 1, "expected ',' between events", NOHINT)
BAD(CONTAINER, "cycles{instructions}", PEV_EPARSE, 6, 1, "a group starts after a ','", NOHINT)
BAD(CONTAINER, "{cycles}:z", PEV_EPARSE, 9, 1, "unknown modifier 'z'", "modifiers are", NULL)
BAD(CONTAINER, "{cycles}:", PEV_EPARSE, 8, 1, "must be followed by modifiers", NOHINT)
BAD(CONTAINER, "{cpu-clock:ppp,task-clock}:p", PEV_EINVAL, 27, 1, "too many 'p'", NOHINT)
BAD(CONTAINER, ",", PEV_EPARSE, 0, 1, "missing event before ','", NOHINT)
BAD(CONTAINER, "cycles,", PEV_EPARSE, 7, 1, "missing event after ','", NOHINT)
BAD(CONTAINER, ",cycles", PEV_EPARSE, 0, 1, "missing event before ','", NOHINT)
BAD(CONTAINER, "cycles,,instructions", PEV_EPARSE, 7, 1, "missing event before ','", NOHINT)
BAD(CONTAINER, "cycles instructions", PEV_EPARSE, 6, 1, "unexpected character ' '",
    "separate events with ','", NULL)
BAD(CONTAINER, "", PEV_EPARSE, 0, 1, "no event given", NOHINT)
BAD(CONTAINER, "   ", PEV_EPARSE, 0, 1, "no event given", NOHINT)
BAD(CONTAINER, "cyc$les", PEV_EPARSE, 3, 1, "unexpected character '$'", NOHINT)

/* -- modifiers -- */
BAD(CONTAINER, "cycles:", PEV_EPARSE, 6, 1, "a ':' must be followed by modifiers", NOHINT)
BAD(CONTAINER, "cycles:x", PEV_EPARSE, 7, 1, "unknown modifier 'x'",
    "modifiers are u (user), k (kernel)", NULL)
BAD(CONTAINER, "cycles:pppp", PEV_EINVAL, 10, 1, "too many 'p' modifiers", NOHINT)
BAD(CONTAINER, "cycles:u:k", PEV_EPARSE, 8, 1, "modifiers follow a single ':' (write 'cycles:uk')",
    NOHINT)
BAD(CONTAINER, "r12345678901234567", PEV_EINVAL, 0, 18, "wider than 64 bits", NOHINT)

/* -- breakpoints -- */
BAD(CONTAINER, "mem:", PEV_EPARSE, 4, 1, "a breakpoint needs an address", NOHINT)
BAD(CONTAINER, "mem:zz", PEV_EPARSE, 4, 2, "a breakpoint needs an address", NOHINT)
BAD(CONTAINER, "mem:0x1000/3", PEV_EINVAL, 11, 1, "1, 2, 4 or 8 bytes", NOHINT)
BAD(CONTAINER, "mem:0x1000/", PEV_EINVAL, 11, 1, "1, 2, 4 or 8 bytes", NOHINT)
BAD(CONTAINER, "mem:0x1000:q", PEV_EPARSE, 11, 1, "made of r, w and x", NOHINT)
BAD(CONTAINER, "mem:0x1000:", PEV_EPARSE, 10, 1, "must be followed by r, w or x", NOHINT)
BAD(CONTAINER, "mem:0x1000:rwx", PEV_EINVAL, 11, 3, "an execute breakpoint (x) cannot also", NOHINT)
BAD(CONTAINER, "mem:0x1000:ww", PEV_EPARSE, 12, 1, "each once", NOHINT)
BAD(CONTAINER, "mem:0x1000:w:q", PEV_EPARSE, 13, 1, "unknown modifier 'q'", NOHINT)

/* -- tracepoints -- */
BAD(CONTAINER, "sched:sched_swich", PEV_ENOTFOUND, 6, 11, "has no event 'sched_swich'",
    "'sched:sched_switch'", NULL)
BAD(CONTAINER, "shced:sched_switch", PEV_ENOTFOUND, 0, 5, "no tracepoint system 'shced'",
    "'sched:sched_switch'", NULL)
BAD(CONTAINER, "sched:nomatch*", PEV_ENOTFOUND, 6, 8, "no tracepoint of 'sched' matches 'nomatch*'",
    NOHINT)
BAD(CONTAINER, "sched:sched_switch:q", PEV_EPARSE, 19, 1, "unknown modifier 'q'", NOHINT)

/* -- probes -- */
BAD(CONTAINER, "uprobe:/no/such/file:main", PEV_ENOENT, 7, 13, "/no/such/file", NOHINT)
BAD(CONTAINER, "uprobe:/proc/self/exe:no_such_func", PEV_ENOTFOUND, 22, 12,
    "no function 'no_such_func'", NOHINT)
BAD(CONTAINER, "uprobe:/proc/self/exe:parse_test_targte", PEV_ENOTFOUND, 22, 17,
    "no function 'parse_test_targte'", "'parse_test_target'", NULL)
BAD(CONTAINER, "uprobe:/proc/self/exe:parse_test_target+zz", PEV_EPARSE, 39, 3,
    "an offset is +NUMBER", NOHINT)
BAD(CONTAINER, "uprobe::main", PEV_EPARSE, 7, 1, "a uprobe needs a file", NOHINT)
BAD(CONTAINER, "kprobe:", PEV_EPARSE, 7, 1, "a kprobe needs a kernel function", NOHINT)
BAD(NOPMU, "kprobe:vfs_read", PEV_ENOENT, 0, 7, "this kernel has no 'kprobe' PMU",
    "CONFIG_KPROBE_EVENTS", NULL)
BAD(NOPMU, "kretprobe:vfs_read", PEV_ENOENT, 0, 10, "no 'kprobe' PMU", NOHINT)
BAD(NOPROBES, "uprobe:/proc/self/exe+0x10", PEV_ENOENT, 0, 7, "this kernel has no 'uprobe' PMU",
    "CONFIG_UPROBE_EVENTS", NULL)

/* -- CPU vendor names (libpfm4, Skylake) -- */
BAD_PFM("INST_RETRED:ANY_P", PEV_ENOTFOUND, 0, 17, "no event 'INST_RETRED'",
	"'INST_RETIRED:ANY_P'", NULL)
BAD_PFM("INST_RETIRED:BOGUS", PEV_ENOTFOUND, 0, 18, "no unit mask or modifier 'BOGUS'", "ANY_P",
	NULL)
/* perf's modifiers cannot follow a libpfm4 name: the whole text is libpfm4's. */
BAD_PFM("INST_RETIRED:ANY_P:p", PEV_ENOTFOUND, 0, 20, "no unit mask or modifier 'p'", NOHINT)
/* A misspelled generic name is not taken for a vendor name. */
BAD_PFM("L1-dcache-lod-misses", PEV_ENOTFOUND, 0, 20, "unknown event 'L1-dcache-lod-misses'",
	"'L1-dcache-load-misses'", NULL)
BAD_PFM("Cycles", PEV_ENOTFOUND, 0, 6, "unknown event 'Cycles'", "'cycles'", NULL)

/* ---- robustness -------------------------------------------------------------- */

Test(parse, longer_than_64k_is_refused, .init = th_leak_init, .fini = th_leak_fini)
{
	size_t n = 65537;
	char *s = malloc(n + 1);
	struct pev_event_list *l;
	struct pev_error err;

	cr_assert_not_null(s);
	for (size_t i = 0; i < n; i++)
		s[i] = i % 2 ? ',' : 'r';
	s[n] = '\0';
	cr_expect_eq(parse_on(CONTAINER, false, s, &l, &err), PEV_EPARSE);
	cr_expect_eq(err.position, 65536);
	expect_has(err.message, "longer than 64 KiB");
	free(s);
}

/* Many events in one string: a long list parses, each spec its own. */
Test(parse, a_long_list, .init = th_leak_init, .fini = th_leak_fini)
{
	char s[8 * 1000 + 1] = "";
	struct pev_event_list *l;
	struct pev_error err;

	for (int i = 0; i < 1000; i++)
		strcat(s, i ? ",r3c:u" : "r3c:u");
	cr_assert_eq(parse_on(CONTAINER, false, s, &l, &err), 0, "%s", err.message);
	cr_expect_eq(pev_event_list_count(l), 1000);
	cr_expect_eq(pev_event_list_at(l, 999)->ev.config, 0x3c);
	cr_expect(pev_event_list_at(l, 999)->opts.exclude_kernel);
	pev_event_list_free(l);
}

/* Every prefix of some valid strings: an error or a list, never a crash. */
Test(parse, prefixes_never_crash, .init = th_leak_init, .fini = th_leak_fini)
{
	static const char *const strings[] = {
		"{cpu_core/event=0x3c,umask=1,name=x,period=10/upp,cycles:S}:W",
		"uncore_imc/cas_count_read/,energy-pkg,sched:sched_s*:k,mem:0x1000/8:rw:u",
		"kretprobe:vfs_read+8:u,uretprobe:/proc/self/exe+0x10,r0x1c3:ppp",
	};
	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
		char buf[200];
		for (size_t n = 0; n <= strlen(strings[i]); n++) {
			struct pev_event_list *l;
			struct pev_error err;
			snprintf(buf, sizeof(buf), "%.*s", (int)n, strings[i]);
			int r = parse_on(HYBRID, false, buf, &l, &err);
			if (r == 0) {
				cr_expect_gt(pev_event_list_count(l), 0);
				pev_event_list_free(l);
			} else {
				cr_expect(err.position >= 0 && (size_t)err.position <= n,
					  "'%s': position %d", buf, err.position);
				cr_expect(strlen(err.message) > 0, "'%s': no message", buf);
			}
		}
	}
}
