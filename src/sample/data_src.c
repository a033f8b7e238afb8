/* SPDX-License-Identifier: MIT */
/*
 * data_src.c - a PERF_SAMPLE_DATA_SRC value split into its fields. The bit
 * positions are PEV_MEM_*_SHIFT / _BITS in perfev/abi.h (union
 * perf_mem_data_src in the kernel's uapi header, little-endian layout).
 */
#include "perfev/record.h"

PEV_API void pev_data_src_decode(uint64_t v, struct pev_data_src *out)
{
	if (!out)
		return;
	out->op = (uint8_t)PEV_MEM_FIELD(v, OP);
	out->lvl = (uint16_t)PEV_MEM_FIELD(v, LVL);
	out->snoop = (uint8_t)PEV_MEM_FIELD(v, SNOOP);
	out->lock = (uint8_t)PEV_MEM_FIELD(v, LOCK);
	out->dtlb = (uint8_t)PEV_MEM_FIELD(v, TLB);
	out->lvl_num = (uint8_t)PEV_MEM_FIELD(v, LVLNUM);
	out->remote = (uint8_t)PEV_MEM_FIELD(v, REMOTE);
	out->snoopx = (uint8_t)PEV_MEM_FIELD(v, SNOOPX);
	out->blk = (uint8_t)PEV_MEM_FIELD(v, BLK);
	out->hops = (uint8_t)PEV_MEM_FIELD(v, HOPS);
}
