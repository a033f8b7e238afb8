/* SPDX-License-Identifier: MIT */
/* test_errno_live.c - placeholder, being written. */
#include "helpers.h"
