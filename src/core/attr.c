/* SPDX-License-Identifier: MIT */
/*
 * attr.c - struct pev_opts <-> struct pev_attr.
 *
 * The boolean options map one to one onto attribute flag bits through a
 * table, so encoding and decoding are the same loop run in two directions.
 * The remaining fields have small rules of their own (period or frequency,
 * wake-up by events or bytes, inherit modes, clock, signal data).
 */
#include "perfev/opts.h"

#include <stddef.h>
#include <string.h>

#include "core/error_internal.h"
#include "core/opts_internal.h"

struct flag_map {
	size_t offset; /* of a bool in struct pev_opts */
	uint64_t bit;  /* PEV_ATTR_* */
};

#define FLAG(field, bit) {offsetof(struct pev_opts, field), bit}

static const struct flag_map flag_map[] = {
	FLAG(exclude_user, PEV_ATTR_EXCLUDE_USER),
	FLAG(exclude_kernel, PEV_ATTR_EXCLUDE_KERNEL),
	FLAG(exclude_hv, PEV_ATTR_EXCLUDE_HV),
	FLAG(exclude_idle, PEV_ATTR_EXCLUDE_IDLE),
	FLAG(exclude_host, PEV_ATTR_EXCLUDE_HOST),
	FLAG(exclude_guest, PEV_ATTR_EXCLUDE_GUEST),
	FLAG(disabled, PEV_ATTR_DISABLED),
	FLAG(enable_on_exec, PEV_ATTR_ENABLE_ON_EXEC),
	FLAG(remove_on_exec, PEV_ATTR_REMOVE_ON_EXEC),
	FLAG(inherit_stat, PEV_ATTR_INHERIT_STAT),
	FLAG(pinned, PEV_ATTR_PINNED),
	FLAG(exclusive, PEV_ATTR_EXCLUSIVE),
	FLAG(exclude_callchain_kernel, PEV_ATTR_EXCLUDE_CALLCHAIN_KERNEL),
	FLAG(exclude_callchain_user, PEV_ATTR_EXCLUDE_CALLCHAIN_USER),
	FLAG(mmap, PEV_ATTR_MMAP),
	FLAG(mmap2, PEV_ATTR_MMAP2),
	FLAG(mmap_data, PEV_ATTR_MMAP_DATA),
	FLAG(build_id, PEV_ATTR_BUILD_ID),
	FLAG(comm, PEV_ATTR_COMM),
	FLAG(comm_exec, PEV_ATTR_COMM_EXEC),
	FLAG(task, PEV_ATTR_TASK),
	FLAG(context_switch, PEV_ATTR_CONTEXT_SWITCH),
	FLAG(namespaces, PEV_ATTR_NAMESPACES),
	FLAG(ksymbol, PEV_ATTR_KSYMBOL),
	FLAG(bpf_event, PEV_ATTR_BPF_EVENT),
	FLAG(cgroup, PEV_ATTR_CGROUP),
	FLAG(text_poke, PEV_ATTR_TEXT_POKE),
	FLAG(sample_id_all, PEV_ATTR_SAMPLE_ID_ALL),
	FLAG(use_clockid, PEV_ATTR_USE_CLOCKID),
	FLAG(sigtrap, PEV_ATTR_SIGTRAP),
	FLAG(write_backward, PEV_ATTR_WRITE_BACKWARD),
	FLAG(aux_output, PEV_ATTR_AUX_OUTPUT),
};

struct aux_map {
	size_t offset;
	uint32_t bit; /* PEV_AUX_* */
};

static const struct aux_map aux_map[] = {
	{offsetof(struct pev_opts, aux_start_paused), PEV_AUX_START_PAUSED},
	{offsetof(struct pev_opts, aux_pause), PEV_AUX_PAUSE},
	{offsetof(struct pev_opts, aux_resume), PEV_AUX_RESUME},
};

static bool *opt_bool(struct pev_opts *o, size_t offset)
{
	return (bool *)((char *)o + offset);
}

int pev__opts_copy(struct pev_opts *dst, const struct pev_opts *src, const char *func,
		   struct pev_error *err)
{
	return pev__opts_copy_sized(dst, sizeof(*dst), src, func, "PEV_OPTS_INIT", err);
}

PEV_API uint32_t pev_attr_min_size(const struct pev_attr *attr)
{
	static const uint32_t sizes[] = {PEV_ATTR_SIZE_VER0, PEV_ATTR_SIZE_VER1, PEV_ATTR_SIZE_VER2,
					 PEV_ATTR_SIZE_VER3, PEV_ATTR_SIZE_VER4, PEV_ATTR_SIZE_VER5,
					 PEV_ATTR_SIZE_VER6, PEV_ATTR_SIZE_VER7, PEV_ATTR_SIZE_VER8};
	const unsigned char *b = (const unsigned char *)attr;
	size_t end = sizeof(*attr);

	if (!attr)
		return PEV_ATTR_SIZE_VER0;
	/* The size field itself does not count: it is ours to choose. */
	while (end > PEV_ATTR_SIZE_VER0 && b[end - 1] == 0)
		end--;
	for (size_t i = 0; i < PEV_ARRAY_SIZE(sizes); i++)
		if (end <= sizes[i])
			return sizes[i];
	return PEV_ATTR_SIZE_LATEST;
}

PEV_API int pev_attr_encode(struct pev_attr *attr, const struct pev_event *ev,
			    const struct pev_opts *opts, struct pev_error *err)
{
	pev__error_clear(err);
	return pev__attr_encode(attr, ev, opts, "pev_attr_encode", err);
}

int pev__attr_encode(struct pev_attr *attr, const struct pev_event *ev,
		     const struct pev_opts *user_opts, const char *func, struct pev_error *err)
{
	struct pev_opts o;
	char name[96];
	int r;

	if (!attr)
		return pev__bad_arg(err, func, "attr", "must not be NULL");
	if (!ev)
		return pev__bad_arg(err, func, "ev", "must not be NULL");
	if ((r = pev__reserved_check(ev->reserved, PEV_ARRAY_SIZE(ev->reserved), func, "ev",
				     err)) < 0)
		return r;
	if ((r = pev__opts_copy(&o, user_opts, func, err)) < 0)
		return r;
	pev_event_describe(ev, name, sizeof(name));

	if (o.sample_period && o.sample_freq)
		return pev__bad_arg(err, func, "opts",
				    "'%s' sets both sample_period (%llu) and sample_freq (%llu); "
				    "choose one",
				    name, (unsigned long long)o.sample_period,
				    (unsigned long long)o.sample_freq);
	if (o.wakeup_events && o.wakeup_bytes)
		return pev__bad_arg(err, func, "opts",
				    "'%s' sets both wakeup_events and wakeup_bytes; choose one",
				    name);
	if (o.clockid && !o.use_clockid)
		return pev__bad_arg(err, func, "opts",
				    "'%s' sets clockid %d without use_clockid", name, o.clockid);
	if (o.sig_data && !o.sigtrap)
		return pev__bad_arg(err, func, "opts", "'%s' sets sig_data without sigtrap", name);
	if ((unsigned)o.inherit > PEV_INHERIT_THREADS)
		return pev__bad_arg(err, func, "opts", "'%s' has inherit mode %u (0..2 exist)",
				    name, (unsigned)o.inherit);
	if ((unsigned)o.skid > PEV_SKID_ZERO) {
		pev__error_start(err, PEV_EINVAL, EINVAL, NULL, name, true);
		pev__error_field(err, "precise_ip");
		pev__error_msg(err,
			       "cannot encode '%s': skid (precise_ip) %u is above 3, the largest "
			       "the kernel defines",
			       name, (unsigned)o.skid);
		pev__error_hint(err, "use PEV_SKID_ZERO (3) for zero skid, or fewer 'p' modifiers");
		return PEV_EINVAL;
	}

	memset(attr, 0, sizeof(*attr));
	attr->type = ev->type;
	attr->config = ev->config;
	attr->config1 = ev->config1;
	attr->config2 = ev->config2;
	attr->config3 = ev->config3;
	attr->bp_type = ev->bp_type;

	for (size_t i = 0; i < PEV_ARRAY_SIZE(flag_map); i++)
		if (*opt_bool(&o, flag_map[i].offset))
			attr->flags |= flag_map[i].bit;
	for (size_t i = 0; i < PEV_ARRAY_SIZE(aux_map); i++)
		if (*opt_bool(&o, aux_map[i].offset))
			attr->aux_action |= aux_map[i].bit;
	if (o.enable_on_exec)
		attr->flags |= PEV_ATTR_DISABLED;
	/* The kernel reports mappings only while some event on the machine has
	 * mmap or mmap_data set (nr_mmap_events); mmap2 alone only picks the
	 * MMAP2 format, so asking for MMAP2 records sets mmap too, as perf does. */
	if (o.mmap2)
		attr->flags |= PEV_ATTR_MMAP;
	if (o.inherit != PEV_INHERIT_NONE)
		attr->flags |= PEV_ATTR_INHERIT;
	if (o.inherit == PEV_INHERIT_THREADS)
		attr->flags |= PEV_ATTR_INHERIT_THREAD;
	attr->flags |= (uint64_t)o.skid << PEV_ATTR_PRECISE_IP_SHIFT;

	if (o.sample_freq) {
		attr->flags |= PEV_ATTR_FREQ;
		attr->sample_freq = o.sample_freq;
	} else {
		attr->sample_period = o.sample_period;
	}
	attr->sample_type = o.sample_type;
	attr->read_format = o.read_format;
	attr->sample_max_stack = o.callchain_max_stack;
	attr->sample_regs_user = o.sample_regs_user;
	attr->sample_stack_user = o.sample_stack_user;
	attr->sample_regs_intr = o.sample_regs_intr;
	attr->branch_sample_type = o.branch_sample_type;
	attr->aux_sample_size = o.aux_sample_size;
	if (o.wakeup_bytes) {
		attr->flags |= PEV_ATTR_WATERMARK;
		attr->wakeup_watermark = o.wakeup_bytes;
	} else {
		attr->wakeup_events = o.wakeup_events;
	}
	attr->aux_watermark = o.aux_watermark;
	attr->clockid = o.use_clockid ? o.clockid : 0;
	attr->sig_data = o.sig_data;
	attr->size = pev_attr_min_size(attr);
	return 0;
}

PEV_API int pev_attr_decode(const void *bytes, size_t len, struct pev_event *ev,
			    struct pev_opts *out_opts)
{
	struct pev_opts *o = out_opts;
	struct pev_opts full;
	struct pev_attr a;
	size_t n, keep;

	if (!bytes || !ev || !o)
		return pev__bad_arg(NULL, "pev_attr_decode", !bytes ? "bytes" : !ev ? "ev" : "out_opts",
				    "NULL");
	if (o->sz < sizeof(o->sz))
		return pev__bad_arg(NULL, "pev_attr_decode", "out_opts", "out_opts->sz is %zu: "
				    "initialize it with PEV_OPTS_INIT", o->sz);
	if (len < PEV_ATTR_SIZE_VER0)
		return PEV_EFORMAT;
	memcpy(&a, bytes, PEV_ATTR_SIZE_VER0);
	/* Size 0 means the first published layout. */
	n = a.size ? a.size : PEV_ATTR_SIZE_VER0;
	if (n < PEV_ATTR_SIZE_VER0)
		return PEV_EFORMAT;
	if (n > len)
		n = len;
	memset(&a, 0, sizeof(a));
	memcpy(&a, bytes, n < sizeof(a) ? n : sizeof(a));
	for (size_t i = sizeof(a); i < n; i++)
		if (((const unsigned char *)bytes)[i])
			return PEV_EVERSION;
	if ((a.flags & ~PEV_ATTR_FLAGS_ALL) || (a.aux_action & ~PEV_AUX_ACTION_ALL) ||
	    a.reserved_2 || (a.sample_type & ~PEV_SAMPLE_ALL) ||
	    (a.read_format & ~PEV_FORMAT_ALL) || (a.branch_sample_type & ~PEV_BRANCH_ALL))
		return PEV_EVERSION;
	if ((a.flags & PEV_ATTR_INHERIT_THREAD) && !(a.flags & PEV_ATTR_INHERIT))
		return PEV_EFORMAT;

	memset(ev, 0, sizeof(*ev));
	ev->type = a.type;
	ev->config = a.config;
	ev->config1 = a.config1;
	ev->config2 = a.config2;
	ev->config3 = a.config3;
	ev->bp_type = a.bp_type;

	/* Decode into a full struct, then hand over as much as the caller's struct holds. */
	keep = o->sz < sizeof(full) ? o->sz : sizeof(full);
	if (o->sz > sizeof(full))
		memset((char *)o + sizeof(full), 0, o->sz - sizeof(full));
	o = &full;
	memset(o, 0, sizeof(*o));
	for (size_t i = 0; i < PEV_ARRAY_SIZE(flag_map); i++)
		*opt_bool(o, flag_map[i].offset) = (a.flags & flag_map[i].bit) != 0;
	for (size_t i = 0; i < PEV_ARRAY_SIZE(aux_map); i++)
		*opt_bool(o, aux_map[i].offset) = (a.aux_action & aux_map[i].bit) != 0;
	/* opts.enable_on_exec implies disabled (encode sets both), so decode does too:
	 * otherwise a block with only bit 12 would decode differently once re-encoded. */
	if (o->enable_on_exec)
		o->disabled = true;
	if (a.flags & PEV_ATTR_INHERIT)
		o->inherit = a.flags & PEV_ATTR_INHERIT_THREAD ? PEV_INHERIT_THREADS : PEV_INHERIT_ALL;
	o->skid = (enum pev_skid)PEV_ATTR_PRECISE_IP(a.flags);
	if (a.flags & PEV_ATTR_FREQ)
		o->sample_freq = a.sample_freq;
	else
		o->sample_period = a.sample_period;
	o->sample_type = a.sample_type;
	o->read_format = a.read_format;
	o->callchain_max_stack = a.sample_max_stack;
	o->sample_regs_user = a.sample_regs_user;
	o->sample_stack_user = a.sample_stack_user;
	o->sample_regs_intr = a.sample_regs_intr;
	o->branch_sample_type = a.branch_sample_type;
	o->aux_sample_size = a.aux_sample_size;
	if (a.flags & PEV_ATTR_WATERMARK)
		o->wakeup_bytes = a.wakeup_watermark;
	else
		o->wakeup_events = a.wakeup_events;
	o->aux_watermark = a.aux_watermark;
	o->clockid = o->use_clockid ? a.clockid : 0;
	o->sig_data = o->sigtrap ? a.sig_data : 0;
	memcpy(out_opts, &full, keep);
	out_opts->sz = keep;
	return 0;
}
