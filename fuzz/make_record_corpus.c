/* SPDX-License-Identifier: MIT */
/*
 * make_record_corpus.c - writes the seed corpus of fuzz_record from the
 * golden records of the test suite (tests/record_golden.c): one file per
 * event configuration, holding the 16-byte format prefix fuzz_record reads
 * and then every golden record of that configuration, back to back.
 *
 *   ./build-fuzz/fuzz/make_record_corpus [OUT_DIR]   (default fuzz/corpus/record)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../tests/record_golden.h"

/* The prefix fuzz_record decodes into a configuration (see fuzz_record.c). */
static void prefix_of(const struct pev_record_config *c, unsigned char p[16])
{
	memset(p, 0, 16);
	memcpy(p, &c->sample_type, 8);
	p[8] = (unsigned char)c->read_format;
	p[9] = (unsigned char)((c->sample_id_all ? 1 : 0) |
			       (c->branch_sample_type & PEV_BRANCH_HW_INDEX ? 2 : 0) |
			       (c->branch_sample_type & PEV_BRANCH_COUNTERS ? 4 : 0) |
			       (c->sample_regs_intr > 0xff ? 8 : 0));
	p[10] = (unsigned char)c->sample_regs_user;
	p[11] = (unsigned char)c->sample_regs_intr;
	p[12] = (unsigned char)c->group_size;
}

/* The fields of two configurations that the prefix carries are equal. */
static bool same_prefix(const struct pev_record_config *a, const struct pev_record_config *b)
{
	unsigned char pa[16], pb[16];

	prefix_of(a, pa);
	prefix_of(b, pb);
	return memcmp(pa, pb, sizeof(pa)) == 0;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "fuzz/corpus/record";
	bool *done = calloc(rg_golden_count, sizeof(*done));
	int files = 0;

	if (!done)
		return 1;
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "make_record_corpus: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	for (size_t i = 0; i < rg_golden_count; i++) {
		unsigned char prefix[16];
		char path[4096];
		FILE *out;

		if (done[i])
			continue;
		prefix_of(&rg_golden[i].config, prefix);
		snprintf(path, sizeof(path), "%s/%02d", dir, files);
		out = fopen(path, "wb");
		if (!out || fwrite(prefix, 1, sizeof(prefix), out) != sizeof(prefix)) {
			fprintf(stderr, "make_record_corpus: %s: %s\n", path, strerror(errno));
			return 1;
		}
		for (size_t j = i; j < rg_golden_count; j++) {
			const struct rg_golden *g = &rg_golden[j];
			if (done[j] || !same_prefix(&rg_golden[i].config, &g->config))
				continue;
			done[j] = true;
			if (fwrite(g->words, 8, g->nwords, out) != g->nwords) {
				fprintf(stderr, "make_record_corpus: %s: write failed\n", path);
				return 1;
			}
		}
		if (fclose(out) != 0)
			return 1;
		files++;
	}
	free(done);
	printf("make_record_corpus: %d files in %s\n", files, dir);
	return 0;
}
