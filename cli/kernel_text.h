/* SPDX-License-Identifier: MIT */
#ifndef PERFEV_CLI_KERNEL_TEXT_H
#define PERFEV_CLI_KERNEL_TEXT_H

#include <stdint.h>

/*
 * Reads the kernel text's start from kallsyms (a /proc/kallsyms file):
 * `_text`'s address, else `_stext`'s. Sets *addr and *name (the symbol's
 * name, static) and returns 1; returns 0 with *addr 0 when the file is
 * unreadable, lists neither or hides addresses (kptr_restrict shows 0).
 */
int cli_kernel_text(const char *kallsyms, uint64_t *addr, const char **name);

#endif
