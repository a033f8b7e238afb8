/* SPDX-License-Identifier: MIT */
/*
 * record_describe.c - one line of text for a decoded record, for listings
 * and debugging: the type, the cpu mode and misc flags, the body's main
 * fields and the identity fields.
 */
#include <inttypes.h>

#include "perfev/record.h"
#include "core/util.h"

/* A string of the record, or "" when a failed decode left it unset. */
static const char *text(const char *s)
{
	return s ? s : "";
}

/* The misc flags that mean something for this record's type. */
static void describe_misc(const struct pev_record *r, char *buf, size_t size)
{
	pev__appendf(buf, size, " %s", pev_cpumode_name(pev_record_cpumode(r)));
	if (pev_record_exact_ip(r))
		pev__appendf(buf, size, " exact");
	if (pev_record_mmap_data(r))
		pev__appendf(buf, size, " data");
	if (pev_record_comm_exec(r))
		pev__appendf(buf, size, " exec");
	if (r->type == PEV_RECORD_SWITCH || r->type == PEV_RECORD_SWITCH_CPU_WIDE)
		pev__appendf(buf, size, " %s", pev_record_switch_preempt(r) ? "out-preempt"
					       : pev_record_switch_out(r)   ? "out"
									    : "in");
}

static void describe_hex(char *buf, size_t size, const uint8_t *bytes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		pev__appendf(buf, size, "%02x", bytes[i]);
}

static void describe_sample(const struct pev_sample *s, char *buf, size_t size)
{
	uint64_t st = s->fields;

	if (st & PEV_SAMPLE_IP)
		pev__appendf(buf, size, " ip 0x%" PRIx64, s->ip);
	if (st & PEV_SAMPLE_ADDR)
		pev__appendf(buf, size, " addr 0x%" PRIx64, s->addr);
	if (st & PEV_SAMPLE_PERIOD)
		pev__appendf(buf, size, " period %" PRIu64, s->period);
	if (st & PEV_SAMPLE_READ) {
		struct pev_read_value v;
		if (pev_read_data_value(&s->read, 0, &v) == 0)
			pev__appendf(buf, size, " read %" PRIu64 "x%" PRIu64, s->read.nr, v.value);
	}
	if (st & PEV_SAMPLE_CALLCHAIN)
		pev__appendf(buf, size, " callchain %" PRIu64, s->callchain_nr);
	if (st & PEV_SAMPLE_RAW)
		pev__appendf(buf, size, " raw %" PRIu32, s->raw_size);
	if (st & PEV_SAMPLE_BRANCH_STACK)
		pev__appendf(buf, size, " branches %" PRIu64, s->branch.nr);
	if (st & PEV_SAMPLE_REGS_USER)
		pev__appendf(buf, size, " regs_user %" PRIu32, s->regs_user.nr);
	if (st & PEV_SAMPLE_STACK_USER)
		pev__appendf(buf, size, " stack %" PRIu64 "/%" PRIu64, s->stack_user.dyn_size,
			     s->stack_user.size);
	if (st & PEV_SAMPLE_WEIGHT_TYPE)
		pev__appendf(buf, size, " weight %" PRIu64, s->weight);
	if (st & PEV_SAMPLE_DATA_SRC)
		pev__appendf(buf, size, " data_src 0x%" PRIx64, s->data_src);
	if (st & PEV_SAMPLE_TRANSACTION)
		pev__appendf(buf, size, " txn 0x%" PRIx64, s->transaction);
	if (st & PEV_SAMPLE_REGS_INTR)
		pev__appendf(buf, size, " regs_intr %" PRIu32, s->regs_intr.nr);
	if (st & PEV_SAMPLE_PHYS_ADDR)
		pev__appendf(buf, size, " phys 0x%" PRIx64, s->phys_addr);
	if (st & PEV_SAMPLE_CGROUP)
		pev__appendf(buf, size, " cgroup %" PRIu64, s->cgroup);
	if (st & PEV_SAMPLE_DATA_PAGE_SIZE)
		pev__appendf(buf, size, " data_page %" PRIu64, s->data_page_size);
	if (st & PEV_SAMPLE_CODE_PAGE_SIZE)
		pev__appendf(buf, size, " code_page %" PRIu64, s->code_page_size);
	if (st & PEV_SAMPLE_AUX)
		pev__appendf(buf, size, " aux %" PRIu64, s->aux_size);
}

static void describe_body(const struct pev_record *r, char *buf, size_t size)
{
	switch (r->type) {
	case PEV_RECORD_SAMPLE:
		describe_sample(&r->sample, buf, size);
		break;
	case PEV_RECORD_MMAP:
		pev__appendf(buf, size,
			     " %" PRIu32 "/%" PRIu32 " [0x%" PRIx64 "(0x%" PRIx64 ") @ 0x%" PRIx64 "]: %s",
			     r->mmap.pid, r->mmap.tid, r->mmap.addr, r->mmap.len, r->mmap.pgoff,
			     text(r->mmap.filename));
		break;
	case PEV_RECORD_MMAP2: {
		const struct pev_record_mmap2 *m = &r->mmap2;
		pev__appendf(buf, size,
			     " %" PRIu32 "/%" PRIu32 " [0x%" PRIx64 "(0x%" PRIx64 ") @ 0x%" PRIx64,
			     m->pid, m->tid, m->addr, m->len, m->pgoff);
		if (m->has_build_id && m->build_id) {
			pev__appendf(buf, size, " build-id ");
			describe_hex(buf, size, m->build_id, m->build_id_size);
		} else {
			pev__appendf(buf, size, " %02" PRIx32 ":%02" PRIx32 " %" PRIu64 " %" PRIu64,
				     m->maj, m->min, m->ino, m->ino_generation);
		}
		pev__appendf(buf, size, " prot 0x%" PRIx32 " flags 0x%" PRIx32 "]: %s", m->prot,
			     m->flags, text(m->filename));
		break;
	}
	case PEV_RECORD_LOST:
		pev__appendf(buf, size, " id %" PRIu64 " lost %" PRIu64, r->lost.id, r->lost.lost);
		break;
	case PEV_RECORD_COMM:
		pev__appendf(buf, size, " %" PRIu32 "/%" PRIu32 ": %s", r->comm.pid, r->comm.tid,
			     text(r->comm.comm));
		break;
	case PEV_RECORD_EXIT:
	case PEV_RECORD_FORK:
		pev__appendf(buf, size,
			     " %" PRIu32 "/%" PRIu32 " parent %" PRIu32 "/%" PRIu32 " time %" PRIu64,
			     r->task.pid, r->task.tid, r->task.ppid, r->task.ptid, r->task.time);
		break;
	case PEV_RECORD_THROTTLE:
	case PEV_RECORD_UNTHROTTLE:
		pev__appendf(buf, size, " time %" PRIu64 " id %" PRIu64 " stream_id %" PRIu64,
			     r->throttle.time, r->throttle.id, r->throttle.stream_id);
		break;
	case PEV_RECORD_READ: {
		struct pev_read_value v;
		pev__appendf(buf, size, " %" PRIu32 "/%" PRIu32 " values %" PRIu64, r->read.pid,
			     r->read.tid, r->read.values.nr);
		if (pev_read_data_value(&r->read.values, 0, &v) == 0)
			pev__appendf(buf, size, " first %" PRIu64, v.value);
		break;
	}
	case PEV_RECORD_AUX:
		pev__appendf(buf, size, " offset 0x%" PRIx64 " size %" PRIu64 " flags 0x%" PRIx64,
			     r->aux.aux_offset, r->aux.aux_size, r->aux.flags);
		break;
	case PEV_RECORD_ITRACE_START:
		pev__appendf(buf, size, " %" PRIu32 "/%" PRIu32, r->itrace_start.pid,
			     r->itrace_start.tid);
		break;
	case PEV_RECORD_LOST_SAMPLES:
		pev__appendf(buf, size, " lost %" PRIu64, r->lost_samples.lost);
		break;
	case PEV_RECORD_SWITCH_CPU_WIDE:
		pev__appendf(buf, size, " %s %" PRIu32 "/%" PRIu32,
			     pev_record_switch_out(r) ? "next" : "prev", r->sw.next_prev_pid,
			     r->sw.next_prev_tid);
		break;
	case PEV_RECORD_NAMESPACES:
		pev__appendf(buf, size, " %" PRIu32 "/%" PRIu32 " namespaces %" PRIu64,
			     r->namespaces.pid, r->namespaces.tid, r->namespaces.nr);
		break;
	case PEV_RECORD_KSYMBOL:
		pev__appendf(buf, size,
			     " addr 0x%" PRIx64 " len %" PRIu32 " type %u flags 0x%x name %s",
			     r->ksymbol.addr, r->ksymbol.len, r->ksymbol.ksym_type,
			     r->ksymbol.flags, text(r->ksymbol.name));
		break;
	case PEV_RECORD_BPF_EVENT:
		pev__appendf(buf, size, " type %u flags 0x%x id %" PRIu32 " tag ",
			     r->bpf_event.type, r->bpf_event.flags, r->bpf_event.id);
		if (r->bpf_event.tag)
			describe_hex(buf, size, r->bpf_event.tag, PEV_BPF_TAG_SIZE);
		break;
	case PEV_RECORD_CGROUP:
		pev__appendf(buf, size, " id %" PRIu64 " path %s", r->cgroup.id, text(r->cgroup.path));
		break;
	case PEV_RECORD_TEXT_POKE:
		pev__appendf(buf, size, " addr 0x%" PRIx64 " old_len %u new_len %u",
			     r->text_poke.addr, r->text_poke.old_len, r->text_poke.new_len);
		break;
	case PEV_RECORD_AUX_OUTPUT_HW_ID:
		pev__appendf(buf, size, " hw_id 0x%" PRIx64, r->aux_output_hw_id.hw_id);
		break;
	case PEV_RECORD_SWITCH:
		break;
	default:
		pev__appendf(buf, size, " type %" PRIu32 " size %u", r->type, r->size);
		break;
	}
}

static void describe_id(const struct pev_record *r, char *buf, size_t size)
{
	const struct pev_sample_id *id = &r->sample_id;
	uint64_t f = r->id_fields;

	if (f & PEV_SAMPLE_TID)
		pev__appendf(buf, size, " pid %" PRIu32 " tid %" PRIu32, id->pid, id->tid);
	if (f & PEV_SAMPLE_TIME)
		pev__appendf(buf, size, " time %" PRIu64, id->time);
	if (f & PEV_SAMPLE_CPU)
		pev__appendf(buf, size, " cpu %" PRIu32, id->cpu);
	if (f & PEV_SAMPLE_IDENTIFIER)
		pev__appendf(buf, size, " id %" PRIu64, id->identifier);
	else if (f & PEV_SAMPLE_ID)
		pev__appendf(buf, size, " id %" PRIu64, id->id);
	if (f & PEV_SAMPLE_STREAM_ID)
		pev__appendf(buf, size, " stream_id %" PRIu64, id->stream_id);
}

PEV_API char *pev_record_describe(const struct pev_record *r, char *buf, size_t size)
{
	if (!buf || !size)
		return buf;
	buf[0] = '\0';
	if (!r)
		return buf;
	pev__appendf(buf, size, "%s", pev_record_type_name(r->type));
	describe_misc(r, buf, size);
	describe_body(r, buf, size);
	describe_id(r, buf, size);
	return buf;
}
