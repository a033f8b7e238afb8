/* SPDX-License-Identifier: MIT */
/*
 * push_queue.c - the finished windows of a --rotate directory, oldest
 * first (see push_queue.h). The directory is the queue: nothing is kept
 * in memory between scans, so what a killed recorder left is found again.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "push_queue.h"

/* "perfev-YYYYmmddTHHMMSS.mmmZ." and what may follow it. */
#define PREFIX "perfev-"

static bool digits(const char *p, int n, int *out)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return false;
		v = v * 10 + (p[i] - '0');
	}
	*out = v;
	return true;
}

bool push_window_parse(const char *name, uint64_t *start_ns, bool *pprof)
{
	static const char *const tails[] = {"data", "recovered.data", "pb.gz", "recovered.pb.gz"};
	struct tm tm = {0};
	int year, mon, day, hour, min, sec, ms;
	const char *p = name;

	if (strncmp(p, PREFIX, strlen(PREFIX)) != 0)
		return false;
	p += strlen(PREFIX);
	/* YYYYmmddTHHMMSS.mmmZ. */
	if (!digits(p, 4, &year) || !digits(p + 4, 2, &mon) || !digits(p + 6, 2, &day) ||
	    p[8] != 'T' || !digits(p + 9, 2, &hour) || !digits(p + 11, 2, &min) ||
	    !digits(p + 13, 2, &sec) || p[15] != '.' || !digits(p + 16, 3, &ms) || p[19] != 'Z' ||
	    p[20] != '.')
		return false;
	p += 21;
	size_t i = 0;
	for (; i < sizeof(tails) / sizeof(tails[0]); i++)
		if (strcmp(p, tails[i]) == 0)
			break;
	if (i == sizeof(tails) / sizeof(tails[0]))
		return false;
	if (mon < 1 || mon > 12 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 60)
		return false;
	tm.tm_year = year - 1900;
	tm.tm_mon = mon - 1;
	tm.tm_mday = day;
	tm.tm_hour = hour;
	tm.tm_min = min;
	tm.tm_sec = sec;
	time_t t = timegm(&tm);
	if (t < 0)
		return false;
	*start_ns = (uint64_t)t * 1000000000u + (uint64_t)ms * 1000000u;
	*pprof = i >= 2;
	return true;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct push_window *)a)->name, ((const struct push_window *)b)->name);
}

int push_queue_scan(const char *dir, struct push_window **out, size_t *n)
{
	DIR *d = opendir(dir);
	struct push_window *list = NULL;
	size_t count = 0, cap = 0;
	struct dirent *e;

	*out = NULL;
	*n = 0;
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		struct push_window w;
		struct stat st;
		if (strlen(e->d_name) >= sizeof(w.name) ||
		    !push_window_parse(e->d_name, &w.start_ns, &w.pprof))
			continue;
		/* A regular file of its own (a link or a directory of that name is not a window). */
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		strcpy(w.name, e->d_name);
		w.end_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
		if (w.end_ns < w.start_ns)
			w.end_ns = w.start_ns;
		if (count == cap) {
			cap = cap ? cap * 2 : 64;
			struct push_window *bigger = realloc(list, cap * sizeof(*list));
			if (!bigger) {
				free(list);
				closedir(d);
				errno = ENOMEM;
				return -1;
			}
			list = bigger;
		}
		list[count++] = w;
	}
	closedir(d);
	if (count)
		qsort(list, count, sizeof(*list), by_name);
	*out = list;
	*n = count;
	return 0;
}
