/* SPDX-License-Identifier: MIT */
/*
 * event_names.c - generic event names (perf's spellings and aliases) and
 * event descriptions: the names every layer uses to say which event it means.
 * The constructors that read the machine (PMU types, probes) are in
 * events/probes.c.
 */
#include "perfev/event.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/error_internal.h"
#include "core/util.h"

/* One generic name: the first spelling of each id is perf's canonical one. */
struct named_id {
	const char *name;
	uint64_t id;
};

static const struct named_id hw_names[] = {
	{"cycles", PEV_HW_CPU_CYCLES},
	{"cpu-cycles", PEV_HW_CPU_CYCLES},
	{"instructions", PEV_HW_INSTRUCTIONS},
	{"cache-references", PEV_HW_CACHE_REFERENCES},
	{"cache-misses", PEV_HW_CACHE_MISSES},
	{"branches", PEV_HW_BRANCH_INSTRUCTIONS},
	{"branch-instructions", PEV_HW_BRANCH_INSTRUCTIONS},
	{"branch-misses", PEV_HW_BRANCH_MISSES},
	{"bus-cycles", PEV_HW_BUS_CYCLES},
	{"stalled-cycles-frontend", PEV_HW_STALLED_CYCLES_FRONTEND},
	{"idle-cycles-frontend", PEV_HW_STALLED_CYCLES_FRONTEND},
	{"stalled-cycles-backend", PEV_HW_STALLED_CYCLES_BACKEND},
	{"idle-cycles-backend", PEV_HW_STALLED_CYCLES_BACKEND},
	{"ref-cycles", PEV_HW_REF_CPU_CYCLES},
};

static const struct named_id sw_names[] = {
	{"cpu-clock", PEV_SW_CPU_CLOCK},
	{"task-clock", PEV_SW_TASK_CLOCK},
	{"page-faults", PEV_SW_PAGE_FAULTS},
	{"faults", PEV_SW_PAGE_FAULTS},
	{"context-switches", PEV_SW_CONTEXT_SWITCHES},
	{"cs", PEV_SW_CONTEXT_SWITCHES},
	{"cpu-migrations", PEV_SW_CPU_MIGRATIONS},
	{"migrations", PEV_SW_CPU_MIGRATIONS},
	{"minor-faults", PEV_SW_PAGE_FAULTS_MIN},
	{"major-faults", PEV_SW_PAGE_FAULTS_MAJ},
	{"alignment-faults", PEV_SW_ALIGNMENT_FAULTS},
	{"emulation-faults", PEV_SW_EMULATION_FAULTS},
	{"dummy", PEV_SW_DUMMY},
	{"bpf-output", PEV_SW_BPF_OUTPUT},
	{"cgroup-switches", PEV_SW_CGROUP_SWITCHES},
};

/* Cache levels, operations and results, each with perf's accepted spellings. */
static const char *const cache_level_names[PEV_HW_CACHE_MAX][5] = {
	[PEV_HW_CACHE_L1D] = {"L1-dcache", "l1-d", "l1d", "L1-data", NULL},
	[PEV_HW_CACHE_L1I] = {"L1-icache", "l1-i", "l1i", "L1-instruction", NULL},
	[PEV_HW_CACHE_LL] = {"LLC", "L2", NULL},
	[PEV_HW_CACHE_DTLB] = {"dTLB", "d-tlb", "Data-TLB", NULL},
	[PEV_HW_CACHE_ITLB] = {"iTLB", "i-tlb", "Instruction-TLB", NULL},
	[PEV_HW_CACHE_BPU] = {"branch", "branches", "bpu", "btb", "bpc"},
	[PEV_HW_CACHE_NODE] = {"node", NULL},
};

/* Operation spellings: [0] is used before "-misses", [1] alone. */
static const char *const cache_op_names[PEV_HW_CACHE_OP_MAX][5] = {
	[PEV_HW_CACHE_OP_READ] = {"load", "loads", "read", NULL},
	[PEV_HW_CACHE_OP_WRITE] = {"store", "stores", "write", NULL},
	[PEV_HW_CACHE_OP_PREFETCH] = {"prefetch", "prefetches", "speculative-read",
				      "speculative-load", NULL},
};

static const char *const cache_result_names[PEV_HW_CACHE_RESULT_MAX][5] = {
	[PEV_HW_CACHE_RESULT_ACCESS] = {"refs", "Reference", "ops", "access", NULL},
	[PEV_HW_CACHE_RESULT_MISS] = {"misses", "miss", NULL},
};

/* Which operations perf offers for each cache level (bit per op). */
static const unsigned cache_valid_ops[PEV_HW_CACHE_MAX] = {
	[PEV_HW_CACHE_L1D] = 7, [PEV_HW_CACHE_L1I] = 5, [PEV_HW_CACHE_LL] = 7,
	[PEV_HW_CACHE_DTLB] = 7, [PEV_HW_CACHE_ITLB] = 1, [PEV_HW_CACHE_BPU] = 1,
	[PEV_HW_CACHE_NODE] = 7,
};

PEV_API const char *pev_hw_name(uint64_t id)
{
	for (size_t i = 0; i < PEV_ARRAY_SIZE(hw_names); i++)
		if (hw_names[i].id == id)
			return hw_names[i].name;
	return NULL;
}

PEV_API const char *pev_sw_name(uint64_t id)
{
	for (size_t i = 0; i < PEV_ARRAY_SIZE(sw_names); i++)
		if (sw_names[i].id == id)
			return sw_names[i].name;
	return NULL;
}

/*
 * Matches one of `names` (case-insensitive) at the start of s, followed by
 * '-' or the end. Returns the length matched, 0 when none matches.
 */
static size_t match_prefix(const char *s, const char *const names[5])
{
	size_t best = 0;

	for (int i = 0; i < 5 && names[i]; i++) {
		size_t n = strlen(names[i]);
		if (n > best && strncasecmp(s, names[i], n) == 0 && (s[n] == '-' || s[n] == '\0'))
			best = n;
	}
	return best;
}

/* Parses perf's "<level>-<op>[-<result>]" or "<level>-<result>" cache names. */
static bool lookup_cache(const char *name, uint64_t *config)
{
	for (int level = 0; level < PEV_HW_CACHE_MAX; level++) {
		size_t n = match_prefix(name, cache_level_names[level]);
		if (!n || name[n] != '-')
			continue;
		const char *rest = name + n + 1;
		int op = PEV_HW_CACHE_OP_READ, result = PEV_HW_CACHE_RESULT_ACCESS;
		bool have_op = false;
		for (int o = 0; o < PEV_HW_CACHE_OP_MAX && !have_op; o++) {
			size_t m = match_prefix(rest, cache_op_names[o]);
			if (m) {
				op = o;
				have_op = true;
				rest += m;
			}
		}
		if (have_op && *rest == '-')
			rest++;
		else if (have_op && *rest != '\0')
			continue;
		if (*rest) {
			bool have_result = false;
			for (int r = 0; r < PEV_HW_CACHE_RESULT_MAX; r++) {
				size_t m = match_prefix(rest, cache_result_names[r]);
				if (m && rest[m] == '\0') {
					result = r;
					have_result = true;
				}
			}
			if (!have_result)
				continue;
		} else if (!have_op) {
			continue;
		}
		if (!(cache_valid_ops[level] & (1u << op)))
			return false;
		*config = PEV_HW_CACHE_CONFIG(level, op, result);
		return true;
	}
	return false;
}

/* Writes perf's canonical name of a cache config, or returns false if invalid. */
static bool cache_name(uint64_t config, char *buf, size_t size)
{
	unsigned level = config & 0xff, op = (config >> 8) & 0xff, result = (config >> 16) & 0xff;

	if ((config & PEV_HW_EVENT_MASK) >> 24 || level >= PEV_HW_CACHE_MAX ||
	    op >= PEV_HW_CACHE_OP_MAX || result >= PEV_HW_CACHE_RESULT_MAX)
		return false;
	if (result == PEV_HW_CACHE_RESULT_MISS)
		snprintf(buf, size, "%s-%s-%s", cache_level_names[level][0], cache_op_names[op][0],
			 cache_result_names[result][0]);
	else
		snprintf(buf, size, "%s-%s", cache_level_names[level][0], cache_op_names[op][1]);
	return true;
}

/* Walks one table of names; returns the count so far, or fn's non-zero return negated. */
static int walk_names(const struct named_id *table, size_t n, uint32_t kind, pev_event_name_fn fn,
		      void *ctx, int *count)
{
	for (size_t i = 0; i < n; i++) {
		const char *canonical = table[i].name;
		for (size_t j = 0; j < i; j++)
			if (table[j].id == table[i].id) {
				canonical = table[j].name;
				break;
			}
		struct pev_event ev = {.type = kind, .config = table[i].id, .name = table[i].name};
		int r = fn(table[i].name, canonical, kind, &ev, ctx);
		if (r)
			return r;
		(*count)++;
	}
	return 0;
}

PEV_API int pev_event_foreach_name(pev_event_name_fn fn, void *ctx)
{
	int count = 0, r;

	if (!fn)
		return pev__bad_arg(NULL, "pev_event_foreach_name", "fn", "NULL");
	if ((r = walk_names(hw_names, PEV_ARRAY_SIZE(hw_names), PEV_TYPE_HARDWARE, fn, ctx, &count)) ||
	    (r = walk_names(sw_names, PEV_ARRAY_SIZE(sw_names), PEV_TYPE_SOFTWARE, fn, ctx, &count)))
		return r;
	for (int level = 0; level < PEV_HW_CACHE_MAX; level++)
		for (int op = 0; op < PEV_HW_CACHE_OP_MAX; op++)
			for (int result = 0; result < PEV_HW_CACHE_RESULT_MAX; result++) {
				char name[96];
				if (!(cache_valid_ops[level] & (1u << op)))
					continue;
				struct pev_event ev = {.type = PEV_TYPE_HW_CACHE,
						       .config = PEV_HW_CACHE_CONFIG(level, op, result)};
				cache_name(ev.config, name, sizeof(name));
				ev.name = name;
				if ((r = fn(name, name, PEV_TYPE_HW_CACHE, &ev, ctx)))
					return r;
				count++;
			}
	return count;
}

PEV_API int pev_event_lookup(const char *name, struct pev_event *ev)
{
	uint64_t config;

	if (!name || !ev)
		return pev__bad_arg(NULL, "pev_event_lookup", name ? "ev" : "name", "NULL");
	for (size_t i = 0; i < PEV_ARRAY_SIZE(hw_names); i++)
		if (strcmp(name, hw_names[i].name) == 0) {
			*ev = pev_event_hardware((enum pev_hw_id)hw_names[i].id);
			ev->name = hw_names[i].name;
			return 0;
		}
	for (size_t i = 0; i < PEV_ARRAY_SIZE(sw_names); i++)
		if (strcmp(name, sw_names[i].name) == 0) {
			*ev = pev_event_software((enum pev_sw_id)sw_names[i].id);
			ev->name = sw_names[i].name;
			return 0;
		}
	if (lookup_cache(name, &config)) {
		memset(ev, 0, sizeof(*ev));
		ev->type = PEV_TYPE_HW_CACHE;
		ev->config = config;
		return 0;
	}
	return PEV_ENOTFOUND;
}

static const char *bp_kind(uint32_t bp_type)
{
	static const char *const kinds[8] = {"none", "r", "w", "rw", "x", "rx", "wx", "rwx"};

	return bp_type < 8 ? kinds[bp_type] : "?";
}

PEV_API char *pev_event_describe(const struct pev_event *ev, char *buf, size_t size)
{
	const char *n;

	if (!buf || size == 0)
		return buf;
	buf[0] = '\0';
	if (!ev)
		return buf;
	if (ev->name && ev->name[0]) {
		pev__strlcpy(buf, ev->name, size);
		return buf;
	}
	switch (ev->type) {
	case PEV_TYPE_HARDWARE:
		n = pev_hw_name(ev->config & PEV_HW_EVENT_MASK);
		if (n && !(ev->config >> PEV_PMU_TYPE_SHIFT))
			pev__strlcpy(buf, n, size);
		else if (n)
			snprintf(buf, size, "%s (PMU type %" PRIu64 ")", n,
				 ev->config >> PEV_PMU_TYPE_SHIFT);
		else
			snprintf(buf, size, "hardware event %" PRIu64, ev->config);
		return buf;
	case PEV_TYPE_SOFTWARE:
		n = pev_sw_name(ev->config);
		if (n)
			pev__strlcpy(buf, n, size);
		else
			snprintf(buf, size, "software event %" PRIu64, ev->config);
		return buf;
	case PEV_TYPE_HW_CACHE:
		if (!cache_name(ev->config, buf, size))
			snprintf(buf, size, "cache event 0x%" PRIx64, ev->config);
		return buf;
	case PEV_TYPE_RAW:
		snprintf(buf, size, "r%" PRIx64, ev->config);
		return buf;
	case PEV_TYPE_TRACEPOINT:
		snprintf(buf, size, "tracepoint %" PRIu64, ev->config);
		return buf;
	case PEV_TYPE_BREAKPOINT:
		snprintf(buf, size, "mem:0x%" PRIx64 "/%" PRIu64 ":%s", ev->config1, ev->config2,
			 bp_kind(ev->bp_type));
		return buf;
	default:
		if (ev->pmu && (strcmp(ev->pmu, "uprobe") == 0 || strcmp(ev->pmu, "kprobe") == 0)) {
			char target[200];
			if (!pev__read_user_string(ev->config1, target, sizeof(target)))
				snprintf(target, sizeof(target), "?");
			snprintf(buf, size, "%s%s:%s+0x%" PRIx64, ev->pmu, ev->config ? " (ret)" : "",
				 target, ev->config2);
		} else if (ev->pmu && ev->pmu[0])
			snprintf(buf, size, "%s/config=0x%" PRIx64 "/", ev->pmu, ev->config);
		else
			snprintf(buf, size, "type %u config 0x%" PRIx64, ev->type, ev->config);
		return buf;
	}
}
