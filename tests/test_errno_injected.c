/* SPDX-License-Identifier: MIT */
/* test_errno_injected.c - placeholder, being written. */
#include "helpers.h"
