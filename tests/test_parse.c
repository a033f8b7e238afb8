/* SPDX-License-Identifier: MIT */
/* test_parse.c - placeholder, being written. */
#include "helpers.h"
