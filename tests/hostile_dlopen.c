/* SPDX-License-Identifier: MIT */
/*
 * hostile_dlopen.c - loads a shared library from the path it is given
 * (test_hostile_names puts it in a directory with a newline in its name)
 * and spins in its hostile_lib_spin until killed. Its comm is hostile too
 * (ESC, a newline, a byte that is not UTF-8) for test_cmd_top's zoom.
 *
 *   hostile_dlopen LIB   prints "pid N spin 0xADDR" (ADDR: hostile_lib_spin
 *                        in this process) once the library is mapped, then
 *                        spins: the line is the test's signal to attach.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	void *lib, *spin;

	if (argc != 2) {
		fprintf(stderr, "usage: hostile_dlopen LIB\n");
		return 2;
	}
	lib = dlopen(argv[1], RTLD_NOW);
	if (!lib || !(spin = dlsym(lib, "hostile_lib_spin"))) {
		fprintf(stderr, "hostile_dlopen: %s\n", dlerror());
		return 1;
	}
	prctl(PR_SET_NAME, "dl\x1b[7m\nx\xff", 0, 0, 0);
	printf("pid %d spin %p\n", (int)getpid(), spin);
	fflush(stdout);
	((void (*)(void))spin)();
	return 0;
}
