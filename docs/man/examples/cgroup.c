/* Counts the CPU time of a cgroup's tasks on every CPU for a second: perf stat -a -G NAME. */
#include <perfev.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "/";
	char dir[4096], container[65];
	struct pev_error err;
	struct pev_counter *c;
	struct pev_count count;
	uint64_t id;

	if (pev_cgroup_dir(name, dir, sizeof(dir), &err) < 0) {
		fprintf(stderr, "%s\n%s\n", err.message, err.hint);
		return 1;
	}
	struct pev_event ev = pev_event_software(PEV_SW_CPU_CLOCK);
	struct pev_target t = pev_target_cgroup(dir);
	if (pev_counter_open(&ev, NULL, &t, NULL, &c, &err) < 0) {
		fprintf(stderr, "%s\n%s\n", err.message, err.hint);
		return 1;
	}
	pev_counter_enable(c);
	sleep(1);
	pev_counter_read(c, &count);
	pev_counter_close(c);
	if (pev_cgroup_id(dir, &id) == 0)
		printf("cgroup %s (id %llu)", dir, (unsigned long long)id);
	if (pev_cgroup_container_id(dir, container, sizeof(container)) == 1)
		printf(", container %.12s", container);
	printf(": %.3f ms of CPU in 1 s\n", (double)count.value / 1e6);
	return 0;
}
