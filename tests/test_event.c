/* SPDX-License-Identifier: MIT */
/* test_event.c - placeholder, being written. */
#include "helpers.h"
