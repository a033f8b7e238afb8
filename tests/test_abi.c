/* SPDX-License-Identifier: MIT */
/* test_abi.c - placeholder, being written. */
#include "helpers.h"
