/* SPDX-License-Identifier: MIT */
#ifndef PERFEV_CLI_KERNEL_MODULES_H
#define PERFEV_CLI_KERNEL_MODULES_H

#include <stddef.h>
#include <stdint.h>

/* A loaded kernel module: where its core is and the file it came from. */
struct cli_kmod {
	uint64_t start, size;
	char name[64];   /* as /proc/modules names it: "9p", "virtio_net" */
	char path[4096]; /* its file under modules_dir ("/lib/modules/R/kernel/fs/9p/9p.ko"),
			    or "[name]" when none is found, as perf names it then */
};

/*
 * The loaded modules of a /proc/modules file, by ascending start address,
 * each with its file found under modules_dir (searched only when there are
 * modules; a name's '-' and '_' are the same). Returns the count and sets
 * *out (free() it; NULL for none); 0 when the file is unreadable or hides
 * addresses (kptr_restrict shows 0), -1 when out of memory.
 */
int cli_kernel_modules(const char *proc_modules, const char *modules_dir, struct cli_kmod **out);

#endif
