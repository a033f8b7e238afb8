/* SPDX-License-Identifier: MIT */
/* test_pmu.c - placeholder, being written. */
#include "helpers.h"
