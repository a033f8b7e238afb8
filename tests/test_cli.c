/* SPDX-License-Identifier: MIT */
/* test_cli.c - placeholder, being written. */
#include "helpers.h"
