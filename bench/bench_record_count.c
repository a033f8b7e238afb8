/* SPDX-License-Identifier: MIT */
/*
 * bench_record_count.c - what bench_record.sh reads from each recording:
 * the samples in a perf.data file and the samples the kernel reported lost
 * (the sum of its LOST and LOST_SAMPLES records), read with perfev's
 * reader, so that perf's files and perfev's are counted the same way.
 *
 *   usage: bench_record_count FILE      prints "samples N lost L"
 */
#include <stdio.h>
#include <string.h>

#include "perfev.h"

int main(int argc, char **argv)
{
	struct pev_perfdata *pd = NULL;
	struct pev_perfdata_record r;
	struct pev_error err;
	unsigned long long samples = 0, lost = 0;
	uint64_t v;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: bench_record_count FILE\n");
		return 2;
	}
	if (pev_perfdata_open(argv[1], 0, &pd, &err) != 0) {
		fprintf(stderr, "bench_record_count: %s\n", err.message);
		return 1;
	}
	while ((rc = pev_perfdata_next(pd, &r, &err)) == 1) {
		if (r.type == PEV_RECORD_SAMPLE) {
			samples++;
		} else if (r.type == PEV_RECORD_LOST && r.size >= 24) {
			memcpy(&v, (const char *)r.header + 16, 8);
			lost += v;
		} else if (r.type == PEV_RECORD_LOST_SAMPLES && r.size >= 16) {
			memcpy(&v, (const char *)r.header + 8, 8);
			lost += v;
		}
	}
	pev_perfdata_close(pd);
	if (rc < 0) {
		fprintf(stderr, "bench_record_count: %s: %s\n", argv[1], err.message);
		return 1;
	}
	printf("samples %llu lost %llu\n", samples, lost);
	return 0;
}
