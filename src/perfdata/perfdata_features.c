/* SPDX-License-Identifier: MIT */
/*
 * perfdata_features.c - the header features: each section's bytes parsed
 * into struct pev_perfdata_features, every count and length checked
 * against what the section holds, every string against its terminator.
 * The same parsers read file-mode sections and pipe mode's HEADER_FEATURE
 * records.
 */
#include "perfdata/perfdata_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A read position in a section, with what to say when the bytes run out. */
struct cur {
	struct pev_perfdata *pd;
	const unsigned char *start, *p, *end;
	char where[128];
	struct pev_error *err;
	int rc;
};

static size_t left(const struct cur *c)
{
	return (size_t)(c->end - c->p);
}

static bool need(struct cur *c, size_t n, const char *what)
{
	if (c->rc)
		return false;
	if (left(c) < n) {
		c->rc = pev__pd_fail(
		    c->pd, c->err, PEV_EFORMAT, "features",
		    "%s: %s at byte 0x%zx needs %zu bytes, but the section has %zu left", c->where,
		    what, (size_t)(c->p - c->start), n, left(c));
		return false;
	}
	return true;
}

static bool get_u32(struct cur *c, uint32_t *v, const char *what)
{
	if (!need(c, 4, what))
		return false;
	*v = pd_u32(c->p);
	c->p += 4;
	return true;
}

static bool get_u64(struct cur *c, uint64_t *v, const char *what)
{
	if (!need(c, 8, what))
		return false;
	*v = pd_u64(c->p);
	c->p += 8;
	return true;
}

/* A perf string: u32 length, then that many bytes holding a NUL-terminated string. */
static const char *get_str(struct cur *c, const char *what)
{
	uint32_t len;
	size_t at = (size_t)(c->p - c->start);

	if (!get_u32(c, &len, what))
		return NULL;
	if (len == 0) {
		c->rc = pev__pd_fail(c->pd, c->err, PEV_EFORMAT, "features",
				     "%s: %s at byte 0x%zx has length 0 (no room for its NUL)",
				     c->where, what, at);
		return NULL;
	}
	if (len > left(c)) {
		c->rc = pev__pd_fail(
		    c->pd, c->err, PEV_EFORMAT, "features",
		    "%s: %s at byte 0x%zx needs %u bytes, but the section has %zu left", c->where,
		    what, at, len, left(c));
		return NULL;
	}
	const char *s = (const char *)c->p;
	if (!memchr(s, '\0', len)) {
		c->rc = pev__pd_fail(c->pd, c->err, PEV_EFORMAT, "features",
				     "%s: %s at byte 0x%zx: %u bytes without a terminating NUL",
				     c->where, what, at, len);
		return NULL;
	}
	c->p += len;
	return s;
}

/* Refuses a count of items of at least `each` bytes that cannot fit in what is left. */
static bool check_count(struct cur *c, uint64_t nr, size_t each, const char *what)
{
	if (c->rc)
		return false;
	if (nr > left(c) / each) {
		c->rc =
		    pev__pd_fail(c->pd, c->err, PEV_EFORMAT, "features",
				 "%s: %s %" PRIu64 " is more than the %zu bytes left can hold (at "
				 "least %zu bytes each)",
				 c->where, what, nr, left(c), each);
		return false;
	}
	return true;
}

static void *cur_alloc(struct cur *c, size_t size)
{
	void *p = c->rc ? NULL : pev__pd_alloc(c->pd, size);

	if (!p && !c->rc)
		c->rc = pev__pd_fail(c->pd, c->err, PEV_ENOMEM, "features", "%s: out of memory",
				     c->where);
	return p;
}

/* A count, then that many strings. */
static const char *const *get_str_list(struct cur *c, uint32_t *nr, const char *what)
{
	const char **list;

	if (!get_u32(c, nr, what) || !check_count(c, *nr, 5, what))
		return NULL;
	list = cur_alloc(c, (*nr + 1) * sizeof(*list));
	for (uint32_t i = 0; list && i < *nr; i++)
		if (!(list[i] = get_str(c, what)))
			return NULL;
	return list;
}

/* ---- build ids -------------------------------------------------------------- */

int pev__pd_build_id_add(struct pev_perfdata *pd, const unsigned char *p, size_t size,
			 bool old_layout, const char *where, struct pev_error *err)
{
	struct pev_perfdata_build_id b = {0};
	size_t name_at = old_layout ? 32 : PD_BUILD_ID_FIXED;
	uint16_t misc = pd_u16(p + 4);

	if (size <= name_at)
		return pev__pd_fail(pd, err, PEV_EFORMAT, "features",
				    "%s: a build id entry of %zu bytes has no room for a file name "
				    "(at least %zu)",
				    where, size, name_at + 1);
	const char *name = (const char *)p + name_at;
	size_t name_max = size - name_at;
	if (!memchr(name, '\0', name_max))
		return pev__pd_fail(pd, err, PEV_EFORMAT, "features",
				    "%s: the file name of a build id entry (%zu bytes) has no "
				    "terminating NUL",
				    where, name_max);
	b.cpumode = misc & PEV_RECORD_MISC_CPUMODE_MASK;
	if (old_layout) {
		/* Before perf kept a pid per entry: the host, or the default guest. */
		b.pid = (b.cpumode == PEV_RECORD_MISC_GUEST_KERNEL ||
			 b.cpumode == PEV_RECORD_MISC_GUEST_USER)
				? 0
				: -1;
		memcpy(b.build_id, p + 8, PEV_PERFDATA_BUILD_ID_MAX);
		b.size = PEV_PERFDATA_BUILD_ID_MAX;
	} else {
		b.pid = (int32_t)pd_u32(p + 8);
		memcpy(b.build_id, p + 12, PEV_PERFDATA_BUILD_ID_MAX);
		b.size = PEV_PERFDATA_BUILD_ID_MAX;
		if (misc & PD_BUILD_ID_MISC_SIZE) {
			b.size = p[32];
			if (b.size == 0 || b.size > PEV_PERFDATA_BUILD_ID_MAX)
				return pev__pd_fail(
				    pd, err, PEV_EFORMAT, "features",
				    "%s: build id entry of %s says its id is %u bytes "
				    "(1 to %d)",
				    where, name, b.size, PEV_PERFDATA_BUILD_ID_MAX);
		}
	}
	size_t len = strlen(name);
	char *copy = pev__pd_alloc(pd, len + 1);
	if (!copy)
		return pev__pd_fail(pd, err, PEV_ENOMEM, "features", "%s: out of memory", where);
	memcpy(copy, name, len + 1);
	b.filename = copy;
	if (pd->feat.nr_build_ids == pd->cap_build_ids) {
		size_t cap = pd->cap_build_ids ? 2 * pd->cap_build_ids : 16;
		struct pev_perfdata_build_id *n = realloc(pd->build_ids, cap * sizeof(*n));
		if (!n)
			return pev__pd_fail(pd, err, PEV_ENOMEM, "features", "%s: out of memory",
					    where);
		pd->build_ids = n;
		pd->cap_build_ids = cap;
	}
	pd->build_ids[pd->feat.nr_build_ids++] = b;
	pd->feat.build_ids = pd->build_ids;
	return 0;
}

static void parse_build_ids(struct cur *c)
{
	bool old_layout = false;

	c->pd->feat.nr_build_ids = 0; /* a repeated feature replaces the first */
	while (!c->rc && left(c) > 0) {
		if (!need(c, 8, "build id entry header"))
			return;
		uint16_t size = pd_u16(c->p + 6);
		if (size < 8 || size > left(c)) {
			c->rc = pev__pd_fail(c->pd, c->err, PEV_EFORMAT, "features",
					     "%s: build id entry at byte 0x%zx has size %u, %s",
					     c->where, (size_t)(c->p - c->start), size,
					     size < 8 ? "less than its 8-byte header"
						      : "past the end of the section");
			return;
		}
		/*
		 * Files from before perf stored a pid per entry put the name 4 bytes
		 * earlier; their first entry is the kernel's, whose name then reads
		 * "nel.kallsyms]" at the new offset.
		 */
		if (c->p == c->start && size > PD_BUILD_ID_FIXED + 13 &&
		    memcmp(c->p + PD_BUILD_ID_FIXED, "nel.kallsyms]", 13) == 0)
			old_layout = true;
		c->rc = pev__pd_build_id_add(c->pd, c->p, size, old_layout, c->where, c->err);
		c->p += size;
	}
}

/* ---- the other features ------------------------------------------------------ */

static void parse_cmdline(struct cur *c)
{
	struct pev_perfdata_features *f = &c->pd->feat;
	uint32_t nr = 0;
	const char *const *list = get_str_list(c, &nr, "command line word count");

	if (c->rc)
		return;
	f->nr_cmdline = nr;
	f->cmdline = list;
}

static void parse_event_desc(struct cur *c)
{
	struct pev_perfdata *pd = c->pd;
	uint32_t nr, sz;

	if (!get_u32(c, &nr, "event count") || !get_u32(c, &sz, "attribute size"))
		return;
	if (sz < PEV_ATTR_SIZE_VER0 || sz > PD_ATTR_MAX) {
		c->rc = pev__pd_fail(pd, c->err, PEV_EFORMAT, "features",
				     "%s: attribute size %u is not between %d and %d", c->where, sz,
				     PEV_ATTR_SIZE_VER0, PD_ATTR_MAX);
		return;
	}
	/* Each event: the block, its id count, its name (at least 5 bytes). */
	if (!check_count(c, nr, (size_t)sz + 9, "event count"))
		return;
	const char **names = cur_alloc(c, ((size_t)nr + 1) * sizeof(*names));
	for (uint32_t i = 0; names && i < nr; i++) {
		uint32_t nr_ids;
		if (!need(c, sz, "attribute block"))
			return;
		c->p += sz;
		if (!get_u32(c, &nr_ids, "id count"))
			return;
		if (!(names[i] = get_str(c, "event name")))
			return;
		if (!check_count(c, nr_ids, 8, "id count"))
			return;
		c->p += (size_t)nr_ids * 8;
	}
	if (c->rc)
		return;
	pd->desc_names = names;
	pd->nr_desc_names = nr;
}

static void parse_cpu_topology(struct cur *c)
{
	struct pev_perfdata_features *f = &c->pd->feat;
	uint32_t n_pkg = 0, n_core = 0, n_die = 0, nr_cpus = f->nr_cpus_avail;
	const char *const *pkg = get_str_list(c, &n_pkg, "socket CPU list count");
	const char *const *core = get_str_list(c, &n_core, "core CPU list count");
	const char *const *die = NULL;
	struct pev_perfdata_cpu_topo *cpus = NULL;

	if (c->rc)
		return;
	/* Older perf stopped here; newer ones add core and socket ids per CPU, then dies. */
	if (left(c) > 0) {
		if (nr_cpus == 0) {
			pev__pd_note(c->pd, "%s: per-CPU ids without NRCPUS to count them: ignored",
				     c->where);
			c->p = c->end;
		} else {
			if (!check_count(c, nr_cpus, 8, "CPU count (NRCPUS available)"))
				return;
			cpus = cur_alloc(c, (size_t)nr_cpus * sizeof(*cpus));
			for (uint32_t i = 0; cpus && i < nr_cpus; i++) {
				get_u32(c, &cpus[i].core_id, "core id");
				get_u32(c, &cpus[i].socket_id, "socket id");
			}
		}
	}
	if (!c->rc && left(c) > 0) {
		die = get_str_list(c, &n_die, "die CPU list count");
		if (!c->rc && cpus && !check_count(c, nr_cpus, 4, "CPU count (die ids)"))
			return;
		for (uint32_t i = 0; cpus && !c->rc && i < nr_cpus; i++)
			get_u32(c, &cpus[i].die_id, "die id");
	}
	if (c->rc)
		return;
	f->nr_package_cpus = n_pkg;
	f->package_cpus = pkg;
	f->nr_core_cpus = n_core;
	f->core_cpus = core;
	f->nr_die_cpus = n_die;
	f->die_cpus = die;
	f->nr_topology_cpus = cpus ? nr_cpus : 0;
	f->cpu_topology = cpus;
}

static void parse_pmu_mappings(struct cur *c)
{
	struct pev_perfdata_features *f = &c->pd->feat;
	struct pev_perfdata_pmu *pmus;
	uint32_t nr;

	if (!get_u32(c, &nr, "PMU count") || !check_count(c, nr, 9, "PMU count"))
		return;
	pmus = cur_alloc(c, ((size_t)nr + 1) * sizeof(*pmus));
	for (uint32_t i = 0; pmus && i < nr; i++)
		if (!get_u32(c, &pmus[i].type, "PMU type") ||
		    !(pmus[i].name = get_str(c, "PMU name")))
			return;
	if (c->rc)
		return;
	f->nr_pmus = nr;
	f->pmus = pmus;
}

/*
 * The capabilities of one PMU: a count, then name and value strings. PMU_CAPS
 * names the PMU after them; CPU_PMU_CAPS's PMU is "cpu". Appended to pd's list.
 */
static void parse_one_pmu_caps(struct cur *c, bool named)
{
	struct pev_perfdata *pd = c->pd;
	struct pev_perfdata_pmu_caps one = {.pmu = "cpu"}, *all;
	const char **names, **values;
	uint32_t nr;

	if (!get_u32(c, &nr, "capability count") || !check_count(c, nr, 10, "capability count"))
		return;
	names = cur_alloc(c, ((size_t)nr + 1) * sizeof(*names));
	values = cur_alloc(c, ((size_t)nr + 1) * sizeof(*values));
	for (uint32_t i = 0; names && values && i < nr; i++)
		if (!(names[i] = get_str(c, "capability name")) ||
		    !(values[i] = get_str(c, "capability value")))
			return;
	if (named)
		one.pmu = get_str(c, "PMU name");
	if (c->rc)
		return;
	one.nr_caps = nr;
	one.names = names;
	one.values = values;
	all = cur_alloc(c, ((size_t)pd->nr_pmu_caps + 1) * sizeof(*all));
	if (!all)
		return;
	/* CPU_PMU_CAPS (bit 28) comes before PMU_CAPS (bit 31) in file mode. */
	if (pd->nr_pmu_caps)
		memcpy(all, pd->pmu_caps, pd->nr_pmu_caps * sizeof(*all));
	all[pd->nr_pmu_caps] = one;
	pd->pmu_caps = all;
	pd->nr_pmu_caps++;
}

static void parse_pmu_caps(struct cur *c)
{
	uint32_t nr;

	if (!get_u32(c, &nr, "PMU count") || !check_count(c, nr, 9, "PMU count"))
		return;
	for (uint32_t i = 0; i < nr && !c->rc; i++)
		parse_one_pmu_caps(c, true);
}

static void parse_group_desc(struct cur *c)
{
	struct pev_perfdata_features *f = &c->pd->feat;
	struct pev_perfdata_group *groups;
	uint32_t nr;

	if (!get_u32(c, &nr, "group count") || !check_count(c, nr, 13, "group count"))
		return;
	groups = cur_alloc(c, ((size_t)nr + 1) * sizeof(*groups));
	for (uint32_t i = 0; groups && i < nr; i++)
		if (!(groups[i].name = get_str(c, "group name")) ||
		    !get_u32(c, &groups[i].leader, "group leader") ||
		    !get_u32(c, &groups[i].nr_members, "group size"))
			return;
	if (c->rc)
		return;
	f->nr_groups = nr;
	f->groups = groups;
}

static void parse_clock_data(struct cur *c)
{
	struct pev_perfdata_features *f = &c->pd->feat;
	uint32_t version, clockid;
	uint64_t tod, clk;

	if (!get_u32(c, &version, "version"))
		return;
	if (version != 1) {
		pev__pd_note(c->pd, "%s: version %u, which perfev does not know: ignored", c->where,
			     version);
		return;
	}
	if (!get_u32(c, &clockid, "clockid") || !get_u64(c, &tod, "wall-clock time") ||
	    !get_u64(c, &clk, "clock time"))
		return;
	f->clock_data_version = version;
	f->clock_data_clockid = clockid;
	f->clock_data_tod_ns = tod;
	f->clock_data_clock_ns = clk;
}

static void parse_compressed(struct cur *c)
{
	struct pev_perfdata_features *f = &c->pd->feat;
	uint32_t v[5];

	for (int i = 0; i < 5; i++)
		if (!get_u32(c, &v[i], "compression parameter"))
			return;
	f->compressed_version = v[0];
	f->compressed_type = v[1];
	f->compressed_level = v[2];
	f->compressed_ratio = v[3];
	f->compressed_mmap_len = v[4];
}

static void parse_string_feature(struct cur *c, const char **slot)
{
	const char *s = get_str(c, "string");

	if (s)
		*slot = s;
}

static void parse(struct cur *c, unsigned feature)
{
	struct pev_perfdata_features *f = &c->pd->feat;
	uint32_t a, b;
	uint64_t x, y;

	switch (feature) {
	case PEV_HEADER_BUILD_ID:
		parse_build_ids(c);
		break;
	case PEV_HEADER_HOSTNAME:
		parse_string_feature(c, &f->hostname);
		break;
	case PEV_HEADER_OSRELEASE:
		parse_string_feature(c, &f->osrelease);
		break;
	case PEV_HEADER_VERSION:
		parse_string_feature(c, &f->version);
		break;
	case PEV_HEADER_ARCH:
		parse_string_feature(c, &f->arch);
		break;
	case PEV_HEADER_CPUDESC:
		parse_string_feature(c, &f->cpudesc);
		break;
	case PEV_HEADER_CPUID:
		parse_string_feature(c, &f->cpuid);
		break;
	case PEV_HEADER_NRCPUS:
		if (get_u32(c, &a, "CPUs available") && get_u32(c, &b, "CPUs online")) {
			f->nr_cpus_avail = a;
			f->nr_cpus_online = b;
		}
		break;
	case PEV_HEADER_TOTAL_MEM:
		if (get_u64(c, &x, "total memory"))
			f->total_mem_kb = x;
		break;
	case PEV_HEADER_CMDLINE:
		parse_cmdline(c);
		break;
	case PEV_HEADER_EVENT_DESC:
		parse_event_desc(c);
		break;
	case PEV_HEADER_CPU_TOPOLOGY:
		parse_cpu_topology(c);
		break;
	case PEV_HEADER_PMU_MAPPINGS:
		parse_pmu_mappings(c);
		break;
	case PEV_HEADER_GROUP_DESC:
		parse_group_desc(c);
		break;
	case PEV_HEADER_CPU_PMU_CAPS:
		parse_one_pmu_caps(c, false);
		break;
	case PEV_HEADER_PMU_CAPS:
		parse_pmu_caps(c);
		break;
	case PEV_HEADER_SAMPLE_TIME:
		if (get_u64(c, &x, "first sample time") && get_u64(c, &y, "last sample time")) {
			f->sample_time_first = x;
			f->sample_time_last = y;
		}
		break;
	case PEV_HEADER_CLOCKID:
		if (get_u64(c, &x, "clock resolution"))
			f->clockid_res_ns = x;
		break;
	case PEV_HEADER_CLOCK_DATA:
		parse_clock_data(c);
		break;
	case PEV_HEADER_COMPRESSED:
		parse_compressed(c);
		break;
	default:
		/* Kept as raw bytes only (tracing data, topologies, caches, BPF, ...). */
		if (feature >= PEV_HEADER_LAST_FEATURE)
			pev__pd_note(
			    c->pd,
			    "feature bit %u is unknown to perfev (a newer perf?): kept as raw "
			    "bytes",
			    feature);
		break;
	}
}

static int add_section(struct pev_perfdata *pd, unsigned feature, const unsigned char *data,
		       uint64_t size, uint64_t offset, struct pev_error *err)
{
	if (pd->feat.nr_sections == pd->cap_sections) {
		size_t cap = pd->cap_sections ? 2 * pd->cap_sections : 32;
		struct pev_perfdata_section *n = realloc(pd->sections, cap * sizeof(*n));
		if (!n)
			return pev__pd_fail(pd, err, PEV_ENOMEM, "features",
					    "out of memory for feature %s",
					    pev_perfdata_feature_name(feature));
		pd->sections = n;
		pd->cap_sections = cap;
	}
	/* A feature that comes again (pipe mode) replaces the first. */
	size_t i = 0;
	while (i < pd->feat.nr_sections && pd->sections[i].feature != feature)
		i++;
	pd->sections[i] = (struct pev_perfdata_section){feature, offset, size, data};
	if (i == pd->feat.nr_sections)
		pd->feat.nr_sections++;
	pd->feat.sections = pd->sections;
	return 0;
}

int pev__pd_feature_parse(struct pev_perfdata *pd, unsigned feature, const unsigned char *data,
			  uint64_t size, uint64_t offset, uint64_t record_offset,
			  struct pev_error *err)
{
	struct pev_error local;
	struct cur c = {
		.pd = pd,
		.start = data,
		.p = data,
		.end = data + size,
		.err = (pd->flags & PEV_PERFDATA_LENIENT) ? &local : err,
	};

	if (offset)
		snprintf(c.where, sizeof(c.where), "feature %s (section at offset 0x%" PRIx64 ")",
			 pev_perfdata_feature_name(feature), offset);
	else
		snprintf(c.where, sizeof(c.where), "feature %s (HEADER_FEATURE record at offset 0x%" PRIx64 ")",
			 pev_perfdata_feature_name(feature), record_offset);
	size_t nr_build_ids = pd->feat.nr_build_ids;
	int rc = add_section(pd, feature, data, size, offset, err);
	if (rc)
		return rc;
	parse(&c, feature);
	if (c.rc && feature == PEV_HEADER_BUILD_ID)
		pd->feat.nr_build_ids = nr_build_ids;
	if (c.rc == PEV_ENOMEM) {
		if (c.err == &local && err)
			*err = local;
		return PEV_ENOMEM;
	}
	if (c.rc) {
		if (c.err != &local)
			return c.rc;
		pev__pd_note(pd, "dropped: %s", local.message);
		return 0;
	}
	if (feature < PEV_HEADER_FEAT_BITS)
		pd->feat.bits[feature / 64] |= UINT64_C(1) << (feature % 64);
	return 0;
}

void pev__pd_features_apply(struct pev_perfdata *pd)
{
	const struct pev_perfdata_features *f = &pd->feat;

	if (!pd->pipe && pd->desc_names && pd->nr_desc_names != (uint32_t)pd->nr_events)
		pev__pd_note(pd,
			     "EVENT_DESC describes %u events, the attr section has %d: names go by "
			     "position",
			     pd->nr_desc_names, pd->nr_events);
	for (uint32_t i = 0; i < pd->nr_desc_names && (int)i < pd->nr_events; i++) {
		struct pd_event *ev = pd->events[i];
		if (ev->pub.name || !pd->desc_names[i])
			continue;
		ev->name = strdup(pd->desc_names[i]);
		ev->pub.name = ev->name;
	}
	for (uint32_t g = 0; g < f->nr_groups; g++) {
		const struct pev_perfdata_group *grp = &f->groups[g];
		if (grp->nr_members == 0 || grp->leader >= (uint32_t)pd->nr_events ||
		    grp->nr_members > (uint32_t)pd->nr_events - grp->leader) {
			/* In pipe mode the events may come later. */
			if (!pd->pipe)
				pev__pd_note(
				    pd,
				    "GROUP_DESC group #%u (leader #%u, %u members) names events "
				    "the file does not have (%d): ignored",
				    g, grp->leader, grp->nr_members, pd->nr_events);
			continue;
		}
		for (uint32_t m = 0; m < grp->nr_members; m++)
			pd->events[grp->leader + m]->pub.leader = (int)grp->leader;
		struct pd_event *leader = pd->events[grp->leader];
		if (!leader->group_name && strcmp(grp->name, "{anon_group}") != 0) {
			leader->group_name = strdup(grp->name);
			leader->pub.group_name = leader->group_name;
		}
	}
}
