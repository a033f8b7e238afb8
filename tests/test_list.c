/* SPDX-License-Identifier: MIT */
/* test_list.c - placeholder, being written. */
#include "helpers.h"
