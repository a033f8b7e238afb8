/* SPDX-License-Identifier: MIT */
/*
 * perfdata_mutate.c - writes one structure-aware mutant of a perf.data file
 * (fuzz/perfdata_mutator.c), for scripts/mutate_structured.sh:
 *
 *   perfdata_mutate RUN_SEED INDEX IN OUT [DONOR]
 *   perfdata_mutate --set FIELD=VALUE[,LIMIT] IN OUT
 *
 * Mutant INDEX of RUN_SEED is the same file on every machine, given the same
 * IN (and DONOR). It is 1 to 3 mutations stacked, or, when a DONOR file is
 * given and the seed says so (one in eight), records of DONOR spliced into
 * IN's data section followed by one mutation. Prints what was done on one
 * line. --set writes IN with FIELD (a name the descriptions use: period,
 * read.value, callchain.nr, ...) set to VALUE in the first LIMIT samples
 * that have it (all without LIMIT): regression files made on purpose.
 * Exits 0, 1 on a file error, 2 on a usage error, 3 when IN is not a
 * perf.data file the mutator can walk.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfdata_mutator.h"

/* Room a mutant may grow by: records repeated or spliced in, arrays grown. */
#define GROWTH (1u << 20)

static uint8_t *slurp(const char *path, size_t *size, size_t extra)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f)
		goto fail;
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
		goto fail;
	buf = malloc((size_t)n + extra + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
		goto fail;
	fclose(f);
	*size = (size_t)n;
	return buf;
fail:
	fprintf(stderr, "perfdata_mutate: %s: %s\n", path, errno ? strerror(errno) : "short read");
	free(buf);
	if (f)
		fclose(f);
	return NULL;
}

static int number(const char *s, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || !*s || *end ? -1 : 0;
}

/* --set FIELD=VALUE[,LIMIT] IN OUT */
static int set_field(char **argv)
{
	char name[64];
	const char *eq = strchr(argv[2], '=');
	size_t size;
	char *end;

	if (!eq || (size_t)(eq - argv[2]) >= sizeof(name)) {
		fprintf(stderr, "perfdata_mutate: --set wants FIELD=VALUE[,LIMIT]\n");
		return 2;
	}
	memcpy(name, argv[2], (size_t)(eq - argv[2]));
	name[eq - argv[2]] = '\0';
	errno = 0;
	uint64_t value = strtoull(eq + 1, &end, 0);
	unsigned long limit = 0;
	if (*end == ',')
		limit = strtoul(end + 1, &end, 0);
	if (errno || *end) {
		fprintf(stderr, "perfdata_mutate: --set wants FIELD=VALUE[,LIMIT]\n");
		return 2;
	}
	uint8_t *buf = slurp(argv[3], &size, 0);
	if (!buf)
		return 1;
	long n = pdm_set_field(buf, size, name, value, limit);
	if (n < 0) {
		fprintf(stderr, "perfdata_mutate: %s: not walkable, or no field %s\n", argv[3], name);
		free(buf);
		return 3;
	}
	FILE *out = fopen(argv[4], "wb");
	if (!out || fwrite(buf, 1, size, out) != size || fclose(out) != 0) {
		fprintf(stderr, "perfdata_mutate: %s: %s\n", argv[4], strerror(errno));
		free(buf);
		return 1;
	}
	printf("%s set to %#llx in %ld samples\n", name, (unsigned long long)value, n);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t run_seed, index;
	size_t size, donor_size = 0;
	char what[4096], step[1024];

	if (argc == 5 && strcmp(argv[1], "--set") == 0)
		return set_field(argv);

	if ((argc != 5 && argc != 6) || number(argv[1], &run_seed) || number(argv[2], &index)) {
		fprintf(stderr, "usage: perfdata_mutate RUN_SEED INDEX IN OUT [DONOR]\n"
				"       perfdata_mutate --set FIELD=VALUE[,LIMIT] IN OUT\n");
		return 2;
	}
	uint8_t *buf = slurp(argv[3], &size, GROWTH);
	if (!buf)
		return 1;
	uint8_t *donor = argc == 6 ? slurp(argv[5], &donor_size, 0) : NULL;
	if (argc == 6 && !donor)
		return 1;
	size_t cap = size + GROWTH;
	uint64_t seed = pdm_seed(run_seed, index);
	unsigned rounds = 1 + (unsigned)(seed % 3);
	what[0] = '\0';
	if (donor && (seed >> 8) % 8 == 0) {
		uint8_t *out = malloc(cap);
		size_t n = out ? pdm_crossover(buf, size, donor, donor_size, out, cap, seed) : 0;
		if (n) {
			free(buf);
			buf = out;
			size = n;
			snprintf(what, sizeof(what), "records of %s spliced in; ", argv[5]);
			rounds = 1;
		} else {
			free(out);
		}
	}
	for (unsigned i = 0; i < rounds; i++) {
		size_t n = pdm_mutate(buf, size, cap, pdm_seed(seed, i), step, sizeof(step));
		if (!n) {
			if (i == 0) {
				fprintf(stderr, "perfdata_mutate: %s: not a perf.data file the mutator can walk\n",
					argv[3]);
				free(buf);
				free(donor);
				return 3;
			}
			break;
		}
		size = n;
		size_t used = strlen(what);
		snprintf(what + used, sizeof(what) - used, "%s%s", i ? "; " : "", step);
	}
	FILE *out = fopen(argv[4], "wb");
	if (!out || fwrite(buf, 1, size, out) != size || fclose(out) != 0) {
		fprintf(stderr, "perfdata_mutate: %s: %s\n", argv[4], strerror(errno));
		return 1;
	}
	printf("%s\n", what);
	free(buf);
	free(donor);
	return 0;
}
