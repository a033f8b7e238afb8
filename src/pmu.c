/* SPDX-License-Identifier: MIT */
/* pmu.c - being written. */
#include "perfev.h"
