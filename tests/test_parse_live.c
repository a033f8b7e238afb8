/* SPDX-License-Identifier: MIT */
/* test_parse_live.c - placeholder, being written. */
#include "helpers.h"
