/* SPDX-License-Identifier: MIT */
/* test_attr.c - placeholder, being written. */
#include "helpers.h"
