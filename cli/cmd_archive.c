/* SPDX-License-Identifier: MIT */
/*
 * cmd_archive.c - `perfev archive`: packs the build-id cache entries a
 * perf.data names (its BUILD_ID table: the files its samples hit, the
 * kernel's symbols, the vDSO) into one FILE.tar.gz, so that the recording
 * reads right on another machine once the archive is extracted into the
 * cache there; entries the cache lacks are added first when the files are
 * still here. `perfev archive --unpack [ARCHIVE]` extracts such an archive
 * (or perf's .tar.bz2) into the cache, refusing anything that would reach
 * outside it (archive_unpack.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "archive_unpack.h"
#include "buildid_cache.h"
#include "cli.h"
#include "tar_read.h"
#include "tar_write.h"

extern char **environ;

static const char usage[] = "perfev archive [-o ARCHIVE] [--exclude-buildids FILE] [-v] "
                            "[PERF.DATA]\n"
                            "   or: perfev archive --unpack [-v] [ARCHIVE]";

#define MAX_DEPTH 8 /* directories below an entry's, at most */

struct archive_args {
	const char *input, *output, *exclude;
	bool unpack, verbose;
};

static void print_help(void)
{
	printf("usage: %s\n\n"
	       "Packs the build-id cache entries ($PERF_BUILDID_DIR, else ~/.debug) of the\n"
	       "files a recording names into PERF.DATA.tar.gz, to read the recording on\n"
	       "another machine: files not cached yet are added first when they are here.\n"
	       "With --unpack, extracts such an archive (or perf archive's .tar.bz2) into\n"
	       "the cache, refusing names and links that lead outside it.\n\n"
	       "  -o, --output ARCHIVE        write ARCHIVE (default: PERF.DATA.tar.gz)\n"
	       "      --exclude-buildids FILE leave out the build ids FILE lists, one a line\n"
	       "  -u, --unpack                extract ARCHIVE (default: the one perf*.tar.gz\n"
	       "                              or perf*.tar.bz2 here) into the cache\n"
	       "  -v, --verbose               name each entry\n"
	       "  -h, --help                  print this help\n\n"
	       "PERF.DATA defaults to perf.data. 'man perfev-archive' has the details.\n",
	       usage);
}

/* Reads the options into a. Returns -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, struct archive_args *a)
{
	enum { OPT_EXCLUDE = 256 };
	static const struct option options[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"exclude-buildids", required_argument, NULL, OPT_EXCLUDE},
	    {"unpack", no_argument, NULL, 'u'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int opt;

	optind = 1;
	opterr = 0; /* perfev's own messages (cli_bad_option), not getopt's */
	while ((opt = getopt_long(argc, argv, ":o:uvh", options, NULL)) != -1) {
		switch (opt) {
		case 'o':
			a->output = optarg;
			break;
		case OPT_EXCLUDE:
			a->exclude = optarg;
			break;
		case 'u':
			a->unpack = true;
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
	if (optind < argc)
		a->input = argv[optind++];
	if (optind < argc) {
		cli_error("unexpected argument '%s' (one file at most)", argv[optind]);
		return cli_usage(usage);
	}
	if (a->unpack && (a->output || a->exclude)) {
		cli_error("--unpack takes neither -o nor --exclude-buildids");
		return cli_usage(usage);
	}
	return -1;
}

/* ---- packing --------------------------------------------------------------- */

/* Whether the hex build id is listed in the exclude file's text (a line of its own). */
static bool excluded(const char *list, const char *hex)
{
	size_t len = strlen(hex);

	for (const char *p = list; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		/* perf's list is `buildid-list` output: "HEX NAME"; the first word counts. */
		size_t word = strcspn(p, " \t\n");
		if (word == len && memcmp(p, hex, len) == 0)
			return true;
	}
	return false;
}

/* The whole of a small text file (malloc'ed), or NULL after saying why. */
static char *read_text(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0;

	if (!f) {
		cli_error("cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	FILE *mem = open_memstream(&buf, &len);
	int c;
	while (mem && (c = getc(f)) != EOF)
		putc(c, mem);
	fclose(f);
	if (!mem || fclose(mem) != 0) {
		cli_error("out of memory");
		return NULL;
	}
	return buf;
}

/*
 * The entry directory a .build-id link (at .build-id/XX, target as read)
 * names, relative to the cache, into out: false when the target is
 * absolute or climbs out of the cache.
 */
static bool entry_of_link(const char *target, char *out, size_t size)
{
	char buf[PATH_MAX], *save = NULL;
	const char *parts[PATH_MAX / 2];
	int n = 2;
	size_t at = 0;

	if (target[0] == '/' || snprintf(buf, sizeof(buf), "%s", target) >= (int)sizeof(buf))
		return false;
	parts[0] = ".build-id";
	parts[1] = "xx";
	for (char *c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (strcmp(c, ".") == 0)
			continue;
		if (strcmp(c, "..") == 0) {
			if (n == 0)
				return false;
			n--;
		} else {
			parts[n++] = c;
		}
	}
	if (n == 0)
		return false;
	out[0] = '\0';
	for (int i = 0; i < n && at < size; i++)
		at += (size_t)snprintf(out + at, size - at, "%s%s", i ? "/" : "", parts[i]);
	return at < size;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Adds cache/rel (directory, file or link) and what is below. Returns 0 or a negative errno. */
static int add_tree(struct tar_writer *w, const char *cache, const char *rel, int depth,
                    bool verbose)
{
	char path[PATH_MAX], target[PATH_MAX], sub[PATH_MAX];
	struct dirent **names;
	struct stat st;
	ssize_t n;
	int r = 0, count;

	if (snprintf(path, sizeof(path), "%s/%s", cache, rel) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if (lstat(path, &st) != 0)
		return -errno;
	if (verbose)
		printf("%s\n", rel);
	if (S_ISREG(st.st_mode))
		return tar_write_file(w, rel, path);
	if (S_ISLNK(st.st_mode)) {
		if ((n = readlink(path, target, sizeof(target) - 1)) < 0)
			return -errno;
		target[n] = '\0';
		return tar_write_symlink(w, rel, target, st.st_mtime);
	}
	if (!S_ISDIR(st.st_mode) || depth > MAX_DEPTH)
		return 0; /* nothing a report reads */
	if ((r = tar_write_dir(w, rel, st.st_mode, st.st_mtime)) < 0)
		return r;
	if ((count = scandir(path, &names, NULL, by_name)) < 0)
		return -errno;
	for (int i = 0; i < count; i++) {
		const char *d = names[i]->d_name;
		if (!r && strcmp(d, ".") != 0 && strcmp(d, "..") != 0) {
			if (snprintf(sub, sizeof(sub), "%s/%s", rel, d) >= (int)sizeof(sub))
				r = -ENAMETOOLONG;
			else
				r = add_tree(w, cache, sub, depth + 1, verbose);
		}
		free(names[i]);
	}
	free(names);
	return r;
}

/*
 * Adds build id hex's .build-id link and the entry it names. Returns 0,
 * 1 when the link is missing or leads outside the cache (warned), or a
 * negative errno of the archive.
 */
static int add_build_id(struct tar_writer *w, const char *cache, const char *hex, bool verbose)
{
	char rel[64 + 2 * BC_ID_MAX], path[PATH_MAX], target[PATH_MAX], entry[PATH_MAX];
	struct stat st;
	ssize_t n;
	int r;

	snprintf(rel, sizeof(rel), ".build-id/%.2s/%s", hex, hex + 2);
	if (snprintf(path, sizeof(path), "%s/%s", cache, rel) >= (int)sizeof(path) ||
	    lstat(path, &st) != 0 || (n = readlink(path, target, sizeof(target) - 1)) < 0)
		return 1;
	target[n] = '\0';
	if (!entry_of_link(target, entry, sizeof(entry))) {
		cli_warning("%s: the link in the cache leads outside it (to %s): left out", rel,
		            target);
		return 1;
	}
	if (verbose)
		printf("%s\n", rel);
	if ((r = tar_write_symlink(w, rel, target, st.st_mtime)) < 0)
		return r;
	return add_tree(w, cache, entry, 0, verbose);
}

/* The recording's build ids (hex) with the names it gives them, each once. */
struct wanted {
	char (*hex)[2 * BC_ID_MAX + 1];
	const struct pev_perfdata_build_id **b;
	size_t n;
};

/* Fills *want from pd's BUILD_ID table, dropping duplicates and the excluded. */
static int collect(struct pev_perfdata *pd, const char *exclude, struct wanted *want)
{
	const struct pev_perfdata_features *f = pev_perfdata_features(pd);

	want->hex = calloc(f->nr_build_ids + 1, sizeof(*want->hex));
	want->b = calloc(f->nr_build_ids + 1, sizeof(*want->b));
	if (!want->hex || !want->b) {
		cli_error("out of memory");
		return 1;
	}
	for (size_t i = 0; i < f->nr_build_ids; i++) {
		const struct pev_perfdata_build_id *b = &f->build_ids[i];
		bool dup = false;

		if (!b->filename || !b->size || b->size > BC_ID_MAX || b->pid != -1)
			continue;
		bc_hex(want->hex[want->n], b->build_id, b->size);
		for (size_t j = 0; j < want->n && !dup; j++)
			dup = strcmp(want->hex[j], want->hex[want->n]) == 0;
		if (dup || (exclude && excluded(exclude, want->hex[want->n])))
			continue;
		want->b[want->n++] = b;
	}
	return 0;
}

/* `perfev archive [PERF.DATA]`. */
static int pack(const char *cache, const struct archive_args *a)
{
	const char *input = a->input ? a->input : "perf.data";
	char output[PATH_MAX], *exclude = NULL;
	struct wanted want = {0};
	struct pev_perfdata *pd;
	struct pev_error err;
	struct tar_writer *w;
	size_t packed = 0, left_out = 0;
	int bad = 0, r = 0;

	if (snprintf(output, sizeof(output), "%s", a->output ? a->output : input) >=
	        (int)sizeof(output) ||
	    (!a->output && strlen(output) + 7 >= sizeof(output))) {
		cli_error("'%s': name too long", input);
		return 1;
	}
	if (!a->output)
		strcat(output, ".tar.gz");
	if (a->exclude && !(exclude = read_text(a->exclude)))
		return 1;
	if (pev_perfdata_open(input, 0, &pd, &err) != 0) {
		cli_error("cannot read '%s': %s", input, err.message);
		free(exclude);
		return 1;
	}
	if ((bad = collect(pd, exclude, &want)) != 0 || want.n == 0) {
		if (!bad)
			cli_error("no build-ids found in '%s'%s", input,
			          exclude ? " (after --exclude-buildids)" : "");
		bad = 1;
		goto out;
	}
	/* What the cache lacks, from the files still here. */
	for (size_t i = 0; i < want.n; i++)
		if (!bc_has(cache, want.b[i]->build_id, want.b[i]->size))
			bad |= buildid_cache_add_recorded(cache, want.b[i], a->verbose);
	int fd = cli_output_fd(a->output ? "-o" : NULL, output, CLI_OUTPUT_FILE_ONLY);
	if (fd < 0) {
		bad = 1;
		goto out;
	}
	if (!(w = tar_write_open(fd, output))) {
		cli_error("cannot write '%s': %s", output, strerror(errno));
		bad = 1;
		goto out;
	}
	for (size_t i = 0; i < want.n && r >= 0; i++) {
		r = add_build_id(w, cache, want.hex[i], a->verbose);
		if (r == 1) {
			cli_warning(
			    "%s %s: not in the build-id cache, nor here as that build: left "
			    "out (reports elsewhere will not name its functions)",
			    want.hex[i], want.b[i]->filename);
			left_out++;
		} else if (r == 0) {
			packed++;
		}
	}
	if (r < 0) {
		tar_write_abort(w);
		cli_error("cannot write '%s': %s", output, strerror(-r));
		bad = 1;
		goto out;
	}
	if ((r = tar_write_close(w)) < 0) {
		cli_error("cannot write '%s': %s", output, strerror(-r));
		bad = 1;
		goto out;
	}
	printf("%zu build id%s of %zu packed into %s.\n", packed, packed == 1 ? "" : "s",
	       packed + left_out, output);
	printf("Now please run:\n\n"
	       "$ tar xvf %s -C ~/.debug\n\n"
	       "(or: perfev archive --unpack %s)\n"
	       "wherever you need to run 'perfev report' or 'perf report' on.\n",
	       output, output);
out:
	free(want.hex);
	free(want.b);
	free(exclude);
	pev_perfdata_close(pd);
	return bad;
}

/* ---- unpacking ------------------------------------------------------------- */

/* Whether name is an archive --unpack finds by itself: perf*.tar.gz or perf*.tar.bz2. */
static bool archive_name(const char *name)
{
	size_t len = strlen(name);

	return strncmp(name, "perf", 4) == 0 &&
	       ((len > 11 && strcmp(name + len - 7, ".tar.gz") == 0) ||
	        (len > 12 && strcmp(name + len - 8, ".tar.bz2") == 0));
}

/* The one archive in the current directory, into out; false after saying why. */
static bool find_archive(char *out, size_t size)
{
	struct dirent **names;
	int n = scandir(".", &names, NULL, by_name), found = 0;
	struct stat st;

	if (n < 0) {
		cli_error("cannot read the current directory: %s", strerror(errno));
		return false;
	}
	for (int i = 0; i < n; i++) {
		if (archive_name(names[i]->d_name) && stat(names[i]->d_name, &st) == 0 &&
		    S_ISREG(st.st_mode)) {
			if (found++ == 0)
				snprintf(out, size, "%s", names[i]->d_name);
			else
				snprintf(out, size, "%s", "");
		}
		free(names[i]);
	}
	free(names);
	if (found == 1)
		return true;
	cli_error("%s archive (perf*.tar.gz, perf*.tar.bz2) in the current directory: name the "
	          "one to unpack",
	          found ? "more than one" : "no");
	return false;
}

/* A decompressor perfev runs for a format zlib does not read, by the file's first bytes. */
static const char *decompressor(int fd)
{
	unsigned char magic[6] = {0};
	ssize_t n = pread(fd, magic, sizeof(magic), 0);

	if (n >= 3 && memcmp(magic, "BZh", 3) == 0)
		return "bzip2";
	if (n >= 6 && memcmp(magic,
	                     "\xfd"
	                     "7zXZ",
	                     6) == 0)
		return "xz";
	return NULL;
}

/* A running decompressor: its pid, 0 when none. */
struct source {
	pid_t pid;
	const char *tool;
};

/*
 * Opens the archive's tar stream: the file through zlib (gzip, or plain
 * tar), or the output of `bzip2 -dc` / `xz -dc` reading it. Returns the
 * reader, or NULL after saying why.
 */
static struct tar_reader *open_stream(const char *archive, struct source *src)
{
	int fd = open(archive, O_RDONLY | O_CLOEXEC), pipefd[2];
	posix_spawn_file_actions_t fa;
	struct stat st;

	src->pid = 0;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		cli_error("cannot read '%s': %s", archive, fd < 0 ? strerror(errno) : "not a file");
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (!(src->tool = decompressor(fd))) {
		struct tar_reader *r = tar_read_open(fd);
		if (!r)
			cli_error("out of memory");
		return r;
	}
	char *argv[] = {(char *)src->tool, "-dc", NULL};
	if (pipe2(pipefd, O_CLOEXEC) != 0) {
		cli_error("cannot make a pipe: %s", strerror(errno));
		close(fd);
		return NULL;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd, 0);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	int e = posix_spawnp(&src->pid, src->tool, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fd);
	close(pipefd[1]);
	if (e != 0) {
		cli_error("cannot run %s to decompress '%s': %s (Debian: apt-get install %s)",
		          src->tool, archive, strerror(e),
		          strcmp(src->tool, "xz") ? "bzip2" : "xz-utils");
		close(pipefd[0]);
		src->pid = 0;
		return NULL;
	}
	struct tar_reader *r = tar_read_open(pipefd[0]);
	if (!r)
		cli_error("out of memory");
	return r;
}

/* Closes the stream; returns false when its decompressor failed. */
static bool close_stream(struct tar_reader *r, struct source *src)
{
	int status = 0;

	tar_read_close(r);
	if (!src->pid)
		return true;
	while (waitpid(src->pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* One pass over the archive (check, or extract). Returns 0 or 1 (said why). */
static int unpack_pass(const char *archive, int cache_fd, bool write, bool verbose,
                       struct unpack_counts *counts)
{
	struct source src;
	struct tar_reader *r = open_stream(archive, &src);
	char why[PATH_MAX + 256];
	int rc;

	if (!r)
		return 1;
	rc = unpack_entries(r, cache_fd, write, verbose ? stdout : NULL, counts, why, sizeof(why));
	/* A decompressor stopped early by a refusal fails too: the refusal is the reason. */
	if (!close_stream(r, &src) && rc == 0) {
		snprintf(why, sizeof(why), "%s could not decompress it (damaged or truncated)",
		         src.tool);
		rc = -1;
	}
	if (rc < 0) {
		cli_error("cannot unpack '%s': %s", archive, why);
		if (!write)
			fprintf(stderr, "hint: nothing was written into the build-id cache\n");
		return 1;
	}
	return 0;
}

/* `perfev archive --unpack [ARCHIVE]`. */
static int unpack(const char *cache, const struct archive_args *a)
{
	char found[PATH_MAX];
	const char *archive = a->input;
	struct unpack_counts counts = {0};
	int cache_fd, r;

	if (!archive) {
		if (!find_archive(found, sizeof(found)))
			return 1;
		archive = found;
		printf("Found the archive to unpack: %s\n", archive);
	}
	/* Everything is checked before anything is written. */
	cache_fd = open(cache, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	r = unpack_pass(archive, cache_fd, false, false, &counts);
	if (cache_fd >= 0)
		close(cache_fd);
	if (r)
		return r;
	if ((r = bc_make_dirs(cache)) < 0 ||
	    (cache_fd = open(cache, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		cli_error("cannot make the build-id cache %s: %s", cache,
		          strerror(r < 0 ? -r : errno));
		return 1;
	}
	r = unpack_pass(archive, cache_fd, true, a->verbose, &counts);
	close(cache_fd);
	if (!r)
		printf("%u files and links unpacked into %s (%u there already).\n", counts.written,
		       cache, counts.kept);
	return r;
}

int cmd_archive(int argc, char **argv)
{
	struct archive_args a = {0};
	char cache[PATH_MAX];
	int r = parse_options(argc, argv, &a);

	if (r >= 0)
		return r;
	if (!bc_dir(cache, sizeof(cache))) {
		cli_error("no build-id cache: set HOME or PERF_BUILDID_DIR");
		return 1;
	}
	r = a.unpack ? unpack(cache, &a) : pack(cache, &a);
	return cli_finish_output(stdout, "standard output") | r;
}
