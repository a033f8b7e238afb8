/* SPDX-License-Identifier: MIT */
/* test_pfm.c - placeholder, being written. */
#include "helpers.h"
