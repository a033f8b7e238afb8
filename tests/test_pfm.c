/* SPDX-License-Identifier: MIT */
/*
 * test_pfm.c - CPU vendor event names through libpfm4.
 *
 * libpfm4 reads LIBPFM_FORCE_PMU and LIBPFM_ENCODE_INACTIVE once, when perfev
 * first uses it in a process. Criterion runs every test in its own process,
 * so each test sets the environment first, then calls perfev.
 *
 * The expected codes are the documented ones (Intel SDM vol. 3B, Skylake;
 * AMD PPR, family 19h): event select in bits 0-7, unit mask in 8-15, edge 18,
 * invert 23, counter mask 24-31. libpfm4 leaves the USR/OS (16, 17) and EN
 * (22) bits out of config for perf_event: the kernel sets them from
 * exclude_user/exclude_kernel and enable.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "events/pfm_internal.h"

/* Bits of a core PMU's config that perf_event, not the encoding, controls. */
#define USR_OS_EN_BITS ((1ull << 16) | (1ull << 17) | (1ull << 22))

/* Sets the environment libpfm4 reads at initialization: a forced PMU, or none. */
static void force_pmu(const char *pmu)
{
	if (!pev_pfm_available())
		th_skip("perfev was built without libpfm4");
	if (pmu && strcmp(pmu, "perf") != 0 && strcmp(pmu, "no_such_pmu") != 0)
		th_need_pfm_x86();
	if (pmu) {
		setenv("LIBPFM_FORCE_PMU", pmu, 1);
		setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	} else {
		unsetenv("LIBPFM_FORCE_PMU");
		unsetenv("LIBPFM_ENCODE_INACTIVE");
	}
}

/* Encodes name and expects success with exactly these type and config words. */
static void expect_encoding(const char *name, uint32_t type, uint64_t config, uint64_t config1)
{
	struct pev_event ev;
	struct pev_error err;
	int ret;

	memset(&ev, 0xa5, sizeof(ev));
	ret = pev_pfm_encode(name, &ev, &err);
	cr_assert_eq(ret, 0, "%s: %s (%s | %s)", name, pev_error_name(ret), err.message, err.hint);
	cr_expect_eq(ev.type, type, "%s: type %u", name, ev.type);
	cr_expect_eq(ev.config, config, "%s: config %#llx, expected %#llx", name,
	             (unsigned long long)ev.config, (unsigned long long)config);
	cr_expect_eq(ev.config1, config1, "%s: config1 %#llx, expected %#llx", name,
	             (unsigned long long)ev.config1, (unsigned long long)config1);
	cr_expect_eq(ev.config2, 0);
	cr_expect_eq(ev.config3, 0);
	cr_expect_eq(ev.bp_type, 0);
	cr_expect_null(ev.name);
	cr_expect_null(ev.pmu);
	if (type == PEV_TYPE_RAW)
		cr_expect_eq(ev.config & USR_OS_EN_BITS, 0, "%s: privilege/enable bits in config",
		             name);
}

/* Encodes name and expects the error code; err is filled for further checks. */
static void expect_error(const char *name, int code, struct pev_error *err)
{
	struct pev_event ev;
	struct pev_event untouched;
	int ret;

	memset(&ev, 0x5a, sizeof(ev));
	untouched = ev;
	ret = pev_pfm_encode(name, &ev, err);
	cr_assert_eq(ret, code, "%s: %s, expected %s (%s | %s)", name, pev_error_name(ret),
	             pev_error_name(code), err->message, err->hint);
	cr_expect_eq(err->code, code);
	cr_expect_str_eq(err->event, name);
	cr_expect_eq(memcmp(&ev, &untouched, sizeof(ev)), 0, "%s: ev changed on failure", name);
	/* Without an error struct the code is the same. */
	cr_expect_eq(pev_pfm_encode(name, &ev, NULL), code);
}

TestSuite(pfm, .init = th_leak_init, .fini = th_leak_fini);

/*
 * Events of CPUs other than this one, named with their PMU, and their raw
 * config: what LIBPFM_ENCODE_INACTIVE=1 lets libpfm4 encode. Each build of
 * libpfm4 holds its own architecture's tables.
 */
static const struct {
	const char *name;
	uint64_t config;
} inactive[] = {
#if defined(__x86_64__) || defined(__i386__)
	{"skl::INST_RETIRED:ANY_P", 0xc0},
	{"amd64_fam19h_zen3::RETIRED_INSTRUCTIONS", 0xc0},
#elif defined(__aarch64__)
	/* Armv8's architectural event 0x08, in Cortex-A57's and Neoverse N1's tables */
	{"arm_ac57::INST_RETIRED", 0x08},
	{"arm_n1::INST_RETIRED", 0x08},
#endif
};

/* Skips where no table of another CPU of this architecture is known to the test. */
static void need_inactive_tables(void)
{
	if (sizeof(inactive) == 0)
		th_skip("no event of an inactive PMU of this architecture is known to the test");
}

Test(pfm, loaded_only_when_asked_for)
{
	struct pev_event_list *list = NULL;

	/* libpfm4 is not linked: nothing loads it until a vendor name is wanted. */
	cr_expect_null(dlopen("libpfm.so.4", RTLD_LAZY | RTLD_NOLOAD));
	cr_assert_eq(pev_event_parse("task-clock,page-faults:u,sched:sched_switch", NULL, &list,
	                             NULL), 0);
	pev_event_list_free(list);
	cr_expect_null(dlopen("libpfm.so.4", RTLD_LAZY | RTLD_NOLOAD),
	               "parsing names perf knows loaded libpfm4");
	/* Asking whether vendor names can be looked up loads it, when there is one. */
	bool available = pev_pfm_available();
	void *libpfm = dlopen("libpfm.so.4", RTLD_LAZY | RTLD_NOLOAD);
	cr_expect_eq(available, libpfm != NULL);
	if (libpfm)
		dlclose(libpfm);
}

static int never_called(const char *pmu, const char *name, const char *desc, void *ctx)
{
	(void)pmu, (void)name, (void)desc, (void)ctx;
	cr_assert_fail("called without libpfm4");
	return 0;
}

Test(pfm, library_that_does_not_load)
{
	struct pev_event ev;
	struct pev_error err;

	pev__pfm_set_soname("libpfm-not-installed.so.4");
	cr_expect_not(pev_pfm_available());
	cr_expect_eq(pev_pfm_encode("INST_RETIRED:ANY_P", &ev, &err), PEV_EUNSUPPORTED);
	expect_has(err.message, "libpfm4 cannot be loaded (libpfm-not-installed.so.4");
	expect_has(err.hint, "apt install libpfm4");
	expect_has(err.hint, "r<hex>");
	cr_expect_eq(pev_pfm_foreach(never_called, NULL), PEV_EUNSUPPORTED);
}

Test(pfm, bad_arguments)
{
	struct pev_event ev;
	struct pev_error err;

	force_pmu("skl");
	cr_expect_eq(pev_pfm_encode(NULL, &ev, &err), PEV_EBADARG);
	cr_expect_str_eq(err.field, "name");
	expect_has(err.message, "pev_pfm_encode");
	cr_expect_eq(pev_pfm_encode("", &ev, &err), PEV_EBADARG);
	cr_expect_eq(pev_pfm_encode("INST_RETIRED:ANY_P", NULL, &err), PEV_EBADARG);
	cr_expect_str_eq(err.field, "ev");
	cr_expect_eq(pev_pfm_foreach(NULL, NULL), PEV_EBADARG);
}

/* ---- Skylake, forced ----------------------------------------------------- */

Test(pfm, skylake_inst_retired_any_p)
{
	force_pmu("skl");
	/* INST_RETIRED.ANY_P: event 0xc0, umask 0x00. */
	expect_encoding("INST_RETIRED:ANY_P", PEV_TYPE_RAW, 0xc0, 0);
	expect_encoding("skl::INST_RETIRED:ANY_P", PEV_TYPE_RAW, 0xc0, 0);
	/* libpfm4 matches names ignoring case, and an event alone takes its default umask. */
	expect_encoding("inst_retired:any_p", PEV_TYPE_RAW, 0xc0, 0);
	expect_encoding("INST_RETIRED", PEV_TYPE_RAW, 0xc0, 0);
}

Test(pfm, skylake_perf_dotted_spelling)
{
	force_pmu("skl");
	expect_encoding("INST_RETIRED.ANY_P", PEV_TYPE_RAW, 0xc0, 0);
	expect_encoding("MEM_LOAD_RETIRED.L3_MISS", PEV_TYPE_RAW, 0x20d1, 0);
	expect_encoding("skl::MEM_LOAD_RETIRED.L3_MISS", PEV_TYPE_RAW, 0x20d1, 0);
	expect_encoding("BR_MISP_RETIRED.ALL_BRANCHES", PEV_TYPE_RAW, 0xc5, 0);
}

Test(pfm, skylake_unit_masks)
{
	force_pmu("skl");
	/* MEM_LOAD_RETIRED.L3_MISS: event 0xd1, umask 0x20. */
	expect_encoding("MEM_LOAD_RETIRED:L3_MISS", PEV_TYPE_RAW, 0x20d1, 0);
	/* LONGEST_LAT_CACHE.MISS: event 0x2e, umask 0x41. */
	expect_encoding("LONGEST_LAT_CACHE:MISS", PEV_TYPE_RAW, 0x412e, 0);
	/* BR_INST_RETIRED.ALL_BRANCHES: 0xc4/0x00; BR_MISP_RETIRED.ALL_BRANCHES: 0xc5/0x00. */
	expect_encoding("BR_INST_RETIRED:ALL_BRANCHES", PEV_TYPE_RAW, 0xc4, 0);
	expect_encoding("BR_MISP_RETIRED:ALL_BRANCHES", PEV_TYPE_RAW, 0xc5, 0);
	/* CPU_CLK_UNHALTED.THREAD_P (an alias of CPU_CLK_THREAD_UNHALTED): 0x3c/0x00. */
	expect_encoding("CPU_CLK_UNHALTED:THREAD_P", PEV_TYPE_RAW, 0x3c, 0);
	/* CYCLE_ACTIVITY.STALLS_L3_MISS: 0xa3, umask 0x06, counter mask 6. */
	expect_encoding("CYCLE_ACTIVITY:STALLS_L3_MISS", PEV_TYPE_RAW, 0x60006a3, 0);
}

Test(pfm, skylake_libpfm_modifiers_and_extra_registers)
{
	force_pmu("skl");
	/* UOPS_ISSUED.ANY (0x0e/0x01) with cmask 1 (bit 24) and invert (bit 23). */
	expect_encoding("UOPS_ISSUED:ANY:c=1:i", PEV_TYPE_RAW, 0x180010e, 0);
	/* Load latency: MEM_TRANS_RETIRED.LOAD_LATENCY (0xcd/0x01), threshold in config1. */
	expect_encoding("MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=3", PEV_TYPE_RAW, 0x1cd, 3);
	/* Offcore response (0xb7/0x01): the request/response mask goes to config1. */
	expect_encoding("OFFCORE_RESPONSE_0:DMND_DATA_RD:L3_MISS_LOCAL", PEV_TYPE_RAW, 0x1b7,
	                0x3f84000001ull);
	/* u=1:k=1 asks for every level, which a pev_event expresses by default. */
	expect_encoding("INST_RETIRED:ANY_P:u=1:k=1", PEV_TYPE_RAW, 0xc0, 0);
}

Test(pfm, skylake_unknown_event_suggests_close_names)
{
	struct pev_error err;

	force_pmu("skl");
	expect_error("INST_RETIRD:ANY_P", PEV_ENOTFOUND, &err);
	expect_has(err.message, "INST_RETIRD");
	expect_has(err.message, "skl (Intel Skylake)");
	expect_has(err.hint, "did you mean 'INST_RETIRED:ANY_P'");

	expect_error("MEM_LOAD_RETIRD", PEV_ENOTFOUND, &err);
	expect_has(err.hint, "'MEM_LOAD_RETIRED'");

	expect_error("skl::INST_RETIRD", PEV_ENOTFOUND, &err);
	expect_has(err.hint, "'skl::INST_RETIRED'");

	expect_error("NO_SUCH_THING_AT_ALL", PEV_ENOTFOUND, &err);
	expect_lacks(err.hint, "did you mean");
	expect_has(err.hint, "INST_RETIRED:ANY_P");
}

Test(pfm, skylake_unknown_unit_mask_suggests_the_events_own)
{
	struct pev_error err;

	force_pmu("skl");
	/* perf's INST_RETIRED.ANY is the fixed counter; libpfm4's general one is ANY_P. */
	expect_error("INST_RETIRED:ANY", PEV_ENOTFOUND, &err);
	expect_has(err.message, "no unit mask or modifier 'ANY'");
	expect_has(err.hint, "did you mean 'INST_RETIRED:ANY_P'");
	expect_has(err.hint, "its unit masks: ANY_P");

	expect_error("INST_RETIRED.ANY", PEV_ENOTFOUND, &err);
	expect_has(err.hint, "'INST_RETIRED:ANY_P'");

	expect_error("MEM_LOAD_RETIRED:L3_MISSES", PEV_ENOTFOUND, &err);
	expect_has(err.hint, "'MEM_LOAD_RETIRED:L3_MISS'");
}

Test(pfm, skylake_event_that_needs_a_unit_mask)
{
	struct pev_error err;

	force_pmu("skl");
	expect_error("MEM_LOAD_RETIRED", PEV_ENOTFOUND, &err);
	expect_has(err.message, "needs a unit mask");
	expect_has(err.hint, "L3_MISS");
}

Test(pfm, skylake_bad_modifier_values)
{
	struct pev_error err;

	force_pmu("skl");
	expect_error("UOPS_ISSUED:ANY:c=300", PEV_EINVAL, &err);
	expect_has(err.message, "invalid event attribute value");
	expect_error("INST_RETIRED:ANY_P:c=1:c=2", PEV_EINVAL, &err);
	expect_error("INST_RETIRED:ANY_P:PREC_DIST", PEV_EINVAL, &err);
}

Test(pfm, libpfm_privilege_modifiers_are_refused_not_dropped)
{
	struct pev_error err;

	force_pmu("skl");
	/* A pev_event has no exclude_* bits: ":u" inside the libpfm4 name would be lost. */
	expect_error("INST_RETIRED:ANY_P:u", PEV_EPARSE, &err);
	cr_expect_str_eq(err.field, "modifier");
	expect_has(err.hint, "exclude_kernel");
	expect_error("INST_RETIRED:ANY_P:k=0", PEV_EPARSE, &err);
	/* perf_event's own attributes are perfev's to set. */
	expect_error("INST_RETIRED:ANY_P:precise=2", PEV_ENOTFOUND, &err);
	expect_has(err.hint, "perfev sets 'precise' itself");
}

Test(pfm, forced_pmu_limits_libpfm_to_it)
{
	struct pev_error err;

	force_pmu("skl");
	unsetenv("LIBPFM_ENCODE_INACTIVE");
	expect_error("icl::INST_RETIRED:ANY_P", PEV_ENOTFOUND, &err);
	expect_has(err.message, "forced to PMU skl");
	expect_has(err.hint, "leave out 'icl::'");
	expect_has(err.hint, "LIBPFM_ENCODE_INACTIVE=1");
	expect_error("nosuchpmu::INST_RETIRED:ANY_P", PEV_ENOTFOUND, &err);
}

/* ---- Ice Lake: perf's INST_RETIRED.ANY exists there ------------------------- */

Test(pfm, icelake_fixed_counter_pseudo_encoding)
{
	force_pmu("icl");
	/* INST_RETIRED.ANY counts on fixed counter 0: pseudo-encoding event 0x00, umask 0x01. */
	expect_encoding("INST_RETIRED:ANY", PEV_TYPE_RAW, 0x100, 0);
	expect_encoding("INST_RETIRED.ANY", PEV_TYPE_RAW, 0x100, 0);
	expect_encoding("INST_RETIRED:ANY_P", PEV_TYPE_RAW, 0xc0, 0);
	expect_encoding("MEM_LOAD_RETIRED.L3_MISS", PEV_TYPE_RAW, 0x20d1, 0);
}

/* ---- another CPU: AMD Zen 3 ------------------------------------------------ */

Test(pfm, zen3_events)
{
	struct pev_error err;

	force_pmu("amd64_fam19h_zen3");
	/* PPR 19h: Retired Instructions 0xc0, Retired Branch Instructions 0xc2, cycles 0x76. */
	expect_encoding("RETIRED_INSTRUCTIONS", PEV_TYPE_RAW, 0xc0, 0);
	expect_encoding("RETIRED_BRANCH_INSTRUCTIONS", PEV_TYPE_RAW, 0xc2, 0);
	expect_encoding("CYCLES_NOT_IN_HALT", PEV_TYPE_RAW, 0x76, 0);
	expect_encoding("amd64_fam19h_zen3::RETIRED_INSTRUCTIONS", PEV_TYPE_RAW, 0xc0, 0);
	/* An Intel name is not an AMD one. */
	expect_error("INST_RETIRED:ANY_P", PEV_ENOTFOUND, &err);
	expect_has(err.message, "amd64_fam19h_zen3");
}

/* ---- no CPU PMU ------------------------------------------------------------ */

static int count_name(const char *pmu, const char *name, const char *desc, void *ctx)
{
	(void)pmu;
	(void)name;
	(void)desc;
	(*(int *)ctx)++;
	return 0;
}

Test(pfm, forced_pmu_unknown_to_libpfm_is_unsupported)
{
	struct pev_error err;

	force_pmu("no_such_pmu");
	expect_error("INST_RETIRED:ANY_P", PEV_EUNSUPPORTED, &err);
	expect_has(err.message, "LIBPFM_FORCE_PMU=no_such_pmu");
	expect_has(err.hint, "LIBPFM_FORCE_PMU=<pmu> LIBPFM_ENCODE_INACTIVE=1");
	cr_expect_eq(pev_pfm_foreach(count_name, &(int){0}), PEV_EUNSUPPORTED);
}

Test(pfm, only_generic_pmus_is_unsupported)
{
	struct pev_error err;
	int n = 0;

	/* libpfm4's "perf" PMU only knows perf's generic events: no CPU tables. */
	force_pmu("perf");
	expect_error("INST_RETIRED:ANY_P", PEV_EUNSUPPORTED, &err);
	expect_has(err.message, "not a CPU PMU");
	expect_has(err.hint, "LIBPFM_ENCODE_INACTIVE=1");
	cr_expect_eq(pev_pfm_foreach(count_name, &n), PEV_EUNSUPPORTED);
	cr_expect_eq(n, 0);
	/* LIBPFM_ENCODE_INACTIVE=1 (set by force_pmu) still encodes a name with its PMU. */
	need_inactive_tables();
	expect_encoding(inactive[0].name, PEV_TYPE_RAW, inactive[0].config, 0);
}

/* ---- this machine, nothing forced ------------------------------------------ */

/* Reads "vendor_id : X" from /proc/cpuinfo, or "" (not x86). */
static void cpu_vendor(char *buf, size_t size)
{
	char line[256];
	FILE *f = fopen("/proc/cpuinfo", "re");

	buf[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "vendor_id", 9) == 0) {
			char *v = strchr(line, ':');
			if (v)
				snprintf(buf, size, "%.*s", (int)strcspn(v + 2, "\n"), v + 2);
			break;
		}
	fclose(f);
}

Test(pfm, this_machine_names_its_cpu_or_knows_its_events)
{
	struct pev_error err;
	char vendor[64];
	int n = 0, ret;

	force_pmu(NULL);
	ret = pev_pfm_foreach(count_name, &n);
	if (ret == PEV_EUNSUPPORTED) {
		/* libpfm4 has no table for this CPU: the error names it and how to force one. */
		expect_error("INST_RETIRED:ANY_P", PEV_EUNSUPPORTED, &err);
		cpu_vendor(vendor, sizeof(vendor));
		if (vendor[0])
			expect_has(err.message, vendor);
		expect_has(err.message, "no event table for this CPU");
		expect_has(err.hint, "LIBPFM_FORCE_PMU=<pmu> LIBPFM_ENCODE_INACTIVE=1");
		return;
	}
	/* libpfm4 knows this CPU (a VM with no PMU still reports its model). */
	cr_expect_gt(ret, 0);
	cr_expect_eq(ret, n);
	expect_error("NO_SUCH_EVENT_ANYWHERE", PEV_ENOTFOUND, &err);
	expect_has(err.message, "libpfm4's tables for");
}

Test(pfm, generic_perf_names_point_to_perfs_name)
{
	struct pev_error err;

	force_pmu(NULL);
	if (pev_pfm_foreach(count_name, &(int){0}) == PEV_EUNSUPPORTED)
		th_skip("libpfm4 knows no PMU of this CPU");
	/* libpfm4's own generic PMU "perf" knows these; perfev leaves them to perf's names. */
	expect_error("PERF_COUNT_HW_CPU_CYCLES", PEV_ENOTFOUND, &err);
	expect_has(err.hint, "cycles");
	expect_error("perf::PERF_COUNT_HW_INSTRUCTIONS", PEV_ENOTFOUND, &err);
	expect_has(err.hint, "instructions");
}

static int find_skl(const char *pmu, const char *name, const char *desc, void *ctx)
{
	(void)name;
	(void)desc;
	if (strcmp(pmu, "skl") == 0)
		*(bool *)ctx = true;
	return 0;
}

Test(pfm, inactive_pmu_needs_encode_inactive)
{
	struct pev_error err;
	bool skl_here = false;

	force_pmu(NULL);
	if (pev_pfm_foreach(find_skl, &skl_here) == PEV_EUNSUPPORTED)
		th_skip("libpfm4 knows no PMU of this CPU");
	if (skl_here)
		th_skip("this CPU is a Skylake");
	expect_error("skl::INST_RETIRED:ANY_P", PEV_ENOTFOUND, &err);
	expect_has(err.message, "not this machine's");
	expect_has(err.hint, "LIBPFM_ENCODE_INACTIVE=1");
}

Test(pfm, encode_inactive_encodes_for_a_named_pmu)
{
	force_pmu(NULL);
	need_inactive_tables();
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	for (size_t i = 0; i < sizeof(inactive) / sizeof(inactive[0]); i++)
		expect_encoding(inactive[i].name, PEV_TYPE_RAW, inactive[i].config, 0);
}

/* ---- listing --------------------------------------------------------------- */

struct listing {
	int n;
	int not_skl;
	bool inst_retired_any_p;
	bool l3_miss;
	bool empty_description;
	int stop_after;
};

static int collect(const char *pmu, const char *name, const char *desc, void *ctx)
{
	struct listing *l = ctx;

	l->n++;
	if (strcmp(pmu, "skl") != 0)
		l->not_skl++;
	if (strcmp(name, "INST_RETIRED:ANY_P") == 0)
		l->inst_retired_any_p = true;
	if (strcmp(name, "MEM_LOAD_RETIRED:L3_MISS") == 0)
		l->l3_miss = true;
	if (!desc || !*desc)
		l->empty_description = true;
	return l->stop_after && l->n == l->stop_after ? 7 : 0;
}

Test(pfm, foreach_lists_every_event_and_unit_mask)
{
	struct listing l = {0};
	int ret;

	force_pmu("skl");
	ret = pev_pfm_foreach(collect, &l);
	cr_expect_gt(ret, 100);
	cr_expect_eq(ret, l.n);
	cr_expect_eq(l.not_skl, 0);
	cr_expect(l.inst_retired_any_p);
	cr_expect(l.l3_miss);
	cr_expect_not(l.empty_description);
}

Test(pfm, foreach_stops_when_the_callback_says_so)
{
	struct listing l = {.stop_after = 5};

	force_pmu("skl");
	cr_expect_eq(pev_pfm_foreach(collect, &l), 7);
	cr_expect_eq(l.n, 5);
}

struct names {
	char (*name)[128];
	int n, cap;
};

static int keep_name(const char *pmu, const char *name, const char *desc, void *ctx)
{
	struct names *k = ctx;

	(void)pmu;
	(void)desc;
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 256;
		k->name = realloc(k->name, (size_t)k->cap * sizeof(*k->name));
		cr_assert_not_null(k->name);
	}
	snprintf(k->name[k->n++], sizeof(k->name[0]), "%s", name);
	return 0;
}

/* Every name pev_pfm_foreach gives encodes to a raw event of that CPU. */
static void expect_listed_names_encode(const char *pmu)
{
	struct names k = {0};
	struct pev_event ev;
	struct pev_error err;

	force_pmu(pmu);
	cr_assert_gt(pev_pfm_foreach(keep_name, &k), 10);
	for (int i = 0; i < k.n; i++) {
		int ret = pev_pfm_encode(k.name[i], &ev, &err);
		cr_expect_eq(ret, 0, "%s: %s (%s)", k.name[i], pev_error_name(ret), err.message);
		if (ret == 0)
			cr_expect_eq(ev.type, PEV_TYPE_RAW, "%s", k.name[i]);
	}
	free(k.name);
}

Test(pfm, every_listed_skylake_name_encodes)
{
	expect_listed_names_encode("skl");
}

Test(pfm, every_listed_zen3_name_encodes)
{
	expect_listed_names_encode("amd64_fam19h_zen3");
}

/* ---- threads ----------------------------------------------------------------- */

static void *encode_many(void *arg)
{
	struct pev_event ev;
	int *bad = arg;

	for (int i = 0; i < 200; i++) {
		if (pev_pfm_encode("MEM_LOAD_RETIRED:L3_MISS", &ev, NULL) != 0 ||
		    ev.config != 0x20d1)
			(*bad)++;
		if (pev_pfm_encode("INST_RETIRED.ANY_P", &ev, NULL) != 0 || ev.config != 0xc0)
			(*bad)++;
	}
	return NULL;
}

Test(pfm, threads_share_one_initialization)
{
	pthread_t t[4];
	int bad[4] = {0};

	force_pmu("skl");
	for (int i = 0; i < 4; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, encode_many, &bad[i]), 0);
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		cr_expect_eq(bad[i], 0, "thread %d: %d bad encodings", i, bad[i]);
	}
}
