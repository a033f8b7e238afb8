/* SPDX-License-Identifier: MIT */
/*
 * pmu.c - the PMUs a machine offers, read from sysfs.
 *
 * Every directory under <sysfs>/bus/event_source/devices is a PMU:
 *
 *   type                  the attr.type of its events (decimal)
 *   format/<field>        "config:0-7", "config1:0-63", "config:0-7,32-35"
 *   events/<alias>        default terms, "event=0x3c,umask=0x00"
 *   events/<alias>.scale  a decimal factor ("2.3283064365386962890625e-10")
 *   events/<alias>.unit   the unit of scaled counts ("Joules")
 *   events/<alias>.per-pkg, events/<alias>.snapshot   flags, present or not
 *   cpus                  the CPUs of a core PMU on hybrid systems ("0-7")
 *   cpumask               the CPUs an uncore PMU counts on ("0")
 *   caps/max_precise      the highest precise_ip it accepts
 *
 * Everything is read relative to directory descriptors (openat), so a long
 * root or a symlinked PMU directory cannot make a path overflow, and every
 * file is opened non-blocking and must be a regular file, so a FIFO in a
 * broken tree cannot hang the reader. Reads are capped: no file is read past
 * a page (what sysfs itself can produce) and no directory past a fixed number
 * of entries. Whatever is malformed is skipped, one file at a time.
 *
 * Strings and arrays live in an arena owned by the list, so pev_pmus_free()
 * releases everything at once.
 */
#include "perfev/pmu.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfev/cpulist.h"
#include "core/error_internal.h"
#include "core/util.h"

/* Limits that keep a hostile or broken tree from exhausting memory or time. */
#define MAX_PMUS        4096  /* PMU directories kept */
#define MAX_DIR_ENTRIES 65536 /* entries looked at in one directory */
#define MAX_FORMATS     256   /* format fields kept per PMU */
#define MAX_ALIASES     8192  /* event aliases kept per PMU */
#define MAX_TEXT        4096  /* bytes of one attribute file (a page) */
#define MAX_CPUS_TEXT   65536 /* bytes of a cpus/cpumask list (a 64 KiB page) */

#define PERF_TYPE_RAW_ 4

/* ---- arena ------------------------------------------------------------- */

#define ARENA_BLOCK 16384

struct block {
	struct block *next;
	size_t used;
	size_t cap;
	max_align_t data[];
};

struct arena {
	struct block *head;
};

static void *arena_alloc(struct arena *a, size_t size, size_t align)
{
	struct block *b = a->head;

	if (b) {
		size_t off = (b->used + align - 1) & ~(align - 1);
		if (off <= b->cap && size <= b->cap - off) {
			b->used = off + size;
			return (char *)b->data + off;
		}
	}
	size_t cap = size > ARENA_BLOCK ? size : ARENA_BLOCK;
	b = malloc(sizeof(*b) + cap);
	if (!b)
		return NULL;
	b->used = size;
	b->cap = cap;
	if (a->head && cap == size) {
		/* A block for one big allocation: keep the current block in front. */
		b->next = a->head->next;
		a->head->next = b;
	} else {
		b->next = a->head;
		a->head = b;
	}
	return b->data;
}

static char *arena_strdup(struct arena *a, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = arena_alloc(a, n, 1);

	if (p)
		memcpy(p, s, n);
	return p;
}

static void arena_free(struct arena *a)
{
	struct block *b = a->head;

	while (b) {
		struct block *next = b->next;
		free(b);
		b = next;
	}
	a->head = NULL;
}

/* ---- the list ---------------------------------------------------------- */

struct pev_pmus {
	int nr;
	struct pev_pmu *pmus; /* sorted by name */
	struct arena arena;   /* every string, format and alias */
};

/*
 * What one pev_pmus_read call shares: the list being built, the C locale, a
 * scratch buffer, and the first error that must end the whole read.
 */
struct reader {
	struct pev_pmus *list;
	locale_t c_locale;
	int fatal; /* -EMFILE, -ENFILE or -ENOMEM: a partial list would be a wrong one */
	char text[MAX_TEXT + 2];
};

/* ---- reading files ----------------------------------------------------- */

/* Notes an errno that means "out of resources" rather than "this file is bad". */
static void check_fatal(struct reader *r, int e)
{
	if ((e == EMFILE || e == ENFILE || e == ENOMEM) && !r->fatal)
		r->fatal = -e;
}

/*
 * Reads the regular file `name` (relative to directory dfd) into buf, which
 * must hold size bytes; the text must be shorter than size - 1 bytes. Returns
 * the length, -errno when it cannot be opened or read, -EINVAL when it is not
 * a regular file or holds a NUL byte, -EFBIG when it is too long.
 */
static int read_at(int dfd, const char *name, char *buf, size_t size)
{
	struct stat st;
	int len, fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	buf[0] = '\0';
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	len = pev__read_fd(fd, buf, size);
	close(fd);
	if (len < 0)
		return len;
	if ((size_t)len + 1 >= size)
		return -EFBIG;
	if (memchr(buf, '\0', (size_t)len))
		return -EINVAL;
	return len;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Strips leading and trailing white space in place; returns the new start. */
static char *trim(char *s)
{
	size_t n;

	while (is_space(*s))
		s++;
	n = strlen(s);
	while (n > 0 && is_space(s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* True when every byte is printable ASCII (sysfs text never holds anything else). */
static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			return false;
	return true;
}

/* Reads a file, trims it and checks it is printable text. Returns it, or NULL. */
static char *read_text_at(struct reader *r, int dfd, const char *name, char *buf, size_t size)
{
	int n = read_at(dfd, name, buf, size);
	char *s;

	if (n < 0) {
		check_fatal(r, -n);
		return NULL;
	}
	s = trim(buf);
	return printable(s) ? s : NULL;
}

static bool is_regular_at(int dfd, const char *name)
{
	struct stat st;

	return fstatat(dfd, name, &st, 0) == 0 && S_ISREG(st.st_mode);
}

/* Parses a whole decimal number no bigger than max. */
static bool parse_decimal(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		uint64_t digit = (uint64_t)(*s - '0');
		if (digit > max || v > (max - digit) / 10)
			return false;
		v = v * 10 + digit;
	}
	*out = v;
	return true;
}

/* Opens subdirectory `name` of dfd as a directory stream, or NULL. */
static DIR *open_dir_at(struct reader *r, int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;

	if (fd < 0) {
		check_fatal(r, errno);
		return NULL;
	}
	d = fdopendir(fd);
	if (!d) {
		check_fatal(r, errno);
		close(fd);
	}
	return d;
}

/* ---- format fields ----------------------------------------------------- */

/* Reads a decimal bit number (at most two digits' worth of value, 0..63 checked by the caller). */
static bool parse_bit(const char **p, unsigned *out)
{
	const char *s = *p;
	unsigned v = 0;

	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (unsigned)(*s - '0');
		if (v > 63)
			return false;
	}
	*p = s;
	*out = v;
	return true;
}

static uint64_t range_mask(unsigned lo, unsigned hi)
{
	unsigned width = hi - lo + 1;

	return (width >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << width) - 1) << lo;
}

PEV_API int pev_pmu_format_parse(const char *text, struct pev_pmu_format *f)
{
	struct pev_pmu_format tmp;
	const char *s = text;
	uint64_t used = 0;

	if (!text || !f)
		return pev__bad_arg(NULL, "pev_pmu_format_parse", text ? "f" : "text", "NULL");
	memset(&tmp, 0, sizeof(tmp));
	while (is_space(*s))
		s++;
	if (strncmp(s, "config", 6) != 0)
		return PEV_EFORMAT;
	s += 6;
	if (*s >= '1' && *s <= '3')
		tmp.word = *s++ - '0';
	if (*s++ != ':')
		return PEV_EFORMAT;
	for (;;) {
		unsigned lo, hi;
		uint64_t mask;

		if (!parse_bit(&s, &lo))
			return PEV_EFORMAT;
		hi = lo;
		if (*s == '-') {
			s++;
			if (!parse_bit(&s, &hi))
				return PEV_EFORMAT;
		}
		if (hi < lo || tmp.nr_ranges == PEV_FORMAT_MAX_RANGES)
			return PEV_EFORMAT;
		mask = range_mask(lo, hi);
		if (used & mask) /* ranges that overlap place one bit twice */
			return PEV_EFORMAT;
		used |= mask;
		tmp.ranges[tmp.nr_ranges].lo = (uint8_t)lo;
		tmp.ranges[tmp.nr_ranges].hi = (uint8_t)hi;
		tmp.nr_ranges++;
		tmp.bits += (int)(hi - lo + 1);
		if (*s != ',')
			break;
		s++;
	}
	while (is_space(*s))
		s++;
	if (*s)
		return PEV_EFORMAT;
	*f = tmp;
	return 0;
}

PEV_API int pev_pmu_format_apply(const struct pev_pmu_format *f, uint64_t value,
				 uint64_t config[4])
{
	unsigned width = 0;
	uint64_t word;

	if (!f || !config)
		return pev__bad_arg(NULL, "pev_pmu_format_apply", f ? "config" : "f", "NULL");
	if (f->word < 0 || f->word > 3 || f->nr_ranges < 1 || f->nr_ranges > PEV_FORMAT_MAX_RANGES)
		return pev__bad_arg(NULL, "pev_pmu_format_apply", "f", "word %d, %d ranges: not "
				    "a format pev_pmu_format_parse() made", f->word, f->nr_ranges);
	for (int i = 0; i < f->nr_ranges; i++) {
		if (f->ranges[i].lo > f->ranges[i].hi || f->ranges[i].hi > 63)
			return PEV_EBADARG;
		width += (unsigned)(f->ranges[i].hi - f->ranges[i].lo + 1);
	}
	if (width < 64 && value >> width)
		return PEV_EINVAL;
	word = config[f->word];
	for (int i = 0; i < f->nr_ranges; i++) {
		unsigned lo = f->ranges[i].lo, w = (unsigned)(f->ranges[i].hi - lo + 1);
		uint64_t low = w >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << w) - 1;

		word = (word & ~(low << lo)) | ((value & low) << lo);
		value = w >= 64 ? 0 : value >> w;
	}
	config[f->word] = word;
	return 0;
}

/* ---- building one PMU -------------------------------------------------- */

static int cmp_format(const void *a, const void *b)
{
	return strcmp(((const struct pev_pmu_format *)a)->name,
		      ((const struct pev_pmu_format *)b)->name);
}

static int cmp_alias(const void *a, const void *b)
{
	return strcmp(((const struct pev_pmu_alias *)a)->name,
		      ((const struct pev_pmu_alias *)b)->name);
}

static int cmp_pmu(const void *a, const void *b)
{
	return strcmp(((const struct pev_pmu *)a)->name, ((const struct pev_pmu *)b)->name);
}

/*
 * Makes room for item nr in a malloc'ed array v of `elem`-byte items holding
 * *cap. Returns the array (maybe moved), or NULL on ENOMEM (v is still valid).
 */
static void *grow(void *v, int nr, int *cap, size_t elem)
{
	int ncap;
	void *p;

	if (nr < *cap)
		return v;
	ncap = *cap ? *cap * 2 : 16;
	p = realloc(v, (size_t)ncap * elem);
	if (p)
		*cap = ncap;
	return p;
}

/* Copies a sorted temporary array into the arena. */
static void *arena_copy(struct arena *a, const void *v, int nr, size_t elem)
{
	void *p;

	if (nr == 0)
		return NULL;
	p = arena_alloc(a, (size_t)nr * elem, alignof(max_align_t));
	if (p)
		memcpy(p, v, (size_t)nr * elem);
	return p;
}

/*
 * Reads directory entry `name` of dfd into slot, an item of the array being
 * built (uninitialized): returns 1 to keep it, 0 to skip the entry, or
 * PEV_ENOMEM.
 */
typedef int (*read_entry_fn)(struct reader *r, int dfd, const char *name, void *slot);

/* A subdirectory of a PMU that holds one item per entry (format/, events/). */
struct entry_dir {
	const char *name;
	int max;     /* items kept at most */
	size_t elem; /* bytes of an item */
	read_entry_fn read_entry;
	int (*cmp)(const void *, const void *); /* the order of the items */
};

/*
 * Reads directory dir->name of pmu_fd into an array of items, one for each
 * entry dir->read_entry keeps, sorted and copied into the arena: *items
 * (NULL when empty; a directory that cannot be opened is empty) and *nr.
 * Returns 0 or PEV_ENOMEM.
 */
static int read_entry_dir(struct reader *r, int pmu_fd, const struct entry_dir *dir,
			  const void **items, int *nr)
{
	char *v = NULL;
	int n = 0, cap = 0, seen = 0, ret = 0;
	DIR *d = open_dir_at(r, pmu_fd, dir->name);
	struct dirent *e;

	*items = NULL;
	*nr = 0;
	if (!d)
		return 0;
	while (!r->fatal && n < dir->max && seen++ < MAX_DIR_ENTRIES && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		void *p = grow(v, n, &cap, dir->elem);
		if (!p) {
			ret = PEV_ENOMEM;
			break;
		}
		v = p;
		int k = dir->read_entry(r, dirfd(d), e->d_name, v + (size_t)n * dir->elem);
		if (k < 0) {
			ret = k;
			break;
		}
		n += k;
	}
	closedir(d);
	if (ret == 0 && n > 0) {
		qsort(v, (size_t)n, dir->elem, dir->cmp);
		if ((*items = arena_copy(&r->list->arena, v, n, dir->elem)))
			*nr = n;
		else
			ret = PEV_ENOMEM;
	}
	free(v);
	return ret;
}

/* format/<name>: one format field (read_entry_fn). */
static int read_format(struct reader *r, int dfd, const char *name, void *slot)
{
	struct pev_pmu_format *f = slot;
	char *text = read_text_at(r, dfd, name, r->text, sizeof(r->text));

	if (!text || pev_pmu_format_parse(text, f) != 0)
		return 0;
	return (f->name = arena_strdup(&r->list->arena, name)) ? 1 : PEV_ENOMEM;
}

static const char *const alias_suffixes[] = {".scale", ".unit", ".per-pkg", ".snapshot"};

/* True for events/<alias>.scale and the other files that describe an alias. */
static bool is_alias_attribute(const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < PEV_ARRAY_SIZE(alias_suffixes); i++) {
		size_t k = strlen(alias_suffixes[i]);
		if (n > k && strcmp(name + n - k, alias_suffixes[i]) == 0)
			return true;
	}
	return false;
}

/* Parses a .scale file's text: a finite positive decimal, whatever the caller's locale. */
static bool parse_scale(const struct reader *r, const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod_l(s, &end, r->c_locale);
	if (end == s || *end || errno == ERANGE || !isfinite(v) || v <= 0)
		return false;
	*out = v;
	return true;
}

/* A flag file (.per-pkg, .snapshot) is set when it exists and does not say "0". */
static bool read_flag(struct reader *r, int dfd, const char *name)
{
	char buf[64];

	if (!is_regular_at(dfd, name))
		return false;
	char *s = read_text_at(r, dfd, name, buf, sizeof(buf));
	return !s || strcmp(s, "0") != 0;
}

/*
 * events/<name>: one alias, from the file and its attribute files
 * (read_entry_fn); the attribute files themselves are skipped.
 */
static int read_alias(struct reader *r, int dfd, const char *name, void *slot)
{
	struct arena *arena = &r->list->arena;
	struct pev_pmu_alias *a = slot;
	char attr[NAME_MAX + 16];
	char *text;
	double scale;

	if (is_alias_attribute(name))
		return 0;
	text = read_text_at(r, dfd, name, r->text, sizeof(r->text));
	if (!text)
		return 0;
	memset(a, 0, sizeof(*a));
	if (!(a->name = arena_strdup(arena, name)) || !(a->terms = arena_strdup(arena, text)))
		return PEV_ENOMEM;
	a->scale = 1.0;
	a->unit = "";

	snprintf(attr, sizeof(attr), "%s.scale", name);
	text = read_text_at(r, dfd, attr, r->text, sizeof(r->text));
	if (text && parse_scale(r, text, &scale))
		a->scale = scale;

	snprintf(attr, sizeof(attr), "%s.unit", name);
	text = read_text_at(r, dfd, attr, r->text, sizeof(r->text));
	if (text && *text && !(a->unit = arena_strdup(arena, text)))
		return PEV_ENOMEM;

	snprintf(attr, sizeof(attr), "%s.per-pkg", name);
	a->per_pkg = read_flag(r, dfd, attr);
	snprintf(attr, sizeof(attr), "%s.snapshot", name);
	a->snapshot = read_flag(r, dfd, attr);
	return 1;
}

/* Reads a CPU list file; returns it (in the arena) when well-formed, "" otherwise, NULL on ENOMEM. */
static const char *read_cpus(struct reader *r, int pmu_fd, const char *name, bool *found)
{
	char *buf = malloc(MAX_CPUS_TEXT + 2);
	const char *ret = "";
	char *s;

	*found = false;
	if (!buf)
		return NULL;
	if ((s = read_text_at(r, pmu_fd, name, buf, MAX_CPUS_TEXT + 2)) &&
	    pev_cpulist_parse(s, NULL, 0) >= 0) {
		*found = true;
		if (*s)
			ret = arena_strdup(&r->list->arena, s);
	}
	free(buf);
	return ret;
}

static const struct entry_dir format_dir = {
	"format", MAX_FORMATS, sizeof(struct pev_pmu_format), read_format, cmp_format,
};
static const struct entry_dir events_dir = {
	"events", MAX_ALIASES, sizeof(struct pev_pmu_alias), read_alias, cmp_alias,
};

/*
 * Reads PMU directory `name` into *pmu. Returns 1 when it is a PMU, 0 when it
 * is to be skipped (no readable type), or PEV_ENOMEM. Running out of
 * descriptors is noted in r->fatal.
 */
static int read_pmu(struct reader *r, int dev_fd, const char *name, struct pev_pmu *pmu)
{
	int fd = openat(dev_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	const void *formats = NULL, *aliases = NULL;
	uint64_t v;
	char *s;
	int ret = 1;
	bool found;

	if (fd < 0) {
		check_fatal(r, errno);
		return 0;
	}
	memset(pmu, 0, sizeof(*pmu));
	s = read_text_at(r, fd, "type", r->text, sizeof(r->text));
	if (!s || !parse_decimal(s, UINT32_MAX, &v)) {
		close(fd);
		return 0;
	}
	pmu->type = (uint32_t)v;
	if (!(pmu->name = arena_strdup(&r->list->arena, name))) {
		ret = PEV_ENOMEM;
		goto out;
	}
	pmu->core = pmu->type == PERF_TYPE_RAW_ || strcmp(name, "cpu") == 0 ||
		    is_regular_at(fd, "cpus");
	/* Uncore-like PMUs say where they count in cpumask; core ones in cpus. */
	pmu->per_cpu_only = !pmu->core && is_regular_at(fd, "cpumask");
	if (!(pmu->cpus = read_cpus(r, fd, "cpus", &found)) ||
	    (!found && !(pmu->cpus = read_cpus(r, fd, "cpumask", &found)))) {
		ret = PEV_ENOMEM;
		goto out;
	}
	pmu->max_precise = -1;
	s = read_text_at(r, fd, "caps/max_precise", r->text, sizeof(r->text));
	if (s && parse_decimal(s, 3, &v)) /* precise_ip has two bits */
		pmu->max_precise = (int)v;
	if (read_entry_dir(r, fd, &format_dir, &formats, &pmu->nr_formats) < 0 ||
	    read_entry_dir(r, fd, &events_dir, &aliases, &pmu->nr_aliases) < 0)
		ret = PEV_ENOMEM;
	pmu->formats = formats;
	pmu->aliases = aliases;
out:
	close(fd);
	return ret;
}

/* ---- the list ---------------------------------------------------------- */

PEV_API void pev_pmus_free(struct pev_pmus *pmus)
{
	if (!pmus)
		return;
	free(pmus->pmus);
	arena_free(&pmus->arena);
	free(pmus);
}

static int read_devices(struct reader *r, DIR *d)
{
	struct pev_pmus *list = r->list;
	int cap = 0, seen = 0;
	struct dirent *e;

	while (list->nr < MAX_PMUS && seen++ < MAX_DIR_ENTRIES && (e = readdir(d))) {
		int k;

		if (e->d_name[0] == '.')
			continue;
		void *p = grow(list->pmus, list->nr, &cap, sizeof(*list->pmus));
		if (!p)
			return PEV_ENOMEM;
		list->pmus = p;
		k = read_pmu(r, dirfd(d), e->d_name, &list->pmus[list->nr]);
		if (k < 0)
			return k;
		if (r->fatal)
			return r->fatal;
		list->nr += k;
	}
	if (list->nr > 0)
		qsort(list->pmus, (size_t)list->nr, sizeof(*list->pmus), cmp_pmu);
	return 0;
}

/* Fills err for a list that could not be read (code: a negated errno). */
static void explain_read_error(struct pev_error *err, int code, const char *path)
{
	pev__error_start(err, code, -code, code == PEV_ENOMEM ? NULL : "open", NULL, true);
	pev__error_msg(err, "cannot read the PMU list %s: %s", path,
		       code == PEV_EACCES || code == PEV_EPERM ? "permission denied"
							       : pev_strerror(code));
	if (code == PEV_EMFILE)
		pev__error_hint(err, "raise the limit on open files (ulimit -n, RLIMIT_NOFILE) or "
				     "close descriptors first");
	else if (code == PEV_ENFILE)
		pev__error_hint(err, "the system is out of file descriptors: close some, or raise "
				     "fs.file-max");
	else if (code == PEV_EACCES)
		pev__error_hint(err, "run as a user who may read %s", path);
}

PEV_API int pev_pmus_read(const char *sysfs_root, struct pev_pmus **out, struct pev_error *err)
{
	static const char devices[] = "/bus/event_source/devices";
	struct reader *r = NULL;
	char *path = NULL;
	DIR *d = NULL;
	int ret;

	pev__error_clear(err);
	if (!out)
		return pev__bad_arg(err, "pev_pmus_read", "out", "must not be NULL");
	*out = NULL;
	if (!sysfs_root || !*sysfs_root)
		sysfs_root = "/sys";
	path = malloc(strlen(sysfs_root) + sizeof(devices));
	r = calloc(1, sizeof(*r));
	if (!path || !r) {
		ret = pev__error_start(err, PEV_ENOMEM, ENOMEM, NULL, NULL, true);
		pev__error_msg(err, "out of memory reading the PMU list");
		goto out;
	}
	strcpy(path, sysfs_root);
	strcat(path, devices);
	if (!(d = opendir(path))) {
		int e = errno;
		if (e == ENOENT || e == ENOTDIR) {
			ret = pev__error_start(err, PEV_ENOENT, e, "open", NULL, true);
			pev__error_msg(err, "no PMUs here: %s does not exist", path);
			if (strcmp(sysfs_root, "/sys") == 0)
				pev__error_hint(err, "mount sysfs: mount -t sysfs sysfs /sys");
			else
				pev__error_hint(err, "check the sysfs root %s", sysfs_root);
			pev__error_hint(err, "use a kernel built with CONFIG_PERF_EVENTS");
		} else {
			ret = pev_error_from_errno(e);
			explain_read_error(err, ret, path);
		}
		goto out;
	}
	r->c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	r->list = calloc(1, sizeof(*r->list));
	ret = r->c_locale && r->list ? read_devices(r, d) : PEV_ENOMEM;
	if (ret < 0) {
		pev_pmus_free(r->list);
		explain_read_error(err, ret, path);
		goto out;
	}
	*out = r->list;
	ret = 0;
out:
	if (d)
		closedir(d);
	if (r && r->c_locale)
		freelocale(r->c_locale);
	free(r);
	free(path);
	return ret;
}

PEV_API int pev_pmus_count(const struct pev_pmus *pmus)
{
	return pmus ? pmus->nr : pev__bad_arg(NULL, "pev_pmus_count", "pmus", "NULL");
}

PEV_API const struct pev_pmu *pev_pmus_at(const struct pev_pmus *pmus, int i)
{
	if (!pmus || i < 0 || i >= pmus->nr)
		return NULL;
	return &pmus->pmus[i];
}

PEV_API const struct pev_pmu *pev_pmus_find(const struct pev_pmus *pmus, const char *name)
{
	struct pev_pmu key;

	if (!pmus || !name || pmus->nr == 0)
		return NULL;
	key.name = name;
	return bsearch(&key, pmus->pmus, (size_t)pmus->nr, sizeof(key), cmp_pmu);
}

PEV_API const struct pev_pmu *pev_pmus_find_type(const struct pev_pmus *pmus, uint32_t type)
{
	if (!pmus)
		return NULL;
	for (int i = 0; i < pmus->nr; i++)
		if (pmus->pmus[i].type == type)
			return &pmus->pmus[i];
	return NULL;
}

PEV_API int pev_pmus_core_count(const struct pev_pmus *pmus)
{
	int n = 0;

	if (!pmus)
		return pev__bad_arg(NULL, "pev_pmus_core_count", "pmus", "NULL");
	for (int i = 0; i < pmus->nr; i++)
		n += pmus->pmus[i].core;
	return n;
}

PEV_API const struct pev_pmu_format *pev_pmu_format(const struct pev_pmu *pmu, const char *name)
{
	struct pev_pmu_format key;

	if (!pmu || !name || pmu->nr_formats <= 0 || !pmu->formats)
		return NULL;
	key.name = name;
	return bsearch(&key, pmu->formats, (size_t)pmu->nr_formats, sizeof(key), cmp_format);
}

PEV_API const struct pev_pmu_alias *pev_pmu_alias(const struct pev_pmu *pmu, const char *name)
{
	struct pev_pmu_alias key;
	const struct pev_pmu_alias *a;

	if (!pmu || !name || pmu->nr_aliases <= 0 || !pmu->aliases)
		return NULL;
	key.name = name;
	/* An exact match wins over another alias that differs only in case. */
	a = bsearch(&key, pmu->aliases, (size_t)pmu->nr_aliases, sizeof(key), cmp_alias);
	if (a)
		return a;
	for (int i = 0; i < pmu->nr_aliases; i++)
		if (strcasecmp(pmu->aliases[i].name, name) == 0)
			return &pmu->aliases[i];
	return NULL;
}
