/* SPDX-License-Identifier: MIT */
/* test_diagnose.c - placeholder, being written. */
#include "helpers.h"
