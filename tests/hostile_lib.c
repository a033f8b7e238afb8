/* SPDX-License-Identifier: MIT */
/*
 * hostile_lib.c - the shared library test_hostile_names copies into
 * directories with hostile names (a newline; the text "\012") and
 * hostile_dlopen loads: one function that spins until its process is
 * killed.
 */

/* Where the loop adds: memory the compiler must write. */
static volatile unsigned long sink;

/* Spins forever in this library's code (the symbol the tests look for). */
__attribute__((visibility("default"), noinline)) void hostile_lib_spin(void);

void hostile_lib_spin(void)
{
	for (;;)
		for (int i = 0; i < 100000; i++)
			sink += (unsigned long)i;
}
