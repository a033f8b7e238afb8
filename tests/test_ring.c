/* SPDX-License-Identifier: MIT */
/* test_ring.c - placeholder, being written. */
#include "helpers.h"
