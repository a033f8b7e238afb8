/* SPDX-License-Identifier: MIT */
/* test_counter.c - placeholder, being written. */
#include "helpers.h"
