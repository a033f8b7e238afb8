/* Expands a CPU list such as the kernel writes in /sys/devices/system/cpu/online. */
#include <perfev.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	const char *list = argc > 1 ? argv[1] : "0-3,8,10-11";
	int cpus[256];
	int n = pev_cpulist_parse(list, cpus, 256);

	if (n < 0) {
		fprintf(stderr, "%s: %s\n", list, pev_strerror(n));
		return 1;
	}
	for (int i = 0; i < n && i < 256; i++)
		printf("%d\n", cpus[i]);
	printf("CPU 8 is %sin the list\n", pev_cpulist_contains(list, 8) ? "" : "not ");
	return 0;
}
