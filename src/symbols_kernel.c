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

#include "error_internal.h"
#include "log_internal.h"
#include "symbols_internal.h"
#include "util.h"

struct ksym {
	uint64_t addr;
	uint64_t size;      /* up to the next symbol of the same module; 0: last one */
	const char *name;   /* in sym_kernel.buf */
	const char *module; /* "[name]" in buf, or NULL for the core kernel */
	uint32_t order;     /* line number, for a stable sort */
	char type;
};

struct sym_kernel {
	char *buf;
	struct ksym *syms;
	size_t n;
};

/* An address after the last symbol of a module still belongs to it within this many bytes. */
#define KSYM_LAST_SPAN 4096

void pev__kernel_free(struct sym_kernel *k)
{
	if (!k)
		return;
	free(k->buf);
	free(k->syms);
	free(k);
}

uint64_t pev__kernel_count(const struct sym_kernel *k)
{
	return k ? k->n : 0;
}

/* Reads a whole procfs file (which reports no size) into a malloc'ed, terminated buffer. */
static int slurp(const char *path, char **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 1 << 20, n = 0;
	char *buf;

	if (fd < 0)
		return -errno;
	buf = malloc(cap);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t r;

		if (cap - n < 4096) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				close(fd);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			close(fd);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

/* Which of two symbols at one address names it: global before local,
 * code before data, fewer leading underscores, then the first listed. */
static int rank(const struct ksym *k)
{
	int r = 0, under = 0;

	if (k->type >= 'A' && k->type <= 'Z')
		r += 100;
	if (k->type == 't' || k->type == 'T' || k->type == 'w' || k->type == 'W')
		r += 50;
	while (k->name[under] == '_')
		under++;
	return r - (under > 9 ? 9 : under);
}

static int by_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
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

static int parse(struct sym_kernel *k, char *buf, size_t len)
{
	size_t lines = 1, n = 0;
	char *p = buf, *end = buf + len;

	for (char *q = buf; q < end; q++)
		lines += *q == '\n';
	k->syms = calloc(lines, sizeof(*k->syms));
	if (!k->syms)
		return -ENOMEM;

	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *line = p, *name, *mod, *tp;
		unsigned long long addr;
		char type;

		if (nl)
			*nl = '\0';
		p = nl ? nl + 1 : end;
		/* Hex digits by hand: strtoull's locale and base handling cost more than the rest. */
		addr = 0;
		for (tp = line;; tp++) {
			unsigned d = (unsigned char)*tp;
			if (d - '0' < 10)
				d -= '0';
			else if ((d | 0x20) - 'a' < 6)
				d = (d | 0x20) - 'a' + 10;
			else
				break;
			addr = addr << 4 | d;
		}
		if (tp == line || tp - line > 16 || *tp != ' ' || !tp[1] || tp[2] != ' ')
			continue;
		type = tp[1];
		name = tp + 3;
		mod = strchr(name, '\t');
		if (mod) {
			*mod++ = '\0';
			if (*mod != '[')
				mod = NULL;
		}
		if (!*name || type == 'a' || type == 'A' || type == 'U')
			continue;
		k->syms[n] = (struct ksym){.addr = addr, .name = name, .module = mod,
					   .order = (uint32_t)n, .type = type};
		n++;
	}
	k->n = n;
	return 0;
}

/* Sorts, keeps one symbol per address and sets sizes. */
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
			if (rank(&k->syms[i]) > rank(&k->syms[out - 1]))
				k->syms[out - 1] = k->syms[i];
			continue;
		}
		k->syms[out++] = k->syms[i];
	}
	k->n = out;
	for (size_t i = 0; i < k->n; i++) {
		const struct ksym *next = i + 1 < k->n ? &k->syms[i + 1] : NULL;
		bool same_mod = next && ((!next->module && !k->syms[i].module) ||
					 (next->module && k->syms[i].module &&
					  strcmp(next->module, k->syms[i].module) == 0));
		k->syms[i].size = same_mod ? next->addr - k->syms[i].addr : 0;
	}
}

int pev__kernel_load(struct pev_symbols *s, struct pev_error *err)
{
	struct sym_kernel *k;
	char *buf = NULL;
	size_t len = 0;
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
	r = slurp(s->kallsyms_path, &buf, &len);
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
			       strerror(-r));
		if (r == -ENOENT)
			pev__error_hint(e, "a kernel built without CONFIG_KALLSYMS lists no symbols; "
					   "mount procfs on /proc");
		else
			pev__error_hint(e, "run as a user who may read %s", s->kallsyms_path);
	} else {
		k = calloc(1, sizeof(*k));
		if (!k || parse(k, buf, len) < 0) {
			pev__kernel_free(k);
			free(buf);
			s->kernel_tried = false;
			return pev__error_start(err, PEV_ENOMEM, ENOMEM, NULL, NULL, true);
		}
		k->buf = buf;
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

void pev__kernel_resolve(struct pev_symbols *s, uint64_t addr, struct pev_symbol *out)
{
	const struct sym_kernel *k = s->kernel;
	size_t lo = 0, hi = k ? k->n : 0;

	if (!k) {
		pev__sym_unknown(out, PEV_SYMBOL_KERNEL_UNAVAILABLE, "[kernel.kallsyms]", addr);
		out->flags |= PEV_SYMBOL_KERNEL;
		return;
	}
	while (lo < hi) { /* the last symbol at or below addr */
		size_t mid = lo + (hi - lo) / 2;
		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct ksym *ks = lo ? &k->syms[lo - 1] : NULL;
	uint64_t span = ks ? (ks->size ? ks->size : KSYM_LAST_SPAN) : 0;

	if (!ks || addr - ks->addr >= span) {
		pev__sym_unknown(out, PEV_SYMBOL_NO_SYMBOL, "[kernel.kallsyms]", addr);
		out->flags |= PEV_SYMBOL_KERNEL;
		return;
	}
	out->status = PEV_SYMBOL_OK;
	out->flags |= PEV_SYMBOL_KERNEL;
	out->name = ks->name;
	out->start = ks->addr;
	out->offset = addr - ks->addr;
	out->size = ks->size;
	out->dso = ks->module ? ks->module : "[kernel.kallsyms]";
	out->dso_addr = addr;
}
