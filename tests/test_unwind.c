/* SPDX-License-Identifier: MIT */
/*
 * test_unwind.c - user stacks unwound from a register dump and a stack
 * copy (symbols_unwind.c), without the kernel: this test takes its own
 * registers and a copy of its own stack, as PERF_SAMPLE_REGS_USER and
 * PERF_SAMPLE_STACK_USER would, and unwinds them through the address space
 * of its /proc/self/maps. The whole copy unwinds to the test's callers; a
 * truncated copy, a garbage copy, a copy whose every word points back into
 * itself, missing registers and unknown processes all stop cleanly. A
 * frame whose CFA is counted from rbx (a realigned stack, as ld.so's lazy
 * binding has) unwinds to its callers under a callee that never saved rbx.
 * It runs on x86-64 and arm64 (perf's register dump of each); the realigned
 * frame is x86-64's only.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "perfev.h"

#include "symbols/symbols_internal.h"

#include <elf.h>
#include <limits.h>

/* perf's register dump as `record --call-graph dwarf` asks for it. */
#if defined(__x86_64__)
#define DUMP_MASK UINT64_C(0xff0fff) /* AX .. SS, R8 .. R15 */
#define NREGS 20
#define REG_SP 7
#define REG_IP 8
#define HAVE_SNAPSHOT 1
#elif defined(__aarch64__)
#define DUMP_MASK ((UINT64_C(1) << 33) - 1) /* x0 .. x30, sp, pc */
#define NREGS 33
#define REG_SP 31
#define REG_IP 32
#define HAVE_SNAPSHOT 1
#else
#define NREGS 1
#endif
#define STACK_BYTES 8192
#define MAX_FRAMES 64

/* One "sample": registers in dump order and a copy of the stack above sp. */
struct snapshot {
	uint64_t regs[NREGS];
	unsigned char stack[STACK_BYTES];
	uint64_t stack_size;
};

#if defined(HAVE_SNAPSHOT)
static struct snapshot snap;

/* The stack's highest address (its end), so that the copy reads nothing past it. */
static uintptr_t stack_end(void)
{
	pthread_attr_t a;
	void *lo;
	size_t size;

	cr_assert_eq(pthread_getattr_np(pthread_self(), &a), 0);
	cr_assert_eq(pthread_attr_getstack(&a, &lo, &size), 0);
	pthread_attr_destroy(&a);
	return (uintptr_t)lo + size;
}

/*
 * Copies the live stack byte by byte, as the kernel copies a sample's: it
 * reads the sanitizers' red zones between locals, which are not errors here
 * (memcpy would be checked by AddressSanitizer, even when called from an
 * uninstrumented function).
 */
__attribute__((no_sanitize("address"))) static void copy_stack(unsigned char *dst,
							       const unsigned char *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = ((const volatile unsigned char *)src)[i];
}

/*
 * Takes this function's registers (in the dump's order: x86-64's AX BX CX
 * DX SI DI BP SP IP FLAGS CS SS R8..R15, arm64's x0..x30 SP PC; the ones
 * CFI reads: callee-saved, frame, stack pointer, pc) and copies the stack
 * above its sp.
 */
__attribute__((noinline)) static void take_snapshot(struct snapshot *s)
{
	uint64_t r[NREGS] = {0};
	uintptr_t end;

#if defined(__x86_64__)
	__asm__ volatile("mov %%rbx, 8(%0)\n\t"
			 "mov %%rbp, 48(%0)\n\t"
			 "mov %%rsp, 56(%0)\n\t"
			 "lea 0(%%rip), %%rax\n\t"
			 "mov %%rax, 64(%0)\n\t"
			 "mov %%r12, 128(%0)\n\t"
			 "mov %%r13, 136(%0)\n\t"
			 "mov %%r14, 144(%0)\n\t"
			 "mov %%r15, 152(%0)\n\t"
			 :
			 : "r"(r)
			 : "rax", "memory");
#else
	__asm__ volatile("stp x19, x20, [%0, #152]\n\t"
			 "stp x21, x22, [%0, #168]\n\t"
			 "stp x23, x24, [%0, #184]\n\t"
			 "stp x25, x26, [%0, #200]\n\t"
			 "stp x27, x28, [%0, #216]\n\t"
			 "stp x29, x30, [%0, #232]\n\t"
			 "mov x9, sp\n\t"
			 "str x9, [%0, #248]\n\t"
			 "adr x9, .\n\t"
			 "str x9, [%0, #256]\n\t"
			 :
			 : "r"(r)
			 : "x9", "memory");
#endif
	end = stack_end();
	s->stack_size = end - r[REG_SP] < STACK_BYTES ? end - r[REG_SP] : STACK_BYTES;
	copy_stack(s->stack, (const unsigned char *)(uintptr_t)r[REG_SP], s->stack_size);
	memcpy(s->regs, r, sizeof(r));
}

__attribute__((noinline)) void unwind_level2(void);
__attribute__((noinline)) void unwind_level1(void);

__attribute__((noinline)) void unwind_level2(void)
{
	take_snapshot(&snap);
	__asm__ volatile("" ::: "memory"); /* no tail call */
}

__attribute__((noinline)) void unwind_level1(void)
{
	unwind_level2();
	__asm__ volatile("" ::: "memory");
}
#endif

#if defined(__x86_64__)
/*
 * unwind_realigned keeps its caller's stack pointer in rbx and aligns its
 * own to 64 bytes, as ld.so's _dl_runtime_resolve does: its CFA is rbx + 16.
 * It calls unwind_rbx_leaf, which takes the snapshot and never saves rbx, so
 * the unwinder must carry rbx up from the registers (libdw's x86-64 defaults
 * lose it there).
 */
void unwind_realigned(void);
__attribute__((noinline, used)) void unwind_rbx_leaf(void);
__attribute__((noinline)) void unwind_realigned_caller(void);

__asm__(".text\n"
	".globl unwind_realigned\n"
	".type unwind_realigned, @function\n"
	"unwind_realigned:\n"
	".cfi_startproc\n"
	"push %rbx\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset %rbx, -16\n"
	"mov %rsp, %rbx\n"
	".cfi_def_cfa_register %rbx\n"
	"and $-64, %rsp\n"
	"call unwind_rbx_leaf\n"
	"mov %rbx, %rsp\n"
	".cfi_def_cfa_register %rsp\n"
	"pop %rbx\n"
	".cfi_def_cfa_offset 8\n"
	"ret\n"
	".cfi_endproc\n"
	".size unwind_realigned, .-unwind_realigned\n");

__attribute__((noinline, used)) void unwind_rbx_leaf(void)
{
	take_snapshot(&snap);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void unwind_realigned_caller(void)
{
	unwind_realigned();
	__asm__ volatile("" ::: "memory");
}
#endif

#if defined(__aarch64__)
/*
 * unwind_signed signs its return address (paciasp, pointer authentication:
 * a code in the address's unused top bits, as Debian's arm64 libraries and
 * kernel sign every one) before it saves it, and keeps the signed word in
 * unwind_signed_lr. It calls unwind_signed_leaf, which takes the snapshot:
 * the unwinder must strip the code from the saved word to go on to
 * unwind_signed_caller. On a CPU without pointer authentication paciasp
 * does nothing (it is a hint).
 */
void unwind_signed(void);
extern const char unwind_signed_ret[];
__attribute__((noinline, used)) void unwind_signed_leaf(void);
__attribute__((noinline)) void unwind_signed_caller(void);
uint64_t unwind_signed_lr;

__asm__(".text\n"
	".globl unwind_signed\n"
	".type unwind_signed, %function\n"
	"unwind_signed:\n"
	".cfi_startproc\n"
	"hint #25\n" /* paciasp */
	".cfi_negate_ra_state\n"
	"stp x29, x30, [sp, #-16]!\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset 29, -16\n"
	".cfi_offset 30, -8\n"
	"mov x29, sp\n"
	"adrp x9, unwind_signed_lr\n"
	"str x30, [x9, :lo12:unwind_signed_lr]\n"
	"bl unwind_signed_leaf\n"
	".globl unwind_signed_ret\n"
	"unwind_signed_ret:\n"
	"ldp x29, x30, [sp], #16\n"
	".cfi_restore 30\n"
	".cfi_restore 29\n"
	".cfi_def_cfa_offset 0\n"
	"hint #29\n" /* autiasp */
	".cfi_negate_ra_state\n"
	"ret\n"
	".cfi_endproc\n"
	".size unwind_signed, .-unwind_signed\n");

__attribute__((noinline, used)) void unwind_signed_leaf(void)
{
	take_snapshot(&snap);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void unwind_signed_caller(void)
{
	unwind_signed();
	__asm__ volatile("" ::: "memory");
}
#endif

#if defined(HAVE_SNAPSHOT)
static struct pev_symbols *symbols_of_self(void)
{
	struct pev_symbols *s = NULL;

	cr_assert_eq(pev_symbols_new(NULL, &s, NULL), 0);
	cr_assert_eq(pev_symbols_read_process(s, getpid(), NULL), 0);
	return s;
}

static struct pev_sample_regs regs_of(const struct snapshot *s)
{
	return (struct pev_sample_regs){
		.abi = 2 /* PERF_SAMPLE_REGS_ABI_64 */, .mask = DUMP_MASK, .nr = NREGS, .regs = s->regs};
}

static int unwind(struct pev_symbols *s, const struct pev_sample_regs *regs, const void *stack,
		  uint64_t size, uint64_t dyn_size, struct pev__unwind_frame *out)
{
	struct pev_sample_stack st = {.size = size, .data = size ? stack : NULL,
				      .dyn_size = dyn_size};

	return pev__symbols_unwind(s, getpid(), (int32_t)gettid(), regs, &st, out, MAX_FRAMES);
}

/* The function holding frame f's pc (a return address looks up at pc - 1). */
static const char *function_of(struct pev_symbols *s, const struct pev__unwind_frame *f)
{
	struct pev_symbol sym = PEV_SYMBOL_INIT;

	cr_assert_eq(pev_symbols_resolve(s, getpid(), f->activation ? f->pc : f->pc - 1, &sym), 0);
	return sym.name;
}

#endif

/* Skips a test of live unwinding where this file cannot take a snapshot. */
static void need_snapshot(void)
{
#if !defined(HAVE_SNAPSHOT)
	th_skip("test_unwind.c takes register snapshots on x86-64 and arm64 only");
#endif
}

/* Skips a test of the x86-64 realigned frame elsewhere. */
static void need_x86_64(void)
{
#if !defined(__x86_64__)
	th_skip("a frame whose CFA is counted from rbx is x86-64's");
#endif
}

TestSuite(unwind, .init = th_leak_init, .fini = th_leak_fini);

Test(unwind, whole_copy_reaches_the_callers)
{
	need_snapshot();
#if defined(HAVE_SNAPSHOT)
	struct pev_symbols *s = symbols_of_self();
	struct pev__unwind_frame f[MAX_FRAMES];
	struct pev_sample_regs regs;
	bool l1 = false, l2 = false;
	int n;

	unwind_level1();
	regs = regs_of(&snap);
	n = unwind(s, &regs, snap.stack, STACK_BYTES, snap.stack_size, f);
	cr_assert_geq(n, 3, "unwound %d frames", n);
	cr_expect(f[0].activation);
	/* gcc may give it a clone's name (take_snapshot.constprop.0). */
	cr_expect(strncmp(function_of(s, &f[0]), "take_snapshot", 13) == 0, "%s",
		  function_of(s, &f[0]));
	for (int i = 1; i < n; i++) {
		const char *name = function_of(s, &f[i]);
		cr_expect(!f[i].activation, "frame %d (%s) is a return address", i, name);
		l2 |= strcmp(name, "unwind_level2") == 0;
		l1 |= strcmp(name, "unwind_level1") == 0;
	}
	cr_expect(l2 && l1, "the chain names unwind_level2 and unwind_level1");

	/* The same again: the process's unwinder is kept, and answers alike. */
	cr_expect_eq(unwind(s, &regs, snap.stack, STACK_BYTES, snap.stack_size, f), n);
	pev_symbols_free(s);
#endif
}

Test(unwind, frame_counted_from_rbx_goes_on_to_its_callers)
{
	need_x86_64();
#if defined(__x86_64__)
	static const char *const want[] = {"unwind_rbx_leaf", "unwind_realigned",
					   "unwind_realigned_caller"};
	struct pev_symbols *s = symbols_of_self();
	struct pev__unwind_frame f[MAX_FRAMES];
	struct pev_sample_regs regs;
	int n, next = 0;

	unwind_realigned_caller();
	regs = regs_of(&snap);
	n = unwind(s, &regs, snap.stack, STACK_BYTES, snap.stack_size, f);
	for (int i = 1; i < n && next < 3; i++)
		if (strcmp(function_of(s, &f[i]), want[next]) == 0)
			next++;
	cr_expect_eq(next, 3, "of %d frames, the chain names %s but not %s", n,
		     next ? want[next - 1] : "none of the three", want[next < 3 ? next : 2]);
	/* And the test's callers beyond them, as the plain chain reaches. */
	unwind_level1();
	regs = regs_of(&snap);
	cr_expect_geq(n, unwind(s, &regs, snap.stack, STACK_BYTES, snap.stack_size, f) + 1,
		      "the realigned chain is shorter than the plain one");
	pev_symbols_free(s);
#endif
}

/*
 * A return address saved signed (arm64 pointer authentication) is an
 * address once its code is stripped: the chain goes on past the function
 * that signed it. Where the CPU signs nothing, the chain is checked all the
 * same, and the log says that no signed address was met.
 */
Test(unwind, signed_return_address_goes_on_to_its_callers)
{
#if !defined(__aarch64__)
	th_skip("pointer authentication is arm64's");
#else
	static const char *const want[] = {"unwind_signed_leaf", "unwind_signed",
					   "unwind_signed_caller"};
	struct pev_symbols *s = symbols_of_self();
	struct pev__unwind_frame f[MAX_FRAMES];
	struct pev_sample_regs regs;
	int n, next = 0;

	unwind_signed_caller();
	regs = regs_of(&snap);
	if (unwind_signed_lr == (uint64_t)(uintptr_t)unwind_signed_ret)
		th_skip_log("this CPU does not sign return addresses (no pointer authentication): "
			    "the chain is checked without a signed one");
	n = unwind(s, &regs, snap.stack, STACK_BYTES, snap.stack_size, f);
	for (int i = 0; i < n && next < 3; i++)
		if (strcmp(function_of(s, &f[i]), want[next]) == 0)
			next++;
	cr_expect_eq(next, 3, "of %d frames, the chain names %s but not %s (saved x30: %#" PRIx64
		     ", the address: %p)", n, next ? want[next - 1] : "none of the three",
		     want[next < 3 ? next : 2], unwind_signed_lr, (const void *)unwind_signed_ret);
	pev_symbols_free(s);
#endif
}

Test(unwind, truncated_copy_stops_cleanly)
{
	need_snapshot();
#if defined(HAVE_SNAPSHOT)
	struct pev_symbols *s = symbols_of_self();
	struct pev__unwind_frame f[MAX_FRAMES];
	struct pev_sample_regs regs;
	int whole, n;

	unwind_level1();
	regs = regs_of(&snap);
	whole = unwind(s, &regs, snap.stack, STACK_BYTES, snap.stack_size, f);
	/* Every shorter copy: a prefix of the chain, at least the sampled pc. */
	for (uint64_t dyn = 0; dyn <= 256; dyn += 8) {
		n = unwind(s, &regs, snap.stack, STACK_BYTES, dyn, f);
		cr_expect(n >= 1 && n <= whole, "%d frames from %" PRIu64 " bytes", n, dyn);
	}
	/* No copy at all (size 0): the sampled pc alone. */
	n = unwind(s, &regs, NULL, 0, 0, f);
	cr_expect_eq(n, 1);
	cr_expect_eq(f[0].pc, snap.regs[REG_IP]);
	/* A dyn_size larger than the copy reads only the copy. */
	n = unwind(s, &regs, snap.stack, 64, UINT64_MAX, f);
	cr_expect(n >= 1 && n <= whole);
	pev_symbols_free(s);
#endif
}

Test(unwind, garbage_copy_stops_cleanly)
{
	need_snapshot();
#if defined(HAVE_SNAPSHOT)
	struct pev_symbols *s = symbols_of_self();
	struct pev__unwind_frame f[MAX_FRAMES];
	static uint64_t junk[STACK_BYTES / 8];
	struct pev_sample_regs regs;
	uint64_t x = 0x9e3779b97f4a7c15u;
	int n;

	unwind_level1();
	regs = regs_of(&snap);
	/* Random words. */
	for (size_t i = 0; i < STACK_BYTES / 8; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		junk[i] = x;
	}
	n = unwind(s, &regs, junk, STACK_BYTES, STACK_BYTES, f);
	cr_expect(n >= 1 && n <= MAX_FRAMES, "%d frames", n);
	/* Every word the address of the copy's start (a loop) or a code address. */
	for (size_t i = 0; i < STACK_BYTES / 8; i++)
		junk[i] = i % 2 ? snap.regs[REG_SP] : snap.regs[REG_IP];
	n = unwind(s, &regs, junk, STACK_BYTES, STACK_BYTES, f);
	cr_expect(n >= 1 && n <= MAX_FRAMES, "%d frames", n);
	/* Garbage registers: a pc in no mapping, a stack pointer of zero. */
	struct snapshot bad = snap;
	bad.regs[REG_SP] = 0;
	bad.regs[REG_IP] = 0x10;
	regs = regs_of(&bad);
	n = unwind(s, &regs, junk, STACK_BYTES, STACK_BYTES, f);
	cr_expect(n >= 0 && n <= MAX_FRAMES, "%d frames", n);
	pev_symbols_free(s);
#endif
}

Test(unwind, missing_registers_give_nothing_an_unknown_process_its_pc)
{
	need_snapshot();
#if defined(HAVE_SNAPSHOT)
	struct pev_symbols *s = symbols_of_self();
	struct pev__unwind_frame f[MAX_FRAMES];
	struct pev_sample_regs regs;
	struct pev_sample_stack st = {.size = STACK_BYTES, .data = snap.stack,
				      .dyn_size = STACK_BYTES};

	unwind_level1();
	/* ABI NONE: a kernel thread has no user registers. */
	regs = regs_of(&snap);
	regs.abi = 0;
	cr_expect_eq(unwind(s, &regs, snap.stack, STACK_BYTES, snap.stack_size, f), 0);
	/* A dump without the stack pointer and the pc. */
	regs = regs_of(&snap);
	regs.mask = 0x3f;
	regs.nr = 6;
	cr_expect_eq(unwind(s, &regs, snap.stack, STACK_BYTES, snap.stack_size, f), 0);
	/* A mask that claims more registers than the dump holds. */
	regs = regs_of(&snap);
	regs.nr = 4;
	cr_expect_eq(unwind(s, &regs, snap.stack, STACK_BYTES, snap.stack_size, f), 0);
	/* A process the symbolizer does not know: the pc alone (perf 6.1's first
	 * user frame, JIT code named from a JIT map). */
	regs = regs_of(&snap);
	cr_expect_eq(pev__symbols_unwind(s, 0x7ffffff0, 1, &regs, &st, f, MAX_FRAMES), 1);
	cr_expect_eq(f[0].pc, snap.regs[REG_IP]);
	cr_expect(f[0].activation);
	/* Bad arguments. */
	cr_expect_eq(pev__symbols_unwind(NULL, getpid(), 1, &regs, &st, f, MAX_FRAMES),
		     PEV_EBADARG);
	cr_expect_eq(pev__symbols_unwind(s, getpid(), 1, &regs, &st, f, 0), PEV_EBADARG);
	pev_symbols_free(s);
#endif
}

/* perf's dump order for each DWARF register the unwinder gives libdw. */
Test(unwind, register_tables_follow_perf_dump_order)
{
	/* x86-64: DWARF rax rdx rcx rbx rsi rdi rbp rsp r8..r15, the return
	 * address column (16) read from the pc. */
	static const int x86[] = {0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8};

	for (unsigned d = 0; d < 17; d++)
		cr_expect_eq(pev__unwind_perf_reg(EM_X86_64, d), x86[d], "x86-64 DWARF %u", d);
	cr_expect_eq(pev__unwind_perf_reg(EM_X86_64, 17), -1);
	cr_expect_eq(pev__unwind_perf_reg(EM_X86_64, UINT_MAX), 8);
	/* arm64: x0..x30 and sp (DWARF 0..31) are perf's 0..31, the pc 32. */
	for (unsigned d = 0; d < 32; d++)
		cr_expect_eq(pev__unwind_perf_reg(EM_AARCH64, d), (int)d, "arm64 DWARF %u", d);
	cr_expect_eq(pev__unwind_perf_reg(EM_AARCH64, 32), -1);
	cr_expect_eq(pev__unwind_perf_reg(EM_AARCH64, UINT_MAX), 32);
	cr_expect_eq(pev__unwind_perf_reg(EM_RISCV, 0), PEV_EUNSUPPORTED);
}
