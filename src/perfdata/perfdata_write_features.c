/* SPDX-License-Identifier: MIT */
/*
 * perfdata_write_features.c - the features the writer puts after the data:
 * what the caller gave (events, groups, build ids, command line, sample
 * times) and what it reads from this machine (uname, /proc/cpuinfo,
 * /proc/meminfo, the CPU topology and the PMUs in sysfs), each encoded in
 * perf's layout.
 */
#include "perfdata/perfdata_writer.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "perfev/event.h"
#include "core/util.h"

/* ---- byte buffers ------------------------------------------------------------ */

void pev__pw_put(struct pw_buf *b, const void *p, size_t n)
{
	if (b->failed)
		return;
	if (b->cap - b->len < n) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap - b->len < n) {
			if (cap > SIZE_MAX / 2) {
				b->failed = true;
				return;
			}
			cap *= 2;
		}
		unsigned char *q = realloc(b->p, cap);
		if (!q) {
			b->failed = true;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
}

void pev__pw_put_u32(struct pw_buf *b, uint32_t v)
{
	pev__pw_put(b, &v, sizeof(v));
}

void pev__pw_put_u64(struct pw_buf *b, uint64_t v)
{
	pev__pw_put(b, &v, sizeof(v));
}

void pev__pw_put_string(struct pw_buf *b, const char *s)
{
	static const unsigned char zeros[PD_NAME_ALIGN];
	size_t len = strlen(s) + 1;
	size_t padded = (len + PD_NAME_ALIGN - 1) / PD_NAME_ALIGN * PD_NAME_ALIGN;

	pev__pw_put_u32(b, (uint32_t)padded);
	pev__pw_put(b, s, len);
	pev__pw_put(b, zeros, padded - len);
}

/* ---- this machine ------------------------------------------------------------- */

/* The value of the first "key : value" line of /proc/cpuinfo with that key. */
static bool cpuinfo_value(const char *key, char *out, size_t size)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[512];
	bool found = false;
	size_t klen = strlen(key);

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen) != 0)
			continue;
		const char *p = line + klen;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != ':')
			continue;
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		/* Runs of white space become one space, as perf writes it. */
		size_t n = 0;
		bool space = false;
		for (; *p && *p != '\n' && n + 1 < size; p++) {
			if (isspace((unsigned char)*p)) {
				space = true;
				continue;
			}
			if (space && n)
				out[n++] = ' ';
			space = false;
			if (n + 1 < size)
				out[n++] = *p;
		}
		out[n] = '\0';
		found = n > 0;
	}
	fclose(f);
	return found;
}

static bool encode_cpudesc(struct pw_buf *b)
{
	char desc[256];

	if (!cpuinfo_value("model name", desc, sizeof(desc)) &&
	    !cpuinfo_value("Processor", desc, sizeof(desc)) &&
	    !cpuinfo_value("cpu model", desc, sizeof(desc)) &&
	    !cpuinfo_value("cpu", desc, sizeof(desc)))
		return false;
	pev__pw_put_string(b, desc);
	return true;
}

/*
 * The CPU's identity as perf writes it: x86's "vendor,family,model,stepping";
 * arm64's MIDR_EL1 as "0x" and 16 hex digits, read from the first CPU whose
 * sysfs file holds it (perf 6.7 and later write it so; 6.1 cleared the
 * variant and revision digits). Other machines write none.
 */
static bool encode_cpuid(struct pw_buf *b)
{
#if defined(__x86_64__) || defined(__i386__)
	char vendor[64], family[16], model[16], stepping[16], id[128];

	if (!cpuinfo_value("vendor_id", vendor, sizeof(vendor)) ||
	    !cpuinfo_value("cpu family", family, sizeof(family)) ||
	    !cpuinfo_value("model", model, sizeof(model)) ||
	    !cpuinfo_value("stepping", stepping, sizeof(stepping)))
		return false;
	snprintf(id, sizeof(id), "%s,%s,%s,%s", vendor, family, model, stepping);
	pev__pw_put_string(b, id);
	return true;
#elif defined(__aarch64__)
	char path[128], midr[32];

	for (unsigned cpu = 0; cpu < 4096; cpu++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u", cpu);
		if (access(path, F_OK) != 0)
			break;
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%u/regs/identification/midr_el1", cpu);
		if (pev__read_text(path, midr, sizeof(midr)) == 18 && midr[0] == '0' &&
		    midr[1] == 'x') {
			pev__pw_put_string(b, midr);
			return true;
		}
	}
	return false;
#else
	(void)b;
	return false;
#endif
}

/* CPUs present: the highest present CPU + 1, as perf counts them. */
static uint32_t cpus_present(void)
{
	char text[256];

	if (pev__read_text("/sys/devices/system/cpu/present", text, sizeof(text)) > 0) {
		const char *last = text;
		for (const char *p = text; *p; p++)
			if (*p == ',' || *p == '-')
				last = p + 1;
		long n = strtol(last, NULL, 10);
		if (n >= 0 && n < INT_MAX)
			return (uint32_t)n + 1;
	}
	long n = sysconf(_SC_NPROCESSORS_CONF);
	return n > 0 ? (uint32_t)n : 0;
}

static bool encode_nrcpus(struct pw_buf *b)
{
	uint32_t avail = cpus_present();
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	if (avail == 0 || online <= 0)
		return false;
	pev__pw_put_u32(b, avail);
	pev__pw_put_u32(b, (uint32_t)online);
	return true;
}

static bool encode_total_mem(struct pw_buf *b)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[256];
	unsigned long long kb = 0;
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "MemTotal: %llu", &kb) == 1;
	fclose(f);
	if (!found)
		return false;
	pev__pw_put_u64(b, kb);
	return true;
}

static bool encode_uname(struct pw_buf *b, unsigned feature)
{
	struct utsname u;

	if (uname(&u) != 0)
		return false;
	pev__pw_put_string(b, feature == PEV_HEADER_HOSTNAME    ? u.nodename
			      : feature == PEV_HEADER_OSRELEASE ? u.release
								: u.machine);
	return true;
}

/* A list of distinct strings, in order of first appearance. */
struct strlist {
	char **s;
	uint32_t n, cap;
	bool failed;
};

static void strlist_add(struct strlist *l, const char *s)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (strcmp(l->s[i], s) == 0)
			return;
	if (l->n == l->cap) {
		uint32_t cap = l->cap ? 2 * l->cap : 8;
		char **n = realloc(l->s, cap * sizeof(*n));
		if (!n) {
			l->failed = true;
			return;
		}
		l->s = n;
		l->cap = cap;
	}
	if (!(l->s[l->n] = strdup(s)))
		l->failed = true;
	else
		l->n++;
}

static void strlist_put(struct pw_buf *b, const struct strlist *l)
{
	pev__pw_put_u32(b, l->n);
	for (uint32_t i = 0; i < l->n; i++)
		pev__pw_put_string(b, l->s[i]);
}

static void strlist_free(struct strlist *l)
{
	for (uint32_t i = 0; i < l->n; i++)
		free(l->s[i]);
	free(l->s);
}

/* Reads topology file `name` of a CPU, trying each of the names given (newer first). */
static bool topo_text(uint32_t cpu, const char *name, const char *old_name, char *out,
		      size_t size)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/topology/%s", cpu, name);
	if (pev__read_text(path, out, size) > 0)
		return true;
	if (!old_name)
		return false;
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/topology/%s", cpu, old_name);
	return pev__read_text(path, out, size) > 0;
}

static uint32_t topo_id(uint32_t cpu, const char *name)
{
	char text[32];

	if (!topo_text(cpu, name, NULL, text, sizeof(text)))
		return UINT32_MAX; /* an offline CPU: perf writes -1 */
	return (uint32_t)strtol(text, NULL, 10);
}

/*
 * Socket CPU lists, core (SMT sibling) lists, core and socket id per CPU,
 * then, where the kernel reports dies, die lists and die id per CPU.
 */
static bool encode_cpu_topology(struct pw_buf *b)
{
	struct strlist pkg = {0}, core = {0}, die = {0};
	uint32_t nr = cpus_present();
	char text[1024];
	bool ok = nr > 0;

	for (uint32_t cpu = 0; ok && cpu < nr; cpu++) {
		if (topo_text(cpu, "package_cpus_list", "core_siblings_list", text, sizeof(text)))
			strlist_add(&pkg, text);
		if (topo_text(cpu, "core_cpus_list", "thread_siblings_list", text, sizeof(text)))
			strlist_add(&core, text);
		if (topo_text(cpu, "die_cpus_list", NULL, text, sizeof(text)))
			strlist_add(&die, text);
	}
	ok = ok && pkg.n && core.n && !pkg.failed && !core.failed && !die.failed;
	if (ok) {
		strlist_put(b, &pkg);
		strlist_put(b, &core);
		for (uint32_t cpu = 0; cpu < nr; cpu++) {
			pev__pw_put_u32(b, topo_id(cpu, "core_id"));
			pev__pw_put_u32(b, topo_id(cpu, "physical_package_id"));
		}
		if (die.n) {
			strlist_put(b, &die);
			for (uint32_t cpu = 0; cpu < nr; cpu++)
				pev__pw_put_u32(b, topo_id(cpu, "die_id"));
		}
	}
	strlist_free(&pkg);
	strlist_free(&core);
	strlist_free(&die);
	return ok;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A count, then the bytes of body (which is freed), into b. */
static void put_counted(struct pw_buf *b, uint32_t n, struct pw_buf *body)
{
	pev__pw_put_u32(b, n);
	pev__pw_put(b, body->p, body->len);
	if (body->failed)
		b->failed = true;
	free(body->p);
}

/* The entries of a sysfs directory, in the order readdir gives them (perf's order). */
static bool dir_names(const char *path, struct strlist *names)
{
	DIR *d = opendir(path);
	struct dirent *e;

	if (!d)
		return false;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			strlist_add(names, e->d_name);
	closedir(d);
	return !names->failed;
}

/* Every PMU in sysfs: its type number and name. */
static bool encode_pmu_mappings(struct pw_buf *b)
{
	struct strlist names = {0};
	char path[512], text[32];
	uint32_t n = 0;

	if (!dir_names("/sys/bus/event_source/devices", &names)) {
		strlist_free(&names);
		return false;
	}
	if (names.n)
		qsort(names.s, names.n, sizeof(*names.s), cmp_name);
	struct pw_buf body = {0};
	for (uint32_t i = 0; i < names.n; i++) {
		long long type;
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", names.s[i]);
		if (pev__read_text(path, text, sizeof(text)) <= 0 || sscanf(text, "%lld", &type) != 1 ||
		    type < 0 || type > UINT32_MAX)
			continue;
		pev__pw_put_u32(&body, (uint32_t)type);
		pev__pw_put_string(&body, names.s[i]);
		n++;
	}
	strlist_free(&names);
	put_counted(b, n, &body);
	return n > 0;
}

/*
 * PMU pmu's capabilities (sysfs caps/), as a count then name and value
 * strings, into b; returns the count (0 when it has none).
 */
static uint32_t put_pmu_caps(struct pw_buf *b, const char *pmu)
{
	struct strlist names = {0};
	struct pw_buf body = {0};
	char path[512], value[256];
	uint32_t n = 0;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/caps", pmu);
	if (dir_names(path, &names)) {
		for (uint32_t i = 0; i < names.n; i++) {
			snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/caps/%s", pmu,
				 names.s[i]);
			if (pev__read_text(path, value, sizeof(value)) < 0)
				continue;
			value[strcspn(value, "\n")] = '\0';
			pev__pw_put_string(&body, names.s[i]);
			pev__pw_put_string(&body, value);
			n++;
		}
	}
	strlist_free(&names);
	put_counted(b, n, &body);
	return n;
}

/* CPU_PMU_CAPS: the core PMU's capabilities, when it is called "cpu" (as perf). */
static bool encode_cpu_pmu_caps(struct pw_buf *b)
{
	if (access("/sys/bus/event_source/devices/cpu", F_OK) != 0)
		return false;
	put_pmu_caps(b, "cpu");
	return true;
}

/*
 * PMU_CAPS: every other PMU with capabilities, each followed by its name;
 * hybrid core PMUs (cpu_core, cpu_atom) first, the rest in readdir order,
 * as perf writes them.
 */
static bool encode_pmu_caps(struct pw_buf *b)
{
	struct strlist names = {0};
	struct pw_buf body = {0};
	uint32_t n = 0;

	if (!dir_names("/sys/bus/event_source/devices", &names)) {
		strlist_free(&names);
		return false;
	}
	for (int hybrid = 1; hybrid >= 0; hybrid--)
		for (uint32_t i = 0; i < names.n; i++) {
			const char *pmu = names.s[i];
			size_t mark = body.len;

			if (strcmp(pmu, "cpu") == 0 || (strncmp(pmu, "cpu_", 4) == 0) != hybrid)
				continue;
			if (!put_pmu_caps(&body, pmu)) {
				body.len = mark; /* no capabilities: left out */
				continue;
			}
			pev__pw_put_string(&body, pmu);
			n++;
		}
	strlist_free(&names);
	put_counted(b, n, &body);
	return true;
}

/* ---- what the caller gave -------------------------------------------------------- */

static void encode_event_desc(struct pev_perfdata_writer *w, struct pw_buf *b)
{
	pev__pw_put_u32(b, (uint32_t)w->nr_events);
	pev__pw_put_u32(b, w->file_attr_size);
	for (int i = 0; i < w->nr_events; i++) {
		const struct pw_event *ev = &w->events[i];
		struct pev_attr a = ev->attr;
		char name[128];

		a.size = w->file_attr_size;
		pev__pw_put(b, &a, w->file_attr_size);
		pev__pw_put_u32(b, (uint32_t)ev->nr_ids);
		if (ev->name) {
			pev__pw_put_string(b, ev->name);
		} else {
			struct pev_event e = {
				.type = a.type,
				.bp_type = a.bp_type,
				.config = a.config,
				.config1 = a.config1,
				.config2 = a.config2,
				.config3 = a.config3,
			};
			pev__pw_put_string(b, pev_event_describe(&e, name, sizeof(name)));
		}
		pev__pw_put(b, ev->ids, ev->nr_ids * 8);
	}
}

void pev__pw_build_id_encode(const struct pw_build_id *bid, uint32_t type, struct pw_buf *b)
{
	static const unsigned char zeros[8];
	unsigned char fixed[PD_BUILD_ID_FIXED] = {0};
	size_t name = strlen(bid->filename) + 1;
	size_t size = (PD_BUILD_ID_FIXED + name + 7) & ~(size_t)7;

	/* header: type, misc (cpumode | the size byte is valid), size */
	uint16_t misc = (uint16_t)(bid->cpumode | PD_BUILD_ID_MISC_SIZE);
	uint16_t sz = (uint16_t)size;
	memcpy(fixed, &type, 4);
	memcpy(fixed + 4, &misc, 2);
	memcpy(fixed + 6, &sz, 2);
	memcpy(fixed + 8, &bid->pid, 4);
	memcpy(fixed + 12, bid->id, bid->size);
	fixed[32] = bid->size;
	pev__pw_put(b, fixed, sizeof(fixed));
	pev__pw_put(b, bid->filename, name);
	pev__pw_put(b, zeros, size - PD_BUILD_ID_FIXED - name);
}

static void encode_build_ids(struct pev_perfdata_writer *w, struct pw_buf *b)
{
	for (size_t i = 0; i < w->nr_build_ids; i++)
		pev__pw_build_id_encode(&w->build_ids[i], 0, b);
}

static bool has_branch_stack(const struct pev_perfdata_writer *w)
{
	for (int i = 0; i < w->nr_events; i++)
		if (w->events[i].attr.sample_type & PEV_SAMPLE_BRANCH_STACK)
			return true;
	return false;
}

int pev__pw_default_cmdline(struct pev_perfdata_writer *w)
{
	char exe[PATH_MAX];
	FILE *f = fopen("/proc/self/cmdline", "re");
	char *args = NULL;
	size_t len = 0, cap = 0;
	const char **argv = NULL;
	int argc = 0, rc;

	if (!f)
		return PEV_ENOENT;
	for (int c; (c = fgetc(f)) != EOF;) {
		if (len + 2 > cap) {
			cap = cap ? 2 * cap : 256;
			char *n = realloc(args, cap);
			if (!n) {
				free(args);
				fclose(f);
				return PEV_ENOMEM;
			}
			args = n;
		}
		args[len++] = (char)c;
	}
	fclose(f);
	if (!args)
		return PEV_ENOENT;
	if (len == 0 || args[len - 1] != '\0')
		args[len++] = '\0';
	for (size_t i = 0; i < len; i++)
		argc += args[i] == '\0';
	argv = calloc((size_t)argc + 1, sizeof(*argv));
	if (!argv) {
		free(args);
		return PEV_ENOMEM;
	}
	argc = 0;
	for (size_t i = 0; i < len; i += strlen(args + i) + 1)
		argv[argc++] = args + i;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0 && argc > 0) {
		exe[n] = '\0';
		argv[0] = exe;
	}
	rc = pev_perfdata_writer_set_cmdline(w, argc, argv);
	w->cmdline_set = false;
	free(argv);
	free(args);
	return rc;
}

bool pev__pw_feature_encode(struct pev_perfdata_writer *w, unsigned feature, struct pw_buf *b)
{
	bool machine = !(w->flags & PEV_PERFDATA_WRITER_NO_MACHINE);
	char version[48];

	switch (feature) {
	case PEV_HEADER_BUILD_ID:
		if (!w->nr_build_ids)
			return false;
		encode_build_ids(w, b);
		return true;
	case PEV_HEADER_HOSTNAME:
	case PEV_HEADER_OSRELEASE:
	case PEV_HEADER_ARCH:
		return machine && encode_uname(b, feature);
	case PEV_HEADER_VERSION:
		snprintf(version, sizeof(version), "perfev %d.%d.%d", PEV_VERSION_MAJOR,
			 PEV_VERSION_MINOR, PEV_VERSION_PATCH);
		pev__pw_put_string(b, version);
		return true;
	case PEV_HEADER_NRCPUS:
		return machine && encode_nrcpus(b);
	case PEV_HEADER_CPUDESC:
		return machine && encode_cpudesc(b);
	case PEV_HEADER_CPUID:
		return machine && encode_cpuid(b);
	case PEV_HEADER_TOTAL_MEM:
		return machine && encode_total_mem(b);
	case PEV_HEADER_CMDLINE:
		if (!w->cmdline)
			return false;
		pev__pw_put_u32(b, (uint32_t)w->nr_cmdline);
		for (int i = 0; i < w->nr_cmdline; i++)
			pev__pw_put_string(b, w->cmdline[i]);
		return true;
	case PEV_HEADER_EVENT_DESC:
		encode_event_desc(w, b);
		return true;
	case PEV_HEADER_CPU_TOPOLOGY:
		return machine && encode_cpu_topology(b);
	case PEV_HEADER_BRANCH_STACK:
		return has_branch_stack(w); /* a flag: no bytes */
	case PEV_HEADER_PMU_MAPPINGS:
		return machine && encode_pmu_mappings(b);
	case PEV_HEADER_CPU_PMU_CAPS:
		return machine && encode_cpu_pmu_caps(b);
	case PEV_HEADER_PMU_CAPS:
		return machine && encode_pmu_caps(b);
	case PEV_HEADER_GROUP_DESC:
		if (!w->nr_groups)
			return false;
		pev__pw_put_u32(b, (uint32_t)w->nr_groups);
		for (size_t i = 0; i < w->nr_groups; i++) {
			pev__pw_put_string(b, w->groups[i].name);
			pev__pw_put_u32(b, w->groups[i].leader);
			pev__pw_put_u32(b, w->groups[i].nr_members);
		}
		return true;
	case PEV_HEADER_SAMPLE_TIME:
		if (!w->time_set && !w->time_seen)
			return false;
		pev__pw_put_u64(b, w->time_first);
		pev__pw_put_u64(b, w->time_last);
		return true;
	case PEV_HEADER_CLOCKID:
		if (!w->use_clockid)
			return false;
		pev__pw_put_u64(b, w->clock_res_ns);
		return true;
	case PEV_HEADER_CLOCK_DATA:
		if (!w->use_clockid)
			return false;
		pev__pw_put_u32(b, 1);
		pev__pw_put_u32(b, (uint32_t)w->clockid);
		pev__pw_put_u64(b, w->clock_tod_ns);
		pev__pw_put_u64(b, w->clock_ns);
		return true;
	default:
		return false;
	}
}
