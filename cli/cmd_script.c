/* SPDX-License-Identifier: MIT */
/*
 * cmd_script.c - `perfev script`: one line per sample of a perf.data file.
 */
#include "cli.h"

int cmd_script(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_error("'perfev script' is not built yet; use 'perf script' meanwhile");
	return 1;
}
