/* SPDX-License-Identifier: MIT */
/*
 * report_header.c - the header block of `perfev report --header` and
 * `--header-only`: what a perf.data file says about where and how it was
 * recorded, as perf 6.1 prints it:
 *
 *     # ========
 *     # captured on    : Tue Nov 24 07:09:40 2026
 *     # header version : 1
 *     ...
 *     # hostname : vm
 *     # event : name = cpu-clock, , id = { 52592, 52593 }, type = 1, ...
 *     # missing features: TRACING_DATA BRANCH_STACK ...
 *     # ========
 *     #
 *
 * One line (or a few) per feature present, in feature order; the
 * topology features say only that they are there, as perf does without -I.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "report.h"

/* The last feature perf 6.1 knows: it lists the missing ones up to here. */
#define PERF61_LAST_FEATURE PEV_HEADER_PMU_CAPS

/* Prints the names of the set bits of v ("IP|TID|TIME"), unknown ones in hex. */
static void print_bits(FILE *out, uint64_t v, const char *const *names, unsigned nr)
{
	const char *sep = "";

	for (unsigned i = 0; i < 64 && v; i++) {
		uint64_t bit = UINT64_C(1) << i;

		if (!(v & bit))
			continue;
		if (i < nr && names[i])
			fprintf(out, "%s%s", sep, names[i]);
		else
			fprintf(out, "%s%#" PRIx64, sep, bit);
		v &= ~bit;
		sep = "|";
	}
}

static void print_sample_type(FILE *out, uint64_t v)
{
	static const char *const names[] = {
		"IP",	      "TID",	       "TIME",	       "ADDR",	      "READ",
		"CALLCHAIN",  "ID",	       "CPU",	       "PERIOD",      "STREAM_ID",
		"RAW",	      "BRANCH_STACK",  "REGS_USER",    "STACK_USER",  "WEIGHT",
		"DATA_SRC",   "IDENTIFIER",    "TRANSACTION",  "REGS_INTR",   "PHYS_ADDR",
		"AUX",	      "CGROUP",	       "DATA_PAGE_SIZE", "CODE_PAGE_SIZE",
		"WEIGHT_STRUCT",
	};
	print_bits(out, v, names, sizeof(names) / sizeof(names[0]));
}

static void print_read_format(FILE *out, uint64_t v)
{
	static const char *const names[] = {"TOTAL_TIME_ENABLED", "TOTAL_TIME_RUNNING", "ID",
					    "GROUP", "LOST"};
	print_bits(out, v, names, sizeof(names) / sizeof(names[0]));
}

static void print_branch_type(FILE *out, uint64_t v)
{
	static const char *const names[] = {
		"USER",	      "KERNEL",	   "HV",	"ANY",	    "ANY_CALL",	 "ANY_RETURN",
		"IND_CALL",   "ABORT_TX",  "IN_TX",	"NO_TX",    "COND",	 "CALL_STACK",
		"IND_JUMP",   "CALL",	   "NO_FLAGS",	"NO_CYCLES", "TYPE_SAVE", "HW_INDEX",
		"PRIV_SAVE",
	};
	print_bits(out, v, names, sizeof(names) / sizeof(names[0]));
}

/* The one-bit attribute flags, in the order of their bits (precise_ip is a 2-bit value). */
static const char *const flag_names[] = {
	"disabled",	  "inherit",	     "pinned",		"exclusive",
	"exclude_user",	  "exclude_kernel",  "exclude_hv",	"exclude_idle",
	"mmap",		  "comm",	     "freq",		"inherit_stat",
	"enable_on_exec", "task",	     "watermark",	"precise_ip",
	NULL,		  "mmap_data",	     "sample_id_all",	"exclude_host",
	"exclude_guest",  "exclude_callchain_kernel", "exclude_callchain_user", "mmap2",
	"comm_exec",	  "use_clockid",     "context_switch",	"write_backward",
	"namespaces",	  "ksymbol",	     "bpf_event",	"aux_output",
	"cgroup",	  "text_poke",	     "build_id",	"inherit_thread",
	"remove_on_exec", "sigtrap",
};

/* ", name = value" for a non-zero field. */
static void field_u(FILE *out, const char *name, uint64_t v)
{
	if (v)
		fprintf(out, ", %s = %" PRIu64, name, v);
}

static void field_x(FILE *out, const char *name, uint64_t v)
{
	if (v)
		fprintf(out, ", %s = %#" PRIx64, name, v);
}

/* "# event : name = E, , id = { 1, 2 }, type = 1, ..." */
static void print_event(FILE *out, const struct pev_perfdata_event *ev)
{
	const struct pev_attr *a = &ev->attr;

	fprintf(out, "# event : name = %s, ", cli_shown(ev->name));
	if (ev->nr_ids) {
		fputs(", id = {", out);
		for (size_t i = 0; i < ev->nr_ids; i++)
			fprintf(out, "%s %" PRIu64, i ? "," : "", ev->ids[i]);
		fputs(" }", out);
	}
	field_u(out, "type", a->type);
	field_u(out, "size", a->size);
	field_x(out, "config", a->config);
	field_u(out, "{ sample_period, sample_freq }", a->sample_period);
	if (a->sample_type) {
		fputs(", sample_type = ", out);
		print_sample_type(out, a->sample_type);
	}
	if (a->read_format) {
		fputs(", read_format = ", out);
		print_read_format(out, a->read_format);
	}
	for (unsigned i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++) {
		if (i == PEV_ATTR_PRECISE_IP_SHIFT)
			field_u(out, "precise_ip", PEV_ATTR_PRECISE_IP(a->flags));
		else if (flag_names[i])
			field_u(out, flag_names[i], (a->flags >> i) & 1);
	}
	field_u(out, "{ wakeup_events, wakeup_watermark }", a->wakeup_events);
	field_u(out, "bp_type", a->bp_type);
	field_x(out, "{ bp_addr, config1 }", a->config1);
	field_x(out, "{ bp_len, config2 }", a->config2);
	if (a->branch_sample_type) {
		fputs(", branch_sample_type = ", out);
		print_branch_type(out, a->branch_sample_type);
	}
	field_x(out, "sample_regs_user", a->sample_regs_user);
	field_u(out, "sample_stack_user", a->sample_stack_user);
	if (a->clockid)
		fprintf(out, ", clockid = %" PRId32, a->clockid);
	field_x(out, "sample_regs_intr", a->sample_regs_intr);
	field_u(out, "aux_watermark", a->aux_watermark);
	field_u(out, "sample_max_stack", a->sample_max_stack);
	field_u(out, "aux_sample_size", a->aux_sample_size);
	field_u(out, "sig_data", a->sig_data);
	fputc('\n', out);
}

/* perf's name of a clock id. */
static const char *clock_name(uint32_t id)
{
	switch (id) {
	case 0:
		return "realtime";
	case 1:
		return "monotonic";
	case 4:
		return "monotonic_raw";
	case 7:
		return "boottime";
	case 11:
		return "tai";
	default:
		return "(unknown)";
	}
}

/* "# clockid: monotonic (1)" and the reference time on both clocks. */
static void print_clock_data(FILE *out, const struct pev_perfdata_features *f)
{
	const char *name = clock_name(f->clock_data_clockid);
	time_t sec = (time_t)(f->clock_data_tod_ns / 1000000000);
	struct tm tm;
	char date[64] = "";

	if (localtime_r(&sec, &tm))
		strftime(date, sizeof(date), "%F %T", &tm);
	fprintf(out, "# clockid: %s (%" PRIu32 ")\n", name, f->clock_data_clockid);
	fprintf(out,
		"# reference time: %s.%06" PRIu64 " = %" PRIu64 ".%06" PRIu64 " (TOD) = %" PRIu64
		".%09" PRIu64 " (%s)\n",
		date, f->clock_data_tod_ns % 1000000000 / 1000, f->clock_data_tod_ns / 1000000000,
		f->clock_data_tod_ns % 1000000000 / 1000, f->clock_data_clock_ns / 1000000000,
		f->clock_data_clock_ns % 1000000000, name);
}

/* Seconds and microseconds, as perf prints sample times. */
static void print_time(FILE *out, const char *what, uint64_t ns)
{
	fprintf(out, "# %s : %" PRIu64 ".%06" PRIu64 "\n", what, ns / 1000000000,
		ns % 1000000000 / 1000);
}

static void print_groups(FILE *out, struct pev_perfdata *pd, const struct pev_perfdata_features *f)
{
	for (uint32_t g = 0; g < f->nr_groups; g++) {
		const struct pev_perfdata_group *gr = &f->groups[g];
		const char *name = strcmp(gr->name, "{anon_group}") == 0 ? "" : gr->name;

		if (gr->nr_members < 2)
			continue;
		fprintf(out, "# group: %s{", cli_shown(name));
		for (uint32_t m = 0; m < gr->nr_members; m++) {
			const struct pev_perfdata_event *ev =
				pev_perfdata_event(pd, (int)(gr->leader + m));
			fprintf(out, "%s%s", m ? "," : "", cli_shown(ev ? ev->name : NULL));
		}
		fputs("}\n", out);
	}
}

/* Prints what feature `feat` (present) says, as perf 6.1 does. */
/*
 * "# armv8_pmuv3 pmu capabilities: slots=0x00000000, bus_slots=..." per PMU:
 * the "cpu" PMU's for CPU_PMU_CAPS, the others' for PMU_CAPS.
 */
static void print_pmu_caps(FILE *out, struct pev_perfdata *pd, bool cpu)
{
	uint32_t nr;
	const struct pev_perfdata_pmu_caps *all = pev_perfdata_pmu_caps(pd, &nr);

	for (uint32_t i = 0; i < nr; i++) {
		const struct pev_perfdata_pmu_caps *p = &all[i];

		if ((strcmp(p->pmu, "cpu") == 0) != cpu)
			continue;
		fprintf(out, "# %s pmu capabilities: ", p->pmu);
		if (!p->nr_caps)
			fputs("not available", out);
		for (uint32_t k = 0; k < p->nr_caps; k++)
			fprintf(out, "%s%s=%s", k ? ", " : "", p->names[k], p->values[k]);
		fputc('\n', out);
	}
}

static void print_feature(FILE *out, struct pev_perfdata *pd,
			  const struct pev_perfdata_features *f, unsigned feat)
{
	switch (feat) {
	case PEV_HEADER_HOSTNAME:
		fprintf(out, "# hostname : %s\n", cli_shown(f->hostname));
		break;
	case PEV_HEADER_OSRELEASE:
		fprintf(out, "# os release : %s\n", cli_shown(f->osrelease));
		break;
	case PEV_HEADER_VERSION:
		fprintf(out, "# perf version : %s\n", cli_shown(f->version));
		break;
	case PEV_HEADER_ARCH:
		fprintf(out, "# arch : %s\n", cli_shown(f->arch));
		break;
	case PEV_HEADER_NRCPUS:
		fprintf(out, "# nrcpus online : %" PRIu32 "\n# nrcpus avail : %" PRIu32 "\n",
			f->nr_cpus_online, f->nr_cpus_avail);
		break;
	case PEV_HEADER_CPUDESC:
		fprintf(out, "# cpudesc : %s\n", cli_shown(f->cpudesc));
		break;
	case PEV_HEADER_CPUID:
		fprintf(out, "# cpuid : %s\n", cli_shown(f->cpuid));
		break;
	case PEV_HEADER_TOTAL_MEM:
		fprintf(out, "# total memory : %" PRIu64 " kB\n", f->total_mem_kb);
		break;
	case PEV_HEADER_CMDLINE:
		fputs("# cmdline : ", out);
		for (uint32_t i = 0; i < f->nr_cmdline; i++)
			fprintf(out, "%s ", cli_shown(f->cmdline[i]));
		fputc('\n', out);
		break;
	case PEV_HEADER_EVENT_DESC:
		for (int i = 0; i < pev_perfdata_nr_events(pd); i++)
			print_event(out, pev_perfdata_event(pd, i));
		break;
	case PEV_HEADER_CPU_TOPOLOGY:
	case PEV_HEADER_NUMA_TOPOLOGY:
	case PEV_HEADER_CACHE:
	case PEV_HEADER_MEM_TOPOLOGY:
	case PEV_HEADER_HYBRID_TOPOLOGY:
		fprintf(out, "# %s info available, use -I to display\n",
			pev_perfdata_feature_name(feat));
		break;
	case PEV_HEADER_BRANCH_STACK:
		fputs("# contains samples with branch stack\n", out);
		break;
	case PEV_HEADER_PMU_MAPPINGS:
		fputs("# pmu mappings: ", out);
		for (uint32_t i = 0; i < f->nr_pmus; i++)
			fprintf(out, "%s%s = %" PRIu32, i ? ", " : "", cli_shown(f->pmus[i].name),
				f->pmus[i].type);
		fputc('\n', out);
		break;
	case PEV_HEADER_GROUP_DESC:
		print_groups(out, pd, f);
		break;
	case PEV_HEADER_AUXTRACE:
		fputs("# contains AUX area data (e.g. instruction trace)\n", out);
		break;
	case PEV_HEADER_STAT:
		fputs("# contains stat data\n", out);
		break;
	case PEV_HEADER_SAMPLE_TIME:
		print_time(out, "time of first sample", f->sample_time_first);
		print_time(out, "time of last sample", f->sample_time_last);
		fprintf(out, "# sample duration : %10.3f ms\n",
			(double)(f->sample_time_last - f->sample_time_first) / 1e6);
		break;
	case PEV_HEADER_CLOCKID:
		fprintf(out, "# clockid frequency: %" PRIu64 " MHz\n", f->clockid_res_ns * 1000);
		break;
	case PEV_HEADER_COMPRESSED:
		fprintf(out, "# compressed : %s, level = %" PRIu32 ", ratio = %" PRIu32 "\n",
			f->compressed_type == 1 ? "Zstd" : "Unknown", f->compressed_level,
			f->compressed_ratio);
		break;
	case PEV_HEADER_CLOCK_DATA:
		print_clock_data(out, f);
		break;
	case PEV_HEADER_CPU_PMU_CAPS:
	case PEV_HEADER_PMU_CAPS:
		print_pmu_caps(out, pd, feat == PEV_HEADER_CPU_PMU_CAPS);
		break;
	default: /* build ids, tracing data, BPF: nothing, as perf */
		break;
	}
}

void report_print_header(FILE *out, struct pev_perfdata *pd, const char *path)
{
	const struct pev_perfdata_features *f = pev_perfdata_features(pd);
	const struct pev_perfdata_layout *l = pev_perfdata_layout(pd);
	struct stat st;

	fputs("# ========\n", out);
	if (!pev_perfdata_pipe_mode(pd)) {
		if (stat(path, &st) == 0) {
			time_t t = st.st_mtime;
			char when[64];
			fprintf(out, "# captured on    : %s", ctime_r(&t, when) ? when : "\n");
		}
		fprintf(out, "# header version : 1\n");
		fprintf(out, "# data offset    : %" PRIu64 "\n", l->data_offset);
		fprintf(out, "# data size      : %" PRIu64 "\n", l->data_size);
		fprintf(out, "# feat offset    : %" PRIu64 "\n", l->feat_offset);
	}
	for (unsigned feat = 1; feat < PEV_HEADER_LAST_FEATURE; feat++)
		if (pev_perfdata_has_feature(f, feat))
			print_feature(out, pd, f, feat);
	fputs("# missing features: ", out);
	for (unsigned feat = 1; feat <= PERF61_LAST_FEATURE; feat++)
		if (!pev_perfdata_has_feature(f, feat))
			fprintf(out, "%s ", pev_perfdata_feature_name(feat));
	fputs("\n# ========\n#\n", out);
}
