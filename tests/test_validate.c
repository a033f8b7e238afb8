/* SPDX-License-Identifier: MIT */
/* test_validate.c - placeholder, being written. */
#include "helpers.h"
