/* SPDX-License-Identifier: MIT */
/*
 * cmd_buildid_cache.c - `perfev buildid-cache`: add files to perf's
 * build-id cache, remove them, list it, fill it with what a perf.data
 * names (so that the recording reads right after the files change, or on
 * another machine once the cache is copied there), and list what a
 * perf.data names that the cache lacks. The cache is perf's own, in perf's
 * layout (buildid_cache.h): perf and perfev read each other's entries.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buildid_cache.h"
#include "cli.h"

static const char usage[] =
    "perfev buildid-cache [-a FILE[,FILE...]] [-r FILE[,FILE...]] [-l]\n"
    "                            [-i PERF.DATA] [-M PERF.DATA] [-v]";

#define MAX_LISTS 64 /* -a, -r given this many times at most */

struct bc_args {
	const char *add[MAX_LISTS], *remove[MAX_LISTS];
	int nadd, nremove;
	const char *input, *missing;
	bool list, verbose;
};

static void print_help(void)
{
	printf("usage: %s\n\n"
	       "Manages perf's build-id cache ($PERF_BUILDID_DIR, else ~/.debug): copies of the\n"
	       "files a recording names, kept by build id, which perfev report, perfev script\n"
	       "and perf report read when a file has changed or is missing.\n\n"
	       "  -a, --add FILES           add these ELF files (comma-separated; repeatable)\n"
	       "  -r, --remove FILES        remove these files' entries\n"
	       "  -l, --list                list the cache: build id and file, one a line\n"
	       "  -i, --input PERF.DATA     add every file PERF.DATA names by build id that is\n"
	       "                            here with that build id (and the kernel's symbols\n"
	       "                            and the vDSO when it was recorded on this kernel)\n"
	       "  -M, --missing PERF.DATA   list what PERF.DATA names that the cache lacks\n"
	       "  -v, --verbose             say what each file became\n"
	       "  -h, --help                print this help\n\n"
	       "'man perfev-buildid-cache' has the details.\n",
	       usage);
}

/* Reads the options into a. Returns -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, struct bc_args *a)
{
	static const struct option options[] = {
	    {"add", required_argument, NULL, 'a'},
	    {"remove", required_argument, NULL, 'r'},
	    {"list", no_argument, NULL, 'l'},
	    {"input", required_argument, NULL, 'i'},
	    {"missing", required_argument, NULL, 'M'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int opt;

	optind = 1;
	opterr = 0; /* perfev's own messages (cli_bad_option), not getopt's */
	while ((opt = getopt_long(argc, argv, ":a:r:li:M:vh", options, NULL)) != -1) {
		switch (opt) {
		case 'a':
		case 'r':
			if ((opt == 'a' ? a->nadd : a->nremove) == MAX_LISTS) {
				cli_error("too many -%c options (at most %d); list files with "
					  "commas",
					  opt, MAX_LISTS);
				return 129;
			}
			if (opt == 'a')
				a->add[a->nadd++] = optarg;
			else
				a->remove[a->nremove++] = optarg;
			break;
		case 'l':
			a->list = true;
			break;
		case 'i':
			a->input = optarg;
			break;
		case 'M':
			a->missing = optarg;
			break;
		case 'v':
			a->verbose = true;
			break;
		case 'h':
			print_help();
			return 0;
		default:
			return cli_bad_option(opt, argv, usage);
		}
	}
	if (optind < argc) {
		cli_error("unexpected argument '%s' (files go after -a or -r)", argv[optind]);
		return cli_usage(usage);
	}
	if (!a->nadd && !a->nremove && !a->list && !a->input && !a->missing) {
		cli_error("nothing to do: give -a, -r, -l, -i or -M");
		return cli_usage(usage);
	}
	return -1;
}

/* FILE made absolute into out (the cache is keyed by the path processes map). */
static bool absolute(const char *file, char *out, size_t size)
{
	char *real = realpath(file, NULL);
	bool ok = real && snprintf(out, size, "%s", real) < (int)size;

	free(real);
	return ok;
}

/* -a or -r of one file. Returns 0 or 1 (failed, said why). */
static int one_file(const char *cache, const char *file, bool add, bool verbose)
{
	unsigned char id[BC_ID_MAX];
	char path[PATH_MAX], hex[2 * BC_ID_MAX + 1];
	size_t n;
	int r;

	if (!absolute(file, path, sizeof(path))) {
		cli_error("cannot %s '%s': %s", add ? "add" : "remove", file, strerror(errno));
		return 1;
	}
	n = bc_file_build_id(path, id, sizeof(id));
	if (!n) {
		cli_error("cannot %s '%s': not an ELF file with a build id", add ? "add" : "remove",
			  file);
		return 1;
	}
	bc_hex(hex, id, n);
	r = add ? bc_add_file(cache, path, id, n) : bc_remove(cache, path, id, n);
	if (r < 0) {
		cli_error("cannot %s '%s' %s the build-id cache %s: %s", add ? "add" : "remove",
			  file, add ? "to" : "from", cache, strerror(-r));
		return 1;
	}
	if (verbose)
		printf("%s %s %s: %s\n", add ? "Adding" : "Removing", hex, path,
		       r ? "Ok" : add ? "already cached" : "not cached");
	return 0;
}

/* Runs one_file on each name of the comma-separated list. */
static int file_list(const char *cache, const char *list, bool add, bool verbose)
{
	char *copy = strdup(list), *save = NULL;
	int bad = 0;

	if (!copy) {
		cli_error("out of memory");
		return 1;
	}
	for (char *f = strtok_r(copy, ",", &save); f; f = strtok_r(NULL, ",", &save))
		bad |= one_file(cache, f, add, verbose);
	free(copy);
	return bad;
}

int buildid_cache_add_recorded(const char *cache, const struct pev_perfdata_build_id *b,
			       bool verbose)
{
	char hex[2 * BC_ID_MAX + 1];
	int r = bc_add_named(cache, b->filename, b->build_id, b->size);

	bc_hex(hex, b->build_id, b->size);
	if (r == -ESTALE) {
		cli_warning("%s: not cached: the file here is not the build %s recorded", b->filename,
			    hex);
	} else if (r == -EACCES) {
		cli_warning("%s: not cached: /proc/kallsyms hides the kernel's addresses "
			    "(kernel.kptr_restrict; run as root)",
			    b->filename);
	} else if (r < 0 && r != -EINVAL) {
		cli_error("cannot add %s to the build-id cache %s: %s", b->filename, cache,
			  strerror(-r));
		return 1;
	} else if (verbose && r >= 0) {
		printf("Adding %s %s: %s\n", hex, b->filename, r ? "Ok" : "already cached");
	}
	return 0;
}

/* -i (add) or -M (print what the cache lacks) for the build ids of a perf.data. */
static int recording(const char *cache, const char *file, bool add, bool verbose)
{
	struct pev_perfdata *pd;
	struct pev_error err;
	char hex[2 * BC_ID_MAX + 1];
	int bad = 0;

	if (pev_perfdata_open(file, 0, &pd, &err) != 0) {
		cli_error("cannot read '%s': %s", file, err.message);
		return 1;
	}
	const struct pev_perfdata_features *f = pev_perfdata_features(pd);
	for (size_t i = 0; i < f->nr_build_ids; i++) {
		const struct pev_perfdata_build_id *b = &f->build_ids[i];

		if (!b->filename || !b->size || b->size > BC_ID_MAX || b->pid != -1)
			continue;
		if (add) {
			bad |= buildid_cache_add_recorded(cache, b, verbose);
		} else if (!bc_has(cache, b->build_id, b->size)) {
			bc_hex(hex, b->build_id, b->size);
			printf("%s %s\n", hex, b->filename);
		}
	}
	pev_perfdata_close(pd);
	return bad;
}

int cmd_buildid_cache(int argc, char **argv)
{
	struct bc_args a = {0};
	char cache[PATH_MAX];
	int r = parse_options(argc, argv, &a), bad = 0;

	if (r >= 0)
		return r;
	if (!bc_dir(cache, sizeof(cache))) {
		cli_error("no build-id cache: set HOME or PERF_BUILDID_DIR");
		return 1;
	}
	for (int i = 0; i < a.nadd; i++)
		bad |= file_list(cache, a.add[i], true, a.verbose);
	for (int i = 0; i < a.nremove; i++)
		bad |= file_list(cache, a.remove[i], false, a.verbose);
	if (a.input)
		bad |= recording(cache, a.input, true, a.verbose);
	if (a.missing)
		bad |= recording(cache, a.missing, false, a.verbose);
	if (a.list)
		bc_list(cache, stdout);
	return cli_finish_output(stdout, "standard output") | bad;
}
