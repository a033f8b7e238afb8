/* SPDX-License-Identifier: MIT */
/*
 * list_sdt.c - the SDT events (USDT probes from .note.stapsdt) that perf
 * knows: `perf buildid-cache --add BINARY` (and perf record) copies a
 * binary to $HOME/.debug/<its path>/<build id>/, writes a "probes" file
 * there whose "%provider:event=..." lines name its SDT events, and links
 * the directory from $HOME/.debug/.build-id/<2 hex digits>/<38 hex digits>.
 * perf list shows the events of every binary linked so. The cache is
 * $PERF_BUILDID_DIR when set, as everywhere in perfev (buildid_cache.h).
 */
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buildid_cache.h"
#include "sdt.h"

struct sdt_list {
	struct cli_sdt_event *events;
	int n, cap;
	bool oom;
};

static void add_event(struct sdt_list *l, const char *name, size_t name_len, const char *path,
                      const char *build_id)
{
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 32;
		struct cli_sdt_event *grown = realloc(l->events, sizeof(*grown) * (size_t)cap);
		if (!grown) {
			l->oom = true;
			return;
		}
		l->events = grown;
		l->cap = cap;
	}
	struct cli_sdt_event *e = &l->events[l->n];
	e->name = strndup(name, name_len);
	e->path = strdup(path);
	snprintf(e->build_id, sizeof(e->build_id), "%s", build_id);
	if (!e->name || !e->path) {
		free(e->name);
		free(e->path);
		l->oom = true;
		return;
	}
	l->n++;
}

/* Adds the events of one cached binary's directory (no probes file: none). */
static void read_probes(struct sdt_list *l, const char *dir, const char *path, const char *build_id)
{
	char file[PATH_MAX + 16], line[4096];
	FILE *f;

	snprintf(file, sizeof(file), "%s/probes", dir);
	if (!(f = fopen(file, "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] != '%')
			continue;
		size_t n = strcspn(line + 1, "=\n");
		if (n > 0 && memchr(line + 1, ':', n))
			add_event(l, line + 1, n, path, build_id);
	}
	fclose(f);
}

static bool all_hex(const char *s, size_t n)
{
	return strlen(s) == n && strspn(s, "0123456789abcdef") == n;
}

/* Follows one .build-id link to its directory; the binary's path is what lies between. */
static void read_link(struct sdt_list *l, const char *root, const char *link, const char *build_id)
{
	char dir[PATH_MAX];
	size_t root_len = strlen(root);

	if (!realpath(link, dir) || strncmp(dir, root, root_len) != 0 || dir[root_len] != '/')
		return;
	char *last = strrchr(dir, '/');
	if (!last || last == dir + root_len)
		return;
	*last = '\0';
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s", dir + root_len);
	*last = '/';
	read_probes(l, dir, path, build_id);
}

static int by_name_then_build_id(const void *a, const void *b)
{
	const struct cli_sdt_event *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->build_id, y->build_id);
}

int cli_sdt_events_read(struct cli_sdt_event **out)
{
	struct sdt_list l = {0};
	char root[PATH_MAX], cache[PATH_MAX + 16];
	DIR *top;

	*out = NULL;
	if (!bc_dir(cache, sizeof(cache)))
		return 0;
	if (!realpath(cache, root))
		return 0;
	snprintf(cache, sizeof(cache), "%s/.build-id", root);
	if (!(top = opendir(cache)))
		return 0;
	for (struct dirent *d; !l.oom && (d = readdir(top));) {
		char sub[PATH_MAX + 32];
		DIR *links;
		if (!all_hex(d->d_name, 2))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", cache, d->d_name);
		if (!(links = opendir(sub)))
			continue;
		for (struct dirent *e; !l.oom && (e = readdir(links));) {
			char link[PATH_MAX + 96], build_id[41];
			if (!all_hex(e->d_name, 38))
				continue;
			snprintf(link, sizeof(link), "%s/%s", sub, e->d_name);
			snprintf(build_id, sizeof(build_id), "%s%s", d->d_name, e->d_name);
			read_link(&l, root, link, build_id);
		}
		closedir(links);
	}
	closedir(top);
	if (l.oom) {
		cli_sdt_events_free(l.events, l.n);
		return -1;
	}
	if (l.n > 1)
		qsort(l.events, (size_t)l.n, sizeof(*l.events), by_name_then_build_id);
	*out = l.events;
	return l.n;
}

void cli_sdt_events_free(struct cli_sdt_event *events, int n)
{
	for (int i = 0; i < n; i++) {
		free(events[i].name);
		free(events[i].path);
	}
	free(events);
}
