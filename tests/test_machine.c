/* SPDX-License-Identifier: MIT */
/* test_machine.c - placeholder, being written. */
#include "helpers.h"
