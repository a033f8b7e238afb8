/* SPDX-License-Identifier: MIT */
/*
 * pfm.c - CPU vendor event names through libpfm4.
 *
 * libpfm4 is initialized once per process (pthread_once), which is when it
 * reads LIBPFM_FORCE_PMU and LIBPFM_ENCODE_INACTIVE from the environment;
 * perfev never calls pfm_terminate(). Names are encoded with
 * pfm_get_os_event_encoding(PFM_OS_PERF_EVENT) into a perf_event_attr, of
 * which perfev keeps type and config..config2. For core PMUs libpfm4 leaves
 * the privilege bits (USR, OS: bits 16, 17) and the enable bit (22) out of
 * config, as perf does: the kernel sets them from exclude_* and enable.
 *
 * Which PMUs count: the "active" ones (pfm_get_pmu_info's is_present: the
 * detected CPU, or the one LIBPFM_FORCE_PMU names), leaving out libpfm4's
 * generic OS PMUs ("perf", "perf_raw"), whose names (PERF_COUNT_HW_CPU_CYCLES,
 * "cycles", "r0c0") duplicate perf's generic events and raw syntax and vanish
 * when a PMU is forced. Their names are refused, pointing to perf's name.
 *
 * libpfm4 is loaded at run time (dlopen, see load_pfm()); without it every
 * lookup answers PEV_EUNSUPPORTED saying so. Without PEV_HAVE_PFM (no libpfm4
 * header at build time) every function answers PEV_EUNSUPPORTED.
 */
#include "perfev/pfm.h"
#include "events/pfm_internal.h"
#include "core/suggest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>

#include "core/error_internal.h"
#include "core/util.h"

#ifdef PEV_HAVE_PFM
#include <ctype.h>
#include <dlfcn.h>
#include <pthread.h>

#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#endif

#define FORCE_HINT                                                                                 \
	"LIBPFM_FORCE_PMU=<pmu> LIBPFM_ENCODE_INACTIVE=1 to encode for another CPU "               \
	"(e.g. skl, icl, spr, amd64_fam19h_zen3), set before perfev first uses libpfm4"
#define RAW_HINT "or give the code itself: r<hex> or cpu/event=0x..,umask=0x../"


#ifndef PEV_HAVE_PFM

bool pev_pfm_available(void)
{
	return false;
}

void pev__pfm_set_soname(const char *soname)
{
	(void)soname;
}

int pev_pfm_encode(const char *name, struct pev_event *ev, struct pev_error *err)
{
	pev__error_clear(err);
	if (!name || !*name)
		return pev__bad_arg(err, "pev_pfm_encode", "name", "an event name is required");
	if (!ev)
		return pev__bad_arg(err, "pev_pfm_encode", "ev", "NULL");
	pev__error_start(err, PEV_EUNSUPPORTED, 0, NULL, name, true);
	pev__error_msg(err,
	               "perfev was built without libpfm4: '%s' cannot be looked up in the "
	               "CPU vendor's event tables",
	               name);
	pev__error_hint(err, "rebuild perfev with libpfm4 (Debian: apt install libpfm4-dev)");
	pev__error_hint(err, RAW_HINT);
	return PEV_EUNSUPPORTED;
}

int pev__pfm_encode(const char *name, struct pev_event *ev, struct pev_opts *opts,
		    struct pev_error *err)
{
	(void)opts;
	return pev_pfm_encode(name, ev, err);
}

int pev_pfm_foreach(pev_pfm_fn fn, void *ctx)
{
	(void)fn;
	(void)ctx;
	return PEV_EUNSUPPORTED;
}

#else /* PEV_HAVE_PFM */

/* Names longer than this are handed to libpfm4 as they are, but not rewritten or analysed. */
#define NAME_MAX_LEN 255

/* ---- initialization ------------------------------------------------------ */

/*
 * libpfm4 is loaded with dlopen() the first time a vendor name is looked up,
 * not linked: its tables cost every process that links it tens of thousands
 * of relocations at start-up (about 15 ms for `perfev stat true`), which the
 * many programs that never name a vendor event should not pay. The header
 * still gives the types and the signatures.
 */
static const char *pfm_soname = "libpfm.so.4"; /* tests change it: pev__pfm_set_soname() */

static struct {
	__typeof__(&pfm_initialize) initialize;
	__typeof__(&pfm_strerror) strerror;
	__typeof__(&pfm_find_event) find_event;
	__typeof__(&pfm_get_event_next) get_event_next;
	__typeof__(&pfm_get_event_info) get_event_info;
	__typeof__(&pfm_get_event_attr_info) get_event_attr_info;
	__typeof__(&pfm_get_os_event_encoding) get_os_event_encoding;
	__typeof__(&pfm_get_pmu_info) get_pmu_info;
} lib;
static char pfm_load_error[256]; /* why libpfm4 could not be loaded; "" once it is */

/* Resolves one libpfm4 symbol into *slot; false (and the reason kept) when it is missing. */
static bool load_symbol(void *handle, const char *symbol, void *slot)
{
	void *fn = dlsym(handle, symbol);

	if (!fn) {
		snprintf(pfm_load_error, sizeof(pfm_load_error), "%s has no %s", pfm_soname, symbol);
		return false;
	}
	memcpy(slot, &fn, sizeof(fn)); /* object pointer to function pointer, bit for bit */
	return true;
}

/* Loads libpfm4 into `lib`; false with pfm_load_error set when it cannot. */
static bool load_pfm(void)
{
	void *h = dlopen(pfm_soname, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		const char *why = dlerror();
		pev__strlcpy(pfm_load_error, why ? why : pfm_soname, sizeof(pfm_load_error));
		return false;
	}
	if (load_symbol(h, "pfm_initialize", &lib.initialize) &&
	    load_symbol(h, "pfm_strerror", &lib.strerror) &&
	    load_symbol(h, "pfm_find_event", &lib.find_event) &&
	    load_symbol(h, "pfm_get_event_next", &lib.get_event_next) &&
	    load_symbol(h, "pfm_get_event_info", &lib.get_event_info) &&
	    load_symbol(h, "pfm_get_event_attr_info", &lib.get_event_attr_info) &&
	    load_symbol(h, "pfm_get_os_event_encoding", &lib.get_os_event_encoding) &&
	    load_symbol(h, "pfm_get_pmu_info", &lib.get_pmu_info))
		return true;
	dlclose(h);
	memset(&lib, 0, sizeof(lib));
	return false;
}

/*
 * Loading and initializing are separate steps: pev_pfm_available() loads
 * but leaves pfm_initialize(), which reads LIBPFM_FORCE_PMU, to the first
 * lookup.
 */
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static bool pfm_loaded; /* libpfm4 was loaded (lib is filled in) */

static void load_pfm_once(void)
{
	pfm_loaded = load_pfm();
}

static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_init_ret;
static char pfm_forced[64];      /* LIBPFM_FORCE_PMU when libpfm4 was initialized */
static bool pfm_encode_inactive; /* LIBPFM_ENCODE_INACTIVE set non-zero then */
static bool pfm_has_cpu_pmu;     /* libpfm4 has an active CPU PMU */

/* Fills info for PMU p; false when libpfm4 has no such PMU. */
static bool pmu_info(int p, pfm_pmu_info_t *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return lib.get_pmu_info((pfm_pmu_t)p, info) == PFM_SUCCESS && info->name;
}

/* A PMU of the CPU (core or uncore), not one of libpfm4's generic perf PMUs. */
static bool is_vendor(const pfm_pmu_info_t *info)
{
	return info->type != PFM_PMU_TYPE_OS_GENERIC;
}

static bool is_active_vendor(const pfm_pmu_info_t *info)
{
	return info->is_present && is_vendor(info);
}

static void pfm_init_once(void)
{
	const char *forced = getenv("LIBPFM_FORCE_PMU");
	const char *inactive = getenv("LIBPFM_ENCODE_INACTIVE");

	if (forced)
		pev__strlcpy(pfm_forced, forced, sizeof(pfm_forced));
	pfm_encode_inactive = inactive && atoi(inactive) != 0;
	pthread_once(&load_once, load_pfm_once);
	if (!pfm_loaded) {
		pfm_init_ret = PFM_ERR_NOINIT;
		return;
	}
	pfm_init_ret = lib.initialize();
	if (pfm_init_ret != PFM_SUCCESS)
		return;
	/* The active PMUs are fixed once libpfm4 is initialized. */
	for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX && !pfm_has_cpu_pmu; p++) {
		pfm_pmu_info_t info;
		pfm_has_cpu_pmu = pmu_info(p, &info) && is_active_vendor(&info);
	}
}

/* Writes "clx (Intel CascadeLake X), rapl (Intel RAPL)": the active vendor PMUs. */
static int active_pmus(char *buf, size_t size)
{
	pfm_pmu_info_t info;
	int n = 0;

	buf[0] = '\0';
	for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++) {
		if (!pmu_info(p, &info) || !is_active_vendor(&info))
			continue;
		pev__appendf(buf, size, "%s%s (%s)", n ? ", " : "", info.name,
		             info.desc ? info.desc : "?");
		n++;
	}
	return n;
}

/* Describes this CPU from /proc/cpuinfo: "GenuineIntel family 6 model 85 (Intel Xeon ...)". */
static void cpu_describe(char *buf, size_t size)
{
	char text[4096], vendor[64] = "", family[16] = "", model[16] = "", model_name[128] = "";
	char implementer[16] = "", part[16] = "";
	struct utsname u;

	buf[0] = '\0';
	if (pev__read_text("/proc/cpuinfo", text, sizeof(text)) > 0) {
		char *save = NULL;
		for (char *line = strtok_r(text, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			char *colon = strchr(line, ':');
			char *key_end, *value;
			if (!colon)
				continue;
			if (strncmp(line, "processor", 9) == 0 && (vendor[0] || implementer[0]))
				break; /* the first CPU is enough */
			for (key_end = colon;
			     key_end > line && isspace((unsigned char)key_end[-1]);)
				key_end--;
			*key_end = '\0';
			for (value = colon + 1; isspace((unsigned char)*value);)
				value++;
			if (strcmp(line, "vendor_id") == 0)
				pev__strlcpy(vendor, value, sizeof(vendor));
			else if (strcmp(line, "cpu family") == 0)
				pev__strlcpy(family, value, sizeof(family));
			else if (strcmp(line, "model") == 0)
				pev__strlcpy(model, value, sizeof(model));
			else if (strcmp(line, "model name") == 0)
				pev__strlcpy(model_name, value, sizeof(model_name));
			else if (strcmp(line, "CPU implementer") == 0)
				pev__strlcpy(implementer, value, sizeof(implementer));
			else if (strcmp(line, "CPU part") == 0)
				pev__strlcpy(part, value, sizeof(part));
		}
	}
	if (vendor[0])
		snprintf(buf, size, "%s family %s model %s", vendor, family[0] ? family : "?",
		         model[0] ? model : "?");
	else if (implementer[0])
		snprintf(buf, size, "implementer %s part %s", implementer, part[0] ? part : "?");
	else if (uname(&u) == 0)
		snprintf(buf, size, "an %s CPU", u.machine);
	else
		snprintf(buf, size, "an unknown CPU");
	if (model_name[0])
		pev__appendf(buf, size, " (%s)", model_name);
}

/* ---- suggestions --------------------------------------------------------- */

/* ---- walking libpfm4's tables ---------------------------------------------- */

/*
 * Called for each name of a PMU: an event (umask NULL) and then each of its
 * unit masks. Non-zero stops the walk.
 */
typedef int (*walk_fn)(const pfm_pmu_info_t *pmu, const pfm_event_info_t *event,
                       const pfm_event_attr_info_t *umask, void *ctx);

static int walk_event(const pfm_pmu_info_t *pmu, int idx, walk_fn fn, void *ctx)
{
	pfm_event_info_t event;
	pfm_event_attr_info_t attr;
	int ret;

	memset(&event, 0, sizeof(event));
	event.size = sizeof(event);
	if (lib.get_event_info(idx, PFM_OS_NONE, &event) != PFM_SUCCESS || !event.name)
		return 0;
	ret = fn(pmu, &event, NULL, ctx);
	for (int a = 0; !ret && a < event.nattrs; a++) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		if (lib.get_event_attr_info(idx, a, PFM_OS_NONE, &attr) != PFM_SUCCESS ||
		    attr.type != PFM_ATTR_UMASK || !attr.name)
			continue;
		ret = fn(pmu, &event, &attr, ctx);
	}
	return ret;
}

static int walk_pmu(const pfm_pmu_info_t *pmu, walk_fn fn, void *ctx)
{
	int ret = 0;

	for (int idx = pmu->first_event; !ret && idx >= 0; idx = lib.get_event_next(idx))
		ret = walk_event(pmu, idx, fn, ctx);
	return ret;
}

/* Walks every active vendor PMU. */
static int walk_active(walk_fn fn, void *ctx)
{
	pfm_pmu_info_t info;
	int ret = 0;

	for (int p = PFM_PMU_NONE; !ret && p < PFM_PMU_MAX; p++)
		if (pmu_info(p, &info) && is_active_vendor(&info))
			ret = walk_pmu(&info, fn, ctx);
	return ret;
}

/* Whether an event has unit masks. */
static bool has_umasks(const pfm_event_info_t *event)
{
	pfm_event_attr_info_t attr;

	for (int a = 0; a < event->nattrs; a++) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		if (lib.get_event_attr_info(event->idx, a, PFM_OS_NONE, &attr) == PFM_SUCCESS &&
		    attr.type == PFM_ATTR_UMASK)
			return true;
	}
	return false;
}

/* Suggestions: compares the word with "EVENT" names, or "EVENT:UMASK" when it has a ':'. */
struct suggest_ctx {
	struct pev_suggest s;
	bool with_umask;
};

static int suggest_name(const pfm_pmu_info_t *pmu, const pfm_event_info_t *event,
                        const pfm_event_attr_info_t *umask, void *ctx)
{
	struct suggest_ctx *c = ctx;
	char name[NAME_MAX_LEN + 1];

	(void)pmu;
	if (!umask) {
		pev__suggest_add(&c->s, event->name);
		return 0;
	}
	if (c->with_umask) {
		snprintf(name, sizeof(name), "%s:%s", event->name, umask->name);
		pev__suggest_add(&c->s, name);
	}
	return 0;
}

/* Suggests unit masks and modifiers of one event that are close to word. */
static void suggest_attrs(int idx, const char *event_name, const char *word, struct pev_error *err)
{
	pfm_event_info_t event;
	pfm_event_attr_info_t attr;
	struct pev_suggest s;
	char name[NAME_MAX_LEN + 2];

	memset(&event, 0, sizeof(event));
	event.size = sizeof(event);
	if (lib.get_event_info(idx, PFM_OS_PERF_EVENT, &event) != PFM_SUCCESS)
		return;
	pev__suggest_init(&s, word);
	for (int a = 0; a < event.nattrs; a++) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		if (lib.get_event_attr_info(idx, a, PFM_OS_PERF_EVENT, &attr) == PFM_SUCCESS &&
		    attr.name && attr.type != PFM_ATTR_RAW_UMASK)
			pev__suggest_add(&s, attr.name);
	}
	snprintf(name, sizeof(name), "%s:", event_name);
	pev__suggest_hint(&s, name, err);
}

/*
 * Writes the unit masks of event idx ("A, B, C, ...", at most about `size`
 * bytes). Returns how many there are.
 */
static int list_umasks(int idx, char *buf, size_t size)
{
	pfm_event_info_t event;
	pfm_event_attr_info_t attr;
	int n = 0;

	buf[0] = '\0';
	memset(&event, 0, sizeof(event));
	event.size = sizeof(event);
	if (lib.get_event_info(idx, PFM_OS_NONE, &event) != PFM_SUCCESS)
		return 0;
	for (int a = 0; a < event.nattrs; a++) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		if (lib.get_event_attr_info(idx, a, PFM_OS_NONE, &attr) != PFM_SUCCESS ||
		    attr.type != PFM_ATTR_UMASK || !attr.name)
			continue;
		if (n < 12)
			pev__appendf(buf, size, "%s%s", n ? ", " : "", attr.name);
		else if (n == 12)
			pev__appendf(buf, size, ", ...");
		n++;
	}
	return n;
}

/* Whether word (up to '=' or its end) names an attribute of event idx (any OS layer). */
static bool is_attr_of(int idx, const char *word, size_t len)
{
	pfm_event_info_t event;
	pfm_event_attr_info_t attr;

	memset(&event, 0, sizeof(event));
	event.size = sizeof(event);
	if (lib.get_event_info(idx, PFM_OS_PERF_EVENT, &event) != PFM_SUCCESS)
		return false;
	for (int a = 0; a < event.nattrs; a++) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		if (lib.get_event_attr_info(idx, a, PFM_OS_PERF_EVENT, &attr) == PFM_SUCCESS &&
		    attr.name && strlen(attr.name) == len && strncasecmp(attr.name, word, len) == 0)
			return true;
	}
	return false;
}

/* ---- encoding ------------------------------------------------------------ */

/* Encodes name; returns libpfm4's code, and on success fills attr and *idx. */
static int encode_one(const char *name, struct perf_event_attr *attr, int *idx)
{
	pfm_perf_encode_arg_t arg;
	int ret;

	memset(attr, 0, sizeof(*attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = attr;
	arg.size = sizeof(arg);
	/*
	 * Every privilege level by default: a name without libpfm4's own u/k/h
	 * modifiers then comes back with no exclude_* bit, and one that has
	 * them shows it.
	 */
	ret = lib.get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3 | PFM_PLMH, PFM_OS_PERF_EVENT,
	                                &arg);
	if (ret == PFM_SUCCESS)
		*idx = arg.idx;
	return ret;
}

/* perf's "EVENT.UMASK" as libpfm4's "EVENT:UMASK" (after any "pmu::"). False if not dotted. */
static bool dotted_to_colon(const char *name, char *out, size_t size)
{
	const char *sep = strstr(name, "::");
	const char *event = sep ? sep + 2 : name;
	char *dot;

	if (strchr(event, ':') || !strchr(event, '.') || strlen(name) >= size)
		return false;
	pev__strlcpy(out, name, size);
	dot = strchr(out + (event - name), '.');
	*dot = ':';
	return true;
}

/* Finds a PMU libpfm4 knows by name (active or not). */
static bool find_pmu(const char *name, size_t len, pfm_pmu_info_t *info)
{
	for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++)
		if (pmu_info(p, info) && strlen(info->name) == len &&
		    strncasecmp(info->name, name, len) == 0)
			return true;
	return false;
}

static int unsupported_cpu(struct pev_error *err, const char *name)
{
	char cpu[256];
	pfm_pmu_info_t info;

	pev__error_start(err, PEV_EUNSUPPORTED, 0, NULL, name, true);
	if (!err)
		return PEV_EUNSUPPORTED;
	if (!pfm_loaded) {
		pev__error_msg(err, "libpfm4 cannot be loaded (%s), so '%s' cannot be looked up "
		               "in the CPU vendor's event tables", pfm_load_error, name);
		pev__error_hint(err, "install libpfm4 (Debian: apt install libpfm4)");
		pev__error_hint(err, RAW_HINT);
		return PEV_EUNSUPPORTED;
	}
	if (pfm_forced[0]) {
		if (!find_pmu(pfm_forced, strlen(pfm_forced), &info)) {
			struct pev_suggest s;
			pev__error_msg(err,
			               "LIBPFM_FORCE_PMU=%s names no PMU libpfm4 knows, so it "
			               "has no event table to look '%s' up in",
			               pfm_forced, name);
			pev__suggest_init(&s, pfm_forced);
			for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++)
				if (pmu_info(p, &info) && is_vendor(&info))
					pev__suggest_add(&s, info.name);
			pev__suggest_hint(&s, "LIBPFM_FORCE_PMU=", err);
		} else {
			pev__error_msg(err,
			               "LIBPFM_FORCE_PMU=%s (%s) is not a CPU PMU libpfm4 can "
			               "encode '%s' for",
			               pfm_forced, info.desc ? info.desc : "?", name);
		}
		pev__error_hint(err, FORCE_HINT);
		pev__error_hint(err, RAW_HINT);
		return PEV_EUNSUPPORTED;
	}
	cpu_describe(cpu, sizeof(cpu));
	pev__error_msg(err, "libpfm4 has no event table for this CPU, %s, so it cannot encode '%s'",
	               cpu, name);
	if (pfm_init_ret != PFM_SUCCESS)
		pev__appendf(err->message, sizeof(err->message), " (pfm_initialize: %s)",
		             lib.strerror(pfm_init_ret));
	pev__error_hint(err, FORCE_HINT);
	pev__error_hint(err, RAW_HINT);
	return PEV_EUNSUPPORTED;
}

/* Initializes libpfm4; returns 0 when it has at least one active vendor PMU. */
static int pfm_ready(struct pev_error *err, const char *name)
{
	pthread_once(&pfm_once, pfm_init_once);
	if (pfm_has_cpu_pmu)
		return 0;
	return name ? unsupported_cpu(err, name) : PEV_EUNSUPPORTED;
}

bool pev_pfm_available(void)
{
	pthread_once(&load_once, load_pfm_once);
	return pfm_loaded;
}

void pev__pfm_set_soname(const char *soname)
{
	pfm_soname = soname;
}

/*
 * Explains why libpfm4 refused `tried` (the name as tried: for perf's dotted
 * spelling, the colon one); `name` is what the caller passed.
 */
static int explain_failure(struct pev_error *err, const char *name, const char *tried, int ret)
{
	char prefix[NAME_MAX_LEN + 3] = "", event_name[NAME_MAX_LEN + 1], pmus[512];
	char text[NAME_MAX_LEN + 1];
	char *sep, *rest;
	const char *colon;
	pfm_pmu_info_t pmu = {0};
	int idx;

	if (strlen(tried) > NAME_MAX_LEN) {
		pev__error_start(err, PEV_ENOTFOUND, 0, NULL, name, true);
		pev__error_msg(err, "libpfm4 cannot encode '%.64s...': %s", name,
		               lib.strerror(ret));
		return PEV_ENOTFOUND;
	}
	/* libpfm4 (4.13) separates unit masks and modifiers with '.' as well as ':'. */
	pev__strlcpy(text, tried, sizeof(text));
	sep = strstr(text, "::");
	rest = sep ? sep + 2 : text;
	for (char *dot = strchr(rest, '.'); dot; dot = strchr(dot + 1, '.'))
		*dot = ':';
	if (sep) {
		snprintf(prefix, sizeof(prefix), "%.*s::", (int)(sep - text), text);
		if (!find_pmu(text, (size_t)(sep - text), &pmu)) {
			struct pev_suggest s;
			pev__error_start(err, PEV_ENOTFOUND, 0, NULL, name, true);
			if (!err)
				return PEV_ENOTFOUND;
			if (pfm_forced[0]) {
				/* Forced, libpfm4 does not list the other PMUs. */
				pev__error_msg(err,
				               "libpfm4, forced to PMU %s (LIBPFM_FORCE_PMU), "
				               "cannot encode '%s' for PMU '%.*s'",
				               pfm_forced, name, (int)(sep - text), text);
				pev__error_hint(err, "leave out '%.*s::' to use %s",
				                (int)(sep - text), text, pfm_forced);
				if (!pfm_encode_inactive)
					pev__error_hint(err,
					                "LIBPFM_ENCODE_INACTIVE=1 lets libpfm4 "
					                "encode for PMUs of other CPUs");
				return PEV_ENOTFOUND;
			}
			pev__error_msg(err, "libpfm4 has no PMU '%.*s' (in '%s')",
			               (int)(sep - text), text, name);
			prefix[sep - text] = '\0';
			pev__suggest_init(&s, prefix);
			for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++)
				if (pmu_info(p, &pmu) && is_vendor(&pmu))
					pev__suggest_add(&s, pmu.name);
			pev__suggest_hint(&s, "", err);
			if (active_pmus(pmus, sizeof(pmus)))
				pev__error_hint(err, "the active PMUs are: %s", pmus);
			return PEV_ENOTFOUND;
		}
		if (!is_vendor(&pmu)) {
			pev__error_start(err, PEV_ENOTFOUND, 0, NULL, name, true);
			pev__error_msg(err,
			               "'%s' names libpfm4's generic PMU '%s', whose events are "
			               "perf's generic events",
			               name, pmu.name);
			pev__error_hint(err, "use perf's names: cycles, instructions, r<hex>, ... "
			                     "(perfev list)");
			return PEV_ENOTFOUND;
		}
		if (!pmu.is_present && !pfm_encode_inactive) {
			pev__error_start(err, PEV_ENOTFOUND, 0, NULL, name, true);
			pev__error_msg(err,
			               "libpfm4's PMU '%s' (%s) is not this machine's, so it "
			               "does not encode '%s'",
			               pmu.name, pmu.desc ? pmu.desc : "?", name);
			pev__error_hint(err, "LIBPFM_ENCODE_INACTIVE=1 lets libpfm4 encode for it "
			                     "(set before perfev first uses libpfm4)");
			if (active_pmus(pmus, sizeof(pmus)))
				pev__error_hint(err, "the active PMUs are: %s", pmus);
			return PEV_ENOTFOUND;
		}
	}

	/* The event part, up to the first ':' after the PMU. */
	colon = strchr(rest, ':');
	snprintf(event_name, sizeof(event_name), "%s%.*s", prefix,
	         (int)(colon ? (size_t)(colon - rest) : strlen(rest)), rest);
	idx = lib.find_event(event_name);
	if (idx < 0) {
		struct suggest_ctx c;
		pev__error_start(err, PEV_ENOTFOUND, 0, NULL, name, true);
		if (!err)
			return PEV_ENOTFOUND;
		if (sep)
			snprintf(pmus, sizeof(pmus), "%s (%s)", pmu.name,
			         pmu.desc ? pmu.desc : "?");
		else
			active_pmus(pmus, sizeof(pmus));
		pev__error_msg(err, "no event '%s' in libpfm4's tables for %s",
		               event_name + strlen(prefix), pmus);
		if (strcmp(name, text) != 0)
			pev__appendf(err->message, sizeof(err->message),
			             " (perf's spelling '%s' read as libpfm4's '%s')", name, text);
		pev__suggest_init(&c.s, rest);
		c.with_umask = colon != NULL;
		if (sep)
			walk_pmu(&pmu, suggest_name, &c);
		else
			walk_active(suggest_name, &c);
		if (!pev__suggest_hint(&c.s, prefix, err))
			pev__error_hint(err,
			                "libpfm4 spells names as the vendor's manuals do, with "
			                "':' before the unit mask (INST_RETIRED:ANY_P); "
			                "pev_pfm_foreach() lists them");
		return PEV_ENOTFOUND;
	}

	/* The event exists: find the first unit mask or modifier it does not have. */
	for (const char *p = colon; p && *p == ':'; p = strchr(p + 1, ':')) {
		const char *word = p + 1, *end = strchr(word, ':'), *eq;
		size_t len = end ? (size_t)(end - word) : strlen(word);
		eq = memchr(word, '=', len);
		if (eq)
			len = (size_t)(eq - word);
		if (len && is_attr_of(idx, word, len))
			continue;
		char bad[NAME_MAX_LEN + 1];
		snprintf(bad, sizeof(bad), "%.*s", (int)len, word);
		pev__error_start(err, PEV_ENOTFOUND, 0, NULL, name, true);
		pev__error_msg(err,
		               "libpfm4's event %s has no unit mask or modifier '%s' (in '%s')",
		               event_name, bad, name);
		if (strcasecmp(bad, "precise") == 0 || strcasecmp(bad, "period") == 0 ||
		    strcasecmp(bad, "freq") == 0)
			pev__error_hint(err,
			                "perfev sets '%s' itself: perf's modifiers (:p, :pp) and "
			                "terms (period=, freq=), or pev_opts",
			                bad);
		else
			suggest_attrs(idx, event_name, bad, err);
		char umasks[512];
		if (list_umasks(idx, umasks, sizeof(umasks)))
			pev__error_hint(err, "its unit masks: %s", umasks);
		return PEV_ENOTFOUND;
	}

	/* Every part is known: the trouble is a value or a combination. */
	switch (ret) {
	case PFM_ERR_UMASK: {
		char umasks[512];
		pev__error_start(err, PEV_ENOTFOUND, 0, NULL, name, true);
		pev__error_msg(err, "libpfm4's event %s needs a unit mask ('%s': %s)", event_name,
		               name, lib.strerror(ret));
		if (err && list_umasks(idx, umasks, sizeof(umasks)))
			pev__error_hint(err, "add one: %s:<umask>, one of %s", event_name, umasks);
		return PEV_ENOTFOUND;
	}
	case PFM_ERR_ATTR_VAL:
	case PFM_ERR_FEATCOMB:
	case PFM_ERR_ATTR_SET:
	case PFM_ERR_ATTR:
		pev__error_start(err, PEV_EINVAL, 0, NULL, name, true);
		pev__error_msg(err, "libpfm4 cannot encode '%s': %s", name, lib.strerror(ret));
		pev__error_hint(err,
		                "check the modifiers' values and which unit masks of %s go "
		                "together: libpfm4's manual page for this PMU (man -k libpfm)",
		                event_name);
		return PEV_EINVAL;
	case PFM_ERR_NOMEM:
		pev__error_start(err, PEV_ENOMEM, 0, NULL, name, true);
		pev__error_msg(err, "libpfm4 ran out of memory encoding '%s'", name);
		return PEV_ENOMEM;
	default:
		pev__error_start(err, PEV_EUNEXPECTED, 0, NULL, name, true);
		pev__error_msg(err, "libpfm4 cannot encode '%s': %s (%d)", name, lib.strerror(ret),
		               ret);
		return PEV_EUNEXPECTED;
	}
}

int pev_pfm_encode(const char *name, struct pev_event *ev, struct pev_error *err)
{
	pev__error_clear(err);
	return pev__pfm_encode(name, ev, NULL, err);
}

int pev__pfm_encode(const char *name, struct pev_event *ev, struct pev_opts *opts,
		    struct pev_error *err)
{
	struct perf_event_attr attr;
	char colon_name[NAME_MAX_LEN + 1];
	const char *used = name;
	pfm_event_info_t event;
	pfm_pmu_info_t pmu;
	int ret, idx = -1;

	if (!name || !*name)
		return pev__bad_arg(err, "pev_pfm_encode", "name", "an event name is required");
	if (!ev)
		return pev__bad_arg(err, "pev_pfm_encode", "ev", "NULL");
	/*
	 * With no active CPU PMU, LIBPFM_ENCODE_INACTIVE=1 still encodes names
	 * that name their PMU ("skl::INST_RETIRED:ANY_P").
	 */
	ret = pfm_ready(NULL, NULL);
	if (ret && !(pfm_init_ret == PFM_SUCCESS && pfm_encode_inactive && strstr(name, "::")))
		return pfm_ready(err, name);

	ret = encode_one(name, &attr, &idx);
	if (ret != PFM_SUCCESS && dotted_to_colon(name, colon_name, sizeof(colon_name))) {
		int ret2 = encode_one(colon_name, &attr, &idx);
		/* Explain with the colon spelling unless the dotted one got further. */
		if (ret2 == PFM_SUCCESS || ret == PFM_ERR_NOTFOUND || ret2 != PFM_ERR_NOTFOUND) {
			ret = ret2;
			used = colon_name;
		}
	}
	if (ret != PFM_SUCCESS)
		return explain_failure(err, name, used, ret);

	/* libpfm4's generic perf PMUs: perf's own names cover them. */
	memset(&event, 0, sizeof(event));
	event.size = sizeof(event);
	if (lib.get_event_info(idx, PFM_OS_NONE, &event) == PFM_SUCCESS &&
	    pmu_info(event.pmu, &pmu) && !is_vendor(&pmu)) {
		char perf_name[96];
		struct pev_event generic = {.type = attr.type, .config = attr.config};
		pev_event_describe(&generic, perf_name, sizeof(perf_name));
		pev__error_start(err, PEV_ENOTFOUND, 0, NULL, name, true);
		pev__error_msg(err,
		               "'%s' is libpfm4's name for perf's generic event '%s', not a "
		               "CPU vendor event",
		               name, perf_name);
		pev__error_hint(err, "use perf's name: %s", perf_name);
		return PEV_ENOTFOUND;
	}

	/* libpfm4's own privilege modifiers (":u", ":k=0"): into opts, or refused without them. */
	if (opts && (attr.exclude_user || attr.exclude_kernel || attr.exclude_hv)) {
		opts->exclude_user = attr.exclude_user;
		opts->exclude_kernel = attr.exclude_kernel;
		opts->exclude_hv = attr.exclude_hv;
	} else if (attr.exclude_user || attr.exclude_kernel || attr.exclude_hv) {
		pev__error_start(err, PEV_EPARSE, 0, NULL, name, true);
		pev__error_field(err, "modifier");
		pev__error_msg(err,
		               "'%s' limits privilege levels with libpfm4's modifiers (u, k, h), "
		               "which an event's encoding cannot carry",
		               name);
		pev__error_hint(err, "leave them out and set pev_opts.exclude_kernel / exclude_user, "
		                     "or give the name in an event string (pev_event_parse), "
		                     "where they apply");
		return PEV_EPARSE;
	}

	memset(ev, 0, sizeof(*ev));
	ev->type = attr.type;
	ev->config = attr.config;
	ev->config1 = attr.config1;
	ev->config2 = attr.config2;
	return 0;
}

/* pev_pfm_foreach: each unit mask of an event, or the event when it has none. */
struct foreach_ctx {
	pev_pfm_fn fn;
	void *ctx;
	int count;
	int stop;
};

static int foreach_name(const pfm_pmu_info_t *pmu, const pfm_event_info_t *event,
                        const pfm_event_attr_info_t *umask, void *ctx)
{
	struct foreach_ctx *c = ctx;
	char name[NAME_MAX_LEN + 1];
	const char *desc;

	if (!umask) {
		if (has_umasks(event))
			return 0;
		pev__strlcpy(name, event->name, sizeof(name));
		desc = event->desc;
	} else {
		snprintf(name, sizeof(name), "%s:%s", event->name, umask->name);
		desc = umask->desc && *umask->desc ? umask->desc : event->desc;
	}
	c->count++;
	c->stop = c->fn(pmu->name, name, desc ? desc : "", c->ctx);
	return c->stop;
}

int pev_pfm_foreach(pev_pfm_fn fn, void *ctx)
{
	struct foreach_ctx c = {.fn = fn, .ctx = ctx};
	int ret;

	if (!fn)
		return pev__bad_arg(NULL, "pev_pfm_foreach", "fn", "NULL");
	ret = pfm_ready(NULL, NULL);
	if (ret)
		return ret;
	walk_active(foreach_name, &c);
	return c.stop ? c.stop : c.count;
}

#endif /* PEV_HAVE_PFM */
