/* SPDX-License-Identifier: MIT */
/* test_uprobe_resolve.c - placeholder, being written. */
#include "helpers.h"
