/* SPDX-License-Identifier: MIT */
/*
 * symbols_kernel.c - kernel addresses through /proc/kallsyms.
 *
 * Each line is "ADDRESS TYPE NAME" with "\t[MODULE]" after symbols of
 * loaded modules; ADDRESS is hexadecimal. The kernel prints every address
 * as 0 to a reader it does not trust (kallsyms_show_value(): kptr_restrict
 * 0 trusts everyone while perf_event_paranoid <= 1 and else only
 * CAP_SYSLOG, 1 only CAP_SYSLOG, 2 nobody), which is told once, with the
 * fix, instead of resolving every kernel address to nonsense.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error_internal.h"
#include "core/file_open.h"
#include "core/log_internal.h"
#include "symbols/symbols_internal.h"
#include "core/util.h"

/*
 * One symbol: 16 bytes (with padding). Its name is not kept: only where it is, read back
 * (and kept in the symbolizer's arena) when an address resolves to it.
 */
struct ksym {
	uint64_t addr;
	uint32_t name;   /* offset of the name in the file, or in sym_kernel.names */
	uint16_t module; /* index into sym_kernel.mods + 1; 0: the core kernel */
};

struct sym_kernel {
	struct ksym *syms;
	size_t n, cap;
	/* A regular file (perf's build-id cache copy, a test's file): names are read
	 * back from it by offset. Else (procfs, where reading at an offset restarts
	 * the listing): names are copied into one blob as the file is read. */
	int fd;
	char *names;
	size_t names_len, names_cap;
	char **mods; /* module names as listed, "[name]" */
	size_t nmods;
	uint64_t text, stext; /* where the list puts _text and _stext (0: not listed) */
	struct pev__u64map hit; /* index + 1 -> its name, for names read back */
};

/* An address after the last symbol of a module still belongs to it within this many bytes. */
#define KSYM_LAST_SPAN 4096
/* The longest line read: the kernel's KSYM_NAME_LEN is 512, module names are short. */
#define KSYM_LINE_MAX 1024
#define KSYM_CHUNK (64 * 1024)

void pev__kernel_free(struct sym_kernel *k)
{
	if (!k)
		return;
	if (k->fd >= 0)
		close(k->fd);
	for (size_t i = 0; i < k->nmods; i++)
		free(k->mods[i]);
	free(k->mods);
	free(k->names);
	free(k->syms);
	pev__u64map_free(&k->hit);
	free(k);
}

uint64_t pev__kernel_count(const struct sym_kernel *k)
{
	return k ? k->n : 0;
}

/*
 * The symbols perf keeps, by kallsyms type: code (T, t), weak code (W, w),
 * data (D, d) and bss (B, b). Read-only data, absolute and undefined
 * symbols are left out, so that the code before them runs on to the next
 * symbol kept, as in perf.
 */
static bool kept(char type)
{
	switch (type | 0x20) {
	case 't':
	case 'w':
	case 'd':
	case 'b':
		return true;
	default:
		return false;
	}
}

static int by_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name; /* names are stored in line order */
}

static long read_sysctl(const char *name)
{
	char path[96];
	long long v;

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	return pev__read_long(path, &v) == 0 ? (long)v : -1;
}

/* The message and hint for addresses hidden by kptr_restrict. */
static void explain_hidden(struct pev_symbols *s, struct pev_error *e)
{
	long kptr = read_sysctl("kptr_restrict");
	long paranoid = read_sysctl("perf_event_paranoid");

	pev__error_start(e, PEV_EACCES, EACCES, "read", NULL, false);
	pev__error_field(e, "kallsyms");
	pev__error_msg(e,
		       "kernel symbols unavailable: kptr_restrict=%ld, perf_event_paranoid=%ld: %s "
		       "shows this user (uid %d) only zero addresses",
		       kptr, paranoid, s->kallsyms_path, (int)geteuid());
	switch (kptr) {
	case 0:
		pev__error_hint(e, "run as root or with CAP_SYSLOG");
		pev__error_hint(e, "or lower perf_event_paranoid to 1 (sysctl -w "
				   "kernel.perf_event_paranoid=1): with kptr_restrict=0 every "
				   "user then sees the addresses");
		break;
	case 1:
		pev__error_hint(e, "run as root or with CAP_SYSLOG");
		pev__error_hint(e, "or sysctl -w kernel.kptr_restrict=0 kernel.perf_event_paranoid=1");
		break;
	default:
		pev__error_hint(e, "sysctl -w kernel.kptr_restrict=1 and run as root or with "
				   "CAP_SYSLOG (at 2 nobody sees kernel addresses)");
		pev__error_hint(e, "or sysctl -w kernel.kptr_restrict=0");
		break;
	}
}

/* The index + 1 of module name mod (len bytes) in k->mods, added when new; 0: no memory. */
static uint16_t module_id(struct sym_kernel *k, const char *mod, size_t len)
{
	char **nm;

	/* A module's symbols are listed together: try the last one first. */
	for (size_t i = k->nmods; i-- > 0;)
		if (strncmp(k->mods[i], mod, len) == 0 && !k->mods[i][len])
			return (uint16_t)(i + 1);
	if (k->nmods >= UINT16_MAX)
		return 0;
	nm = realloc(k->mods, (k->nmods + 1) * sizeof(*nm));
	if (!nm)
		return 0;
	k->mods = nm;
	k->mods[k->nmods] = strndup(mod, len);
	if (!k->mods[k->nmods])
		return 0;
	return (uint16_t)++k->nmods;
}

/* Adds the symbol of one line (without its '\n'), which starts at file offset off. */
static int parse_line(struct sym_kernel *k, const char *line, const char *end, uint64_t off)
{
	const char *tp, *name, *mod;
	uint64_t addr = 0;
	struct ksym *ks;
	size_t len;
	char type;

	if (end - line > KSYM_LINE_MAX) /* as a line split across reads would be */
		return 0;
	/* Hex digits by hand: strtoull's locale and base handling cost more than the rest. */
	for (tp = line; tp < end; tp++) {
		unsigned d = (unsigned char)*tp;
		if (d - '0' < 10)
			d -= '0';
		else if ((d | 0x20) - 'a' < 6)
			d = (d | 0x20) - 'a' + 10;
		else
			break;
		addr = addr << 4 | d;
	}
	if (tp == line || tp - line > 16 || end - tp < 4 || tp[0] != ' ' || tp[2] != ' ')
		return 0;
	type = tp[1];
	name = tp + 3;
	mod = memchr(name, '\t', (size_t)(end - name));
	len = (size_t)((mod ? mod : end) - name);
	if (!mod && len == 5 && memcmp(name, "_text", 5) == 0)
		k->text = addr;
	if (!mod && len == 6 && memcmp(name, "_stext", 6) == 0)
		k->stext = addr;
	if (!len || !kept(type))
		return 0;
	if (k->n == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 16384;
		struct ksym *ns = realloc(k->syms, cap * sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		k->syms = ns;
		k->cap = cap;
	}
	ks = &k->syms[k->n];
	memset(ks, 0, sizeof(*ks));
	ks->addr = addr;
	if (mod && mod + 1 < end && mod[1] == '[') {
		ks->module = module_id(k, mod + 1, (size_t)(end - mod - 1));
		if (!ks->module)
			return -ENOMEM;
	}
	if (k->fd >= 0) {
		off += (uint64_t)(name - line);
		if (off > UINT32_MAX)
			return 0; /* past what an entry can point to: not a kallsyms file */
		ks->name = (uint32_t)off;
	} else {
		if (k->names_len + len + 1 > UINT32_MAX)
			return 0;
		if (k->names_len + len + 1 > k->names_cap) {
			size_t cap = k->names_cap ? k->names_cap * 2 : 1 << 20;
			char *nn = realloc(k->names, cap);
			if (!nn)
				return -ENOMEM;
			k->names = nn;
			k->names_cap = cap;
		}
		ks->name = (uint32_t)k->names_len;
		memcpy(k->names + k->names_len, name, len);
		k->names[k->names_len + len] = '\0';
		k->names_len += len + 1;
	}
	k->n++;
	return 0;
}

/* Reads the listing on fd in chunks, line by line. Returns 0 or a negative errno. */
static int parse(struct sym_kernel *k, int fd)
{
	char *buf = malloc(KSYM_CHUNK);
	size_t have = 0;
	uint64_t base = 0; /* file offset of buf[0] */
	bool skip = false; /* in the rest of a line too long to be a symbol's */
	int r = 0;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t got = read(fd, buf + have, KSYM_CHUNK - have);
		char *p = buf, *end, *nl;

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			r = -errno;
			break;
		}
		end = buf + have + got;
		if (got == 0 && have && !skip) /* a last line without '\n' */
			r = parse_line(k, buf, end, base);
		if (got == 0 || r < 0)
			break;
		while (r == 0 && (nl = memchr(p, '\n', (size_t)(end - p)))) {
			if (!skip)
				r = parse_line(k, p, nl, base + (uint64_t)(p - buf));
			skip = false;
			p = nl + 1;
		}
		if (r < 0)
			break;
		have = (size_t)(end - p);
		if (have > KSYM_LINE_MAX) {
			skip = true;
			have = 0;
		}
		memmove(buf, p, have);
		base += (uint64_t)(p - buf) + (skip ? (uint64_t)(end - p) : 0);
	}
	free(buf);
	return r;
}

/*
 * Sorts and keeps one symbol per address: of the symbols listed at one
 * address, the last one. That is perf's choice (docs/SYMBOLS.md): kallsyms
 * gives no sizes, perf stretches each symbol to the start of the next one
 * listed, so that only the last of those at an address has a size, and its
 * rule for aliases (symbols_alias.c, rule 1) prefers a symbol with a size.
 */
static void index_syms(struct sym_kernel *k)
{
	size_t out = 0, sorted;

	/* kallsyms lists the core kernel in address order: sort only when it is not. */
	for (sorted = 1; sorted < k->n && by_addr(&k->syms[sorted - 1], &k->syms[sorted]) <= 0;
	     sorted++)
		;
	if (sorted < k->n)
		qsort(k->syms, k->n, sizeof(*k->syms), by_addr);
	for (size_t i = 0; i < k->n; i++) {
		if (out && k->syms[out - 1].addr == k->syms[i].addr) {
			k->syms[out - 1] = k->syms[i]; /* listed later: sorted by line */
			continue;
		}
		k->syms[out++] = k->syms[i];
	}
	k->n = out;
}

/* The name of symbol i, NUL-terminated and kept as long as the symbolizer; NULL when it
 * cannot be read back (no memory, the file shrank). */
static const char *sym_name(struct pev_symbols *s, struct sym_kernel *k, size_t i)
{
	char line[KSYM_LINE_MAX + 1];
	const char *name;
	ssize_t got;
	size_t len;

	if (k->fd < 0)
		return k->names + k->syms[i].name;
	name = pev__u64map_get(&k->hit, i + 1);
	if (name)
		return name;
	do
		got = pread(k->fd, line, KSYM_LINE_MAX, k->syms[i].name);
	while (got < 0 && errno == EINTR);
	if (got <= 0)
		return NULL;
	for (len = 0; len < (size_t)got && line[len] != '\t' && line[len] != '\n'; len++)
		;
	name = pev__arena_strndup(&s->arena, line, len);
	if (!name || pev__u64map_put(&k->hit, i + 1, (void *)name) < 0)
		return NULL;
	return name;
}

/*
 * Where list path puts _text (or _stext), reading only up to that line (it
 * is among the first); 0 when the list is unreadable, hides addresses or
 * lacks it.
 */
static uint64_t listed_text(const char *path, bool stext)
{
	const char *want = stext ? " _stext\n" : " _text\n";
	FILE *f = fopen(path, "re");
	char line[KSYM_LINE_MAX];
	uint64_t addr = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *sp = strchr(line, ' ');
		if (sp && sp[1] && sp[2] == ' ' && strcmp(sp + 2, want) == 0) {
			addr = strtoull(line, NULL, 16);
			break;
		}
	}
	fclose(f);
	return addr;
}

/* Opens and reads the listing into a new *out. Returns 0 or a negative errno. */
static int kernel_read(const char *path, struct sym_kernel **out)
{
	struct sym_kernel *k;
	struct stat st;
	int fd = pev__open_regular(path), r;

	*out = NULL;
	if (fd < 0)
		return fd;
	k = calloc(1, sizeof(*k));
	if (!k) {
		close(fd);
		return -ENOMEM;
	}
	k->fd = -1;
	/* procfs reports no size: its names are copied as read. */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		k->fd = fd;
	r = parse(k, fd);
	if (k->fd < 0)
		close(fd);
	if (r < 0) {
		pev__kernel_free(k);
		return r;
	}
	if (k->names) { /* give back the blob's unused end */
		char *nn = realloc(k->names, k->names_len ? k->names_len : 1);
		if (nn)
			k->names = nn;
	}
	*out = k;
	return 0;
}

int pev__kernel_load(struct pev_symbols *s, struct pev_error *err)
{
	struct sym_kernel *k = NULL;
	int r;
	struct pev_error *e = &s->kernel_err;

	if (s->kernel_tried)
		goto answer;
	s->kernel_tried = true;
	if (s->opts.flags & PEV_SYMBOLS_NO_KERNEL) {
		pev__error_start(e, PEV_EUNSUPPORTED, 0, NULL, NULL, true);
		pev__error_msg(e, "kernel symbols unavailable: the symbolizer was created with "
				  "PEV_SYMBOLS_NO_KERNEL");
		s->kernel_code = PEV_EUNSUPPORTED;
		goto answer;
	}
	r = kernel_read(s->kallsyms_path, &k);
	/*
	 * The fallback list (/proc/kallsyms) instead when it is of the
	 * recording's boot (its kernel text where the recording's was: the
	 * modules too are where they were), or when the list lacks the symbol
	 * the recording placed its kernel by (perf's cache copies have been
	 * seen without _text), so that it cannot be moved to that boot.
	 */
	if (r == 0 && s->kallsyms_fallback && s->kernel_text_set &&
	    (!(s->kernel_text_is_stext ? k->stext : k->text) ||
	     listed_text(s->kallsyms_fallback, s->kernel_text_is_stext) == s->kernel_text_addr)) {
		struct sym_kernel *other = NULL;
		if (kernel_read(s->kallsyms_fallback, &other) == 0) {
			pev__kernel_free(k);
			k = other;
			pev__log(PEV_LOG_INFO, "kernel symbols from %s (the recording's boot), not %s",
				 s->kallsyms_fallback, s->kallsyms_path);
		}
	}
	if (r == -ENOMEM) {
		/* Not an answer about the machine: the next kernel address tries again. */
		s->kernel_tried = false;
		return pev__error_start(err, PEV_ENOMEM, ENOMEM, NULL, NULL, true);
	}
	if (r < 0) {
		s->kernel_code = pev__error_start(e, r == -ENOENT ? PEV_ENOENT : pev_error_from_errno(-r),
						  -r, "open", NULL, false);
		pev__error_field(e, "kallsyms");
		pev__error_msg(e, "kernel symbols unavailable: cannot read %s: %s", s->kallsyms_path,
			       pev__open_strerror(r));
		if (r == -ENOENT)
			pev__error_hint(e, "a kernel built without CONFIG_KALLSYMS lists no symbols; "
					   "mount procfs on /proc");
		else
			pev__error_hint(e, "run as a user who may read %s", s->kallsyms_path);
	} else {
		size_t nonzero = 0;

		for (size_t i = 0; i < k->n; i++)
			nonzero += k->syms[i].addr != 0;
		if (nonzero == 0) {
			pev__kernel_free(k);
			explain_hidden(s, e);
			s->kernel_code = PEV_EACCES;
		} else {
			index_syms(k);
			s->kernel = k;
			s->st.kernel_symbols = k->n;
			s->kernel_code = 0;
		}
	}
	if (s->kernel_code < 0) {
		char text[PEV_ERROR_MESSAGE_MAX * 2 + 16];

		snprintf(text, sizeof(text), "%s%s%s", e->message, e->hint[0] ? "; fix: " : "",
			 e->hint);
		for (char *c = text; *c; c++)
			if (*c == '\n')
				*c = ';';
		s->kernel_msg = pev__arena_strdup(&s->arena, text);
		if (s->kernel_code != PEV_EUNSUPPORTED) /* not asked for: no warning */
			pev__log(PEV_LOG_WARN, "%s", text);
	}
answer:
	if (s->kernel_code < 0 && err)
		*err = *e;
	return s->kernel_code;
}

void pev__kernel_list_fallback(struct pev_symbols *s, const char *path)
{
	s->kallsyms_fallback = path;
}

void pev__kernel_text_at(struct pev_symbols *s, const char *name, uint64_t addr)
{
	s->kernel_text_addr = addr;
	s->kernel_text_is_stext = strcmp(name, "_stext") == 0;
	s->kernel_text_set = addr != 0;
}

/* A module of the recording's kernel, where its mapping put it. */
struct sym_kmod {
	uint64_t start, end;
	const char *name; /* "[name]", as kallsyms lists it (in the symbolizer's arena) */
};

/*
 * The module name a kernel mapping's path gives ("[nfs]" for
 * ".../nfs.ko.xz" or "[nfs]"; a file's '-' is the name's '_'), written to
 * buf; false for a path that names no module (the kernel, BPF code).
 */
static bool module_name_of(const char *path, char *buf, size_t size)
{
	const char *base = strrchr(path, '/'), *ko;
	size_t len;

	if (path[0] == '[') {
		len = strlen(path);
		if (len < 3 || path[len - 1] != ']' || strncmp(path, "[kernel.", 8) == 0 ||
		    len >= size)
			return false;
		memcpy(buf, path, len + 1);
		return true;
	}
	if (!base || !(ko = strstr(base + 1, ".ko")) || (ko[3] && ko[3] != '.'))
		return false;
	len = (size_t)(ko - base - 1);
	if (!len || len + 3 > size)
		return false;
	buf[0] = '[';
	for (size_t i = 0; i < len; i++)
		buf[1 + i] = base[1 + i] == '-' ? '_' : base[1 + i];
	buf[len + 1] = ']';
	buf[len + 2] = '\0';
	return true;
}

int pev__kernel_module_at(struct pev_symbols *s, uint64_t start, uint64_t end, const char *path)
{
	char name[256];
	size_t i;

	if (end <= start || !module_name_of(path, name, sizeof(name)))
		return 0;
	/* Kept by start; a mapping over an older one (a module loaded again) replaces it. */
	for (i = s->nkmods; i > 0 && s->kmods[i - 1].start >= start; i--)
		;
	while (i < s->nkmods && s->kmods[i].start < end) {
		memmove(&s->kmods[i], &s->kmods[i + 1], (s->nkmods - i - 1) * sizeof(*s->kmods));
		s->nkmods--;
	}
	if (i > 0 && s->kmods[i - 1].end > start)
		s->kmods[i - 1].end = start;
	if (s->nkmods == s->kmods_cap) {
		size_t cap = s->kmods_cap ? 2 * s->kmods_cap : 64;
		struct sym_kmod *nk = realloc(s->kmods, cap * sizeof(*nk));

		if (!nk)
			return -ENOMEM;
		s->kmods = nk;
		s->kmods_cap = cap;
	}
	memmove(&s->kmods[i + 1], &s->kmods[i], (s->nkmods - i) * sizeof(*s->kmods));
	s->kmods[i] = (struct sym_kmod){.start = start, .end = end,
					.name = pev__arena_strdup(&s->arena, name)};
	if (!s->kmods[i].name)
		return -ENOMEM;
	s->nkmods++;
	return 0;
}

/* The recording's module at address at, or NULL. */
static const struct sym_kmod *module_at(const struct pev_symbols *s, uint64_t at)
{
	size_t lo = 0, hi = s->nkmods;

	while (lo < hi) { /* the last module starting at or below at */
		size_t mid = lo + (hi - lo) / 2;
		if (s->kmods[mid].start <= at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && at < s->kmods[lo - 1].end ? &s->kmods[lo - 1] : NULL;
}

/*
 * How far the list's kernel lies from the recording's: the list's _text (or
 * _stext) minus where the recording's kernel mapping said it was. Not 0
 * when the kernel was placed at random (KASLR) and the list is of another
 * boot: perf's build-id cache copy, or /proc/kallsyms after a reboot.
 */
static uint64_t kernel_slide(const struct pev_symbols *s, const struct sym_kernel *k)
{
	uint64_t listed = s->kernel_text_is_stext ? k->stext : k->text;

	return s->kernel_text_set && listed ? listed - s->kernel_text_addr : 0;
}

void pev__kernel_resolve(struct pev_symbols *s, uint64_t at, struct pev_symbol *out)
{
	struct sym_kernel *k = s->kernel;
	size_t lo = 0, hi = k ? k->n : 0;
	const struct ksym *ks, *next;
	const char *name;
	uint64_t size, slide, addr;

	const struct sym_kmod *mod = module_at(s, at);

	if (!k) {
		pev__sym_unknown(out, PEV_SYMBOL_KERNEL_UNAVAILABLE,
				 mod ? mod->name : "[kernel.kallsyms]", at);
		out->flags |= PEV_SYMBOL_KERNEL;
		return;
	}
	/* Looked up where the list has it; told where the recording had it. */
	slide = kernel_slide(s, k);
	addr = at + slide;
	while (lo < hi) { /* the last symbol at or below addr */
		size_t mid = lo + (hi - lo) / 2;
		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	ks = lo ? &k->syms[lo - 1] : NULL;
	next = lo && lo < k->n ? &k->syms[lo] : NULL;
	/* A symbol ends where the next one of the same module starts. */
	size = ks && next && next->module == ks->module ? next->addr - ks->addr : 0;
	name = ks && addr - ks->addr < (size ? size : KSYM_LAST_SPAN) ? sym_name(s, k, lo - 1)
								      : NULL;
	/* Modules are placed apart from the kernel: a list of another boot
	 * (moved) does not say where they were; no module is named from it. */
	if (slide && ks && ks->module)
		name = NULL;
	/* A module's last symbol runs to the module's end, as perf's do. */
	if (!name && !slide && mod && ks && ks->module && ks->addr >= mod->start &&
	    (!next || next->module != ks->module) &&
	    strcmp(k->mods[ks->module - 1], mod->name) == 0) {
		name = sym_name(s, k, lo - 1);
		size = mod->end - ks->addr;
	}
	if (!name) {
		/*
		 * Between two symbols of the kernel proper, the address is the
		 * kernel's; in a module the recording mapped, the module's; past
		 * them (module space with no module there, BPF or trampoline
		 * code) no file is known, and perf says [unknown] too.
		 */
		bool core = ks && next && !ks->module && !next->module;
		pev__sym_unknown(out, PEV_SYMBOL_NO_SYMBOL,
				 mod ? mod->name : core ? "[kernel.kallsyms]" : SYM_UNKNOWN, at);
		out->flags |= PEV_SYMBOL_KERNEL;
		return;
	}
	out->status = PEV_SYMBOL_OK;
	out->flags |= PEV_SYMBOL_KERNEL;
	out->name = name;
	out->start = ks->addr - slide;
	out->offset = addr - ks->addr;
	out->size = size;
	out->dso = ks->module ? k->mods[ks->module - 1] : "[kernel.kallsyms]";
	out->dso_addr = at;
}
