/* SPDX-License-Identifier: MIT */
/*
 * kernel_text.c - the start of the kernel's text as /proc/kallsyms gives
 * it, under the name perf relocates kernel addresses by: `_text` where the
 * kernel has it (x86-64, arm64), else `_stext`, the name some
 * configurations list instead. It is among the first lines where it exists:
 * the whole list (formatted by the kernel line by line) is read only when
 * `_text` is missing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_text.h"

int cli_kernel_text(const char *kallsyms, uint64_t *addr, const char **name)
{
	FILE *f = fopen(kallsyms, "re");
	char line[512];
	uint64_t stext = 0;

	*addr = 0;
	*name = NULL;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *end;
		unsigned long long a = strtoull(line, &end, 16);

		if (end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		if (strcmp(end + 3, "_text\n") == 0) {
			*addr = a;
			*name = "_text";
			break;
		}
		if (!stext && strcmp(end + 3, "_stext\n") == 0)
			stext = a;
	}
	fclose(f);
	if (!*addr && stext) {
		*addr = stext;
		*name = "_stext";
	}
	if (!*addr)
		*name = NULL; /* hidden: kptr_restrict shows 0 */
	return *addr != 0;
}
