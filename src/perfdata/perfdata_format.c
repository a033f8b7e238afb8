/* SPDX-License-Identifier: MIT */
/*
 * perfdata_format.c - names of the perf.data feature bits and record types,
 * and where an event's records keep their sample id and time.
 */
#include "perfdata/perfdata_format.h"

#include "perfev/record.h"
#include "core/util.h"

static const char *const feature_names[PEV_HEADER_LAST_FEATURE] = {
	[PEV_HEADER_RESERVED] = "RESERVED",
	[PEV_HEADER_TRACING_DATA] = "TRACING_DATA",
	[PEV_HEADER_BUILD_ID] = "BUILD_ID",
	[PEV_HEADER_HOSTNAME] = "HOSTNAME",
	[PEV_HEADER_OSRELEASE] = "OSRELEASE",
	[PEV_HEADER_VERSION] = "VERSION",
	[PEV_HEADER_ARCH] = "ARCH",
	[PEV_HEADER_NRCPUS] = "NRCPUS",
	[PEV_HEADER_CPUDESC] = "CPUDESC",
	[PEV_HEADER_CPUID] = "CPUID",
	[PEV_HEADER_TOTAL_MEM] = "TOTAL_MEM",
	[PEV_HEADER_CMDLINE] = "CMDLINE",
	[PEV_HEADER_EVENT_DESC] = "EVENT_DESC",
	[PEV_HEADER_CPU_TOPOLOGY] = "CPU_TOPOLOGY",
	[PEV_HEADER_NUMA_TOPOLOGY] = "NUMA_TOPOLOGY",
	[PEV_HEADER_BRANCH_STACK] = "BRANCH_STACK",
	[PEV_HEADER_PMU_MAPPINGS] = "PMU_MAPPINGS",
	[PEV_HEADER_GROUP_DESC] = "GROUP_DESC",
	[PEV_HEADER_AUXTRACE] = "AUXTRACE",
	[PEV_HEADER_STAT] = "STAT",
	[PEV_HEADER_CACHE] = "CACHE",
	[PEV_HEADER_SAMPLE_TIME] = "SAMPLE_TIME",
	[PEV_HEADER_MEM_TOPOLOGY] = "MEM_TOPOLOGY",
	[PEV_HEADER_CLOCKID] = "CLOCKID",
	[PEV_HEADER_DIR_FORMAT] = "DIR_FORMAT",
	[PEV_HEADER_BPF_PROG_INFO] = "BPF_PROG_INFO",
	[PEV_HEADER_BPF_BTF] = "BPF_BTF",
	[PEV_HEADER_COMPRESSED] = "COMPRESSED",
	[PEV_HEADER_CPU_PMU_CAPS] = "CPU_PMU_CAPS",
	[PEV_HEADER_CLOCK_DATA] = "CLOCK_DATA",
	[PEV_HEADER_HYBRID_TOPOLOGY] = "HYBRID_TOPOLOGY",
	[PEV_HEADER_PMU_CAPS] = "PMU_CAPS",
	[PEV_HEADER_CPU_DOMAIN_INFO] = "CPU_DOMAIN_INFO",
};

PEV_API const char *pev_perfdata_feature_name(unsigned feature)
{
	if (feature < PEV_ARRAY_SIZE(feature_names) && feature_names[feature])
		return feature_names[feature];
	return "UNKNOWN";
}

static const char *const user_type_names[PEV_RECORD_HEADER_MAX - PEV_RECORD_USER_TYPE_START] = {
	[PEV_RECORD_HEADER_ATTR - 64] = "HEADER_ATTR",
	[PEV_RECORD_HEADER_EVENT_TYPE - 64] = "HEADER_EVENT_TYPE",
	[PEV_RECORD_HEADER_TRACING_DATA - 64] = "HEADER_TRACING_DATA",
	[PEV_RECORD_HEADER_BUILD_ID - 64] = "HEADER_BUILD_ID",
	[PEV_RECORD_FINISHED_ROUND - 64] = "FINISHED_ROUND",
	[PEV_RECORD_ID_INDEX - 64] = "ID_INDEX",
	[PEV_RECORD_AUXTRACE_INFO - 64] = "AUXTRACE_INFO",
	[PEV_RECORD_AUXTRACE - 64] = "AUXTRACE",
	[PEV_RECORD_AUXTRACE_ERROR - 64] = "AUXTRACE_ERROR",
	[PEV_RECORD_THREAD_MAP - 64] = "THREAD_MAP",
	[PEV_RECORD_CPU_MAP - 64] = "CPU_MAP",
	[PEV_RECORD_STAT_CONFIG - 64] = "STAT_CONFIG",
	[PEV_RECORD_STAT - 64] = "STAT",
	[PEV_RECORD_STAT_ROUND - 64] = "STAT_ROUND",
	[PEV_RECORD_EVENT_UPDATE - 64] = "EVENT_UPDATE",
	[PEV_RECORD_TIME_CONV - 64] = "TIME_CONV",
	[PEV_RECORD_HEADER_FEATURE - 64] = "HEADER_FEATURE",
	[PEV_RECORD_COMPRESSED - 64] = "COMPRESSED",
	[PEV_RECORD_FINISHED_INIT - 64] = "FINISHED_INIT",
	[PEV_RECORD_COMPRESSED2 - 64] = "COMPRESSED2",
	[PEV_RECORD_BPF_METADATA - 64] = "BPF_METADATA",
	[PEV_RECORD_SCHEDSTAT_CPU - 64] = "SCHEDSTAT_CPU",
	[PEV_RECORD_SCHEDSTAT_DOMAIN - 64] = "SCHEDSTAT_DOMAIN",
};

PEV_API const char *pev_perfdata_record_type_name(uint32_t type)
{
	if (type < PEV_RECORD_USER_TYPE_START)
		return pev_record_type_name(type);
	if (type < PEV_RECORD_HEADER_MAX && user_type_names[type - PEV_RECORD_USER_TYPE_START])
		return user_type_names[type - PEV_RECORD_USER_TYPE_START];
	return "UNKNOWN";
}

static int has(uint64_t sample_type, uint64_t bit)
{
	return (sample_type & bit) ? 1 : 0;
}

void pev__pd_layout_from_attr(const struct pev_attr *attr, struct pd_layout *out)
{
	uint64_t st = attr->sample_type;

	/* A SAMPLE starts with IDENTIFIER, IP, TID, TIME, ADDR, ID, ... */
	out->sample_time_at = -1;
	if (st & PEV_SAMPLE_TIME)
		out->sample_time_at =
			8 + 8 * (has(st, PEV_SAMPLE_IDENTIFIER) + has(st, PEV_SAMPLE_IP) +
				 has(st, PEV_SAMPLE_TID));
	out->sample_id_at = -1;
	if (st & PEV_SAMPLE_IDENTIFIER)
		out->sample_id_at = 8;
	else if (st & PEV_SAMPLE_ID)
		out->sample_id_at = 8 + 8 * (has(st, PEV_SAMPLE_IP) + has(st, PEV_SAMPLE_TID) +
					     has(st, PEV_SAMPLE_TIME) + has(st, PEV_SAMPLE_ADDR));

	/* Other records end with TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER. */
	out->trailer_id_back = 0;
	out->trailer_time_back = 0;
	if (!(attr->flags & PEV_ATTR_SAMPLE_ID_ALL))
		return;
	if (st & PEV_SAMPLE_IDENTIFIER)
		out->trailer_id_back = 8;
	else if (st & PEV_SAMPLE_ID)
		out->trailer_id_back = 8 * (1 + has(st, PEV_SAMPLE_STREAM_ID) + has(st, PEV_SAMPLE_CPU));
	if (st & PEV_SAMPLE_TIME)
		out->trailer_time_back =
			8 * (1 + has(st, PEV_SAMPLE_ID) + has(st, PEV_SAMPLE_STREAM_ID) +
			     has(st, PEV_SAMPLE_CPU) + has(st, PEV_SAMPLE_IDENTIFIER));
}

/* Kernel records other than SAMPLE carry the trailer; perf's own types do not. */
static bool has_trailer(uint32_t type)
{
	return type != PEV_RECORD_SAMPLE && type > 0 && type < PEV_RECORD_USER_TYPE_START;
}

static bool layout_read(uint32_t type, int at, int back, const void *rec, size_t size,
			uint64_t *v)
{
	if (type == PEV_RECORD_SAMPLE) {
		if (at < 0 || size < (size_t)at + 8)
			return false;
		*v = pd_u64((const unsigned char *)rec + at);
		return true;
	}
	if (!has_trailer(type) || back == 0 || size < 8 + (size_t)back)
		return false;
	*v = pd_u64((const unsigned char *)rec + size - (size_t)back);
	return true;
}

bool pev__pd_layout_id(const struct pd_layout *l, const void *rec, size_t size, uint64_t *v)
{
	return layout_read(pd_u32(rec), l->sample_id_at, l->trailer_id_back, rec, size, v);
}

bool pev__pd_layout_time(const struct pd_layout *l, const void *rec, size_t size, uint64_t *v)
{
	return layout_read(pd_u32(rec), l->sample_time_at, l->trailer_time_back, rec, size, v);
}

void pev__pd_layout_common(struct pd_layout *common, const struct pd_layout *l, bool first)
{
	if (first) {
		*common = *l;
		return;
	}
	if (common->sample_id_at != l->sample_id_at)
		common->sample_id_at = -1;
	if (common->sample_time_at != l->sample_time_at)
		common->sample_time_at = -1;
	if (common->trailer_id_back != l->trailer_id_back)
		common->trailer_id_back = 0;
	if (common->trailer_time_back != l->trailer_time_back)
		common->trailer_time_back = 0;
}

size_t pev__pd_string_size(const char *text)
{
	size_t len = strlen(text) + 1;

	return 4 + (len + PD_NAME_ALIGN - 1) / PD_NAME_ALIGN * PD_NAME_ALIGN;
}
