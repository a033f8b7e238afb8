/* SPDX-License-Identifier: MIT */
/*
 * probe.c - finding which attribute the kernel refuses.
 *
 * When perf_event_open says EINVAL or EOPNOTSUPP and validation found
 * nothing, the cause is usually one optional field this kernel or PMU does
 * not support. Clearing the optional fields one at a time and retrying
 * (disabled, closed at once) names it. The candidates are tried from the
 * most exotic to the most basic, so the answer is the field a user would
 * drop first.
 */
#include "core/probe.h"

#include <stdio.h>
#include <string.h>

#include "core/names.h"
#include "core/sys.h"
#include "core/util.h"

/* At most this many retries per diagnosis. */
#define PROBE_MAX_TRIES 80

struct probe_ctx {
	const struct pev_attr *orig;
	pid_t pid;
	int cpu;
	int group_fd;
	unsigned long flags;
	int tries;
};

/* Tries attr; returns true when the kernel accepts it. */
static bool accepted(struct probe_ctx *ctx, struct pev_attr *attr)
{
	if (ctx->tries++ >= PROBE_MAX_TRIES)
		return false;
	attr->flags |= PEV_ATTR_DISABLED;
	attr->flags &= ~PEV_ATTR_ENABLE_ON_EXEC;
	attr->size = ctx->orig->size;
	int fd = pev__sys_perf_event_open(attr, ctx->pid, ctx->cpu, ctx->group_fd,
					 ctx->flags | PEV_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return false;
	pev__sys_close(fd);
	return true;
}

/* Clears sample_type bit `bit` and the fields that only serve it. */
static void clear_sample_bit(struct pev_attr *a, int bit)
{
	uint64_t b = 1ULL << bit;

	a->sample_type &= ~b;
	if (b == PEV_SAMPLE_CALLCHAIN) {
		a->sample_max_stack = 0;
		a->flags &= ~(PEV_ATTR_EXCLUDE_CALLCHAIN_KERNEL | PEV_ATTR_EXCLUDE_CALLCHAIN_USER);
	} else if (b == PEV_SAMPLE_REGS_USER) {
		a->sample_regs_user = 0;
	} else if (b == PEV_SAMPLE_STACK_USER) {
		a->sample_stack_user = 0;
	} else if (b == PEV_SAMPLE_REGS_INTR) {
		a->sample_regs_intr = 0;
	} else if (b == PEV_SAMPLE_BRANCH_STACK) {
		a->branch_sample_type = 0;
	} else if (b == PEV_SAMPLE_AUX) {
		a->aux_sample_size = 0;
	}
}

/* Clears flags bit `bit` and the fields that only serve it. */
static void clear_flag_bit(struct pev_attr *a, int bit)
{
	uint64_t b = 1ULL << bit;

	a->flags &= ~b;
	if (b == PEV_ATTR_USE_CLOCKID)
		a->clockid = 0;
	else if (b == PEV_ATTR_SIGTRAP)
		a->sig_data = 0;
	else if (b == PEV_ATTR_INHERIT)
		a->flags &= ~PEV_ATTR_INHERIT_THREAD;
	else if (b == PEV_ATTR_WATERMARK)
		a->wakeup_watermark = 0;
}

bool pev__probe_refused_exclusions(const struct pev_attr *orig, pid_t pid, int cpu, int group_fd,
				   unsigned long flags, char *field, size_t size)
{
	struct probe_ctx ctx = {orig, pid, cpu, group_fd, flags, 0};
	struct pev_attr a = *orig;

	if (!(orig->flags & PEV__EXCLUDE_LEVELS))
		return false;
	a.flags &= ~PEV__EXCLUDE_LEVELS;
	if (!accepted(&ctx, &a))
		return false;
	for (int bit = 0; bit < 64; bit++) {
		uint64_t b = 1ULL << bit;
		if (!(orig->flags & b & PEV__EXCLUDE_LEVELS))
			continue;
		a = *orig;
		a.flags &= ~b;
		if (accepted(&ctx, &a)) {
			snprintf(field, size, "%s", pev__flag_bit_name(bit));
			return true;
		}
	}
	snprintf(field, size, "the privilege-level exclusions (:u, :k)");
	return true;
}

bool pev__probe_refused_field(const struct pev_attr *orig, pid_t pid, int cpu, int group_fd,
			      unsigned long flags, char *field, size_t size)
{
	struct probe_ctx ctx = {orig, pid, cpu, group_fd, flags, 0};
	struct pev_attr a;

	/* Sample fields, newest bits first. */
	for (int bit = 63; bit >= 0; bit--) {
		if (!(orig->sample_type >> bit & 1))
			continue;
		a = *orig;
		clear_sample_bit(&a, bit);
		if (accepted(&ctx, &a)) {
			const char *n = pev__sample_bit_name(bit);
			if (n)
				snprintf(field, size, "sample_type PEV_SAMPLE_%s", n);
			else
				snprintf(field, size, "sample_type bit %d", bit);
			return true;
		}
	}
	/* Flag bits other than the life-cycle ones, newest first. */
	for (int bit = 63; bit >= 0; bit--) {
		uint64_t b = 1ULL << bit;
		if (!(orig->flags & b) || (b & (PEV_ATTR_DISABLED | PEV_ATTR_PRECISE_IP_MASK)))
			continue;
		a = *orig;
		clear_flag_bit(&a, bit);
		if (accepted(&ctx, &a)) {
			const char *n = pev__flag_bit_name(bit);
			if (n)
				snprintf(field, size, "%s", n);
			else
				snprintf(field, size, "flags bit %d", bit);
			return true;
		}
	}
	/* PMUs that cannot filter by privilege level refuse every exclude_* bit: try them together. */
	const uint64_t levels = PEV_ATTR_EXCLUDE_USER | PEV_ATTR_EXCLUDE_KERNEL | PEV_ATTR_EXCLUDE_HV |
				PEV_ATTR_EXCLUDE_IDLE;
	if (__builtin_popcountll(orig->flags & levels) > 1) {
		a = *orig;
		a.flags &= ~levels;
		if (accepted(&ctx, &a)) {
			snprintf(field, size, "the privilege-level exclusions (:u, :k)");
			return true;
		}
	}
	if (orig->flags & PEV_ATTR_PRECISE_IP_MASK) {
		a = *orig;
		a.flags &= ~PEV_ATTR_PRECISE_IP_MASK;
		if (accepted(&ctx, &a)) {
			snprintf(field, size, "precise_ip %u", PEV_ATTR_PRECISE_IP(orig->flags));
			return true;
		}
	}
	for (int bit = 31; bit >= 0; bit--) {
		if (!(orig->aux_action >> bit & 1))
			continue;
		a = *orig;
		a.aux_action &= ~(1U << bit);
		if (accepted(&ctx, &a)) {
			const char *n = pev__aux_bit_name(bit);
			snprintf(field, size, "%s", n ? n : "aux_action");
			return true;
		}
	}
	for (int bit = 63; bit >= 0; bit--) {
		if (!(orig->read_format >> bit & 1))
			continue;
		a = *orig;
		a.read_format &= ~(1ULL << bit);
		if (accepted(&ctx, &a)) {
			const char *n = pev__read_format_bit_name(bit);
			if (n)
				snprintf(field, size, "read_format PEV_FORMAT_%s", n);
			else
				snprintf(field, size, "read_format bit %d", bit);
			return true;
		}
	}
	if (orig->sample_period) {
		a = *orig;
		a.sample_period = 0;
		a.flags &= ~PEV_ATTR_FREQ;
		if (accepted(&ctx, &a)) {
			snprintf(field, size, "%s", orig->flags & PEV_ATTR_FREQ ? "sample_freq"
										: "sample_period");
			return true;
		}
	}
	return false;
}
