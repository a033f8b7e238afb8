/* SPDX-License-Identifier: MIT */
/*
 * hw_loop.c - the program test_hw_pmu counts with perf stat and perfev stat:
 * no C library, no loader, just 100,000 rounds of 4 instructions and the
 * exit system call, so that it runs 400,000 user instructions and a few
 * more (5 on arm64, 4 on x86-64), the same on every run.
 */
#if defined(__aarch64__)
__asm__(".text\n"
	".globl _start\n"
	"_start:\n"
	"	mov x1, #0x86a0\n"
	"	movk x1, #0x1, lsl #16\n" /* 100,000 */
	"1:	add x2, x2, #1\n"
	"	nop\n"
	"	sub x1, x1, #1\n"
	"	cbnz x1, 1b\n"
	"	mov x0, #0\n"
	"	mov x8, #93\n" /* exit */
	"	svc #0\n");
#elif defined(__x86_64__)
__asm__(".text\n"
	".globl _start\n"
	"_start:\n"
	"	mov $100000, %ecx\n"
	"1:	add $1, %rdx\n"
	"	nop\n"
	"	dec %rcx\n"
	"	jnz 1b\n"
	"	xor %edi, %edi\n"
	"	mov $60, %eax\n" /* exit */
	"	syscall\n");
#else
#error "hw_loop has no loop for this architecture"
#endif
