/* SPDX-License-Identifier: MIT */
/* test_tracepoint.c - placeholder, being written. */
#include "helpers.h"
