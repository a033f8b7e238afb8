/* SPDX-License-Identifier: MIT */
/*
 * kernel_modules.c - the kernel's loaded modules, for the MMAP records perf
 * record writes for them (record_synth.c): each module's core from
 * /proc/modules ("name size refs deps state 0xaddress ..."), and the module
 * file under /lib/modules/RELEASE whose name is the module's (`9p.ko`,
 * `virtio-net.ko.xz`: the kernel writes '-' in a module's name as '_'),
 * found through depmod's modules.dep, else by a walk of the tree.
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kernel_modules.h"

static int by_start(const void *a, const void *b)
{
	const struct cli_kmod *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The module name a file name stands for ("virtio-net.ko.xz" -> "virtio_net"), or false. */
static bool module_file_name(const char *file, char *name, size_t size)
{
	static const char *const exts[] = {".ko", ".ko.xz", ".ko.gz", ".ko.zst"};
	size_t len = strlen(file);

	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		size_t el = strlen(exts[i]);
		if (len > el && len - el < size && strcmp(file + len - el, exts[i]) == 0) {
			memcpy(name, file, len - el);
			name[len - el] = '\0';
			for (char *p = name; *p; p++)
				if (*p == '-')
					*p = '_';
			return true;
		}
	}
	return false;
}

/* Names each module of mods that file (a base name) stands for by path, path_len bytes long. */
static void name_by_file(struct cli_kmod *mods, int n, const char *file, const char *path,
			 size_t path_len, int *left)
{
	char name[64];

	if (!module_file_name(file, name, sizeof(name)) || path_len >= sizeof(mods[0].path))
		return;
	for (int i = 0; i < n; i++)
		if (mods[i].path[0] == '[' && strcmp(mods[i].name, name) == 0) {
			memcpy(mods[i].path, path, path_len);
			mods[i].path[path_len] = '\0';
			(*left)--;
		}
}

/* Walks dir (depth-first, at most `depth` levels), naming each module of mods by its file. */
static void find_files(char *dir, size_t dir_len, size_t dir_cap, int depth,
		       struct cli_kmod *mods, int n, int *left)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char name[64];

	if (!d)
		return;
	while (*left > 0 && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (e->d_name[0] == '.' || dir_len + 1 + len + 1 > dir_cap)
			continue;
		snprintf(dir + dir_len, dir_cap - dir_len, "/%s", e->d_name);
		if (module_file_name(e->d_name, name, sizeof(name))) {
			name_by_file(mods, n, e->d_name, dir, dir_len + 1 + len, left);
		} else if (depth > 0) {
			struct stat st;
			if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
				find_files(dir, dir_len + 1 + len, dir_cap, depth - 1, mods, n, left);
		}
		dir[dir_len] = '\0';
	}
	closedir(d);
}

/*
 * Names the modules of mods from modules_dir/modules.dep (depmod's index, one
 * "kernel/fs/ext4/ext4.ko: DEPS" line per module file, relative to the
 * directory): one file read instead of a walk of thousands.
 */
static void find_in_index(const char *modules_dir, struct cli_kmod *mods, int n, int *left)
{
	char path[4096], line[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/modules.dep", modules_dir);
	if (!(f = fopen(path, "re")))
		return;
	while (*left > 0 && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		if (!colon || colon == line)
			continue;
		*colon = '\0';
		const char *base = strrchr(line, '/');
		int len = line[0] == '/' ? snprintf(path, sizeof(path), "%s", line)
					 : snprintf(path, sizeof(path), "%s/%s", modules_dir, line);
		if (len > 0 && (size_t)len < sizeof(path))
			name_by_file(mods, n, base ? base + 1 : line, path, (size_t)len, left);
	}
	fclose(f);
}

int cli_kernel_modules(const char *proc_modules, const char *modules_dir, struct cli_kmod **out)
{
	FILE *f = fopen(proc_modules, "re");
	struct cli_kmod *mods = NULL;
	int n = 0, cap = 0;
	char line[1024];

	*out = NULL;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char name[64];
		unsigned long long size, addr;
		if (sscanf(line, "%63s %llu %*s %*s %*s %llx", name, &size, &addr) != 3)
			continue;
		if (!addr) { /* hidden: every address reads 0 */
			n = 0;
			break;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			struct cli_kmod *m = realloc(mods, (size_t)cap * sizeof(*m));
			if (!m) {
				free(mods);
				fclose(f);
				return -1;
			}
			mods = m;
		}
		struct cli_kmod *m = &mods[n++];
		m->start = addr;
		m->size = size;
		snprintf(m->name, sizeof(m->name), "%s", name);
		snprintf(m->path, sizeof(m->path), "[%s]", name);
	}
	fclose(f);
	if (!n) {
		free(mods);
		return 0;
	}
	qsort(mods, (size_t)n, sizeof(*mods), by_start);
	char dir[4096];
	int left = n;
	/* depmod's index first; a walk of the tree for what it does not list. */
	find_in_index(modules_dir, mods, n, &left);
	snprintf(dir, sizeof(dir), "%s", modules_dir);
	if (left > 0)
		find_files(dir, strlen(dir), sizeof(dir), 8, mods, n, &left);
	*out = mods;
	return n;
}
