/* SPDX-License-Identifier: MIT */
/*
 * symbols_unwind.c - a sample's user stack unwound from the registers and
 * the copy of the stack it carries (--call-graph dwarf), through libdwfl's
 * unwinder and the DSOs' call frame information (.eh_frame, .debug_frame).
 *
 * Each process gets one Dwfl that holds its mapped DSOs at their load
 * addresses, attached once to callbacks that read the current sample: it
 * lives across samples (libdwfl keeps each module's CFI in it) and is built
 * again only after the mappings of files in the process changed (anonymous
 * memory, which a program maps and unmaps all the time, changes no module).
 * Its modules share the ELF images the symbolizer already opened (libelf
 * counts the references), so no file is read twice. At most UNWIND_MAX
 * processes keep one at a time: a new one ends the one used least recently,
 * so a recording of thousands of processes that never exit holds no more.
 *
 * Memory reads come from the stack copy for addresses inside it, from the
 * mapped files for the others; anything else stops the walk there.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "core/log_internal.h"
#include "symbols/symbols_internal.h"

/*
 * An architecture's registers: DWARF register number -> index in perf's
 * register dump order (enum perf_event_x86_regs, enum perf_event_arm64_regs),
 * and the perf indexes of the stack pointer and the pc. A process unwinds
 * with the table of its mapped files' ELF machine, so a recording from
 * another architecture unwinds as well as a native one.
 */
struct unwind_arch {
	uint16_t machine; /* ELF e_machine */
	const unsigned char *dwarf_to_perf;
	unsigned nregs; /* DWARF registers given to the unwinder: 0 .. nregs - 1 */
	unsigned perf_sp, perf_ip;
	int lost_reg; /* the register libdw loses (below), or -1 */
};

static const unsigned char x86_64_regs[] = {
	0,  /* rax */
	3,  /* rdx */
	2,  /* rcx */
	1,  /* rbx */
	4,  /* rsi */
	5,  /* rdi */
	6,  /* rbp */
	7,  /* rsp */
	16, /* r8 .. r15 */
	17, 18, 19, 20, 21, 22, 23,
	8, /* the return address column: the pc (PLT entries' CFA expressions read it) */
};

/* arm64's link register (x30): perf's dump index and DWARF number alike. */
#define AARCH64_LR 30
/* arm64's stack pointer, as DWARF numbers it. */
#define AARCH64_SP 31
/* arm64's frame pointer (x29). */
#define AARCH64_FP 29

/*
 * arm64: perf dumps x0 .. x30 (lr), sp, pc (indexes 0 .. 32); DWARF numbers
 * x0 .. x30 as 0 .. 30 and sp as 31. The return address column is x30
 * itself, and libdw takes the pc apart (dwfl_thread_state_register_pc).
 */
static const unsigned char aarch64_regs[] = {
	0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
	16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
};

/*
 * elfutils (0.188 here, 0.196 under perf 7.2) gives x86-64 frames DWARF register 0 (rax) as
 * the callee-saved register its ABI defaults keep, where rbx (3) is meant: in
 * every frame whose callee did not save rbx, libdw holds rbx unknown. A
 * frame whose CFA is counted from rbx (ld.so's _dl_runtime_resolve, which
 * realigns its stack) then ends the chain: a sample in lazy binding, under
 * _dl_fixup, stops there where libunwind (perf 6.1) goes on to _start.
 * resume_walk() goes on from that frame with rbx as the frames below had it.
 * arm64's defaults in libdw are right: it has no such register.
 */
static const struct unwind_arch unwind_arches[] = {
	{EM_X86_64, x86_64_regs, sizeof(x86_64_regs), 7, 8, 3},
	{EM_AARCH64, aarch64_regs, sizeof(aarch64_regs), 31, 32, -1},
};

#define REGS_ABI 2 /* PERF_SAMPLE_REGS_ABI_64: 32-bit processes number registers otherwise */

/* The table of ELF machine m, or NULL when there is none. */
static const struct unwind_arch *arch_of_machine(unsigned m)
{
	for (size_t i = 0; i < sizeof(unwind_arches) / sizeof(unwind_arches[0]); i++)
		if (unwind_arches[i].machine == m)
			return &unwind_arches[i];
	return NULL;
}

/* The table of the machine perfev runs on (a process no file describes). */
static const struct unwind_arch *host_arch(void)
{
#if defined(__x86_64__)
	return arch_of_machine(EM_X86_64);
#elif defined(__aarch64__)
	return arch_of_machine(EM_AARCH64);
#else
	return NULL;
#endif
}

int pev__unwind_perf_reg(unsigned machine, unsigned dwarf)
{
	const struct unwind_arch *a = arch_of_machine(machine);

	if (!a)
		return PEV_EUNSUPPORTED;
	if (dwarf == UINT_MAX)
		return (int)a->perf_ip;
	return dwarf < a->nregs ? a->dwarf_to_perf[dwarf] : -1;
}

/* The sample being unwound: what the callbacks read. */
struct unwind_sample {
	const struct pev_sample_regs *regs;
	const struct pev_sample_stack *stack;
	uint64_t sp; /* the address of the stack copy's first byte */
	int32_t tid;
	/* Set: the walk starts from these registers (DWARF numbers), not regs. */
	const struct unwind_resume *resume;
	const struct unwind_arch *arch;
	Dwfl *dwfl; /* the process's */
};

/* The DWARF registers a resumed walk carries (arm64's x0 .. x30 and sp; x86-64's 17 fit). */
#define UNWIND_NREGS 32

/* A frame's registers, for a walk that goes on from it. */
struct unwind_resume {
	Dwarf_Word reg[UNWIND_NREGS];
	uint64_t known; /* bit d: reg[d] holds a value */
	Dwarf_Addr pc;
};

/* The most processes that keep a Dwfl at once. */
#define UNWIND_MAX 64

struct sym_unwind {
	Dwfl *dwfl;
	uint64_t version;  /* the process's files_version it was built from */
	uint64_t used;     /* pev_symbols.unwind_clock at its last sample */
	uint64_t *live;    /* the symbolizer's count of unwinders */
	bool attached;     /* false: no module to unwind through */
	const struct unwind_arch *arch; /* its files' machine's registers, or NULL */
	struct unwind_sample cur;
};

/* What the frame callback collects. */
struct unwind_walk {
	struct pev__unwind_frame *out;
	size_t n, max;
	size_t skip; /* frames not collected first: the one a resumed walk starts from */
	int lost_reg;      /* the architecture's lost_reg (-1: none, nothing below is kept) */
	Dwarf_Word lost;   /* lost_reg in the last frame, or as the frames below had it */
	bool lost_known;   /* lost holds a value */
	bool last_lacks;   /* libdw holds lost_reg unknown in the last frame */
	struct unwind_resume at; /* the last frame's registers, when last_lacks */
};

/* Register idx (perf's numbering) of the dump, when the mask holds it. */
static bool reg_value(const struct pev_sample_regs *r, unsigned idx, uint64_t *out)
{
	uint64_t bit = UINT64_C(1) << idx;
	unsigned k;

	if (!(r->mask & bit) || !r->regs)
		return false;
	k = (unsigned)__builtin_popcountll(r->mask & (bit - 1));
	if (k >= r->nr)
		return false;
	*out = r->regs[k];
	return true;
}

/* ---- libdwfl's module callbacks -------------------------------------------- */

/* The module's ELF: a new reference to the image its DSO opened. */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	Elf *elf = *userdata;

	(void)mod;
	(void)name;
	(void)base;
	(void)file_name;
	*elfp = elf ? elf_begin(-1, ELF_C_READ_MMAP, elf) : NULL;
	return -1;
}

/* No separate debuginfo: .eh_frame (in the file itself) is what unwinds. */
static int find_no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			     GElf_Addr base, const char *file_name, const char *debuglink_file,
			     GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
	(void)debuglink_file, (void)debuglink_crc, (void)debuginfo_file_name;
	return -1;
}

static const Dwfl_Callbacks module_callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = find_no_debuginfo,
};

/* ---- libdwfl's thread callbacks ------------------------------------------- */

static pid_t next_thread(Dwfl *dwfl, void *dwfl_arg, void **thread_argp)
{
	struct unwind_sample *cur = dwfl_arg;

	(void)dwfl;
	if (*thread_argp)
		return 0; /* one thread: the sample's */
	*thread_argp = cur;
	return cur->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *dwfl_arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = dwfl_arg;
	return true;
}

/* Reads 8 bytes at addr of a mapped file (its PT_LOAD contents). */
static bool read_file_word(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *out)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
	Dwarf_Addr bias;
	Elf *elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	size_t n, size;
	const char *raw = elf ? elf_rawfile(elf, &size) : NULL;

	if (!raw || elf_getphdrnum(elf, &n) != 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		uint64_t v = addr - bias;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (v < ph.p_vaddr || v - ph.p_vaddr + 8 > ph.p_filesz)
			continue;
		if (ph.p_offset + (v - ph.p_vaddr) + 8 > size)
			return false;
		memcpy(out, raw + ph.p_offset + (v - ph.p_vaddr), 8);
		return true;
	}
	return false;
}

/*
 * arm64 code built with -mbranch-protection (Debian's libc, the kernel's
 * vDSO) signs its return address (pointer authentication, PAC) before it
 * saves it: the code's bits above the address space (48 bits, or 52) are set
 * in the word the stack or LR holds, and the CPU strips them at the return.
 * libdw (0.188) would take the word as it is, find no module there and
 * stop: the unwinder strips each word it reads from the stack and LR.
 * Returns the address without them when that one is in a module and addr
 * is in none (a word that is no signed code address is left as it is).
 */
static Dwarf_Addr strip_pac(Dwfl *dwfl, Dwarf_Addr addr)
{
	static const unsigned va_bits[] = {48, 52};

	if (!dwfl || !(addr >> 48) || (addr >> 55) & 1 || dwfl_addrmodule(dwfl, addr))
		return addr; /* not signed: a user address, or one in a module already */
	for (size_t i = 0; i < sizeof(va_bits) / sizeof(va_bits[0]); i++) {
		Dwarf_Addr bare = addr & ((UINT64_C(1) << va_bits[i]) - 1);
		if (bare != addr && dwfl_addrmodule(dwfl, bare))
			return bare;
	}
	return addr;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *dwfl_arg)
{
	struct unwind_sample *cur = dwfl_arg;
	uint64_t valid = cur->stack->dyn_size < cur->stack->size ? cur->stack->dyn_size
								: cur->stack->size;

	if (addr >= cur->sp && addr - cur->sp < valid && valid - (addr - cur->sp) >= 8) {
		memcpy(result, (const char *)cur->stack->data + (addr - cur->sp), 8);
		if (cur->arch->machine == EM_AARCH64)
			*result = strip_pac(dwfl, *result);
		return true;
	}
	return read_file_word(dwfl, addr, result);
}

static bool set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	struct unwind_sample *cur = thread_arg;
	uint64_t v;

	if (cur->resume) {
		for (unsigned d = 0; d < UNWIND_NREGS; d++) {
			Dwarf_Word w = cur->resume->reg[d];
			if ((cur->resume->known & (UINT64_C(1) << d)) &&
			    !dwfl_thread_state_registers(thread, (int)d, 1, &w))
				return false;
		}
		dwfl_thread_state_register_pc(thread, cur->resume->pc);
		return true;
	}
	for (unsigned d = 0; d < cur->arch->nregs; d++) {
		Dwarf_Word w;
		if (!reg_value(cur->regs, cur->arch->dwarf_to_perf[d], &v))
			continue; /* not dumped: the rules that need it fail there */
		w = v;
		if (cur->arch->machine == EM_AARCH64 && d == AARCH64_LR)
			w = strip_pac(cur->dwfl, w);
		if (!dwfl_thread_state_registers(thread, (int)d, 1, &w))
			return false;
	}
	if (!reg_value(cur->regs, cur->arch->perf_ip, &v))
		return false;
	dwfl_thread_state_register_pc(thread, v);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* ---- one process's Dwfl ------------------------------------------------------- */

/*
 * The load bias of d's image as mapping m shows it: the process address of
 * the file's virtual address 0. False when m's file offset is in no segment.
 */
static bool load_bias(const struct sym_dso *d, const struct sym_map *m, uint64_t *bias)
{
	for (size_t i = 0; i < d->nloads; i++) {
		const struct dso_load *l = &d->loads[i];

		if (m->pgoff >= (l->offset & ~UINT64_C(0xfff)) && m->pgoff < l->offset + l->filesz) {
			*bias = m->start - (m->pgoff - l->offset + l->vaddr);
			return true;
		}
	}
	return false;
}

/* The lowest and highest process addresses of d's image at bias (libdwfl's module range). */
static bool image_range(Elf *elf, uint64_t bias, uint64_t *lo, uint64_t *hi)
{
	size_t n;
	bool first = true;

	if (elf_getphdrnum(elf, &n) != 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (first) /* libdwfl puts the module's start at the first segment's aligned start */
			*lo = bias + (ph.p_vaddr & -(ph.p_align ? ph.p_align : 1));
		first = false;
		if (bias + ph.p_vaddr + ph.p_memsz > *hi)
			*hi = bias + ph.p_vaddr + ph.p_memsz;
	}
	return !first && *hi > *lo;
}

/* elf's machine (e_machine), or EM_NONE. */
static unsigned elf_machine(Elf *elf)
{
	GElf_Ehdr eh;

	return gelf_getehdr(elf, &eh) ? eh.e_machine : EM_NONE;
}

/* The registers of p's files: the first ELF machine a table knows, or NULL. */
static const struct unwind_arch *proc_arch(struct pev_symbols *s, struct sym_proc *p)
{
	for (size_t i = 0; i < p->nmaps; i++) {
		Elf *elf = p->maps[i].dso ? pev__dso_elf(s, p->maps[i].dso) : NULL;
		const struct unwind_arch *a = elf ? arch_of_machine(elf_machine(elf)) : NULL;

		if (a)
			return a;
	}
	return NULL;
}

/*
 * Reports each DSO of ELF machine machine p maps once, at its load address.
 * Returns the modules reported.
 */
static size_t report_modules(struct pev_symbols *s, struct sym_proc *p, Dwfl *dwfl,
			     unsigned machine)
{
	size_t nmods = 0;

	for (size_t i = 0; i < p->nmaps; i++) {
		const struct sym_map *m = &p->maps[i];
		struct sym_dso *d = m->dso;
		uint64_t bias, lo = 0, hi = 0;
		Dwfl_Module *mod;
		Elf *elf;
		void **ud;
		bool seen = false;

		if (!d)
			continue;
		for (size_t k = 0; k < i && !seen; k++)
			seen = p->maps[k].dso == d;
		if (seen || !(elf = pev__dso_elf(s, d)) || elf_machine(elf) != machine ||
		    !load_bias(d, m, &bias) || !image_range(elf, bias, &lo, &hi))
			continue;
		mod = dwfl_report_module(dwfl, d->path, lo, hi);
		if (!mod)
			continue; /* overlaps one reported already */
		dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
		*ud = elf;
		nmods++;
	}
	return nmods;
}

/* Builds p's Dwfl from its mappings as they are now. */
static int unwind_build(struct pev_symbols *s, struct sym_proc *p, struct sym_unwind *u)
{
	if (u->dwfl)
		dwfl_end(u->dwfl);
	u->dwfl = NULL;
	u->attached = false;
	u->version = p->files_version;
	u->arch = proc_arch(s, p);
	if (!u->arch)
		return 0; /* no file of a machine perfev has registers for */
	s->st.unwind_builds++;
	u->dwfl = dwfl_begin(&module_callbacks);
	if (!u->dwfl)
		return PEV_ENOMEM;
	dwfl_report_begin(u->dwfl);
	size_t nmods = report_modules(s, p, u->dwfl, u->arch->machine);
	if (dwfl_report_end(u->dwfl, NULL, NULL) != 0 || !nmods)
		return 0;
	u->attached = dwfl_attach_state(u->dwfl, NULL, p->pid, &thread_callbacks, &u->cur);
	if (!u->attached)
		pev__log(PEV_LOG_DEBUG, "symbols: cannot unwind process %d: %s", (int)p->pid,
			 dwfl_errmsg(-1));
	return 0;
}

/* Notes the frame's lost_reg, and its registers when libdw lost that one. */
static void note_lost_reg(Dwfl_Frame *state, struct unwind_walk *w, Dwarf_Addr pc, bool activation)
{
	Dwarf_Word v;

	if (w->lost_reg < 0)
		return;
	w->last_lacks = dwfl_frame_reg(state, (unsigned)w->lost_reg, &v) != 0;
	if (!w->last_lacks) {
		w->lost = v;
		w->lost_known = true;
		return;
	}
	w->at.known = 0;
	for (unsigned d = 0; d < UNWIND_NREGS; d++)
		if (dwfl_frame_reg(state, d, &w->at.reg[d]) == 0)
			w->at.known |= UINT64_C(1) << d;
	/* A return address is looked up within its call, as libdw looks it up. */
	w->at.pc = activation ? pc : pc - 1;
}

static int collect_frame(Dwfl_Frame *state, void *arg)
{
	struct unwind_walk *w = arg;
	Dwarf_Addr pc;
	bool activation;

	/* A loop of frames (garbage) ends at max, as perf's at perf_event_max_stack. */
	if (!dwfl_frame_pc(state, &pc, &activation) || pc == 0)
		return DWARF_CB_ABORT;
	if (w->skip) {
		w->skip--;
		return DWARF_CB_OK;
	}
	w->out[w->n++] = (struct pev__unwind_frame){.pc = pc, .activation = activation};
	note_lost_reg(state, w, pc, activation);
	return w->n < w->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/*
 * Goes on with a walk that ended (rc 0: libdw found no caller) at a frame
 * where libdw had lost the architecture's lost_reg, from that frame's registers and the
 * value the frames below had, for as long as that brings new frames.
 */
static void resume_walk(struct sym_unwind *u, struct unwind_walk *w, int rc)
{
	while (rc == 0 && w->lost_reg >= 0 && w->n < w->max && w->last_lacks && w->lost_known) {
		size_t before = w->n;
		struct unwind_resume at = w->at;

		at.reg[w->lost_reg] = w->lost;
		at.known |= UINT64_C(1) << w->lost_reg;
		u->cur.resume = &at;
		w->skip = 1;
		w->last_lacks = false;
		rc = dwfl_getthread_frames(u->dwfl, u->cur.tid, collect_frame, w);
		u->cur.resume = NULL;
		if (w->n == before)
			break;
	}
}

/* Finds the process whose unwinder was used least recently. */
static void find_oldest(void *val, void *ctx)
{
	struct sym_proc *p = val, **oldest = ctx;

	if (p->unwind && (!*oldest || p->unwind->used < (*oldest)->unwind->used))
		*oldest = p;
}

/* Ends the unwinder used least recently (its process builds one again if it needs it). */
static void evict_one(struct pev_symbols *s)
{
	struct sym_proc *oldest = NULL;

	pev__u64map_each(&s->procs, find_oldest, &oldest);
	if (oldest) {
		pev__unwind_free(oldest->unwind);
		oldest->unwind = NULL;
	}
}

/*
 * The unwinder of process pid (*u, NULL for a process perfev does not know),
 * built or brought up to date, and the register table to unwind it with
 * (*arch: its files' machine's, else the host's; NULL when there is none).
 */
static int proc_unwinder(struct pev_symbols *s, int32_t pid, struct sym_unwind **up,
			 const struct unwind_arch **arch)
{
	struct sym_proc *p = pev__sym_proc(s, pid, false);
	struct sym_unwind *u;
	int rc;

	*up = NULL;
	*arch = host_arch();
	if (!p)
		return 0;
	u = p->unwind;
	if (!u) {
		if (s->st.unwinders >= UNWIND_MAX)
			evict_one(s);
		u = calloc(1, sizeof(*u));
		if (!u)
			return PEV_ENOMEM;
		p->unwind = u;
		u->version = p->files_version - 1; /* never built */
		u->live = &s->st.unwinders;
		s->st.unwinders++;
	}
	u->used = ++s->unwind_clock;
	if (u->version != p->files_version && (rc = unwind_build(s, p, u)))
		return rc;
	if (u->arch)
		*arch = u->arch;
	*up = u;
	return 0;
}

/* The CFI row of pc's module (.eh_frame, else .debug_frame) at pc (caller frees), or NULL. */
static Dwarf_Frame *cfi_frame_at(struct sym_unwind *u, uint64_t pc)
{
	Dwfl_Module *m = dwfl_addrmodule(u->dwfl, pc);
	Dwarf_Frame *frame = NULL;
	Dwarf_CFI *cfi;
	Dwarf_Addr bias;

	if (!m)
		return NULL;
	cfi = dwfl_module_eh_cfi(m, &bias);
	if (cfi && dwarf_cfi_addrframe(cfi, pc - bias, &frame) == 0)
		return frame;
	cfi = dwfl_module_dwarf_cfi(m, &bias);
	if (cfi && dwarf_cfi_addrframe(cfi, pc - bias, &frame) == 0)
		return frame;
	return NULL;
}

/*
 * arm64: the first step out of a leaf no CFI covers (the vDSO has none)
 * when the leaf made no frame record: its caller is LR, with the leaf's
 * stack and frame pointers. libdw's fallback for code without CFI pops
 * the record at x29 instead, which is the caller's own when the leaf made
 * none: the caller's CFI then reads its caller's frame, and a frame is
 * skipped (clock_gettime's vDSO leaf lost its caller's caller). A record
 * the leaf made holds LR at x29 + 8, and libdw's step is then right.
 * Adds the caller to w and returns true, the caller's registers in *at;
 * false where libdw steps.
 */
static bool leaf_caller_in_lr(struct sym_unwind *u, struct unwind_walk *w,
			      struct unwind_resume *at)
{
	const struct unwind_sample *cur = &u->cur;
	Dwarf_Frame *frame;
	uint64_t pc, lr, fp;
	Dwarf_Word saved_lr;

	if (cur->arch->machine != EM_AARCH64 || w->max < 2 ||
	    !reg_value(cur->regs, cur->arch->perf_ip, &pc) ||
	    !reg_value(cur->regs, AARCH64_LR, &lr) || !reg_value(cur->regs, AARCH64_FP, &fp))
		return false;
	if ((frame = cfi_frame_at(u, pc))) {
		free(frame);
		return false;
	}
	lr = strip_pac(u->dwfl, lr);
	if (!dwfl_addrmodule(u->dwfl, lr) ||
	    (memory_read(u->dwfl, fp + 8, &saved_lr, &u->cur) && saved_lr == lr))
		return false;
	at->known = 0;
	for (unsigned d = 0; d < cur->arch->nregs && d < UNWIND_NREGS; d++) {
		uint64_t v;
		if (reg_value(cur->regs, cur->arch->dwarf_to_perf[d], &v)) {
			at->reg[d] = v;
			at->known |= UINT64_C(1) << d;
		}
	}
	at->reg[AARCH64_LR] = lr;
	at->pc = lr - 1; /* a return address is looked up within its call */
	w->out[w->n++] = (struct pev__unwind_frame){.pc = lr, .activation = false};
	return true;
}

int pev__symbols_unwind(struct pev_symbols *s, int32_t pid, int32_t tid,
			const struct pev_sample_regs *regs, const struct pev_sample_stack *stack,
			struct pev__unwind_frame *out, size_t max)
{
	struct unwind_walk w = {.out = out, .max = max, .lost_reg = -1};
	const struct unwind_arch *arch;
	struct sym_unwind *u;
	uint64_t sp, ip;
	int rc;

	if (!s || !regs || !stack || !out || !max)
		return PEV_EBADARG;
	if (regs->abi != REGS_ABI)
		return 0; /* a kernel thread: no user registers */
	if ((rc = proc_unwinder(s, pid, &u, &arch)))
		return rc;
	if (!arch)
		return PEV_EUNSUPPORTED; /* no register table for this machine */
	if (!reg_value(regs, arch->perf_ip, &ip) || !reg_value(regs, arch->perf_sp, &sp))
		return 0; /* a dump without the pc and stack pointer */
	if (!stack->size || !stack->data)
		sp = 0; /* no stack copy: the first frame only, from the registers */
	/* The user pc is the user part's first frame whatever follows (perf 6.1's
	 * libunwind): a kernel sample taken while JIT code ran keeps that frame. */
	out[0] = (struct pev__unwind_frame){.pc = ip, .activation = true};
	/* As perf 6.1: a pc in no mapped ELF file (JIT code, a mapping no record
	 * described), or of a process perfev does not know, is the one frame: no
	 * CFI unwinds it. */
	if (!u || !u->attached || !dwfl_addrmodule(u->dwfl, ip))
		return 1;
	w.lost_reg = arch->lost_reg;
	u->cur = (struct unwind_sample){.regs = regs, .stack = stack, .sp = sp, .arch = arch,
					.tid = tid > 0 ? tid : (pid > 0 ? pid : 1), .dwfl = u->dwfl};
	/* Stops at the first frame it cannot unwind: an error then is the chain's end. */
	struct unwind_resume from_lr;
	w.n = 1; /* out[0]: the leaf */
	if (leaf_caller_in_lr(u, &w, &from_lr)) {
		u->cur.resume = &from_lr;
		w.skip = 1; /* the walk starts at the caller, already in out[1] */
	} else {
		w.n = 0; /* the walk collects the leaf again */
	}
	rc = dwfl_getthread_frames(u->dwfl, u->cur.tid, collect_frame, &w);
	u->cur.resume = NULL;
	resume_walk(u, &w, rc);
	u->cur = (struct unwind_sample){0};
	if (!w.n) {
		out[0] = (struct pev__unwind_frame){.pc = ip, .activation = true};
		return 1;
	}
	return (int)w.n;
}


/*
 * Whether the caller of a leaf at pc is taken from LR when the leaf's CFI
 * cannot be followed without the stack: where no CFI covers pc, or the CFA
 * there is built on a register other than the stack pointer (the frame
 * pointer, which a -g sample does not carry). perf 6.1's unwinder
 * (libunwind) then fails its step before it has moved LR to the stack and
 * falls back to LR; where the CFA is the stack pointer's, its step fails on
 * the stack word it cannot read, and it adds no caller.
 */
static bool caller_in_lr(struct sym_unwind *u, uint64_t pc)
{
	Dwarf_Frame *frame = cfi_frame_at(u, pc);
	Dwarf_Op *ops;
	size_t nops;
	bool in_lr;

	if (!frame)
		return true; /* no CFI there (JIT code, the vDSO) */
	in_lr = dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops == 1 &&
		ops[0].atom == DW_OP_bregx && ops[0].number != AARCH64_SP;
	free(frame);
	return in_lr;
}

/*
 * Whether pc starts arm64 Linux's signal return trampoline, `mov x8, #139`
 * (rt_sigreturn) then `svc #0` (the vDSO's __kernel_rt_sigreturn), where a
 * signal handler returns to. That address is no call's return address, so
 * it is looked up as it is, as perf 6.1 does. Read from the file mapped at
 * pc in pid (the vDSO's image), whether or not CFI marks a signal frame.
 */
static bool at_sigreturn(struct pev_symbols *s, int32_t pid, uint64_t pc)
{
	static const unsigned char code[8] = {0x68, 0x11, 0x80, 0xd2, 0x01, 0x00, 0x00, 0xd4};
	struct sym_proc *p = pev__sym_proc(s, pid, false);
	const struct sym_map *m = p ? pev__sym_map_find(p, pc) : NULL;
	Elf *elf = m && m->dso ? pev__dso_elf(s, m->dso) : NULL;
	size_t size;
	const char *raw = elf ? elf_rawfile(elf, &size) : NULL;
	uint64_t at = m ? pc - m->start + m->pgoff : 0; /* its offset in the file */

	return raw && size >= sizeof(code) && at <= size - sizeof(code) &&
	       memcmp(raw + at, code, sizeof(code)) == 0;
}

int pev__symbols_leaf_caller(struct pev_symbols *s, int32_t pid, int32_t tid, uint64_t leaf,
			     const struct pev_sample_regs *regs, uint64_t *caller)
{
	const struct unwind_arch *arch;
	struct sym_unwind *u;
	uint64_t lr;
	int rc;

	if (!s || !regs || !caller)
		return PEV_EBADARG;
	if (regs->abi != REGS_ABI || !reg_value(regs, AARCH64_LR, &lr))
		return 0;
	if ((rc = proc_unwinder(s, pid, &u, &arch)))
		return rc;
	if (!arch || arch->machine != EM_AARCH64)
		return 0;
	/* The leaf's pc, LR, and a stack pointer of 0 (no stack was copied: a
	 * rule that reads the stack finds nothing, and the walk stops). */
	const uint64_t values[3] = {lr, 0, leaf};
	const struct pev_sample_regs only = {.abi = REGS_ABI,
					     .mask = UINT64_C(7) << AARCH64_LR,
					     .nr = 3,
					     .regs = values};
	const struct pev_sample_stack none = {0};
	struct pev__unwind_frame two[2];

	rc = pev__symbols_unwind(s, pid, tid, &only, &none, two, 2);
	if (rc < 0)
		return rc;
	if (rc < 2 || two[1].pc == 0) {
		/* No caller from the CFI: LR itself where perf takes it (above). */
		if (!lr || !u || !u->attached || !caller_in_lr(u, leaf))
			return 0;
		lr = strip_pac(u->dwfl, lr);
		*caller = at_sigreturn(s, pid, lr) ? lr : lr - 1;
		return 1;
	}
	*caller = two[1].activation || at_sigreturn(s, pid, two[1].pc) ? two[1].pc : two[1].pc - 1;
	return 1;
}

void pev__unwind_free(struct sym_unwind *u)
{
	if (!u)
		return;
	if (u->dwfl)
		dwfl_end(u->dwfl);
	if (u->live)
		(*u->live)--;
	free(u);
}
