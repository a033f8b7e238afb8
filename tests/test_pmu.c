/* SPDX-License-Identifier: MIT */
/*
 * test_pmu.c - PMU discovery from sysfs (perfev/pmu.h): the fake trees
 * tests/fixtures/sysfs-pmus (a rich, realistic machine) and
 * tests/fixtures/sysfs-broken (every kind of malformed file), trees built at
 * run time (FIFOs, unreadable files, huge directories, a comma-decimal
 * locale), the format helpers, and this machine's own /sys.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"

#define TEST_PMU(name, ...)                                                                        \
	Test(pmu, name, .init = th_leak_init, .fini = th_leak_fini, ##__VA_ARGS__)

/* ---- helpers ----------------------------------------------------------- */

static char root_buf[PATH_MAX];

static const char *fixture(const char *name)
{
	snprintf(root_buf, sizeof(root_buf), "%s/%s", th_fixtures(), name);
	return root_buf;
}

static struct pev_pmus *read_ok(const char *root)
{
	struct pev_pmus *pmus = NULL;
	struct pev_error err;
	int r = pev_pmus_read(root, &pmus, &err);

	cr_assert_eq(r, 0, "pev_pmus_read(%s) = %d (%s): %s", root ? root : "NULL", r,
		     pev_error_name(r), err.message);
	cr_assert_not_null(pmus);
	return pmus;
}

static struct pev_pmus *read_fixture(void)
{
	return read_ok(fixture("sysfs-pmus"));
}

static const struct pev_pmu *must_find(const struct pev_pmus *pmus, const char *name)
{
	const struct pev_pmu *p = pev_pmus_find(pmus, name);

	cr_assert_not_null(p, "PMU %s not found", name);
	cr_assert_str_eq(p->name, name);
	return p;
}

static const struct pev_pmu_format *must_format(const struct pev_pmu *p, const char *name)
{
	const struct pev_pmu_format *f = pev_pmu_format(p, name);

	cr_assert_not_null(f, "format %s/%s not found", p->name, name);
	cr_assert_str_eq(f->name, name);
	return f;
}

static const struct pev_pmu_alias *must_alias(const struct pev_pmu *p, const char *name)
{
	const struct pev_pmu_alias *a = pev_pmu_alias(p, name);

	cr_assert_not_null(a, "alias %s/%s not found", p->name, name);
	return a;
}

/* Expects format `name` of p to be word:lo-hi[,lo-hi...] (up to three ranges) of `bits` bits. */
static void expect_format(const struct pev_pmu *p, const char *name, int word, int bits,
			  int nr_ranges, int lo0, int hi0, int lo1, int hi1, int lo2, int hi2)
{
	const struct pev_pmu_format *f = must_format(p, name);
	const int lo[3] = {lo0, lo1, lo2}, hi[3] = {hi0, hi1, hi2};

	cr_expect_eq(f->word, word, "%s/%s word", p->name, name);
	cr_expect_eq(f->bits, bits, "%s/%s bits", p->name, name);
	cr_assert_eq(f->nr_ranges, nr_ranges, "%s/%s ranges", p->name, name);
	for (int i = 0; i < nr_ranges && i < 3; i++) {
		cr_expect_eq(f->ranges[i].lo, lo[i], "%s/%s range %d lo", p->name, name, i);
		cr_expect_eq(f->ranges[i].hi, hi[i], "%s/%s range %d hi", p->name, name, i);
	}
}

#define FMT1(p, name, word, lo, hi) expect_format(p, name, word, (hi) - (lo) + 1, 1, lo, hi, 0, 0, 0, 0)

static void expect_alias(const struct pev_pmu *p, const char *name, const char *terms,
			 double scale, const char *unit)
{
	const struct pev_pmu_alias *a = must_alias(p, name);

	cr_expect_str_eq(a->name, name);
	cr_expect_str_eq(a->terms, terms, "%s/%s terms", p->name, name);
	cr_expect_eq(a->scale, scale, "%s/%s scale %.17g, expected %.17g", p->name, name, a->scale,
		     scale);
	cr_expect_str_eq(a->unit, unit, "%s/%s unit", p->name, name);
}

/* A private directory tree under /tmp, removed by tree_remove. */
static void tree_new(char *dir, size_t size)
{
	snprintf(dir, size, "/tmp/perfev-pmu-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(chmod(dir, 0755), 0);
}

static void tree_mkdirs(const char *dir, const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (char *p = path + strlen(dir) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		cr_assert(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", path,
			  strerror(errno));
		*p = '/';
	}
}

/* Writes dir/rel (its directories must exist). */
static void tree_write_file(const char *dir, const char *rel, const char *text)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	cr_assert_geq(fd, 0, "create %s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* Writes dir/rel, creating its directories. */
static void tree_write(const char *dir, const char *rel, const char *text)
{
	tree_mkdirs(dir, rel);
	tree_write_file(dir, rel, text);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void tree_remove(const char *dir)
{
	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- the fixture: which PMUs, their types and CPUs -------------------- */

static const char *const fixture_names[] = {
	"amd_df",   "arm_spe_0", "breakpoint", "cpu_atom",     "cpu_core",     "intel_cqm",
	"intel_pt", "kprobe",    "msr",        "power",        "software",     "tracepoint",
	"uncore_imc_0", "uncore_imc_1", "uprobe",
};

static const struct {
	const char *name;
	uint32_t type;
	bool core;
	const char *cpus;
	bool per_cpu_only;
	int max_precise;
} fixture_pmus[] = {
	{"amd_df", 15, false, "0", true, -1},
	{"arm_spe_0", 16, false, "", false, -1},
	{"breakpoint", 5, false, "", false, -1},
	{"cpu_atom", 10, true, "8-15", false, 3},
	{"cpu_core", 4, true, "0-7", false, 3},
	{"intel_cqm", 17, false, "0,8", true, -1},
	{"intel_pt", 9, false, "", false, -1},
	{"kprobe", 6, false, "", false, -1},
	{"msr", 12, false, "", false, -1},
	{"power", 11, false, "0", true, -1},
	{"software", 1, false, "", false, -1},
	{"tracepoint", 2, false, "", false, -1},
	{"uncore_imc_0", 13, false, "0", true, -1},
	{"uncore_imc_1", 14, false, "0", true, -1},
	{"uprobe", 8, false, "", false, -1},
};

TEST_PMU(fixture_lists_every_pmu_sorted_by_name)
{
	struct pev_pmus *pmus = read_fixture();
	int n = (int)(sizeof(fixture_names) / sizeof(fixture_names[0]));

	cr_assert_eq(pev_pmus_count(pmus), n);
	for (int i = 0; i < n; i++) {
		const struct pev_pmu *p = pev_pmus_at(pmus, i);
		cr_assert_not_null(p);
		cr_expect_str_eq(p->name, fixture_names[i], "PMU %d", i);
		cr_expect_eq(pev_pmus_find(pmus, fixture_names[i]), p);
	}
	pev_pmus_free(pmus);
}

TEST_PMU(fixture_types_core_flags_cpus_and_precision)
{
	struct pev_pmus *pmus = read_fixture();

	for (size_t i = 0; i < sizeof(fixture_pmus) / sizeof(fixture_pmus[0]); i++) {
		const struct pev_pmu *p = must_find(pmus, fixture_pmus[i].name);
		cr_expect_eq(p->type, fixture_pmus[i].type, "%s type", p->name);
		cr_expect_eq(p->core, fixture_pmus[i].core, "%s core", p->name);
		cr_expect_str_eq(p->cpus, fixture_pmus[i].cpus, "%s cpus", p->name);
		cr_expect_eq(p->per_cpu_only, fixture_pmus[i].per_cpu_only, "%s per_cpu_only",
			     p->name);
		cr_expect_eq(p->max_precise, fixture_pmus[i].max_precise, "%s max_precise",
			     p->name);
		cr_expect_eq(pev_pmus_find_type(pmus, fixture_pmus[i].type), p, "%s by type",
			     p->name);
	}
	pev_pmus_free(pmus);
}

TEST_PMU(fixture_is_a_hybrid_machine)
{
	struct pev_pmus *pmus = read_fixture();

	cr_expect_eq(pev_pmus_core_count(pmus), 2);
	cr_expect(must_find(pmus, "cpu_core")->core);
	cr_expect(must_find(pmus, "cpu_atom")->core, "a cpus file makes a core PMU, whatever its type");
	cr_expect_null(pev_pmus_find(pmus, "cpu"));
	pev_pmus_free(pmus);
}

/* ---- formats ----------------------------------------------------------- */

TEST_PMU(fixture_core_formats)
{
	struct pev_pmus *pmus = read_fixture();
	const struct pev_pmu *p = must_find(pmus, "cpu_core");
	static const char *const sorted[] = {"cmask", "edge",        "event", "frontend", "inv",
					     "ldlat", "offcore_rsp", "pc",    "umask"};

	cr_assert_eq(p->nr_formats, 9);
	for (int i = 0; i < 9; i++)
		cr_expect_str_eq(p->formats[i].name, sorted[i], "format %d", i);
	FMT1(p, "event", 0, 0, 7);
	FMT1(p, "umask", 0, 8, 15);
	FMT1(p, "edge", 0, 18, 18);
	FMT1(p, "pc", 0, 19, 19);
	FMT1(p, "inv", 0, 23, 23);
	FMT1(p, "cmask", 0, 24, 31);
	FMT1(p, "ldlat", 1, 0, 15);
	FMT1(p, "frontend", 1, 0, 23);
	FMT1(p, "offcore_rsp", 1, 0, 63);
	cr_expect_null(pev_pmu_format(p, "frontend2"));
	cr_expect_null(pev_pmu_format(p, "EVENT"), "format names are case-sensitive");

	p = must_find(pmus, "cpu_atom");
	cr_expect_eq(p->nr_formats, 8);
	FMT1(p, "event", 0, 0, 7);
	FMT1(p, "offcore_rsp", 1, 0, 63);
	cr_expect_null(pev_pmu_format(p, "frontend"));
	pev_pmus_free(pmus);
}

TEST_PMU(fixture_split_and_high_word_formats)
{
	struct pev_pmus *pmus = read_fixture();
	const struct pev_pmu *df = must_find(pmus, "amd_df");
	const struct pev_pmu *spe = must_find(pmus, "arm_spe_0");

	cr_expect_eq(df->nr_formats, 2);
	expect_format(df, "event", 0, 14, 3, 0, 7, 32, 35, 59, 60);
	FMT1(df, "umask", 0, 8, 15);

	cr_expect_eq(spe->nr_formats, 10);
	FMT1(spe, "ts_enable", 0, 0, 0);
	FMT1(spe, "pa_enable", 0, 1, 1);
	FMT1(spe, "pct_enable", 0, 2, 2);
	FMT1(spe, "jitter", 0, 16, 16);
	FMT1(spe, "branch_filter", 0, 32, 32);
	FMT1(spe, "load_filter", 0, 33, 33);
	FMT1(spe, "store_filter", 0, 34, 34);
	FMT1(spe, "event_filter", 1, 0, 63);
	FMT1(spe, "min_latency", 2, 0, 11);
	FMT1(spe, "inv_event_filter", 3, 0, 63);
	cr_expect_eq(spe->nr_aliases, 0);
	pev_pmus_free(pmus);
}

TEST_PMU(fixture_intel_pt_and_probe_formats)
{
	struct pev_pmus *pmus = read_fixture();
	const struct pev_pmu *pt = must_find(pmus, "intel_pt");
	const struct pev_pmu *p;

	cr_expect_eq(pt->nr_formats, 14);
	FMT1(pt, "pt", 0, 0, 0);
	FMT1(pt, "cyc", 0, 1, 1);
	FMT1(pt, "tsc", 0, 10, 10);
	FMT1(pt, "noretcomp", 0, 11, 11);
	FMT1(pt, "branch", 0, 13, 13);
	FMT1(pt, "mtc_period", 0, 14, 17);
	FMT1(pt, "cyc_thresh", 0, 19, 22);
	FMT1(pt, "psb_period", 0, 24, 27);
	FMT1(pt, "notnt", 0, 55, 55);
	cr_expect_eq(pt->nr_aliases, 0);
	cr_expect_null(pev_pmu_alias(pt, "cycles"));
	cr_expect_eq(pt->max_precise, -1, "caps/ without max_precise");

	p = must_find(pmus, "uprobe");
	cr_expect_eq(p->nr_formats, 2);
	FMT1(p, "retprobe", 0, 0, 0);
	FMT1(p, "ref_ctr_offset", 0, 32, 63);
	p = must_find(pmus, "kprobe");
	cr_expect_eq(p->nr_formats, 1);
	FMT1(p, "retprobe", 0, 0, 0);
	p = must_find(pmus, "msr");
	FMT1(p, "event", 0, 0, 63);

	for (const char *const *n = (const char *const[]){"software", "tracepoint", "breakpoint", NULL};
	     *n; n++) {
		p = must_find(pmus, *n);
		cr_expect_eq(p->nr_formats, 0, "%s", *n);
		cr_expect_eq(p->nr_aliases, 0, "%s", *n);
		cr_expect_null(pev_pmu_format(p, "event"));
	}
	pev_pmus_free(pmus);
}

/* ---- aliases ----------------------------------------------------------- */

TEST_PMU(fixture_core_aliases)
{
	struct pev_pmus *pmus = read_fixture();
	const struct pev_pmu *p = must_find(pmus, "cpu_core");

	cr_assert_eq(p->nr_aliases, 15);
	for (int i = 1; i < p->nr_aliases; i++)
		cr_expect_lt(strcmp(p->aliases[i - 1].name, p->aliases[i].name), 0,
			     "aliases sorted: %s before %s", p->aliases[i - 1].name,
			     p->aliases[i].name);
	expect_alias(p, "cycles", "event=0x3c", 1.0, "");
	expect_alias(p, "instructions", "event=0xc0", 1.0, "");
	expect_alias(p, "cache-misses", "event=0x2e,umask=0x41", 1.0, "");
	expect_alias(p, "mem-loads", "event=0xcd,umask=0x1,ldlat=3", 1.0, "");
	expect_alias(p, "topdown-retiring", "event=0x00,umask=0x80", 1.0, "");
	expect_alias(p, "ref-cycles", "event=0x00,umask=0x03", 1.0, "");
	cr_expect_not(must_alias(p, "cycles")->per_pkg);
	cr_expect_not(must_alias(p, "cycles")->snapshot);

	p = must_find(pmus, "cpu_atom");
	cr_expect_eq(p->nr_aliases, 5);
	expect_alias(p, "cycles", "event=0x3c", 1.0, "");
	expect_alias(p, "instructions", "event=0xc0", 1.0, "");
	expect_alias(p, "mem-loads", "event=0xd0,umask=0x5,ldlat=3", 1.0, "");
	expect_alias(p, "topdown-retiring", "event=0xc2,umask=0x0", 1.0, "");
	cr_expect_null(pev_pmu_alias(p, "cache-misses"));
	pev_pmus_free(pmus);
}

TEST_PMU(fixture_scaled_aliases)
{
	struct pev_pmus *pmus = read_fixture();
	const struct pev_pmu *p = must_find(pmus, "power");
	const double joule = 2.3283064365386962890625e-10; /* 2^-32 */

	cr_expect_eq(p->nr_aliases, 5, "the .scale and .unit files are not aliases");
	expect_alias(p, "energy-pkg", "event=0x02", joule, "Joules");
	expect_alias(p, "energy-cores", "event=0x01", joule, "Joules");
	expect_alias(p, "energy-ram", "event=0x03", joule, "Joules");
	expect_alias(p, "energy-gpu", "event=0x04", joule, "Joules");
	expect_alias(p, "energy-psys", "event=0x05", joule, "Joules");
	cr_expect_null(pev_pmu_alias(p, "energy-pkg.scale"));
	cr_expect_null(pev_pmu_alias(p, "energy-pkg.unit"));

	for (const char *const *n = (const char *const[]){"uncore_imc_0", "uncore_imc_1", NULL}; *n;
	     n++) {
		p = must_find(pmus, *n);
		cr_expect_eq(p->nr_aliases, 3, "%s", *n);
		expect_alias(p, "cas_count_read", "event=0x04,umask=0x0f", 6.103515625e-5, "MiB");
		expect_alias(p, "cas_count_write", "event=0x04,umask=0x30", 6.103515625e-5, "MiB");
		expect_alias(p, "clockticks", "event=0x00,umask=0x00", 1.0, "");
		expect_format(p, "event", 0, 8, 1, 0, 7, 0, 0, 0, 0);
		expect_format(p, "thresh", 0, 8, 1, 24, 31, 0, 0, 0, 0);
	}
	pev_pmus_free(pmus);
}

TEST_PMU(fixture_msr_and_flag_aliases)
{
	struct pev_pmus *pmus = read_fixture();
	const struct pev_pmu *p = must_find(pmus, "msr");
	const struct pev_pmu_alias *a;

	cr_expect_eq(p->nr_aliases, 8);
	expect_alias(p, "tsc", "event=0x00", 1.0, "");
	expect_alias(p, "aperf", "event=0x01", 1.0, "");
	expect_alias(p, "smi", "event=0x04", 1.0, "");
	a = must_alias(p, "cpu_thermal_margin");
	cr_expect_str_eq(a->terms, "event=0x07");
	cr_expect_str_eq(a->unit, "C");
	cr_expect(a->snapshot);
	cr_expect_not(a->per_pkg);
	cr_expect_not(must_alias(p, "tsc")->snapshot);

	p = must_find(pmus, "intel_cqm");
	cr_expect_eq(p->nr_aliases, 2);
	a = must_alias(p, "llc_occupancy");
	cr_expect(a->per_pkg);
	cr_expect(a->snapshot);
	cr_expect_eq(a->scale, 1.0);
	cr_expect_str_eq(a->unit, "Bytes");
	a = must_alias(p, "total_bytes");
	cr_expect(a->per_pkg);
	cr_expect_not(a->snapshot);
	cr_expect_eq(a->scale, 9.5367431640625e-07);
	cr_expect_str_eq(a->unit, "MB");
	pev_pmus_free(pmus);
}

TEST_PMU(alias_lookup_is_case_insensitive)
{
	struct pev_pmus *pmus = read_fixture();
	const struct pev_pmu *core = must_find(pmus, "cpu_core");
	const struct pev_pmu *power = must_find(pmus, "power");

	cr_expect_str_eq(must_alias(core, "CYCLES")->name, "cycles");
	cr_expect_str_eq(must_alias(core, "Cache-Misses")->terms, "event=0x2e,umask=0x41");
	cr_expect_str_eq(must_alias(core, "TOPDOWN-RETIRING")->name, "topdown-retiring");
	cr_expect_str_eq(must_alias(power, "Energy-PKG")->unit, "Joules");
	cr_expect_null(pev_pmu_alias(core, "cycle"));
	cr_expect_null(pev_pmu_alias(core, "cycles "));
	cr_expect_null(pev_pmu_alias(core, ""));
	cr_expect_null(pev_pmu_alias(core, NULL));
	cr_expect_null(pev_pmu_alias(NULL, "cycles"));
	pev_pmus_free(pmus);
}

/* ---- list accessors ---------------------------------------------------- */

TEST_PMU(accessors_check_bounds_and_null)
{
	struct pev_pmus *pmus = read_fixture();
	int n = pev_pmus_count(pmus);

	cr_expect_null(pev_pmus_at(pmus, -1));
	cr_expect_null(pev_pmus_at(pmus, n));
	cr_expect_null(pev_pmus_at(pmus, INT_MAX));
	cr_expect_not_null(pev_pmus_at(pmus, n - 1));
	cr_expect_null(pev_pmus_at(NULL, 0));
	cr_expect_eq(pev_pmus_count(NULL), PEV_EBADARG);
	cr_expect_eq(pev_pmus_core_count(NULL), PEV_EBADARG);
	cr_expect_null(pev_pmus_find(pmus, "nosuch"));
	cr_expect_null(pev_pmus_find(pmus, ""));
	cr_expect_null(pev_pmus_find(pmus, "CPU_CORE"), "PMU names are case-sensitive");
	cr_expect_null(pev_pmus_find(pmus, NULL));
	cr_expect_null(pev_pmus_find(NULL, "cpu_core"));
	cr_expect_null(pev_pmus_find_type(pmus, 3));
	cr_expect_null(pev_pmus_find_type(pmus, 7));
	cr_expect_null(pev_pmus_find_type(pmus, UINT32_MAX));
	cr_expect_null(pev_pmus_find_type(NULL, 4));
	cr_expect_str_eq(pev_pmus_find_type(pmus, 4)->name, "cpu_core");
	cr_expect_str_eq(pev_pmus_find_type(pmus, 10)->name, "cpu_atom");
	cr_expect_null(pev_pmu_format(NULL, "event"));
	cr_expect_null(pev_pmu_format(must_find(pmus, "cpu_core"), NULL));
	pev_pmus_free(pmus);
	pev_pmus_free(NULL);
}

/* ---- pev_pmu_format_apply ---------------------------------------------- */

TEST_PMU(format_apply_places_values_in_their_word)
{
	struct pev_pmus *pmus = read_fixture();
	const struct pev_pmu *core = must_find(pmus, "cpu_core");
	uint64_t config[4] = {0, 0, 0, 0};

	cr_assert_eq(pev_pmu_format_apply(must_format(core, "event"), 0x2e, config), 0);
	cr_assert_eq(pev_pmu_format_apply(must_format(core, "umask"), 0x41, config), 0);
	cr_assert_eq(pev_pmu_format_apply(must_format(core, "edge"), 1, config), 0);
	cr_assert_eq(pev_pmu_format_apply(must_format(core, "cmask"), 0xff, config), 0);
	cr_assert_eq(pev_pmu_format_apply(must_format(core, "ldlat"), 3, config), 0);
	cr_expect_eq(config[0], UINT64_C(0xff04412e), "config 0x%llx",
		     (unsigned long long)config[0]);
	cr_expect_eq(config[1], 3);
	cr_expect_eq(config[2], 0);
	cr_expect_eq(config[3], 0);

	/* A 64-bit field takes any value. */
	cr_assert_eq(pev_pmu_format_apply(must_format(core, "offcore_rsp"), UINT64_MAX, config), 0);
	cr_expect_eq(config[1], UINT64_MAX);
	/* Zero clears the field's bits only. */
	cr_assert_eq(pev_pmu_format_apply(must_format(core, "ldlat"), 0, config), 0);
	cr_expect_eq(config[1], UINT64_C(0xffffffffffff0000));
	pev_pmus_free(pmus);
}

TEST_PMU(format_apply_preserves_other_bits)
{
	struct pev_pmus *pmus = read_fixture();
	const struct pev_pmu *core = must_find(pmus, "cpu_core");
	uint64_t config[4] = {UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX};

	cr_assert_eq(pev_pmu_format_apply(must_format(core, "umask"), 0x41, config), 0);
	cr_expect_eq(config[0], UINT64_C(0xffffffffffff41ff), "config 0x%llx",
		     (unsigned long long)config[0]);
	cr_assert_eq(pev_pmu_format_apply(must_format(core, "inv"), 0, config), 0);
	cr_expect_eq(config[0], UINT64_C(0xffffffffff7f41ff));
	cr_expect_eq(config[1], UINT64_MAX);
	cr_expect_eq(config[2], UINT64_MAX);
	cr_expect_eq(config[3], UINT64_MAX);
	pev_pmus_free(pmus);
}

TEST_PMU(format_apply_fills_split_ranges_low_bits_first)
{
	struct pev_pmus *pmus = read_fixture();
	const struct pev_pmu_format *ev = must_format(must_find(pmus, "amd_df"), "event");
	uint64_t config[4] = {0, 0, 0, 0};

	/* 0x1234: low 8 bits 0x34 -> 0-7, next 4 bits 0x2 -> 32-35, next 2 bits 0x0 -> ... */
	cr_assert_eq(pev_pmu_format_apply(ev, 0x1234, config), 0);
	cr_expect_eq(config[0], UINT64_C(0x34) | UINT64_C(0x2) << 32 | UINT64_C(0x1) << 59,
		     "config 0x%llx", (unsigned long long)config[0]);
	/* The widest value (14 bits) fills every range. */
	cr_assert_eq(pev_pmu_format_apply(ev, 0x3fff, config), 0);
	cr_expect_eq(config[0], UINT64_C(0xff) | UINT64_C(0xf) << 32 | UINT64_C(0x3) << 59);
	/* Rewriting clears what the old value left in every range. */
	cr_assert_eq(pev_pmu_format_apply(ev, 0x100, config), 0);
	cr_expect_eq(config[0], UINT64_C(0x1) << 32);
	/* Split ranges keep the bits between them. */
	config[0] = UINT64_MAX;
	cr_assert_eq(pev_pmu_format_apply(ev, 0, config), 0);
	cr_expect_eq(config[0], ~(UINT64_C(0xff) | UINT64_C(0xf) << 32 | UINT64_C(0x3) << 59));
	pev_pmus_free(pmus);
}

TEST_PMU(format_apply_refuses_values_too_wide)
{
	struct pev_pmus *pmus = read_fixture();
	const struct pev_pmu *core = must_find(pmus, "cpu_core");
	const struct pev_pmu *spe = must_find(pmus, "arm_spe_0");
	uint64_t config[4] = {0x1111, 0x2222, 0x3333, 0x4444};

	cr_expect_eq(pev_pmu_format_apply(must_format(core, "event"), 0x100, config), PEV_EINVAL);
	cr_expect_eq(pev_pmu_format_apply(must_format(core, "edge"), 2, config), PEV_EINVAL);
	cr_expect_eq(pev_pmu_format_apply(must_format(core, "ldlat"), 0x10000, config), PEV_EINVAL);
	cr_expect_eq(pev_pmu_format_apply(must_format(must_find(pmus, "amd_df"), "event"), 0x4000,
					  config),
		     PEV_EINVAL);
	cr_expect_eq(pev_pmu_format_apply(must_format(spe, "min_latency"), 0x1000, config),
		     PEV_EINVAL);
	cr_expect_eq(pev_pmu_format_apply(must_format(core, "umask"), UINT64_MAX, config),
		     PEV_EINVAL);
	/* A refused value changes nothing. */
	cr_expect_eq(config[0], 0x1111);
	cr_expect_eq(config[1], 0x2222);
	cr_expect_eq(config[2], 0x3333);
	cr_expect_eq(config[3], 0x4444);

	/* The widest value that fits is accepted. */
	cr_expect_eq(pev_pmu_format_apply(must_format(spe, "min_latency"), 0xfff, config), 0);
	cr_expect_eq(config[2], 0x3fff);
	cr_expect_eq(pev_pmu_format_apply(must_format(spe, "inv_event_filter"), 1ULL << 63, config),
		     0);
	cr_expect_eq(config[3], UINT64_C(1) << 63);
	cr_expect_eq(config[1], 0x2222);
	pev_pmus_free(pmus);
}

TEST_PMU(format_apply_checks_its_arguments)
{
	struct pev_pmu_format f;
	uint64_t config[4] = {0, 0, 0, 0};

	cr_assert_eq(pev_pmu_format_parse("config:0-7", &f), 0);
	cr_expect_eq(pev_pmu_format_apply(NULL, 1, config), PEV_EBADARG);
	cr_expect_eq(pev_pmu_format_apply(&f, 1, NULL), PEV_EBADARG);
	f.word = 4;
	cr_expect_eq(pev_pmu_format_apply(&f, 1, config), PEV_EBADARG);
	f.word = -1;
	cr_expect_eq(pev_pmu_format_apply(&f, 1, config), PEV_EBADARG);
	f.word = 0;
	f.nr_ranges = 0;
	cr_expect_eq(pev_pmu_format_apply(&f, 1, config), PEV_EBADARG);
	f.nr_ranges = PEV_FORMAT_MAX_RANGES + 1;
	cr_expect_eq(pev_pmu_format_apply(&f, 1, config), PEV_EBADARG);
	f.nr_ranges = 1;
	f.ranges[0].lo = 9;
	f.ranges[0].hi = 3;
	cr_expect_eq(pev_pmu_format_apply(&f, 1, config), PEV_EBADARG);
	f.ranges[0].lo = 60;
	f.ranges[0].hi = 70;
	cr_expect_eq(pev_pmu_format_apply(&f, 1, config), PEV_EBADARG);
	cr_expect_eq(config[0], 0);
}

/* ---- pev_pmu_format_parse ---------------------------------------------- */

TEST_PMU(format_parse_accepts_what_the_kernel_writes)
{
	struct pev_pmu_format f;

	cr_assert_eq(pev_pmu_format_parse("config:0-7", &f), 0);
	cr_expect_null(f.name);
	cr_expect_eq(f.word, 0);
	cr_expect_eq(f.nr_ranges, 1);
	cr_expect_eq(f.ranges[0].lo, 0);
	cr_expect_eq(f.ranges[0].hi, 7);
	cr_expect_eq(f.bits, 8);

	cr_assert_eq(pev_pmu_format_parse("config1:0-63\n", &f), 0);
	cr_expect_eq(f.word, 1);
	cr_expect_eq(f.bits, 64);

	cr_assert_eq(pev_pmu_format_parse("config2:5", &f), 0);
	cr_expect_eq(f.word, 2);
	cr_expect_eq(f.nr_ranges, 1);
	cr_expect_eq(f.ranges[0].lo, 5);
	cr_expect_eq(f.ranges[0].hi, 5);
	cr_expect_eq(f.bits, 1);

	cr_assert_eq(pev_pmu_format_parse("config3:0-3", &f), 0);
	cr_expect_eq(f.word, 3);
	cr_expect_eq(f.bits, 4);

	cr_assert_eq(pev_pmu_format_parse("config:0-7,32-35", &f), 0);
	cr_expect_eq(f.nr_ranges, 2);
	cr_expect_eq(f.ranges[1].lo, 32);
	cr_expect_eq(f.ranges[1].hi, 35);
	cr_expect_eq(f.bits, 12);

	/* Ranges keep their written order: it decides which value bits go where. */
	cr_assert_eq(pev_pmu_format_parse("config:32-35,0-7", &f), 0);
	cr_expect_eq(f.ranges[0].lo, 32);
	cr_expect_eq(f.ranges[1].lo, 0);

	cr_assert_eq(pev_pmu_format_parse("config:63", &f), 0);
	cr_expect_eq(f.ranges[0].lo, 63);
	cr_assert_eq(pev_pmu_format_parse("config:0,2,4,6,8,10,12,14", &f), 0);
	cr_expect_eq(f.nr_ranges, PEV_FORMAT_MAX_RANGES);
	cr_expect_eq(f.bits, 8);
	cr_assert_eq(pev_pmu_format_parse("  config:007  \n", &f), 0);
	cr_expect_eq(f.ranges[0].lo, 7);
}

TEST_PMU(format_parse_rejects_malformed_text)
{
	static const char *const bad[] = {
		"",
		"\n",
		"config",
		"config:",
		"config:7-3",
		"config:0-64",
		"config:64",
		"config:100",
		"config:99999999999999999999",
		"bogus:1",
		"config0:1",
		"config4:1",
		"config12:1",
		"Config:1",
		"config:0-7junk",
		"config:0-7 junk",
		"config:0-7,",
		"config:,0-7",
		"config:0--7",
		"config:-1",
		"config:0-",
		"config:+1",
		"config:0x3",
		"config :0-7",
		"config: 0-7",
		"config:0 -7",
		"config:0-7;8",
		"config:0-7,4-9",
		"config:5,5",
		"config:0,2,4,6,8,10,12,14,16",
		"config1:0-63,0",
		"event=config:0-7",
	};
	struct pev_pmu_format f, orig;

	memset(&orig, 0x5a, sizeof(orig));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		f = orig;
		cr_expect_eq(pev_pmu_format_parse(bad[i], &f), PEV_EFORMAT, "\"%s\"", bad[i]);
		cr_expect_eq(memcmp(&f, &orig, sizeof(f)), 0, "\"%s\" changed the output", bad[i]);
	}
	cr_expect_eq(pev_pmu_format_parse(NULL, &f), PEV_EBADARG);
	cr_expect_eq(pev_pmu_format_parse("config:0", NULL), PEV_EBADARG);
}

/* ---- errors and the broken fixture ------------------------------------- */

TEST_PMU(missing_root_is_enoent)
{
	struct pev_pmus *pmus = (struct pev_pmus *)&pmus; /* not NULL: must be reset */
	struct pev_error err;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/nonexistent", th_fixtures());
	cr_assert_eq(pev_pmus_read(path, &pmus, &err), PEV_ENOENT);
	cr_expect_null(pmus);
	cr_expect_eq(err.code, PEV_ENOENT);
	expect_has(err.message, "bus/event_source/devices");
	expect_has(err.message, "nonexistent");
	expect_has(err.hint, "CONFIG_PERF_EVENTS");
	cr_expect_eq(pev_pmus_read(path, &pmus, NULL), PEV_ENOENT);

	/* A machine without perf events: machines/no-perf has sys/ but no bus/event_source. */
	snprintf(path, sizeof(path), "%s/machines/no-perf/sys", th_fixtures());
	cr_expect_eq(pev_pmus_read(path, &pmus, NULL), PEV_ENOENT);
	/* A root that is a file. */
	snprintf(path, sizeof(path), "%s/sysfs-pmus/README.md", th_fixtures());
	cr_expect_eq(pev_pmus_read(path, &pmus, NULL), PEV_ENOENT);
}

TEST_PMU(bad_arguments)
{
	struct pev_error err;

	cr_expect_eq(pev_pmus_read(fixture("sysfs-pmus"), NULL, &err), PEV_EBADARG);
	cr_expect_str_eq(err.field, "out");
	expect_has(err.message, "pev_pmus_read");
	cr_expect_eq(pev_pmus_read(NULL, NULL, NULL), PEV_EBADARG);
}

TEST_PMU(a_root_too_long_fails_cleanly)
{
	struct pev_pmus *pmus = NULL;
	size_t n = 3 * PATH_MAX;
	char *root = malloc(n + 1);

	cr_assert_not_null(root);
	memset(root, 'a', n);
	root[0] = '/';
	root[n] = '\0';
	int r = pev_pmus_read(root, &pmus, NULL);
	cr_expect_lt(r, 0);
	cr_expect_null(pmus);
	free(root);
}

TEST_PMU(broken_fixture_keeps_what_is_good)
{
	struct pev_pmus *pmus = read_ok(fixture("sysfs-broken"));
	static const char *const kept[] = {"badcpus",  "badprecise", "formatfile", "good",
					   "maxtype",  "mixed",      "spacedtype"};
	const struct pev_pmu *p;

	cr_assert_eq(pev_pmus_count(pmus), 7);
	for (int i = 0; i < 7; i++)
		cr_expect_str_eq(pev_pmus_at(pmus, i)->name, kept[i]);

	p = must_find(pmus, "good");
	cr_expect_eq(p->type, 20);
	FMT1(p, "event", 0, 0, 7);
	expect_alias(p, "ok", "event=0x1", 1.0, "");
	cr_expect_eq(must_find(pmus, "maxtype")->type, UINT32_MAX);
	cr_expect_eq(must_find(pmus, "spacedtype")->type, 21);

	/* A malformed cpus file still makes a core PMU; its list is unknown. */
	p = must_find(pmus, "badcpus");
	cr_expect(p->core);
	cr_expect_str_eq(p->cpus, "");
	cr_expect_not(p->per_cpu_only);
	cr_expect_eq(pev_pmus_core_count(pmus), 1);

	cr_expect_eq(must_find(pmus, "badprecise")->max_precise, -1);

	/* format and events that are files, not directories, give no fields. */
	p = must_find(pmus, "formatfile");
	cr_expect_eq(p->type, 32);
	cr_expect_eq(p->nr_formats, 0);
	cr_expect_eq(p->nr_aliases, 0);

	for (const char *const *n = (const char *const[]){"notype", "badtype", "negtype",
							  "hugetype", "hextype", "emptytype",
							  "junktype", "nultype", "typedir",
							  ".hidden", "stray", "gone", "loop", NULL};
	     *n; n++)
		cr_expect_null(pev_pmus_find(pmus, *n), "%s should be skipped", *n);
	pev_pmus_free(pmus);
}

TEST_PMU(broken_fixture_skips_bad_formats_one_by_one)
{
	struct pev_pmus *pmus = read_ok(fixture("sysfs-broken"));
	const struct pev_pmu *p = must_find(pmus, "mixed");
	static const char *const good[] = {"good_eight", "good_event", "good_spaced", "good_split"};

	cr_expect_eq(p->type, 30);
	cr_expect_not(p->core);
	cr_expect(p->per_cpu_only, "a cpumask file, even malformed, means per-CPU only");
	cr_expect_str_eq(p->cpus, "");
	cr_expect_eq(p->max_precise, -1, "max_precise 7 does not fit precise_ip");

	cr_assert_eq(p->nr_formats, 4);
	for (int i = 0; i < 4; i++)
		cr_expect_str_eq(p->formats[i].name, good[i]);
	expect_format(p, "good_split", 0, 8, 2, 0, 3, 8, 11, 0, 0);
	FMT1(p, "good_spaced", 2, 5, 5);
	cr_expect_eq(must_format(p, "good_eight")->nr_ranges, 8);
	pev_pmus_free(pmus);
}

TEST_PMU(broken_fixture_skips_bad_aliases_one_by_one)
{
	struct pev_pmus *pmus = read_ok(fixture("sysfs-broken"));
	const struct pev_pmu *p = must_find(pmus, "mixed");
	static const char *const kept[] = {
		"Mixed-Case", "badscale",  "badunit",  "commascale", "emptyalias", "flag0",
		"flagempty",  "goodscale", "infscale", "junkscale",  "mixed-case", "negscale",
		"ok",         "zeroscale",
	};
	const int n = (int)(sizeof(kept) / sizeof(kept[0]));
	const struct pev_pmu_alias *a;

	cr_assert_eq(p->nr_aliases, n);
	for (int i = 0; i < n; i++)
		cr_expect_str_eq(p->aliases[i].name, kept[i]);

	expect_alias(p, "goodscale", "event=0x2", 0.5, "MiB");
	/* Malformed scales and units are ignored: the alias keeps 1.0 and "". */
	expect_alias(p, "badscale", "event=0x3", 1.0, "");
	expect_alias(p, "commascale", "event=0x4", 1.0, "");
	expect_alias(p, "infscale", "event=0x5", 1.0, "");
	expect_alias(p, "negscale", "event=0x6", 1.0, "");
	expect_alias(p, "zeroscale", "event=0x7", 1.0, "");
	expect_alias(p, "junkscale", "event=0x8", 1.0, "");
	expect_alias(p, "badunit", "event=0xb", 1.0, "");
	expect_alias(p, "emptyalias", "", 1.0, "");

	a = must_alias(p, "flag0");
	cr_expect_not(a->per_pkg, "a flag file that says 0");
	cr_expect_not(a->snapshot);
	a = must_alias(p, "flagempty");
	cr_expect(a->per_pkg, "an empty flag file still sets the flag");
	cr_expect(a->snapshot);

	/* An exact match wins; otherwise the first alias equal but for case. */
	cr_expect_str_eq(must_alias(p, "Mixed-Case")->terms, "event=0xc");
	cr_expect_str_eq(must_alias(p, "mixed-case")->terms, "event=0xd");
	cr_expect_str_eq(must_alias(p, "MIXED-CASE")->terms, "event=0xc");

	for (const char *const *s = (const char *const[]){"orphan", "orphan.scale", "nulalias",
							  "ctrlalias", "bigalias", "diralias",
							  "danglingalias", NULL};
	     *s; s++)
		cr_expect_null(pev_pmu_alias(p, *s), "%s should be skipped", *s);
	pev_pmus_free(pmus);
}

/* ---- trees built at run time ------------------------------------------- */

TEST_PMU(fifos_do_not_block_the_reader)
{
	char dir[64], path[PATH_MAX];
	struct pev_pmus *pmus;
	const struct pev_pmu *p;

	tree_new(dir, sizeof(dir));
	tree_write(dir, "bus/event_source/devices/fifotype/format/event", "config:0-7\n");
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/fifotype/type", dir);
	cr_assert_eq(mkfifo(path, 0644), 0);
	tree_write(dir, "bus/event_source/devices/fifofmt/type", "40\n");
	tree_write(dir, "bus/event_source/devices/fifofmt/format/event", "config:0-7\n");
	tree_write(dir, "bus/event_source/devices/fifofmt/events/ok", "event=0x1\n");
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/fifofmt/format/umask", dir);
	cr_assert_eq(mkfifo(path, 0644), 0);
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/fifofmt/events/fifo", dir);
	cr_assert_eq(mkfifo(path, 0644), 0);
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/fifofmt/events/ok.scale", dir);
	cr_assert_eq(mkfifo(path, 0644), 0);
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/fifofmt/cpumask", dir);
	cr_assert_eq(mkfifo(path, 0644), 0);

	pmus = read_ok(dir);
	cr_expect_eq(pev_pmus_count(pmus), 1);
	p = must_find(pmus, "fifofmt");
	cr_expect_eq(p->nr_formats, 1);
	cr_expect_not_null(pev_pmu_format(p, "event"));
	cr_expect_eq(p->nr_aliases, 1);
	expect_alias(p, "ok", "event=0x1", 1.0, "");
	cr_expect_str_eq(p->cpus, "");
	pev_pmus_free(pmus);
	tree_remove(dir);
}

TEST_PMU(huge_directories_are_capped)
{
	char dir[64], rel[128];
	struct pev_pmus *pmus;
	const struct pev_pmu *p;

	tree_new(dir, sizeof(dir));
	tree_write(dir, "bus/event_source/devices/big/type", "50\n");
	tree_write(dir, "bus/event_source/devices/big/format/f000", "config:0-7\n");
	tree_write(dir, "bus/event_source/devices/big/events/e0000", "event=0x1\n");
	for (int i = 1; i < 300; i++) {
		snprintf(rel, sizeof(rel), "bus/event_source/devices/big/format/f%03d", i);
		tree_write_file(dir, rel, "config:0-7\n");
	}
	for (int i = 1; i < 9000; i++) {
		snprintf(rel, sizeof(rel), "bus/event_source/devices/big/events/e%04d", i);
		tree_write_file(dir, rel, "event=0x1\n");
	}
	pmus = read_ok(dir);
	p = must_find(pmus, "big");
	cr_expect_eq(p->nr_formats, 256, "formats are capped at 256");
	cr_expect_eq(p->nr_aliases, 8192, "aliases are capped at 8192");
	for (int i = 1; i < p->nr_aliases; i++)
		cr_assert_lt(strcmp(p->aliases[i - 1].name, p->aliases[i].name), 0);
	pev_pmus_free(pmus);
	tree_remove(dir);
}

TEST_PMU(an_empty_devices_directory_is_an_empty_list)
{
	char dir[64];
	struct pev_pmus *pmus;

	tree_new(dir, sizeof(dir));
	tree_write(dir, "bus/event_source/devices/.keep", "");
	pmus = read_ok(dir);
	cr_expect_eq(pev_pmus_count(pmus), 0);
	cr_expect_eq(pev_pmus_core_count(pmus), 0);
	cr_expect_null(pev_pmus_at(pmus, 0));
	cr_expect_null(pev_pmus_find(pmus, "cpu"));
	cr_expect_null(pev_pmus_find_type(pmus, 4));
	pev_pmus_free(pmus);
	tree_remove(dir);
}

struct nobody_ctx {
	char dir[64];
	struct pev_error err;
	int ret;
	int count;
	bool has_open;
	bool has_locked;
	int locked_formats;
};

static void read_as_nobody(void *p)
{
	struct nobody_ctx *c = p;
	struct pev_pmus *pmus = NULL;
	const struct pev_pmu *pmu;

	c->ret = pev_pmus_read(c->dir, &pmus, &c->err);
	c->count = pev_pmus_count(pmus);
	c->has_open = pev_pmus_find(pmus, "open") != NULL;
	pmu = pev_pmus_find(pmus, "locked");
	c->has_locked = pmu != NULL;
	c->locked_formats = pmu ? pmu->nr_formats : -1;
	pev_pmus_free(pmus);
}

TEST_PMU(unreadable_files_are_skipped)
{
	struct nobody_ctx ctx;
	char path[PATH_MAX];

	memset(&ctx, 0, sizeof(ctx));
	tree_new(ctx.dir, sizeof(ctx.dir));
	tree_write(ctx.dir, "bus/event_source/devices/open/type", "60\n");
	tree_write(ctx.dir, "bus/event_source/devices/hidden/type", "61\n");
	tree_write(ctx.dir, "bus/event_source/devices/locked/type", "62\n");
	tree_write(ctx.dir, "bus/event_source/devices/locked/format/event", "config:0-7\n");
	tree_write(ctx.dir, "bus/event_source/devices/locked/format/umask", "config:8-15\n");
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/hidden/type", ctx.dir);
	cr_assert_eq(chmod(path, 0), 0);
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/locked/format/umask", ctx.dir);
	cr_assert_eq(chmod(path, 0), 0);

	cr_assert(th_as_nobody(read_as_nobody, &ctx, sizeof(ctx)));
	cr_expect_eq(ctx.ret, 0);
	cr_expect_eq(ctx.count, 2);
	cr_expect(ctx.has_open);
	cr_expect(ctx.has_locked);
	cr_expect_eq(ctx.locked_formats, 1);

	/* A devices directory nobody may read: the list cannot be read at all. */
	snprintf(path, sizeof(path), "%s/bus/event_source/devices", ctx.dir);
	cr_assert_eq(chmod(path, 0), 0);
	cr_assert(th_as_nobody(read_as_nobody, &ctx, sizeof(ctx)));
	cr_expect_eq(ctx.ret, PEV_EACCES);
	cr_expect_eq(ctx.count, PEV_EBADARG, "no list");
	expect_has(ctx.err.message, "bus/event_source/devices");
	expect_has(ctx.err.message, "permission denied");
	expect_has(ctx.err.hint, "may read");
	cr_assert_eq(chmod(path, 0755), 0);
	tree_remove(ctx.dir);
}

struct emfile_ctx {
	char root[PATH_MAX];
	int spare;     /* descriptors left free under the limit */
	int ret;
	int count;
	struct pev_error err;
};

static void read_with_few_fds(void *p)
{
	struct emfile_ctx *c = p;
	struct pev_pmus *pmus = NULL;
	struct rlimit rl;
	int highest = 0;

	/* Fill every hole below the highest open descriptor, so exactly `spare` stay free. */
	for (int fd = 0; fd < 4096; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			highest = fd;
	for (int fd = 0; fd < highest; fd++)
		if (fcntl(fd, F_GETFD) < 0 && dup2(highest, fd) != fd) {
			c->ret = 1;
			return;
		}
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0) {
		c->ret = 1;
		return;
	}
	rl.rlim_cur = (rlim_t)(highest + 1 + c->spare);
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
		c->ret = 1;
		return;
	}
	c->ret = pev_pmus_read(c->root, &pmus, &c->err);
	c->count = pev_pmus_count(pmus);
	pev_pmus_free(pmus);
}

TEST_PMU(running_out_of_descriptors_fails_rather_than_half_reading)
{
	struct emfile_ctx ctx;

	memset(&ctx, 0, sizeof(ctx));
	snprintf(ctx.root, sizeof(ctx.root), "%s/sysfs-pmus", th_fixtures());
	/* The devices directory, a PMU directory, format/ or events/, one file: four at most. */
	for (ctx.spare = 0; ctx.spare < 4; ctx.spare++) {
		cr_assert(th_in_child(read_with_few_fds, &ctx, sizeof(ctx)));
		cr_expect_eq(ctx.ret, PEV_EMFILE, "with %d spare descriptors: %d", ctx.spare,
			     ctx.ret);
		cr_expect_eq(ctx.count, PEV_EBADARG, "no list");
		expect_has(ctx.err.message, "too many open files");
		expect_has(ctx.err.hint, "ulimit -n");
	}
	cr_assert(th_in_child(read_with_few_fds, &ctx, sizeof(ctx)));
	cr_expect_eq(ctx.ret, 0, "four spare descriptors are enough");
	cr_expect_eq(ctx.count, 15);
}

static void mkdir_or_fail(const char *path)
{
	cr_assert(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s", path);
}

TEST_PMU(scales_parse_in_any_locale)
{
	char dir[64], locales[PATH_MAX], cmd[PATH_MAX + 128];
	struct pev_pmus *pmus;
	char *end;

	if (access("/usr/bin/localedef", X_OK) != 0)
		th_skip("localedef is not installed");
	tree_new(dir, sizeof(dir));
	snprintf(locales, sizeof(locales), "%s/locales", dir);
	mkdir_or_fail(locales);
	snprintf(cmd, sizeof(cmd), "localedef -i de_DE -f UTF-8 %s/de_DE.UTF-8 >/dev/null 2>&1",
		 locales);
	if (system(cmd) != 0) {
		tree_remove(dir);
		th_skip("cannot build the de_DE.UTF-8 locale");
	}
	setenv("LOCPATH", locales, 1);
	if (!setlocale(LC_ALL, "de_DE.UTF-8") || strtod("0.5", &end) != 0.0 || *end != '.') {
		tree_remove(dir);
		th_skip("the de_DE.UTF-8 locale does not take effect");
	}
	/* Under this locale "0,5" is a half and "0.5" stops at the point. */
	cr_assert_eq(strtod("0,5", NULL), 0.5);

	pmus = read_fixture();
	expect_alias(must_find(pmus, "power"), "energy-pkg", "event=0x02",
		     2.3283064365386962890625e-10, "Joules");
	expect_alias(must_find(pmus, "uncore_imc_0"), "cas_count_read", "event=0x04,umask=0x0f",
		     6.103515625e-5, "MiB");
	pev_pmus_free(pmus);

	/* The comma form stays malformed whatever the locale. */
	pmus = read_ok(fixture("sysfs-broken"));
	expect_alias(must_find(pmus, "mixed"), "commascale", "event=0x4", 1.0, "");
	expect_alias(must_find(pmus, "mixed"), "goodscale", "event=0x2", 0.5, "MiB");
	pev_pmus_free(pmus);
	setlocale(LC_ALL, "C");
	tree_remove(dir);
}

/* ---- this machine ------------------------------------------------------ */

TEST_PMU(this_machine_matches_sysfs)
{
	struct pev_pmus *pmus = read_ok(NULL);
	DIR *d = opendir("/sys/bus/event_source/devices");
	struct dirent *e;
	int seen = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		seen++;
		const struct pev_pmu *p = must_find(pmus, e->d_name);
		int type = pev_pmu_type(e->d_name, NULL);
		cr_expect_eq((int)p->type, type, "%s", e->d_name);
	}
	closedir(d);
	cr_expect_eq(pev_pmus_count(pmus), seen);

	/* The fixed types are the same everywhere. */
	cr_expect_eq(must_find(pmus, "software")->type, 1);
	cr_expect_eq(must_find(pmus, "tracepoint")->type, 2);
	cr_expect_eq(must_find(pmus, "breakpoint")->type, 5);
	cr_expect_not(must_find(pmus, "software")->core);
	cr_expect_not(must_find(pmus, "software")->per_cpu_only);

	/* "" means /sys too. */
	struct pev_pmus *again = read_ok("");
	cr_expect_eq(pev_pmus_count(again), pev_pmus_count(pmus));
	pev_pmus_free(again);
	pev_pmus_free(pmus);
}

TEST_PMU(this_machine_probe_and_msr_pmus)
{
	struct pev_pmus *pmus = read_ok("/sys");
	const struct pev_pmu *p;

	if (access("/sys/bus/event_source/devices/uprobe", F_OK) == 0) {
		p = must_find(pmus, "uprobe");
		FMT1(p, "retprobe", 0, 0, 0);
		FMT1(p, "ref_ctr_offset", 0, 32, 63);
		cr_expect_eq(pev_pmus_find_type(pmus, p->type), p);
	}
	if (access("/sys/bus/event_source/devices/msr", F_OK) == 0) {
		p = must_find(pmus, "msr");
		FMT1(p, "event", 0, 0, 63);
		expect_alias(p, "tsc", "event=0x00", 1.0, "");
		cr_expect_str_eq(must_alias(p, "TSC")->name, "tsc");
		cr_expect_not(p->per_cpu_only);
	}
	if (access("/sys/bus/event_source/devices/power/cpumask", F_OK) == 0) {
		p = must_find(pmus, "power");
		cr_expect(p->per_cpu_only);
		cr_expect_str_neq(p->cpus, "");
		FMT1(p, "event", 0, 0, 7);
	}
	/* Core PMUs are named cpu or cpu_* on x86 (none in a VM without a PMU). */
	int cores = 0;
	for (int i = 0; i < pev_pmus_count(pmus); i++) {
		p = pev_pmus_at(pmus, i);
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/cpus", p->name);
		bool expect = p->type == 4 || strcmp(p->name, "cpu") == 0 || access(path, F_OK) == 0;
		cr_expect_eq(p->core, expect, "%s", p->name);
		cores += expect;
	}
	cr_expect_eq(pev_pmus_core_count(pmus), cores);
	pev_pmus_free(pmus);
}

/* ---- the machine fixtures ---------------------------------------------- */

TEST_PMU(machine_fixtures_read_as_their_machines)
{
	struct pev_pmus *pmus;
	char root[PATH_MAX];

	snprintf(root, sizeof(root), "%s/machines/hybrid/sys", th_fixtures());
	pmus = read_ok(root);
	cr_expect_eq(pev_pmus_core_count(pmus), 2);
	cr_expect_str_eq(must_find(pmus, "cpu_atom")->cpus, "8-15");
	cr_expect_eq(must_find(pmus, "uprobe")->type, 7);
	pev_pmus_free(pmus);

	snprintf(root, sizeof(root), "%s/machines/container/sys", th_fixtures());
	pmus = read_ok(root);
	cr_expect_eq(pev_pmus_core_count(pmus), 1);
	cr_expect(must_find(pmus, "cpu")->core);
	cr_expect_str_eq(pev_pmus_find_type(pmus, 4)->name, "cpu");
	pev_pmus_free(pmus);

	snprintf(root, sizeof(root), "%s/machines/vm-nopmu/sys", th_fixtures());
	pmus = read_ok(root);
	cr_expect_eq(pev_pmus_count(pmus), 7);
	cr_expect_eq(pev_pmus_core_count(pmus), 0);
	cr_expect(must_find(pmus, "uncore_imc_0")->per_cpu_only);
	cr_expect_str_eq(must_find(pmus, "uncore_imc_0")->cpus, "0");
	expect_alias(must_find(pmus, "msr"), "smi", "event=0x03", 1.0, "");
	cr_expect_not(must_find(pmus, "power")->per_cpu_only);
	pev_pmus_free(pmus);
}
